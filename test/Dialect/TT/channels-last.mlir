// RUN: tiny-opt %s --tt-channels-last --canonicalize -split-input-file | FileCheck %s
// RUN: tiny-opt %s --tt-channels-last=grouped=false --canonicalize -split-input-file | FileCheck %s --check-prefix=FIRST

// tt-channels-last: convolutions of one group and depthwise ones become
// channels last, and the transposes between them cancel.

// A MobileNet block: 1 x 1, per-channel scale, ReLU, depthwise 3 x 3 / 2,
// squeeze-excite style mean and product, 1 x 1, global average pooling.
// One transpose is left: the input's.
// CHECK-LABEL: func.func @block
// CHECK: %[[X:.*]] = tt.transpose %arg0 [0, 2, 3, 1] : tensor<2x8x9x9xf32> -> tensor<2x9x9x8xf32>
// CHECK: %[[C1:.*]] = tt.conv %[[X]], %arg1 {{.*}} groups = 1 {channels_last} : (tensor<2x9x9x8xf32>, tensor<16x8x1x1xf32>) -> tensor<2x9x9x16xf32>
// CHECK: %[[S:.*]] = tt.reshape %arg2 [1, 1, 1, 16] : tensor<16xf32> -> tensor<1x1x1x16xf32>
// CHECK: %[[M:.*]] = tt.mul %[[C1]], %[[S]] : (tensor<2x9x9x16xf32>, tensor<1x1x1x16xf32>) -> tensor<2x9x9x16xf32>
// CHECK: %[[R:.*]] = tt.max %[[M]], %{{.*}} : (tensor<2x9x9x16xf32>, tensor<f32>) -> tensor<2x9x9x16xf32>
// CHECK: %[[D:.*]] = tt.conv %[[R]], %arg3 {{.*}} groups = 16 {channels_last} : (tensor<2x9x9x16xf32>, tensor<16x1x3x3xf32>) -> tensor<2x5x5x16xf32>
// CHECK: %[[MEAN:.*]] = tt.mean %[[D]] axes = [1, 2] keepdims : tensor<2x5x5x16xf32> -> tensor<2x1x1x16xf32>
// CHECK: %[[P:.*]] = tt.mul %[[D]], %[[MEAN]]
// CHECK: %[[C2:.*]] = tt.conv %[[P]], %arg4 {{.*}} {channels_last} : (tensor<2x5x5x16xf32>, tensor<4x16x1x1xf32>) -> tensor<2x5x5x4xf32>
// CHECK: %[[OUT:.*]] = tt.mean %[[C2]] axes = [1, 2] : tensor<2x5x5x4xf32> -> tensor<2x4xf32>
// CHECK-NOT: tt.transpose
// CHECK: return %[[OUT]]
func.func @block(%x: tensor<2x8x9x9xf32>, %w1: tensor<16x8x1x1xf32>, %s: tensor<16xf32>, %dw: tensor<16x1x3x3xf32>, %w2: tensor<4x16x1x1xf32>) -> tensor<2x4xf32> {
  %0 = tt.conv %x, %w1 strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<2x8x9x9xf32>, tensor<16x8x1x1xf32>) -> tensor<2x16x9x9xf32>
  %1 = tt.reshape %s [1, 16, 1, 1] : tensor<16xf32> -> tensor<1x16x1x1xf32>
  %2 = tt.mul %0, %1 : (tensor<2x16x9x9xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x9x9xf32>
  %c = tt.constant dense<0.0> : tensor<f32>
  %3 = tt.max %2, %c : (tensor<2x16x9x9xf32>, tensor<f32>) -> tensor<2x16x9x9xf32>
  %4 = tt.conv %3, %dw strides = [2, 2] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 16 : (tensor<2x16x9x9xf32>, tensor<16x1x3x3xf32>) -> tensor<2x16x5x5xf32>
  %5 = tt.mean %4 axes = [2, 3] keepdims : tensor<2x16x5x5xf32> -> tensor<2x16x1x1xf32>
  %6 = tt.mul %4, %5 : (tensor<2x16x5x5xf32>, tensor<2x16x1x1xf32>) -> tensor<2x16x5x5xf32>
  %7 = tt.conv %6, %w2 strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<2x16x5x5xf32>, tensor<4x16x1x1xf32>) -> tensor<2x4x5x5xf32>
  %8 = tt.mean %7 axes = [2, 3] : tensor<2x4x5x5xf32> -> tensor<2x4xf32>
  return %8 : tensor<2x4xf32>
}

