// RUN: tiny-opt %s --split-input-file --canonicalize | FileCheck %s

// Regressions from the hostile-input run of issue 12: canonicalisation of
// verified input through unranked intermediate types never reads past the
// end of an attribute nor produces invalid IR.

// transpose(transpose) with an unranked inner result and permutations of
// different sizes: left alone (it used to read past the end of the inner
// permutation and print heap memory).
// CHECK-LABEL: func.func @compose_mismatched_transposes
// CHECK: tt.transpose %{{.*}} [1, 0]
// CHECK: tt.transpose %{{.*}} [1, 0, 2]
func.func @compose_mismatched_transposes(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = tt.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<*xf32>
  %1 = tt.transpose %0 [1, 0, 2] : tensor<*xf32> -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// Same sizes compose as before.
// CHECK-LABEL: func.func @compose_transposes
// CHECK-NEXT: return %arg0
func.func @compose_transposes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tt.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<*xf32>
  %1 = tt.transpose %0 [1, 0] : tensor<*xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// broadcast_to / slice of a constant with an unranked result are not
// folded into a tt.constant (which needs a static type).
// CHECK-LABEL: func.func @fold_to_unranked
// CHECK: tt.broadcast_to
// CHECK: tt.slice
func.func @fold_to_unranked() -> (tensor<*xf32>, tensor<*xf32>) {
  %c = tt.constant dense<1.0> : tensor<3xf32>
  %0 = tt.broadcast_to %c [2, 3] : tensor<3xf32> -> tensor<*xf32>
  %1 = tt.slice %c starts = [0] sizes = [2] strides = [1] : tensor<3xf32> -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
