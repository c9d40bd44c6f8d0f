// RUN: tiny-opt %s --tt-to-linalg --split-input-file --mlir-print-local-scope | FileCheck %s

// Reductions lower to linalg.fill (identity) + linalg.reduce over the sorted
// axes; keepdims re-inserts the size-1 dims with tensor.expand_shape.
// f32 sums (sum, mean, var) accumulate in f64: the fill is an f64 zero, the
// reduce body extends each f32 element to f64 before adding, and one parallel
// linalg.generic scales the f64 sums (mean: 1/N, var: 1/(N - ddof)) and
// truncates them back to f32. i32 and f64 sums and reduce_max accumulate in
// their own type and only get a scaling generic when there is a factor.

// CHECK-LABEL: func.func @sum_axis1
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>) -> tensor<2xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<2xf64>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%[[EMPTY]] : tensor<2xf64>) -> tensor<2xf64>
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2xf64>) dimensions = [1]
// CHECK-NEXT:      (%[[IN:.*]]: f32, %[[ACC:.*]]: f64) {
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[IN]] : f32 to f64
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[W]], %[[ACC]] : f64
// CHECK-NEXT:        linalg.yield %[[S]] : f64
// CHECK-NEXT:      }
// CHECK-NEXT:    %[[OUT:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel"]
// CHECK-SAME:      ins(%[[RED]] : tensor<2xf64>) outs(%[[OUT]] : tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[V]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[T]] : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2xf32>
func.func @sum_axis1(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = tt.sum %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @sum_axis1_keepdims
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<2xf64>)
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2xf64>) dimensions = [1]
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[RED]] : tensor<2xf64>) outs(%{{.*}} : tensor<2xf32>)
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK:         return %[[E]] : tensor<2x1xf32>
func.func @sum_axis1_keepdims(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = tt.sum %x axes = [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// All axes: a rank-0 result; integer sums use addi with a 0 : i32 identity,
// accumulate in i32 and need no generic afterwards.
// CHECK-LABEL: func.func @sum_all_i32
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<i32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%[[EMPTY]] : tensor<i32>) -> tensor<i32>
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3xi32>) outs(%[[INIT]] : tensor<i32>) dimensions = [0, 1]
// CHECK-NEXT:      (%[[IN:.*]]: i32, %[[ACC:.*]]: i32) {
// CHECK-NEXT:        %[[S:.*]] = arith.addi %[[IN]], %[[ACC]] : i32
// CHECK-NEXT:        linalg.yield %[[S]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:    return %[[RED]] : tensor<i32>
func.func @sum_all_i32(%x: tensor<2x3xi32>) -> tensor<i32> {
  %0 = tt.sum %x axes = [0, 1] : tensor<2x3xi32> -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// A middle axis with keepdims: the 2-D truncating generic, then the reshape
// back to rank 3.
// CHECK-LABEL: func.func @sum_middle_keepdims
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x4xf64>) dimensions = [1]
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[RED]] : tensor<2x4xf64>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:         tensor.expand_shape {{.*}} into tensor<2x1x4xf32>
func.func @sum_middle_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = tt.sum %x axes = [1] keepdims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// reduce_max starts from -inf and combines with maximumf (NaN propagates) in
// f32 (no widening, no generic); unsorted axes are sorted for linalg.reduce.
// CHECK-LABEL: func.func @reduce_max_f32
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>) dimensions = [0, 2]
// CHECK-NEXT:      (%[[IN:.*]]: f32, %[[ACC:.*]]: f32) {
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT:        linalg.yield %[[M]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:    %[[E:.*]] = tensor.expand_shape %[[RED]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK-NEXT:    return %[[E]]
func.func @reduce_max_f32(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %0 = tt.reduce_max %x axes = [2, 0] keepdims : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// Integer max starts from INT32_MIN and uses maxsi.
// CHECK-LABEL: func.func @reduce_max_i32
// CHECK:         %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[MIN]] : i32) outs(%{{.*}} : tensor<3xi32>)
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3xi32>) outs(%[[INIT]] : tensor<3xi32>) dimensions = [0]
// CHECK:           arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[RED]] : tensor<3xi32>
func.func @reduce_max_i32(%x: tensor<2x3xi32>) -> tensor<3xi32> {
  %0 = tt.reduce_max %x axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_all
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<4x5xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK:           arith.maximumf
// CHECK-NOT:     arith.extf
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return %[[RED]] : tensor<f32>
func.func @reduce_max_all(%x: tensor<4x5xf32>) -> tensor<f32> {
  %0 = tt.reduce_max %x axes = [0, 1] : tensor<4x5xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// mean = trunc(sum * (1 / N)), N = 2 * 4, the scaling in f64.
// CHECK-LABEL: func.func @mean_two_axes
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<3xf64>)
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf64>) dimensions = [0, 2]
// CHECK-NEXT:      (%[[X:.*]]: f32, %[[ACC:.*]]: f64) {
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[X]] : f32 to f64
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[W]], %[[ACC]] : f64
// CHECK-NEXT:        linalg.yield %[[S]] : f64
// CHECK:         %[[OUT:.*]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel"]
// CHECK-SAME:      ins(%[[RED]] : tensor<3xf64>) outs(%[[OUT]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 1.250000e-01 : f64
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[IN]], %[[C]] : f64
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[M]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[T]] : f32
// CHECK-NEXT:    } -> tensor<3xf32>
// CHECK-NEXT:    return %[[R]] : tensor<3xf32>
func.func @mean_two_axes(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = tt.mean %x axes = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// f64 means accumulate in f64 without extf, and scale without truncf.
// CHECK-LABEL: func.func @mean_keepdims_f64
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<4x2xf64>) outs(%{{.*}} : tensor<2xf64>) dimensions = [0]
// CHECK-NEXT:      (%[[X:.*]]: f64, %[[ACC:.*]]: f64) {
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[X]], %[[ACC]] : f64
// CHECK-NEXT:        linalg.yield %[[S]] : f64
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[RED]] : tensor<2xf64>) outs(%{{.*}} : tensor<2xf64>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 2.500000e-01 : f64
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[IN]], %[[C]] : f64
// CHECK-NEXT:      linalg.yield %[[M]] : f64
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [1, 2] : tensor<2xf64> into tensor<1x2xf64>
// CHECK:         return %[[E]]
func.func @mean_keepdims_f64(%x: tensor<4x2xf64>) -> tensor<1x2xf64> {
  %0 = tt.mean %x axes = [0] keepdims : tensor<4x2xf64> -> tensor<1x2xf64>
  return %0 : tensor<1x2xf64>
}

