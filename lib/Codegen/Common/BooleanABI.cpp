//===- BooleanABI.cpp - Booleans cross function boundaries as bytes -------===//
//
// i1 tensor arguments and results of public functions become i8 tensors,
// converted with elementwise linalg.generics at entry and before return.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTBOOLEANABI
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

bool isBooleanTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isInteger(1);
}

RankedTensorType withElementType(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// An elementwise linalg.generic from `input` to a tensor of the same shape
/// with element type `element`, its body built by `body(builder, loc, x)`.
Value mapElements(OpBuilder &builder, Location loc, Value input, Type element,
                  function_ref<Value(OpBuilder &, Location, Value)> body) {
  auto type = cast<RankedTensorType>(input.getType());
  Value init = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, input), element);
  AffineMap identity = builder.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{init.getType()}, ValueRange{input},
      ValueRange{init}, ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, body(b, l, args[0]));
      });
  return generic.getResult(0);
}

struct BooleanABIPass : public tt::impl::TTBooleanABIBase<BooleanABIPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.isPublic())
        continue;
      convert(fn);
    }
  }

  void convert(func::FuncOp fn) {
    MLIRContext *context = fn.getContext();
    Type i8 = IntegerType::get(context, 8);
    Block &entry = fn.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    bool changed = false;
    for (BlockArgument arg : entry.getArguments()) {
      if (!isBooleanTensor(arg.getType()))
        continue;
      changed = true;
      Location loc = arg.getLoc();
      Type boolean = arg.getType();
      arg.setType(withElementType(boolean, i8));
      Value asBool =
          mapElements(builder, loc, arg, builder.getI1Type(),
                      [&](OpBuilder &b, Location l, Value byte) -> Value {
                        Value zero = arith::ConstantIntOp::create(b, l, i8, 0);
                        return arith::CmpIOp::create(
                            b, l, arith::CmpIPredicate::ne, byte, zero);
                      });
      arg.replaceAllUsesExcept(asBool, asBool.getDefiningOp());
    }
    fn.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        if (!isBooleanTensor(operand.get().getType()))
          continue;
        changed = true;
        operand.set(
            mapElements(b, ret.getLoc(), operand.get(), i8,
                        [&](OpBuilder &bb, Location l, Value bit) -> Value {
                          return arith::ExtUIOp::create(bb, l, i8, bit);
                        }));
      }
    });
    if (!changed)
      return;
    SmallVector<Type> inputs, results;
    for (Type t : fn.getArgumentTypes())
      inputs.push_back(isBooleanTensor(t) ? withElementType(t, i8) : t);
    for (Type t : fn.getResultTypes())
      results.push_back(isBooleanTensor(t) ? withElementType(t, i8) : t);
    fn.setFunctionType(FunctionType::get(context, inputs, results));
  }
};

} // namespace
