//===- ChannelsLast.cpp - Convolutions and their neighbours channels last -===//
//
// Each eligible tt.conv becomes transpose -> tt.conv {channels_last} ->
// transpose, and the transposes then sink through the ops between
// convolutions until they meet and cancel. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/Passes.h"
#include "TinyTensor/Dialect/TT/TTOps.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCHANNELSLAST
#include "TinyTensor/Dialect/TT/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

/// Marks the transposes this pass makes and moves: a program's own
/// transposes (attention's) stay where they are.
constexpr StringLiteral kMovingAttr = "tt.channels_last_move";

RankedTensorType staticType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type : nullptr;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = static_cast<int64_t>(i);
  return inv;
}

/// `shape` permuted: result[i] = shape[perm[i]].
SmallVector<int64_t> permuted(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> result;
  for (int64_t p : perm)
    result.push_back(shape[p]);
  return result;
}

/// True if a transpose by `perm` of a tensor of `shape` keeps the order of
/// its elements (it moves only dimensions of size 1): a reshape.
bool movesOnlyUnitDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

bool isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, BitwiseAndOp,
             BitwiseOrOp, BitwiseXorOp, ShiftLeftOp, ShiftRightOp, Atan2Op,
             CmpOp, SelectOp, NegOp, AbsOp, ExpOp, TanOp, AsinOp, AcosOp,
             SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp, Log10Op, AtanOp, LogOp,
             TanhOp, SqrtOp, RsqrtOp, ErfOp, SinOp, CosOp, FloorOp, CeilOp,
             RoundOp, Log1pOp, Expm1Op, Exp2Op, Log2Op, CastOp>(op);
}

/// A copy of `op` on `operands` (with `attributes` set) with its result
/// types inferred again.
FailureOr<Operation *> cloneOn(PatternRewriter &rewriter, Operation *op,
                               ValueRange operands,
                               ArrayRef<NamedAttribute> attributes = {}) {
  Operation *clone = rewriter.clone(*op);
  clone->setOperands(operands);
  for (NamedAttribute attribute : attributes)
    clone->setAttr(attribute.getName(), attribute.getValue());
  SmallVector<Type> types;
  auto infer = cast<InferTypeOpInterface>(clone);
  if (failed(infer.inferReturnTypes(
          op->getContext(), op->getLoc(), clone->getOperands(),
          clone->getRawDictionaryAttrs(), clone->getPropertiesStorage(),
          clone->getRegions(), types)) ||
      types.size() != clone->getNumResults()) {
    rewriter.eraseOp(clone);
    return failure();
  }
  for (auto [result, type] : llvm::zip(clone->getResults(), types))
    result.setType(type);
  return clone;
}

/// `op` marked as one of the pass's transposes.
Value moving(PatternRewriter &rewriter, TransposeOp op) {
  op->setAttr(kMovingAttr, rewriter.getUnitAttr());
  return op;
}

/// transpose(value, perm), as a reshape where it moves only unit
/// dimensions.
Value transposeOrReshape(PatternRewriter &rewriter, Location loc, Value value,
                         ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape = permuted(type.getShape(), perm);
  auto result = type.clone(shape);
  if (movesOnlyUnitDims(type.getShape(), perm))
    return ReshapeOp::create(rewriter, loc, result, value, shape);
  return moving(rewriter,
                TransposeOp::create(rewriter, loc, result, value, perm));
}

