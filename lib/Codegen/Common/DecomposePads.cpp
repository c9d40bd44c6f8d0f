//===- DecomposePads.cpp - Padded tensors as a fill and an insertion ------===//

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTDECOMPOSEPADS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

struct DecomposePadsPass
    : public tt::impl::TTDecomposePadsBase<DecomposePadsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    if (pads.empty())
      return;
    RewritePatternSet patterns(&getContext());
    linalg::populateDecomposePadPatterns(patterns);
    // Each pad is rewritten once and the ops it becomes match no pattern:
    // the driver cannot stop short of its fixed point.
    if (failed(tt::applyOpPatterns(*this, getOperation(), pads,
                                   std::move(patterns),
                                   tt::Convergence::Required)))
      signalPassFailure();
  }
};

} // namespace
