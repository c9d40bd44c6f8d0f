// RUN: tiny-opt %s --split-input-file --tt-to-linalg --canonicalize --tt-fold-transposes --mlir-print-local-scope | FileCheck %s

// x @ w.T reads w in place: the transpose is folded into the contraction's
// indexing map for B, (m, n, k) -> (n, k), and disappears.
// CHECK-LABEL: func.func @matmul_transposed_rhs
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<32x64xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<8x64xf32>, tensor<32x64xf32>)
func.func @matmul_transposed_rhs(%x: tensor<8x64xf32>, %w: tensor<32x64xf32>) -> tensor<8x32xf32> {
  %wt = tt.transpose %w [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  %0 = tt.matmul %x, %wt : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A transposed left operand (`x.T @ dy`, every weight gradient) stays a
// transpose: the matmul kernels read A only as [.., m, k], and the folded
// map (k, m) would make the product a loop of strided reductions.
// CHECK-LABEL: func.func @batch_transposed_lhs
// CHECK-SAME:    (%[[A:.*]]: tensor<4x16x8xf32>, %[[B:.*]]: tensor<4x16x32xf32>)
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[A]]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[T]], %[[B]] : tensor<4x8x16xf32>, tensor<4x16x32xf32>)
// CHECK:         return {{.*}}, %[[T]]
func.func @batch_transposed_lhs(%a: tensor<4x16x8xf32>, %b: tensor<4x16x32xf32>) -> (tensor<4x8x32xf32>, tensor<4x8x16xf32>) {
  %at = tt.transpose %a [0, 2, 1] : tensor<4x16x8xf32> -> tensor<4x8x16xf32>
  %0 = tt.matmul %at, %b : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
  return %0, %at : tensor<4x8x32xf32>, tensor<4x8x16xf32>
}

// -----

// The same in 2-D: the weight gradient x.T @ dy.
// CHECK-LABEL: func.func @weight_gradient
// CHECK-SAME:    (%[[X:.*]]: tensor<512x128xf32>, %[[DY:.*]]: tensor<512x384xf32>)
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[T]], %[[DY]] : tensor<128x512xf32>, tensor<512x384xf32>)
func.func @weight_gradient(%x: tensor<512x128xf32>, %dy: tensor<512x384xf32>) -> tensor<128x384xf32> {
  %xt = tt.transpose %x [1, 0] : tensor<512x128xf32> -> tensor<128x512xf32>
  %0 = tt.matmul %xt, %dy : (tensor<128x512xf32>, tensor<512x384xf32>) -> tensor<128x384xf32>
  return %0 : tensor<128x384xf32>
}

// -----

// Elementwise consumers read the transpose's input too (no transposed copy).
// CHECK-LABEL: func.func @elementwise_consumer
// CHECK-SAME:    (%[[A:.*]]: tensor<16x8xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[A]] : tensor<16x8xf32>)
// CHECK:           math.exp
func.func @elementwise_consumer(%a: tensor<16x8xf32>) -> tensor<8x16xf32> {
  %t = tt.transpose %a [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %0 = tt.exp %t : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// A transpose that would move a contraction operand's matrix out of its two
// innermost dimensions stays (attention's probabilities @ v, with v laid
// out [seq, batch, d]): the folded map would be (k, b, n), no matrix per
// batch, and the op would lose its matmul kernel.
// CHECK-LABEL: func.func @batch_transposed_seq_first
// CHECK-SAME:    (%[[P:.*]]: tensor<4x8x8xf32>, %[[V:.*]]: tensor<8x4x16xf32>)
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[V]] : tensor<8x4x16xf32>)
// CHECK-SAME:      permutation = [1, 0, 2]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[P]], %[[T]] : tensor<4x8x8xf32>, tensor<4x8x16xf32>)
func.func @batch_transposed_seq_first(%p: tensor<4x8x8xf32>, %v: tensor<8x4x16xf32>) -> tensor<4x8x16xf32> {
  %vt = tt.transpose %v [1, 0, 2] : tensor<8x4x16xf32> -> tensor<4x8x16xf32>
  %0 = tt.matmul %p, %vt : (tensor<4x8x8xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}
