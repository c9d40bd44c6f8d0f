// RUN: tiny-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// tt.conv: round trip, result shapes, and the verifier's errors.

// CHECK-LABEL: func.func @round_trip
// CHECK: tt.conv %{{.*}}, %{{.*}} strides = [2, 1] dilations = [1, 2] pad_low = [1, 0] pad_high = [0, 3] groups = 3 : (tensor<2x6x9x7xf32>, tensor<9x2x3x3xf32>) -> tensor<2x9x4x6xf32>
// CHECK: tt.conv %{{.*}} : (tensor<?x4x11xf64>, tensor<5x4x3xf64>) -> tensor<?x5x9xf64>
// CHECK: tt.conv %{{.*}} : (tensor<1x2x3x4x5xf32>, tensor<3x2x1x2x3xf32>) -> tensor<1x3x3x3x3xf32>
func.func @round_trip(%x: tensor<2x6x9x7xf32>, %w: tensor<9x2x3x3xf32>,
                      %y: tensor<?x4x11xf64>, %v: tensor<5x4x3xf64>,
                      %z: tensor<1x2x3x4x5xf32>, %u: tensor<3x2x1x2x3xf32>) {
  // (9 + 1 - 3) / 2 + 1 = 4; (7 + 3 - 5) / 1 + 1 = 6.
  %0 = tt.conv %x, %w strides = [2, 1] dilations = [1, 2] pad_low = [1, 0] pad_high = [0, 3] groups = 3 : (tensor<2x6x9x7xf32>, tensor<9x2x3x3xf32>) -> tensor<2x9x4x6xf32>
  %1 = tt.conv %y, %v strides = [1] dilations = [1] pad_low = [0] pad_high = [0] groups = 1 : (tensor<?x4x11xf64>, tensor<5x4x3xf64>) -> tensor<?x5x9xf64>
  %2 = tt.conv %z, %u strides = [1, 1, 1] dilations = [1, 1, 1] pad_low = [0, 0, 0] pad_high = [0, 0, 0] groups = 1 : (tensor<1x2x3x4x5xf32>, tensor<3x2x1x2x3xf32>) -> tensor<1x3x3x3x3xf32>
  return
}

// -----

// CHECK-LABEL: func.func @inferred
// CHECK: -> tensor<1x4x4x4xf32>
func.func @inferred(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<*xf32> {
  %0 = tt.conv %x, %w strides = [2, 2] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %1 = tensor.cast %0 : tensor<1x4x4x4xf32> to tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

func.func @wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'tt.conv' op inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @groups_do_not_divide(%x: tensor<1x6x8x8xf32>, %w: tensor<5x2x3x3xf32>) {
  // expected-error @+2 {{conv: 6 input channels and weights 'tensor<5x2x3x3xf32>' do not fit groups = 3}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 3 : (tensor<1x6x8x8xf32>, tensor<5x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @kernel_too_large(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{conv: the kernel spans 5 elements on spatial axis 1 but the padded input has 4}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 2] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @rank_mismatch(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+2 {{conv: the weight 'tensor<3x2x3xf32>' must have rank 4 ([N, C, spatial...] and [F, C / groups, kernel...]) for 2 spatial axes}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x2x4x4xf32>, tensor<3x2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @attribute_lengths(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{conv: strides, dilations, pad_low and pad_high must have the same non-zero length, got 2, 1, 2 and 2}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @negative_padding(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{conv: padding must not be negative (spatial axis 1)}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, -1] pad_high = [0, 0] groups = 1 : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @zero_stride(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{conv: strides and dilations must be positive (spatial axis 0)}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [0, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @element_types(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf64>) {
  // expected-error @+2 {{conv: the input's element type 'f32' differs from the weight's 'f64'}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf64>) -> tensor<*xf32>
  return
}

// -----

func.func @dynamic_spatial(%x: tensor<1x2x?x4xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{conv: the input 'tensor<1x2x?x4xf32>' has a dynamic channel or spatial size (only the batch size may be dynamic)}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x2x?x4xf32>, tensor<3x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

// Channels last: input [N, S..., C], result [N, O..., F], PyTorch's weights.
// CHECK-LABEL: func.func @channels_last
// CHECK: tt.conv %{{.*}} groups = 3 {channels_last} : (tensor<2x9x7x6xf32>, tensor<9x2x3x3xf32>) -> tensor<2x4x6x9xf32>
func.func @channels_last(%x: tensor<2x9x7x6xf32>, %w: tensor<9x2x3x3xf32>) -> tensor<*xf32> {
  %0 = tt.conv %x, %w strides = [2, 1] dilations = [1, 2] pad_low = [1, 0] pad_high = [0, 3] groups = 3 {channels_last} : (tensor<2x9x7x6xf32>, tensor<9x2x3x3xf32>) -> tensor<2x4x6x9xf32>
  %1 = tensor.cast %0 : tensor<2x4x6x9xf32> to tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

func.func @channels_last_channels(%x: tensor<1x4x4x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{conv: 5 input channels and weights 'tensor<3x2x3x3xf32>' do not fit groups = 1}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 {channels_last} : (tensor<1x4x4x5xf32>, tensor<3x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @channels_last_rank(%x: tensor<1x4x4xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{conv: the input 'tensor<1x4x4xf32>' must have rank 4 ([N, spatial..., C] and [F, C / groups, kernel...]) for 2 spatial axes}}
  // expected-error @+1 {{'tt.conv' op failed to infer returned types}}
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 {channels_last} : (tensor<1x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<*xf32>
  return
}
