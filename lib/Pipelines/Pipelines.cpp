//===- Pipelines.cpp - TinyTensor named pass pipelines --------------------===//

#include "TinyTensor/Pipelines/Pipelines.h"

#include "TinyTensor/Codegen/CPUTarget.h"
#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Conversion/Passes.h"
#include "TinyTensor/Dialect/TT/Passes.h"
#include "TinyTensor/Distributed/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"

#include <limits>

using namespace mlir;

void tt::buildTTOptimizePipeline(OpPassManager &pm,
                                 const OptimizeOptions &options) {
  // float16/bfloat16 arithmetic in f32, uint8 stored as i8: the passes
  // below see neither.
  pm.addPass(tt::createTTLegalizeTypes());
  // Before outlining: a network's values stay channels last across the
  // calls of its repeated blocks (the pass moves transposes within one
  // function), and the blocks it rewrote alike stay alike.
  if (options.convMatmul && options.channelsLast) {
    tt::TTChannelsLastOptions channelsLast;
    channelsLast.grouped = options.groupedChannelsLast;
    pm.addPass(tt::createTTChannelsLast(channelsLast));
  }
  // Before CSE can merge ops across the repeated calls. Without outlining,
  // the scope attributes are dropped by the same pass.
  tt::TTOutlineRepeatedScopesOptions outline;
  if (!options.outline)
    outline.minOps = std::numeric_limits<unsigned>::max();
  pm.addPass(tt::createTTOutlineRepeatedScopes(outline));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // After outlining: the repeated calls stay identical.
  if (options.sinkRowSelections) {
    pm.addPass(tt::createTTSinkRowSelections());
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(tt::createConvertTTToLinalg());
  if (options.convMatmul) {
    tt::TTCPUConvolutionsOptions convolutions;
    convolutions.channelsLastDepthwise = options.depthwiseChannelsLast;
    convolutions.patchBlocks = options.convPatchBlocks;
    pm.addNestedPass<func::FuncOp>(tt::createTTCPUConvolutions(convolutions));
  }
  pm.addPass(createCanonicalizerPass());
  if (options.fusion) {
    // Unit dimensions (keepdims reductions are built as [rows, 1, cols])
    // hide producer-consumer pairs behind reshapes; without them a
    // reduction and its consumers index the same loops.
    pm.addPass(createLinalgFoldUnitExtentDimsPass());
    pm.addPass(createCanonicalizerPass());
    tt::TTFuseElementwiseOptions fuse;
    fuse.collapseEpilogues = options.collapseEpilogues;
    fuse.broadcastProducers = options.fuseBroadcastProducers;
    pm.addPass(tt::createTTFuseElementwise(fuse));
    // Transposes first: a cast may feed the contraction through one.
    pm.addNestedPass<func::FuncOp>(tt::createTTFoldTransposes());
    pm.addNestedPass<func::FuncOp>(tt::createTTFuseCastsIntoContractions());
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tt::buildTTDistributePipeline(OpPassManager &pm) {
  pm.addPass(tt::createTTShardArguments());
  // Forward: a split reaches each op from its operands first, so that a
  // contraction over a split dimension becomes a local product and one
  // all-reduce (Megatron's row-parallel layers), rather than an all-gather
  // a replicated consumer asked for.
  shard::ShardingPropagationOptions propagation;
  propagation.traversal = shard::TraversalOrder::ForwardBackward;
  pm.addNestedPass<func::FuncOp>(shard::createShardingPropagation(propagation));
  pm.addNestedPass<func::FuncOp>(tt::createTTCompleteSharding());
  pm.addNestedPass<func::FuncOp>(shard::createPartition());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(tt::createTTLowerShardCollectives());
  pm.addPass(createConvertShardToMPIPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Tiling, fusion and vectorisation on tensors.
static void buildCodegenOnTensors(OpPassManager &pm,
                                  const tt::LowerToLLVMOptions &options) {
  // Results that update an argument (tt.updated_by) are computed into it:
  // before tiling, which sees the elementwise update as one.
  pm.addPass(tt::createTTResultsInArguments());
  pm.addPass(createCanonicalizerPass());
  if (options.collapseElementwise)
    pm.addNestedPass<func::FuncOp>(tt::createTTCPUCollapseElementwise());
  if (options.reciprocalDivisors)
    pm.addNestedPass<func::FuncOp>(tt::createTTCPUReciprocalDivisors());
  if (options.tile) {
    bool alignColumns =
        options.alignColumns == tt::AlignColumnsMode::On ||
        (options.alignColumns == tt::AlignColumnsMode::Auto &&
         tt::CPUTarget::get(options.vectorBits).readsStridedRowsFast);
    if (options.pack && alignColumns) {
      tt::TTCPUAlignColumnsOptions align;
      align.vectorBits = options.vectorBits;
      pm.addNestedPass<func::FuncOp>(tt::createTTCPUAlignColumns(align));
      pm.addPass(createCanonicalizerPass());
    }
    bool prepack = options.pack && options.prepack;
    if (prepack) {
      tt::TTCPUPrepackConstantsOptions prepackOptions;
      prepackOptions.vectorBits = options.vectorBits;
      prepackOptions.l2KiB = options.l2KiB;
      pm.addPass(tt::createTTCPUPrepackConstants(prepackOptions));
    }
    // One zero fill per contraction, which tiling computes in its tiles.
    pm.addPass(tt::createTTUntieEmptyTensors());
    tt::TTCPUTileAndFuseOptions tiling;
    tiling.vectorBits = options.vectorBits;
    tiling.l2KiB = options.l2KiB;
    tiling.fuse = options.fusion;
    tiling.pack = options.pack;
    tiling.windowVectors = options.windowVectors;
    tiling.registerFill = options.registerFill;
    tiling.fuseRows = options.fuseRows;
    tiling.prefetch = options.prefetch;
    tiling.prepack = prepack;
    pm.addNestedPass<func::FuncOp>(tt::createTTCPUTileAndFuse(tiling));
    pm.addPass(createCanonicalizerPass());
    if (prepack)
      pm.addPass(tt::createTTCPUPrepareConstants());
  }
  if (options.vectorize) {
    tt::TTCPUVectorizeOptions vectorize;
    vectorize.masked = options.masked;
    vectorize.unmaskContractions = options.unmaskContractions;
    vectorize.foldUnitLoops = options.foldUnitLoops;
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

/// One-shot bufferisation across function boundaries (identity layouts),
/// results as caller-allocated arguments if `outParams`, deallocation.
static void buildBufferization(OpPassManager &pm, bool outParams,
                               bool hoistBuffers, bool eliminateEmpty) {
  pm.addPass(tt::createTTUntieEmptyTensors());
  // A value inserted into a larger tensor (a concatenation: max pooling's
  // padding) is computed in its place there, not copied in. Before
  // the copies of repeated results, which it would see as insertions too.
  if (eliminateEmpty)
    pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addNestedPass<func::FuncOp>(tt::createTTCopyRepeatedResults());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (outParams)
    pm.addPass(tt::createTTResultsToOutParams());
  if (hoistBuffers) {
    // Loops no longer carry the buffers they write in place as iter_args.
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(tt::createTTCPUHoistBuffers());
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
    optimize.convMatmul = options.convMatmul;
    // Sharding propagation and partitioning see one function at a time.
    if (options.distribute)
      optimize.outline = false;
    buildTTOptimizePipeline(pm, optimize);
  }
  if (options.distribute)
    buildTTDistributePipeline(pm);
  // The calling convention of the Python runtime: booleans are bytes.
  if (options.outParams)
    pm.addPass(tt::createTTBooleanABI());
  buildCodegenOnTensors(pm, options);
  // Padded tensors (convolution inputs) as fills and insertions, after
  // tiling, which would tile the fills and CSE then merge them: empty-tensor
  // elimination computes the padded value in its place, and each insertion
  // has a fill of its own.
  if (options.decomposePads && options.eliminateEmptyTensors)
    pm.addNestedPass<func::FuncOp>(tt::createTTDecomposePads());
  buildBufferization(pm, options.outParams, options.hoistBuffers,
                     options.eliminateEmptyTensors);

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
  if (options.outline) {
    tt::TTOutlineLoopsOptions outline;
    outline.share = options.shareLoops;
    pm.addPass(tt::createTTOutlineLoops(outline));
  }
  // From here on most passes need nothing outside the function they
  // change: they run nested, on the context's threads, one function (the
  // entry, each loop nest tt-outline-loops made) at a time.
  if (options.threads != 1) {
    ConvertSCFToOpenMPPassOptions openmp;
    openmp.numThreads = options.threads;
    pm.addPass(createConvertSCFToOpenMPPass(openmp));
    // Drops the memref.alloca_scope it wraps loop bodies in when they
    // allocate nothing on the stack.
    OpPassManager &scopes = pm.nest<func::FuncOp>();
    scopes.addPass(tt::createTTInlineAllocaScopes());
    scopes.addPass(createCanonicalizerPass());
  }
  OpPassManager &math = pm.nest<func::FuncOp>();
  if (options.fastMath)
    math.addPass(tt::createTTApproximateMath());
  math.addPass(tt::createTTCPUExpandBF16());
  // math.ipowi (integer tt.pow) has no LLVM or libm lowering: expand it into
  // a helper function first.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(tt::createTTEmitCInterface());
  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(createLowerAffinePass());
  loops.addPass(createSCFToControlFlowPass());
  loops.addPass(tt::createTTLowerDynamicExpandShapes());
  loops.addPass(memref::createExpandStridedMetadataPass());
  loops.addPass(createLowerAffinePass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.genericAlloc;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(tt::createTTConvertMPIToLLVM());
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  // Before the vector conversion: libm calls on vectors are made per element
  // with vector.extract/insert.
  pm.addPass(createConvertMathToLibmPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  OpPassManager &scalars = pm.nest<func::FuncOp>();
  scalars.addPass(createArithToLLVMConversionPass());
  scalars.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  OpPassManager &rest = pm.nest<LLVM::LLVMFuncOp>();
  rest.addPass(createUBToLLVMConversionPass());
  rest.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(tt::createTTMPIRuntimeCalls());
  pm.addNestedPass<LLVM::LLVMFuncOp>(createCanonicalizerPass());
}

/// The CUDA toolkit (ptxas, libdevice): the option, else $CUDA_HOME,
/// $CUDA_PATH or /usr/local/cuda.
static std::string cudaToolkit(const tt::LowerToNVVMOptions &options) {
  if (!options.cudaPath.empty())
    return options.cudaPath;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *path = std::getenv(var); path && *path)
      return path;
  return "/usr/local/cuda";
}

static bool hasLibdevice(const std::string &toolkit) {
  return llvm::sys::fs::exists(toolkit + "/nvvm/libdevice/libdevice.10.bc");
}

void tt::buildTTLowerToNVVMPipeline(OpPassManager &pm,
                                    const LowerToNVVMOptions &options) {
  if (options.optimize) {
    OptimizeOptions optimize;
    optimize.fusion = options.fusion;
    optimize.convMatmul = false;
    optimize.fuseBroadcastProducers = true;
    buildTTOptimizePipeline(pm, optimize);
  }
  pm.addPass(tt::createTTBooleanABI());

  // Blocks and threads on tensors.
  tt::TTGPUTileAndDistributeOptions distribute;
  distribute.fuse = options.fusion;
  distribute.fuseRows = options.fuseRows;
  distribute.blockReduction = options.blockReduction;
  distribute.threadsPerBlock = options.threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(tt::createTTGPUTileAndDistribute(distribute));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Buffers: the caller passes device buffers for arguments and results.
  buildBufferization(pm, /*outParams=*/true, /*hoistBuffers=*/false,
                     /*eliminateEmpty=*/true);
  pm.addPass(createCanonicalizerPass());

  // Kernels.
  tt::TTGPUMapToLaunchOptions launch;
  launch.sharedMemoryMatmul = options.sharedMemoryMatmul;
  pm.addNestedPass<func::FuncOp>(tt::createTTGPUMapToLaunch(launch));
  pm.addNestedPass<func::FuncOp>(tt::createTTGPUDeviceMemory());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // math.ipowi (integer tt.pow) becomes a helper function, which outlining
  // copies into the kernels' modules.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(tt::createTTGPUAlignWorkgroupMemory());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  // The host: streams for the launches, then LLVM.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(tt::createTTEmitCInterface());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  if (options.binary) {
    // Without libdevice, PTX of kernels that call none of it still works
    // (and cubins, with ptxas from $PATH); tt-gpu-require-libdevice reports
    // the others by name.
    std::string toolkit = cudaToolkit(options);
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = options.format;
    if (hasLibdevice(toolkit)) {
      binary.toolkitPath = toolkit;
    } else {
      tt::TTGPURequireLibdeviceOptions require;
      require.searched = toolkit + "/nvvm/libdevice/libdevice.10.bc";
      pm.addPass(tt::createTTGPURequireLibdevice(require));
    }
    pm.addPass(createGpuModuleToBinaryPass(binary));
  }
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
  PassPipelineRegistration<>(
      "tt-distribute",
      "Optimised linalg with tt.grid / tt.split_axes attributes -> one "
      "process's part of it, with MPI collectives (sharding annotations, "
      "MLIR's sharding propagation and partitioning, collectives to mpi)",
      buildTTDistributePipeline);
  PassPipelineRegistration<LowerToNVVMOptions>(
      "tt-lower-to-nvvm",
      "tt -> host code in the LLVM dialect launching NVVM kernels, with the "
      "kernels in gpu.binary (PTX or cubin) for an NVIDIA GPU",
      buildTTLowerToNVVMPipeline);
}
