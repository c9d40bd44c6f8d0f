// RUN: tiny-opt %s --split-input-file --tt-shard-arguments --verify-diagnostics | FileCheck %s

// Every tensor argument and result of a public function is annotated:
// split where tt.split_axes says, replicated otherwise; 0-d tensors stay
// unannotated.

// CHECK-LABEL: module attributes {tt.grid = array<i64: 2, 4>}
// CHECK: shard.grid @tt_grid(shape = 2x4)
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x8xf32>, %[[C:.*]]: tensor<f32>)
// CHECK-NOT: tt.split_axes
// CHECK: %[[SA:.*]] = shard.sharding @tt_grid split_axes = {{\[\[}}], [1]] : !shard.sharding
// CHECK: %[[XA:.*]] = shard.shard %[[A]] to %[[SA]] : tensor<8x16xf32>
// CHECK: %[[SB:.*]] = shard.sharding @tt_grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK: %[[XB:.*]] = shard.shard %[[B]] to %[[SB]] : tensor<16x8xf32>
// CHECK-NOT: shard.shard %[[C]]
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[XA]], %[[XB]] :
// CHECK: %[[SR:.*]] = shard.sharding @tt_grid split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK: %[[R:.*]] = shard.shard %[[P]] to %[[SR]] annotate_for_users : tensor<8x8xf32>
// CHECK: return %[[R]]
module attributes {tt.grid = array<i64: 2, 4>} {
  func.func @main(%a: tensor<8x16xf32> {tt.split_axes = [[], [1]]},
                  %b: tensor<16x8xf32>, %c: tensor<f32>)
      -> (tensor<8x8xf32> {tt.split_axes = [[0]]}) {
    %cst = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x8xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %p = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>)
                       outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    return %p : tensor<8x8xf32>
  }
}

// -----

// Without tt.grid the module is left as it is.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: shard.
func.func @untouched(%a: tensor<4xf32> {tt.split_axes = [[0]]}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

module attributes {tt.grid = array<i64: 2>} {
  // expected-error @+1 {{argument 0 of @odd, dimension 0 (size 5) cannot be split evenly into 2 parts}}
  func.func @odd(%a: tensor<5xf32> {tt.split_axes = [[0]]}) -> tensor<5xf32> {
    return %a : tensor<5xf32>
  }
}

// -----

module attributes {tt.grid = array<i64: 2>} {
  // expected-error @+1 {{argument 0 of @axis, dimension 0: grid axis 1 : i64 is not an axis of the grid (rank 1)}}
  func.func @axis(%a: tensor<4xf32> {tt.split_axes = [[1]]}) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}

// -----

module attributes {tt.grid = array<i64: 2, 2>} {
  // expected-error @+1 {{argument 0 of @twice: grid axis 0 splits more than one dimension}}
  func.func @twice(%a: tensor<4x4xf32> {tt.split_axes = [[0], [0]]}) -> tensor<4x4xf32> {
    return %a : tensor<4x4xf32>
  }
}

// -----

module attributes {tt.grid = array<i64: 2>} {
  // expected-error @+1 {{result 0 of @rank: tt.split_axes has 2 entries for a tensor of rank 1}}
  func.func @rank(%a: tensor<4xf32>) -> (tensor<4xf32> {tt.split_axes = [[], [0]]}) {
    return %a : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{tt.grid must list positive axis sizes}}
module attributes {tt.grid = array<i64: 0>} {
}
