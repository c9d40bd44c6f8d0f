// RUN: tiny-opt %s --tt-to-linalg --tt-cpu-convolutions --canonicalize -split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: tiny-opt %s --tt-optimize=channels-last=false -split-input-file --mlir-print-local-scope | FileCheck %s --check-prefix=OPT
// RUN: tiny-opt %s --tt-optimize=conv-matmul=false -split-input-file --mlir-print-local-scope | FileCheck %s --check-prefix=OFF
// RUN: tiny-opt %s --tt-to-linalg '--tt-cpu-convolutions=channels-last-depthwise=false' -split-input-file --mlir-print-local-scope | FileCheck %s --check-prefix=DIRECT
// RUN: tiny-opt %s "--tt-optimize=conv-patch-blocks=false channels-last=false" -split-input-file --mlir-print-local-scope | FileCheck %s --check-prefix=WHOLE

// The CPU strategy for convolutions, one function per shape class.

// A deep product (C * K = 360): the patches as rows [G, N * O, C * K]
// (im2col), times the weights [G, F, C * K] transposed, then [G, N, O, F]
// -> [N, G, F, O].
// CHECK-LABEL: func.func @deep
// CHECK: %[[ROWS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>]
// CHECK-SAME: outs(%{{.*}} : tensor<1x1x9x7x40x3x3xf32>)
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[ROWS]] {{\[}}[0], [1, 2, 3], [4, 5, 6]] : tensor<1x1x9x7x40x3x3xf32> into tensor<1x63x360xf32>
// CHECK: %[[B:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x17x40x3x3xf32> into tensor<1x17x360xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] :
// CHECK-SAME: outs(%{{.*}} : tensor<1x63x17xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3]] output_shape [1, 1, 63, 17]
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[E]] : tensor<1x1x63x17xf32>)
// CHECK-NOT: arith.addf
// CHECK: return
// OPT-LABEL: func.func @deep
// OPT: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// OPT: iterator_types = ["parallel", "parallel", "reduction"]
// OPT-NOT: "reduction", "reduction"
// OFF-LABEL: func.func @deep
// OFF: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @deep(%x: tensor<1x40x9x7xf32>, %w: tensor<17x40x3x3xf32>) -> tensor<1x17x9x7xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 1 : (tensor<1x40x9x7xf32>, tensor<17x40x3x3xf32>) -> tensor<1x17x9x7xf32>
  return %0 : tensor<1x17x9x7xf32>
}

// -----

// A shallow product (ResNet's stem: C * K = 147): the patches as columns
// [C * K, O], the weights [F, C * K] on the left, the result [F, O] in
// place.
// The rows of all images are one product per group (the weights are
// packed once): [G, N * O, C * K] with a dynamic batch.
// CHECK-LABEL: func.func @deep_dynamic_batch
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4, 5, 6]] : tensor<1x?x3x3x40x3x3xf32> into tensor<1x?x360xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x?x17xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [1, %{{.*}}, 9, 17] : tensor<1x?x17xf32> into tensor<1x?x9x17xf32>
func.func @deep_dynamic_batch(%x: tensor<?x40x5x5xf32>, %w: tensor<17x40x3x3xf32>) -> tensor<?x17x3x3xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<?x40x5x5xf32>, tensor<17x40x3x3xf32>) -> tensor<?x17x3x3xf32>
  return %0 : tensor<?x17x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @shallow
// OPT-LABEL: func.func @shallow
// CHECK: %[[COLS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
// CHECK-SAME: outs(%{{.*}} : tensor<2x1x3x7x7x5x5xf32>)
// CHECK: %[[B:.*]] = tensor.collapse_shape %[[COLS]] {{\[}}[0], [1], [2, 3, 4], [5, 6]] : tensor<2x1x3x7x7x5x5xf32> into tensor<2x1x147x25xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x8x3x7x7xf32> into tensor<1x8x147xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[A]], %[[B]] : tensor<1x8x147xf32>, tensor<2x1x147x25xf32>)
// CHECK-SAME: outs(%{{.*}} : tensor<2x1x8x25xf32>)
func.func @shallow(%x: tensor<2x3x16x16xf32>, %w: tensor<8x3x7x7xf32>) -> tensor<2x8x5x5xf32> {
  %0 = tt.conv %x, %w strides = [2, 2] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 1 : (tensor<2x3x16x16xf32>, tensor<8x3x7x7xf32>) -> tensor<2x8x5x5xf32>
  return %0 : tensor<2x8x5x5xf32>
}

// -----

