// RUN: tiny-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Round trip, folding-free, of the ops added for NumPy's sin ... cumsum,
// and their verifier errors.

// CHECK-LABEL: func.func @round_trip
// CHECK: tt.sin %{{.*}} : tensor<4xf32>
// CHECK: tt.cos
// CHECK: tt.floor
// CHECK: tt.ceil
// CHECK: tt.round
// CHECK: tt.log1p
// CHECK: tt.expm1
// CHECK: tt.exp2
// CHECK: tt.log2
// CHECK: tt.reduce_min %{{.*}} axes = [0] keepdims : tensor<4xf32> -> tensor<1xf32>
// CHECK: tt.prod %{{.*}} axes = [0] : tensor<4xi32> -> tensor<i32>
// CHECK: tt.argmax %{{.*}} axis = 0 : tensor<4xf32> -> tensor<i32>
// CHECK: tt.argmin %{{.*}} axis = 0 keepdims : tensor<4xi32> -> tensor<1xi32>
// CHECK: tt.cumsum %{{.*}} axis = 0 : tensor<4xf32> -> tensor<4xf32>
// CHECK: tt.sort %{{.*}} axis = 0 : tensor<4xf32> -> tensor<4xf32>, tensor<4xi32>
// CHECK: tt.sort %{{.*}} axis = 0 descending : tensor<4xi32> -> tensor<4xi32>, tensor<4xi32>
func.func @round_trip(%x: tensor<4xf32>, %i: tensor<4xi32>) {
  %0 = tt.sin %x : tensor<4xf32>
  %1 = tt.cos %x : tensor<4xf32>
  %2 = tt.floor %x : tensor<4xf32>
  %3 = tt.ceil %x : tensor<4xf32>
  %4 = tt.round %x : tensor<4xf32>
  %5 = tt.log1p %x : tensor<4xf32>
  %6 = tt.expm1 %x : tensor<4xf32>
  %7 = tt.exp2 %x : tensor<4xf32>
  %8 = tt.log2 %x : tensor<4xf32>
  %9 = tt.reduce_min %x axes = [0] keepdims : tensor<4xf32> -> tensor<1xf32>
  %10 = tt.prod %i axes = [0] : tensor<4xi32> -> tensor<i32>
  %11 = tt.argmax %x axis = 0 : tensor<4xf32> -> tensor<i32>
  %12 = tt.argmin %i axis = 0 keepdims : tensor<4xi32> -> tensor<1xi32>
  %13 = tt.cumsum %x axis = 0 : tensor<4xf32> -> tensor<4xf32>
  %14:2 = tt.sort %x axis = 0 : tensor<4xf32> -> tensor<4xf32>, tensor<4xi32>
  %15:2 = tt.sort %i axis = 0 descending : tensor<4xi32> -> tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @sin_of_integers(%i: tensor<4xi32>) {
  // expected-error @+1 {{'tt.sin' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = tt.sin %i : tensor<4xi32>
  return
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{axis 2 is out of range for a tensor of rank 2 (expected 0 <= axis < 2)}}
  // expected-error @+1 {{'tt.argmax' op failed to infer returned types}}
  %0 = tt.argmax %x axis = 2 : tensor<3x4xf32> -> tensor<3xi32>
  return
}

// -----

func.func @argmin_result_must_be_i32(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tt.argmin' op result #0 must be tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = tt.argmin %x axis = 1 : tensor<3x4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @cumsum_axis_out_of_range(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{axis 5 is out of range for a tensor of rank 2 (expected 0 <= axis < 2)}}
  // expected-error @+1 {{'tt.cumsum' op failed to infer returned types}}
  %0 = tt.cumsum %x axis = 5 : tensor<3x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @prod_wrong_result_shape(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{'tt.prod' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'tt.prod' op failed to infer returned types}}
  %0 = tt.prod %x axes = [1] : tensor<3x4xf32> -> tensor<4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @windows_round_trip
// CHECK: tt.windows %{{.*}} axis = 1 kernel = [3, 2] strides = [1, 2] dilations = [2, 1] : tensor<2x9x7x4xf32> -> tensor<2x5x3x3x2x4xf32>
func.func @windows_round_trip(%x: tensor<2x9x7x4xf32>) {
  %0 = tt.windows %x axis = 1 kernel = [3, 2] strides = [1, 2] dilations = [2, 1] : tensor<2x9x7x4xf32> -> tensor<2x5x3x3x2x4xf32>
  return
}

// -----

func.func @windows_too_large(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{windows: a window spans 5 elements but axis 1 has 3}}
  // expected-error @+1 {{'tt.windows' op failed to infer returned types}}
  %0 = tt.windows %x axis = 1 kernel = [3] strides = [1] dilations = [2] : tensor<2x3x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @windows_axes_out_of_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{windows: axes [2, 4) are out of range for a tensor of rank 3}}
  // expected-error @+1 {{'tt.windows' op failed to infer returned types}}
  %0 = tt.windows %x axis = 2 kernel = [1, 1] strides = [1, 1] dilations = [1, 1] : tensor<2x3x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @windows_mismatched_lengths(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{windows: kernel, strides and dilations must have the same non-zero length, got 1, 2 and 1}}
  // expected-error @+1 {{'tt.windows' op failed to infer returned types}}
  %0 = tt.windows %x axis = 1 kernel = [2] strides = [1, 1] dilations = [1] : tensor<2x3x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @windows_zero_stride(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{windows: kernel, strides and dilations must be positive (axis 1)}}
  // expected-error @+1 {{'tt.windows' op failed to infer returned types}}
  %0 = tt.windows %x axis = 1 kernel = [2] strides = [0] dilations = [1] : tensor<2x3x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @sort_axis_out_of_range(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{axis -1 is out of range for a tensor of rank 2 (expected 0 <= axis < 2)}}
  // expected-error @+1 {{'tt.sort' op failed to infer returned types}}
  %0:2 = tt.sort %x axis = -1 : tensor<3x4xf32> -> tensor<3x4xf32>, tensor<3x4xi32>
  return
}

// -----

func.func @sort_indices_are_i32(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{'tt.sort' op inferred type(s) 'tensor<3x4xf32>', 'tensor<3x4xi32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>', 'tensor<3x4xi64>'}}
  // expected-error @+1 {{'tt.sort' op failed to infer returned types}}
  %0:2 = tt.sort %x axis = 1 : tensor<3x4xf32> -> tensor<3x4xf32>, tensor<3x4xi64>
  return
}

// -----

func.func @sort_of_booleans(%b: tensor<3xi1>) {
  // expected-error @+1 {{'tt.sort' op operand #0 must be statically shaped or unranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer values}}
  %0:2 = tt.sort %b axis = 0 : tensor<3xi1> -> tensor<3xi1>, tensor<3xi32>
  return
}
