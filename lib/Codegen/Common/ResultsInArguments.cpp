//===- ResultsInArguments.cpp - Results written into argument buffers ----===//
//
// A function argument with `tt.updated_by = j` receives result #j in its
// own buffer: the caller passes that buffer for the result too (an
// optimizer step updating the parameters in place). See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTRESULTSINARGUMENTS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// Makes the elementwise linalg.generic that computes `value` (one of its
/// results) write it into `argument`, the buffer it is returned in: the
/// result's init becomes `argument` where it was an empty tensor, and when
/// the generic reads `argument` at the same indices, it reads the init's
/// block argument instead (each element is read before it is written, in
/// the same iteration). One-shot bufferization then sees an in-place
/// update; it still copies where a later read of `argument` needs the old
/// value.
void computeInto(Value value, BlockArgument argument) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumReductionLoops() != 0)
    return;
  OpOperand *init =
      generic.getDpsInitOperand(cast<OpResult>(value).getResultNumber());
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      init->get().getType() != argument.getType())
    return;
  AffineMap initMap = generic.getMatchingIndexingMap(init);
  if (!initMap.isPermutation())
    return;
  // The inputs that read `argument` where the result writes it.
  SmallVector<OpOperand *> reads;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (input->get() != argument)
      continue;
    if (generic.getMatchingIndexingMap(input) != initMap)
      return; // read elsewhere than written: leave it to bufferization
    reads.push_back(input);
  }
  BlockArgument written = generic.getMatchingBlockArgument(init);
  if (!written.use_empty() && !reads.empty())
    return;
  init->set(argument);
  for (OpOperand *input : reads)
    generic.getMatchingBlockArgument(input).replaceAllUsesWith(written);
}

struct ResultsInArgumentsPass
    : public tt::impl::TTResultsInArgumentsBase<ResultsInArgumentsPass> {
  void runOnOperation() override {
    WalkResult walked = getOperation().walk([](func::FuncOp func) {
      if (func.isExternal())
        return WalkResult::advance();
      auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
      llvm::SmallDenseMap<int64_t, unsigned> taken;
      for (BlockArgument arg : func.getArguments()) {
        auto attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                       tt::kUpdatedByAttr);
        if (!attr)
          continue;
        int64_t result = attr.getInt();
        if (result < 0 || result >= ret.getNumOperands()) {
          func.emitError() << "argument #" << arg.getArgNumber() << "'s "
                           << tt::kUpdatedByAttr << " names result #" << result
                           << "; the function has " << ret.getNumOperands()
                           << " result(s)";
          return WalkResult::interrupt();
        }
        if (ret.getOperand(result).getType() != arg.getType()) {
          func.emitError() << "argument #" << arg.getArgNumber() << " has type "
                           << arg.getType() << ", the result #" << result
                           << " written into it "
                           << ret.getOperand(result).getType();
          return WalkResult::interrupt();
        }
        if (!taken.try_emplace(result, arg.getArgNumber()).second) {
          func.emitError() << "result #" << result
                           << " is written into two arguments (#"
                           << taken[result] << " and #" << arg.getArgNumber()
                           << ")";
          return WalkResult::interrupt();
        }
        if (isa<RankedTensorType>(arg.getType()))
          computeInto(ret.getOperand(result), arg);
      }
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
