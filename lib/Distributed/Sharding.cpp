//===- Sharding.cpp - Sharding annotations from attributes ----------------===//
//
// tt-shard-arguments turns the `tt.grid` / `tt.split_axes` attributes that
// the Python API (tinytensor.distributed) writes into `shard` annotations;
// tt-complete-sharding replicates what propagation left unannotated.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/TTOps.h"
#include "TinyTensor/Distributed/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallSet.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTSHARDARGUMENTS
#define GEN_PASS_DEF_TTCOMPLETESHARDING
#include "TinyTensor/Distributed/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kGridAttr = "tt.grid";
constexpr llvm::StringLiteral kSplitAxesAttr = "tt.split_axes";
constexpr llvm::StringLiteral kGridName = "tt_grid";

/// `split` as `shard.sharding` split axes, checked against `type` and the
/// grid; `what` names the value in errors ("argument 2 of @main").
FailureOr<SmallVector<shard::GridAxesAttr>>
splitAxes(Attribute split, RankedTensorType type, ArrayRef<int64_t> grid,
          Operation *anchor, const Twine &what) {
  // Replicated is [[]]: `shard.sharding` has at least one list.
  SmallVector<shard::GridAxesAttr> result;
  if (!split)
    return SmallVector<shard::GridAxesAttr>{
        shard::GridAxesAttr::get(anchor->getContext(), {})};
  auto lists = dyn_cast<ArrayAttr>(split);
  if (!lists)
    return anchor->emitError() << what << ": " << kSplitAxesAttr
                               << " must be a list of lists of grid axes";
  if ((int64_t)lists.size() > type.getRank())
    return anchor->emitError()
           << what << ": " << kSplitAxesAttr << " has " << lists.size()
           << " entries for a tensor of rank " << type.getRank();
  llvm::SmallSet<int64_t, 4> used;
  for (auto [dim, list] : llvm::enumerate(lists)) {
    auto axesAttr = dyn_cast<ArrayAttr>(list);
    if (!axesAttr)
      return anchor->emitError() << what << ": " << kSplitAxesAttr
                                 << " must be a list of lists of grid axes";
    SmallVector<shard::GridAxis> axes;
    int64_t parts = 1;
    for (Attribute a : axesAttr) {
      auto axis = dyn_cast<IntegerAttr>(a);
      if (!axis || axis.getInt() < 0 || axis.getInt() >= (int64_t)grid.size())
        return anchor->emitError()
               << what << ", dimension " << dim << ": grid axis " << a
               << " is not an axis of the grid (rank " << grid.size() << ")";
      if (!used.insert(axis.getInt()).second)
        return anchor->emitError() << what << ": grid axis " << axis.getInt()
                                   << " splits more than one dimension";
      axes.push_back(axis.getInt());
      parts *= grid[axis.getInt()];
    }
    int64_t size = type.getDimSize(dim);
    if (!ShapedType::isDynamic(size) && size % parts != 0)
      return anchor->emitError()
             << what << ", dimension " << dim << " (size " << size
             << ") cannot be split evenly into " << parts << " parts";
    result.push_back(shard::GridAxesAttr::get(anchor->getContext(), axes));
  }
  if (result.empty())
    result.push_back(shard::GridAxesAttr::get(anchor->getContext(), {}));
  return result;
}

