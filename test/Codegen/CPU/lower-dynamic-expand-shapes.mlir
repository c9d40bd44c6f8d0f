// RUN: tiny-opt %s --tt-lower-dynamic-expand-shapes | FileCheck %s

// Two dynamic sizes in one group: a reinterpret cast with the sizes and
// their suffix products as strides.
// CHECK-LABEL: func.func @two_dynamic
// CHECK-SAME:    (%[[A:.*]]: memref<?x12xf32>, %[[D0:.*]]: index, %[[D1:.*]]: index)
// CHECK:         %[[S:.*]] = arith.muli %[[D1]], %{{.*}} : index
// CHECK:         memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[D0]], %[[D1]], 12], strides: [%[[S]], 12, 1] : memref<?x12xf32> to memref<?x?x12xf32>
// CHECK-NOT:     memref.expand_shape
func.func @two_dynamic(%a: memref<?x12xf32>, %d0: index, %d1: index) -> memref<?x?x12xf32> {
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%d0, %d1, 12] : memref<?x12xf32> into memref<?x?x12xf32>
  return %e : memref<?x?x12xf32>
}

// One dynamic size per group is left to --expand-strided-metadata.
// CHECK-LABEL: func.func @one_dynamic
// CHECK:         memref.expand_shape
func.func @one_dynamic(%a: memref<?x12xf32>, %d0: index) -> memref<?x3x12xf32> {
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%d0, 3, 12] : memref<?x12xf32> into memref<?x3x12xf32>
  return %e : memref<?x3x12xf32>
}

// A strided source is left alone.
// CHECK-LABEL: func.func @strided
// CHECK:         memref.expand_shape
func.func @strided(%a: memref<?x12xf32, strided<[24, 1]>>, %d0: index, %d1: index) -> memref<?x?x12xf32, strided<[?, 24, 1]>> {
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%d0, %d1, 12] : memref<?x12xf32, strided<[24, 1]>> into memref<?x?x12xf32, strided<[?, 24, 1]>>
  return %e : memref<?x?x12xf32, strided<[?, 24, 1]>>
}
