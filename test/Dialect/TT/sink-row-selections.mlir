// RUN: tiny-opt %s --tt-sink-row-selections --cse --split-input-file | FileCheck %s
// RUN: tiny-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(tt-optimize)" | FileCheck %s --check-prefix=ON
// RUN: tiny-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(tt-optimize{sink-row-selections=false})" \
// RUN:   | FileCheck %s --check-prefix=OFF

// The logits of one position (`logits[i]` with an array i): a layer norm
// and a product with a cast right operand. The gather climbs to the
// argument: one row of the layer norm and of the product is computed; the
// row-broadcast gain and the right operand are used as they are.
// CHECK-LABEL: func.func @last_logits
// CHECK-SAME:    (%[[X:.*]]: tensor<16x8xf64>, %[[G:.*]]: tensor<8xf64>, %[[W:.*]]: tensor<32x8xf32>, %[[I:.*]]: tensor<1xi32>)
// CHECK-DAG:     %[[T:.*]] = tt.transpose %[[W]]
// CHECK-DAG:     %[[C:.*]] = tt.cast %[[T]] to f64 : tensor<8x32xf32> -> tensor<8x32xf64>
// CHECK-DAG:     %[[ROW:.*]] = tt.gather %[[X]][%[[I]]] : (tensor<16x8xf64>, tensor<1xi32>) -> tensor<1x8xf64>
// CHECK-DAG:     %[[MEAN:.*]] = tt.mean %[[ROW]] axes = [1] keepdims : tensor<1x8xf64> -> tensor<1x1xf64>
// CHECK-DAG:     %[[VAR:.*]] = tt.var %[[ROW]] axes = [1] keepdims : tensor<1x8xf64> -> tensor<1x1xf64>
// CHECK-DAG:     %[[SUB:.*]] = tt.sub %[[ROW]], %[[MEAN]] : (tensor<1x8xf64>, tensor<1x1xf64>) -> tensor<1x8xf64>
// CHECK-DAG:     %[[SQRT:.*]] = tt.sqrt %[[VAR]] : tensor<1x1xf64>
// CHECK:         %[[DIV:.*]] = tt.div %[[SUB]], %[[SQRT]]
// CHECK:         %[[MUL:.*]] = tt.mul %[[G]], %[[DIV]] : (tensor<8xf64>, tensor<1x8xf64>) -> tensor<1x8xf64>
// CHECK:         %[[P:.*]] = tt.matmul %[[MUL]], %[[C]] : (tensor<1x8xf64>, tensor<8x32xf64>) -> tensor<1x32xf64>
// CHECK:         return %[[P]]
// ON-LABEL:  func.func @last_logits
// ON:          linalg.generic {{.*}} outs(%{{.*}} : tensor<1x32xf64>)
// ON-NOT:      tensor<16x32xf64>
// OFF-LABEL: func.func @last_logits
// OFF:         tensor<16x32xf64>
func.func @last_logits(%x: tensor<16x8xf64>, %g: tensor<8xf64>, %w: tensor<32x8xf32>, %i: tensor<1xi32>) -> tensor<1x32xf64> {
  %m = tt.mean %x axes = [1] keepdims : tensor<16x8xf64> -> tensor<16x1xf64>
  %v = tt.var %x axes = [1] keepdims : tensor<16x8xf64> -> tensor<16x1xf64>
  %d = tt.sub %x, %m : (tensor<16x8xf64>, tensor<16x1xf64>) -> tensor<16x8xf64>
  %s = tt.sqrt %v : tensor<16x1xf64>
  %n = tt.div %d, %s : (tensor<16x8xf64>, tensor<16x1xf64>) -> tensor<16x8xf64>
  %y = tt.mul %g, %n : (tensor<8xf64>, tensor<16x8xf64>) -> tensor<16x8xf64>
  %t = tt.transpose %w [1, 0] : tensor<32x8xf32> -> tensor<8x32xf32>
  %c = tt.cast %t to f64 : tensor<8x32xf32> -> tensor<8x32xf64>
  %p = tt.matmul %y, %c : (tensor<16x8xf64>, tensor<8x32xf64>) -> tensor<16x32xf64>
  %r = tt.gather %p[%i] : (tensor<16x32xf64>, tensor<1xi32>) -> tensor<1x32xf64>
  return %r : tensor<1x32xf64>
}

