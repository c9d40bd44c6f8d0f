//===- DataMovement.cpp - tt shape and indexing ops to linalg -------------===//
//
// The ops that move data or change shapes: tt.transpose, tt.reshape,
// tt.slice, tt.concat, tt.windows, tt.iota, tt.gather and tt.scatter, as
// linalg and tensor ops (tt.scatter as an scf.for over its indices).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tt;

namespace {

/// NumPy's negative index: `id + n` where `id < 0`, else `id` (`zero`: an
/// index constant 0).
Value wrapNegativeIndex(OpBuilder &b, Location loc, Value id, Value n,
                        Value zero) {
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, id, zero);
  return arith::SelectOp::create(b, loc, negative,
                                 arith::AddIOp::create(b, loc, id, n), id);
}

struct TransposeLowering : public RankedLowering<TransposeOp> {
  using RankedLowering::RankedLowering;
  Value lower(TransposeOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Value input = adaptor.getInput();
    ArrayRef<int64_t> permutation = op.getPermutation();
    Value init =
        emptyTensor(b, op.getLoc(), type,
                    dynamicSizes(b, op.getLoc(), type, [&](int64_t d) {
                      return dimSize(b, op.getLoc(), input, permutation[d]);
                    }));
    return linalg::TransposeOp::create(b, op.getLoc(), input, init, permutation)
        .getResult()[0];
  }
};

struct ReshapeLowering : public RankedLowering<ReshapeOp> {
  using RankedLowering::RankedLowering;
  Value lower(ReshapeOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    return reshapeTensor(b, op.getLoc(), adaptor.getInput(), type);
  }
};

struct SliceLowering : public RankedLowering<SliceOp> {
  using RankedLowering::RankedLowering;
  Value lower(SliceOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    // A size of -1 is the whole (possibly dynamic) dimension.
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (auto [d, size] : llvm::enumerate(op.getSizes())) {
      offsets.push_back(b.getIndexAttr(op.getStarts()[d]));
      strides.push_back(b.getIndexAttr(op.getStrides()[d]));
      sizes.push_back(size == -1
                          ? dimSize(b, op.getLoc(), adaptor.getInput(), d)
                          : OpFoldResult(b.getIndexAttr(size)));
    }
    return tensor::ExtractSliceOp::create(
        b, op.getLoc(), type, adaptor.getInput(), offsets, sizes, strides);
  }
};

struct ConcatLowering : public RankedLowering<ConcatOp> {
  using RankedLowering::RankedLowering;
  Value lower(ConcatOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    int64_t rank = type.getRank(), axis = op.getAxis();
    ValueRange inputs = adaptor.getInputs();
    // A dynamic dimension other than the axis has input #0's size; the
    // others must have it too. Along the axis the sizes add up.
    for (auto [idx, input] : llvm::enumerate(inputs.drop_front()))
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && type.isDynamicDim(d))
          assertSameSize(b, loc, dimSize(b, loc, inputs.front(), d),
                         dimSize(b, loc, input, d),
                         "tt.concat: input #" + Twine(idx + 1) + " dimension " +
                             Twine(d) + " does not match input #0");
    // Offsets along the axis: a constant while the sizes before are
    // static, else a sum of run-time sizes.
    auto add = [&](OpFoldResult x, OpFoldResult y) -> OpFoldResult {
      std::optional<int64_t> cx = getConstantIntValue(x),
                             cy = getConstantIntValue(y);
      if (cx && cy)
        return b.getIndexAttr(*cx + *cy);
      if (cx == 0)
        return y;
      if (cy == 0)
        return x;
      return arith::AddIOp::create(b, loc,
                                   getValueOrCreateConstantIndexOp(b, loc, x),
                                   getValueOrCreateConstantIndexOp(b, loc, y))
          .getResult();
    };
    OpFoldResult total = b.getIndexAttr(0);
    for (Value input : inputs)
      total = add(total, dimSize(b, loc, input, axis));
    Value result = emptyTensor(
        b, loc, type, dynamicSizes(b, loc, type, [&](int64_t d) {
          return d == axis ? total : dimSize(b, loc, inputs.front(), d);
        }));
    OpFoldResult offset = b.getIndexAttr(0);
    for (auto [idx, input] : llvm::enumerate(inputs)) {
      auto it = cast<RankedTensorType>(input.getType());
      // An empty input adds nothing (and its offset may be one past the
      // end, which tensor.insert_slice rejects).
      if (it.getDimSize(axis) == 0 ||
          llvm::is_contained(it.getShape(), int64_t(0)))
        continue;
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
          strides(rank, b.getIndexAttr(1));
      offsets[axis] = offset;
      for (int64_t d = 0; d < rank; ++d)
        sizes.push_back(dimSize(b, loc, input, d));
      result = tensor::InsertSliceOp::create(b, loc, input, result, offsets,
                                             sizes, strides);
      if (idx + 1 < inputs.size())
        offset = add(offset, sizes[axis]);
    }
    return result;
  }
};

