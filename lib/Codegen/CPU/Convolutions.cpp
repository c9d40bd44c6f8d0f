//===- Convolutions.cpp - How the CPU computes a convolution -------------===//
//
// The one place that chooses, per shape class, how a convolution in
// tt-to-linalg's form (Convolution.h) is computed on the CPU. With C input
// channels per group, F output channels per group, a kernel of K elements
// and O output positions:
//
// - C > 1: a product in the matmul kernels (packing, register tiles, bias
//   and activation epilogues), the weights [G, F, C, K...] a free view as
//   [G, F, C * K]:
//   - a 1 x 1 kernel with unit strides: `[F, C] @ [C, O]` per image and
//     group, the input a free view as [N, G, C, O];
//   - a product shallower than kRowsMinDepth: `[F, C * K] @ [C * K, O]`
//     per image and group over the patches as columns, [N, G, C, K...,
//     O...] (im2col, one parallel generic); the result is [N, G, F, O...],
//     the convolution's own layout;
//   - a deeper one: `[N * O, C * K] @ [F, C * K].T` per group over the
//     patches as rows, [G, N, O..., C, K...] (the weights packed once for
//     all images), its [N * O, F] result transposed to [N, F, O].
// - C = 1 and F = 1 (depthwise): a matrix product would have a depth of K
//   (9 for 3 x 3), far too shallow for its register tiles. The input is
//   transposed to channels last and the window sums are vectorised along
//   the channels, contiguous whatever the strides (channels first, a
//   strided window reads every other element). On a 2-core Xeon (AVX-512),
//   f32, batch 1, 5 x 5 / 2 over 144 channels at 56 x 56: 0.75 -> 0.45 ms;
//   after BN + SiLU, 5 x 5 / 1: 3.6 -> 0.81 ms; MobileNetV3-small at batch
//   8 0.84x -> 0.89-0.97x eager. A channel multiplier (F > 1) stays the
//   direct reduction.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Conversion/TTToLinalg/Convolution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUCONVOLUTIONS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

/// Convolutions whose product has at least this depth (C * K) take the
/// patches as rows, shallower ones as columns. Measured on a 2-core Xeon
/// (AVX-512), f32, batch 1, GFLOP/s columns -> rows: 3 x 3 over 512
/// channels at 7 x 7 (depth 4608, 49 positions) 29 -> 230, 256 at 14 x 14
/// 58 -> 298, 128 at 28 x 28 232 -> 272, 64 at 56 x 56 200 -> 212; but
/// ResNet's stem (7 x 7 / 2 over 3 channels, depth 147) 180 -> 99 and a
/// strided 1 x 1 over 64 channels 122 -> 92: a shallow product's register
/// tiles end after a few steps of the reduction, and the transposed weights
/// are packed per block.
constexpr int64_t kRowsMinDepth = 256;

/// [a, b, c, x1..xd] -> [a, b, c, x1 * .. * xd] (or the reverse).
SmallVector<ReassociationIndices> mergeTrailing(int64_t lead, int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < lead; ++i)
    groups.push_back({i});
  ReassociationIndices rest;
  for (int64_t i = lead; i < rank; ++i)
    rest.push_back(i);
  groups.push_back(rest);
  return groups;
}

/// A zero-filled tensor; `dynamic` holds the sizes of its dynamic
/// dimensions.
Value zeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type et,
            ValueRange dynamic) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
  Value empty = tensor::EmptyOp::create(b, loc, shape, et, dynamic);
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// True if `value` is a linalg.fill of zero.
bool isZeroFill(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  return fill && (matchPattern(fill.value(), m_AnyZeroFloat()) ||
                  matchPattern(fill.value(), m_Zero()));
}

/// How im2col lays out the patches of an input [N, G, C, S...].
enum class Patches {
  /// [G, N, O..., C, K...]: one row [C * K] per output position, the
  /// images' rows one after the other.
  Rows,
  /// [N, G, C, K..., O...]: one column per output position.
  Columns,
};

