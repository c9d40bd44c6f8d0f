// RUN: tiny-opt %s --tt-interchange-contractions --mlir-print-local-scope | FileCheck %s

// --tt-interchange-contractions rewrites matmul-shaped ops (iteration space
// (batch..., m, n, k)) into linalg.generic with a loop order whose innermost
// loop is contiguous. In the rewritten maps d0, d1, ... are the new loops.

// B[k, n] and a small result (8x64xf32 = 2 KiB <= 256 KiB): order (k, m, n).
// No fast-math flags: the innermost loop is not a reduction.
// CHECK-LABEL: func.func @matmul_small
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x64xf32>, %[[C:.*]]: tensor<8x64xf32>)
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>]
// CHECK-SAME:      iterator_types = ["reduction", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<8x16xf32>, tensor<16x64xf32>) outs(%[[C]] : tensor<8x64xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[R]]
func.func @matmul_small(%a: tensor<8x16xf32>, %b: tensor<16x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// Exactly 256 KiB (256x256xf32) still counts as cache resident: (k, m, n).
// CHECK-LABEL: func.func @matmul_at_limit
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>]
// CHECK-SAME:      iterator_types = ["reduction", "parallel", "parallel"]
func.func @matmul_at_limit(%a: tensor<256x8xf32>, %b: tensor<8x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x8xf32>, tensor<8x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// A large result (512x512xf32 = 1 MiB > 256 KiB): order (m, k, n).
// CHECK-LABEL: func.func @matmul_large
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME:      outs(%{{.*}} : tensor<512x512xf32>)
// CHECK-NOT:     fastmath
// CHECK:         return
func.func @matmul_large(%a: tensor<512x32xf32>, %b: tensor<32x512xf32>, %c: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<512x32xf32>, tensor<32x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// Batch dimensions stay outermost: (b, k, m, n) (the size test is on one
// 8x64 slice of the result).
// CHECK-LABEL: func.func @batch_matmul
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction", "parallel", "parallel"]
// CHECK-SAME:      outs(%{{.*}} : tensor<2x8x64xf32>)
// CHECK-NOT:     fastmath
// CHECK:         return
func.func @batch_matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x8x16xf32>, tensor<2x16x64xf32>) outs(%c : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %0 : tensor<2x8x64xf32>
}

// A transposed right operand (B[n, k], as x @ w.T lowers): order (n, m, k),
// a dot product innermost, with the body allowed to reassociate.
// CHECK-LABEL: func.func @generic_transposed_b
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<64x16xf32>, %[[C:.*]]: tensor<8x64xf32>)
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d0)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<8x16xf32>, tensor<64x16xf32>) outs(%[[C]] : tensor<8x64xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[R]]
func.func @generic_transposed_b(%a: tensor<8x16xf32>, %b: tensor<64x16xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x16xf32>, tensor<64x16xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// Batched x @ w.T with a broadcast weight: (b, n, m, k).
// CHECK-LABEL: func.func @generic_batched_transposed_b
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:           arith.mulf {{.*}} fastmath<reassoc,contract> : f32
// CHECK:           arith.addf {{.*}} fastmath<reassoc,contract> : f32
func.func @generic_batched_transposed_b(%a: tensor<3x8x16xf32>, %b: tensor<64x16xf32>, %c: tensor<3x8x64xf32>) -> tensor<3x8x64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<3x8x16xf32>, tensor<64x16xf32>) outs(%c : tensor<3x8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x8x64xf32>
  return %0 : tensor<3x8x64xf32>
}

// A transposed left operand (A[k, m]) with B[n, k]: no contiguous order, so
// the generic is left exactly as it was.
// CHECK-LABEL: func.func @generic_transposed_a
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NOT:     fastmath
// CHECK:         return
func.func @generic_transposed_a(%a: tensor<16x8xf32>, %b: tensor<64x16xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xf32>, tensor<64x16xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// Not contractions: an elementwise generic is unchanged.
// CHECK-LABEL: func.func @elementwise
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[E]] : f32
func.func @elementwise(%a: tensor<8x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x64xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// linalg.matvec is not a candidate: it stays a named op.
// CHECK-LABEL: func.func @matvec
// CHECK-NEXT:    %[[R:.*]] = linalg.matvec ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    return %[[R]]
func.func @matvec(%a: tensor<8x16xf32>, %b: tensor<16xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.matvec ins(%a, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%c : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A complex matmul (no bit width to size a cache footprint with) is
// handled like one of unknown size instead of crashing.
// CHECK-LABEL: func.func @complex_matmul
// CHECK: linalg.generic
func.func @complex_matmul(%a: tensor<2x2xcomplex<f32>>, %b: tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>> {
  %init = tensor.empty() : tensor<2x2xcomplex<f32>>
  %0 = linalg.matmul ins(%a, %b : tensor<2x2xcomplex<f32>>, tensor<2x2xcomplex<f32>>) outs(%init : tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>
  return %0 : tensor<2x2xcomplex<f32>>
}
