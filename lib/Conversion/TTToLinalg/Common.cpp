//===- Common.cpp - Helpers shared by the tt-to-linalg patterns -----------===//
//
// The helpers that several op families use (Common.h): sizes, empty and
// filled tensors, the broadcasting elementwise generic and reshapes.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::tt;

FailureOr<RankedTensorType> tt::rankedResultType(Operation *op,
                                                 PatternRewriter &rewriter) {
  for (Value operand : op->getOperands())
    if (!isa<RankedTensorType>(operand.getType()))
      return rewriter.notifyMatchFailure(
          op, "operands must be ranked (run --tt-infer-shapes)");
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return rewriter.notifyMatchFailure(
        op, "result must be ranked (run --tt-infer-shapes)");
  return type;
}

OpFoldResult tt::dimSize(OpBuilder &b, Location loc, Value value, int64_t d) {
  int64_t size = cast<RankedTensorType>(value.getType()).getDimSize(d);
  if (!ShapedType::isDynamic(size))
    return b.getIndexAttr(size);
  return tensor::DimOp::create(b, loc, value, d).getResult();
}

SmallVector<Value>
tt::dynamicSizes(OpBuilder &b, Location loc, RankedTensorType type,
                 llvm::function_ref<OpFoldResult(int64_t)> source) {
  SmallVector<Value> sizes;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, source(d)));
  return sizes;
}

Value tt::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                      ValueRange sizes) {
  assert(static_cast<int64_t>(sizes.size()) == type.getNumDynamicDims() &&
         "one size per dynamic dimension");
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 sizes);
}

Value tt::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                       TypedAttr value, ValueRange sizes) {
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar,
                                emptyTensor(b, loc, type, sizes))
      .getResult(0);
}

void tt::assertSameSize(OpBuilder &b, Location loc, OpFoldResult lhs,
                        OpFoldResult rhs, const Twine &message) {
  if (getConstantIntValue(lhs) && getConstantIntValue(rhs))
    return;
  Value eq =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            getValueOrCreateConstantIndexOp(b, loc, lhs),
                            getValueOrCreateConstantIndexOp(b, loc, rhs));
  cf::AssertOp::create(b, loc, eq, message.str());
}

namespace {

/// The indexing map that reads `operandShape` when iterating over
/// `resultShape` under NumPy broadcasting: leading result dimensions the
/// operand lacks are dropped and a size-1 dimension that stretches reads
/// index 0. A dynamic operand dimension is not broadcast: its size is the
/// result's.
AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                       ArrayRef<int64_t> resultShape) {
  int64_t offset = resultShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [d, size] : llvm::enumerate(operandShape)) {
    if (size == 1 && resultShape[offset + d] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(offset + d, ctx));
  }
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

/// The size of result dimension `d` of a broadcast of `inputs`: that of
/// an input whose aligned dimension is not 1.
OpFoldResult broadcastDimSize(OpBuilder &b, Location loc, ValueRange inputs,
                              int64_t rank, int64_t d) {
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t dim = d - (rank - type.getRank());
    if (dim >= 0 && type.getDimSize(dim) != 1)
      return dimSize(b, loc, input, dim);
  }
  return b.getIndexAttr(1);
}

/// Checks at run time that the inputs of a broadcast agree in every
/// dimension where one of them is dynamic (a dynamic size is never
/// stretched, so it must equal the others).
void assertBroadcastable(OpBuilder &b, Location loc, ValueRange inputs,
                         int64_t rank, StringRef opName) {
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<std::pair<Value, int64_t>> first;
    for (auto [idx, input] : llvm::enumerate(inputs)) {
      auto type = cast<RankedTensorType>(input.getType());
      int64_t dim = d - (rank - type.getRank());
      if (dim < 0 || type.getDimSize(dim) == 1)
        continue;
      if (!first) {
        first = {input, dim};
        continue;
      }
      auto firstType = cast<RankedTensorType>(first->first.getType());
      if (!type.isDynamicDim(dim) && !firstType.isDynamicDim(first->second))
        continue;
      assertSameSize(b, loc, dimSize(b, loc, first->first, first->second),
                     dimSize(b, loc, input, dim),
                     opName + ": operand #" + Twine(idx) + " dimension " +
                         Twine(dim) + " does not match the other operands " +
                         "(a dynamic size is not broadcast)");
    }
  }
}

} // namespace

Value tt::buildElementwise(OpBuilder &b, Location loc,
                           RankedTensorType resultType, ValueRange inputs,
                           ScalarFn fn, StringRef opName) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(
        broadcastMap(ctx, cast<RankedTensorType>(input.getType()).getShape(),
                     resultType.getShape()));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Type elementType = resultType.getElementType();
  if (!resultType.hasStaticShape())
    assertBroadcastable(b, loc, inputs, resultType.getRank(), opName);
  Value init = emptyTensor(
      b, loc, resultType, dynamicSizes(b, loc, resultType, [&](int64_t d) {
        return broadcastDimSize(b, loc, inputs, resultType.getRank(), d);
      }));
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = fn(nb, nloc, args.drop_back(), elementType);
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

Value tt::reshapeTensor(OpBuilder &b, Location loc, Value value,
                        RankedTensorType target) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source == target)
    return value;
  // Adding or dropping unit dimensions (keepdims, matrix promotion) is one
  // expand or collapse; it keeps dynamic dimensions, which flattening
  // cannot.
  if (source.getRank() != target.getRank() && source.getRank() > 0 &&
      target.getRank() > 0) {
    bool expand = source.getRank() < target.getRank();
    if (std::optional<SmallVector<ReassociationIndices>> groups =
            getReassociationIndicesForReshape(expand ? source : target,
                                              expand ? target : source)) {
      if (expand)
        return tensor::ExpandShapeOp::create(b, loc, target, value, *groups);
      return tensor::CollapseShapeOp::create(b, loc, target, value, *groups);
    }
  }
  assert(source.hasStaticShape() && target.hasStaticShape() &&
         "a reshape through one dimension needs static shapes");
  if (source.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, target, value,
                                         ArrayRef<ReassociationIndices>{});
  if (target.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, target, value,
                                           ArrayRef<ReassociationIndices>{});
  Value flat = value;
  if (source.getRank() != 1) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, source.getRank()));
    flat = tensor::CollapseShapeOp::create(
        b, loc,
        RankedTensorType::get({source.getNumElements()},
                              source.getElementType()),
        value, ArrayRef<ReassociationIndices>{all});
  }
  if (target.getRank() == 1)
    return flat;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, target.getRank()));
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       ArrayRef<ReassociationIndices>{all});
}
