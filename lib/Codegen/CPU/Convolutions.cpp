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
//   - 2-D, one group, patches that would leave the caches (ResNet's 64- and
//     128-channel layers and stem at batch 8): the rows form a block of
//     output rows at a time, in a parallel loop over images and blocks,
//     each block's patches (at most 1 MiB, channels innermost so that
//     their copy is a register-blocked transpose of input planes) built
//     just before its product reads them from L2 (patchBlockRows).
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
// Channels last (tt-channels-last makes every convolution of one group,
// every depthwise one and every one of several groups with several
// channels each this form, and keeps the values between them channels
// last), no activation is transposed:
// - one group: `[N * O, K * C] @ [F, K * C].T`, whose [N * O, F] result is
//   the output; the rows are the input itself for a 1 x 1 kernel with unit
//   strides, else patch rows in (k..., c) order (runs of C contiguous
//   channels; the weights reordered once per call), blocked as above when
//   they would leave the caches, or in (c, k...) order when the weights
//   outweigh the patches (deep layers at batch 1);
// - several groups: `[G, N * O, K * C] @ [G, F, K * C].T`, a product per
//   group over patch rows that copy runs of the group's channels (in
//   either order, as for one group), its [G, N * O, F] result transposed
//   into the output. On a 2-core Zen 4, f32, batch 1, against the same
//   convolutions channels first between transposes (in one process):
//   RegNetX-3.2GF 1.14x, RegNetX-8GF 1.08x, ResNeXt-50 1.04x;
// - depthwise: the vectorised window sums on the input as it is.
// On a 2-core Xeon (AVX-512), f32, against eager (oneDNN) in one run,
// channels first -> last: 3 x 3 over 64 channels at 56 x 56, batch 8,
// 1.22x -> 1.34x; 128 at 28 x 28 0.78x -> 0.86x; 256 at 14 x 14 0.72x ->
// 0.77x; the 7 x 7 / 2 stem 1.43x -> 1.57x; 1 x 1 / 2 64 -> 128 0.93x ->
// 1.54x. Whole models: MobileNetV3-small 0.65x -> 1.07x eager at batch 1,
// ResNet-18 0.86x -> 0.96x at batch 8.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Conversion/TTToLinalg/Convolution.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// Blocked patches (patchBlockRows): only when all patches take at least
/// this many bytes, ...
constexpr int64_t kMinBlockedPatchBytes = 4 << 20;
/// ... in blocks of at most this many bytes ...
constexpr int64_t kMaxPatchBlockBytes = 1 << 20;
/// ... of at least this many times the weights' bytes.
constexpr int64_t kMinWeightRatio = 2;

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
             ArrayRef<int64_t> outputSizes, const ConvolutionGeometry &geometry,
             Patches layout) {
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
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return iterators;
}

/// The body of an elementwise generic that yields its one input, or the
/// sum of its two (a product plus the convolution's initial value).
void yieldInputs(OpBuilder &b, Location loc, ValueRange args) {
  Value v = args[0];
  if (args.size() > 2)
    v = isa<FloatType>(v.getType())
            ? arith::AddFOp::create(b, loc, v, args[1]).getResult()
            : arith::AddIOp::create(b, loc, v, args[1]).getResult();
  linalg::YieldOp::create(b, loc, v);
}

/// `lhs` [M, K] @ `rhs` [N, K].T accumulated into `acc` [M, N]: loops (m,
/// n, k), B transposed, the form the matmul kernels pack.
Value productTransposedB(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         Value acc) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, ValueRange{lhs, rhs},
             ValueRange{acc},
             SmallVector<AffineMap>{AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                                    AffineMap::get(3, 0, {d(1), d(2)}, ctx),
                                    AffineMap::get(3, 0, {d(0), d(1)}, ctx)},
             SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                              utils::IteratorType::parallel,
                                              utils::IteratorType::reduction},
             buildMultiplyAccumulate)
      .getResult(0);
}

/// `value` read through `map` (a permutation of `out`'s loops) into
/// `out`'s layout, plus `out`'s own values if `add` (a convolution's
/// product and its initial value, unless that is zero).
Value permutedInto(OpBuilder &b, Location loc, Value value, Value out,
                   AffineMap map, bool add) {
  unsigned rank = map.getNumDims();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<Value> inputs = {value};
  SmallVector<AffineMap> maps = {map};
  if (add) {
    inputs.push_back(out);
    maps.push_back(identity);
  }
  maps.push_back(identity);
  return linalg::GenericOp::create(b, loc, TypeRange{out.getType()}, inputs,
                                   ValueRange{out}, maps,
                                   SmallVector<utils::IteratorType>(
                                       rank, utils::IteratorType::parallel),
                                   yieldInputs)
      .getResult(0);
}

