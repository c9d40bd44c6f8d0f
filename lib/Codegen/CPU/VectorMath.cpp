//===- VectorMath.cpp - f64 vector math through glibc's libmvec -----------===//

#include "KernelConfig.h"
#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUVECTORMATH
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// The libmvec name of `op`'s function without the vector ABI prefix, or
/// empty when libmvec does not provide it.
StringRef functionName(Operation *op) {
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case<math::TanhOp>([](auto) { return "tanh"; })
      .Case<math::ExpOp>([](auto) { return "exp"; })
      .Case<math::LogOp>([](auto) { return "log"; })
      .Case<math::ErfOp>([](auto) { return "erf"; })
      .Default([](Operation *) { return StringRef(); });
}

struct CPUVectorMathPass
    : public tt::impl::TTCPUVectorMathBase<CPUVectorMathPass> {
  using TTCPUVectorMathBase::TTCPUVectorMathBase;

  void runOnOperation() override {
    if (!llvm::Triple(llvm::sys::getProcessTriple()).isX86())
      return;
    unsigned bits = tt::CPUTarget::get(vectorBits).vectorBits;
    if (bits < 256)
      return;
    // The x86 vector function ABI: 'e' for AVX-512 (8 doubles), 'd' for
    // AVX2 (4 doubles).
    int64_t lanes = bits / 64;
    std::string prefix =
        (bits >= 512 ? "_ZGVeN" : "_ZGVdN") + std::to_string(lanes) + "v_";

    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    MLIRContext *ctx = &getContext();
    auto chunkType = VectorType::get({lanes}, Float64Type::get(ctx));

    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
          functionName(op).empty())
        return;
      auto type = dyn_cast<VectorType>(op->getResult(0).getType());
      if (type && type.getRank() == 1 && type.getElementType().isF64() &&
          type.getNumElements() % lanes == 0)
        ops.push_back(op);
    });

    for (Operation *op : ops) {
      std::string name = prefix + functionName(op).str();
      auto callee = symbols.lookup<func::FuncOp>(name);
      if (!callee) {
        OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
        callee = func::FuncOp::create(
            builder, module.getLoc(), name,
            FunctionType::get(ctx, {chunkType}, {chunkType}));
        callee.setPrivate();
        symbols.insert(callee);
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value input = op->getOperand(0);
      auto type = cast<VectorType>(input.getType());
      auto splat = [&](OpBuilder &b, double value) -> Value {
        return arith::ConstantOp::create(
            b, loc, type,
            DenseElementsAttr::get(type, b.getF64FloatAttr(value)));
      };
      // One call per register.
      auto calls = [&](OpBuilder &b, Value input) {
        Value result = splat(b, 0.0);
        for (int64_t offset = 0; offset < type.getNumElements();
             offset += lanes) {
          Value chunk = vector::ExtractStridedSliceOp::create(
              b, loc, input, ArrayRef<int64_t>{offset},
              ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
          Value value = func::CallOp::create(b, loc, callee, ValueRange{chunk})
                            .getResult(0);
          result = vector::InsertStridedSliceOp::create(
              b, loc, value, result, ArrayRef<int64_t>{offset},
              ArrayRef<int64_t>{1});
        }
        return result;
      };
      Value result;
      if (isa<math::ExpOp>(op)) {
        // Lanes below -708 (or NaN) leave libmvec's fast path; those below
        // -745.2 are exactly 0 and are not passed to it.
        Value low = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULT,
                                          input, splat(b, -708.0));
        Value any = vector::ReductionOp::create(
            b, loc, vector::CombiningKind::OR, low);
        auto branch = scf::IfOp::create(
            b, loc, any,
            [&](OpBuilder &b, Location loc) {
              Value zero = arith::CmpFOp::create(
                  b, loc, arith::CmpFPredicate::OLT, input, splat(b, -745.2));
              Value safe = arith::SelectOp::create(b, loc, zero,
                                                   splat(b, 0.0), input);
              Value value = arith::SelectOp::create(
                  b, loc, zero, splat(b, 0.0), calls(b, safe));
              scf::YieldOp::create(b, loc, value);
            },
            [&](OpBuilder &b, Location loc) {
              scf::YieldOp::create(b, loc, calls(b, input));
            });
        result = branch.getResult(0);
      } else {
        result = calls(b, input);
      }
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};

} // namespace
