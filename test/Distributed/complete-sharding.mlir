// RUN: tiny-opt %s --pass-pipeline='builtin.module(func.func(tt-complete-sharding))' | FileCheck %s

// Partitioning needs every tensor result to have one use, a shard.shard:
// an unannotated value is replicated, a value annotated only for its
// (several) users gets the sharding they asked for.

// CHECK-LABEL: func.func @complete(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[R:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK: %[[ER:.*]] = shard.shard %[[E]] to %[[R]] : tensor<4xf32>
// CHECK: %[[F:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[S:.*]] = shard.sharding @grid split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK: %[[FS:.*]] = shard.shard %[[F]] to %[[S]] : tensor<4xf32>
// CHECK: shard.shard %[[FS]] to %{{.*}} annotate_for_users
// CHECK: shard.shard %[[FS]] to %{{.*}} annotate_for_users
shard.grid @grid(shape = 2)
func.func @complete() -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %f = tensor.empty() : tensor<4xf32>
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a = shard.shard %f to %s annotate_for_users : tensor<4xf32>
  %b = shard.shard %f to %s annotate_for_users : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// A table read inside a generic's body (not an operand) is read whole:
// through a replicated annotation, which partitioning gathers from a split.
// CHECK-LABEL: func.func @captured(
// CHECK: %[[T:.*]] = shard.shard %arg0 to %{{.*}} : tensor<4x8xf32>
// CHECK: %[[WHOLE:.*]] = shard.shard %[[T]] to %{{.*}} annotate_for_users : tensor<4x8xf32>
// CHECK: linalg.generic
// CHECK: tensor.extract %[[WHOLE]]
func.func @captured(%table: tensor<4x8xf32>, %i: index) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %t = shard.shard %table to %s : tensor<4x8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 0 : index
    %v = tensor.extract %t[%i, %j] : tensor<4x8xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
