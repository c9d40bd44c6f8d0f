//===- Prepack.h - Matmul weights packed once, whole ------------*- C++ -*-===//
//
// A matmul whose B is a constant argument of the function (`tt.constant`:
// weights that `tinytensor.jit(freeze=True)` promises do not change between
// calls) reads B from a copy of all of B packed into strips, made once per
// call of the function (and once per process after
// --tt-cpu-prepare-constants), instead of packing each [kc x nc] panel in
// the loops. --tt-cpu-prepack-constants makes the packed copies and passes
// them to the functions that use them; --tt-cpu-tile-and-fuse reads them.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_LIB_CODEGEN_CPU_PREPACK_H
#define TINYTENSOR_LIB_CODEGEN_CPU_PREPACK_H

#include "KernelConfig.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace tt {

/// Marks an argument of a function as constant across calls (unit
/// attribute): what is computed from constant arguments alone can be
/// computed once.
constexpr llvm::StringLiteral kConstantArgAttr = "tt.constant";

/// On an argument added by --tt-cpu-prepack-constants, or a call it made:
/// the value is argument `arg` of the function, packed whole (`width`,
/// `transposed` as in WholePackLayout, and `convert_to`, the element type,
/// when the copy is converted). A dictionary attribute.
constexpr llvm::StringLiteral kPackedArgAttr = "tt.packed";

/// On a function whose constant computations --tt-cpu-prepare-constants
/// moved out: the symbol of the function that computes them.
constexpr llvm::StringLiteral kPrepareAttr = "tt.prepare";

/// How a rank-2 B is packed whole: into strips of `width` columns,
/// [ceil(n / width)][k][width], the last strip padded with zeros. With
/// `transposed` B is [n, k] (`x @ w.T`) and each strip is transposed while
/// it is copied.
struct WholePackLayout {
  int64_t width;
  bool transposed;
  /// The element type of the packed copy: B's own, or the wider type the
  /// matmul converts B's elements to (f32 weights of a float64 model).
  Type element;
  bool operator==(const WholePackLayout &other) const {
    return width == other.width && transposed == other.transposed &&
           element == other.element;
  }
};

/// The layout `op` would read a whole packed B in: when `op` is a matmul
/// whose configuration packs B's panels, B is a statically shaped rank-2
/// tensor that the op reads as it is or converts with a single arith.extf
/// (then the copy is packed converted), and every column block starts on a
/// strip.
std::optional<WholePackLayout> wholePackLayout(linalg::LinalgOp op,
                                               const CPUTarget &target,
                                               const StrategyOptions &options);

/// The type of a rank-2 `type` packed whole in `layout`.
RankedTensorType wholePackType(RankedTensorType type, WholePackLayout layout);

/// Builds `b` packed whole in `layout` into `init` (a new tensor if null):
/// zero padding to whole strips (when the strips do not divide the
/// columns), a reshape into strips, one transpose, and for a converting
/// layout the conversion. Returns the packed value.
Value buildWholePack(OpBuilder &builder, Location loc, Value b,
                     WholePackLayout layout, Value init = nullptr);

/// The dictionary of kPackedArgAttr.
DictionaryAttr packedArgAttr(MLIRContext *ctx, unsigned arg,
                             WholePackLayout layout, Type source);

/// Marks the private functions --tt-cpu-prepack-constants makes to pack a
/// B whole (`tt_pack_<k>x<n>x<type>_<width>[_t]`, B and the destination
/// in, the destination packed out): they only compute.
constexpr llvm::StringLiteral kWholePackFnAttr = "tt.whole_pack";

/// Argument `arg` of `func` packed whole in `layout`: an argument of
/// `func` or the result of a call at its top level marked kPackedArgAttr
/// for it. Null if there is none.
Value findWholePack(func::FuncOp func, unsigned arg, WholePackLayout layout);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_LIB_CODEGEN_CPU_PREPACK_H
