//===- TTToLinalg.cpp - Convert tt ops to linalg on tensors ---------------===//

#include "TinyTensor/Conversion/TTToLinalg/TTToLinalg.h"

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_CONVERTTTTOLINALG
#include "TinyTensor/Conversion/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

using ScalarFn =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Type)>;

/// The op's static result type, or a match failure explaining why not.
FailureOr<RankedTensorType> staticResultType(Operation *op,
                                             PatternRewriter &rewriter) {
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "operands must have static shapes (run --tt-infer-shapes)");
  }
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return rewriter.notifyMatchFailure(
        op, "result must have a static shape (run --tt-infer-shapes)");
  return type;
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

/// A tensor of `type` filled with the scalar `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value) {
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, emptyTensor(b, loc, type))
      .getResult(0);
}

/// The indexing map that reads `operandShape` when iterating over
/// `resultShape` under NumPy broadcasting: leading result dimensions the
/// operand lacks are dropped and a size-1 dimension that stretches reads
/// index 0.
AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                       ArrayRef<int64_t> resultShape) {
  int64_t offset = resultShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [d, size] : llvm::enumerate(operandShape)) {
    if (size == 1 && resultShape[offset + d] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(offset + d, ctx));
  }
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

/// Builds a parallel linalg.generic producing `resultType` from `inputs`
/// broadcast to its shape; `fn` computes one result element.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn fn) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(
        broadcastMap(ctx, cast<RankedTensorType>(input.getType()).getShape(),
                     resultType.getShape()));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Type elementType = resultType.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, emptyTensor(b, loc, resultType), maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = fn(nb, nloc, args.drop_back(), elementType);
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

/// Reshapes a static tensor to `target` (same number of elements) through
/// collapse_shape / expand_shape.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType target) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source == target)
    return value;
  if (source.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, target, value,
                                         ArrayRef<ReassociationIndices>{});
  if (target.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, target, value,
                                           ArrayRef<ReassociationIndices>{});
  Value flat = value;
  if (source.getRank() != 1) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, source.getRank()));
    flat = tensor::CollapseShapeOp::create(
        b, loc,
        RankedTensorType::get({source.getNumElements()},
                              source.getElementType()),
        value, ArrayRef<ReassociationIndices>{all});
  }
  if (target.getRank() == 1)
    return flat;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, target.getRank()));
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

bool isFloat(Type t) { return isa<FloatType>(t); }

/// Base of the tt -> linalg patterns: checks that the op's shapes are
/// static and replaces it with the value `lower` builds.
template <typename OpTy>
struct StaticShapeLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    FailureOr<RankedTensorType> type = staticResultType(op, rewriter);
    if (failed(type))
      return failure();
    rewriter.replaceOp(op, lower(op, adaptor, rewriter, *type));
    return success();
  }

  /// Builds the replacement of `op`, whose result type is `type`.
  virtual Value lower(OpTy op, OpAdaptor adaptor, OpBuilder &b,
                      RankedTensorType type) const = 0;
};

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Converts an elementwise op with a scalar body given by `fn`.
template <typename OpTy>
struct ElementwiseLowering : public StaticShapeLowering<OpTy> {
  using StaticShapeLowering<OpTy>::StaticShapeLowering;
  using OpAdaptor = typename StaticShapeLowering<OpTy>::OpAdaptor;

  Value lower(OpTy op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    return buildElementwise(
        b, op.getLoc(), type, adaptor.getOperands(),
        [&](OpBuilder &nb, Location loc, ValueRange args, Type resultElement) {
          return scalar(op, nb, loc, args, resultElement);
        });
  }

  /// The scalar computation; specialised per op below.
  static Value scalar(OpTy op, OpBuilder &b, Location loc, ValueRange args,
                      Type resultElement);
};

/// Float op or signed-integer op depending on the element type.
template <typename FloatOp, typename IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0].getType()))
    return FloatOp::create(b, loc, args);
  return IntOp::create(b, loc, args);
}

