//===- Vectorize.cpp - Vectorise tiled linalg ops
//--------------------------===//

#include "KernelConfig.h"
#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUVECTORIZE
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

struct CPUVectorizePass
    : public tt::impl::TTCPUVectorizeBase<CPUVectorizePass> {
  using TTCPUVectorizeBase::TTCPUVectorizeBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);

    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      vectorize(rewriter, op);

    // Clean up: fold slices into transfers, canonicalise transfers, so that
    // a register tile's accumulator is read and written at loop-invariant
    // positions of the loop's iter_arg.
    RewritePatternSet patterns(ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorReductionToContractPatterns(patterns);
    // Masked transfers (of partial tiles) carry their mask as an operand
    // rather than in a vector.mask region, which later passes (bufferization,
    // hoisting, canonicalisation) would otherwise have to see through.
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    // Operand conversions (f32 -> f64 of a mixed contraction) before the
    // broadcasts and transposes of the generic vectoriser, which then fold
    // into the contraction's maps.
    vector::populateSinkVectorOpsPatterns(patterns);
    linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    // Canonicalisation: IR left unsimplified is still valid.
    (void)tt::applyPatterns(*this, func, std::move(patterns),
                            tt::Convergence::Optional);

    // Keep accumulators in registers across reduction loops: hoist
    // loop-invariant transfer_read/transfer_write pairs on iter_args,
    // innermost loops first.
    func.walk([&](scf::ForOp loop) {
      moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
      hoistLoopInvariantSubsets(rewriter, loop);
    });

    if (unmaskContractions) {
      SmallVector<vector::MaskOp> masks;
      func.walk([&](vector::MaskOp op) { masks.push_back(op); });
      for (vector::MaskOp op : masks)
        unmaskContraction(rewriter, op);
    }
  }

  /// Whether the mask `create` makes leaves whole every dimension that
  /// `keep` marks (its sizes there are the vector's).
  static bool masksOnly(vector::CreateMaskOp create, ArrayRef<bool> keep) {
    auto type = cast<VectorType>(create.getType());
    for (auto [d, size] : llvm::enumerate(create.getOperands())) {
      if (!keep[d])
        continue;
      std::optional<int64_t> value = getConstantIntValue(size);
      if (!value || *value != type.getDimSize(d))
        return false;
    }
    return true;
  }

  /// The masked transfer_read that `operand` is, possibly through an
  /// element-type extension (a mixed-precision contraction's f32 operand).
  static vector::TransferReadOp maskedRead(Value operand) {
    if (auto ext = operand.getDefiningOp<arith::ExtFOp>())
      operand = ext.getIn();
    auto read = operand.getDefiningOp<vector::TransferReadOp>();
    if (!read || !read.getMask() ||
        !read.getPermutationMap().isMinorIdentity())
      return nullptr;
    return read;
  }

  /// Whether both operands of `contract` are masked reads, padded with 0
  /// or poison (which may be read as 0: see `padWithZeros`), whose masks
  /// bound iteration dimension `d` by `mask`'s size there.
  static bool zeroPaddedLanes(vector::ContractionOp contract,
                              vector::CreateMaskOp mask, int64_t d) {
    SmallVector<AffineMap> maps = contract.getIndexingMapsArray();
    Value operands[] = {contract.getLhs(), contract.getRhs()};
    for (auto [operand, map] :
         llvm::zip(operands, ArrayRef(maps).take_front(2))) {
      std::optional<unsigned> position =
          map.getResultPosition(getAffineDimExpr(d, contract.getContext()));
      vector::TransferReadOp read = maskedRead(operand);
      if (!position || !read ||
          !(matchPattern(read.getPadding(), m_AnyZeroFloat()) ||
            read.getPadding().getDefiningOp<ub::PoisonOp>()))
        return false;
      auto readMask = read.getMask().getDefiningOp<vector::CreateMaskOp>();
      if (!readMask || readMask.getOperand(*position) != mask.getOperand(d))
        return false;
    }
    return true;
  }

  /// Gives the reads of `contract`'s operands padded with poison a padding
  /// of 0 (a refinement of poison), so that their masked lanes add 0 * 0.
  static void padWithZeros(RewriterBase &rewriter,
                           vector::ContractionOp contract) {
    for (Value operand : {contract.getLhs(), contract.getRhs()}) {
      vector::TransferReadOp read = maskedRead(operand);
      if (!read || !read.getPadding().getDefiningOp<ub::PoisonOp>())
        continue;
      rewriter.setInsertionPoint(read);
      Type type = read.getPadding().getType();
      Value zero = arith::ConstantOp::create(rewriter, read.getLoc(), type,
                                             rewriter.getZeroAttr(type));
      rewriter.modifyOpInPlace(read,
                               [&] { read.getPaddingMutable().assign(zero); });
    }
  }

  /// A register tile of a matmul whose rows, columns or K are known only at
  /// run time is vectorised as a vector.contract masked over its iteration
  /// space.
  /// When the mask leaves the reduction dimension whole (or both operands
  /// read its masked lanes as zeros), the masked-off lanes are whole rows
  /// of the result, computed from the masked reads' padding and never
  /// stored: the tile's accumulator goes (through the reduction loops) only
  /// to writes masked by the same rows. The contract
  /// then runs unmasked, as the outer products of a full tile; masked, it
  /// is lowered lane by lane (inserts, extracts and selects: GPT-2 over a
  /// sequence of any length was ten times larger and 25% slower at lengths
  /// that are not a multiple of 8).
  static void unmaskContraction(RewriterBase &rewriter,
                                         vector::MaskOp op) {
    auto contract =
        dyn_cast_or_null<vector::ContractionOp>(op.getMaskableOp());
    if (!contract || op.hasPassthru() || op->getNumResults() != 1)
      return;
    auto create = op.getMask().getDefiningOp<vector::CreateMaskOp>();
    if (!create)
      return;
    // A reduction dimension may be masked too when both operands read the
    // masked lanes as zeros (masked transfer_reads padded with 0, masked
    // by the same size): those lanes then add 0 * 0.
    SmallVector<bool> mustBeWhole;
    bool zeroLanes = false;
    for (auto [d, it] : llvm::enumerate(contract.getIteratorTypesArray())) {
      bool zeros = it == vector::IteratorType::reduction &&
                   zeroPaddedLanes(contract, create, d);
      zeroLanes |= zeros;
      mustBeWhole.push_back(it == vector::IteratorType::reduction && !zeros);
    }
    if (!masksOnly(create, mustBeWhole))
      return;
    // The mask's sizes of the result's dimensions, as the writes must use.
    SmallVector<Value> resultSizes;
    AffineMap resultMap = contract.getIndexingMapsArray()[2];
    for (AffineExpr expr : resultMap.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return;
      resultSizes.push_back(create.getOperand(dim.getPosition()));
    }
    // The same size: one value, or equal constants.
    auto sameSize = [](Value a, Value b) {
      std::optional<int64_t> x = getConstantIntValue(a),
                             y = getConstantIntValue(b);
      return a == b || (x && y && *x == *y);
    };
    auto resultType = cast<VectorType>(contract.getResultType());
    auto maskedWrite = [&](Operation *user) {
      auto write = dyn_cast<vector::TransferWriteOp>(user);
      if (!write)
        return false;
      if (!write.getMask()) // Then no lane of the result is masked off.
        return llvm::all_of(llvm::enumerate(resultSizes), [&](auto entry) {
          std::optional<int64_t> size = getConstantIntValue(entry.value());
          return size && *size == resultType.getDimSize(entry.index());
        });
      auto writeMask = write.getMask().getDefiningOp<vector::CreateMaskOp>();
      return writeMask &&
             llvm::all_of_zip(writeMask.getOperands(), resultSizes, sameSize);
    };
    // Its result goes to masked writes, directly or as the accumulator
    // carried by the reduction loops (through their iter_args, results and
    // yields), used by nothing but the contract.
    SmallVector<Value> worklist = {op->getResult(0)};
    llvm::SmallPtrSet<void *, 8> seen;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (!seen.insert(value.getAsOpaquePointer()).second)
        continue;
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (user == contract && use.get() == contract.getAcc() &&
            use.getOperandNumber() == 2)
          continue;
        if (maskedWrite(user))
          continue;
        if (auto yield = dyn_cast<scf::YieldOp>(user)) {
          auto loop = dyn_cast<scf::ForOp>(yield->getParentOp());
          if (!loop)
            return;
          worklist.push_back(loop->getResult(use.getOperandNumber()));
          continue;
        }
        if (auto loop = dyn_cast<scf::ForOp>(user)) {
          unsigned first = loop.getNumControlOperands();
          if (use.getOperandNumber() < first)
            return;
          worklist.push_back(
              loop.getRegionIterArgs()[use.getOperandNumber() - first]);
          continue;
        }
        return;
      }
    }
    if (zeroLanes)
      padWithZeros(rewriter, contract);
    rewriter.setInsertionPoint(op);
    Operation *unmasked = rewriter.clone(*contract);
    rewriter.replaceOp(op, unmasked->getResults());
  }

  /// A loop of one iteration only takes the value 0. In a tile of a window
  /// gather (`x[n, oh + kh, ow + kw, c]` tiled to one window element and a
  /// vector of channels) the compound expressions of such loops are
  /// replaced by 0, so that the maps become projected permutations (with
  /// zeros), which the vectoriser takes.
  static void foldUnitLoopsInMaps(RewriterBase &rewriter,
                                  linalg::LinalgOp op) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic)
      return;
    MLIRContext *ctx = op.getContext();
    DenseMap<AffineExpr, AffineExpr> zeros;
    for (auto [loop, range] : llvm::enumerate(op.getStaticLoopRanges()))
      if (range == 1)
        zeros[getAffineDimExpr(loop, ctx)] = getAffineConstantExpr(0, ctx);
    if (zeros.empty())
      return;
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    bool changed = false;
    for (AffineMap &map : maps) {
      SmallVector<AffineExpr> results;
      for (AffineExpr expr : map.getResults()) {
        if (!isa<AffineDimExpr, AffineConstantExpr>(expr)) {
          AffineExpr folded = simplifyAffineExpr(
              expr.replace(zeros), map.getNumDims(), map.getNumSymbols());
          changed |= folded != expr;
          expr = folded;
        }
        results.push_back(expr);
      }
      map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                           ctx);
    }
    if (!changed || !llvm::all_of(maps, [](AffineMap map) {
          return map.isProjectedPermutation(/*allowZeroInResults=*/true);
        }))
      return;
    rewriter.modifyOpInPlace(generic, [&] {
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  }

  void vectorize(RewriterBase &rewriter, linalg::LinalgOp op) {
    // A rank-0 op computes one scalar: nothing to gain, and MLIR 22's
    // vectoriser turns a tensor.extract in its body into a vector.gather
    // with scalar indices, which does not verify (`x[0::-1]` of a vector).
    if (op.getNumLoops() == 0)
      return;
    // Vectors of i1 are bit-packed in LLVM while memrefs of i1 hold a byte
    // per element: boolean tensors stay scalar.
    if (llvm::any_of(op->getOperandTypes(), [](Type t) {
          return getElementTypeOrSelf(t).isInteger(1);
        }))
      return;
    // Partial tiles whose size is only known at run time (the last block of
    // a loop that the block size does not divide) are vectorised to their
    // largest size, masked.
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> vectorSizes;
    if (llvm::any_of(ranges, ShapedType::isDynamic)) {
      std::optional<SmallVector<int64_t>> bounds = tt::getLoopUpperBounds(op);
      if (!masked || !bounds)
        return;
      // Whole registers: a bound of 31 elements is a masked vector of 32.
      for (auto [size, bound] : llvm::zip(op.getStaticLoopRanges(), *bounds))
        vectorSizes.push_back(
            ShapedType::isDynamic(size)
                ? static_cast<int64_t>(llvm::PowerOf2Ceil(bound))
                : bound);
      ranges = vectorSizes;
    } else if (std::optional<tt::MatmulDims> dims = tt::getMatmulDims(op);
               dims && masked && !llvm::isPowerOf2_64(ranges[dims->n])) {
      // A register tile's columns are a vector of the next power of two,
      // masked: LLVM widens an odd vector (<56 x float>, 3.5 registers)
      // element by element, spilling. On a 2-core Zen 4, f32 [6 x 196 x
      // 1080] @ [6 x 1080 x n] took 5.4 ms for n = 120 (64 + 56), 1.6 for
      // n = 128; masked, 1.7 ms.
      vectorSizes = ranges;
      vectorSizes[dims->n] = static_cast<int64_t>(
          llvm::PowerOf2Ceil(static_cast<uint64_t>(ranges[dims->n])));
      ranges = vectorSizes;
    }
    int64_t elements = 1;
    for (int64_t r : ranges)
      elements *= r;
    if (elements > maxVectorElements || elements == 0)
      return;
    if (foldUnitLoops && vectorSizes.empty())
      foldUnitLoopsInMaps(rewriter, op);
    if (failed(linalg::vectorizeOpPrecondition(op, vectorSizes)))
      return;
    rewriter.setInsertionPoint(op);
    // Matmul tiles become vector.contract directly (lowered to outer
    // products later); everything else through elementwise ops and
    // multi-reductions.
    bool contraction = tt::getMatmulDims(op).has_value();
    SmallVector<bool> scalable(vectorSizes.size(), false);
    FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
        rewriter, op, vectorSizes, scalable,
        /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
        /*assumeDynamicDimsMatchVecSizes=*/false,
        /*createNamedContraction=*/contraction);
    if (failed(result) && contraction)
      result = linalg::vectorize(rewriter, op, vectorSizes, scalable);
    if (failed(result))
      return;
    if (op->getNumResults())
      rewriter.replaceOp(op, result->replacements);
    else
      rewriter.eraseOp(op);
  }
};

} // namespace
