//===- Convolution.cpp - tt.conv to linalg --------------------------------===//

#include "TinyTensor/Conversion/TTToLinalg/Convolution.h"

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tt;

namespace {

/// The maps of the generic: input, weight, result.
SmallVector<AffineMap> convolutionMaps(MLIRContext *ctx,
                                       const ConvolutionGeometry &geometry) {
  int64_t d = geometry.spatialRank();
  int64_t loops = 4 + 2 * d;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  // Loop positions: n 0, g 1, f 2, o_i 3 + i, c 3 + d, k_i 4 + d + i.
  AffineExpr n = dim(0), g = dim(1), f = dim(2), c = dim(3 + d);
  bool last = geometry.channelsLast;
  SmallVector<AffineExpr> in = {n}, w = {g, f, c}, out = {n};
  if (!last) {
    in.append({g, c});
    out.append({g, f});
  }
  for (int64_t i = 0; i < d; ++i) {
    AffineExpr o = dim(3 + i), k = dim(4 + d + i);
    in.push_back(o * geometry.strides[i] + k * geometry.dilations[i]);
    w.push_back(k);
    out.push_back(o);
  }
  if (last) {
    in.append({g, c});
    out.append({g, f});
  }
  return {AffineMap::get(loops, 0, in, ctx), AffineMap::get(loops, 0, w, ctx),
          AffineMap::get(loops, 0, out, ctx)};
}

SmallVector<utils::IteratorType> convolutionIterators(int64_t d) {
  SmallVector<utils::IteratorType> iterators(3 + d,
                                             utils::IteratorType::parallel);
  iterators.append(1 + d, utils::IteratorType::reduction);
  return iterators;
}

/// The constant value of `expr` with dimension `one` set to 1 and every
/// other to 0 (a coefficient of a linear expression).
std::optional<int64_t> coefficient(AffineExpr expr, unsigned numDims,
                                   unsigned one) {
  MLIRContext *ctx = expr.getContext();
  SmallVector<AffineExpr> values;
  for (unsigned i = 0; i < numDims; ++i)
    values.push_back(getAffineConstantExpr(i == one ? 1 : 0, ctx));
  auto constant = dyn_cast<AffineConstantExpr>(
      expr.replaceDims(values));
  if (!constant)
    return std::nullopt;
  return constant.getValue();
}

/// tt.conv -> tensor.pad, expand_shape to the grouped forms, the generic,
/// collapse_shape back to [N, G * F, O...].
struct ConvLowering : public OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
    if (!type || !inType || !wType)
      return rewriter.notifyMatchFailure(
          op, "operands must be ranked (run --tt-infer-shapes)");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type et = type.getElementType();
    int64_t d = type.getRank() - 2;
    int64_t groups = static_cast<int64_t>(op.getGroups());
    ArrayRef<int64_t> low = op.getPadLow(), high = op.getPadHigh();
    bool last = op.getChannelsLast();
    // The channel axis of the input and result, and the first spatial one.
    int64_t channelAxis = last ? d + 1 : 1, firstSpatial = last ? 1 : 2;

    Value input = adaptor.getInput();
    if (llvm::any_of(low, [](int64_t p) { return p != 0; }) ||
        llvm::any_of(high, [](int64_t p) { return p != 0; })) {
      SmallVector<OpFoldResult> lo(d + 2, b.getIndexAttr(0)),
          hi(d + 2, b.getIndexAttr(0));
      SmallVector<int64_t> shape(inType.getShape());
      for (int64_t i = 0; i < d; ++i) {
        lo[firstSpatial + i] = b.getIndexAttr(low[i]);
        hi[firstSpatial + i] = b.getIndexAttr(high[i]);
        shape[firstSpatial + i] += low[i] + high[i];
      }
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
      input = tensor::PadOp::create(b, loc, inType.clone(shape), input, lo,
                                    hi, zero);
    }
    auto padded = cast<RankedTensorType>(input.getType());

