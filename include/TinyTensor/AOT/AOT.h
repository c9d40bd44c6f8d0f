//===- AOT.h - Ahead-of-time compilation to shared libraries ----*- C++ -*-===//
//
// A tt (or linalg-on-tensors) module becomes a shared library with one C
// entry point per public function, a C header declaring them and a JSON
// manifest of their argument and result shapes: what a machine without
// LLVM/MLIR needs to run the model (our CUDA runtime and libcuda for CUDA).
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_AOT_AOT_H
#define TINYTENSOR_AOT_AOT_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
namespace tt {

struct AOTOptions {
  /// "cpu" (tt-lower-to-llvm) or "cuda" (tt-lower-to-nvvm).
  std::string target = "cpu";
  /// Options appended to the target's pipeline (e.g. "threads=1" or
  /// "chip=sm_80 features=+ptx70").
  std::string pipelineOptions;
  /// The CPU the host code is for: "host" (this machine's CPU and
  /// features), or an LLVM CPU name such as "x86-64-v3".
  std::string cpu = "host";
  /// Extra LLVM target features ("+avx2,-avx512f") for a named CPU.
  std::string features;
  int optLevel = 3;
  /// The shared library to write; the header and the manifest (if not
  /// empty) are written too.
  std::string output;
  std::string header;
  std::string manifest;
  /// Where libTinyTensorCudaRuntime.so is (copied beside `output` for the
  /// CUDA target; the library finds it through its rpath, $ORIGIN).
  std::string runtimeLibrary;
  /// The C compiler driver that links (default: $CC, clang-22, clang, cc).
  std::string linker;
  /// Keep the object and the generated C entry points beside `output`.
  bool keepIntermediates = false;
};

/// Compiles `module` (consumed: it is lowered in place) as `options` say.
/// Returns false with `error` set on failure.
bool exportSharedLibrary(ModuleOp module, const AOTOptions &options,
                         std::string &error);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_AOT_AOT_H
