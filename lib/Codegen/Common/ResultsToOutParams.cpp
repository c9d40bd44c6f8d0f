//===- ResultsToOutParams.cpp - Caller-allocated results ------------------===//
//
// Upstream's buffer-results-to-out-params, except for private functions
// with a result of dynamic shape. See the pass description in Passes.td.
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

struct ResultsToOutParamsPass
    : public tt::impl::TTResultsToOutParamsBase<ResultsToOutParamsPass> {
  void runOnOperation() override {
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