/// tt.windows: one linalg.generic copying input[b, o*s + k*d, c] to
/// result[b, o, k, c] (an affine input map, parallel loops).
struct WindowsLowering : public RankedLowering<WindowsOp> {
  using RankedLowering::RankedLowering;
  Value lower(WindowsOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations();
    int64_t n = static_cast<int64_t>(op.getKernel().size());
    int64_t rank = type.getRank(); // input rank + n
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < axis; ++d)
      exprs.push_back(b.getAffineDimExpr(d));
    for (int64_t i = 0; i < n; ++i)
      exprs.push_back(b.getAffineDimExpr(axis + i) * strides[i] +
                      b.getAffineDimExpr(axis + n + i) * dilations[i]);
    for (int64_t d = axis + 2 * n; d < rank; ++d)
      exprs.push_back(b.getAffineDimExpr(d));
    AffineMap in = AffineMap::get(rank, 0, exprs, b.getContext());
    AffineMap out = b.getMultiDimIdentityMap(rank);
    Value init = emptyTensor(b, loc, type);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{adaptor.getInput()},
        ValueRange{init}, ArrayRef<AffineMap>{in, out},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &nb, Location nloc, ValueRange args) {
          linalg::YieldOp::create(nb, nloc, args[0]);
        });
    return generic.getResult(0);
  }
};

/// tt.iota: a linalg.generic writing its index, sized by `like`.
struct IotaLowering : public RankedLowering<IotaOp> {
  using RankedLowering::RankedLowering;
  Value lower(IotaOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    int64_t dim = static_cast<int64_t>(op.getDim());
    Value init =
        emptyTensor(b, loc, type, dynamicSizes(b, loc, type, [&](int64_t) {
                      return dimSize(b, loc, adaptor.getLike(), dim);
                    }));
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{b.getMultiDimIdentityMap(1)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &nb, Location nloc, ValueRange) {
          Value index = linalg::IndexOp::create(nb, nloc, 0);
          Value value = arith::IndexCastOp::create(
              nb, nloc, type.getElementType(), index);
          linalg::YieldOp::create(nb, nloc, value);
        });
    return generic.getResult(0);
  }
};

struct GatherLowering : public RankedLowering<GatherOp> {
  using RankedLowering::RankedLowering;
  Value lower(GatherOp op, OpAdaptor adaptor, OpBuilder &builder,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = builder.getContext();
    Value table = adaptor.getTable(), indices = adaptor.getIndices();
    int64_t rank = type.getRank();
    int64_t indexRank = cast<RankedTensorType>(indices.getType()).getRank();

    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    // The result's sizes: the indices' dimensions, then the table's
    // trailing ones.
    Value init = emptyTensor(
        builder, loc, type, dynamicSizes(builder, loc, type, [&](int64_t d) {
          return d < indexRank
                     ? dimSize(builder, loc, indices, d)
                     : dimSize(builder, loc, table, d - indexRank + 1);
        }));
    // The table's row count: a constant in the body, or its tensor.dim.
    OpFoldResult rows = dimSize(builder, loc, table, 0);
    auto generic = linalg::GenericOp::create(
        builder, loc, type, indices, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          // NumPy semantics for negative indices; out-of-range ones clamp
          // instead of reading out of bounds.
          Value id =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value n, last;
          if (std::optional<int64_t> count = getConstantIntValue(rows)) {
            n = arith::ConstantIndexOp::create(b, l, *count);
            last = arith::ConstantIndexOp::create(b, l, *count - 1);
          } else {
            n = cast<Value>(rows);
            last = arith::SubIOp::create(
                b, l, n, arith::ConstantIndexOp::create(b, l, 1));
          }
          id = wrapNegativeIndex(b, l, id, n, zero);
          id = arith::MaxSIOp::create(b, l, id, zero);
          id = arith::MinSIOp::create(b, l, id, last);
          SmallVector<Value> coords = {id};
          for (int64_t d = indexRank; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          Value v = tensor::ExtractOp::create(b, l, table, coords);
          linalg::YieldOp::create(b, l, v);
        });
    return generic.getResult(0);
  }
};

