//===- TTRunner.h - Calling compiled functions with NumPy arrays ----------===//
//
// `tt.Runner` calls one compiled function with arrays; `tt.Dispatcher` is a
// jit function's cached-call path in C++: it picks the specialisation whose
// input types the arrays have, allocates the outputs and runs it, so that a
// cached call costs about what two NumPy operations do.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_PYTHON_TTRUNNER_H
#define TINYTENSOR_PYTHON_TTRUNNER_H

#include "mlir/Bindings/Python/Nanobind.h"

namespace tt::python {

/// Adds Runner, Dispatcher and the trace counter (`trace_entered`,
/// `trace_exited`) to the module.
void bindRunner(nanobind::module_ &tt);

} // namespace tt::python

#endif // TINYTENSOR_PYTHON_TTRUNNER_H