/// `lhs` [G, M, K] @ `rhs` [G, N, K].T per group, into zeros [G, M, N]:
/// loops (g, m, n, k), the batched form of productTransposedB.
Value groupProductsTransposedB(OpBuilder &b, Location loc, Value lhs,
                               Value rhs) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  SmallVector<Value> dynamic;
  if (lhsType.isDynamicDim(1))
    dynamic.push_back(tensor::DimOp::create(b, loc, lhs, 1));
  Value acc = zeros(
      b, loc,
      {lhsType.getDimSize(0), lhsType.getDimSize(1), rhsType.getDimSize(1)},
      lhsType.getElementType(), dynamic);
  MLIRContext *ctx = b.getContext();
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, {dim(0), dim(1), dim(3)}, ctx),
      AffineMap::get(4, 0, {dim(0), dim(2), dim(3)}, ctx),
      AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(b, loc, TypeRange{acc.getType()},
                                   ValueRange{lhs, rhs}, ValueRange{acc}, maps,
                                   iterators, buildMultiplyAccumulate)
      .getResult(0);
}

/// [G, F, C * K] @ [N, G, C * K, O] -> [N, G, F, O], accumulated into
/// `init` (the result's own layout): `columns` is the input itself
/// ([N, G, C, O...], a 1 x 1 kernel with unit strides) or its patches
/// ([N, G, C, K..., O...]).
Value columnsProduct(OpBuilder &b, Location loc, Value columns, Value weight,
                     Value init, int64_t d) {
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
  Value lhs =
      tensor::CollapseShapeOp::create(b, loc, weight, mergeTrailing(2, 3 + d));
  SmallVector<ReassociationIndices> outGroups = mergeTrailing(3, 3 + d);
  Value acc = tensor::CollapseShapeOp::create(b, loc, init, outGroups);
  // Loops (n, g, f, o, c): A [G, F, C * K] is the same for every image.
  Value product =
      linalg::GenericOp::create(
          b, loc, TypeRange{acc.getType()}, ValueRange{lhs, rhs},
          ValueRange{acc}, productMaps(b.getContext(), {1, 2, 4}, {0, 1, 4, 3}),
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
  Value rows =
      im2col(b, loc, input, wType.getShape().drop_front(3),
             outType.getShape().drop_front(3), geometry, Patches::Rows);
  // [G, N, O..., C, K...] -> [G, N * O, C * K]; [G, F, C, K...] -> [G, F,
  // C * K].
  ReassociationIndices positions = {1}, depth;
  for (int64_t i = 0; i < d; ++i)
    positions.push_back(2 + i);
  for (int64_t i = 0; i <= d; ++i)
    depth.push_back(2 + d + i);
  Value lhs = tensor::CollapseShapeOp::create(
      b, loc, rows, SmallVector<ReassociationIndices>{{0}, positions, depth});
  Value rhs =
      tensor::CollapseShapeOp::create(b, loc, weight, mergeTrailing(2, 3 + d));
  // Loops (g, m, f, c): B [G, F, C * K] transposed.
  Value product = groupProductsTransposedB(b, loc, lhs, rhs);
  MLIRContext *ctx = b.getContext();
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // [G, N * O, F] -> [G, N, O, F] -> [N, G, F, O...], plus the initial
  // value unless it is zero.
  SmallVector<int64_t> split = {outType.getDimSize(1), outType.getDimSize(0), 1,
                                outType.getDimSize(2)};
  for (int64_t size : outType.getShape().drop_front(3))
    split[2] *= size;
  product = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(split, et), product,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}});
  SmallVector<ReassociationIndices> outGroups = mergeTrailing(3, 3 + d);
  Value out = tensor::CollapseShapeOp::create(b, loc, init, outGroups);
  Value result =
      permutedInto(b, loc, product, out,
                   AffineMap::get(4, 0, {dim(1), dim(0), dim(3), dim(2)}, ctx),
                   !isZeroFill(init));
  return tensor::ExpandShapeOp::create(b, loc, outType, result, outGroups);
}

/// Blocked patch rows: how many output rows a block of a convolution with
/// `outRows` rows of `outCols` positions and a product depth of `depth`
/// takes (a divisor of `outRows`), or 0 when blocking does not pay. A
/// block's patches, [rows * outCols, depth], are built just before its
/// product reads them and stay in L2, where patches built whole for all
/// images leave the caches (58 MB for ResNet-18's 64-channel layers at
/// batch 8).
int64_t patchBlockRows(int64_t images, int64_t outRows, int64_t outCols,
                       int64_t depth, int64_t filters, Type elementType) {
  if (ShapedType::isDynamic(outRows) || ShapedType::isDynamic(outCols) ||
      ShapedType::isDynamic(depth))
    return 0;
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  int64_t rowBytes = depth * elementBytes;
  int64_t total = outRows * outCols * rowBytes *
                  (ShapedType::isDynamic(images) ? 1 : images);
  // Patches that fit the caches whole gain nothing; each block packs the
  // weights again, so they must be small beside the block's patches.
  int64_t weightBytes = filters * rowBytes;
  if (total < kMinBlockedPatchBytes)
    return 0;
  int64_t best = 0;
  for (int64_t rows = 1; rows <= outRows; ++rows) {
    if (outRows % rows)
      continue;
    int64_t bytes = rows * outCols * rowBytes;
    if (bytes > kMaxPatchBlockBytes)
      break;
    best = rows;
  }
  if (!best || best * outCols * rowBytes < kMinWeightRatio * weightBytes)
    return 0;
  return best;
}

