//===- Prepack.cpp - Matmul weights packed once, whole --------------------===//
//
// The layout of a whole packed B, the ops that build it, and
// --tt-cpu-prepack-constants, which packs constant weights where they are
// arguments and hands the packed copies to the private functions whose
// matmuls read them (a transformer layer outlined once and called with
// each layer's weights).
//
//===----------------------------------------------------------------------===//

#include "Prepack.h"
#include "TinyTensor/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTCPUPREPACKCONSTANTS
#include "TinyTensor/Codegen/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

/// The fewest rows (of A and C) for which a matmul that converts B reads a
/// converted whole copy. The float64 GPT-2 124M with freeze=True on a
/// 2-core Sapphire Rapids, against packing each panel of the float32
/// weights as float64 at every call: 16 tokens 63.3 against 57.4 ms, 32
/// tokens 81.3 against 87.6, 64 tokens 123 against 138.
static constexpr int64_t kMinRowsForConvertedPack = 32;

std::optional<WholePackLayout>
tt::wholePackLayout(linalg::LinalgOp op, const CPUTarget &target,
                    const StrategyOptions &options) {
  std::optional<MatmulDims> dims = getMatmulDims(op);
  if (!dims || op->hasAttr(kReadRhsInPlace))
    return std::nullopt;
  std::optional<KernelConfig> config = getKernelConfig(op, target, options);
  if (!config || config->kind != KernelKind::Matmul ||
      config->packRhsLevel < 0 || config->packColumns <= 0 ||
      config->packTransposed != dims->transposedB)
    return std::nullopt;
  OpOperand *rhs = op.getDpsInputOperand(1);
  auto type = dyn_cast<RankedTensorType>(rhs->get().getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape())
    return std::nullopt;
  // A B that the op converts (f32 weights of a float64 model) is packed
  // converted, when a single arith.extf is all that reads it.
  Type element = type.getElementType();
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
    BlockArgument arg = generic.getMatchingBlockArgument(rhs);
    auto converts = [](Operation *user) {
      return isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp,
                 arith::SIToFPOp, arith::UIToFPOp>(user);
    };
    if (llvm::any_of(arg.getUsers(), converts)) {
      auto ext = arg.hasOneUse()
                     ? dyn_cast<arith::ExtFOp>(*arg.getUsers().begin())
                     : arith::ExtFOp();
      if (!ext)
        return std::nullopt;
      element = ext.getType();
      // The converted copy is twice B's bytes: with few rows, reading it
      // costs more than converting B while packing each panel.
      int64_t rows = getLoopSizeEstimates(op)[dims->m];
      if (rows < kMinRowsForConvertedPack)
        return std::nullopt;
    }
  }
  int64_t width = config->packColumns;
  int64_t columns = type.getDimSize(dims->transposedB ? 0 : 1);
  // Every block of columns must start on a strip.
  if (!config->parallelTiles.empty()) {
    int64_t block = config->parallelTiles[dims->n];
    if (block != 0 && block < columns && block % width != 0)
      return std::nullopt;
  }
  return WholePackLayout{width, dims->transposedB, element};
}

RankedTensorType tt::wholePackType(RankedTensorType type,
                                   WholePackLayout layout) {
  unsigned nDim = layout.transposed ? 0 : 1;
  int64_t strips = llvm::divideCeil(type.getDimSize(nDim), layout.width);
  return RankedTensorType::get(
      {strips, type.getDimSize(1 - nDim), layout.width}, layout.element);
}

