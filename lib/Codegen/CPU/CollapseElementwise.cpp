//===- CollapseElementwise.cpp - Elementwise ops over one flat loop -------===//
//
// An elementwise linalg.generic whose operands are all read and written at
// the same indices (identity maps, no broadcast) runs as one loop over the
// flattened tensors when its innermost dimension is short: vectorised along
// that dimension, a [64, 64, 3, 3] weight update would take vectors of 3.
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUCOLLAPSEELEMENTWISE
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// Innermost dimensions shorter than this are worth flattening (a vector
/// register of f32 on AVX-512 holds 16; the elementwise tiles take 64).
constexpr int64_t kShortInnermost = 64;

/// Whether `op` is elementwise with every operand at the loops' indices.
bool isFlatElementwise(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumLoops() < 2 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  if (!llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  // bfloat16 vectors of other lengths than the tiles' stop LLVM's x86
  // back end ("Do not know how to soft promote this operator's operand").
  for (Value operand : generic->getOperands())
    if (getElementTypeOrSelf(operand.getType()).isBF16())
      return false;
  // linalg.index reads the loops' positions, which flattening would change.
  return generic.getBody()->getOps<linalg::IndexOp>().empty();
}

/// Whether flattening `op` costs nothing around it: every operand is a
/// function argument, an empty tensor, a fill, a constant or another such
/// op, and every user another such op or the return. (Other neighbours
/// would see the reshapes: tiling could no longer fuse a contraction's
/// epilogue, nor bufferization compute a concatenation's part in place;
/// a slice may not be flattened without a copy.)
bool flattenable(linalg::GenericOp op) {
  if (!isFlatElementwise(op))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t inner = ranges.back();
  if (ShapedType::isDynamic(inner) || inner >= kShortInnermost)
    return false;
  for (Value operand : op->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    if (producer &&
        !isa<tensor::EmptyOp, linalg::FillOp, arith::ConstantOp>(producer) &&
        !isFlatElementwise(producer))
      return false;
  }
  for (Operation *user : op->getUsers())
    if (!isa<func::ReturnOp>(user) && !isFlatElementwise(user))
      return false;
  return true;
}

struct CollapseElementwisePass
    : public tt::impl::TTCPUCollapseElementwiseBase<CollapseElementwisePass> {
  void runOnOperation() override {
    // Chosen on the IR as it is: once a neighbour is flattened, the
    // reshapes around it would hide it.
    llvm::DenseSet<Operation *> chosen;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (flattenable(op))
        chosen.insert(op);
    });
    if (chosen.empty())
      return;
    RewritePatternSet patterns(&getContext());
    linalg::populateCollapseDimensions(
        patterns,
        [&](linalg::LinalgOp op) -> SmallVector<ReassociationIndices> {
          auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
          if (!generic || !chosen.contains(generic))
            return {};
          ReassociationIndices all;
          for (int64_t i = 0, e = generic.getNumLoops(); i < e; ++i)
            all.push_back(i);
          return {all};
        });
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    // Ops left unflattened at the iteration limit are still correct.
    (void)tt::applyPatterns(*this, getOperation(), std::move(patterns),
                            tt::Convergence::Optional);
  }
};

} // namespace
