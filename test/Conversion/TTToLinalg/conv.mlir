// RUN: tiny-opt %s --tt-to-linalg -split-input-file | FileCheck %s

// tt.conv: zero padding, the grouped views of input and weights, one
// generic over (n, g, f, o..., c, k...) and the result collapsed back.

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 + d7 * 2)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @grouped
// CHECK: %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 0, 0, 3]
// CHECK: tensor<2x6x9x7xf32> to tensor<2x6x10x10xf32>
// CHECK: %[[X:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 3, 2, 10, 10]
// CHECK: %[[WG:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [3, 3, 2, 3, 3]
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[WG]] : tensor<2x3x2x10x10xf32>, tensor<3x3x2x3x3xf32>) outs(%[[INIT]] : tensor<2x3x3x4x6xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[SUM]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x3x3x4x6xf32> into tensor<2x9x4x6xf32>
func.func @grouped(%x: tensor<2x6x9x7xf32>, %w: tensor<9x2x3x3xf32>) -> tensor<2x9x4x6xf32> {
  %0 = tt.conv %x, %w strides = [2, 1] dilations = [1, 2] pad_low = [1, 0] pad_high = [0, 3] groups = 3 : (tensor<2x6x9x7xf32>, tensor<9x2x3x3xf32>) -> tensor<2x9x4x6xf32>
  return %0 : tensor<2x9x4x6xf32>
}

// -----

// No padding, a dynamic batch and integers.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-NOT: tensor.pad
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x4x11xi32>
// CHECK: tensor.empty(%[[N]]) : tensor<?x1x5x9xi32>
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: tensor.collapse_shape %{{.*}} : tensor<?x1x5x9xi32> into tensor<?x5x9xi32>
func.func @dynamic_batch(%x: tensor<?x4x11xi32>, %w: tensor<5x4x3xi32>) -> tensor<?x5x9xi32> {
  %0 = tt.conv %x, %w strides = [1] dilations = [1] pad_low = [0] pad_high = [0] groups = 1 : (tensor<?x4x11xi32>, tensor<5x4x3xi32>) -> tensor<?x5x9xi32>
  return %0 : tensor<?x5x9xi32>
}

// -----

// Channels last: the spatial axes padded, the channels grouped last, the
// same loops with the input read at (n, o * s + k * dl..., g, c).
// CHECK-DAG: #[[LIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d3 * 2 + d6, d4 + d7 * 2, d1, d5)>
// CHECK-DAG: #[[LW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[LOUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d3, d4, d1, d2)>
// CHECK-LABEL: func.func @channels_last
// CHECK: %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 1, 0, 0] high[0, 0, 3, 0]
// CHECK: tensor<2x9x7x6xf32> to tensor<2x10x10x6xf32>
// CHECK: %[[X:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1], [2], [3, 4]] output_shape [2, 10, 10, 3, 2]
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[LIN]], #[[LW]], #[[LOUT]]]
// CHECK-SAME: outs(%{{.*}} : tensor<2x4x6x3x3xf32>)
// CHECK: tensor.collapse_shape %[[SUM]] {{\[}}[0], [1], [2], [3, 4]] : tensor<2x4x6x3x3xf32> into tensor<2x4x6x9xf32>
func.func @channels_last(%x: tensor<2x9x7x6xf32>, %w: tensor<9x2x3x3xf32>) -> tensor<2x4x6x9xf32> {
  %0 = tt.conv %x, %w strides = [2, 1] dilations = [1, 2] pad_low = [1, 0] pad_high = [0, 3] groups = 3 {channels_last} : (tensor<2x9x7x6xf32>, tensor<9x2x3x3xf32>) -> tensor<2x4x6x9xf32>
  return %0 : tensor<2x4x6x9xf32>
}
