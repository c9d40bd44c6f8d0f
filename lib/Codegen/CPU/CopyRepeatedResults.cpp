//===- CopyRepeatedResults.cpp - Distinct tensors for each result ---------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCOPYREPEATEDRESULTS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {
struct CopyRepeatedResultsPass
    : public tt::impl::TTCopyRepeatedResultsBase<CopyRepeatedResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::DenseSet<Value> seen;
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || seen.insert(v).second)
          continue;
        // Dynamic dimensions are read off `v` (tensor.dim); a static shape
        // gives the same tensor.empty as before.
        Value init = tensor::EmptyOp::create(
            builder, ret.getLoc(),
            tensor::getMixedSizes(builder, ret.getLoc(), v),
            type.getElementType(), type.getEncoding());
        operand.set(linalg::CopyOp::create(builder, ret.getLoc(), v, init)
                        .getResult(0));
      }
    });
  }
};
} // namespace
