//===- Pipelines.cpp - TinyTensor named pass pipelines --------------------===//

#include "TinyTensor/Pipelines/Pipelines.h"

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Conversion/Passes.h"
#include "TinyTensor/Dialect/TT/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <limits>

using namespace mlir;

void tt::buildTTOptimizePipeline(OpPassManager &pm,
                                 const OptimizeOptions &options) {
  // First, before CSE can merge ops across the repeated calls. Without
  // outlining, the scope attributes are dropped by the same pass.
  tt::TTOutlineRepeatedScopesOptions outline;
  if (!options.outline)
    outline.minOps = std::numeric_limits<unsigned>::max();
  pm.addPass(tt::createTTOutlineRepeatedScopes(outline));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tt::createConvertTTToLinalg());
  pm.addPass(createCanonicalizerPass());
  if (options.fusion) {
    // Unit dimensions (keepdims reductions are built as [rows, 1, cols])
    // hide producer-consumer pairs behind reshapes; without them a
    // reduction and its consumers index the same loops.
    pm.addPass(createLinalgFoldUnitExtentDimsPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(tt::createTTFuseElementwise());
    // Transposes first: a cast may feed the contraction through one.
    pm.addNestedPass<func::FuncOp>(tt::createTTFoldTransposes());
    pm.addNestedPass<func::FuncOp>(tt::createTTFuseCastsIntoContractions());
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Tiling, fusion and vectorisation on tensors.
static void buildCodegenOnTensors(OpPassManager &pm,
                                  const tt::LowerToLLVMOptions &options) {
  if (options.tile) {
    tt::TTCPUTileAndFuseOptions tiling;
    tiling.vectorBits = options.vectorBits;
    tiling.fuse = options.fusion;
    tiling.pack = options.pack;
    tiling.fuseRows = options.fuseRows;
    pm.addNestedPass<func::FuncOp>(tt::createTTCPUTileAndFuse(tiling));
    pm.addPass(createCanonicalizerPass());
  }
  if (options.vectorize) {
    tt::TTCPUVectorizeOptions vectorize;
    vectorize.masked = options.masked;
    pm.addNestedPass<func::FuncOp>(tt::createTTCPUVectorize(vectorize));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // What a tile loop computes from values defined outside it (a row's
  // 1 / sqrt(variance + eps), once the row is fused) leaves the loop while
  // the loads are still of tensors, which nothing can alias.
  pm.addPass(createLoopInvariantCodeMotionPass());
  // Contractions left as linalg ops (transposed operands, untiled ops) get
  // a vectorisable loop order for LLVM.
  if (options.interchange)
    pm.addNestedPass<func::FuncOp>(tt::createTTInterchangeContractions());
}

static void buildBufferization(OpPassManager &pm,
                               const tt::LowerToLLVMOptions &options) {
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
}

void tt::buildTTLowerToLLVMPipeline(OpPassManager &pm,
                                    const LowerToLLVMOptions &options) {
  if (options.optimize) {
    OptimizeOptions optimize;
    optimize.fusion = options.fusion;
    buildTTOptimizePipeline(pm, optimize);
  }
  // The calling convention of the Python runtime: booleans are bytes.
  if (options.outParams)
    pm.addPass(tt::createTTBooleanABI());
  buildCodegenOnTensors(pm, options);
  buildBufferization(pm, options);

  if (options.vectorize) {
    tt::TTCPULowerVectorsOptions lowerVectors;
    lowerVectors.f32PartialSums = options.f32PartialSums;
    pm.addNestedPass<func::FuncOp>(tt::createTTCPULowerVectors(lowerVectors));
    // n-D transfers left (masked edges of tiles) become loops of 1-D ones.
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll(true);
    pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(transfers));
    if (options.vectorMath) {
      tt::TTCPUVectorMathOptions vectorMath;
      vectorMath.vectorBits = options.vectorBits;
      pm.addPass(tt::createTTCPUVectorMath(vectorMath));
    }
  }
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Parallel tile loops: OpenMP worksharing loops, or sequential loops.
  if (options.threads == 1)
    pm.addNestedPass<func::FuncOp>(createForallToForLoopPass());
  else
    pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  if (options.outline)
    pm.addPass(tt::createTTOutlineLoops());
  if (options.threads != 1) {
    ConvertSCFToOpenMPPassOptions openmp;
    openmp.numThreads = options.threads;
    pm.addPass(createConvertSCFToOpenMPPass(openmp));
    // Drops the memref.alloca_scope it wraps loop bodies in when they
    // allocate nothing on the stack.
    pm.addPass(tt::createTTInlineAllocaScopes());
    pm.addPass(createCanonicalizerPass());
  }
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
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.genericAlloc;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  // Before the vector conversion: libm calls on vectors are made per element
  // with vector.extract/insert.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void tt::registerTTPipelines() {
  PassPipelineRegistration<OptimizeOptions>(
      "tt-optimize",
      "tt -> optimised linalg on tensors (canonicalise, CSE, --tt-to-linalg, "
      "elementwise fusion)",
      buildTTOptimizePipeline);
  PassPipelineRegistration<LowerToLLVMOptions>(
      "tt-lower-to-llvm",
      "tt -> LLVM dialect for the host CPU (optimise, tile and fuse, "
      "vectorise, one-shot bufferise, deallocate, OpenMP, lower to LLVM with "
      "C-interface wrappers)",
      buildTTLowerToLLVMPipeline);
}