struct ShardArgumentsPass
    : public tt::impl::TTShardArgumentsBase<ShardArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto gridAttr = module->getAttrOfType<DenseI64ArrayAttr>(kGridAttr);
    if (!gridAttr) {
      if (module->hasAttr(kGridAttr)) {
        module.emitError() << kGridAttr
                           << " must be an array<i64> of grid axis sizes";
        return signalPassFailure();
      }
      return;
    }
    ArrayRef<int64_t> grid = gridAttr.asArrayRef();
    if (grid.empty() || llvm::any_of(grid, [](int64_t n) { return n < 1; })) {
      module.emitError() << kGridAttr << " must list positive axis sizes";
      return signalPassFailure();
    }
    OpBuilder builder(module.getBodyRegion());
    if (!module.lookupSymbol(kGridName))
      shard::GridOp::create(builder, module.getLoc(), kGridName, grid);
    auto gridRef = FlatSymbolRefAttr::get(module.getContext(), kGridName);

    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.isPublic())
        continue;
      if (failed(annotate(fn, grid, gridRef)))
        return signalPassFailure();
    }
  }

  LogicalResult annotate(func::FuncOp fn, ArrayRef<int64_t> grid,
                         FlatSymbolRefAttr gridRef) {
    Block &entry = fn.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    auto sharding = [&](ArrayRef<shard::GridAxesAttr> axes, Location loc) {
      return shard::ShardingOp::create(builder, loc, gridRef, axes).getResult();
    };
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      Attribute split = fn.getArgAttr(arg.getArgNumber(), kSplitAxesAttr);
      if (!type) {
        if (split)
          return fn.emitError()
                 << "argument " << arg.getArgNumber() << " of @" << fn.getName()
                 << " is not a ranked tensor: it cannot be "
                    "split";
        continue;
      }
      // 0-d tensors are replicated and stay unannotated: MLIR 22's sharding
      // propagation gives the ops they feed a sharding without a grid.
      if (type.getRank() == 0) {
        auto list = dyn_cast_or_null<ArrayAttr>(split);
        if (split && (!list || !list.empty()))
          return fn.emitError()
                 << "argument " << arg.getArgNumber() << " of @" << fn.getName()
                 << " has no dimensions: it cannot be split";
        fn.removeArgAttr(arg.getArgNumber(), kSplitAxesAttr);
        continue;
      }
      auto axes = splitAxes(split, type, grid, fn,
                            "argument " + Twine(arg.getArgNumber()) + " of @" +
                                fn.getName());
      if (failed(axes))
        return failure();
      fn.removeArgAttr(arg.getArgNumber(), kSplitAxesAttr);
      Value s = sharding(*axes, arg.getLoc());
      auto shardOp = shard::ShardOp::create(builder, arg.getLoc(), arg, s);
      arg.replaceAllUsesExcept(shardOp.getResult(), shardOp);
    }
    for (Block &block : fn.getBody()) {
      auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
      if (!ret)
        continue;
      builder.setInsertionPoint(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        unsigned index = operand.getOperandNumber();
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        Attribute split = fn.getResultAttr(index, kSplitAxesAttr);
        if (!type || type.getRank() == 0)
          continue;
        auto axes =
            splitAxes(split, type, grid, fn,
                      "result " + Twine(index) + " of @" + fn.getName());
        if (failed(axes))
          return failure();
        Value s = sharding(*axes, ret.getLoc());
        auto shardOp =
            shard::ShardOp::create(builder, ret.getLoc(), operand.get(), s,
                                   /*annotate_for_users=*/true);
        operand.set(shardOp.getResult());
      }
    }
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      fn.removeResultAttr(i, StringAttr::get(fn.getContext(), kSplitAxesAttr));
    return success();
  }
};

/// Whether `v` is annotated as split.
bool isSplit(Value v) {
  auto shardOp = v.getDefiningOp<shard::ShardOp>();
  return shardOp &&
         !shard::isFullReplication(shard::Sharding(shardOp.getSharding()));
}

/// MLIR 22 partitions only linalg ops whose indexing maps are projected
/// permutations: one that reads through a window (a convolution's
/// patches, d0 + d1) with a split operand or result is refused here, by
/// name, rather than by the partitioner's generic message.
LogicalResult checkWindows(func::FuncOp fn) {
  for (Operation &op : fn.getBody().front()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp ||
        llvm::all_of(linalgOp.getIndexingMapsArray(),
                     [](AffineMap m) { return m.isProjectedPermutation(); }))
      continue;
    bool split = llvm::any_of(op.getOperands(), isSplit);
    for (Value r : op.getResults())
      for (Operation *user : r.getUsers())
        if (auto shardOp = dyn_cast<shard::ShardOp>(user))
          split |=
              !shard::isFullReplication(shard::Sharding(shardOp.getSharding()));
    if (split)
      return op.emitError()
             << "'" << op.getName()
             << "' reads through a sliding window (a convolution or "
                "pooling), which MLIR 22's partitioning does not support "
                "for split tensors; replicate its input (split the batch "
                "after it), or run it in one process";
  }
  return success();
}

