//===- TileAndFuseUtils.cpp - Tiling and fusion shared by the back ends ---===//

#include "TileAndFuseUtils.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;

std::optional<tt::MatmulDims> tt::getMatmulDims(linalg::LinalgOp op) {
  unsigned n = op.getNumLoops();
  if (n < 3 || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineMap out = op.getIndexingMapsArray()[2];
  if (out != AffineMap::getMultiDimIdentityMap(n, ctx).getMajorSubMap(n - 1))
    return std::nullopt;
  MatmulDims dims;
  dims.m = n - 3;
  dims.n = n - 2;
  dims.k = n - 1;
  for (unsigned d = 0; d < n - 3; ++d)
    dims.batch.push_back(d);
  // A is [..., m, k] and B is [..., k, n]; batch dimensions may broadcast.
  auto endsWith = [&](AffineMap map, unsigned row, unsigned col) {
    unsigned r = map.getNumResults();
    return r >= 2 && map.getResult(r - 2) == getAffineDimExpr(row, ctx) &&
           map.getResult(r - 1) == getAffineDimExpr(col, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!endsWith(maps[0], dims.m, dims.k))
    return std::nullopt;
  if (endsWith(maps[1], dims.n, dims.k))
    dims.transposedB = true;
  else if (!endsWith(maps[1], dims.k, dims.n))
    return std::nullopt;
  if (!maps[0].isProjectedPermutation() || !maps[1].isProjectedPermutation())
    return std::nullopt;
  return dims;
}

std::optional<int64_t> tt::constantUpperBound(Value v) {
  FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, v, /*stopCondition=*/nullptr,
      /*closedUB=*/true);
  if (failed(bound))
    return std::nullopt;
  return *bound;
}

bool tt::dependsOn(Value value, Value iv, Operation *scope) {
  SmallVector<Value> worklist = {value};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == iv)
      return true;
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (def && scope->isProperAncestor(def))
      llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

llvm::SmallPtrSet<Operation *, 16> tt::fusionCluster(linalg::LinalgOp root,
                                                     Operation *epilogueOf) {
  llvm::SmallPtrSet<Operation *, 16> cluster = {root};
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> members(cluster.begin(), cluster.end());
    for (Operation *member : members) {
      for (Value operand : member->getOperands()) {
        auto producer = operand.getDefiningOp<linalg::LinalgOp>();
        if (!producer || cluster.contains(producer) ||
            producer->getBlock() != root->getBlock() ||
            (producer != epilogueOf && getMatmulDims(producer)))
          continue;
        if (llvm::all_of(producer->getUsers(), [&](Operation *user) {
              return cluster.contains(user);
            })) {
          cluster.insert(producer);
          changed = true;
        }
      }
    }
  }
  return cluster;
}

std::optional<scf::SCFTileAndFuseOptions::ControlFnResult>
tt::shouldFuse(tensor::ExtractSliceOp slice, OpResult producer,
               const llvm::SmallPtrSetImpl<Operation *> &cluster) {
  auto loop = slice->getParentOfType<scf::ForallOp>();
  if (!loop || !cluster.contains(producer.getOwner()))
    return std::nullopt;
  for (auto [iv, lb, ub, step] :
       llvm::zip(loop.getInductionVars(), loop.getMixedLowerBound(),
                 loop.getMixedUpperBound(), loop.getMixedStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (l && u && s && *u - *l <= *s)
      continue; // a single iteration
    Value inductionVar = iv;
    bool moves = llvm::any_of(slice.getOffsets(), [&](Value offset) {
      return dependsOn(offset, inductionVar, loop);
    });
    if (!moves)
      return std::nullopt;
  }
  return scf::SCFTileAndFuseOptions::ControlFnResult{};
}

SmallVector<OpFoldResult> tt::asIndexAttrs(OpBuilder &b, ArrayRef<int64_t> v) {
  return llvm::map_to_vector(
      v, [&](int64_t x) -> OpFoldResult { return b.getIndexAttr(x); });
}

void tt::replaceFused(RewriterBase &rewriter, Operation *op,
                      const scf::SCFTileAndFuseResult &result,
                      llvm::SmallPtrSetImpl<Operation *> &erased) {
  for (OpResult res : op->getResults())
    if (Value replacement = result.replacements.lookup(res))
      rewriter.replaceAllUsesWith(res, replacement);
  erased.insert(op);
  rewriter.eraseOp(op);
  for (Operation *producer : result.fusedProducers) {
    for (Operation *user : llvm::make_early_inc_range(producer->getUsers()))
      if (isa<tensor::ExtractSliceOp>(user) && user->use_empty())
        rewriter.eraseOp(user);
    if (producer->use_empty()) {
      erased.insert(producer);
      rewriter.eraseOp(producer);
    }
  }
}

FailureOr<scf::SCFTileAndFuseResult>
tt::tileAndFuseSet(RewriterBase &rewriter, linalg::LinalgOp op,
                   ArrayRef<int64_t> sizes,
                   const llvm::SmallPtrSetImpl<Operation *> &fusable) {
  rewriter.setInsertionPoint(op);
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(asIndexAttrs(rewriter, sizes));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!fusable.contains(producer.getOwner()))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  return scf::tileConsumerAndFuseProducersUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
}