// -----

// mean over all axes: rank-0 scaling generic with empty maps.
// CHECK-LABEL: func.func @mean_all
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x5xf32>) outs(%{{.*}} : tensor<f64>) dimensions = [0, 1]
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>]
// CHECK-SAME:      iterator_types = []
// CHECK-SAME:      ins(%[[RED]] : tensor<f64>) outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 1.000000e-01 : f64
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[IN]], %[[C]] : f64
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[M]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[T]] : f32
// CHECK:         return %[[R]] : tensor<f32>
func.func @mean_all(%x: tensor<2x5xf32>) -> tensor<f32> {
  %0 = tt.mean %x axes = [0, 1] : tensor<2x5xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Two-pass variance: mean (f64 sum scaled by 1/N and truncated, keepdims,
// broadcast back), squared deviations in f32, f64 sum, then scale by
// 1 / (N - ddof) and truncate.
// CHECK-LABEL: func.func @var_ddof1_keepdims
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[SUM:.*]] = linalg.reduce ins(%[[X]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2xf64>) dimensions = [1]
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2xf64>) outs(%{{.*}} : tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[S1:.*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 0.33333333333333331 : f64
// CHECK-NEXT:      %[[M1:.*]] = arith.mulf %[[S1]], %[[C1]] : f64
// CHECK-NEXT:      %[[T1:.*]] = arith.truncf %[[M1]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[T1]] : f32
// CHECK:         %[[MK:.*]] = tensor.expand_shape %[[MEAN]] {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK:         %[[SQ:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]], %[[MK]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[D2]] : f32
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f64) outs(%{{.*}} : tensor<2xf64>)
// CHECK:         %[[TOT:.*]] = linalg.reduce ins(%[[SQ]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2xf64>) dimensions = [1]
// CHECK-NEXT:      (%[[Q:.*]]: f32, %[[ACC:.*]]: f64) {
// CHECK-NEXT:        %[[QW:.*]] = arith.extf %[[Q]] : f32 to f64
// CHECK-NEXT:        %[[QS:.*]] = arith.addf %[[QW]], %[[ACC]] : f64
// CHECK-NEXT:        linalg.yield %[[QS]] : f64
// CHECK:         %[[V:.*]] = linalg.generic {{.*}} ins(%[[TOT]] : tensor<2xf64>) outs(%{{.*}} : tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[S2:.*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:      %[[M2:.*]] = arith.mulf %[[S2]], %[[C2]] : f64
// CHECK-NEXT:      %[[T2:.*]] = arith.truncf %[[M2]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[T2]] : f32
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK:         return %[[E]] : tensor<2x1xf32>
func.func @var_ddof1_keepdims(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = tt.var %x axes = [1] keepdims {ddof = 1 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// ddof defaults to 0: divide by N = 2.
// CHECK-LABEL: func.func @var_ddof0
// CHECK:         linalg.reduce {{.*}} outs(%{{.*}} : tensor<3xf64>) dimensions = [0]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf32>)
// CHECK:           arith.constant 5.000000e-01 : f64
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           arith.subf
// CHECK:         linalg.reduce {{.*}} outs(%{{.*}} : tensor<3xf64>) dimensions = [0]
// CHECK:         %[[V:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf32>)
// CHECK:           arith.constant 5.000000e-01 : f64
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return %[[V]] : tensor<3xf32>
func.func @var_ddof0(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %0 = tt.var %x axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Variance over all axes: the mean is rank 0 and is expanded to 1x1 to
// broadcast against the input. f64 throughout: no extf/truncf.
// CHECK-LABEL: func.func @var_all_f64
// CHECK:         %[[SUM:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3xf64>) outs(%{{.*}} : tensor<f64>) dimensions = [0, 1]
// CHECK-NEXT:      (%{{.*}}: f64, %{{.*}}: f64) {
// CHECK-NEXT:        arith.addf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:        linalg.yield
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<f64>) outs(%{{.*}} : tensor<f64>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f64, %{{.*}}: f64):
// CHECK-NEXT:      arith.constant 0.16666666666666666 : f64
// CHECK-NEXT:      arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      linalg.yield
// CHECK:         %[[MK:.*]] = tensor.expand_shape %[[MEAN]] [] output_shape [1, 1] : tensor<f64> into tensor<1x1xf64>
// CHECK:         %[[SQ:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%{{.*}}, %[[MK]] : tensor<2x3xf64>, tensor<1x1xf64>)
// CHECK:         %[[TOT:.*]] = linalg.reduce ins(%[[SQ]] : tensor<2x3xf64>) outs(%{{.*}} : tensor<f64>) dimensions = [0, 1]
// CHECK-NEXT:      (%{{.*}}: f64, %{{.*}}: f64) {
// CHECK-NEXT:        arith.addf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:        linalg.yield
// CHECK:         %[[V:.*]] = linalg.generic {{.*}} ins(%[[TOT]] : tensor<f64>) outs(%{{.*}} : tensor<f64>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f64, %{{.*}}: f64):
// CHECK-NEXT:      arith.constant 0.16666666666666666 : f64
// CHECK-NEXT:      arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      linalg.yield
// CHECK:         return %[[V]] : tensor<f64>
func.func @var_all_f64(%x: tensor<2x3xf64>) -> tensor<f64> {
  %0 = tt.var %x axes = [0, 1] : tensor<2x3xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
