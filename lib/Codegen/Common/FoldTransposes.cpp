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

/// The first input of `op` produced by a linalg.transpose (and not in
/// `skip`), or null.
OpOperand *transposedInput(linalg::LinalgOp op, ArrayRef<unsigned> skip = {}) {
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get().getDefiningOp<linalg::TransposeOp>() &&
        !llvm::is_contained(skip, input->getOperandNumber()))
      return input;
  return nullptr;
}

/// The map with which `op` reads the input of the transpose that produces
/// `input`: result dimension i of the transpose is input dimension perm[i],
/// so the new map's result perm[i] is the old map's result i.
AffineMap foldedMap(linalg::LinalgOp op, OpOperand &input) {
  auto transpose = input.get().getDefiningOp<linalg::TransposeOp>();
  ArrayRef<int64_t> perm = transpose.getPermutation();
  AffineMap map = op.getMatchingIndexingMap(&input);
  SmallVector<AffineExpr> results(map.getNumResults());
  for (auto [i, p] : llvm::enumerate(perm))
    results[p] = map.getResult(i);
  return AffineMap::get(map.getNumDims(), 0, results, op.getContext());
}

/// False when folding would move a reduction operand's matrix out of its
/// two innermost dimensions: for a contraction reading `v` of a
/// [seq, batch, d] tensor transposed to [batch, seq, d], the folded map
/// (k, b, n) is no longer a matrix per batch, and the op would lose its
/// matmul kernel for a loop of strided reductions (a transpose copy is
/// cheap next to that). A swap of the two innermost dimensions folds for
/// a product's B (x @ w.T), not for its A (below).
bool keepsMatrixInnermost(linalg::LinalgOp op, OpOperand &input) {
  if (op.getNumReductionLoops() == 0)
    return true;
  AffineMap before = op.getMatchingIndexingMap(&input);
  AffineMap after = foldedMap(op, input);
  unsigned r = before.getNumResults();
  if (r < 2)
    return true;
  auto innermost = [&](AffineMap map) {
    SmallVector<AffineExpr> last = {map.getResult(r - 2), map.getResult(r - 1)};
    return last;
  };
  SmallVector<AffineExpr> b = innermost(before), a = innermost(after);
  if (a[0] == b[0] && a[1] == b[1])
    return true;
  // A swap of the two: fine for a product's B (the matmul kernels pack a
  // transposed B), not for its A, which they read as [m, k] only: `x.T @
  // dy` (every weight gradient) folded ran as strided reductions, 3.7
  // GFLOP/s for [512 x 128].T @ [512 x 384] on a 2-core Xeon; the
  // transpose is a cheap copy next to the product.
  bool productA = op.getNumDpsInputs() == 2 && op.getNumDpsInits() == 1 &&
                  op.getNumReductionLoops() == 1 &&
                  input.getOperandNumber() == 0;
  return !productA && a[0] == b[1] && a[1] == b[0];
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
      SmallVector<unsigned> kept;
      while (OpOperand *input = transposedInput(*generic, kept)) {
        if (keepsMatrixInnermost(*generic, *input))
          foldTranspose(rewriter, *generic, *input);
        else
          kept.push_back(input->getOperandNumber());
      }
    }
  }

  /// Makes `op` read the input of the transpose that produces `input`.
  static void foldTranspose(RewriterBase &rewriter, linalg::GenericOp op,
                            OpOperand &input) {
    auto transpose = input.get().getDefiningOp<linalg::TransposeOp>();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[input.getOperandNumber()] = foldedMap(op, input);
    rewriter.modifyOpInPlace(op, [&] {
      input.set(transpose.getInput());
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    if (transpose->use_empty())
      rewriter.eraseOp(transpose);
  }
};

} // namespace