// -----

// A slice of rows (`x[-2:]`) climbs through a concatenation of columns, a
// slice of columns and an elementwise op whose other operand has one row
// (it broadcasts: used as it is).
// CHECK-LABEL: func.func @slice_of_rows
// CHECK-SAME:    (%[[A:.*]]: tensor<5x3xf32>, %[[B:.*]]: tensor<5x4xf32>, %[[ONE:.*]]: tensor<1x2xf32>)
// CHECK-DAG:     %[[SA:.*]] = tt.slice %[[A]] starts = [3, 0] sizes = [2, 3] strides = [1, 1] : tensor<5x3xf32> -> tensor<2x3xf32>
// CHECK-DAG:     %[[SB:.*]] = tt.slice %[[B]] starts = [3, 0] sizes = [2, 4] strides = [1, 1] : tensor<5x4xf32> -> tensor<2x4xf32>
// CHECK:         %[[CAT:.*]] = tt.concat %[[SA]], %[[SB]] axis = 1 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
// CHECK:         %[[COLS:.*]] = tt.slice %[[CAT]] starts = [0, 5] sizes = [2, 2] strides = [1, 1] : tensor<2x7xf32> -> tensor<2x2xf32>
// CHECK:         %[[ADD:.*]] = tt.add %[[COLS]], %[[ONE]] : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
// CHECK:         return %[[ADD]]
func.func @slice_of_rows(%a: tensor<5x3xf32>, %b: tensor<5x4xf32>, %one: tensor<1x2xf32>) -> tensor<2x2xf32> {
  %0 = tt.concat %a, %b axis = 1 : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<5x7xf32>
  %1 = tt.slice %0 starts = [0, 5] sizes = [5, 2] strides = [1, 1] : tensor<5x7xf32> -> tensor<5x2xf32>
  %2 = tt.add %1, %one : (tensor<5x2xf32>, tensor<1x2xf32>) -> tensor<5x2xf32>
  %3 = tt.slice %2 starts = [3, 0] sizes = [2, 2] strides = [1, 1] : tensor<5x2xf32> -> tensor<2x2xf32>
  return %3 : tensor<2x2xf32>
}

// -----

// Where all rows are needed, nothing moves: a value also used whole, a
// reduction over the rows, a concatenation of rows, a stack of matrices,
// a slice that also takes part of the columns, and a gather of more rows
// than there are.
// CHECK-LABEL: func.func @all_rows_needed
// CHECK:         %[[E:.*]] = tt.exp %arg0 : tensor<4x3xf32>
// CHECK:         tt.slice %[[E]] starts = [1, 0]
// CHECK:         %[[S:.*]] = tt.sum %arg1 axes = [0] : tensor<2x3x3xf32> -> tensor<3x3xf32>
// CHECK:         tt.slice %[[S]]
// CHECK:         %[[CAT:.*]] = tt.concat %arg0, %arg0 axis = 0
// CHECK:         tt.slice %[[CAT]]
// CHECK:         %[[BMM:.*]] = tt.matmul %arg1, %arg1 : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
// CHECK:         tt.slice %[[BMM]]
// CHECK:         %[[NEG:.*]] = tt.neg %arg0
// CHECK:         tt.slice %[[NEG]] starts = [1, 1] sizes = [2, 2]
// CHECK:         %[[ABS:.*]] = tt.abs %arg0
// CHECK:         tt.gather %[[ABS]][%arg2]
func.func @all_rows_needed(%x: tensor<4x3xf32>, %m: tensor<2x3x3xf32>, %i: tensor<6xi32>)
    -> (tensor<4x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3x3xf32>, tensor<2x2xf32>, tensor<6x3xf32>) {
  %e = tt.exp %x : tensor<4x3xf32>
  %0 = tt.slice %e starts = [1, 0] sizes = [1, 3] strides = [1, 1] : tensor<4x3xf32> -> tensor<1x3xf32>
  %s = tt.sum %m axes = [0] : tensor<2x3x3xf32> -> tensor<3x3xf32>
  %1 = tt.slice %s starts = [1, 0] sizes = [1, 3] strides = [1, 1] : tensor<3x3xf32> -> tensor<1x3xf32>
  %c = tt.concat %x, %x axis = 0 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %2 = tt.slice %c starts = [7, 0] sizes = [1, 3] strides = [1, 1] : tensor<8x3xf32> -> tensor<1x3xf32>
  %b = tt.matmul %m, %m : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %3 = tt.slice %b starts = [1, 0, 0] sizes = [1, 3, 3] strides = [1, 1, 1] : tensor<2x3x3xf32> -> tensor<1x3x3xf32>
  %n = tt.neg %x : tensor<4x3xf32>
  %4 = tt.slice %n starts = [1, 1] sizes = [2, 2] strides = [1, 1] : tensor<4x3xf32> -> tensor<2x2xf32>
  %a = tt.abs %x : tensor<4x3xf32>
  %5 = tt.gather %a[%i] : (tensor<4x3xf32>, tensor<6xi32>) -> tensor<6x3xf32>
  return %e, %0, %1, %2, %3, %4, %5 : tensor<4x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3x3xf32>, tensor<2x2xf32>, tensor<6x3xf32>
}

