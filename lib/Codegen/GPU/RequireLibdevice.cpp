//===- RequireLibdevice.cpp - Kernels that need a missing libdevice -------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTGPUREQUIRELIBDEVICE
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

struct GPURequireLibdevicePass
    : public tt::impl::TTGPURequireLibdeviceBase<GPURequireLibdevicePass> {
  using TTGPURequireLibdeviceBase::TTGPURequireLibdeviceBase;

  void runOnOperation() override {
    bool missing = false;
    getOperation().walk([&](gpu::GPUModuleOp module) {
      for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
        if (!fn.isExternal() || !fn.getName().starts_with("__nv_"))
          continue;
        fn.emitError() << "kernel module @" << module.getName() << " calls "
                       << fn.getName()
                       << " from CUDA's libdevice, which was not found"
                       << (searched.empty() ? std::string()
                                            : " (looked for " + searched + ")")
                       << ": install the CUDA toolkit (or pip's "
                          "nvidia-cuda-nvcc) and pass cuda-path= or set "
                          "$CUDA_HOME";
        missing = true;
        return;
      }
    });
    // Each missing library was reported on its function above.
    if (missing)
      signalPassFailure();
  }
};

} // namespace
