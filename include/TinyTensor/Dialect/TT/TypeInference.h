//===- TypeInference.h - Shape rules of the tt dialect ----------*- C++ -*-===//
//
// The shape rules of the tt dialect in one place: NumPy broadcasting,
// reductions, matmul and the shape ops. The ops' inferReturnTypes (and so
// every builder that infers its result type, Python's included) use them.
//
// Each function takes an optional location; when it is set, a failure emits
// a diagnostic there that says exactly what is wrong.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_DIALECT_TT_TYPEINFERENCE_H
#define TINYTENSOR_DIALECT_TT_TYPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir {
namespace tt {

using Shape = llvm::SmallVector<int64_t>;

/// True if the types are tensors with the same element type whose shapes
/// agree wherever both are known.
bool areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs);

/// Broadcasts the shapes of `operands` together (NumPy rules). Returns
/// std::nullopt-shape (unranked) when any operand is unranked.
FailureOr<std::optional<Shape>> inferBroadcastShape(std::optional<Location> loc,
                                                    TypeRange operands);

/// Result type of an elementwise op on `operands` with result element type
/// `elementType` (the common operand element type when null). Checks that the
/// operands' element types agree.
FailureOr<Type> inferElementwiseType(std::optional<Location> loc,
                                     TypeRange operands,
                                     Type elementType = nullptr);

/// Checks a reduction axis list against `rank` (distinct, in [0, rank)).
LogicalResult verifyAxes(std::optional<Location> loc, ArrayRef<int64_t> axes,
                         int64_t rank);

/// Result type of reducing `input` over `axes`.
FailureOr<Type> inferReductionType(std::optional<Location> loc, Type input,
                                   ArrayRef<int64_t> axes, bool keepDims);

/// Result type of np.matmul(lhs, rhs).
FailureOr<Type> inferMatmulType(std::optional<Location> loc, Type lhs,
                                Type rhs);

/// Result type of np.transpose(input, permutation).
FailureOr<Type> inferTransposeType(std::optional<Location> loc, Type input,
                                   ArrayRef<int64_t> permutation);

/// Result type of reshaping `input` to `shape`.
FailureOr<Type> inferReshapeType(std::optional<Location> loc, Type input,
                                 ArrayRef<int64_t> shape);

/// Result type of np.broadcast_to(input, shape).
FailureOr<Type> inferBroadcastToType(std::optional<Location> loc, Type input,
                                     ArrayRef<int64_t> shape);

/// Result type of a strided slice.
FailureOr<Type> inferSliceType(std::optional<Location> loc, Type input,
                               ArrayRef<int64_t> starts,
                               ArrayRef<int64_t> sizes,
                               ArrayRef<int64_t> strides);

/// Result type of concatenating `inputs` along `axis`.
FailureOr<Type> inferConcatType(std::optional<Location> loc, TypeRange inputs,
                                int64_t axis);

/// Result type of table[indices].
/// tt.windows: the windowed axes replaced by window counts and kernel
/// sizes; errors for axes out of range, sizes that differ in length,
/// non-positive kernel/stride/dilation and windows larger than the axis.
FailureOr<Type> inferWindowsType(std::optional<Location> loc, Type input,
                                 int64_t axis, ArrayRef<int64_t> kernel,
                                 ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> dilations);

/// tt.conv: `[N, F, O1..Od]`; errors for ranks below 3 or that differ,
/// attribute lists not of length d, non-positive strides, dilations or
/// groups, negative padding, channels that groups do not divide, element
/// types that differ, dynamic sizes other than the batch and kernels larger
/// than the padded input.
FailureOr<Type> inferConvType(std::optional<Location> loc, Type input,
                              Type weight, ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations,
                              ArrayRef<int64_t> padLow,
                              ArrayRef<int64_t> padHigh, int64_t groups,
                              bool channelsLast = false);

/// tt.iota: `[like.dim(dim)]` of i32 (dynamic where that size is).
FailureOr<Type> inferIotaType(std::optional<Location> loc, Type like,
                              int64_t dim);

FailureOr<Type> inferGatherType(std::optional<Location> loc, Type table,
                                Type indices);

/// tt.scatter: the table's type; indices 1-D, updates [len(indices),
/// table.shape[1:]...] of the table's element type; `set` or a combining
/// mode on numbers (not booleans, except `set`).
FailureOr<Type> inferScatterType(std::optional<Location> loc, Type table,
                                 Type indices, Type updates, bool combining);

/// Helpers for inferReturnTypes implementations: run a rule and append its
/// result type to `results`.
LogicalResult pushInferred(FailureOr<Type> type,
                           SmallVectorImpl<Type> &results);
LogicalResult inferElementwiseResults(std::optional<Location> loc,
                                      TypeRange operands,
                                      SmallVectorImpl<Type> &results,
                                      Type elementType = nullptr);
LogicalResult inferReductionResults(std::optional<Location> loc, Type input,
                                    ArrayRef<int64_t> axes, bool keepDims,
                                    SmallVectorImpl<Type> &results);

/// Builds a tensor type: ranked with `shape`, or unranked if it is absent.
TensorType makeTensorType(std::optional<Shape> shape, Type elementType);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_DIALECT_TT_TYPEINFERENCE_H
