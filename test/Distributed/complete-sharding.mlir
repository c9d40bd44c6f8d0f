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
