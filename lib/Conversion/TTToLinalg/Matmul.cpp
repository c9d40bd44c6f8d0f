//===- Matmul.cpp - tt.matmul to linalg -----------------------------------===//
//
// tt.matmul as linalg.dot, matvec, vecmat, matmul or batch_matmul where
// the ranks allow, else a linalg.generic that broadcasts the batch
// dimensions.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::tt;

namespace {

struct MatmulLowering : public RankedLowering<MatmulOp> {
  using RankedLowering::RankedLowering;

  Value lower(MatmulOp op, OpAdaptor adaptor, OpBuilder &builder,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    Type et = lt.getElementType();
    int64_t rk = rt.getRank() == 1 ? 0 : rt.getRank() - 2;
    assertSameSize(builder, loc, dimSize(builder, loc, lhs, lt.getRank() - 1),
                   dimSize(builder, loc, rhs, rk),
                   "tt.matmul: the contraction sizes differ");
    // A stack of matrices times one matrix is one matrix product: the
    // batch dimensions of the lhs become rows.
    if (lt.getRank() > 2 && rt.getRank() == 2) {
      int64_t rank = lt.getRank();
      int64_t rows = 1;
      for (int64_t d : lt.getShape().drop_back())
        rows = ShapedType::isDynamic(d) || ShapedType::isDynamic(rows)
                   ? ShapedType::kDynamic
                   : rows * d;
      auto flatType = RankedTensorType::get({rows, lt.getShape().back()}, et);
      auto productType =
          RankedTensorType::get({rows, rt.getShape().back()}, et);
      ReassociationIndices leading =
          llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
      SmallVector<ReassociationIndices> groups = {leading, {rank - 1}};
      Value flat =
          tensor::CollapseShapeOp::create(builder, loc, flatType, lhs, groups);
      SmallVector<Value> rowSizes;
      if (ShapedType::isDynamic(rows))
        rowSizes.push_back(tensor::DimOp::create(builder, loc, flat, 0));
      if (rt.isDynamicDim(1))
        rowSizes.push_back(tensor::DimOp::create(builder, loc, rhs, 1));
      Value product = linalg::MatmulOp::create(
                          builder, loc, ValueRange{flat, rhs},
                          filledTensor(builder, loc, productType,
                                       builder.getZeroAttr(et), rowSizes))
                          .getResult(0);
      SmallVector<OpFoldResult> shape;
      for (int64_t d = 0; d < rank - 1; ++d)
        shape.push_back(dimSize(builder, loc, lhs, d));
      shape.push_back(dimSize(builder, loc, rhs, 1));
      return tensor::ExpandShapeOp::create(builder, loc, type, product, groups,
                                           shape);
    }
    if (lt.getRank() > 2 || rt.getRank() > 2) {
      return batched(builder, loc, lhs, rhs, type);
    }

    // Vector and matrix cases map to dedicated named ops; the result's
    // dimensions are the lhs rows and the rhs columns.
    Value zeroInit =
        filledTensor(builder, loc, type, builder.getZeroAttr(et),
                     dynamicSizes(builder, loc, type, [&](int64_t d) {
                       if (d == 0 && lt.getRank() == 2)
                         return dimSize(builder, loc, lhs, 0);
                       return dimSize(builder, loc, rhs, rt.getRank() - 1);
                     }));
    Value result;
    if (lt.getRank() == 1 && rt.getRank() == 1)
      result =
          linalg::DotOp::create(builder, loc, ValueRange{lhs, rhs}, zeroInit)
              .getResult(0);
    else if (lt.getRank() == 2 && rt.getRank() == 1)
      result =
          linalg::MatvecOp::create(builder, loc, ValueRange{lhs, rhs}, zeroInit)
              .getResult(0);
    else if (lt.getRank() == 1 && rt.getRank() == 2)
      result =
          linalg::VecmatOp::create(builder, loc, ValueRange{lhs, rhs}, zeroInit)
              .getResult(0);
    else
      result =
          linalg::MatmulOp::create(builder, loc, ValueRange{lhs, rhs}, zeroInit)
              .getResult(0);
    return result;
  }

