//===- TTToLinalg.cpp - Convert tt ops to linalg on tensors ---------------===//

#include "TinyTensor/Conversion/TTToLinalg/TTToLinalg.h"
#include "TinyTensor/Conversion/TTToLinalg/Convolution.h"

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/AffineMap.h"

#include "mlir/IR/BuiltinOps.h"
#include <limits>
#include <type_traits>

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

/// The op's ranked result type, or a match failure explaining why not.
/// Dimensions may be dynamic: the ops whose lowering needs static sizes
/// only accept static types (their ODS constraints).
FailureOr<RankedTensorType> rankedResultType(Operation *op,
                                             PatternRewriter &rewriter) {
  for (Value operand : op->getOperands())
    if (!isa<RankedTensorType>(operand.getType()))
      return rewriter.notifyMatchFailure(
          op, "operands must be ranked (run --tt-infer-shapes)");
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return rewriter.notifyMatchFailure(
        op, "result must be ranked (run --tt-infer-shapes)");
  return type;
}

/// The size of dimension `d` of `value`: a constant where static, a
/// tensor.dim where dynamic.
OpFoldResult dimSize(OpBuilder &b, Location loc, Value value, int64_t d) {
  int64_t size = cast<RankedTensorType>(value.getType()).getDimSize(d);
  if (!ShapedType::isDynamic(size))
    return b.getIndexAttr(size);
  return tensor::DimOp::create(b, loc, value, d).getResult();
}

/// The run-time sizes of the dynamic dimensions of `type`, in order, each
/// the size `source` gives for that dimension.
SmallVector<Value>
dynamicSizes(OpBuilder &b, Location loc, RankedTensorType type,
             llvm::function_ref<OpFoldResult(int64_t)> source) {
  SmallVector<Value> sizes;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, source(d)));
  return sizes;
}

/// An empty tensor of `type`; `sizes` holds one index per dynamic
/// dimension.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange sizes = {}) {
  assert(static_cast<int64_t>(sizes.size()) == type.getNumDynamicDims() &&
         "one size per dynamic dimension");
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 sizes);
}

/// A tensor of `type` filled with the scalar `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value, ValueRange sizes = {}) {
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar,
                                emptyTensor(b, loc, type, sizes))
      .getResult(0);
}

/// The indexing map that reads `operandShape` when iterating over
/// `resultShape` under NumPy broadcasting: leading result dimensions the
/// operand lacks are dropped and a size-1 dimension that stretches reads
/// index 0. A dynamic operand dimension is not broadcast: its size is the
/// result's.
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

/// The size of result dimension `d` of a broadcast of `inputs`: that of
/// an input whose aligned dimension is not 1.
OpFoldResult broadcastDimSize(OpBuilder &b, Location loc, ValueRange inputs,
                              int64_t rank, int64_t d) {
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t dim = d - (rank - type.getRank());
    if (dim >= 0 && type.getDimSize(dim) != 1)
      return dimSize(b, loc, input, dim);
  }
  return b.getIndexAttr(1);
}

/// Checks at run time that two sizes agree, where one of them is dynamic.
void assertSameSize(OpBuilder &b, Location loc, OpFoldResult lhs,
                    OpFoldResult rhs, const Twine &message) {
  if (getConstantIntValue(lhs) && getConstantIntValue(rhs))
    return;
  Value eq =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            getValueOrCreateConstantIndexOp(b, loc, lhs),
                            getValueOrCreateConstantIndexOp(b, loc, rhs));
  cf::AssertOp::create(b, loc, eq, message.str());
}

/// Checks at run time that the inputs of a broadcast agree in every
/// dimension where one of them is dynamic (a dynamic size is never
/// stretched, so it must equal the others).
void assertBroadcastable(OpBuilder &b, Location loc, ValueRange inputs,
                         int64_t rank, StringRef opName) {
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<std::pair<Value, int64_t>> first;
    for (auto [idx, input] : llvm::enumerate(inputs)) {
      auto type = cast<RankedTensorType>(input.getType());
      int64_t dim = d - (rank - type.getRank());
      if (dim < 0 || type.getDimSize(dim) == 1)
        continue;
      if (!first) {
        first = {input, dim};
        continue;
      }
      auto firstType = cast<RankedTensorType>(first->first.getType());
      if (!type.isDynamicDim(dim) && !firstType.isDynamicDim(first->second))
        continue;
      assertSameSize(b, loc, dimSize(b, loc, first->first, first->second),
                     dimSize(b, loc, input, dim),
                     opName + ": operand #" + Twine(idx) + " dimension " +
                         Twine(dim) + " does not match the other operands " +
                         "(a dynamic size is not broadcast)");
    }
  }
}

