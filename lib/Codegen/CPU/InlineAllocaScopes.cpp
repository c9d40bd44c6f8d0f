//===- InlineAllocaScopes.cpp - Drop alloca scopes without allocas --------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTINLINEALLOCASCOPES
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// True if an op inside `scope` (not in a nested scope) may allocate on the
/// stack.
bool scopesStackAllocations(memref::AllocaScopeOp scope) {
  return scope
      ->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op == scope.getOperation())
          return WalkResult::advance();
        if (op->hasTrait<OpTrait::AutomaticAllocationScope>())
          return WalkResult::skip();
        if (isa<memref::AllocaOp>(op))
          return WalkResult::interrupt();
        auto effects = dyn_cast<MemoryEffectOpInterface>(op);
        if (!effects)
          return WalkResult::advance();
        SmallVector<MemoryEffects::EffectInstance> instances;
        effects.getEffects(instances);
        for (const MemoryEffects::EffectInstance &effect : instances)
          if (isa<MemoryEffects::Allocate>(effect.getEffect()) &&
              isa<SideEffects::AutomaticAllocationScopeResource>(
                  effect.getResource()))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

struct InlineAllocaScopesPass
    : public tt::impl::TTInlineAllocaScopesBase<InlineAllocaScopesPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation()->walk([&](memref::AllocaScopeOp scope) {
      if (!scopesStackAllocations(scope))
        scopes.push_back(scope);
    });
    IRRewriter rewriter(&getContext());
    // Innermost first: inlining moves the ops of a scope into its parent.
    for (memref::AllocaScopeOp scope : scopes) {
      Block *body = &scope.getBodyRegion().front();
      Operation *terminator = body->getTerminator();
      SmallVector<Value> results(terminator->getOperands());
      rewriter.eraseOp(terminator);
      rewriter.inlineBlockBefore(body, scope);
      rewriter.replaceOp(scope, results);
    }
  }
};

} // namespace
