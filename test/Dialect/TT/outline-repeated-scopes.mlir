// RUN: tiny-opt %s --split-input-file --tt-outline-repeated-scopes="min-ops=2" | FileCheck %s
// RUN: tiny-opt %s --split-input-file --tt-outline-repeated-scopes="min-ops=2 max-outputs=5" | FileCheck %s --check-prefix=MAX5
// RUN: tiny-opt %s --split-input-file --tt-outline-repeated-scopes | FileCheck %s --check-prefix=DEFAULT

// Two calls of `block` (scopes 1 and 2) with the same ops on different
// weights become two calls of one private function; the outer scope 0 is
// a single call and stays inline. The attributes are removed.
// CHECK-LABEL: func.func private @block
// CHECK-SAME:    (%[[I:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[M:.*]] = tt.matmul %[[I]], %[[W]]
// CHECK:         %[[T:.*]] = tt.tanh %[[M]]
// CHECK:         return %[[T]]
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[W1:.*]]: tensor<8x8xf32>, %[[W2:.*]]: tensor<8x8xf32>)
// CHECK:         %[[A:.*]] = call @block(%[[X]], %[[W1]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[B:.*]] = call @block(%[[A]], %[[W2]])
// CHECK:         %[[R:.*]] = tt.neg %[[B]]
// CHECK:         return %[[R]]
// CHECK-NOT:     tt.scope
// DEFAULT-LABEL: func.func @main
// DEFAULT-NOT:   call
// DEFAULT-NOT:   tt.scope
func.func @main(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<4x8xf32>
    attributes {tt.scope_names = ["gpt", "block", "block"]} {
  %0 = tt.matmul %x, %w1 {tt.scope = array<i64: 0, 1>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = tt.tanh %0 {tt.scope = array<i64: 0, 1>} : tensor<4x8xf32>
  %2 = tt.matmul %1, %w2 {tt.scope = array<i64: 0, 2>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %3 = tt.tanh %2 {tt.scope = array<i64: 0, 2>} : tensor<4x8xf32>
  %4 = tt.neg %3 {tt.scope = array<i64: 0>} : tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// Scope 0 is a lambda around the whole program, scopes 2 and 4 lambdas of
// the same name inside the two blocks: the blocks are outlined first (the
// larger calls with an equivalent), with their lambda inside them.
// CHECK-LABEL: func.func private @block
// CHECK:         tt.matmul
// CHECK:         tt.tanh
// CHECK:         tt.neg
// CHECK-NOT:     call
// CHECK:         return
// CHECK-LABEL: func.func @lambdas
// CHECK:         %[[A:.*]] = call @block(
// CHECK:         %[[B:.*]] = call @block(%[[A]],
// CHECK-NOT:     call
func.func @lambdas(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<4x8xf32>
    attributes {tt.scope_names = ["<lambda>", "block", "<lambda>", "block", "<lambda>"]} {
  %0 = tt.matmul %x, %w1 {tt.scope = array<i64: 0, 1, 2>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = tt.tanh %0 {tt.scope = array<i64: 0, 1, 2>} : tensor<4x8xf32>
  %2 = tt.neg %1 {tt.scope = array<i64: 0, 1>} : tensor<4x8xf32>
  %3 = tt.matmul %2, %w2 {tt.scope = array<i64: 0, 3, 4>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %4 = tt.tanh %3 {tt.scope = array<i64: 0, 3, 4>} : tensor<4x8xf32>
  %5 = tt.neg %4 {tt.scope = array<i64: 0, 3>} : tensor<4x8xf32>
  %6 = tt.exp %5 {tt.scope = array<i64: 0>} : tensor<4x8xf32>
  return %6 : tensor<4x8xf32>
}

// -----

// Calls that differ (an attribute, a type, or which outside value feeds
// which operand) are not merged: one function per equivalence class, and a
// class of one stays inline. A function name already taken is renamed.
// CHECK-LABEL: func.func private @f(
// CHECK-LABEL: func.func private @f_0
// CHECK:         tt.sum %{{.*}} axes = [0]
// CHECK:         tt.exp
// CHECK-LABEL: func.func @differ
// CHECK-SAME:    (%[[X:.*]]: tensor<3x3xf32>, %[[Y:.*]]: tensor<3x3xf32>)
// CHECK:         %[[S1:.*]] = call @f_0(%[[X]])
// CHECK:         %[[S2:.*]] = call @f_0(%[[Y]])
// CHECK:         tt.sum %[[X]] axes = [1]
// CHECK:         tt.exp
// CHECK:         tt.sub %[[S2]], %[[S1]]
// CHECK:         tt.exp
// CHECK:         return
func.func private @f(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  return %a : tensor<3x3xf32>
}
func.func @differ(%x: tensor<3x3xf32>, %y: tensor<3x3xf32>) -> tensor<3xf32>
    attributes {tt.scope_names = ["f", "f", "f", "f"]} {
  %0 = tt.sum %x axes = [0] {tt.scope = array<i64: 0>} : tensor<3x3xf32> -> tensor<3xf32>
  %1 = tt.exp %0 {tt.scope = array<i64: 0>} : tensor<3xf32>
  %2 = tt.sum %y axes = [0] {tt.scope = array<i64: 1>} : tensor<3x3xf32> -> tensor<3xf32>
  %3 = tt.exp %2 {tt.scope = array<i64: 1>} : tensor<3xf32>
  %4 = tt.sum %x axes = [1] {tt.scope = array<i64: 2>} : tensor<3x3xf32> -> tensor<3xf32>
  %5 = tt.exp %4 {tt.scope = array<i64: 2>} : tensor<3xf32>
  %6 = tt.sub %3, %1 {tt.scope = array<i64: 3>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %7 = tt.exp %6 {tt.scope = array<i64: 3>} : tensor<3xf32>
  %8 = tt.add %5, %7 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %8 : tensor<3xf32>
}

// -----

// A scope whose ops are not contiguous is left alone; so are ids outside
// tt.scope_names.
// CHECK-LABEL: func.func @gaps
// CHECK-NOT:     call
// CHECK:         return
func.func @gaps(%x: tensor<3xf32>) -> tensor<3xf32>
    attributes {tt.scope_names = ["g", "g"]} {
  %0 = tt.exp %x {tt.scope = array<i64: 0>} : tensor<3xf32>
  %1 = tt.neg %0 : tensor<3xf32>
  %2 = tt.exp %1 {tt.scope = array<i64: 0>} : tensor<3xf32>
  %3 = tt.exp %2 {tt.scope = array<i64: 1>} : tensor<3xf32>
  %4 = tt.neg %3 {tt.scope = array<i64: 1>} : tensor<3xf32>
  %5 = tt.exp %4 {tt.scope = array<i64: 7>} : tensor<3xf32>
  %6 = tt.neg %5 {tt.scope = array<i64: 7>} : tensor<3xf32>
  return %6 : tensor<3xf32>
}

// -----

// Two classes of one scope name in a chain: the first call of the second
// class reads the last call of the first class, which was replaced by a
// call before the second class is outlined (this crashed).
// CHECK-LABEL: func.func private @blk(
// CHECK:         tt.tanh
// CHECK-LABEL: func.func private @blk_0(
// CHECK:         tt.exp
// CHECK-LABEL: func.func @two_classes
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK:         %[[A:.*]] = call @blk(%[[X]], %[[W]])
// CHECK:         %[[B:.*]] = call @blk(%[[A]], %[[W]])
// CHECK:         %[[C:.*]] = call @blk_0(%[[B]], %[[W]])
// CHECK:         %[[D:.*]] = call @blk_0(%[[C]], %[[W]])
// CHECK:         return %[[D]]
func.func @two_classes(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32>
    attributes {tt.scope_names = ["blk", "blk", "blk", "blk"]} {
  %0 = tt.matmul %x, %w {tt.scope = array<i64: 0>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = tt.tanh %0 {tt.scope = array<i64: 0>} : tensor<4x8xf32>
  %2 = tt.matmul %1, %w {tt.scope = array<i64: 1>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %3 = tt.tanh %2 {tt.scope = array<i64: 1>} : tensor<4x8xf32>
  %4 = tt.matmul %3, %w {tt.scope = array<i64: 2>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %5 = tt.exp %4 {tt.scope = array<i64: 2>} : tensor<4x8xf32>
  %6 = tt.matmul %5, %w {tt.scope = array<i64: 3>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %7 = tt.exp %6 {tt.scope = array<i64: 3>} : tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// -----

// Constants are not part of any range (a pass before this one may have
// hoisted and merged them): a constant equal in every call (here one op
// used by both) is copied into the function; one that differs between the
// calls is an argument.
// CHECK-LABEL: func.func private @c(
// CHECK-SAME:    %{{.*}}: tensor<3xf32>, %[[K:.*]]: tensor<f32>)
// CHECK:         %[[HALF:.*]] = tt.constant dense<5.000000e-01>
// CHECK:         tt.mul %{{.*}}, %[[HALF]]
// CHECK:         tt.add %{{.*}}, %[[K]]
// CHECK-LABEL: func.func @constants
// CHECK:         %[[ONE:.*]] = tt.constant dense<1.000000e+00>
// CHECK:         %[[A:.*]] = call @c(%{{.*}}, %[[ONE]])
// CHECK:         %[[TWO:.*]] = tt.constant dense<2.000000e+00>
// CHECK:         call @c(%[[A]], %[[TWO]])
func.func @constants(%x: tensor<3xf32>) -> tensor<3xf32>
    attributes {tt.scope_names = ["c", "c"]} {
  %half = tt.constant dense<0.5> : tensor<f32>
  %0 = tt.exp %x {tt.scope = array<i64: 0>} : tensor<3xf32>
  %1 = tt.mul %0, %half {tt.scope = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %one = tt.constant {tt.scope = array<i64: 0>} dense<1.0> : tensor<f32>
  %2 = tt.add %1, %one {tt.scope = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = tt.exp %2 {tt.scope = array<i64: 1>} : tensor<3xf32>
  %4 = tt.mul %3, %half {tt.scope = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %two = tt.constant {tt.scope = array<i64: 1>} dense<2.0> : tensor<f32>
  %5 = tt.add %4, %two {tt.scope = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %5 : tensor<3xf32>
}

// -----

// Two calls of one name with the same ops (a module whose only work is
// calling another module of its class) are one range, not two calls to
// outline twice (this crashed).
// CHECK-LABEL: func.func private @s(
// CHECK-LABEL: func.func @same_ops
// CHECK-COUNT-2: call @s(
// CHECK-NOT:     call
func.func @same_ops(%x: tensor<3xf32>) -> tensor<3xf32>
    attributes {tt.scope_names = ["s", "s", "s", "s"]} {
  %0 = tt.exp %x {tt.scope = array<i64: 0, 1>} : tensor<3xf32>
  %1 = tt.neg %0 {tt.scope = array<i64: 0, 1>} : tensor<3xf32>
  %2 = tt.exp %1 {tt.scope = array<i64: 2, 3>} : tensor<3xf32>
  %3 = tt.neg %2 {tt.scope = array<i64: 2, 3>} : tensor<3xf32>
  return %3 : tensor<3xf32>
}

// -----

// A call whose values used after it are more than max-outputs (4) stays
// inline: each would be a buffer of the call, copied where a result is
// made of it (a training graph's block returns the activations it saves).
// CHECK-LABEL: func.func @many_outputs
// CHECK-NOT:     call
// CHECK:         return
// MAX5-LABEL:  func.func @many_outputs
// MAX5-COUNT-2:  call @m(
func.func @many_outputs(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
    attributes {tt.scope_names = ["m", "m"]} {
  %0 = tt.exp %x {tt.scope = array<i64: 0>} : tensor<3xf32>
  %1 = tt.neg %0 {tt.scope = array<i64: 0>} : tensor<3xf32>
  %2 = tt.exp %1 {tt.scope = array<i64: 0>} : tensor<3xf32>
  %3 = tt.neg %2 {tt.scope = array<i64: 0>} : tensor<3xf32>
  %4 = tt.exp %3 {tt.scope = array<i64: 0>} : tensor<3xf32>
  %5 = tt.exp %4 {tt.scope = array<i64: 1>} : tensor<3xf32>
  %6 = tt.neg %5 {tt.scope = array<i64: 1>} : tensor<3xf32>
  %7 = tt.exp %6 {tt.scope = array<i64: 1>} : tensor<3xf32>
  %8 = tt.neg %7 {tt.scope = array<i64: 1>} : tensor<3xf32>
  %9 = tt.exp %8 {tt.scope = array<i64: 1>} : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
