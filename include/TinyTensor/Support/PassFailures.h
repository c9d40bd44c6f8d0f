//===- PassFailures.h - No pass fails without saying why -------*- C++ -*-===//
//
// Two pieces keep TinyTensor's pass failures loud:
//  - `applyPatterns` runs a pass's rewrite patterns with MLIR's greedy driver
//    and decides in one place what it means when the driver stops at its
//    iteration limit before reaching a fixed point (`Convergence`);
//  - `FailedPassReporter`, a pass instrumentation for every pass manager that
//    runs TinyTensor's pipelines (tiny-opt, the Python bindings, tiny-aot),
//    names the pass that failed and the op it failed on, and turns a failure
//    that came without an error diagnostic into one.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_SUPPORT_PASSFAILURES_H
#define TINYTENSOR_SUPPORT_PASSFAILURES_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>

namespace mlir {
namespace tt {

/// What it means for a pass when its greedy rewrite stops at the iteration
/// limit before reaching a fixed point.
enum class Convergence {
  /// Every rewrite keeps the IR valid and its meaning (fusion, folding,
  /// canonicalisation, lowerings that later passes finish): stopping early
  /// leaves correct, less optimised IR. Not a failure; with
  /// `--tt-remark-nonconvergence` a remark on the root op gives the pass and
  /// the iteration count.
  Optional,
  /// The pass's output is only valid at the fixed point (it must remove
  /// every op of some kind): an error on the root op naming the pass and the
  /// iteration count, and failure.
  Required,
};

/// Applies `patterns` greedily to the regions of `root` on behalf of `pass`
/// and applies `convergence` if the driver does not reach a fixed point.
/// Fails only for `Convergence::Required`, after emitting the error.
LogicalResult applyPatterns(Pass &pass, Operation *root,
                            const FrozenRewritePatternSet &patterns,
                            Convergence convergence,
                            GreedyRewriteConfig config = GreedyRewriteConfig());

/// As above, for `applyOpPatternsGreedily` on `ops`; diagnostics go to
/// `anchor` (the op the pass runs on).
LogicalResult
applyOpPatterns(Pass &pass, Operation *anchor, ArrayRef<Operation *> ops,
                const FrozenRewritePatternSet &patterns,
                Convergence convergence,
                GreedyRewriteConfig config = GreedyRewriteConfig());

/// "pass 'tt-fuse-elementwise' on func.func @forward": a pass and the op it
/// ran on, as the reporter and error messages name them.
std::string describePassRun(Pass *pass, Operation *op);

/// A pass instrumentation that remembers the first pass that failed (see
/// `failure()`) and, when that pass emitted no error while it ran, emits one
/// on the op naming the pass, so that a failing pipeline always says which
/// pass failed, on which op and, where the pass says it, why.
///
/// It counts errors with a diagnostic handler of its own, which passes every
/// diagnostic on: create it after the handlers that should see its error
/// (those registered later see diagnostics first).
class FailedPassReporter : public PassInstrumentation {
public:
  explicit FailedPassReporter(MLIRContext *context);

  void runBeforePass(Pass *pass, Operation *op) override;
  void runAfterPass(Pass *pass, Operation *op) override;
  void runAfterPassFailed(Pass *pass, Operation *op) override;

  /// `describePassRun` of the first pass that failed; empty if none did.
  std::string failure() const;

private:
  ScopedDiagnosticHandler counter;
  std::atomic<unsigned> errors{0};
  mutable std::mutex mutex;
  std::map<std::pair<Pass *, Operation *>, unsigned> errorsBefore;
  std::string firstFailure;
};

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_SUPPORT_PASSFAILURES_H
