//===- KernelConfig.cpp - CPU code generation strategy --------------------===//

#include "KernelConfig.h"

#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::tt;

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

namespace {

/// The first line of a small text file, trimmed; empty if it cannot be read.
std::string readLine(const llvm::Twine &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return "";
  return (*buffer)->getBuffer().split('\n').first.trim().str();
}

/// Bytes of the level-2 (unified or data) cache of the first CPU, from
/// Linux's sysfs ("2048K"); 0 where that is not available.
int64_t hostL2Bytes() {
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    if (readLine(dir + "/level") != "2" ||
        readLine(dir + "/type") == "Instruction")
      continue;
    std::string text = readLine(dir + "/size");
    llvm::StringRef size = text;
    int64_t scale = 1;
    if (size.consume_back("K"))
      scale = 1024;
    else if (size.consume_back("M"))
      scale = 1024 * 1024;
    int64_t value = 0;
    if (size.getAsInteger(10, value) || value <= 0)
      return 0;
    return value * scale;
  }
  return 0;
}

} // namespace

CPUTarget CPUTarget::host() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  CPUTarget target;
  if (features.lookup("avx512f"))
    target.vectorBits = 512;
  else if (features.lookup("avx2") || features.lookup("avx"))
    target.vectorBits = 256;
#if defined(__x86_64__) || defined(__i386__)
  // The vendor, not the CPU's name: a VM may report a model number that
  // LLVM names after another CPU (a Sapphire Rapids guest as rocketlake).
  target.readsStridedRowsFast =
      llvm::sys::detail::x86::getVendorSignature() ==
      llvm::sys::detail::x86::VendorSignatures::AUTHENTIC_AMD;
#endif
  static const int64_t l2Bytes = hostL2Bytes();
  target.l2Bytes = l2Bytes;
  return target;
}

CPUTarget CPUTarget::get(unsigned vectorBits) {
  if (vectorBits == 0)
    return host();
  CPUTarget target;
  target.vectorBits = vectorBits;
  return target;
}

int64_t CPUTarget::lanes(Type elementType) const {
  unsigned bits =
      elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 64;
  return std::max<int64_t>(1, vectorBits / std::max(bits, 8u));
}

//===----------------------------------------------------------------------===//
// Tuning constants
//===----------------------------------------------------------------------===//