/// Builds a parallel linalg.generic producing `resultType` from `inputs`
/// broadcast to its shape; `fn` computes one result element. `opName`
/// names the op in the run-time check of dynamic sizes.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn fn,
                       StringRef opName = "broadcast") {
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
  if (!resultType.hasStaticShape())
    assertBroadcastable(b, loc, inputs, resultType.getRank(), opName);
  Value init = emptyTensor(
      b, loc, resultType, dynamicSizes(b, loc, resultType, [&](int64_t d) {
        return broadcastDimSize(b, loc, inputs, resultType.getRank(), d);
      }));
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = fn(nb, nloc, args.drop_back(), elementType);
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

/// Reshapes a tensor to `target` (same number of elements) through
/// collapse_shape / expand_shape.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType target) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source == target)
    return value;
  // Adding or dropping unit dimensions (keepdims, matrix promotion) is one
  // expand or collapse; it keeps dynamic dimensions, which flattening
  // cannot.
  if (source.getRank() != target.getRank() && source.getRank() > 0 &&
      target.getRank() > 0) {
    bool expand = source.getRank() < target.getRank();
    if (std::optional<SmallVector<ReassociationIndices>> groups =
            getReassociationIndicesForReshape(expand ? source : target,
                                              expand ? target : source)) {
      if (expand)
        return tensor::ExpandShapeOp::create(b, loc, target, value, *groups);
      return tensor::CollapseShapeOp::create(b, loc, target, value, *groups);
    }
  }
  assert(source.hasStaticShape() && target.hasStaticShape() &&
         "a reshape through one dimension needs static shapes");
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

/// Base of the tt -> linalg patterns: checks that the op's types are
/// ranked and replaces it with the value `lower` builds.
template <typename OpTy>
struct RankedLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    FailureOr<RankedTensorType> type = rankedResultType(op, rewriter);
    if (failed(type))
      return failure();
    Value result = lower(op, adaptor, rewriter, *type);
    // A dimension may be static in the lowered value and dynamic in the
    // op's type, or the reverse (types are compatible where one is `?`).
    if (result.getType() != *type)
      result = tensor::CastOp::create(rewriter, op.getLoc(), *type, result);
    rewriter.replaceOp(op, result);
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
struct ElementwiseLowering : public RankedLowering<OpTy> {
  using RankedLowering<OpTy>::RankedLowering;
  using OpAdaptor = typename RankedLowering<OpTy>::OpAdaptor;

  Value lower(OpTy op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    return buildElementwise(
        b, op.getLoc(), type, adaptor.getOperands(),
        [&](OpBuilder &nb, Location loc, ValueRange args, Type resultElement) {
          return scalar(op, nb, loc, args, resultElement);
        },
        op->getName().getStringRef());
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
TT_FLOAT_ONLY(SinOp, math::SinOp)
TT_FLOAT_ONLY(CosOp, math::CosOp)
TT_FLOAT_ONLY(FloorOp, math::FloorOp)
TT_FLOAT_ONLY(CeilOp, math::CeilOp)
TT_FLOAT_ONLY(RoundOp, math::RoundEvenOp)
TT_FLOAT_ONLY(Exp2Op, math::Exp2Op)
TT_FLOAT_ONLY(Log2Op, math::Log2Op)
TT_FLOAT_ONLY(AtanOp, math::AtanOp)
TT_FLOAT_ONLY(TanOp, math::TanOp)
TT_FLOAT_ONLY(AsinOp, math::AsinOp)
TT_FLOAT_ONLY(AcosOp, math::AcosOp)
TT_FLOAT_ONLY(SinhOp, math::SinhOp)
TT_FLOAT_ONLY(CoshOp, math::CoshOp)
TT_FLOAT_ONLY(AsinhOp, math::AsinhOp)
TT_FLOAT_ONLY(AcoshOp, math::AcoshOp)
TT_FLOAT_ONLY(AtanhOp, math::AtanhOp)
TT_FLOAT_ONLY(Log10Op, math::Log10Op)
#undef TT_FLOAT_ONLY

#define TT_SCALAR_BINARY(OP, SCALAR_OP)                                        \
  template <>                                                                  \
  Value ElementwiseLowering<OP>::scalar(OP, OpBuilder &b, Location loc,        \
                                        ValueRange args, Type) {               \
    return SCALAR_OP::create(b, loc, args[0], args[1]);                        \
  }
TT_SCALAR_BINARY(BitwiseAndOp, arith::AndIOp)
TT_SCALAR_BINARY(BitwiseOrOp, arith::OrIOp)
TT_SCALAR_BINARY(BitwiseXorOp, arith::XOrIOp)
TT_SCALAR_BINARY(Atan2Op, math::Atan2Op)
#undef TT_SCALAR_BINARY

/// Whether the shift amount `n` is outside [0, width): PyTorch's
/// out-of-range shifts, which LLVM leaves undefined.
Value shiftOutOfRange(OpBuilder &b, Location loc, Value n) {
  unsigned width = n.getType().getIntOrFloatBitWidth();
  Value limit =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(n.getType(), width));
  // Unsigned compare: a negative amount is a huge one.
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, n, limit);
}

template <>
Value ElementwiseLowering<ShiftLeftOp>::scalar(ShiftLeftOp, OpBuilder &b,
                                               Location loc, ValueRange args,
                                               Type type) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  Value shifted = arith::ShLIOp::create(b, loc, args[0], args[1]);
  return arith::SelectOp::create(b, loc, shiftOutOfRange(b, loc, args[1]), zero,
                                 shifted);
}

template <>
Value ElementwiseLowering<ShiftRightOp>::scalar(ShiftRightOp, OpBuilder &b,
                                                Location loc, ValueRange args,
                                                Type type) {
  Value last = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, type.getIntOrFloatBitWidth() - 1));
  Value amount = arith::SelectOp::create(
      b, loc, shiftOutOfRange(b, loc, args[1]), last, args[1]);
  return arith::ShRSIOp::create(b, loc, args[0], amount);
}

// erf is odd: the sign of x is copied onto the result, so that
// erf(-0.0) = -0.0 also where a polynomial approximation gives +0.0.
template <>
Value ElementwiseLowering<ErfOp>::scalar(ErfOp, OpBuilder &b, Location loc,
                                         ValueRange args, Type) {
  Value erf = math::ErfOp::create(b, loc, args[0]);
  return math::CopySignOp::create(b, loc, erf, args[0]);
}

// log1p and expm1 by the classic corrections (Goldberg; Kahan) on log and
// exp, accurate to a few ulps near zero where log(1 + x) and exp(x) - 1
// lose every digit; math.log1p/math.expm1 lower to exactly those naive
// forms in MathToLLVM.
template <>
Value ElementwiseLowering<Log1pOp>::scalar(Log1pOp, OpBuilder &b, Location loc,
                                           ValueRange args, Type type) {
  // u = 1 + x; u == 1 ? x : log(u) * x / (u - 1)
  Value x = args[0];
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1.0));
  Value u = arith::AddFOp::create(b, loc, one, x);
  Value isOne =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one);
  Value log = math::LogOp::create(b, loc, u);
  Value scaled =
      arith::DivFOp::create(b, loc, arith::MulFOp::create(b, loc, log, x),
                            arith::SubFOp::create(b, loc, u, one));
  // u = +inf (x = +inf) gives inf/inf: log(u) is right there.
  Value isInf = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, u,
      arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(type, std::numeric_limits<double>::infinity())));
  Value general = arith::SelectOp::create(b, loc, isInf, log, scaled);
  return arith::SelectOp::create(b, loc, isOne, x, general);
}

template <>
Value ElementwiseLowering<Expm1Op>::scalar(Expm1Op, OpBuilder &b, Location loc,
                                           ValueRange args, Type type) {
  // u = exp(x); u == 1 ? x : (u - 1 == -1 ? -1 : (u - 1) * x / log(u))
  Value x = args[0];
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1.0));
  Value u = math::ExpOp::create(b, loc, x);
  Value um1 = arith::SubFOp::create(b, loc, u, one);
  Value isOne =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one);
  Value minusOne =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(type, -1.0));
  Value saturated =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, um1, minusOne);
  Value inf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, std::numeric_limits<double>::infinity()));
  Value isInf =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, inf);
  Value scaled =
      arith::DivFOp::create(b, loc, arith::MulFOp::create(b, loc, um1, x),
                            math::LogOp::create(b, loc, u));
  Value general = arith::SelectOp::create(
      b, loc, saturated, minusOne,
      arith::SelectOp::create(b, loc, isInf, u, scaled));
  return arith::SelectOp::create(b, loc, isOne, x, general);
}

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
  if (isFloat(to))
    return arith::SIToFPOp::create(b, loc, to, v);
  // Between integer widths: sign-extend, or wrap (keep the low bits) as
  // NumPy's astype does.
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::TruncIOp::create(b, loc, to, v);
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

struct ConstantLowering : public RankedLowering<ConstantOp> {
  using RankedLowering::RankedLowering;
  Value lower(ConstantOp op, OpAdaptor, OpBuilder &b,
              RankedTensorType) const override {
    return arith::ConstantOp::create(b, op.getLoc(),
                                     cast<TypedAttr>(op.getValue()));
  }
};

enum class Combiner { Add, Max, Min, Mul };

/// The sizes of the dimensions of `input` that a reduction over `axes`
/// keeps, as tensor.dim ops for the dynamic ones.
SmallVector<Value> keptDynamicSizes(OpBuilder &b, Location loc, Value input,
                                    ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (!llvm::is_contained(axes, d) && type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, input, d));
  return sizes;
}

