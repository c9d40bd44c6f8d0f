// RUN: tiny-opt %s -canonicalize -split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// Constant folding of binary ops
//===----------------------------------------------------------------------===//

// Splat (+) splat folds to a splat of the result shape.
// CHECK-LABEL: func.func @fold_splat_binary
// CHECK-DAG: %[[ADD:.*]] = tt.constant dense<5.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[SUB:.*]] = tt.constant dense<-1.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[MUL:.*]] = tt.constant dense<6.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[DIV:.*]] = tt.constant dense<0.666666686> : tensor<2x3xf32>
// CHECK-DAG: %[[MAX:.*]] = tt.constant dense<3.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[MIN:.*]] = tt.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[POW:.*]] = tt.constant dense<8.000000e+00> : tensor<2x3xf32>
// CHECK-NOT: tt.add
// CHECK-NOT: tt.sub
// CHECK-NOT: tt.mul
// CHECK-NOT: tt.div
// CHECK-NOT: tt.max
// CHECK-NOT: tt.min
// CHECK-NOT: tt.pow
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MAX]], %[[MIN]], %[[POW]]
func.func @fold_splat_binary()
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = tt.constant dense<2.0> : tensor<2x3xf32>
  %b = tt.constant dense<3.0> : tensor<f32>
  %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = tt.sub %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = tt.mul %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = tt.div %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %4 = tt.max %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %5 = tt.min %b, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = tt.pow %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A small non-splat constant broadcast against a splat: the rows repeat.
// CHECK-LABEL: func.func @fold_dense_broadcast_row
// CHECK-DAG: %[[ADD:.*]] = tt.constant dense<{{\[}}[7.000000e+00, 8.000000e+00, 9.000000e+00], [7.000000e+00, 8.000000e+00, 9.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[SUB:.*]] = tt.constant dense<{{\[}}[5.000000e+00, 4.000000e+00, 3.000000e+00], [5.000000e+00, 4.000000e+00, 3.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[DIV:.*]] = tt.constant dense<{{\[}}[6.000000e+00, 3.000000e+00, 2.000000e+00], [6.000000e+00, 3.000000e+00, 2.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[POW:.*]] = tt.constant dense<{{\[}}[1.000000e+00, 6.400000e+01, 7.290000e+02], [1.000000e+00, 6.400000e+01, 7.290000e+02]]> : tensor<2x3xf32>
// CHECK-NOT: tt.add
// CHECK-NOT: tt.sub
// CHECK-NOT: tt.div
// CHECK-NOT: tt.pow
// CHECK: return %[[ADD]], %[[SUB]], %[[DIV]], %[[POW]]
func.func @fold_dense_broadcast_row()
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = tt.constant dense<6.0> : tensor<2x3xf32>
  %b = tt.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = tt.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = tt.div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = tt.pow %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Two non-splat constants broadcast against each other (a column against a
// row), on i32.
// CHECK-LABEL: func.func @fold_dense_outer_i32
// CHECK-DAG: %[[SUB:.*]] = tt.constant dense<{{\[}}[9, 8, 7], [19, 18, 17]]> : tensor<2x3xi32>
// CHECK-DAG: %[[MUL:.*]] = tt.constant dense<{{\[}}[10, 20, 30], [20, 40, 60]]> : tensor<2x3xi32>
// CHECK-DAG: %[[MAX:.*]] = tt.constant dense<{{\[}}[10, 10, 10], [20, 20, 20]]> : tensor<2x3xi32>
// CHECK-DAG: %[[MIN:.*]] = tt.constant dense<{{\[}}[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
// CHECK-NOT: tt.sub
// CHECK-NOT: tt.mul
// CHECK-NOT: tt.max
// CHECK-NOT: tt.min
// CHECK: return %[[SUB]], %[[MUL]], %[[MAX]], %[[MIN]]
func.func @fold_dense_outer_i32()
    -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>) {
  %a = tt.constant dense<[[10], [20]]> : tensor<2x1xi32>
  %b = tt.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = tt.sub %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = tt.mul %b, %a : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  %2 = tt.max %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %3 = tt.min %b, %a : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  return %0, %1, %2, %3
      : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>
}