/// The patch rows of a block of output rows at a time, in a parallel loop
/// over images and blocks: `[rows * OW, C * K] @ [F, C * K].T`, transposed
/// into the block's `[F, rows, OW]` of the result (plus `init` unless it
/// is zero). Groups = 1, two spatial dimensions.
Value blockedPatchProduct(OpBuilder &b, Location loc, Value input, Value weight,
                          Value init, const ConvolutionGeometry &geometry,
                          int64_t blockRows) {
  auto inType = cast<RankedTensorType>(input.getType()); // [N, 1, C, H, W]
  auto wType = cast<RankedTensorType>(weight.getType()); // [1, F, C, KH, KW]
  auto outType = cast<RankedTensorType>(init.getType()); // [N, 1, F, OH, OW]
  Type et = outType.getElementType();
  MLIRContext *ctx = b.getContext();
  int64_t channels = inType.getDimSize(2), width = inType.getDimSize(4);
  int64_t filters = wType.getDimSize(1);
  int64_t kh = wType.getDimSize(3), kw = wType.getDimSize(4);
  int64_t outRows = outType.getDimSize(3), outCols = outType.getDimSize(4);
  int64_t sh = geometry.strides[0], sw = geometry.strides[1];
  int64_t dh = geometry.dilations[0], dw = geometry.dilations[1];
  int64_t inRows = (blockRows - 1) * sh + (kh - 1) * dh + 1;
  int64_t positions = blockRows * outCols;
  bool add = !isZeroFill(init);
  // [1, F, C, KH, KW] -> [F, KH, KW, C] -> [F, KH * KW * C], the order of
  // the patch rows.
  Value weights = tensor::CollapseShapeOp::create(
      b, loc, weight, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
  Value wInit = tensor::EmptyOp::create(
      b, loc, SmallVector<int64_t>{filters, kh, kw, channels}, et);
  weights = linalg::TransposeOp::create(b, loc, weights, wInit,
                                        ArrayRef<int64_t>{0, 2, 3, 1})
                .getResult()[0];
  Value rhs = tensor::CollapseShapeOp::create(
      b, loc, weights, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  SmallVector<OpFoldResult> upper = {tensor::getMixedSize(b, loc, init, 0),
                                     b.getIndexAttr(outRows / blockRows)};
  // The loop's result is [N, F, OH * OW]: a block's [F, rows * OW] is a
  // slice of it, written in place. Every element is written: a zero init
  // need not be filled first.
  SmallVector<ReassociationIndices> flat = {{0}, {1, 2}, {3, 4}};
  SmallVector<int64_t> flatShape = {outType.getDimSize(0), filters,
                                    outRows * outCols};
  Value shared;
  if (add) {
    shared = tensor::CollapseShapeOp::create(b, loc, init, flat);
  } else {
    SmallVector<Value> dynamic;
    if (outType.isDynamicDim(0))
      dynamic.push_back(tensor::DimOp::create(b, loc, init, 0));
    shared = tensor::EmptyOp::create(b, loc, flatShape, et, dynamic);
  }
  auto loop =
      scf::ForallOp::create(b, loc, upper, ValueRange{shared}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getTerminator());
  Value image = loop.getInductionVar(0), block = loop.getInductionVar(1);
  shared = loop.getRegionIterArgs()[0];
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  Value firstInputRow = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(1, 0, d(0) * (blockRows * sh), ctx), block);
  auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  // The input rows the block reads: [C, inRows, W].
  Value rowsIn = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({channels, inRows, width}, et), input,
      SmallVector<OpFoldResult>{image, idx(0), idx(0), firstInputRow, idx(0)},
      SmallVector<OpFoldResult>{idx(1), idx(1), idx(channels), idx(inRows),
                                idx(width)},
      SmallVector<OpFoldResult>(5, idx(1)));
  // Loops (oy, ox, ky, kx, c): [rows, OW, KH, KW, C], the channels
  // innermost: each (oy, ky, kx) copies a [C, OW] plane of the input
  // transposed, in register blocks (a patch row in PyTorch's (c, ky, kx)
  // order would be runs of KW elements).
  SmallVector<int64_t> patchShape = {blockRows, outCols, kh, kw, channels};
  Value patchInit = tensor::EmptyOp::create(b, loc, patchShape, et);
  Value patches =
      linalg::GenericOp::create(
          b, loc, TypeRange{patchInit.getType()}, ValueRange{rowsIn},
          ValueRange{patchInit},
          SmallVector<AffineMap>{AffineMap::get(5, 0,
                                                {d(4), d(0) * sh + d(2) * dh,
                                                 d(1) * sw + d(3) * dw},
                                                ctx),
                                 b.getMultiDimIdentityMap(5)},
          SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(nb, nloc, args[0]);
          })
          .getResult(0);
  Value lhs = tensor::CollapseShapeOp::create(
      b, loc, patches, SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}});
  // Loops (m, f, k): [positions, F] = lhs @ rhs.T.
  Value acc = zeros(b, loc, {positions, filters}, et, {});
  Value product = productTransposedB(b, loc, lhs, rhs, acc);
  // The block of the result, [F, rows * OW], from the loop's shared value
  // (init's values where they are added): written where the loop's result
  // is.
  Value firstPosition = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(1, 0, d(0) * positions, ctx), block);
  SmallVector<OpFoldResult> outOffsets = {image, idx(0), firstPosition};
  SmallVector<OpFoldResult> outSizes = {idx(1), idx(filters), idx(positions)};
  SmallVector<OpFoldResult> unit(3, idx(1));
  auto blockType = RankedTensorType::get({filters, positions}, et);
  Value outBlock = tensor::ExtractSliceOp::create(b, loc, blockType, shared,
                                                  outOffsets, outSizes, unit);
  SmallVector<Value> inputs = {product};
  SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {d(1), d(0)}, ctx)};
  if (add) {
    inputs.push_back(outBlock);
    maps.push_back(b.getMultiDimIdentityMap(2));
  }
  maps.push_back(b.getMultiDimIdentityMap(2));
  Value resultBlock =
      linalg::GenericOp::create(
          b, loc, TypeRange{blockType}, inputs, ValueRange{outBlock}, maps,
          SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
          yieldInputs)
          .getResult(0);
  b.setInsertionPointToStart(loop.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, resultBlock, shared, outOffsets,
                                        outSizes, unit);
  b.setInsertionPointAfter(loop);
  return tensor::ExpandShapeOp::create(b, loc, outType, loop.getResult(0),
                                       flat);
}

