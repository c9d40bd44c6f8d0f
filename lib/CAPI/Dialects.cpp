//===- Dialects.cpp - C API of TinyTensor ---------------------------------===//

#include "TinyTensor-c/Dialects.h"

#include "TinyTensor/Dialect/TT/TTDialect.h"
#include "TinyTensor/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TinyTensor, tt, mlir::tt::TTDialect)

void ttRegisterPasses(void) { mlir::tt::registerTinyTensorPasses(); }

void ttRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::DialectRegistry *r = unwrap(registry);
  mlir::registerAllDialects(*r);
  mlir::registerAllExtensions(*r);
  mlir::registerAllToLLVMIRTranslations(*r);
  mlir::tt::registerTinyTensorDialects(*r);
}
