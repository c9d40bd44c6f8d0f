//===- Collectives.cpp - Collectives --convert-shard-to-mpi lacks ---------===//
//
// MLIR 22 lowers shard.all_reduce to MPI but not the collectives that
// --shard-partition also makes when a tensor changes from split to
// replicated (all_gather) or back (all_slice). They are rewritten here into
// local tensor ops and shard.all_reduce.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/TTOps.h"
#include "TinyTensor/Distributed/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTLOWERSHARDCOLLECTIVES
#include "TinyTensor/Distributed/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// This process's position in the group of processes that `axes` of
/// `grid` span: the first axis varies slowest, as in shard.all_gather.
Value groupIndex(OpBuilder &b, Location loc, shard::GridOp grid,
                 ArrayRef<shard::GridAxis> axes) {
  auto indices =
      shard::ProcessMultiIndexOp::create(b, loc, grid.getSymName(), axes);
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [axis, index] : llvm::zip(axes, indices.getResults())) {
    Value size = arith::ConstantIndexOp::create(b, loc, grid.getShape()[axis]);
    linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, linear, size), index);
  }
  return linear;
}

/// Offsets, sizes and unit strides of the part of a tensor shaped like
/// `whole` that this process holds when `axis` is split over `axes` into
/// parts the size of `part`'s (static) `axis`.
void partOf(OpBuilder &b, Location loc, shard::GridOp grid,
            ArrayRef<shard::GridAxis> axes, Value whole, RankedTensorType part,
            int64_t axis, SmallVectorImpl<OpFoldResult> &offsets,
            SmallVectorImpl<OpFoldResult> &sizes,
            SmallVectorImpl<OpFoldResult> &strides) {
  sizes = tensor::getMixedSizes(b, loc, whole);
  offsets.assign(part.getRank(), b.getIndexAttr(0));
  strides.assign(part.getRank(), b.getIndexAttr(1));
  Value index = groupIndex(b, loc, grid, axes);
  Value size = arith::ConstantIndexOp::create(b, loc, part.getDimSize(axis));
  offsets[axis] = arith::MulIOp::create(b, loc, index, size).getResult();
  sizes[axis] = b.getIndexAttr(part.getDimSize(axis));
}

