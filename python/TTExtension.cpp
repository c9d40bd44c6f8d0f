//===- TTExtension.cpp - nanobind module for the tt dialect ---------------===//
//
// `mlir._mlir_libs._ttDialects`: registers the tt dialect with a context and
// TinyTensor's passes and pipelines with the global registry.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor-c/Dialects.h"

#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

namespace nb = nanobind;

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
}
