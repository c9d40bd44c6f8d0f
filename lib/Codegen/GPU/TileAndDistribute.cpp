//===- TileAndDistribute.cpp - GPU blocks and threads on tensors ----------===//
//
// Applies the GPU KernelConfig of each root op: an scf.forall over blocks
// (mapped to #gpu.block) with its producers fused in, then, inside every
// block, each op spread over the threads of the block with scf.foralls
// mapped to #gpu.thread.
//
//===----------------------------------------------------------------------===//

#include "../Common/LinalgUtils.h"
#include "../Common/TileAndFuseUtils.h"
#include "KernelConfig.h"
#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTGPUTILEANDDISTRIBUTE
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

/// Marks the op merging a block reduction's per-thread partial results;
/// `--tt-gpu-map-to-launch` makes it a gpu.all_reduce.
constexpr llvm::StringLiteral kBlockReduceMarker = "tt.gpu.block_reduce";
/// Marks a thread's register tile of a matmul, loops (k, m, n).
constexpr llvm::StringLiteral kMatmulTileMarker = "tt.gpu.matmul_tile";
/// Marks ops that are already one thread's work.
constexpr llvm::StringLiteral kThreadMarker = "tt.gpu.thread";

/// The mapping attributes of `count` loops, x for the innermost.
SmallVector<Attribute> mappings(MLIRContext *ctx, unsigned count,
                                bool threads) {
  SmallVector<Attribute> attrs;
  for (unsigned i = 0; i < count; ++i) {
    auto id = static_cast<gpu::MappingId>(count - 1 - i);
    attrs.push_back(threads
                        ? Attribute(gpu::GPUThreadMappingAttr::get(ctx, id))
                        : Attribute(gpu::GPUBlockMappingAttr::get(ctx, id)));
  }
  return attrs;
}

bool isInsideBlock(Operation *op) {
  auto loop = op->getParentOfType<scf::ForallOp>();
  if (!loop || !loop.getMapping())
    return false;
  return llvm::any_of(*loop.getMapping(), [](Attribute a) {
    return isa<gpu::GPUBlockMappingAttr>(a);
  });
}

bool isInsideThread(Operation *op) {
  for (auto loop = op->getParentOfType<scf::ForallOp>(); loop;
       loop = loop->getParentOfType<scf::ForallOp>())
    if (loop.getMapping() && llvm::any_of(*loop.getMapping(), [](Attribute a) {
          return isa<gpu::GPUThreadMappingAttr>(a);
        }))
      return true;
  return false;
}

/// The loop sizes of `op`, dynamic ones (an edge block of a loop) replaced
/// by their static upper bound when there is one.
SmallVector<int64_t> upperBounds(linalg::LinalgOp op) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  OpBuilder b(op);
  SmallVector<Range> ranges = op.createLoopRanges(b, op.getLoc());
  for (auto [size, range] : llvm::zip(sizes, ranges)) {
    auto value = dyn_cast<Value>(range.size);
    if (!ShapedType::isDynamic(size) || !value)
      continue;
    if (std::optional<int64_t> bound = constantUpperBound(value))
      size = *bound;
  }
  // createLoopRanges built the sizes' ops; they are dead.
  return sizes;
}

