//===- ResultsToOutParams.cpp - Caller-allocated results ------------------===//
//
// Upstream's buffer-results-to-out-params, except for private functions
// with a result of dynamic shape, and with a returned reshape of a buffer
// allocated whole first turned into a buffer of the result's shape. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTRESULTSTOOUTPARAMS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// Whether a private function returns a memref whose size its caller does
/// not know: the function keeps returning it.
bool returnsDynamicBuffer(func::FuncOp func) {
  return func.isPrivate() &&
         llvm::any_of(func.getFunctionType().getResults(), [](Type type) {
           auto memref = dyn_cast<MemRefType>(type);
           return memref && !memref.hasStaticShape();
         });
}

/// A returned `memref.collapse_shape` or `memref.expand_shape` of a
/// `memref.alloc` (a convolution's [N, 1, F, O...] result returned as [N, F,
/// O...]) would be copied into the caller's buffer: upstream hoists only a
/// returned alloc itself. The alloc becomes one of the returned shape, and
/// its old uses read the reverse reshape of it; the returned reshape of
/// that reshape folds away.
void allocateReturnedShapes(func::FuncOp func) {
  if (func.isExternal())
    return;
  llvm::SmallPtrSet<Operation *, 8> rewritten;
  func.walk([&](func::ReturnOp ret) {
    for (OpOperand &operand : ret->getOpOperands()) {
      Operation *reshape = operand.get().getDefiningOp();
      if (!reshape ||
          !isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(reshape))
        continue;
      Value source = reshape->getOperand(0);
      auto alloc = source.getDefiningOp<memref::AllocOp>();
      auto resultType = dyn_cast<MemRefType>(operand.get().getType());
      auto allocType = alloc ? alloc.getType() : MemRefType();
      if (!alloc || rewritten.contains(alloc) || !resultType ||
          !resultType.hasStaticShape() ||
          !resultType.getLayout().isIdentity() || !allocType.hasStaticShape() ||
          !allocType.getLayout().isIdentity())
        continue;
      OpBuilder b(alloc);
      Location loc = alloc.getLoc();
      auto whole =
          memref::AllocOp::create(b, loc, resultType, alloc.getAlignmentAttr());
      Value view;
      if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape))
        view = memref::ExpandShapeOp::create(
            b, loc, allocType, whole, collapse.getReassociationIndices());
      else
        view = memref::CollapseShapeOp::create(
            b, loc, whole,
            cast<memref::ExpandShapeOp>(reshape).getReassociationIndices());
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
      rewritten.insert(whole);
      operand.set(whole);
    }
  });
}

struct ResultsToOutParamsPass
    : public tt::impl::TTResultsToOutParamsBase<ResultsToOutParamsPass> {
  void runOnOperation() override {
    getOperation().walk(
        [](func::FuncOp func) { allocateReturnedShapes(func); });
    bufferization::BufferResultsToOutParamsOpts options;
    options.hoistStaticAllocs = true;
    options.modifyPublicFunctions = true;
    options.filterFn = [](func::FuncOp *func) {
      return !returnsDynamicBuffer(*func);
    };
    // Upstream's promotion emits an error on the function or op it fails on
    // (unsupported layouts, dynamic results, missing callees).
    if (failed(bufferization::promoteBufferResultsToOutParams(getOperation(),
                                                              options)))
      signalPassFailure();
  }
};

} // namespace
