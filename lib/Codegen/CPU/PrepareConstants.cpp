//===- PrepareConstants.cpp - Compute once what constants alone give ------===//
//
// A public function with constant arguments (`tt.constant`) computes some
// values from them alone: packed copies of weights, from
// --tt-cpu-prepack-constants. Those
// computations move to a function `<name>_tt_prepare`, which takes the
// constant arguments (in order) and stores the values in globals; the
// function reads the globals instead. The caller runs the prepare function
// once, before the first call, and again only if the constants change.
//
//===----------------------------------------------------------------------===//

#include "Prepack.h"
#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUPREPARECONSTANTS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

/// Ops not worth a global of their own: constants, shapes, views, index
/// arithmetic. They stay where they are used (and are cloned into the
/// prepare function when it needs them).
bool isCheap(Operation *op) {
  if (op->getNumRegions() != 0 || isa<func::CallOp>(op))
    return false;
  if (op->hasTrait<OpTrait::ConstantLike>() ||
      isa<tensor::EmptyOp, tensor::ExtractSliceOp, tensor::ExpandShapeOp,
          tensor::CollapseShapeOp, tensor::CastOp, tensor::DimOp,
          affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(
          op))
    return true;
  return llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<ShapedType>(t); });
}

struct PrepareConstantsPass
    : public tt::impl::TTCPUPrepareConstantsBase<PrepareConstantsPass> {
  using TTCPUPrepareConstantsBase::TTCPUPrepareConstantsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable table(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      // prepare emits an error on the op it cannot move.
      if (failed(prepare(func, table)))
        return signalPassFailure();
  }

  LogicalResult prepare(func::FuncOp func, SymbolTable &table) {
    if (func.isExternal() || !func.isPublic() || func->hasAttr(kPrepareAttr))
      return success();
    Block &body = func.getBody().front();
    SmallVector<BlockArgument> constantArgs;
    llvm::SmallPtrSet<Value, 32> constant;
    for (BlockArgument arg : body.getArguments())
      if (func.getArgAttr(arg.getArgNumber(), kConstantArgAttr)) {
        constantArgs.push_back(arg);
        constant.insert(arg);
      }
    if (constantArgs.empty())
      return success();

    // Ops that read constants alone and have no side effects.
    SmallVector<Operation *> constantOps;
    llvm::SmallPtrSet<Operation *, 32> isConstantOp;
    SymbolTableCollection symbols;
    auto computesOnly = [&](Operation &op) {
      // Calls of the functions that pack a B whole compute only.
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        return callee && callee->hasAttr(kWholePackFnAttr);
      }
      return isMemoryEffectFree(&op);
    };
    for (Operation &op : body.without_terminator()) {
      // Buffers (a gather's bufferization.to_buffer of a table) stay.
      if (!computesOnly(op) || llvm::any_of(op.getResultTypes(), [](Type t) {
            return isa<BaseMemRefType>(t);
          }))
        continue;
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(op.getRegions(), above);
      auto isConstant = [&](Value v) { return constant.contains(v); };
      if (!llvm::all_of(op.getOperands(), isConstant) ||
          !llvm::all_of(above, isConstant))
        continue;
      constantOps.push_back(&op);
      isConstantOp.insert(&op);
      constant.insert(op.getResults().begin(), op.getResults().end());
    }
    // Cheap constant ops stay in the function if what stays uses them (users
    // come after their producers: last first); the others move.
    llvm::SmallPtrSet<Operation *, 32> kept, hoisted;
    auto staysOutside = [&](OpOperand &use) {
      Operation *user = body.findAncestorOpInBlock(*use.getOwner());
      return !isConstantOp.contains(user) || kept.contains(user);
    };
    for (Operation *op : llvm::reverse(constantOps)) {
      if (!isCheap(op))
        hoisted.insert(op);
      else if (llvm::any_of(op->getUses(), staysOutside))
        kept.insert(op);
    }
    // The values the function goes on reading.
    SmallVector<Value> prepared;
    for (Operation *op : constantOps)
      if (hoisted.contains(op))
        for (Value result : op->getResults())
          if (llvm::any_of(result.getUses(), staysOutside))
            prepared.push_back(result);
    if (prepared.empty())
      return success();
    for (Value value : prepared) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || !type.hasStaticShape())
        return success(); // sizes known only at run time: left as they are
    }

    // Globals for the prepared values.
    OpBuilder b(module().getContext());
    b.setInsertionPoint(func);
    Location loc = func.getLoc();
    SmallVector<memref::GlobalOp> globals;
    for (auto [i, value] : llvm::enumerate(prepared)) {
      auto type = cast<RankedTensorType>(value.getType());
      auto global = memref::GlobalOp::create(
          b, value.getLoc(),
          b.getStringAttr(func.getName() + "_tt_prepared_" + Twine(i)),
          b.getStringAttr("private"),
          TypeAttr::get(
              MemRefType::get(type.getShape(), type.getElementType())),
          b.getUnitAttr(), /*constant=*/nullptr, b.getI64IntegerAttr(64));
      table.insert(global);
      globals.push_back(global);
    }

    // The prepare function: the constant ops, then a store of each value.
    SmallVector<Type> argTypes;
    for (BlockArgument arg : constantArgs)
      argTypes.push_back(arg.getType());
    auto prepareFn = func::FuncOp::create(
        b, loc, (func.getName() + "_tt_prepare").str(),
        b.getFunctionType(argTypes, {}));
    table.insert(prepareFn);
    Block *entry = prepareFn.addEntryBlock();
    IRMapping mapping;
    for (auto [from, to] : llvm::zip(constantArgs, entry->getArguments()))
      mapping.map(from, to);
    b.setInsertionPointToStart(entry);
    for (Operation *op : constantOps)
      b.clone(*op, mapping);
    for (auto [value, global] : llvm::zip(prepared, globals)) {
      Value buffer = memref::GetGlobalOp::create(
          b, loc, global.getType(), global.getSymName());
      bufferization::MaterializeInDestinationOp::create(
          b, loc, TypeRange(), mapping.lookup(value), buffer,
          /*restrict=*/true, /*writable=*/true);
    }
    func::ReturnOp::create(b, loc);

    // The function reads the globals.
    b.setInsertionPointToStart(&body);
    for (auto [value, global] : llvm::zip(prepared, globals)) {
      Value buffer = memref::GetGlobalOp::create(
          b, loc, global.getType(), global.getSymName());
      Value read = bufferization::ToTensorOp::create(
          b, loc, value.getType(), buffer, /*restrict=*/true,
          /*writable=*/false);
      value.replaceUsesWithIf(read, staysOutside);
    }
    // What moved, and the cheap ops only it used.
    for (Operation *op : llvm::reverse(constantOps))
      if (!kept.contains(op)) {
        if (!op->use_empty())
          return op->emitError("tt-cpu-prepare-constants: a moved op is "
                               "still used");
        op->erase();
      }
    func->setAttr(kPrepareAttr,
                  FlatSymbolRefAttr::get(prepareFn.getSymNameAttr()));
    return success();
  }

  ModuleOp module() { return getOperation(); }
};

} // namespace