/// The patches of `input`: element (n, g, o, c, k) is
/// input[n, g, c, o * stride + k * dilation], laid out as `layout` says.
Value im2col(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> kernel,
             ArrayRef<int64_t> outputSizes,
             const ConvolutionGeometry &geometry, Patches layout) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t d = geometry.spatialRank();
  int64_t loops = 3 + 2 * d;
  bool rows = layout == Patches::Rows;
  // The loop positions of n, g, c, k_i and o_i.
  int64_t n = rows ? 1 : 0, g = rows ? 0 : 1, c = rows ? 2 + d : 2;
  auto k = [&](int64_t i) { return rows ? 3 + d + i : 3 + i; };
  auto o = [&](int64_t i) { return rows ? 2 + i : 3 + d + i; };
  SmallVector<int64_t> shape = {type.getDimSize(rows ? 1 : 0),
                                type.getDimSize(rows ? 0 : 1)};
  if (rows)
    llvm::append_range(shape, outputSizes);
  shape.push_back(type.getDimSize(2));
  llvm::append_range(shape, kernel);
  if (!rows)
    llvm::append_range(shape, outputSizes);
  SmallVector<AffineExpr> in = {b.getAffineDimExpr(n), b.getAffineDimExpr(g),
                                b.getAffineDimExpr(c)};
  for (int64_t i = 0; i < d; ++i)
    in.push_back(b.getAffineDimExpr(o(i)) * geometry.strides[i] +
                 b.getAffineDimExpr(k(i)) * geometry.dilations[i]);
  SmallVector<Value> dynamic;
  if (type.isDynamicDim(0))
    dynamic.push_back(tensor::DimOp::create(b, loc, input, 0));
  Value init =
      tensor::EmptyOp::create(b, loc, shape, type.getElementType(), dynamic);
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, in, b.getContext()),
                                 b.getMultiDimIdentityMap(loops)};
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{input},
             ValueRange{init}, maps,
             SmallVector<utils::IteratorType>(loops,
                                              utils::IteratorType::parallel),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, args[0]);
             })
      .getResult(0);
}

/// The loops (n, g, m, n', k) of a batched product over images and groups
/// and its maps for A, B and C.
SmallVector<AffineMap> productMaps(MLIRContext *ctx, ArrayRef<unsigned> a,
                                   ArrayRef<unsigned> b) {
  auto dims = [&](ArrayRef<unsigned> positions) {
    SmallVector<AffineExpr> exprs;
    for (unsigned p : positions)
      exprs.push_back(getAffineDimExpr(p, ctx));
    return AffineMap::get(5, 0, exprs, ctx);
  };
  return {dims(a), dims(b), dims({0, 1, 2, 3})};
}

