//===- LinalgUtils.h - Helpers shared by tt's linalg passes -----*- C++ -*-===//

#ifndef TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H
#define TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
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

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H
