// RUN: tiny-opt %s --split-input-file --tt-fuse-elementwise --mlir-print-local-scope | FileCheck %s

// A reshape feeding a contraction stays a reshape: the matmul keeps its
// three loops (linalg-fuse-elementwise-ops expands it to four loops over the
// un-collapsed operand).
// CHECK-LABEL: func.func @reshape_into_matmul
// CHECK:         tensor.collapse_shape
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<24x8xf32>, tensor<8x5xf32>)
func.func @reshape_into_matmul(%x: tensor<4x6x8xf32>, %w: tensor<8x5xf32>) -> tensor<24x5xf32> {
  %e = tensor.empty() : tensor<4x6x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x6x8xf32>) outs(%e : tensor<4x6x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = math.tanh %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x6x8xf32>
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<4x6x8xf32> into tensor<24x8xf32>
  %z = tensor.empty() : tensor<24x5xf32>
  %cst = arith.constant 0.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%z : tensor<24x5xf32>) -> tensor<24x5xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c, %w : tensor<24x8xf32>, tensor<8x5xf32>) outs(%f : tensor<24x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<24x5xf32>
  return %m : tensor<24x5xf32>
}

// -----

// Elementwise producers still fuse into their consumers, and reshapes
// between elementwise ops still propagate.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK:         linalg.generic
// CHECK:           math.tanh
// CHECK:           math.exp
// CHECK-NOT:     linalg.generic
func.func @elementwise_chain(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %e = tensor.empty() : tensor<4x6xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = math.tanh %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x6xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x6xf32>
  return %u : tensor<4x6xf32>
}
