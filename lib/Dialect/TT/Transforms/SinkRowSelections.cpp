//===- SinkRowSelections.cpp - Compute only the rows that are used --------===//
//
// A selection of rows (a tt.slice that takes part of dimension 0 only, or a
// tt.gather of a 1-D index tensor) of a value computed row by row is moved
// above the op that computes it, so that the op computes the selected rows
// only. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/Passes.h"
#include "TinyTensor/Dialect/TT/TTOps.h"
#include "TinyTensor/Support/PassFailures.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace tt {
#define GEN_PASS_DEF_TTSINKROWSELECTIONS
#include "TinyTensor/Dialect/TT/Passes.h.inc"
} // namespace tt
} // namespace mlir

using namespace mlir;
using namespace mlir::tt;

namespace {

RankedTensorType staticType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getRank() > 0 ? type : nullptr;
}

/// The type of `value` if it is ranked with at least one dimension (the
/// rows), whose size may be dynamic.
RankedTensorType rowsType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() > 0 ? type : nullptr;
}

/// A selection of rows of a value: which rows, and how to take the same
/// rows of another value with as many rows.
class RowSelection {
public:
  /// The selection `op` makes of its first operand, if it is one: a gather
  /// by a 1-D index tensor, or a slice that takes all of every dimension
  /// but the first.
  static std::optional<RowSelection> of(Operation *op) {
    if (auto gather = dyn_cast<GatherOp>(op)) {
      auto indices = dyn_cast<RankedTensorType>(gather.getIndices().getType());
      if (!indices || indices.getRank() != 1 || !indices.hasStaticShape() ||
          !rowsType(gather.getTable()))
        return std::nullopt;
      return RowSelection(op, indices.getDimSize(0));
    }
    if (auto slice = dyn_cast<SliceOp>(op)) {
      RankedTensorType input = staticType(slice.getInput());
      if (!input || slice.getSizes()[0] < 0)
        return std::nullopt;
      for (int64_t d = 1, e = input.getRank(); d < e; ++d)
        if (slice.getStarts()[d] != 0 || slice.getStrides()[d] != 1 ||
            (slice.getSizes()[d] != input.getDimSize(d) &&
             slice.getSizes()[d] != -1))
          return std::nullopt;
      return RowSelection(op, slice.getSizes()[0]);
    }
    return std::nullopt;
  }

  Value source() const { return op->getOperand(0); }
  int64_t rows() const { return count; }

  /// Whether `other` selects the same rows of the same value.
  bool sameAs(Operation *other) const {
    if (other->getName() != op->getName() ||
        other->getOperand(0) != source() ||
        other->getResultTypes() != op->getResultTypes())
      return false;
    if (auto gather = dyn_cast<GatherOp>(op))
      return cast<GatherOp>(other).getIndices() == gather.getIndices();
    auto slice = cast<SliceOp>(op), that = cast<SliceOp>(other);
    return slice.getStarts() == that.getStarts() &&
           slice.getSizes() == that.getSizes() &&
           slice.getStrides() == that.getStrides();
  }

  /// The type of the selected rows of a value of type `type`.
  RankedTensorType selectedType(RankedTensorType type) const {
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = count;
    return type.clone(shape);
  }

  /// The same rows of `value` (as many rows as the source).
  Value apply(PatternRewriter &rewriter, Location loc, Value value) const {
    auto type = cast<RankedTensorType>(value.getType());
    RankedTensorType result = selectedType(type);
    if (auto gather = dyn_cast<GatherOp>(op))
      return GatherOp::create(rewriter, loc, result, value,
                              gather.getIndices());
    auto slice = cast<SliceOp>(op);
    int64_t rank = type.getRank();
    SmallVector<int64_t> starts(rank, 0), sizes(type.getShape()),
        strides(rank, 1);
    starts[0] = slice.getStarts()[0];
    sizes[0] = count;
    strides[0] = slice.getStrides()[0];
    return SliceOp::create(rewriter, loc, result, value, starts, sizes,
                           strides);
  }

private:
  RowSelection(Operation *op, int64_t count) : op(op), count(count) {}
  Operation *op;
  int64_t count;
};

bool isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, CmpOp, SelectOp,
             NegOp, AbsOp, ExpOp, LogOp, TanhOp, SqrtOp, RsqrtOp, ErfOp, SinOp,
             CosOp, FloorOp, CeilOp, RoundOp, Log1pOp, Expm1Op, Exp2Op, Log2Op,
             CastOp>(op);
}

/// The reduction axes of `op` if it is a reduction, else nullopt.
std::optional<ArrayRef<int64_t>> reductionAxes(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<ArrayRef<int64_t>>>(op)
      .Case<SumOp, ReduceMaxOp, ReduceMinOp, ProdOp, MeanOp, VarOp>(
          [](auto reduction) -> std::optional<ArrayRef<int64_t>> {
            return reduction.getAxes();
          })
      .Default([](Operation *) { return std::nullopt; });
}

