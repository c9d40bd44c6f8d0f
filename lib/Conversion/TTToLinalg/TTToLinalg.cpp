//===- TTToLinalg.cpp - Convert tt ops to linalg on tensors ---------------===//
//
// The pass and populateTTToLinalgPatterns; the patterns of each op family
// are in the file of that name (Common.h lists them).
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Conversion/TTToLinalg/TTToLinalg.h"
#include "TinyTensor/Conversion/TTToLinalg/Convolution.h"

#include "Common.h"

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_CONVERTTTTOLINALG
#include "TinyTensor/Conversion/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertTTToLinalgPass
    : public tt::impl::ConvertTTToLinalgBase<ConvertTTToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Ranks must be known before anything is rewritten; name every op that
    // still has an unranked type, or dynamic dimensions where its lowering
    // needs static ones.
    WalkResult shapes = getOperation().walk([](Operation *op) {
      if (!isa<TTDialect>(op->getDialect()))
        return WalkResult::advance();
      for (Type t :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
        if (!isa<RankedTensorType>(t)) {
          op->emitOpError("cannot be converted to linalg: type ")
              << t << " is unranked (run --tt-infer-shapes first)";
          return WalkResult::interrupt();
        }
        if (cast<RankedTensorType>(t).getElementType().isUnsignedInteger()) {
          op->emitOpError("cannot be converted to linalg: type ")
              << t << " is unsigned (run --tt-legalize-types first)";
          return WalkResult::interrupt();
        }
      }
      if (auto reshape = dyn_cast<ReshapeOp>(op)) {
        auto from = cast<RankedTensorType>(reshape.getInput().getType());
        auto to = cast<RankedTensorType>(reshape.getType());
        bool dynamic = !from.hasStaticShape() || !to.hasStaticShape();
        bool direct =
            from == to || (from.getRank() != to.getRank() &&
                           from.getRank() > 0 && to.getRank() > 0 &&
                           getReassociationIndicesForReshape(
                               from.getRank() < to.getRank() ? from : to,
                               from.getRank() < to.getRank() ? to : from));
        if (dynamic && !direct) {
          op->emitOpError("cannot be converted to linalg: a reshape with "
                          "dynamic dimensions must be one collapse or "
                          "expand of dimensions (")
              << from << " to " << to << ")";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    // The walk emitted the error before interrupting.
    if (shapes.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TTDialect>();
    target.addLegalDialect<arith::ArithDialect,
                           bufferization::BufferizationDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTTToLinalgPatterns(patterns);
    // The conversion reports each op it fails to legalize.
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tt::populateTTToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwiseLoweringPatterns(patterns);
  populateReductionLoweringPatterns(patterns);
  populateMatmulLoweringPatterns(patterns);
  populateDataMovementLoweringPatterns(patterns);
  populateConvolutionLoweringPatterns(patterns);
}