namespace {

/// Cache blocks of a matmul: rows of A and columns of B per block, and the
/// least depth of the reduction block, so that a packed [kc x nc] panel of
/// B stays in L2 while every row block of the thread's block of C uses it,
/// and each [kc x nr] strip of it streams from L2 at unit stride. A deeper
/// block means fewer passes over C: at 2048 x 2048, kc = 512 was about 10%
/// faster than kc = 256; matmulDepthBlock goes deeper where L2 holds it.
constexpr int64_t kMatmulBlockM = 128;
constexpr int64_t kMatmulBlockN = 256;
/// Blocks of a matmul with at least kTallMatmulRows rows: twice the rows
/// and half the columns, and with them a reduction block twice as deep for
/// the same panel bytes (2048 x 2048 then needs no second pass over C).
/// On a 2-core Sapphire Rapids, interleaved runs on both cores: f32 2048^3
/// 6-10% faster in six runs (185 against 169 GFLOP/s), f32 1024^3 and
/// 1024 x 768 x 3072 within +-3%, f64 1024^3 78 against 68; one core alone
/// was level at 2048^3 (103 both). Fewer rows keep 128 x 256: the 64-row
/// float32 GPT-2 was 4% slower with 128 columns.
constexpr int64_t kTallMatmulRows = 512;
constexpr int64_t kTallMatmulBlockM = 256;
constexpr int64_t kTallMatmulBlockN = 128;
constexpr int64_t kMatmulMinBlockK = 512;
/// Bytes of a row of a packed panel of B below kTallMatmulRows rows: 256
/// f32 columns, and as many bytes of wider elements (128 f64 columns). On
/// a 2-core Sapphire Rapids, 64 rows of f64 x f32 (the float64 GPT-2 over
/// 64 tokens), A/B in one process, weights from memory: the logits 64 x
/// 768 @ [50257 x 768].T 39.2-41.0 -> 35.5-39.2 ms, 64 x 768 @ 768 x 3072
/// 2.55-2.57 -> 2.43-2.45 ms, the layer sizes together 4% faster; f64 x f64
/// 5-7%; f32 unchanged (these are its own 256 columns).
constexpr int64_t kMatmulPanelRowBytes = 1024;
/// L2 bytes assumed when the target does not say (CPUTarget::l2Bytes = 0).
constexpr int64_t kDefaultL2Bytes = 1024 * 1024;
/// Products of at least this many rows split a 1.5-vector column tile
/// into a vector and a peeled half vector (matmulConfig).
constexpr int64_t kSplitTailRows = 4096;
/// Reduction steps unrolled in the register tile.
constexpr int64_t kMatmulUnrollK = 4;
/// Blocks to aim for so that every thread of a many-core machine has work.
constexpr int64_t kMinParallelBlocks = 8;
/// Elements per thread block of elementwise ops and reductions (128 KiB of
/// f32: enough work to amortise a thread hand-off, small enough for L2).
constexpr int64_t kElementsPerBlock = 32 * 1024;
/// At most this many blocks (the rest of the work goes into each block).
constexpr int64_t kMaxParallelBlocks = 256;
/// Vector registers per elementwise step.
constexpr int64_t kElementwiseRegisters = 4;
/// A matmul with B transposed and at most this many rows is computed as
/// dot products, without packing (see getKernelConfig); with up to
/// kDotProductsMaxRowsSmallB rows too if B has at most kDotProductsSmallB
/// bytes (attention's q @ k.T).
constexpr int64_t kDotProductsMaxRows = 16;
constexpr int64_t kDotProductsMaxRowsSmallB = 64;
constexpr int64_t kDotProductsSmallB = 256 * 1024;
/// Reductions over at most this many elements become one vector reduction
/// per row; longer rows are reduced in chunks of this size.
constexpr int64_t kMaxReductionVector = 4096;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

/// A block size near `size` for a loop of `range` iterations that divides
/// it, so that every block is full and its code static: the smallest
/// divisor in [size, 2 * size) if `grow`, else the largest in (size / 2,
/// size]; both multiples of `multiple`. `size` itself when there is none
/// (the last block is then partial).
int64_t dividingBlock(int64_t range, int64_t size, int64_t multiple,
                      bool grow) {
  if (size >= range || range % size == 0)
    return size;
  if (grow) {
    for (int64_t d = size; d < 2 * size && d < range; ++d)
      if (range % d == 0 && d % multiple == 0)
        return d;
  } else {
    for (int64_t d = size; 2 * d > size; --d)
      if (range % d == 0 && d % multiple == 0)
        return d;
  }
  return size;
}

/// The element type that decides the vector width: the widest one the op
/// reads or writes (a mixed f64 x f32 contraction computes in f64).
Type computeElementType(linalg::LinalgOp op) {
  Type widest;
  for (Value v : op->getOperands()) {
    Type t = getElementTypeOrSelf(v.getType());
    if (!t.isIntOrFloat())
      continue;
    if (!widest || t.getIntOrFloatBitWidth() > widest.getIntOrFloatBitWidth())
      widest = t;
  }
  return widest;
}

/// The loop that indexes the innermost (contiguous) dimension of the op's
/// first operand that has one, or the last loop.
unsigned contiguousLoop(linalg::LinalgOp op) {
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.getNumResults() == 0)
      continue;
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
      return dim.getPosition();
  }
  return op.getNumLoops() - 1;
}

/// Level-1 tiles that split one parallel loop (the outermost of `candidates`
/// with more than one iteration) into blocks of about kElementsPerBlock
/// elements of the whole iteration space. Empty when one block suffices.
SmallVector<int64_t> splitOuterLoop(ArrayRef<int64_t> ranges,
                                    ArrayRef<unsigned> candidates) {
  int64_t total = 1;
  for (int64_t r : ranges)
    total *= r;
  int64_t blocks =
      std::min(ceilDiv(total, kElementsPerBlock), kMaxParallelBlocks);
  if (blocks <= 1)
    return {};
  for (unsigned loop : candidates) {
    if (ranges[loop] <= 1)
      continue;
    SmallVector<int64_t> tiles(ranges.size(), 0);
    tiles[loop] = dividingBlock(
        ranges[loop], ceilDiv(ranges[loop], std::min(blocks, ranges[loop])),
        /*multiple=*/1, /*grow=*/true);
    return tiles;
  }
  return {};
}

} // namespace

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Strategies
//===----------------------------------------------------------------------===//

namespace {

/// The loop order (batch..., n, m, k).
SmallVector<int64_t> columnsFirst(unsigned numLoops, const MatmulDims &dims) {
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, numLoops));
  std::swap(order[dims.m], order[dims.n]);
  return order;
}

