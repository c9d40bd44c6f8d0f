// RUN: tiny-opt %s --split-input-file --tt-convert-mpi-to-llvm --tt-mpi-runtime-calls | FileCheck %s

// MPI's ABI is MPICH's unless the module says; the grid goes; each
// communicator split calls the runtime with a slot of its own (made once
// per call site); the all-reduce of one buffer passes MPI_IN_PLACE.

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// CHECK-NOT: shard.grid
// CHECK-DAG: llvm.mlir.global internal @tt_mpi_comm_slot_0(0 : i64)
// CHECK-DAG: llvm.mlir.global internal @tt_mpi_comm_slot(0 : i64)
// CHECK-DAG: llvm.func @tt_mpi_comm_split_once(!llvm.ptr, i32, i32, i32, !llvm.ptr) -> i32
// CHECK-NOT: llvm.func @MPI_Comm_split
// CHECK-LABEL: func.func @sum
// CHECK: %[[A:.*]] = llvm.mlir.addressof @tt_mpi_comm_slot :
// CHECK: llvm.call @tt_mpi_comm_split_once(%[[A]],
// CHECK: %[[B:.*]] = llvm.mlir.addressof @tt_mpi_comm_slot_0 :
// CHECK: llvm.call @tt_mpi_comm_split_once(%[[B]],
// CHECK: %[[IN_PLACE:.*]] = llvm.inttoptr
// CHECK: llvm.call @MPI_Allreduce(%[[IN_PLACE]],
module {
  shard.grid @grid(shape = 2)
  func.func @sum(%buf: memref<8xf32>, %color: i32, %key: i32, %other: i32) {
    %world = mpi.comm_world : !mpi.comm
    %comm = mpi.comm_split(%world, %color, %key) : !mpi.comm
    %comm2 = mpi.comm_split(%world, %other, %key) : !mpi.comm
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
