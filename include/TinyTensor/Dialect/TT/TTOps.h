//===- TTOps.h - TinyTensor operations --------------------------*- C++ -*-===//

#ifndef TINYTENSOR_DIALECT_TT_TTOPS_H
#define TINYTENSOR_DIALECT_TT_TTOPS_H

#include "TinyTensor/Dialect/TT/TTDialect.h"
#include "TinyTensor/Dialect/TT/TypeInference.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TinyTensor/Dialect/TT/TTEnums.h.inc"

#define GET_OP_CLASSES
#include "TinyTensor/Dialect/TT/TTOps.h.inc"

#endif // TINYTENSOR_DIALECT_TT_TTOPS_H
