//===- FuseCastsIntoContractions.cpp - Convert operands in the loop -------===//

#include "../Common/LinalgUtils.h"
#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTFUSECASTSINTOCONTRACTIONS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// True for an all-parallel generic with one input whose body only converts
/// the element type (a cast), writing through an identity map and reading
/// through a permutation (a transpose folded into it).
bool isElementTypeConversion(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0)
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[0].isPermutation() || !maps[1].isIdentity())
    return false;
  Block *body = op.getBody();
  if (body->getOperations().size() != 2)
    return false;
  Operation &convert = body->front();
  return isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp>(
             convert) &&
         convert.getOperand(0) == body->getArgument(0);
}

bool isContraction(linalg::LinalgOp op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
         (isa<linalg::GenericOp>(op.getOperation()) &&
          op.getNumReductionLoops() == 1 && op.getNumDpsInputs() == 2);
}

struct FuseCastsIntoContractionsPass
    : public tt::impl::TTFuseCastsIntoContractionsBase<
          FuseCastsIntoContractionsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isContraction(op))
        contractions.push_back(op);
    });
    for (linalg::LinalgOp op : contractions) {
      auto castInput = [&](linalg::LinalgOp consumer) -> OpOperand * {
        for (OpOperand *input : consumer.getDpsInputOperands()) {
          auto producer = input->get().getDefiningOp<linalg::GenericOp>();
          if (producer && producer->hasOneUse() &&
              isElementTypeConversion(producer))
            return input;
        }
        return nullptr;
      };
      if (!castInput(op))
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> asGeneric = tt::asGenericOp(rewriter, op);
      if (failed(asGeneric))
        continue;
      linalg::GenericOp generic = *asGeneric;
      // Fuse every cast operand (a mixed matmul may have two).
      while (OpOperand *operand = castInput(generic)) {
        if (!linalg::areElementwiseOpsFusable(operand))
          break;
        Operation *producer = operand->get().getDefiningOp();
        FailureOr<linalg::ElementwiseOpFusionResult> fused =
            linalg::fuseElementwiseOps(rewriter, operand);
        if (failed(fused))
          break;
        auto newOp = cast<linalg::GenericOp>(fused->fusedOp);
        for (auto [oldResult, newResult] :
             llvm::zip(generic->getResults(), newOp->getResults()))
          rewriter.replaceAllUsesWith(oldResult, newResult);
        rewriter.eraseOp(generic);
        if (producer->use_empty())
          rewriter.eraseOp(producer);
        generic = newOp;
      }
    }
  }
};

} // namespace