  /// Batched matmul: promote 1-D operands to matrices, then use
  /// linalg.batch_matmul when both are rank 3 with equal batch sizes, else a
  /// linalg.generic whose maps broadcast the batch dimensions.
  static Value batched(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       RankedTensorType resultType) {
    MLIRContext *ctx = b.getContext();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    Type et = lt.getElementType();
    if (lt.getRank() == 1) {
      lt = RankedTensorType::get({1, lt.getDimSize(0)}, et);
      lhs = reshapeTensor(b, loc, lhs, lt);
    }
    if (rt.getRank() == 1) {
      rt = RankedTensorType::get({rt.getDimSize(0), 1}, et);
      rhs = reshapeTensor(b, loc, rhs, rt);
    }
    ArrayRef<int64_t> ls = lt.getShape(), rs = rt.getShape();
    int64_t m = ls[ls.size() - 2];
    int64_t n = rs.back();
    // Full result shape with both matrix dimensions.
    SmallVector<int64_t> batch(resultType.getShape());
    batch.resize(std::max(ls.size(), rs.size()) - 2);
    SmallVector<int64_t> full(batch);
    full.append({m, n});
    auto fullType = RankedTensorType::get(full, et);
    // Sizes: the batch dimensions broadcast (checked where dynamic), the
    // rows of the lhs, the columns of the rhs.
    int64_t nb = batch.size();
    auto batchSize = [&](Value operand, int64_t d) -> std::optional<int64_t> {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t dim = d - (nb - (type.getRank() - 2));
      if (dim < 0 || type.getDimSize(dim) == 1)
        return std::nullopt;
      return dim;
    };
    for (int64_t d = 0; d < nb; ++d) {
      std::optional<int64_t> l = batchSize(lhs, d), r = batchSize(rhs, d);
      if (l && r)
        assertSameSize(b, loc, dimSize(b, loc, lhs, *l),
                       dimSize(b, loc, rhs, *r),
                       "tt.matmul: the batch sizes differ");
    }
    Value init = filledTensor(
        b, loc, fullType, b.getZeroAttr(et),
        dynamicSizes(b, loc, fullType, [&](int64_t d) -> OpFoldResult {
          if (d == nb)
            return dimSize(b, loc, lhs, lt.getRank() - 2);
          if (d == nb + 1)
            return dimSize(b, loc, rhs, rt.getRank() - 1);
          if (std::optional<int64_t> l = batchSize(lhs, d))
            return dimSize(b, loc, lhs, *l);
          if (std::optional<int64_t> r = batchSize(rhs, d))
            return dimSize(b, loc, rhs, *r);
          return b.getIndexAttr(1);
        }));

    Value result;
    ArrayRef<int64_t> lb = ls.drop_back(2), rb = rs.drop_back(2);
    if (ls.size() > 3 && lb == rb && !ShapedType::isDynamicShape(lb)) {
      // Equal static batch dimensions merged into one: the matmul kernels
      // take linalg.batch_matmul's one batch axis (a generic with two made
      // attention's [B, H, L, E] @ [B, H, E, S] 1.4x slower on BERT-base).
      SmallVector<ReassociationIndices> groups = {
          llvm::to_vector(llvm::seq<int64_t>(0, nb)), {nb}, {nb + 1}};
      auto merge = [&](Value v) {
        return tensor::CollapseShapeOp::create(b, loc, v, groups).getResult();
      };
      Value product =
          linalg::BatchMatmulOp::create(
              b, loc, ValueRange{merge(lhs), merge(rhs)}, merge(init))
              .getResult(0);
      result = tensor::ExpandShapeOp::create(b, loc, fullType, product, groups);
    } else if (ls.size() == 3 && rs.size() == 3 && ls[0] == rs[0]) {
      result = linalg::BatchMatmulOp::create(b, loc, ValueRange{lhs, rhs}, init)
                   .getResult(0);
    } else {
      // Iteration space: (batch..., m, n, k).
      int64_t dims = nb + 3;
      auto operandMap = [&](ArrayRef<int64_t> shape, int64_t row, int64_t col) {
        int64_t offset = nb - (static_cast<int64_t>(shape.size()) - 2);
        SmallVector<AffineExpr> exprs;
        for (int64_t d = 0, e = shape.size() - 2; d < e; ++d)
          exprs.push_back(shape[d] == 1 && batch[offset + d] != 1
                              ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(offset + d, ctx));
        exprs.push_back(getAffineDimExpr(row, ctx));
        exprs.push_back(getAffineDimExpr(col, ctx));
        return AffineMap::get(dims, 0, exprs, ctx);
      };
      SmallVector<AffineExpr> outExprs;
      for (int64_t d = 0; d < nb + 2; ++d)
        outExprs.push_back(getAffineDimExpr(d, ctx));
      SmallVector<AffineMap> maps = {operandMap(ls, nb, nb + 2),
                                     operandMap(rs, nb + 2, nb + 1),
                                     AffineMap::get(dims, 0, outExprs, ctx)};
      SmallVector<utils::IteratorType> iterators(nb + 2,
                                                 utils::IteratorType::parallel);
      iterators.push_back(utils::IteratorType::reduction);
      result =
          linalg::GenericOp::create(
              b, loc, fullType, ValueRange{lhs, rhs}, init, maps, iterators,
              [&](OpBuilder &ib, Location il, ValueRange args) {
                Value p = floatOrInt<arith::MulFOp, arith::MulIOp>(
                    ib, il, args.take_front(2));
                Value s = floatOrInt<arith::AddFOp, arith::AddIOp>(
                    ib, il, ValueRange{p, args[2]});
                linalg::YieldOp::create(ib, il, s);
              })
              .getResult(0);
    }
    return reshapeTensor(b, loc, result, resultType);
  }
};

} // namespace

void tt::populateMatmulLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering>(patterns.getContext());
}
