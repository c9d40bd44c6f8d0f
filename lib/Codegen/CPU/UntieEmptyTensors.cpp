//===- UntieEmptyTensors.cpp - One tensor.empty per use -------------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTUNTIEEMPTYTENSORS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {
struct UntieEmptyTensorsPass
    : public tt::impl::TTUntieEmptyTensorsBase<UntieEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp op) {
      if (!op->hasOneUse() && !op->use_empty())
        shared.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (tensor::EmptyOp op : shared) {
      // Keep the first use on the original op; clone it for the others.
      auto uses = llvm::make_early_inc_range(llvm::drop_begin(op->getUses()));
      for (OpOperand &use : uses) {
        builder.setInsertionPoint(use.getOwner());
        use.set(builder.clone(*op)->getResult(0));
      }
    }
  }
};
} // namespace
