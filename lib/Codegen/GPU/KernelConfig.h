//===- KernelConfig.h - GPU code generation strategy ------------*- C++ -*-===//
//
// The one place that decides how a linalg op is laid out on an NVIDIA GPU:
// its blocks, how its loops are spread over the threads of a block, and
// whether a block reduces a row together.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_LIB_CODEGEN_GPU_KERNELCONFIG_H
#define TINYTENSOR_LIB_CODEGEN_GPU_KERNELCONFIG_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir {
namespace tt {

/// What the strategy knows about the GPU and the options it was given.
struct GPUTarget {
  /// Threads per block (a multiple of the warp size).
  int64_t threadsPerBlock = 256;
  /// Rows at least this long are reduced by a whole block.
  int64_t minBlockReduction = 64;
  /// The longest row a block keeps in workgroup memory while it normalises
  /// it (a softmax's or layer norm's intermediate row): 8192 f32 are 32 KiB
  /// of the 48 KiB a block may have without opting in to more.
  int64_t maxRowElements = 8192;
  bool blockReduction = true;
};

enum class GPUKernelKind {
  /// No reduction loop: one element per thread.
  Elementwise,
  /// One row per block, reduced by all its threads.
  BlockReduction,
  /// One output element per thread, reduced sequentially.
  ThreadReduction,
  /// Output blocks of `matmulBlock`, `matmulThread` outputs per thread.
  Matmul,
};

struct GPUKernelConfig {
  GPUKernelKind kind;
  /// The tile of each loop that one block computes (0: all of the loop).
  SmallVector<int64_t> blockTiles;
};

/// Outputs per block and per thread of a matmul along (m, n).
constexpr int64_t kMatmulBlock = 64;
constexpr int64_t kMatmulThread = 4;

/// The configuration of `op` as a root (the op whose blocks its producers
/// fuse into), or nothing for ops left to a single thread (dynamic shapes,
/// rank 0).
std::optional<GPUKernelConfig> getGPUKernelConfig(linalg::LinalgOp op,
                                                  const GPUTarget &target);

/// The number of threads along each loop of a tile of `sizes` (0: the loop
/// is walked by every thread), at most `threads` in all: the innermost
/// `distributable` loops get threads first, consecutive threads on
/// consecutive iterations, so that neighbouring threads touch neighbouring
/// elements. At most three loops get threads (the x, y, z of a block).
SmallVector<int64_t> distributeThreads(ArrayRef<int64_t> sizes,
                                       ArrayRef<bool> distributable,
                                       int64_t threads);

/// True if `op` is reduced by a whole block on `target`: one reduction loop,
/// the innermost, at least `minBlockReduction` long, and every parallel loop
/// of `sizes` (the op's tile in its block) of size 1.
bool isBlockReduction(linalg::LinalgOp op, ArrayRef<int64_t> sizes,
                      const GPUTarget &target);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_LIB_CODEGEN_GPU_KERNELCONFIG_H
