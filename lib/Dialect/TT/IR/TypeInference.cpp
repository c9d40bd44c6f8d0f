//===- TypeInference.cpp - Shape rules of the tt dialect ------------------===//
//
// Every shape rule of the dialect lives here, so that ops, passes and the C
// API agree. Diagnostics name the operand, the dimension and the sizes.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/TypeInference.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tt;

namespace {
/// Streams a diagnostic to `loc` when it is set and to nowhere otherwise;
/// converts to a failure of any result type.
class OptionalError {
public:
  explicit OptionalError(std::optional<Location> loc) {
    if (loc)
      diag.emplace(emitError(*loc));
  }
  template <typename T> OptionalError &operator<<(T &&value) {
    if (diag)
      *diag << std::forward<T>(value);
    return *this;
  }
  operator LogicalResult() const { return failure(); }
  template <typename T> operator FailureOr<T>() const { return failure(); }

private:
  std::optional<InFlightDiagnostic> diag;
};

/// A dimension's size for a message: the number, or `?`.
std::string dimText(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}
} // namespace

/// Refuses dynamic dimensions in `type` for an op whose shape rules need
/// static sizes (`what` names the operand).
static LogicalResult requireStatic(std::optional<Location> loc, Type type,
                                   StringRef what) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || ranked.hasStaticShape())
    return success();
  return OptionalError(loc) << what << " has dynamic dimensions (" << type
                            << "); this op takes only static shapes";
}

/// Checks that a reshape/broadcast target shape has no negative size.
static LogicalResult verifyTargetShape(std::optional<Location> loc,
                                       ArrayRef<int64_t> shape) {
  for (auto [d, size] : llvm::enumerate(shape))
    if (size < 0)
      return OptionalError(loc)
             << "target shape " << formatShape(shape) << " has negative size "
             << size << " at dimension " << d;
  return success();
}

TensorType mlir::tt::makeTensorType(std::optional<Shape> shape,
                                    Type elementType) {
  if (!shape)
    return UnrankedTensorType::get(elementType);
  return RankedTensorType::get(*shape, elementType);
}

bool mlir::tt::areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs)) {
    auto lt = dyn_cast<TensorType>(l), rt = dyn_cast<TensorType>(r);
    if (!lt || !rt || lt.getElementType() != rt.getElementType())
      return false;
    if (!lt.hasRank() || !rt.hasRank())
      continue;
    if (lt.getRank() != rt.getRank())
      return false;
    // A dynamic dimension is compatible with every size.
    for (auto [a, b] : llvm::zip(lt.getShape(), rt.getShape()))
      if (a != b && !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b))
        return false;
  }
  return true;
}

FailureOr<std::optional<Shape>>
mlir::tt::inferBroadcastShape(std::optional<Location> loc, TypeRange operands) {
  for (Type t : operands)
    if (!cast<TensorType>(t).hasRank())
      return std::optional<Shape>();

  int64_t rank = 0;
  for (Type t : operands)
    rank = std::max(rank, cast<RankedTensorType>(t).getRank());
  Shape result(rank, 1);
  // Which operand fixed result[i] (for the diagnostic).
  SmallVector<int64_t> owner(rank, -1);
  for (auto [idx, t] : llvm::enumerate(operands)) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(t).getShape();
    int64_t offset = rank - static_cast<int64_t>(shape.size());
    for (auto [d, size] : llvm::enumerate(shape)) {
      int64_t &out = result[offset + d];
      if (size == out || size == 1)
        continue;
      // A dynamic dimension takes the other operand's size: it must be
      // that size at run time (a dynamic size is never broadcast).
      if (ShapedType::isDynamic(size) && out != 1)
        continue;
      if (out == 1 || ShapedType::isDynamic(out)) {
        out = size;
        owner[offset + d] = idx;
        continue;
      }
      int64_t other = owner[offset + d];
      auto otherShape = cast<RankedTensorType>(operands[other]).getShape();
      int64_t otherDim =
          offset + d - (rank - static_cast<int64_t>(otherShape.size()));
      return OptionalError(loc)
             << "operands are not broadcast-compatible: operand #" << idx
             << " dimension " << d << " is " << size << ", expected " << out
             << " or 1 to broadcast against dimension " << otherDim
             << " of operand #" << other << " (shapes "
             << formatShape(otherShape) << " and " << formatShape(shape) << ")";
    }
  }
  return std::optional<Shape>(result);
}

