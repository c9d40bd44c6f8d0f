//===- TTFolds.cpp - Folders and canonicalisations of tt ops --------------===//
//
// Constant folding of small or splat constants, algebraic identities
// (x + 0, x * 1, ...) and the canonicalisation patterns of the dialect.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APFloat.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tt;

namespace {

/// Non-splat constants are folded only up to this many elements, so that
/// folding never blows up compile time or IR size.
constexpr int64_t kMaxFoldElements = 1024;

using FloatFn = llvm::function_ref<double(double, double)>;
using IntFn = llvm::function_ref<std::optional<int64_t>(int64_t, int64_t)>;

/// Scalar view of one element of a dense elements attribute.
double elementAsDouble(Attribute a) {
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble();
  return static_cast<double>(cast<IntegerAttr>(a).getInt());
}

Attribute makeElement(Type et, double fv, int64_t iv) {
  if (auto ft = dyn_cast<FloatType>(et))
    return FloatAttr::get(ft, fv);
  if (et.isInteger(1))
    return IntegerAttr::get(et, iv != 0);
  // Integers wrap to the element type's width (two's complement).
  return IntegerAttr::get(
      et, llvm::APInt(64, static_cast<uint64_t>(iv), /*isSigned=*/true)
              .trunc(et.getIntOrFloatBitWidth()));
}

/// Wrapping (two's complement) integer arithmetic: i32 results are
/// truncated afterwards by makeElement, i64 ones wrap here.
int64_t wrapping(uint64_t v) { return static_cast<int64_t>(v); }
uint64_t bits(int64_t v) { return static_cast<uint64_t>(v); }

/// Index of the operand element that result element `linear` reads under
/// NumPy broadcasting.
int64_t broadcastIndex(int64_t linear, ArrayRef<int64_t> resultShape,
                       ArrayRef<int64_t> operandShape) {
  int64_t offset = resultShape.size() - operandShape.size();
  int64_t index = 0, stride = 1;
  for (int64_t d = resultShape.size() - 1; d >= 0; --d) {
    int64_t coord = linear % resultShape[d];
    linear /= resultShape[d];
    if (d < offset)
      continue;
    int64_t size = operandShape[d - offset];
    index += (size == 1 ? 0 : coord) * stride;
    stride *= size;
  }
  return index;
}

/// Evaluates an elementwise op over constant operands with broadcasting.
/// Returns null if an operand is not constant, the result is too large, or a
/// scalar function refuses (e.g. integer division by zero).
Attribute foldElementwise(
    ArrayRef<Attribute> operands, Type resultType,
    llvm::function_ref<std::optional<Attribute>(ArrayRef<Attribute>, Type)>
        scalarFn) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!type || !type.hasStaticShape())
    return {};
  SmallVector<DenseElementsAttr> dense;
  bool allSplat = true;
  for (Attribute a : operands) {
    auto d = dyn_cast_if_present<DenseElementsAttr>(a);
    if (!d)
      return {};
    dense.push_back(d);
    allSplat &= d.isSplat();
  }
  Type et = type.getElementType();
  if (allSplat) {
    SmallVector<Attribute> args;
    for (DenseElementsAttr d : dense)
      args.push_back(d.getSplatValue<Attribute>());
    std::optional<Attribute> r = scalarFn(args, et);
    return r ? DenseElementsAttr::get(type, *r) : Attribute();
  }
  if (type.getNumElements() > kMaxFoldElements)
    return {};
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr d : dense)
    values.push_back(llvm::to_vector(d.getValues<Attribute>()));
  SmallVector<Attribute> results;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    SmallVector<Attribute> args;
    for (auto [d, v] : llvm::zip(dense, values)) {
      ArrayRef<int64_t> shape = d.getType().getShape();
      args.push_back(
          d.isSplat() ? v[0] : v[broadcastIndex(i, type.getShape(), shape)]);
    }
    std::optional<Attribute> r = scalarFn(args, et);
    if (!r)
      return {};
    results.push_back(*r);
  }
  return DenseElementsAttr::get(type, results);
}