/// A convolution with more than one input channel per group as a product.
Value asMatmul(OpBuilder &b, linalg::GenericOp conv,
               const ConvolutionGeometry &geometry, bool patchBlocks) {
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
  // Blocked patches where their copy has a unit-stride loop to read
  // along (the output columns), or where the alternative is the columns
  // form of a shallow product. Measured on a 2-core Xeon (AVX-512), f32,
  // batch 8, against the whole patches: 3 x 3 over 64 channels at 56 x 56
  // 1.14x, ResNet's 7 x 7 / 2 stem 1.11x; 3 x 3 / 2 64 -> 128 0.94x and
  // 128 channels at 28 x 28 (weights 2 / 3 of a block) 0.94x.
  if (patchBlocks && d == 2 && wType.getDimSize(0) == 1 &&
      (geometry.strides[1] == 1 || depth < kRowsMinDepth)) {
    if (int64_t rows = patchBlockRows(
            outType.getDimSize(0), outputSizes[0], outputSizes[1], depth,
            wType.getDimSize(1), outType.getElementType()))
      return blockedPatchProduct(b, loc, input, weight, init, geometry, rows);
  }
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

/// The sums `x[n, o * s + k * dl, c] * w[k, c]` of a depthwise convolution
/// of `x` [N, S..., C] (padded) with `weight` [C, 1, 1, K...] into [N, O...,
/// C] (`outShape`), vectorised along the channels (contiguous whatever the
/// strides).
Value depthwiseSums(OpBuilder &b, Location loc, Value x, Value weight,
                    ArrayRef<int64_t> outShape,
                    const ConvolutionGeometry &geometry) {
  auto wType = cast<RankedTensorType>(weight.getType());
  Type et = wType.getElementType();
  int64_t d = geometry.spatialRank();
  MLIRContext *ctx = b.getContext();
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
  SmallVector<Value> dynamic;
  if (ShapedType::isDynamic(outShape[0]))
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
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, ValueRange{x, w},
             ValueRange{acc},
             SmallVector<AffineMap>{AffineMap::get(loops, 0, in, ctx),
                                    AffineMap::get(loops, 0, wk, ctx),
                                    AffineMap::get(loops, 0, out, ctx)},
             iterators, buildMultiplyAccumulate)
      .getResult(0);
}

/// A depthwise convolution (one input and one output channel per group)
/// computed channels last: the padded input [N, C, S...] transposed to
/// [N, S..., C], depthwiseSums, the result transposed back. Nothing when
/// `init` is not zero.
Value depthwiseChannelsLast(OpBuilder &b, linalg::GenericOp conv,
                            const ConvolutionGeometry &geometry) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputOperand(0)->get();  // [N, G, 1, S...]
  Value weight = conv.getDpsInputOperand(1)->get(); // [G, 1, 1, K...]
  Value init = conv.getDpsInitOperand(0)->get();    // [N, G, 1, O...]
  if (!isZeroFill(init))
    return {};
  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  Type et = outType.getElementType();
  int64_t d = geometry.spatialRank();
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
  x = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(lastShape, et), x, split);
  SmallVector<int64_t> outShape = {outType.getDimSize(0)};
  llvm::append_range(outShape, outType.getShape().drop_front(3));
  outShape.push_back(outType.getDimSize(1));
  Value sums = depthwiseSums(b, loc, x, weight, outShape, geometry);
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

