// RUN: tiny-opt %s --tt-to-linalg --split-input-file --mlir-print-local-scope | FileCheck %s

// tt.matmul with np.matmul semantics: vector cases map to named ops, rank-3
// operands with equal batch sizes to linalg.batch_matmul, and broadcast batch
// dimensions to a linalg.generic with a trailing reduction iterator. All
// accumulate into a zero-filled init.

// CHECK-LABEL: func.func @dot_1d_1d
// CHECK-SAME:    (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<f32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<f32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<f32>) -> tensor<f32>
// CHECK:         %[[R:.*]] = linalg.dot ins(%[[A]], %[[B]] : tensor<3xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<f32>) -> tensor<f32>
// CHECK:         return %[[R]] : tensor<f32>
func.func @dot_1d_1d(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = tt.matmul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @matvec_2d_1d
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>) -> tensor<2xf32>
// CHECK:         %[[R:.*]] = linalg.matvec ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<2xf32>) -> tensor<2xf32>
// CHECK:         return %[[R]] : tensor<2xf32>
func.func @matvec_2d_1d(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = tt.matmul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Integer matmul: the init is filled with 0 : i32.
// CHECK-LABEL: func.func @vecmat_1d_2d_i32
// CHECK-SAME:    (%[[A:.*]]: tensor<3xi32>, %[[B:.*]]: tensor<3x4xi32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.*}} : tensor<4xi32>) -> tensor<4xi32>
// CHECK:         %[[R:.*]] = linalg.vecmat ins(%[[A]], %[[B]] : tensor<3xi32>, tensor<3x4xi32>) outs(%[[INIT]] : tensor<4xi32>) -> tensor<4xi32>
// CHECK:         return %[[R]] : tensor<4xi32>
func.func @vecmat_1d_2d_i32(%a: tensor<3xi32>, %b: tensor<3x4xi32>) -> tensor<4xi32> {
  %0 = tt.matmul %a, %b : (tensor<3xi32>, tensor<3x4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<2x4xf32>
func.func @matmul_2d(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = tt.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_f64
// CHECK:         arith.constant 0.000000e+00 : f64
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x2xf64>, tensor<2x2xf64>) outs(%{{.*}} : tensor<4x2xf64>)
func.func @matmul_f64(%a: tensor<4x2xf64>, %b: tensor<2x2xf64>) -> tensor<4x2xf64> {
  %0 = tt.matmul %a, %b : (tensor<4x2xf64>, tensor<2x2xf64>) -> tensor<4x2xf64>
  return %0 : tensor<4x2xf64>
}

// -----

// Rank 3 with equal batch sizes. (The batched path currently emits an extra,
// dead zero fill first, so the outs operand is not pinned to a specific fill.)
// CHECK-LABEL: func.func @batch_matmul_equal
// CHECK-SAME:    (%[[A:.*]]: tensor<5x2x3xf32>, %[[B:.*]]: tensor<5x3x4xf32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<5x2x4xf32>) -> tensor<5x2x4xf32>
// CHECK:         %[[R:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<5x2x3xf32>, tensor<5x3x4xf32>) outs(%{{.*}} : tensor<5x2x4xf32>) -> tensor<5x2x4xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<5x2x4xf32>
func.func @batch_matmul_equal(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = tt.matmul %a, %b : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// Equal static batch dimensions beyond one (attention's [B, H, L, E] @
// [B, H, E, S]) are merged into batch_matmul's one batch axis; the rows and
// columns may be dynamic.
// CHECK-LABEL: func.func @batch_matmul_two_batch_axes
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x?x8xf32>, %[[B:.*]]: tensor<2x3x8x5xf32>)
// CHECK-DAG:     %[[LA:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x?x8xf32> into tensor<6x?x8xf32>
// CHECK-DAG:     %[[LB:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x8x5xf32> into tensor<6x8x5xf32>
// CHECK:         %[[R:.*]] = linalg.batch_matmul ins(%[[LA]], %[[LB]] : tensor<6x?x8xf32>, tensor<6x8x5xf32>) outs(%{{.*}} : tensor<6x?x5xf32>) -> tensor<6x?x5xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         tensor.expand_shape %[[R]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, %{{.*}}, 5] : tensor<6x?x5xf32> into tensor<2x3x?x5xf32>
func.func @batch_matmul_two_batch_axes(%a: tensor<2x3x?x8xf32>, %b: tensor<2x3x8x5xf32>) -> tensor<2x3x?x5xf32> {
  %0 = tt.matmul %a, %b : (tensor<2x3x?x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x?x5xf32>
  return %0 : tensor<2x3x?x5xf32>
}

// -----

// Broadcast batch dims: iteration space (b0, b1, m, n, k); the lhs size-1
// batch dim reads index 0, the rhs lacks the leading batch dim.
// CHECK-LABEL: func.func @batch_matmul_broadcast
// CHECK-SAME:    (%[[A:.*]]: tensor<8x1x2x3xf32>, %[[B:.*]]: tensor<5x3x4xf32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x5x2x4xf32>) -> tensor<8x5x2x4xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<8x1x2x3xf32>, tensor<5x3x4xf32>) outs(%{{.*}} : tensor<8x5x2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[P]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[R]] : tensor<8x5x2x4xf32>
func.func @batch_matmul_broadcast(%a: tensor<8x1x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32> {
  %0 = tt.matmul %a, %b : (tensor<8x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32>
  return %0 : tensor<8x5x2x4xf32>
}

// -----

// A 2-D lhs against a rank-3 rhs: the lhs has no batch dims.
// CHECK-LABEL: func.func @matmul_2d_3d_i32
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NEXT:    ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[P]], %[[ACC]] : i32
// CHECK-NEXT:      linalg.yield %[[S]] : i32
func.func @matmul_2d_3d_i32(%a: tensor<2x3xi32>, %b: tensor<5x3x4xi32>) -> tensor<5x2x4xi32> {
  %0 = tt.matmul %a, %b : (tensor<2x3xi32>, tensor<5x3x4xi32>) -> tensor<5x2x4xi32>
  return %0 : tensor<5x2x4xi32>
}

// -----

// 1-D x 3-D: the vector is expanded to a 1x3 matrix, the generic computes
// 5x1x4, and the unit dim is removed again.
// CHECK-LABEL: func.func @matmul_1d_3d
// CHECK-SAME:    (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<5x3x4xf32>) -> tensor<5x4xf32>
// CHECK:         %[[A2:.*]] = tensor.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<5x1x4xf32>)
// CHECK:         %[[G:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A2]], %[[B]] : tensor<1x3xf32>, tensor<5x3x4xf32>) outs(%[[INIT]] : tensor<5x1x4xf32>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<5x1x4xf32> into tensor<5x4xf32>
// CHECK:         return %[[C]] : tensor<5x4xf32>
func.func @matmul_1d_3d(%a: tensor<3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x4xf32> {
  %0 = tt.matmul %a, %b : (tensor<3xf32>, tensor<5x3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// 3-D x 1-D: the vector becomes a 3x1 column.
// CHECK-LABEL: func.func @matmul_3d_1d
// CHECK-SAME:    (%[[A:.*]]: tensor<5x2x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<5x2xf32>
// CHECK:         %[[B2:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK:         %[[G:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[A]], %[[B2]] : tensor<5x2x3xf32>, tensor<3x1xf32>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<5x2x1xf32> into tensor<5x2xf32>
// CHECK:         return %[[C]] : tensor<5x2xf32>
func.func @matmul_3d_1d(%a: tensor<5x2x3xf32>, %b: tensor<3xf32>) -> tensor<5x2xf32> {
  %0 = tt.matmul %a, %b : (tensor<5x2x3xf32>, tensor<3xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

// A stack of matrices times one matrix is one linalg.matmul: the lhs's
// batch dimensions become rows ([2 x 5 x 3] -> [10 x 3]) and the result is
// reshaped back.
// CHECK-LABEL: func.func @stack_times_matrix
// CHECK-SAME:    (%[[A:.*]]: tensor<2x5x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x5x3xf32> into tensor<10x3xf32>
// CHECK:         %[[R:.*]] = linalg.matmul ins(%[[FLAT]], %[[B]] : tensor<10x3xf32>, tensor<3x4xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [2, 5, 4] : tensor<10x4xf32> into tensor<2x5x4xf32>
func.func @stack_times_matrix(%a: tensor<2x5x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x5x4xf32> {
  %0 = tt.matmul %a, %b : (tensor<2x5x3xf32>, tensor<3x4xf32>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}
