// RUN: tiny-opt %s --tt-legalize-types -split-input-file | FileCheck %s

// float16 / bfloat16 arithmetic computes in f32 and rounds once per op.

// CHECK-LABEL: func.func @half_add
// CHECK-SAME: (%[[A:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xf16>) -> tensor<4xf16>
// CHECK: %[[A32:.*]] = tt.cast %[[A]] to f32
// CHECK: %[[B32:.*]] = tt.cast %[[B]] to f32
// CHECK: %[[S:.*]] = tt.add %[[A32]], %[[B32]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[R:.*]] = tt.cast %[[S]] to f16
// CHECK: return %[[R]]
func.func @half_add(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tt.add %a, %b : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Reductions and matmul accumulate in f32; moves keep bf16.
// CHECK-LABEL: func.func @bf16_sum_matmul
// CHECK: tt.sum %{{.*}} axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
// CHECK: tt.cast %{{.*}} to bf16 : tensor<2xf32> -> tensor<2xbf16>
// CHECK: tt.transpose %{{.*}} [1, 0] : tensor<2x3xbf16> -> tensor<3x2xbf16>
// CHECK: tt.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
func.func @bf16_sum_matmul(%a: tensor<2x3xbf16>) -> (tensor<2xbf16>, tensor<2x2xbf16>, tensor<3x2xbf16>) {
  %0 = tt.sum %a axes = [1] : tensor<2x3xbf16> -> tensor<2xbf16>
  %t = tt.transpose %a [1, 0] : tensor<2x3xbf16> -> tensor<3x2xbf16>
  %1 = tt.matmul %a, %t : (tensor<2x3xbf16>, tensor<3x2xbf16>) -> tensor<2x2xbf16>
  return %0, %1, %t : tensor<2xbf16>, tensor<2x2xbf16>, tensor<3x2xbf16>
}

// -----

// A cast between f16 and anything but f32 goes through f32.
// CHECK-LABEL: func.func @half_casts
// CHECK: %[[W:.*]] = tt.cast %{{.*}} to f32 : tensor<4xf16> -> tensor<4xf32>
// CHECK: tt.cast %[[W]] to i64 : tensor<4xf32> -> tensor<4xi64>
// CHECK: %[[X:.*]] = tt.cast %{{.*}} to f32 : tensor<4xf16> -> tensor<4xf32>
// CHECK: tt.cast %[[X]] to bf16 : tensor<4xf32> -> tensor<4xbf16>
func.func @half_casts(%a: tensor<4xf16>) -> (tensor<4xi64>, tensor<4xbf16>) {
  %0 = tt.cast %a to i64 : tensor<4xf16> -> tensor<4xi64>
  %1 = tt.cast %a to bf16 : tensor<4xf16> -> tensor<4xbf16>
  return %0, %1 : tensor<4xi64>, tensor<4xbf16>
}

// -----

// uint8 is stored as i8: the signature and wrapping arithmetic take the
// signless type; a division zero-extends its operands into i32.
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>)
// CHECK: tt.add %[[A]], %[[B]] : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
// CHECK: %[[AW:.*]] = tt.cast %[[A]] to i32
// CHECK: %[[NEG:.*]] = tt.cmp lt, %[[AW]], %{{.*}}
// CHECK: %[[UP:.*]] = tt.add %[[AW]], %{{.*}}
// CHECK: %[[AZ:.*]] = tt.select %[[NEG]], %[[UP]], %[[AW]]
// CHECK: %[[Q:.*]] = tt.div %[[AZ]], %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK: tt.cast %[[Q]] to i8 : tensor<4xi32> -> tensor<4xi8>
func.func @unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>) {
  %0 = tt.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = tt.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1 : tensor<4xui8>, tensor<4xui8>
}

// -----

// uint8 constants are reinterpreted bit for bit; a float cast to uint8
// converts to i32 first.
// CHECK-LABEL: func.func @unsigned_constant
// CHECK: tt.constant dense<[-56, 1]> : tensor<2xi8>
// CHECK: %[[I:.*]] = tt.cast %{{.*}} to i32 : tensor<2xf32> -> tensor<2xi32>
// CHECK: tt.cast %[[I]] to i8 : tensor<2xi32> -> tensor<2xi8>
func.func @unsigned_constant(%f: tensor<2xf32>) -> (tensor<2xui8>, tensor<2xui8>) {
  %0 = tt.constant dense<[200, 1]> : tensor<2xui8>
  %1 = tt.cast %f to ui8 : tensor<2xf32> -> tensor<2xui8>
  return %0, %1 : tensor<2xui8>, tensor<2xui8>
}
