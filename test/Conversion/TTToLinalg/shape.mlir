// RUN: tiny-opt %s --tt-to-linalg --split-input-file --mlir-print-local-scope | FileCheck %s

// Shape ops: transpose, reshape, slice, concat, gather and constants.

// CHECK-LABEL: func.func @transpose_2d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<3x2xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<3x2xf32>) permutation = [1, 0]
// CHECK:         return %[[T]] : tensor<3x2xf32>
func.func @transpose_2d(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = tt.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_3d_i1
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xi1>
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<2x3x4xi1>) outs(%[[INIT]] : tensor<4x2x3xi1>) permutation = [2, 0, 1]
func.func @transpose_3d_i1(%x: tensor<2x3x4xi1>) -> tensor<4x2x3xi1> {
  %0 = tt.transpose %x [2, 0, 1] : tensor<2x3x4xi1> -> tensor<4x2x3xi1>
  return %0 : tensor<4x2x3xi1>
}

// -----

// General reshape: collapse to 1-D, then expand.
// CHECK-LABEL: func.func @reshape_2d_2d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[C]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK:         return %[[E]] : tensor<3x2xf32>
func.func @reshape_2d_2d(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = tt.reshape %x [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// To 1-D: only the collapse.
// CHECK-LABEL: func.func @reshape_flatten
// CHECK:         %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<2x3x4xi32> into tensor<24xi32>
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return %[[C]] : tensor<24xi32>
func.func @reshape_flatten(%x: tensor<2x3x4xi32>) -> tensor<24xi32> {
  %0 = tt.reshape %x [24] : tensor<2x3x4xi32> -> tensor<24xi32>
  return %0 : tensor<24xi32>
}

// -----

// From 1-D: only the expand.
// CHECK-LABEL: func.func @reshape_unflatten
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [2, 1, 3] : tensor<6xf64> into tensor<2x1x3xf64>
// CHECK:         return %[[E]] : tensor<2x1x3xf64>
func.func @reshape_unflatten(%x: tensor<6xf64>) -> tensor<2x1x3xf64> {
  %0 = tt.reshape %x [2, 1, 3] : tensor<6xf64> -> tensor<2x1x3xf64>
  return %0 : tensor<2x1x3xf64>
}

// -----

// To rank 0: collapse with an empty reassociation.
// CHECK-LABEL: func.func @reshape_to_rank0
// CHECK:         %[[C:.*]] = tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK:         return %[[C]] : tensor<f32>
func.func @reshape_to_rank0(%x: tensor<1x1xf32>) -> tensor<f32> {
  %0 = tt.reshape %x [] : tensor<1x1xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// From rank 0: expand with an empty reassociation.
// CHECK-LABEL: func.func @reshape_from_rank0
// CHECK:         %[[E:.*]] = tensor.expand_shape %{{.*}} [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
// CHECK:         return %[[E]] : tensor<1x1x1xf32>
func.func @reshape_from_rank0(%x: tensor<f32>) -> tensor<1x1x1xf32> {
  %0 = tt.reshape %x [1, 1, 1] : tensor<f32> -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @slice_strided
// CHECK-SAME:    (%[[X:.*]]: tensor<4x6xf32>)
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[X]][1, 0] [2, 2] [1, 3] : tensor<4x6xf32> to tensor<2x2xf32>
// CHECK:         return %[[S]] : tensor<2x2xf32>
func.func @slice_strided(%x: tensor<4x6xf32>) -> tensor<2x2xf32> {
  %0 = tt.slice %x starts = [1, 0] sizes = [2, 2] strides = [1, 3] : tensor<4x6xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @slice_1d_i32
// CHECK:         tensor.extract_slice %{{.*}}[1] [3] [2] : tensor<8xi32> to tensor<3xi32>
func.func @slice_1d_i32(%x: tensor<8xi32>) -> tensor<3xi32> {
  %0 = tt.slice %x starts = [1] sizes = [3] strides = [2] : tensor<8xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Concat: a chain of insert_slices into an empty tensor at growing offsets.
// CHECK-LABEL: func.func @concat_axis1
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x1xf32>, %[[C:.*]]: tensor<2x2xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x6xf32>
// CHECK:         %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x6xf32>
// CHECK:         %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][0, 3] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x6xf32>
// CHECK:         %[[I2:.*]] = tensor.insert_slice %[[C]] into %[[I1]][0, 4] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x6xf32>
// CHECK:         return %[[I2]] : tensor<2x6xf32>
func.func @concat_axis1(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %0 = tt.concat %a, %b, %c axis = 1 : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// CHECK-LABEL: func.func @concat_axis0_i32
// CHECK-SAME:    (%[[A:.*]]: tensor<1x2xi32>, %[[B:.*]]: tensor<3x2xi32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x2xi32>
// CHECK:         %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [1, 2] [1, 1]
// CHECK:         %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][1, 0] [3, 2] [1, 1]
// CHECK:         return %[[I1]] : tensor<4x2xi32>
func.func @concat_axis0_i32(%a: tensor<1x2xi32>, %b: tensor<3x2xi32>) -> tensor<4x2xi32> {
  %0 = tt.concat %a, %b axis = 0 : (tensor<1x2xi32>, tensor<3x2xi32>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// Gather: a generic over the result reads the index through the indices'
// map, wraps negative indices (+n), clamps to [0, n-1] and extracts the row
// element with linalg.index for the trailing table dims.
// CHECK-LABEL: func.func @gather_2d_indices
// CHECK-SAME:    (%[[T:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2x2xi32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x2x3xf32>
// CHECK:         %[[G:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[I]] : tensor<2x2xi32>) outs(%[[INIT]] : tensor<2x2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ID:.*]] = arith.index_cast %[[IN]] : i32 to index
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG:       %[[C4:.*]] = arith.constant 4 : index
// CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[ID]], %[[C0]] : index
// CHECK:           %[[WR:.*]] = arith.addi %[[ID]], %[[C5]] : index
// CHECK:           %[[SEL:.*]] = arith.select %[[NEG]], %[[WR]], %[[ID]] : index
// CHECK:           %[[LO:.*]] = arith.maxsi %[[SEL]], %[[C0]] : index
// CHECK:           %[[HI:.*]] = arith.minsi %[[LO]], %[[C4]] : index
// CHECK:           %[[J:.*]] = linalg.index 2 : index
// CHECK:           %[[V:.*]] = tensor.extract %[[T]][%[[HI]], %[[J]]] : tensor<5x3xf32>
// CHECK:           linalg.yield %[[V]] : f32
// CHECK:         return %[[G]] : tensor<2x2x3xf32>
func.func @gather_2d_indices(%t: tensor<5x3xf32>, %i: tensor<2x2xi32>) -> tensor<2x2x3xf32> {
  %0 = tt.gather %t[%i] : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

// A 1-D table: no trailing dims, so no linalg.index.
// CHECK-LABEL: func.func @gather_1d_table
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
// CHECK-NOT:       linalg.index
// CHECK:           tensor.extract %{{.*}}[%{{.*}}] : tensor<7xi32>
// CHECK:           linalg.yield %{{.*}} : i32
func.func @gather_1d_table(%t: tensor<7xi32>, %i: tensor<3xi32>) -> tensor<3xi32> {
  %0 = tt.gather %t[%i] : (tensor<7xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Rank-0 indices select one row: the index map is empty.
// CHECK-LABEL: func.func @gather_scalar_index
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:      ins(%{{.*}} : tensor<i32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:           %[[J:.*]] = linalg.index 0 : index
// CHECK:           tensor.extract %{{.*}}[%{{.*}}, %[[J]]] : tensor<6x4xf32>
func.func @gather_scalar_index(%t: tensor<6x4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  %0 = tt.gather %t[%i] : (tensor<6x4xf32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @constants
// CHECK-DAG:     %[[F:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[I:.*]] = arith.constant dense<7> : tensor<3xi32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG:     %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<f64>
// CHECK-NOT:     tt.constant
// CHECK:         return %[[F]], %[[I]], %[[B]], %[[S]]
func.func @constants() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<2xi1>, tensor<f64>) {
  %0 = tt.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = tt.constant dense<7> : tensor<3xi32>
  %2 = tt.constant dense<[true, false]> : tensor<2xi1>
  %3 = tt.constant dense<0.5> : tensor<f64>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<3xi32>, tensor<2xi1>, tensor<f64>
}

// -----

// Empty inputs of a concat add nothing (an insert_slice at one past the end
// would be invalid).
// CHECK-LABEL: func.func @concat_empty_inputs
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK-NEXT: return %[[R]]
func.func @concat_empty_inputs(%b: tensor<2x3xf32>, %a: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %0 = tt.concat %b, %a, %a axis = 0 : (tensor<2x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

