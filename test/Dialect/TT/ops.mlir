// RUN: tiny-opt %s | tiny-opt | FileCheck %s
// RUN: tiny-opt %s --mlir-print-op-generic | tiny-opt | FileCheck %s

// Round trip of every tt op through the custom assembly format, and through
// the generic form (which must parse back to the same custom form).

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant_dense_f32
// CHECK: %[[C:.*]] = tt.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]] : tensor<2xf32>
func.func @constant_dense_f32() -> tensor<2xf32> {
  %0 = tt.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @constant_splat_i32
// CHECK: tt.constant dense<0> : tensor<4x4xi32>
func.func @constant_splat_i32() -> tensor<4x4xi32> {
  %0 = tt.constant dense<0> : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// CHECK-LABEL: func.func @constant_scalar_f64
// CHECK: tt.constant dense<2.500000e+00> : tensor<f64>
func.func @constant_scalar_f64() -> tensor<f64> {
  %0 = tt.constant dense<2.5> : tensor<f64>
  return %0 : tensor<f64>
}

// CHECK-LABEL: func.func @constant_i1
// CHECK: tt.constant dense<[true, false, true]> : tensor<3xi1>
func.func @constant_i1() -> tensor<3xi1> {
  %0 = tt.constant dense<[true, false, true]> : tensor<3xi1>
  return %0 : tensor<3xi1>
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add
// CHECK: %[[R:.*]] = tt.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[R]] : tensor<2x3xf32>
func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sub
// CHECK: tt.sub %arg0, %arg1 : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
func.func @sub(%a: tensor<4xf32>, %b: tensor<1xf32>) -> tensor<4xf32> {
  %0 = tt.sub %a, %b : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @mul
// CHECK: tt.mul %arg0, %arg1 : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
func.func @mul(%a: tensor<2x1xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = tt.mul %a, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @div_i32
// CHECK: tt.div %arg0, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
func.func @div_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tt.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @pow
// CHECK: tt.pow %arg0, %arg1 : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
func.func @pow(%x: tensor<4xf64>, %e: tensor<f64>) -> tensor<4xf64> {
  %0 = tt.pow %x, %e : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// CHECK-LABEL: func.func @max
// CHECK: tt.max %arg0, %arg1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
func.func @max(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  %0 = tt.max %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @min
// CHECK: tt.min %arg0, %arg1 : (tensor<f32>, tensor<5x1x4xf32>) -> tensor<5x1x4xf32>
func.func @min(%a: tensor<f32>, %b: tensor<5x1x4xf32>) -> tensor<5x1x4xf32> {
  %0 = tt.min %a, %b : (tensor<f32>, tensor<5x1x4xf32>) -> tensor<5x1x4xf32>
  return %0 : tensor<5x1x4xf32>
}

// CHECK-LABEL: func.func @cmp_predicates
// CHECK: tt.cmp eq, %arg0, %arg1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK: tt.cmp ne, %arg0, %arg1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK: tt.cmp lt, %arg0, %arg1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK: tt.cmp le, %arg0, %arg1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK: tt.cmp gt, %arg0, %arg1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK: tt.cmp ge, %arg0, %arg1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
func.func @cmp_predicates(%a: tensor<4xf32>, %b: tensor<f32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
        tensor<4xi1>) {
  %0 = tt.cmp eq, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %1 = tt.cmp ne, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %2 = tt.cmp lt, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %3 = tt.cmp le, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %4 = tt.cmp gt, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %5 = tt.cmp ge, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5
      : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
        tensor<4xi1>
}

// CHECK-LABEL: func.func @cmp_i32_broadcast
// CHECK: tt.cmp ge, %arg0, %arg1 : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi1>
func.func @cmp_i32_broadcast(%a: tensor<3x1xi32>, %b: tensor<4xi32>) -> tensor<3x4xi1> {
  %0 = tt.cmp ge, %a, %b : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi1>
  return %0 : tensor<3x4xi1>
}

// CHECK-LABEL: func.func @select
// CHECK: tt.select %arg0, %arg1, %arg2 : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
func.func @select(%c: tensor<4x4xi1>, %a: tensor<4x4xf32>, %b: tensor<f32>) -> tensor<4x4xf32> {
  %0 = tt.select %c, %a, %b : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// The condition's shape takes part in the broadcast.
// CHECK-LABEL: func.func @select_broadcast_condition
// CHECK: tt.select %arg0, %arg1, %arg2 : (tensor<2x1xi1>, tensor<3xi32>, tensor<1xi32>) -> tensor<2x3xi32>
func.func @select_broadcast_condition(%c: tensor<2x1xi1>, %a: tensor<3xi32>, %b: tensor<1xi32>) -> tensor<2x3xi32> {
  %0 = tt.select %c, %a, %b : (tensor<2x1xi1>, tensor<3xi32>, tensor<1xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary
// CHECK: %[[NEG:.*]] = tt.neg %arg0 : tensor<4xf32>
// CHECK: %[[ABS:.*]] = tt.abs %[[NEG]] : tensor<4xf32>
// CHECK: %[[EXP:.*]] = tt.exp %[[ABS]] : tensor<4xf32>
// CHECK: %[[LOG:.*]] = tt.log %[[EXP]] : tensor<4xf32>
// CHECK: %[[TANH:.*]] = tt.tanh %[[LOG]] : tensor<4xf32>
// CHECK: %[[SQRT:.*]] = tt.sqrt %[[TANH]] : tensor<4xf32>
// CHECK: %[[RSQRT:.*]] = tt.rsqrt %[[SQRT]] : tensor<4xf32>
// CHECK: %[[ERF:.*]] = tt.erf %[[RSQRT]] : tensor<4xf32>
// CHECK: return %[[ERF]] : tensor<4xf32>
func.func @unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tt.neg %x : tensor<4xf32>
  %1 = tt.abs %0 : tensor<4xf32>
  %2 = tt.exp %1 : tensor<4xf32>
  %3 = tt.log %2 : tensor<4xf32>
  %4 = tt.tanh %3 : tensor<4xf32>
  %5 = tt.sqrt %4 : tensor<4xf32>
  %6 = tt.rsqrt %5 : tensor<4xf32>
  %7 = tt.erf %6 : tensor<4xf32>
  return %7 : tensor<4xf32>
}

// CHECK-LABEL: func.func @unary_int_and_f64
// CHECK: tt.neg %arg0 : tensor<2x2xi32>
// CHECK: tt.abs %arg0 : tensor<2x2xi32>
// CHECK: tt.exp %arg1 : tensor<3xf64>
func.func @unary_int_and_f64(%i: tensor<2x2xi32>, %d: tensor<3xf64>)
    -> (tensor<2x2xi32>, tensor<2x2xi32>, tensor<3xf64>) {
  %0 = tt.neg %i : tensor<2x2xi32>
  %1 = tt.abs %i : tensor<2x2xi32>
  %2 = tt.exp %d : tensor<3xf64>
  return %0, %1, %2 : tensor<2x2xi32>, tensor<2x2xi32>, tensor<3xf64>
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cast
// CHECK: tt.cast %arg0 to f64 : tensor<2x3xf32> -> tensor<2x3xf64>
// CHECK: tt.cast %arg0 to i32 : tensor<2x3xf32> -> tensor<2x3xi32>
// CHECK: tt.cast %arg0 to i1 : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK: tt.cast %arg1 to f32 : tensor<3xi32> -> tensor<3xf32>
// CHECK: tt.cast %arg1 to i1 : tensor<3xi32> -> tensor<3xi1>
// CHECK: tt.cast %arg2 to f32 : tensor<3xi1> -> tensor<3xf32>
// CHECK: tt.cast %arg2 to i32 : tensor<3xi1> -> tensor<3xi32>
// CHECK: tt.cast %arg3 to f32 : tensor<f64> -> tensor<f32>
func.func @cast(%f: tensor<2x3xf32>, %i: tensor<3xi32>, %b: tensor<3xi1>, %d: tensor<f64>)
    -> (tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<3xf32>,
        tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<f32>) {
  %0 = tt.cast %f to f64 : tensor<2x3xf32> -> tensor<2x3xf64>
  %1 = tt.cast %f to i32 : tensor<2x3xf32> -> tensor<2x3xi32>
  %2 = tt.cast %f to i1 : tensor<2x3xf32> -> tensor<2x3xi1>
  %3 = tt.cast %i to f32 : tensor<3xi32> -> tensor<3xf32>
  %4 = tt.cast %i to i1 : tensor<3xi32> -> tensor<3xi1>
  %5 = tt.cast %b to f32 : tensor<3xi1> -> tensor<3xf32>
  %6 = tt.cast %b to i32 : tensor<3xi1> -> tensor<3xi32>
  %7 = tt.cast %d to f32 : tensor<f64> -> tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<3xf32>,
        tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @sum
// CHECK: tt.sum %arg0 axes = [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK: tt.sum %arg0 axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
// CHECK: tt.sum %arg0 axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
func.func @sum(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %0 = tt.sum %x axes = [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
  %1 = tt.sum %x axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %2 = tt.sum %x axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x1xf32>, tensor<3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reduce_max
// CHECK: tt.reduce_max %arg0 axes = [0, 1] : tensor<2x3xi32> -> tensor<i32>
// CHECK: tt.reduce_max %arg0 axes = [1, 0] keepdims : tensor<2x3xi32> -> tensor<1x1xi32>
func.func @reduce_max(%x: tensor<2x3xi32>) -> (tensor<i32>, tensor<1x1xi32>) {
  %0 = tt.reduce_max %x axes = [0, 1] : tensor<2x3xi32> -> tensor<i32>
  %1 = tt.reduce_max %x axes = [1, 0] keepdims : tensor<2x3xi32> -> tensor<1x1xi32>
  return %0, %1 : tensor<i32>, tensor<1x1xi32>
}

// CHECK-LABEL: func.func @mean
// CHECK: tt.mean %arg0 axes = [1] keepdims : tensor<2x3x4xf64> -> tensor<2x1x4xf64>
// CHECK: tt.mean %arg0 axes = [0, 2] : tensor<2x3x4xf64> -> tensor<3xf64>
func.func @mean(%x: tensor<2x3x4xf64>) -> (tensor<2x1x4xf64>, tensor<3xf64>) {
  %0 = tt.mean %x axes = [1] keepdims : tensor<2x3x4xf64> -> tensor<2x1x4xf64>
  %1 = tt.mean %x axes = [0, 2] : tensor<2x3x4xf64> -> tensor<3xf64>
  return %0, %1 : tensor<2x1x4xf64>, tensor<3xf64>
}

// The default ddof (0) is elided; an explicit one is kept.
// CHECK-LABEL: func.func @var
// CHECK: tt.var %arg0 axes = [1] keepdims {ddof = 1 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK: tt.var %arg0 axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
// CHECK-NOT: ddof
// CHECK: return
func.func @var(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<3xf32>) {
  %0 = tt.var %x axes = [1] keepdims {ddof = 1 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>
  %1 = tt.var %x axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  return %0, %1 : tensor<2x1xf32>, tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_vec_vec
// CHECK: tt.matmul %arg0, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
func.func @matmul_vec_vec(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = tt.matmul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @matmul_vec_mat
// CHECK: tt.matmul %arg0, %arg1 : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
func.func @matmul_vec_mat(%a: tensor<3xf32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = tt.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @matmul_mat_vec
// CHECK: tt.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
func.func @matmul_mat_vec(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = tt.matmul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @matmul_2d
// CHECK: tt.matmul %arg0, %arg1 : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
func.func @matmul_2d(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  %0 = tt.matmul %a, %b : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// CHECK-LABEL: func.func @matmul_batched_broadcast
// CHECK: tt.matmul %arg0, %arg1 : (tensor<8x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32>
func.func @matmul_batched_broadcast(%a: tensor<8x1x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32> {
  %0 = tt.matmul %a, %b : (tensor<8x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32>
  return %0 : tensor<8x5x2x4xf32>
}

// A batched lhs against a plain matrix and a 1-D rhs.
// CHECK-LABEL: func.func @matmul_batched_mixed
// CHECK: tt.matmul %arg0, %arg1 : (tensor<7x2x3xf64>, tensor<3x4xf64>) -> tensor<7x2x4xf64>
// CHECK: tt.matmul %arg0, %arg2 : (tensor<7x2x3xf64>, tensor<3xf64>) -> tensor<7x2xf64>
func.func @matmul_batched_mixed(%a: tensor<7x2x3xf64>, %b: tensor<3x4xf64>, %v: tensor<3xf64>)
    -> (tensor<7x2x4xf64>, tensor<7x2xf64>) {
  %0 = tt.matmul %a, %b : (tensor<7x2x3xf64>, tensor<3x4xf64>) -> tensor<7x2x4xf64>
  %1 = tt.matmul %a, %v : (tensor<7x2x3xf64>, tensor<3xf64>) -> tensor<7x2xf64>
  return %0, %1 : tensor<7x2x4xf64>, tensor<7x2xf64>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose
// CHECK: tt.transpose %arg0 [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: tt.transpose %arg1 [2, 0, 1] : tensor<2x3x4xi1> -> tensor<4x2x3xi1>
func.func @transpose(%x: tensor<2x3xf32>, %y: tensor<2x3x4xi1>) -> (tensor<3x2xf32>, tensor<4x2x3xi1>) {
  %0 = tt.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tt.transpose %y [2, 0, 1] : tensor<2x3x4xi1> -> tensor<4x2x3xi1>
  return %0, %1 : tensor<3x2xf32>, tensor<4x2x3xi1>
}

// CHECK-LABEL: func.func @reshape
// CHECK: tt.reshape %arg0 [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: tt.reshape %arg0 [6] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: tt.reshape %arg1 [] : tensor<1x1xi32> -> tensor<i32>
func.func @reshape(%x: tensor<2x3xf32>, %y: tensor<1x1xi32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<i32>) {
  %0 = tt.reshape %x [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tt.reshape %x [6] : tensor<2x3xf32> -> tensor<6xf32>
  %2 = tt.reshape %y [] : tensor<1x1xi32> -> tensor<i32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<6xf32>, tensor<i32>
}

// CHECK-LABEL: func.func @broadcast_to
// CHECK: tt.broadcast_to %arg0 [4, 3] : tensor<3xf32> -> tensor<4x3xf32>
// CHECK: tt.broadcast_to %arg1 [2, 5, 3] : tensor<5x1xf32> -> tensor<2x5x3xf32>
func.func @broadcast_to(%x: tensor<3xf32>, %y: tensor<5x1xf32>) -> (tensor<4x3xf32>, tensor<2x5x3xf32>) {
  %0 = tt.broadcast_to %x [4, 3] : tensor<3xf32> -> tensor<4x3xf32>
  %1 = tt.broadcast_to %y [2, 5, 3] : tensor<5x1xf32> -> tensor<2x5x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<2x5x3xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK: tt.slice %arg0 starts = [0, 1] sizes = [2, 2] strides = [1, 1] : tensor<4x3xf32> -> tensor<2x2xf32>
// CHECK: tt.slice %arg0 starts = [1, 0] sizes = [2, 2] strides = [2, 2] : tensor<4x3xf32> -> tensor<2x2xf32>
// CHECK: tt.slice %arg0 starts = [0, 0] sizes = [0, 3] strides = [1, 1] : tensor<4x3xf32> -> tensor<0x3xf32>
func.func @slice(%x: tensor<4x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<0x3xf32>) {
  %0 = tt.slice %x starts = [0, 1] sizes = [2, 2] strides = [1, 1] : tensor<4x3xf32> -> tensor<2x2xf32>
  %1 = tt.slice %x starts = [1, 0] sizes = [2, 2] strides = [2, 2] : tensor<4x3xf32> -> tensor<2x2xf32>
  %2 = tt.slice %x starts = [0, 0] sizes = [0, 3] strides = [1, 1] : tensor<4x3xf32> -> tensor<0x3xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<0x3xf32>
}

// CHECK-LABEL: func.func @concat_one
// CHECK: tt.concat %arg0 axis = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @concat_one(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tt.concat %a axis = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @concat_three
// CHECK: tt.concat %arg0, %arg1, %arg2 axis = 1 : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
func.func @concat_three(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x4xf32>) -> tensor<2x8xf32> {
  %0 = tt.concat %a, %b, %c axis = 1 : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @gather_1d
// CHECK: tt.gather %arg0[%arg1] : (tensor<50x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
func.func @gather_1d(%wte: tensor<50x8xf32>, %ids: tensor<4xi32>) -> tensor<4x8xf32> {
  %0 = tt.gather %wte[%ids] : (tensor<50x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @gather_2d
// CHECK: tt.gather %arg0[%arg1] : (tensor<50x8xf32>, tensor<2x4xi32>) -> tensor<2x4x8xf32>
// CHECK: tt.gather %arg2[%arg1] : (tensor<10xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
func.func @gather_2d(%wte: tensor<50x8xf32>, %ids: tensor<2x4xi32>, %v: tensor<10xi32>)
    -> (tensor<2x4x8xf32>, tensor<2x4xi32>) {
  %0 = tt.gather %wte[%ids] : (tensor<50x8xf32>, tensor<2x4xi32>) -> tensor<2x4x8xf32>
  %1 = tt.gather %v[%ids] : (tensor<10xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  return %0, %1 : tensor<2x4x8xf32>, tensor<2x4xi32>
}

//===----------------------------------------------------------------------===//
// Unranked operands
//===----------------------------------------------------------------------===//

// Unranked operands give unranked results (except where an attribute fixes
// the shape); a ranked declared result is compatible with an unranked
// inferred one.
// CHECK-LABEL: func.func @unranked
// CHECK: tt.add %arg0, %arg1 : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
// CHECK: tt.cmp gt, %arg0, %arg1 : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xi1>
// CHECK: tt.select %{{.*}}, %arg0, %arg1 : (tensor<*xi1>, tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
// CHECK: tt.exp %arg0 : tensor<*xf32>
// CHECK: tt.cast %arg0 to i32 : tensor<*xf32> -> tensor<*xi32>
// CHECK: tt.sum %arg0 axes = [0] : tensor<*xf32> -> tensor<*xf32>
// CHECK: tt.matmul %arg0, %arg2 : (tensor<*xf32>, tensor<3x4xf32>) -> tensor<*xf32>
// CHECK: tt.transpose %arg0 [1, 0] : tensor<*xf32> -> tensor<*xf32>
// CHECK: tt.reshape %arg0 [2, 6] : tensor<*xf32> -> tensor<2x6xf32>
// CHECK: tt.broadcast_to %arg0 [4, 3] : tensor<*xf32> -> tensor<4x3xf32>
// CHECK: tt.slice %arg0 starts = [0] sizes = [2] strides = [1] : tensor<*xf32> -> tensor<2xf32>
// CHECK: tt.concat %arg0, %arg2 axis = 0 : (tensor<*xf32>, tensor<3x4xf32>) -> tensor<*xf32>
// CHECK: tt.gather %arg2[%arg3] : (tensor<3x4xf32>, tensor<*xi32>) -> tensor<*xf32>
// CHECK: tt.add %arg0, %arg1 : (tensor<*xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @unranked(%u: tensor<*xf32>, %v: tensor<3xf32>, %m: tensor<3x4xf32>, %ui: tensor<*xi32>) {
  %0 = tt.add %u, %v : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
  %1 = tt.cmp gt, %u, %v : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xi1>
  %2 = tt.select %1, %u, %v : (tensor<*xi1>, tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
  %3 = tt.exp %u : tensor<*xf32>
  %4 = tt.cast %u to i32 : tensor<*xf32> -> tensor<*xi32>
  %5 = tt.sum %u axes = [0] : tensor<*xf32> -> tensor<*xf32>
  %6 = tt.matmul %u, %m : (tensor<*xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  %7 = tt.transpose %u [1, 0] : tensor<*xf32> -> tensor<*xf32>
  %8 = tt.reshape %u [2, 6] : tensor<*xf32> -> tensor<2x6xf32>
  %9 = tt.broadcast_to %u [4, 3] : tensor<*xf32> -> tensor<4x3xf32>
  %10 = tt.slice %u starts = [0] sizes = [2] strides = [1] : tensor<*xf32> -> tensor<2xf32>
  %11 = tt.concat %u, %m axis = 0 : (tensor<*xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  %12 = tt.gather %m[%ui] : (tensor<3x4xf32>, tensor<*xi32>) -> tensor<*xf32>
  %13 = tt.add %u, %v : (tensor<*xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// Dynamic dimensions in the ops that take them.
// CHECK-LABEL: func.func @dynamic
// CHECK: tt.add %arg0, %arg1 : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: tt.tanh %{{.*}} : tensor<?x3xf32>
// CHECK: tt.matmul %{{.*}}, %arg2 : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
// CHECK: tt.reduce_max %{{.*}} axes = [1] keepdims : tensor<?x2xf32> -> tensor<?x1xf32>
// CHECK: tt.argmax %{{.*}} axis = 0 : tensor<?x2xf32> -> tensor<2xi32>
// CHECK: tt.transpose %{{.*}} [1, 0] : tensor<?x2xf32> -> tensor<2x?xf32>
// CHECK: tt.gather %arg2[%arg3] : (tensor<3x2xf32>, tensor<?xi32>) -> tensor<?x2xf32>
func.func @dynamic(%x: tensor<?x3xf32>, %b: tensor<3xf32>, %w: tensor<3x2xf32>, %ids: tensor<?xi32>) {
  %0 = tt.add %x, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %1 = tt.tanh %0 : tensor<?x3xf32>
  %2 = tt.matmul %1, %w : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %3 = tt.reduce_max %2 axes = [1] keepdims : tensor<?x2xf32> -> tensor<?x1xf32>
  %4 = tt.argmax %2 axis = 0 : tensor<?x2xf32> -> tensor<2xi32>
  %5 = tt.transpose %2 [1, 0] : tensor<?x2xf32> -> tensor<2x?xf32>
  %6 = tt.gather %w[%ids] : (tensor<3x2xf32>, tensor<?xi32>) -> tensor<?x2xf32>
  return
}

// A reshape's -1: NumPy's inferred size, and how a dynamic dimension
// passes a reshape.
// CHECK-LABEL: func.func @reshape_inferred
// CHECK: tt.reshape %arg0 [-1, 6] : tensor<4x2x3xf32> -> tensor<4x6xf32>
// CHECK: tt.reshape %arg1 [-1, 6] : tensor<?x2x3xf32> -> tensor<?x6xf32>
func.func @reshape_inferred(%a: tensor<4x2x3xf32>, %b: tensor<?x2x3xf32>) {
  %0 = tt.reshape %a [-1, 6] : tensor<4x2x3xf32> -> tensor<4x6xf32>
  %1 = tt.reshape %b [-1, 6] : tensor<?x2x3xf32> -> tensor<?x6xf32>
  return
}

// The indices of a dimension, static or dynamic.
// CHECK-LABEL: func.func @iota
// CHECK: tt.iota %arg0 dim = 0 : tensor<?x3xf32> -> tensor<?xi32>
// CHECK: tt.iota %arg0 dim = 1 : tensor<?x3xf32> -> tensor<3xi32>
func.func @iota(%x: tensor<?x3xf32>) {
  %0 = tt.iota %x dim = 0 : tensor<?x3xf32> -> tensor<?xi32>
  %1 = tt.iota %x dim = 1 : tensor<?x3xf32> -> tensor<3xi32>
  return
}