FailureOr<Type> mlir::tt::inferElementwiseType(std::optional<Location> loc,
                                               TypeRange operands,
                                               Type elementType) {
  Type common = cast<TensorType>(operands.front()).getElementType();
  for (auto [idx, t] : llvm::enumerate(operands)) {
    Type et = cast<TensorType>(t).getElementType();
    if (et != common)
      return OptionalError(loc)
             << "element type mismatch: operand #" << idx << " has element "
             << "type " << et << " but operand #0 has " << common
             << "; insert a tt.cast to make them agree";
  }
  FailureOr<std::optional<Shape>> shape = inferBroadcastShape(loc, operands);
  if (failed(shape))
    return failure();
  return Type(makeTensorType(*shape, elementType ? elementType : common));
}

LogicalResult mlir::tt::verifyAxes(std::optional<Location> loc,
                                   ArrayRef<int64_t> axes, int64_t rank) {
  llvm::SmallBitVector seen(rank);
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return OptionalError(loc)
             << "axis " << axis << " is out of range for a tensor of rank "
             << rank << " (expected 0 <= axis < " << rank << ")";
    if (seen.test(axis))
      return OptionalError(loc) << "axis " << axis << " is repeated";
    seen.set(axis);
  }
  return success();
}

FailureOr<Type> mlir::tt::inferReductionType(std::optional<Location> loc,
                                             Type input, ArrayRef<int64_t> axes,
                                             bool keepDims) {
  auto type = cast<TensorType>(input);
  if (!type.hasRank())
    return Type(UnrankedTensorType::get(type.getElementType()));
  if (failed(verifyAxes(loc, axes, type.getRank())))
    return failure();
  Shape shape;
  for (auto [d, size] : llvm::enumerate(type.getShape())) {
    bool reduced = llvm::is_contained(axes, static_cast<int64_t>(d));
    if (!reduced)
      shape.push_back(size);
    else if (keepDims)
      shape.push_back(1);
  }
  return Type(RankedTensorType::get(shape, type.getElementType()));
}

FailureOr<Type> mlir::tt::inferMatmulType(std::optional<Location> loc, Type lhs,
                                          Type rhs) {
  auto lt = cast<TensorType>(lhs), rt = cast<TensorType>(rhs);
  if (lt.getElementType() != rt.getElementType())
    return OptionalError(loc)
           << "element type mismatch: lhs has " << lt.getElementType()
           << " but rhs has " << rt.getElementType();
  Type et = lt.getElementType();
  if (!lt.hasRank() || !rt.hasRank())
    return Type(UnrankedTensorType::get(et));
  if (lt.getRank() == 0 || rt.getRank() == 0)
    return OptionalError(loc)
           << "matmul operands must have rank >= 1, got rank " << lt.getRank()
           << " and rank " << rt.getRank() << " (use tt.mul for scalars)";

  ArrayRef<int64_t> ls = lt.getShape(), rs = rt.getShape();
  int64_t k = ls.back();
  int64_t rk = rs.size() == 1 ? rs[0] : rs[rs.size() - 2];
  if (k != rk && !ShapedType::isDynamic(k) && !ShapedType::isDynamic(rk))
    return OptionalError(loc)
           << "matmul contraction sizes differ: lhs dimension " << ls.size() - 1
           << " is " << k << " but rhs dimension "
           << (rs.size() == 1 ? 0 : rs.size() - 2) << " is " << rk
           << " (shapes " << formatShape(ls) << " and " << formatShape(rs)
           << ")";

  // Batch dimensions broadcast.
  ArrayRef<int64_t> lb = ls.size() > 2 ? ls.drop_back(2) : ArrayRef<int64_t>();
  ArrayRef<int64_t> rb = rs.size() > 2 ? rs.drop_back(2) : ArrayRef<int64_t>();
  auto lbt = RankedTensorType::get(lb, et), rbt = RankedTensorType::get(rb, et);
  FailureOr<std::optional<Shape>> batch =
      inferBroadcastShape(std::nullopt, {lbt, rbt});
  if (failed(batch))
    return OptionalError(loc)
           << "matmul batch dimensions are not broadcast-compatible: "
           << formatShape(lb) << " vs " << formatShape(rb);

  Shape shape = **batch;
  if (ls.size() >= 2)
    shape.push_back(ls[ls.size() - 2]);
  if (rs.size() >= 2)
    shape.push_back(rs.back());
  return Type(RankedTensorType::get(shape, et));
}

