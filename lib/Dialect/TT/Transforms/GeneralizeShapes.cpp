//===- GeneralizeShapes.cpp - Make argument dimensions dynamic ------------===//
//
// Makes chosen dimensions of a function's arguments dynamic and infers the
// result types of its tt ops again, refusing ops that would compile the
// traced size in.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/Passes.h"
#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTGENERALIZESHAPES
#include "TinyTensor/Dialect/TT/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

/// The dimension of `type` aligned (NumPy broadcasting, from the right)
/// with dimension `d` of a rank-`rank` result, or -1.
int64_t alignedDim(RankedTensorType type, int64_t rank, int64_t d) {
  int64_t dim = d - (rank - type.getRank());
  return dim >= 0 ? dim : -1;
}

/// Refuses an op whose shape rules combined a dynamic operand dimension
/// with a static size other than 1: the traced size would be compiled in.
LogicalResult checkNoSpecialisation(Operation *op) {
  auto fail = [&](int64_t operand, int64_t dim, int64_t size) {
    return op->emitOpError("combines dynamic dimension ")
           << dim << " of operand #" << operand << " with the static size "
           << size
           << ": the size the program was traced with would be compiled in "
              "(make the other operand's dimension dynamic too, or keep "
              "this dimension static)";
  };
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    auto lt = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
    auto rt = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
    if (!lt || !rt || lt.getRank() == 0 || rt.getRank() == 0)
      return success();
    int64_t k = lt.getDimSize(lt.getRank() - 1);
    int64_t rkDim = rt.getRank() == 1 ? 0 : rt.getRank() - 2;
    int64_t rk = rt.getDimSize(rkDim);
    if (ShapedType::isDynamic(k) != ShapedType::isDynamic(rk))
      return ShapedType::isDynamic(k) ? fail(0, lt.getRank() - 1, rk)
                                      : fail(1, rkDim, k);
    // Batch dimensions broadcast: checked below through the result.
  }
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result || op->getNumOperands() < 2)
    return success();
  // Elementwise ops (and matmul batch dimensions): a static result
  // dimension that a dynamic operand dimension fed.
  bool broadcasts =
      isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, CmpOp, SelectOp>(op);
  if (!broadcasts)
    return success();
  int64_t rank = result.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    if (result.isDynamicDim(d))
      continue;
    for (auto [idx, operand] : llvm::enumerate(op->getOperands())) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t dim = alignedDim(type, rank, d);
      if (dim >= 0 && type.isDynamicDim(dim))
        return fail(idx, dim, result.getDimSize(d));
    }
  }
  return success();
}

