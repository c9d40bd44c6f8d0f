//===- AlignWorkgroupMemory.cpp - Align kernels' workgroup buffers --------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTGPUALIGNWORKGROUPMEMORY
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

struct GPUAlignWorkgroupMemoryPass
    : public tt::impl::TTGPUAlignWorkgroupMemoryBase<
          GPUAlignWorkgroupMemoryPass> {
  using TTGPUAlignWorkgroupMemoryBase::TTGPUAlignWorkgroupMemoryBase;

  void runOnOperation() override {
    Builder b(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp fn) {
      for (unsigned i = 0, e = fn.getNumWorkgroupAttributions(); i < e; ++i)
        fn.setWorkgroupAttributionAttr(
            i, b.getStringAttr(LLVM::LLVMDialect::getAlignAttrName()),
            b.getI64IntegerAttr(alignment));
    });
  }
};

} // namespace