/// The most columns of B in a column block of a matmul with `m` rows.
int64_t matmulColumnBlock(int64_t m) {
  return m >= kTallMatmulRows ? kTallMatmulBlockN : kMatmulBlockN;
}

/// The most columns of B in a packed panel of a matmul with `m` rows whose
/// packed elements have `bytes` bytes: matmulColumnBlock, at most
/// kMatmulPanelRowBytes a row below kTallMatmulRows.
int64_t packedColumnBlock(int64_t m, int64_t bytes) {
  if (m >= kTallMatmulRows)
    return matmulColumnBlock(m);
  return std::min(kMatmulBlockN,
                  std::max<int64_t>(1, kMatmulPanelRowBytes / bytes));
}

/// Level-1 blocks of C for both matmul kinds: column blocks of at most
/// `columnBlock` (a multiple of `nr`) by all rows, so that a packed panel
/// of B is reused by every row block of `mc` rows; the rows are split (in
/// whole row blocks, evenly) and the columns narrowed only as far as needed
/// for kMinParallelBlocks blocks.
SmallVector<int64_t> matmulBlocks(ArrayRef<int64_t> ranges,
                                  const MatmulDims &dims, int64_t mc,
                                  int64_t nr, int64_t columnBlock,
                                  bool rowsUnbounded) {
  int64_t m = ranges[dims.m], n = ranges[dims.n];
  int64_t batch = 1;
  for (unsigned b : dims.batch)
    batch *= ranges[b];
  int64_t nc =
      dividingBlock(n, std::min(roundUp(n, nr), columnBlock), nr, false);
  int64_t columnBlocks = ceilDiv(n, nc) * batch;
  int64_t rowBlocks = ceilDiv(m, mc);
  int64_t split = 1;
  // Rows known only at run time (a batch size) stay whole in every thread
  // block, which splits the columns: each block packs its panel of B once
  // however many rows there are.
  if (m % mc == 0 && !rowsUnbounded) {
    split = std::min(rowBlocks, ceilDiv(kMinParallelBlocks, columnBlocks));
    while (rowBlocks % split != 0)
      --split;
  }
  int64_t mp = split > 1 ? rowBlocks / split * mc : m;
  if (split * columnBlocks < kMinParallelBlocks) {
    nc = std::max(
        nr,
        roundUp(ceilDiv(n, ceilDiv(kMinParallelBlocks, split * batch)), nr));
    nc = dividingBlock(n, nc, nr, false);
  }
  // An odd number of blocks, fewer than twice kMinParallelBlocks, gives
  // one of two threads a block more than the other (a 2304-column layer in
  // 9 blocks of 256: 5 against 4); halving the blocks evens it.
  auto blocks = [&] { return split * batch * ceilDiv(n, nc); };
  while (blocks() % 2 == 1 && blocks() < 2 * kMinParallelBlocks &&
         nc % (2 * nr) == 0)
    nc /= 2;
  if (blocks() <= 1 && !rowsUnbounded)
    return {};
  SmallVector<int64_t> parallel(ranges.size(), 0);
  for (unsigned b : dims.batch)
    parallel[b] = 1;
  parallel[dims.m] = mp;
  // A block wider than all the columns is all of them: a tile of 128 over
  // 120 columns would make every slice's width dynamic (an affine.min),
  // and the packing and register tiles of a dynamic width are generic
  // loops (a grouped convolution's [6 x 196 x 1080] @ [6 x 120 x 1080].T
  // ran 3x slower than with static widths).
  parallel[dims.n] = std::min(nc, n);
  // Unbounded rows stay whole unless the columns give too few blocks (a
  // layer with 10 outputs): then blocks of mc rows, as many as there are.
  if (rowsUnbounded && batch * ceilDiv(n, nc) >= kMinParallelBlocks / 2)
    parallel[dims.m] = 0;
  else if (rowsUnbounded)
    parallel[dims.m] = mc;
  return parallel;
}

/// Rows of A in a cache block (level 2) of a matmul.
int64_t matmulRowBlock(int64_t m) {
  int64_t blockM = m >= kTallMatmulRows ? kTallMatmulBlockM : kMatmulBlockM;
  return dividingBlock(m, std::min(m, blockM), 1, false);
}

