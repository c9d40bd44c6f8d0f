//===- ShardingRules.cpp - Sharding rules for ops MLIR 22 leaves out -----===//
//
// --sharding-propagation fails on any op in a function without MLIR's
// ShardingInterface, and MLIR 22 gives it only to linalg ops, tensor.empty,
// tensor.splat and arith.constant. A traced program also has reshapes,
// slices and scalar arithmetic. They get rules here:
//
//  - tensor.expand_shape / tensor.collapse_shape: a dimension split over
//    grid axes stays split over them across the reshape when it is the
//    leading dimension of its group (all dimensions before it in the group
//    have size 1): the local reshape is then the reshape of the local part.
//    Other splits are not propagated through (and are an error if they
//    reach one).
//  - tensor.pad, tensor.extract_slice: a dimension the op passes through
//    unchanged (not padded, taken whole) keeps its split;
//  - every other tensor op and every arith op but arith.constant runs
//    replicated, on every process: propagation passes nothing through it,
//    partitioning clones it, and a split tensor that reaches it is an error
//    naming the op (instead of an op built with the wrong shapes).
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/TTDialect.h"
#include "TinyTensor/Dialect/TT/TTOps.h"
#include "TinyTensor/Distributed/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace {

bool isSplit(const shard::Sharding &sharding) {
  return sharding && !shard::isFullReplication(sharding);
}

/// A sharding of `axes` (per dimension) without trailing unsplit
/// dimensions, as MLIR's own rules write them: an entry for a dimension
/// that an op reads through a window (d0 + d1) is an error to them even
/// when it splits nothing.
/// Annotates `op`'s result as `target` and its first operand as `source`
/// (the rules below have one tensor operand and one result).
void annotate(Operation *op, OpBuilder &b, const shard::Sharding &source,
              const shard::Sharding &target) {
  shard::maybeInsertTargetShardingAnnotation(target, op->getResult(0), b);
  OpBuilder::InsertionGuard guard(b);
  shard::maybeInsertSourceShardingAnnotation(source, op->getOpOperand(0), b);
}

/// `whole` (replicated) sliced locally to this process's part under
/// `sharding`: no communication.
Value slicedTo(OpBuilder &b, Location loc, Value whole, shard::GridOp grid,
               const shard::Sharding &sharding) {
  for (auto [dim, axes] : llvm::enumerate(sharding.getSplitAxes()))
    if (!axes.empty())
      whole = shard::AllSliceOp::create(b, loc, whole, grid, axes.asArrayRef(),
                                        dim);
  return whole;
}

shard::Sharding trimmed(FlatSymbolRefAttr grid,
                        SmallVector<shard::GridAxesAttr> axes) {
  while (axes.size() > 1 && axes.back().empty())
    axes.pop_back();
  return shard::Sharding::get(grid, axes);
}

template <typename OpTy>
struct ReplicatedOnly
    : public shard::ShardingInterface::ExternalModel<ReplicatedOnly<OpTy>,
                                                     OpTy> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *) const {
    return {};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *) const { return {}; }

  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *, ArrayRef<shard::Sharding>,
                    ArrayRef<shard::Sharding>) const {
    return shard::ShardingOption::makeEmpty();
  }

  FailureOr<std::vector<shard::Sharding>>
  getShardingAnnotations(Operation *op, const shard::ShardingOption &) const {
    return std::vector<shard::Sharding>(op->getNumOperands() +
                                        op->getNumResults());
  }

  LogicalResult addShardingAnnotations(Operation *, OpBuilder &,
                                       const shard::ShardingOption &) const {
    return success();
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    for (auto [i, sharding] : llvm::enumerate(operandShardings)) {
      if (!isSplit(sharding))
        continue;
      return op->emitError()
             << "'" << op->getName()
             << "' has no sharding rule (it runs replicated, on every "
                "process), but its operand "
             << i
             << " is split over the grid; replicate that value, or split the "
                "arguments so that only linalg and elementwise ops see split "
                "tensors";
    }
    for (auto [i, sharding] : llvm::enumerate(resultShardings)) {
      if (!isSplit(sharding))
        continue;
      return op->emitError()
             << "'" << op->getName()
             << "' has no sharding rule (it runs replicated, on every "
                "process), but its result "
             << i << " is to be split over the grid";
    }
    shard::partitionFullyReplicatedOperation(
        *op, partitionedOperands, operandShardings, resultShardings,
        partitionMap, symbolTable, builder);
    return success();
  }
};

