//===- Reductions.cpp - tt reductions, scans and sort to linalg -----------===//
//
// tt.sum, tt.mean, tt.var, tt.reduce_max, tt.reduce_min and tt.prod as
// linalg.reduce (f32 sums accumulated in f64), tt.argmax and tt.argmin as
// a linalg.generic carrying the best value and its index, tt.cumsum as an
// scf.for over the axis and tt.sort as a bitonic sorting network.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"
#include <limits>
#include <type_traits>

using namespace mlir;
using namespace mlir::tt;

namespace {

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

} // namespace

void tt::populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReductionLowering<SumOp>, ReductionLowering<ReduceMaxOp>,
               ReductionLowering<MeanOp>, ReductionLowering<VarOp>,
               ReductionLowering<ReduceMinOp>, ReductionLowering<ProdOp>,
               ArgReductionLowering<ArgMaxOp>, ArgReductionLowering<ArgMinOp>,
               CumsumLowering, SortLowering>(patterns.getContext());
}