#define TT_FLOAT_OR_INT(OP, FLOAT_OP, INT_OP)                                  \
  template <>                                                                  \
  Value ElementwiseLowering<OP>::scalar(OP, OpBuilder &b, Location loc,        \
                                        ValueRange args, Type) {               \
    return floatOrInt<FLOAT_OP, INT_OP>(b, loc, args);                         \
  }
TT_FLOAT_OR_INT(AddOp, arith::AddFOp, arith::AddIOp)
TT_FLOAT_OR_INT(SubOp, arith::SubFOp, arith::SubIOp)
TT_FLOAT_OR_INT(MulOp, arith::MulFOp, arith::MulIOp)
TT_FLOAT_OR_INT(DivOp, arith::DivFOp, arith::DivSIOp)
TT_FLOAT_OR_INT(PowOp, math::PowFOp, math::IPowIOp)
TT_FLOAT_OR_INT(MaxOp, arith::MaximumFOp, arith::MaxSIOp)
TT_FLOAT_OR_INT(MinOp, arith::MinimumFOp, arith::MinSIOp)
TT_FLOAT_OR_INT(AbsOp, math::AbsFOp, math::AbsIOp)
#undef TT_FLOAT_OR_INT

#define TT_FLOAT_ONLY(OP, FLOAT_OP)                                            \
  template <>                                                                  \
  Value ElementwiseLowering<OP>::scalar(OP, OpBuilder &b, Location loc,        \
                                        ValueRange args, Type) {               \
    return FLOAT_OP::create(b, loc, args[0]);                                  \
  }
TT_FLOAT_ONLY(ExpOp, math::ExpOp)
TT_FLOAT_ONLY(LogOp, math::LogOp)
TT_FLOAT_ONLY(TanhOp, math::TanhOp)
TT_FLOAT_ONLY(SqrtOp, math::SqrtOp)
TT_FLOAT_ONLY(RsqrtOp, math::RsqrtOp)
TT_FLOAT_ONLY(ErfOp, math::ErfOp)
#undef TT_FLOAT_ONLY

template <>
Value ElementwiseLowering<NegOp>::scalar(NegOp, OpBuilder &b, Location loc,
                                         ValueRange args, Type type) {
  if (isFloat(type))
    return arith::NegFOp::create(b, loc, args[0]);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  return arith::SubIOp::create(b, loc, zero, args[0]);
}

template <>
Value ElementwiseLowering<CmpOp>::scalar(CmpOp op, OpBuilder &b, Location loc,
                                         ValueRange args, Type) {
  if (isFloat(args[0].getType())) {
    arith::CmpFPredicate pred;
    switch (op.getPredicate()) {
    case CmpPredicate::eq:
      pred = arith::CmpFPredicate::OEQ;
      break;
    case CmpPredicate::ne:
      pred = arith::CmpFPredicate::UNE;
      break;
    case CmpPredicate::lt:
      pred = arith::CmpFPredicate::OLT;
      break;
    case CmpPredicate::le:
      pred = arith::CmpFPredicate::OLE;
      break;
    case CmpPredicate::gt:
      pred = arith::CmpFPredicate::OGT;
      break;
    case CmpPredicate::ge:
      pred = arith::CmpFPredicate::OGE;
      break;
    }
    return arith::CmpFOp::create(b, loc, pred, args[0], args[1]);
  }
  arith::CmpIPredicate pred;
  switch (op.getPredicate()) {
  case CmpPredicate::eq:
    pred = arith::CmpIPredicate::eq;
    break;
  case CmpPredicate::ne:
    pred = arith::CmpIPredicate::ne;
    break;
  case CmpPredicate::lt:
    pred = arith::CmpIPredicate::slt;
    break;
  case CmpPredicate::le:
    pred = arith::CmpIPredicate::sle;
    break;
  case CmpPredicate::gt:
    pred = arith::CmpIPredicate::sgt;
    break;
  case CmpPredicate::ge:
    pred = arith::CmpIPredicate::sge;
    break;
  }
  return arith::CmpIOp::create(b, loc, pred, args[0], args[1]);
}

template <>
Value ElementwiseLowering<SelectOp>::scalar(SelectOp, OpBuilder &b,
                                            Location loc, ValueRange args,
                                            Type) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