/// The loops of `op` that its operands' or results' annotations split, and
/// the grid axes that split each.
llvm::SmallDenseMap<unsigned, SmallVector<shard::GridAxis>>
splitLoops(linalg::LinalgOp op) {
  llvm::SmallDenseMap<unsigned, SmallVector<shard::GridAxis>> loops;
  auto add = [&](const shard::Sharding &sharding, AffineMap map) {
    for (auto [i, axes] : llvm::enumerate(sharding.getSplitAxes()))
      if (!axes.empty() && i < map.getNumResults())
        if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(i)))
          loops[dim.getPosition()].assign(axes.asArrayRef().begin(),
                                          axes.asArrayRef().end());
  };
  for (OpOperand &operand : op->getOpOperands())
    if (auto shardOp = operand.get().getDefiningOp<shard::ShardOp>())
      add(shard::Sharding(shardOp.getSharding()),
          op.getMatchingIndexingMap(&operand));
  for (OpResult result : op->getResults())
    for (Operation *user : result.getUsers())
      if (auto shardOp = dyn_cast<shard::ShardOp>(user))
        add(shard::Sharding(shardOp.getSharding()),
            op.getIndexingMapMatchingResult(result));
  return loops;
}

/// A linalg op's body that reads the index of a split loop (an iota, a
/// gather's positions) is cloned as it is by partitioning and would see
/// this process's local index: each such `linalg.index` gets this
/// process's offset along the loop added (its position in the group of
/// the loop's grid axes times the local loop size).
LogicalResult offsetLoopIndices(func::FuncOp fn, shard::GridOp grid) {
  for (Operation &op : fn.getBody().front()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      continue;
    SmallVector<linalg::IndexOp> indices;
    op.walk([&](linalg::IndexOp index) { indices.push_back(index); });
    if (indices.empty())
      continue;
    auto split = splitLoops(linalgOp);
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    llvm::SmallDenseMap<unsigned, Value> offsets;
    for (linalg::IndexOp index : indices) {
      unsigned d = index.getDim();
      auto axes = split.find(d);
      if (axes == split.end())
        continue;
      Value &offset = offsets[d];
      if (!offset) {
        int64_t parts = shard::collectiveProcessGroupSize(axes->second, grid);
        if (ShapedType::isDynamic(ranges[d]) || parts <= 0 || ranges[d] % parts)
          return op.emitError()
                 << "'" << op.getName() << "' reads the index of its loop " << d
                 << " (linalg.index), which is split over the grid into "
                    "parts of no static size";
        OpBuilder b(&op);
        Location loc = op.getLoc();
        auto position = shard::ProcessMultiIndexOp::create(
            b, loc, grid.getSymName(), axes->second);
        Value linear = arith::ConstantIndexOp::create(b, loc, 0);
        for (auto [axis, i] : llvm::zip(axes->second, position.getResults())) {
          Value size =
              arith::ConstantIndexOp::create(b, loc, grid.getShape()[axis]);
          linear = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, linear, size), i);
        }
        Value local = arith::ConstantIndexOp::create(b, loc, ranges[d] / parts);
        offset = arith::MulIOp::create(b, loc, linear, local);
      }
      OpBuilder b(index);
      b.setInsertionPointAfter(index);
      Value global = arith::AddIOp::create(b, index.getLoc(), index, offset);
      index.getResult().replaceAllUsesExcept(global, global.getDefiningOp());
    }
  }
  return success();
}