/// Folds a binary arithmetic op given float and integer scalar semantics.
Attribute foldBinary(ArrayRef<Attribute> operands, Type resultType,
                     FloatFn floatFn, IntFn intFn) {
  return foldElementwise(
      operands, resultType,
      [&](ArrayRef<Attribute> args, Type et) -> std::optional<Attribute> {
        if (isa<FloatType>(et))
          return makeElement(
              et, floatFn(elementAsDouble(args[0]), elementAsDouble(args[1])),
              0);
        std::optional<int64_t> r = intFn(cast<IntegerAttr>(args[0]).getInt(),
                                         cast<IntegerAttr>(args[1]).getInt());
        if (!r)
          return std::nullopt;
        return makeElement(et, 0, *r);
      });
}

/// Folds a unary float function.
Attribute foldUnary(Attribute operand, Type resultType,
                    llvm::function_ref<double(double)> floatFn,
                    llvm::function_ref<int64_t(int64_t)> intFn = nullptr) {
  return foldElementwise(
      {operand}, resultType,
      [&](ArrayRef<Attribute> args, Type et) -> std::optional<Attribute> {
        if (isa<FloatType>(et))
          return makeElement(et, floatFn(elementAsDouble(args[0])), 0);
        if (!intFn)
          return std::nullopt;
        return makeElement(et, 0, intFn(cast<IntegerAttr>(args[0]).getInt()));
      });
}

/// True if `attr` is a constant whose every element equals `value`. For
/// floats, `negativeZero` picks which zero matches a zero `value`: x + (-0.0)
/// and x - (+0.0) are x for every x, while x + (+0.0) is not for x = -0.0.
bool isSplatOf(Attribute attr, double value, bool negativeZero = false) {
  auto d = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!d || !d.isSplat())
    return false;
  Attribute element = d.getSplatValue<Attribute>();
  double v = elementAsDouble(element);
  if (v != value)
    return false;
  if (value == 0.0 && isa<FloatAttr>(element))
    return std::signbit(v) == negativeZero;
  return true;
}

/// `x op c` folds to `x` when c is the identity and broadcasting does not
/// change x's type.
OpFoldResult foldRightIdentity(Value lhs, Attribute rhs, Type resultType,
                               double identity, bool negativeZero = false) {
  if (lhs.getType() == resultType && isSplatOf(rhs, identity, negativeZero))
    return lhs;
  return {};
}

} // namespace

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldRightIdentity(getLhs(), adaptor.getRhs(), getType(),
                                         0.0, /*negativeZero=*/true))
    return r;
  if (OpFoldResult r = foldRightIdentity(getRhs(), adaptor.getLhs(), getType(),
                                         0.0, /*negativeZero=*/true))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        return wrapping(bits(a) + bits(b));
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return a - b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        return wrapping(bits(a) - bits(b));
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  if (OpFoldResult r =
          foldRightIdentity(getRhs(), adaptor.getLhs(), getType(), 1.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return a * b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        return wrapping(bits(a) * bits(b));
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return a / b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        // Division by zero, and the one quotient that overflows, are left
        // to run time.
        if (b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min()))
          return std::nullopt;
        return a / b;
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return std::pow(a, b); },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b < 0)
          return std::nullopt;
        // Square-and-multiply, wrapping (modulo 2^64, and so modulo 2^32).
        uint64_t result = 1, base = bits(a);
        for (uint64_t e = b; e; e >>= 1) {
          if (e & 1)
            result *= base;
          base *= base;
        }
        return wrapping(result);
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) {
        return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
      },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        return std::max(a, b);
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) {
        return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
      },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        return std::min(a, b);
      });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), getType(), [](double x) { return -x; },
      [](int64_t x) { return wrapping(0 - bits(x)); });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), getType(), [](double x) { return std::fabs(x); },
      [](int64_t x) { return x < 0 ? wrapping(0 - bits(x)) : x; });
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::exp(x); });
}

