// RUN: tiny-opt %s --tt-lower-to-llvm --mlir-print-ir-after=tt-cpu-tile-and-fuse -o /dev/null 2>&1 | FileCheck %s

// Two layers' products of the same shape, each with an epilogue: CSE gives
// them one zero fill, which tt-untie-empty-tensors splits again before
// tiling. Each product then starts from zeros in its own register tiles;
// no whole-result fill stays outside the tile loops (its zeros would be
// copied into each product's strips).
// CHECK-LABEL: func.func @two_layers
// CHECK-NOT:     linalg.fill
// CHECK:         scf.forall
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x64xf32>)
// CHECK:         scf.forall
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x64xf32>)
// CHECK-NOT:     linalg.fill
// CHECK:         return
func.func @two_layers(%x: tensor<96x64xf32>, %w1: tensor<256x64xf32>, %w2: tensor<256x64xf32>, %b: tensor<256xf32>) -> (tensor<96x256xf32>, tensor<96x256xf32>) {
  %t1 = tt.transpose %w1 [1, 0] : tensor<256x64xf32> -> tensor<64x256xf32>
  %m1 = tt.matmul %x, %t1 : (tensor<96x64xf32>, tensor<64x256xf32>) -> tensor<96x256xf32>
  %a1 = tt.add %m1, %b : (tensor<96x256xf32>, tensor<256xf32>) -> tensor<96x256xf32>
  %e1 = tt.erf %a1 : tensor<96x256xf32>
  %t2 = tt.transpose %w2 [1, 0] : tensor<256x64xf32> -> tensor<64x256xf32>
  %m2 = tt.matmul %x, %t2 : (tensor<96x64xf32>, tensor<64x256xf32>) -> tensor<96x256xf32>
  %a2 = tt.add %m2, %b : (tensor<96x256xf32>, tensor<256xf32>) -> tensor<96x256xf32>
  %e2 = tt.erf %a2 : tensor<96x256xf32>
  return %e1, %e2 : tensor<96x256xf32>, tensor<96x256xf32>
}
