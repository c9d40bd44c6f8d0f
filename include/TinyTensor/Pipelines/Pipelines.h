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

/// When `tt-lower-to-llvm` runs --tt-cpu-align-columns.
enum class AlignColumnsMode { Auto, On, Off };

/// Options of `tt-optimize`.
struct OptimizeOptions : public PassPipelineOptions<OptimizeOptions> {
  PassOptions::Option<bool> fusion{
      *this, "fusion",
      llvm::cl::desc("Fuse elementwise linalg ops (producers into consumers), "
                     "element-type conversions and transposes into "
                     "contractions"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> collapseEpilogues{
      *this, "collapse-epilogues",
      llvm::cl::desc("Collapse elementwise consumers of a reshaped "
                     "contraction result to the contraction's shape, so "
                     "that they run in its blocks (when fusion=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseBroadcastProducers{
      *this, "fuse-broadcast-producers",
      llvm::cl::desc("With fusion: fuse a producer into a user that "
                     "broadcasts it (--tt-fuse-elementwise's "
                     "broadcast-producers; tt-lower-to-nvvm turns it on)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> outline{
      *this, "outline-repeated",
      llvm::cl::desc("Compile repeated source calls once, as one function "
                     "(tt-outline-repeated-scopes; needs the tracer's "
                     "tt.scope attributes)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> convMatmul{
      *this, "conv-matmul",
      llvm::cl::desc("Compute convolutions with more than one input channel "
                     "per group as matrix products over their patches, the "
                     "CPU's strategy (--tt-cpu-convolutions right after "
                     "tt-to-linalg; tt-lower-to-nvvm turns it off)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> depthwiseChannelsLast{
      *this, "channels-last-depthwise",
      llvm::cl::desc("With conv-matmul: compute depthwise convolutions "
                     "channels last, vectors of channels "
                     "(--tt-cpu-convolutions' channels-last-depthwise)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> channelsLast{
      *this, "channels-last",
      llvm::cl::desc("With conv-matmul: compute convolutions of one group "
                     "and depthwise ones channels last, and keep the values "
                     "between them channels last (--tt-channels-last)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> groupedChannelsLast{
      *this, "channels-last-grouped",
      llvm::cl::desc("With channels-last: also convolutions of several "
                     "groups with several input channels each (ResNeXt, "
                     "RegNet), a product per group over channels-last "
                     "patch rows (--tt-channels-last's grouped)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> convPatchBlocks{
      *this, "conv-patch-blocks",
      llvm::cl::desc("With conv-matmul: build a dense 2-D convolution's "
                     "patch rows a block of output rows at a time, just "
                     "before the block's product, when all of them would "
                     "leave the caches (--tt-cpu-convolutions' "
                     "patch-blocks)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> sinkRowSelections{
      *this, "sink-row-selections",
      llvm::cl::desc("Compute only the rows of a value that its uses select "
                     "(tt-sink-row-selections: `logits[-1]` computes one "
                     "row of the product that makes the logits)"),
      llvm::cl::init(true)};
};

/// Options of `tt-lower-to-llvm`.
struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run the tt-optimize stage first (turn off when the "
                     "input is already optimised linalg)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fusion{
      *this, "fusion",
      llvm::cl::desc("tt-optimize's fusion (when optimize=true) and fusion "
                     "of producers into tile loops (when tile=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> convMatmul{
      *this, "conv-matmul",
      llvm::cl::desc("Compute convolutions with more than one input channel "
                     "per group as matrix products over their patches "
                     "(--tt-cpu-convolutions; when optimize=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tile{
      *this, "tile",
      llvm::cl::desc("Tile for threads, caches and registers "
                     "(--tt-cpu-tile-and-fuse)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseRows{
      *this, "fuse-rows",
      llvm::cl::desc("Compute row reductions (layer norm, softmax) and "
                     "their elementwise consumer one row at a time (when "
                     "tile=true and fusion=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> f32PartialSums{
      *this, "f32-partial-sums",
      llvm::cl::desc("Float32 values a vector lane adds in float32 before a "
                     "float64 accumulator takes the sum (1: widen every "
                     "element; when vectorize=true)"),
      llvm::cl::init(8)};
  PassOptions::Option<bool> pack{
      *this, "pack",
      llvm::cl::desc("Copy matmul panels of B into contiguous strips "
                     "(when tile=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> prepack{
      *this, "prepack",
      llvm::cl::desc("Matmuls whose B is a constant argument (tt.constant, "
                     "from jit(freeze=True)) read it packed whole, and what "
                     "a function computes from constant arguments alone "
                     "moves to <name>_tt_prepare, run once "
                     "(when tile=true and pack=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<AlignColumnsMode> alignColumns{
      *this, "align-columns",
      llvm::cl::desc("Matmuls with at most 64 rows that convert B to a "
                     "wider type read B in place, split at run time so that "
                     "each register tile's strip of B starts on a cache "
                     "line (--tt-cpu-align-columns; when tile=true and "
                     "pack=true)"),
      llvm::cl::init(AlignColumnsMode::Auto),
      llvm::cl::values(
          clEnumValN(AlignColumnsMode::Auto, "auto",
                     "on CPUs where reading B in place measured faster "
                     "than packing it (AMD), else off"),
          clEnumValN(AlignColumnsMode::On, "true", "always"),
          clEnumValN(AlignColumnsMode::Off, "false", "never"))};
  PassOptions::Option<bool> registerFill{
      *this, "register-fill",
      llvm::cl::desc("Start a matmul's register accumulators at zero instead "
                     "of filling C first, when no cache block splits K "
                     "(when tile=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> prefetch{
      *this, "prefetch",
      llvm::cl::desc("Dot-product kernels (x @ w.T with few rows) prefetch "
                     "the rows of w that the next register tile reads, when "
                     "w is a function argument, matmuls that read w "
                     "packed whole (prepack) the next strip, and the "
                     "packing of an argument w whose rows are more than "
                     "8 KiB apart the rows it copies next (matmuls with "
                     "fewer than 512 rows; when tile=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> windowVectors{
      *this, "window-vectors",
      llvm::cl::desc("Vectorise reductions over small windows (pooling) "
                     "along the parallel loop their producer reads "
                     "contiguously, e.g. channels (when tile=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> foldUnitLoops{
      *this, "fold-unit-loops",
      llvm::cl::desc("Replace loops of one iteration by 0 in a tile's "
                     "compound indexing expressions (window gathers), so "
                     "that it vectorises (when vectorize=true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> masked{
      *this, "masked",
      llvm::cl::desc("Vectorise tiles of run-time size with masks (when "
                     "vectorize=true; else they stay scalar loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> unmaskContractions{
      *this, "unmask-contractions",
      llvm::cl::desc("Compute matmul register tiles whose rows are masked "
                     "(a run-time row count) as whole tiles, storing only "
                     "the rows that exist"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Vectorise tiles with MLIR's vector dialect "
                     "(--tt-cpu-vectorize, --tt-cpu-lower-vectors)"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("Threads for parallel tile loops: 1 runs them "
                     "sequentially, 0 leaves the count to the OpenMP runtime "
                     "at run time (TT_NUM_THREADS in Python), N fixes it"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width the strategy assumes (0: the "
                     "host CPU's)"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> l2KiB{
      *this, "l2-kib",
      llvm::cl::desc("L2 cache of one core in KiB the strategy assumes (0: "
                     "the host CPU's when vector-bits=0, else 1024)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> interchange{
      *this, "interchange",
      llvm::cl::desc("Reorder the loops of contractions left unvectorised so "
                     "the innermost loop is contiguous"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("Use vectorisable polynomial approximations for f32 "
                     "tanh/exp/log/erf instead of libm calls"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> collapseElementwise{
      *this, "collapse-elementwise",
      llvm::cl::desc("Run elementwise ops whose innermost dimension is short "
                     "as one loop over the flattened tensors "
                     "(--tt-cpu-collapse-elementwise)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> reciprocalDivisors{
      *this, "reciprocal-divisors",
      llvm::cl::desc("x / s with s the same along the innermost loop (a "
                     "row's sum or norm) becomes x * (1 / s), one division "
                     "per row (--tt-cpu-reciprocal-divisors; may differ from "
                     "x / s in the last bit)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorMath{
      *this, "vector-math",
      llvm::cl::desc("f64 tanh/exp/log/erf on vectors through glibc's libmvec "
                     "(x86 with AVX2 or AVX-512; the code then needs "
                     "libmvec.so.1 at run time)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> outline{
      *this, "outline",
      llvm::cl::desc("Outline each loop nest into its own function (keeps "
                     "LLVM compile time linear in program size)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> shareLoops{
      *this, "share-loops",
      llvm::cl::desc("With outline: loop nests equal but for where their "
                     "views start (an attention's head copies) call one "
                     "function (tt-outline-loops' share)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> decomposePads{
      *this, "decompose-pads",
      llvm::cl::desc("Compute a padded tensor as a fill and an insertion "
                     "(--tt-decompose-pads), so that with "
                     "eliminate-empty-tensors the padded value is computed "
                     "in its place"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> eliminateEmptyTensors{
      *this, "eliminate-empty-tensors",
      llvm::cl::desc("Compute a value inserted into a larger tensor (a "
                     "concatenation, as max pooling's padding) in its place "
                     "there "
                     "(upstream --eliminate-empty-tensors before "
                     "bufferisation)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> hoistBuffers{
      *this, "hoist-buffers",
      llvm::cl::desc("Allocate a buffer used within one iteration of a "
                     "sequential loop once, before the loop "
                     "(--tt-cpu-hoist-buffers)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> genericAlloc{
      *this, "generic-alloc",
      llvm::cl::desc("Buffers are allocated with _mlir_memref_to_llvm_alloc "
                     "and released with _mlir_memref_to_llvm_free instead "
                     "of malloc and free (the code's loader provides them: "
                     "the Python runtime reuses buffers across calls)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> distribute{
      *this, "distribute",
      llvm::cl::desc("After tt-optimize (without outlining), run "
                     "tt-distribute: the module's tt.grid and its "
                     "functions' tt.split_axes attributes make it one "
                     "process's part of a program over MPI ranks"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> outParams{
      *this, "out-params",
      llvm::cl::desc("Turn returned buffers into caller-allocated output "
                     "arguments, and pass boolean tensors of public "
                     "functions as bytes (i8, tt-boolean-abi)"),
      llvm::cl::init(false)};
};

/// Options of `tt-lower-to-nvvm`.
struct LowerToNVVMOptions : public PassPipelineOptions<LowerToNVVMOptions> {
  PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run tt-optimize first (the input is tt; off: the "
                     "input is already linalg on tensors)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fusion{
      *this, "fusion",
      llvm::cl::desc("Elementwise fusion, and producers fused into their "
                     "consumers' blocks"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseRows{
      *this, "fuse-rows",
      llvm::cl::desc("One block per row for an elementwise op consuming row "
                     "reductions (softmax, layer norm), reductions fused in"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> blockReduction{
      *this, "block-reduction",
      llvm::cl::desc("Reduce long rows with every thread of a block "
                     "(gpu.all_reduce); off: one thread per output"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> sharedMemoryMatmul{
      *this, "shared-memory-matmul",
      llvm::cl::desc("Stage matmul operands through workgroup memory"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads per block (a multiple of 32)"),
      llvm::cl::init(256)};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target GPU (sm_90: H100, H200)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features (the PTX ISA version)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimisation level of the NVPTX back end (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binaries: isa (PTX), bin (cubin, through the "
                     "CUDA toolkit's ptxas), fatbin, offload (LLVM IR)"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit (ptxas and libdevice); empty: "
                     "$CUDA_HOME, $CUDA_PATH, /usr/local/cuda"),
      llvm::cl::init("")};
  PassOptions::Option<bool> binary{
      *this, "binary",
      llvm::cl::desc("Serialise the GPU modules (gpu-module-to-binary); "
                     "off: stop at the NVVM dialect"),
      llvm::cl::init(true)};
};

/// tt -> optimised linalg on tensors: canonicalise, CSE, convert, fuse.
void buildTTOptimizePipeline(OpPassManager &pm, const OptimizeOptions &options);

/// Optimised linalg whose module has a `tt.grid` attribute (and whose public
/// functions' arguments and results `tt.split_axes` attributes) -> this
/// process's part of the program: `shard` annotations, sharding
/// propagation, partitioning, collectives as `mpi` ops.
void buildTTDistributePipeline(OpPassManager &pm);

/// tt (or optimised linalg) -> LLVM dialect for the host CPU: tiling and
/// fusion, vectorisation, one-shot bufferisation across function
/// boundaries, deallocation, OpenMP for parallel loops, and lowering of
/// every remaining dialect to LLVM with C-interface wrappers.
void buildTTLowerToLLVMPipeline(OpPassManager &pm,
                                const LowerToLLVMOptions &options);

/// tt (or optimised linalg) -> host code in the LLVM dialect that launches
/// NVVM kernels: blocks and threads (tt-gpu-tile-and-distribute), one-shot
/// bufferisation, gpu.launch (tt-gpu-map-to-launch), device memory on the
/// host side, kernel outlining, NVVM, and gpu.binary with PTX or cubin.
void buildTTLowerToNVVMPipeline(OpPassManager &pm,
                                const LowerToNVVMOptions &options);

/// Registers `tt-optimize`, `tt-lower-to-llvm` and `tt-lower-to-nvvm` with
/// the pass registry.
void registerTTPipelines();

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_PIPELINES_PIPELINES_H