/// The reshape rule. "Expanded" is the side with more dimensions (the
/// source of a collapse, the result of an expand); the op's loops are its
/// dimensions.
template <typename OpTy>
struct ReshapeSharding
    : public shard::ShardingInterface::ExternalModel<ReshapeSharding<OpTy>,
                                                     OpTy> {
  static constexpr bool kCollapse =
      std::is_same_v<OpTy, tensor::CollapseShapeOp>;

  static RankedTensorType expanded(OpTy op) {
    if constexpr (kCollapse)
      return op.getSrcType();
    else
      return op.getResultType();
  }

  /// The dimension of group `group` that carries its split: the first of
  /// size other than 1 (the first, if all are 1).
  static int64_t leading(OpTy op, const ReassociationIndices &group) {
    RankedTensorType type = expanded(op);
    for (int64_t d : group)
      if (type.getDimSize(d) != 1)
        return d;
    return group.front();
  }

  /// Whether `axes` of `grid` split dimension `d` of the expanded side
  /// evenly (a split of [768] over 8 processes cannot become one of the
  /// leading 12 of [12, 64]).
  static bool divides(OpTy op, FlatSymbolRefAttr grid, int64_t d,
                      ArrayRef<shard::GridAxis> axes) {
    auto gridOp = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, grid);
    int64_t size = expanded(op).getDimSize(d);
    if (!gridOp || ShapedType::isDynamic(size))
      return false;
    int64_t parts = shard::collectiveProcessGroupSize(axes, gridOp);
    return parts > 0 && size % parts == 0;
  }

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(expanded(cast<OpTy>(op)).getRank(),
                                            utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *) const { return {}; }

  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *operation,
                    ArrayRef<shard::Sharding> operandShardings,
                    ArrayRef<shard::Sharding> resultShardings) const {
    auto op = cast<OpTy>(operation);
    shard::Sharding expandedSide =
        kCollapse ? operandShardings[0] : resultShardings[0];
    shard::Sharding collapsedSide =
        kCollapse ? resultShardings[0] : operandShardings[0];
    SmallVector<ReassociationIndices, 4> groups = op.getReassociationIndices();
    shard::ShardingArray array(expanded(op).getRank());
    FlatSymbolRefAttr grid;
    bool split = false;
    if (expandedSide) {
      grid = expandedSide.getGridAttr();
      for (const ReassociationIndices &group : groups)
        for (int64_t d : group) {
          if (d >= (int64_t)expandedSide.getSplitAxes().size())
            continue;
          ArrayRef<shard::GridAxis> axes =
              expandedSide.getSplitAxes()[d].asArrayRef();
          if (axes.empty())
            continue;
          if (d != leading(op, group) || !divides(op, grid, d, axes))
            return failure();
          array[d].assign(axes.begin(), axes.end());
          split = true;
        }
    }
    if (collapsedSide) {
      grid = grid ? grid : collapsedSide.getGridAttr();
      for (auto [g, group] : llvm::enumerate(groups)) {
        if (g >= collapsedSide.getSplitAxes().size())
          break;
        ArrayRef<shard::GridAxis> axes =
            collapsedSide.getSplitAxes()[g].asArrayRef();
        int64_t d = leading(op, group);
        if (axes.empty() || !array[d].empty())
          continue;
        if (!divides(op, grid, d, axes))
          return failure();
        array[d].assign(axes.begin(), axes.end());
        split = true;
      }
    }
    if (!split)
      return shard::ShardingOption::makeEmpty();
    return shard::ShardingOption(array, grid);
  }

  /// The expanded and collapsed sides' shardings for `option`.
  static std::pair<shard::Sharding, shard::Sharding>
  shardings(OpTy op, const shard::ShardingOption &option) {
    MLIRContext *context = op.getContext();
    SmallVector<ReassociationIndices, 4> groups = op.getReassociationIndices();
    SmallVector<shard::GridAxesAttr> expandedAxes, collapsedAxes;
    for (size_t d = 0, e = expanded(op).getRank(); d < e; ++d)
      expandedAxes.push_back(shard::GridAxesAttr::get(
          context, d < option.shardingArray.size()
                       ? ArrayRef<shard::GridAxis>(option.shardingArray[d])
                       : ArrayRef<shard::GridAxis>()));
    for (const ReassociationIndices &group : groups) {
      SmallVector<shard::GridAxis> axes;
      for (int64_t d : group)
        if (d < (int64_t)option.shardingArray.size())
          llvm::append_range(axes, option.shardingArray[d]);
      collapsedAxes.push_back(shard::GridAxesAttr::get(context, axes));
    }
    return {trimmed(option.grid, expandedAxes),
            trimmed(option.grid, collapsedAxes)};
  }

  FailureOr<std::vector<shard::Sharding>>
  getShardingAnnotations(Operation *operation,
                         const shard::ShardingOption &option) const {
    auto op = cast<OpTy>(operation);
    auto [expandedSide, collapsedSide] = shardings(op, option);
    std::vector<shard::Sharding> result(op->getNumOperands() +
                                        op->getNumResults());
    result[0] = kCollapse ? expandedSide : collapsedSide;
    result.back() = kCollapse ? collapsedSide : expandedSide;
    return result;
  }

  LogicalResult
  addShardingAnnotations(Operation *operation, OpBuilder &b,
                         const shard::ShardingOption &option) const {
    auto op = cast<OpTy>(operation);
    auto [expandedSide, collapsedSide] = shardings(op, option);
    annotate(op, b, kCollapse ? expandedSide : collapsedSide,
             kCollapse ? collapsedSide : expandedSide);
    return success();
  }

  /// The partitioned reshape. The side that is split decides (the result's
  /// if both are): a replicated operand is sliced to the part the result
  /// needs (no communication), a split operand with a replicated result is
  /// reshaped locally and gathered.
  LogicalResult
  partition(Operation *operation, ArrayRef<Value> partitionedOperands,
            ArrayRef<shard::Sharding> operandShardings,
            ArrayRef<shard::Sharding> resultShardings, IRMapping &partitionMap,
            SymbolTableCollection &symbolTable, OpBuilder &builder) const {
    auto op = cast<OpTy>(operation);
    shard::Sharding operand = operandShardings[0];
    shard::Sharding result = resultShardings[0];
    if (!isSplit(operand) && !isSplit(result)) {
      builder.clone(*op, partitionMap);
      return success();
    }
    Location loc = op.getLoc();
    bool byResult = isSplit(result);
    std::vector<shard::Sharding> none(op->getNumOperands());
    FailureOr<shard::ShardingOption> option =
        byResult ? getShardingOption(op, none, {result})
                 : getShardingOption(op, {operand}, {shard::Sharding()});
    if (failed(option) || option->empty)
      return refuse(op);
    auto [expandedSide, collapsedSide] = shardings(op, *option);
    shard::Sharding source = kCollapse ? expandedSide : collapsedSide;
    shard::Sharding target = kCollapse ? collapsedSide : expandedSide;
    shard::GridOp grid = shard::getGrid(op, option->grid, symbolTable);
    Value input = partitionedOperands[0];
    if (!source.equalSplitAxes(operand)) {
      if (isSplit(operand) || !byResult)
        return refuse(op);
      input = slicedTo(builder, loc, input, grid, source);
    }
    auto type = cast<RankedTensorType>(
        shard::shardType(op.getResultType(), grid, target));
    if (!type.hasStaticShape())
      return refuse(op);
    Value local =
        OpTy::create(builder, loc, type, input, op.getReassociationIndices());
    if (!byResult) {
      // Replicated (or unannotated) result: gather the split dimensions.
      for (auto [dim, axes] : llvm::enumerate(target.getSplitAxes())) {
        if (axes.empty())
          continue;
        auto localType = cast<RankedTensorType>(local.getType());
        SmallVector<int64_t> shape(localType.getShape());
        shape[dim] = op.getResultType().getDimSize(dim);
        local = shard::AllGatherOp::create(builder, loc, localType.clone(shape),
                                           option->grid, axes, local,
                                           builder.getIndexAttr(dim));
      }
    }
    partitionMap.map(op->getResult(0), local);
    return success();
  }

  static LogicalResult refuse(OpTy op) {
    return op.emitError() << "'" << OpTy::getOperationName()
                          << "': its operand and result are split over the "
                             "grid in ways one local reshape cannot "
                             "compute (a dimension's split must be on the "
                             "leading dimension of its reassociation group, "
                             "and the shapes static)";
  }
};