FailureOr<Type> mlir::tt::inferTransposeType(std::optional<Location> loc,
                                             Type input,
                                             ArrayRef<int64_t> permutation) {
  auto type = cast<TensorType>(input);
  if (!type.hasRank())
    return Type(UnrankedTensorType::get(type.getElementType()));
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return OptionalError(loc)
           << "permutation " << formatShape(permutation) << " has "
           << permutation.size() << " entries but the input has rank " << rank;
  llvm::SmallBitVector seen(rank);
  Shape shape;
  for (int64_t p : permutation) {
    if (p < 0 || p >= rank || seen.test(p))
      return OptionalError(loc)
             << "permutation " << formatShape(permutation)
             << " is not a permutation of [0, " << rank << ")";
    seen.set(p);
    shape.push_back(type.getDimSize(p));
  }
  return Type(RankedTensorType::get(shape, type.getElementType()));
}

FailureOr<Type> mlir::tt::inferReshapeType(std::optional<Location> loc,
                                           Type input,
                                           ArrayRef<int64_t> shape) {
  auto type = cast<TensorType>(input);
  // One -1: the size that makes the element count match (NumPy's).
  int64_t inferred = -1;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (size != -1)
      continue;
    if (inferred >= 0)
      return OptionalError(loc) << "target shape " << formatShape(shape)
                                << " has more than one -1";
    inferred = d;
  }
  if (inferred >= 0) {
    Shape known(shape);
    known[inferred] = 1;
    if (failed(verifyTargetShape(loc, known)))
      return failure();
    int64_t rest = ShapedType::getNumElements(known);
    Shape result(shape);
    if (!type.hasRank() || !type.hasStaticShape()) {
      if (type.hasRank()) {
        // Each dynamic dimension must stay in the group that collapses
        // into the -1: the static sizes on either side must match.
        auto ranked = cast<RankedTensorType>(type);
        int64_t staticIn = 1;
        for (int64_t size : ranked.getShape())
          if (!ShapedType::isDynamic(size))
            staticIn *= size;
        if (rest == 0 || staticIn % rest != 0)
          return OptionalError(loc)
                 << "cannot reshape " << formatShape(ranked.getShape())
                 << " to " << formatShape(shape)
                 << ": the static sizes do not divide";
      }
      result[inferred] = ShapedType::kDynamic;
      return Type(RankedTensorType::get(result, type.getElementType()));
    }
    int64_t from = type.getNumElements();
    if (rest == 0 || from % rest != 0)
      return OptionalError(loc)
             << "cannot reshape " << formatShape(type.getShape()) << " ("
             << from << " elements) to " << formatShape(shape);
    result[inferred] = from / rest;
    return Type(RankedTensorType::get(result, type.getElementType()));
  }
  if (failed(verifyTargetShape(loc, shape)))
    return failure();
  if (auto ranked = dyn_cast<RankedTensorType>(type);
      ranked && !ranked.hasStaticShape())
    return OptionalError(loc)
           << "a reshape of " << type
           << " (dynamic dimensions) needs -1 in its target shape for "
              "the dynamic size, got "
           << formatShape(shape);
  if (type.hasRank()) {
    int64_t from = type.getNumElements();
    int64_t to = ShapedType::getNumElements(shape);
    if (from != to)
      return OptionalError(loc)
             << "cannot reshape " << formatShape(type.getShape()) << " ("
             << from << " elements) to " << formatShape(shape) << " (" << to
             << " elements)";
  }
  return Type(RankedTensorType::get(shape, type.getElementType()));
}

FailureOr<Type> mlir::tt::inferBroadcastToType(std::optional<Location> loc,
                                               Type input,
                                               ArrayRef<int64_t> shape) {
  auto type = cast<TensorType>(input);
  if (failed(verifyTargetShape(loc, shape)) ||
      failed(requireStatic(loc, input, "the broadcast tensor")))
    return failure();
  if (type.hasRank()) {
    ArrayRef<int64_t> from = type.getShape();
    if (from.size() > shape.size())
      return OptionalError(loc)
             << "cannot broadcast rank-" << from.size() << " shape "
             << formatShape(from) << " to lower rank shape "
             << formatShape(shape);
    int64_t offset = shape.size() - from.size();
    for (auto [d, size] : llvm::enumerate(from))
      if (size != 1 && size != shape[offset + d])
        return OptionalError(loc)
               << "cannot broadcast " << formatShape(from) << " to "
               << formatShape(shape) << ": input dimension " << d << " is "
               << size << ", expected " << shape[offset + d] << " or 1";
  }
  return Type(RankedTensorType::get(shape, type.getElementType()));
}