/// `value` [N, X..., 1, C] (a channels-last operand of one group) as [N,
/// X..., C].
Value dropGroup(OpBuilder &b, Location loc, Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank - 2; ++i)
    groups.push_back({i});
  groups.push_back({rank - 2, rank - 1});
  return tensor::CollapseShapeOp::create(b, loc, value, groups);
}

/// A channels-last depthwise convolution: depthwiseSums on the input as it
/// is. Nothing when `init` is not zero.
Value depthwiseNHWC(OpBuilder &b, linalg::GenericOp conv,
                    const ConvolutionGeometry &geometry) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputOperand(0)->get();  // [N, S..., G, 1]
  Value weight = conv.getDpsInputOperand(1)->get(); // [G, 1, 1, K...]
  Value init = conv.getDpsInitOperand(0)->get();    // [N, O..., G, 1]
  if (!isZeroFill(init))
    return {};
  auto outType = cast<RankedTensorType>(init.getType());
  int64_t rank = outType.getRank();
  Value sums = depthwiseSums(b, loc, dropGroup(b, loc, input), weight,
                             outType.getShape().drop_back(), geometry);
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank - 2; ++i)
    groups.push_back({i});
  groups.push_back({rank - 2, rank - 1});
  return tensor::ExpandShapeOp::create(b, loc, outType, sums, groups);
}

/// Channels last, the blocked form of blockedPatchProduct: in a parallel
/// loop over images and blocks of `blockRows` output rows, the block's
/// patch rows [rows * OW, KH * KW * C] (contiguous runs of C channels) are
/// built just before `[rows * OW, K * C] @ [F, K * C].T` reads them from L2,
/// and the product is the block of the result, [rows * OW, F], as it is
/// (init's values are its accumulator where they are added). `weights` is
/// [F, K * C] in (ky, kx, c) order.
Value blockedChannelsLastProduct(OpBuilder &b, Location loc, Value x,
                                 Value weights, Value init,
                                 ArrayRef<int64_t> kernel,
                                 const ConvolutionGeometry &geometry,
                                 int64_t blockRows) {
  auto inType = cast<RankedTensorType>(x.getType());      // [N, H, W, C]
  auto outType = cast<RankedTensorType>(init.getType());  // [N, OH, OW, 1, F]
  auto wType = cast<RankedTensorType>(weights.getType()); // [F, K * C]
  Type et = outType.getElementType();
  MLIRContext *ctx = b.getContext();
  int64_t width = inType.getDimSize(2), channels = inType.getDimSize(3);
  int64_t filters = wType.getDimSize(0);
  int64_t kh = kernel[0], kw = kernel[1];
  int64_t outRows = outType.getDimSize(1), outCols = outType.getDimSize(2);
  int64_t sh = geometry.strides[0], sw = geometry.strides[1];
  int64_t dh = geometry.dilations[0], dw = geometry.dilations[1];
  int64_t inRows = (blockRows - 1) * sh + (kh - 1) * dh + 1;
  int64_t positions = blockRows * outCols;
  bool add = !isZeroFill(init);
  // The loop's result is [N, OH * OW, F]: a block's [rows * OW, F] is a
  // contiguous slice of it, written in place.
  SmallVector<ReassociationIndices> flat = {{0}, {1, 2}, {3, 4}};
  SmallVector<int64_t> flatShape = {outType.getDimSize(0), outRows * outCols,
                                    filters};
  Value shared;
  if (add) {
    shared = tensor::CollapseShapeOp::create(b, loc, init, flat);
  } else {
    SmallVector<Value> dynamic;
    if (outType.isDynamicDim(0))
      dynamic.push_back(tensor::DimOp::create(b, loc, init, 0));
    shared = tensor::EmptyOp::create(b, loc, flatShape, et, dynamic);
  }
  SmallVector<OpFoldResult> upper = {tensor::getMixedSize(b, loc, init, 0),
                                     b.getIndexAttr(outRows / blockRows)};
  auto loop =
      scf::ForallOp::create(b, loc, upper, ValueRange{shared}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getTerminator());
  Value image = loop.getInductionVar(0), block = loop.getInductionVar(1);
  shared = loop.getRegionIterArgs()[0];
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Value firstInputRow = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(1, 0, d(0) * (blockRows * sh), ctx), block);
  // The input rows the block reads: [inRows, W, C].
  Value rowsIn = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({inRows, width, channels}, et), x,
      SmallVector<OpFoldResult>{image, firstInputRow, idx(0), idx(0)},
      SmallVector<OpFoldResult>{idx(1), idx(inRows), idx(width), idx(channels)},
      SmallVector<OpFoldResult>(4, idx(1)));
  // Loops (oy, ox, ky, kx, c): [rows, OW, KH, KW, C].
  SmallVector<int64_t> patchShape = {blockRows, outCols, kh, kw, channels};
  Value patchInit = tensor::EmptyOp::create(b, loc, patchShape, et);
  Value patches =
      linalg::GenericOp::create(
          b, loc, TypeRange{patchInit.getType()}, ValueRange{rowsIn},
          ValueRange{patchInit},
          SmallVector<AffineMap>{AffineMap::get(5, 0,
                                                {d(0) * sh + d(2) * dh,
                                                 d(1) * sw + d(3) * dw, d(4)},
                                                ctx),
                                 b.getMultiDimIdentityMap(5)},
          SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(nb, nloc, args[0]);
          })
          .getResult(0);
  Value lhs = tensor::CollapseShapeOp::create(
      b, loc, patches, SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}});
  Value firstPosition = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(1, 0, d(0) * positions, ctx), block);
  SmallVector<OpFoldResult> outOffsets = {image, firstPosition, idx(0)};
  SmallVector<OpFoldResult> outSizes = {idx(1), idx(positions), idx(filters)};
  SmallVector<OpFoldResult> unit(3, idx(1));
  auto blockType = RankedTensorType::get({positions, filters}, et);
  Value acc = add ? tensor::ExtractSliceOp::create(b, loc, blockType, shared,
                                                   outOffsets, outSizes, unit)
                        .getResult()
                  : zeros(b, loc, {positions, filters}, et, {});
  // Loops (m, f, k): [positions, F] = lhs @ weights.T.
  Value product = productTransposedB(b, loc, lhs, weights, acc);
  b.setInsertionPointToStart(loop.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, product, shared, outOffsets,
                                        outSizes, unit);
  b.setInsertionPointAfter(loop);
  return tensor::ExpandShapeOp::create(b, loc, outType, loop.getResult(0),
                                       flat);
}