/// Whether dimension `d` of a tensor.pad's result is its source's
/// dimension `d` unchanged (not padded).
bool keeps(tensor::PadOp op, int64_t d) {
  std::optional<int64_t> low = getConstantIntValue(op.getMixedLowPad()[d]);
  std::optional<int64_t> high = getConstantIntValue(op.getMixedHighPad()[d]);
  return low && high && *low == 0 && *high == 0;
}

/// The same for a tensor.extract_slice (not rank-reducing): the whole
/// dimension, with stride 1.
bool keeps(tensor::ExtractSliceOp op, int64_t d) {
  if (op.getSourceType().getRank() != op.getResultType().getRank())
    return false;
  std::optional<int64_t> offset = getConstantIntValue(op.getMixedOffsets()[d]);
  std::optional<int64_t> size = getConstantIntValue(op.getMixedSizes()[d]);
  std::optional<int64_t> stride = getConstantIntValue(op.getMixedStrides()[d]);
  return offset && size && stride && *offset == 0 && *stride == 1 &&
         *size == op.getSourceType().getDimSize(d);
}

/// The op again on `input` (its source's local part), with result type
/// `type`.
Value rebuild(OpBuilder &b, tensor::PadOp op, Value input,
              RankedTensorType type, IRMapping &mapping) {
  mapping.map(op.getSource(), input);
  Operation *local = b.clone(*op, mapping);
  local->getResult(0).setType(type);
  return local->getResult(0);
}

