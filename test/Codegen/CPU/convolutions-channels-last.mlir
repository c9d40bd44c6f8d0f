// RUN: tiny-opt %s --tt-to-linalg --tt-cpu-convolutions --canonicalize -split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: tiny-opt %s --tt-to-linalg --tt-cpu-convolutions=patch-blocks=false --canonicalize -split-input-file --mlir-print-local-scope | FileCheck %s --check-prefix=WHOLE

// tt-cpu-convolutions on channels-last convolutions (tt-channels-last's
// form): one group as a product over patch rows whose result is the
// output, depthwise as vectors of channels; no transposes of activations.

// A 1 x 1 kernel with unit strides: the input is the left operand as it is.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: linalg.transpose
// CHECK-DAG: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<2x5x7x6xf32> into tensor<70x6xf32>
// CHECK-DAG: %[[W:.*]] = tensor.collapse_shape %{{.*}} : tensor<4x6x1x1xf32> into tensor<4x6xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : tensor<70x6xf32>, tensor<4x6xf32>)
// CHECK: tensor.expand_shape %{{.*}} : tensor<70x4xf32> into tensor<2x5x7x4xf32>
// CHECK-NOT: linalg.transpose
func.func @pointwise(%x: tensor<2x5x7x6xf32>, %w: tensor<4x6x1x1xf32>) -> tensor<2x5x7x4xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 {channels_last} : (tensor<2x5x7x6xf32>, tensor<4x6x1x1xf32>) -> tensor<2x5x7x4xf32>
  return %0 : tensor<2x5x7x4xf32>
}

// -----

// A dense 3 x 3 kernel: patch rows in (ky, kx, c) order, the weights
// reordered to match.
// CHECK-LABEL: func.func @dense
// CHECK: linalg.transpose ins(%{{.*}} : tensor<5x8x3x3xf32>) outs(%{{.*}} : tensor<5x3x3x8xf32>) permutation = [0, 2, 3, 1]
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK-SAME: outs(%{{.*}} : tensor<3x4x4x3x3x8xf32>)
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<48x72xf32>, tensor<5x72xf32>)
// CHECK: tensor.expand_shape %{{.*}} : tensor<48x5xf32> into tensor<3x4x4x5xf32>
func.func @dense(%x: tensor<3x9x9x8xf32>, %w: tensor<5x8x3x3xf32>) -> tensor<3x4x4x5xf32> {
  %0 = tt.conv %x, %w strides = [2, 2] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 {channels_last} : (tensor<3x9x9x8xf32>, tensor<5x8x3x3xf32>) -> tensor<3x4x4x5xf32>
  return %0 : tensor<3x4x4x5xf32>
}

// -----

// Weights larger than the patches (a deep layer at batch 1): the patch
// rows take PyTorch's (c, ky, kx) order and the weights are used as they
// are.
// CHECK-LABEL: func.func @weight_heavy
// CHECK-NOT: linalg.transpose
// CHECK: affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>
// CHECK-SAME: outs(%{{.*}} : tensor<1x2x2x64x3x3xf32>)
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<4x576xf32>, tensor<64x576xf32>)
// CHECK-NOT: linalg.transpose
func.func @weight_heavy(%x: tensor<1x4x4x64xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x2x2x64xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 {channels_last} : (tensor<1x4x4x64xf32>, tensor<64x64x3x3xf32>) -> tensor<1x2x2x64xf32>
  return %0 : tensor<1x2x2x64xf32>
}

// -----

// Depthwise: the sums over the input as it is, vectorised along the
// channels; only the small weights are transposed.
// CHECK-LABEL: func.func @depthwise
// CHECK: tensor.pad
// CHECK: linalg.transpose ins(%{{.*}} : tensor<5x9xf32>) outs(%{{.*}} : tensor<9x5xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<1x8x8x5xf32>)
// CHECK-NOT: linalg.transpose
func.func @depthwise(%x: tensor<1x8x8x5xf32>, %w: tensor<5x1x3x3xf32>) -> tensor<1x8x8x5xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 5 {channels_last} : (tensor<1x8x8x5xf32>, tensor<5x1x3x3xf32>) -> tensor<1x8x8x5xf32>
  return %0 : tensor<1x8x8x5xf32>
}