struct GPUTileAndDistributePass
    : public tt::impl::TTGPUTileAndDistributeBase<GPUTileAndDistributePass> {
  using TTGPUTileAndDistributeBase::TTGPUTileAndDistributeBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    GPUTarget target;
    target.threadsPerBlock = threadsPerBlock;
    target.minBlockReduction = minBlockReduction;
    target.blockReduction = blockReduction;
    if (threadsPerBlock <= 0 || threadsPerBlock % 32 != 0 ||
        threadsPerBlock > 1024) {
      func.emitError("tt-gpu-tile-and-distribute: threads-per-block must be "
                     "a multiple of 32 between 32 and 1024, got ")
          << static_cast<int64_t>(threadsPerBlock);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());

    // Blocks: roots, last first, each with its producers fused in.
    // Also ops in host loops (a cumsum's scf.for): a launch per iteration.
    SmallVector<linalg::LinalgOp> roots;
    func.walk([&](linalg::LinalgOp op) {
      if (!isInsideBlock(op))
        roots.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 16> erased;
    for (linalg::LinalgOp root : llvm::reverse(roots)) {
      if (erased.contains(root))
        continue;
      // tileRoot and distribute emit an error on the op they fail on.
      if (failed(tileRoot(rewriter, root, target, erased)))
        return signalPassFailure();
    }
    {
      DominanceInfo dominance(func);
      eliminateCommonSubExpressions(rewriter, dominance, func);
    }

    // Threads: every op in a block, consumers first (a reduction merges its
    // elementwise producers into its body).
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (isInsideBlock(op))
        ops.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 16> fused;
    for (linalg::LinalgOp op : llvm::reverse(ops)) {
      if (fused.contains(op) || op->hasAttr(kBlockReduceMarker) ||
          isInsideThread(op))
        continue;
      if (failed(distribute(rewriter, op, target, fused)))
        return signalPassFailure();
    }
    func.walk([](Operation *op) { op->removeAttr(kThreadMarker); });

    // A slice of a tensor.empty (the init of a producer fused into a block)
    // is an empty tensor of the slice's size: a block-sized buffer, not one
    // of the whole result in every block.
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    // A cleanup: empty tensors left unfolded are still valid.
    (void)tt::applyPatterns(*this, func, std::move(patterns),
                            tt::Convergence::Optional);
  }

  LogicalResult tileRoot(RewriterBase &rewriter, linalg::LinalgOp root,
                         const GPUTarget &target,
                         llvm::SmallPtrSetImpl<Operation *> &erased) {
    std::optional<GPUKernelConfig> config = getGPUKernelConfig(root, target);
    if (!config)
      return success();
    if (config->kind == GPUKernelKind::Matmul) {
      SmallVector<linalg::LinalgOp> parts;
      if (failed(splitPartialBlocks(rewriter, root, *config, parts)))
        return failure();
      if (!parts.empty()) {
        erased.insert(root);
        for (linalg::LinalgOp part : parts)
          if (failed(tileRoot(rewriter, part, target, erased)))
            return failure();
        return success();
      }
    }
    // A matmul block reads rows of A and columns of B of all of K: a
    // producer fused into it would be a block buffer of that size.
    // Only the fill of its accumulator joins it.
    llvm::SmallPtrSet<Operation *, 16> cluster =
        fusionCluster(root, /*epilogueOf=*/nullptr);
    if (config->kind == GPUKernelKind::Matmul) {
      cluster = {root};
      if (auto fill =
              root.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>())
        if (fill->hasOneUse())
          cluster.insert(fill);
    }
    SmallVector<int64_t> tiles = config->blockTiles;
    if (fuse && fuseRows && config->kind == GPUKernelKind::Elementwise)
      if (std::optional<SmallVector<int64_t>> rows =
              rowTiles(root, cluster, target))
        tiles = *rows;
    unsigned blockLoops = llvm::count_if(tiles, [](int64_t t) { return t; });
    rewriter.setInsertionPoint(root);
    scf::SCFTilingOptions tiling;
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    tiling.setTileSizes(asIndexAttrs(rewriter, tiles));
    tiling.setMapping(mappings(root->getContext(), blockLoops, false));
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp slice, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!fuse)
            return std::nullopt;
          return shouldFuse(slice, producer, cluster);
        });
    if (blockLoops == 0) {
      // One block does all of it: a forall of one iteration.
      return wrapInOneBlock(rewriter, root);
    }
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root.getOperation()), options);
    if (failed(result))
      return root.emitError("tt-gpu-tile-and-distribute: could not tile the "
                            "op into blocks");
    replaceFused(rewriter, root, *result, erased);
    return success();
  }

  /// Splits a matmul whose blocks do not divide M or N into the full
  /// blocks and the rest (returned in `parts`; empty if every block is
  /// full), so that every thread of the full blocks has a static tile.
  static LogicalResult
  splitPartialBlocks(RewriterBase &rewriter, linalg::LinalgOp op,
                     const GPUKernelConfig &config,
                     SmallVectorImpl<linalg::LinalgOp> &parts) {
    for (auto [loop, tile] : llvm::enumerate(config.blockTiles)) {
      if (failed(splitAtMultiple(rewriter, op, loop, tile, parts)))
        return op.emitError("tt-gpu-tile-and-distribute: could not split "
                            "the partial blocks off a matmul");
      if (!parts.empty())
        return success();
    }
    return success();
  }

  /// An elementwise root consuming row reductions of the same rows (a
  /// softmax's division, a layer norm's normalisation) gets one block per
  /// row: the reductions then fuse into the block and the row is read from
  /// global memory by one block.
  std::optional<SmallVector<int64_t>>
  rowTiles(linalg::LinalgOp root,
           const llvm::SmallPtrSetImpl<Operation *> &cluster,
           const GPUTarget &target) {
    unsigned n = root.getNumLoops();
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    if (n < 2 || n > 4 || ranges.back() > target.maxRowElements)
      return std::nullopt;
    bool reduces = llvm::any_of(cluster, [&](Operation *op) {
      auto linalgOp = cast<linalg::LinalgOp>(op);
      SmallVector<int64_t> sizes(linalgOp.getNumLoops(), 1);
      sizes.back() = ranges.back();
      return linalgOp.getNumLoops() == n &&
             linalgOp.getStaticLoopRanges().back() == ranges.back() &&
             isBlockReduction(linalgOp, sizes, target);
    });
    if (!reduces)
      return std::nullopt;
    SmallVector<int64_t> tiles(n, 1);
    tiles.back() = 0;
    for (auto [tile, range] : llvm::zip(tiles, ranges))
      if (tile >= range)
        tile = 0;
    return tiles;
  }

  /// Puts `op` in an scf.forall of one block.
  LogicalResult wrapInOneBlock(RewriterBase &rewriter, linalg::LinalgOp op) {
    if (op->getNumResults() != 1 || !op.hasPureTensorSemantics())
      return success(); // left to a launch of one thread
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value init = op.getDpsInitOperand(0)->get();
    auto type = cast<RankedTensorType>(init.getType());
    auto loop = scf::ForallOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
        ValueRange{init},
        rewriter.getArrayAttr(
            mappings(rewriter.getContext(), 1, /*threads=*/false)));
    Block *body = loop.getBody();
    rewriter.setInsertionPointToStart(body);
    IRMapping map;
    map.map(init, body->getArgument(1));
    Operation *clone = rewriter.clone(*op, map);
    rewriter.setInsertionPointToStart(loop.getTerminator().getBody());
    SmallVector<OpFoldResult> zeros(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(type.getRank(), rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, init);
    tensor::ParallelInsertSliceOp::create(rewriter, loc, clone->getResult(0),
                                          body->getArgument(1), zeros, sizes,
                                          ones);
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }

  /// Spreads `op` (inside a block) over the block's threads.
  LogicalResult distribute(RewriterBase &rewriter, linalg::LinalgOp op,
                           const GPUTarget &target,
                           llvm::SmallPtrSetImpl<Operation *> &fused) {
    SmallVector<int64_t> sizes = upperBounds(op);
    if (llvm::any_of(sizes, ShapedType::isDynamic))
      return op.emitError("tt-gpu-tile-and-distribute: a tile in a block has "
                          "no static size");
    if (std::optional<MatmulDims> dims = getMatmulDims(op))
      return distributeMatmul(rewriter, op, *dims, sizes, fused);
    if (isBlockReduction(op, sizes, target))
      return distributeReduction(rewriter, op, sizes, target, fused);
    SmallVector<bool> parallel =
        llvm::map_to_vector(op.getIteratorTypesArray(), [](auto t) {
          return t == utils::IteratorType::parallel;
        });
    SmallVector<int64_t> threads =
        distributeThreads(sizes, parallel, target.threadsPerBlock);
    // Chunks of the block's threads, walked in order (scf.for), then one
    // element per thread (scf.forall): consecutive threads on consecutive
    // elements in every chunk.
    SmallVector<int64_t> chunks(sizes.size(), 0);
    for (auto [loop, count] : llvm::enumerate(threads))
      chunks[loop] = count ? count : (parallel[loop] ? 1 : 0);
    Operation *current = op;
    if (failed(tileWithFor(rewriter, current, chunks)))
      return failure();
    return tileToThreads(rewriter, current, threads);
  }

  /// Tiles `current` by `tiles` with scf.for (0: not tiled); `current`
  /// becomes the tiled op.
  static LogicalResult tileWithFor(RewriterBase &rewriter, Operation *&current,
                                   ArrayRef<int64_t> tiles) {
    SmallVector<int64_t> sizes = upperBounds(cast<linalg::LinalgOp>(current));
    SmallVector<int64_t> t(tiles);
    bool any = false;
    for (auto [tile, size] : llvm::zip(t, sizes)) {
      if (tile >= size)
        tile = 0;
      any |= tile != 0;
    }
    if (!any)
      return success();
    rewriter.setInsertionPoint(current);
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(asIndexAttrs(rewriter, t));
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(current), tiling);
    if (failed(result))
      return current->emitError(
          "tt-gpu-tile-and-distribute: could not tile the op in its block");
    rewriter.replaceOp(current, result->replacements);
    current = result->tiledOps.front();
    return success();
  }

  /// Tiles `current` into an scf.forall of `threads` threads per loop (0:
  /// not distributed) mapped to thread ids; `current` becomes the op of one
  /// thread.
  static LogicalResult tileToThreads(RewriterBase &rewriter,
                                     Operation *&current,
                                     ArrayRef<int64_t> threads) {
    unsigned count = llvm::count_if(threads, [](int64_t t) { return t; });
    if (count == 0) {
      // Every thread would compute all of it: give it to one thread.
      SmallVector<int64_t> one(threads.size(), 0);
      for (auto [loop, type] : llvm::enumerate(
               cast<linalg::LinalgOp>(current).getIteratorTypesArray()))
        if (type == utils::IteratorType::parallel) {
          one[loop] = 1;
          count = 1;
          break;
        }
      if (count == 0) {
        current->setAttr(kThreadMarker, rewriter.getUnitAttr());
        return success(); // a reduction to a scalar: see map-to-launch
      }
      return tileToThreads(rewriter, current, one);
    }
    rewriter.setInsertionPoint(current);
    scf::SCFTilingOptions tiling;
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    tiling.setNumThreads(asIndexAttrs(rewriter, threads));
    tiling.setMapping(mappings(current->getContext(), count, true));
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(current), tiling);
    if (failed(result))
      return current->emitError("tt-gpu-tile-and-distribute: could not "
                                "distribute the op to threads");
    rewriter.replaceOp(current, result->replacements);
    current = result->tiledOps.front();
    current->setAttr(kThreadMarker, rewriter.getUnitAttr());
    return success();
  }

  /// A matmul block: kMatmulThread x kMatmulThread outputs per thread.
  static LogicalResult
  distributeMatmul(RewriterBase &rewriter, linalg::LinalgOp op,
                   const MatmulDims &dims, ArrayRef<int64_t> sizes,
                   llvm::SmallPtrSetImpl<Operation *> &fused) {
    SmallVector<int64_t> threads(sizes.size(), 0);
    threads[dims.m] = llvm::divideCeil(sizes[dims.m], kMatmulThread);
    threads[dims.n] = llvm::divideCeil(sizes[dims.n], kMatmulThread);
    for (unsigned b : dims.batch)
      if (sizes[b] > 1)
        return op.emitError("tt-gpu-tile-and-distribute: a matmul block with "
                            "more than one batch");
    // A fill of the block's outputs (C = 0) becomes the initial value of
    // each thread's accumulator: no pass over C before the matmul.
    Value initial;
    if (auto fill =
            op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
        fill && fill->hasOneUse() && fill.hasPureTensorSemantics()) {
      initial = fill.getInputs()[0];
      Value target = fill.getOutputs()[0];
      rewriter.modifyOpInPlace(op,
                               [&] { op.getDpsInitOperand(0)->set(target); });
      fused.insert(fill);
      rewriter.eraseOp(fill);
    }
    Operation *current = op;
    for (int64_t &t : threads)
      if (t == 1)
        t = 0;
    if (failed(tileToThreads(rewriter, current, threads)))
      return failure();
    return accumulateInRegisters(rewriter, cast<linalg::LinalgOp>(current),
                                 dims, initial);
  }

  /// A thread's matmul tile accumulates in a buffer of its own (private
  /// memory, which LLVM keeps in registers once the loops over the tile are
  /// unrolled), with K as the outer loop: per step of K, kMatmulThread
  /// elements of A and of B are loaded for kMatmulThread^2 multiply-adds.
  /// `initial` (if set) is the value the outputs start from, instead of
  /// their contents.
  static LogicalResult accumulateInRegisters(RewriterBase &rewriter,
                                             linalg::LinalgOp op,
                                             const MatmulDims &dims,
                                             Value initial) {
    Value out = op.getDpsInitOperand(0)->get();
    auto type = dyn_cast<RankedTensorType>(out.getType());
    Location loc = op.getLoc();
    addFastMathFlags(op, arith::FastMathFlags::contract);
    if (!type || !type.hasStaticShape() || !op.hasPureTensorSemantics()) {
      // An edge tile: accumulates in place.
      if (initial) {
        rewriter.setInsertionPoint(op);
        Value filled =
            linalg::FillOp::create(rewriter, loc, initial, out).getResult(0);
        rewriter.modifyOpInPlace(op,
                                 [&] { op.getDpsInitOperand(0)->set(filled); });
      }
      return success();
    }
    rewriter.setInsertionPoint(op);
    Value buffer =
        bufferization::AllocTensorOp::create(rewriter, loc, type, ValueRange{});
    Value acc =
        initial
            ? linalg::FillOp::create(rewriter, loc, initial, buffer)
                  .getResult(0)
            : linalg::CopyOp::create(rewriter, loc, out, buffer).getResult(0);
    FailureOr<linalg::GenericOp> generic = asGenericOp(rewriter, op);
    if (failed(generic))
      return success();
    rewriter.modifyOpInPlace(
        *generic, [&] { generic->getDpsInitsMutable()[0].set(acc); });
    // Loops (batch..., k, m, n).
    SmallVector<unsigned> order(dims.batch.begin(), dims.batch.end());
    order.append({dims.k, dims.m, dims.n});
    FailureOr<linalg::GenericOp> interchanged =
        linalg::interchangeGenericOp(rewriter, *generic, order);
    if (failed(interchanged))
      return success();
    // --tt-gpu-map-to-launch may stage its operands through workgroup
    // memory.
    if (dims.batch.empty())
      (*interchanged)->setAttr(kMatmulTileMarker, rewriter.getUnitAttr());
    rewriter.setInsertionPointAfter(*interchanged);
    Value result = interchanged->getResult(0);
    auto back = linalg::CopyOp::create(rewriter, loc, result, out);
    rewriter.replaceAllUsesExcept(result, back.getResult(0), back);
    return success();
  }

  /// One row reduced by the whole block: each thread reduces a strided
  /// slice of the row (thread t: t, t + T, t + 2T, ...) into its partial
  /// result, and the marked merge combines the T partials.
  LogicalResult distributeReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                    ArrayRef<int64_t> sizes,
                                    const GPUTarget &target,
                                    llvm::SmallPtrSetImpl<Operation *> &fused) {
    // Elementwise producers used only by the reduction are computed in its
    // body rather than written to the block's memory.
    llvm::SmallPtrSet<Operation *, 4> producers = singleUseProducers(op);
    Operation *current = op;
    if (!producers.empty() &&
        failed(fuseIntoReduction(rewriter, op, producers, fused, &current)))
      return failure();
    auto reduction = dyn_cast<PartialReductionOpInterface>(current);
    if (!reduction)
      return current->emitOpError("tt-gpu-tile-and-distribute: a reduction "
                                  "without PartialReductionOpInterface "
                                  "cannot be split across threads");
    int64_t k = sizes.back();
    int64_t threads = target.threadsPerBlock;
    while (threads > 32 && threads / 2 >= k)
      threads /= 2;
    // The parallel loops (of size 1) are "distributed" to one thread each:
    // partial reduction tiling sizes the partial results by the threads.
    SmallVector<OpFoldResult> numThreads(sizes.size(),
                                         rewriter.getIndexAttr(1));
    numThreads.back() = rewriter.getIndexAttr(threads);
    if (sizes.size() > 3)
      return success(); // left to one thread per output
    rewriter.setInsertionPoint(current);
    FailureOr<linalg::ForallReductionTilingResult> tiled =
        linalg::tileReductionUsingForall(
            rewriter, reduction, numThreads, /*tileSizes=*/{},
            rewriter.getArrayAttr(mappings(rewriter.getContext(), sizes.size(),
                                           /*threads=*/true)));
    if (failed(tiled))
      return current->emitError("tt-gpu-tile-and-distribute: could not split "
                                "the row reduction over the block's threads");
    for (Operation *merge : tiled->mergeOps)
      merge->setAttr(kBlockReduceMarker, rewriter.getI64IntegerAttr(threads));
    for (Operation *partial : tiled->parallelTiledOps) {
      partial->setAttr(kThreadMarker, rewriter.getUnitAttr());
      makeStrided(rewriter, cast<linalg::LinalgOp>(partial), tiled->loops, k,
                  threads);
    }
    // The partial results live in the block's workgroup memory; each
    // thread sets its own to the neutral element.
    for (Value init : tiled->initialValues) {
      auto fill = init.getDefiningOp<linalg::FillOp>();
      if (!fill)
        return current->emitError("tt-gpu-tile-and-distribute: unexpected "
                                  "initial value of partial reductions");
      if (auto empty = fill.getDpsInitOperand(0)
                           ->get()
                           .getDefiningOp<tensor::EmptyOp>()) {
        rewriter.setInsertionPoint(empty);
        auto alloc = bufferization::AllocTensorOp::create(
            rewriter, empty.getLoc(), empty.getType(), ValueRange{});
        if (workgroupMemory)
          alloc.setMemorySpaceAttr(gpu::AddressSpaceAttr::get(
              rewriter.getContext(), gpu::AddressSpace::Workgroup));
        rewriter.replaceOp(empty, alloc.getResult());
      }
      if (failed(distribute(rewriter, fill, target, fused)))
        return failure();
    }
    return success();
  }

  /// Thread t of `loop` reduces the elements t, t + T, ... of the row of
  /// length `k` instead of a contiguous chunk: the threads of a warp then
  /// read consecutive elements.
  static void makeStrided(RewriterBase &rewriter, linalg::LinalgOp partial,
                          scf::ForallOp loop, int64_t k, int64_t threads) {
    if (!partial->getRegion(0).getOps<linalg::IndexOp>().empty())
      return; // the body reads its position: keep contiguous chunks
    Value tid = loop.getInductionVars().back();
    unsigned last = partial.getNumLoops() - 1;
    for (OpOperand *input : partial.getDpsInputOperands()) {
      auto slice = input->get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice)
        continue;
      AffineMap map = partial.getMatchingIndexingMap(input);
      std::optional<unsigned> pos =
          map.getResultPosition(getAffineDimExpr(last, rewriter.getContext()));
      if (!pos)
        continue;
      rewriter.setInsertionPoint(slice);
      Location loc = slice.getLoc();
      AffineExpr t = rewriter.getAffineSymbolExpr(0);
      OpFoldResult size =
          k % threads == 0
              ? OpFoldResult(rewriter.getIndexAttr(k / threads))
              : OpFoldResult(
                    affine::AffineApplyOp::create(
                        rewriter, loc,
                        AffineMap::get(
                            0, 1,
                            (t * -1 + (k + threads - 1)).floorDiv(threads)),
                        ValueRange{tid})
                        .getResult());
      SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
      SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
      SmallVector<OpFoldResult> strides = slice.getMixedStrides();
      offsets[*pos] = tid;
      sizes[*pos] = size;
      strides[*pos] = rewriter.getIndexAttr(threads);
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          slice, slice.getType(), slice.getSource(), offsets, sizes, strides);
    }
  }
};

} // namespace
