// RUN: tiny-opt %s --tt-generalize-shapes="dims=0:0" --split-input-file -verify-diagnostics | FileCheck %s

// A function traced for a batch of 2 becomes one for every batch size: the
// dynamic dimension flows through matmul, broadcasts and reductions, and
// the result type follows.
// CHECK-LABEL: func.func @forward
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>)
// CHECK:         tt.matmul %[[X]], %[[W]] : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
// CHECK:         tt.add %{{.*}}, %[[B]] : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK:         tt.reduce_max %{{.*}} axes = [1] keepdims : tensor<?x4xf32> -> tensor<?x1xf32>
// CHECK:         tt.sub %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
// CHECK:         tt.mean %{{.*}} axes = [0] : tensor<?x4xf32> -> tensor<4xf32>
func.func @forward(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %0 = tt.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = tt.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = tt.reduce_max %1 axes = [1] keepdims : tensor<2x4xf32> -> tensor<2x1xf32>
  %3 = tt.sub %1, %2 : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %4 = tt.mean %3 axes = [0] : tensor<2x4xf32> -> tensor<4xf32>
  return %3, %4 : tensor<2x4xf32>, tensor<4xf32>
}

// -----

// A tensor made for the traced batch size (here a constant) would compile
// that size in: refused at the op that meets it.
func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = tt.constant dense<1.0> : tensor<2x3xf32>
  // expected-error @+1 {{'tt.add' op combines dynamic dimension 0 of operand #0 with the static size 2: the size the program was traced with would be compiled in}}
  %0 = tt.add %x, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A reshape takes the dynamic dimension in the group that collapses into
// one dimension (a flatten): its size there becomes -1.
// CHECK-LABEL: func.func @forward
// CHECK:         tt.reshape %{{.*}} [-1, 12] : tensor<?x3x4xf32> -> tensor<?x12xf32>
func.func @forward(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %0 = tt.reshape %x [2, 12] : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// A reshape that splits the dynamic dimension is refused.
func.func @forward(%x: tensor<4x3xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+1 {{'tt.reshape' op cannot take the dynamic dimensions of 'tensor<?x3xf32>': it splits a dynamic dimension into several}}
  %0 = tt.reshape %x [2, 2, 3] : tensor<4x3xf32> -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

// A slice takes all of a dynamic dimension (size -1) or is refused.
// CHECK-LABEL: func.func @forward
// CHECK:         tt.slice %{{.*}} starts = [0, 1] sizes = [-1, 2] strides = [1, 1] : tensor<?x3xf32> -> tensor<?x2xf32>
func.func @forward(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %0 = tt.slice %x starts = [0, 1] sizes = [4, 2] strides = [1, 1] : tensor<4x3xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @forward(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tt.slice' op slices dynamic dimension 0 of 'tensor<?x3xf32>' (start 0, size 2, stride 1): only all of a dynamic dimension can be taken}}
  %0 = tt.slice %x starts = [0, 0] sizes = [2, 3] strides = [1, 1] : tensor<4x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A concatenation along another dimension keeps the dynamic one (the heads
// of an attention joined with np.hstack); a gather may read a table whose
// rows are dynamic (a row of the logits).
// CHECK-LABEL: func.func @forward
// CHECK:         tt.concat %{{.*}}, %{{.*}} axis = 1 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x6xf32>
// CHECK:         tt.gather %{{.*}}[%{{.*}}] : (tensor<?x6xf32>, tensor<1xi32>) -> tensor<1x6xf32>
func.func @forward(%x: tensor<4x3xf32>, %i: tensor<1xi32>) -> tensor<1x6xf32> {
  %0 = tt.concat %x, %x axis = 1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  %1 = tt.gather %0[%i] : (tensor<4x6xf32>, tensor<1xi32>) -> tensor<1x6xf32>
  return %1 : tensor<1x6xf32>
}

// -----

// A dynamic size along a concatenation's axis makes the result's dynamic
// (a key/value cache that grows by one token).
// CHECK-LABEL: func.func @forward
// CHECK:         tt.concat %{{.*}}, %{{.*}} axis = 0 : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
func.func @forward(%x: tensor<4x3xf32>, %y: tensor<1x3xf32>) -> tensor<5x3xf32> {
  %0 = tt.concat %x, %y axis = 0 : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// Ops whose attributes spell out sizes take only static shapes.
func.func @forward(%x: tensor<4x3xf32>) -> tensor<2x4x3xf32> {
  // expected-error @+1 {{the broadcast tensor has dynamic dimensions ('tensor<?x3xf32>'); this op takes only static shapes}}
  %0 = tt.broadcast_to %x [2, 4, 3] : tensor<4x3xf32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// expected-error @+1 {{tt-generalize-shapes: argument 0 of type 'tensor<f32>' has no dimension 0}}
func.func @forward(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
