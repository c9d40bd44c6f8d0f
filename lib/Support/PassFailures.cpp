//===- PassFailures.cpp - No pass fails without saying why ----------------===//

#include "TinyTensor/Support/PassFailures.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static llvm::cl::opt<bool> remarkNonConvergence(
    "tt-remark-nonconvergence",
    llvm::cl::desc("Emit a remark when a TinyTensor pass's rewrite patterns "
                   "stop at the iteration limit before reaching a fixed "
                   "point where that is not an error (the IR is valid, "
                   "only less optimised)"),
    llvm::cl::init(false));

static llvm::cl::opt<int64_t> maxIterations(
    "tt-max-rewrite-iterations",
    llvm::cl::desc("For testing: stop the rewrite patterns of TinyTensor's "
                   "passes after this many sweeps of the greedy driver "
                   "(default: each pass's own limit)"),
    llvm::cl::init(0));

/// What `applyPatterns` does with the driver's answer.
static LogicalResult handleConvergence(Pass &pass, Operation *anchor,
                                       bool converged,
                                       tt::Convergence convergence,
                                       const GreedyRewriteConfig &config) {
  if (converged)
    return success();
  auto describe = [&](InFlightDiagnostic diag) {
    int64_t sweeps = config.getMaxIterations();
    diag << pass.getArgument() << ": rewrite patterns did not reach a fixed "
         << "point within " << sweeps
         << (sweeps == 1 ? " iteration" : " iterations");
    if (config.getMaxNumRewrites() != GreedyRewriteConfig::kNoLimit)
      diag << " (or " << config.getMaxNumRewrites() << " rewrites)";
    return diag;
  };
  if (convergence == tt::Convergence::Required) {
    describe(mlir::emitError(anchor->getLoc()))
        << "; the pass's result is only valid at the fixed point";
    return failure();
  }
  if (remarkNonConvergence)
    describe(mlir::emitRemark(anchor->getLoc()))
        << "; the IR is valid and correct, but may be less optimised";
  return success();
}

/// `config` with the iteration limit of `--tt-max-rewrite-iterations` and,
/// unless the pass set one, a bound on the number of rewrites: the
/// iteration limit alone does not bound a sweep in which patterns undo each
/// other (each rewrite puts the other pattern's root back on the worklist),
/// which would otherwise never end. The bound is far above what any pass
/// needs: 1024 rewrites per op the rewrite starts from, plus 100,000.
static GreedyRewriteConfig &limited(GreedyRewriteConfig &config,
                                    ArrayRef<Operation *> roots) {
  if (maxIterations > 0)
    config.setMaxIterations(maxIterations);
  if (config.getMaxNumRewrites() == GreedyRewriteConfig::kNoLimit) {
    int64_t ops = 0;
    for (Operation *root : roots)
      root->walk([&](Operation *) { ++ops; });
    config.setMaxNumRewrites(1024 * ops + 100000);
  }
  return config;
}

LogicalResult tt::applyPatterns(Pass &pass, Operation *root,
                                const FrozenRewritePatternSet &patterns,
                                Convergence convergence,
                                GreedyRewriteConfig config) {
  limited(config, root);
  bool converged = succeeded(applyPatternsGreedily(root, patterns, config));
  return handleConvergence(pass, root, converged, convergence, config);
}

LogicalResult tt::applyOpPatterns(Pass &pass, Operation *anchor,
                                  ArrayRef<Operation *> ops,
                                  const FrozenRewritePatternSet &patterns,
                                  Convergence convergence,
                                  GreedyRewriteConfig config) {
  if (ops.empty())
    return success();
  limited(config, ops);
  bool converged = succeeded(applyOpPatternsGreedily(ops, patterns, config));
  return handleConvergence(pass, anchor, converged, convergence, config);
}

std::string tt::describePassRun(Pass *pass, Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "pass '" << pass->getArgument() << "' on " << op->getName();
  if (auto symbol =
          op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    os << " @" << symbol.getValue();
  return text;
}

tt::FailedPassReporter::FailedPassReporter(MLIRContext *context)
    : counter(context, [this](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          ++errors;
        return mlir::failure(); // not handled: on to the other handlers
      }) {}

void tt::FailedPassReporter::runBeforePass(Pass *pass, Operation *op) {
  std::lock_guard<std::mutex> lock(mutex);
  errorsBefore[{pass, op}] = errors;
}

void tt::FailedPassReporter::runAfterPass(Pass *pass, Operation *op) {
  std::lock_guard<std::mutex> lock(mutex);
  errorsBefore.erase({pass, op});
}

void tt::FailedPassReporter::runAfterPassFailed(Pass *pass, Operation *op) {
  // The adaptors that run nested pass managers fail after the nested pass
  // that failed; they have no argument.
  if (pass->getArgument().empty())
    return;
  std::string what = describePassRun(pass, op);
  bool silent;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto before = errorsBefore.find({pass, op});
    silent = before != errorsBefore.end() && before->second == errors;
    if (firstFailure.empty())
      firstFailure = what;
  }
  if (silent)
    mlir::emitError(op->getLoc())
        << what << " failed without an error diagnostic (a bug "
        << "in that pass: it should say why)";
}

std::string tt::FailedPassReporter::failure() const {
  std::lock_guard<std::mutex> lock(mutex);
  return firstFailure;
}