struct GeneralizeShapesPass
    : public tt::impl::TTGeneralizeShapesBase<GeneralizeShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<func::FuncOp>(function);
    if (!fn || fn.isExternal()) {
      module.emitError("tt-generalize-shapes: no function @") << function;
      return signalPassFailure();
    }
    // The traced shapes of reshapes, which say how their dimensions group.
    DenseMap<Operation *, RankedTensorType> reshapeInputs;
    fn.walk([&](ReshapeOp op) {
      if (auto type = dyn_cast<RankedTensorType>(op.getInput().getType()))
        reshapeInputs[op] = type;
    });
    DenseMap<Operation *, RankedTensorType> sliceInputs;
    fn.walk([&](SliceOp op) {
      if (auto type = dyn_cast<RankedTensorType>(op.getInput().getType()))
        sliceInputs[op] = type;
    });
    // generalizeArguments, generalizeReshape, generalizeSlice and reinfer
    // emit an error on the function or op they cannot generalize.
    if (failed(generalizeArguments(fn)))
      return signalPassFailure();
    for (Operation &op : fn.getBody().front()) {
      if (isa<func::ReturnOp>(op))
        continue;
      if (!isa<TTDialect>(op.getDialect())) {
        op.emitOpError("cannot be generalized by tt-generalize-shapes "
                       "(only tt ops are)");
        return signalPassFailure();
      }
      if (auto reshape = dyn_cast<ReshapeOp>(op);
          reshape && reshapeInputs.count(reshape) &&
          failed(generalizeReshape(reshape, reshapeInputs[reshape])))
        return signalPassFailure();
      if (auto slice = dyn_cast<SliceOp>(op);
          slice && sliceInputs.count(slice) &&
          failed(generalizeSlice(slice, sliceInputs[slice])))
        return signalPassFailure();
      if (failed(reinfer(&op)))
        return signalPassFailure();
    }
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    fn.setType(FunctionType::get(&getContext(), fn.getArgumentTypes(),
                                 ret.getOperandTypes()));
  }

  LogicalResult generalizeArguments(func::FuncOp fn) {
    SmallVector<Type> types(fn.getArgumentTypes());
    for (const std::string &entry : dims) {
      StringRef text(entry);
      auto [argText, dimText] = text.split(':');
      unsigned arg, dim;
      if (argText.getAsInteger(10, arg) || dimText.getAsInteger(10, dim))
        return fn.emitError("tt-generalize-shapes: '")
               << entry << "' is not `arg:dim`";
      if (arg >= types.size())
        return fn.emitError("tt-generalize-shapes: argument ")
               << arg << " does not exist (@" << function << " has "
               << types.size() << ")";
      auto type = dyn_cast<RankedTensorType>(types[arg]);
      if (!type || dim >= type.getRank())
        return fn.emitError("tt-generalize-shapes: argument ")
               << arg << " of type " << types[arg] << " has no dimension "
               << dim;
      SmallVector<int64_t> shape(type.getShape());
      shape[dim] = ShapedType::kDynamic;
      types[arg] = type.clone(shape);
    }
    for (auto [arg, type] : llvm::zip(fn.getArguments(), types))
      arg.setType(type);
    fn.setType(FunctionType::get(&getContext(), types, fn.getResultTypes()));
    return success();
  }

  /// Gives a reshape whose input became dynamic a -1 where its dynamic
  /// dimension goes: the output dimension that the input dimension's group
  /// (of the traced reshape) collapses into, or that it is.
  static LogicalResult generalizeReshape(ReshapeOp op,
                                         RankedTensorType traced) {
    auto input = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto output = dyn_cast<RankedTensorType>(op.getType());
    if (!input || input.hasStaticShape() || !output ||
        !output.hasStaticShape() || !traced.hasStaticShape())
      return success();
    auto fail = [&](const Twine &why) {
      return op.emitOpError("cannot take the dynamic dimensions of ")
             << input << ": " << why;
    };
    SmallVector<ReassociationIndices> groups;
    bool collapse = traced.getRank() >= output.getRank();
    if (traced.getShape() == output.getShape()) {
      for (int64_t d = 0; d < traced.getRank(); ++d)
        groups.push_back({d});
    } else if (auto found = getReassociationIndicesForReshape(traced, output)) {
      groups = *found;
    } else {
      return fail("the reshape is not one collapse or expand of dimensions");
    }
    int64_t dynamicOut = -1;
    for (auto [i, group] : llvm::enumerate(groups)) {
      bool dynamic =
          collapse
              ? llvm::any_of(group,
                             [&](int64_t d) { return input.isDynamicDim(d); })
              : input.isDynamicDim(i);
      if (!dynamic)
        continue;
      int64_t out = static_cast<int64_t>(i);
      if (!collapse) {
        // An expand: the dynamic dimension goes to the one output of its
        // group that is not a unit dimension.
        SmallVector<int64_t> wide;
        for (int64_t d : group)
          if (output.getDimSize(d) != 1)
            wide.push_back(d);
        if (wide.size() != 1)
          return fail("it splits a dynamic dimension into several");
        out = wide.front();
      }
      if (dynamicOut >= 0)
        return fail("dynamic dimensions go to two dimensions of the result "
                    "(a reshape takes one -1)");
      dynamicOut = out;
    }
    if (dynamicOut < 0)
      return success();
    SmallVector<int64_t> shape(op.getShape());
    shape[dynamicOut] = -1;
    op.setShape(shape);
    return success();
  }

  /// Gives a slice whose input dimension became dynamic the size -1 (the
  /// whole dimension) there, if the traced slice took all of it.
  static LogicalResult generalizeSlice(SliceOp op, RankedTensorType traced) {
    auto input = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!input || input.hasStaticShape() || !traced.hasStaticShape())
      return success();
    SmallVector<int64_t> sizes(op.getSizes());
    for (int64_t d = 0, e = input.getRank(); d < e; ++d) {
      if (!input.isDynamicDim(d) || sizes[d] == -1)
        continue;
      if (op.getStarts()[d] != 0 || op.getStrides()[d] != 1 ||
          sizes[d] != traced.getDimSize(d))
        return op.emitOpError("slices dynamic dimension ")
               << d << " of " << input << " (start " << op.getStarts()[d]
               << ", size " << sizes[d] << ", stride " << op.getStrides()[d]
               << "): only all of a dynamic dimension can be taken";
      sizes[d] = -1;
    }
    op.setSizes(sizes);
    return success();
  }

  static LogicalResult reinfer(Operation *op) {
    auto inferrable = dyn_cast<InferTypeOpInterface>(op);
    if (!inferrable)
      return op->emitOpError("has no type inference");
    SmallVector<Type> inferred;
    if (failed(inferrable.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      return failure();
    for (auto [result, type] : llvm::zip(op->getResults(), inferred))
      result.setType(type);
    if (failed(checkNoSpecialisation(op)))
      return failure();
    // Ops that take only static shapes say so through their verifier.
    if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
      return failure();
    return success();
  }
};

} // namespace
