//===- Pipelines.cpp - TinyTensor named pass pipelines --------------------===//

#include "TinyTensor/Pipelines/Pipelines.h"

#include "TinyTensor/Conversion/Passes.h"
#include "TinyTensor/Dialect/TT/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tt::buildTTOptimizePipeline(OpPassManager &pm,
                                 const PipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tt::createConvertTTToLinalg());
  pm.addPass(createCanonicalizerPass());
  if (options.fusion) {
    pm.addPass(createLinalgElementwiseOpFusionPass());
    pm.addNestedPass<func::FuncOp>(tt::createTTFuseCastsIntoContractions());
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tt::buildTTLowerToLLVMPipeline(OpPassManager &pm,
                                    const PipelineOptions &options) {
  if (options.optimize)
    buildTTOptimizePipeline(pm, options);
  if (options.interchange)
    pm.addNestedPass<func::FuncOp>(tt::createTTInterchangeContractions());

  pm.addNestedPass<func::FuncOp>(tt::createTTCopyRepeatedResults());
  pm.addPass(tt::createTTUntieEmptyTensors());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (options.outParams) {
    bufferization::BufferResultsToOutParamsPassOptions outParams;
    outParams.hoistStaticAllocs = true;
    outParams.modifyPublicFunctions = true;
    pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  }
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // The deallocation pipeline returns views of function arguments (e.g. a
  // reshaped argument, or the argument itself) through bufferization.clone,
  // which nothing else lowers: turn it into memref.alloc + memref.copy.
  pm.addPass(createConvertBufferizationToMemRefPass());

  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  if (options.outline)
    pm.addPass(tt::createTTOutlineLoops());
  if (options.fastMath)
    pm.addPass(tt::createTTApproximateMath());
  // math.ipowi (integer tt.pow) has no LLVM or libm lowering: expand it into
  // a helper function first.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(tt::createTTEmitCInterface());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void tt::registerTTPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "tt-optimize",
      "tt -> optimised linalg on tensors (canonicalise, CSE, --tt-to-linalg, "
      "elementwise fusion)",
      buildTTOptimizePipeline);
  PassPipelineRegistration<PipelineOptions>(
      "tt-lower-to-llvm",
      "tt -> LLVM dialect for the host CPU (optimise, one-shot bufferise, "
      "deallocate, loops, lower to LLVM with C-interface wrappers)",
      buildTTLowerToLLVMPipeline);
}
