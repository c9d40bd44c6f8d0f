// RUN: tiny-opt %s --tt-optimize | FileCheck %s
// RUN: tiny-opt %s --tt-optimize=collapse-epilogues=false | FileCheck %s --check-prefix=NOCOLLAPSE

// A matmul's epilogue behind a reshape: `(x @ w1 + b1).reshape(2, 128, 512)`,
// then ReLU, then back to [256, 512] for the next matmul. With
// collapse-epilogues the ReLU is collapsed to the matmul's [256 x 512] and
// fused with the bias addition, so that the whole epilogue reads the matmul
// directly (the back end runs it in the matmul's blocks) and the next
// matmul reads it without reshapes. Without it, the bias addition is
// expanded to [2 x 128 x 512] behind the matmul's expand_shape, a pass of
// its own.
// CHECK-LABEL: func.func @ffn
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK:         %[[EPI:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<256x512xf32>, tensor<512xf32>)
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK:         linalg.matmul ins(%[[EPI]], %{{.*}} : tensor<256x512xf32>, tensor<512x64xf32>)
// NOCOLLAPSE-LABEL: func.func @ffn
// NOCOLLAPSE:         %[[MM:.*]] = linalg.matmul
// NOCOLLAPSE:         %[[E:.*]] = tensor.expand_shape %[[MM]]
// NOCOLLAPSE:         linalg.generic {{.*}} ins(%[[E]], %{{.*}} : tensor<2x128x512xf32>, tensor<512xf32>)
func.func @ffn(%x: tensor<256x64xf32>, %w1: tensor<64x512xf32>, %b1: tensor<512xf32>, %w2: tensor<512x64xf32>) -> tensor<256x64xf32> {
  %0 = tt.matmul %x, %w1 : (tensor<256x64xf32>, tensor<64x512xf32>) -> tensor<256x512xf32>
  %1 = tt.add %0, %b1 : (tensor<256x512xf32>, tensor<512xf32>) -> tensor<256x512xf32>
  %2 = tt.reshape %1 [2, 128, 512] : tensor<256x512xf32> -> tensor<2x128x512xf32>
  %z = tt.constant dense<0.0> : tensor<f32>
  %3 = tt.max %2, %z : (tensor<2x128x512xf32>, tensor<f32>) -> tensor<2x128x512xf32>
  %4 = tt.reshape %3 [256, 512] : tensor<2x128x512xf32> -> tensor<256x512xf32>
  %5 = tt.matmul %4, %w2 : (tensor<256x512xf32>, tensor<512x64xf32>) -> tensor<256x64xf32>
  return %5 : tensor<256x64xf32>
}
