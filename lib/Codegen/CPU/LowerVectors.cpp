//===- LowerVectors.cpp - Vector ops to what LLVM maps to the ISA ---------===//

#include "TinyTensor/Codegen/Passes.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPULOWERVECTORS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// True for a contraction whose reduction dimension is the innermost one of
/// both operands (`A[m, k] . B[n, k]`, as a transposed-operand matmul or a
/// row of a matvec makes): dot products of contiguous rows. Outer products
/// would take one scalar FMA per element of the reduction.
bool isDotLike(vector::ContractionOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<vector::IteratorType> iterators = op.getIteratorTypesArray();
  auto innermostReduces = [&](AffineMap map) {
    if (map.getNumResults() == 0)
      return false;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    return dim &&
           iterators[dim.getPosition()] == vector::IteratorType::reduction;
  };
  return innermostReduces(maps[0]) && innermostReduces(maps[1]);
}

/// `vector.create_mask %n : vector<Nxi1>` (fixed N) as `[0, 1, .., N-1] <
/// %n`, a comparison LLVM turns into an AVX-512 mask register (or a vector
/// of lanes).
struct MaterializeCreateMask : public OpRewritePattern<vector::CreateMaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::CreateMaskOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    if (type.getRank() != 1 || type.isScalable())
      return failure();
    Location loc = op.getLoc();
    int64_t n = type.getShape()[0];
    auto indexType = VectorType::get({n}, rewriter.getI32Type());
    Value lanes = arith::ConstantOp::create(
        rewriter, loc,
        DenseIntElementsAttr::get(indexType,
                                  llvm::to_vector(llvm::seq<int32_t>(0, n))));
    Value bound = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI32Type(), op.getOperand(0));
    Value splat = vector::BroadcastOp::create(rewriter, loc, indexType, bound);
    rewriter.replaceOpWithNewOp<arith::CmpIOp>(op, arith::CmpIPredicate::slt,
                                               lanes, splat);
    return success();
  }
};

/// The value a reduction of `kind` over `type` leaves unchanged.
TypedAttr neutralElement(vector::CombiningKind kind, Type type) {
  using Kind = vector::CombiningKind;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case Kind::ADD:
      return FloatAttr::get(type, APFloat::getZero(sem, /*Negative=*/true));
    case Kind::MUL:
      return FloatAttr::get(type, APFloat::getOne(sem));
    case Kind::MAXIMUMF:
    case Kind::MAXNUMF:
      return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/true));
    case Kind::MINIMUMF:
    case Kind::MINNUMF:
      return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/false));
    default:
      return {};
    }
  }
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return {};
  unsigned width = intType.getWidth();
  switch (kind) {
  case Kind::ADD:
  case Kind::OR:
  case Kind::XOR:
  case Kind::MAXUI:
    return IntegerAttr::get(type, APInt::getZero(width));
  case Kind::MUL:
    return IntegerAttr::get(type, APInt(width, 1));
  case Kind::AND:
  case Kind::MINUI:
    return IntegerAttr::get(type, APInt::getAllOnes(width));
  case Kind::MAXSI:
    return IntegerAttr::get(type, APInt::getSignedMinValue(width));
  case Kind::MINSI:
    return IntegerAttr::get(type, APInt::getSignedMaxValue(width));
  default:
    return {};
  }
}

/// A masked 1-D `vector.reduction` (the partial tile of a reduction whose
/// length is only known at run time) as an unmasked one over the lanes with
/// the masked-off ones replaced by the reduction's neutral element. MLIR
/// 22's own lowering of a masked `maximumf` reduction starts the masked-off
/// lanes at the negative float of smallest magnitude (-1e-45), not -inf,
/// so that the maximum of negative numbers came out as -1e-45.
struct SelectMaskedReductionLanes : public OpRewritePattern<vector::MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MaskOp mask,
                                PatternRewriter &rewriter) const override {
    auto reduction =
        dyn_cast_if_present<vector::ReductionOp>(mask.getMaskableOp());
    if (!reduction || mask.hasPassthru())
      return failure();
    VectorType type = reduction.getSourceVectorType();
    TypedAttr neutral =
        neutralElement(reduction.getKind(), type.getElementType());
    if (!neutral || type.getRank() != 1 || type.isScalable())
      return failure();
    Location loc = mask.getLoc();
    Value splat = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(type, Attribute(neutral)));
    Value lanes = arith::SelectOp::create(rewriter, loc, mask.getMask(),
                                          reduction.getVector(), splat);
    rewriter.replaceOpWithNewOp<vector::ReductionOp>(
        mask, reduction.getKind(), lanes, reduction.getAcc(),
        reduction.getFastmath());
    return success();
  }
};

