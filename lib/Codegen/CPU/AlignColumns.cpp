//===- AlignColumns.cpp - Matmuls with few rows read B in place -----------===//
//
// With few rows (GPT-2 over 16 to 64 tokens), a matmul uses each element
// of B a few times only, and copying B's panels into packed strips costs
// about as much as the multiplication: the copy streams B from memory with
// nothing to overlap. Read in place, B streams while the FMAs run, but only
// if every register tile's strip of a row of B is whole cache lines: a
// NumPy array usually starts 16 bytes past a line, and then every strip
// straddles two lines (measured on a 2-core Zen 4, 16 x 768 f64 @ 768 x 3072
// f32: packed 40-49 GFLOP/s, in place 70-81 from a line, 20-31 from 16
// bytes past one).
//
// The line offset of B's buffer is known only at run time, so the columns
// are split there: the first and last w columns (w: the register strip, at
// least a line) as static ops, then the n - w columns from the first line
// start on, which overwrite the columns they share with the edges with the
// same sums. Every part is marked to read B in place (KernelConfig:
// inPlaceMatmulConfig).
//===----------------------------------------------------------------------===//

#include "../Common/LinalgUtils.h"
#include "KernelConfig.h"
#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUALIGNCOLUMNS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

constexpr int64_t kCacheLineBytes = 64;

/// The width of the split (a multiple of the register strip and of a cache
/// line of B's elements) when `op` is a matmul this pass splits, else 0.
int64_t splitWidth(linalg::LinalgOp op, func::FuncOp func,
                   const CPUTarget &target, int64_t maxRows) {
  if (op->hasAttr(kReadRhsInPlace) || !op.hasPureTensorSemantics() ||
      op.getNumLoops() != 3)
    return 0;
  std::optional<MatmulDims> dims = getMatmulDims(op);
  if (!dims || dims->transposedB)
    return 0;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return 0;
  int64_t m = ranges[dims->m], n = ranges[dims->n];
  if (m > maxRows)
    return 0;
  // C must start as a fill (tt-to-linalg's zeros), which each part repeats.
  if (!op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>())
    return 0;
  // B must be a whole argument of the function: its rows then lie a row's
  // bytes apart, and reading its address does not keep a producer from
  // being fused.
  auto arg = dyn_cast<BlockArgument>(op.getDpsInputOperand(1)->get());
  if (!arg || arg.getOwner() != &func.getBody().front())
    return 0;
  Type element = getElementTypeOrSelf(arg.getType());
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  if (kCacheLineBytes % bytes != 0)
    return 0;
  // Only where B is converted to a wider type (f32 weights in a float64
  // model): the products then cost enough per byte of B for its stream to
  // hide behind them. With B of C's own type the products wait on memory
  // either way (16 x 768 x 3072 f32, GPT-2 f32 over 16 tokens: level).
  Type result = getElementTypeOrSelf(op->getResult(0).getType());
  if (!result.isIntOrFloat() ||
      result.getIntOrFloatBitWidth() <= element.getIntOrFloatBitWidth())
    return 0;
  int64_t lineElements = kCacheLineBytes / bytes;
  std::optional<KernelConfig> config = getKernelConfig(op, target);
  if (!config || config->kind != KernelKind::Matmul || config->packColumns <= 0)
    return 0;
  int64_t strip = inPlaceStripColumns(op, target);
  if (strip <= 0)
    return 0;
  int64_t width = std::max(strip, lineElements);
  if (width % strip != 0 || width % lineElements != 0)
    return 0;
  // Every row of B must start on a line when its first one does, and the
  // aligned part must be most of the work.
  if (n % width != 0 || n < 4 * width)
    return 0;
  return width;
}

/// The number of elements from the start of `tensor`'s buffer to the next
/// cache line (0 if it starts on one), computed at run time.
Value elementsToNextLine(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value buffer = readOnlyBuffer(b, loc, tensor);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value offsetBytes =
      arith::MulIOp::create(b, loc, metadata.getOffset(), constant(bytes));
  Value address = arith::AddIOp::create(b, loc, base, offsetBytes);
  Value line = constant(kCacheLineBytes);
  Value past = arith::RemUIOp::create(b, loc, address, line);
  Value toNext = arith::RemUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, line, past), line);
  return arith::DivUIOp::create(b, loc, toNext, constant(bytes));
}

void splitColumns(RewriterBase &rewriter, linalg::LinalgOp op, int64_t width) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  MatmulDims dims = *getMatmulDims(op);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t m = ranges[dims.m], n = ranges[dims.n], k = ranges[dims.k];
  Value a = op.getDpsInputOperand(0)->get();
  Value b = op.getDpsInputOperand(1)->get();
  Value c = op.getDpsInitOperand(0)->get();

  // The first and the last w columns first, as static ops, then the
  // aligned middle over them: it starts within the first w columns and
  // ends within the last w, and where they overlap it writes the same sums.
  Value start = elementsToNextLine(rewriter, loc, b);
  OpFoldResult zero = rewriter.getIndexAttr(0), one = rewriter.getIndexAttr(1);
  struct Piece {
    OpFoldResult start;
    int64_t size;
  };
  Piece pieces[] = {{zero, width},
                    {rewriter.getIndexAttr(n - width), width},
                    {start, n - width}};
  // Every part starts from C's fill value and writes its columns of a new
  // C: the parts overlap, so none may accumulate into another's sums.
  auto fill = c.getDefiningOp<linalg::FillOp>();
  Value fillValue = fill.getDpsInputOperand(0)->get();
  auto cType = cast<RankedTensorType>(c.getType());
  Value result = tensor::EmptyOp::create(rewriter, loc, cType.getShape(),
                                         cType.getElementType());
  for (const Piece &piece : pieces) {
    // B's and C's columns of the part: the same offsets.
    SmallVector<OpFoldResult> offsets = {zero, piece.start};
    SmallVector<OpFoldResult> bSizes = {rewriter.getIndexAttr(k),
                                        rewriter.getIndexAttr(piece.size)};
    Value bSlice = tensor::ExtractSliceOp::create(rewriter, loc, b, offsets,
                                                  bSizes, {one, one});
    SmallVector<OpFoldResult> cSizes = {rewriter.getIndexAttr(m),
                                        rewriter.getIndexAttr(piece.size)};
    // The fill overwrites the columns (in C's buffer, after bufferization).
    Value columns = tensor::ExtractSliceOp::create(rewriter, loc, result,
                                                   offsets, cSizes, {one, one});
    Value cSlice =
        linalg::FillOp::create(rewriter, loc, fillValue, columns).getResult(0);
    Operation *part = clone(rewriter, op.getOperation(), {cSlice.getType()},
                            ValueRange{a, bSlice, cSlice});
    part->setAttr(kReadRhsInPlace, rewriter.getUnitAttr());
    result = tensor::InsertSliceOp::create(rewriter, loc, part->getResult(0),
                                           result, offsets, cSizes,
                                           {one, one});
  }
  rewriter.replaceOp(op, result);
}

struct CPUAlignColumnsPass
    : public tt::impl::TTCPUAlignColumnsBase<CPUAlignColumnsPass> {
  using TTCPUAlignColumnsBase::TTCPUAlignColumnsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    CPUTarget target = CPUTarget::get(vectorBits);
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> splits;
    func.walk([&](linalg::LinalgOp op) {
      if (int64_t width = splitWidth(op, func, target, maxRows))
        splits.push_back({op, width});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, width] : splits)
      splitColumns(rewriter, op, width);
  }
};

} // namespace
