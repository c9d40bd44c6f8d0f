// RUN: tiny-opt %s --pass-pipeline='builtin.module(tt-lower-to-llvm{optimize=false distribute=true out-params=true})' | FileCheck %s

// The whole CPU pipeline with distribute=true: buffer deallocation accepts
// mpi.allreduce (its memory effects), and everything reaches LLVM.

// CHECK-LABEL: llvm.func @main(
// CHECK: llvm.call @MPI_Comm_rank(
// CHECK: llvm.call @tt_mpi_comm_split_once(
// CHECK: llvm.call @MPI_Allreduce(
// CHECK-NOT: mpi.
// CHECK-NOT: shard.
module attributes {tt.grid = array<i64: 2>} {
  func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x6xf32> {tt.split_axes = [[0]]}) -> tensor<4x6xf32> {
    %cst = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x6xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
    %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
    return %y : tensor<4x6xf32>
  }
}
