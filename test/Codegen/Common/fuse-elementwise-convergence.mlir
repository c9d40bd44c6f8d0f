// RUN: tiny-opt %s -verify-diagnostics --tt-remark-nonconvergence \
// RUN:   --tt-optimize | FileCheck %s

// The residual stream of a 16-layer T5-style encoder (an RMS norm over
// [1, 4, 8] rows, a matmul over [4, 8], the residual add), reduced from the
// 600-op T5 encoder of ../shared/repro/fuse-elementwise-nonconvergence.mlir.
// tt-fuse-elementwise propagated a reshape only when the value it reshapes
// had a single use; the greedy driver then took one sweep per residual add
// (a collapse_shape whose other user went away does not bring its consumer
// back onto the worklist), did not converge within its 10 sweeps, and the
// pass failed without a diagnostic. Now it reaches the fixed point:
// -verify-diagnostics fails on the remark --tt-remark-nonconvergence would
// emit otherwise.

// Each layer: the norm over [1, 4, 8], its matmul, and the residual add as
// the matmul's epilogue over [4, 8], expanded for the next layer's norm.
// CHECK-LABEL: func.func @residual_stream
// CHECK-COUNT-16: linalg.matmul
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[LAST:.*]] = tensor.expand_shape
// CHECK:         return %[[LAST]] : tensor<1x4x8xf32>
func.func @residual_stream(%h0: tensor<1x4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>, %w3: tensor<8x8xf32>, %w4: tensor<8x8xf32>, %w5: tensor<8x8xf32>, %w6: tensor<8x8xf32>, %w7: tensor<8x8xf32>, %w8: tensor<8x8xf32>, %w9: tensor<8x8xf32>, %w10: tensor<8x8xf32>, %w11: tensor<8x8xf32>, %w12: tensor<8x8xf32>, %w13: tensor<8x8xf32>, %w14: tensor<8x8xf32>, %w15: tensor<8x8xf32>) -> tensor<1x4x8xf32> {
  %sq0 = tt.mul %h0, %h0 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms0 = tt.mean %sq0 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs0 = tt.sqrt %ms0 : tensor<1x4x1xf32>
  %n0 = tt.div %h0, %rs0 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f0 = tt.reshape %n0 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m0 = tt.matmul %f0, %w0 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e0 = tt.reshape %m0 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h1 = tt.add %h0, %e0 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq1 = tt.mul %h1, %h1 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms1 = tt.mean %sq1 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs1 = tt.sqrt %ms1 : tensor<1x4x1xf32>
  %n1 = tt.div %h1, %rs1 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f1 = tt.reshape %n1 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m1 = tt.matmul %f1, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e1 = tt.reshape %m1 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h2 = tt.add %h1, %e1 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq2 = tt.mul %h2, %h2 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms2 = tt.mean %sq2 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs2 = tt.sqrt %ms2 : tensor<1x4x1xf32>
  %n2 = tt.div %h2, %rs2 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f2 = tt.reshape %n2 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m2 = tt.matmul %f2, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e2 = tt.reshape %m2 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h3 = tt.add %h2, %e2 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq3 = tt.mul %h3, %h3 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms3 = tt.mean %sq3 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs3 = tt.sqrt %ms3 : tensor<1x4x1xf32>
  %n3 = tt.div %h3, %rs3 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f3 = tt.reshape %n3 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m3 = tt.matmul %f3, %w3 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e3 = tt.reshape %m3 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h4 = tt.add %h3, %e3 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq4 = tt.mul %h4, %h4 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms4 = tt.mean %sq4 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs4 = tt.sqrt %ms4 : tensor<1x4x1xf32>
  %n4 = tt.div %h4, %rs4 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f4 = tt.reshape %n4 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m4 = tt.matmul %f4, %w4 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e4 = tt.reshape %m4 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h5 = tt.add %h4, %e4 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq5 = tt.mul %h5, %h5 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms5 = tt.mean %sq5 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs5 = tt.sqrt %ms5 : tensor<1x4x1xf32>
  %n5 = tt.div %h5, %rs5 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f5 = tt.reshape %n5 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m5 = tt.matmul %f5, %w5 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e5 = tt.reshape %m5 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h6 = tt.add %h5, %e5 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq6 = tt.mul %h6, %h6 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms6 = tt.mean %sq6 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs6 = tt.sqrt %ms6 : tensor<1x4x1xf32>
  %n6 = tt.div %h6, %rs6 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f6 = tt.reshape %n6 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m6 = tt.matmul %f6, %w6 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e6 = tt.reshape %m6 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h7 = tt.add %h6, %e6 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq7 = tt.mul %h7, %h7 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms7 = tt.mean %sq7 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs7 = tt.sqrt %ms7 : tensor<1x4x1xf32>
  %n7 = tt.div %h7, %rs7 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f7 = tt.reshape %n7 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m7 = tt.matmul %f7, %w7 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e7 = tt.reshape %m7 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h8 = tt.add %h7, %e7 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq8 = tt.mul %h8, %h8 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms8 = tt.mean %sq8 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs8 = tt.sqrt %ms8 : tensor<1x4x1xf32>
  %n8 = tt.div %h8, %rs8 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f8 = tt.reshape %n8 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m8 = tt.matmul %f8, %w8 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e8 = tt.reshape %m8 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h9 = tt.add %h8, %e8 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq9 = tt.mul %h9, %h9 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms9 = tt.mean %sq9 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs9 = tt.sqrt %ms9 : tensor<1x4x1xf32>
  %n9 = tt.div %h9, %rs9 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f9 = tt.reshape %n9 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m9 = tt.matmul %f9, %w9 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e9 = tt.reshape %m9 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h10 = tt.add %h9, %e9 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq10 = tt.mul %h10, %h10 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms10 = tt.mean %sq10 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs10 = tt.sqrt %ms10 : tensor<1x4x1xf32>
  %n10 = tt.div %h10, %rs10 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f10 = tt.reshape %n10 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m10 = tt.matmul %f10, %w10 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e10 = tt.reshape %m10 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h11 = tt.add %h10, %e10 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq11 = tt.mul %h11, %h11 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms11 = tt.mean %sq11 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs11 = tt.sqrt %ms11 : tensor<1x4x1xf32>
  %n11 = tt.div %h11, %rs11 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f11 = tt.reshape %n11 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m11 = tt.matmul %f11, %w11 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e11 = tt.reshape %m11 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h12 = tt.add %h11, %e11 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq12 = tt.mul %h12, %h12 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms12 = tt.mean %sq12 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs12 = tt.sqrt %ms12 : tensor<1x4x1xf32>
  %n12 = tt.div %h12, %rs12 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f12 = tt.reshape %n12 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m12 = tt.matmul %f12, %w12 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e12 = tt.reshape %m12 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h13 = tt.add %h12, %e12 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq13 = tt.mul %h13, %h13 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms13 = tt.mean %sq13 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs13 = tt.sqrt %ms13 : tensor<1x4x1xf32>
  %n13 = tt.div %h13, %rs13 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f13 = tt.reshape %n13 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m13 = tt.matmul %f13, %w13 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e13 = tt.reshape %m13 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h14 = tt.add %h13, %e13 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq14 = tt.mul %h14, %h14 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms14 = tt.mean %sq14 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs14 = tt.sqrt %ms14 : tensor<1x4x1xf32>
  %n14 = tt.div %h14, %rs14 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f14 = tt.reshape %n14 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m14 = tt.matmul %f14, %w14 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e14 = tt.reshape %m14 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h15 = tt.add %h14, %e14 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %sq15 = tt.mul %h15, %h15 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %ms15 = tt.mean %sq15 axes = [2] keepdims : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %rs15 = tt.sqrt %ms15 : tensor<1x4x1xf32>
  %n15 = tt.div %h15, %rs15 : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %f15 = tt.reshape %n15 [4, 8] : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %m15 = tt.matmul %f15, %w15 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e15 = tt.reshape %m15 [1, 4, 8] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h16 = tt.add %h15, %e15 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %h16 : tensor<1x4x8xf32>
}
