// RUN: tiny-opt %s --tt-to-linalg --canonicalize --tt-fold-transposes --tt-fuse-casts-into-contractions --split-input-file --mlir-print-local-scope | FileCheck %s

// A mixed-precision matmul reads the f32 operand directly and converts each
// element inside the contraction instead of materialising an f64 copy.

// CHECK-LABEL: func.func @matmul_f64_f32
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf64>, %[[W:.*]]: tensor<64x256xf32>)
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %[[W]] : tensor<8x64xf64>, tensor<64x256xf32>)
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @matmul_f64_f32(%x: tensor<8x64xf64>, %w: tensor<64x256xf32>) -> tensor<8x256xf64> {
  %wc = tt.cast %w to f64 : tensor<64x256xf32> -> tensor<64x256xf64>
  %0 = tt.matmul %x, %wc : (tensor<8x64xf64>, tensor<64x256xf64>) -> tensor<8x256xf64>
  return %0 : tensor<8x256xf64>
}

// -----

// x @ cast(e).T: the transposed contraction generic takes the f32 table.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf64>, %[[E:.*]]: tensor<512x64xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[E]] : tensor<8x64xf64>, tensor<512x64xf32>)
// CHECK:           arith.extf
func.func @transposed(%x: tensor<8x64xf64>, %e: tensor<512x64xf32>) -> tensor<8x512xf64> {
  %ec = tt.cast %e to f64 : tensor<512x64xf32> -> tensor<512x64xf64>
  %et = tt.transpose %ec [1, 0] : tensor<512x64xf64> -> tensor<64x512xf64>
  %0 = tt.matmul %x, %et : (tensor<8x64xf64>, tensor<64x512xf64>) -> tensor<8x512xf64>
  return %0 : tensor<8x512xf64>
}

// -----

// cast(e.T), NumPy's order for `x @ e.T` with f64 x and f32 e: the cast reads
// e transposed (the transpose folded into it) and is fused all the same.
// CHECK-LABEL: func.func @cast_of_transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf64>, %[[E:.*]]: tensor<512x64xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[E]] : tensor<8x64xf64>, tensor<512x64xf32>)
// CHECK:           arith.extf
// CHECK-NOT:     linalg.generic
func.func @cast_of_transpose(%x: tensor<8x64xf64>, %e: tensor<512x64xf32>) -> tensor<8x512xf64> {
  %et = tt.transpose %e [1, 0] : tensor<512x64xf32> -> tensor<64x512xf32>
  %ec = tt.cast %et to f64 : tensor<64x512xf32> -> tensor<64x512xf64>
  %0 = tt.matmul %x, %ec : (tensor<8x64xf64>, tensor<64x512xf64>) -> tensor<8x512xf64>
  return %0 : tensor<8x512xf64>
}

// -----

// Other producers are not fused (they would be recomputed per column).
// CHECK-LABEL: func.func @exp_not_fused
// CHECK:         %[[E:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.matmul ins(%{{.*}}, %[[E]]
func.func @exp_not_fused(%x: tensor<8x64xf32>, %w: tensor<64x256xf32>) -> tensor<8x256xf32> {
  %we = tt.exp %w : tensor<64x256xf32>
  %0 = tt.matmul %x, %we : (tensor<8x64xf32>, tensor<64x256xf32>) -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}

// -----

// A cast with another user stays materialised.
// CHECK-LABEL: func.func @shared_cast
// CHECK:         %[[C:.*]] = linalg.generic
// CHECK:           arith.extf
// CHECK:         linalg.matmul ins(%{{.*}}, %[[C]]
// CHECK:         return
func.func @shared_cast(%x: tensor<8x64xf64>, %w: tensor<64x256xf32>) -> (tensor<8x256xf64>, tensor<64x256xf64>) {
  %wc = tt.cast %w to f64 : tensor<64x256xf32> -> tensor<64x256xf64>
  %0 = tt.matmul %x, %wc : (tensor<8x64xf64>, tensor<64x256xf64>) -> tensor<8x256xf64>
  return %0, %wc : tensor<8x256xf64>, tensor<64x256xf64>
}
