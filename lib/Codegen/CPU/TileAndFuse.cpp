//===- TileAndFuse.cpp - Thread, cache and register tiling ----------------===//
//
// Applies the KernelConfig of each linalg op: an scf.forall over blocks with
// producers fused in, then nested scf.for register tiles, then peeling of
// partial tiles.
//
//===----------------------------------------------------------------------===//

#include "../Common/LinalgUtils.h"
#include "../Common/TileAndFuseUtils.h"
#include "KernelConfig.h"
#include "Prepack.h"
#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUTILEANDFUSE
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

/// Marks the scf.for loops of register tiles, to be peeled.
constexpr llvm::StringLiteral kPeelMarker = "tt.peel";

/// How many rows of a strip a transposed B that is packed converted (f64 @
/// f32.T) transposes and then converts at a time: a chunk of [16 x nr] f32
/// is still in L1 when it is converted (a whole transposed strip, [384 x
/// 32] f32 for GPT-2's logits at kc = 384, had gone through L2).
constexpr int64_t kTransposeChunk = 16;

/// How many rows ahead of the one it copies the packing of a plain B
/// (a function argument) prefetches B's rows.
constexpr int64_t kPackPrefetchRows = 4;
/// The packing of B prefetches B's rows only when they are further apart
/// than this: closer rows the hardware prefetchers followed. Measured on a
/// 2-core Xeon (AVX-512, AMX), 64 x 768 @ 768 x n f32 with 800 MB of
/// weights rotated: rows 4, 6 and 8 KiB apart 3-7% slower with the
/// prefetch, 9, 10 and 12 KiB 4-7% faster, 16 KiB level.
constexpr int64_t kFollowedRowBytes = 8192;

/// The level-1 tiles of a root: its own, or for an elementwise op that
/// consumes a matmul through an identity map (a bias or activation
/// epilogue), the matmul's blocks, so that the matmul fuses into them.
SmallVector<int64_t> rootTiles(linalg::LinalgOp root, const KernelConfig &own,
                               const CPUTarget &target,
                               const StrategyOptions &strategy,
                               Operation *&adoptedMatmul) {
  adoptedMatmul = nullptr;
  if (own.kind != KernelKind::Elementwise)
    return own.parallelTiles;
  for (OpOperand *input : root.getDpsInputOperands()) {
    auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !root.getMatchingIndexingMap(input).isIdentity())
      continue;
    std::optional<MatmulDims> dims = getMatmulDims(producer);
    if (!dims)
      continue;
    std::optional<KernelConfig> config =
        getKernelConfig(producer, target, strategy);
    if (!config || config->parallelTiles.empty())
      continue;
    // The matmul's parallel loops are (batch..., m, n), in the order of the
    // epilogue's loops.
    SmallVector<int64_t> tiles(config->parallelTiles);
    tiles.pop_back(); // k
    if (tiles.size() == root.getNumLoops()) {
      adoptedMatmul = producer;
      return tiles;
    }
  }
  return own.parallelTiles;
}