Value tt::buildWholePack(OpBuilder &b, Location loc, Value rhs,
                         WholePackLayout layout, Value init) {
  auto type = cast<RankedTensorType>(rhs.getType());
  Type element = type.getElementType();
  int64_t width = layout.width;
  unsigned nDim = layout.transposed ? 0 : 1;
  int64_t columns = type.getDimSize(nDim);
  int64_t depth = type.getDimSize(1 - nDim);
  int64_t strips = llvm::divideCeil(columns, width);
  Value source = rhs;
  if (strips * width != columns) {
    // The last strip, padded with zeros.
    SmallVector<int64_t> padded(type.getShape());
    padded[nDim] = strips * width;
    Value empty = tensor::EmptyOp::create(b, loc, padded, element);
    Value zero = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(element)));
    Value zeros =
        linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    source = tensor::InsertSliceOp::create(
        b, loc, rhs, zeros, SmallVector<OpFoldResult>(2, b.getIndexAttr(0)),
        tensor::getMixedSizes(b, loc, rhs),
        SmallVector<OpFoldResult>(2, b.getIndexAttr(1)));
  }
  // [k][strips][width] (or transposed [strips][width][k]), then one
  // transpose to [strips][k][width].
  SmallVector<int64_t> expandedShape;
  SmallVector<ReassociationIndices> reassociation;
  SmallVector<int64_t> perm;
  if (layout.transposed) {
    expandedShape = {strips, width, depth};
    reassociation = {{0, 1}, {2}};
    perm = {0, 2, 1};
  } else {
    expandedShape = {depth, strips, width};
    reassociation = {{0}, {1, 2}};
    perm = {1, 0, 2};
  }
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(expandedShape, element), source,
      reassociation);
  SmallVector<int64_t> packedShape = {strips, depth, width};
  if (!init)
    init = tensor::EmptyOp::create(b, loc, packedShape, layout.element);
  if (layout.element == element)
    return linalg::TransposeOp::create(b, loc, expanded, init, perm)
        .getResult()[0];
  // Converting: transpose in B's type, then convert the packed copy.
  Value scratch = tensor::EmptyOp::create(b, loc, packedShape, element);
  Value transposed =
      linalg::TransposeOp::create(b, loc, expanded, scratch, perm)
          .getResult()[0];
  AffineMap identity = b.getMultiDimIdentityMap(3);
  SmallVector<utils::IteratorType> parallel(3, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), transposed, init,
             ArrayRef<AffineMap>{identity, identity}, parallel,
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Value wide =
                   arith::ExtFOp::create(b, loc, layout.element, args[0]);
               linalg::YieldOp::create(b, loc, wide);
             })
      .getResult(0);
}

DictionaryAttr tt::packedArgAttr(MLIRContext *ctx, unsigned arg,
                                 WholePackLayout layout, Type source) {
  Builder b(ctx);
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("arg", b.getIndexAttr(arg)),
      b.getNamedAttr("width", b.getIndexAttr(layout.width)),
      b.getNamedAttr("transposed", b.getBoolAttr(layout.transposed))};
  if (layout.element != source)
    entries.push_back(
        b.getNamedAttr("convert_to", TypeAttr::get(layout.element)));
  return b.getDictionaryAttr(entries);
}

/// The function that packs a B of `type` whole in `layout` into its second
/// argument (one per type and layout in the module), made if there is
/// none.
static func::FuncOp packFunction(ModuleOp module, SymbolTable &table,
                                 RankedTensorType type,
                                 WholePackLayout layout) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "tt_pack_" << type.getDimSize(0) << "x" << type.getDimSize(1) << "x"
     << type.getElementType() << "_" << layout.width
     << (layout.transposed ? "_t" : "");
  if (layout.element != type.getElementType())
    os << "_to_" << layout.element;
  RankedTensorType packedType = wholePackType(type, layout);
  Builder builder(module.getContext());
  FunctionType fnType =
      builder.getFunctionType({type, packedType}, {packedType});
  auto existing = table.lookup<func::FuncOp>(name);
  if (existing && existing->hasAttr(kWholePackFnAttr) &&
      existing.getFunctionType() == fnType)
    return existing;
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  // SymbolTable::insert renames it if a function of the program has the
  // name.
  auto fn = func::FuncOp::create(b, loc, name, fnType);
  fn.setPrivate();
  fn->setAttr(kWholePackFnAttr, b.getUnitAttr());
  table.insert(fn);
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value packed = buildWholePack(b, loc, entry->getArgument(0), layout,
                                entry->getArgument(1));
  func::ReturnOp::create(b, loc, packed);
  return fn;
}

Value tt::findWholePack(func::FuncOp func, unsigned arg,
                        WholePackLayout layout) {
  DictionaryAttr wanted =
      packedArgAttr(func->getContext(), arg, layout,
                    getElementTypeOrSelf(func.getArgument(arg).getType()));
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, kPackedArgAttr) == wanted)
      return func.getArgument(i);
  for (auto call : func.getBody().front().getOps<func::CallOp>())
    if (call->getAttr(kPackedArgAttr) == wanted)
      return call.getResult(0);
  return {};
}

