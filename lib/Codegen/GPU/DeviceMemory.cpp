//===- DeviceMemory.cpp - Host functions use device memory ----------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTGPUDEVICEMEMORY
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

struct GPUDeviceMemoryPass
    : public tt::impl::TTGPUDeviceMemoryBase<GPUDeviceMemoryPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> ops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp,
              memref::GetGlobalOp>(op))
        ops.push_back(op);
      return WalkResult::advance();
    });
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::AllocOp>(
            alloc, alloc.getType(), /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange{}, alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/false);
        continue;
      }
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
            dealloc, /*asyncToken=*/Type(), ValueRange{}, dealloc.getMemref());
        continue;
      }
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        auto source = cast<MemRefType>(copy.getSource().getType());
        auto target = cast<MemRefType>(copy.getTarget().getType());
        if (!source.getLayout().isIdentity() ||
            !target.getLayout().isIdentity()) {
          copy.emitError("tt-gpu-device-memory: a copy of a strided view "
                         "on the host");
          return signalPassFailure();
        }
        gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(),
                              ValueRange{}, copy.getTarget(), copy.getSource());
        rewriter.eraseOp(copy);
        continue;
      }
      if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        // Constants live in host memory: a kernel reads a device copy.
        MemRefType type = global.getType();
        rewriter.setInsertionPointAfter(global);
        auto device = gpu::AllocOp::create(rewriter, loc, type, Type(),
                                           ValueRange{}, ValueRange{},
                                           ValueRange{}, /*hostShared=*/false);
        auto memcpy =
            gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange{},
                                  device.getMemref(), global.getResult());
        rewriter.replaceAllUsesExcept(global.getResult(), device.getMemref(),
                                      memcpy);
        Block *block = global->getBlock();
        rewriter.setInsertionPoint(block->getTerminator());
        gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange{},
                               device.getMemref());
      }
    }
  }
};

} // namespace
