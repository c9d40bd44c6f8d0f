// RUN: tiny-opt %s --tt-cpu-vectorize | FileCheck %s
// RUN: tiny-opt %s --tt-cpu-vectorize=fold-unit-loops=false | FileCheck %s --check-prefix=OFF

// A tile of a window gather: one window element (kh, kw), one output
// position, a vector of 64 channels. The loops of one iteration are 0, so
// the read x[n, 2 oh + kh, 2 ow + kw, c] is x[n, 0, 0, c] of the tile's
// slice: a projected permutation with zeros, which the vectoriser takes.
// CHECK-LABEL: func.func @window_tile
// CHECK:         vector.transfer_read %arg0{{.*}} permutation_map = #{{.*}}} : tensor<1x1x1x64xf32>, vector<1x1x1x64xf32>
// CHECK:         arith.maximumf {{.*}} : vector<1x64x1x1x1x1xf32>
// CHECK:         vector.transfer_write
// CHECK-NOT:     linalg.generic
// Off: the compound expressions stay, and the vectoriser refuses the op.
// OFF-LABEL: func.func @window_tile
// OFF:         linalg.generic
#gather = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2 * 2 + d4, d3 * 2 + d5, d1)>
#channel = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
func.func @window_tile(%x: tensor<1x1x1x64xf32>, %b: tensor<64xf32>, %out: tensor<1x64x1x1x1x1xf32>) -> tensor<1x64x1x1x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#gather, #channel, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<1x1x1x64xf32>, tensor<64xf32>) outs(%out : tensor<1x64x1x1x1x1xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x1x1x1x1xf32>
  return %r : tensor<1x64x1x1x1x1xf32>
}

// A loop of more than one iteration in the compound expression (a window
// of two elements along kw) leaves the map strided: not vectorised.
// CHECK-LABEL: func.func @strided_tile
// CHECK:         linalg.generic
#strided = affine_map<(d0, d1) -> (d0 * 2 + d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @strided_tile(%x: tensor<8xf32>, %out: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %r = linalg.generic {indexing_maps = [#strided, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8xf32>) outs(%out : tensor<4x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
