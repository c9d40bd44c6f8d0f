//===- TTToLinalg.h - tt to linalg conversion -------------------*- C++ -*-===//

#ifndef TINYTENSOR_CONVERSION_TTTOLINALG_TTTOLINALG_H
#define TINYTENSOR_CONVERSION_TTTOLINALG_TTTOLINALG_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tt {

#define GEN_PASS_DECL_CONVERTTTTOLINALG
#include "TinyTensor/Conversion/Passes.h.inc"

/// Adds the patterns that convert tt ops to linalg on tensors.
void populateTTToLinalgPatterns(RewritePatternSet &patterns);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_CONVERSION_TTTOLINALG_TTTOLINALG_H
