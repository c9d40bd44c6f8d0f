//===- MPI.cpp - From the mpi dialect to MPI calls that can run long ------===//
//
// tt-convert-mpi-to-llvm applies MLIR's mpi -> llvm patterns as a pass of
// its own; tt-mpi-runtime-calls routes the calls whose lowering misbehaves
// through TinyTensor's MPI runtime (python/TTMPIRuntime.c); the memory
// effects of mpi.allreduce let buffer deallocation accept it.
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

/// Calls redirected to the runtime, which keeps their signatures.
constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral> kRedirects[] = {
    {"MPI_Comm_split", "tt_mpi_comm_split"},
    {"MPI_Allreduce", "tt_mpi_allreduce"},
};

struct MPIRuntimeCallsPass
    : public tt::impl::TTMPIRuntimeCallsBase<MPIRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (const auto &redirect : kRedirects) {
      StringRef from = redirect.first, to = redirect.second;
      auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(from);
      if (!callee)
        continue;
      auto target = module.lookupSymbol<LLVM::LLVMFuncOp>(to);
      if (!target) {
        OpBuilder builder(callee);
        target = LLVM::LLVMFuncOp::create(builder, callee.getLoc(), to,
                                          callee.getFunctionType());
      } else if (target.getFunctionType() != callee.getFunctionType()) {
        callee.emitError() << "@" << to << " is declared with type "
                           << target.getFunctionType() << ", not @" << from
                           << "'s " << callee.getFunctionType();
        return signalPassFailure();
      }
      module.walk([&](LLVM::CallOp call) {
        if (call.getCallee() == from)
          call.setCallee(to);
      });
      if (SymbolTable::symbolKnownUseEmpty(callee, module))
        callee.erase();
    }
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