/// The value of an f64 scalar that is a constant.
std::optional<double> constantF64(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      return f.getValueAsDouble();
  return std::nullopt;
}

Value constantF64(OpBuilder &b, Location loc, double x) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(x));
}

/// Reduces `input` over `axes` (no keepdims) with `combiner`, then
/// multiplies by `factor` (an f64 scalar) when given. f32 sums accumulate
/// in f64 (and are scaled there) before rounding back to f32: sequential
/// f32 sums lose accuracy on long axes, where NumPy's pairwise summation
/// does not.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, Combiner combiner,
                     Value factor = nullptr) {
  auto type = cast<RankedTensorType>(input.getType());
  Type et = type.getElementType();
  bool widen = combiner == Combiner::Add && et.isF32();
  Type acc = widen ? b.getF64Type() : et;
  SmallVector<int64_t> kept;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
      kept.push_back(size);
  auto accType = RankedTensorType::get(kept, acc);
  SmallVector<Value> keptSizes = keptDynamicSizes(b, loc, input, axes);
  TypedAttr identity;
  bool min = combiner == Combiner::Min;
  if (combiner == Combiner::Add)
    identity = b.getZeroAttr(acc);
  else if (combiner == Combiner::Mul)
    identity = isa<FloatType>(et) ? TypedAttr(b.getFloatAttr(et, 1.0))
                                  : TypedAttr(b.getIntegerAttr(et, 1));
  else if (auto ft = dyn_cast<FloatType>(et))
    identity = b.getFloatAttr(
        ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/!min));
  else
    identity = b.getIntegerAttr(
        et, min ? APInt::getSignedMaxValue(et.getIntOrFloatBitWidth())
                : APInt::getSignedMinValue(et.getIntOrFloatBitWidth()));
  Value init = filledTensor(b, loc, accType, identity, keptSizes);
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
        else if (combiner == Combiner::Max)
          r = floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(nb, nloc, args);
        else if (combiner == Combiner::Min)
          r = floatOrInt<arith::MinimumFOp, arith::MinSIOp>(nb, nloc, args);
        else
          r = floatOrInt<arith::MulFOp, arith::MulIOp>(nb, nloc, args);
        linalg::YieldOp::create(nb, nloc, r);
      });
  Value result = reduce.getResult(0);
  if (!widen && !factor)
    return result;
  std::optional<double> constant = factor ? constantF64(factor) : std::nullopt;
  if (factor && !constant && !acc.isF64())
    factor = arith::TruncFOp::create(b, loc, acc, factor);
  return buildElementwise(
      b, loc, RankedTensorType::get(kept, et), result,
      [&](OpBuilder &nb, Location nloc, ValueRange args, Type) -> Value {
        Value v = args[0];
        // A constant factor is a constant of the body.
        if (constant)
          v = arith::MulFOp::create(
              nb, nloc, v,
              arith::ConstantOp::create(nb, nloc,
                                        nb.getFloatAttr(acc, *constant)));
        else if (factor)
          v = arith::MulFOp::create(nb, nloc, v, factor);
        return widen ? Value(arith::TruncFOp::create(nb, nloc, et, v)) : v;
      });
}

/// The number of elements of `input` over `axes`, an f64 scalar (a
/// constant when those dimensions are static).
Value reducedCount(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t n = 1;
  for (int64_t axis : axes)
    if (!type.isDynamicDim(axis))
      n *= type.getDimSize(axis);
  if (llvm::none_of(axes, [&](int64_t a) { return type.isDynamicDim(a); }))
    return constantF64(b, loc, static_cast<double>(n));
  Value count = arith::ConstantIndexOp::create(b, loc, n);
  for (int64_t axis : axes)
    if (type.isDynamicDim(axis))
      count = arith::MulIOp::create(b, loc, count,
                                    tensor::DimOp::create(b, loc, input, axis));
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), i64);
}

/// 1 / x for an f64 scalar.
Value reciprocal(OpBuilder &b, Location loc, Value x) {
  if (std::optional<double> c = constantF64(x))
    return constantF64(b, loc, 1.0 / *c);
  return arith::DivFOp::create(b, loc, constantF64(b, loc, 1.0), x);
}

template <typename OpTy>
struct ReductionLowering : public RankedLowering<OpTy> {
  using RankedLowering<OpTy>::RankedLowering;
  using OpAdaptor = typename RankedLowering<OpTy>::OpAdaptor;

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
Value ReductionLowering<ReduceMinOp>::reduce(ReduceMinOp op, OpBuilder &b,
                                             Location loc, Value input) {
  return buildReduction(b, loc, input, op.getAxes(), Combiner::Min);
}

template <>
Value ReductionLowering<ProdOp>::reduce(ProdOp op, OpBuilder &b, Location loc,
                                        Value input) {
  return buildReduction(b, loc, input, op.getAxes(), Combiner::Mul);
}

/// argmax / argmin along one axis: a linalg.generic carrying the best value
/// and its index; an element replaces the best when it is strictly better
/// (the first of equal ones wins) or is the first NaN.
template <typename OpTy>
struct ArgReductionLowering : public RankedLowering<OpTy> {
  using RankedLowering<OpTy>::RankedLowering;
  using OpAdaptor = typename RankedLowering<OpTy>::OpAdaptor;
  static constexpr bool isMax = std::is_same_v<OpTy, ArgMaxOp>;

  Value lower(OpTy op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type et = inputType.getElementType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = inputType.getRank();
    SmallVector<int64_t> kept;
    SmallVector<AffineExpr> keptExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d != axis) {
        kept.push_back(inputType.getDimSize(d));
        keptExprs.push_back(b.getAffineDimExpr(d));
      }
    }
    TypedAttr worst;
    if (auto ft = dyn_cast<FloatType>(et))
      worst = b.getFloatAttr(
          ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/isMax));
    else
      worst = b.getIntegerAttr(
          et, isMax ? APInt::getSignedMinValue(et.getIntOrFloatBitWidth())
                    : APInt::getSignedMaxValue(et.getIntOrFloatBitWidth()));
    Type i32 = b.getI32Type();
    SmallVector<Value> keptSizes = keptDynamicSizes(b, loc, input, {axis});
    Value best =
        filledTensor(b, loc, RankedTensorType::get(kept, et), worst, keptSizes);
    Value index = filledTensor(b, loc, RankedTensorType::get(kept, i32),
                               b.getI32IntegerAttr(0), keptSizes);
    AffineMap identity = b.getMultiDimIdentityMap(rank);
    AffineMap reduced = AffineMap::get(rank, 0, keptExprs, b.getContext());
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{best.getType(), index.getType()}, ValueRange{input},
        ValueRange{best, index},
        ArrayRef<AffineMap>{identity, reduced, reduced}, iterators,
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value x = args[0], cur = args[1], curIndex = args[2];
          Value take;
          if (isa<FloatType>(et)) {
            Value better = arith::CmpFOp::create(
                nb, nloc,
                isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                x, cur);
            Value xNan = arith::CmpFOp::create(nb, nloc,
                                               arith::CmpFPredicate::UNO, x, x);
            Value curNumber = arith::CmpFOp::create(
                nb, nloc, arith::CmpFPredicate::ORD, cur, cur);
            take = arith::OrIOp::create(
                nb, nloc, better,
                arith::AndIOp::create(nb, nloc, xNan, curNumber));
          } else {
            take = arith::CmpIOp::create(nb, nloc,
                                         isMax ? arith::CmpIPredicate::sgt
                                               : arith::CmpIPredicate::slt,
                                         x, cur);
          }
          Value i = arith::IndexCastOp::create(
              nb, nloc, i32, linalg::IndexOp::create(nb, nloc, axis));
          linalg::YieldOp::create(
              nb, nloc,
              ValueRange{arith::SelectOp::create(nb, nloc, take, x, cur),
                         arith::SelectOp::create(nb, nloc, take, i, curIndex)});
        });
    return reshapeTensor(b, loc, generic.getResult(1), type);
  }
};

