//===- MapToLaunch.cpp - Block and thread foralls to gpu.launch -----------===//

#include "TinyTensor/Codegen/Passes.h"
#include "../Common/TileAndFuseUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTGPUMAPTOLAUNCH
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kBlockReduceMarker = "tt.gpu.block_reduce";
constexpr llvm::StringLiteral kMatmulTileMarker = "tt.gpu.matmul_tile";
/// The step of K through workgroup memory in a staged matmul.
constexpr int64_t kStageK = 16;
/// What a block may allocate without opting in to more (the static limit
/// of every NVIDIA GPU since Volta).
constexpr int64_t kWorkgroupBytes = 48 * 1024;

template <typename MappingAttr> bool hasMapping(scf::ForallOp loop) {
  return loop.getMapping() && llvm::any_of(*loop.getMapping(), [](Attribute a) {
           return isa<MappingAttr>(a);
         });
}

/// The static trip count of each dimension of a normalised `loop`.
FailureOr<SmallVector<int64_t>> tripCounts(scf::ForallOp loop) {
  SmallVector<int64_t> counts;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                 loop.getMixedStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return failure();
    counts.push_back(llvm::divideCeil(*u - *l, *s));
  }
  return counts;
}

unsigned mappingDim(Attribute mapping) {
  return static_cast<unsigned>(
      cast<DeviceMappingAttrInterface>(mapping).getMappingId());
}

/// The all-reduce kind of a linalg reduction body that combines with one
/// op, and that op's neutral element.
std::optional<std::pair<gpu::AllReduceOperation, TypedAttr>>
allReduceKind(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != 2)
    return std::nullopt;
  Operation *combiner = &body->front();
  Type type = combiner->getResultTypes().front();
  Builder b(op->getContext());
  auto fp = [&](double v) -> TypedAttr { return b.getFloatAttr(type, v); };
  double inf = std::numeric_limits<double>::infinity();
  return llvm::TypeSwitch<
             Operation *,
             std::optional<std::pair<gpu::AllReduceOperation, TypedAttr>>>(
             combiner)
      .Case([&](arith::AddFOp) {
        return std::make_pair(gpu::AllReduceOperation::ADD, fp(0.0));
      })
      .Case([&](arith::MulFOp) {
        return std::make_pair(gpu::AllReduceOperation::MUL, fp(1.0));
      })
      .Case([&](arith::MaximumFOp) {
        return std::make_pair(gpu::AllReduceOperation::MAXIMUMF, fp(-inf));
      })
      .Case([&](arith::MinimumFOp) {
        return std::make_pair(gpu::AllReduceOperation::MINIMUMF, fp(inf));
      })
      .Case([&](arith::MaxNumFOp) {
        return std::make_pair(gpu::AllReduceOperation::MAXNUMF, fp(-inf));
      })
      .Case([&](arith::MinNumFOp) {
        return std::make_pair(gpu::AllReduceOperation::MINNUMF, fp(inf));
      })
      .Case([&](arith::AddIOp) {
        return std::make_pair(gpu::AllReduceOperation::ADD,
                              TypedAttr(b.getIntegerAttr(type, 0)));
      })
      .Case([&](arith::MulIOp) {
        return std::make_pair(gpu::AllReduceOperation::MUL,
                              TypedAttr(b.getIntegerAttr(type, 1)));
      })
      .Case([&](arith::MaxSIOp) {
        return std::make_pair(
            gpu::AllReduceOperation::MAXSI,
            TypedAttr(b.getIntegerAttr(
                type, APInt::getSignedMinValue(type.getIntOrFloatBitWidth()))));
      })
      .Case([&](arith::MinSIOp) {
        return std::make_pair(
            gpu::AllReduceOperation::MINSI,
            TypedAttr(b.getIntegerAttr(
                type, APInt::getSignedMaxValue(type.getIntOrFloatBitWidth()))));
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Calls `fn` on the ops of `func` that run on the host: outside launches
/// and loops of blocks.
void walkHost(func::FuncOp func, llvm::function_ref<void(Operation *)> fn) {
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (auto loop = dyn_cast<scf::ForallOp>(op))
      if (hasMapping<gpu::GPUBlockMappingAttr>(loop))
        return WalkResult::skip();
    fn(op);
    if (isa<linalg::LinalgOp>(op))
      return WalkResult::skip();
    return WalkResult::advance();
  });
}