// -----

// Several groups of two channels: a product per group over patch rows
// [G, N * O, K * C] in (k, c) order (runs of a group's channels), the
// weights reordered to [G, F, K * C], the [G, N * O, F] result transposed
// into the output [N * O, G, F].
// CHECK-LABEL: func.func @grouped
// CHECK: linalg.transpose ins(%{{.*}} : tensor<3x2x2x3x3xf32>) outs(%{{.*}} : tensor<3x2x3x3x2xf32>) permutation = [0, 1, 3, 4, 2]
// CHECK: indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2 + d4, d3 + d5, d0, d6)>, {{.*}} outs(%{{.*}} : tensor<3x1x6x6x3x3x2xf32>)
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<3x36x18xf32>, tensor<3x2x18xf32>) outs(%{{.*}} : tensor<3x36x2xf32>)
// CHECK: indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]{{.*}} ins(%{{.*}} : tensor<3x36x2xf32>) outs(%{{.*}} : tensor<36x3x2xf32>)
func.func @grouped(%x: tensor<1x8x8x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 3 {channels_last} : (tensor<1x8x8x6xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// A channel multiplier (one input channel, two outputs per group) stays
// the direct reduction.
// CHECK-LABEL: func.func @multiplier
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @multiplier(%x: tensor<1x8x8x3xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 3 {channels_last} : (tensor<1x8x8x3xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// Weights that outweigh the patches (one image of 2 x 2 positions, 64
// filters of 8 channels per group): patch rows in (c, k) order, the
// weights used as they are.
// CHECK-LABEL: func.func @grouped_deep
// CHECK-NOT: linalg.transpose
// CHECK: outs(%{{.*}} : tensor<2x1x2x2x8x3x3xf32>)
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<2x4x72xf32>, tensor<2x64x72xf32>) outs(%{{.*}} : tensor<2x4x64xf32>)
func.func @grouped_deep(%x: tensor<1x4x4x16xf32>, %w: tensor<128x8x3x3xf32>) -> tensor<1x2x2x128xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 2 {channels_last} : (tensor<1x4x4x16xf32>, tensor<128x8x3x3xf32>) -> tensor<1x2x2x128xf32>
  return %0 : tensor<1x2x2x128xf32>
}

// -----

// Patches that would leave the caches (4 x 64 x 64 positions of 288
// values, 18 MB): a parallel loop over images and blocks of 8 output rows,
// each block's patches [8, 64, 3, 3, 32] copied from its input rows and
// multiplied into its contiguous [512, 32] of the result.
// CHECK-LABEL: func.func @blocked
// CHECK: linalg.transpose ins(%{{.*}} : tensor<32x32x3x3xf32>)
// CHECK: scf.forall (%[[N:.*]], %[[B:.*]]) in (4, 8) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<4x4096x32xf32>)
// CHECK: tensor.extract_slice %{{.*}}[%[[N]], %{{.*}}, 0, 0] [1, 10, 66, 32] [1, 1, 1, 1] : tensor<4x66x66x32xf32> to tensor<10x66x32xf32>
// CHECK: outs(%{{.*}} : tensor<8x64x3x3x32xf32>)
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<512x288xf32>, tensor<32x288xf32>) outs(%{{.*}} : tensor<512x32xf32>)
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[N]], %{{.*}}, 0] [1, 512, 32] [1, 1, 1]
// WHOLE-LABEL: func.func @blocked
// WHOLE-NOT: scf.forall
// WHOLE: tensor<4x64x64x3x3x32xf32>
func.func @blocked(%x: tensor<4x64x64x32xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<4x64x64x32xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 1 {channels_last} : (tensor<4x64x64x32xf32>, tensor<32x32x3x3xf32>) -> tensor<4x64x64x32xf32>
  return %0 : tensor<4x64x64x32xf32>
}
