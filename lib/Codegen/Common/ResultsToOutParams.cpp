//===- ResultsToOutParams.cpp - Caller-allocated results ------------------===//
//
// Upstream's buffer-results-to-out-params, except for private functions
// with a result of dynamic shape, and with a returned reshape of a buffer
// allocated whole first turned into a buffer of the result's shape. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTRESULTSTOOUTPARAMS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// Whether a private function returns a memref whose size its caller does
/// not know: the function keeps returning it.
bool returnsDynamicBuffer(func::FuncOp func) {
  return func.isPrivate() &&
         llvm::any_of(func.getFunctionType().getResults(), [](Type type) {
           auto memref = dyn_cast<MemRefType>(type);
           return memref && !memref.hasStaticShape();
         });
}

/// A returned `memref.collapse_shape` or `memref.expand_shape` of a
/// `memref.alloc` (a convolution's [N, 1, F, O...] result returned as [N, F,
/// O...]) would be copied into the caller's buffer: upstream hoists only a
/// returned alloc itself. The alloc becomes one of the returned shape, and
/// its old uses read the reverse reshape of it; the returned reshape of
/// that reshape folds away.
void allocateReturnedShapes(func::FuncOp func) {
  if (func.isExternal())
    return;
  llvm::SmallPtrSet<Operation *, 8> rewritten;
  func.walk([&](func::ReturnOp ret) {
    for (OpOperand &operand : ret->getOpOperands()) {
      Operation *reshape = operand.get().getDefiningOp();
      if (!reshape ||
          !isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(reshape))
        continue;
      Value source = reshape->getOperand(0);
      auto alloc = source.getDefiningOp<memref::AllocOp>();
      auto resultType = dyn_cast<MemRefType>(operand.get().getType());
      auto allocType = alloc ? alloc.getType() : MemRefType();
      if (!alloc || rewritten.contains(alloc) || !resultType ||
          !resultType.hasStaticShape() ||
          !resultType.getLayout().isIdentity() || !allocType.hasStaticShape() ||
          !allocType.getLayout().isIdentity())
        continue;
      OpBuilder b(alloc);
      Location loc = alloc.getLoc();
      auto whole =
          memref::AllocOp::create(b, loc, resultType, alloc.getAlignmentAttr());
      Value view;
      if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape))
        view = memref::ExpandShapeOp::create(
            b, loc, allocType, whole, collapse.getReassociationIndices());
      else
        view = memref::CollapseShapeOp::create(
            b, loc, whole,
            cast<memref::ExpandShapeOp>(reshape).getReassociationIndices());
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
      rewritten.insert(whole);
      operand.set(whole);
    }
  });
}

/// For each argument with `tt.updated_by = j`: (argument, j).
SmallVector<std::pair<unsigned, unsigned>> updatedArguments(func::FuncOp func) {
  SmallVector<std::pair<unsigned, unsigned>> updated;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto attr = func.getArgAttrOfType<IntegerAttr>(i, tt::kUpdatedByAttr))
      updated.push_back({i, static_cast<unsigned>(attr.getInt())});
  return updated;
}

/// Erases the copy of each updated argument into the out-param of the
/// result that updates it (the caller passes one buffer for both).
/// `arguments` is the argument count before the out-params were added,
/// `resultTypes` the results' types then.
void dropUpdateCopies(func::FuncOp func, unsigned arguments,
                      ArrayRef<Type> resultTypes,
                      ArrayRef<std::pair<unsigned, unsigned>> updated) {
  for (auto [argument, result] : updated) {
    if (result >= resultTypes.size() || !isa<MemRefType>(resultTypes[result]))
      continue;
    unsigned outParam =
        arguments + llvm::count_if(resultTypes.take_front(result),
                                   llvm::IsaPred<MemRefType>);
    if (outParam >= func.getNumArguments())
      continue;
    Value source = func.getArgument(argument);
    Value target = func.getArgument(outParam);
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) {
      if (copy.getSource() == source && copy.getTarget() == target)
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies)
      copy.erase();
  }
}

/// Makes the value returned as each updating result the argument it
/// updates: a result computed elsewhere is copied into the argument right
/// before the return (through a buffer of its own if it is a view of the
/// argument).
void returnUpdatedArguments(func::FuncOp func,
                            ArrayRef<std::pair<unsigned, unsigned>> updated) {
  func.walk([&](func::ReturnOp ret) {
    for (auto [argument, result] : updated) {
      if (result >= ret.getNumOperands())
        continue;
      Value target = func.getArgument(argument);
      Value value = ret.getOperand(result);
      if (value == target || !isa<MemRefType>(value.getType()) ||
          value.getType() != target.getType())
        continue;
      OpBuilder b(ret);
      // Reshapes of the whole argument (an elementwise update run over its
      // flattened buffer) are the argument itself when the type is the
      // same: nothing to copy.
      Value root = value;
      bool reshapes = true;
      while (auto view = root.getDefiningOp<ViewLikeOpInterface>()) {
        reshapes &=
            isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(
                view.getOperation());
        root = view.getViewSource();
      }
      if (root == target && reshapes) {
        ret.setOperand(result, target);
        continue;
      }
      if (root == target) {
        auto type = cast<MemRefType>(value.getType());
        Value copy = memref::AllocOp::create(
            b, ret.getLoc(),
            MemRefType::get(type.getShape(), type.getElementType()));
        memref::CopyOp::create(b, ret.getLoc(), value, copy);
        value = copy;
      }
      memref::CopyOp::create(b, ret.getLoc(), value, target);
      ret.setOperand(result, target);
    }
  });
}

struct ResultsToOutParamsPass
    : public tt::impl::TTResultsToOutParamsBase<ResultsToOutParamsPass> {
  void runOnOperation() override {
    struct Updates {
      unsigned arguments;
      SmallVector<Type> results;
      SmallVector<std::pair<unsigned, unsigned>> updated;
    };
    llvm::DenseMap<Operation *, Updates> updates;
    getOperation().walk([&](func::FuncOp func) {
      allocateReturnedShapes(func);
      auto updated = updatedArguments(func);
      if (updated.empty() || func.isExternal())
        return;
      returnUpdatedArguments(func, updated);
      updates[func] = {func.getNumArguments(),
                       llvm::to_vector(func.getFunctionType().getResults()),
                       std::move(updated)};
    });
    bufferization::BufferResultsToOutParamsOpts options;
    options.hoistStaticAllocs = true;
    options.modifyPublicFunctions = true;
    options.filterFn = [](func::FuncOp *func) {
      return !returnsDynamicBuffer(*func);
    };
    // Upstream's promotion emits an error on the function or op it fails on
    // (unsupported layouts, dynamic results, missing callees).
    if (failed(bufferization::promoteBufferResultsToOutParams(getOperation(),
                                                              options))) {
      signalPassFailure();
      return;
    }
    for (auto &[op, u] : updates) {
      auto func = cast<func::FuncOp>(op);
      if (func.getNumArguments() > u.arguments)
        dropUpdateCopies(func, u.arguments, u.results, u.updated);
    }
  }
};

} // namespace