namespace {

/// Makes, for each matmul whose B is a constant argument of its function,
/// a call that packs that argument whole (`tt.packed`, once per argument
/// and layout); a private function whose callers all pass constant
/// arguments of their own for B gets the packed copy as a new argument.
struct PrepackConstantsPass
    : public tt::impl::TTCPUPrepackConstantsBase<PrepackConstantsPass> {
  using TTCPUPrepackConstantsBase::TTCPUPrepackConstantsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    CPUTarget target = CPUTarget::get(vectorBits);
    if (l2KiB > 0)
      target.l2Bytes = int64_t(l2KiB) * 1024;
    SymbolTableCollection symbols;
    SymbolUserMap users(symbols, module);
    SymbolTable &table = symbols.getSymbolTable(module);

    // (function, argument, layout) that matmuls would read packed.
    SmallVector<std::tuple<func::FuncOp, unsigned, WholePackLayout>> wanted;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (Operation &op : func.getBody().front()) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        if (!linalgOp || !getMatmulDims(linalgOp))
          continue;
        auto arg = dyn_cast<BlockArgument>(
            linalgOp.getDpsInputOperand(1)->get());
        if (!arg || arg.getOwner() != &func.getBody().front())
          continue;
        std::optional<WholePackLayout> layout =
            wholePackLayout(linalgOp, target, StrategyOptions());
        if (!layout)
          continue;
        auto entry = std::make_tuple(func, arg.getArgNumber(), *layout);
        if (!llvm::is_contained(wanted, entry))
          wanted.push_back(entry);
      }
    }

    for (auto [func, argNo, layout] : wanted) {
      if (findWholePack(func, argNo, layout))
        continue;
      if (func.getArgAttr(argNo, kConstantArgAttr)) {
        packInCaller(table, func.getArgument(argNo), layout);
        continue;
      }
      if (func.isPublic())
        continue;
      // Every caller passes a constant argument of its own.
      SmallVector<func::CallOp> calls;
      bool all = true;
      for (Operation *user : users.getUsers(func)) {
        auto call = dyn_cast<func::CallOp>(user);
        auto arg = call ? dyn_cast<BlockArgument>(call.getOperand(argNo))
                        : BlockArgument();
        auto caller =
            call ? call->getParentOfType<func::FuncOp>() : func::FuncOp();
        if (!arg || !caller || arg.getOwner() != &caller.getBody().front() ||
            !caller.getArgAttr(arg.getArgNumber(), kConstantArgAttr)) {
          all = false;
          break;
        }
        calls.push_back(call);
      }
      if (!all || calls.empty())
        continue;
      Type packedType = wholePackType(
          cast<RankedTensorType>(func.getArgument(argNo).getType()), layout);
      Builder b(&getContext());
      DictionaryAttr attrs = b.getDictionaryAttr(b.getNamedAttr(
          kPackedArgAttr,
          packedArgAttr(&getContext(), argNo, layout,
                        getElementTypeOrSelf(func.getArgument(argNo)))));
      if (failed(func.insertArgument(func.getNumArguments(), packedType, attrs,
                                     func.getLoc()))) {
        func.emitError("tt-cpu-prepack-constants: cannot add the packed "
                       "argument of argument #")
            << argNo << " (" << packedType << ")";
        return signalPassFailure();
      }
      for (func::CallOp call : calls) {
        Value packed = packInCaller(
            table, cast<BlockArgument>(call.getOperand(argNo)), layout);
        call->insertOperands(call->getNumOperands(), packed);
      }
    }
  }

  /// The call in `arg`'s function that packs it whole in `layout`, made at
  /// the start of the function if there is none.
  static Value packInCaller(SymbolTable &table, BlockArgument arg,
                            WholePackLayout layout) {
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (Value packed = findWholePack(func, arg.getArgNumber(), layout))
      return packed;
    func::FuncOp pack =
        packFunction(func->getParentOfType<ModuleOp>(), table,
                     cast<RankedTensorType>(arg.getType()), layout);
    OpBuilder b(func.getContext());
    b.setInsertionPointToStart(arg.getOwner());
    Value dest = tensor::EmptyOp::create(
        b, arg.getLoc(), pack.getFunctionType().getInput(1), ValueRange());
    auto call =
        func::CallOp::create(b, arg.getLoc(), pack, ValueRange{arg, dest});
    call->setAttr(kPackedArgAttr,
                  packedArgAttr(func.getContext(), arg.getArgNumber(), layout,
                                getElementTypeOrSelf(arg.getType())));
    return call.getResult(0);
  }
};

} // namespace
