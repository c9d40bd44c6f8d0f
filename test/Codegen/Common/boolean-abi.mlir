// RUN: tiny-opt %s --split-input-file --tt-boolean-abi --mlir-print-local-scope | FileCheck %s

// A boolean argument arrives as bytes and is compared with zero on entry; a
// boolean result leaves zero-extended to bytes. Other types are untouched.
// CHECK-LABEL: func.func @mask
// CHECK-SAME:    (%[[M:.*]]: tensor<4x3xi8>, %[[X:.*]]: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xi8>)
// CHECK:         %[[BITS:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4x3xi8>)
// CHECK:           arith.cmpi ne
// CHECK:         %[[SEL:.*]] = arith.select %[[BITS]], %[[X]]
// CHECK:         %[[CMP:.*]] = arith.cmpf ogt
// CHECK:         %[[BYTES:.*]] = linalg.generic {{.*}} ins(%[[CMP]] : tensor<4x3xi1>)
// CHECK:           arith.extui %{{.*}} : i1 to i8
// CHECK:         return %[[SEL]], %[[BYTES]] : tensor<4x3xf32>, tensor<4x3xi8>
func.func @mask(%m: tensor<4x3xi1>, %x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xi1>) {
  %zero = arith.constant dense<0.0> : tensor<4x3xf32>
  %0 = arith.select %m, %x, %zero : tensor<4x3xi1>, tensor<4x3xf32>
  %1 = arith.cmpf ogt, %x, %zero : tensor<4x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<4x3xi1>
}

// -----

// Rank 0, and a boolean argument returned as it is.
// CHECK-LABEL: func.func @passthrough
// CHECK-SAME:    (%[[B:.*]]: tensor<i8>) -> tensor<i8>
// CHECK:         %[[BITS:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<i8>)
// CHECK:         %[[BYTES:.*]] = linalg.generic {{.*}} ins(%[[BITS]] : tensor<i1>)
// CHECK:         return %[[BYTES]]
func.func @passthrough(%b: tensor<i1>) -> tensor<i1> {
  return %b : tensor<i1>
}

// -----

// Private functions and declarations keep their types.
// CHECK-LABEL: func.func private @helper(%{{.*}}: tensor<2xi1>) -> tensor<2xi1>
// CHECK-LABEL: func.func private @external(tensor<2xi1>)
// CHECK-LABEL: func.func @unchanged(%{{.*}}: tensor<2xf32>) -> tensor<2xf32>
func.func private @helper(%b: tensor<2xi1>) -> tensor<2xi1> {
  return %b : tensor<2xi1>
}
func.func private @external(tensor<2xi1>)
func.func @unchanged(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
