// RUN: tiny-opt %s --split-input-file --tt-decompose-pads --mlir-print-local-scope | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-decompose-pads --eliminate-empty-tensors --mlir-print-local-scope | FileCheck %s --check-prefix=INPLACE
// RUN: tiny-opt %s --split-input-file --eliminate-empty-tensors --mlir-print-local-scope | FileCheck %s --check-prefix=KEPT

// A convolution's padded input, the ReLU of the layer before: a zero fill
// of the padded shape and an insertion of the ReLU into it. With
// empty-tensor elimination the ReLU is computed in its place in the padded
// tensor; without the decomposition, a pad is no insertion and the ReLU
// keeps a tensor of its own (which bufferisation then copies).
// CHECK-LABEL: func.func @relu_then_pad
// CHECK-NOT:     tensor.pad
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x6x6x8xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<2x6x6x8xf32>)
// CHECK:         tensor.insert_slice %{{.*}} into %[[F]][0, 1, 1, 0] [2, 4, 4, 8] [1, 1, 1, 1]
// INPLACE-LABEL: func.func @relu_then_pad
// INPLACE:         %[[F:.*]] = linalg.fill
// INPLACE:         %[[S:.*]] = tensor.extract_slice %[[F]][0, 1, 1, 0] [2, 4, 4, 8] [1, 1, 1, 1]
// INPLACE:         %[[R:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<2x4x4x8xf32>)
// INPLACE:         tensor.insert_slice %[[R]] into %[[F]][0, 1, 1, 0]
// KEPT-LABEL:    func.func @relu_then_pad
// KEPT:           %[[E:.*]] = tensor.empty() : tensor<2x4x4x8xf32>
// KEPT:           linalg.generic {{.*}} outs(%[[E]] : tensor<2x4x4x8xf32>)
// KEPT:           tensor.pad
func.func @relu_then_pad(%x: tensor<2x4x4x8xf32>) -> tensor<2x6x6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x4x8xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x4x4x8xf32>) outs(%e : tensor<2x4x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x4x4x8xf32>
  %p = tensor.pad %relu low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x4x4x8xf32> to tensor<2x6x6x8xf32>
  return %p : tensor<2x6x6x8xf32>
}

// -----

// Asymmetric and dynamic padding: the fill takes the padded sizes.
// CHECK-LABEL: func.func @dynamic_pad
// CHECK-NOT:     tensor.pad
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x7xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x7xf32>)
// CHECK:         tensor.insert_slice %{{.*}} into %[[F]][0, 2] [%{{.*}}, 4] [1, 1]
// INPLACE-LABEL: func.func @dynamic_pad
// KEPT-LABEL:    func.func @dynamic_pad
func.func @dynamic_pad(%x: tensor<?x4xf32>) -> tensor<?x7xf32> {
  %v = arith.constant -1.0 : f32
  %p = tensor.pad %x low[0, 2] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<?x4xf32> to tensor<?x7xf32>
  return %p : tensor<?x7xf32>
}
