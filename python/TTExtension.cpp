//===- TTExtension.cpp - nanobind module for the tt dialect ---------------===//
//
// `mlir._mlir_libs._ttDialects`: registers the tt dialect with a context and
// TinyTensor's passes and pipelines with the global registry; runs a pass
// pipeline with per-pass timings and collected diagnostics; clones modules.
//
//===----------------------------------------------------------------------===//

#include "TTBufferCache.h"
#include "TTGnuOpenMP.h"
#include "TTJit.h"
#include "TTRunner.h"
#include "TinyTensor-c/Dialects.h"
#include "TinyTensor/AOT/AOT.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace {

/// Sums the time spent in each pass (over all the operations it runs on,
/// from every thread), in the order the passes first ran. Pass managers
/// nested in the pipeline (`func.func(...)`) are adaptors without a
/// command-line argument: their time is their passes' time and is not
/// counted again.
class PassTimes : public mlir::PassInstrumentation {
public:
  using Clock = std::chrono::steady_clock;

  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override {
    std::lock_guard<std::mutex> lock(mutex);
    started[{pass, op}] = Clock::now();
  }
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    record(pass, op);
  }
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    record(pass, op);
  }

  std::vector<std::pair<std::string, double>> times;

private:
  void record(mlir::Pass *pass, mlir::Operation *op) {
    auto end = Clock::now();
    std::lock_guard<std::mutex> lock(mutex);
    auto it = started.find({pass, op});
    if (it == started.end())
      return;
    double seconds = std::chrono::duration<double>(end - it->second).count();
    started.erase(it);
    if (pass->getArgument().empty())
      return; // a nested pass manager
    std::string name = pass->getArgument().str();
    auto slot = index.try_emplace(name, times.size());
    if (slot.second)
      times.emplace_back(name, 0.0);
    times[slot.first->second].second += seconds;
  }

  std::mutex mutex;
  std::map<std::pair<mlir::Pass *, mlir::Operation *>, Clock::time_point>
      started;
  std::map<std::string, size_t> index;
};

/// Runs `pipeline` (the passes of a module pass manager, e.g.
/// "tt-optimize,cse") on `module`, without the GIL.
/// Returns [(pass argument, seconds)]. A pipeline that does not parse is a
/// ValueError; a failing pass a RuntimeError that names the pass and the op
/// it failed on, then carries the diagnostics (tt::FailedPassReporter
/// supplies one if the pass emitted none). The module is verified at the
/// end, and with `verifyEach` after every pass too (verifying
/// MobileNetV3-small's module after each of the lowering's passes was a
/// quarter of its time).
std::vector<std::pair<std::string, double>>
runPipeline(MlirModule module, const std::string &pipeline, bool verifyEach) {
  mlir::ModuleOp op = unwrap(module);
  mlir::MLIRContext *context = op->getContext();
  std::string diagnostics;
  std::mutex diagMutex;
  mlir::LogicalResult result = mlir::failure();
  std::string failedPass;
  {
    // The collector first: the reporter's handler, registered after it,
    // counts each error before passing it on.
    mlir::ScopedDiagnosticHandler handler(context, [&](mlir::Diagnostic &diag) {
      std::lock_guard<std::mutex> lock(diagMutex);
      llvm::raw_string_ostream os(diagnostics);
      os << diag.getLocation() << ": ";
      switch (diag.getSeverity()) {
      case mlir::DiagnosticSeverity::Error:
        os << "error: ";
        break;
      case mlir::DiagnosticSeverity::Warning:
        os << "warning: ";
        break;
      case mlir::DiagnosticSeverity::Note:
        os << "note: ";
        break;
      case mlir::DiagnosticSeverity::Remark:
        os << "remark: ";
        break;
      }
      os << diag << "\n";
      for (mlir::Diagnostic &note : diag.getNotes())
        os << "  " << note.getLocation() << ": note: " << note << "\n";
      return mlir::success();
    });
    mlir::PassManager pm(context, mlir::ModuleOp::getOperationName());
    pm.enableVerifier(verifyEach);
    std::string parseErrors;
    llvm::raw_string_ostream parseStream(parseErrors);
    if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, parseStream)))
      throw nb::value_error(parseErrors.c_str());
    auto times = std::make_unique<PassTimes>();
    PassTimes *timesPtr = times.get();
    pm.addInstrumentation(std::move(times));
    auto reporter = std::make_unique<mlir::tt::FailedPassReporter>(context);
    mlir::tt::FailedPassReporter *reporterPtr = reporter.get();
    pm.addInstrumentation(std::move(reporter));
    {
      nb::gil_scoped_release release;
      result = pm.run(op);
      // Once at the end in any case: the pass manager skips verifying
      // after a pass that changed nothing.
      if (mlir::succeeded(result) && mlir::failed(mlir::verify(op))) {
        result = mlir::failure();
        failedPass = "the pipeline's output did not verify";
        if (!verifyEach)
          failedPass += " (rerun with TT_VERIFY_EACH=1 to find the pass "
                        "that broke it)";
      }
    }
    if (mlir::succeeded(result))
      return timesPtr->times;
    if (failedPass.empty())
      failedPass = reporterPtr->failure();
  }
  if (diagnostics.empty())
    diagnostics = "no diagnostic was emitted\n";
  throw std::runtime_error((failedPass.empty()
                                ? std::string("the pass manager failed")
                                : failedPass + " failed") +
                           ":\n" + diagnostics);
}

} // namespace

