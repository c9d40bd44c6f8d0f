//===- InitAll.h - Register everything TinyTensor provides -----*- C++ -*-===//

#ifndef TINYTENSOR_INITALL_H
#define TINYTENSOR_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir {
namespace tt {

/// Adds the tt dialect (and what it needs) to `registry`.
void registerTinyTensorDialects(DialectRegistry &registry);

/// Registers every TinyTensor pass and named pipeline with the global pass
/// registry, so that tiny-opt, the C API and Python see the same set.
void registerTinyTensorPasses();

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_INITALL_H
