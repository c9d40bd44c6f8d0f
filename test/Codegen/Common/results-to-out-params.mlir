// RUN: tiny-opt %s --tt-results-to-out-params | FileCheck %s

// Results become caller-allocated arguments, the entry function's too,
// except a private function's result of dynamic shape (its caller cannot
// allocate it): that one is still returned.
// CHECK-LABEL: func.func private @static_result
// CHECK-SAME:    (%{{.*}}: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         return{{$}}
func.func private @static_result(%x: memref<4xf32>) -> memref<4xf32> {
  %0 = memref.alloc() : memref<4xf32>
  memref.copy %x, %0 : memref<4xf32> to memref<4xf32>
  return %0 : memref<4xf32>
}

// CHECK-LABEL: func.func private @dynamic_result
// CHECK-SAME:    (%{{.*}}: memref<?xf32>) -> memref<?xf32> {
// CHECK:         %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         return %[[A]] : memref<?xf32>
func.func private @dynamic_result(%x: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %0 = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %0 : memref<?xf32> to memref<?xf32>
  return %0 : memref<?xf32>
}

// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<?xf32>, %[[R0:.*]]: memref<4xf32>, %[[R1:.*]]: memref<?xf32>) {
// CHECK:         %[[S:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         call @static_result(%[[X]], %[[S]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK:         %[[D:.*]] = call @dynamic_result(%[[Y]]) : (memref<?xf32>) -> memref<?xf32>
// CHECK:         memref.copy %[[S]], %[[R0]]
// CHECK:         memref.copy %[[D]], %[[R1]]
func.func @main(%x: memref<4xf32>, %y: memref<?xf32>) -> (memref<4xf32>, memref<?xf32>) {
  %0 = call @static_result(%x) : (memref<4xf32>) -> memref<4xf32>
  %1 = call @dynamic_result(%y) : (memref<?xf32>) -> memref<?xf32>
  return %0, %1 : memref<4xf32>, memref<?xf32>
}

// A returned reshape of a buffer allocated whole (a convolution's [N, 1, F,
// O] result returned as [N, F, O]): the buffer becomes the caller's, of the
// returned shape, and what wrote the old one writes a view of it; no copy.
// CHECK-LABEL: func.func @returned_reshape
// CHECK-SAME: (%[[X:.*]]: memref<2x3xf32>, %[[OUT:.*]]: memref<2x3xf32>, %[[OUT2:.*]]: memref<6xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0], [1, 2]] output_shape [2, 1, 3] : memref<2x3xf32> into memref<2x1x3xf32>
// CHECK: memref.expand_shape %[[OUT2]] {{\[}}[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
// CHECK: linalg.generic {{.*}} outs(%[[VIEW]] : memref<2x1x3xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @returned_reshape(%x: memref<2x3xf32>) -> (memref<2x3xf32>, memref<6xf32>) {
  %a = memref.alloc() : memref<2x1x3xf32>
  %b = memref.alloc() : memref<2x3xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x3xf32>) outs(%a : memref<2x1x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %r = memref.collapse_shape %a [[0], [1, 2]] : memref<2x1x3xf32> into memref<2x3xf32>
  %s = memref.collapse_shape %b [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  return %r, %s : memref<2x3xf32>, memref<6xf32>
}