/// True where (x, ix) sorts strictly before (y, iy): in value order (NaN
/// above every number), ties by index, which makes the order total and the
/// sort stable.
Value sortsBefore(OpBuilder &b, Location loc, Value x, Value ix, Value y,
                  Value iy, bool descending) {
  Value earlier =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ix, iy);
  if (!isa<FloatType>(x.getType())) {
    Value ordered = arith::CmpIOp::create(
        b, loc,
        descending ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, x,
        y);
    Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
    return arith::OrIOp::create(b, loc, ordered,
                                arith::AndIOp::create(b, loc, same, earlier));
  }
  auto cmp = [&](arith::CmpFPredicate p, Value u, Value v) {
    return arith::CmpFOp::create(b, loc, p, u, v).getResult();
  };
  Value nanX = cmp(arith::CmpFPredicate::UNO, x, x);
  Value nanY = cmp(arith::CmpFPredicate::UNO, y, y);
  Value ordered = cmp(
      descending ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, y);
  // A number before a NaN (ascending), a NaN before a number (descending).
  Value nanOrder =
      descending ? arith::AndIOp::create(b, loc, nanX,
                                         cmp(arith::CmpFPredicate::ORD, y, y))
                       .getResult()
                 : arith::AndIOp::create(b, loc, nanY,
                                         cmp(arith::CmpFPredicate::ORD, x, x))
                       .getResult();
  Value same =
      arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OEQ, x, y),
                           arith::AndIOp::create(b, loc, nanX, nanY));
  return arith::OrIOp::create(b, loc,
                              arith::OrIOp::create(b, loc, ordered, nanOrder),
                              arith::AndIOp::create(b, loc, same, earlier));
}

/// sort along one axis: a bitonic sorting network over (value, index)
/// pairs. The axis is padded to a power of two N with elements that sort
/// after every real one (NaN ascending, -inf descending; integer extremes;
/// their indices are the largest), and each of the log2(N)(log2(N)+1)/2
/// compare-exchange stages is one parallel linalg.generic over the axis
/// viewed as [N / 2j, 2, j], whose two halves are the pairs j apart.
/// O(N log^2 N) per row; stable through the index tie-break.
struct SortLowering : public OpConversionPattern<SortOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SortOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "operands must have static shapes (run --tt-infer-shapes)");
    Location loc = op.getLoc();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = type.getRank();
    // With many rows, the network runs on the transpose (the axis first),
    // so that every stage's innermost, contiguous loop is over rows: whole
    // vectors even where the pairs are 1, 2 or 4 apart.
    int64_t rows =
        type.getNumElements() / std::max<int64_t>(type.getDimSize(axis), 1);
    if (axis != 0 && rows >= kSortTransposeRows) {
      SmallVector<int64_t> perm = {axis};
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis)
          perm.push_back(d);
      SmallVector<int64_t> inverse(rank);
      for (int64_t d = 0; d < rank; ++d)
        inverse[perm[d]] = d;
      auto [values, indices] =
          sort(rewriter, loc, transpose(rewriter, loc, input, perm), 0,
               op.getDescending());
      rewriter.replaceOp(op, {transpose(rewriter, loc, values, inverse),
                              transpose(rewriter, loc, indices, inverse)});
      return success();
    }
    auto [values, indices] =
        sort(rewriter, loc, input, axis, op.getDescending());
    rewriter.replaceOp(op, {values, indices});
    return success();
  }

