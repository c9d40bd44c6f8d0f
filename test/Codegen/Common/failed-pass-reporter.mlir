// RUN: tiny-opt %s -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize{test-convergence=true max-iterations=1}))'

// No pass fails silently. Upstream's canonicalizer with test-convergence
// fails without a word when it does not converge; tiny-opt's pass manager
// (tt::FailedPassReporter) then reports the failure as an error naming the
// pass and the op.

// expected-error@+1 {{pass 'canonicalize' on func.func @fold failed without an error diagnostic}}
func.func @fold(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  %r = arith.addi %a, %s : i32
  return %r : i32
}