// -----

// Max pooling as the PyTorch front end writes it (padding by concatenation
// with -inf, windows, a reshape of the kernel axes, reduce_max), then a
// residual add and the classifier's flatten: all channels last.
// CHECK-LABEL: func.func @pool
// CHECK: tt.conv {{.*}} {channels_last} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
// CHECK: tt.concat {{.*}} axis = 1 : (tensor<1x1x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x9x8x4xf32>
// CHECK: tt.concat {{.*}} axis = 2 : (tensor<1x9x1x4xf32>, tensor<1x9x8x4xf32>) -> tensor<1x9x9x4xf32>
// CHECK: tt.windows %{{.*}} axis = 1 kernel = [3, 3] strides = [2, 2] dilations = [1, 1] : tensor<1x9x9x4xf32> -> tensor<1x4x4x3x3x4xf32>
// CHECK: tt.reshape %{{.*}} [1, 4, 4, 9, 4] : tensor<1x4x4x3x3x4xf32> -> tensor<1x4x4x9x4xf32>
// CHECK: tt.reduce_max %{{.*}} axes = [3] : tensor<1x4x4x9x4xf32> -> tensor<1x4x4x4xf32>
// CHECK: tt.conv {{.*}} {channels_last} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK: tt.add {{.*}} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: tt.mean {{.*}} axes = [1, 2] keepdims : tensor<1x4x4x4xf32> -> tensor<1x1x1x4xf32>
// CHECK: tt.reshape %{{.*}} [1, 4] : tensor<1x1x1x4xf32> -> tensor<1x4xf32>
// CHECK-NOT: tt.transpose
// CHECK: return
func.func @pool(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %w2: tensor<4x4x3x3xf32>) -> tensor<1x4xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %ninf = tt.constant dense<0xFF800000> : tensor<1x4x1x8xf32>
  %1 = tt.concat %ninf, %0 axis = 2 : (tensor<1x4x1x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x9x8xf32>
  %ninf2 = tt.constant dense<0xFF800000> : tensor<1x4x9x1xf32>
  %2 = tt.concat %ninf2, %1 axis = 3 : (tensor<1x4x9x1xf32>, tensor<1x4x9x8xf32>) -> tensor<1x4x9x9xf32>
  %3 = tt.windows %2 axis = 2 kernel = [3, 3] strides = [2, 2] dilations = [1, 1] : tensor<1x4x9x9xf32> -> tensor<1x4x4x4x3x3xf32>
  %4 = tt.reshape %3 [1, 4, 4, 4, 9] : tensor<1x4x4x4x3x3xf32> -> tensor<1x4x4x4x9xf32>
  %5 = tt.reduce_max %4 axes = [4] : tensor<1x4x4x4x9xf32> -> tensor<1x4x4x4xf32>
  %6 = tt.conv %5, %w2 strides = [1, 1] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 1 : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %7 = tt.add %6, %5 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %8 = tt.mean %7 axes = [2, 3] keepdims : tensor<1x4x4x4xf32> -> tensor<1x4x1x1xf32>
  %9 = tt.reshape %8 [1, 4] : tensor<1x4x1x1xf32> -> tensor<1x4xf32>
  return %9 : tensor<1x4xf32>
}

// -----

// A grouped convolution (two channels per group) stays channels first: a
// transpose back meets it. A result returned channels first keeps its
// transpose.
// Several groups of several channels each are channels last too (the
// CPU computes a product per group); with grouped=false they stay
// channels first between two transposes.
// CHECK-LABEL: func.func @grouped
// CHECK: %[[A:.*]] = tt.conv {{.*}} {channels_last} : (tensor<1x6x6x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x6x6x4xf32>
// CHECK: %[[G:.*]] = tt.conv %[[A]], %arg2 {{.*}} groups = 2 {channels_last} : (tensor<1x6x6x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[B:.*]] = tt.transpose %[[G]] [0, 3, 1, 2] : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
// CHECK: return %[[B]]
// FIRST-LABEL: func.func @grouped
// FIRST: tt.conv {{.*}} {channels_last} : (tensor<1x6x6x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x6x6x4xf32>
// FIRST: %[[B:.*]] = tt.transpose %{{.*}} [0, 3, 1, 2] : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
// FIRST: %[[G:.*]] = tt.conv %[[B]], %arg2 {{.*}} groups = 2 : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
// FIRST: return %[[G]]
func.func @grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %g: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = tt.conv %0, %g strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 2 : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}