Value rebuild(OpBuilder &b, tensor::ExtractSliceOp op, Value input,
              RankedTensorType type, IRMapping &mapping) {
  SmallVector<OpFoldResult> sizes = op.getMixedSizes();
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.getDimSize(d) != op.getResultType().getDimSize(d))
      sizes[d] = b.getIndexAttr(type.getDimSize(d));
  auto map = [&](OpFoldResult r) -> OpFoldResult {
    if (auto v = dyn_cast<Value>(r))
      return mapping.lookupOrDefault(v);
    return r;
  };
  SmallVector<OpFoldResult> offsets =
      llvm::map_to_vector(op.getMixedOffsets(), map);
  SmallVector<OpFoldResult> strides =
      llvm::map_to_vector(op.getMixedStrides(), map);
  return tensor::ExtractSliceOp::create(b, op.getLoc(), type, input, offsets,
                                        sizes, strides);
}

/// tensor.pad and tensor.extract_slice: a dimension the op passes through
/// unchanged (not padded, taken whole) keeps its split, as in an
/// elementwise op; the others are not split.
template <typename OpTy>
struct KeptDimsSharding
    : public shard::ShardingInterface::ExternalModel<KeptDimsSharding<OpTy>,
                                                     OpTy> {
  static constexpr llvm::StringLiteral kName = OpTy::getOperationName();

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(
        cast<OpTy>(op).getResultType().getRank(),
        utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *) const { return {}; }

  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *operation,
                    ArrayRef<shard::Sharding> operandShardings,
                    ArrayRef<shard::Sharding> resultShardings) const {
    auto op = cast<OpTy>(operation);
    shard::ShardingArray array(op.getResultType().getRank());
    FlatSymbolRefAttr grid;
    bool split = false;
    for (const shard::Sharding &sharding :
         {resultShardings[0], operandShardings[0]}) {
      if (!sharding)
        continue;
      grid = grid ? grid : sharding.getGridAttr();
      for (auto [d, axes] : llvm::enumerate(sharding.getSplitAxes())) {
        if (axes.empty())
          continue;
        // A rank-reducing slice keeps nothing (keeps() says so); the
        // operand may have more dimensions than the result.
        if (d >= array.size() || !keeps(op, d))
          return failure();
        if (!array[d].empty())
          continue;
        array[d].assign(axes.asArrayRef().begin(), axes.asArrayRef().end());
        split = true;
      }
    }
    if (!split)
      return shard::ShardingOption::makeEmpty();
    return shard::ShardingOption(array, grid);
  }

  static shard::Sharding sharding(OpTy op,
                                  const shard::ShardingOption &option) {
    SmallVector<shard::GridAxesAttr> axes;
    for (int64_t d = 0, e = op.getResultType().getRank(); d < e; ++d)
      axes.push_back(shard::GridAxesAttr::get(
          op.getContext(),
          d < (int64_t)option.shardingArray.size()
              ? ArrayRef<shard::GridAxis>(option.shardingArray[d])
              : ArrayRef<shard::GridAxis>()));
    return trimmed(option.grid, axes);
  }

  FailureOr<std::vector<shard::Sharding>>
  getShardingAnnotations(Operation *operation,
                         const shard::ShardingOption &option) const {
    auto op = cast<OpTy>(operation);
    std::vector<shard::Sharding> result(op->getNumOperands() +
                                        op->getNumResults());
    result[0] = result.back() = sharding(op, option);
    return result;
  }

  LogicalResult
  addShardingAnnotations(Operation *operation, OpBuilder &b,
                         const shard::ShardingOption &option) const {
    auto op = cast<OpTy>(operation);
    shard::Sharding s = sharding(op, option);
    annotate(op, b, s, s);
    return success();
  }

  LogicalResult
  partition(Operation *operation, ArrayRef<Value> partitionedOperands,
            ArrayRef<shard::Sharding> operandShardings,
            ArrayRef<shard::Sharding> resultShardings, IRMapping &partitionMap,
            SymbolTableCollection &symbolTable, OpBuilder &builder) const {
    auto op = cast<OpTy>(operation);
    shard::Sharding operand = operandShardings[0];
    shard::Sharding result = resultShardings[0];
    if (!isSplit(operand) && !isSplit(result)) {
      builder.clone(*op, partitionMap);
      return success();
    }
    FailureOr<shard::ShardingOption> option =
        getShardingOption(op, {operand}, {result});
    if (failed(option) || option->empty || !result ||
        !sharding(op, *option).equalSplitAxes(result) ||
        (isSplit(operand) && !operand.equalSplitAxes(result)))
      return op.emitError()
             << "'" << kName
             << "': its operand and result are split over the grid "
                "differently, or along a dimension it pads or slices";
    shard::GridOp grid = shard::getGrid(op, result.getGridAttr(), symbolTable);
    Value input = partitionedOperands[0];
    if (!isSplit(operand))
      input = slicedTo(builder, op.getLoc(), input, grid, result);
    // Values the op reads that are defined outside it (a pad's padding
    // value) are partitioned already: map them as partitioning did.
    IRMapping mapping = partitionMap;
    for (auto [old, local] : llvm::zip(op->getOperands().drop_front(),
                                       partitionedOperands.drop_front()))
      mapping.map(old, local);
    auto type = cast<RankedTensorType>(
        shard::shardType(op.getResultType(), grid, result));
    partitionMap.map(op->getResult(0),
                     rebuild(builder, op, input, type, mapping));
    return success();
  }
};