KernelConfig dotProductsConfig(ArrayRef<int64_t> ranges, const MatmulDims &dims,
                               int64_t lanes, const CPUTarget &target,
                               bool rowsUnbounded) {
  // mr x nr accumulators of one vector each, plus mr + nr operand rows: 4 x 4
  // with 32 registers (AVX-512), 4 x 2 with 16.
  int64_t mr = 4, nr = target.vectorBits >= 512 ? 4 : 2;
  KernelConfig config;
  config.kind = KernelKind::DotProducts;
  config.parallelTiles =
      matmulBlocks(ranges, dims, matmulRowBlock(ranges[dims.m]), nr,
                   matmulColumnBlock(ranges[dims.m]), rowsUnbounded);
  SmallVector<int64_t> reg(ranges.size(), 0);
  for (unsigned b : dims.batch)
    reg[b] = 1;
  reg[dims.m] = std::min(ranges[dims.m], mr);
  reg[dims.n] = std::min(ranges[dims.n], nr);
  config.loopTiles = {reg};
  config.registerOrder = columnsFirst(ranges.size(), dims);
  if (ranges[dims.k] >= lanes)
    config.laneReduction = lanes;
  return config;
}

/// A packed matmul's register tile, rows of C by columns. With 32 vector
/// registers (AVX-512) 6 rows by 4 vectors: 24 accumulators, and per step
/// of the reduction 4 loads of B and 6 broadcasts of A for 24 FMAs. On a
/// 2-core Sapphire Rapids it beat 8 x 2 (16 accumulators, 10 loads for 16
/// FMAs) in every run: f32 1024^3 on one thread 79 against 72 GFLOP/s,
/// on two 164 against 143; 2048^3 on two 163 against 145 (kc = 512 in
/// all; 12 x 2, 14 x 2, 4 x 4 and 7 x 4 were slower than 6 x 4). With 16
/// registers (AVX2 and narrower) 4 x 2.
std::pair<int64_t, int64_t> matmulRegisterTile(int64_t lanes,
                                               const CPUTarget &target) {
  if (target.vectorBits >= 512)
    return {6, 4 * lanes};
  return {4, 2 * lanes};
}

/// The register tile of a matmul that reads B in place: 8 rows by two
/// vectors on AVX-512, as measured for --tt-cpu-align-columns on a Zen 4
/// (a strip of B is then one or two cache lines of each row); 4 x 2 with
/// 16 registers.
std::pair<int64_t, int64_t> inPlaceRegisterTile(int64_t lanes,
                                                const CPUTarget &target) {
  return {target.vectorBits >= 512 ? 8 : 4, 2 * lanes};
}

/// The depth of a matmul's reduction block for elements of `lanes` per
/// vector and panels of `blockN` columns: kMatmulMinBlockK, or deeper while
/// the packed [kc x nc] panel fills at most half of the core's L2. On a 2
/// MiB L2 (Sapphire Rapids) with 256 columns that is kc = 1024 in f32
/// (1024^3: 88 against 79 GFLOP/s on one thread, 170 against 164 on two;
/// 2048^3 on two 170 against 163), and in f64 with its 128 columns
/// (packedColumnBlock) as well.
int64_t matmulDepthBlock(int64_t lanes, int64_t blockN,
                         const CPUTarget &target) {
  int64_t l2 = target.l2Bytes > 0 ? target.l2Bytes : kDefaultL2Bytes;
  int64_t bytes = std::max<int64_t>(1, target.vectorBits / 8 / lanes);
  int64_t kc = kMatmulMinBlockK;
  while (2 * kc * blockN * bytes <= l2 / 2)
    kc *= 2;
  return kc;
}