/// Whether a channels-last convolution's patch rows take PyTorch's (c,
/// k...) order instead of (k..., c): when reordering the weights `wType`
/// [G, F, C, K...] would copy more bytes than the patches of an input
/// `inType` take (deep layers at small batches: 9.4 MB of weights against
/// 0.9 MB of patches for 512 channels at 7 x 7 and batch 1).
bool kernelInnermostPatches(RankedTensorType inType, RankedTensorType wType,
                            ArrayRef<int64_t> outputSizes) {
  int64_t kernelSize = 1;
  for (int64_t k : wType.getShape().drop_front(3))
    kernelSize *= k;
  int64_t filters = wType.getDimSize(1), channels = wType.getDimSize(2);
  int64_t patchElements = kernelSize * channels;
  for (int64_t size : outputSizes)
    patchElements *= size;
  return kernelSize > 1 && !inType.isDynamicDim(0) &&
         filters * channels * kernelSize > patchElements * inType.getDimSize(0);
}

/// The weights [F, C, K...] or [G, F, C, K...] as [F, K * C] or [G, F, K *
/// C], in the order of the patch rows: reordered to (k..., c) unless
/// `kernelInnermost`. `d` is the number of spatial dimensions.
Value patchOrderWeights(OpBuilder &b, Location loc, Value weight, int64_t d,
                        bool kernelInnermost) {
  auto wType = cast<RankedTensorType>(weight.getType());
  int64_t lead = wType.getRank() - 1 - d;
  ArrayRef<int64_t> kernel = wType.getShape().take_back(d);
  Value w = weight;
  if (!kernelInnermost &&
      llvm::any_of(kernel, [](int64_t k) { return k > 1; })) {
    SmallVector<int64_t> order, shape;
    for (int64_t i = 0; i < lead; ++i) {
      order.push_back(i);
      shape.push_back(wType.getDimSize(i));
    }
    for (int64_t i = 0; i < d; ++i) {
      order.push_back(lead + 1 + i);
      shape.push_back(kernel[i]);
    }
    order.push_back(lead);
    shape.push_back(wType.getDimSize(lead));
    Value wInit =
        tensor::EmptyOp::create(b, loc, shape, wType.getElementType());
    w = linalg::TransposeOp::create(b, loc, w, wInit, order).getResult()[0];
  }
  return tensor::CollapseShapeOp::create(b, loc, w,
                                         mergeTrailing(lead, lead + 1 + d));
}