// 1 x 1 with unit strides, in 2 groups: the input is the right operand as
// it is (a view), no patches are copied.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: d2 + d5
// CHECK: %[[B:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2], [3, 4]] : tensor<2x2x3x5x7xf32> into tensor<2x2x3x35xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %{{.*}} : tensor<2x2x3x1x1xf32> into tensor<2x2x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<2x2x3xf32>, tensor<2x2x3x35xf32>)
func.func @pointwise(%x: tensor<2x6x5x7xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<2x4x5x7xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 2 : (tensor<2x6x5x7xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x5x7xf32>
  return %0 : tensor<2x4x5x7xf32>
}

// -----

// Depthwise (one input and one output channel per group): channels last,
// the input [N, C, S] transposed to [N, S, C], the weights to [K..., C],
// the window sums vectorised along the channels, the result transposed
// back.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x5x8x8xf32> into tensor<1x5x64xf32>
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x5x64xf32>) outs(%{{.*}} : tensor<1x64x5xf32>) permutation = [0, 2, 1]
// CHECK: %[[XL:.*]] = tensor.expand_shape %[[XT]] {{.*}} into tensor<1x8x8x5xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<5x9xf32>) outs(%{{.*}} : tensor<9x5xf32>) permutation = [1, 0]
// CHECK: %[[W:.*]] = tensor.expand_shape %{{.*}} into tensor<3x3x5xf32>
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[XL]], %[[W]] :
// CHECK: %[[SC:.*]] = tensor.collapse_shape %[[S]] {{.*}} into tensor<1x36x5xf32>
// CHECK: linalg.transpose ins(%[[SC]] : tensor<1x36x5xf32>) outs(%{{.*}} : tensor<1x5x36xf32>) permutation = [0, 2, 1]
// The off switch keeps the direct reduction.
// DIRECT-LABEL: func.func @depthwise
// DIRECT: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// DIRECT-NOT: linalg.transpose
func.func @depthwise(%x: tensor<1x5x8x8xf32>, %w: tensor<5x1x3x3xf32>) -> tensor<1x5x6x6xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 5 : (tensor<1x5x8x8xf32>, tensor<5x1x3x3xf32>) -> tensor<1x5x6x6xf32>
  return %0 : tensor<1x5x6x6xf32>
}

// -----

// A channel multiplier (two output channels per input channel) stays the
// direct reduction.
// CHECK-LABEL: func.func @multiplier
// CHECK-NOT: linalg.transpose
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @multiplier(%x: tensor<1x3x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [0, 0] pad_high = [0, 0] groups = 3 : (tensor<1x3x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// Patches that would leave the caches (3 x 3 over 32 channels at 64 x 64,
// 4 images: 18.9 MB): a parallel loop over images and blocks of 8 output
// rows (8 x 64 rows of 288, 590 KB), each block's patches channels
// innermost, times the weights reordered to [F, KH, KW, C] transposed,
// the block's [512, F] result transposed into its slice of the output
// ([N, F, OH * OW], so that the block is written in place).
// CHECK-LABEL: func.func @blocked
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x32x64x64xf32>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%{{.*}} : tensor<32x32x3x3xf32>) outs(%{{.*}} : tensor<32x3x3x32xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[B:.*]] = tensor.collapse_shape %[[WT]] {{\[}}[0], [1, 2, 3]] : tensor<32x3x3x32xf32> into tensor<32x288xf32>
// CHECK: scf.forall (%[[N:.*]], %[[BLK:.*]]) in (4, 8) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<4x32x4096xf32>)
// CHECK: affine.apply affine_map<(d0) -> (d0 * 8)>(%[[BLK]])
// CHECK: %[[IN:.*]] = tensor.extract_slice %{{.*}}[%[[N]], 0, 0, %{{.*}}, 0] [1, 1, 32, 10, 66] [1, 1, 1, 1, 1] : tensor<4x1x32x66x66xf32> to tensor<32x10x66xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d4, d0 + d2, d1 + d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[IN]] : tensor<32x10x66xf32>) outs(%{{.*}} : tensor<8x64x3x3x32xf32>)
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1], [2, 3, 4]] : tensor<8x64x3x3x32xf32> into tensor<512x288xf32>
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<512x288xf32>, tensor<32x288xf32>)
// CHECK: %[[POS:.*]] = affine.apply affine_map<(d0) -> (d0 * 512)>(%[[BLK]])
// CHECK: %[[DST:.*]] = tensor.extract_slice %[[OUT]][%[[N]], 0, %[[POS]]] [1, 32, 512] [1, 1, 1] : tensor<4x32x4096xf32> to tensor<32x512xf32>
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[M]] : tensor<512x32xf32>) outs(%[[DST]] : tensor<32x512xf32>)
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %[[T]] into %[[OUT]][%[[N]], 0, %[[POS]]] [1, 32, 512] [1, 1, 1]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [4, 32, 64, 64] : tensor<4x32x4096xf32> into tensor<4x32x64x64xf32>
// DIRECT-LABEL: func.func @blocked
// OFF-LABEL: func.func @blocked
// OFF-NOT: scf.forall
func.func @blocked(%x: tensor<4x32x64x64xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<4x32x64x64xf32> {
  %0 = tt.conv %x, %w strides = [1, 1] dilations = [1, 1] pad_low = [1, 1] pad_high = [1, 1] groups = 1 : (tensor<4x32x64x64xf32>, tensor<32x32x3x3xf32>) -> tensor<4x32x64x64xf32>
  return %0 : tensor<4x32x64x64xf32>
}
// WHOLE-LABEL: func.func @blocked
// WHOLE-NOT: scf.forall
// WHOLE: tensor<4x64x64x32x3x3xf32>
