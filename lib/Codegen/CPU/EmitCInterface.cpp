//===- EmitCInterface.cpp - Request C-interface wrappers ------------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTEMITCINTERFACE
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {
struct EmitCInterfacePass
    : public tt::impl::TTEmitCInterfaceBase<EmitCInterfacePass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      if (func.isPublic() && !func.isExternal())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(func.getContext()));
    });
  }
};
} // namespace
