//===- TTJit.h - Object code from the LLVM dialect, and loading it --------===//

#ifndef TINYTENSOR_PYTHON_TTJIT_H
#define TINYTENSOR_PYTHON_TTJIT_H

#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tt::python {

/// A relocatable object for the host CPU from a module in the LLVM dialect,
/// optimised at `optLevel` (0-3). Runs without the GIL.
nanobind::bytes compileObject(MlirModule module, int optLevel);

/// The host CPU's name and enabled features, e.g. "znver4 +avx2 +avx512f".
std::string hostCPU();

/// An object loaded into the process with ORC, its undefined symbols
/// resolved in `sharedLibs` and the process. Code stays valid while the
/// Library lives.
class Library {
public:
  Library(nanobind::bytes object, const std::vector<std::string> &sharedLibs);
  ~Library();
  uintptr_t lookup(const std::string &name);

private:
  struct State;
  std::unique_ptr<State> state;
};

} // namespace tt::python

#endif // TINYTENSOR_PYTHON_TTJIT_H