/// The patch rows of a channels-last input: `x` [N, S..., C] gives [N,
/// O..., K..., C], or with `grouped` `x` [N, S..., G, C] gives [G, N, O...,
/// K..., C] (each (position, kernel offset) a contiguous run of the
/// group's C channels); with `kernelInnermost` the last dimensions are (C,
/// K...) instead.
Value channelsLastPatches(OpBuilder &b, Location loc, Value x,
                          ArrayRef<int64_t> kernel,
                          ArrayRef<int64_t> outputSizes,
                          const ConvolutionGeometry &geometry,
                          bool kernelInnermost, bool grouped) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  int64_t d = geometry.spatialRank(), lead = grouped ? 1 : 0;
  int64_t channels = type.getShape().back();
  SmallVector<int64_t> shape;
  if (grouped)
    shape.push_back(type.getDimSize(1 + d));
  shape.push_back(type.getDimSize(0));
  llvm::append_range(shape, outputSizes);
  if (kernelInnermost)
    shape.push_back(channels);
  llvm::append_range(shape, kernel);
  if (!kernelInnermost)
    shape.push_back(channels);
  // Loops ([g,] n, o..., k..., c), or ([g,] n, o..., c, k...).
  int64_t loops = lead + 2 + 2 * d;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  int64_t c = lead + (kernelInnermost ? 1 + d : 1 + 2 * d);
  auto k = [&](int64_t i) {
    return lead + (kernelInnermost ? 2 + d + i : 1 + d + i);
  };
  SmallVector<AffineExpr> in = {dim(lead)};
  for (int64_t i = 0; i < d; ++i)
    in.push_back(dim(lead + 1 + i) * geometry.strides[i] +
                 dim(k(i)) * geometry.dilations[i]);
  if (grouped)
    in.push_back(dim(0));
  in.push_back(dim(c));
  SmallVector<Value> dynamic;
  if (type.isDynamicDim(0))
    dynamic.push_back(tensor::DimOp::create(b, loc, x, 0));
  Value init =
      tensor::EmptyOp::create(b, loc, shape, type.getElementType(), dynamic);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{x}, ValueRange{init},
             SmallVector<AffineMap>{AffineMap::get(loops, 0, in, ctx),
                                    b.getMultiDimIdentityMap(loops)},
             SmallVector<utils::IteratorType>(loops,
                                              utils::IteratorType::parallel),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, args[0]);
             })
      .getResult(0);
}

/// A channels-last convolution of one group as one product over patch rows:
/// `[N * O, K * C] @ [F, K * C].T`, whose [N * O, F] result is the
/// convolution's own layout. The rows are the input itself for a 1 x 1
/// kernel with unit strides; otherwise built whole (im2col). In (k..., c)
/// order, each (position, kernel offset) copies a contiguous run of C
/// channels, but the weights [F, C, K...] must be reordered to [F, K...,
/// C] at every call; where the weights outweigh the patches (deep layers
/// at small batches: 9.4 MB of weights against 0.9 MB of patches for 512
/// channels at 7 x 7 and batch 1) the rows take PyTorch's (c, k...) order
/// instead, a strided copy, and the weights are used as they are.
Value channelsLastProduct(OpBuilder &b, linalg::GenericOp conv,
                          const ConvolutionGeometry &geometry,
                          bool patchBlocks) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputOperand(0)->get();  // [N, S..., 1, C]
  Value weight = conv.getDpsInputOperand(1)->get(); // [1, F, C, K...]
  Value init = conv.getDpsInitOperand(0)->get();    // [N, O..., 1, F]
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  Type et = outType.getElementType();
  int64_t d = geometry.spatialRank();
  int64_t channels = wType.getDimSize(2), filters = wType.getDimSize(1);
  ArrayRef<int64_t> kernel = wType.getShape().drop_front(3);
  ArrayRef<int64_t> outputSizes = outType.getShape().slice(1, d);
  int64_t kernelSize = 1;
  for (int64_t k : kernel)
    kernelSize *= k;
  bool pointwise =
      kernelSize == 1 &&
      llvm::all_of(geometry.strides, [](int64_t s) { return s == 1; }) &&
      inType.getShape().slice(1, d) == outputSizes;
  Value x = dropGroup(b, loc, input); // [N, S..., C]
  bool kernelInnermost = kernelInnermostPatches(inType, wType, outputSizes);
  // [1, F, C, K...] -> [F, C, K...] -> [F, K * C].
  SmallVector<ReassociationIndices> dropG = {{0, 1}};
  for (int64_t i = 2; i < 3 + d; ++i)
    dropG.push_back({i});
  Value w = patchOrderWeights(
      b, loc, tensor::CollapseShapeOp::create(b, loc, weight, dropG), d,
      kernelInnermost);
  // Blocked patch rows where all of them would leave the caches.
  if (patchBlocks && d == 2 && !pointwise && !kernelInnermost) {
    if (int64_t blockRows =
            patchBlockRows(outType.getDimSize(0), outputSizes[0],
                           outputSizes[1], kernelSize * channels, filters, et))
      return blockedChannelsLastProduct(b, loc, x, w, init, kernel, geometry,
                                        blockRows);
  }
  SmallVector<Value> dynamic;
  if (inType.isDynamicDim(0))
    dynamic.push_back(tensor::DimOp::create(b, loc, input, 0));
  // [N, O..., K..., C] -> [N * O, K * C].
  ReassociationIndices positions, depth;
  for (int64_t i = 0; i <= d; ++i)
    positions.push_back(i);
  Value rows;
  if (pointwise) {
    rows = tensor::CollapseShapeOp::create(
        b, loc, x, SmallVector<ReassociationIndices>{positions, {d + 1}});
  } else {
    Value patches = channelsLastPatches(b, loc, x, kernel, outputSizes,
                                        geometry, kernelInnermost,
                                        /*grouped=*/false);
    for (int64_t i = d + 1; i <= 2 * d + 1; ++i)
      depth.push_back(i);
    rows = tensor::CollapseShapeOp::create(
        b, loc, patches, SmallVector<ReassociationIndices>{positions, depth});
  }
  auto rowsType = cast<RankedTensorType>(rows.getType());
  SmallVector<Value> accDynamic;
  if (rowsType.isDynamicDim(0))
    accDynamic.push_back(tensor::DimOp::create(b, loc, rows, 0));
  Value acc = zeros(b, loc, {rowsType.getDimSize(0), filters}, et, accDynamic);
  // [positions, F] = rows @ w.T.
  Value product = productTransposedB(b, loc, rows, w, acc);
  // [N * O, F] -> [N, O..., 1, F], plus the initial value unless it is
  // zero.
  ReassociationIndices last = {d + 1, d + 2};
  Value result = tensor::ExpandShapeOp::create(
      b, loc, outType, product,
      SmallVector<ReassociationIndices>{positions, last});
  if (isZeroFill(init))
    return result;
  int64_t rank = outType.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{result, init},
             ValueRange{init},
             SmallVector<AffineMap>(3, b.getMultiDimIdentityMap(rank)),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             yieldInputs)
      .getResult(0);
}