FailureOr<Type> mlir::tt::inferSliceType(std::optional<Location> loc,
                                         Type input, ArrayRef<int64_t> starts,
                                         ArrayRef<int64_t> sizes,
                                         ArrayRef<int64_t> strides) {
  auto type = cast<TensorType>(input);
  if (starts.size() != sizes.size() || sizes.size() != strides.size())
    return OptionalError(loc)
           << "starts, sizes and strides must have the same length, got "
           << starts.size() << ", " << sizes.size() << " and "
           << strides.size();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (strides[d] < 1)
      return OptionalError(loc) << "stride " << strides[d] << " of dimension "
                                << d << " must be at least 1";
    // -1: the whole dimension (start 0, stride 1), whatever its size.
    if (sizes[d] == -1 && (starts[d] != 0 || strides[d] != 1))
      return OptionalError(loc) << "size -1 (the whole dimension) of dimension "
                                << d << " needs start 0 and stride 1";
    if (sizes[d] < -1)
      return OptionalError(loc)
             << "size " << sizes[d] << " of dimension " << d << " is negative";
  }
  if (!type.hasRank())
    return Type(RankedTensorType::get(sizes, type.getElementType()));
  if (static_cast<int64_t>(starts.size()) != type.getRank())
    return OptionalError(loc)
           << "slice has " << starts.size() << " dimensions but the input "
           << "has rank " << type.getRank();
  Shape shape(sizes);
  for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
    if (sizes[d] == -1) {
      shape[d] = type.getDimSize(d);
      continue;
    }
    if (type.isDynamicDim(d))
      return OptionalError(loc)
             << "dimension " << d << " of the sliced tensor " << type
             << " is dynamic: a slice takes all of it (size -1)";
  }
  for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
    if (sizes[d] == -1)
      continue;
    int64_t dim = type.getDimSize(d);
    int64_t last = starts[d] + (sizes[d] - 1) * strides[d];
    if (starts[d] < 0 || (sizes[d] > 0 && (starts[d] >= dim || last >= dim)))
      return OptionalError(loc)
             << "slice of dimension " << d << " (start " << starts[d]
             << ", size " << sizes[d] << ", stride " << strides[d]
             << ") is out of range for size " << dim;
  }
  return Type(RankedTensorType::get(shape, type.getElementType()));
}

FailureOr<Type> mlir::tt::inferConcatType(std::optional<Location> loc,
                                          TypeRange inputs, int64_t axis) {
  if (inputs.empty())
    return OptionalError(loc) << "concat needs at least one input";
  Type et = cast<TensorType>(inputs.front()).getElementType();
  RankedTensorType first;
  for (auto [idx, t] : llvm::enumerate(inputs)) {
    auto type = cast<TensorType>(t);
    if (type.getElementType() != et)
      return OptionalError(loc)
             << "element type mismatch: input #" << idx << " has "
             << type.getElementType() << " but input #0 has " << et;
    if (auto ranked = dyn_cast<RankedTensorType>(type); ranked && !first)
      first = ranked;
  }
  if (!first || llvm::any_of(inputs, [](Type t) {
        return !cast<TensorType>(t).hasRank();
      }))
    return Type(UnrankedTensorType::get(et));
  int64_t rank = first.getRank();
  if (axis < 0 || axis >= rank)
    return OptionalError(loc)
           << "axis " << axis << " is out of range for inputs of rank " << rank;
  // Other dimensions may be dynamic (`?` against `?`, checked equal at run
  // time by the lowering); along the concatenation axis, one dynamic input
  // makes the result's size dynamic (a key/value cache that grows).
  Shape shape(first.getShape());
  shape[axis] = 0;
  for (auto [idx, t] : llvm::enumerate(inputs)) {
    auto type = cast<RankedTensorType>(t);
    if (type.getRank() != rank)
      return OptionalError(loc)
             << "rank mismatch: input #" << idx << " has rank "
             << type.getRank() << " but input #0 has rank " << rank;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      if (type.getDimSize(d) != shape[d])
        return OptionalError(loc)
               << "input #" << idx << " dimension " << d << " is "
               << dimText(type.getDimSize(d)) << " but input #0 has "
               << dimText(shape[d]) << " (only the concatenation axis "
               << axis << " may differ"
               << (type.isDynamicDim(d) || ShapedType::isDynamic(shape[d])
                       ? "; a dynamic size meets only dynamic sizes)"
                       : ")");
    }
    shape[axis] = type.isDynamicDim(axis) || ShapedType::isDynamic(shape[axis])
                      ? ShapedType::kDynamic
                      : shape[axis] + type.getDimSize(axis);
  }
  return Type(RankedTensorType::get(shape, et));
}