SmallVector<utils::IteratorType> productIterators() {
  SmallVector<utils::IteratorType> iterators(4,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return iterators;
}

/// [G, F, C * K] @ [N, G, C * K, O] -> [N, G, F, O], accumulated into
/// `init` (the result's own layout): `columns` is the input itself
/// ([N, G, C, O...], a 1 x 1 kernel with unit strides) or its patches
/// ([N, G, C, K..., O...]).
Value columnsProduct(OpBuilder &b, Location loc, Value columns,
                     Value weight, Value init, int64_t d) {
  int64_t rank = cast<RankedTensorType>(columns.getType()).getRank();
  SmallVector<ReassociationIndices> groups = {{0}, {1}};
  ReassociationIndices depth, positions;
  for (int64_t i = 2; i < rank - d; ++i)
    depth.push_back(i);
  for (int64_t i = rank - d; i < rank; ++i)
    positions.push_back(i);
  groups.push_back(depth);
  groups.push_back(positions);
  Value rhs = tensor::CollapseShapeOp::create(b, loc, columns, groups);
  Value lhs = tensor::CollapseShapeOp::create(b, loc, weight,
                                              mergeTrailing(2, 3 + d));
  SmallVector<ReassociationIndices> outGroups = mergeTrailing(3, 3 + d);
  Value acc = tensor::CollapseShapeOp::create(b, loc, init, outGroups);
  // Loops (n, g, f, o, c): A [G, F, C * K] is the same for every image.
  Value product =
      linalg::GenericOp::create(
          b, loc, TypeRange{acc.getType()}, ValueRange{lhs, rhs},
          ValueRange{acc},
          productMaps(b.getContext(), {1, 2, 4}, {0, 1, 4, 3}),
          productIterators(), buildMultiplyAccumulate)
          .getResult(0);
  return tensor::ExpandShapeOp::create(b, loc, init.getType(), product,
                                       outGroups);
}

/// The patch rows of all images, [G, N * O, C * K] @ [G, F, C * K].T ->
/// [G, N * O, F] (one product per group: the weights are packed once for
/// all images), transposed to [N, G, F, O...] and added to `init`.
Value patchProduct(OpBuilder &b, Location loc, Value input, Value weight,
                   Value init, const ConvolutionGeometry &geometry) {
  auto wType = cast<RankedTensorType>(weight.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  Type et = outType.getElementType();
  int64_t d = geometry.spatialRank();
  Value rows = im2col(b, loc, input, wType.getShape().drop_front(3),
                      outType.getShape().drop_front(3), geometry,
                      Patches::Rows);
  // [G, N, O..., C, K...] -> [G, N * O, C * K]; [G, F, C, K...] -> [G, F,
  // C * K].
  ReassociationIndices positions = {1}, depth;
  for (int64_t i = 0; i < d; ++i)
    positions.push_back(2 + i);
  for (int64_t i = 0; i <= d; ++i)
    depth.push_back(2 + d + i);
  Value lhs = tensor::CollapseShapeOp::create(
      b, loc, rows, SmallVector<ReassociationIndices>{{0}, positions, depth});
  Value rhs = tensor::CollapseShapeOp::create(b, loc, weight,
                                              mergeTrailing(2, 3 + d));
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  SmallVector<int64_t> productShape = {lhsType.getDimSize(0),
                                       lhsType.getDimSize(1),
                                       outType.getDimSize(2)};
  SmallVector<Value> dynamic;
  if (lhsType.isDynamicDim(1))
    dynamic.push_back(tensor::DimOp::create(b, loc, lhs, 1));
  Value acc = zeros(b, loc, productShape, et, dynamic);
  // Loops (g, m, f, c): B [G, F, C * K] transposed.
  MLIRContext *ctx = b.getContext();
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> productMaps = {
      AffineMap::get(4, 0, {dim(0), dim(1), dim(3)}, ctx),
      AffineMap::get(4, 0, {dim(0), dim(2), dim(3)}, ctx),
      AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value product =
      linalg::GenericOp::create(b, loc, TypeRange{acc.getType()},
                                ValueRange{lhs, rhs}, ValueRange{acc},
                                productMaps, iterators, buildMultiplyAccumulate)
          .getResult(0);
  // [G, N * O, F] -> [G, N, O, F] -> [N, G, F, O...], plus the initial
  // value unless it is zero.
  SmallVector<int64_t> split = {outType.getDimSize(1), outType.getDimSize(0),
                                1, outType.getDimSize(2)};
  for (int64_t size : outType.getShape().drop_front(3))
    split[2] *= size;
  product = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(split, et), product,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}});
  SmallVector<ReassociationIndices> outGroups = mergeTrailing(3, 3 + d);
  Value out = tensor::CollapseShapeOp::create(b, loc, init, outGroups);
  AffineMap transposed =
      AffineMap::get(4, 0, {dim(1), dim(0), dim(3), dim(2)}, ctx);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, ctx);
  bool add = !isZeroFill(init);
  SmallVector<Value> inputs = {product};
  SmallVector<AffineMap> maps = {transposed};
  if (add) {
    inputs.push_back(out);
    maps.push_back(identity);
  }
  maps.push_back(identity);
  Value result =
      linalg::GenericOp::create(
          b, loc, TypeRange{out.getType()}, inputs, ValueRange{out}, maps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [add](OpBuilder &nb, Location nloc, ValueRange args) {
            Value v = args[0];
            if (add)
              v = isa<FloatType>(v.getType())
                      ? arith::AddFOp::create(nb, nloc, v, args[1])
                            .getResult()
                      : arith::AddIOp::create(nb, nloc, v, args[1])
                            .getResult();
            linalg::YieldOp::create(nb, nloc, v);
          })
          .getResult(0);
  return tensor::ExpandShapeOp::create(b, loc, outType, result, outGroups);
}