private:
  /// Rows from which the network runs with the axis first.
  static constexpr int64_t kSortTransposeRows = 16;

  static Value transpose(OpBuilder &b, Location loc, Value value,
                         ArrayRef<int64_t> perm) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape;
    for (int64_t d : perm)
      shape.push_back(type.getDimSize(d));
    Value init = emptyTensor(
        b, loc, RankedTensorType::get(shape, type.getElementType()));
    return linalg::TransposeOp::create(b, loc, value, init, perm)
        .getResult()[0];
  }

  /// (values, i32 indices) of `input` sorted along `axis`.
  static std::pair<Value, Value> sort(OpBuilder &b, Location loc, Value input,
                                      int64_t axis, bool descending) {
    auto type = cast<RankedTensorType>(input.getType());
    Type et = type.getElementType();
    Type i32 = b.getI32Type();
    int64_t rank = type.getRank();
    int64_t n = type.getDimSize(axis);
    int64_t padded = static_cast<int64_t>(llvm::PowerOf2Ceil(n));

    // Padded values and their indices (an iota along the axis).
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = padded;
    auto valuesType = RankedTensorType::get(shape, et);
    auto indicesType = RankedTensorType::get(shape, i32);
    Value values = input;
    if (padded != n) {
      TypedAttr pad;
      if (auto ft = dyn_cast<FloatType>(et))
        pad =
            descending
                ? b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(),
                                                     /*Negative=*/true))
                : b.getFloatAttr(ft, APFloat::getQNaN(ft.getFloatSemantics()));
      else
        pad = b.getIntegerAttr(
            et, descending
                    ? APInt::getSignedMinValue(et.getIntOrFloatBitWidth())
                    : APInt::getSignedMaxValue(et.getIntOrFloatBitWidth()));
      values = tensor::InsertSliceOp::create(
          b, loc, input, filledTensor(b, loc, valuesType, pad),
          SmallVector<OpFoldResult>(rank, b.getIndexAttr(0)),
          getAsIndexOpFoldResult(b.getContext(), type.getShape()),
          SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
    }
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    AffineMap identity = b.getMultiDimIdentityMap(rank);
    Value indices = linalg::GenericOp::create(
                        b, loc, TypeRange{indicesType}, ValueRange{},
                        ValueRange{emptyTensor(b, loc, indicesType)},
                        ArrayRef<AffineMap>{identity}, parallel,
                        [&](OpBuilder &nb, Location l, ValueRange) {
                          Value i = arith::IndexCastOp::create(
                              nb, l, i32, linalg::IndexOp::create(nb, l, axis));
                          linalg::YieldOp::create(nb, l, ValueRange{i});
                        })
                        .getResult(0);

    // The stages, on the axis split into [padded / 2j, 2, j].
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis)
        groups.push_back({d});
      else if (d == axis)
        groups.push_back({d, d + 1, d + 2});
      else
        groups.push_back({d + 2});
    }
    // Each stage reads the two elements of every pair (the halves of the
    // axis viewed as [padded / 2j, 2, j]) and writes both.
    SmallVector<utils::IteratorType> stageIterators(
        rank + 2, utils::IteratorType::parallel);
    auto half = [&](int64_t which) {
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d < rank + 2; ++d)
        exprs.push_back(d == axis + 1 ? b.getAffineConstantExpr(which)
                                      : b.getAffineDimExpr(d));
      return AffineMap::get(rank + 2, 0, exprs, b.getContext());
    };
    AffineMap first = half(0), second = half(1),
              whole = b.getMultiDimIdentityMap(rank + 2);
    for (int64_t k = 2; k <= padded; k *= 2) {
      for (int64_t j = k / 2; j >= 1; j /= 2) {
        SmallVector<int64_t> split;
        for (int64_t d = 0; d < rank; ++d) {
          if (d == axis)
            split.append({padded / (2 * j), 2, j});
          else
            split.push_back(shape[d]);
        }
        auto splitValues = RankedTensorType::get(split, et);
        auto splitIndices = RankedTensorType::get(split, i32);
        Value v =
            tensor::ExpandShapeOp::create(b, loc, splitValues, values, groups);
        Value ix = tensor::ExpandShapeOp::create(b, loc, splitIndices, indices,
                                                 groups);
        auto stage = linalg::GenericOp::create(
            b, loc, TypeRange{splitValues, splitIndices},
            ValueRange{v, v, ix, ix},
            ValueRange{emptyTensor(b, loc, splitValues),
                       emptyTensor(b, loc, splitIndices)},
            ArrayRef<AffineMap>{first, second, first, second, whole, whole},
            stageIterators, [&](OpBuilder &nb, Location l, ValueRange args) {
              Value x0 = args[0], x1 = args[1], i0 = args[2], i1 = args[3];
              // The pair's block of k elements is in order (ascending) if
              // bit k of its position, (a * 2j) & k, is clear.
              Value a = linalg::IndexOp::create(nb, l, axis);
              Value upper = linalg::IndexOp::create(nb, l, axis + 1);
              auto index = [&](int64_t c) {
                return arith::ConstantIndexOp::create(nb, l, c).getResult();
              };
              Value position = arith::MulIOp::create(nb, l, a, index(2 * j));
              Value inOrder = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::eq,
                  arith::AndIOp::create(nb, l, position, index(k)), index(0));
              Value firstFirst = sortsBefore(nb, l, x0, i0, x1, i1, descending);
              Value keep = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::eq, firstFirst, inOrder);
              // The pair's first position takes its first element if the
              // pair keeps its order; the second position the other one.
              Value atSecond = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::eq, upper, index(1));
              Value takeFirst = arith::XOrIOp::create(nb, l, keep, atSecond);
              linalg::YieldOp::create(
                  nb, l,
                  ValueRange{
                      arith::SelectOp::create(nb, l, takeFirst, x0, x1),
                      arith::SelectOp::create(nb, l, takeFirst, i0, i1)});
            });
        values = tensor::CollapseShapeOp::create(b, loc, valuesType,
                                                 stage.getResult(0), groups);
        indices = tensor::CollapseShapeOp::create(b, loc, indicesType,
                                                  stage.getResult(1), groups);
      }
    }
    if (padded != n) {
      SmallVector<OpFoldResult> zeros(rank, b.getIndexAttr(0)),
          ones(rank, b.getIndexAttr(1)),
          sizes = getAsIndexOpFoldResult(b.getContext(), type.getShape());
      values = tensor::ExtractSliceOp::create(b, loc, type, values, zeros,
                                              sizes, ones);
      indices = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get(type.getShape(), i32), indices, zeros,
          sizes, ones);
    }
    return {values, indices};
  }
};

/// cumsum along one axis: result[0] = x[0], then an scf.for over the axis
/// computing result[i] = result[i - 1] + x[i] in the result tensor (its
/// only iteration argument, updated in place by insert_slice).
struct CumsumLowering : public RankedLowering<CumsumOp> {
  using RankedLowering::RankedLowering;

  Value lower(CumsumOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = type.getRank();
    Type et = type.getElementType();
    SmallVector<int64_t> sliceShape(type.getShape());
    sliceShape[axis] = 1;
    auto sliceType = RankedTensorType::get(sliceShape, et);
    SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
    for (int64_t size : sliceShape)
      sizes.push_back(b.getIndexAttr(size));
    auto offsetsAt = [&](OpFoldResult i) {
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
      offsets[axis] = i;
      return offsets;
    };
    Value first = tensor::ExtractSliceOp::create(
        b, loc, sliceType, input, offsetsAt(b.getIndexAttr(0)), sizes, strides);
    Value result = tensor::InsertSliceOp::create(
        b, loc, first, tensor::EmptyOp::create(b, loc, type.getShape(), et),
        offsetsAt(b.getIndexAttr(0)), sizes, strides);
    Value lb = arith::ConstantIndexOp::create(b, loc, 1);
    Value ub = arith::ConstantIndexOp::create(b, loc, type.getDimSize(axis));
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, lb, ub, step, ValueRange{result},
        [&](OpBuilder &nb, Location nloc, Value i, ValueRange iter) {
          Value previous = arith::SubIOp::create(nb, nloc, i, step);
          Value prev = tensor::ExtractSliceOp::create(
              nb, nloc, sliceType, iter[0], offsetsAt(previous), sizes,
              strides);
          Value x = tensor::ExtractSliceOp::create(
              nb, nloc, sliceType, input, offsetsAt(i), sizes, strides);
          Value sum = buildElementwise(
              nb, nloc, sliceType, ValueRange{prev, x},
              [](OpBuilder &eb, Location eloc, ValueRange args, Type) {
                return floatOrInt<arith::AddFOp, arith::AddIOp>(eb, eloc, args);
              });
          Value updated = tensor::InsertSliceOp::create(
              nb, nloc, sum, iter[0], offsetsAt(i), sizes, strides);
          scf::YieldOp::create(nb, nloc, ValueRange{updated});
        });
    return loop.getResult(0);
  }
};

template <>
Value ReductionLowering<MeanOp>::reduce(MeanOp op, OpBuilder &b, Location loc,
                                        Value input) {
  return buildReduction(
      b, loc, input, op.getAxes(), Combiner::Add,
      reciprocal(b, loc, reducedCount(b, loc, input, op.getAxes())));
}

template <>
Value ReductionLowering<VarOp>::reduce(VarOp op, OpBuilder &b, Location loc,
                                       Value input) {
  // var = sum((x - mean(x, keepdims))^2) / (N - ddof): two passes, as NumPy
  // does, for accuracy.
  auto type = cast<RankedTensorType>(input.getType());
  Value n = reducedCount(b, loc, input, op.getAxes());
  Value mean = buildReduction(b, loc, input, op.getAxes(), Combiner::Add,
                              reciprocal(b, loc, n));
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
  // NumPy gives inf/nan (with a warning) when N - ddof <= 0: the factor
  // is then +inf, not 1 / (a negative or zero divisor).
  double ddof = static_cast<double>(op.getDdof());
  if (std::optional<double> count = constantF64(n)) {
    double divisor = *count - ddof;
    return buildReduction(
        b, loc, squares, op.getAxes(), Combiner::Add,
        constantF64(b, loc,
                    divisor > 0 ? 1.0 / divisor
                                : std::numeric_limits<double>::infinity()));
  }
  Value divisor = arith::SubFOp::create(
      b, loc, n,
      arith::ConstantOp::create(
          b, loc, b.getF64FloatAttr(static_cast<double>(op.getDdof()))));
  Value zero = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
  Value inf = arith::ConstantOp::create(
      b, loc, b.getF64FloatAttr(std::numeric_limits<double>::infinity()));
  Value positive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, divisor, zero);
  Value factor = arith::SelectOp::create(b, loc, positive,
                                         reciprocal(b, loc, divisor), inf);
  return buildReduction(b, loc, squares, op.getAxes(), Combiner::Add, factor);
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