/// tt.conv -> transpose, tt.conv {channels_last}, transpose back, for one
/// group, depthwise (one input and one output channel per group) or, if
/// `grouped`, several groups of several input channels each: the groupings
/// the CPU computes channels last.
struct ConvToChannelsLast : public OpRewritePattern<ConvOp> {
  ConvToChannelsLast(MLIRContext *ctx, bool grouped)
      : OpRewritePattern(ctx), grouped(grouped) {}
  bool grouped;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getChannelsLast())
      return failure();
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto wType = staticType(op.getWeight());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!inType || !wType || !type)
      return rewriter.notifyMatchFailure(op, "unranked");
    int64_t groups = static_cast<int64_t>(op.getGroups());
    bool depthwise = wType.getDimSize(1) == 1 &&
                     wType.getDimSize(0) == groups &&
                     inType.getDimSize(1) == groups;
    // Several groups of several input channels each (ResNeXt, RegNet).
    bool grouped = groups != 1 && wType.getDimSize(1) > 1;
    if (groups != 1 && !depthwise && !(grouped && this->grouped))
      return rewriter.notifyMatchFailure(op, "grouping not computed "
                                             "channels last");
    int64_t rank = inType.getRank();
    // [N, C, S...] -> [N, S..., C] and back.
    SmallVector<int64_t> toLast = {0}, toFirst = {0, rank - 1};
    for (int64_t i = 2; i < rank; ++i)
      toLast.push_back(i);
    toLast.push_back(1);
    for (int64_t i = 1; i < rank - 1; ++i)
      toFirst.push_back(i);
    Location loc = op.getLoc();
    Value input = transposeOrReshape(rewriter, loc, op.getInput(), toLast);
    auto conv = ConvOp::create(rewriter, loc, input, op.getWeight(),
                               op.getStridesAttr(), op.getDilationsAttr(),
                               op.getPadLowAttr(), op.getPadHighAttr(),
                               op.getGroupsAttr(), rewriter.getUnitAttr());
    rewriter.replaceOp(op, transposeOrReshape(rewriter, loc, conv, toFirst));
    return success();
  }
};

/// The permutation of `value` if it is one of the pass's transposes, of a
/// static tensor.
std::optional<ArrayRef<int64_t>> transposition(Value value) {
  auto transpose = value.getDefiningOp<TransposeOp>();
  if (!transpose || !transpose->hasAttr(kMovingAttr) ||
      !staticType(transpose.getInput()))
    return std::nullopt;
  return transpose.getPermutation();
}

/// op(transpose(x, p), ...) -> transpose(op(x, ...), p) for an elementwise
/// op: the other operands are transposes by the same permutation, scalars,
/// splat constants, or operands whose transpose moves only unit dimensions
/// (a per-channel [1, C, 1, 1] becomes [1, 1, 1, C]). No operand gets a
/// transpose of its own: one would be sunk back through the op.
struct SinkThroughElementwise : public RewritePattern {
  SinkThroughElementwise(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op) || op->getNumResults() != 1)
      return failure();
    auto type = staticType(op->getResult(0));
    if (!type || type.getRank() < 2)
      return failure();
    int64_t rank = type.getRank();
    std::optional<ArrayRef<int64_t>> perm;
    for (Value operand : op->getOperands()) {
      auto operandType = staticType(operand);
      if (operandType && operandType.getRank() == rank)
        if ((perm = transposition(operand)))
          break;
    }
    if (!perm)
      return failure();
    SmallVector<int64_t> inv = inverse(*perm);
    Location loc = op->getLoc();
    // Check every operand first, then build.
    for (Value operand : op->getOperands()) {
      auto operandType = staticType(operand);
      if (!operandType || operandType.getRank() > rank)
        return failure();
      if (operandType.getRank() == rank && transposition(operand) == perm)
        continue;
      SmallVector<int64_t> shape(rank - operandType.getRank(), 1);
      llvm::append_range(shape, operandType.getShape());
      DenseElementsAttr splat;
      if (operandType.getRank() > 0 && !movesOnlyUnitDims(shape, inv) &&
          !(matchPattern(operand, m_Constant(&splat)) && splat.isSplat()))
        return failure();
    }
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      auto operandType = staticType(operand);
      if (operandType.getRank() == rank && transposition(operand) == perm) {
        operands.push_back(operand.getDefiningOp<TransposeOp>().getInput());
        continue;
      }
      if (operandType.getRank() == 0) { // a scalar broadcasts in any order
        operands.push_back(operand);
        continue;
      }
      SmallVector<int64_t> shape(rank - operandType.getRank(), 1);
      llvm::append_range(shape, operandType.getShape());
      DenseElementsAttr splat;
      if (matchPattern(operand, m_Constant(&splat)) && splat.isSplat()) {
        operands.push_back(ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(operandType.clone(permuted(shape, inv)),
                                   splat.getSplatValue<Attribute>())));
        continue;
      }
      SmallVector<int64_t> target = permuted(shape, inv);
      operands.push_back(ReshapeOp::create(
          rewriter, loc, operandType.clone(target), operand, target));
    }
    FailureOr<Operation *> clone = cloneOn(rewriter, op, operands);
    if (failed(clone))
      return failure();
    rewriter.replaceOp(
        op,
        moving(rewriter, TransposeOp::create(rewriter, loc, type,
                                             (*clone)->getResult(0), *perm)));
    return success();
  }
};

