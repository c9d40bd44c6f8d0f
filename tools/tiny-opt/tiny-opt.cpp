//===- tiny-opt.cpp - TinyTensor optimizer driver -------------------------===//
//
// mlir-opt with every upstream dialect, pass and extension plus TinyTensor's
// dialect, passes and named pipelines.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/InitAll.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tt::registerTinyTensorPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::tt::registerTinyTensorDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TinyTensor optimizer driver\n", registry));
}
