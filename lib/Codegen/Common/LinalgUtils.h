//===- LinalgUtils.h - Helpers shared by tt's linalg passes -----*- C++ -*-===//

#ifndef TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H
#define TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mlir {
namespace tt {

/// `op` as a linalg.generic: itself, or its generalisation (built at the
/// rewriter's insertion point, replacing `op`) for named ops.
inline FailureOr<linalg::GenericOp> asGenericOp(RewriterBase &rewriter,
                                                linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  return linalg::generalizeNamedOp(rewriter, op);
}

/// Adds `flags` to the fast-math flags of every floating-point arith op in
/// `op`'s body (e.g. `contract` so that LLVM fuses multiply-adds, or
/// `reassoc` so that it may vectorise a sum).
inline void addFastMathFlags(Operation *op, arith::FastMathFlags flags) {
  op->walk([&](arith::ArithFastMathInterface arith) {
    arith::FastMathFlagsAttr old = arith.getFastMathFlagsAttr();
    arith->setAttr(
        arith.getFastMathAttrName(),
        arith::FastMathFlagsAttr::get(
            op->getContext(),
            (old ? old.getValue() : arith::FastMathFlags::none) | flags));
  });
}

/// The buffer of the ranked tensor `tensor` (an argument of the function:
/// its address or its lines), read only, with whatever strides and offset
/// bufferization gives it.
inline Value readOnlyBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                       strides);
  auto bufferType =
      MemRefType::get(type.getShape(), type.getElementType(), layout);
  return bufferization::ToBufferOp::create(b, loc, bufferType, tensor,
                                           /*read_only=*/true);
}

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H
