//===- FoldTransposes.cpp - Read transposes in place ----------------------===//

#include "LinalgUtils.h"
#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTFOLDTRANSPOSES
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// The first input of `op` produced by a linalg.transpose, or null.
OpOperand *transposedInput(linalg::LinalgOp op) {
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get().getDefiningOp<linalg::TransposeOp>())
      return input;
  return nullptr;
}

/// Generics, and the named contractions (generalised first).
bool isCandidate(linalg::LinalgOp op) {
  if (isa<linalg::GenericOp>(op.getOperation()))
    return true;
  return op.getNumReductionLoops() > 0 && op.getNumDpsInputs() >= 2 &&
         !isa<linalg::TransposeOp>(op.getOperation());
}

struct FoldTransposesPass
    : public tt::impl::TTFoldTransposesBase<FoldTransposesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isCandidate(op) && transposedInput(op))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic = tt::asGenericOp(rewriter, op);
      if (failed(generic))
        continue;
      while (OpOperand *input = transposedInput(*generic))
        foldTranspose(rewriter, *generic, *input);
    }
  }

  /// Makes `op` read the input of the transpose that produces `input`:
  /// result dimension i of the transpose is input dimension perm[i], so the
  /// new map's result perm[i] is the old map's result i.
  static void foldTranspose(RewriterBase &rewriter, linalg::GenericOp op,
                            OpOperand &input) {
    auto transpose = input.get().getDefiningOp<linalg::TransposeOp>();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    AffineMap map = op.getMatchingIndexingMap(&input);
    SmallVector<AffineExpr> results(map.getNumResults());
    for (auto [i, p] : llvm::enumerate(perm))
      results[p] = map.getResult(i);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[input.getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, results, op.getContext());
    rewriter.modifyOpInPlace(op, [&] {
      input.set(transpose.getInput());
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    if (transpose->use_empty())
      rewriter.eraseOp(transpose);
  }
};

} // namespace