KernelConfig matmulConfig(ArrayRef<int64_t> ranges, const MatmulDims &dims,
                          int64_t lanes, const CPUTarget &target,
                          bool rowsUnbounded) {
  unsigned numLoops = ranges.size();
  int64_t m = ranges[dims.m], n = ranges[dims.n], k = ranges[dims.k];
  auto [mr, nr] = matmulRegisterTile(lanes, target);
  // Fewer columns than a register tile but at least two vectors: the
  // widest power of two vectors that fits them (the rest is a peeled
  // tile). A tile of 3 vectors is ten times slower: on a 2-core Xeon
  // (AVX-512), f32 [96 x 576] @ [576 x n] took 16, 20, 389 and 51 us for
  // n = 16, 32, 48, 80 (48: 25 us now). Below two vectors the tile takes
  // all the columns: n = 20 is as slow as 48 was (145 us), but tiles of
  // 16 + 4 made a generated 4,362-op graph's one-shot-bufferize 3.4 times
  // slower (8.9 -> 30 s), from the extra peeled tiles of its many narrow
  // products.
  // With many rows, a tail of half a vector is split off instead (n = 24:
  // one vector and a peeled half-vector tile): a tile of 1.5 vectors ran
  // [25088 x 144] @ [144 x 24] (an EfficientNet 1 x 1 convolution) at 27
  // GFLOP/s, split at 168 (torch 230); below kSplitTailRows rows the
  // peeled tiles cost more compile time than they save (the 4,362-op graph
  // above: one-shot-bufferize 27 -> 85 s when every such product split).
  bool splitTail = n - lanes == lanes / 2 && m >= kSplitTailRows;
  if (n < nr)
    nr = n < 2 * lanes ? (splitTail ? lanes : n)
                       : static_cast<int64_t>(llvm::bit_floor(
                             static_cast<uint64_t>(n / lanes))) *
                             lanes;
  int64_t kr = kMatmulUnrollK;

  KernelConfig config;
  config.kind = KernelKind::Matmul;
  int64_t mc = matmulRowBlock(m);
  int64_t nc = packedColumnBlock(
      m, std::max<int64_t>(1, target.vectorBits / 8 / lanes));
  config.parallelTiles =
      matmulBlocks(ranges, dims, mc, nr, nc, rowsUnbounded);
  // Level 2: the reduction in cache blocks (B's panel is packed after this
  // level), the rows in cache blocks (which all read the packed panel), then
  // register tiles, then the unrolled reduction step.
  SmallVector<int64_t> kBlock(numLoops, 0), mBlock(numLoops, 0),
      reg(numLoops, 0), kStep(numLoops, 0);
  for (unsigned b : dims.batch)
    kBlock[b] = 1;
  kBlock[dims.k] = dividingBlock(
      k, std::min(k, matmulDepthBlock(lanes, nc, target)),
      kr, false);
  mBlock[dims.m] = mc;
  reg[dims.m] = std::min(m, mr);
  reg[dims.n] = std::min(n, nr);
  kStep[dims.k] = std::min(k, kr);
  config.loopTiles = {kBlock, mBlock, reg, kStep};
  config.registerOrder = columnsFirst(numLoops, dims);
  config.packRhsLevel = 0;
  config.packLevel = 1;
  config.packColumns = reg[dims.n];
  // Below kTallMatmulRows rows the packing of B weighs on a matmul, and B
  // is read once per call: on a 2-core Xeon (AMX, 2 MiB L2), f32 x @ w
  // with w [768 x 3072] from memory, 16 rows 0.726 -> 0.642 ms, 64 rows
  // 1.204 -> 1.121, 128 1.95 -> 1.87, 256 3.30 -> 3.21; square 1024^3 and
  // 2048^3 (B in cache) were 1% slower with it.
  config.prefetchPackedRows = m < kTallMatmulRows;
  return config;
}

/// A matmul whose register tiles read B in place (`tt.rhs_in_place`, from
/// --tt-cpu-align-columns: few rows, B's strips on cache lines). There is
/// no packed panel to keep in L2, so no cache blocks: threads take strips
/// of nr columns (an even split however the count factors: 3056 columns
/// are 191 strips), and each register tile runs the whole reduction, so C
/// is stored once (and never loaded, with register-fill). A single strip
/// (the edges align-columns splits off) is split by row tiles instead, so
/// that the other thread does not wait while one computes it.
KernelConfig inPlaceMatmulConfig(ArrayRef<int64_t> ranges,
                                 const MatmulDims &dims, int64_t lanes,
                                 const CPUTarget &target) {
  unsigned numLoops = ranges.size();
  int64_t m = ranges[dims.m], n = ranges[dims.n], k = ranges[dims.k];
  auto [mr, nr] = inPlaceRegisterTile(lanes, target);
  KernelConfig config;
  config.kind = KernelKind::Matmul;
  if (ceilDiv(n, nr) > 1 || ceilDiv(m, mr) > 1) {
    config.parallelTiles.assign(numLoops, 0);
    for (unsigned b : dims.batch)
      config.parallelTiles[b] = 1;
    if (ceilDiv(n, nr) > 1)
      config.parallelTiles[dims.n] = nr;
    else
      config.parallelTiles[dims.m] = mr;
  }
  SmallVector<int64_t> reg(numLoops, 0), kStep(numLoops, 0);
  for (unsigned b : dims.batch)
    reg[b] = 1;
  reg[dims.m] = std::min(m, mr);
  reg[dims.n] = std::min(n, nr);
  kStep[dims.k] = std::min(k, kMatmulUnrollK);
  config.loopTiles = {reg, kStep};
  config.registerOrder = columnsFirst(numLoops, dims);
  config.packColumns = reg[dims.n];
  return config;
}

