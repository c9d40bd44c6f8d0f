//===- InferShapes.cpp - Refine unranked tt result types ------------------===//

#include "TinyTensor/Dialect/TT/Passes.h"
#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTINFERSHAPES
#include "TinyTensor/Dialect/TT/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

bool isUnranked(Type t) { return isa<UnrankedTensorType>(t); }

struct InferShapesPass : public tt::impl::TTInferShapesBase<InferShapesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      func.walk([&](Operation *op) {
        if (!isa<TTDialect>(op->getDialect()))
          return;
        if (failed(lookThroughShapeErasingCasts(op))) {
          failedAny = true;
          return;
        }
        if (llvm::any_of(op->getResultTypes(), isUnranked) &&
            failed(refine(op)))
          failedAny = true;
      });
    }
    // lookThroughShapeErasingCasts and refine emitted an error on each op.
    if (failedAny)
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (SymbolTable::symbolKnownUseEmpty(func, module))
        refineFunctionResults(func);
      else
        castReturnsToSignature(func);
    }
  }

  /// Replaces operands produced by `tensor.cast` from a more refined type
  /// with the cast's source. The refined operands are checked again: if
  /// the op's shape rules reject them (they were only compatible while
  /// unranked), or infer other result types than the op declares, the
  /// operands are restored and the error reported.
  static LogicalResult lookThroughShapeErasingCasts(Operation *op) {
    SmallVector<Value> original(op->getOperands());
    bool changed = false;
    for (OpOperand &operand : op->getOpOperands()) {
      auto castOp = operand.get().getDefiningOp<tensor::CastOp>();
      if (castOp && isUnranked(castOp.getType()) &&
          !isUnranked(castOp.getSource().getType())) {
        operand.set(castOp.getSource());
        changed = true;
      }
    }
    auto inferrable = dyn_cast<InferTypeOpInterface>(op);
    if (!changed || !inferrable)
      return success();
    SmallVector<Type> inferred;
    bool ok = succeeded(inferrable.inferReturnTypes(
        op->getContext(), op->getLoc(), op->getOperands(),
        op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
        op->getRegions(), inferred));
    if (!ok)
      op->emitError("unable to infer the result shape of this operation");
    else {
      for (auto [declared, type] : llvm::zip(op->getResultTypes(), inferred))
        if (failed(verifyCompatibleShape(declared, type)) ||
            getElementTypeOrSelf(declared) != getElementTypeOrSelf(type)) {
          op->emitError("the refined operand types give result type ")
              << type << ", but the op declares " << declared;
          ok = false;
        }
    }
    if (ok)
      return success();
    op->setOperands(original);
    return failure();
  }

  /// Sets the op's result types to the inferred ones; users outside tt that
  /// expect the old type get a tensor.cast back to it.
  static LogicalResult refine(Operation *op) {
    auto inferrable = dyn_cast<InferTypeOpInterface>(op);
    SmallVector<Type> inferred;
    if (!inferrable ||
        failed(inferrable.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred))) {
      op->emitError("unable to infer the result shape of this operation");
      return failure();
    }
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(op);
    for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
      Type old = result.getType();
      if (old == type)
        continue;
      result.setType(type);
      Value restored;
      for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
        Operation *user = use.getOwner();
        if (user->getDialect() == op->getDialect() || isa<func::ReturnOp>(user))
          continue;
        if (!restored)
          restored = tensor::CastOp::create(builder, op->getLoc(), old, result);
        use.set(restored);
      }
    }
    return success();
  }

  /// Keeps a called function's signature: returned values whose type was
  /// refined are cast back to the declared result type.
  static void castReturnsToSignature(func::FuncOp func) {
    ArrayRef<Type> declared = func.getResultTypes();
    func.walk([&](func::ReturnOp ret) {
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Type expected = declared[operand.getOperandNumber()];
        if (operand.get().getType() != expected)
          operand.set(tensor::CastOp::create(builder, ret.getLoc(), expected,
                                             operand.get()));
      }
    });
  }

  /// Gives the function the result types of the values it returns.
  static void refineFunctionResults(func::FuncOp func) {
    if (func.isExternal())
      return;
    SmallVector<Type> results(func.getResultTypes());
    bool changed = false;
    func.walk([&](func::ReturnOp ret) {
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        if (isUnranked(results[i]) && !isUnranked(v.getType())) {
          results[i] = v.getType();
          changed = true;
        }
    });
    if (changed)
      func.setFunctionType(FunctionType::get(func.getContext(),
                                             func.getArgumentTypes(), results));
  }
};

} // namespace
