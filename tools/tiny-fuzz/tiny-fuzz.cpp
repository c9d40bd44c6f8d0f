//===- tiny-fuzz.cpp - libFuzzer target for tt programs -------------------===//
//
// Parses the input as an MLIR module, verifies it and, when it only uses the
// dialects `tt` programs are written in (builtin, func, arith, tensor, tt;
// inputs naming others are not even parsed), runs one of TinyTensor's
// pipelines on it. Errors are expected answers to
// bad input; what the fuzzer looks for is a crash, a sanitizer report, a
// hang, a pipeline that fails without an error diagnostic, or one that
// succeeds and leaves IR that does not verify (both reported with abort()).
// Built by scripts/fuzz.sh (TT_BUILD_FUZZER=ON).
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// The pipelines a input is run through, chosen by its size: shape
/// inference and the dialect's folders, tt-optimize, and the whole CPU
/// pipeline (which is the slowest, so a third of the inputs only).
constexpr const char *kPipelines[] = {
    "builtin.module(tt-infer-shapes,canonicalize,cse)",
    "builtin.module(tt-optimize)",
    "builtin.module(tt-lower-to-llvm)",
};

DialectRegistry &registry() {
  static DialectRegistry *registry = [] {
    registerAllPasses();
    tt::registerTinyTensorPasses();
    auto *r = new DialectRegistry();
    registerAllDialects(*r);
    registerAllExtensions(*r);
    tt::registerTinyTensorDialects(*r);
    return r;
  }();
  return *registry;
}

const llvm::StringSet<> &allowedDialects() {
  static const llvm::StringSet<> allowed = {"builtin", "func", "arith",
                                            "tensor", "tt"};
  return allowed;
}

/// False when the text names an op or type of another dialect (`linalg.`,
/// `vector.`, ...): those inputs are not parsed at all. The fuzzer is for
/// our code, and upstream parsers have crashes of their own (MLIR 22's
/// linalg.matmul parser aborts in SmallVector::grow on a malformed region,
/// found by this fuzzer).
bool mentionsOnlyTTDialects(MLIRContext &context, llvm::StringRef text) {
  for (llvm::StringRef name : context.getAvailableDialects())
    if (!allowedDialects().contains(name) && text.contains((name + ".").str()))
      return false;
  return true;
}

bool onlyTTDialects(ModuleOp module) {
  const llvm::StringSet<> &allowed = allowedDialects();
  bool ok = true;
  module.walk([&](Operation *op) {
    if (!allowed.contains(op->getName().getDialectNamespace())) {
      ok = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return ok;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  // Diagnostics are the expected answer to bad input: count the errors and
  // swallow them.
  unsigned errors = 0;
  ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    return success();
  });
  // MLIR's lexer reads up to a terminating NUL, which a std::string has.
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!mentionsOnlyTTDialects(context, text))
    return 0;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module || failed(verify(*module)) || !onlyTTDialects(*module))
    return 0;

  PassManager pm(&context);
  // Verification is done below, once: a pass that leaves invalid IR after
  // succeeding is a bug to report, a pass that fails is not.
  pm.enableVerifier(false);
  const char *pipeline = kPipelines[size % std::size(kPipelines)];
  if (failed(parsePassPipeline(pipeline, pm))) {
    llvm::errs() << "tiny-fuzz: cannot parse " << pipeline << "\n";
    std::abort();
  }
  unsigned errorsBefore = errors;
  if (failed(pm.run(*module))) {
    if (errors == errorsBefore) {
      llvm::errs() << "tiny-fuzz: " << pipeline
                   << " failed without an error diagnostic\n";
      std::abort();
    }
  } else if (failed(verify(*module))) {
    llvm::errs() << "tiny-fuzz: " << pipeline
                 << " succeeded but left IR that does not verify\n";
    std::abort();
  }
  return 0;
}
