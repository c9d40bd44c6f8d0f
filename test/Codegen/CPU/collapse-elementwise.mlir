// RUN: tiny-opt %s --split-input-file --tt-cpu-collapse-elementwise | FileCheck %s
// RUN: tiny-opt %s --split-input-file '--tt-lower-to-llvm=collapse-elementwise=false' --mlir-print-ir-after=tt-cpu-tile-and-fuse -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// An SGD-with-momentum update of a [64, 64, 3, 3] weight: both elementwise
// ops (the second reads the first) run over the flattened tensors, so that
// their vectors are not 3 elements long; the reshapes between them cancel.
// CHECK-LABEL: func.func @momentum
// CHECK-SAME:    (%[[P:.*]]: tensor<64x64x3x3xf32>, %[[G:.*]]: tensor<64x64x3x3xf32>, %[[M:.*]]: tensor<64x64x3x3xf32>)
// CHECK:         %[[FM:.*]] = tensor.collapse_shape %[[M]] {{\[\[}}0, 1, 2, 3]] : tensor<64x64x3x3xf32> into tensor<36864xf32>
// CHECK:         %[[M1:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}}ins(%[[FM]], {{.*}}outs({{.*}} : tensor<36864xf32>)
// CHECK:         %[[EM:.*]] = tensor.expand_shape %[[M1]] {{\[\[}}0, 1, 2, 3]] output_shape [64, 64, 3, 3]
// CHECK:         %[[FP:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1, 2, 3]]
// CHECK:         %[[P1:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}}ins(%[[FP]], %[[M1]] : tensor<36864xf32>, tensor<36864xf32>) outs({{.*}} : tensor<36864xf32>)
// CHECK:         %[[EP:.*]] = tensor.expand_shape %[[P1]] {{\[\[}}0, 1, 2, 3]] output_shape [64, 64, 3, 3]
// CHECK:         return %[[EP]], %[[EM]]
// OFF-LABEL: func.func @momentum
// OFF-NOT:     tensor.collapse_shape
// OFF:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
func.func @momentum(%p: tensor<64x64x3x3xf32>, %g: tensor<64x64x3x3xf32>, %m: tensor<64x64x3x3xf32>) -> (tensor<64x64x3x3xf32>, tensor<64x64x3x3xf32>) {
  %c9 = arith.constant 0.9 : f32
  %lr = arith.constant -0.01 : f32
  %e = tensor.empty() : tensor<64x64x3x3xf32>
  %m1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m, %g : tensor<64x64x3x3xf32>, tensor<64x64x3x3xf32>) outs(%e : tensor<64x64x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %a, %c9 : f32
    %1 = arith.addf %0, %b : f32
    linalg.yield %1 : f32
  } -> tensor<64x64x3x3xf32>
  %e2 = tensor.empty() : tensor<64x64x3x3xf32>
  %p1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %m1 : tensor<64x64x3x3xf32>, tensor<64x64x3x3xf32>) outs(%e2 : tensor<64x64x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %b, %lr : f32
    %1 = arith.addf %a, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<64x64x3x3xf32>
  return %p1, %m1 : tensor<64x64x3x3xf32>, tensor<64x64x3x3xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A contraction's epilogue keeps its shape (tiling fuses it into the
// product's tiles), as does an op whose innermost dimension fills vectors.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         return
func.func @left_alone(%a: tensor<8x4xf32>, %b: tensor<4x3xf32>, %x: tensor<16x128xf32>) -> (tensor<8x3xf32>, tensor<16x128xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x3xf32>) -> tensor<8x3xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x3xf32>) outs(%f : tensor<8x3xf32>) -> tensor<8x3xf32>
  %e2 = tensor.empty() : tensor<8x3xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x3xf32>) outs(%e2 : tensor<8x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.maximumf %v, %z : f32
    linalg.yield %0 : f32
  } -> tensor<8x3xf32>
  %e3 = tensor.empty() : tensor<16x128xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x128xf32>) outs(%e3 : tensor<16x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.mulf %v, %v : f32
    linalg.yield %0 : f32
  } -> tensor<16x128xf32>
  return %r, %w : tensor<8x3xf32>, tensor<16x128xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A value inserted into a larger tensor (max pooling's padding) keeps its
// shape: bufferization computes it in its place there.
// CHECK-LABEL: func.func @inserted
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         tensor.insert_slice
func.func @inserted(%x: tensor<2x8x8x4xf32>, %big: tensor<2x9x8x4xf32>) -> tensor<2x9x8x4xf32> {
  %e = tensor.empty() : tensor<2x8x8x4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x8x8x4xf32>) outs(%e : tensor<2x8x8x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  } -> tensor<2x8x8x4xf32>
  %i = tensor.insert_slice %r into %big[0, 1, 0, 0] [2, 8, 8, 4] [1, 1, 1, 1] : tensor<2x8x8x4xf32> into tensor<2x9x8x4xf32>
  return %i : tensor<2x9x8x4xf32>
}
