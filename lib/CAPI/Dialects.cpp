//===- Dialects.cpp - C API of TinyTensor ---------------------------------===//

#include "TinyTensor-c/Dialects.h"

#include "TinyTensor/Dialect/TT/TTDialect.h"
#include "TinyTensor/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TinyTensor, tt, mlir::tt::TTDialect)

void ttRegisterPasses(void) { mlir::tt::registerTinyTensorPasses(); }

void ttRegisterDialectExtensions(MlirDialectRegistry registry) {
  mlir::tt::registerTinyTensorDialects(*unwrap(registry));
}