/// A convolution with more than one input channel per group as a product.
Value asMatmul(OpBuilder &b, linalg::GenericOp conv,
               const ConvolutionGeometry &geometry) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputOperand(0)->get();
  Value weight = conv.getDpsInputOperand(1)->get();
  Value init = conv.getDpsInitOperand(0)->get();
  auto wType = cast<RankedTensorType>(weight.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  int64_t d = geometry.spatialRank();
  ArrayRef<int64_t> kernel = wType.getShape().drop_front(3);
  ArrayRef<int64_t> outputSizes = outType.getShape().drop_front(3);
  bool pointwise =
      llvm::all_of(kernel, [](int64_t k) { return k == 1; }) &&
      llvm::all_of(geometry.strides, [](int64_t s) { return s == 1; }) &&
      cast<RankedTensorType>(input.getType()).getShape().drop_front(3) ==
          outputSizes;
  if (pointwise)
    return columnsProduct(b, loc, input, weight, init, d);
  int64_t depth = wType.getDimSize(2);
  for (int64_t k : kernel)
    depth *= k;
  if (depth < kRowsMinDepth)
    return columnsProduct(
        b, loc,
        im2col(b, loc, input, kernel, outputSizes, geometry, Patches::Columns),
        weight, init, d);
  return patchProduct(b, loc, input, weight, init, geometry);
}

/// `value` [A, B, X...] with its trailing dimensions merged and moved
/// first or last: [A, B, X...] -> [A, X, B] (`toLast`) or [A, X, B] -> [A,
/// B, X] (a linalg.transpose of the two innermost dimensions, which the
/// strategy computes in register blocks).
Value swapInnermost(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape = {type.getDimSize(0), type.getDimSize(2),
                                type.getDimSize(1)};
  SmallVector<Value> dynamic;
  if (type.isDynamicDim(0))
    dynamic.push_back(tensor::DimOp::create(b, loc, value, 0));
  Value init =
      tensor::EmptyOp::create(b, loc, shape, type.getElementType(), dynamic);
  return linalg::TransposeOp::create(b, loc, value, init,
                                     ArrayRef<int64_t>{0, 2, 1})
      .getResult()[0];
}

