//===- FuseElementwise.cpp - Elementwise fusion keeping contractions ------===//

#include "TileAndFuseUtils.h"
#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

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

/// An all-parallel linalg op reading a matmul's result, directly or
/// through reshapes and other such ops (up to `depth` of them): the
/// matmul's epilogue (bias, activation, residual), which the back end
/// computes in the matmul's blocks when both have the same loops.
bool isEpilogue(Operation *op, int depth = 4) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() != 0 || depth == 0)
    return false;
  return llvm::any_of(linalgOp.getDpsInputs(), [&](Value input) {
    while (isa_and_present<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
        input.getDefiningOp()))
      input = input.getDefiningOp()->getOperand(0);
    auto producer = input.getDefiningOp<linalg::LinalgOp>();
    return producer && (tt::getMatmulDims(producer).has_value() ||
                        isEpilogue(producer, depth - 1));
  });
}

/// A linalg op that only moves elements (a copy, transpose or broadcast:
/// its body yields an input element as it is).
bool onlyMoves(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp->getNumRegions() != 1 ||
      linalgOp.getNumDpsInits() != 1)
    return false;
  Block &body = linalgOp->getRegion(0).front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || body.getOperations().size() != 1 || yield.getNumOperands() != 1)
    return false;
  auto arg = dyn_cast<BlockArgument>(yield.getOperand(0));
  return arg && arg.getArgNumber() < linalgOp.getNumDpsInputs();
}

/// The canonicalisations both phases of the pass run.
void addCleanups(RewritePatternSet &patterns, MLIRContext *context) {
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
  linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
  context->getLoadedDialect<linalg::LinalgDialect>()
      ->getCanonicalizationPatterns(patterns);
}

struct FuseElementwisePass
    : public tt::impl::TTFuseElementwiseBase<FuseElementwisePass> {
  using TTFuseElementwiseBase::TTFuseElementwiseBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // As upstream's pass: fuse a producer only into its single user. Not
    // into a matmul, unless it only moves elements: the matmul would
    // compute the producer once per column of its result (a batch norm
    // before a 1 x 1 convolution, 72 times over), and the kernels would no
    // longer see a matmul (the batch norm stays an epilogue of the
    // previous product instead).
    // Nor, without broadcast-producers, a producer that its user
    // broadcasts (reads along fewer loops than it has): it would be
    // computed again at every step of the other loops (a batch norm's
    // `sqrt(var + eps)` once per pixel instead of once per channel).
    bool broadcasts = broadcastProducers;
    linalg::ControlFusionFn fuse = [broadcasts](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
      if (!consumer || onlyMoves(producer))
        return true;
      return !tt::getMatmulDims(consumer) &&
             (broadcasts ||
              consumer.getMatchingIndexingMap(operand).isPermutation());
    };
    {
      RewritePatternSet patterns(context);
      // Reshapes stay outside contractions (on either side). A
      // collapse_shape is folded into the elementwise op that reads it
      // (which is expanded, its users reading a collapse of the new result)
      // whatever its number of uses: nothing is computed twice, and with a
      // one-use condition the greedy driver took one sweep per step along a
      // residual stream (a collapse_shape that loses its other users does
      // not bring its consumer back onto the worklist; a 6-layer T5
      // encoder needed 14 sweeps, past the driver's limit of 10). An op
      // expanded into its expand_shape user must have no other user: two
      // users expanding it differently would pass it back and forth.
      linalg::ControlFusionFn foldReshape = [](OpOperand *operand) {
        Operation *producer = operand->get().getDefiningOp();
        if (!producer ||
            (!isa<tensor::CollapseShapeOp>(producer) && !producer->hasOneUse()))
          return false;
        return !isContraction(operand->getOwner()) &&
               !isContraction(producer);
      };
      linalg::populateElementwiseOpsFusionPatterns(patterns, fuse);
      linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, foldReshape);
      addCleanups(patterns, context);
      linalg::populateConstantFoldLinalgOperations(patterns, fuse);
      // Every rewrite keeps the IR valid and its meaning: stopping at the
      // iteration limit leaves ops unfused, not a wrong program.
      (void)tt::applyPatterns(*this, getOperation(), std::move(patterns),
                              tt::Convergence::Optional);
    }
    if (!collapseEpilogues)
      return;
    // Then, without the expansion patterns (which would undo it), an
    // elementwise op that reads a matmul or its epilogue through an
    // expand_shape (`(x @ w + b).reshape(batch, seq, d)` then an
    // activation) is collapsed to the matmul's shape and fused with the
    // rest of the epilogue, so that it runs in the matmul's blocks instead
    // of as a pass of its own over the result.
    RewritePatternSet patterns(context);
    linalg::ControlFusionFn collapseEpilogue = [](OpOperand *operand) {
      auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand || !expand->hasOneUse() ||
          isContraction(operand->getOwner()))
        return false;
      auto source = expand.getSrc().getDefiningOp<linalg::LinalgOp>();
      return source && (tt::getMatmulDims(source).has_value() ||
                        isEpilogue(source));
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, fuse);
    linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns,
                                                       collapseEpilogue);
    addCleanups(patterns, context);
    (void)tt::applyPatterns(*this, getOperation(), std::move(patterns),
                            tt::Convergence::Optional);
  }
};

} // namespace