/// Converts one scalar between tt element types with NumPy's astype rules.
Value castScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (to.isInteger(1)) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(from));
    if (isFloat(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (isFloat(from) && isFloat(to)) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (isFloat(from))
    return arith::FPToSIOp::create(b, loc, to, v);
  if (from.isInteger(1))
    return isFloat(to) ? Value(arith::UIToFPOp::create(b, loc, to, v))
                       : Value(arith::ExtUIOp::create(b, loc, to, v));
  return arith::SIToFPOp::create(b, loc, to, v);
}

template <>
Value ElementwiseLowering<CastOp>::scalar(CastOp, OpBuilder &b, Location loc,
                                          ValueRange args, Type type) {
  return castScalar(b, loc, args[0], type);
}

template <>
Value ElementwiseLowering<BroadcastToOp>::scalar(BroadcastToOp, OpBuilder &,
                                                 Location, ValueRange args,
                                                 Type) {
  return args[0];
}

//===----------------------------------------------------------------------===//
// Constants and reductions
//===----------------------------------------------------------------------===//

struct ConstantLowering : public StaticShapeLowering<ConstantOp> {
  using StaticShapeLowering::StaticShapeLowering;
  Value lower(ConstantOp op, OpAdaptor, OpBuilder &b,
              RankedTensorType) const override {
    return arith::ConstantOp::create(b, op.getLoc(),
                                     cast<TypedAttr>(op.getValue()));
  }
};

enum class Combiner { Add, Max };

/// Reduces `input` over `axes` (no keepdims) with `combiner`, then
/// multiplies by `factor`. f32 sums accumulate in f64 (and are scaled there)
/// before rounding back to f32: sequential f32 sums lose accuracy on long
/// axes, where NumPy's pairwise summation does not.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, Combiner combiner,
                     double factor = 1.0) {
  auto type = cast<RankedTensorType>(input.getType());
  Type et = type.getElementType();
  bool widen = combiner == Combiner::Add && et.isF32();
  Type acc = widen ? b.getF64Type() : et;
  SmallVector<int64_t> kept;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
      kept.push_back(size);
  auto accType = RankedTensorType::get(kept, acc);
  TypedAttr identity;
  if (combiner == Combiner::Add)
    identity = b.getZeroAttr(acc);
  else if (auto ft = dyn_cast<FloatType>(et))
    identity = b.getFloatAttr(
        ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/true));
  else
    identity = b.getIntegerAttr(
        et, APInt::getSignedMinValue(et.getIntOrFloatBitWidth()));
  Value init = filledTensor(b, loc, accType, identity);
  SmallVector<int64_t> sortedAxes(axes);
  llvm::sort(sortedAxes);
  auto reduce = linalg::ReduceOp::create(
      b, loc, input, init, sortedAxes,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value x = args[0];
        if (widen)
          x = arith::ExtFOp::create(nb, nloc, acc, x);
        Value r;
        if (combiner == Combiner::Add)
          r = floatOrInt<arith::AddFOp, arith::AddIOp>(nb, nloc,
                                                       ValueRange{x, args[1]});
        else
          r = floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(nb, nloc, args);
        linalg::YieldOp::create(nb, nloc, r);
      });
  Value result = reduce.getResult(0);
  if (!widen && factor == 1.0)
    return result;
  return buildElementwise(
      b, loc, RankedTensorType::get(kept, et), result,
      [&](OpBuilder &nb, Location nloc, ValueRange args, Type) -> Value {
        Value v = args[0];
        if (factor != 1.0)
          v = arith::MulFOp::create(
              nb, nloc, v,
              arith::ConstantOp::create(nb, nloc,
                                        nb.getFloatAttr(acc, factor)));
        return widen ? Value(arith::TruncFOp::create(nb, nloc, et, v)) : v;
      });
}

/// Number of elements reduced over `axes`.
int64_t reducedCount(RankedTensorType type, ArrayRef<int64_t> axes) {
  int64_t n = 1;
  for (int64_t axis : axes)
    n *= type.getDimSize(axis);
  return n;
}

