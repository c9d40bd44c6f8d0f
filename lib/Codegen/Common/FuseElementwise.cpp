//===- FuseElementwise.cpp - Elementwise fusion keeping contractions ------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTFUSEELEMENTWISE
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// A linalg op with reduction loops reading two or more tensors.
bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
         linalgOp.getNumDpsInputs() >= 2;
}

struct FuseElementwisePass
    : public tt::impl::TTFuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // As upstream's pass: fuse a producer only into its single user.
    linalg::ControlFusionFn fuse = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    // Reshapes stay outside contractions (on either side).
    linalg::ControlFusionFn foldReshape = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      return !isContraction(operand->getOwner()) && !isContraction(producer);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, fuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, foldReshape);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, fuse);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
