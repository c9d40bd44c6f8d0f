//===- Elementwise.cpp - Elementwise tt ops to linalg ---------------------===//
//
// The elementwise ops (arithmetic, math functions, bitwise ops and shifts,
// tt.cmp, tt.select, tt.cast, tt.broadcast_to) as one parallel
// linalg.generic each, broadcasting their operands, and tt.constant as
// arith.constant.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include <limits>

using namespace mlir;
using namespace mlir::tt;

namespace {

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
Value ElementwiseLowering<BitcastOp>::scalar(BitcastOp, OpBuilder &b,
                                             Location loc, ValueRange args,
                                             Type type) {
  return arith::BitcastOp::create(b, loc, type, args[0]);
}

template <>
Value ElementwiseLowering<BroadcastToOp>::scalar(BroadcastToOp, OpBuilder &,
                                                 Location, ValueRange args,
                                                 Type) {
  return args[0];
}

struct ConstantLowering : public RankedLowering<ConstantOp> {
  using RankedLowering::RankedLowering;
  Value lower(ConstantOp op, OpAdaptor, OpBuilder &b,
              RankedTensorType) const override {
    return arith::ConstantOp::create(b, op.getLoc(),
                                     cast<TypedAttr>(op.getValue()));
  }
};

} // namespace

void tt::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  // Arithmetic, comparisons and select.
  patterns.add<ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
               ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
               ElementwiseLowering<PowOp>, ElementwiseLowering<MaxOp>,
               ElementwiseLowering<MinOp>, ElementwiseLowering<NegOp>,
               ElementwiseLowering<AbsOp>, ElementwiseLowering<CmpOp>,
               ElementwiseLowering<SelectOp>>(ctx);
  // Math functions.
  patterns.add<ElementwiseLowering<ExpOp>, ElementwiseLowering<Exp2Op>,
               ElementwiseLowering<Expm1Op>, ElementwiseLowering<LogOp>,
               ElementwiseLowering<Log2Op>, ElementwiseLowering<Log10Op>,
               ElementwiseLowering<Log1pOp>, ElementwiseLowering<SqrtOp>,
               ElementwiseLowering<RsqrtOp>, ElementwiseLowering<TanhOp>,
               ElementwiseLowering<ErfOp>, ElementwiseLowering<SinOp>,
               ElementwiseLowering<CosOp>, ElementwiseLowering<TanOp>,
               ElementwiseLowering<AsinOp>, ElementwiseLowering<AcosOp>,
               ElementwiseLowering<AtanOp>, ElementwiseLowering<Atan2Op>,
               ElementwiseLowering<SinhOp>, ElementwiseLowering<CoshOp>,
               ElementwiseLowering<AsinhOp>, ElementwiseLowering<AcoshOp>,
               ElementwiseLowering<AtanhOp>, ElementwiseLowering<FloorOp>,
               ElementwiseLowering<CeilOp>, ElementwiseLowering<RoundOp>>(ctx);
  // Bitwise ops and shifts.
  patterns
      .add<ElementwiseLowering<BitwiseAndOp>, ElementwiseLowering<BitwiseOrOp>,
           ElementwiseLowering<BitwiseXorOp>, ElementwiseLowering<ShiftLeftOp>,
           ElementwiseLowering<ShiftRightOp>>(ctx);
  // Conversions and constants.
  patterns.add<ElementwiseLowering<CastOp>, ElementwiseLowering<BitcastOp>,
               ElementwiseLowering<BroadcastToOp>, ConstantLowering>(ctx);
}