/// reduce(transpose(x, p), axes) -> transpose(reduce(x, p[axes]), q).
template <typename Reduction>
struct SinkThroughReduction : public OpRewritePattern<Reduction> {
  using OpRewritePattern<Reduction>::OpRewritePattern;
  LogicalResult matchAndRewrite(Reduction op,
                                PatternRewriter &rewriter) const override {
    std::optional<ArrayRef<int64_t>> perm = transposition(op.getInput());
    auto type = staticType(op.getResult());
    if (!perm || !type)
      return failure();
    int64_t rank = static_cast<int64_t>(perm->size());
    SmallVector<bool> reduced(rank, false);
    SmallVector<int64_t> axes;
    for (int64_t axis : op.getAxes()) {
      int64_t a = axis < 0 ? axis + rank : axis;
      if (a < 0 || a >= rank)
        return failure();
      reduced[a] = true;
      axes.push_back((*perm)[a]);
    }
    llvm::sort(axes);
    bool keep = op.getKeepdims();
    // The kept dimensions of the input of the new reduction, in order.
    SmallVector<int64_t> kept;
    SmallVector<bool> sourceReduced(rank, false);
    for (int64_t a : axes)
      sourceReduced[a] = true;
    for (int64_t i = 0; i < rank; ++i)
      if (keep || !sourceReduced[i])
        kept.push_back(i);
    // Result dimension j is the transposed input's j-th kept dimension.
    SmallVector<int64_t> resultPerm;
    for (int64_t i = 0; i < rank; ++i) {
      if (!keep && reduced[i])
        continue;
      resultPerm.push_back(llvm::find(kept, (*perm)[i]) - kept.begin());
    }
    Location loc = op.getLoc();
    Value source =
        op.getInput().template getDefiningOp<TransposeOp>().getInput();
    FailureOr<Operation *> clone = cloneOn(
        rewriter, op, source,
        rewriter.getNamedAttr("axes", rewriter.getDenseI64ArrayAttr(axes)));
    if (failed(clone))
      return failure();
    rewriter.replaceOp(
        op,
        transposeOrReshape(rewriter, loc, (*clone)->getResult(0), resultPerm));
    return success();
  }
};

