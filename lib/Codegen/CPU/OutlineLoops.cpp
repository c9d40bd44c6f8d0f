//===- OutlineLoops.cpp - One function per top-level loop nest ------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTOUTLINELOOPS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// Values used inside `loop` (or as its bounds) but defined outside it.
llvm::SetVector<Value> capturedValues(Operation *loop) {
  llvm::SetVector<Value> captured;
  loop->walk([&](Operation *op) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      Region *region = def ? def->getParentRegion() : v.getParentRegion();
      if (!loop->isAncestor(region->getParentOp()) &&
          region->getParentOp() != loop)
        captured.insert(v);
    }
  });
  return captured;
}

struct OutlineLoopsPass
    : public tt::impl::TTOutlineLoopsBase<OutlineLoopsPass> {
  using TTOutlineLoopsBase::TTOutlineLoopsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<Operation *> loops;
    for (auto func : module.getOps<func::FuncOp>())
      for (Block &block : func.getBody())
        for (Operation &op : block)
          if (isa<scf::ForOp, scf::ParallelOp>(op) && op.getNumResults() == 0 &&
              countOps(&op) >= minOps)
            loops.push_back(&op);
    for (Operation *loop : loops)
      outline(loop, symbols);
  }

  static unsigned countOps(Operation *op) {
    unsigned n = 0;
    op->walk([&](Operation *) { ++n; });
    return n;
  }

  void outline(Operation *loop, SymbolTable &symbols) {
    auto parent = loop->getParentOfType<func::FuncOp>();
    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);

    // Constants are cloned, everything else becomes an argument.
    SmallVector<Value> arguments;
    SmallVector<Operation *> constants;
    for (Value v : capturedValues(loop)) {
      Operation *def = v.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        constants.push_back(def);
      else
        arguments.push_back(v);
    }

    builder.setInsertionPoint(parent);
    auto type = FunctionType::get(ctx, ValueRange(arguments).getTypes(), {});
    auto callee = func::FuncOp::create(
        builder, loop->getLoc(), (parent.getName() + "_loop").str(), type);
    callee.setPrivate();
    // Keep the loop in its own function through LLVM's inliner.
    callee->setAttr("passthrough",
                    builder.getArrayAttr({builder.getStringAttr("noinline")}));
    symbols.insert(callee); // renames on collision

    Block *body = callee.addEntryBlock();
    IRMapping mapping;
    for (auto [outer, inner] : llvm::zip(arguments, body->getArguments()))
      mapping.map(outer, inner);
    builder.setInsertionPointToStart(body);
    for (Operation *c : constants)
      builder.clone(*c, mapping);
    builder.clone(*loop, mapping);
    func::ReturnOp::create(builder, loop->getLoc());

    builder.setInsertionPoint(loop);
    func::CallOp::create(builder, loop->getLoc(), callee, arguments);
    loop->erase();
  }
};

} // namespace
