//===- TTGnuOpenMP.h - Compiled code's parallel loops on GNU OpenMP ------===//
//
// Compiled code calls LLVM's OpenMP runtime (libomp: `__kmpc_fork_call`,
// `__kmpc_for_static_init_8u`, ...). In a process where PyTorch has loaded
// GNU OpenMP (libgomp), the two runtimes keep separate thread pools, and
// each pool's idle threads spin for a while after its parallel regions:
// torch's workers spinning after every eager op took a core from our
// parallel loops in a training step (a small GPT's compiled forward 9.4 ms
// with both runtimes, 6.1 ms with torch's spinning off, 2 cores). These
// functions implement the entry points compiled code uses on top of
// libgomp's own (`GOMP_parallel`, `GOMP_barrier`), so that compiled code
// and torch share one pool; `Library` resolves the `__kmpc_*` symbols to
// them when it is given the loaded libgomp.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_PYTHON_TTGNUOPENMP_H
#define TINYTENSOR_PYTHON_TTGNUOPENMP_H

#include <string>
#include <utility>
#include <vector>

namespace tt::python {

/// Binds the shim to the libgomp at `path` (already loaded in the process,
/// e.g. PyTorch's): an error message, or "" when it is bound.
std::string bindGnuOpenMP(const std::string &path);

/// The `__kmpc_*` entry points of compiled code and their shim
/// implementations (valid once bindGnuOpenMP succeeded).
std::vector<std::pair<const char *, void *>> gnuOpenMPSymbols();

/// Threads of the parallel loops the calling thread runs next (0: the
/// process default set by setGnuOpenMPDefaultThreads).
void setGnuOpenMPThreads(int threads);
void setGnuOpenMPDefaultThreads(int threads);

} // namespace tt::python

#endif // TINYTENSOR_PYTHON_TTGNUOPENMP_H
