//===- TTDialect.h - TinyTensor dialect -------------------------*- C++ -*-===//

#ifndef TINYTENSOR_DIALECT_TT_TTDIALECT_H
#define TINYTENSOR_DIALECT_TT_TTDIALECT_H

#include "mlir/IR/Dialect.h"

#include "TinyTensor/Dialect/TT/TTOpsDialect.h.inc"

#endif // TINYTENSOR_DIALECT_TT_TTDIALECT_H