struct GPUMapToLaunchPass
    : public tt::impl::TTGPUMapToLaunchBase<GPUMapToLaunchPass> {
  using TTGPUMapToLaunchBase::TTGPUMapToLaunchBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    // Copies of strided views (a slice or transpose returned as a result)
    // become loops of blocks and threads, like everything else.
    SmallVector<memref::CopyOp> copies;
    walkHost(func, [&](Operation *op) {
      auto copy = dyn_cast<memref::CopyOp>(op);
      auto identity = [](Value v) {
        return cast<MemRefType>(v.getType()).getLayout().isIdentity();
      };
      if (copy && (!identity(copy.getSource()) || !identity(copy.getTarget())))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies)
      // distributeCopy and mapBlocks emit an error on the op they fail on.
      if (failed(distributeCopy(rewriter, copy)))
        return signalPassFailure();
    SmallVector<scf::ForallOp> blocks;
    func.walk([&](scf::ForallOp loop) {
      if (hasMapping<gpu::GPUBlockMappingAttr>(loop) &&
          !loop->getParentOfType<scf::ForallOp>() &&
          !loop->getParentOfType<gpu::LaunchOp>())
        blocks.push_back(loop);
    });
    for (scf::ForallOp loop : blocks)
      if (failed(mapBlocks(rewriter, loop)))
        return signalPassFailure();
    // What is left on the host and touches memory (a rank-0 op) runs in a
    // launch of one thread.
    SmallVector<Operation *> leftovers;
    walkHost(func, [&](Operation *op) {
      if (isa<linalg::LinalgOp>(op))
        leftovers.push_back(op);
    });
    for (Operation *op : leftovers)
      wrapInOneThread(rewriter, op);
  }

  /// `copy` as a loop of blocks of 256 threads, one element per thread.
  LogicalResult distributeCopy(RewriterBase &rewriter, memref::CopyOp copy) {
    auto type = cast<MemRefType>(copy.getSource().getType());
    if (!type.hasStaticShape())
      return copy.emitError("tt-gpu-map-to-launch: a copy without a static "
                            "shape");
    constexpr int64_t kThreads = 256;
    int64_t elements = type.getNumElements();
    Location loc = copy.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    rewriter.setInsertionPoint(copy);
    auto blocks = scf::ForallOp::create(
        rewriter, loc,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(
            std::max<int64_t>(llvm::divideCeil(elements, kThreads), 1))},
        ValueRange{},
        rewriter.getArrayAttr(
            {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)}));
    rewriter.setInsertionPointToStart(blocks.getBody());
    auto threads = scf::ForallOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(kThreads)},
        ValueRange{},
        rewriter.getArrayAttr(
            {gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX)}));
    rewriter.setInsertionPointToStart(threads.getBody());
    AffineExpr b = rewriter.getAffineDimExpr(0),
               t = rewriter.getAffineDimExpr(1);
    Value linear = affine::AffineApplyOp::create(
        rewriter, loc, AffineMap::get(2, 0, b * kThreads + t),
        ValueRange{blocks.getInductionVars()[0],
                   threads.getInductionVars()[0]});
    Value inRange = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, linear,
        arith::ConstantIndexOp::create(rewriter, loc, elements));
    auto ifOp = scf::IfOp::create(rewriter, loc, inRange, /*withElse=*/false);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> indices;
    if (type.getRank() > 0) {
      auto delinearized = affine::AffineDelinearizeIndexOp::create(
          rewriter, loc, linear, type.getShape(), /*hasOuterBound=*/true);
      llvm::append_range(indices, delinearized.getResults());
    }
    Value value =
        memref::LoadOp::create(rewriter, loc, copy.getSource(), indices);
    memref::StoreOp::create(rewriter, loc, value, copy.getTarget(), indices);
    rewriter.eraseOp(copy);
    return success();
  }

  void wrapInOneThread(RewriterBase &rewriter, Operation *op) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto launch =
        gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    rewriter.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    rewriter.moveOpBefore(op, terminator);
  }

  LogicalResult mapBlocks(RewriterBase &rewriter, scf::ForallOp loop) {
    Location loc = loop.getLoc();
    FailureOr<SmallVector<int64_t>> grid = tripCounts(loop);
    if (failed(grid))
      return loop.emitError("tt-gpu-map-to-launch: a loop of blocks without "
                            "static bounds");
    SmallVector<int64_t> gridDims = {1, 1, 1};
    for (auto [count, mapping] : llvm::zip(*grid, *loop.getMapping())) {
      unsigned dim = mappingDim(mapping);
      if (dim > 2)
        return loop.emitError("tt-gpu-map-to-launch: block mapping ")
               << mapping << " is not x, y or z";
      gridDims[dim] = count;
    }
    if (gridDims[1] > 65535 || gridDims[2] > 65535)
      return loop.emitError("tt-gpu-map-to-launch: ")
             << gridDims[1] << " x " << gridDims[2]
             << " blocks in y and z, more than a grid has (65535)";

    // The thread loops, normalised; the block is the largest of them.
    SmallVector<scf::ForallOp> threadLoops;
    loop.walk([&](scf::ForallOp inner) {
      if (hasMapping<gpu::GPUThreadMappingAttr>(inner))
        threadLoops.push_back(inner);
    });
    SmallVector<int64_t> blockDims = {1, 1, 1};
    for (scf::ForallOp &inner : threadLoops) {
      rewriter.setInsertionPoint(inner);
      FailureOr<scf::ForallOp> normal = normalizeForallOp(rewriter, inner);
      if (succeeded(normal))
        inner = *normal;
      FailureOr<SmallVector<int64_t>> counts = tripCounts(inner);
      if (failed(counts))
        return inner.emitError("tt-gpu-map-to-launch: a loop of threads "
                               "without static bounds");
      for (auto [count, mapping] : llvm::zip(*counts, *inner.getMapping()))
        blockDims[mappingDim(mapping)] =
            std::max(blockDims[mappingDim(mapping)], count);
    }
    if (blockDims[0] * blockDims[1] * blockDims[2] > 1024) {
      // Thread loops shaped differently (x = 7, y = 36 and x = 36, y = 7)
      // would need the largest of each dimension: give every loop linear
      // thread ids instead, over a block of the largest loop.
      int64_t largest = 1;
      for (scf::ForallOp inner : threadLoops) {
        SmallVector<Attribute> linear;
        int64_t threads = 1;
        for (auto [count, mapping] :
             llvm::zip(*tripCounts(inner), *inner.getMapping())) {
          linear.push_back(gpu::GPUThreadMappingAttr::get(
              rewriter.getContext(),
              static_cast<gpu::MappingId>(
                  static_cast<uint64_t>(gpu::MappingId::LinearDim0) +
                  mappingDim(mapping))));
          threads *= count;
        }
        inner.setMappingAttr(rewriter.getArrayAttr(linear));
        largest = std::max(largest, threads);
      }
      blockDims = {largest, 1, 1};
    }
    if (blockDims[0] * blockDims[1] * blockDims[2] > 1024)
      return loop.emitError("tt-gpu-map-to-launch: a block of ")
             << blockDims[0] << " x " << blockDims[1] << " x " << blockDims[2]
             << " threads, more than 1024";

    // Buffers of the block (outside the thread loops) are workgroup memory;
    // a thread's own are private.
    SmallVector<memref::AllocOp> shared, own;
    loop.walk([&](memref::AllocOp alloc) {
      bool inThread = false;
      for (auto p = alloc->getParentOfType<scf::ForallOp>(); p && p != loop;
           p = p->getParentOfType<scf::ForallOp>())
        inThread |= hasMapping<gpu::GPUThreadMappingAttr>(p);
      (inThread ? own : shared).push_back(alloc);
    });
    SmallVector<Type> attributionTypes;
    int64_t bytes = 0;
    auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                                gpu::AddressSpace::Workgroup);
    // A buffer of an edge block (dynamic sizes) gets its largest size:
    // one dense buffer of that many elements, viewed with the actual sizes.
    SmallVector<int64_t> capacities;
    for (memref::AllocOp alloc : shared) {
      MemRefType type = alloc.getType();
      if (!type.getLayout().isIdentity())
        return alloc.emitError("tt-gpu-map-to-launch: a block's buffer with "
                               "a layout");
      int64_t elements = 1;
      auto dynamicSizes = alloc.getDynamicSizes().begin();
      for (int64_t dim : type.getShape()) {
        if (!ShapedType::isDynamic(dim)) {
          elements *= dim;
          continue;
        }
        std::optional<int64_t> bound = tt::constantUpperBound(*dynamicSizes++);
        if (!bound)
          return alloc.emitError("tt-gpu-map-to-launch: a block's buffer "
                                 "whose size has no upper bound");
        elements *= std::max<int64_t>(*bound, 1);
      }
      capacities.push_back(elements);
      bytes += elements * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      attributionTypes.push_back(
          type.hasStaticShape()
              ? MemRefType::get(type.getShape(), type.getElementType(),
                                AffineMap(), workgroup)
              : MemRefType::get({elements}, type.getElementType(), AffineMap(),
                                workgroup));
    }
    if (bytes > kWorkgroupBytes)
      return loop.emitError("tt-gpu-map-to-launch: a block needs ")
             << bytes << " bytes of workgroup memory, more than "
             << kWorkgroupBytes;

    rewriter.setInsertionPoint(loop);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, index(gridDims[0]), index(gridDims[1]),
        index(gridDims[2]), index(blockDims[0]), index(blockDims[1]),
        index(blockDims[2]), /*dynamicSharedMemorySize=*/nullptr,
        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{}, attributionTypes);
    Block &body = launch.getBody().front();
    rewriter.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);

    // The block's induction variables from its ids.
    rewriter.setInsertionPointToStart(&body);
    gpu::KernelDim3 ids = launch.getBlockIds();
    Value id[3] = {ids.x, ids.y, ids.z};
    SmallVector<Value> ivs;
    for (auto [lb, step, mapping] :
         llvm::zip(loop.getMixedLowerBound(), loop.getMixedStep(),
                   *loop.getMapping())) {
      AffineExpr d = rewriter.getAffineDimExpr(0);
      ivs.push_back(affine::AffineApplyOp::create(
          rewriter, loc,
          AffineMap::get(
              1, 0, d * *getConstantIntValue(step) + *getConstantIntValue(lb)),
          ValueRange{id[mappingDim(mapping)]}));
    }
    Block *loopBody = loop.getBody();
    loopBody->getTerminator()->erase(); // scf.forall.in_parallel, empty
    rewriter.inlineBlockBefore(loopBody, terminator, ivs);
    rewriter.eraseOp(loop);

    for (auto [alloc, arg] :
         llvm::zip(shared, launch.getWorkgroupAttributions())) {
      rewriter.setInsertionPoint(alloc);
      Value replacement = arg;
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape()) {
        // The actual sizes, dense (row-major strides) in the buffer.
        SmallVector<OpFoldResult> sizes =
            getMixedValues(type.getShape(), alloc.getDynamicSizes(), rewriter);
        SmallVector<OpFoldResult> strides(sizes.size());
        OpFoldResult stride = rewriter.getIndexAttr(1);
        for (int64_t i = sizes.size() - 1; i >= 0; --i) {
          strides[i] = stride;
          AffineExpr a = rewriter.getAffineSymbolExpr(0),
                     b = rewriter.getAffineSymbolExpr(1);
          stride = affine::makeComposedFoldedAffineApply(
              rewriter, alloc.getLoc(), a * b, {stride, sizes[i]});
        }
        replacement = memref::ReinterpretCastOp::create(
            rewriter, alloc.getLoc(),
            MemRefType::get(type.getShape(), type.getElementType(), AffineMap(),
                            workgroup),
            arg, rewriter.getIndexAttr(0), sizes, strides);
      }
      if (alloc.getType() != replacement.getType())
        replacement = memref::MemorySpaceCastOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), replacement);
      eraseDeallocs(rewriter, alloc);
      rewriter.replaceOp(alloc, replacement);
    }
    for (memref::AllocOp alloc : own) {
      eraseDeallocs(rewriter, alloc);
      rewriter.setInsertionPoint(alloc);
      rewriter.replaceOpWithNewOp<memref::AllocaOp>(
          alloc, alloc.getType(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), alloc.getAlignmentAttr());
    }

    // Merges of partial results, before the thread loops are gone.
    SmallVector<linalg::LinalgOp> merges;
    launch.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kBlockReduceMarker))
        merges.push_back(op);
    });

    // The mapping creates the zero that replaces ids of unit dimensions at
    // the insertion point: it must dominate every thread loop.
    rewriter.setInsertionPointToStart(&body);
    DiagnosedSilenceableFailure mapped =
        transform::gpu::mapNestedForallToThreadsImpl(
            rewriter, std::nullopt, launch, blockDims, /*warpSize=*/32,
            /*syncAfterDistribute=*/true);
    if (!mapped.succeeded())
      return launch.emitError("tt-gpu-map-to-launch: could not map the "
                              "thread loops to thread ids");

    for (linalg::LinalgOp merge : merges)
      if (failed(allReduce(rewriter, merge, launch, blockDims)))
        return failure();
    SmallVector<linalg::GenericOp> tiles;
    launch.walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kMatmulTileMarker))
        tiles.push_back(op);
    });
    for (linalg::GenericOp tile : tiles) {
      tile->removeAttr(kMatmulTileMarker);
      if (sharedMemoryMatmul)
        stageThroughWorkgroupMemory(rewriter, tile, launch, blockDims);
    }
    // Copies between views (what bufferization makes of inserted slices)
    // become loops: a kernel has no memrefCopy to call.
    SmallVector<memref::CopyOp> copies;
    launch.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      if (copy.getSource() != copy.getTarget())
        linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                               copy.getTarget());
      rewriter.eraseOp(copy);
    }
    return success();
  }

  /// A thread's matmul tile C[TM, TN] += A[TM, K] B[K, TN], reading the
  /// block's A[BM, K] and B[K, BN] from global memory, becomes a loop over
  /// K in steps of kStageK: the block's threads copy the step's A (as
  /// A^T, rows padded by 4 against bank conflicts) and B into workgroup
  /// memory between barriers, and each thread reads its tile from there.
  /// Done only where it is safe: every thread of the launch runs the tile
  /// (it is not under a condition) and every copy divides evenly.
  static void stageThroughWorkgroupMemory(RewriterBase &rewriter,
                                          linalg::GenericOp op,
                                          gpu::LaunchOp launch,
                                          ArrayRef<int64_t> blockDims) {
    if (op->getBlock() != &launch.getBody().front() || op.getNumLoops() != 3 ||
        op.getNumDpsInputs() != 2 || blockDims[2] != 1)
      return;
    MLIRContext *ctx = op.getContext();
    AffineExpr k = getAffineDimExpr(0, ctx), m = getAffineDimExpr(1, ctx),
               n = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (maps[0] != AffineMap::get(3, 0, {m, k}, ctx) ||
        maps[1] != AffineMap::get(3, 0, {k, n}, ctx) ||
        maps[2] != AffineMap::get(3, 0, {m, n}, ctx))
      return;
    auto aTile = op.getDpsInputs()[0].getDefiningOp<memref::SubViewOp>();
    auto bTile = op.getDpsInputs()[1].getDefiningOp<memref::SubViewOp>();
    if (!aTile || !bTile)
      return;
    auto aType = cast<MemRefType>(aTile.getSource().getType());
    auto bType = cast<MemRefType>(bTile.getSource().getType());
    auto tileType = cast<MemRefType>(op.getDpsInits()[0].getType());
    if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
        !tileType.hasStaticShape() || aType.getRank() != 2 ||
        bType.getRank() != 2)
      return;
    int64_t bm = aType.getDimSize(0), kDim = aType.getDimSize(1),
            bn = bType.getDimSize(1), threads = blockDims[0] * blockDims[1];
    int64_t tm = tileType.getDimSize(0), tn = tileType.getDimSize(1);
    Type element = aType.getElementType();
    // The operands must be the block's own (what its threads' tiles
    // cover), not a larger buffer.
    if (bm != tm * blockDims[1] || bn != tn * blockDims[0] ||
        bType.getDimSize(0) != kDim || kDim % kStageK != 0 ||
        (bm * kStageK) % threads != 0 || (kStageK * bn) % threads != 0 ||
        element != bType.getElementType() ||
        element != tileType.getElementType())
      return;
    // Thread offsets of the tile within the block: A rows, B columns.
    SmallVector<OpFoldResult> aOffsets = aTile.getMixedOffsets(),
                              bOffsets = bTile.getMixedOffsets();
    if (!isConstantIntValue(aOffsets[1], 0) ||
        !isConstantIntValue(bOffsets[0], 0))
      return;

    Location loc = op.getLoc();
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    constexpr int64_t kPad = 4;
    Value aShared = launch.addWorkgroupAttribution(
        MemRefType::get({kStageK, bm + kPad}, element, AffineMap(), workgroup),
        loc);
    Value bShared = launch.addWorkgroupAttribution(
        MemRefType::get({kStageK, bn}, element, AffineMap(), workgroup), loc);

    rewriter.setInsertionPoint(op);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    gpu::KernelDim3 tids = launch.getThreadIds();
    Value tid = affine::AffineApplyOp::create(
        rewriter, loc,
        AffineMap::get(2, 0,
                       rewriter.getAffineDimExpr(1) * blockDims[0] +
                           rewriter.getAffineDimExpr(0)),
        ValueRange{tids.x, tids.y});
    auto steps = scf::ForOp::create(rewriter, loc, index(0), index(kDim),
                                    index(kStageK));
    rewriter.setInsertionPointToStart(steps.getBody());
    Value k0 = steps.getInductionVar();
    gpu::BarrierOp::create(rewriter, loc);
    // Element e of thread t of a copy of `rows` x `cols`: idx = e * T + t,
    // consecutive threads on consecutive columns (coalesced reads).
    auto copy = [&](int64_t rows, int64_t cols, auto body) {
      auto loop = scf::ForOp::create(rewriter, loc, index(0),
                                     index(rows * cols / threads), index(1));
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      AffineExpr e = rewriter.getAffineDimExpr(0),
                 t = rewriter.getAffineDimExpr(1);
      Value row = affine::AffineApplyOp::create(
          rewriter, loc, AffineMap::get(2, 0, (e * threads + t).floorDiv(cols)),
          ValueRange{loop.getInductionVar(), tid});
      Value col = affine::AffineApplyOp::create(
          rewriter, loc, AffineMap::get(2, 0, (e * threads + t) % cols),
          ValueRange{loop.getInductionVar(), tid});
      body(row, col);
    };
    AffineExpr d0 = rewriter.getAffineDimExpr(0),
               d1 = rewriter.getAffineDimExpr(1);
    Value aBlock = aTile.getSource(), bBlock = bTile.getSource();
    copy(bm, kStageK, [&](Value r, Value c) {
      Value kk = affine::AffineApplyOp::create(
          rewriter, loc, AffineMap::get(2, 0, d0 + d1), ValueRange{k0, c});
      Value v = memref::LoadOp::create(rewriter, loc, aBlock, {r, kk});
      memref::StoreOp::create(rewriter, loc, v, aShared, {c, r});
    });
    copy(kStageK, bn, [&](Value r, Value c) {
      Value kk = affine::AffineApplyOp::create(
          rewriter, loc, AffineMap::get(2, 0, d0 + d1), ValueRange{k0, r});
      Value v = memref::LoadOp::create(rewriter, loc, bBlock, {kk, c});
      memref::StoreOp::create(rewriter, loc, v, bShared, {r, c});
    });
    gpu::BarrierOp::create(rewriter, loc);
    auto one = rewriter.getIndexAttr(1);
    Value aStep = memref::SubViewOp::create(
        rewriter, loc, aShared,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), aOffsets[0]},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(kStageK),
                               rewriter.getIndexAttr(tm)},
        ArrayRef<OpFoldResult>{one, one});
    Value bStep = memref::SubViewOp::create(
        rewriter, loc, bShared,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), bOffsets[1]},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(kStageK),
                               rewriter.getIndexAttr(tn)},
        ArrayRef<OpFoldResult>{one, one});
    auto staged = linalg::GenericOp::create(
        rewriter, loc, TypeRange{}, ValueRange{aStep, bStep},
        ValueRange{op.getDpsInits()[0]},
        ArrayRef<AffineMap>{AffineMap::get(3, 0, {k, m}, ctx), maps[1],
                            maps[2]},
        op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), staged.getRegion(),
                                staged.getRegion().begin());
    rewriter.eraseOp(op);
  }

  static void eraseDeallocs(RewriterBase &rewriter, memref::AllocOp alloc) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
  }

  /// The merge `out = combine(out, partial[0..T))` of a block reduction,
  /// executed by every thread of the block: thread t contributes partial[t]
  /// (the neutral element beyond T) to a gpu.all_reduce, and every thread
  /// stores the same combined value.
  LogicalResult allReduce(RewriterBase &rewriter, linalg::LinalgOp merge,
                          gpu::LaunchOp launch, ArrayRef<int64_t> blockDims) {
    std::optional<std::pair<gpu::AllReduceOperation, TypedAttr>> kind =
        allReduceKind(merge);
    int64_t partials =
        cast<IntegerAttr>(merge->getAttr(kBlockReduceMarker)).getInt();
    merge->removeAttr(kBlockReduceMarker);
    if (!kind || merge.getNumDpsInputs() != 1 || merge.getNumDpsInits() != 1 ||
        blockDims[1] != 1 || blockDims[2] != 1)
      return success(); // left as a loop over the partials in every thread
    Value partial = merge.getDpsInputOperand(0)->get();
    Value out = merge.getDpsInitOperand(0)->get();
    auto partialType = cast<MemRefType>(partial.getType());
    auto outType = cast<MemRefType>(out.getType());
    if (partialType.getNumElements() != partials ||
        outType.getNumElements() != 1)
      return success();
    Location loc = merge.getLoc();
    rewriter.setInsertionPoint(merge);
    Value tid = launch.getThreadIds().x;
    Value count = arith::ConstantIndexOp::create(rewriter, loc, partials);
    Value last = arith::ConstantIndexOp::create(rewriter, loc, partials - 1);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value inRange = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, tid, count);
    Value at = arith::MinUIOp::create(rewriter, loc, tid, last);
    SmallVector<Value> partialIndex(partialType.getRank(), zero);
    partialIndex.back() = at;
    Value mine = memref::LoadOp::create(rewriter, loc, partial, partialIndex);
    Value neutral = arith::ConstantOp::create(rewriter, loc, kind->second);
    Value value =
        arith::SelectOp::create(rewriter, loc, inRange, mine, neutral);
    Value all = gpu::AllReduceOp::create(
        rewriter, loc, value,
        gpu::AllReduceOperationAttr::get(rewriter.getContext(), kind->first),
        /*uniform=*/rewriter.getUnitAttr());
    // Thread 0 combines the block's value into the output with the merge's
    // own combiner; the barrier publishes it to the others.
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, zero);
    auto ifOp = scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> outIndex(outType.getRank(), zero);
      Value old = memref::LoadOp::create(rewriter, loc, out, outIndex);
      Block *combinerBody = merge.getBlock();
      IRMapping map;
      map.map(combinerBody->getArgument(0), all);
      map.map(combinerBody->getArgument(1), old);
      Operation *combined = rewriter.clone(combinerBody->front(), map);
      memref::StoreOp::create(rewriter, loc, combined->getResult(0), out,
                              outIndex);
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(merge);
    return success();
  }
};

} // namespace
