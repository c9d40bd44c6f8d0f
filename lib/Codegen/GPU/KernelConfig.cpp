//===- KernelConfig.cpp - GPU code generation strategy --------------------===//

#include "KernelConfig.h"
#include "../Common/TileAndFuseUtils.h"

using namespace mlir;
using namespace mlir::tt;

SmallVector<int64_t> tt::distributeThreads(ArrayRef<int64_t> sizes,
                                           ArrayRef<bool> distributable,
                                           int64_t threads) {
  SmallVector<int64_t> counts(sizes.size(), 0);
  int64_t left = threads;
  int dims = 0;
  for (int64_t loop = sizes.size() - 1; loop >= 0 && dims < 3 && left > 1;
       --loop) {
    if (!distributable[loop] || sizes[loop] <= 1 ||
        ShapedType::isDynamic(sizes[loop]))
      continue;
    counts[loop] = std::min(sizes[loop], left);
    left /= counts[loop];
    ++dims;
  }
  return counts;
}

bool tt::isBlockReduction(linalg::LinalgOp op, ArrayRef<int64_t> sizes,
                          const GPUTarget &target) {
  if (!target.blockReduction || op.getNumReductionLoops() != 1 ||
      op.getNumDpsInits() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
      getMatmulDims(op))
    return false;
  int64_t k = sizes.back();
  if (ShapedType::isDynamic(k) || k < target.minBlockReduction)
    return false;
  return llvm::all_of(sizes.drop_back(), [](int64_t s) { return s == 1; });
}

std::optional<GPUKernelConfig> tt::getGPUKernelConfig(linalg::LinalgOp op,
                                                      const GPUTarget &target) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  unsigned n = ranges.size();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();

  GPUKernelConfig config;
  if (std::optional<MatmulDims> dims = getMatmulDims(op)) {
    config.kind = GPUKernelKind::Matmul;
    config.blockTiles.assign(n, 1);
    config.blockTiles[dims->m] = std::min(ranges[dims->m], kMatmulBlock);
    config.blockTiles[dims->n] = std::min(ranges[dims->n], kMatmulBlock);
    config.blockTiles[dims->k] = 0;
  } else if (op.getNumReductionLoops() == 0) {
    config.kind = GPUKernelKind::Elementwise;
    SmallVector<bool> all(n, true);
    SmallVector<int64_t> threads =
        distributeThreads(ranges, all, target.threadsPerBlock);
    config.blockTiles.assign(n, 1);
    for (unsigned loop = 0; loop < n; ++loop)
      if (threads[loop])
        config.blockTiles[loop] = threads[loop];
  } else {
    SmallVector<int64_t> rowTile(n, 1);
    for (unsigned loop = 0; loop < n; ++loop)
      if (iterators[loop] == utils::IteratorType::reduction)
        rowTile[loop] = ranges[loop];
    if (isBlockReduction(op, rowTile, target)) {
      config.kind = GPUKernelKind::BlockReduction;
      config.blockTiles.assign(n, 1);
      config.blockTiles.back() = 0;
    } else {
      config.kind = GPUKernelKind::ThreadReduction;
      SmallVector<bool> parallel =
          llvm::map_to_vector(iterators, [](utils::IteratorType t) {
            return t == utils::IteratorType::parallel;
          });
      SmallVector<int64_t> threads =
          distributeThreads(ranges, parallel, target.threadsPerBlock);
      config.blockTiles.assign(n, 1);
      for (unsigned loop = 0; loop < n; ++loop) {
        if (!parallel[loop])
          config.blockTiles[loop] = 0;
        else if (threads[loop])
          config.blockTiles[loop] = threads[loop];
      }
    }
  }
  // A loop that one block covers is not a loop of blocks; at most three
  // loops of blocks (the grid's x, y, z), the outer ones beyond that are
  // walked inside every block.
  int blockLoops = 0;
  for (int64_t loop = n - 1; loop >= 0; --loop) {
    int64_t &tile = config.blockTiles[loop];
    if (tile == 0 || tile >= ranges[loop]) {
      tile = 0;
      continue;
    }
    if (++blockLoops > 3)
      tile = 0;
  }
  return config;
}
