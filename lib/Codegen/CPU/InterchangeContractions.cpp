//===- InterchangeContractions.cpp - Loop order for contractions ----------===//

#include "../Common/LinalgUtils.h"
#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTINTERCHANGECONTRACTIONS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// Contractions whose result slice C[m, n] stays below this many bytes keep
/// it in cache across the whole reduction (loop order k, m, n).
constexpr int64_t kCacheResidentBytes = 256 * 1024;

/// For a matmul-shaped generic with iteration space (batch..., m, n, k),
/// returns the loop order that makes the innermost loop contiguous and
/// vectorisable, or an empty vector to leave it alone. Sets `reassociate`
/// when the innermost loop is the reduction (a dot product), which LLVM only
/// vectorises if it may reassociate the sum.
SmallVector<unsigned> contractionOrder(linalg::GenericOp op,
                                       bool &reassociate) {
  reassociate = false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned n = iterators.size();
  if (n < 3 || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      iterators.back() != utils::IteratorType::reduction ||
      llvm::count(iterators, utils::IteratorType::reduction) != 1)
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap out = maps[2];
  if (out != AffineMap::getMultiDimIdentityMap(n, op.getContext())
                 .getMajorSubMap(n - 1))
    return {};
  unsigned mDim = n - 3, nDim = n - 2, kDim = n - 1;
  auto lastDim = [](AffineMap map) -> int64_t {
    if (map.getNumResults() == 0)
      return -1;
    auto d = dyn_cast<AffineDimExpr>(map.getResults().back());
    return d ? d.getPosition() : -1;
  };
  SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, mDim));
  if (lastDim(maps[1]) == nDim) {
    // B is [..., k, n]: walk rows of B and C in the innermost loop.
    auto type = cast<ShapedType>(op.getDpsInits()[0].getType());
    ArrayRef<int64_t> shape = type.getShape().take_back(2);
    // Dynamic sizes, and elements without a bit width (complex), count
    // as large.
    Type element = type.getElementType();
    bool small = !ShapedType::isDynamicShape(shape) && element.isIntOrFloat() &&
                 shape[0] * shape[1] *
                         static_cast<int64_t>(element.getIntOrFloatBitWidth()) /
                         8 <=
                     kCacheResidentBytes;
    if (small)
      order.append({kDim, mDim, nDim}); // stream B exactly once
    else
      order.append({mDim, kDim, nDim});
    return order;
  }
  if (lastDim(maps[1]) == kDim && lastDim(maps[0]) == kDim) {
    // B is [..., n, k]: dot products over contiguous rows of A and B; each
    // row of B is read once and reused for every row of A.
    order.append({nDim, mDim, kDim});
    reassociate = true;
    return order;
  }
  return {};
}

struct InterchangeContractionsPass
    : public tt::impl::TTInterchangeContractionsBase<
          InterchangeContractionsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::GenericOp>(
              op.getOperation()))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> asGeneric = tt::asGenericOp(rewriter, op);
      if (failed(asGeneric))
        continue;
      linalg::GenericOp generic = *asGeneric;
      bool reassociate = false;
      SmallVector<unsigned> order = contractionOrder(generic, reassociate);
      if (order.empty())
        continue;
      FailureOr<linalg::GenericOp> interchanged =
          linalg::interchangeGenericOp(rewriter, generic, order);
      if (succeeded(interchanged) && reassociate)
        tt::addFastMathFlags(*interchanged, arith::FastMathFlags::reassoc |
                                                arith::FastMathFlags::contract);
    }
  }
};

} // namespace