    // [N, C, S...] -> [N, G, C / G, S...]; [F, C', K...] -> [G, F / G, C',
    // K...]; [N, F, O...] <- [N, G, F / G, O...] (channels last: [N, S...,
    // C] -> [N, S..., G, C / G] and [N, O..., F] <- [N, O..., G, F / G]).
    auto grouped = [&](RankedTensorType t, int64_t at) {
      SmallVector<int64_t> shape(t.getShape().take_front(at));
      shape.push_back(groups);
      shape.push_back(t.getDimSize(at) / groups);
      llvm::append_range(shape, t.getShape().drop_front(at + 1));
      return t.clone(shape);
    };
    auto reassociation = [&](int64_t rank, int64_t at) {
      SmallVector<ReassociationIndices> groupsOf;
      for (int64_t i = 0; i < rank; ++i) {
        if (i == at)
          groupsOf.push_back({i, i + 1});
        else
          groupsOf.push_back({i < at ? i : i + 1});
      }
      return groupsOf;
    };
    int64_t rank = d + 2;
    auto inGrouped = grouped(padded, channelAxis);
    SmallVector<Value> dynamic;
    if (padded.isDynamicDim(0))
      dynamic.push_back(tensor::DimOp::create(b, loc, input, 0));
    Value groupedInput = tensor::ExpandShapeOp::create(
        b, loc, inGrouped, input, reassociation(rank, channelAxis));
    Value groupedWeight = tensor::ExpandShapeOp::create(
        b, loc, grouped(wType, 0), adaptor.getWeight(),
        reassociation(rank, 0));
    auto outGrouped = grouped(type, channelAxis);
    Value init = tensor::EmptyOp::create(b, loc, outGrouped.getShape(), et,
                                         dynamic);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
    init = linalg::FillOp::create(b, loc, zero, init).getResult(0);
    ConvolutionGeometry geometry{SmallVector<int64_t>(op.getStrides()),
                                 SmallVector<int64_t>(op.getDilations()), last};
    Value sums = buildConvolution(b, loc, groupedInput, groupedWeight, init,
                                  geometry)
                     .getResult(0);
    Value result = tensor::CollapseShapeOp::create(
        b, loc, type, sums, reassociation(rank, channelAxis));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

linalg::GenericOp tt::buildConvolution(OpBuilder &b, Location loc,
                                       Value input, Value weight, Value init,
                                       const ConvolutionGeometry &geometry) {
  return linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{input, weight},
      ValueRange{init}, convolutionMaps(b.getContext(), geometry),
      convolutionIterators(geometry.spatialRank()), buildMultiplyAccumulate);
}

void tt::buildMultiplyAccumulate(OpBuilder &b, Location loc,
                                 ValueRange args) {
  Value product, sum;
  if (isa<FloatType>(args[0].getType())) {
    product = arith::MulFOp::create(b, loc, args[0], args[1]);
    sum = arith::AddFOp::create(b, loc, args[2], product);
  } else {
    product = arith::MulIOp::create(b, loc, args[0], args[1]);
    sum = arith::AddIOp::create(b, loc, args[2], product);
  }
  linalg::YieldOp::create(b, loc, sum);
}

std::optional<ConvolutionGeometry>
tt::matchConvolution(linalg::GenericOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 6 || loops % 2 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  int64_t d = (loops - 4) / 2;
  if (op.getIteratorTypesArray() != convolutionIterators(d))
    return std::nullopt;
  // Read the strides and dilations off the input's spatial expressions,
  // then require every map to be exactly the form they give (channels
  // first or last).
  AffineMap in = op.getIndexingMapsArray()[0];
  if (in.getNumResults() != static_cast<unsigned>(3 + d))
    return std::nullopt;
  std::optional<ConvolutionGeometry> found;
  for (bool last : {false, true}) {
    ConvolutionGeometry geometry;
    geometry.channelsLast = last;
    bool linear = true;
    for (int64_t i = 0; i < d && linear; ++i) {
      AffineExpr e = in.getResult((last ? 1 : 3) + i);
      std::optional<int64_t> s = coefficient(e, loops, 3 + i),
                             dl = coefficient(e, loops, 4 + d + i);
      linear = s && dl && *s > 0 && *dl > 0;
      if (linear) {
        geometry.strides.push_back(*s);
        geometry.dilations.push_back(*dl);
      }
    }
    if (linear && op.getIndexingMapsArray() ==
                      convolutionMaps(op.getContext(), geometry)) {
      found = std::move(geometry);
      break;
    }
  }
  if (!found)
    return std::nullopt;
  ConvolutionGeometry geometry = std::move(*found);
  // The body: yield(acc + a * b), floats or integers, no conversions.
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  Operation *mul = &body.front();
  Operation *add = mul->getNextNode();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value a = body.getArgument(0), w = body.getArgument(1),
        acc = body.getArgument(2);
  bool isMul = isa<arith::MulFOp, arith::MulIOp>(mul) &&
               ((mul->getOperand(0) == a && mul->getOperand(1) == w) ||
                (mul->getOperand(0) == w && mul->getOperand(1) == a));
  bool isAdd = isa<arith::AddFOp, arith::AddIOp>(add) &&
               ((add->getOperand(0) == acc &&
                 add->getOperand(1) == mul->getResult(0)) ||
                (add->getOperand(1) == acc &&
                 add->getOperand(0) == mul->getResult(0)));
  if (!isMul || !isAdd || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != add->getResult(0))
    return std::nullopt;
  return geometry;
}

void tt::populateConvolutionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvLowering>(patterns.getContext());
}
