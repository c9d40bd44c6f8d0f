// RUN: tiny-opt %s -verify-diagnostics --tt-max-rewrite-iterations=1 \
// RUN:   --tt-remark-nonconvergence --tt-to-linalg \
// RUN:   --tt-fuse-elementwise='collapse-epilogues=false' \
// RUN:   | FileCheck %s

// An optimisation (Convergence::Optional) cut short is not a failure: the
// IR is valid and means the same. --tt-remark-nonconvergence says so.

// CHECK-LABEL: func.func @chain
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:           arith.mulf
// CHECK:           math.exp
// CHECK-NOT:     linalg.generic
// expected-remark@+1 {{tt-fuse-elementwise: rewrite patterns did not reach a fixed point within 1 iteration}}
module {
  func.func @chain(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = tt.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = tt.mul %0, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %2 = tt.exp %1 : tensor<4x8xf32>
    return %2 : tensor<4x8xf32>
  }
}