template <typename OpTy>
struct ReductionLowering : public StaticShapeLowering<OpTy> {
  using StaticShapeLowering<OpTy>::StaticShapeLowering;
  using OpAdaptor = typename StaticShapeLowering<OpTy>::OpAdaptor;

  Value lower(OpTy op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Value reduced = reduce(op, b, op.getLoc(), adaptor.getInput());
    return reshapeTensor(b, op.getLoc(), reduced, type);
  }

  /// The reduction without keepdims; specialised per op below.
  static Value reduce(OpTy op, OpBuilder &b, Location loc, Value input);
};

template <>
Value ReductionLowering<SumOp>::reduce(SumOp op, OpBuilder &b, Location loc,
                                       Value input) {
  return buildReduction(b, loc, input, op.getAxes(), Combiner::Add);
}

template <>
Value ReductionLowering<ReduceMaxOp>::reduce(ReduceMaxOp op, OpBuilder &b,
                                             Location loc, Value input) {
  return buildReduction(b, loc, input, op.getAxes(), Combiner::Max);
}

template <>
Value ReductionLowering<MeanOp>::reduce(MeanOp op, OpBuilder &b, Location loc,
                                        Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  return buildReduction(b, loc, input, op.getAxes(), Combiner::Add,
                        1.0 / reducedCount(type, op.getAxes()));
}

