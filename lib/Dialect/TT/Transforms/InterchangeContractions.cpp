//===- InterchangeContractions.cpp - Loop order for contractions ----------===//

#include "TinyTensor/Dialect/TT/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTINTERCHANGECONTRACTIONS
#include "TinyTensor/Dialect/TT/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// The loop order that moves the single innermost reduction dimension
/// before the last parallel dimension, or an empty vector if the op does not
/// have the shape `(parallel..., reduction)` or already has a better order.
SmallVector<unsigned> contractionInterchange(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned n = iterators.size();
  if (n < 3 || iterators.back() != utils::IteratorType::reduction ||
      iterators[n - 2] != utils::IteratorType::parallel ||
      llvm::count(iterators, utils::IteratorType::reduction) != 1)
    return {};
  SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, n));
  std::swap(order[n - 2], order[n - 1]);
  return order;
}

struct InterchangeContractionsPass
    : public tt::impl::TTInterchangeContractionsBase<
          InterchangeContractionsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::VecmatOp,
              linalg::GenericOp>(op.getOperation()))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates) {
      rewriter.setInsertionPoint(op);
      linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
        if (failed(g))
          continue;
        generic = *g;
      }
      SmallVector<unsigned> order = contractionInterchange(generic);
      if (order.empty())
        continue;
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};

} // namespace
