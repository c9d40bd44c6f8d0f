//===- InitAll.cpp - Register everything TinyTensor provides --------------===//

#include "TinyTensor/InitAll.h"

#include "TinyTensor/Conversion/Passes.h"
#include "TinyTensor/Dialect/TT/Passes.h"
#include "TinyTensor/Dialect/TT/TTDialect.h"
#include "TinyTensor/Pipelines/Pipelines.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

void mlir::tt::registerTinyTensorDialects(DialectRegistry &registry) {
  registry.insert<TTDialect, tensor::TensorDialect>();
}

void mlir::tt::registerTinyTensorPasses() {
  registerTTPasses();
  registerTinyTensorConversionPasses();
  registerTTPipelines();
}
