//===- MPI.cpp - From the mpi dialect to MPI calls that can run long ------===//
//
// tt-convert-mpi-to-llvm applies MLIR's mpi -> llvm patterns as a pass of
// its own; tt-mpi-runtime-calls makes each communicator split once, through
// TinyTensor's MPI runtime (python/TTMPIRuntime.c); the memory effects of
// mpi.allreduce let buffer deallocation accept it.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Distributed/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MPIToLLVM/MPIToLLVM.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCONVERTMPITOLLVM
#define GEN_PASS_DEF_TTMPIRUNTIMECALLS
#include "TinyTensor/Distributed/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

struct ConvertMPIToLLVMPass
    : public tt::impl::TTConvertMPIToLLVMBase<ConvertMPIToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Grids that nothing refers to any more (--convert-shard-to-mpi turned
    // the ops that did into MPI calls) have no LLVM form.
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grid.erase();
    bool any = false;
    module.walk([&](Operation *op) {
      if (isa<mpi::MPIDialect>(op->getDialect()))
        any = true;
      return any ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!any)
      return;
    // The patterns ask DLTI which MPI's ABI to target and fail without an
    // answer: MPICH (Debian's mpich, MLIR's default) unless the module says.
    if (!module->hasAttr("dlti.map")) {
      MLIRContext *context = &getContext();
      auto entry = DataLayoutEntryAttr::get(
          StringAttr::get(context, "MPI:Implementation"),
          StringAttr::get(context, "MPICH"));
      module->setAttr("dlti.map", MapAttr::get(context, {entry}));
    }
    LLVMTypeConverter converter(&getContext());
    RewritePatternSet patterns(&getContext());
    mpi::populateMPIToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(getContext());
    target.addIllegalDialect<mpi::MPIDialect>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

/// Declares `name` with `type` in `module`, or checks the declaration
/// there.
FailureOr<LLVM::LLVMFuncOp> declare(ModuleOp module, Operation *anchor,
                                    StringRef name,
                                    LLVM::LLVMFunctionType type) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name)) {
    if (existing.getFunctionType() == type)
      return existing;
    return existing.emitError()
           << "@" << name << " is declared with type "
           << existing.getFunctionType() << ", not " << type;
  }
  OpBuilder builder(anchor);
  return LLVM::LLVMFuncOp::create(builder, anchor->getLoc(), name, type);
}

struct MPIRuntimeCallsPass
    : public tt::impl::TTMPIRuntimeCallsBase<MPIRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(cacheSplits(module)))
      signalPassFailure();
  }

  /// Each MPI_Comm_split call site -> tt_mpi_comm_split_once with a slot
  /// of its own (a global of this module, 0 until the first call): every
  /// process makes the call site's communicator at its first run, together,
  /// and reuses it after. A cache keyed by the split's arguments would mix
  /// up call sites: two all-reduces over different axes of a 2-D grid can
  /// split with equal (color, key) on some processes and not on others.
  LogicalResult cacheSplits(ModuleOp module) {
    auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>("MPI_Comm_split");
    if (!callee)
      return success();
    MLIRContext *context = module.getContext();
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    ArrayRef<Type> params = callee.getFunctionType().getParams();
    SmallVector<Type> withSlot{ptr};
    withSlot.append(params.begin(), params.end());
    FailureOr<LLVM::LLVMFuncOp> target =
        declare(module, callee, "tt_mpi_comm_split_once",
                LLVM::LLVMFunctionType::get(
                    callee.getFunctionType().getReturnType(), withSlot));
    if (failed(target))
      return failure();
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      if (call.getCallee() == "MPI_Comm_split")
        calls.push_back(call);
    });
    SymbolTable symbols(module);
    for (auto [i, call] : llvm::enumerate(calls)) {
      OpBuilder builder(module.getBodyRegion());
      auto slot = LLVM::GlobalOp::create(
          builder, call.getLoc(), i64, /*isConstant=*/false,
          LLVM::Linkage::Internal, "tt_mpi_comm_slot",
          builder.getI64IntegerAttr(0));
      symbols.insert(slot); // renamed apart if the name is taken
      builder.setInsertionPoint(call);
      Value address = LLVM::AddressOfOp::create(builder, call.getLoc(), slot);
      SmallVector<Value> operands{address};
      llvm::append_range(operands, call.getArgOperands());
      auto replacement =
          LLVM::CallOp::create(builder, call.getLoc(), *target, operands);
      call.replaceAllUsesWith(replacement);
      call.erase();
    }
    if (SymbolTable::symbolKnownUseEmpty(callee, module))
      callee.erase();
    return success();
  }
};

/// mpi.allreduce reads its send buffer and writes its receive buffer.
struct AllReduceEffects
    : public MemoryEffectOpInterface::ExternalModel<AllReduceEffects,
                                                    mpi::AllReduceOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    auto allReduce = cast<mpi::AllReduceOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(),
                         &allReduce.getSendbufMutable());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &allReduce.getRecvbufMutable());
  }
};

} // namespace

void tt::registerDistributedInterfaces(DialectRegistry &registry) {
  registerShardingRules(registry);
  registry.addExtension(+[](MLIRContext *context, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<AllReduceEffects>(*context);
  });
}
