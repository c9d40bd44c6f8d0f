//===- OutlineLoops.cpp - One function per top-level loop nest ------------===//

#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTOUTLINELOOPS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;

namespace {

/// Values used inside `loop` (or as its bounds) but defined outside it.
llvm::SetVector<Value> capturedValues(Operation *loop) {
  llvm::SetVector<Value> captured;
  loop->walk([&](Operation *op) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      Region *region = def ? def->getParentRegion() : v.getParentRegion();
      if (!loop->isAncestor(region->getParentOp()) &&
          region->getParentOp() != loop)
        captured.insert(v);
    }
  });
  return captured;
}

/// The type of `value` with a dynamic offset, if it is a strided view with
/// a static offset that `loop` only loads from and stores to (ops whose
/// types do not depend on the offset); otherwise its type.
Type withDynamicOffset(Value value, Operation *loop) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type)
    return value.getType();
  auto layout = dyn_cast<StridedLayoutAttr>(type.getLayout());
  if (!layout || ShapedType::isDynamic(layout.getOffset()))
    return type;
  for (Operation *user : value.getUsers())
    if (loop->isAncestor(user) &&
        !isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
             vector::TransferReadOp, vector::TransferWriteOp,
             vector::MaskedLoadOp, vector::MaskedStoreOp>(user))
      return type;
  auto dynamic = StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic,
                                        layout.getStrides());
  return MemRefType::get(type.getShape(), type.getElementType(), dynamic,
                         type.getMemorySpace());
}

/// Vectors wider than this many bits are passed to an outlined loop nest in
/// memory (one AVX-512 register).
constexpr int64_t kMaxVectorArgumentBits = 512;

/// A 1-D vector of fixed size wider than kMaxVectorArgumentBits.
bool isWideVector(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  return vector && vector.getRank() == 1 && !vector.isScalable() &&
         vector.getElementType().isIntOrFloat() &&
         vector.getNumElements() *
                 vector.getElementType().getIntOrFloatBitWidth() >
             kMaxVectorArgumentBits;
}

/// The buffer a wide vector is passed in: memref<N x T>.
MemRefType inMemory(VectorType vector) {
  return MemRefType::get(vector.getShape(), vector.getElementType());
}

/// A hash of `func`'s body that equal bodies share (operand identities and
/// locations aside).
llvm::hash_code bodyHash(func::FuncOp func) {
  llvm::hash_code hash = hash_value(func.getFunctionType());
  func.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

struct OutlineLoopsPass
    : public tt::impl::TTOutlineLoopsBase<OutlineLoopsPass> {
  using TTOutlineLoopsBase::TTOutlineLoopsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    outlined.clear(); // a pass instance may run on more than one module
    SymbolTable symbols(module);
    SmallVector<Operation *> loops;
    for (auto func : module.getOps<func::FuncOp>())
      for (Block &block : func.getBody())
        for (Operation &op : block)
          if (isa<scf::ForOp, scf::ParallelOp>(op) && op.getNumResults() == 0 &&
              countOps(&op) >= minOps)
            loops.push_back(&op);
    for (Operation *loop : loops)
      outline(loop, symbols);
  }

  /// Functions outlined so far, by bodyHash.
  llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp>> outlined;

  /// The function outlined before that equals `callee` (same type, same
  /// body), or null; `callee` is remembered when there is none.
  func::FuncOp findOrRemember(func::FuncOp callee) {
    SmallVector<func::FuncOp> &same = outlined[bodyHash(callee)];
    for (func::FuncOp other : same)
      if (other.getFunctionType() == callee.getFunctionType() &&
          OperationEquivalence::isRegionEquivalentTo(
              &other.getBody(), &callee.getBody(),
              OperationEquivalence::IgnoreLocations))
        return other;
    same.push_back(callee);
    return {};
  }

  static unsigned countOps(Operation *op) {
    unsigned n = 0;
    op->walk([&](Operation *) { ++n; });
    return n;
  }

  void outline(Operation *loop, SymbolTable &symbols) {
    auto parent = loop->getParentOfType<func::FuncOp>();
    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);

    // Constants are cloned, everything else becomes an argument.
    SmallVector<Value> arguments;
    SmallVector<Operation *> constants;
    for (Value v : capturedValues(loop)) {
      Operation *def = v.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        constants.push_back(def);
      else
        arguments.push_back(v);
    }

    // Views that differ only in where they start (the heads of an
    // attention, sliced from one projection) are passed with a dynamic
    // offset, so that their loop nests are one function. Vectors wider
    // than a register (a batch norm's per-channel scale over 576 channels,
    // computed once before the loop) are passed in memory: as values, LLVM
    // splits them into registers and stack slots at every call, and
    // selecting those calls took most of the LLVM time of MobileNetV3's
    // entry functions.
    SmallVector<Type> types;
    for (Value v : arguments) {
      if (isWideVector(v.getType()))
        types.push_back(inMemory(cast<VectorType>(v.getType())));
      else
        types.push_back(share ? withDynamicOffset(v, loop) : v.getType());
    }

    builder.setInsertionPoint(parent);
    auto type = FunctionType::get(ctx, types, {});
    auto callee = func::FuncOp::create(
        builder, loop->getLoc(), (parent.getName() + "_loop").str(), type);
    callee.setPrivate();
    // Keep the loop in its own function through LLVM's inliner.
    callee->setAttr("passthrough",
                    builder.getArrayAttr({builder.getStringAttr("noinline")}));
    symbols.insert(callee); // renames on collision

    Block *body = callee.addEntryBlock();
    IRMapping mapping;
    builder.setInsertionPointToStart(body);
    for (auto [outer, inner] : llvm::zip(arguments, body->getArguments())) {
      if (isWideVector(outer.getType())) {
        Value zero = arith::ConstantIndexOp::create(builder, loop->getLoc(), 0);
        mapping.map(outer, vector::LoadOp::create(
                               builder, loop->getLoc(),
                               cast<VectorType>(outer.getType()), inner, zero)
                               .getResult());
      } else {
        mapping.map(outer, inner);
      }
    }
    for (Operation *c : constants)
      builder.clone(*c, mapping);
    builder.clone(*loop, mapping);
    func::ReturnOp::create(builder, loop->getLoc());

    if (share) {
      if (func::FuncOp equal = findOrRemember(callee)) {
        symbols.erase(callee);
        callee = equal;
      }
    }

    builder.setInsertionPoint(loop);
    SmallVector<Value> operands;
    for (auto [v, t] : llvm::zip(arguments, types)) {
      Location loc = loop->getLoc();
      if (isWideVector(v.getType())) {
        Value buffer =
            memref::AllocaOp::create(builder, loc, cast<MemRefType>(t));
        Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
        vector::StoreOp::create(builder, loc, v, buffer, zero);
        operands.push_back(buffer);
      } else {
        operands.push_back(
            v.getType() == t
                ? v
                : memref::CastOp::create(builder, loc, t, v).getResult());
      }
    }
    func::CallOp::create(builder, loop->getLoc(), callee, operands);
    loop->erase();
  }
};

} // namespace