/// A depthwise convolution (one input and one output channel per group)
/// computed channels last: the padded input [N, C, S...] transposed to
/// [N, S..., C], the sums of `x[n, o * s + k * dl, c] * w[k, c]` vectorised
/// along the channels (contiguous whatever the strides), the result
/// transposed back. Nothing when `init` is not zero.
Value depthwiseChannelsLast(OpBuilder &b, linalg::GenericOp conv,
                            const ConvolutionGeometry &geometry) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputOperand(0)->get();  // [N, G, 1, S...]
  Value weight = conv.getDpsInputOperand(1)->get(); // [G, 1, 1, K...]
  Value init = conv.getDpsInitOperand(0)->get();    // [N, G, 1, O...]
  if (!isZeroFill(init))
    return {};
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  Type et = outType.getElementType();
  int64_t d = geometry.spatialRank();
  MLIRContext *ctx = b.getContext();
  // [N, G, 1, S...] -> [N, G, S] -> [N, S, G] -> [N, S..., G].
  SmallVector<ReassociationIndices> merge = {{0}, {1, 2}};
  ReassociationIndices spatial;
  for (int64_t i = 0; i < d; ++i)
    spatial.push_back(3 + i);
  merge.push_back(spatial);
  Value x = swapInnermost(
      b, loc, tensor::CollapseShapeOp::create(b, loc, input, merge));
  SmallVector<int64_t> lastShape = {inType.getDimSize(0)};
  llvm::append_range(lastShape, inType.getShape().drop_front(3));
  lastShape.push_back(inType.getDimSize(1));
  SmallVector<ReassociationIndices> split = {{0}};
  ReassociationIndices positions;
  for (int64_t i = 0; i < d; ++i)
    positions.push_back(1 + i);
  split.push_back(positions);
  split.push_back({1 + d});
  x = tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(lastShape, et),
                                    x, split);
  // [G, 1, 1, K...] -> [G, K] -> [K, G] -> [K..., G].
  Value w = tensor::CollapseShapeOp::create(
      b, loc, weight,
      SmallVector<ReassociationIndices>{{0}, [&] {
                                           ReassociationIndices all;
                                           for (int64_t i = 1; i < 3 + d; ++i)
                                             all.push_back(i);
                                           return all;
                                         }()});
  int64_t kernelSize = 1;
  for (int64_t k : wType.getShape().drop_front(3))
    kernelSize *= k;
  Value wInit = tensor::EmptyOp::create(
      b, loc, SmallVector<int64_t>{kernelSize, wType.getDimSize(0)}, et);
  w = linalg::TransposeOp::create(b, loc, w, wInit, ArrayRef<int64_t>{1, 0})
          .getResult()[0];
  SmallVector<int64_t> wShape(wType.getShape().drop_front(3));
  wShape.push_back(wType.getDimSize(0));
  SmallVector<ReassociationIndices> wSplit;
  ReassociationIndices kernelDims;
  for (int64_t i = 0; i < d; ++i)
    kernelDims.push_back(i);
  wSplit.push_back(kernelDims);
  wSplit.push_back({d});
  w = tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(wShape, et),
                                    w, wSplit);
  // Loops (n, o..., c, k...): [N, O..., C].
  SmallVector<int64_t> outShape = {outType.getDimSize(0)};
  llvm::append_range(outShape, outType.getShape().drop_front(3));
  outShape.push_back(outType.getDimSize(1));
  SmallVector<Value> dynamic;
  if (outType.isDynamicDim(0))
    dynamic.push_back(tensor::DimOp::create(b, loc, x, 0));
  Value acc = zeros(b, loc, outShape, et, dynamic);
  int64_t loops = 2 + 2 * d;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> in = {dim(0)}, wk, out = {dim(0)};
  for (int64_t i = 0; i < d; ++i) {
    in.push_back(dim(1 + i) * geometry.strides[i] +
                 dim(2 + d + i) * geometry.dilations[i]);
    wk.push_back(dim(2 + d + i));
    out.push_back(dim(1 + i));
  }
  in.push_back(dim(1 + d));
  wk.push_back(dim(1 + d));
  out.push_back(dim(1 + d));
  SmallVector<utils::IteratorType> iterators(2 + d,
                                             utils::IteratorType::parallel);
  iterators.append(d, utils::IteratorType::reduction);
  Value sums = linalg::GenericOp::create(
                   b, loc, TypeRange{acc.getType()}, ValueRange{x, w},
                   ValueRange{acc},
                   SmallVector<AffineMap>{AffineMap::get(loops, 0, in, ctx),
                                          AffineMap::get(loops, 0, wk, ctx),
                                          AffineMap::get(loops, 0, out, ctx)},
                   iterators, buildMultiplyAccumulate)
                   .getResult(0);
  // [N, O..., C] -> [N, O, C] -> [N, C, O] -> [N, G, 1, O...].
  SmallVector<ReassociationIndices> outMerge = {{0}};
  outMerge.push_back(positions);
  outMerge.push_back({1 + d});
  Value y = swapInnermost(
      b, loc, tensor::CollapseShapeOp::create(b, loc, sums, outMerge));
  ReassociationIndices outPositions;
  for (int64_t i = 0; i < d; ++i)
    outPositions.push_back(3 + i);
  return tensor::ExpandShapeOp::create(
      b, loc, outType, y,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, outPositions});
}

struct TTCPUConvolutionsPass
    : public tt::impl::TTCPUConvolutionsBase<TTCPUConvolutionsPass> {
  using TTCPUConvolutionsBase::TTCPUConvolutionsBase;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, ConvolutionGeometry>> convs;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<ConvolutionGeometry> geometry = matchConvolution(op))
        convs.emplace_back(op, std::move(*geometry));
    });
    IRRewriter rewriter(&getContext());
    for (auto &[conv, geometry] : convs) {
      auto wType =
          cast<RankedTensorType>(conv.getDpsInputOperand(1)->get().getType());
      rewriter.setInsertionPoint(conv);
      Value result;
      if (wType.getDimSize(2) > 1)
        result = asMatmul(rewriter, conv, geometry);
      else if (wType.getDimSize(1) == 1 && channelsLastDepthwise)
        result = depthwiseChannelsLast(rewriter, conv, geometry);
      // Otherwise (a channel multiplier) the direct reduction.
      if (result)
        rewriter.replaceOp(conv, result);
    }
  }
};

} // namespace
