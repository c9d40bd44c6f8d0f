// RUN: tiny-opt %s --tt-to-linalg --split-input-file | FileCheck %s

// Dynamic dimensions: result sizes come from tensor.dim of the operands,
// and sizes that must agree at run time are checked with cf.assert where
// one of them is dynamic.

// CHECK-LABEL: func.func @add_rows
// CHECK-SAME:    (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<?x3xf32>, %[[C:.*]]: tensor<3xf32>)
// CHECK:         %[[D0:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[D1:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[D0]], %[[D1]] : index
// CHECK:         cf.assert %[[EQ]], "tt.add: operand #1 dimension 0 does not match the other operands (a dynamic size is not broadcast)"
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x3xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<?x3xf32>, tensor<?x3xf32>) outs(%[[E]] : tensor<?x3xf32>)
// The broadcast of a static row against a dynamic one needs no check.
// CHECK-NOT:     cf.assert
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[C]] : tensor<?x3xf32>, tensor<3xf32>)
func.func @add_rows(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>, %c: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = tt.add %a, %b : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = tt.add %0, %c : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// -----

// The rows of a matmul are the lhs's; the contraction is checked when it
// is dynamic.
// CHECK-LABEL: func.func @matmul_rows
// CHECK-SAME:    (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<4x2xf32>)
// CHECK:         %[[K:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK:         cf.assert %[[EQ]], "tt.matmul: the contraction sizes differ"
// CHECK:         %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[M]]) : tensor<?x2xf32>
// CHECK:         %[[F:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?x2xf32>)
// CHECK:         linalg.matmul ins(%[[A]], %[[B]] : tensor<?x?xf32>, tensor<4x2xf32>) outs(%[[F]] : tensor<?x2xf32>)
func.func @matmul_rows(%a: tensor<?x?xf32>, %b: tensor<4x2xf32>) -> tensor<?x2xf32> {
  %0 = tt.matmul %a, %b : (tensor<?x?xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// A stack of matrices with a dynamic batch is one matmul over its rows.
// CHECK-LABEL: func.func @stack
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x5x3xf32> into tensor<?x3xf32>
// CHECK:         %[[R:.*]] = linalg.matmul ins(%[[FLAT]], %{{.*}} : tensor<?x3xf32>, tensor<3x4xf32>)
// CHECK:         tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [%{{.*}}, 5, 4] : tensor<?x4xf32> into tensor<?x5x4xf32>
func.func @stack(%a: tensor<?x5x3xf32>, %b: tensor<3x4xf32>) -> tensor<?x5x4xf32> {
  %0 = tt.matmul %a, %b : (tensor<?x5x3xf32>, tensor<3x4xf32>) -> tensor<?x5x4xf32>
  return %0 : tensor<?x5x4xf32>
}

// -----

// mean over a dynamic axis divides by its run-time size; keepdims is one
// expand_shape.
// CHECK-LABEL: func.func @mean_rows
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[I:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[F:.*]] = arith.sitofp %[[I]] : i64 to f64
// CHECK:         %[[R:.*]] = arith.divf %{{.*}}, %[[F]] : f64
// CHECK:         linalg.reduce
// CHECK:         arith.mulf %{{.*}}, %[[R]] : f64
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
func.func @mean_rows(%x: tensor<?x4xf32>) -> tensor<1x4xf32> {
  %0 = tt.mean %x axes = [0] keepdims : tensor<?x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// A transpose takes its sizes from the permuted input dimensions.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?xf32>
// CHECK:         linalg.transpose ins(%[[X]] : tensor<?x4xf32>) outs(%[[E]] : tensor<4x?xf32>) permutation = [1, 0]
func.func @transpose(%x: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %0 = tt.transpose %x [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// A flatten of a dynamic batch is one collapse_shape.
// CHECK-LABEL: func.func @flatten
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<?x1x28x28xf32> into tensor<?x784xf32>
func.func @flatten(%x: tensor<?x1x28x28xf32>) -> tensor<?x784xf32> {
  %0 = tt.reshape %x [-1, 784] : tensor<?x1x28x28xf32> -> tensor<?x784xf32>
  return %0 : tensor<?x784xf32>
}

// -----

// A batched matmul with a dynamic batch: linalg.batch_matmul, the batch
// sizes checked, the init sized from the operands.
// CHECK-LABEL: func.func @batched
// CHECK-SAME:    (%[[A:.*]]: tensor<?x2x3xf32>, %[[B:.*]]: tensor<?x3x4xf32>)
// CHECK:         %[[DA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x2x3xf32>
// CHECK:         %[[DB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x3x4xf32>
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[DA]], %[[DB]] : index
// CHECK:         cf.assert %[[EQ]], "tt.matmul: the batch sizes differ"
// CHECK:         tensor.empty(%{{.*}}) : tensor<?x2x4xf32>
// CHECK:         linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<?x2x3xf32>, tensor<?x3x4xf32>)
func.func @batched(%a: tensor<?x2x3xf32>, %b: tensor<?x3x4xf32>) -> tensor<?x2x4xf32> {
  %0 = tt.matmul %a, %b : (tensor<?x2x3xf32>, tensor<?x3x4xf32>) -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

// A slice of all of a dynamic dimension (-1) takes its size from tensor.dim.
// CHECK-LABEL: func.func @slice_whole
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK:         tensor.extract_slice %[[X]][0, 1] [%[[D]], 2] [1, 1] : tensor<?x3xf32> to tensor<?x2xf32>
func.func @slice_whole(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %0 = tt.slice %x starts = [0, 1] sizes = [-1, 2] strides = [1, 1] : tensor<?x3xf32> -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// A concatenation of inputs with a dynamic number of rows: the rows of
// input #1 are checked against input #0's, the result takes input #0's,
// and each input is inserted with its run-time size.
// CHECK-LABEL: func.func @concat_dynamic_rows
// CHECK-SAME:    (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<?x2xf32>)
// CHECK:         %[[NA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[NB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x2xf32>
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[NA]], %[[NB]] : index
// CHECK:         cf.assert %[[EQ]], "tt.concat: input #1 dimension 0 does not match input #0"
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x5xf32>
// CHECK:         %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [%{{.*}}, 3] [1, 1] : tensor<?x3xf32> into tensor<?x5xf32>
// CHECK:         tensor.insert_slice %[[B]] into %[[I0]][0, 3] [%{{.*}}, 2] [1, 1] : tensor<?x2xf32> into tensor<?x5xf32>
func.func @concat_dynamic_rows(%a: tensor<?x3xf32>, %b: tensor<?x2xf32>) -> tensor<?x5xf32> {
  %0 = tt.concat %a, %b axis = 1 : (tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Along the axis, a dynamic size: the result's size is the sum of the
// inputs' run-time sizes, and the next input goes after the dynamic one.
// CHECK-LABEL: func.func @concat_dynamic_axis
// CHECK-SAME:    (%[[A:.*]]: tensor<2x?x4xf32>, %[[B:.*]]: tensor<2x1x4xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<2x?x4xf32>
// CHECK:         %[[TOTAL:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK:         %[[E:.*]] = tensor.empty(%[[TOTAL]]) : tensor<2x?x4xf32>
// CHECK:         %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0] [2, %{{.*}}, 4] [1, 1, 1] : tensor<2x?x4xf32> into tensor<2x?x4xf32>
// CHECK:         tensor.insert_slice %[[B]] into %[[I0]][0, %{{.*}}, 0] [2, 1, 4] [1, 1, 1] : tensor<2x1x4xf32> into tensor<2x?x4xf32>
func.func @concat_dynamic_axis(%a: tensor<2x?x4xf32>, %b: tensor<2x1x4xf32>) -> tensor<2x?x4xf32> {
  %0 = tt.concat %a, %b axis = 1 : (tensor<2x?x4xf32>, tensor<2x1x4xf32>) -> tensor<2x?x4xf32>
  return %0 : tensor<2x?x4xf32>
}

// -----

// A gather from a table with a dynamic number of rows clamps to its
// run-time size.
// CHECK-LABEL: func.func @gather_dynamic_table
// CHECK-SAME:    (%[[T:.*]]: tensor<?x3xf32>, %[[I:.*]]: tensor<1xi32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x3xf32>
// CHECK:         linalg.generic
// CHECK-DAG:       %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK-DAG:       arith.addi %{{.*}}, %[[N]] : index
// CHECK:           arith.minsi %{{.*}}, %[[LAST]] : index
// CHECK:           tensor.extract %[[T]]
func.func @gather_dynamic_table(%t: tensor<?x3xf32>, %i: tensor<1xi32>) -> tensor<1x3xf32> {
  %0 = tt.gather %t[%i] : (tensor<?x3xf32>, tensor<1xi32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// tt.iota: the index of a linalg.generic, as many as the dimension's
// run-time size.
// CHECK-LABEL: func.func @iota_of_a_dynamic_dimension
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<?xi32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[V:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:           linalg.yield %[[V]] : i32
func.func @iota_of_a_dynamic_dimension(%x: tensor<?x3xf32>) -> tensor<?xi32> {
  %0 = tt.iota %x dim = 0 : tensor<?x3xf32> -> tensor<?xi32>
  return %0 : tensor<?xi32>
}
