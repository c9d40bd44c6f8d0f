//===- InitAll.cpp - Register everything TinyTensor provides --------------===//

#include "TinyTensor/InitAll.h"

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Conversion/Passes.h"
#include "TinyTensor/Dialect/TT/Passes.h"
#include "TinyTensor/Dialect/TT/TTDialect.h"
#include "TinyTensor/Distributed/Passes.h"
#include "TinyTensor/Pipelines/Pipelines.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::tt::registerTinyTensorDialects(DialectRegistry &registry) {
  registry.insert<TTDialect, tensor::TensorDialect>();
  // gpu-module-to-binary translates the kernels (GPU, NVVM, LLVM) to LLVM IR.
  registerAllToLLVMIRTranslations(registry);
  // Memory effects of mpi.allreduce, which the distributed pipeline needs.
  registerDistributedInterfaces(registry);
}

void mlir::tt::registerTinyTensorPasses() {
  // Registration is global and must happen once, however often it is asked
  // for (tiny-opt, the C API and every Python context may all ask).
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerTTPasses();
  registerTTCodegenPasses();
  registerTinyTensorConversionPasses();
  registerTTDistributedPasses();
  registerTTPipelines();
}
