//===- Pipelines.h - TinyTensor named pass pipelines ------------*- C++ -*-===//
//
// The named pipelines, built in one place so that tiny-opt, the C API and
// Python run exactly the same passes.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_PIPELINES_PIPELINES_H
#define TINYTENSOR_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace tt {

/// Options shared by the TinyTensor pipelines.
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run the tt-optimize stage first (turn off when the "
                     "input is already optimised linalg)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fusion{
      *this, "fusion",
      llvm::cl::desc("Fuse elementwise linalg ops (producers into consumers)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> interchange{
      *this, "interchange",
      llvm::cl::desc("Reorder contraction loops so the innermost loop is "
                     "contiguous and vectorisable"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("Use vectorisable polynomial approximations for "
                     "tanh/exp/log/erf instead of libm calls"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> outline{
      *this, "outline",
      llvm::cl::desc("Outline each loop nest into its own function (keeps "
                     "LLVM compile time linear in program size)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> outParams{
      *this, "out-params",
      llvm::cl::desc("Turn returned buffers into caller-allocated output "
                     "arguments"),
      llvm::cl::init(false)};
};

/// tt -> optimised linalg on tensors: canonicalise, CSE, convert, fuse.
void buildTTOptimizePipeline(OpPassManager &pm, const PipelineOptions &options);

/// tt -> LLVM dialect for the host CPU: the optimisation pipeline, one-shot
/// bufferisation across function boundaries, deallocation, loops, and
/// lowering of every remaining dialect to LLVM with C-interface wrappers.
void buildTTLowerToLLVMPipeline(OpPassManager &pm,
                                const PipelineOptions &options);

/// Registers `tt-optimize` and `tt-lower-to-llvm` with the pass registry.
void registerTTPipelines();

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_PIPELINES_PIPELINES_H
