//===- CopyRepeatedResults.cpp - Distinct tensors for each result ---------===//

#include "TinyTensor/Dialect/TT/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCOPYREPEATEDRESULTS
#include "TinyTensor/Dialect/TT/Passes.h.inc"
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
        Value init = tensor::EmptyOp::create(builder, ret.getLoc(),
                                             type.getShape(),
                                             type.getElementType());
        operand.set(linalg::CopyOp::create(builder, ret.getLoc(), v, init)
                        .getResult(0));
      }
    });
  }
};
} // namespace
