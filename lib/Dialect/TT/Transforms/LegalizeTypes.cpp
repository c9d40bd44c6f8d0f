//===- LegalizeTypes.cpp - f16/bf16 compute in f32, ui8 stored as i8 ------===//
//
// Rewrites the tt element types the lowering does not compute with:
// arithmetic on 16-bit floats computes in f32 and rounds per op, and ui8
// becomes signless i8 storage, with the sign-sensitive ops computing on
// zero-extended i32 values. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/Passes.h"
#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTLEGALIZETYPES
#include "TinyTensor/Dialect/TT/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

Type elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

Type elementTypeOf(Value value) { return elementTypeOf(value.getType()); }

bool isHalfFloat(Type t) { return t.isF16() || t.isBF16(); }

bool isUnsigned(Type t) { return t.isUnsignedInteger(); }

/// Whether values of element type `t` are rewritten by the pass.
bool isIllegal(Type t) { return isHalfFloat(t) || isUnsigned(t); }

/// The type an op computes in for operands of element type `t`.
Type computeType(Type t) {
  if (isHalfFloat(t))
    return Float32Type::get(t.getContext());
  if (isUnsigned(t))
    return IntegerType::get(t.getContext(), 32);
  return t;
}

/// The type `t` is stored as after the pass: unsigned integers become
/// signless ones of the same width.
Type storageType(Type t) {
  if (isUnsigned(t))
    return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
  return t;
}

Type withElementType(Type type, Type element) {
  if (auto tensor = dyn_cast<TensorType>(type))
    return tensor.clone(element);
  return element;
}

/// How an op treats the illegal types among its operands and results.
enum class Kind {
  /// Moves or selects elements: keeps every type (ui8 becomes i8 later).
  Move,
  /// Integer arithmetic that wraps: the result bits do not depend on the
  /// sign, so ui8 becomes i8 later; 16-bit floats compute in f32.
  Wrapping,
  /// Every other op: computes in f32 or i32.
  Compute,
};

Kind kindOf(Operation *op) {
  if (isa<ConstantOp, TransposeOp, ReshapeOp, BroadcastToOp, SliceOp, ConcatOp,
          WindowsOp, GatherOp, SelectOp, IotaOp, BitcastOp>(op))
    return Kind::Move;
  if (auto scatter = dyn_cast<ScatterOp>(op)) {
    switch (scatter.getMode()) {
    case ScatterMode::set:
      return Kind::Move;
    case ScatterMode::add:
    case ScatterMode::mul:
      return Kind::Wrapping;
    default:
      return Kind::Compute;
    }
  }
  if (isa<AddOp, SubOp, MulOp, NegOp, SumOp, ProdOp, CumsumOp, MatmulOp, ConvOp,
          BitwiseAndOp, BitwiseOrOp, BitwiseXorOp>(op))
    return Kind::Wrapping;
  return Kind::Compute;
}

class Legalizer {
public:
  explicit Legalizer(OpBuilder &b) : b(b) {}

  /// A cast of `value` to element type `to` that only uses casts the
  /// lowering implements with PyTorch's meaning (see the pass
  /// description). The result is correct both before and after ui8 is
  /// retyped to i8.
  Value castTo(Location loc, Value value, Type to) {
    Type from = elementTypeOf(value);
    if (from == to)
      return value;
    Type f32 = Float32Type::get(b.getContext());
    Type i32 = IntegerType::get(b.getContext(), 32);
    if (isHalfFloat(from) || isHalfFloat(to)) {
      if (from.isF32() || to.isF32())
        return rawCast(loc, value, to);
      return castTo(loc, castTo(loc, value, f32), to);
    }
    if (isUnsigned(from) && !to.isInteger(1) &&
        !(isa<IntegerType>(to) &&
          to.getIntOrFloatBitWidth() <= from.getIntOrFloatBitWidth()))
      return castTo(loc, zeroExtend(loc, value), to);
    if (isUnsigned(to) && isa<FloatType>(from))
      return rawCast(loc, castTo(loc, value, i32), to);
    return rawCast(loc, value, to);
  }