/// The loop of `op` that walks the contiguous dimension of the memory its
/// first input really comes from, when that input is computed by a
/// single-use elementwise producer (which the reduction takes into its
/// loops): the producer's widest input, through its maps. A pooling's
/// window gather of a channels-last tensor ([n, c, oh, ow, kh, kw] read as
/// x[n, 2 oh + kh, 2 ow + kw, c]) is contiguous along c, not along kw.
std::optional<unsigned> producerContiguousLoop(linalg::LinalgOp op) {
  OpOperand *input = op.getDpsInputOperand(0);
  auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
  if (!producer || !producer->hasOneUse() || producer->getNumResults() != 1 ||
      producer.getNumReductionLoops() != 0 || producer.getNumDpsInputs() == 0)
    return std::nullopt;
  AffineMap produced = producer.getIndexingMapMatchingResult(
      cast<OpResult>(producer->getResult(0)));
  if (!produced.isPermutation())
    return std::nullopt;
  OpOperand *widest = nullptr;
  for (OpOperand *candidate : producer.getDpsInputOperands())
    if (!widest || producer.getMatchingIndexingMap(candidate).getNumResults() >
                       producer.getMatchingIndexingMap(widest).getNumResults())
      widest = candidate;
  AffineMap read = producer.getMatchingIndexingMap(widest);
  if (read.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(read.getResults().back());
  if (!dim)
    return std::nullopt;
  std::optional<unsigned> position = produced.getResultPosition(dim);
  AffineMap consumed = op.getMatchingIndexingMap(input);
  if (!position || *position >= consumed.getNumResults())
    return std::nullopt;
  auto loop = dyn_cast<AffineDimExpr>(consumed.getResult(*position));
  if (!loop)
    return std::nullopt;
  return loop.getPosition();
}

/// The loop that walks the innermost dimension of `op`'s result, when the
/// op reads its first input along that loop at unit stride through a
/// window expression (`x[c, oh + kh, ow + kw]`: a depthwise convolution of
/// a channels-first tensor). Its tiles of one window element are then
/// vectors of consecutive outputs and inputs.
std::optional<unsigned> windowOutputLoop(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumDpsInputs() == 0)
    return std::nullopt;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  if (out.getNumResults() == 0 || in.getNumResults() == 0)
    return std::nullopt;
  auto loop = dyn_cast<AffineDimExpr>(out.getResults().back());
  AffineExpr read = in.getResults().back();
  if (!loop || !isa<AffineBinaryOpExpr>(read) ||
      read.getKind() != AffineExprKind::Add)
    return std::nullopt;
  // The coefficient of the loop in the expression must be 1.
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> unit;
  for (unsigned i = 0, e = op.getNumLoops(); i < e; ++i)
    unit.push_back(getAffineConstantExpr(i == loop.getPosition() ? 1 : 0, ctx));
  auto coefficient = dyn_cast<AffineConstantExpr>(read.replaceDims(unit));
  if (!coefficient || coefficient.getValue() != 1)
    return std::nullopt;
  return loop.getPosition();
}

KernelConfig reductionConfig(linalg::LinalgOp op, ArrayRef<int64_t> ranges,
                             int64_t lanes, bool windows) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = ranges.size();
  unsigned inner = contiguousLoop(op);
  // Reductions over small windows (pooling: 2 x 2 elements) of data that is
  // contiguous along a parallel loop (channels last) are vectorised along
  // that loop, each window element an elementwise step, rather than as
  // rows of a few elements.
  if (windows && iterators[inner] == utils::IteratorType::reduction &&
      ranges[inner] < lanes) {
    std::optional<unsigned> source = producerContiguousLoop(op);
    if (!source)
      source = windowOutputLoop(op);
    if (source && iterators[*source] == utils::IteratorType::parallel &&
        ranges[*source] > 1)
      inner = *source;
  }
  SmallVector<unsigned> parallelLoops;
  for (unsigned i = 0; i < numLoops; ++i)
    if (iterators[i] == utils::IteratorType::parallel && i != inner)
      parallelLoops.push_back(i);

  KernelConfig config;
  config.kind = KernelKind::Reduction;
  config.parallelTiles = splitOuterLoop(ranges, parallelLoops);
  SmallVector<int64_t> reg(numLoops, 1);
  if (iterators[inner] == utils::IteratorType::reduction) {
    // Row reductions: one vector reduction per row (in chunks if long).
    reg[inner] = std::min(ranges[inner], kMaxReductionVector);
  } else {
    // Column reductions: accumulate a vector of columns, one row at a time.
    reg[inner] = std::min(ranges[inner], kElementwiseRegisters * lanes);
  }
  config.loopTiles = {reg};
  return config;
}

