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

/// Relocatable objects for the host CPU from a module in the LLVM dialect,
/// optimised at `optLevel` (0-3); parts of the module are optimised and
/// compiled on `threads` threads. Runs without the GIL.
std::vector<nanobind::bytes> compileObjects(MlirModule module, int optLevel,
                                            unsigned threads);

/// The host CPU's name and enabled features, e.g. "znver4 +avx2 +avx512f".
std::string hostCPU();

/// An object loaded into the process with ORC, its undefined symbols
/// resolved in `sharedLibs` and the process. Code stays valid while the
/// Library lives. With `gnuOpenMP` (the path of a loaded libgomp), its
/// parallel loops run on that runtime's threads (TTGnuOpenMP.h) instead of
/// libomp's.
class Library {
public:
  Library(const std::vector<nanobind::bytes> &objects,
          const std::vector<std::string> &sharedLibs,
          const std::string &gnuOpenMP = "");
  ~Library();
  uintptr_t lookup(const std::string &name);

private:
  struct State;
  std::unique_ptr<State> state;
};

} // namespace tt::python

#endif // TINYTENSOR_PYTHON_TTJIT_H
