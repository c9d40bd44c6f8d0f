// RUN: tiny-opt %s --inline --tt-infer-shapes | FileCheck %s

// A generic (unranked) private function is inlined into callers with concrete
// types; --tt-infer-shapes then looks through the shape-erasing tensor.cast ops
// and refines every op of the inlined body. Each call site is refined on its
// own, and the now-unused private function is removed by the inliner.

func.func private @mlp(%x: tensor<*xf32>, %w: tensor<*xf32>, %b: tensor<*xf32>) -> tensor<*xf32> {
  %0 = tt.matmul %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = tt.add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = tt.tanh %1 : tensor<*xf32>
  %3 = tt.mul %1, %2 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %4 = tt.sum %3 axes = [1] keepdims : tensor<*xf32> -> tensor<*xf32>
  return %4 : tensor<*xf32>
}

// CHECK-NOT: func.func private

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<4xf32>) -> tensor<2x1xf32>
// CHECK: %[[MM:.*]] = tt.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[ADD:.*]] = tt.add %[[MM]], %arg2 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK: %[[TANH:.*]] = tt.tanh %[[ADD]] : tensor<2x4xf32>
// CHECK: %[[MUL:.*]] = tt.mul %[[ADD]], %[[TANH]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[SUM:.*]] = tt.sum %[[MUL]] axes = [1] keepdims : tensor<2x4xf32> -> tensor<2x1xf32>
// CHECK-NOT: call
// CHECK: return %[[SUM]] : tensor<2x1xf32>
// CHECK-NOT: func.func private
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<*xf32> {
  %ux = tensor.cast %x : tensor<2x3xf32> to tensor<*xf32>
  %uw = tensor.cast %w : tensor<3x4xf32> to tensor<*xf32>
  %ub = tensor.cast %b : tensor<4xf32> to tensor<*xf32>
  %0 = call @mlp(%ux, %uw, %ub) : (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// A second caller with batched operands gets its own shapes.
// CHECK-LABEL: func.func @batched
// CHECK-SAME: -> tensor<5x1x8xf64>
// CHECK: tt.matmul %arg0, %arg1 : (tensor<5x7x3xf64>, tensor<3x8xf64>) -> tensor<5x7x8xf64>
// CHECK: tt.add %{{.*}}, %arg2 : (tensor<5x7x8xf64>, tensor<f64>) -> tensor<5x7x8xf64>
// CHECK: tt.tanh %{{.*}} : tensor<5x7x8xf64>
// CHECK: tt.mul %{{.*}}, %{{.*}} : (tensor<5x7x8xf64>, tensor<5x7x8xf64>) -> tensor<5x7x8xf64>
// CHECK: %[[SUM:.*]] = tt.sum %{{.*}} axes = [1] keepdims : tensor<5x7x8xf64> -> tensor<5x1x8xf64>
// CHECK: return %[[SUM]] : tensor<5x1x8xf64>
// CHECK-NOT: func.func private
func.func private @mlp64(%x: tensor<*xf64>, %w: tensor<*xf64>, %b: tensor<*xf64>) -> tensor<*xf64> {
  %0 = tt.matmul %x, %w : (tensor<*xf64>, tensor<*xf64>) -> tensor<*xf64>
  %1 = tt.add %0, %b : (tensor<*xf64>, tensor<*xf64>) -> tensor<*xf64>
  %2 = tt.tanh %1 : tensor<*xf64>
  %3 = tt.mul %1, %2 : (tensor<*xf64>, tensor<*xf64>) -> tensor<*xf64>
  %4 = tt.sum %3 axes = [1] keepdims : tensor<*xf64> -> tensor<*xf64>
  return %4 : tensor<*xf64>
}
func.func @batched(%x: tensor<5x7x3xf64>, %w: tensor<3x8xf64>, %b: tensor<f64>) -> tensor<*xf64> {
  %ux = tensor.cast %x : tensor<5x7x3xf64> to tensor<*xf64>
  %uw = tensor.cast %w : tensor<3x8xf64> to tensor<*xf64>
  %ub = tensor.cast %b : tensor<f64> to tensor<*xf64>
  %0 = call @mlp64(%ux, %uw, %ub) : (tensor<*xf64>, tensor<*xf64>, tensor<*xf64>) -> tensor<*xf64>
  return %0 : tensor<*xf64>
}

// Two calls of one generic function with different shapes in one caller.
// CHECK-LABEL: func.func @two_calls
// CHECK-SAME: -> (tensor<4xf32>, tensor<2x3xf32>)
// CHECK: %[[A:.*]] = tt.exp %arg0 : tensor<4xf32>
// CHECK: %[[B:.*]] = tt.exp %arg1 : tensor<2x3xf32>
// CHECK: return %[[A]], %[[B]] : tensor<4xf32>, tensor<2x3xf32>
// CHECK-NOT: func.func private
func.func private @generic_exp(%x: tensor<*xf32>) -> tensor<*xf32> {
  %0 = tt.exp %x : tensor<*xf32>
  return %0 : tensor<*xf32>
}
func.func @two_calls(%a: tensor<4xf32>, %b: tensor<2x3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %ua = tensor.cast %a : tensor<4xf32> to tensor<*xf32>
  %ub = tensor.cast %b : tensor<2x3xf32> to tensor<*xf32>
  %0 = call @generic_exp(%ua) : (tensor<*xf32>) -> tensor<*xf32>
  %1 = call @generic_exp(%ub) : (tensor<*xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