template <>
Value ReductionLowering<VarOp>::reduce(VarOp op, OpBuilder &b, Location loc,
                                       Value input) {
  // var = sum((x - mean(x, keepdims))^2) / (N - ddof): two passes, as NumPy
  // does, for accuracy.
  auto type = cast<RankedTensorType>(input.getType());
  int64_t n = reducedCount(type, op.getAxes());
  Value mean =
      buildReduction(b, loc, input, op.getAxes(), Combiner::Add, 1.0 / n);
  SmallVector<int64_t> keptShape(type.getShape());
  for (int64_t axis : op.getAxes())
    keptShape[axis] = 1;
  Value meanKept = reshapeTensor(
      b, loc, mean, RankedTensorType::get(keptShape, type.getElementType()));
  Value squares = buildElementwise(
      b, loc, type, ValueRange{input, meanKept},
      [](OpBuilder &nb, Location nloc, ValueRange args, Type) -> Value {
        Value d = arith::SubFOp::create(nb, nloc, args[0], args[1]);
        return arith::MulFOp::create(nb, nloc, d, d);
      });
  double divisor = static_cast<double>(n - op.getDdof());
  // NumPy gives inf/nan (with a warning) when N - ddof <= 0.
  return buildReduction(b, loc, squares, op.getAxes(), Combiner::Add,
                        divisor > 0 ? 1.0 / divisor
                                    : std::numeric_limits<double>::infinity());
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

struct MatmulLowering : public StaticShapeLowering<MatmulOp> {
  using StaticShapeLowering::StaticShapeLowering;

  Value lower(MatmulOp op, OpAdaptor adaptor, OpBuilder &builder,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    Type et = lt.getElementType();
    if (lt.getRank() > 2 || rt.getRank() > 2) {
      return batched(builder, loc, lhs, rhs, type);
    }

    // Vector and matrix cases map to dedicated named ops.
    Value zeroInit = filledTensor(builder, loc, type, builder.getZeroAttr(et));
    Value result;
    if (lt.getRank() == 1 && rt.getRank() == 1)
      result =
          linalg::DotOp::create(builder, loc, ValueRange{lhs, rhs}, zeroInit)
              .getResult(0);
    else if (lt.getRank() == 2 && rt.getRank() == 1)
      result =
          linalg::MatvecOp::create(builder, loc, ValueRange{lhs, rhs}, zeroInit)
              .getResult(0);
    else if (lt.getRank() == 1 && rt.getRank() == 2)
      result =
          linalg::VecmatOp::create(builder, loc, ValueRange{lhs, rhs}, zeroInit)
              .getResult(0);
    else
      result =
          linalg::MatmulOp::create(builder, loc, ValueRange{lhs, rhs}, zeroInit)
              .getResult(0);
    return result;
  }

  /// Batched matmul: promote 1-D operands to matrices, then use
  /// linalg.batch_matmul when both are rank 3 with equal batch sizes, else a
  /// linalg.generic whose maps broadcast the batch dimensions.
  static Value batched(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       RankedTensorType resultType) {
    MLIRContext *ctx = b.getContext();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    Type et = lt.getElementType();
    if (lt.getRank() == 1) {
      lt = RankedTensorType::get({1, lt.getDimSize(0)}, et);
      lhs = reshapeTensor(b, loc, lhs, lt);
    }
    if (rt.getRank() == 1) {
      rt = RankedTensorType::get({rt.getDimSize(0), 1}, et);
      rhs = reshapeTensor(b, loc, rhs, rt);
    }
    ArrayRef<int64_t> ls = lt.getShape(), rs = rt.getShape();
    int64_t m = ls[ls.size() - 2];
    int64_t n = rs.back();
    // Full result shape with both matrix dimensions.
    SmallVector<int64_t> batch(resultType.getShape());
    batch.resize(std::max(ls.size(), rs.size()) - 2);
    SmallVector<int64_t> full(batch);
    full.append({m, n});
    auto fullType = RankedTensorType::get(full, et);
    Value init = filledTensor(b, loc, fullType, b.getZeroAttr(et));

    Value result;
    if (ls.size() == 3 && rs.size() == 3 && ls[0] == rs[0]) {
      result = linalg::BatchMatmulOp::create(b, loc, ValueRange{lhs, rhs}, init)
                   .getResult(0);
    } else {
      // Iteration space: (batch..., m, n, k).
      int64_t nb = batch.size(), dims = nb + 3;
      auto operandMap = [&](ArrayRef<int64_t> shape, int64_t row, int64_t col) {
        int64_t offset = nb - (static_cast<int64_t>(shape.size()) - 2);
        SmallVector<AffineExpr> exprs;
        for (int64_t d = 0, e = shape.size() - 2; d < e; ++d)
          exprs.push_back(shape[d] == 1 && batch[offset + d] != 1
                              ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(offset + d, ctx));
        exprs.push_back(getAffineDimExpr(row, ctx));
        exprs.push_back(getAffineDimExpr(col, ctx));
        return AffineMap::get(dims, 0, exprs, ctx);
      };
      SmallVector<AffineExpr> outExprs;
      for (int64_t d = 0; d < nb + 2; ++d)
        outExprs.push_back(getAffineDimExpr(d, ctx));
      SmallVector<AffineMap> maps = {operandMap(ls, nb, nb + 2),
                                     operandMap(rs, nb + 2, nb + 1),
                                     AffineMap::get(dims, 0, outExprs, ctx)};
      SmallVector<utils::IteratorType> iterators(nb + 2,
                                                 utils::IteratorType::parallel);
      iterators.push_back(utils::IteratorType::reduction);
      result =
          linalg::GenericOp::create(
              b, loc, fullType, ValueRange{lhs, rhs}, init, maps, iterators,
              [&](OpBuilder &ib, Location il, ValueRange args) {
                Value p = floatOrInt<arith::MulFOp, arith::MulIOp>(
                    ib, il, args.take_front(2));
                Value s = floatOrInt<arith::AddFOp, arith::AddIOp>(
                    ib, il, ValueRange{p, args[2]});
                linalg::YieldOp::create(ib, il, s);
              })
              .getResult(0);
    }
    return reshapeTensor(b, loc, result, resultType);
  }
};

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

struct TransposeLowering : public StaticShapeLowering<TransposeOp> {
  using StaticShapeLowering::StaticShapeLowering;
  Value lower(TransposeOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Value init = emptyTensor(b, op.getLoc(), type);
    return linalg::TransposeOp::create(b, op.getLoc(), adaptor.getInput(), init,
                                       op.getPermutation())
        .getResult()[0];
  }
};

struct ReshapeLowering : public StaticShapeLowering<ReshapeOp> {
  using StaticShapeLowering::StaticShapeLowering;
  Value lower(ReshapeOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    return reshapeTensor(b, op.getLoc(), adaptor.getInput(), type);
  }
};

struct SliceLowering : public StaticShapeLowering<SliceOp> {
  using StaticShapeLowering::StaticShapeLowering;
  Value lower(SliceOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    return tensor::ExtractSliceOp::create(
        b, op.getLoc(), type, adaptor.getInput(), ValueRange{}, ValueRange{},
        ValueRange{}, op.getStarts(), op.getSizes(), op.getStrides());
  }
};

struct ConcatLowering : public StaticShapeLowering<ConcatOp> {
  using StaticShapeLowering::StaticShapeLowering;
  Value lower(ConcatOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    int64_t rank = type.getRank(), axis = op.getAxis();
    Value result = emptyTensor(b, loc, type);
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      auto it = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[axis] = offset;
      result = tensor::InsertSliceOp::create(
          b, loc, input, result, ValueRange{}, ValueRange{}, ValueRange{},
          offsets, it.getShape(), strides);
      offset += it.getDimSize(axis);
    }
    return result;
  }
};