/// True for a transpose of the two innermost dimensions (what packing a
/// transposed B makes), whose tiles are square blocks of vectors.
bool transposesInnermost(linalg::LinalgOp op) {
  auto transpose = dyn_cast<linalg::TransposeOp>(op.getOperation());
  if (!transpose)
    return false;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t n = perm.size();
  return n >= 2 && perm[n - 1] == n - 2 && perm[n - 2] == n - 1;
}

/// The loop along which an input of `op` is contiguous, when that input is
/// read transposed: its innermost dimension is indexed by another loop than
/// the op's innermost one, which the input also uses (a depthwise
/// convolution's channels-first input read channels last).
std::optional<unsigned> transposedInputLoop(linalg::LinalgOp op) {
  unsigned innermost = op.getNumLoops() - 1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() < 2)
      continue;
    if (map.isProjectedPermutation()) {
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (last && last.getPosition() != innermost &&
          map.isFunctionOfDim(innermost))
        return last.getPosition();
      continue;
    }
    // A window's read (convolution patches): the innermost dimension is a
    // sum of loops, one of them with a unit coefficient, and the op's
    // innermost loop indexes another dimension on its own.
    ArrayRef<AffineExpr> results = map.getResults();
    bool innermostAlone = llvm::any_of(results.drop_back(), [&](AffineExpr e) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      return dim && dim.getPosition() == innermost;
    });
    if (!innermostAlone || results.back().isFunctionOfDim(innermost))
      continue;
    // Of the loops with a unit coefficient, the longest (the output
    // column, not the kernel's).
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    std::optional<unsigned> unit;
    auto consider = [&](AffineExpr e) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (dim && (!unit || ranges[dim.getPosition()] > ranges[*unit]))
        unit = dim.getPosition();
    };
    consider(results.back());
    results.back().walk([&](AffineExpr e) {
      auto add = dyn_cast<AffineBinaryOpExpr>(e);
      if (add && add.getKind() == AffineExprKind::Add) {
        consider(add.getLHS());
        consider(add.getRHS());
      }
    });
    if (unit)
      return unit;
  }
  return std::nullopt;
}

KernelConfig elementwiseConfig(linalg::LinalgOp op, ArrayRef<int64_t> ranges,
                               int64_t lanes) {
  unsigned numLoops = ranges.size();
  KernelConfig config;
  config.kind = KernelKind::Elementwise;
  // Split outer loops across threads, never the innermost one of a
  // multi-dimensional op: its rows may come from fused row reductions.
  SmallVector<unsigned> outer;
  for (unsigned i = 0; i + 1 < numLoops; ++i)
    outer.push_back(i);
  if (numLoops == 1)
    outer.push_back(0);
  config.parallelTiles = splitOuterLoop(ranges, outer);
  SmallVector<int64_t> reg(numLoops, 1);
  std::optional<unsigned> transposed = transposedInputLoop(op);
  if (transposesInnermost(op) && ranges[numLoops - 2] >= lanes &&
      ranges.back() >= lanes) {
    // [lanes x lanes] blocks: rows in, a register transpose, rows out.
    reg[numLoops - 2] = lanes;
    reg.back() = lanes;
  } else if (transposed && ranges[*transposed] >= lanes &&
             ranges.back() >= lanes) {
    // The same blocks for a transposing read in any elementwise op: a
    // vector of the innermost loop would gather one element per row of the
    // input (a 5 x 5 depthwise convolution over 144 channels at 56 x 56,
    // its input transposed to channels last: 0.55 -> 0.45 ms).
    reg[*transposed] = lanes;
    reg.back() = lanes;
  } else {
    reg.back() = std::min(ranges.back(), kElementwiseRegisters * lanes);
  }
  config.loopTiles = {reg};
  return config;
}

} // namespace