struct CompleteShardingPass
    : public tt::impl::TTCompleteShardingBase<CompleteShardingPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    auto module = fn->getParentOfType<ModuleOp>();
    auto grids = module.getOps<shard::GridOp>();
    if (grids.empty())
      return;
    if (std::next(grids.begin()) != grids.end()) {
      module.emitError() << "tt-complete-sharding supports one shard.grid "
                            "per module";
      return signalPassFailure();
    }
    auto grid = FlatSymbolRefAttr::get((*grids.begin()).getSymNameAttr());
    auto replicated = shard::Sharding::get(
        grid, {shard::GridAxesAttr::get(fn.getContext(), {})});
    OpBuilder builder(fn.getContext());
    // Tensors that an op reads inside its regions without taking them as
    // operands (a gather's table, read with tensor.extract in a
    // linalg.generic's body) are invisible to propagation: the op's
    // sharding says nothing about them, so each process must have all of
    // them. They are read through a replicated annotation (partitioning
    // gathers them if they are split).
    for (Operation &op : fn.getBody().front()) {
      if (op.getNumRegions() == 0 || isa<shard::ShardOp>(op))
        continue;
      llvm::SetVector<Value> captured;
      op.walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          if (isa<RankedTensorType>(v.getType()) &&
              v.getParentRegion() == &fn.getBody())
            captured.insert(v);
      });
      // Also when the op takes it as an operand too: its body reads it
      // at global indices.
      for (Value v : captured) {
        builder.setInsertionPoint(&op);
        Value s = shard::ShardingOp::create(builder, op.getLoc(), replicated)
                      .getResult();
        Value whole = shard::ShardOp::create(builder, op.getLoc(), v, s,
                                             /*annotate_for_users=*/true);
        v.replaceUsesWithIf(whole, [&](OpOperand &use) {
          return op.isProperAncestor(use.getOwner());
        });
      }
    }
    if (failed(checkWindows(fn)) ||
        failed(offsetLoopIndices(fn, *grids.begin())))
      return signalPassFailure();
    // MLIR 22 partitions only splat tensor constants (and fails without a
    // word on others): the others cross partitioning as tt.constant, which
    // runs replicated; tt-lower-shard-collectives turns them back.
    for (Operation &op : llvm::make_early_inc_range(fn.getBody().front())) {
      auto constant = dyn_cast<arith::ConstantOp>(op);
      auto value = constant ? dyn_cast<ElementsAttr>(constant.getValue())
                            : ElementsAttr();
      if (!value || value.isSplat())
        continue;
      builder.setInsertionPoint(constant);
      Value replacement =
          tt::ConstantOp::create(builder, constant.getLoc(), value);
      constant.replaceAllUsesWith(replacement);
      constant.erase();
    }
    SmallVector<OpResult> results;
    for (Operation &op : fn.getBody().front()) {
      if (isa<shard::ShardOp, shard::ShardingOp>(op))
        continue;
      for (OpResult result : op.getResults())
        if (isa<RankedTensorType>(result.getType()))
          results.push_back(result);
    }
    for (OpResult result : results) {
      if (result.hasOneUse()) {
        auto user = dyn_cast<shard::ShardOp>(*result.getUsers().begin());
        if (user)
          continue; // annotated, as partitioning expects
      }
      // The sharding users asked for, else replicated.
      FailureOr<std::pair<bool, shard::Sharding>> wanted =
          shard::getSharding(result);
      shard::Sharding sharding =
          succeeded(wanted) ? wanted->second : replicated;
      builder.setInsertionPointAfter(result.getOwner());
      if (result.use_empty()) {
        Value s = shard::ShardingOp::create(builder, result.getLoc(), sharding)
                      .getResult();
        shard::ShardOp::create(builder, result.getLoc(), result, s);
        continue;
      }
      shard::maybeInsertTargetShardingAnnotation(sharding, result, builder);
    }
  }
};

} // namespace
