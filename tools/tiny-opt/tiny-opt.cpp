//===- tiny-opt.cpp - TinyTensor optimizer driver -------------------------===//
//
// mlir-opt with every upstream dialect, pass and extension plus TinyTensor's
// dialect, passes and named pipelines. Its pass managers carry a
// FailedPassReporter: a pass that fails without saying why is reported as an
// error naming the pass and the op.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/InitAll.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

int main(int argc, char **argv) {
  registerAllPasses();
  tt::registerTinyTensorPasses();

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  tt::registerTinyTensorDialects(registry);

  // MlirOptMain(argc, argv, ...) with one addition to the pass manager.
  auto [inputFile, outputFile] = registerAndParseCLIOptions(
      argc, argv, "TinyTensor optimizer driver\n", registry);
  MlirOptMainConfig fromCommandLine = MlirOptMainConfig::createFromCLOptions();
  MlirOptMainConfig config = fromCommandLine;
  config.setPassPipelineSetupFn([&fromCommandLine](PassManager &pm) {
    pm.addInstrumentation(
        std::make_unique<tt::FailedPassReporter>(pm.getContext()));
    return fromCommandLine.setupPassPipeline(pm);
  });
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFile, outputFile, registry));
  llvm::InitLLVM init(argc, argv); // stack traces on crashes
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  std::unique_ptr<llvm::ToolOutputFile> output;
  if (input)
    output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