/// A static upper bound of loop `loop` of `op`, if it has one: a loop is
/// the size of an operand dimension it indexes directly.
static std::optional<int64_t> loopUpperBound(linalg::LinalgOp op,
                                             int64_t loop) {
  int64_t size = op.getStaticLoopRanges()[loop];
  if (!ShapedType::isDynamic(size))
    return size;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      auto d = dyn_cast<AffineDimExpr>(expr);
      if (!d || d.getPosition() != loop)
        continue;
      FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB,
          ValueBoundsConstraintSet::Variable(operand.get(),
                                             static_cast<int64_t>(dim)),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (succeeded(ub) && *ub > 0)
        return *ub;
    }
  }
  return std::nullopt;
}

std::optional<SmallVector<int64_t>>
tt::getLoopUpperBounds(linalg::LinalgOp op) {
  SmallVector<int64_t> bounds;
  for (int64_t loop = 0, e = op.getNumLoops(); loop < e; ++loop) {
    std::optional<int64_t> bound = loopUpperBound(op, loop);
    if (!bound)
      return std::nullopt;
    bounds.push_back(*bound);
  }
  return bounds;
}

SmallVector<int64_t> tt::getLoopSizeEstimates(linalg::LinalgOp op) {
  // A loop with no bound (a dynamic dimension of a function argument) is
  // configured as if it had the estimate.
  SmallVector<int64_t> sizes;
  for (int64_t loop = 0, e = op.getNumLoops(); loop < e; ++loop)
    sizes.push_back(loopUpperBound(op, loop).value_or(kDynamicSizeEstimate));
  return sizes;
}

int64_t tt::inPlaceStripColumns(linalg::LinalgOp op,
                                const CPUTarget &target) {
  Type elementType = computeElementType(op);
  if (!elementType)
    return 0;
  return inPlaceRegisterTile(target.lanes(elementType), target).second;
}

std::optional<KernelConfig>
tt::getKernelConfig(linalg::LinalgOp op, const CPUTarget &target,
                    const StrategyOptions &options) {
  bool pack = options.pack;
  if (op.getNumLoops() == 0 || !op.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<int64_t> ranges = getLoopSizeEstimates(op);
  if (llvm::any_of(ranges, [](int64_t r) { return r == 0; }))
    return std::nullopt;
  Type elementType = computeElementType(op);
  if (!elementType)
    return std::nullopt;
  int64_t lanes = target.lanes(elementType);

  if (std::optional<MatmulDims> dims = getMatmulDims(op)) {
    bool rowsUnbounded = !loopUpperBound(op, dims->m);
    if (!dims->transposedB && op->hasAttr(kReadRhsInPlace) &&
        !rowsUnbounded)
      return inPlaceMatmulConfig(ranges, *dims, lanes, target);
    if (!dims->transposedB) {
      KernelConfig config =
          matmulConfig(ranges, *dims, lanes, target, rowsUnbounded);
      if (!pack)
        config.packLevel = config.packRhsLevel = -1;
      return config;
    }
    // Few rows of A (a GPT-2 logits layer over a handful of tokens): every
    // element of B is used a few times only, the product is bound by
    // reading B, and dot products read it in long contiguous rows (each
    // group of 4 rows of A reads B again: with more rows that costs more
    // than packing, unless B is small enough to stay in L2). Measured on
    // the GPT-2 logits, [m x 768] @ [50257 x 768].T: dot products 11.0 ms
    // and packing 12.0 ms at m = 16; 30.0 and 19.8 ms at m = 64.
    int64_t m = ranges[dims->m];
    int64_t bBytes = ranges[dims->n] * ranges[dims->k] *
                     (getElementTypeOrSelf(op.getDpsInputOperand(1)->get())
                          .getIntOrFloatBitWidth() /
                      8);
    if (!pack || !isa<linalg::GenericOp>(op.getOperation()) ||
        m <= kDotProductsMaxRows ||
        (m <= kDotProductsMaxRowsSmallB && bBytes <= kDotProductsSmallB))
      return dotProductsConfig(ranges, *dims, lanes, target, rowsUnbounded);
    // Transposed B: transpose each panel while packing it, then a matmul.
    KernelConfig config =
        matmulConfig(ranges, *dims, lanes, target, rowsUnbounded);
    config.packTransposed = true;
    return config;
  }
  if (op.getNumReductionLoops() > 0)
    return reductionConfig(op, ranges, lanes, options.windowVectors);
  return elementwiseConfig(op, ranges, lanes);
}