struct GatherLowering : public StaticShapeLowering<GatherOp> {
  using StaticShapeLowering::StaticShapeLowering;
  Value lower(GatherOp op, OpAdaptor adaptor, OpBuilder &builder,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = builder.getContext();
    Value table = adaptor.getTable(), indices = adaptor.getIndices();
    auto tableType = cast<RankedTensorType>(table.getType());
    int64_t rank = type.getRank();
    int64_t indexRank = cast<RankedTensorType>(indices.getType()).getRank();
    int64_t rows = tableType.getDimSize(0);

    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        builder, loc, type, indices, emptyTensor(builder, loc, type), maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          // NumPy semantics for negative indices; out-of-range ones clamp
          // instead of reading out of bounds.
          Value id =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value n = arith::ConstantIndexOp::create(b, l, rows);
          Value last = arith::ConstantIndexOp::create(b, l, rows - 1);
          Value negative =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, id, zero);
          Value wrapped = arith::AddIOp::create(b, l, id, n);
          id = arith::SelectOp::create(b, l, negative, wrapped, id);
          id = arith::MaxSIOp::create(b, l, id, zero);
          id = arith::MinSIOp::create(b, l, id, last);
          SmallVector<Value> coords = {id};
          for (int64_t d = indexRank; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          Value v = tensor::ExtractOp::create(b, l, table, coords);
          linalg::YieldOp::create(b, l, v);
        });
    return generic.getResult(0);
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertTTToLinalgPass
    : public tt::impl::ConvertTTToLinalgBase<ConvertTTToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Shapes must be known before anything is rewritten; name every op that
    // still has a dynamic or unranked type.
    WalkResult shapes = getOperation().walk([](Operation *op) {
      if (!isa<TTDialect>(op->getDialect()))
        return WalkResult::advance();
      for (Type t :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
        auto ranked = dyn_cast<RankedTensorType>(t);
        if (!ranked || !ranked.hasStaticShape()) {
          op->emitOpError("cannot be converted to linalg: type ")
              << t
              << " is not statically shaped (run --tt-infer-shapes "
                 "first)";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (shapes.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TTDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTTToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tt::populateTTToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
               ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
               ElementwiseLowering<PowOp>, ElementwiseLowering<MaxOp>,
               ElementwiseLowering<MinOp>, ElementwiseLowering<CmpOp>,
               ElementwiseLowering<SelectOp>, ElementwiseLowering<NegOp>,
               ElementwiseLowering<AbsOp>, ElementwiseLowering<ExpOp>,
               ElementwiseLowering<LogOp>, ElementwiseLowering<TanhOp>,
               ElementwiseLowering<SqrtOp>, ElementwiseLowering<RsqrtOp>,
               ElementwiseLowering<ErfOp>, ElementwiseLowering<CastOp>,
               ElementwiseLowering<BroadcastToOp>, ConstantLowering,
               ReductionLowering<SumOp>, ReductionLowering<ReduceMaxOp>,
               ReductionLowering<MeanOp>, ReductionLowering<VarOp>,
               MatmulLowering, TransposeLowering, ReshapeLowering,
               SliceLowering, ConcatLowering, GatherLowering>(
      patterns.getContext());
}