// -----

// i32 arithmetic: division truncates toward zero, overflow wraps.
// CHECK-LABEL: func.func @fold_i32_semantics
// CHECK-DAG: %[[DIV:.*]] = tt.constant dense<[3, -3, 2147483647, -2147483648]> : tensor<4xi32>
// CHECK-DAG: %[[ADD:.*]] = tt.constant dense<[9, -5, -2147483648, 2147483647]> : tensor<4xi32>
// CHECK-DAG: %[[POW:.*]] = tt.constant dense<[49, 49, 1, 0]> : tensor<4xi32>
// CHECK: return %[[DIV]], %[[ADD]], %[[POW]]
func.func @fold_i32_semantics() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %a = tt.constant dense<[7, -7, 2147483647, -2147483648]> : tensor<4xi32>
  %b = tt.constant dense<[2, 2, 1, -1]> : tensor<4xi32>
  %e = tt.constant dense<[2, 2, 0, 32]> : tensor<4xi32>
  %0 = tt.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tt.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %c = tt.constant dense<[7, -7, 5, 2]> : tensor<4xi32>
  %2 = tt.pow %c, %e : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// Integer division by zero and negative integer powers are left alone.
// CHECK-LABEL: func.func @no_fold_i32_div_by_zero
// CHECK: %[[DIV:.*]] = tt.div %{{.*}}, %{{.*}} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// CHECK: %[[POW:.*]] = tt.pow %{{.*}}, %{{.*}} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// CHECK: return %[[DIV]], %[[POW]]
func.func @no_fold_i32_div_by_zero() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = tt.constant dense<[7, 8]> : tensor<2xi32>
  %b = tt.constant dense<[1, 0]> : tensor<2xi32>
  %c = tt.constant dense<[2, -1]> : tensor<2xi32>
  %0 = tt.div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = tt.pow %a, %c : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

// -----