FailureOr<Type> mlir::tt::inferWindowsType(std::optional<Location> loc,
                                           Type input, int64_t axis,
                                           ArrayRef<int64_t> kernel,
                                           ArrayRef<int64_t> strides,
                                           ArrayRef<int64_t> dilations) {
  auto type = cast<TensorType>(input);
  size_t n = kernel.size();
  if (n == 0 || strides.size() != n || dilations.size() != n)
    return OptionalError(loc)
           << "windows: kernel, strides and dilations must have the same "
              "non-zero length, got "
           << n << ", " << strides.size() << " and " << dilations.size();
  for (size_t i = 0; i < n; ++i)
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0)
      return OptionalError(loc)
             << "windows: kernel, strides and dilations must be positive "
                "(axis "
             << axis + static_cast<int64_t>(i) << ")";
  if (!type.hasRank())
    return Type(UnrankedTensorType::get(type.getElementType()));
  if (failed(requireStatic(loc, input, "the windowed tensor")))
    return failure();
  int64_t rank = type.getRank();
  if (axis < 0 || axis + static_cast<int64_t>(n) > rank)
    return OptionalError(loc)
           << "windows: axes [" << axis << ", " << axis + (int64_t)n
           << ") are out of range for a tensor of rank " << rank;
  Shape shape(type.getShape().take_front(axis));
  for (size_t i = 0; i < n; ++i) {
    int64_t size = type.getDimSize(axis + i);
    int64_t span = dilations[i] * (kernel[i] - 1) + 1;
    if (size < span)
      return OptionalError(loc)
             << "windows: a window spans " << span << " elements but axis "
             << axis + (int64_t)i << " has " << size;
    shape.push_back((size - span) / strides[i] + 1);
  }
  llvm::append_range(shape, kernel);
  llvm::append_range(shape, type.getShape().drop_front(axis + n));
  return Type(RankedTensorType::get(shape, type.getElementType()));
}

FailureOr<Type> mlir::tt::inferConvType(std::optional<Location> loc, Type input,
                                        Type weight, ArrayRef<int64_t> strides,
                                        ArrayRef<int64_t> dilations,
                                        ArrayRef<int64_t> padLow,
                                        ArrayRef<int64_t> padHigh,
                                        int64_t groups, bool channelsLast) {
  auto in = cast<TensorType>(input);
  auto w = cast<TensorType>(weight);
  if (in.getElementType() != w.getElementType())
    return OptionalError(loc) << "conv: the input's element type "
                              << in.getElementType() << " differs from the "
                              << "weight's " << w.getElementType();
  if (groups <= 0)
    return OptionalError(loc) << "conv: groups must be positive, got "
                              << groups;
  size_t d = strides.size();
  if (d == 0 || dilations.size() != d || padLow.size() != d ||
      padHigh.size() != d)
    return OptionalError(loc)
           << "conv: strides, dilations, pad_low and pad_high must have the "
              "same non-zero length, got "
           << d << ", " << dilations.size() << ", " << padLow.size()
           << " and " << padHigh.size();
  for (size_t i = 0; i < d; ++i) {
    if (strides[i] <= 0 || dilations[i] <= 0)
      return OptionalError(loc) << "conv: strides and dilations must be "
                                   "positive (spatial axis "
                                << i << ")";
    if (padLow[i] < 0 || padHigh[i] < 0)
      return OptionalError(loc)
             << "conv: padding must not be negative (spatial axis " << i
             << ")";
  }
  for (auto [what, type] : {std::pair<StringRef, TensorType>{"input", in},
                            {"weight", w}})
    if (type.hasRank() && type.getRank() != static_cast<int64_t>(d) + 2)
      return OptionalError(loc)
             << "conv: the " << what << " " << Type(type) << " must have rank "
             << d + 2
             << (channelsLast ? " ([N, spatial..., C]" : " ([N, C, spatial...]")
             << " and [F, C / groups, kernel...]) for " << d << " spatial axes";
  if (!in.hasRank() || !w.hasRank())
    return Type(UnrankedTensorType::get(in.getElementType()));
  if (!w.hasStaticShape())
    return OptionalError(loc) << "conv: the weight " << weight
                              << " has dynamic dimensions";
  for (int64_t i = 1, e = in.getRank(); i < e; ++i)
    if (in.isDynamicDim(i))
      return OptionalError(loc)
             << "conv: the input " << input
             << " has a dynamic channel or spatial size (only the batch "
                "size may be dynamic)";
  // Where the channels and the spatial axes are.
  int64_t channelAxis = channelsLast ? d + 1 : 1;
  int64_t firstSpatial = channelsLast ? 1 : 2;
  int64_t channels = in.getDimSize(channelAxis), filters = w.getDimSize(0);
  if (channels != w.getDimSize(1) * groups || filters % groups)
    return OptionalError(loc)
           << "conv: " << channels << " input channels and weights "
           << weight << " do not fit groups = " << groups
           << " (C must be groups * weight.dim(1) and groups must divide F)";
  Shape shape = {in.getDimSize(0)};
  if (!channelsLast)
    shape.push_back(filters);
  for (size_t i = 0; i < d; ++i) {
    int64_t size = in.getDimSize(firstSpatial + i) + padLow[i] + padHigh[i];
    int64_t span = dilations[i] * (w.getDimSize(2 + i) - 1) + 1;
    if (size < span)
      return OptionalError(loc)
             << "conv: the kernel spans " << span << " elements on spatial "
             << "axis " << i << " but the padded input has " << size;
    shape.push_back((size - span) / strides[i] + 1);
  }
  if (channelsLast)
    shape.push_back(filters);
  return Type(RankedTensorType::get(shape, in.getElementType()));
}