/// reshape(transpose(x, p)) -> transpose(reshape(x), q) where the reshape
/// only merges dimensions that are consecutive in x too, or only splits
/// dimensions.
struct SinkThroughReshape : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<ArrayRef<int64_t>> perm = transposition(op.getInput());
    auto inType = staticType(op.getInput());
    auto type = staticType(op.getResult());
    if (!perm || !inType || !type)
      return failure();
    Value source = op.getInput().getDefiningOp<TransposeOp>().getInput();
    ArrayRef<int64_t> sourceShape =
        cast<RankedTensorType>(source.getType()).getShape();
    bool collapse = type.getRank() < inType.getRank();
    std::optional<SmallVector<ReassociationIndices>> groups =
        collapse ? getReassociationIndicesForReshape(inType, type)
                 : getReassociationIndicesForReshape(type, inType);
    if (!groups)
      return failure();
    // Each group's dimensions of the transposed tensor, as dimensions of
    // the source (collapsing: they must be consecutive there).
    int64_t sourceRank = static_cast<int64_t>(perm->size());
    SmallVector<int64_t> groupOfSource(sourceRank, -1);
    if (collapse) {
      for (auto [g, group] : llvm::enumerate(*groups)) {
        for (auto [i, dim] : llvm::enumerate(group)) {
          if (i > 0 && (*perm)[dim] != (*perm)[group[i - 1]] + 1)
            return failure();
          groupOfSource[(*perm)[dim]] = static_cast<int64_t>(g);
        }
      }
      // The new reshape merges the same groups in the source's order.
      SmallVector<int64_t> newShape, order;
      for (int64_t i = 0; i < sourceRank;) {
        int64_t g = groupOfSource[i];
        int64_t size = 1, n = static_cast<int64_t>((*groups)[g].size());
        for (int64_t j = 0; j < n; ++j)
          size *= sourceShape[i + j];
        newShape.push_back(size);
        order.push_back(g);
        i += n;
      }
      SmallVector<int64_t> newPerm = inverse(order);
      Location loc = op.getLoc();
      Value reshaped = ReshapeOp::create(rewriter, loc, type.clone(newShape),
                                         source, newShape);
      rewriter.replaceOp(op,
                         transposeOrReshape(rewriter, loc, reshaped, newPerm));
      return success();
    }
    // Splitting: transposed dimension t becomes the result dimensions of
    // group t; source dimension p[t] is split the same way.
    SmallVector<int64_t> newShape, start(sourceRank);
    SmallVector<int64_t> inv = inverse(*perm);
    for (int64_t s = 0; s < sourceRank; ++s) {
      start[s] = static_cast<int64_t>(newShape.size());
      for (int64_t r : (*groups)[inv[s]])
        newShape.push_back(type.getDimSize(r));
    }
    SmallVector<int64_t> newPerm;
    for (int64_t t = 0; t < sourceRank; ++t)
      for (int64_t j = 0, n = static_cast<int64_t>((*groups)[t].size()); j < n;
           ++j)
        newPerm.push_back(start[(*perm)[t]] + j);
    Location loc = op.getLoc();
    Value reshaped = ReshapeOp::create(rewriter, loc, type.clone(newShape),
                                       source, newShape);
    rewriter.replaceOp(op,
                       transposeOrReshape(rewriter, loc, reshaped, newPerm));
    return success();
  }
};

/// concat(transpose(x, p), c, ...) along axis a -> transpose(concat(x, c',
/// ...) along p[a], p) for operands that are transposes by p or splat
/// constants (a pooling's padding).
struct SinkThroughConcat : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = staticType(op.getResult());
    if (!type)
      return failure();
    std::optional<ArrayRef<int64_t>> perm;
    for (Value input : op.getInputs())
      if ((perm = transposition(input)))
        break;
    if (!perm)
      return failure();
    SmallVector<int64_t> inv = inverse(*perm);
    for (Value input : op.getInputs()) {
      DenseElementsAttr splat;
      if (transposition(input) != perm &&
          !(matchPattern(input, m_Constant(&splat)) && splat.isSplat() &&
            staticType(input)))
        return failure();
    }
    Location loc = op.getLoc();
    SmallVector<Value> inputs;
    for (Value input : op.getInputs()) {
      if (transposition(input) == perm) {
        inputs.push_back(input.getDefiningOp<TransposeOp>().getInput());
        continue;
      }
      DenseElementsAttr splat;
      matchPattern(input, m_Constant(&splat));
      auto inputType = staticType(input);
      inputs.push_back(ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(
              inputType.clone(permuted(inputType.getShape(), inv)),
              splat.getSplatValue<Attribute>())));
    }
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    auto concat = ConcatOp::create(
        rewriter, loc, type.clone(permuted(type.getShape(), inv)), inputs,
        rewriter.getI64IntegerAttr((*perm)[axis]));
    rewriter.replaceOp(
        op, moving(rewriter,
                   TransposeOp::create(rewriter, loc, type, concat, *perm)));
    return success();
  }
};

