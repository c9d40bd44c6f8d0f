//===- TileAndFuseUtils.h - Tiling and fusion shared by the back ends -*- C++
//-*-===//
//
// What the CPU and GPU strategies both need: recognising matmuls, choosing
// the producers that fuse into a root's tiles, and tiling with fusion.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_LIB_CODEGEN_COMMON_TILEANDFUSEUTILS_H
#define TINYTENSOR_LIB_CODEGEN_COMMON_TILEANDFUSEUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace tt {

/// The loop positions (batch..., m, n, k) of a matmul-shaped op, if `op` is
/// one: two inputs and one init, exactly one reduction loop (the last), an
/// output indexed by every parallel loop in order, A read as [.., m, k] and
/// B as [.., k, n] (row-major, so a row of B is contiguous) or, with
/// `transposedB`, as [.., n, k].
struct MatmulDims {
  SmallVector<unsigned> batch;
  unsigned m, n, k;
  bool transposedB = false;
};
std::optional<MatmulDims> getMatmulDims(linalg::LinalgOp op);

/// The largest value the index `v` can take, if it has a constant bound
/// (the size of an edge block: `affine.min(256, %n - %i)` is at most 256).
std::optional<int64_t> constantUpperBound(Value v);

/// True if `value` is computed from `iv` inside `scope`.
bool dependsOn(Value value, Value iv, Operation *scope);

/// The ops that may be fused into the blocks of `root`: the linalg
/// producers (transitively) all of whose users are in the set, found as a
/// fixpoint so that the order of operands does not matter (a layer norm's
/// mean feeds both the variance and the normalisation; the difference
/// x - mean feeds both the variance and the output). Matmuls are never
/// pulled into another op's blocks, except `epilogueOf`, the matmul whose
/// blocks the root (its epilogue) has taken: anywhere else a matmul would
/// lose its own blocking and read its weights once per block.
llvm::SmallPtrSet<Operation *, 16> fusionCluster(linalg::LinalgOp root,
                                                 Operation *epilogueOf);

/// A producer of the `cluster` is fused into the block loop only if every
/// block needs its own slice of it: the slice moves with every loop that has
/// more than one iteration. Otherwise each block would recompute the same
/// values, as a layer norm fused into a matmul's operand would be for every
/// column block.
std::optional<scf::SCFTileAndFuseOptions::ControlFnResult>
shouldFuse(tensor::ExtractSliceOp slice, OpResult producer,
           const llvm::SmallPtrSetImpl<Operation *> &cluster);

SmallVector<OpFoldResult> asIndexAttrs(OpBuilder &b, ArrayRef<int64_t> v);

/// Replaces `op` by the results of its tile-and-fuse `result` and erases
/// it and the fused producers (all of whose users were in the fusion
/// set), which are left with only the slices fusion read them through,
/// dead now. The erased ops are added to `erased`.
void replaceFused(RewriterBase &rewriter, Operation *op,
                  const scf::SCFTileAndFuseResult &result,
                  llvm::SmallPtrSetImpl<Operation *> &erased);

/// Tiles `op` with scf.for loops by `sizes` (0: not tiled) and fuses
/// into them the producers in `fusable`.
FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseSet(RewriterBase &rewriter, linalg::LinalgOp op,
               ArrayRef<int64_t> sizes,
               const llvm::SmallPtrSetImpl<Operation *> &fusable);

/// Splits `op` along `loop` at the largest multiple of `tile` below its
/// static size, if `tile` does not divide it: the full tiles and the rest
/// are appended to `parts` (nothing is appended when it divides). Fails if
/// the op cannot be split.
LogicalResult splitAtMultiple(RewriterBase &rewriter, linalg::LinalgOp op,
                              unsigned loop, int64_t tile,
                              SmallVectorImpl<linalg::LinalgOp> &parts);

/// The elementwise linalg producers of `op` (transitively, in its block)
/// that nothing else uses: computed in a reduction's body, they need no
/// buffer of their own.
llvm::SmallPtrSet<Operation *, 4> singleUseProducers(linalg::LinalgOp op);

/// A reduction that is one tile (a row of a row-by-row layer norm) makes
/// no loop to fuse into: its elementwise `producers` are merged into its
/// body instead (`linalg::fuseElementwiseOps`), and added to `fused`. The
/// op that replaces `op` is returned in `result` if given.
LogicalResult
fuseIntoReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                  const llvm::SmallPtrSetImpl<Operation *> &producers,
                  llvm::SmallPtrSetImpl<Operation *> &fused,
                  Operation **result = nullptr);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_LIB_CODEGEN_COMMON_TILEANDFUSEUTILS_H
