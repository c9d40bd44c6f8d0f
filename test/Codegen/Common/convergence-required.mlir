// RUN: tiny-opt %s -verify-diagnostics --tt-max-rewrite-iterations=1 \
// RUN:   --tt-lower-dynamic-expand-shapes

// A pass whose result is only valid at the fixed point of its rewrites
// (Convergence::Required) fails with an error naming the pass when it is
// cut short, here by --tt-max-rewrite-iterations=1 (a single sweep cannot
// show that nothing is left to rewrite).

// expected-error@+1 {{tt-lower-dynamic-expand-shapes: rewrite patterns did not reach a fixed point within 1 iteration}}
module {
  func.func @two_dynamic(%a: memref<?x12xf32>, %d0: index, %d1: index) -> memref<?x?x12xf32> {
    %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%d0, %d1, 12] : memref<?x12xf32> into memref<?x?x12xf32>
    return %e : memref<?x?x12xf32>
  }
}