/// For each operand of `op` (which computes its result's rows, dimension 0,
/// each from the same rows of some operands), whether the selection must
/// be applied to it (true) or it is used as it is (false); failure when
/// `op` does not compute row by row.
///
/// Row counts are compared as types give them: a dynamic count meets only
/// dynamic counts, which the ops below require to be equal at run time.
FailureOr<SmallVector<bool>> rowOperands(Operation *op, int64_t rows) {
  auto rowsOf = [&](Value value) -> std::optional<int64_t> {
    RankedTensorType type = rowsType(value);
    if (!type)
      return std::nullopt;
    return type.getDimSize(0);
  };
  auto result = rowsType(op->getResult(0));
  if (!result)
    return failure();
  int64_t rank = result.getRank();
  SmallVector<bool> select;
  if (isElementwise(op)) {
    // NumPy broadcasting: an operand of lower rank, or with one row, is
    // the same for every row.
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type)
        return failure();
      if (type.getRank() < rank || type.getDimSize(0) == 1) {
        select.push_back(false);
        continue;
      }
      if (type.getDimSize(0) != rows)
        return failure();
      select.push_back(true);
    }
    return select;
  }
  if (std::optional<ArrayRef<int64_t>> axes = reductionAxes(op)) {
    int64_t inputRank = cast<RankedTensorType>(op->getOperand(0).getType())
                            .getRank();
    if (llvm::any_of(*axes, [&](int64_t axis) {
          return axis == 0 || axis == -inputRank;
        }) ||
        rowsOf(op->getOperand(0)) != rows)
      return failure();
    return SmallVector<bool>{true};
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    // Rows of a matrix product are rows of the left matrix (a stack of
    // matrices has batches first).
    auto lhs = rowsType(matmul.getLhs());
    auto rhs = rowsType(matmul.getRhs());
    if (!lhs || !rhs || lhs.getRank() != 2 || rhs.getRank() > 2)
      return failure();
    return SmallVector<bool>{true, false};
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // A slice of columns takes the same rows of its input.
    if (slice.getStarts()[0] != 0 || slice.getStrides()[0] != 1 ||
        rowsOf(slice.getInput()) != rows)
      return failure();
    return SmallVector<bool>{true};
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    if (concat.getAxis() == 0)
      return failure();
    for (Value input : concat.getInputs())
      if (rowsOf(input) != rows)
        return failure();
    return SmallVector<bool>(op->getNumOperands(), true);
  }
  return failure();
}

/// selection(op(x, y, ...)) -> op(selection(x), selection(y), ...), when
/// every use of op's result selects the same rows: the op then computes
/// only those.
struct SinkRowSelection : public RewritePattern {
  SinkRowSelection(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    std::optional<RowSelection> selection = RowSelection::of(root);
    if (!selection)
      return failure();
    Value source = selection->source();
    Operation *producer = source.getDefiningOp();
    RankedTensorType sourceType = rowsType(source);
    if (!producer || producer->getNumResults() != 1 ||
        !isa_and_present<TTDialect>(producer->getDialect()) || !sourceType)
      return rewriter.notifyMatchFailure(root, "not a tt op's only result");
    // Of a dynamic number of rows, one is always fewer (a gather of more
    // could select more rows than there are).
    int64_t rows = sourceType.getDimSize(0);
    if (ShapedType::isDynamic(rows) ? selection->rows() > 1
                                    : selection->rows() >= rows)
      return rewriter.notifyMatchFailure(root, "selects every row or more");
    // The selected op goes where the first selection was: the indices of
    // a gather may be computed after the producer.
    Operation *first = root;
    for (OpOperand &use : source.getUses()) {
      Operation *user = use.getOwner();
      if (use.getOperandNumber() != 0 || !selection->sameAs(user))
        return rewriter.notifyMatchFailure(root, "other rows are used");
      if (user->getBlock() != producer->getBlock())
        return rewriter.notifyMatchFailure(root, "used in another block");
      if (user->isBeforeInBlock(first))
        first = user;
    }
    FailureOr<SmallVector<bool>> select = rowOperands(producer, rows);
    if (failed(select))
      return rewriter.notifyMatchFailure(root, "not computed row by row");

    rewriter.setInsertionPoint(first);
    SmallVector<Value> operands;
    for (auto [operand, selected] :
         llvm::zip(producer->getOperands(), *select))
      operands.push_back(selected ? selection->apply(rewriter,
                                                     producer->getLoc(),
                                                     operand)
                                  : operand);
    Operation *selected = rewriter.clone(*producer);
    selected->setOperands(operands);
    selected->getResult(0).setType(selection->selectedType(sourceType));
    if (auto slice = dyn_cast<SliceOp>(selected)) {
      SmallVector<int64_t> sizes(slice.getSizes());
      sizes[0] = selection->rows();
      slice.setSizes(sizes);
    }
    for (Operation *user : llvm::make_early_inc_range(source.getUsers()))
      rewriter.replaceOp(user, selected->getResults());
    rewriter.eraseOp(producer);
    return success();
  }
};

struct SinkRowSelectionsPass
    : public tt::impl::TTSinkRowSelectionsBase<SinkRowSelectionsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkRowSelection>(&getContext());
    // Each sinking keeps the program's meaning.
    (void)tt::applyPatterns(*this, getOperation(), std::move(patterns),
                            tt::Convergence::Optional);
  }
};

} // namespace