/// `vector.reduction <add>` of `arith.extf` f32 -> f64 over N lanes: the
/// largest number of slices g <= `maxSlices` with N a multiple of 16 g are
/// added lane by lane in f32 first, and only their sum (N / g lanes) is
/// widened and reduced in f64.
void narrowPartialSums(RewriterBase &rewriter, vector::ReductionOp op,
                       int64_t maxSlices) {
  if (op.getKind() != vector::CombiningKind::ADD || op.isMasked())
    return;
  auto ext = op.getVector().getDefiningOp<arith::ExtFOp>();
  if (!ext)
    return;
  auto srcType = cast<VectorType>(ext.getIn().getType());
  if (srcType.getRank() != 1 || srcType.isScalable() ||
      !srcType.getElementType().isF32() ||
      !cast<VectorType>(ext.getType()).getElementType().isF64())
    return;
  int64_t n = srcType.getShape()[0];
  int64_t slices = maxSlices;
  while (slices > 1 && n % (16 * slices) != 0)
    --slices;
  if (slices <= 1)
    return;
  int64_t width = n / slices;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value partial;
  for (int64_t i = 0; i < slices; ++i) {
    Value slice = vector::ExtractStridedSliceOp::create(
        rewriter, loc, ext.getIn(), ArrayRef<int64_t>{i * width},
        ArrayRef<int64_t>{width}, ArrayRef<int64_t>{1});
    partial =
        partial
            ? arith::AddFOp::create(rewriter, loc, partial, slice).getResult()
            : slice;
  }
  Value wide = arith::ExtFOp::create(
      rewriter, loc, VectorType::get({width}, rewriter.getF64Type()), partial);
  rewriter.replaceOpWithNewOp<vector::ReductionOp>(
      op, op.getType(), op.getKindAttr(), wide, op.getAcc(),
      op.getFastmathAttr());
  if (ext->use_empty())
    rewriter.eraseOp(ext);
}

/// A contraction whose reduction dimensions all have size 1 and whose
/// operands index the parallel dimensions as the accumulator does (a
/// depthwise convolution's window step over channels: acc[c] += x[1, 1, c]
/// * w[1, 1, c]) is an elementwise multiply-add: `acc + lhs * rhs` on the
/// accumulator's shape. Lowered as a contraction it would be unrolled into
/// one scalar multiply-add per lane (64 for 64 channels), slow to run and
/// to compile.
struct ContractUnitReductionToFma
    : public OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getKind() != vector::CombiningKind::ADD || op.isMasked())
      return failure();
    auto accType = dyn_cast<VectorType>(op.getAccType());
    VectorType lhsType = op.getLhsType(), rhsType = op.getRhsType();
    if (!accType || accType.isScalable() || lhsType.isScalable() ||
        rhsType.isScalable() ||
        lhsType.getElementType() != accType.getElementType() ||
        rhsType.getElementType() != accType.getElementType() ||
        !isa<FloatType>(accType.getElementType()))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<vector::IteratorType> iterators = op.getIteratorTypesArray();
    // The dimensions of size > 1 each operand indexes, in its order; every
    // reduction dimension has size 1 (dimensions of size 1, parallel ones
    // included, are left out: a unit dimension the vectoriser folded away
    // in one operand is still there in another).
    auto wideDims = [&](AffineMap map, VectorType type,
                        SmallVector<unsigned> &dims) {
      for (auto [i, expr] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim)
          return false;
        if (type.getShape()[i] == 1)
          continue;
        if (iterators[dim.getPosition()] == vector::IteratorType::reduction)
          return false;
        dims.push_back(dim.getPosition());
      }
      return true;
    };
    SmallVector<unsigned> lhsDims, rhsDims, accDims;
    if (!wideDims(maps[0], lhsType, lhsDims) ||
        !wideDims(maps[1], rhsType, rhsDims) ||
        !wideDims(maps[2], accType, accDims))
      return failure();
    if (lhsDims != accDims || rhsDims != accDims ||
        lhsType.getNumElements() != accType.getNumElements() ||
        rhsType.getNumElements() != accType.getNumElements())
      return failure();
    Location loc = op.getLoc();
    Value lhs =
        vector::ShapeCastOp::create(rewriter, loc, accType, op.getLhs());
    Value rhs =
        vector::ShapeCastOp::create(rewriter, loc, accType, op.getRhs());
    rewriter.replaceOpWithNewOp<vector::FMAOp>(op, lhs, rhs, op.getAcc());
    return success();
  }
};

