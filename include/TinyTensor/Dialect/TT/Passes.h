//===- Passes.h - tt dialect passes -----------------------------*- C++ -*-===//

#ifndef TINYTENSOR_DIALECT_TT_PASSES_H
#define TINYTENSOR_DIALECT_TT_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tt {

#define GEN_PASS_DECL
#include "TinyTensor/Dialect/TT/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TinyTensor/Dialect/TT/Passes.h.inc"

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_DIALECT_TT_PASSES_H