// max and min propagate NaN from either side.
// CHECK-LABEL: func.func @fold_max_min_nan
// CHECK: %[[NAN:.*]] = tt.constant dense<0x7FC00000> : tensor<2xf32>
// CHECK-NOT: tt.max
// CHECK-NOT: tt.min
// CHECK: return %[[NAN]], %[[NAN]]
func.func @fold_max_min_nan() -> (tensor<2xf32>, tensor<2xf32>) {
  %a = tt.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %b = tt.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %0 = tt.max %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = tt.min %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Large results (> 1024 elements) are not folded from non-splat constants...
// CHECK-LABEL: func.func @no_fold_large_non_splat
// CHECK-DAG: %[[ROW:.*]] = tt.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[TWO:.*]] = tt.constant dense<2.000000e+00> : tensor<700x3xf32>
// CHECK: %[[ADD:.*]] = tt.add %[[ROW]], %[[TWO]] : (tensor<3xf32>, tensor<700x3xf32>) -> tensor<700x3xf32>
// CHECK: return %[[ADD]]
func.func @no_fold_large_non_splat() -> tensor<700x3xf32> {
  %a = tt.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %s = tt.constant dense<2.0> : tensor<700x3xf32>
  %0 = tt.add %a, %s : (tensor<3xf32>, tensor<700x3xf32>) -> tensor<700x3xf32>
  return %0 : tensor<700x3xf32>
}

// -----

// ...but splats fold whatever their size, and small non-splat results still
// fold.
// CHECK-LABEL: func.func @fold_large_splat
// CHECK-DAG: %[[BIG:.*]] = tt.constant dense<4.000000e+00> : tensor<700x3xf32>
// CHECK-DAG: %[[SMALL:.*]] = tt.constant dense<{{\[}}[3.000000e+00, 4.000000e+00, 5.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>
// CHECK-NOT: tt.mul
// CHECK-NOT: tt.add
// CHECK: return %[[BIG]], %[[SMALL]]
func.func @fold_large_splat() -> (tensor<700x3xf32>, tensor<2x3xf32>) {
  %t = tt.constant dense<2.0> : tensor<700x1xf32>
  %s = tt.constant dense<2.0> : tensor<3xf32>
  %0 = tt.mul %t, %s : (tensor<700x1xf32>, tensor<3xf32>) -> tensor<700x3xf32>
  %a = tt.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %u = tt.constant dense<2.0> : tensor<2x3xf32>
  %1 = tt.add %a, %u : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<700x3xf32>, tensor<2x3xf32>
}

// -----

// Operations on non-constant values are not folded.
// CHECK-LABEL: func.func @no_fold_non_constant
// CHECK: tt.add %arg0, %arg1
// CHECK: tt.exp %arg0
func.func @no_fold_non_constant(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = tt.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = tt.exp %x : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// Constant folding of unary ops
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @fold_unary_f32
// CHECK-DAG: %[[NEG:.*]] = tt.constant dense<[-1.000000e+00, -4.000000e+00, -2.500000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[ABS:.*]] = tt.constant dense<[1.000000e+00, 4.000000e+00, 2.500000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[EXP:.*]] = tt.constant dense<[2.71828175, 54.5981483, 1.28402543]> : tensor<3xf32>
// CHECK-DAG: %[[LOG:.*]] = tt.constant dense<[0.000000e+00, 1.38629436, -1.38629436]> : tensor<3xf32>
// CHECK-DAG: %[[TANH:.*]] = tt.constant dense<[0.761594176, 0.999329328, 0.244918659]> : tensor<3xf32>
// CHECK-DAG: %[[SQRT:.*]] = tt.constant dense<[1.000000e+00, 2.000000e+00, 5.000000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[RSQRT:.*]] = tt.constant dense<[1.000000e+00, 5.000000e-01, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[ERF:.*]] = tt.constant dense<[0.842700779, 1.000000e+00, 0.276326388]> : tensor<3xf32>
// CHECK: return %[[NEG]], %[[ABS]], %[[EXP]], %[[LOG]], %[[TANH]], %[[SQRT]], %[[RSQRT]], %[[ERF]]
func.func @fold_unary_f32()
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
        tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %b = tt.constant dense<[1.0, 4.0, 0.25]> : tensor<3xf32>
  %0 = tt.neg %b : tensor<3xf32>
  %1 = tt.abs %0 : tensor<3xf32>
  %2 = tt.exp %b : tensor<3xf32>
  %3 = tt.log %b : tensor<3xf32>
  %4 = tt.tanh %b : tensor<3xf32>
  %5 = tt.sqrt %b : tensor<3xf32>
  %6 = tt.rsqrt %b : tensor<3xf32>
  %7 = tt.erf %b : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
        tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @fold_unary_splat_f64
// CHECK-DAG: %[[EXP:.*]] = tt.constant dense<1.000000e+00> : tensor<2x2xf64>
// CHECK-DAG: %[[SQRT:.*]] = tt.constant dense<0.000000e+00> : tensor<2x2xf64>
// CHECK-NOT: tt.exp
// CHECK-NOT: tt.sqrt
// CHECK: return %[[EXP]], %[[SQRT]]
func.func @fold_unary_splat_f64() -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %z = tt.constant dense<0.0> : tensor<2x2xf64>
  %0 = tt.exp %z : tensor<2x2xf64>
  %1 = tt.sqrt %z : tensor<2x2xf64>
  return %0, %1 : tensor<2x2xf64>, tensor<2x2xf64>
}

// -----

// CHECK-LABEL: func.func @fold_unary_i32
// CHECK-DAG: %[[NEG:.*]] = tt.constant dense<[-7, 7, -2147483647, -2147483648]> : tensor<4xi32>
// CHECK-DAG: %[[ABS:.*]] = tt.constant dense<[7, 7, 2147483647, -2147483648]> : tensor<4xi32>
// CHECK: return %[[NEG]], %[[ABS]]
func.func @fold_unary_i32() -> (tensor<4xi32>, tensor<4xi32>) {
  %a = tt.constant dense<[7, -7, 2147483647, -2147483648]> : tensor<4xi32>
  %0 = tt.neg %a : tensor<4xi32>
  %1 = tt.abs %a : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

// -----

// A cast to the input's own element type disappears.
// CHECK-LABEL: func.func @cast_same_type
// CHECK-NOT: tt.cast
// CHECK: return %arg0, %arg1 : tensor<3xf32>, tensor<*xi32>
func.func @cast_same_type(%x: tensor<3xf32>, %u: tensor<*xi32>) -> (tensor<3xf32>, tensor<*xi32>) {
  %0 = tt.cast %x to f32 : tensor<3xf32> -> tensor<3xf32>
  %1 = tt.cast %u to i32 : tensor<*xi32> -> tensor<*xi32>
  return %0, %1 : tensor<3xf32>, tensor<*xi32>
}

// -----

// A real conversion of a non-constant stays.
// CHECK-LABEL: func.func @cast_not_folded
// CHECK: %[[C:.*]] = tt.cast %arg0 to f64 : tensor<3xf32> -> tensor<3xf64>
// CHECK: return %[[C]]
func.func @cast_not_folded(%x: tensor<3xf32>) -> tensor<3xf64> {
  %0 = tt.cast %x to f64 : tensor<3xf32> -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// Constant casts: float -> int truncates toward zero, anything -> i1
// compares with zero, i1 -> number gives 0 or 1.
// CHECK-LABEL: func.func @cast_constant
// CHECK-DAG: %[[I32:.*]] = tt.constant dense<[-1, 0, 2]> : tensor<3xi32>
// CHECK-DAG: %[[I1:.*]] = tt.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[F64:.*]] = tt.constant dense<[-1.500000e+00, 0.000000e+00, 2.7000000476837158]> : tensor<3xf64>
// CHECK-DAG: %[[BF:.*]] = tt.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[BI:.*]] = tt.constant dense<[1, 0]> : tensor<2xi32>
// CHECK-DAG: %[[IB:.*]] = tt.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: %[[IF:.*]] = tt.constant dense<[0.000000e+00, -3.000000e+00, 5.000000e+00]> : tensor<3xf32>
// CHECK-NOT: tt.cast
// CHECK: return %[[I32]], %[[I1]], %[[F64]], %[[BF]], %[[BI]], %[[IB]], %[[IF]]
func.func @cast_constant()
    -> (tensor<3xi32>, tensor<3xi1>, tensor<3xf64>, tensor<2xf32>,
        tensor<2xi32>, tensor<3xi1>, tensor<3xf32>) {
  %c = tt.constant dense<[-1.5, 0.0, 2.7]> : tensor<3xf32>
  %b = tt.constant dense<[true, false]> : tensor<2xi1>
  %i = tt.constant dense<[0, -3, 5]> : tensor<3xi32>
  %0 = tt.cast %c to i32 : tensor<3xf32> -> tensor<3xi32>
  %1 = tt.cast %c to i1 : tensor<3xf32> -> tensor<3xi1>
  %2 = tt.cast %c to f64 : tensor<3xf32> -> tensor<3xf64>
  %3 = tt.cast %b to f32 : tensor<2xi1> -> tensor<2xf32>
  %4 = tt.cast %b to i32 : tensor<2xi1> -> tensor<2xi32>
  %5 = tt.cast %i to i1 : tensor<3xi32> -> tensor<3xi1>
  %6 = tt.cast %i to f32 : tensor<3xi32> -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<3xi32>, tensor<3xi1>, tensor<3xf64>, tensor<2xf32>,
        tensor<2xi32>, tensor<3xi1>, tensor<3xf32>
}

// -----

// An out-of-range float -> i32 conversion is not folded.
// CHECK-LABEL: func.func @cast_constant_out_of_range
// CHECK: %[[C:.*]] = tt.cast %{{.*}} to i32 : tensor<2xf64> -> tensor<2xi32>
// CHECK: return %[[C]]
func.func @cast_constant_out_of_range() -> tensor<2xi32> {
  %c = tt.constant dense<[1.0, 3.0e9]> : tensor<2xf64>
  %0 = tt.cast %c to i32 : tensor<2xf64> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

//===----------------------------------------------------------------------===//
// Algebraic identities
//===----------------------------------------------------------------------===//

// -----

// x * 1, 1 * x, x / 1 and pow(x, 1) fold to x when the constant's
// broadcasting does not change x's type; so do x - 0 and x + 0 (here on i32,
// and with a -0.0 float constant, the additive identity of IEEE floats).
// CHECK-LABEL: func.func @identities
// CHECK-NOT: tt.mul
// CHECK-NOT: tt.div
// CHECK-NOT: tt.pow
// CHECK-NOT: tt.sub
// CHECK-NOT: tt.add
// CHECK: return %arg0, %arg0, %arg0, %arg0, %arg0, %arg1, %arg1, %arg0 :
func.func @identities(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xf32>) {
  %one = tt.constant dense<1.0> : tensor<3xf32>
  %zero = tt.constant dense<0.0> : tensor<f32>
  %izero = tt.constant dense<0> : tensor<1x3xi32>
  %nzero = tt.constant dense<-0.0> : tensor<2x3xf32>
  %0 = tt.mul %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = tt.mul %one, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tt.div %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = tt.pow %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = tt.sub %x, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %5 = tt.add %i, %izero : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  %6 = tt.add %izero, %i : (tensor<1x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %7 = tt.add %x, %nzero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xf32>
}

// -----

// Not folded when broadcasting against the identity changes x's type, and
// not folded for the non-identity side of sub and div.
// CHECK-LABEL: func.func @identities_not_folded
// CHECK-DAG: %[[ONE:.*]] = tt.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[ZERO:.*]] = tt.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[IONE:.*]] = tt.constant dense<1> : tensor<4x1xi32>
// CHECK: %[[MUL:.*]] = tt.mul %arg0, %[[ONE]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[DIV:.*]] = tt.div %arg1, %[[IONE]] : (tensor<3xi32>, tensor<4x1xi32>) -> tensor<4x3xi32>
// CHECK: %[[SUB:.*]] = tt.sub %[[ZERO]], %arg0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: %[[RDIV:.*]] = tt.div %[[ZERO]], %arg0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: %[[POW:.*]] = tt.pow %[[ZERO]], %arg0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: return %[[MUL]], %[[DIV]], %[[SUB]], %[[RDIV]], %[[POW]]
func.func @identities_not_folded(%x: tensor<3xf32>, %i: tensor<3xi32>)
    -> (tensor<2x3xf32>, tensor<4x3xi32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %one = tt.constant dense<1.0> : tensor<2x3xf32>
  %zero = tt.constant dense<0.0> : tensor<3xf32>
  %ione = tt.constant dense<1> : tensor<4x1xi32>
  %0 = tt.mul %x, %one : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tt.div %i, %ione : (tensor<3xi32>, tensor<4x1xi32>) -> tensor<4x3xi32>
  %2 = tt.sub %zero, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %3 = tt.div %zero, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = tt.pow %zero, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4
      : tensor<2x3xf32>, tensor<4x3xi32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// pow with a small integer exponent
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @pow_square
// CHECK-NOT: tt.pow
// CHECK: %[[SQ:.*]] = tt.mul %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: tt.mul
// CHECK: return %[[SQ]]
func.func @pow_square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = tt.constant dense<2.0> : tensor<f32>
  %0 = tt.pow %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @pow_cube
// CHECK-NOT: tt.pow
// CHECK: %[[SQ:.*]] = tt.mul %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[CUBE:.*]] = tt.mul %[[SQ]], %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: tt.mul
// CHECK: return %[[CUBE]]
func.func @pow_cube(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = tt.constant dense<3.0> : tensor<4xf32>
  %0 = tt.pow %x, %three : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @pow_cube_i32
// CHECK: %[[SQ:.*]] = tt.mul %arg0, %arg0 : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
// CHECK: %[[CUBE:.*]] = tt.mul %[[SQ]], %arg0 : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
// CHECK: return %[[CUBE]]
func.func @pow_cube_i32(%x: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %three = tt.constant dense<3> : tensor<i32>
  %0 = tt.pow %x, %three : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// Other exponents, non-splat exponents and exponents that broadcast x to a
// larger type keep the pow.
// CHECK-LABEL: func.func @pow_not_rewritten
// CHECK-DAG: %[[HALF:.*]] = tt.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[MIXED:.*]] = tt.constant dense<[2.000000e+00, 3.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[TWO:.*]] = tt.constant dense<2.000000e+00> : tensor<2x4xf32>
// CHECK-NOT: tt.mul
// CHECK: tt.pow %arg0, %[[HALF]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: tt.pow %arg0, %[[MIXED]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: tt.pow %arg0, %[[TWO]] : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NOT: tt.mul
func.func @pow_not_rewritten(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>) {
  %half = tt.constant dense<0.5> : tensor<f32>
  %mixed = tt.constant dense<[2.0, 3.0, 2.0, 3.0]> : tensor<4xf32>
  %two = tt.constant dense<2.0> : tensor<2x4xf32>
  %0 = tt.pow %x, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tt.pow %x, %mixed : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tt.pow %x, %two : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// Transpose and reshape
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @transpose_compose
// CHECK: %[[T:.*]] = tt.transpose %arg0 [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NOT: tt.transpose
// CHECK: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tt.transpose %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tt.transpose %0 [1, 0, 2] : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  %2 = tt.transpose %1 [0, 2, 1] : tensor<4x3x2xf32> -> tensor<4x2x3xf32>
  return %2 : tensor<4x2x3xf32>
}

// -----

// Composing to the identity permutation removes both transposes.
// CHECK-LABEL: func.func @transpose_compose_identity
// CHECK-NOT: tt.transpose
// CHECK: return %arg0 : tensor<2x3x4xf32>
func.func @transpose_compose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tt.transpose %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tt.transpose %0 [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-NOT: tt.transpose
// CHECK: return %arg0 : tensor<2x3xf32>
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tt.transpose %x [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_compose
// CHECK: %[[R:.*]] = tt.reshape %arg0 [4, 6] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NOT: tt.reshape
// CHECK: return %[[R]]
func.func @reshape_compose(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = tt.reshape %x [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = tt.reshape %0 [24] : tensor<6x4xf32> -> tensor<24xf32>
  %2 = tt.reshape %1 [4, 6] : tensor<24xf32> -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}

// -----

// A chain of reshapes back to the input type vanishes.
// CHECK-LABEL: func.func @reshape_compose_identity
// CHECK-NOT: tt.reshape
// CHECK: return %arg0 : tensor<2x3x4xf32>
func.func @reshape_compose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tt.reshape %x [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = tt.reshape %0 [2, 3, 4] : tensor<6x4xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-NOT: tt.reshape
// CHECK: return %arg0 : tensor<2x3xf32>
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tt.reshape %x [2, 3] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Reshaping a small constant folds, keeping the row-major element order.
// CHECK-LABEL: func.func @reshape_constant
// CHECK: %[[C:.*]] = tt.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
// CHECK-NOT: tt.reshape
// CHECK: return %[[C]]
func.func @reshape_constant() -> tensor<3x2xi32> {
  %c = tt.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = tt.reshape %c [3, 2] : tensor<2x3xi32> -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

//===----------------------------------------------------------------------===//
// Identity slice, broadcast_to and concat
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @identity_shape_ops
// CHECK-NOT: tt.slice
// CHECK-NOT: tt.broadcast_to
// CHECK-NOT: tt.concat
// CHECK: return %arg0, %arg0, %arg0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
func.func @identity_shape_ops(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tt.slice %x starts = [0, 0] sizes = [2, 3] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = tt.broadcast_to %x [2, 3] : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = tt.concat %x axis = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Non-identity shape ops of non-constants stay.
// CHECK-LABEL: func.func @non_identity_shape_ops
// CHECK: tt.slice %arg0 starts = [0, 1] sizes = [2, 2] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x2xf32>
// CHECK: tt.broadcast_to %arg0 [4, 2, 3] : tensor<2x3xf32> -> tensor<4x2x3xf32>
// CHECK: tt.concat %arg0, %arg0 axis = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
func.func @non_identity_shape_ops(%x: tensor<2x3xf32>)
    -> (tensor<2x2xf32>, tensor<4x2x3xf32>, tensor<4x3xf32>) {
  %0 = tt.slice %x starts = [0, 1] sizes = [2, 2] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x2xf32>
  %1 = tt.broadcast_to %x [4, 2, 3] : tensor<2x3xf32> -> tensor<4x2x3xf32>
  %2 = tt.concat %x, %x axis = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<4x2x3xf32>, tensor<4x3xf32>
}

// -----

// Slices and broadcasts of splat constants fold to splats.
// CHECK-LABEL: func.func @shape_ops_of_splat
// CHECK-DAG: %[[B:.*]] = tt.constant dense<2.000000e+00> : tensor<4x3xf32>
// CHECK-DAG: %[[S:.*]] = tt.constant dense<2.000000e+00> : tensor<2xf32>
// CHECK-NOT: tt.broadcast_to
// CHECK-NOT: tt.slice
// CHECK: return %[[B]], %[[S]]
func.func @shape_ops_of_splat() -> (tensor<4x3xf32>, tensor<2xf32>) {
  %s = tt.constant dense<2.0> : tensor<3xf32>
  %0 = tt.broadcast_to %s [4, 3] : tensor<3xf32> -> tensor<4x3xf32>
  %1 = tt.slice %s starts = [1] sizes = [2] strides = [1] : tensor<3xf32> -> tensor<2xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<2xf32>
}

// -----

// matmul(x, broadcast_to(w)) of a matrix broadcast along the batch only
// (torch.export's expand + bmm of a linear layer) reads w itself: matmul
// broadcasts a matrix over the batch. Not when the broadcast also adds a
// batch that the other operand lacks (the result would lose it), nor when
// it broadcasts the matrix dimensions themselves.
// CHECK-LABEL: func.func @matmul_of_broadcast_matrix
// CHECK-SAME:    (%[[X:.*]]: tensor<16x8x64xf32>, %[[W:.*]]: tensor<64x32xf32>, %[[Y:.*]]: tensor<8x64xf32>, %[[V:.*]]: tensor<1x32xf32>)
// CHECK:         %[[B1:.*]] = tt.broadcast_to %[[W]] [16, 64, 32]
// CHECK:         %[[R0:.*]] = tt.matmul %[[X]], %[[W]] : (tensor<16x8x64xf32>, tensor<64x32xf32>) -> tensor<16x8x32xf32>
// CHECK:         %[[R1:.*]] = tt.matmul %[[Y]], %[[B1]]
// CHECK:         %[[B2:.*]] = tt.broadcast_to %[[V]] [16, 64, 32]
// CHECK:         %[[R2:.*]] = tt.matmul %[[X]], %[[B2]]
// CHECK:         return %[[R0]], %[[R1]], %[[R2]]
func.func @matmul_of_broadcast_matrix(%x: tensor<16x8x64xf32>, %w: tensor<64x32xf32>, %y: tensor<8x64xf32>, %v: tensor<1x32xf32>) -> (tensor<16x8x32xf32>, tensor<16x8x32xf32>, tensor<16x8x32xf32>) {
  %wb = tt.broadcast_to %w [16, 64, 32] : tensor<64x32xf32> -> tensor<16x64x32xf32>
  %0 = tt.matmul %x, %wb : (tensor<16x8x64xf32>, tensor<16x64x32xf32>) -> tensor<16x8x32xf32>
  %1 = tt.matmul %y, %wb : (tensor<8x64xf32>, tensor<16x64x32xf32>) -> tensor<16x8x32xf32>
  %vb = tt.broadcast_to %v [16, 64, 32] : tensor<1x32xf32> -> tensor<16x64x32xf32>
  %2 = tt.matmul %x, %vb : (tensor<16x8x64xf32>, tensor<16x64x32xf32>) -> tensor<16x8x32xf32>
  return %0, %1, %2 : tensor<16x8x32xf32>, tensor<16x8x32xf32>, tensor<16x8x32xf32>
}

// -----

// Integer constants fold with wrap-around at their own width: i64 products
// past 2^31 stay exact, i32 ones keep the low 32 bits (as the compiled code
// and NumPy do); float -> i64 folds within the i64 range.
// CHECK-LABEL: func.func @fold_integer_widths
// CHECK-DAG: tt.constant dense<10000000000> : tensor<i64>
// CHECK-DAG: tt.constant dense<1410065408> : tensor<i32>
// CHECK-DAG: tt.constant dense<-9223372036854775808> : tensor<i64>
// CHECK-DAG: tt.constant dense<3000000000> : tensor<i64>
// CHECK-DAG: tt.constant dense<-1> : tensor<i32>
// CHECK-NOT: tt.mul
// CHECK-NOT: tt.cast
func.func @fold_integer_widths() -> (tensor<i64>, tensor<i32>, tensor<i64>, tensor<i64>, tensor<i32>) {
  %a = tt.constant dense<100000> : tensor<i64>
  %0 = tt.mul %a, %a : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %b = tt.constant dense<100000> : tensor<i32>
  %1 = tt.mul %b, %b : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %c = tt.constant dense<9223372036854775807> : tensor<i64>
  %one = tt.constant dense<1> : tensor<i64>
  %2 = tt.add %c, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %f = tt.constant dense<3.0e9> : tensor<f64>
  %3 = tt.cast %f to i64 : tensor<f64> -> tensor<i64>
  %g = tt.constant dense<4294967295> : tensor<i64>
  %4 = tt.cast %g to i32 : tensor<i64> -> tensor<i32>
  return %0, %1, %2, %3, %4 : tensor<i64>, tensor<i32>, tensor<i64>, tensor<i64>, tensor<i32>
}

// -----

// Bitwise ops of constants fold, also of booleans and narrow integers.
// CHECK-LABEL: func.func @fold_bitwise
// CHECK-DAG: tt.constant dense<[1, 7, -6]> : tensor<3xi8>
// CHECK-DAG: tt.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NOT: tt.bitwise
func.func @fold_bitwise() -> (tensor<3xi8>, tensor<2xi1>) {
  %a = tt.constant dense<[3, 6, -1]> : tensor<3xi8>
  %b = tt.constant dense<[2, 1, 5]> : tensor<3xi8>
  %x = tt.bitwise_and %a, %b : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %y = tt.bitwise_or %a, %b : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %z = tt.bitwise_xor %x, %y : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %p = tt.constant dense<[true, true]> : tensor<2xi1>
  %q = tt.constant dense<[true, false]> : tensor<2xi1>
  %r = tt.bitwise_xor %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %z, %r : tensor<3xi8>, tensor<2xi1>
}
