//===- tiny-aot.cpp - Compile a tt module into a shared library -----------===//
//
//   tiny-aot model.mlir --target=cuda -o libmodel.so --header model.h
//
// Lowers the module with tt-lower-to-llvm (cpu) or tt-lower-to-nvvm (cuda)
// and links one C entry point per public function into a shared library.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/AOT/AOT.h"
#include "TinyTensor/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;

static cl::opt<std::string> input(cl::Positional, cl::desc("<input .mlir>"),
                                  cl::init("-"));
static cl::opt<std::string> output("o", cl::desc("The shared library to write"),
                                   cl::value_desc("lib.so"), cl::Required);
static cl::opt<std::string> header("header", cl::desc("Also write a C header"),
                                   cl::value_desc("model.h"));
static cl::opt<std::string>
    manifest("manifest",
             cl::desc("Also write a JSON manifest of the functions' arrays"),
             cl::value_desc("model.json"));
static cl::opt<std::string> target("target", cl::desc("cpu (default) or cuda"),
                                   cl::init("cpu"));
static cl::opt<std::string>
    pipelineOptions("pipeline-options",
                    cl::desc("Options of tt-lower-to-llvm / tt-lower-to-nvvm "
                             "(e.g. \"threads=1\", \"chip=sm_80\")"));
static cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU of the host code: host (default) or an LLVM CPU name "
                 "such as x86-64-v3, for machines other than this one"),
        cl::init("host"));
static cl::opt<std::string> features("features",
                                     cl::desc("Extra LLVM CPU features"));
static cl::opt<int> optLevel("O", cl::desc("Optimisation level (0-3)"),
                             cl::init(3), cl::Prefix);
static cl::opt<std::string>
    runtime("runtime", cl::desc("libTinyTensorCudaRuntime.so to ship"),
            cl::init(TT_DEFAULT_CUDA_RUNTIME));
static cl::opt<std::string> linker("cc",
                                   cl::desc("C compiler that links (default "
                                            "$CC, clang-22, clang, cc)"));
static cl::opt<bool> keep("keep", cl::desc("Keep the object file and the "
                                           "generated C entry points"));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::tt::registerTinyTensorPasses();
  cl::ParseCommandLineOptions(
      argc, argv,
      "TinyTensor ahead-of-time compiler: a tt module -> a shared library "
      "with a C entry point per public function\n");

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::tt::registerTinyTensorDialects(registry);
  mlir::MLIRContext context(registry);

  std::string error;
  auto file = mlir::openInputFile(input, &error);
  if (!file) {
    errs() << "tiny-aot: " << error << "\n";
    return 1;
  }
  SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(file), SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sources, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
  if (!module)
    return 1;

  mlir::tt::AOTOptions options;
  options.target = target;
  options.pipelineOptions = pipelineOptions;
  options.cpu = cpu;
  options.features = features;
  options.optLevel = optLevel;
  options.output = output;
  options.header = header;
  options.manifest = manifest;
  options.runtimeLibrary = runtime;
  options.linker = linker;
  options.keepIntermediates = keep;
  if (!mlir::tt::exportSharedLibrary(*module, options, error)) {
    errs() << "tiny-aot: " << error << "\n";
    return 1;
  }
  return 0;
}
