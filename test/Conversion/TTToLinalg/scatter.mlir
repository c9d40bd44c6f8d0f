// RUN: tiny-opt %s --tt-to-linalg --split-input-file | FileCheck %s
// RUN: tiny-opt %s --tt-lower-to-llvm --split-input-file | FileCheck %s --check-prefix=LLVM

// tt.scatter: a loop over the indices carrying a copy of the table (never
// the argument itself: the caller's array stays as it was); a negative
// index counts from the end, an out-of-range one is skipped; `add`
// combines the table's row with the update's.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME:    (%[[T:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<4xi64>, %[[U:.*]]: tensor<4x3xf32>)
// CHECK:         %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[T]]) : tensor<5x3xf32>
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[COPY]]) -> (tensor<5x3xf32>)
// CHECK:           %[[ID:.*]] = tensor.extract %[[I]][%[[K]]] : tensor<4xi64>
// CHECK:           arith.cmpi slt
// CHECK:           %[[IN:.*]] = arith.andi
// CHECK:           scf.if %[[IN]] -> (tensor<5x3xf32>)
// CHECK:             %[[ROW:.*]] = tensor.extract_slice %[[U]][%[[K]], 0] [1, 3] [1, 1]
// CHECK:             %[[OLD:.*]] = tensor.extract_slice %[[ACC]]
// CHECK:             linalg.generic
// CHECK:               arith.addf
// CHECK:             tensor.insert_slice %{{.*}} into %[[ACC]]
// CHECK:           } else {
// CHECK:             scf.yield %[[ACC]]
// LLVM-LABEL: llvm.func @scatter_add
func.func @scatter_add(%t: tensor<5x3xf32>, %i: tensor<4xi64>, %u: tensor<4x3xf32>) -> tensor<5x3xf32> {
  %0 = tt.scatter add %t[%i], %u : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// `set` writes the update's row; dynamic sizes come from the operands.
// CHECK-LABEL: func.func @scatter_set_dynamic
// CHECK:         bufferization.alloc_tensor() copy(%{{.*}}) : tensor<?xi32>
// CHECK:         scf.for
// CHECK-NOT:       linalg.generic
// CHECK:           tensor.insert_slice
// LLVM-LABEL: llvm.func @scatter_set_dynamic
func.func @scatter_set_dynamic(%t: tensor<?xi32>, %i: tensor<?xi32>, %u: tensor<?xi32>) -> tensor<?xi32> {
  %0 = tt.scatter set %t[%i], %u : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}