struct LowerShardCollectivesPass
    : public tt::impl::TTLowerShardCollectivesBase<LowerShardCollectivesPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    SmallVector<Operation *> collectives;
    getOperation().walk([&](Operation *op) {
      if (isa<shard::AllGatherOp, shard::AllSliceOp, shard::ReduceScatterOp,
              shard::AllToAllOp, shard::BroadcastOp, shard::GatherOp,
              shard::ScatterOp, shard::SendOp, shard::RecvOp, shard::ShiftOp,
              shard::ReduceOp>(op))
        collectives.push_back(op);
      // MLIR 22's mpi.allreduce lowering takes buffers of rank 1 or more,
      // and no combiner it could not classify.
      if (auto allReduce = dyn_cast<shard::AllReduceOp>(op)) {
        auto type = dyn_cast<RankedTensorType>(allReduce.getType());
        if ((type && type.getRank() == 0) ||
            allReduce.getReduction() == shard::ReductionKind::Generic)
          collectives.push_back(op);
      }
    });
    for (Operation *op : collectives)
      if (failed(lower(op, symbols)))
        return signalPassFailure();
    // Constants that crossed partitioning as tt.constant
    // (tt-complete-sharding) become arith.constant again.
    getOperation().walk([](tt::ConstantOp constant) {
      OpBuilder b(constant);
      Value value = arith::ConstantOp::create(
          b, constant.getLoc(), cast<TypedAttr>(constant.getValue()));
      constant.getResult().replaceAllUsesWith(value);
      constant.erase();
    });
  }

  LogicalResult lower(Operation *op, SymbolTableCollection &symbols) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto allReduce = dyn_cast<shard::AllReduceOp>(op)) {
      if (allReduce.getReduction() == shard::ReductionKind::Generic)
        return op->emitError()
               << "a reduction over a split dimension whose combiner MLIR "
                  "cannot classify as a sum, product, minimum or maximum "
                  "(an argmax?): it has no MPI lowering; replicate the "
                  "reduced dimension";
      // A scalar (0-d) all-reduce, as one element of rank 1.
      auto type = cast<RankedTensorType>(allReduce.getType());
      auto vector = RankedTensorType::get({1}, type.getElementType());
      Value one =
          tensor::ExpandShapeOp::create(b, loc, vector, allReduce.getInput(),
                                        ArrayRef<ReassociationIndices>{});
      Value reduced = shard::AllReduceOp::create(
          b, loc, vector, allReduce.getGridAttr(), allReduce.getGridAxesAttr(),
          one, allReduce.getReductionAttr());
      Value result = tensor::CollapseShapeOp::create(
          b, loc, type, reduced, ArrayRef<ReassociationIndices>{});
      allReduce.getResult().replaceAllUsesWith(result);
      allReduce.erase();
      return success();
    }
    if (auto slice = dyn_cast<shard::AllSliceOp>(op)) {
      auto part = cast<RankedTensorType>(slice.getResult().getType());
      int64_t axis = slice.getSliceAxis().getSExtValue();
      if (failed(checkStatic(op, part, axis)))
        return failure();
      shard::GridOp grid = shard::getGrid(slice, symbols);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      partOf(b, loc, grid, slice.getGridAxes(), slice.getInput(), part, axis,
             offsets, sizes, strides);
      Value result = tensor::ExtractSliceOp::create(
          b, loc, part, slice.getInput(), offsets, sizes, strides);
      slice.getResult().replaceAllUsesWith(result);
      slice.erase();
      return success();
    }
    if (auto gather = dyn_cast<shard::AllGatherOp>(op)) {
      auto part = cast<RankedTensorType>(gather.getInput().getType());
      auto whole = cast<RankedTensorType>(gather.getResult().getType());
      int64_t axis = gather.getGatherAxis().getSExtValue();
      if (failed(checkStatic(op, part, axis)))
        return failure();
      if (!isa<FloatType>(part.getElementType()) &&
          part.getElementType().getIntOrFloatBitWidth() == 1)
        return op->emitError() << "'shard.all_gather' of a boolean tensor "
                                  "is not supported (it is lowered as a "
                                  "sum)";
      shard::GridOp grid = shard::getGrid(gather, symbols);
      // Zeros everywhere but this process's part; their sum over the
      // group is the gathered tensor.
      SmallVector<OpFoldResult> wholeSizes =
          tensor::getMixedSizes(b, loc, gather.getInput());
      wholeSizes[axis] = b.getIndexAttr(whole.getDimSize(axis));
      Value empty =
          tensor::EmptyOp::create(b, loc, wholeSizes, whole.getElementType());
      Value zero = arith::ConstantOp::create(
          b, loc, b.getZeroAttr(whole.getElementType()));
      Value zeros = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      partOf(b, loc, grid, gather.getGridAxes(), zeros, part, axis, offsets,
             sizes, strides);
      Value placed = tensor::InsertSliceOp::create(
          b, loc, gather.getInput(), zeros, offsets, sizes, strides);
      Value result = shard::AllReduceOp::create(
          b, loc, whole, gather.getGridAttr(), gather.getGridAxesAttr(), placed,
          shard::ReductionKindAttr::get(b.getContext(),
                                        shard::ReductionKind::Sum));
      gather.getResult().replaceAllUsesWith(result);
      gather.erase();
      return success();
    }
    if (auto scatter = dyn_cast<shard::ReduceScatterOp>(op)) {
      auto part = cast<RankedTensorType>(scatter.getResult().getType());
      int64_t axis = scatter.getScatterAxis().getSExtValue();
      if (failed(checkStatic(op, part, axis)))
        return failure();
      shard::GridOp grid = shard::getGrid(scatter, symbols);
      Value reduced = shard::AllReduceOp::create(
          b, loc, scatter.getInput().getType(), scatter.getGridAttr(),
          scatter.getGridAxesAttr(), scatter.getInput(),
          scatter.getReductionAttr());
      SmallVector<OpFoldResult> offsets, sizes, strides;
      partOf(b, loc, grid, scatter.getGridAxes(), reduced, part, axis, offsets,
             sizes, strides);
      Value result = tensor::ExtractSliceOp::create(b, loc, part, reduced,
                                                    offsets, sizes, strides);
      scatter.getResult().replaceAllUsesWith(result);
      scatter.erase();
      return success();
    }
    return op->emitError() << "'" << op->getName()
                           << "' has no lowering to MPI in TinyTensor or in "
                              "MLIR 22's --convert-shard-to-mpi";
  }

  static LogicalResult checkStatic(Operation *op, RankedTensorType part,
                                   int64_t axis) {
    if (!part.isDynamicDim(axis))
      return success();
    return op->emitError() << "'" << op->getName()
                           << "' over a dynamic dimension (" << axis
                           << ") is not supported";
  }
};

} // namespace
