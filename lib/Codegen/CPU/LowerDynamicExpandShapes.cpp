//===- LowerDynamicExpandShapes.cpp - Expand shapes as reinterpret casts --===//
//
// MLIR 22's --expand-strided-metadata crashes on a memref.expand_shape
// whose reassociation group expands into more than one dynamic size (e.g.
// memref<?x12xf32> into memref<?x?x12xf32>, the result of a matmul over a
// [batch, seq, d] stack of rows with both dynamic). For contiguous memrefs
// the expansion is a reinterpret_cast with the output sizes and their
// suffix products as strides, which this pass builds instead.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTLOWERDYNAMICEXPANDSHAPES
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

struct ExpandShapeAsReinterpretCast
    : public OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    MemRefType source = op.getSrcType(), result = op.getResultType();
    bool severalDynamic = llvm::any_of(
        op.getReassociationIndices(), [&](const ReassociationIndices &group) {
          return llvm::count_if(group, [&](int64_t d) {
                   return result.isDynamicDim(d);
                 }) > 1;
        });
    if (!severalDynamic)
      return rewriter.notifyMatchFailure(op, "handled upstream");
    if (!source.getLayout().isIdentity() || !result.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "not contiguous");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    OpFoldResult stride = rewriter.getIndexAttr(1);
    for (int64_t d = sizes.size() - 1; d >= 0; --d) {
      strides[d] = stride;
      std::optional<int64_t> a = getConstantIntValue(stride),
                             b = getConstantIntValue(sizes[d]);
      if (a && b)
        stride = rewriter.getIndexAttr(*a * *b);
      else
        stride = arith::MulIOp::create(
                     rewriter, loc,
                     getValueOrCreateConstantIndexOp(rewriter, loc, stride),
                     getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]))
                     .getResult();
    }
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, result, op.getSrc(), rewriter.getIndexAttr(0), sizes, strides);
    return success();
  }
};

struct LowerDynamicExpandShapesPass
    : public tt::impl::TTLowerDynamicExpandShapesBase<
          LowerDynamicExpandShapesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeAsReinterpretCast>(&getContext());
    // An expand_shape left behind would crash --expand-strided-metadata.
    if (failed(tt::applyPatterns(*this, getOperation(), std::move(patterns),
                                 tt::Convergence::Required)))
      signalPassFailure();
  }
};

} // namespace
