//===- Passes.h - TinyTensor distributed passes -----------------*- C++ -*-===//

#ifndef TINYTENSOR_DISTRIBUTED_PASSES_H
#define TINYTENSOR_DISTRIBUTED_PASSES_H

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tt {

#define GEN_PASS_DECL
#include "TinyTensor/Distributed/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TinyTensor/Distributed/Passes.h.inc"

/// The interfaces the distributed pipeline needs that MLIR 22 does not
/// attach: a replicated-only sharding rule for tensor and arith ops
/// (sharding propagation fails on ops without one), and the memory effects
/// of `mpi.allreduce` (buffer deallocation refuses ops with unknown effects
/// on buffers).
void registerDistributedInterfaces(DialectRegistry &registry);

/// The sharding rules of registerDistributedInterfaces (ShardingRules.cpp):
/// reshapes keep a split of a group's leading dimension, other tensor and
/// arith ops run replicated.
void registerShardingRules(DialectRegistry &registry);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_DISTRIBUTED_PASSES_H
