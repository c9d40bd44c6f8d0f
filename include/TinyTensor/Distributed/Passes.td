//===- Passes.td - TinyTensor distributed passes -----------*- tablegen -*-===//
//
// Programs over a grid of processes: sharding annotations from function
// attributes, MLIR's sharding propagation and partitioning (the `shard`
// dialect), collectives as MPI calls. The passes here fill the gaps of
// MLIR 22's path from `shard` to MPI; docs/distributed.md lists them.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_DISTRIBUTED_PASSES_TD
#define TINYTENSOR_DISTRIBUTED_PASSES_TD

include "mlir/Pass/PassBase.td"

def TTShardArguments : Pass<"tt-shard-arguments", "ModuleOp"> {
  let summary = "Sharding annotations from the `tt.grid` and `tt.split_axes` "
                "attributes of a module and its public functions";
  let description = [{
    A module with a `tt.grid = array<i64: ...>` attribute (the shape of its
    grid of processes) gets a `shard.grid @tt_grid` of that shape, and each
    public function in it `shard.shard` annotations on every tensor
    argument and result: the argument or result attribute
    `tt.split_axes = [[...], ...]` (one list of grid axes per tensor
    dimension, as `shard.sharding`'s `split_axes`) says how it is split,
    and a tensor without one is replicated on every process. Each argument
    and result is annotated, so that sharding propagation never changes
    what a caller passes or receives.

    Errors (naming the function, the argument or result and the
    dimension): a grid axis out of range or used twice, more split lists
    than dimensions, a static dimension that the product of its axes'
    sizes does not divide. A module without `tt.grid` is left as it is.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def TTCompleteSharding : Pass<"tt-complete-sharding", "func::FuncOp"> {
  let summary = "Annotate what sharding propagation leaves out, as "
                "partitioning needs";
  let description = [{
    Runs between `--sharding-propagation` and `--shard-partition`:

    * A tensor that an op reads inside its regions without taking it as an
      operand (a gather's table, read by `tensor.extract` in a
      `linalg.generic`'s body) is invisible to propagation, so the op's
      sharding says nothing about it: every process reads it whole, through
      a replicated annotation (partitioning gathers it if it is split).
      Without this, a process would read its part as if it were the whole.
    * MLIR 22's partitioning expects every tensor result to have exactly
      one use, a `shard.shard`, and every tensor operand to be one (it
      dereferences a missing grid or casts a non-`shard.shard` definition
      otherwise). Propagation leaves values that no split reaches without
      annotations (a `tensor.empty` of a replicated op, an unused result),
      and values with several users annotated only for their users. Each
      such result gets a `shard.shard` of its own: the sharding its users
      asked for, or replicated on the module's `shard.grid` (one per
      module).
    * MLIR 22 partitions splat tensor constants only (and fails without a
      diagnostic on others): other tensor `arith.constant`s become
      `tt.constant`, which runs replicated, until
      `--tt-lower-shard-collectives` turns them back.
    * A linalg op that reads through a sliding window (`d0 + d1`: a
      convolution's patches) with a split operand or result is an error
      naming it: MLIR 22 partitions only projected-permutation maps.
    * A linalg op whose body reads the index of a split loop
      (`linalg.index`: an iota, a gather's positions) is cloned as it is
      by partitioning and would see local indices: each such index gets
      this process's offset along the loop added (its position in the
      group of the loop's grid axes times the local loop size).
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect",
                           "::mlir::tt::TTDialect"];
}

def TTLowerShardCollectives
    : Pass<"tt-lower-shard-collectives", "func::FuncOp"> {
  let summary = "Collectives that --convert-shard-to-mpi lacks, as ones it "
                "has";
  let description = [{
    MLIR 22's `--convert-shard-to-mpi` lowers `shard.all_reduce` but not the
    collectives that partitioning also makes:

    * `shard.all_slice` (a replicated tensor becomes split) becomes a
      `tensor.extract_slice` at this process's offset: no communication;
    * `shard.all_gather` becomes a zero tensor of the gathered shape with
      this process's part inserted at its offset, summed over the grid
      axes with `shard.all_reduce` (every element is its owner's value
      plus zeros: exact, but for the sign of a zero; boolean tensors are
      refused);
    * `shard.reduce_scatter` becomes `shard.all_reduce` and the slice of
      this process;
    * a `shard.all_reduce` of a 0-d tensor (a maximum of gather indices,
      checked after the call) becomes one of a 1-element tensor: the
      lowering of `mpi.allreduce` to MPI takes buffers of rank 1 or more.

    Any other collective (`all_to_all`, `broadcast`, `gather`, `scatter`,
    `send`, `recv`, `shift`), and an all-reduce whose combiner MLIR could
    not classify (`generic`: an argmax over a split dimension), is an
    error naming it. `tt.constant`s left by
    `--tt-complete-sharding` become `arith.constant` again.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TTConvertMPIToLLVM : Pass<"tt-convert-mpi-to-llvm", "ModuleOp"> {
  let summary = "Lower the mpi dialect to calls of the MPI library";
  let description = [{
    MLIR's `mpi` to `llvm` conversion patterns, as a pass of their own for
    pipelines built of individual conversions (the patterns are otherwise
    reached only through `--convert-to-llvm`). The ABI is MPICH's unless
    the module's `dlti.map` says `"MPI:Implementation" = "OpenMPI"`. Runs
    after the memref conversion. `shard.grid` symbols that nothing refers
    to any more are dropped (they have no LLVM form). A module without mpi
    ops or grids is unchanged.
  }];
  let dependentDialects = ["::mlir::DLTIDialect", "::mlir::LLVM::LLVMDialect"];
}

def TTMPIRuntimeCalls : Pass<"tt-mpi-runtime-calls", "ModuleOp"> {
  let summary = "Make each communicator split of compiled code once, "
                "through TinyTensor's MPI runtime";
  let description = [{
    On the LLVM dialect, after `--tt-convert-mpi-to-llvm`, each
    `MPI_Comm_split` call site becomes `tt_mpi_comm_split_once` with a slot
    of its own (an internal i64 global, 0 until the first call). The
    lowering of `shard.all_reduce` splits a new communicator at every call
    and never frees it, so a long run exhausts MPI's communicators; the
    runtime makes each call site's communicator once, at its first call,
    which every process reaches together. A cache keyed by the split's
    arguments would not do: on a 2-D grid, two all-reduces over different
    axes can split with equal (color, key) on some processes only.
    (MLIR's lowering of `mpi.allreduce` passes `MPI_IN_PLACE` itself when
    the send and receive buffers are one.)

    The runtime is `libTinyTensorMPI.so` (python/TTMPIRuntime.c), which
    `tinytensor.distributed` loads.
  }];
}

#endif // TINYTENSOR_DISTRIBUTED_PASSES_TD
