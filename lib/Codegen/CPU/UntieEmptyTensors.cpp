//===- UntieEmptyTensors.cpp - One tensor.empty / fill per use ------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTUNTIEEMPTYTENSORS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {
/// Whether `use` is an init that its op writes into (destination-passing
/// style), so that sharing it with another use costs a copy.
bool isWrittenInit(OpOperand &use) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
  return dps && dps.isDpsInit(&use);
}

/// Keeps the first use of `op`'s result on `op` and gives every other use
/// for which `untie` holds a clone of `op` right before its user.
template <typename Predicate>
void untieUses(Operation *op, OpBuilder &builder, Predicate untie) {
  auto uses =
      llvm::make_early_inc_range(llvm::drop_begin(op->getResult(0).getUses()));
  for (OpOperand &use : uses) {
    if (!untie(use))
      continue;
    builder.setInsertionPoint(use.getOwner());
    IRMapping mapping;
    // A fill's init is an empty tensor of its own too.
    for (Value operand : op->getOperands())
      if (auto empty = operand.getDefiningOp<tensor::EmptyOp>())
        mapping.map(operand, builder.clone(*empty)->getResult(0));
    use.set(builder.clone(*op, mapping)->getResult(0));
  }
}

struct UntieEmptyTensorsPass
    : public tt::impl::TTUntieEmptyTensorsBase<UntieEmptyTensorsPass> {
  void runOnOperation() override {
    OpBuilder builder(&getContext());
    // Fills first: their clones' empty tensors are then each used once.
    SmallVector<linalg::FillOp> fills;
    getOperation()->walk([&](linalg::FillOp op) {
      if (op->getNumResults() == 1 &&
          op.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() &&
          llvm::count_if(op->getResult(0).getUses(), isWrittenInit) > 1)
        fills.push_back(op);
    });
    for (linalg::FillOp op : fills) {
      // The first use keeps the original, whatever it is; every other op
      // that writes into the fill gets its own.
      untieUses(op, builder, isWrittenInit);
    }

    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp op) {
      if (!op->hasOneUse() && !op->use_empty())
        shared.push_back(op);
    });
    for (tensor::EmptyOp op : shared)
      untieUses(op, builder, [](OpOperand &) { return true; });
  }
};
} // namespace