struct CPUTileAndFusePass
    : public tt::impl::TTCPUTileAndFuseBase<CPUTileAndFusePass> {
  using TTCPUTileAndFuseBase::TTCPUTileAndFuseBase;

  StrategyOptions strategy() const {
    StrategyOptions options;
    options.pack = pack;
    options.windowVectors = windowVectors;
    return options;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    CPUTarget target = CPUTarget::get(vectorBits);
    if (l2KiB > 0)
      target.l2Bytes = int64_t(l2KiB) * 1024;
    IRRewriter rewriter(&getContext());

    // Level 1: roots, last first, each with its producers fused in.
    SmallVector<linalg::LinalgOp> roots;
    for (Operation &op : func.getBody().getOps())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        roots.push_back(linalgOp);
    llvm::SmallPtrSet<Operation *, 16> erased;
    for (linalg::LinalgOp root : llvm::reverse(roots)) {
      if (erased.contains(root))
        continue;
      // tileRoot, tileRowByRow and tileLoops emit an error on the op they
      // fail on.
      if (failed(tileRoot(rewriter, root, target, erased)))
        return signalPassFailure();
    }

    // A producer fused along two identical slices (a softmax's max feeds
    // both the exponentials and, through them, the sum) is computed once.
    {
      DominanceInfo dominance(func);
      eliminateCommonSubExpressions(rewriter, dominance, func);
    }

    // Level 1b: rows of the blocks whose root consumes row reductions.
    if (fuse && fuseRows) {
      SmallVector<scf::ForallOp> blocks;
      func.walk([&](scf::ForallOp loop) { blocks.push_back(loop); });
      for (scf::ForallOp loop : blocks)
        if (failed(tileRowByRow(rewriter, loop)))
          return signalPassFailure();
      DominanceInfo dominance(func);
      eliminateCommonSubExpressions(rewriter, dominance, func);
    }

    // Level 2: every linalg op, inside a block or not, consumers first (a
    // reduction takes its elementwise producer into its row loop).
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    llvm::SmallPtrSet<Operation *, 16> fused;
    for (linalg::LinalgOp op : llvm::reverse(ops))
      if (!fused.contains(op) && failed(tileLoops(rewriter, op, target, fused)))
        return signalPassFailure();

    if (peel)
      peelLoops(rewriter, func);
    func.walk([](scf::ForOp loop) { loop->removeAttr(kPeelMarker); });

    // A slice of a tensor.empty (the init of a producer fused into a tile)
    // is an empty tensor of the tile's size: a buffer of the tile, not one
    // of the whole result in every block.
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    // A cleanup: empty tensors left unfolded are still valid.
    (void)tt::applyPatterns(*this, func, std::move(patterns),
                            tt::Convergence::Optional);
  }

  /// Inside a block of rows, an elementwise root that consumes row
  /// reductions of the block is tiled row by row with everything it reads
  /// from the block fused in: a layer norm's mean, variance and
  /// normalisation run over one row at a time, which stays in L1.
  LogicalResult tileRowByRow(RewriterBase &rewriter, scf::ForallOp loop) {
    linalg::LinalgOp root;
    for (Operation &op : loop.getTerminator().getYieldingOps()) {
      auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(op);
      if (!insert)
        return success();
      auto producer = insert.getSource().getDefiningOp<linalg::LinalgOp>();
      if (!producer || root)
        return success();
      root = producer;
    }
    if (!root || root.getNumReductionLoops() != 0 || root.getNumLoops() < 2 ||
        !root.hasPureTensorSemantics())
      return success();
    // The cluster: linalg producers in the block, all of whose users are in.
    llvm::SmallPtrSet<Operation *, 16> cluster =
        fusionCluster(root, /*epilogueOf=*/nullptr);
    bool reduces = llvm::any_of(cluster, [&](Operation *op) {
      auto linalgOp = cast<linalg::LinalgOp>(op);
      return linalgOp.getNumReductionLoops() == 1 &&
             linalgOp.getNumLoops() == root.getNumLoops() &&
             linalgOp.getIteratorTypesArray().back() ==
                 utils::IteratorType::reduction;
    });
    if (!reduces)
      return success();
    SmallVector<int64_t> tiles(root.getNumLoops(), 1);
    tiles.back() = 0;
    FailureOr<scf::SCFTileAndFuseResult> result =
        tileAndFuseSet(rewriter, root, tiles, cluster);
    if (failed(result))
      return root.emitError("tt-cpu-tile-and-fuse: could not tile the rows");
    llvm::SmallPtrSet<Operation *, 16> erased;
    replaceFused(rewriter, root, *result, erased);
    return success();
  }

  LogicalResult tileRoot(RewriterBase &rewriter, linalg::LinalgOp root,
                         const CPUTarget &target,
                         llvm::SmallPtrSetImpl<Operation *> &erased) {
    std::optional<KernelConfig> config =
        getKernelConfig(root, target, strategy());
    if (!config)
      return success();
    Operation *adoptedMatmul;
    SmallVector<int64_t> tiles =
        rootTiles(root, *config, target, strategy(), adoptedMatmul);
    if (tiles.empty())
      return success();
    rewriter.setInsertionPoint(root);
    scf::SCFTilingOptions tiling;
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    tiling.setTileSizes(asIndexAttrs(rewriter, tiles));
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    llvm::SmallPtrSet<Operation *, 16> cluster =
        fusionCluster(root, adoptedMatmul);
    if (fuse)
      options.setFusionControlFn(
          [&](tensor::ExtractSliceOp slice, OpResult producer, bool) {
            return shouldFuse(slice, producer, cluster);
          });
    else
      options.setFusionControlFn([](tensor::ExtractSliceOp, OpResult, bool) {
        return std::optional<scf::SCFTileAndFuseOptions::ControlFnResult>();
      });
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root.getOperation()), options);
    if (failed(result))
      return root.emitError("tt-cpu-tile-and-fuse: could not tile the op");
    replaceFused(rewriter, root, *result, erased);
    return success();
  }

  LogicalResult tileLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                          const CPUTarget &target,
                          llvm::SmallPtrSetImpl<Operation *> &fused) {
    std::optional<KernelConfig> config =
        getKernelConfig(op, target, strategy());
    if (!config)
      return success();
    if (config->kind == KernelKind::Reduction && fuse &&
        config->loopTiles.size() == 1)
      return tileReductionWithProducers(rewriter, op, config->loopTiles[0],
                                        fused);
    SmallVector<linalg::LinalgOp> parts;
    if (failed(splitPartialBlock(rewriter, op, *config, parts)))
      return failure();
    if (!parts.empty()) {
      for (linalg::LinalgOp part : parts)
        if (failed(tileLoops(rewriter, part, target, fused)))
          return failure();
      return success();
    }
    Operation *current = op;
    Value packedRhs;
    // A matmul's zero fill of C goes down with it, level by level, until a
    // level splits K: when none but the register tile's own K step does,
    // the register tiles' accumulators start at zero instead of reading a C
    // that a pass of its own filled (with a short K, a transformer's
    // 64-wide layers, that pass costs as much as the products).
    std::optional<MatmulDims> dims = getMatmulDims(op);
    Value init = op.getDpsInitOperand(0)->get();
    bool fuseFill = registerFill && config->kind == KernelKind::Matmul &&
                    dims && init.getDefiningOp<linalg::FillOp>();
    for (auto [level, tiles] : llvm::enumerate(config->loopTiles)) {
      if (fuseFill) {
        auto tiled = cast<linalg::LinalgOp>(current);
        int64_t k = tiled.getStaticLoopRanges()[dims->k];
        if (tiles[dims->k] > 0 &&
            (ShapedType::isDynamic(k) || tiles[dims->k] < k))
          fuseFill = false;
      }
      if (failed(tileLevel(rewriter, current, tiles,
                           isRegisterLevel(*config, level)
                               ? ArrayRef<int64_t>(config->registerOrder)
                               : ArrayRef<int64_t>(),
                           fuseFill ? &fused : nullptr)))
        return failure();
      SmallVector<Operation *> copies;
      if (static_cast<int>(level) == config->packRhsLevel)
        packedRhs = packRhs(rewriter, current, *config, copies);
      if (static_cast<int>(level) == config->packLevel &&
          failed(tileIntoStrips(rewriter, current, *config, packedRhs,
                                fuseFill ? &fused : nullptr)))
        return failure();
      for (Operation *copy : copies)
        if (failed(tileLoops(rewriter, cast<linalg::LinalgOp>(copy), target,
                             fused)))
          return failure();
    }
    if (prefetch && packedRhs &&
        packedRhs.getDefiningOp<tensor::ExtractSliceOp>())
      prefetchNextStrip(rewriter, cast<linalg::LinalgOp>(current), packedRhs);
    if (!config->laneReduction)
      return success();
    auto tile = cast<linalg::LinalgOp>(current);
    std::optional<RowPrefetch> rows;
    if (prefetch && config->kind == KernelKind::DotProducts)
      rows = nextRowsOfB(rewriter, tile, config->loopTiles.back());
    scf::ForOp lanes;
    if (failed(splitReductionIntoLanes(rewriter, tile, config->laneReduction,
                                       lanes)))
      return failure();
    if (rows)
      prefetchInLoop(rewriter, *rows, lanes);
    return success();
  }

  /// Loops between a strip and its register tiles with more iterations
  /// than this (by their bounds) get no prefetches.
  static constexpr int64_t kMaxPrefetchTrips = 1 << 20;

  /// A matmul that reads B from a copy packed whole ([strips][k][nr], a
  /// block of it `block`) reads each strip from memory in the first of its
  /// row tiles. The row tiles of a strip fetch the next strip instead,
  /// spread over their iterations (every scf.for loop between the strip
  /// and the register tile `tile` must have constant lower bounds and
  /// steps and a constant bound on its upper bound, as the loop over a
  /// strip's register tiles in a partial column block has; where a loop
  /// runs fewer iterations than that bound, the lines of the iterations it
  /// skips are not fetched).
  static void prefetchNextStrip(RewriterBase &rewriter, linalg::LinalgOp tile,
                                Value block) {
    auto blockSlice = block.getDefiningOp<tensor::ExtractSliceOp>();
    auto blockType = cast<RankedTensorType>(block.getType());
    if (blockType.getRank() != 3 || !blockSlice.hasUnitStride())
      return;
    int64_t depth = blockType.getDimSize(1), width = blockType.getDimSize(2);
    if (ShapedType::isDynamic(depth) || ShapedType::isDynamic(width))
      return;
    // The tile's strip within the block.
    std::optional<OpFoldResult> strip;
    for (Value b = tile.getDpsInputOperand(1)->get(); !strip;) {
      auto slice = b.getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice)
        return;
      if (slice.getSource() == block)
        strip = slice.getMixedOffsets()[0];
      b = slice.getSource();
    }
    Value stripValue = dyn_cast<Value>(*strip);
    // The loops that run once per strip, innermost first.
    SmallVector<scf::ForOp> loops;
    SmallVector<int64_t> trips;
    for (Operation *parent = tile->getParentOp(); parent;
         parent = parent->getParentOp()) {
      auto loop = dyn_cast<scf::ForOp>(parent);
      if (!loop)
        return;
      if (stripValue && stripValue.getParentBlock() == loop.getBody())
        break;
      if (!stripValue && loop->isAncestor(blockSlice))
        return;
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                             ub = constantUpperBound(loop.getUpperBound()),
                             step = getConstantIntValue(loop.getStep());
      if (!lb || !ub || !step || *step <= 0 || *ub <= *lb ||
          *ub - *lb > kMaxPrefetchTrips * *step)
        return;
      loops.push_back(loop);
      trips.push_back(llvm::divideCeil(*ub - *lb, *step));
    }
    if (loops.empty())
      return;

    Location loc = tile.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    OpBuilder::InsertionGuard guard(rewriter);
    // The whole packed copy's buffer, where the copy is defined.
    Value whole = blockSlice.getSource();
    if (auto arg = dyn_cast<BlockArgument>(whole))
      rewriter.setInsertionPointToStart(arg.getOwner());
    else
      rewriter.setInsertionPointAfterValue(whole);
    Value buffer = readOnlyBuffer(rewriter, loc, whole);
    auto bufferType = cast<MemRefType>(buffer.getType());
    int64_t lineElements = 512 / bufferType.getElementTypeBitWidth();
    int64_t perRow = llvm::divideCeil(width, lineElements);
    int64_t iterations = 1;
    for (int64_t trip : trips)
      iterations *= trip;
    int64_t perIteration = llvm::divideCeil(depth * perRow, iterations);

    rewriter.setInsertionPoint(loops.back());
    auto constant = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto index = [&](OpFoldResult v) {
      return getValueOrCreateConstantIndexOp(rewriter, loc, v);
    };
    SmallVector<OpFoldResult> offsets = blockSlice.getMixedOffsets();
    Value last[2];
    for (int d = 0; d < 2; ++d)
      last[d] = arith::SubIOp::create(
          rewriter, loc, memref::DimOp::create(rewriter, loc, buffer, d),
          constant(1));
    // The next strip: the block's strip + 1, at most the copy's last.
    Value next = arith::MinSIOp::create(
        rewriter, loc,
        arith::AddIOp::create(
            rewriter, loc,
            arith::AddIOp::create(rewriter, loc, index(offsets[0]),
                                  index(*strip)),
            constant(1)),
        last[0]);
    Value k0 = index(offsets[1]);

    rewriter.setInsertionPointToStart(loops.front().getBody());
    AffineExpr number = getAffineConstantExpr(0, ctx);
    SmallVector<Value> ivs;
    for (auto [i, loop] : llvm::enumerate(llvm::reverse(loops))) {
      int64_t lb = *getConstantIntValue(loop.getLowerBound());
      int64_t step = *getConstantIntValue(loop.getStep());
      number = number * trips[loops.size() - 1 - i] +
               (getAffineDimExpr(i, ctx) - lb).floorDiv(step);
      ivs.push_back(loop.getInductionVar());
    }
    for (int64_t p = 0; p < perIteration; ++p) {
      AffineExpr line = number * perIteration + p;
      Value row = affine::AffineApplyOp::create(
          rewriter, loc,
          AffineMap::get(ivs.size(), 0, {line.floorDiv(perRow)}, ctx), ivs);
      Value column = affine::AffineApplyOp::create(
          rewriter, loc,
          AffineMap::get(ivs.size(), 0, {(line % perRow) * lineElements},
                         ctx),
          ivs);
      row = arith::MinSIOp::create(rewriter, loc, row, constant(depth - 1));
      row = arith::MinSIOp::create(
          rewriter, loc, arith::AddIOp::create(rewriter, loc, k0, row),
          last[1]);
      // Into L2 (prefetcht1), not L1: a strip of kc rows is larger than
      // L1, and the current one streams through it (the float64 GPT-2's
      // logits, 64 x 768 @ 768 x 50257 with freeze=True: 132 GFLOP/s with
      // prefetcht0, 143 with prefetcht1 on a 2-core Sapphire Rapids).
      memref::PrefetchOp::create(rewriter, loc, buffer,
                                 ValueRange{next, row, column},
                                 /*isWrite=*/false, /*localityHint=*/2,
                                 /*isDataCache=*/true);
    }
  }

  /// A slice of a function argument: the argument, and the slice's
  /// offsets in it.
  struct ArgumentSlice {
    BlockArgument arg;
    SmallVector<OpFoldResult> offsets;
  };

  /// `value` as a slice of an argument of its function, through
  /// unit-stride tensor.extract_slice ops of its rank, with their offsets
  /// summed (affine.apply ops at the rewriter's insertion point); none when
  /// it is not one (a computed tensor: in cache anyway, nothing to
  /// prefetch).
  static std::optional<ArgumentSlice>
  sliceOfArgument(RewriterBase &rewriter, Location loc, Value value) {
    int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
    ArgumentSlice result;
    result.offsets.assign(rank, rewriter.getIndexAttr(0));
    AffineExpr s0, s1;
    bindSymbols(rewriter.getContext(), s0, s1);
    while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (!slice.hasUnitStride() || slice.getSourceType().getRank() != rank)
        return std::nullopt;
      for (auto [d, offset] : llvm::enumerate(slice.getMixedOffsets()))
        result.offsets[d] = affine::makeComposedFoldedAffineApply(
            rewriter, loc, s0 + s1, {result.offsets[d], offset});
      value = slice.getSource();
    }
    result.arg = dyn_cast<BlockArgument>(value);
    if (!result.arg || !result.arg.getOwner()->isEntryBlock() ||
        !isa<func::FuncOp>(result.arg.getOwner()->getParentOp()))
      return std::nullopt;
    return result;
  }

  /// Where a dot-products register tile prefetches B: rows of B's buffer
  /// (indices of every dimension but the reduction's), and the offset of
  /// the tile's reduction range in it.
  struct RowPrefetch {
    Value buffer;
    SmallVector<SmallVector<Value>> rows;
    unsigned kDim;
    Value kOffset;
  };

  /// A dot-products tile reads rows of B that the tile before it has not
  /// (B is read where it is, not packed), so the first row tile of each
  /// column tile waits on memory. The rows of the next column tile, [j + nr,
  /// j + 2 nr), are fetched ahead instead: each of the T row tiles of a
  /// column tile fetches ceil(nr / T) of them (one row each with 16 rows of
  /// A in tiles of 4 and nr = 4), along the same reduction range as its own
  /// loop (measured on a 2-core Zen 4, the float64 GPT-2 logits [16 x 768]
  /// @ [50257 x 768].T: 61 -> 86 GFLOP/s in a C model of the kernel).
  /// Only for B a whole argument of the function (its buffer exists before
  /// the kernel runs; anything computed is not read from memory anyway);
  /// rows past B's end are clamped to its last.
  static std::optional<RowPrefetch>
  nextRowsOfB(RewriterBase &rewriter, linalg::LinalgOp tile,
              ArrayRef<int64_t> registerTile) {
    std::optional<MatmulDims> dims = getMatmulDims(tile);
    if (!dims || !dims->transposedB)
      return std::nullopt;
    // B's slices back to the function argument, summing their offsets.
    Value b = tile.getDpsInputOperand(1)->get();
    unsigned rank = cast<RankedTensorType>(b.getType()).getRank();
    unsigned nDim = rank - 2, kDim = rank - 1;
    // The register tile (its slices may be smaller: the last of a block).
    int64_t mr = registerTile[dims->m], nr = registerTile[dims->n];
    if (mr <= 0 || nr <= 0)
      return std::nullopt;
    Location loc = tile.getLoc();
    rewriter.setInsertionPoint(tile);
    std::optional<ArgumentSlice> source = sliceOfArgument(rewriter, loc, b);
    if (!source)
      return std::nullopt;
    ArrayRef<OpFoldResult> offsets = source->offsets;
    AffineExpr s0, s1;
    bindSymbols(rewriter.getContext(), s0, s1);

    // The row tiles of the column tile: the tile's rows of A within its
    // source (the rows of the block), in tiles of mr.
    int64_t rowTiles = 1;
    OpFoldResult rowOffset = rewriter.getIndexAttr(0);
    Value a = tile.getDpsInputOperand(0)->get();
    unsigned mDim = cast<RankedTensorType>(a.getType()).getRank() - 2;
    if (auto slice = a.getDefiningOp<tensor::ExtractSliceOp>()) {
      int64_t blockRows = slice.getSourceType().getDimSize(mDim);
      if (!ShapedType::isDynamic(blockRows)) {
        rowTiles = llvm::divideCeil(blockRows, mr);
        rowOffset = slice.getMixedOffsets()[mDim];
      }
    }
    int64_t perTile = llvm::divideCeil(nr, rowTiles);

    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(source->arg.getOwner());
    RowPrefetch result;
    result.buffer = readOnlyBuffer(rewriter, loc, source->arg);
    result.kDim = kDim;
    rewriter.setInsertionPoint(tile);
    Value last = arith::SubIOp::create(
        rewriter, loc,
        memref::DimOp::create(rewriter, loc, result.buffer, nDim),
        arith::ConstantIndexOp::create(rewriter, loc, 1));
    for (int64_t r = 0; r < perTile; ++r) {
      // j + nr + (i / mr) * perTile + r, at most B's last row.
      OpFoldResult row = affine::makeComposedFoldedAffineApply(
          rewriter, loc, s0 + s1.floorDiv(mr) * perTile + nr + r,
          {offsets[nDim], rowOffset});
      SmallVector<Value> indices;
      for (unsigned d = 0; d < nDim; ++d)
        indices.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, offsets[d]));
      indices.push_back(arith::MinSIOp::create(
          rewriter, loc,
          getValueOrCreateConstantIndexOp(rewriter, loc, row), last));
      result.rows.push_back(indices);
    }
    result.kOffset =
        getValueOrCreateConstantIndexOp(rewriter, loc, offsets[kDim]);
    return result;
  }

  /// Prefetches, at the start of each iteration of the reduction loop
  /// `lanes`, the chunk of every row of `rows` that the iteration reads of
  /// its own rows.
  static void prefetchInLoop(RewriterBase &rewriter, const RowPrefetch &rows,
                             scf::ForOp lanes) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(lanes.getBody());
    Location loc = lanes.getLoc();
    Value k = arith::AddIOp::create(rewriter, loc, rows.kOffset,
                                    lanes.getInductionVar());
    for (const SmallVector<Value> &row : rows.rows) {
      SmallVector<Value> indices(row);
      indices.push_back(k);
      memref::PrefetchOp::create(rewriter, loc, rows.buffer, indices,
                                 /*isWrite=*/false, /*localityHint=*/3,
                                 /*isDataCache=*/true);
    }
  }

  /// Splits a matmul whose cache block (of K, or of the rows) does not divide
  /// a static loop into two ops, the full blocks and the remainder (of a
  /// reduction, accumulating into the first one's result), returned in
  /// `parts`; both then have full blocks. A partial block would only be
  /// peeled once its inner loops exist, and their loop-carried tiles would
  /// stay dynamic. `parts` stays empty when every block is full.
  static LogicalResult
  splitPartialBlock(RewriterBase &rewriter, linalg::LinalgOp op,
                    const KernelConfig &config,
                    SmallVectorImpl<linalg::LinalgOp> &parts) {
    if (config.kind != KernelKind::Matmul)
      return success();
    for (auto [level, tiles] : llvm::enumerate(config.loopTiles)) {
      if (isRegisterLevel(config, level))
        return success();
      for (auto [loop, tile] : llvm::enumerate(tiles)) {
        if (failed(splitAtMultiple(rewriter, op, loop, tile, parts)))
          return op.emitError("tt-cpu-tile-and-fuse: could not split a "
                              "partial cache block off the op");
        if (!parts.empty())
          return success();
      }
    }
    return success();
  }

  /// Tiles the reduction `op` by `tiles` (rows, or chunks of rows) and fuses
  /// into each tile the elementwise producers used by nothing else (a layer
  /// norm's squared deviations), which are then computed in registers
  /// instead of written to a buffer and read back. The producers are added
  /// to `fused` (they are gone).
  LogicalResult
  tileReductionWithProducers(RewriterBase &rewriter, linalg::LinalgOp op,
                             ArrayRef<int64_t> tiles,
                             llvm::SmallPtrSetImpl<Operation *> &fused) {
    llvm::SmallPtrSet<Operation *, 4> candidates = singleUseProducers(op);
    Operation *current = op;
    if (candidates.empty())
      return tileLevel(rewriter, current, tiles, {});
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> sizes(tiles);
    for (auto [size, range] : llvm::zip(sizes, ranges))
      if (size >= range && !ShapedType::isDynamic(range))
        size = 0;
    if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
      return fuseIntoReduction(rewriter, op, candidates, fused);
    FailureOr<scf::SCFTileAndFuseResult> result =
        tileAndFuseSet(rewriter, op, sizes, candidates);
    if (failed(result))
      return op.emitError("tt-cpu-tile-and-fuse: could not tile the reduction");
    for (LoopLikeOpInterface loop : result->loops)
      loop->setAttr(kPeelMarker, rewriter.getUnitAttr());
    replaceFused(rewriter, op, *result, fused);
    return success();
  }

  /// Tiles `current` with scf.for by `tiles` (loops in `order` if given),
  /// and makes `current` the tiled op. With `fillErased`, a linalg.fill
  /// that produces its init is computed in each tile too (and added to
  /// `fillErased` once it is gone).
  static LogicalResult
  tileLevel(RewriterBase &rewriter, Operation *&current,
            ArrayRef<int64_t> tiles, ArrayRef<int64_t> order,
            llvm::SmallPtrSetImpl<Operation *> *fillErased = nullptr) {
    // Tiles covering the whole loop make no loop.
    SmallVector<int64_t> ranges =
        cast<linalg::LinalgOp>(current).getStaticLoopRanges();
    SmallVector<int64_t> sizes(tiles);
    bool any = false;
    for (auto [size, range] : llvm::zip(sizes, ranges)) {
      if (size >= range && !ShapedType::isDynamic(range))
        size = 0;
      any |= size != 0;
    }
    if (!any)
      return success();
    rewriter.setInsertionPoint(current);
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(asIndexAttrs(rewriter, sizes));
    if (!order.empty())
      tiling.setInterchange(order);
    auto linalgOp = cast<linalg::LinalgOp>(current);
    if (fillErased && linalgOp.getNumDpsInits() == 1 &&
        linalgOp.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>())
      return tileLevelWithFill(rewriter, current, tiling, *fillErased);
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(current), tiling);
    if (failed(result))
      return current->emitError("tt-cpu-tile-and-fuse: could not tile the op "
                                "for registers");
    rewriter.replaceOp(current, result->replacements);
    for (LoopLikeOpInterface loop : result->loops)
      loop->setAttr(kPeelMarker, rewriter.getUnitAttr());
    current = result->tiledOps.front();
    return success();
  }

  /// tileLevel for an op whose init is a linalg.fill, fused into the tiles.
  static LogicalResult
  tileLevelWithFill(RewriterBase &rewriter, Operation *&current,
                    const scf::SCFTilingOptions &tiling,
                    llvm::SmallPtrSetImpl<Operation *> &erased) {
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!isa<linalg::FillOp>(producer.getOwner()))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(current), options);
    if (failed(result))
      return current->emitError("tt-cpu-tile-and-fuse: could not tile the op "
                                "with its fill");
    Operation *tiled = nullptr;
    for (Operation *op : result->tiledAndFusedOps)
      if (!isa<linalg::FillOp>(op))
        tiled = op;
    if (!tiled)
      return current->emitError("tt-cpu-tile-and-fuse: no tiled op");
    for (LoopLikeOpInterface loop : result->loops)
      loop->setAttr(kPeelMarker, rewriter.getUnitAttr());
    replaceFused(rewriter, current, *result, erased);
    current = tiled;
    return success();
  }

  /// How B is packed: into strips of `width` columns. `dim` is B's
  /// dimension of the columns (n): the innermost, or with `transposed` (B
  /// read as [.., n, k]) the second innermost. The packed tensor is
  /// [.., strips, k, width] either way; a transposed B's strips are
  /// transposed while they are copied.
  struct StripLayout {
    int64_t dim, width;
    bool transposed;
  };

  static StripLayout rhsLayout(linalg::LinalgOp op,
                               const KernelConfig &config) {
    int64_t rank =
        cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType())
            .getRank();
    return {config.packTransposed ? rank - 2 : rank - 1, config.packColumns,
            config.packTransposed};
  }

  /// Rows [first, first + count) of a block or strip.
  struct RowRange {
    OpFoldResult first, count;
  };

  /// The strip of `packed` ([.., strips, k, width]) that holds the columns
  /// [index, index + size) of the block (`index` a multiple of `width`), as
  /// a [.., k, size] tensor (or only its `rows`, [.., count, size]); and
  /// its offsets and sizes in `packed`.
  static Value stripOf(OpBuilder &b, Location loc, Value packed, int64_t width,
                       OpFoldResult index, OpFoldResult size,
                       SmallVectorImpl<OpFoldResult> &offsets,
                       SmallVectorImpl<OpFoldResult> &sizes,
                       std::optional<RowRange> rows = std::nullopt) {
    auto type = cast<RankedTensorType>(packed.getType());
    int64_t rank = type.getRank(), stripDim = rank - 3;
    offsets.assign(rank, b.getIndexAttr(0));
    sizes.assign(tensor::getMixedSizes(b, loc, packed));
    offsets[stripDim] = affine::makeComposedFoldedAffineApply(
        b, loc, b.getAffineDimExpr(0).floorDiv(width), {index});
    sizes[stripDim] = b.getIndexAttr(1);
    sizes.back() = size;
    if (rows) {
      // Only those rows of the strip.
      offsets[rank - 2] = rows->first;
      sizes[rank - 2] = rows->count;
    }
    SmallVector<int64_t> shape;
    for (auto [i, s] : llvm::enumerate(sizes))
      if (static_cast<int64_t>(i) != stripDim)
        shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), packed,
        offsets, sizes, strides);
  }

  /// `dst = extf(src)`, elementwise.
  static Operation *convertingCopy(OpBuilder &b, Location loc, Value src,
                                   Value dst) {
    auto type = cast<RankedTensorType>(dst.getType());
    AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    return linalg::GenericOp::create(
        b, loc, type, src, dst, ArrayRef<AffineMap>{identity, identity},
        parallel, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value wide =
              arith::ExtFOp::create(b, loc, type.getElementType(), args[0]);
          linalg::YieldOp::create(b, loc, wide);
        });
  }

  /// The element type B is packed in: the type the matmul `op` converts B's
  /// elements to when it converts them with nothing else (a mixed f64 x f32
  /// contraction: the packed panel is f64, converted once while packed
  /// instead of once per row tile in the kernel, where the conversions
  /// compete with the FMAs for the same ports), else B's own.
  static Type packedElementType(linalg::LinalgOp op) {
    Type own = getElementTypeOrSelf(op.getDpsInputOperand(1)->get());
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic)
      return own;
    BlockArgument arg =
        generic.getMatchingBlockArgument(generic.getDpsInputOperand(1));
    if (!arg.hasOneUse())
      return own;
    auto ext = dyn_cast<arith::ExtFOp>(*arg.getUsers().begin());
    return ext ? ext.getType() : own;
  }

  /// Copies `block` (B's [.., kc, nc] block, or [.., nc, kc] transposed)
  /// into strips; the copy ops go to `copies`. A plain B is copied a row at
  /// a time, each row into every strip, so that B is read in rows (a page of
  /// a wide B once per row, not once per strip and row); a transposed one
  /// strip by strip, each strip one transpose of [width x kc] (contiguous
  /// rows of B), or when it is converted too, kTransposeChunk rows of the
  /// strip at a time, each transposed in B's type and converted while it
  /// is in L1.
  static Value packStrips(RewriterBase &rewriter, Location loc, Value block,
                          StripLayout layout, Type elementType,
                          SmallVectorImpl<Operation *> &copies) {
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(block.getType());
    int64_t rank = type.getRank(), width = layout.width;
    SmallVector<OpFoldResult> blockSizes =
        tensor::getMixedSizes(rewriter, loc, block);
    OpFoldResult columns = blockSizes[layout.dim];
    int64_t kDim = layout.transposed ? rank - 1 : rank - 2;
    OpFoldResult depth = blockSizes[kDim];
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);

    SmallVector<OpFoldResult> packedSizes(blockSizes.begin(),
                                          blockSizes.begin() + rank - 2);
    packedSizes.append({affine::makeComposedFoldedAffineApply(
                            rewriter, loc, d0.ceilDiv(width), {columns}),
                        depth, rewriter.getIndexAttr(width)});
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, packedSizes, elementType);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    std::optional<int64_t> staticColumns = getConstantIntValue(columns);
    SmallVector<OpFoldResult> unitStrides(rank + 1, rewriter.getIndexAttr(1));

    // Copies the part of strip `j` in `rows` (all rows if none) into
    // `packed`.
    auto copyStrip = [&](OpBuilder &b, Location loc, Value packed, Value j,
                         std::optional<RowRange> rows) -> Value {
      // The strip's width: `width`, or less for the last one.
      OpFoldResult size =
          staticColumns && *staticColumns % width == 0
              ? b.getIndexAttr(width)
              : affine::makeComposedFoldedAffineMin(
                    b, loc,
                    AffineMap::get(2, 0,
                                   {getAffineConstantExpr(width, ctx), d1 - d0},
                                   ctx),
                    {j, columns});
      SmallVector<OpFoldResult> srcOffsets(rank, b.getIndexAttr(0)),
          srcSizes(blockSizes), srcStrides(rank, b.getIndexAttr(1));
      srcOffsets[layout.dim] = j;
      srcSizes[layout.dim] = size;
      if (rows) {
        srcOffsets[kDim] = rows->first;
        srcSizes[kDim] = rows->count;
      }
      Value src = tensor::ExtractSliceOp::create(b, loc, block, srcOffsets,
                                                 srcSizes, srcStrides);
      SmallVector<OpFoldResult> offsets, sizes;
      Value dst =
          stripOf(b, loc, packed, width, j, size, offsets, sizes, rows);
      Operation *copy;
      if (layout.transposed) {
        SmallVector<int64_t> perm =
            llvm::to_vector(llvm::seq<int64_t>(0, rank));
        std::swap(perm[rank - 1], perm[rank - 2]);
        bool convert = elementType != type.getElementType();
        // Converting: transpose in B's type (register transposes), then
        // convert the transposed strip.
        Value to = dst;
        if (convert)
          to = tensor::EmptyOp::create(b, loc,
                                       tensor::getMixedSizes(b, loc, dst),
                                       type.getElementType());
        copy = linalg::TransposeOp::create(b, loc, src, to, perm);
        if (convert) {
          copies.push_back(copy);
          copy = convertingCopy(b, loc, copy->getResult(0), dst);
        }
      } else {
        copy = elementType == type.getElementType()
                   ? linalg::CopyOp::create(b, loc, src, dst)
                   : convertingCopy(b, loc, src, dst);
      }
      copies.push_back(copy);
      return tensor::InsertSliceOp::create(b, loc, copy->getResult(0), packed,
                                           offsets, sizes, unitStrides);
    };
    Value depthIndex = getValueOrCreateConstantIndexOp(rewriter, loc, depth);
    std::optional<int64_t> staticDepth = getConstantIntValue(depth);
    // for k in rows, step `chunk`: copy rows [k, k + chunk) of the strip
    // `j` (the last chunk may be shorter, then peeled).
    auto chunkLoop = [&](OpBuilder &b, Location loc, Value packed, Value j,
                         int64_t chunk) {
      Value step = arith::ConstantIndexOp::create(b, loc, chunk);
      auto loop = scf::ForOp::create(
          b, loc, zero, depthIndex, step, ValueRange{packed},
          [&](OpBuilder &b, Location loc, Value k, ValueRange iterArgs) {
            AffineMap upToChunk = AffineMap::get(
                2, 0, {getAffineConstantExpr(chunk, ctx), d1 - d0}, ctx);
            OpFoldResult count =
                staticDepth && *staticDepth % chunk == 0
                    ? OpFoldResult(b.getIndexAttr(chunk))
                    : affine::makeComposedFoldedAffineMin(b, loc, upToChunk,
                                                          {k, depthIndex});
            scf::YieldOp::create(
                b, loc, copyStrip(b, loc, iterArgs[0], j, RowRange{k, count}));
          });
      loop->setAttr(kPeelMarker, b.getUnitAttr());
      return loop.getResult(0);
    };
    // for j in strips: copy the strip (or, with `chunk`, loop over its
    // rows).
    auto stripLoop = [&](OpBuilder &b, Location loc, Value packed,
                         std::optional<RowRange> rows, int64_t chunk) {
      Value ub = getValueOrCreateConstantIndexOp(b, loc, columns);
      Value step = arith::ConstantIndexOp::create(b, loc, width);
      auto loop = scf::ForOp::create(
          b, loc, zero, ub, step, ValueRange{packed},
          [&](OpBuilder &b, Location loc, Value j, ValueRange iterArgs) {
            scf::YieldOp::create(
                b, loc,
                chunk > 0 ? chunkLoop(b, loc, iterArgs[0], j, chunk)
                          : copyStrip(b, loc, iterArgs[0], j, rows));
          });
      loop->setAttr(kPeelMarker, b.getUnitAttr());
      return loop.getResult(0);
    };
    if (layout.transposed)
      return stripLoop(rewriter, loc, empty, std::nullopt,
                       elementType != type.getElementType() ? kTransposeChunk
                                                            : 0);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, depthIndex, one, ValueRange{empty},
        [&](OpBuilder &b, Location loc, Value k, ValueRange iterArgs) {
          scf::YieldOp::create(b, loc,
                               stripLoop(b, loc, iterArgs[0],
                                         RowRange{k, b.getIndexAttr(1)},
                                         /*chunk=*/0));
        });
    return loop.getResult(0);
  }

  /// True if `value` is a slice of part of the rows of the tensor it was
  /// cut from (a copy would make it contiguous).
  static bool isPartialRowsSlice(Value value) {
    auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice)
      return false;
    Value source = slice.getSource();
    while (auto outer = source.getDefiningOp<tensor::ExtractSliceOp>())
      source = outer.getSource();
    auto type = cast<RankedTensorType>(slice.getType());
    auto sourceType = cast<RankedTensorType>(source.getType());
    return type.getRank() >= 2 && type.getRank() == sourceType.getRank() &&
           sourceType.getShape().back() != type.getShape().back();
  }

  /// Packs B's [kc x nc] block, read by the matmul `current` (one reduction
  /// block), into column strips ([nc / nr][kc][nr]), or takes it from all
  /// of B packed once (wholePackedBlock); null when B is not a slice or is
  /// a slice of whole rows (contiguous already), or the op cannot be
  /// packed. With `packTransposed` the op reads B as [.., n, k] and the
  /// strips are transposed while they are copied.
  Value packRhs(RewriterBase &rewriter, Operation *current,
                const KernelConfig &config,
                SmallVectorImpl<Operation *> &copies) {
    auto op = cast<linalg::LinalgOp>(current);
    Value rhs = op.getDpsInputOperand(1)->get();
    if (config.packColumns <= 0 || !getMatmulDims(op) ||
        (config.packTransposed && !isa<linalg::GenericOp>(current)))
      return {};
    // A matmul that no level tiled along B (a product inside a loop of its
    // own, as a convolution's blocked patches are) packs all of B, read
    // through a whole slice.
    if (!rhs.getDefiningOp<tensor::ExtractSliceOp>()) {
      auto type = dyn_cast<RankedTensorType>(rhs.getType());
      if (!type || !type.hasStaticShape() ||
          op->getParentOfType<scf::ForallOp>() == nullptr)
        return {};
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(op);
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes,
          strides(type.getRank(), rewriter.getIndexAttr(1));
      for (int64_t size : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      rhs = tensor::ExtractSliceOp::create(rewriter, op.getLoc(), rhs, offsets,
                                           sizes, strides);
      rewriter.modifyOpInPlace(op, [&] { op.getDpsInputOperand(1)->set(rhs); });
    }
    if (!config.packTransposed && !isPartialRowsSlice(rhs))
      return {};
    if (Value block = wholePackedBlock(rewriter, op, config))
      return block;
    rewriter.setInsertionPoint(op);
    Value packed = packStrips(rewriter, op.getLoc(), rhs,
                              rhsLayout(op, config), packedElementType(op),
                              copies);
    if (prefetch && config.prefetchPackedRows && !config.packTransposed &&
        packedElementType(op) == getElementTypeOrSelf(rhs))
      if (auto rows = packed.getDefiningOp<scf::ForOp>())
        prefetchPackedRows(rewriter, rhs, rows);
    return packed;
  }

  /// The packing of a plain B copies its block a row at a time, each row a
  /// few cache lines of B (256 f32 columns: 1 KiB). When B's rows are more
  /// than kFollowedRowBytes apart the hardware prefetchers do not follow
  /// them, and the copy waits on memory row after row. Then, for B a
  /// function argument (read from memory; anything computed is in cache
  /// anyway), each iteration of the row loop `rows` prefetches
  /// the block's row kPackPrefetchRows ahead (clamped to B's last), into L1
  /// (prefetcht0; prefetcht1, into L2, gained less: 64 x 768 @ 768 x 2304
  /// f32 3% faster against 8%).
  /// Converting copies (f32 weights packed as f64) measured level with it:
  /// their stores of twice the bytes bound them, not the loads.
  static void prefetchPackedRows(RewriterBase &rewriter, Value block,
                                 scf::ForOp rows) {
    auto type = cast<RankedTensorType>(block.getType());
    int64_t rank = type.getRank(), columns = type.getDimSize(rank - 1);
    // A partial block (the last of a row): lines up to its bound, clamped
    // to B's last column.
    bool partial = ShapedType::isDynamic(columns);
    if (partial) {
      auto slice = block.getDefiningOp<tensor::ExtractSliceOp>();
      Value size =
          slice ? dyn_cast<Value>(slice.getMixedSizes().back()) : Value();
      std::optional<int64_t> bound =
          size ? constantUpperBound(size) : std::nullopt;
      if (!bound)
        return;
      columns = *bound;
    }
    Location loc = rows.getLoc();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(rows);
    std::optional<ArgumentSlice> source =
        sliceOfArgument(rewriter, loc, block);
    if (!source)
      return;
    // Rows close enough that the hardware prefetchers follow them.
    int64_t rowElements =
        cast<RankedTensorType>(source->arg.getType()).getShape().back();
    if (ShapedType::isDynamic(rowElements) ||
        rowElements * type.getElementTypeBitWidth() / 8 <= kFollowedRowBytes)
      return;
    SmallVector<Value> indices;
    for (OpFoldResult offset : source->offsets)
      indices.push_back(
          getValueOrCreateConstantIndexOp(rewriter, loc, offset));
    Value buffer;
    {
      OpBuilder::InsertionGuard atEntry(rewriter);
      rewriter.setInsertionPointToStart(source->arg.getOwner());
      buffer = readOnlyBuffer(rewriter, loc, source->arg);
    }
    Value last = arith::SubIOp::create(
        rewriter, loc, memref::DimOp::create(rewriter, loc, buffer, rank - 2),
        arith::ConstantIndexOp::create(rewriter, loc, 1));
    int64_t lineElements = 512 / type.getElementTypeBitWidth();

    rewriter.setInsertionPointToStart(rows.getBody());
    Value ahead = arith::AddIOp::create(
        rewriter, loc, indices[rank - 2],
        arith::AddIOp::create(
            rewriter, loc, rows.getInductionVar(),
            arith::ConstantIndexOp::create(rewriter, loc, kPackPrefetchRows)));
    indices[rank - 2] = arith::MinSIOp::create(rewriter, loc, ahead, last);
    Value firstColumn = indices[rank - 1];
    for (int64_t c = 0; c < columns; c += lineElements) {
      indices[rank - 1] = arith::AddIOp::create(
          rewriter, loc, firstColumn,
          arith::ConstantIndexOp::create(rewriter, loc, c));
      if (partial)
        indices[rank - 1] = arith::MinSIOp::create(
            rewriter, loc, indices[rank - 1],
            arith::ConstantIndexOp::create(rewriter, loc, rowElements - 1));
      memref::PrefetchOp::create(rewriter, loc, buffer, indices,
                                 /*isWrite=*/false, /*localityHint=*/3,
                                 /*isDataCache=*/true);
    }
  }

  /// True if `offset` is provably a multiple of `width`: a constant, or
  /// the induction variable of a loop whose start and step are.
  static bool isMultipleOf(OpFoldResult offset, int64_t width) {
    if (std::optional<int64_t> c = getConstantIntValue(offset))
      return *c % width == 0;
    auto iv = dyn_cast<BlockArgument>(cast<Value>(offset));
    if (!iv)
      return false;
    auto aligned = [&](std::optional<int64_t> v) {
      return v && *v % width == 0;
    };
    Operation *owner = iv.getOwner()->getParentOp();
    if (auto forall = dyn_cast<scf::ForallOp>(owner)) {
      unsigned i = iv.getArgNumber();
      if (i >= forall.getRank())
        return false;
      return aligned(getConstantIntValue(forall.getMixedLowerBound()[i])) &&
             aligned(getConstantIntValue(forall.getMixedStep()[i]));
    }
    if (auto loop = dyn_cast<scf::ForOp>(owner))
      return iv == loop.getInductionVar() &&
             aligned(getConstantIntValue(loop.getLowerBound())) &&
             aligned(getConstantIntValue(loop.getStep()));
    return false;
  }

  /// B's block of the matmul `op` (a slice of a function argument, one
  /// reduction block), as a slice of all of B packed whole, when
  /// --tt-cpu-prepack-constants made it (`tt.packed`: an argument, or a
  /// call at the start of the function; packed converted when the op
  /// converts B). Null when there is none or the block's columns do not
  /// start on a strip.
  Value wholePackedBlock(RewriterBase &rewriter, linalg::LinalgOp op,
                         const KernelConfig &config) {
    Value rhs = op.getDpsInputOperand(1)->get();
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    if (rhsType.getRank() != 2)
      return {};
    WholePackLayout layout{config.packColumns, config.packTransposed,
                           packedElementType(op)};
    unsigned nDim = layout.transposed ? 0 : 1;
    // The slices back to an argument, each at a whole strip.
    SmallVector<tensor::ExtractSliceOp> slices;
    Value source = rhs;
    while (auto slice = source.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (slice.getSourceType().getRank() != 2 ||
          slice.getType().getRank() != 2 || !slice.hasUnitStride() ||
          !isMultipleOf(slice.getMixedOffsets()[nDim], layout.width))
        return {};
      slices.push_back(slice);
      source = slice.getSource();
    }
    auto arg = dyn_cast<BlockArgument>(source);
    auto func = op->getParentOfType<func::FuncOp>();
    if (!prepack || !arg || !func || arg.getOwner() != &func.getBody().front())
      return {};
    Value packed = findWholePack(func, arg.getArgNumber(), layout);
    if (!packed)
      return {};
    // The block's offsets in the argument: the sum of the slices'.
    AffineExpr d0, d1;
    bindDims(rewriter.getContext(), d0, d1);
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0));
    for (tensor::ExtractSliceOp slice : slices)
      for (unsigned d = 0; d < 2; ++d)
        offsets[d] = affine::makeComposedFoldedAffineApply(
            rewriter, loc, d0 + d1, {offsets[d], slice.getMixedOffsets()[d]});
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, rhs);
    // [strips][k][width]: the block's strips and rows.
    int64_t width = layout.width;
    SmallVector<OpFoldResult> packedOffsets = {
        affine::makeComposedFoldedAffineApply(rewriter, loc,
                                              d0.floorDiv(width),
                                              {offsets[nDim]}),
        offsets[1 - nDim], rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> packedSizes = {
        affine::makeComposedFoldedAffineApply(rewriter, loc,
                                              d0.ceilDiv(width), {sizes[nDim]}),
        sizes[1 - nDim], rewriter.getIndexAttr(width)};
    SmallVector<int64_t> shape;
    for (OpFoldResult size : packedSizes)
      shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
    return tensor::ExtractSliceOp::create(
        rewriter, loc,
        RankedTensorType::get(shape, layout.element), packed,
        packedOffsets, packedSizes,
        SmallVector<OpFoldResult>(3, rewriter.getIndexAttr(1)));
  }

  /// Tiles the matmul `current` (one row block of a reduction block whose B
  /// is packed as `packed`) by B's strips, and makes each tile read its
  /// strip, one contiguous block (and, if B was transposed, read it as a
  /// plain matmul does). `current` becomes the tile's op. Nothing happens
  /// without a packed B. `fillErased` as for tileLevel.
  static LogicalResult
  tileIntoStrips(RewriterBase &rewriter, Operation *&current,
                 const KernelConfig &config, Value packed,
                 llvm::SmallPtrSetImpl<Operation *> *fillErased) {
    auto op = cast<linalg::LinalgOp>(current);
    std::optional<MatmulDims> dims = getMatmulDims(op);
    if (!packed || !dims)
      return success();
    StripLayout layout = rhsLayout(op, config);
    Value whole = op.getDpsInputOperand(1)->get();
    SmallVector<int64_t> tiles(op.getNumLoops(), 0);
    tiles[dims->n] = layout.width;
    if (failed(tileLevel(rewriter, current, tiles, {}, fillErased)))
      return failure();
    auto tile = cast<linalg::LinalgOp>(current);
    OpOperand *rhs = tile.getDpsInputOperand(1);
    OpFoldResult index = rewriter.getIndexAttr(0),
                 size = tensor::getMixedSize(rewriter, tile.getLoc(), whole,
                                             layout.dim);
    if (rhs->get() != whole) {
      auto slice = rhs->get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || slice.getSource() != whole)
        return tile.emitError("tt-cpu-tile-and-fuse: unexpected B operand of "
                              "a matmul tile");
      index = slice.getMixedOffsets()[layout.dim];
      size = slice.getMixedSizes()[layout.dim];
    }
    rewriter.setInsertionPoint(tile);
    SmallVector<OpFoldResult> offsets, sizes;
    Value strip = stripOf(rewriter, tile.getLoc(), packed, layout.width, index,
                          size, offsets, sizes);
    // B packed converted: the tile reads the converted values as they are.
    Type packedType = getElementTypeOrSelf(packed);
    if (packedType != getElementTypeOrSelf(whole)) {
      auto generic = cast<linalg::GenericOp>(tile.getOperation());
      BlockArgument arg = generic.getMatchingBlockArgument(rhs);
      auto ext = cast<arith::ExtFOp>(*arg.getUsers().begin());
      rewriter.modifyOpInPlace(generic, [&] { arg.setType(packedType); });
      rewriter.replaceOp(ext, arg);
    }
    rewriter.modifyOpInPlace(tile, [&] {
      rhs->set(strip);
      if (!layout.transposed)
        return;
      auto generic = cast<linalg::GenericOp>(tile.getOperation());
      AffineMap map = generic.getMatchingIndexingMap(rhs);
      SmallVector<AffineExpr> results(map.getResults());
      int64_t r = results.size();
      std::swap(results[r - 1], results[r - 2]);
      SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
      maps[rhs->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), 0, results, tile.getContext());
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }

  static bool isRegisterLevel(const KernelConfig &config, size_t level) {
    auto tiled = [](ArrayRef<int64_t> tiles) {
      return llvm::count_if(tiles, [](int64_t t) { return t > 0; });
    };
    for (auto [i, tiles] : llvm::enumerate(config.loopTiles))
      if (tiled(tiles) > tiled(config.loopTiles[level]))
        return false;
    return true;
  }

  /// Tiles the reduction loop of a dot-products tile by `lanes` with partial
  /// accumulators: a [.., lanes] accumulator tensor carried through the
  /// loop, all-parallel multiply-adds inside, and one reduction over the
  /// lanes after it. The multiply-adds may become FMAs.
  static LogicalResult splitReductionIntoLanes(RewriterBase &rewriter,
                                               linalg::LinalgOp op,
                                               int64_t lanes,
                                               scf::ForOp &loop) {
    unsigned k = op.getNumLoops() - 1;
    SmallVector<int64_t> sizes(op.getNumLoops(), 0);
    sizes[k] = lanes;
    rewriter.setInsertionPoint(op);
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(asIndexAttrs(rewriter, sizes));
    tiling.setReductionTilingStrategy(
        ReductionTilingStrategy::PartialReductionOuterReduction);
    tiling.setReductionDims({k});
    FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), tiling);
    if (failed(result))
      return op.emitError("tt-cpu-tile-and-fuse: could not split the "
                          "reduction into lanes");
    rewriter.replaceOp(op, result->replacements);
    for (LoopLikeOpInterface tiled : result->loops)
      tiled->setAttr(kPeelMarker, rewriter.getUnitAttr());
    loop = cast<scf::ForOp>(result->loops.front().getOperation());
    for (Operation *tiled : result->tiledOps)
      tt::addFastMathFlags(tiled, arith::FastMathFlags::contract);
    return success();
  }

  /// Splits each marked loop into a main loop of full tiles and one partial
  /// iteration, outermost first (peeling an outer loop clones the inner
  /// ones, which are peeled in turn).
  static void peelLoops(RewriterBase &rewriter, func::FuncOp func) {
    // Outer loops first, from a worklist: peeling clones a loop's body
    // into its partial iteration, marked inner loops included, and those
    // are peeled in turn. (Walking the function again after each peel made
    // the pass quadratic in the number of loops.)
    SmallVector<scf::ForOp> worklist;
    auto collect = [&](Operation *root) {
      size_t end = worklist.size();
      root->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
        if (loop->hasAttr(kPeelMarker))
          worklist.push_back(loop);
      });
      std::reverse(worklist.begin() + end, worklist.end());
    };
    collect(func);
    while (!worklist.empty()) {
      scf::ForOp next = worklist.pop_back_val();
      next->removeAttr(kPeelMarker);
      scf::ForOp partial;
      rewriter.setInsertionPoint(next);
      if (succeeded(
              scf::peelForLoopAndSimplifyBounds(rewriter, next, partial))) {
        partial->removeAttr(kPeelMarker);
        collect(partial);
      }
    }
  }
};

} // namespace
