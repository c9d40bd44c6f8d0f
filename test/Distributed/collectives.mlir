// RUN: tiny-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tt-lower-shard-collectives,canonicalize))' --verify-diagnostics | FileCheck %s

// all_slice: this process's part, no communication. The first grid axis
// varies slowest.
// CHECK-LABEL: func.func @slice(
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[I:.*]]:2 = shard.process_multi_index on @grid axes = [0, 1] : index, index
// CHECK: %[[A:.*]] = arith.muli %[[I]]#0, %[[C3]] : index
// CHECK: %[[B:.*]] = arith.addi %[[A]], %[[I]]#1 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[B]], %[[C2]] : index
// CHECK: tensor.extract_slice %arg0[0, %[[OFF]]] [5, 2] [1, 1] : tensor<5x12xf32> to tensor<5x2xf32>
// CHECK-NOT: shard.all_slice
shard.grid @grid(shape = 2x3)
func.func @slice(%x: tensor<5x12xf32>) -> tensor<5x2xf32> {
  %0 = shard.all_slice %x on @grid grid_axes = [0, 1] slice_axis = 1 : tensor<5x12xf32> -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

// all_gather: zeros with this process's part inserted, summed.
// CHECK-LABEL: func.func @gather(
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x3xf32>)
// CHECK: %[[P:.*]] = tensor.insert_slice %arg0 into %[[Z]][%{{.*}}, 0] [4, 3] [1, 1]
// CHECK: shard.all_reduce %[[P]] on @grid grid_axes = [0] : tensor<8x3xf32> -> tensor<8x3xf32>
// CHECK-NOT: shard.all_gather
shard.grid @grid(shape = 2)
func.func @gather(%x: tensor<4x3xf32>) -> tensor<8x3xf32> {
  %0 = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 0 : tensor<4x3xf32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// reduce_scatter: the sum, then this process's part.
// CHECK-LABEL: func.func @scatter(
// CHECK: %[[S:.*]] = shard.all_reduce %arg0 on @grid grid_axes = [0] reduction = max : tensor<8xf32> -> tensor<8xf32>
// CHECK: tensor.extract_slice %[[S]][%{{.*}}] [4] [1]
shard.grid @grid(shape = 2)
func.func @scatter(%x: tensor<8xf32>) -> tensor<4xf32> {
  %0 = shard.reduce_scatter %x on @grid grid_axes = [0] reduction = max scatter_axis = 0 : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @to_all(%x: tensor<4x4xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'shard.all_to_all' has no lowering to MPI in TinyTensor or in MLIR 22's --convert-shard-to-mpi}}
  %0 = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x4xf32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @argmax(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{a reduction over a split dimension whose combiner MLIR cannot classify as a sum, product, minimum or maximum}}
  %0 = shard.all_reduce %x on @grid grid_axes = [0] reduction = generic : tensor<4xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