FailureOr<Type> mlir::tt::inferIotaType(std::optional<Location> loc,
                                        Type like, int64_t dim) {
  auto type = cast<TensorType>(like);
  Type i32 = IntegerType::get(like.getContext(), 32);
  if (!type.hasRank())
    return Type(RankedTensorType::get({ShapedType::kDynamic}, i32));
  if (dim < 0 || dim >= type.getRank())
    return OptionalError(loc) << "iota: dimension " << dim
                              << " is out of range for " << like;
  return Type(RankedTensorType::get({type.getDimSize(dim)}, i32));
}

FailureOr<Type> mlir::tt::inferScatterType(std::optional<Location> loc,
                                           Type table, Type indices,
                                           Type updates, bool combining) {
  auto tt = cast<TensorType>(table), it = cast<TensorType>(indices),
       ut = cast<TensorType>(updates);
  if (ut.getElementType() != tt.getElementType())
    return OptionalError(loc)
           << "scatter: the updates' element type " << ut.getElementType()
           << " differs from the table's " << tt.getElementType();
  if (combining && tt.getElementType().isInteger(1))
    return OptionalError(loc)
           << "scatter: a combining mode takes numbers, not booleans";
  if (!tt.hasRank() || !it.hasRank() || !ut.hasRank())
    return table;
  if (tt.getRank() == 0)
    return OptionalError(loc) << "cannot scatter into a rank-0 table";
  if (it.getRank() != 1)
    return OptionalError(loc)
           << "scatter: the indices must be 1-D, got rank " << it.getRank();
  if (ut.getRank() != tt.getRank())
    return OptionalError(loc)
           << "scatter: the updates have rank " << ut.getRank()
           << " but the table has rank " << tt.getRank()
           << " (one row of updates per index)";
  auto mismatch = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  if (mismatch(ut.getDimSize(0), it.getDimSize(0)))
    return OptionalError(loc)
           << "scatter: " << dimText(it.getDimSize(0)) << " indices but "
           << dimText(ut.getDimSize(0)) << " rows of updates";
  for (int64_t d = 1; d < tt.getRank(); ++d)
    if (mismatch(ut.getDimSize(d), tt.getDimSize(d)))
      return OptionalError(loc)
             << "scatter: dimension " << d << " of the updates is "
             << dimText(ut.getDimSize(d)) << " but the table's is "
             << dimText(tt.getDimSize(d));
  return table;
}

FailureOr<Type> mlir::tt::inferGatherType(std::optional<Location> loc,
                                          Type table, Type indices) {
  auto tt = cast<TensorType>(table), it = cast<TensorType>(indices);
  if (!tt.hasRank() || !it.hasRank())
    return Type(UnrankedTensorType::get(tt.getElementType()));
  if (tt.getRank() == 0)
    return OptionalError(loc) << "cannot gather from a rank-0 table";
  Shape shape(it.getShape());
  llvm::append_range(shape, tt.getShape().drop_front());
  return Type(RankedTensorType::get(shape, tt.getElementType()));
}