/// windows(transpose(x, p), axis) -> transpose(windows(x, p[axis]), q)
/// where the windowed axes are consecutive in x too.
struct SinkThroughWindows : public OpRewritePattern<WindowsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WindowsOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<ArrayRef<int64_t>> perm = transposition(op.getInput());
    auto type = staticType(op.getResult());
    if (!perm || !type)
      return failure();
    int64_t rank = static_cast<int64_t>(perm->size());
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t n = static_cast<int64_t>(op.getKernel().size());
    for (int64_t i = 1; i < n; ++i)
      if ((*perm)[axis + i] != (*perm)[axis] + 1)
        return failure();
    int64_t first = (*perm)[axis];
    // Where input dimension i goes in a windows result over axes [at, at +
    // n): before them it stays, the windowed ones become the counts, the
    // kernel axes follow, the rest move up by n.
    auto position = [&](int64_t i, int64_t at) {
      return i < at ? i : i < at + n ? i : i + n;
    };
    // Result dimension of the old op -> dimension of the new one.
    SmallVector<int64_t> newPerm(rank + n);
    for (int64_t t = 0; t < rank; ++t)
      newPerm[position(t, axis)] = position((*perm)[t], first);
    for (int64_t k = 0; k < n; ++k)
      newPerm[axis + n + k] = first + n + k;
    Value source = op.getInput().getDefiningOp<TransposeOp>().getInput();
    Location loc = op.getLoc();
    auto windows = WindowsOp::create(
        rewriter, loc, source, rewriter.getI64IntegerAttr(first),
        op.getKernelAttr(), op.getStridesAttr(), op.getDilationsAttr());
    rewriter.replaceOp(op, transposeOrReshape(rewriter, loc, windows, newPerm));
    return success();
  }
};

/// A transpose that moves only unit dimensions is a reshape.
struct UnitTransposeToReshape : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = staticType(op.getInput());
    if (!inType || !movesOnlyUnitDims(inType.getShape(), op.getPermutation()))
      return failure();
    SmallVector<int64_t> shape =
        permuted(inType.getShape(), op.getPermutation());
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, inType.clone(shape),
                                           op.getInput(), shape);
    return success();
  }
};

/// transpose(transpose(x, p), q) -> transpose(x, p o q), marked when
/// either was (the canonical pattern drops the mark).
struct ComposeMoving : public OpRewritePattern<TransposeOp> {
  ComposeMoving(MLIRContext *ctx)
      : OpRewritePattern<TransposeOp>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner || !staticType(inner.getInput()) ||
        !(op->hasAttr(kMovingAttr) || inner->hasAttr(kMovingAttr)))
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPermutation())
      perm.push_back(inner.getPermutation()[p]);
    Value result =
        transposeOrReshape(rewriter, op.getLoc(), inner.getInput(), perm);
    if (result.getType() != op.getType())
      return failure();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Gives the ops a pattern makes the `tt.scope` (the source calls, see
/// tt-outline-repeated-scopes, which runs next) of the op it rewrites.
struct KeepScopes : public RewriterBase::Listener {
  static constexpr StringLiteral kScope = "tt.scope";
  Attribute scope;
  void notifyPatternBegin(const Pattern &, Operation *op) override {
    scope = op->getAttr(kScope);
  }
  void notifyPatternEnd(const Pattern &, LogicalResult) override {
    scope = nullptr;
  }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (scope && !op->hasAttr(kScope))
      op->setAttr(kScope, scope);
  }
};

struct TTChannelsLastPass
    : public tt::impl::TTChannelsLastBase<TTChannelsLastPass> {
  using TTChannelsLastBase::TTChannelsLastBase;

  void runOnOperation() override {
    // Without convolutions nothing moves: the program is left as it is
    // (no folding either; tt-outline-repeated-scopes runs next).
    if (!getOperation()
             ->walk([](ConvOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      return;
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ConvToChannelsLast>(ctx, grouped);
    patterns
        .add<SinkThroughElementwise, SinkThroughReduction<SumOp>,
             SinkThroughReduction<MeanOp>, SinkThroughReduction<ReduceMaxOp>,
             SinkThroughReduction<ReduceMinOp>, SinkThroughReduction<ProdOp>,
             SinkThroughReshape, SinkThroughConcat, SinkThroughWindows,
             UnitTransposeToReshape, ComposeMoving>(ctx);
    TransposeOp::getCanonicalizationPatterns(patterns, ctx);
    ReshapeOp::getCanonicalizationPatterns(patterns, ctx);
    // Transposes only move down, towards the results: the rewriting ends.
    KeepScopes keepScopes;
    GreedyRewriteConfig config;
    config.setListener(&keepScopes);
    if (failed(tt::applyPatterns(*this, getOperation(), std::move(patterns),
                                 tt::Convergence::Required, config)))
      return;
    getOperation()->walk([](TransposeOp op) { op->removeAttr(kMovingAttr); });
  }
};

} // namespace
