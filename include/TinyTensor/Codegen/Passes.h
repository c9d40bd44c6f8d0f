//===- Passes.h - TinyTensor code generation passes -------------*- C++ -*-===//

#ifndef TINYTENSOR_CODEGEN_PASSES_H
#define TINYTENSOR_CODEGEN_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tt {

/// An entry function's argument attribute: `tt.updated_by = j` says that
/// the caller passes the argument's buffer as result #j's too, which is
/// then written into it (tt-results-in-arguments).
constexpr llvm::StringLiteral kUpdatedByAttr = "tt.updated_by";

#define GEN_PASS_DECL
#include "TinyTensor/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TinyTensor/Codegen/Passes.h.inc"

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_CODEGEN_PASSES_H
