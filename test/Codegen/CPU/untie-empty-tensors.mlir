// RUN: tiny-opt %s --tt-untie-empty-tensors | FileCheck %s

// --tt-untie-empty-tensors gives every use of a shared tensor.empty its own
// op: the original keeps one use (the last one in the use list, i.e. the
// last user here) and a clone is created right before each other user.

// Two linalg ops share one tensor.empty (as CSE leaves them): two ops, each
// with one use.
// CHECK-LABEL: func.func @two_users
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[R0:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[R1:.*]] = linalg.generic {{.*}} ins(%[[R0]] : tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:     tensor.empty
// CHECK:         return %[[R0]], %[[R1]]
func.func @two_users(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// Three users: three ops; each clone sits right before its user.
// CHECK-LABEL: func.func @three_users
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C1:.*]] = linalg.copy ins(%[[A]] : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// CHECK-NEXT:    %[[C2:.*]] = linalg.copy ins(%[[B]] : tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT:    return %[[F]], %[[C1]], %[[C2]]
func.func @three_users(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.copy ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.copy ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Dynamic sizes: the clone takes the same size operands.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[A:.*]]: tensor<?xf32>, %[[N:.*]]: index)
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    %[[C0:.*]] = linalg.copy ins(%[[A]] : tensor<?xf32>) outs(%[[E1]] : tensor<?xf32>)
// CHECK-NEXT:    %[[C1:.*]] = linalg.copy ins(%[[C0]] : tensor<?xf32>) outs(%[[E0]] : tensor<?xf32>)
// CHECK-NEXT:    return %[[C0]], %[[C1]]
func.func @dynamic(%a: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.copy ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %1 = linalg.copy ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// Two uses by one op (ins and outs) are two uses as well.
// CHECK-LABEL: func.func @one_op_two_uses
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[E1]] : tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
func.func @one_op_two_uses() -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%e : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A single use (and no use at all) is left as it is.
// CHECK-LABEL: func.func @single_use
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = linalg.copy ins(%[[A]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK-NEXT:    return %[[C]]
func.func @single_use(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @unused
// CHECK-NEXT:    tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    return
func.func @unused() {
  %e = tensor.empty() : tensor<4xf32>
  return
}

// A zero fill that CSE shared between two products (one per layer): the
// second product writes into a fill of its own, cloned (with its empty
// tensor) right before it, so that tiling computes it in the tiles and no
// product copies the other's zeros.
// CHECK-LABEL: func.func @shared_fill
// CHECK-SAME:    (%[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<4x16xf32>)
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK-NEXT:    %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<8x16xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK-NEXT:    %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8x16xf32>)
// CHECK-NEXT:    %[[M0:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[F1]] : tensor<8x16xf32>)
// CHECK-NEXT:    %[[M1:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[F0]] : tensor<8x16xf32>)
// CHECK-NEXT:    return %[[M0]], %[[M1]]
func.func @shared_fill(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0, %1 : tensor<8x16xf32>, tensor<8x16xf32>
}

// A fill that is read (an operand of `ins`) is not cloned for its readers:
// only ops writing into it get their own.
// CHECK-LABEL: func.func @fill_read_and_written
// CHECK-SAME:    (%[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<4x16xf32>)
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT:     linalg.fill
// CHECK:         return
func.func @fill_read_and_written(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = linalg.add ins(%f, %0 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0, %1 : tensor<8x16xf32>, tensor<8x16xf32>
}