// -----

// Two uses that select the same rows share the selected op.
// CHECK-LABEL: func.func @same_rows_twice
// CHECK:         %[[ROW:.*]] = tt.gather %arg0[%arg1] : (tensor<6x2xf32>, tensor<1xi32>) -> tensor<1x2xf32>
// CHECK:         %[[TANH:.*]] = tt.tanh %[[ROW]] : tensor<1x2xf32>
// CHECK-NOT:     tt.tanh
// CHECK:         return %[[TANH]], %[[TANH]]
func.func @same_rows_twice(%x: tensor<6x2xf32>, %i: tensor<1xi32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %t = tt.tanh %x : tensor<6x2xf32>
  %0 = tt.gather %t[%i] : (tensor<6x2xf32>, tensor<1xi32>) -> tensor<1x2xf32>
  %1 = tt.gather %t[%i] : (tensor<6x2xf32>, tensor<1xi32>) -> tensor<1x2xf32>
  return %0, %1 : tensor<1x2xf32>, tensor<1x2xf32>
}

// -----

// A dynamic number of rows (a sequence of any length): one row moves up,
// two stay where they are.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[I:.*]]: tensor<1xi32>, %[[J:.*]]: tensor<2xi32>)
// CHECK:         %[[ROW:.*]] = tt.gather %[[X]][%[[I]]] : (tensor<?x8xf32>, tensor<1xi32>) -> tensor<1x8xf32>
// CHECK:         %[[T1:.*]] = tt.tanh %[[ROW]] : tensor<1x8xf32>
// CHECK:         tt.matmul %[[T1]], %[[W]] : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK:         %[[E:.*]] = tt.exp %[[X]] : tensor<?x8xf32>
// CHECK:         tt.gather %[[E]][%[[J]]] : (tensor<?x8xf32>, tensor<2xi32>) -> tensor<2x8xf32>
func.func @dynamic_rows(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %i: tensor<1xi32>, %j: tensor<2xi32>) -> (tensor<1x4xf32>, tensor<2x8xf32>) {
  %t = tt.tanh %x : tensor<?x8xf32>
  %p = tt.matmul %t, %w : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  %0 = tt.gather %p[%i] : (tensor<?x4xf32>, tensor<1xi32>) -> tensor<1x4xf32>
  %e = tt.exp %x : tensor<?x8xf32>
  %1 = tt.gather %e[%j] : (tensor<?x8xf32>, tensor<2xi32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<1x4xf32>, tensor<2x8xf32>
}