template <typename... Ops> void attachReplicatedOnly(MLIRContext *context) {
  (Ops::template attachInterface<ReplicatedOnly<Ops>>(*context), ...);
}

/// Every arith op but arith.constant, which has MLIR's own rule.
template <typename... Ops> void attachToArith(MLIRContext *context) {
  (
      [&] {
        if constexpr (!std::is_same_v<Ops, arith::ConstantOp>)
          Ops::template attachInterface<ReplicatedOnly<Ops>>(*context);
      }(),
      ...);
}

} // namespace

void tt::registerShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::CollapseShapeOp::attachInterface<
        ReshapeSharding<tensor::CollapseShapeOp>>(*context);
    tensor::ExpandShapeOp::attachInterface<
        ReshapeSharding<tensor::ExpandShapeOp>>(*context);
    tensor::PadOp::attachInterface<KeptDimsSharding<tensor::PadOp>>(*context);
    tensor::ExtractSliceOp::attachInterface<
        KeptDimsSharding<tensor::ExtractSliceOp>>(*context);
    attachReplicatedOnly<
        tensor::BitcastOp, tensor::CastOp, tensor::ConcatOp, tensor::DimOp,
        tensor::ExtractOp, tensor::FromElementsOp, tensor::GatherOp,
        tensor::GenerateOp, tensor::InsertOp, tensor::InsertSliceOp,
        tensor::ReshapeOp, tensor::ScatterOp>(context);
  });
  // The processes' positions that tt-complete-sharding adds (after
  // propagation, for partitioning to clone).
  registry.addExtension(+[](MLIRContext *context, shard::ShardDialect *) {
    attachReplicatedOnly<shard::ProcessMultiIndexOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, tt::TTDialect *) {
    attachReplicatedOnly<tt::ConstantOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachToArith<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(context);
  });
}
