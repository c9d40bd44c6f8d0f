//===- Passes.td - TinyTensor code generation passes -------*- tablegen -*-===//
//
// The back end: linalg-level rewrites, tiling, fusion, vectorisation and the
// passes that prepare buffers and functions for LLVM. None of these touch a
// tt op; the named pipelines in lib/Pipelines put them in order.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_CODEGEN_PASSES_TD
#define TINYTENSOR_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Common (target-independent) linalg rewrites
//===----------------------------------------------------------------------===//

def TTFoldTransposes : Pass<"tt-fold-transposes", "func::FuncOp"> {
  let summary = "Read transposed operands of linalg ops in place";
  let description = [{
    A `linalg.generic` (elementwise or not) or a contraction
    (`linalg.matmul`, `linalg.batch_matmul`, which become generics) whose
    input is produced by a `linalg.transpose` reads the transpose's input
    instead, with the permutation folded into its indexing map. `x @ w.T`
    then reads `w` in place rather than materialising its transpose, and so
    does `x @ w.T.astype(np.float64)` (the conversion reads `w` transposed
    and is then fused into the contraction by
    `--tt-fuse-casts-into-contractions`). The transpose is erased when
    nothing else uses it. A product's left operand is not folded when that
    would swap its two innermost dimensions (`x.T @ dy`), nor moved out
    of them: the matmul kernels read it only as [.., m, k].
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TTDecomposePads : Pass<"tt-decompose-pads", "func::FuncOp"> {
  let summary = "Compute a padded tensor as a fill and an insertion";
  let description = [{
    Each `tensor.pad` with a constant padding value becomes a `linalg.fill`
    of the padded shape with that value and a `tensor.insert_slice` of the
    source into it (upstream's `DecomposePadOpPattern`). The CPU pipeline
    runs it after tiling (`decompose-pads`), right before bufferisation:
    `--eliminate-empty-tensors` then makes the op that produces the source
    write it in its place in the padded tensor, so that the input of a
    padded convolution (the ReLU of the layer before) is no longer computed
    into a buffer of its own and copied into the padded one on one thread.
    (Before tiling, the tiled fills of same-shaped pads would be merged by
    CSE and copied apart again.)
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TTBooleanABI : Pass<"tt-boolean-abi", "ModuleOp"> {
  let summary = "Pass booleans across public function boundaries as bytes";
  let description = [{
    Every `i1` tensor argument and result of a public `func.func` (with a
    body) becomes an `i8` tensor: arguments are compared with zero on
    entry, results are zero-extended before `func.return`. An `i1` memref
    in LLVM is bit-packed in vectors, while NumPy's `bool` and C's `bool`
    are one byte holding 0 or 1; after this pass a caller passes and
    receives NumPy boolean arrays as they are. The conversions are
    `linalg.generic`s, fused with the code that produces or reads them.
    `tt-lower-to-llvm` runs it when `out-params` is set (the calling
    convention of TinyTensor's Python runtime).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TTFuseElementwise : Pass<"tt-fuse-elementwise"> {
  let summary = "Elementwise fusion that keeps contractions' loop nests";
  let description = [{
    MLIR's elementwise fusion (`--linalg-fuse-elementwise-ops`: producers
    into consumers, reshapes propagated by expansion, constant folding),
    except that a reshape is not folded into a contraction (a linalg op
    with reduction loops reading two or more inputs): folding the
    `[N*OH*OW, C*KH*KW]` reshape of a convolution's im2col matrix into its
    matmul gives a seven-loop contraction the matmul strategy does not
    tile, and a matmul is fastest as the three loops it is. A
    `collapse_shape` is folded into the elementwise op that reads it
    whatever its number of uses (nothing is computed twice: the op's other
    users read a collapse of the expanded result), so that a residual
    stream is expanded in one sweep of the greedy driver rather than one
    sweep per residual addition; an op is expanded into its
    `expand_shape` user only when that is its single use (two users
    expanding it differently would pass it back and forth).

    A producer is not fused into a matmul (unless it only moves elements:
    a copy, transpose or broadcast): the matmul would compute it once per
    column of its result, and the kernels would no longer see a matmul (a
    batch norm before a 1 x 1 convolution stays the previous product's
    epilogue instead). Without `broadcast-producers` (the default), neither
    is a producer that its user broadcasts (reads along fewer loops than
    the user has): a batch norm's `sqrt(var + eps)` is computed once per
    channel, not once per pixel. The GPU pipeline, where recomputing is
    cheaper than another kernel, turns it on.

    With `collapse-epilogues` (the default), a second phase follows,
    without the expansion patterns: an elementwise op that reads a
    matmul's result or its epilogue through an `expand_shape` (a bias and
    activation after `(x @ w).reshape(batch, seq, d)`) is collapsed to the
    matmul's shape (`populateFoldReshapeOpsByCollapsingPatterns`) and
    fused with the rest of the epilogue, so that the back end computes it
    in the matmul's blocks instead of in a pass of its own.
  }];
  let options =
      [Option<"collapseEpilogues", "collapse-epilogues", "bool",
              /*default=*/"true",
              "Collapse elementwise consumers of a reshaped contraction result "
              "to the contraction's shape">,
       Option<"broadcastProducers", "broadcast-producers", "bool",
              /*default=*/"false",
              "Fuse a producer into a user that broadcasts it (computing it "
              "again for every element of the user)">];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect"];
}

//===----------------------------------------------------------------------===//
// CPU code generation
//===----------------------------------------------------------------------===//

def TTCPUConvolutions : Pass<"tt-cpu-convolutions", "func::FuncOp"> {
  let summary = "Choose how each convolution is computed on the CPU";
  let description = [{
    Rewrites each convolution in tt-to-linalg's form (a `linalg.generic`
    over `(n, g, f, o..., c, k...)`, see `Convolution.h`) by its shape
    class, so that the matmul kernels of `--tt-cpu-tile-and-fuse` compute
    the dense ones:

    - more than one input channel per group: a batched matrix product per
      image and group; the weights are a free view of PyTorch's `[F, C,
      K...]` layout as `[F, C * K]`. A 1 x 1 kernel with unit strides is
      `[F, C] @ [C, O]` with the input as a free view; a product shallower
      than 256 (`C * K`) is `[F, C * K] @ [C * K, O]` over the patches as
      columns (im2col, `[N, G, C, K..., O...]`, one parallel
      `linalg.generic`); a deeper one `[O, C * K] @ [F, C * K].T` over the
      patches as rows (`[N, G, O..., C, K...]`), its `[O, F]` result
      transposed. The result is `[N, F, O...]` either way. A 2-D one with
      one group whose patches would leave the caches is computed a block
      of output rows at a time (`patch-blocks`): an `scf.forall` over
      images and blocks, each block's patch rows (channels innermost,
      `[rows * OW, KH * KW * C]`) built just before its product.
    - one input and one output channel per group (depthwise): computed
      channels last, the padded input transposed to `[N, S..., C]`, the
      window sums vectorised along the channels (contiguous whatever the
      strides), the result transposed back (`channels-last-depthwise`);
      with a channel multiplier, or with the option off, the direct
      reduction over the window per output element.

    `tt-optimize` runs the pass right after `--tt-to-linalg` unless
    `conv-matmul=false` (`tt-lower-to-nvvm` turns it off); the
    measurements behind the choices are in `Convolutions.cpp`.
  }];
  let options =
      [Option<"channelsLastDepthwise", "channels-last-depthwise", "bool",
              /*default=*/"true",
              "Compute depthwise convolutions channels last (vectors of "
              "channels) instead of as the direct reduction">,
       Option<"patchBlocks", "patch-blocks", "bool", /*default=*/"true",
              "Build the patch rows of a dense 2-D convolution a block of "
              "output rows at a time, each just before its product, when all "
              "of them would leave the caches">];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TTCPUCollapseElementwise
    : Pass<"tt-cpu-collapse-elementwise", "func::FuncOp"> {
  let summary = "Run elementwise ops with a short innermost dimension as "
                "one loop over the flattened tensors";
  let description = [{
    A `linalg.generic` whose loops are all parallel and whose operands are
    all read and written at the loops' indices (identity maps: no
    broadcast, no transpose, no `linalg.index`) is collapsed to one loop
    when its innermost dimension is static and shorter than 64: the vector
    tiles would otherwise run along that dimension (an SGD step over a
    [64, 64, 3, 3] convolution weight took vectors of 3 elements). The
    operands become `tensor.collapse_shape`s of themselves, free views of
    contiguous tensors. Ops next to a contraction or another kind of linalg
    op are left alone, so that tiling still fuses them into it; chains of
    such elementwise ops collapse together, the reshapes between them
    cancelling.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TTCPUExpandBF16 : Pass<"tt-cpu-expand-bf16"> {
  let summary = "Integer bfloat16 conversions for the vector lengths LLVM's "
                "x86 back end fails on";
  let description = [{
    LLVM 22's InstCombine shrinks `fptrunc(fmul(fpext a, fpext b))` from
    f32 to bfloat arithmetic (exact for one operation); the x86 back end
    then splits a vector of 33, 65, ... elements (one more than a multiple
    of 32) into a one-element piece it cannot legalise and aborts the
    process ("Do not know how to soft promote this operator's operand", on
    CPUs with AVX512-BF16: a bfloat16 elementwise op over rows of 33). This
    pass expands the `arith.truncf` and `arith.extf` to or from bfloat16 of
    those vector lengths into integer operations (upstream's
    `populateExpandBFloat16Patterns`: round to nearest even, NaNs kept), which
    InstCombine does not see through; other lengths keep the one-instruction
    conversions.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TTCPUReciprocalDivisors
    : Pass<"tt-cpu-reciprocal-divisors", "func::FuncOp"> {
  let summary = "Multiply by the reciprocal of a divisor that is the same "
                "along the innermost loop";
  let description = [{
    In an elementwise `linalg.generic`, `arith.divf %x, %s` where `%s` is
    the same along the innermost loop becomes `arith.mulf %x, %r`, `%r`
    read from a new `linalg.generic` that computes `1 / s`. `%s` may be an
    input whose indexing map does not use the innermost loop, or computed
    in the body by pure ops (no `linalg.index`) from such inputs, all read
    with the same indexing map, and from values defined outside the op
    (layer_norm's `sqrt(var * (1 / n) + eps)` after fusion); the new op
    runs over those inputs' shape and computes `s` as the body did. Ops of
    the divisor and inputs that nothing else in the body uses go.
    `--tt-cpu-tile-and-fuse` fuses the new op into the consumer's tiles, so
    each row of softmax or layer_norm takes one division per tile instead
    of one per element: a vector division costs about ten multiplications
    (on a 2-core Sapphire Rapids: softmax 1024 x 1024 f32 0.287 -> 0.266
    ms; layer_norm 4096 x 768 0.689 -> 0.657 ms in f32, 1.47 -> 1.24 ms in
    f64). `x * (1 / s)` may differ from `x / s` in the last bit (two
    roundings instead of one);
    `--tt-lower-to-llvm` runs the pass unless `reciprocal-divisors=false`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def TTCPUAlignColumns : Pass<"tt-cpu-align-columns", "func::FuncOp"> {
  let summary = "Split matmuls with few rows at run time so that they read "
                "B in place, whole cache lines at a time";
  let description = [{
    A matmul `C[m, n] = A[m, k] @ B[k, n]` with at most `max-rows` rows
    (a model over a handful of tokens) uses each element of B a few times
    only: packing B's panels into strips then costs about as much as the
    multiplication, as the copy streams B from memory with nothing to
    overlap. Read in place, B streams while the FMAs run, provided each
    register tile's strip of a row of B is whole cache lines; a NumPy
    array usually starts 16 bytes past a line, and then every strip
    straddles two.

    The op is split when B is an argument of the function that the op
    converts to a wider type (float32 weights in a float64 model; with B
    of C's own type the products wait on memory either way), a row of B is
    a whole number of lines, C starts as a fill, and it is a plain 2-D
    matmul the strategy would pack with n a multiple of `w` (the register
    strip, at least a line) and at least 4 `w`. It becomes three copies of
    the op on slices of B and C, inserted into C in this order: the first
    `w` columns and the last `w` columns (static), then the `n - w`
    columns from `q` on, where `q` (fewer than a line's elements) is
    computed at run time from B's address (`bufferization.to_buffer`,
    `memref.extract_aligned_pointer_as_index` and the buffer's offset) so
    that they start on a line. The middle part covers what the edges do
    not and overwrites the columns they share with the same sums. Each
    part is marked `tt.rhs_in_place`: `--tt-cpu-tile-and-fuse` reads its
    B unpacked, gives threads strips of columns and runs each register
    tile over the whole reduction.

    On a 2-core Zen 4, m x 768 (f64) @ 768 x 3072 (f32), B 16 bytes past a
    line as NumPy allocates it: m = 16 packed 41-55 GFLOP/s, split 58-79;
    m = 64 packed 69-75, split 82-91; m = 256 level (84-88 both ways, so
    the default `max-rows` is 64). GPT-2 124M float64 over 16 tokens 76.7
    -> 62.1 ms, over 64 tokens 244.9 -> 229.0 ms (A/B in one process).
    On an Intel Xeon (Sapphire Rapids) the split was slower than packing
    at every such shape (m = 64: 26 against 76 GFLOP/s), so
    `tt-lower-to-llvm`'s `align-columns=auto` runs this pass on AMD CPUs
    only.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits (0: the host CPU's), which sets "
           "the register strip">,
    Option<"maxRows", "max-rows", "int64_t", /*default=*/"64",
           "Matmuls with at most this many rows are split">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect", "::mlir::tensor::TensorDialect"
  ];
}

def TTCPUTileAndFuse : Pass<"tt-cpu-tile-and-fuse", "func::FuncOp"> {
  let summary = "Tile linalg ops for threads, caches and registers, fusing "
                "producers into the tile loops";
  let description = [{
    Code generation strategy for the host CPU, decided per op by
    `KernelConfig` (lib/Codegen/CPU/KernelConfig.cpp) from the op and the
    CPU's vector width:

    1. Every root op (a linalg op whose result is not consumed by another
       linalg op in a fusable way) is tiled with `scf.forall` over its
       parallel dimensions (the thread and cache-block level), and its
       linalg producers are fused into that loop through `TilingInterface`
       (`scf::tileConsumerAndFuseProducersUsingSCF`) when each tile needs a
       distinct slice of the producer (no recomputation): a matmul's bias +
       gelu epilogue stays in the matmul's tile, and the reductions of
       layer_norm and softmax run on the same rows as their consumers.
    2. Inside, each op is tiled again with `scf.for` for the register level:
       matmuls by `[kc]` (cache block of the reduction), then `[mc]` (rows
       in a cache block), then `[mr, nr]` (the register tile) and `[kr]`
       (the unrolled reduction step); elementwise ops and reductions by one
       vector (a few registers) along the innermost dimension. A static
       loop that a cache block does not divide is first split into two ops
       (`linalg::splitOp`), so that every block is full.
    3. For matmuls, each [kc x nc] panel of B is copied, in the K loop, into
       strips of nr columns ([nc / nr][kc][nr], the layout of `mmt4d`'s
       packed operand), which every row block then reads: the register
       tiles of a strip read one contiguous block at unit stride, not rows
       of the whole B a page or a power of two apart. A transposed B that
       the matmul converts (f64 @ f32.T) is packed 16 rows of a strip at a
       time, transposed into a scratch that stays in L1, then converted.
    4. Inside a block of rows, an elementwise op that consumes row
       reductions of the block (a layer norm's normalisation, a softmax's
       division) is tiled row by row with the reductions and their
       elementwise producers fused in (`fuse-rows`): each row is read from
       memory once and stays in L1 for the other passes over it. A
       reduction that is then a single tile takes its elementwise
       producers into its body (`linalg::fuseElementwiseOps`).
    5. Loops whose trip count the step does not divide are peeled, so the
       main loop works on full, static tiles and only the last iteration
       has a partial one.
    6. Dot products (`x @ w.T` with few rows) read B's rows where they are,
       and a register tile's first row of B comes from memory: when B is
       an argument of the function, each row tile's reduction loop
       prefetches some of the rows of B that the next register tile reads
       (`memref.prefetch` on B's buffer), so that the row tiles of one
       column tile together fetch all of them (`prefetch`). Likewise a
       matmul that reads B from a copy packed whole (`tt.packed`) would
       read each strip from memory in its first row tile: the row tiles of
       a strip prefetch the next strip of the copy instead, a cache line
       or two per iteration of their reduction loops, into L2 (locality
       2: a strip is larger than L1); the loops between a strip and its
       register tiles need constant lower bounds and steps and a constant
       bound on their upper bounds (those of a partial column block's
       strips only have the bound) (`prefetch`). And in a matmul with
       fewer than 512 rows, the copy that packs a plain B (neither
       transposed nor converted) whose rows are more than 8 KiB apart,
       which the hardware prefetchers did not follow where measured,
       prefetches into L1 the block's row 4 ahead of the one it copies,
       every cache line of it (`prefetch`).

    `vector-bits=0` (the default) asks the host CPU for its vector width
    (512 with AVX-512, 256 with AVX2, else 128). `l2-kib=0` (the default)
    takes the host's L2 size from Linux when `vector-bits=0`, else 1 MiB;
    a matmul's reduction blocks are 512 deep, or deeper while the packed
    panel of B fills at most half of it.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits (0: the host CPU's)">,
    Option<"l2KiB", "l2-kib", "unsigned", /*default=*/"0",
           "L2 cache of one core in KiB, which sizes a matmul's reduction "
           "blocks (0: the host CPU's when vector-bits=0, else 1024)">,
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Fuse producers into the tile loops of their consumers">,
    Option<"peel", "peel", "bool", /*default=*/"true",
           "Peel partial tiles off the register-level loops">,
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"true",
           "Compute row reductions and their elementwise consumer row by "
           "row inside each block (when fuse=true)">,
    Option<"pack", "pack", "bool", /*default=*/"true",
           "Copy each [kc x nc] panel of a matmul's B into contiguous "
           "strips before the register tiles read it">,
    Option<"registerFill", "register-fill", "bool", /*default=*/"true",
           "Fuse a matmul's zero fill of C down to the register tiles when "
           "no cache block splits K (accumulators start at zero)">,
    Option<"windowVectors", "window-vectors", "bool", /*default=*/"true",
           "Vectorise reductions over small windows (pooling) along the "
           "parallel loop their producer reads contiguously (channels "
           "last) instead of along the windows">,
    Option<"prefetch", "prefetch", "bool", /*default=*/"true",
           "Dot-product kernels whose B is a function argument prefetch "
           "the rows of B that the next register tile reads, matmuls "
           "that read B packed whole the next strip, and the packing of "
           "a B argument whose rows are more than 8 KiB apart the rows it "
           "copies next (matmuls with fewer than 512 rows)">,
    Option<"prepack", "prepack", "bool", /*default=*/"true",
           "Matmuls read B's panels from a copy of all of B packed whole "
           "when --tt-cpu-prepack-constants made one (`tt.packed`), "
           "instead of packing each panel (with pack=true)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def TTCPUPrepackConstants : Pass<"tt-cpu-prepack-constants", "ModuleOp"> {
  let summary = "Pass constant matmul weights packed whole to the private "
                "functions that read them";
  let description = [{
    A matmul whose B is a constant argument of its function (`tt.constant`,
    what `tinytensor.jit(freeze=True)` marks) can read B from a copy of all
    of it packed into strips of the register tile's width ([ceil(n / nr)]
    [k][nr], the layout `--tt-cpu-tile-and-fuse` packs each panel in, the
    last strip padded with zeros), made once instead of panel by panel at
    every call; `--tt-cpu-prepare-constants` then moves the copy out of the
    function. For a constant argument of the matmul's own function, the
    copy is a call, at the start of the function, of a private packing
    function (`tt_pack_<k>x<n>x<type>_<nr>[_t]`, one per shape and layout,
    marked `tt.whole_pack`; B and the destination in, the packed B out),
    marked `tt.packed = {arg = i, width = nr, transposed = t}`. Weights
    can also reach the matmul through a call: a transformer layer outlined
    once and called with each layer's weights. When every call of a private
    function passes a constant argument of the caller where a matmul in the
    function reads B, the function gets a new argument, marked
    `tt.packed = {arg = i, width = nr, transposed = t}`, that its callers
    fill with their argument packed whole (built once per caller, argument
    and layout, at the start of the caller), and the matmul reads its
    panels from that argument.

    A matmul with at least 32 rows that converts B with a single
    `arith.extf` (f32 weights of a float64 model) reads a copy packed
    converted, in the wider type (`tt_pack_..._to_<type>`, `convert_to =
    <type>` in `tt.packed`): it is read at twice the bytes of B, but the
    per-panel conversion it replaces cost more (GPT-2 with float64
    activations, 32 and 64 tokens, a 2-core Xeon: see docs/performance.md),
    with the next strip prefetched by `--tt-cpu-tile-and-fuse`
    (`prefetch`). With fewer rows (16 tokens) reading the copy cost more
    than the conversion, and B is left to per-panel packing.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits (0: the host CPU's)">,
    Option<"l2KiB", "l2-kib", "unsigned", /*default=*/"0",
           "L2 cache of one core in KiB, as for tt-cpu-tile-and-fuse">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def TTCPUPrepareConstants : Pass<"tt-cpu-prepare-constants", "ModuleOp"> {
  let summary = "Move what a function computes from its constant arguments "
                "alone into a function run once";
  let description = [{
    In a public function with constant arguments (`tt.constant`), the ops
    without side effects that read only constant arguments and other such
    ops (packed copies of weights, after `--tt-cpu-tile-and-fuse`) move to
    a new public function `<name>_tt_prepare`. It takes the constant
    arguments, in their order, and stores each value the function goes on
    using in a global of its own (`<name>_tt_prepared_<i>`, uninitialised,
    64-byte aligned); the function reads the globals instead
    (`bufferization.to_tensor restrict`) and is marked
    `tt.prepare = @<name>_tt_prepare`. Constants, shapes, views and index
    arithmetic stay in the function. The caller must run the prepare
    function with the constant arguments before the first call, and again
    whenever they change (`tinytensor.jit(freeze=True)` does so once per
    specialisation). Values whose sizes are known only at run time are
    left in the function.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect"
  ];
}

def TTCPUVectorize : Pass<"tt-cpu-vectorize", "func::FuncOp"> {
  let summary = "Vectorise tiled linalg ops and keep accumulators in "
                "registers";
  let description = [{
    Runs `linalg::vectorize` on every linalg op with a static iteration
    space of at most `max-vector-elements` elements (the tiles that
    `--tt-cpu-tile-and-fuse` makes). A partial tile whose size is only
    known at run time (the last block of a loop that the block does not
    divide) is vectorised to its largest size (from
    `ValueBoundsOpInterface`) with masks, unless `masked=false`; it then
    stays scalar. A matmul tile whose static number of columns is not a
    power of two (a register tile's tail, 56 of 120) is vectorised to the
    next power of two, masked, too (LLVM legalises odd vectors element by
    element). Elementwise multiply +
    reduce pairs become `vector.contract`; transfers of loop-invariant
    subsets (a matmul's accumulator tile) are hoisted out of the reduction
    loops so they stay in registers. Ops it cannot vectorise are left for
    `convert-linalg-to-loops`.
  }];
  let options = [
    Option<"maxVectorElements", "max-vector-elements", "int64_t",
           /*default=*/"16384",
           "Largest iteration space (in elements) to vectorise as one op">,
    Option<"foldUnitLoops", "fold-unit-loops", "bool", /*default=*/"true",
           "In compound indexing expressions of a static tile (a window "
           "gather's 2 * oh + kh), replace loops of one iteration by 0, so "
           "that the maps become projected permutations the vectoriser "
           "takes">,
    Option<"masked", "masked", "bool", /*default=*/"true",
           "Vectorise tiles of run-time size, and matmul tiles of an odd "
           "static width, with masks">,
    Option<"unmaskContractions", "unmask-contractions", "bool",
           /*default=*/"true",
           "Compute matmul register tiles whose rows are masked as whole "
           "tiles (the masked rows are never stored)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TTCPULowerVectors : Pass<"tt-cpu-lower-vectors", "func::FuncOp"> {
  let summary = "Lower vector ops to what LLVM maps to the host ISA";
  let description = [{
    Lowers `vector.contract` to outer products and FMAs (dot products for
    contractions along the innermost dimension of both operands),
    elementwise ops on n-D vectors to rows, multi-dimensional reductions, broadcasts, transposes and shape casts,
    and transfers to loads and stores of rank 1. `memref.copy` between
    buffers becomes `linalg.copy` (loops LLVM vectorises rather than the
    runtime's element-by-element copy). Reductions are
    marked reassociable so that LLVM reduces in a tree (the order NumPy's
    pairwise summation also changes).

    A float32 sum accumulated in float64 (`arith.extf` feeding a
    `vector.reduction <add>`) first adds up to `f32-partial-sums` slices of
    its vector (multiples of 16 lanes) lane by lane in float32 and widens
    only their sum, one conversion per that many registers instead of one
    per register. Each lane adds that many values in float32 before the
    float64 accumulator takes over: an error bound of (f32-partial-sums - 1)
    units in the last place of the sum of magnitudes, against about
    16 + log2(N / 128) for NumPy's pairwise summation of N >= 128 float32
    values. 1 widens every element.
  }];
  let options = [
    Option<"f32PartialSums", "f32-partial-sums", "unsigned",
           /*default=*/"8",
           "Float32 values each lane adds in float32 before a float64 "
           "accumulator takes the sum (1: widen every element)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TTCPUVectorMath : Pass<"tt-cpu-vector-math", "ModuleOp"> {
  let summary = "Call glibc's vector math library for f64 math on vectors";
  let description = [{
    `math.tanh`, `math.exp`, `math.log` and `math.erf` on vectors of f64
    (which the polynomial approximations of `--tt-approximate-math` do not
    cover) become calls to glibc's libmvec, one call per register:
    `_ZGVeN8v_tanh` (AVX-512, 8 lanes) or `_ZGVdN4v_tanh` (AVX2, 4 lanes),
    instead of one libm call per element. Vectors whose length is not a
    multiple of the register width keep the scalar calls. libmvec is part
    of glibc on x86-64 Linux (2.35 and later have all four functions; its
    functions are accurate to 4 ulp); the code must be run with
    `libmvec.so.1` loaded (the Python runtime loads it; for mlir-runner add
    it to `-shared-libs`). Only for x86 targets with 256-bit vectors or
    wider.

    libmvec computes the lanes outside a function's fast range one at a
    time, through the scalar function and errno (ten times slower for the
    register). For `exp` a register with a lane below -708 (a masked
    softmax's -1e10 scores) takes a branch that gives the lanes below
    -745.2, whose result is exactly 0, their 0 without the call.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits (0: the host CPU's); below 256 "
           "the pass does nothing">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TTInlineAllocaScopes : Pass<"tt-inline-alloca-scopes"> {
  let summary = "Inline memref.alloca_scope ops that scope no stack "
                "allocation";
  let description = [{
    `convert-scf-to-openmp` wraps every parallel loop body in a
    `memref.alloca_scope`. When the body allocates nothing on the stack the
    scope is useless, and once the loops inside it become branches it is
    invalid (its region must have one block). This pass inlines such scopes
    wherever they are (upstream canonicalisation only inlines the last op
    of a region or one directly in a function).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TTLowerDynamicExpandShapes : Pass<"tt-lower-dynamic-expand-shapes"> {
  let summary = "Rewrite memref.expand_shape ops that expand into several "
                "dynamic sizes as reinterpret casts";
  let description = [{
    MLIR 22's `--expand-strided-metadata` crashes on a `memref.expand_shape`
    whose reassociation group expands into more than one dynamic size
    (`memref<?x12xf32>` into `memref<?x?x12xf32>`, the result of a matmul
    over a [batch, seq, d] stack of rows with both dynamic). When source
    and result are contiguous (identity layouts), this pass replaces such
    an op by a `memref.reinterpret_cast` with the output sizes and their
    suffix products as strides; run it before `--expand-strided-metadata`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TTEmitCInterface : Pass<"tt-emit-c-interface", "ModuleOp"> {
  let summary = "Mark public functions for C-interface wrappers";
  let description = [{
    Adds `llvm.emit_c_interface` to every public `func.func` with a body, so
    that `--convert-func-to-llvm` emits `_mlir_ciface_<name>` wrappers that
    take memref descriptors by pointer (what the ExecutionEngine and
    TinyTensor's runtime call).
  }];
}

def TTInterchangeContractions : Pass<"tt-interchange-contractions",
                                     "func::FuncOp"> {
  let summary = "Choose a vectorisable loop order for matmul-like ops";
  let description = [{
    Rewrites `linalg.matmul`, `linalg.batch_matmul` and matmul-shaped
    `linalg.generic` ops (iteration space `(batch..., m, n, k)`) into generic
    form with a loop order whose innermost loop is contiguous, which LLVM
    vectorises for the host CPU once lowered to loops:

    * `B[..., k, n]`: order `(batch..., k, m, n)` when the result slice
      `C[m, n]` fits in cache (each row of B is streamed once), otherwise
      `(batch..., m, k, n)`;
    * `B[..., n, k]` (a transposed right operand, e.g. `x @ w.T`): order
      `(batch..., n, m, k)`, dot products over contiguous rows, with the body
      marked `fastmath<reassoc, contract>` so that LLVM vectorises the sum.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def TTApproximateMath : Pass<"tt-approximate-math"> {
  let summary = "Replace f32 math functions by vectorisable polynomials";
  let description = [{
    Rewrites f32 `math.tanh`, `math.exp`, `math.log`, `math.erf` (and the
    functions they are built from) into polynomial approximations made of
    `arith` ops and `math.fma`/`absf`/`floor` (LLVM intrinsics, not calls),
    which LLVM vectorises, instead of scalar libm calls. The
    approximations are MLIR's upstream ones (errors of a few ulps). f64 ops
    keep calling libm.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TTResultsInArguments : Pass<"tt-results-in-arguments", "ModuleOp"> {
  let summary = "Compute results into the arguments they update";
  let description = [{
    A function argument with `tt.updated_by = j` is updated in place by
    result #j: after the call, the argument's buffer holds the result (an
    optimizer step updating hundreds of parameters; the Python runtime then
    copies nothing). This pass, on linalg on tensors before tiling, makes
    the elementwise `linalg.generic` that computes the result write it into
    the argument: the result's init (an empty tensor) becomes the argument,
    and where the generic reads the argument at the same indices it reads
    the init's block argument instead (each element is read before it is
    written). One-shot bufferization then updates the argument in place,
    unless a later read needs its old value; `tt-results-to-out-params`
    copies a result that was not computed in place into the argument at
    the end of the function.

    The result and the argument must have the same type, and a result may
    update one argument only; anything else is an error naming them. The
    caller must not pass a buffer that overlaps another argument's.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TTResultsToOutParams : Pass<"tt-results-to-out-params", "ModuleOp"> {
  let summary = "Results as caller-allocated arguments, where their size "
                "is known to the caller";
  let description = [{
    Upstream's `buffer-results-to-out-params` (allocations of static shape
    hoisted to the callers, public functions included: the runtime passes
    the entry function's results), except for private functions with a
    result of dynamic shape, which keep returning it: their caller cannot
    allocate it (upstream's `hoist-dynamic-allocs` needs the sizes to be
    arguments). Those are the functions that `tt-outline-repeated-scopes`
    makes of a program with dynamic dimensions (GPT-2 blocks over a
    sequence of any length).

    A result that updates an argument (`tt.updated_by`, see
    `tt-results-in-arguments`) ends up in the argument's buffer: copied
    there at the end of the function unless bufferization computed it in
    place, and never written into its out-param, which the caller may pass
    as that same buffer.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TTCPUHoistBuffers : Pass<"tt-cpu-hoist-buffers", "func::FuncOp"> {
  let summary = "Allocate buffers of sequential loop bodies once, before "
                "the loops";
  let description = [{
    Moves each `memref.alloc` of a static size in the body of an `scf.for`
    (through `scf.if` ops too) before the outermost such loop, when nothing
    keeps the buffer (or a view of it) past the iteration: it is not
    yielded, returned, passed to a call or a loop, or deallocated. The
    buffer is then allocated once and reused by every iteration, where each
    iteration had its own `malloc` and `free` (in a softmax computed row by
    row, the row of exponentials: about 10% of the time of a 1024 x 1024
    one). Parallel loops (`scf.forall`, `scf.parallel`) stop the hoisting,
    so that each of their iterations keeps a buffer of its own. Run it after
    one-shot bufferisation and before the deallocation pipeline, which then
    frees the buffer after the loop.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TTUntieEmptyTensors : Pass<"tt-untie-empty-tensors"> {
  let summary = "Give every use of a tensor.empty, and every op that writes "
                "into a linalg.fill of one, its own op";
  let description = [{
    CSE merges identical `tensor.empty` ops, so one value ends up as the
    `outs` operand of many linalg ops. One-shot bufferization then sees all of
    their results in one alias set, which makes its analysis quadratic in the
    program size and can force copies. This pass clones a shared
    `tensor.empty` next to each of its users.

    CSE merges the zero fills of same-shaped contractions too (one per layer
    of a transformer): each product after the first would then copy the
    shared zeros into its own buffer, and tiling could not compute the fill
    in the product's registers. Every op after the first that writes into
    (has as its init) a `linalg.fill` of a `tensor.empty` gets its own fill,
    cloned right before it.

    The CPU pipeline runs it before tiling and again right before
    bufferization.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def TTOutlineLoops : Pass<"tt-outline-loops", "ModuleOp"> {
  let summary = "Move each top-level loop nest into its own function";
  let description = [{
    Outlines every top-level `scf.for` or `scf.parallel` nest without
    results (the loops of tiles and of `convert-linalg-to-loops` on buffers;
    parallel ones before they become OpenMP regions) into a private function
    marked `noinline`, called from where the loop was. Constants the loop
    uses are cloned into the new function, so bounds stay static for LLVM.
    LLVM's function passes are superlinear in function size; small functions
    keep JIT compile time linear in the size of the program.

    With `share` (the default), a nest equal to one outlined before (the
    same ops, constants and argument types) calls that function instead of
    a new one, and a view argument with a static offset that the nest only
    loads from and stores to is passed with a dynamic offset
    (`memref.cast`), so that nests that differ only in where their views
    start are equal: the copies of an attention's heads out of one
    projection, twelve per layer, are one function.

    A captured 1-D vector wider than 512 bits (a per-channel scale computed
    before the loop) is passed in memory: stored into a `memref.alloca`
    before the call and loaded at the top of the new function. Passed as a
    value, LLVM splits it into registers and stack slots at every call, and
    selecting those calls dominated the LLVM time of a CNN's entry
    functions.
  }];
  let options =
      [Option<"minOps", "min-ops", "unsigned", /*default=*/"4",
              "Only outline loop nests with at least this many operations">,
       Option<"share", "share", "bool", /*default=*/"true",
              "Call one function for loop nests that are equal but for where "
              "the views they load from and store to start">];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TTCopyRepeatedResults : Pass<"tt-copy-repeated-results", "func::FuncOp"> {
  let summary = "Return a copy when a function returns one tensor twice";
  let description = [{
    When a `func.return` lists the same tensor value more than once (as CSE
    makes of `return f(x), f(x)`), every repetition after the first is
    replaced by a `linalg.copy` into a new tensor, so that after
    bufferization each result has its own buffer (required when results
    become caller-allocated output arguments).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TTFuseCastsIntoContractions : Pass<"tt-fuse-casts-into-contractions",
                                       "func::FuncOp"> {
  let summary = "Convert matmul operands inside the matmul loop";
  let description = [{
    A matmul of mixed precision (NumPy promotes `f64 @ f32` to f64) reads an
    operand through an elementwise `linalg.generic` that only converts its
    element type. Materialising that conversion writes a full copy of the
    operand (for weights, every call). This pass fuses such single-use
    conversions into the contraction (generalising named matmuls), so each
    element is converted as it is read. Other elementwise producers are left
    alone: fusing them into a contraction would recompute them for every
    output column.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}


//===----------------------------------------------------------------------===//
// GPU code generation
//===----------------------------------------------------------------------===//

def TTGPUTileAndDistribute : Pass<"tt-gpu-tile-and-distribute",
                                  "func::FuncOp"> {
  let summary = "Tile linalg ops into GPU blocks and threads, fusing "
                "producers into the blocks";
  let description = [{
    Code generation strategy for NVIDIA GPUs, decided per op by the GPU
    `KernelConfig` (lib/Codegen/GPU/KernelConfig.cpp). Every root op
    becomes an `scf.forall` mapped to `#gpu.block<x|y|z>` with its
    producers fused in (the same fusion sets as the CPU back end); inside a
    block every op is distributed to threads with `scf.forall`s mapped to
    `#gpu.thread<x|y|z>`:

    - elementwise ops: one element per thread, consecutive threads on
      consecutive elements of the innermost loop (coalesced accesses),
      loops longer than the block walked in chunks of the block;
    - row reductions (one reduction loop, innermost, at least
      `min-block-reduction` long): one block per row, each thread
      reducing a strided slice of the row into its own partial result in
      workgroup memory, merged by a block-wide reduction (`gpu.all_reduce`,
      made by `--tt-gpu-map-to-launch`); an elementwise root that
      consumes row reductions (softmax, layer norm) is tiled one row per
      block with the reductions fused in, so that a row is read from
      global memory by one block;
    - other reductions: one output element per thread;
    - matmuls: 64x64 output blocks, 4x4 outputs per thread accumulated in
      registers.
  }];
  let options = [
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Fuse producers into the blocks of their consumers">,
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"true",
           "One block per row for an elementwise root consuming row "
           "reductions, with the reductions fused in">,
    Option<"blockReduction", "block-reduction", "bool", /*default=*/"true",
           "Reduce rows with all the threads of a block (otherwise one "
           "thread per output element)">,
    Option<"minBlockReduction", "min-block-reduction", "int64_t",
           /*default=*/"64",
           "Shortest row reduced by a whole block">,
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"256", "Threads per block (a multiple of 32)">,
    Option<"workgroupMemory", "workgroup-memory", "bool", /*default=*/"true",
           "Partial results of block reductions in workgroup memory "
           "(off: default memory, so that the distributed loops can be run "
           "sequentially by the CPU pipeline to test them)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TTGPUMapToLaunch : Pass<"tt-gpu-map-to-launch", "func::FuncOp"> {
  let summary = "Turn block and thread scf.foralls on buffers into "
                "gpu.launch";
  let description = [{
    After bufferization: every top-level `scf.forall` mapped to
    `#gpu.block` becomes a `gpu.launch` whose grid is the loop's trip counts
    and whose block is the largest of the thread `scf.forall`s inside it,
    which are mapped to thread ids (with a barrier after each,
    `mapNestedForallToThreadsImpl`). Buffers allocated in a block outside
    the thread loops are workgroup memory (attributions of the launch);
    those allocated by a thread are private. A merge of per-thread partial
    results marked by `--tt-gpu-tile-and-distribute` becomes a
    `gpu.all_reduce`. A thread's register tile of a matmul reads the
    block's operands through workgroup memory, K in steps of 16 copied by
    all the block's threads between barriers (`shared-memory-matmul`). A
    linalg op left on the host (rank 0) runs in a launch of one thread.
  }];
  let options = [
    Option<"sharedMemoryMatmul", "shared-memory-matmul", "bool",
           /*default=*/"true",
           "Stage matmul operands through workgroup memory (off: each "
           "thread reads them from global memory)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def TTGPUDeviceMemory : Pass<"tt-gpu-device-memory", "func::FuncOp"> {
  let summary = "Host functions allocate and copy device memory";
  let description = [{
    In host functions (outside `gpu.launch`): `memref.alloc` and
    `memref.dealloc` become `gpu.alloc` and `gpu.dealloc`, `memref.copy`
    becomes `gpu.memcpy`, and a `memref.get_global` read by a kernel is
    copied to a device buffer first. Every buffer a host function sees is
    then device memory, as its arguments are (the caller's contract).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def TTGPURequireLibdevice : Pass<"tt-gpu-require-libdevice", "ModuleOp"> {
  let summary = "Report kernels that need libdevice when it is missing";
  let description = [{
    Kernels call CUDA's libdevice (`__nv_expf`, `__nv_tanh`, ...) for math
    functions; `gpu-module-to-binary` links it from the CUDA toolkit. When
    `tt-lower-to-nvvm` finds no toolkit with libdevice it runs this pass,
    which reports every kernel module that calls one, naming the function,
    instead of producing PTX that the driver cannot load.
  }];
  let options = [
    Option<"searched", "searched", "std::string", /*default=*/"\"\"",
           "Where libdevice was looked for (for the message)">,
  ];
}

def TTGPUAlignWorkgroupMemory : Pass<"tt-gpu-align-workgroup-memory",
                                     "::mlir::gpu::GPUModuleOp"> {
  let summary = "Align kernels' workgroup buffers for vector loads";
  let description = [{
    Every workgroup attribution of a `gpu.func` gets `llvm.align =
    alignment` (16 by default): the NVPTX back end merges loads of
    neighbouring elements (a matmul thread reading four of B's columns from
    shared memory) into one `ld.shared.v4`, which needs the buffer aligned
    to 16 bytes; without the attribute the buffer is aligned to its element.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"16",
           "Alignment in bytes">,
  ];
}

#endif // TINYTENSOR_CODEGEN_PASSES_TD
