// RUN: tiny-opt %s --split-input-file --tt-distribute --verify-diagnostics | FileCheck %s

// A tensor-parallel MLP (columns of w1, rows of w2): each process computes
// its columns of the hidden layer and its part of the second product; one
// all-reduce (MPI) sums the parts before the replicated bias is added.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NOT: shard.
// CHECK: linalg.matmul {{.*}} tensor<4x8xf32>, tensor<8x8xf32>
// CHECK: linalg.matmul {{.*}} tensor<4x8xf32>, tensor<8x8xf32>
// CHECK: %[[COMM:.*]] = mpi.comm_split
// CHECK: mpi.allreduce(%[[BUF:.*]], %[[BUF]], MPI_SUM, %[[COMM]]) : memref<32xf32>, memref<32xf32>
// CHECK-NOT: mpi.allreduce
// CHECK: return
module attributes {tt.grid = array<i64: 2>} {
  func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32> {tt.split_axes = [[], [0]]},
                 %b1: tensor<16xf32> {tt.split_axes = [[0]]},
                 %w2: tensor<16x8xf32> {tt.split_axes = [[0]]},
                 %b2: tensor<8xf32>) -> tensor<4x8xf32> {
    %cst = arith.constant 0.0 : f32
    %e1 = tensor.empty() : tensor<4x16xf32>
    %z1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z1 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%h, %b1 : tensor<4x16xf32>, tensor<16xf32>) outs(%e1 : tensor<4x16xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      %m = arith.maximumf %s, %cst : f32
      linalg.yield %m : f32
    } -> tensor<4x16xf32>
    %e2 = tensor.empty() : tensor<4x8xf32>
    %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %y = linalg.matmul ins(%r, %w2 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z2 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y, %b2 : tensor<4x8xf32>, tensor<8xf32>) outs(%e2 : tensor<4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    return %out : tensor<4x8xf32>
  }
}

// -----

// Data parallel: the batch is split, the result replicated. The all-gather
// (which --convert-shard-to-mpi lacks) becomes this process's rows placed
// in zeros and an all-reduce.

