// RUN: tiny-opt %s --split-input-file --tt-convert-mpi-to-llvm --tt-mpi-runtime-calls | FileCheck %s

// MPI's ABI is MPICH's unless the module says; the grid goes; the lowered
// communicator split and all-reduce call the runtime (communicators made
// once, aliased buffers passed as MPI_IN_PLACE).

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// CHECK-NOT: shard.grid
// CHECK-DAG: llvm.func @tt_mpi_allreduce(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> i32
// CHECK-DAG: llvm.func @tt_mpi_comm_split(i32, i32, i32, !llvm.ptr) -> i32
// CHECK-NOT: llvm.func @MPI_Comm_split
// CHECK-NOT: llvm.func @MPI_Allreduce
// CHECK-LABEL: func.func @sum
// CHECK: llvm.call @tt_mpi_comm_split(
// CHECK: llvm.call @tt_mpi_allreduce(
module {
  shard.grid @grid(shape = 2)
  func.func @sum(%buf: memref<8xf32>, %color: i32, %key: i32) {
    %world = mpi.comm_world : !mpi.comm
    %comm = mpi.comm_split(%world, %color, %key) : !mpi.comm
    mpi.allreduce(%buf, %buf, MPI_SUM, %comm) : memref<8xf32>, memref<8xf32>
    return
  }
}

// -----

// Without mpi ops or grids, nothing changes.
// CHECK-LABEL: module {
// CHECK-NOT: dlti
// CHECK: func.func @plain
func.func @plain(%x: f32) -> f32 {
  return %x : f32
}
