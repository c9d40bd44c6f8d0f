//===- ExpandBF16.cpp - bfloat16 conversions LLVM's x86 back end fails on -===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUEXPANDBF16
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// Whether an f32 -> bf16 truncation of this type, after InstCombine
/// shrinks the arithmetic before it to bfloat, would leave LLVM 22's x86
/// back end a one-element bfloat piece it cannot legalise: vectors longer
/// than 32 elements whose length is one more than a multiple of 32.
bool failsOnX86(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || vector.getRank() != 1 || vector.isScalable())
    return false;
  int64_t n = vector.getNumElements();
  return n > 32 && n % 32 == 1;
}

struct ExpandBF16Pass : public tt::impl::TTCPUExpandBF16Base<ExpandBF16Pass> {
  void runOnOperation() override {
    // Upstream's bfloat16 expansion, applied to the truncations (and the
    // extensions feeding them) of the failing lengths only: elsewhere
    // `fptrunc` keeps its one-instruction lowering (vcvtneps2bf16).
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (!isa<arith::TruncFOp, arith::ExtFOp>(op) ||
          !failsOnX86(op->getResult(0).getType()))
        return;
      Type in = getElementTypeOrSelf(op->getOperand(0).getType());
      Type out = getElementTypeOrSelf(op->getResult(0).getType());
      if (in.isBF16() || out.isBF16())
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    // A conversion left would abort LLVM's code generation: required.
    if (failed(tt::applyOpPatterns(*this, getOperation(), ops,
                                   std::move(patterns),
                                   tt::Convergence::Required, config)))
      signalPassFailure();
  }
};

} // namespace