// CHECK-LABEL: func.func @batch(
// CHECK-SAME: %{{.*}}: tensor<2x8xf32>, %{{.*}}: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[LOCAL:.*]] = linalg.matmul {{.*}} -> tensor<2x8xf32>
// CHECK-DAG: mpi.comm_rank
// CHECK-DAG: %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<4x8xf32>
// CHECK: tensor.insert_slice %[[LOCAL]] into %[[ZEROS]][%{{.*}}, 0] [2, 8] [1, 1]
// CHECK: mpi.allreduce({{.*}}, MPI_SUM, {{.*}}) : memref<32xf32>, memref<32xf32>
module attributes {tt.grid = array<i64: 2>} {
  func.func @batch(%x: tensor<4x8xf32> {tt.split_axes = [[0]]}, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %cst = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}

// -----

// A split result comes back split: no communication at all.

// CHECK-LABEL: func.func @local(
// CHECK-SAME: -> tensor<2x8xf32>
// CHECK-NOT: mpi.
// CHECK: return
module attributes {tt.grid = array<i64: 2>} {
  func.func @local(%x: tensor<4x8xf32> {tt.split_axes = [[0]]}) -> (tensor<4x8xf32> {tt.split_axes = [[0]]}) {
    %e = tensor.empty() : tensor<4x8xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}

// -----

// Reshapes keep a split of the leading dimension of a group: a bias of
// shape [heads, 1, k] split over heads is collapsed locally.

// CHECK-LABEL: func.func @heads(
// CHECK-SAME: %{{.*}}: tensor<2x1x3xf32>, %{{.*}}: tensor<2x5x3xf32>) -> tensor<4x5x3xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x1x3xf32> into tensor<2x3xf32>
// CHECK: } -> tensor<2x5x3xf32>
module attributes {tt.grid = array<i64: 2>} {
  func.func @heads(%b: tensor<4x1x3xf32> {tt.split_axes = [[0]]}, %x: tensor<4x5x3xf32> {tt.split_axes = [[0]]}) -> tensor<4x5x3xf32> {
    %c = tensor.collapse_shape %b [[0, 1], [2]] : tensor<4x1x3xf32> into tensor<4x3xf32>
    %e = tensor.empty() : tensor<4x5x3xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%x, %c : tensor<4x5x3xf32>, tensor<4x3xf32>) outs(%e : tensor<4x5x3xf32>) {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      linalg.yield %s : f32
    } -> tensor<4x5x3xf32>
    return %y : tensor<4x5x3xf32>
  }
}

// -----

// A slice that takes a split dimension whole keeps the split.

// CHECK-LABEL: func.func @columns(
// CHECK-SAME: %{{.*}}: tensor<2x8xf32>) -> tensor<4x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
module attributes {tt.grid = array<i64: 2>} {
  func.func @columns(%x: tensor<4x8xf32> {tt.split_axes = [[0]]}) -> tensor<4x4xf32> {
    %s = tensor.extract_slice %x[0, 0] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
    return %s : tensor<4x4xf32>
  }
}

// -----

// A slice of a split dimension is refused.
module attributes {tt.grid = array<i64: 2>} {
  func.func @rows(%x: tensor<4x8xf32> {tt.split_axes = [[0]]}) -> tensor<2x8xf32> {
    // expected-error @+1 {{'tensor.extract_slice': its operand and result are split over the grid differently, or along a dimension it pads or slices}}
    %s = tensor.extract_slice %x[0, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
    return %s : tensor<2x8xf32>
  }
}

// -----

// An op without a sharding rule runs replicated: a split operand is an
// error naming it.
module attributes {tt.grid = array<i64: 2>} {
  func.func @concat(%x: tensor<4x8xf32> {tt.split_axes = [[0]]}) -> tensor<8x8xf32> {
    // expected-error @+1 {{'tensor.concat' has no sharding rule (it runs replicated, on every process), but its operand 0 is split over the grid}}
    %c = tensor.concat dim(0) %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    return %c : tensor<8x8xf32>
  }
}

// -----

// A convolution's windows with a split batch are refused by name.
module attributes {tt.grid = array<i64: 2>} {
  func.func @windows(%x: tensor<2x10xf32> {tt.split_axes = [[0]]}) -> tensor<2x8x3xf32> {
    %e = tensor.empty() : tensor<2x8x3xf32>
    // expected-error @+1 {{'linalg.generic' reads through a sliding window (a convolution or pooling), which MLIR 22's partitioning does not support for split tensors}}
    %w = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 + d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%x : tensor<2x10xf32>) outs(%e : tensor<2x8x3xf32>) {
    ^bb0(%a: f32, %o: f32):
      linalg.yield %a : f32
    } -> tensor<2x8x3xf32>
    return %w : tensor<2x8x3xf32>
  }
}

// -----

// A body that reads the index of a split loop gets this process's offset
// added: rank * 2 rows.
// CHECK-LABEL: func.func @iota(
// CHECK-SAME: %{{.*}}: tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[RANK:.*]] = arith.remsi
// CHECK: %[[OFFSET:.*]] = arith.muli %[[RANK]], %[[C2]] : index
// CHECK: linalg.generic
// CHECK: %[[LOCAL:.*]] = linalg.index 0 : index
// CHECK: arith.addi %[[LOCAL]], %[[OFFSET]] : index
module attributes {tt.grid = array<i64: 2>} {
  func.func @iota(%x: tensor<4x8xf32> {tt.split_axes = [[0]]}) -> (tensor<4x8xf32> {tt.split_axes = [[0]]}) {
    %e = tensor.empty() : tensor<4x8xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %i = linalg.index 0 : index
      %c = arith.index_cast %i : index to i32
      %f = arith.sitofp %c : i32 to f32
      %s = arith.addf %a, %f : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}

// -----

// A rank-reducing slice of a split tensor is refused, not read out of
// bounds.
module attributes {tt.grid = array<i64: 2>} {
  func.func @row(%x: tensor<4x8xf32> {tt.split_axes = [[], [0]]}) -> tensor<8xf32> {
    // expected-error @+1 {{'tensor.extract_slice': its operand and result are split over the grid differently, or along a dimension it pads or slices}}
    %s = tensor.extract_slice %x[0, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    return %s : tensor<8xf32>
  }
}

// -----

// A split that does not divide the leading dimension of a reshape's group
// is refused (4 processes, [8] -> [2, 4]).
module attributes {tt.grid = array<i64: 4>} {
  func.func @heads(%x: tensor<8xf32> {tt.split_axes = [[0]]}) -> tensor<2x4xf32> {
    // expected-error @+1 {{'tensor.expand_shape': its operand and result are split over the grid in ways one local reshape cannot compute}}
    %y = tensor.expand_shape %x [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
}
