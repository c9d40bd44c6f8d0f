//===- Passes.h - tt dialect passes -----------------------------*- C++ -*-===//

#ifndef TINYTENSOR_DIALECT_TT_PASSES_H
#define TINYTENSOR_DIALECT_TT_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
