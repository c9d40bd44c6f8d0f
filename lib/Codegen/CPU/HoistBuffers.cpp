//===- HoistBuffers.cpp - Allocations out of sequential loops -------------===//
//
// A buffer of static size allocated in the body of a sequential loop and
// dead by the end of the iteration (the row of exponentials of a softmax
// computed row by row, a packed panel of B) is allocated once, before the
// outermost such loop, instead of once per iteration.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUHOISTBUFFERS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// True if nothing keeps the buffer `alloc` (or a view of it) past the
/// iteration that allocates it: it is not yielded, returned, passed to a
/// call or a loop, turned into a pointer, or given to an op of no
/// registered dialect.
bool staysInIteration(memref::AllocOp alloc) {
  SmallVector<Value> worklist{alloc.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == value) {
          llvm::append_range(worklist, user->getResults());
          continue;
        }
      }
      if (user->hasTrait<OpTrait::IsTerminator>() ||
          isa<RegionBranchOpInterface, LoopLikeOpInterface, CallOpInterface,
              memref::ExtractAlignedPointerAsIndexOp, memref::DeallocOp>(
              user) ||
          !user->getDialect() ||
          user->getDialect()->getNamespace() == "bufferization")
        return false;
    }
  }
  return true;
}

/// The outermost loop of the chain of scf.for (and scf.if) ops around `op`,
/// stopping at anything else (a parallel loop, whose iterations each need
/// their own buffer, or the function); null when `op` is in no scf.for.
Operation *outermostSequentialLoop(Operation *op) {
  Operation *loop = nullptr;
  for (Operation *parent = op->getParentOp();
       parent && isa<scf::ForOp, scf::IfOp>(parent);
       parent = parent->getParentOp())
    if (isa<scf::ForOp>(parent))
      loop = parent;
  return loop;
}

struct CPUHoistBuffersPass
    : public tt::impl::TTCPUHoistBuffersBase<CPUHoistBuffersPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation()->walk([&](memref::AllocOp alloc) {
      if (alloc.getDynamicSizes().empty() &&
          alloc.getSymbolOperands().empty())
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      Operation *loop = outermostSequentialLoop(alloc);
      if (loop && staysInIteration(alloc))
        alloc->moveBefore(loop);
    }
  }
};

} // namespace