OpFoldResult TanOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::tan(x); });
}

OpFoldResult AsinOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::asin(x); });
}

OpFoldResult AcosOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::acos(x); });
}

OpFoldResult SinhOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::sinh(x); });
}

OpFoldResult CoshOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::cosh(x); });
}

OpFoldResult AsinhOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::asinh(x); });
}

OpFoldResult AcoshOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::acosh(x); });
}

OpFoldResult AtanhOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::atanh(x); });
}

OpFoldResult Log10Op::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::log10(x); });
}

OpFoldResult AtanOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::atan(x); });
}

OpFoldResult Atan2Op::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double y, double x) { return std::atan2(y, x); },
      [](int64_t, int64_t) -> std::optional<int64_t> { return std::nullopt; });
}

// The operands arrive sign-extended to 64 bits; the bitwise result of the
// extensions, truncated back, is that of the narrow values.
OpFoldResult BitwiseAndOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(), [](double, double) { return NAN; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return a & b; });
}

OpFoldResult BitwiseOrOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(), [](double, double) { return NAN; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return a | b; });
}

OpFoldResult BitwiseXorOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(), [](double, double) { return NAN; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return a ^ b; });
}

OpFoldResult LogOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::log(x); });
}

OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::tanh(x); });
}

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::sqrt(x); });
}

OpFoldResult RsqrtOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return 1.0 / std::sqrt(x); });
}

OpFoldResult ErfOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::erf(x); });
}

OpFoldResult SinOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::sin(x); });
}

OpFoldResult CosOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::cos(x); });
}

OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::floor(x); });
}

OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::ceil(x); });
}

OpFoldResult RoundOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::nearbyint(x); });
}

OpFoldResult Log1pOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::log1p(x); });
}

OpFoldResult Expm1Op::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::expm1(x); });
}

OpFoldResult Exp2Op::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::exp2(x); });
}

OpFoldResult Log2Op::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getInput(), getType(),
                   [](double x) { return std::log2(x); });
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldElementwise(
      {adaptor.getInput()}, getType(),
      [](ArrayRef<Attribute> args, Type et) -> std::optional<Attribute> {
        Attribute a = args[0];
        if (auto f = dyn_cast<FloatAttr>(a)) {
          double v = f.getValueAsDouble();
          if (isa<FloatType>(et))
            return makeElement(et, v, 0);
          if (et.isInteger(1))
            return makeElement(et, 0, v != 0.0);
          // Out-of-range float to int conversion is undefined; leave it.
          double limit = std::ldexp(1.0, et.getIntOrFloatBitWidth() - 1);
          if (std::isnan(v) || v >= limit || v < -limit)
            return std::nullopt;
          return makeElement(et, 0, static_cast<int64_t>(v));
        }
        auto i = cast<IntegerAttr>(a);
        int64_t v =
            i.getType().isInteger(1) ? i.getValue().getZExtValue() : i.getInt();
        if (isa<FloatType>(et))
          return makeElement(et, static_cast<double>(v), 0);
        return makeElement(et, 0, et.isInteger(1) ? v != 0 : v);
      });
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (llvm::equal(getPermutation(),
                  llvm::seq<int64_t>(0, getPermutation().size())) &&
      getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto type = dyn_cast<RankedTensorType>(getType());
  if (auto d = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (type && (d.isSplat() || d.getNumElements() <= kMaxFoldElements))
      return d.reshape(type);
  return {};
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // A constant needs a static type; an unranked result is refined first
  // (--tt-infer-shapes).
  auto type = dyn_cast<RankedTensorType>(getType());
  auto d = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  if (type && type.hasStaticShape() && d && d.isSplat())
    return DenseElementsAttr::get(type, d.getSplatValue<Attribute>());
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }))
    return getInput();
  // A constant needs a static type; an unranked result is refined first
  // (--tt-infer-shapes).
  auto type = dyn_cast<RankedTensorType>(getType());
  auto d = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  if (type && type.hasStaticShape() && d && d.isSplat())
    return DenseElementsAttr::get(type, d.getSplatValue<Attribute>());
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

