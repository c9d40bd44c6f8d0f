// RUN: tiny-opt %s --split-input-file --tt-cpu-tile-and-fuse=vector-bits=512 --canonicalize --tt-cpu-vectorize --canonicalize --cse | FileCheck %s
// RUN: tiny-opt %s --split-input-file '--tt-cpu-tile-and-fuse=vector-bits=512 window-vectors=false' --canonicalize --tt-cpu-vectorize --canonicalize --cse | FileCheck %s --check-prefix=OFF

// Max pooling (2 x 2, stride 2) of a channels-last convolution's output
// with its bias and ReLU, written NCHW: the window gather reads x[n, 2 oh +
// kh, 2 ow + kw, c], contiguous along c. The reduction is vectorised along
// c (32 channels a step); each window element is an elementwise step, the
// producer computed in registers (its unit window loops folded to 0 in the
// read, so that the vectoriser takes it), and the [32] accumulator stays in
// registers across the window loops.
// CHECK-LABEL: func.func @pool
// CHECK:         %[[ACC:.*]] = vector.transfer_read %{{.*}} : tensor<4x32x4x4xf32>, vector<1x32x1x1xf32>
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<1x32x1x1xf32>)
// CHECK:           scf.for {{.*}} -> (vector<1x32x1x1xf32>)
// CHECK:             vector.transfer_read %arg0{{.*}} : tensor<4x8x8x32xf32>, vector<1x1x1x32xf32>
// CHECK:             arith.addf {{.*}} : vector<1x32x1x1x1x1xf32>
// CHECK:             arith.maximumf {{.*}} : vector<1x32x1x1x1x1xf32>
// CHECK:             arith.maximumf {{.*}} : vector<1x32x1x1xf32>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.reduce

// Off: the windows' rows along kw, two elements a step.
// OFF-LABEL: func.func @pool
// OFF:         vector.multi_reduction <maximumf>, {{.*}} [4, 5] : vector<1x1x1x1x1x2xf32> to vector<1x1x1x1xf32>
// OFF-NOT:     vector<1x32x1x1xf32>
#gather = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2 * 2 + d4, d3 * 2 + d5, d1)>
#channel = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
func.func @pool(%x: tensor<4x8x8x32xf32>, %b: tensor<32xf32>) -> tensor<4x32x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x32x4x4x2x2xf32>
  %w = linalg.generic {indexing_maps = [#gather, #channel, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<4x8x8x32xf32>, tensor<32xf32>) outs(%e : tensor<4x32x4x4x2x2xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x32x4x4x2x2xf32>
  %o = tensor.empty() : tensor<4x32x4x4xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%o : tensor<4x32x4x4xf32>) -> tensor<4x32x4x4xf32>
  %m = linalg.reduce ins(%w : tensor<4x32x4x4x2x2xf32>) outs(%init : tensor<4x32x4x4xf32>) dimensions = [4, 5]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %m : tensor<4x32x4x4xf32>
}

// -----

// Pooling of NCHW data (contiguous along the window's kw): rows along kw,
// as before; window-vectors changes nothing here.
// CHECK-LABEL: func.func @pool_nchw
// CHECK:         vector.multi_reduction <maximumf>, {{.*}} [4, 5] : vector<1x1x1x1x1x2xf32> to vector<1x1x1x1xf32>
// OFF-LABEL: func.func @pool_nchw
// OFF:         vector.multi_reduction <maximumf>, {{.*}} [4, 5] : vector<1x1x1x1x1x2xf32> to vector<1x1x1x1xf32>
#nchw = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
func.func @pool_nchw(%x: tensor<4x32x8x8xf32>) -> tensor<4x32x4x4xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x32x4x4x2x2xf32>
  %w = linalg.generic {indexing_maps = [#nchw, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<4x32x8x8xf32>) outs(%e : tensor<4x32x4x4x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x32x4x4x2x2xf32>
  %o = tensor.empty() : tensor<4x32x4x4xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%o : tensor<4x32x4x4xf32>) -> tensor<4x32x4x4xf32>
  %m = linalg.reduce ins(%w : tensor<4x32x4x4x2x2xf32>) outs(%init : tensor<4x32x4x4xf32>) dimensions = [4, 5]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %m : tensor<4x32x4x4xf32>
}