// -----

// An elementwise op with a large operand in the other order is not
// rewritten (the transpose stays before it).
// CHECK-LABEL: func.func @mixed
// CHECK: %[[T:.*]] = tt.transpose %{{.*}} [0, 3, 1, 2] : tensor<1x9x9x80xf32> -> tensor<1x80x9x9xf32>
// CHECK: tt.add %[[T]], %arg2 : (tensor<1x80x9x9xf32>, tensor<1x80x9x9xf32>)
func.func @mixed(%x: tensor<1x80x9x9xf32>, %w: tensor<80x80x1x1xf32>, %y: tensor<1x80x9x9xf32>) -> tensor<1x80x9x9xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<1x80x9x9xf32>, tensor<80x80x1x1xf32>) -> tensor<1x80x9x9xf32>
  %1 = tt.add %0, %y : (tensor<1x80x9x9xf32>, tensor<1x80x9x9xf32>) -> tensor<1x80x9x9xf32>
  return %1 : tensor<1x80x9x9xf32>
}

// -----

// A program's own transposes (attention's) are not moved.
// CHECK-LABEL: func.func @own_transpose
// CHECK: %[[T:.*]] = tt.transpose %arg0 [0, 2, 1, 3]
// CHECK: tt.exp %[[T]]
func.func @own_transpose(%x: tensor<2x4x8x16xf32>) -> tensor<2x8x4x16xf32> {
  %0 = tt.transpose %x [0, 2, 1, 3] : tensor<2x4x8x16xf32> -> tensor<2x8x4x16xf32>
  %1 = tt.exp %0 : tensor<2x8x4x16xf32>
  return %1 : tensor<2x8x4x16xf32>
}

// -----

// ViT's patch embedding: a 16 x 16 / 16 convolution, flattened and
// permuted to tokens. The reshape of the transposed result merges
// dimensions consecutive in both orders, so the transposes meet and cancel.
// CHECK-LABEL: func.func @patches
// CHECK: tt.conv {{.*}} {channels_last} : (tensor<2x32x32x3xf32>, tensor<8x3x16x16xf32>) -> tensor<2x2x2x8xf32>
// CHECK: tt.reshape %{{.*}} [2, 4, 8] : tensor<2x2x2x8xf32> -> tensor<2x4x8xf32>
// CHECK-NOT: tt.transpose
// CHECK: return
func.func @patches(%x: tensor<2x3x32x32xf32>, %w: tensor<8x3x16x16xf32>) -> tensor<2x4x8xf32> {
  %0 = tt.conv %x, %w strides = [16, 16] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<2x3x32x32xf32>, tensor<8x3x16x16xf32>) -> tensor<2x8x2x2xf32>
  %1 = tt.reshape %0 [2, 8, 4] : tensor<2x8x2x2xf32> -> tensor<2x8x4xf32>
  %2 = tt.transpose %1 [0, 2, 1] : tensor<2x8x4xf32> -> tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}

// -----

// The ops the pass makes take the source calls (tt.scope) of the op they
// replace: tt-outline-repeated-scopes, which runs next, then finds each
// call's ops together.
// CHECK-LABEL: func.func @scopes
// CHECK: tt.transpose %arg0 [0, 2, 3, 1] {tt.scope = array<i64: 0>}
// CHECK: tt.conv {{.*}} {channels_last, tt.scope = array<i64: 0>}
// CHECK: tt.reshape %arg2 [1, 1, 1, 16] {tt.scope = array<i64: 0>}
// CHECK: tt.mul {{.*}} {tt.scope = array<i64: 0>}
// CHECK: tt.transpose {{.*}} [0, 3, 1, 2] {tt.scope = array<i64: 0>}
func.func @scopes(%x: tensor<2x8x9x9xf32>, %w: tensor<16x8x1x1xf32>, %s: tensor<16xf32>) -> tensor<2x16x9x9xf32>
    attributes {tt.scope_names = ["m"]} {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 {tt.scope = array<i64: 0>} : (tensor<2x8x9x9xf32>, tensor<16x8x1x1xf32>) -> tensor<2x16x9x9xf32>
  %1 = tt.reshape %s [1, 16, 1, 1] {tt.scope = array<i64: 0>} : tensor<16xf32> -> tensor<1x16x1x1xf32>
  %2 = tt.mul %0, %1 {tt.scope = array<i64: 0>} : (tensor<2x16x9x9xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x9x9xf32>
  return %2 : tensor<2x16x9x9xf32>
}
