//===- TTDialect.cpp - TinyTensor dialect ---------------------------------===//

#include "TinyTensor/Dialect/TT/TTDialect.h"
#include "TinyTensor/Dialect/TT/TTOps.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::tt;

#include "TinyTensor/Dialect/TT/TTOpsDialect.cpp.inc"

namespace {
/// All tt ops are pure value computations, so they may be inlined anywhere.
struct TTInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TinyTensor/Dialect/TT/TTOps.cpp.inc"
      >();
  addInterfaces<TTInlinerInterface>();
}

Operation *TTDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
