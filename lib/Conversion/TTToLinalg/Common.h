//===- Common.h - Helpers shared by the tt-to-linalg patterns ---*- C++ -*-===//
//
// The pieces that tt-to-linalg's op families share: sizes, empty and
// filled tensors, the broadcasting elementwise generic, reshapes, the base
// of the patterns (RankedLowering) and one populate function per family,
// each defined in the file of that name:
//
//   Elementwise.cpp   arithmetic, math, comparisons, select, cast,
//                     broadcast_to and constants
//   Reductions.cpp    sum, mean, var, reduce_max/min, prod, argmax/argmin,
//                     cumsum and sort
//   Matmul.cpp        matmul
//   DataMovement.cpp  transpose, reshape, slice, concat, windows, iota,
//                     gather and scatter
//   Convolution.cpp   conv (its form is public: Convolution.h)
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_LIB_CONVERSION_TTTOLINALG_COMMON_H
#define TINYTENSOR_LIB_CONVERSION_TTTOLINALG_COMMON_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tt {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

using ScalarFn =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Type)>;

/// The op's ranked result type, or a match failure explaining why not.
/// Dimensions may be dynamic: the ops whose lowering needs static sizes
/// only accept static types (their ODS constraints).
FailureOr<RankedTensorType> rankedResultType(Operation *op,
                                             PatternRewriter &rewriter);

/// The size of dimension `d` of `value`: a constant where static, a
/// tensor.dim where dynamic.
OpFoldResult dimSize(OpBuilder &b, Location loc, Value value, int64_t d);

/// The run-time sizes of the dynamic dimensions of `type`, in order, each
/// the size `source` gives for that dimension.
SmallVector<Value>
dynamicSizes(OpBuilder &b, Location loc, RankedTensorType type,
             llvm::function_ref<OpFoldResult(int64_t)> source);

/// An empty tensor of `type`; `sizes` holds one index per dynamic
/// dimension.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange sizes = {});

/// A tensor of `type` filled with the scalar `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value, ValueRange sizes = {});

/// Checks at run time that two sizes agree, where one of them is dynamic.
void assertSameSize(OpBuilder &b, Location loc, OpFoldResult lhs,
                    OpFoldResult rhs, const Twine &message);

/// Builds a parallel linalg.generic producing `resultType` from `inputs`
/// broadcast to its shape; `fn` computes one result element. `opName`
/// names the op in the run-time check of dynamic sizes.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn fn,
                       StringRef opName = "broadcast");

/// Reshapes a tensor to `target` (same number of elements) through
/// collapse_shape / expand_shape.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType target);

inline bool isFloat(Type t) { return isa<FloatType>(t); }

/// Float op or signed-integer op depending on the element type.
template <typename FloatOp, typename IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0].getType()))
    return FloatOp::create(b, loc, args);
  return IntOp::create(b, loc, args);
}

/// Base of the tt -> linalg patterns: checks that the op's types are
/// ranked and replaces it with the value `lower` builds.
template <typename OpTy>
struct RankedLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    FailureOr<RankedTensorType> type = rankedResultType(op, rewriter);
    if (failed(type))
      return failure();
    Value result = lower(op, adaptor, rewriter, *type);
    // A dimension may be static in the lowered value and dynamic in the
    // op's type, or the reverse (types are compatible where one is `?`).
    if (result.getType() != *type)
      result = tensor::CastOp::create(rewriter, op.getLoc(), *type, result);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Builds the replacement of `op`, whose result type is `type`.
  virtual Value lower(OpTy op, OpAdaptor adaptor, OpBuilder &b,
                      RankedTensorType type) const = 0;
};

//===----------------------------------------------------------------------===//
// The patterns of each op family
//===----------------------------------------------------------------------===//

/// Adds the patterns that convert the elementwise ops (arithmetic, math,
/// bitwise ops and shifts, tt.cmp, tt.select, tt.cast, tt.broadcast_to)
/// and tt.constant.
void populateElementwiseLoweringPatterns(RewritePatternSet &patterns);

/// Adds the patterns that convert the reductions (tt.sum, tt.mean, tt.var,
/// tt.reduce_max, tt.reduce_min, tt.prod, tt.argmax, tt.argmin), tt.cumsum
/// and tt.sort.
void populateReductionLoweringPatterns(RewritePatternSet &patterns);

/// Adds the pattern that converts tt.matmul.
void populateMatmulLoweringPatterns(RewritePatternSet &patterns);

/// Adds the patterns that convert the ops that move data or change shapes
/// (tt.transpose, tt.reshape, tt.slice, tt.concat, tt.windows, tt.iota,
/// tt.gather, tt.scatter).
void populateDataMovementLoweringPatterns(RewritePatternSet &patterns);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_LIB_CONVERSION_TTTOLINALG_COMMON_H
