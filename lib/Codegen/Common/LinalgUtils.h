//===- LinalgUtils.h - Helpers shared by tt's linalg passes -----*- C++ -*-===//

#ifndef TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H
#define TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H

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

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_LIB_DIALECT_TT_TRANSFORMS_LINALGUTILS_H