LogicalResult
tt::fuseIntoReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                      const llvm::SmallPtrSetImpl<Operation *> &producers,
                      llvm::SmallPtrSetImpl<Operation *> &fused,
                      Operation **result) {
  if (result)
    *result = op;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic =
      isa<linalg::GenericOp>(op.getOperation())
          ? FailureOr<linalg::GenericOp>(cast<linalg::GenericOp>(op))
          : linalg::generalizeNamedOp(rewriter, op);
  if (failed(generic))
    return success(); // left as it is, reading its producers' buffers
  Operation *current = *generic;
  bool changed = true;
  while (changed) {
    changed = false;
    for (OpOperand &operand : current->getOpOperands()) {
      Operation *producer = operand.get().getDefiningOp();
      if (!producer || !producers.contains(producer) ||
          !linalg::areElementwiseOpsFusable(&operand))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fusion =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fusion))
        continue;
      for (OpResult res : current->getResults())
        rewriter.replaceAllUsesWith(res, fusion->replacements.lookup(res));
      rewriter.eraseOp(current);
      if (producer->use_empty()) {
        fused.insert(producer);
        rewriter.eraseOp(producer);
      }
      current = fusion->fusedOp;
      changed = true;
      break;
    }
  }
  if (result)
    *result = current;
  return success();
}

llvm::SmallPtrSet<Operation *, 4> tt::singleUseProducers(linalg::LinalgOp op) {
  llvm::SmallPtrSet<Operation *, 4> producers;
  SmallVector<linalg::LinalgOp> worklist = {op};
  while (!worklist.empty()) {
    linalg::LinalgOp consumer = worklist.pop_back_val();
    for (Value input : consumer.getDpsInputs()) {
      auto producer = input.getDefiningOp<linalg::LinalgOp>();
      if (!producer || producer->getBlock() != op->getBlock() ||
          producer.getNumReductionLoops() != 0 ||
          producer->getNumResults() != 1 || !producer->hasOneUse() ||
          !producer.hasPureTensorSemantics())
        continue;
      if (producers.insert(producer).second)
        worklist.push_back(producer);
    }
  }
  return producers;
}

LogicalResult tt::splitAtMultiple(RewriterBase &rewriter, linalg::LinalgOp op,
                                  unsigned loop, int64_t tile,
                                  SmallVectorImpl<linalg::LinalgOp> &parts) {
  int64_t range = op.getStaticLoopRanges()[loop];
  if (tile <= 0 || ShapedType::isDynamic(range) || range <= tile ||
      range % tile == 0)
    return success();
  rewriter.setInsertionPoint(op);
  auto [first, second] =
      linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()), loop,
                      rewriter.getIndexAttr(range - range % tile));
  if (!first || !second)
    return failure();
  parts.push_back(cast<linalg::LinalgOp>(first.getOperation()));
  parts.push_back(cast<linalg::LinalgOp>(second.getOperation()));
  return success();
}