//===----------------------------------------------------------------------===//
// Canonicalisation patterns
//===----------------------------------------------------------------------===//

namespace {

/// pow(x, 2) -> x * x and pow(x, 3) -> (x * x) * x for a splat exponent that
/// does not change x's type through broadcasting.
struct PowToMul : public OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op,
                                PatternRewriter &rewriter) const override {
    Attribute exponent;
    if (!matchPattern(op.getRhs(), m_Constant(&exponent)) ||
        op.getLhs().getType() != op.getType())
      return failure();
    bool square = isSplatOf(exponent, 2.0), cube = isSplatOf(exponent, 3.0);
    if (!square && !cube)
      return failure();
    Value x = op.getLhs();
    Value result = MulOp::create(rewriter, op.getLoc(), x, x);
    if (cube)
      result = MulOp::create(rewriter, op.getLoc(), result, x);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// transpose(transpose(x, p), q) -> transpose(x, p o q).
struct ComposeTransposes : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    // With an unranked intermediate type the outer permutation was not
    // checked against the inner one: compose only permutations of the
    // same size (a mismatch is the verifier's to report, not ours to read
    // past the end of).
    ArrayRef<int64_t> outer = op.getPermutation();
    ArrayRef<int64_t> first = inner.getPermutation();
    int64_t rank = static_cast<int64_t>(first.size());
    if (static_cast<int64_t>(outer.size()) != rank ||
        llvm::any_of(outer, [&](int64_t p) { return p < 0 || p >= rank; }))
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : outer)
      perm.push_back(first[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             perm);
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x).
struct ComposeReshapes : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getInput(),
                                           op.getShape());
    return success();
  }
};

/// matmul(x, broadcast_to(w)) -> matmul(x, w) for a matrix `w` broadcast
/// along batch dimensions only (as torch.export's expand + bmm of a linear
/// layer makes): matmul broadcasts a matrix over the other operand's batch
/// itself, and the broadcast copy of the weights (and a batch of small
/// matmuls) is not needed. Only when the result type stays the same.
struct MatmulOfBroadcastMatrix : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    for (bool onRhs : {true, false}) {
      Value operand = onRhs ? op.getRhs() : op.getLhs();
      auto broadcast = operand.getDefiningOp<BroadcastToOp>();
      if (!broadcast)
        continue;
      auto inType = dyn_cast<RankedTensorType>(broadcast.getInput().getType());
      auto outType = dyn_cast<RankedTensorType>(broadcast.getType());
      auto otherType = dyn_cast<RankedTensorType>(
          (onRhs ? op.getLhs() : op.getRhs()).getType());
      if (!inType || !outType || !otherType || inType.getRank() != 2 ||
          outType.getRank() < 3 ||
          inType.getShape() != outType.getShape().take_back(2))
        continue;
      // The other operand must carry the batch, or the result would lose it.
      if (otherType.getRank() < outType.getRank() ||
          otherType.getShape().drop_back(2).take_back(outType.getRank() - 2) !=
              outType.getShape().drop_back(2))
        continue;
      Value lhs = onRhs ? op.getLhs() : broadcast.getInput();
      Value rhs = onRhs ? broadcast.getInput() : op.getRhs();
      rewriter.replaceOpWithNewOp<MatmulOp>(op, op.getType(), lhs, rhs);
      return success();
    }
    return failure();
  }
};

} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<MatmulOfBroadcastMatrix>(context);
}

void PowOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<PowToMul>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}