NB_MODULE(_ttDialects, m) {
  m.doc() = "TinyTensor's tt dialect, passes and pipelines";
  // Compiled programs may legitimately outlive the interpreter's teardown
  // (held by torch.compile's caches, a global jit): not leaks to report.
  nb::set_leak_warnings(false);

  auto tt = m.def_submodule("tt");
  tt.def(
      "register_dialect",
      [](MlirContext context, bool load) {
        MlirDialectHandle handle = mlirGetDialectHandle__tt__();
        mlirDialectHandleRegisterDialect(handle, context);
        if (load)
          mlirDialectHandleLoadDialect(handle, context);
      },
      nb::arg("context").none() = nb::none(), nb::arg("load") = true,
      "Registers (and by default loads) the tt dialect in `context`.");

  tt.def(
      "register_dialects",
      [](MlirDialectRegistry registry) {
        mlirDialectHandleInsertDialect(mlirGetDialectHandle__tt__(), registry);
        ttRegisterDialectExtensions(registry);
      },
      nb::arg("registry"),
      "Adds the tt dialect to a dialect registry (used by the site "
      "initialiser, so every Context knows tt).");

  tt.def(
      "register_passes", []() { ttRegisterPasses(); },
      "Registers TinyTensor's passes and the tt-optimize / "
      "tt-lower-to-llvm pipelines for PassManager.parse.");

  tt.def("run_pipeline", &runPipeline, nb::arg("module"), nb::arg("pipeline"),
         nb::arg("verify_each") = true,
         "Runs a pass pipeline on `module` in place (the text inside "
         "`builtin.module(...)`), "
         "without holding the GIL; returns [(pass, seconds)] summed per "
         "pass. The module is verified at the end, and after every pass "
         "with `verify_each`. Raises ValueError if the "
         "pipeline does not parse and RuntimeError with the diagnostics if "
         "a pass fails or the result does not verify.");

  tt.def(
      "aot_export",
      [](MlirModule module, const std::string &target,
         const std::string &output, const std::string &header,
         const std::string &manifest, const std::string &pipelineOptions,
         const std::string &cpu, const std::string &features, int optLevel,
         const std::string &runtime) {
        mlir::tt::AOTOptions options;
        options.target = target;
        options.output = output;
        options.header = header;
        options.manifest = manifest;
        options.pipelineOptions = pipelineOptions;
        options.cpu = cpu;
        options.features = features;
        options.optLevel = optLevel;
        options.runtimeLibrary =
            runtime.empty() ? TT_DEFAULT_CUDA_RUNTIME : runtime;
        // The module is lowered in place: work on a copy.
        mlir::OwningOpRef<mlir::ModuleOp> copy = unwrap(module).clone();
        std::string error;
        bool ok;
        {
          nb::gil_scoped_release unlocked;
          ok = mlir::tt::exportSharedLibrary(*copy, options, error);
        }
        if (!ok)
          throw std::runtime_error(error);
      },
      nb::arg("module"), nb::arg("target"), nb::arg("output"),
      nb::arg("header") = "", nb::arg("manifest") = "",
      nb::arg("pipeline_options") = "", nb::arg("cpu") = "host",
      nb::arg("features") = "", nb::arg("opt_level") = 3,
      nb::arg("runtime") = "",
      "Compiles `module` (tt, not modified) into the shared library "
      "`output` with a C entry point per public function (tiny-aot); "
      "RuntimeError with the diagnostics on failure.");
  tt.def(
      "cuda_runtime_library",
      [] { return std::string(TT_DEFAULT_CUDA_RUNTIME); },
      "The path of libTinyTensorCudaRuntime.so in this build.");

  tt::python::bindRunner(tt);

  tt.def("compile_objects", &tt::python::compileObjects, nb::arg("module"),
         nb::arg("opt_level") = 2, nb::arg("threads") = 1,
         "Relocatable objects (a list of bytes) for the host CPU from a "
         "module in the LLVM dialect, with a packed `_mlir_<fn>(void**)` "
         "wrapper for each `_mlir_ciface_<fn>`; machine code for up to "
         "`threads` parts of the module is generated in parallel.");
  tt.def("host_cpu", &tt::python::hostCPU,
         "The host CPU's name and enabled features.");
  nb::class_<tt::python::Library>(tt, "Library",
                                  "An object file loaded with LLVM's ORC JIT.")
      .def(nb::init<const std::vector<nb::bytes> &,
                    const std::vector<std::string> &, const std::string &>(),
           nb::arg("objects"), nb::arg("shared_libs"),
           nb::arg("gnu_openmp") = "")
      .def("lookup", &tt::python::Library::lookup, nb::arg("name"),
           "The address of a symbol of the object.");

  tt.def("set_gnu_openmp_threads", &tt::python::setGnuOpenMPThreads,
         nb::arg("threads"),
         "Threads of the parallel loops that the calling thread runs next "
         "on GNU OpenMP (0: the default).");
  tt.def("set_gnu_openmp_default_threads",
         &tt::python::setGnuOpenMPDefaultThreads, nb::arg("threads"),
         "Threads of parallel loops on GNU OpenMP by default.");
  tt.def(
      "buffer_cache_stats",
      []() {
        tt::python::BufferCacheStats s = tt::python::bufferCacheStats();
        nb::dict d;
        d["cached_bytes"] = s.cachedBytes;
        d["limit_bytes"] = s.limitBytes;
        d["peak_bytes"] = s.peakBytes;
        d["automatic"] = s.automatic;
        d["hits"] = s.hits;
        d["misses"] = s.misses;
        return d;
      },
      "The cache of compiled code's buffers: bytes kept for reuse, their "
      "limit (TT_BUFFER_CACHE_MB, or automatic: the peak in use), the peak "
      "bytes in use, allocations it served and missed.");
  tt.def("release_cached_buffers", &tt::python::releaseCachedBuffers,
         "Returns the buffers kept for reuse to the system.");

  tt.def(
      "clone_module",
      [](MlirModule module) {
        return mlirModuleFromOperation(
            mlirOperationClone(mlirModuleGetOperation(module)));
      },
      nb::arg("module"), "An independent copy of `module`.");
}
