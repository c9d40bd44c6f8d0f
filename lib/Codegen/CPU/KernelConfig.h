//===- KernelConfig.h - CPU code generation strategy ------------*- C++ -*-===//
//
// The one place that decides how a linalg op becomes CPU code: which loops
// are split across threads and cache blocks, which are tiled for registers,
// and how wide the vectors are. Everything else in lib/Codegen/CPU applies
// these decisions.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_LIB_CODEGEN_CPU_KERNELCONFIG_H
#define TINYTENSOR_LIB_CODEGEN_CPU_KERNELCONFIG_H

#include "../Common/TileAndFuseUtils.h"
#include "TinyTensor/Codegen/CPUTarget.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir {
namespace tt {

/// The kinds of kernel the strategy distinguishes.
enum class KernelKind {
  /// A contraction `C[b.., m, n] += A[b.., m, k] * B[b.., k, n]` (any body
  /// that multiplies and adds, possibly converting its operands): register
  /// blocked outer products.
  Matmul,
  /// A contraction with B transposed, `C[b.., m, n] += A[b.., m, k] *
  /// B[b.., n, k]` (`x @ w.T`) with few rows, or any when packing is off:
  /// the reduction runs along contiguous rows of both operands, so each lane
  /// of a vector accumulates its own partial sum over k (mr x nr vector
  /// accumulators) and the lanes are added once at the end. With more rows
  /// a transposed B is packed back to [k, n] and handled as a Matmul.
  DotProducts,
  /// Any other op with reduction loops (row sums, matvec): split across
  /// threads by its parallel loops, vectorised along the contiguous loop.
  Reduction,
  /// All loops parallel (elementwise ops, fills, broadcasts, transposes).
  Elementwise,
};

/// Tile sizes for each level of the strategy, one entry per loop of the op
/// (0: the loop is not tiled at that level).
struct KernelConfig {
  KernelKind kind = KernelKind::Elementwise;
  /// Level 1, `scf.forall`: blocks that threads run in parallel, sized for
  /// the caches. Empty when the op is too small to be worth splitting.
  SmallVector<int64_t> parallelTiles;
  /// Level 2, nested `scf.for` tilings applied one after the other inside a
  /// block (a matmul's [kc], then [mr, nr], then [kr]). The innermost tile
  /// is what `tt-cpu-vectorize` turns into vector ops.
  SmallVector<SmallVector<int64_t>> loopTiles;
  /// The loop order of the register-tile loops (a permutation of the op's
  /// loops; empty: in order). Matmuls walk column tiles outermost, so that a
  /// panel of B is fetched from memory once and reused, from L1, by every
  /// row tile.
  SmallVector<int64_t> registerOrder;
  /// Matmul only: after loop level `packRhsLevel` (the reduction block),
  /// B's [kc x nc] panel is copied into a buffer of column strips (packed,
  /// `mmt4d`-style: [nc / packColumns][kc][packColumns]); after level
  /// `packLevel` (the row block) the op is tiled into the same strips, so
  /// that a register tile reads a contiguous block of B, the panel stays in
  /// L2 while every row block uses it, and no two rows of the strip compete
  /// for a cache set (rows of B a power of two apart do). -1: no packing.
  int packRhsLevel = -1;
  int packLevel = -1;
  /// The width of B's strips: the register tile's nr.
  int64_t packColumns = 0;
  /// With packLevel: the op reads B transposed ([n, k], from `x @ w.T`), and
  /// the packed panel is B transposed back to [kc x nc], so the register
  /// tiles are those of a plain matmul.
  bool packTransposed = false;
  /// With packRhsLevel and a plain B (not transposed, not converted): the
  /// copy prefetches the rows of B it copies next, when B is a function
  /// argument whose rows are more than 8 KiB apart (--tt-cpu-tile-and-fuse
  /// with `prefetch`). Set for matmuls with few rows, whose time the
  /// packing of B weighs on.
  bool prefetchPackedRows = false;
  /// DotProducts only: after the loop tiles, the reduction loop is split
  /// into chunks of this many elements whose lanes accumulate separately
  /// (partial reduction tiling; one vector register per accumulator).
  int64_t laneReduction = 0;
};

/// The loop sizes of `op`, with dynamic ones replaced by a static upper
/// bound (a block of a loop that its tile does not divide:
/// `affine.min(256, %n - %i)` is at most 256), or nothing when one has none.
std::optional<SmallVector<int64_t>> getLoopUpperBounds(linalg::LinalgOp op);

/// Marks a matmul whose B the register tiles read in place, without
/// packing (set by --tt-cpu-align-columns on matmuls whose strips of B start
/// on cache lines).
constexpr llvm::StringLiteral kReadRhsInPlace = "tt.rhs_in_place";

/// The size a loop with no static bound (a dynamic dimension of the
/// function's arguments, e.g. a batch size) is configured for: its blocks
/// and register tiles are those of a loop this long, and shorter or longer
/// ones run the same code with partial (masked) last blocks.
constexpr int64_t kDynamicSizeEstimate = 256;

/// The loop sizes that configure `op`: the static upper bounds of
/// getLoopUpperBounds, and kDynamicSizeEstimate for a loop that has none.
SmallVector<int64_t> getLoopSizeEstimates(linalg::LinalgOp op);

/// The strategy's switches (each optimisation can be turned off to compare).
struct StrategyOptions {
  /// Matmuls pack B's panels into strips; without it they read B where it
  /// is (transposed ones as dot products).
  bool pack = true;
  /// Reductions over small windows (pooling) of data that an elementwise
  /// producer reads contiguously along a parallel loop (channels last) are
  /// vectorised along that loop; without it, along their innermost loop.
  bool windowVectors = true;
};

/// The configuration of `op` on `target`, or nothing when the op is left to
/// the generic lowering (rank 0, empty loops, unsupported element types).
std::optional<KernelConfig>
getKernelConfig(linalg::LinalgOp op, const CPUTarget &target,
                const StrategyOptions &options = {});

/// The columns of the register tile of `op`, a matmul, when it reads B in
/// place (`tt.rhs_in_place`): the width --tt-cpu-align-columns aligns its
/// strips to. 0 when `op` has no element type the strategy vectorises.
int64_t inPlaceStripColumns(linalg::LinalgOp op, const CPUTarget &target);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_LIB_CODEGEN_CPU_KERNELCONFIG_H