/// tt.scatter: a loop over the indices carrying a copy of the table,
/// updated in place. Each in-range row index takes
/// its row of updates, or that row combined with the table's; negative
/// indices count from the end, out-of-range ones are skipped.
struct ScatterLowering : public RankedLowering<ScatterOp> {
  using RankedLowering::RankedLowering;
  Value lower(ScatterOp op, OpAdaptor adaptor, OpBuilder &b,
              RankedTensorType type) const override {
    Location loc = op.getLoc();
    Value table = adaptor.getTable(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    int64_t rank = type.getRank();
    ScatterMode mode = op.getMode();
    // One row: [1, table.shape[1:]...].
    SmallVector<int64_t> rowShape(type.getShape());
    rowShape[0] = 1;
    auto rowType = RankedTensorType::get(rowShape, type.getElementType());
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
    for (int64_t d = 1; d < rank; ++d)
      sizes.push_back(dimSize(b, loc, table, d));
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    auto rowAt = [&](OpFoldResult row) {
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
      offsets[0] = row;
      return offsets;
    };
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value count =
        getValueOrCreateConstantIndexOp(b, loc, dimSize(b, loc, indices, 0));
    Value rows =
        getValueOrCreateConstantIndexOp(b, loc, dimSize(b, loc, table, 0));
    // The loop updates a copy: in place on `table` itself, bufferization
    // would write into the caller's array when it is a function argument.
    // (An identity linalg.generic would be erased by canonicalization.)
    Value copy =
        bufferization::AllocTensorOp::create(b, loc, type, ValueRange{},
                                             /*copy=*/table);
    auto loop = scf::ForOp::create(
        b, loc, zero, count, one, ValueRange{copy},
        [&](OpBuilder &nb, Location nl, Value i, ValueRange iter) {
          Value id = arith::IndexCastOp::create(
              nb, nl, nb.getIndexType(),
              tensor::ExtractOp::create(nb, nl, indices, ValueRange{i}));
          id = wrapNegativeIndex(nb, nl, id, rows, zero);
          Value inside = arith::AndIOp::create(
              nb, nl,
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, id,
                                    zero),
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, id,
                                    rows));
          auto branch = scf::IfOp::create(
              nb, nl, inside,
              [&](OpBuilder &tb, Location tl) {
                Value row = tensor::ExtractSliceOp::create(
                    tb, tl, rowType, updates, rowAt(i), sizes, strides);
                if (mode != ScatterMode::set) {
                  Value old = tensor::ExtractSliceOp::create(
                      tb, tl, rowType, iter[0], rowAt(id), sizes, strides);
                  row = buildElementwise(
                      tb, tl, rowType, ValueRange{old, row},
                      [mode](OpBuilder &eb, Location el, ValueRange args,
                             Type) -> Value {
                        switch (mode) {
                        case ScatterMode::add:
                          return floatOrInt<arith::AddFOp, arith::AddIOp>(
                              eb, el, args);
                        case ScatterMode::mul:
                          return floatOrInt<arith::MulFOp, arith::MulIOp>(
                              eb, el, args);
                        case ScatterMode::max:
                          return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(
                              eb, el, args);
                        default:
                          return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(
                              eb, el, args);
                        }
                      });
                }
                Value updated = tensor::InsertSliceOp::create(
                    tb, tl, row, iter[0], rowAt(id), sizes, strides);
                scf::YieldOp::create(tb, tl, ValueRange{updated});
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, ValueRange{iter[0]});
              });
          scf::YieldOp::create(nb, nl, branch.getResults());
        });
    return loop.getResult(0);
  }
};

} // namespace

void tt::populateDataMovementLoweringPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  // Transposes, reshapes, slices, concatenation, windows, iota.
  patterns.add<TransposeLowering, ReshapeLowering, SliceLowering,
               ConcatLowering, WindowsLowering, IotaLowering>(ctx);
  // Indexing by a tensor of row indices.
  patterns.add<GatherLowering, ScatterLowering>(ctx);
}
