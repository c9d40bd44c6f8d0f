// RUN: tiny-opt %s --tt-to-linalg --split-input-file --mlir-print-local-scope | FileCheck %s

// New elementwise ops map to math ops; log1p and expm1 are corrected forms
// of log and exp (no naive math.log1p/math.expm1).
// CHECK-LABEL: func.func @elementwise
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.floor
// CHECK: math.ceil
// CHECK: math.roundeven
// CHECK: math.exp2
// CHECK: math.log2
// CHECK-NOT: math.log1p
// CHECK-NOT: math.expm1
func.func @elementwise(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = tt.sin %x : tensor<4xf64>
  %1 = tt.cos %x : tensor<4xf64>
  %2 = tt.floor %x : tensor<4xf64>
  %3 = tt.ceil %x : tensor<4xf64>
  %4 = tt.round %x : tensor<4xf64>
  %5 = tt.exp2 %x : tensor<4xf64>
  %6 = tt.log2 %x : tensor<4xf64>
  %7 = tt.log1p %x : tensor<4xf64>
  %8 = tt.expm1 %x : tensor<4xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// -----

// reduce_min starts from +inf, prod from 1.
// CHECK-LABEL: func.func @min_prod
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: linalg.reduce
// CHECK:   arith.minimumf
// CHECK: arith.constant 1 : i32
// CHECK: linalg.reduce
// CHECK:   arith.muli
func.func @min_prod(%x: tensor<3x4xf32>, %i: tensor<3x4xi32>) -> (tensor<3xf32>, tensor<4xi32>) {
  %0 = tt.reduce_min %x axes = [1] : tensor<3x4xf32> -> tensor<3xf32>
  %1 = tt.prod %i axes = [0] : tensor<3x4xi32> -> tensor<4xi32>
  return %0, %1 : tensor<3xf32>, tensor<4xi32>
}

// -----

// argmax: one generic carrying the best value and its index over the
// reduced axis (linalg.index), taking strictly greater values or a first NaN.
// CHECK-LABEL: func.func @argmax
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK:   arith.cmpf ogt
// CHECK:   arith.cmpf uno
// CHECK:   linalg.index 1
// CHECK:   linalg.yield
func.func @argmax(%x: tensor<3x4xf32>) -> tensor<3xi32> {
  %0 = tt.argmax %x axis = 1 : tensor<3x4xf32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// cumsum: the first slice, then an scf.for adding each slice to the
// previous result slice.
// CHECK-LABEL: func.func @cumsum
// CHECK: tensor.insert_slice
// CHECK: scf.for %{{.*}} = %c1 to %c5
// CHECK:   tensor.extract_slice
// CHECK:   tensor.extract_slice
// CHECK:   arith.addf
// CHECK:   tensor.insert_slice
// CHECK:   scf.yield
func.func @cumsum(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = tt.cumsum %x axis = 1 : tensor<3x5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// windows: one parallel copy generic reading input[n, o*s + k*d, c].
// CHECK-LABEL: func.func @windows
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3 * 2, d2 * 2 + d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<2x9x7x4xf32>) outs(%{{.*}} : tensor<2x5x3x3x2x4xf32>)
func.func @windows(%x: tensor<2x9x7x4xf32>) -> tensor<2x5x3x3x2x4xf32> {
  %0 = tt.windows %x axis = 1 kernel = [3, 2] strides = [1, 2] dilations = [2, 1] : tensor<2x9x7x4xf32> -> tensor<2x5x3x3x2x4xf32>
  return %0 : tensor<2x5x3x3x2x4xf32>
}

// -----

// sort: a bitonic network over (value, index) pairs. The 5 columns are
// padded to 8 with -inf (the last in descending order) and paired with an
// iota of indices; each of the 6 stages views the axis as [8 / 2j, 2, j]
// and reads both elements of every pair; then the first 5 columns.
// CHECK-LABEL: func.func @sort
// CHECK:     %[[PAD:.*]] = arith.constant 0xFF800000 : f32
// CHECK:     tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [3, 5] [1, 1] : tensor<3x5xf32> into tensor<3x8xf32>
// CHECK:     linalg.index 1
// CHECK:     tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3]] output_shape [3, 4, 2, 1]
// CHECK:     linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK:       arith.cmpf ogt
// CHECK:       arith.xori
// CHECK-COUNT-5: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3]]
// CHECK:     tensor.extract_slice %{{.*}}[0, 0] [3, 5] [1, 1] : tensor<3x8xf32> to tensor<3x5xf32>
// CHECK:     tensor.extract_slice %{{.*}}[0, 0] [3, 5] [1, 1] : tensor<3x8xi32> to tensor<3x5xi32>
func.func @sort(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xi32>) {
  %v, %i = tt.sort %x axis = 1 descending : tensor<3x5xf32> -> tensor<3x5xf32>, tensor<3x5xi32>
  return %v, %i : tensor<3x5xf32>, tensor<3x5xi32>
}

// -----

// With 16 rows or more the network runs on the transpose, the axis first.
// CHECK-LABEL: func.func @sort_many_rows
// CHECK:     linalg.transpose ins(%{{.*}} : tensor<32x4xi32>) outs(%{{.*}} : tensor<4x32xi32>) permutation = [1, 0]
// CHECK:     tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2], [3]] output_shape [2, 2, 1, 32]
// CHECK:     linalg.transpose ins(%{{.*}} : tensor<4x32xi32>) outs(%{{.*}} : tensor<32x4xi32>) permutation = [1, 0]
func.func @sort_many_rows(%x: tensor<32x4xi32>) -> (tensor<32x4xi32>, tensor<32x4xi32>) {
  %v, %i = tt.sort %x axis = 1 : tensor<32x4xi32> -> tensor<32x4xi32>, tensor<32x4xi32>
  return %v, %i : tensor<32x4xi32>, tensor<32x4xi32>
}
