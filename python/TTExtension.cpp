//===- TTExtension.cpp - nanobind module for the tt dialect ---------------===//
//
// `mlir._mlir_libs._ttDialects`: registers the tt dialect with a context and
// TinyTensor's passes and pipelines with the global registry; runs a pass
// pipeline with per-pass timings and collected diagnostics; clones modules.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor-c/Dialects.h"

#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <mutex>
#include <string>
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
/// ValueError; a failing pass a RuntimeError carrying the diagnostics.
std::vector<std::pair<std::string, double>>
runPipeline(MlirModule module, const std::string &pipeline) {
  mlir::ModuleOp op = unwrap(module);
  mlir::MLIRContext *context = op->getContext();
  mlir::PassManager pm(context, mlir::ModuleOp::getOperationName());
  std::string parseErrors;
  llvm::raw_string_ostream parseStream(parseErrors);
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, parseStream)))
    throw nb::value_error(parseErrors.c_str());
  auto times = std::make_unique<PassTimes>();
  PassTimes *timesPtr = times.get();
  pm.addInstrumentation(std::move(times));

  std::string diagnostics;
  std::mutex diagMutex;
  mlir::LogicalResult result = mlir::failure();
  {
    mlir::ScopedDiagnosticHandler handler(
        context, [&](mlir::Diagnostic &diag) {
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
    nb::gil_scoped_release release;
    result = pm.run(op);
  }
  if (mlir::failed(result)) {
    if (diagnostics.empty())
      diagnostics = "a pass failed without a diagnostic";
    throw std::runtime_error(diagnostics);
  }
  return timesPtr->times;
}

} // namespace

NB_MODULE(_ttDialects, m) {
  m.doc() = "TinyTensor's tt dialect, passes and pipelines";

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
      },
      nb::arg("registry"),
      "Adds the tt dialect to a dialect registry (used by the site "
      "initialiser, so every Context knows tt).");

  tt.def(
      "register_passes", []() { ttRegisterPasses(); },
      "Registers TinyTensor's passes and the tt-optimize / "
      "tt-lower-to-llvm pipelines for PassManager.parse.");

  tt.def("run_pipeline", &runPipeline, nb::arg("module"), nb::arg("pipeline"),
         "Runs a pass pipeline on `module` in place (the text inside "
         "`builtin.module(...)`), "
         "without holding the GIL; returns [(pass, seconds)] summed per "
         "pass. Raises ValueError if the pipeline does not parse and "
         "RuntimeError with the diagnostics if a pass fails.");

  tt.def(
      "clone_module",
      [](MlirModule module) {
        return mlirModuleFromOperation(
            mlirOperationClone(mlirModuleGetOperation(module)));
      },
      nb::arg("module"), "An independent copy of `module`.");
}