struct MatmulLowering : public RankedLowering<MatmulOp> {
  using RankedLowering::RankedLowering;

  Value lower(MatmulOp op, OpAdaptor adaptor, OpBuilder &builder,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    Type et = lt.getElementType();
    int64_t rk = rt.getRank() == 1 ? 0 : rt.getRank() - 2;
    assertSameSize(builder, loc, dimSize(builder, loc, lhs, lt.getRank() - 1),
                   dimSize(builder, loc, rhs, rk),
                   "tt.matmul: the contraction sizes differ");
    // A stack of matrices times one matrix is one matrix product: the
    // batch dimensions of the lhs become rows.
    if (lt.getRank() > 2 && rt.getRank() == 2) {
      int64_t rank = lt.getRank();
      int64_t rows = 1;
      for (int64_t d : lt.getShape().drop_back())
        rows = ShapedType::isDynamic(d) || ShapedType::isDynamic(rows)
                   ? ShapedType::kDynamic
                   : rows * d;
      auto flatType = RankedTensorType::get({rows, lt.getShape().back()}, et);
      auto productType =
          RankedTensorType::get({rows, rt.getShape().back()}, et);
      ReassociationIndices leading =
          llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
      SmallVector<ReassociationIndices> groups = {leading, {rank - 1}};
      Value flat =
          tensor::CollapseShapeOp::create(builder, loc, flatType, lhs, groups);
      SmallVector<Value> rowSizes;
      if (ShapedType::isDynamic(rows))
        rowSizes.push_back(tensor::DimOp::create(builder, loc, flat, 0));
      if (rt.isDynamicDim(1))
        rowSizes.push_back(tensor::DimOp::create(builder, loc, rhs, 1));
      Value product = linalg::MatmulOp::create(
                          builder, loc, ValueRange{flat, rhs},
                          filledTensor(builder, loc, productType,
                                       builder.getZeroAttr(et), rowSizes))
                          .getResult(0);
      SmallVector<OpFoldResult> shape;
      for (int64_t d = 0; d < rank - 1; ++d)
        shape.push_back(dimSize(builder, loc, lhs, d));
      shape.push_back(dimSize(builder, loc, rhs, 1));
      return tensor::ExpandShapeOp::create(builder, loc, type, product, groups,
                                           shape);
    }
    if (lt.getRank() > 2 || rt.getRank() > 2) {
      return batched(builder, loc, lhs, rhs, type);
    }

    // Vector and matrix cases map to dedicated named ops; the result's
    // dimensions are the lhs rows and the rhs columns.
    Value zeroInit =
        filledTensor(builder, loc, type, builder.getZeroAttr(et),
                     dynamicSizes(builder, loc, type, [&](int64_t d) {
                       if (d == 0 && lt.getRank() == 2)
                         return dimSize(builder, loc, lhs, 0);
                       return dimSize(builder, loc, rhs, rt.getRank() - 1);
                     }));
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
    // Sizes: the batch dimensions broadcast (checked where dynamic), the
    // rows of the lhs, the columns of the rhs.
    int64_t nb = batch.size();
    auto batchSize = [&](Value operand, int64_t d) -> std::optional<int64_t> {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t dim = d - (nb - (type.getRank() - 2));
      if (dim < 0 || type.getDimSize(dim) == 1)
        return std::nullopt;
      return dim;
    };
    for (int64_t d = 0; d < nb; ++d) {
      std::optional<int64_t> l = batchSize(lhs, d), r = batchSize(rhs, d);
      if (l && r)
        assertSameSize(b, loc, dimSize(b, loc, lhs, *l),
                       dimSize(b, loc, rhs, *r),
                       "tt.matmul: the batch sizes differ");
    }
    Value init = filledTensor(
        b, loc, fullType, b.getZeroAttr(et),
        dynamicSizes(b, loc, fullType, [&](int64_t d) -> OpFoldResult {
          if (d == nb)
            return dimSize(b, loc, lhs, lt.getRank() - 2);
          if (d == nb + 1)
            return dimSize(b, loc, rhs, rt.getRank() - 1);
          if (std::optional<int64_t> l = batchSize(lhs, d))
            return dimSize(b, loc, lhs, *l);
          if (std::optional<int64_t> r = batchSize(rhs, d))
            return dimSize(b, loc, rhs, *r);
          return b.getIndexAttr(1);
        }));

    Value result;
    ArrayRef<int64_t> lb = ls.drop_back(2), rb = rs.drop_back(2);
    if (ls.size() > 3 && lb == rb && !ShapedType::isDynamicShape(lb)) {
      // Equal static batch dimensions merged into one: the matmul kernels
      // take linalg.batch_matmul's one batch axis (a generic with two made
      // attention's [B, H, L, E] @ [B, H, E, S] 1.4x slower on BERT-base).
      SmallVector<ReassociationIndices> groups = {
          llvm::to_vector(llvm::seq<int64_t>(0, nb)), {nb}, {nb + 1}};
      auto merge = [&](Value v) {
        return tensor::CollapseShapeOp::create(b, loc, v, groups).getResult();
      };
      Value product =
          linalg::BatchMatmulOp::create(
              b, loc, ValueRange{merge(lhs), merge(rhs)}, merge(init))
              .getResult(0);
      result = tensor::ExpandShapeOp::create(b, loc, fullType, product, groups);
    } else if (ls.size() == 3 && rs.size() == 3 && ls[0] == rs[0]) {
      result = linalg::BatchMatmulOp::create(b, loc, ValueRange{lhs, rhs}, init)
                   .getResult(0);
    } else {
      // Iteration space: (batch..., m, n, k).
      int64_t dims = nb + 3;
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

struct TransposeLowering : public RankedLowering<TransposeOp> {
  using RankedLowering::RankedLowering;
  Value lower(TransposeOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Value input = adaptor.getInput();
    ArrayRef<int64_t> permutation = op.getPermutation();
    Value init =
        emptyTensor(b, op.getLoc(), type,
                    dynamicSizes(b, op.getLoc(), type, [&](int64_t d) {
                      return dimSize(b, op.getLoc(), input, permutation[d]);
                    }));
    return linalg::TransposeOp::create(b, op.getLoc(), input, init, permutation)
        .getResult()[0];
  }
};

struct ReshapeLowering : public RankedLowering<ReshapeOp> {
  using RankedLowering::RankedLowering;
  Value lower(ReshapeOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    return reshapeTensor(b, op.getLoc(), adaptor.getInput(), type);
  }
};

struct SliceLowering : public RankedLowering<SliceOp> {
  using RankedLowering::RankedLowering;
  Value lower(SliceOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    // A size of -1 is the whole (possibly dynamic) dimension.
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (auto [d, size] : llvm::enumerate(op.getSizes())) {
      offsets.push_back(b.getIndexAttr(op.getStarts()[d]));
      strides.push_back(b.getIndexAttr(op.getStrides()[d]));
      sizes.push_back(size == -1
                          ? dimSize(b, op.getLoc(), adaptor.getInput(), d)
                          : OpFoldResult(b.getIndexAttr(size)));
    }
    return tensor::ExtractSliceOp::create(
        b, op.getLoc(), type, adaptor.getInput(), offsets, sizes, strides);
  }
};

struct ConcatLowering : public RankedLowering<ConcatOp> {
  using RankedLowering::RankedLowering;
  Value lower(ConcatOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    int64_t rank = type.getRank(), axis = op.getAxis();
    ValueRange inputs = adaptor.getInputs();
    // A dynamic dimension other than the axis has input #0's size; the
    // others must have it too. Along the axis the sizes add up.
    for (auto [idx, input] : llvm::enumerate(inputs.drop_front()))
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && type.isDynamicDim(d))
          assertSameSize(b, loc, dimSize(b, loc, inputs.front(), d),
                         dimSize(b, loc, input, d),
                         "tt.concat: input #" + Twine(idx + 1) +
                             " dimension " + Twine(d) +
                             " does not match input #0");
    // Offsets along the axis: a constant while the sizes before are
    // static, else a sum of run-time sizes.
    auto add = [&](OpFoldResult x, OpFoldResult y) -> OpFoldResult {
      std::optional<int64_t> cx = getConstantIntValue(x),
                             cy = getConstantIntValue(y);
      if (cx && cy)
        return b.getIndexAttr(*cx + *cy);
      if (cx == 0)
        return y;
      if (cy == 0)
        return x;
      return arith::AddIOp::create(b, loc,
                                   getValueOrCreateConstantIndexOp(b, loc, x),
                                   getValueOrCreateConstantIndexOp(b, loc, y))
          .getResult();
    };
    OpFoldResult total = b.getIndexAttr(0);
    for (Value input : inputs)
      total = add(total, dimSize(b, loc, input, axis));
    Value result = emptyTensor(
        b, loc, type, dynamicSizes(b, loc, type, [&](int64_t d) {
          return d == axis ? total : dimSize(b, loc, inputs.front(), d);
        }));
    OpFoldResult offset = b.getIndexAttr(0);
    for (auto [idx, input] : llvm::enumerate(inputs)) {
      auto it = cast<RankedTensorType>(input.getType());
      // An empty input adds nothing (and its offset may be one past the
      // end, which tensor.insert_slice rejects).
      if (it.getDimSize(axis) == 0 ||
          llvm::is_contained(it.getShape(), int64_t(0)))
        continue;
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
          sizes, strides(rank, b.getIndexAttr(1));
      offsets[axis] = offset;
      for (int64_t d = 0; d < rank; ++d)
        sizes.push_back(dimSize(b, loc, input, d));
      result = tensor::InsertSliceOp::create(b, loc, input, result, offsets,
                                             sizes, strides);
      if (idx + 1 < inputs.size())
        offset = add(offset, sizes[axis]);
    }
    return result;
  }
};

/// tt.windows: one linalg.generic copying input[b, o*s + k*d, c] to
/// result[b, o, k, c] (an affine input map, parallel loops).
struct WindowsLowering : public RankedLowering<WindowsOp> {
  using RankedLowering::RankedLowering;
  Value lower(WindowsOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations();
    int64_t n = static_cast<int64_t>(op.getKernel().size());
    int64_t rank = type.getRank(); // input rank + n
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < axis; ++d)
      exprs.push_back(b.getAffineDimExpr(d));
    for (int64_t i = 0; i < n; ++i)
      exprs.push_back(b.getAffineDimExpr(axis + i) * strides[i] +
                      b.getAffineDimExpr(axis + n + i) * dilations[i]);
    for (int64_t d = axis + 2 * n; d < rank; ++d)
      exprs.push_back(b.getAffineDimExpr(d));
    AffineMap in = AffineMap::get(rank, 0, exprs, b.getContext());
    AffineMap out = b.getMultiDimIdentityMap(rank);
    Value init = emptyTensor(b, loc, type);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{adaptor.getInput()},
        ValueRange{init}, ArrayRef<AffineMap>{in, out},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &nb, Location nloc, ValueRange args) {
          linalg::YieldOp::create(nb, nloc, args[0]);
        });
    return generic.getResult(0);
  }
};