/// A channels-last convolution of G > 1 groups with C > 1 input channels
/// each (ResNeXt, RegNet) as one product per group over patch rows:
/// `[G, N * O, K * C] @ [G, F, K * C].T`, its [G, N * O, F] result
/// transposed into the output [N, O..., G, F]. The patch rows of group g
/// copy runs of its C contiguous channels, in (k..., c) order with the
/// weights reordered once per call, or in (c, k...) order when the weights
/// outweigh the patches, as channelsLastProduct decides.
Value groupedChannelsLastProduct(OpBuilder &b, linalg::GenericOp conv,
                                 const ConvolutionGeometry &geometry) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputOperand(0)->get();  // [N, S..., G, C]
  Value weight = conv.getDpsInputOperand(1)->get(); // [G, F, C, K...]
  Value init = conv.getDpsInitOperand(0)->get();    // [N, O..., G, F]
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  MLIRContext *ctx = b.getContext();
  int64_t d = geometry.spatialRank();
  ArrayRef<int64_t> kernel = wType.getShape().drop_front(3);
  ArrayRef<int64_t> outputSizes = outType.getShape().slice(1, d);
  bool kernelInnermost = kernelInnermostPatches(inType, wType, outputSizes);
  Value w = patchOrderWeights(b, loc, weight, d, kernelInnermost);
  Value patches = channelsLastPatches(b, loc, input, kernel, outputSizes,
                                      geometry, kernelInnermost,
                                      /*grouped=*/true);
  int64_t loops = 3 + 2 * d;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  // [G, N, O..., K..., C] -> [G, N * O, K * C].
  ReassociationIndices positions, depth;
  for (int64_t i = 1; i <= 1 + d; ++i)
    positions.push_back(i);
  for (int64_t i = 2 + d; i < loops; ++i)
    depth.push_back(i);
  Value rows = tensor::CollapseShapeOp::create(
      b, loc, patches,
      SmallVector<ReassociationIndices>{{0}, positions, depth});
  // [G, M, F] = rows @ w.T per group.
  Value product = groupProductsTransposedB(b, loc, rows, w);
  // [G, N * O, F] -> [N * O, G, F] (plus the initial value unless it is
  // zero) -> [N, O..., G, F].
  ReassociationIndices outPositions, last = {d + 1}, lastF = {d + 2};
  for (int64_t i = 0; i <= d; ++i)
    outPositions.push_back(i);
  SmallVector<ReassociationIndices> outGroups = {outPositions, last, lastF};
  Value out = tensor::CollapseShapeOp::create(b, loc, init, outGroups);
  Value result = permutedInto(
      b, loc, product, out, AffineMap::get(3, 0, {dim(1), dim(0), dim(2)}, ctx),
      !isZeroFill(init));
  return tensor::ExpandShapeOp::create(b, loc, outType, result, outGroups);
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
      if (geometry.channelsLast) {
        // Channels last (--tt-channels-last): one group as a product,
        // several groups of several channels as a product per group,
        // depthwise as vectors of channels; a channel multiplier stays
        // the direct reduction.
        if (wType.getDimSize(0) == 1)
          result = channelsLastProduct(rewriter, conv, geometry, patchBlocks);
        else if (wType.getDimSize(2) > 1)
          result = groupedChannelsLastProduct(rewriter, conv, geometry);
        else if (wType.getDimSize(1) == 1)
          result = depthwiseNHWC(rewriter, conv, geometry);
      } else if (wType.getDimSize(2) > 1)
        result = asMatmul(rewriter, conv, geometry, patchBlocks);
      else if (wType.getDimSize(1) == 1 && channelsLastDepthwise)
        result = depthwiseChannelsLast(rewriter, conv, geometry);
      // Otherwise (a channel multiplier) the direct reduction.
      if (result)
        rewriter.replaceOp(conv, result);
    }
  }
};

} // namespace
