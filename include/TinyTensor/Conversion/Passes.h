//===- Passes.h - TinyTensor conversion passes ------------------*- C++ -*-===//

#ifndef TINYTENSOR_CONVERSION_PASSES_H
#define TINYTENSOR_CONVERSION_PASSES_H

#include "TinyTensor/Conversion/TTToLinalg/TTToLinalg.h"

namespace mlir {
namespace tt {

#define GEN_PASS_REGISTRATION
#include "TinyTensor/Conversion/Passes.h.inc"

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_CONVERSION_PASSES_H