/// tt.iota: a linalg.generic writing its index, sized by `like`.
struct IotaLowering : public RankedLowering<IotaOp> {
  using RankedLowering::RankedLowering;
  Value lower(IotaOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    int64_t dim = static_cast<int64_t>(op.getDim());
    Value init =
        emptyTensor(b, loc, type, dynamicSizes(b, loc, type, [&](int64_t) {
                      return dimSize(b, loc, adaptor.getLike(), dim);
                    }));
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{b.getMultiDimIdentityMap(1)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &nb, Location nloc, ValueRange) {
          Value index = linalg::IndexOp::create(nb, nloc, 0);
          Value value = arith::IndexCastOp::create(
              nb, nloc, type.getElementType(), index);
          linalg::YieldOp::create(nb, nloc, value);
        });
    return generic.getResult(0);
  }
};

struct GatherLowering : public RankedLowering<GatherOp> {
  using RankedLowering::RankedLowering;
  Value lower(GatherOp op, OpAdaptor adaptor, OpBuilder &builder,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = builder.getContext();
    Value table = adaptor.getTable(), indices = adaptor.getIndices();
    int64_t rank = type.getRank();
    int64_t indexRank = cast<RankedTensorType>(indices.getType()).getRank();

    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    // The result's sizes: the indices' dimensions, then the table's
    // trailing ones.
    Value init = emptyTensor(builder, loc, type,
                             dynamicSizes(builder, loc, type, [&](int64_t d) {
                               return d < indexRank
                                          ? dimSize(builder, loc, indices, d)
                                          : dimSize(builder, loc, table,
                                                    d - indexRank + 1);
                             }));
    // The table's row count: a constant in the body, or its tensor.dim.
    OpFoldResult rows = dimSize(builder, loc, table, 0);
    auto generic = linalg::GenericOp::create(
        builder, loc, type, indices, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          // NumPy semantics for negative indices; out-of-range ones clamp
          // instead of reading out of bounds.
          Value id =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value n, last;
          if (std::optional<int64_t> count = getConstantIntValue(rows)) {
            n = arith::ConstantIndexOp::create(b, l, *count);
            last = arith::ConstantIndexOp::create(b, l, *count - 1);
          } else {
            n = cast<Value>(rows);
            last = arith::SubIOp::create(
                b, l, n, arith::ConstantIndexOp::create(b, l, 1));
          }
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

/// tt.scatter: a loop over the indices carrying a copy of the table,
/// updated in place. Each in-range row index takes
/// its row of updates, or that row combined with the table's; negative
/// indices count from the end, out-of-range ones are skipped.
struct ScatterLowering : public RankedLowering<ScatterOp> {
  using RankedLowering::RankedLowering;
  Value lower(ScatterOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    Value table = adaptor.getTable(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    int64_t rank = type.getRank();
    ScatterMode mode = op.getMode();
    // One row: [1, table.shape[1:]...].
    SmallVector<int64_t> rowShape(type.getShape());
    rowShape[0] = 1;
    auto rowType = RankedTensorType::get(rowShape, type.getElementType());
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
    for (int64_t d = 1; d < rank; ++d)
      sizes.push_back(dimSize(b, loc, table, d));
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    auto rowAt = [&](OpFoldResult row) {
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
      offsets[0] = row;
      return offsets;
    };
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value count =
        getValueOrCreateConstantIndexOp(b, loc, dimSize(b, loc, indices, 0));
    Value rows =
        getValueOrCreateConstantIndexOp(b, loc, dimSize(b, loc, table, 0));
    // The loop updates a copy: in place on `table` itself, bufferization
    // would write into the caller's array when it is a function argument.
    // (An identity linalg.generic would be erased by canonicalization.)
    Value copy =
        bufferization::AllocTensorOp::create(b, loc, type, ValueRange{},
                                             /*copy=*/table);
    auto loop = scf::ForOp::create(
        b, loc, zero, count, one, ValueRange{copy},
        [&](OpBuilder &nb, Location nl, Value i, ValueRange iter) {
          Value id = arith::IndexCastOp::create(
              nb, nl, nb.getIndexType(),
              tensor::ExtractOp::create(nb, nl, indices, ValueRange{i}));
          Value negative = arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::slt, id, zero);
          id = arith::SelectOp::create(
              nb, nl, negative, arith::AddIOp::create(nb, nl, id, rows), id);
          Value inside = arith::AndIOp::create(
              nb, nl,
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, id,
                                    zero),
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, id,
                                    rows));
          auto branch = scf::IfOp::create(
              nb, nl, inside,
              [&](OpBuilder &tb, Location tl) {
                Value row = tensor::ExtractSliceOp::create(
                    tb, tl, rowType, updates, rowAt(i), sizes, strides);
                if (mode != ScatterMode::set) {
                  Value old = tensor::ExtractSliceOp::create(
                      tb, tl, rowType, iter[0], rowAt(id), sizes, strides);
                  row = buildElementwise(
                      tb, tl, rowType, ValueRange{old, row},
                      [mode](OpBuilder &eb, Location el, ValueRange args,
                             Type) -> Value {
                        switch (mode) {
                        case ScatterMode::add:
                          return floatOrInt<arith::AddFOp, arith::AddIOp>(
                              eb, el, args);
                        case ScatterMode::mul:
                          return floatOrInt<arith::MulFOp, arith::MulIOp>(
                              eb, el, args);
                        case ScatterMode::max:
                          return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(
                              eb, el, args);
                        default:
                          return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(
                              eb, el, args);
                        }
                      });
                }
                Value updated = tensor::InsertSliceOp::create(
                    tb, tl, row, iter[0], rowAt(id), sizes, strides);
                scf::YieldOp::create(tb, tl, ValueRange{updated});
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, ValueRange{iter[0]});
              });
          scf::YieldOp::create(nb, nl, branch.getResults());
        });
    return loop.getResult(0);
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertTTToLinalgPass
    : public tt::impl::ConvertTTToLinalgBase<ConvertTTToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Ranks must be known before anything is rewritten; name every op that
    // still has an unranked type, or dynamic dimensions where its lowering
    // needs static ones.
    WalkResult shapes = getOperation().walk([](Operation *op) {
      if (!isa<TTDialect>(op->getDialect()))
        return WalkResult::advance();
      for (Type t :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
        if (!isa<RankedTensorType>(t)) {
          op->emitOpError("cannot be converted to linalg: type ")
              << t << " is unranked (run --tt-infer-shapes first)";
          return WalkResult::interrupt();
        }
        if (cast<RankedTensorType>(t).getElementType().isUnsignedInteger()) {
          op->emitOpError("cannot be converted to linalg: type ")
              << t << " is unsigned (run --tt-legalize-types first)";
          return WalkResult::interrupt();
        }
      }
      if (auto reshape = dyn_cast<ReshapeOp>(op)) {
        auto from = cast<RankedTensorType>(reshape.getInput().getType());
        auto to = cast<RankedTensorType>(reshape.getType());
        bool dynamic = !from.hasStaticShape() || !to.hasStaticShape();
        bool direct =
            from == to || (from.getRank() != to.getRank() &&
                           from.getRank() > 0 && to.getRank() > 0 &&
                           getReassociationIndicesForReshape(
                               from.getRank() < to.getRank() ? from : to,
                               from.getRank() < to.getRank() ? to : from));
        if (dynamic && !direct) {
          op->emitOpError("cannot be converted to linalg: a reshape with "
                          "dynamic dimensions must be one collapse or "
                          "expand of dimensions (")
              << from << " to " << to << ")";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    // The walk emitted the error before interrupting.
    if (shapes.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TTDialect>();
    target.addLegalDialect<arith::ArithDialect,
                           bufferization::BufferizationDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTTToLinalgPatterns(patterns);
    // The conversion reports each op it fails to legalize.
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tt::populateTTToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<
      ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
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
      ReductionLowering<ReduceMinOp>, ReductionLowering<ProdOp>,
      ArgReductionLowering<ArgMaxOp>, ArgReductionLowering<ArgMinOp>,
      CumsumLowering, SortLowering, WindowsLowering, ElementwiseLowering<SinOp>,
      ElementwiseLowering<CosOp>, ElementwiseLowering<FloorOp>,
      ElementwiseLowering<CeilOp>, ElementwiseLowering<RoundOp>,
      ElementwiseLowering<Log1pOp>, ElementwiseLowering<Expm1Op>,
      ElementwiseLowering<Exp2Op>, ElementwiseLowering<Log2Op>,
      ElementwiseLowering<AtanOp>, ElementwiseLowering<TanOp>,
      ElementwiseLowering<AsinOp>, ElementwiseLowering<AcosOp>,
      ElementwiseLowering<SinhOp>, ElementwiseLowering<CoshOp>,
      ElementwiseLowering<AsinhOp>, ElementwiseLowering<AcoshOp>,
      ElementwiseLowering<AtanhOp>, ElementwiseLowering<Log10Op>,

      ElementwiseLowering<Atan2Op>, ElementwiseLowering<BitwiseAndOp>,
      ElementwiseLowering<BitwiseOrOp>, ElementwiseLowering<BitwiseXorOp>,
      ElementwiseLowering<ShiftLeftOp>, ElementwiseLowering<ShiftRightOp>,
      MatmulLowering, TransposeLowering, ReshapeLowering, SliceLowering,
      ConcatLowering, GatherLowering, ScatterLowering, IotaLowering>(
      patterns.getContext());
  populateConvolutionLoweringPatterns(patterns);
}
