//===- TTOps.cpp - TinyTensor operations ----------------------------------===//
//
// Result type inference and verifiers. The shape rules themselves are in
// TypeInference.cpp; this file only routes each op to its rule.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tt;

#include "TinyTensor/Dialect/TT/TTEnums.cpp.inc"

LogicalResult mlir::tt::pushInferred(FailureOr<Type> type,
                                     SmallVectorImpl<Type> &results) {
  if (failed(type))
    return failure();
  results.push_back(*type);
  return success();
}

LogicalResult mlir::tt::inferElementwiseResults(std::optional<Location> loc,
                                                TypeRange operands,
                                                SmallVectorImpl<Type> &results,
                                                Type elementType) {
  return pushInferred(inferElementwiseType(loc, operands, elementType),
                      results);
}

LogicalResult mlir::tt::inferReductionResults(std::optional<Location> loc,
                                              Type input,
                                              ArrayRef<int64_t> axes,
                                              bool keepDims,
                                              SmallVectorImpl<Type> &results) {
  return pushInferred(inferReductionType(loc, input, axes, keepDims), results);
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  results.push_back(adaptor.getValue().getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("value must be a statically shaped tensor, got ")
           << getValue().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

LogicalResult CmpOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  return inferElementwiseResults(
      loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()}, results,
      IntegerType::get(context, 1));
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto onTrue = cast<TensorType>(adaptor.getTrueValue().getType());
  auto onFalse = cast<TensorType>(adaptor.getFalseValue().getType());
  if (onTrue.getElementType() != onFalse.getElementType()) {
    if (loc)
      mlir::emitError(*loc)
          << "element type mismatch: operand #2 has element type "
          << onFalse.getElementType() << " but operand #1 has "
          << onTrue.getElementType() << "; insert a tt.cast to make them agree";
    return failure();
  }
  // The condition takes part in broadcasting with the value element type so
  // that operand numbers in diagnostics match the op's operands.
  Type et = onTrue.getElementType();
  auto condition = cast<TensorType>(adaptor.getCondition().getType());
  return inferElementwiseResults(loc, {condition.clone(et), onTrue, onFalse},
                                 results);
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  results.push_back(
      cast<TensorType>(adaptor.getInput().getType()).clone(adaptor.getTo()));
  return success();
}

LogicalResult BitcastOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  results.push_back(
      cast<TensorType>(adaptor.getInput().getType()).clone(adaptor.getTo()));
  return success();
}

LogicalResult BitcastOp::verify() {
  Type from = getInput().getType().getElementType();
  if (from.getIntOrFloatBitWidth() != getTo().getIntOrFloatBitWidth() ||
      from.isInteger(1) || getTo().isInteger(1))
    return emitOpError("reinterprets ")
           << from << " as " << getTo()
           << ": the element types must have the same width (not i1)";
  return success();
}

//===----------------------------------------------------------------------===//
// Matmul and shape ops
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return pushInferred(inferMatmulType(loc, adaptor.getLhs().getType(),
                                      adaptor.getRhs().getType()),
                      results);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return pushInferred(inferTransposeType(loc, adaptor.getInput().getType(),
                                         adaptor.getPermutation()),
                      results);
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return pushInferred(
      inferReshapeType(loc, adaptor.getInput().getType(), adaptor.getShape()),
      results);
}

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  return pushInferred(inferBroadcastToType(loc, adaptor.getInput().getType(),
                                           adaptor.getShape()),
                      results);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  return pushInferred(inferSliceType(loc, adaptor.getInput().getType(),
                                     adaptor.getStarts(), adaptor.getSizes(),
                                     adaptor.getStrides()),
                      results);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return pushInferred(
      inferConcatType(loc, adaptor.getInputs().getTypes(), adaptor.getAxis()),
      results);
}

LogicalResult WindowsOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return pushInferred(inferWindowsType(loc, adaptor.getInput().getType(),
                                       static_cast<int64_t>(adaptor.getAxis()),
                                       adaptor.getKernel(),
                                       adaptor.getStrides(),
                                       adaptor.getDilations()),
                      results);
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  return pushInferred(
      inferConvType(
          loc, adaptor.getInput().getType(), adaptor.getWeight().getType(),
          adaptor.getStrides(), adaptor.getDilations(), adaptor.getPadLow(),
          adaptor.getPadHigh(), static_cast<int64_t>(adaptor.getGroups()),
          adaptor.getChannelsLast()),
      results);
}

LogicalResult IotaOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  return pushInferred(
      inferIotaType(loc, adaptor.getLike().getType(),
                    static_cast<int64_t>(adaptor.getDim())),
      results);
}

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return pushInferred(inferScatterType(loc, adaptor.getTable().getType(),
                                       adaptor.getIndices().getType(),
                                       adaptor.getUpdates().getType(),
                                       adaptor.getMode() != ScatterMode::set),
                      results);
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return pushInferred(inferGatherType(loc, adaptor.getTable().getType(),
                                      adaptor.getIndices().getType()),
                      results);
}

/// argmax/argmin: the reduction's shape with i32 elements.
static LogicalResult inferIndexReduction(std::optional<Location> loc,
                                         Type input, int64_t axis,
                                         bool keepDims,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<Type> reduced = inferReductionType(loc, input, {axis}, keepDims);
  if (failed(reduced))
    return failure();
  Type i32 = IntegerType::get(input.getContext(), 32);
  results.push_back(cast<TensorType>(*reduced).clone(i32));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferIndexReduction(loc, adaptor.getInput().getType(),
                             adaptor.getAxis(), adaptor.getKeepdims(), results);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferIndexReduction(loc, adaptor.getInput().getType(),
                             adaptor.getAxis(), adaptor.getKeepdims(), results);
}

/// Ops along one axis that keep the input's shape (cumsum, sort): the
/// reduction rule checks the axis against the rank.
static LogicalResult checkAxis(std::optional<Location> loc, Type input,
                               int64_t axis) {
  return success(
      succeeded(inferReductionType(loc, input, {axis}, /*keepDims=*/true)));
}

LogicalResult CumsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  Type input = adaptor.getInput().getType();
  if (failed(checkAxis(loc, input, static_cast<int64_t>(adaptor.getAxis()))))
    return failure();
  results.push_back(input);
  return success();
}

/// sort: the values keep the input's type; the indices are i32.
LogicalResult SortOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  Type input = adaptor.getInput().getType();
  if (failed(checkAxis(loc, input, static_cast<int64_t>(adaptor.getAxis()))))
    return failure();
  results.push_back(input);
  results.push_back(
      cast<TensorType>(input).clone(IntegerType::get(input.getContext(), 32)));
  return success();
}

#define GET_OP_CLASSES
#include "TinyTensor/Dialect/TT/TTOps.cpp.inc"
