//===- ApproximateMath.cpp - Polynomial math for vectorisation ------------===//

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTAPPROXIMATEMATH
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {
struct ApproximateMathPass
    : public tt::impl::TTApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The functions tt lowers to, and the ones their approximations use.
    auto approximated = [](StringRef name) {
      return llvm::is_contained(
          {math::TanhOp::getOperationName(), math::ExpOp::getOperationName(),
           math::ExpM1Op::getOperationName(), math::LogOp::getOperationName(),
           math::Log1pOp::getOperationName(), math::Log2Op::getOperationName(),
           math::ErfOp::getOperationName()},
          name);
    };
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    // A math op not approximated becomes a libm call: slower, as correct.
    (void)tt::applyPatterns(*this, getOperation(), std::move(patterns),
                            tt::Convergence::Optional);
  }
};
} // namespace