  /// Rewrites `op` to compute in f32/i32 where it has illegal types and
  /// its kind says so.
  void legalize(Operation *op) {
    if (auto cast = dyn_cast<CastOp>(op)) {
      Type from = elementTypeOf(cast.getInput());
      Type to = cast.getTo();
      if (!isIllegal(from) && !isIllegal(to))
        return;
      b.setInsertionPoint(op);
      Value legal = castTo(op->getLoc(), cast.getInput(), to);
      if (legal.getDefiningOp() != op) {
        op->getResult(0).replaceAllUsesWith(legal);
        op->erase();
      }
      return;
    }
    bool illegal =
        llvm::any_of(op->getOperandTypes(),
                     [](Type t) { return isIllegal(elementTypeOf(t)); }) ||
        llvm::any_of(op->getResultTypes(),
                     [](Type t) { return isIllegal(elementTypeOf(t)); });
    if (!illegal)
      return;
    Kind kind = kindOf(op);
    if (kind == Kind::Move)
      return;
    // Wrapping integer ops on ui8 keep it (retyped to i8 later); on 16-bit
    // floats they compute in f32 like the rest.
    auto needsCompute = [&](Type t) {
      return isHalfFloat(t) || (kind == Kind::Compute && isUnsigned(t));
    };
    bool compute = llvm::any_of(op->getOperandTypes(), [&](Type t) {
      return needsCompute(elementTypeOf(t));
    });
    if (!compute)
      return;

    b.setInsertionPoint(op);
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      Type et = elementTypeOf(operand);
      operands.push_back(
          needsCompute(et) ? castTo(loc, operand, computeType(et)) : operand);
    }
    SmallVector<Type> resultTypes;
    for (Type type : op->getResultTypes()) {
      Type et = elementTypeOf(type);
      resultTypes.push_back(
          needsCompute(et) ? withElementType(type, computeType(et)) : type);
    }
    OperationState state(loc, op->getName(), operands, resultTypes,
                         op->getAttrs());
    Operation *computed = b.create(state);
    SmallVector<Value> results;
    for (auto [old, now] :
         llvm::zip_equal(op->getResults(), computed->getResults()))
      results.push_back(castTo(loc, now, elementTypeOf(old)));
    op->replaceAllUsesWith(results);
    op->erase();
  }

private:
  /// A tt.cast with no rewriting: the lowering's meaning of the cast
  /// between the two types.
  Value rawCast(Location loc, Value value, Type to) {
    return CastOp::create(b, loc, value, TypeAttr::get(to));
  }

  /// The ui8 `value` zero-extended to i32: a sign-extending cast, then
  /// +256 where it came out negative. Before ui8 is retyped the cast
  /// zero-extends and the select keeps it; after, the select corrects the
  /// sign extension.
  Value zeroExtend(Location loc, Value value) {
    Type i32 = IntegerType::get(b.getContext(), 32);
    Value wide = rawCast(loc, value, i32);
    auto scalar = RankedTensorType::get({}, i32);
    auto constant = [&](int32_t v) {
      return ConstantOp::create(b, loc,
                                DenseElementsAttr::get(
                                    scalar, b.getI32IntegerAttr(v).getValue()))
          .getResult();
    };
    int64_t width = elementTypeOf(value).getIntOrFloatBitWidth();
    Value negative =
        CmpOp::create(b, loc, CmpPredicate::lt, wide, constant(0)).getResult();
    Value wrapped =
        AddOp::create(b, loc, wide, constant(int32_t(1) << width)).getResult();
    return SelectOp::create(b, loc, negative, wrapped, wide).getResult();
  }

  OpBuilder &b;
};

/// The constant's value with unsigned elements reinterpreted as signless.
Attribute signlessValue(Attribute value) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    Type et = dense.getElementType();
    return isUnsigned(et) ? dense.bitcast(storageType(et)) : value;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    ShapedType type = resource.getType();
    if (isUnsigned(type.getElementType()))
      return DenseResourceElementsAttr::get(
          type.clone(storageType(type.getElementType())),
          resource.getRawHandle());
  }
  return value;
}

/// Retypes every ui8 value of `func` (arguments, results, cast targets,
/// constants) to i8, and the signature with them.
void retypeUnsigned(func::FuncOp func) {
  auto retype = [](Value value) {
    Type et = elementTypeOf(value);
    if (isUnsigned(et))
      value.setType(withElementType(value.getType(), storageType(et)));
  };
  func.walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      retype(arg);
  });
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      retype(result);
    if (auto cast = dyn_cast<CastOp>(op))
      cast.setToAttr(TypeAttr::get(storageType(cast.getTo())));
    if (auto bitcast = dyn_cast<BitcastOp>(op))
      bitcast.setToAttr(TypeAttr::get(storageType(bitcast.getTo())));
    if (auto constant = dyn_cast<ConstantOp>(op))
      op->setAttr("value", signlessValue(constant.getValue()));
  });
  auto retypeAll = [](TypeRange types) {
    SmallVector<Type> out;
    for (Type t : types)
      out.push_back(withElementType(t, storageType(elementTypeOf(t))));
    return out;
  };
  FunctionType type = func.getFunctionType();
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         retypeAll(type.getInputs()),
                                         retypeAll(type.getResults())));
}

struct TTLegalizeTypesPass
    : public tt::impl::TTLegalizeTypesBase<TTLegalizeTypesPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    Legalizer legalizer(b);
    getOperation().walk([&](func::FuncOp func) {
      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) {
        if (isa<TTDialect>(op->getDialect()))
          ops.push_back(op);
      });
      for (Operation *op : ops)
        legalizer.legalize(op);
      retypeUnsigned(func);
    });
  }
};

} // namespace
