// RUN: tiny-opt %s -tt-infer-shapes -split-input-file -verify-diagnostics | FileCheck %s

// A chain of ops with unranked results is refined in order, and the function
// result type follows what is returned.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> (tensor<4x2xf32>, tensor<4x2xf64>)
// CHECK: %[[ADD:.*]] = tt.add %arg0, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[MM:.*]] = tt.matmul %[[ADD]], %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[T:.*]] = tt.transpose %[[MM]] [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
// CHECK: %[[SUM:.*]] = tt.sum %[[T]] axes = [0] keepdims : tensor<4x2xf32> -> tensor<1x2xf32>
// CHECK: %[[R:.*]] = tt.reshape %[[SUM]] [2] : tensor<1x2xf32> -> tensor<2xf32>
// CHECK: %[[EXP:.*]] = tt.exp %[[T]] : tensor<4x2xf32>
// CHECK: %[[CMP:.*]] = tt.cmp gt, %[[EXP]], %[[R]] : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xi1>
// CHECK: %[[SEL:.*]] = tt.select %[[CMP]], %[[EXP]], %[[R]] : (tensor<4x2xi1>, tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK: %[[CAST:.*]] = tt.cast %[[SEL]] to f64 : tensor<4x2xf32> -> tensor<4x2xf64>
// CHECK: return %[[SEL]], %[[CAST]] : tensor<4x2xf32>, tensor<4x2xf64>
func.func @chain(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xf64>) {
  %0 = tt.add %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  %1 = tt.matmul %0, %b : (tensor<*xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  %2 = tt.transpose %1 [1, 0] : tensor<*xf32> -> tensor<*xf32>
  %3 = tt.sum %2 axes = [0] keepdims : tensor<*xf32> -> tensor<*xf32>
  %4 = tt.reshape %3 [2] : tensor<*xf32> -> tensor<2xf32>
  %5 = tt.exp %2 : tensor<*xf32>
  %6 = tt.cmp gt, %5, %4 : (tensor<*xf32>, tensor<2xf32>) -> tensor<*xi1>
  %7 = tt.select %6, %5, %4 : (tensor<*xi1>, tensor<*xf32>, tensor<2xf32>) -> tensor<*xf32>
  %8 = tt.cast %7 to f64 : tensor<*xf32> -> tensor<*xf64>
  return %7, %8 : tensor<*xf32>, tensor<*xf64>
}

// -----

// The remaining shape ops: broadcast_to, slice, concat, gather, and the other
// reductions.
// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME: -> (tensor<2x8xf32>, tensor<5x8xf32>, tensor<4xf32>)
// CHECK: %[[NEG:.*]] = tt.neg %arg0 : tensor<3x8xf32>
// CHECK: %[[G:.*]] = tt.gather %arg0[%arg1] : (tensor<3x8xf32>, tensor<2xi32>) -> tensor<2x8xf32>
// CHECK: %[[C:.*]] = tt.concat %[[NEG]], %[[G]] axis = 0 : (tensor<3x8xf32>, tensor<2x8xf32>) -> tensor<5x8xf32>
// CHECK: %[[S:.*]] = tt.slice %[[C]] starts = [1, 0] sizes = [2, 4] strides = [2, 2] : tensor<5x8xf32> -> tensor<2x4xf32>
// CHECK: %[[M:.*]] = tt.reduce_max %[[S]] axes = [0] : tensor<2x4xf32> -> tensor<4xf32>
// CHECK: %[[MEAN:.*]] = tt.mean %[[S]] axes = [0] keepdims : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK: %[[V:.*]] = tt.var %[[MEAN]] axes = [0] {ddof = 1 : i64} : tensor<1x4xf32> -> tensor<4xf32>
// CHECK: return %[[G]], %[[C]], %[[V]] : tensor<2x8xf32>, tensor<5x8xf32>, tensor<4xf32>
func.func @shape_ops(%t: tensor<3x8xf32>, %ids: tensor<2xi32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = tt.neg %t : tensor<3x8xf32>
  %1 = tt.gather %t[%ids] : (tensor<3x8xf32>, tensor<2xi32>) -> tensor<*xf32>
  %2 = tt.concat %0, %1 axis = 0 : (tensor<3x8xf32>, tensor<*xf32>) -> tensor<*xf32>
  %3 = tt.slice %2 starts = [1, 0] sizes = [2, 4] strides = [2, 2] : tensor<*xf32> -> tensor<2x4xf32>
  %4 = tt.reduce_max %3 axes = [0] : tensor<2x4xf32> -> tensor<*xf32>
  %5 = tt.mean %3 axes = [0] keepdims : tensor<2x4xf32> -> tensor<*xf32>
  %6 = tt.var %5 axes = [0] {ddof = 1 : i64} : tensor<*xf32> -> tensor<*xf32>
  return %1, %2, %6 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Values that depend on an unranked argument stay unranked, and so does the
// function result that returns them.
// CHECK-LABEL: func.func @unranked_argument
// CHECK-SAME: (%arg0: tensor<*xf32>, %arg1: tensor<3xf32>) -> (tensor<*xf32>, tensor<3xf32>)
// CHECK: %[[A:.*]] = tt.add %arg0, %arg1 : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
// CHECK: %[[B:.*]] = tt.mul %arg1, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: return %[[A]], %[[B]] : tensor<*xf32>, tensor<3xf32>
func.func @unranked_argument(%u: tensor<*xf32>, %v: tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = tt.add %u, %v : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
  %1 = tt.mul %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// Users outside tt that expect the unranked type get one tensor.cast back to
// it; tt users take the refined value.
// CHECK-LABEL: func.func @non_tt_users
// CHECK-SAME: -> tensor<2x3xf32>
// CHECK: %[[A:.*]] = tt.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[CAST:.*]] = tensor.cast %[[A]] : tensor<2x3xf32> to tensor<*xf32>
// CHECK-NOT: tensor.cast
// CHECK: call @consume(%[[CAST]]) : (tensor<*xf32>) -> ()
// CHECK: call @consume(%[[CAST]]) : (tensor<*xf32>) -> ()
// CHECK: %[[ABS:.*]] = tt.abs %[[A]] : tensor<2x3xf32>
// CHECK: return %[[ABS]] : tensor<2x3xf32>
func.func private @consume(tensor<*xf32>)
func.func @non_tt_users(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  call @consume(%0) : (tensor<*xf32>) -> ()
  call @consume(%0) : (tensor<*xf32>) -> ()
  %1 = tt.abs %0 : tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// A tensor.cast that erases a known shape is looked through.
// CHECK-LABEL: func.func @look_through_cast
// CHECK-SAME: -> tensor<2x4xf32>
// CHECK: %[[MM:.*]] = tt.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: return %[[MM]] : tensor<2x4xf32>
func.func @look_through_cast(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<*xf32> {
  %ua = tensor.cast %a : tensor<2x3xf32> to tensor<*xf32>
  %ub = tensor.cast %b : tensor<3x4xf32> to tensor<*xf32>
  %0 = tt.matmul %ua, %ub : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Already ranked IR is left unchanged.
// CHECK-LABEL: func.func @already_ranked
// CHECK-SAME: -> tensor<3xf32>
// CHECK-NEXT: %[[E:.*]] = tt.exp %arg0 : tensor<3xf32>
// CHECK-NEXT: return %[[E]] : tensor<3xf32>
func.func @already_ranked(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tt.exp %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A broadcast mismatch that only shows up once the unranked operand has been
// refined is reported, and the pass fails.
func.func @mismatch_after_refinement(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<*xf32> {
  %ua = tensor.cast %a : tensor<2x3xf32> to tensor<*xf32>
  // expected-error @+2 {{operands are not broadcast-compatible: operand #1 dimension 0 is 4, expected 3 or 1 to broadcast against dimension 1 of operand #0 (shapes [2, 3] and [4])}}
  // expected-error @+1 {{unable to infer the result shape of this operation}}
  %0 = tt.add %ua, %b : (tensor<*xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// The same for a contraction mismatch revealed by an earlier refinement.
func.func @matmul_mismatch_after_refinement(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<*xf32> {
  %0 = tt.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<*xf32>
  // expected-error @+2 {{matmul contraction sizes differ: lhs dimension 1 is 2 but rhs dimension 0 is 3 (shapes [3, 2] and [3, 4])}}
  // expected-error @+1 {{unable to infer the result shape of this operation}}
  %1 = tt.matmul %0, %b : (tensor<*xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// Dynamic dimensions propagate: `?` against `?` or 1 stays `?`, against a
// static size takes that size; reductions, matmul and transpose keep the
// dynamic dimensions they do not remove.
// CHECK-LABEL: func.func @dynamic
// CHECK: tt.add %arg0, %arg1 : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
// CHECK: tt.add %arg0, %arg2 : (tensor<?x3xf32>, tensor<5x?xf32>) -> tensor<5x3xf32>
// CHECK: tt.matmul %{{.*}}, %arg3 : (tensor<?x3xf32>, tensor<3x?xf32>) -> tensor<?x?xf32>
// CHECK: tt.sum %{{.*}} axes = [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: tt.transpose %{{.*}} [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
func.func @dynamic(%a: tensor<?x3xf32>, %b: tensor<1x3xf32>, %c: tensor<5x?xf32>, %w: tensor<3x?xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = tt.add %a, %b : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<*xf32>
  %1 = tt.add %a, %c : (tensor<?x3xf32>, tensor<5x?xf32>) -> tensor<*xf32>
  %2 = tt.matmul %0, %w : (tensor<*xf32>, tensor<3x?xf32>) -> tensor<*xf32>
  %3 = tt.sum %2 axes = [1] : tensor<*xf32> -> tensor<*xf32>
  %4 = tt.transpose %2 [1, 0] : tensor<*xf32> -> tensor<*xf32>
  return %1, %3, %4 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
