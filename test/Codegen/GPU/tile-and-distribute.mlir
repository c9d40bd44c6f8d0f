// RUN: tiny-opt %s --split-input-file --tt-optimize="conv-matmul=false fuse-broadcast-producers=true" --tt-gpu-tile-and-distribute --canonicalize | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-optimize="conv-matmul=false fuse-broadcast-producers=true" --tt-gpu-tile-and-distribute=block-reduction=false --canonicalize | FileCheck %s --check-prefix=NOBLOCK
// RUN: tiny-opt %s --split-input-file --tt-optimize="conv-matmul=false fuse-broadcast-producers=true" --tt-gpu-tile-and-distribute=fuse-rows=false --canonicalize | FileCheck %s --check-prefix=NOROWS

// Elementwise: blocks of one row by 256 columns (y, x), one element per
// thread, consecutive threads on consecutive columns.
// CHECK-LABEL: func.func @elementwise
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (1000, 300) step (1, 256)
// CHECK:           scf.forall (%{{.*}}) in (256)
// CHECK:             linalg.generic
// CHECK:           } {mapping = [#gpu.thread<x>]}
// CHECK:         } {mapping = [#gpu.block<y>, #gpu.block<x>]}
func.func @elementwise(%x: tensor<1000x300xf32>, %b: tensor<300xf32>) -> tensor<1000x300xf32> {
  %y = tt.add %x, %b : (tensor<1000x300xf32>, tensor<300xf32>) -> tensor<1000x300xf32>
  return %y : tensor<1000x300xf32>
}

// -----

// Softmax: one block per row with both reductions and the division fused
// in. Each reduction: 256 partial results in workgroup memory, thread t
// reducing elements t, t + 256, ... (a strided slice), merged by the marked
// linalg.reduce; the division is spread over the threads.
// CHECK-LABEL: func.func @softmax
// CHECK:         scf.forall (%{{.*}}) in (1024)
// CHECK:           bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x256xf32>
// CHECK:           scf.forall (%{{.*}}, %[[T:.*]]) in (1, 256)
// CHECK:             tensor.extract_slice %{{.*}}[0, %[[T]]] [1, %{{.*}}] [1, 256] : tensor<1x1000xf32> to tensor<1x?xf32>
// CHECK:             arith.maximumf
// CHECK:           } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK:           linalg.reduce {{.*}} {tt.gpu.block_reduce = 256 : i64}
// CHECK:           bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x256xf64>
// CHECK:           linalg.reduce {{.*}} {tt.gpu.block_reduce = 256 : i64}
// CHECK:           arith.divf
// CHECK:         } {mapping = [#gpu.block<x>]}
// CHECK-NOT:     scf.forall
//
// block-reduction=false: a thread per row, the rows in blocks of 256.
// NOBLOCK-LABEL: func.func @softmax
// NOBLOCK-NOT:     tt.gpu.block_reduce
// NOBLOCK:         scf.forall (%{{.*}}) = (0) to (1024) step (256)
// NOBLOCK:           scf.forall (%{{.*}}) in (256)
// NOBLOCK:             linalg.reduce
// NOBLOCK-NOT:     tt.gpu.block_reduce
//
// fuse-rows=false: the reductions are kernels of their own.
// NOROWS-LABEL: func.func @softmax
// NOROWS:         scf.forall (%{{.*}}) in (1024)
// NOROWS:           tt.gpu.block_reduce
// NOROWS:         } {mapping = [#gpu.block<x>]}
// NOROWS:         scf.forall (%{{.*}}) in (1024)
// NOROWS:           tt.gpu.block_reduce
// NOROWS:         } {mapping = [#gpu.block<x>]}
// NOROWS:         scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (1024, 1000) step (1, 256)
func.func @softmax(%x: tensor<1024x1000xf32>) -> tensor<1024x1000xf32> {
  %m = tt.reduce_max %x axes = [1] keepdims : tensor<1024x1000xf32> -> tensor<1024x1xf32>
  %d = tt.sub %x, %m : (tensor<1024x1000xf32>, tensor<1024x1xf32>) -> tensor<1024x1000xf32>
  %e = tt.exp %d : tensor<1024x1000xf32>
  %s = tt.sum %e axes = [1] keepdims : tensor<1024x1000xf32> -> tensor<1024x1xf32>
  %y = tt.div %e, %s : (tensor<1024x1000xf32>, tensor<1024x1xf32>) -> tensor<1024x1000xf32>
  return %y : tensor<1024x1000xf32>
}

// -----

// Matmul: the full 64x64 blocks (192 x 128 of 200 x 130) split from the
// partial ones, 16 x 16 threads of 4 x 4 outputs each, accumulated in a
// buffer of the thread's own with K as the outer loop.
// CHECK-LABEL: func.func @matmul
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (192, 128) step (64, 64)
// CHECK:           scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK:             bufferization.alloc_tensor() : tensor<4x4xf32>
// CHECK:             linalg.copy
// CHECK:             linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]{{.*}} ins({{.*}} : tensor<4x300xf32>, tensor<300x4xf32>) outs({{.*}} : tensor<4x4xf32>)
// CHECK:             linalg.copy
// CHECK:           } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK:         } {mapping = [#gpu.block<y>, #gpu.block<x>]}
// CHECK:         scf.forall (%{{.*}}) = (0) to (192) step (64)
// CHECK:             tensor<4x2xf32>
// CHECK:         scf.forall (%{{.*}}) = (0) to (128) step (64)
// CHECK:           scf.forall (%{{.*}}, %{{.*}}) in (2, 16)
func.func @matmul(%a: tensor<200x300xf32>, %b: tensor<300x130xf32>) -> tensor<200x130xf32> {
  %c = tt.matmul %a, %b : (tensor<200x300xf32>, tensor<300x130xf32>) -> tensor<200x130xf32>
  return %c : tensor<200x130xf32>
}

// -----

// A reduction over the rows (columns of 1000): one thread per output.
// CHECK-LABEL: func.func @column_sums
// CHECK-NOT:     tt.gpu.block_reduce
// CHECK:         scf.forall (%{{.*}}) in (30)
// CHECK:           linalg.reduce
// CHECK:         } {mapping = [#gpu.thread<x>]}
func.func @column_sums(%x: tensor<1000x30xf32>) -> tensor<30xf32> {
  %s = tt.sum %x axes = [0] : tensor<1000x30xf32> -> tensor<30xf32>
  return %s : tensor<30xf32>
}

// -----

// A producer fused into a block gets an empty tensor of the block's size as
// its init, not a slice of one of the whole result (which would be a
// buffer of the whole result in every block).
// CHECK-LABEL: func.func @softmax_then_var
// CHECK:         scf.forall (%{{.*}}) in (768)
// CHECK:           tensor.empty() : tensor<1x129xf32>
// CHECK:         } {mapping = [#gpu.block<x>]}
func.func @softmax_then_var(%x: tensor<768x129xf32>) -> tensor<f32> {
  %m = tt.reduce_max %x axes = [1] keepdims : tensor<768x129xf32> -> tensor<768x1xf32>
  %d = tt.sub %x, %m : (tensor<768x129xf32>, tensor<768x1xf32>) -> tensor<768x129xf32>
  %e = tt.exp %d : tensor<768x129xf32>
  %s = tt.sum %e axes = [1] keepdims : tensor<768x129xf32> -> tensor<768x1xf32>
  %p = tt.div %e, %s : (tensor<768x129xf32>, tensor<768x1xf32>) -> tensor<768x129xf32>
  %v = tt.var %p axes = [0, 1] : tensor<768x129xf32> -> tensor<f32>
  return %v : tensor<f32>
}