struct CPULowerVectorsPass
    : public tt::impl::TTCPULowerVectorsBase<CPULowerVectorsPass> {
  using TTCPULowerVectorsBase::TTCPULowerVectorsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();

    // Copies between strided buffers (slices of heads, concatenations)
    // become linalg.copy, i.e. plain loop nests that LLVM vectorises,
    // instead of calls to the runtime's element-by-element memrefCopy.
    // Copies of whole contiguous buffers stay: they become one memcpy.
    {
      SmallVector<memref::CopyOp> copies;
      func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
      IRRewriter rewriter(ctx);
      for (memref::CopyOp copy : copies) {
        auto type = cast<MemRefType>(copy.getSource().getType());
        auto target = cast<MemRefType>(copy.getTarget().getType());
        if (type.getRank() == 0 ||
            (memref::isStaticShapeAndContiguousRowMajor(type) &&
             memref::isStaticShapeAndContiguousRowMajor(target)))
          continue;
        rewriter.setInsertionPoint(copy);
        rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                    copy.getTarget());
      }
    }
    // Contractions over unit reduction dimensions to elementwise FMAs.
    {
      RewritePatternSet patterns(ctx);
      patterns.add<ContractUnitReductionToFma>(ctx);
      (void)tt::applyPatterns(*this, func, std::move(patterns),
                              tt::Convergence::Optional);
    }
    // Dot-like contractions to vector reductions of elementwise products.
    {
      SmallVector<Operation *> dots;
      func.walk([&](vector::ContractionOp op) {
        if (isDotLike(op))
          dots.push_back(op);
      });
      RewritePatternSet patterns(ctx);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::Dot);
      (void)tt::applyOpPatterns(*this, func, dots, std::move(patterns),
                                tt::Convergence::Optional);
    }
    // Contractions to outer products (a broadcast of one A element times a
    // row of B, accumulated with FMA), masks folded into transfers,
    // n-D reductions to 1-D ones.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::OuterProduct);
      vector::populateVectorOuterProductLoweringPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerReduction);
      vector::populateVectorMaskOpLoweringPatterns(patterns);
      vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      // vector<1x64xf32> -> vector<64xf32>: elementwise tiles are one row.
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      (void)tt::applyPatterns(*this, func, std::move(patterns),
                              tt::Convergence::Optional);
    }
    // Elementwise ops on n-D vectors (untiled ops, operand conversions of a
    // contraction) work row by row: LLVM has no n-D vector arithmetic.
    {
      RewritePatternSet patterns(ctx);
      vector::UnrollVectorOptions unroll;
      unroll.setFilterConstraint([](Operation *op) {
        return success(OpTrait::hasElementwiseMappableTraits(op) &&
                       op->getNumResults() == 1);
      });
      unroll.setNativeShapeFn(
          [](Operation *op) -> std::optional<SmallVector<int64_t>> {
            auto type = dyn_cast<VectorType>(op->getResult(0).getType());
            if (!type || type.getRank() < 2)
              return std::nullopt;
            SmallVector<int64_t> shape(type.getRank() - 1, 1);
            shape.push_back(type.getShape().back());
            return shape;
          });
      vector::populateVectorUnrollPatterns(patterns, unroll);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
      (void)tt::applyPatterns(*this, func, std::move(patterns),
                              tt::Convergence::Optional);
    }
    // Transfers of rank 1 (loads and stores, masked at the edges), and the
    // remaining shape manipulations. No canonicalisation patterns here: they
    // would rebuild n-D vectors element by element (vector.from_elements).
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      // Single elements (0-d vectors, e.g. of a view whose innermost
      // stride is not 1, which the patterns above leave) become
      // memref.load / memref.store.
      vector::populateScalarVectorTransferLoweringPatterns(
          patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::Shuffle16x16);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      patterns.add<MaterializeCreateMask, SelectMaskedReductionLanes>(ctx);
      (void)tt::applyPatterns(*this, func, std::move(patterns),
                              tt::Convergence::Optional);
    }
    // f32 sums widened to f64: add slices in f32 first.
    if (f32PartialSums > 1) {
      SmallVector<vector::ReductionOp> reductions;
      func.walk([&](vector::ReductionOp op) { reductions.push_back(op); });
      IRRewriter rewriter(ctx);
      for (vector::ReductionOp op : reductions)
        narrowPartialSums(rewriter, op, f32PartialSums);
    }
    // Let LLVM reduce in a tree rather than element by element. A maximum
    // or minimum ignores the sign of zero, as NumPy's does (np.max of
    // [0.0, -0.0] is -0.0): x86's vmaxps then needs only a NaN fix-up,
    // not a sign fix-up as well (3 instructions per vector instead of 6).
    auto flags = [&](vector::CombiningKind kind) {
      arith::FastMathFlags fmf =
          arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
      if (kind == vector::CombiningKind::MAXIMUMF ||
          kind == vector::CombiningKind::MINIMUMF)
        fmf = fmf | arith::FastMathFlags::nsz;
      return arith::FastMathFlagsAttr::get(ctx, fmf);
    };
    func.walk([&](vector::ReductionOp op) {
      if (isa<FloatType>(op.getType()))
        op.setFastmathAttr(flags(op.getKind()));
    });
  }
};

} // namespace
