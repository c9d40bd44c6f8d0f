//===- TTDialect.td - TinyTensor dialect definition --------*- tablegen -*-===//
//
// The `tt` dialect: value-semantics tensor operations that a traced NumPy or
// PyTorch program needs.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_DIALECT_TT_TTDIALECT_TD
#define TINYTENSOR_DIALECT_TT_TTDIALECT_TD

include "mlir/IR/OpBase.td"

def TT_Dialect : Dialect {
  let name = "tt";
  let summary = "TinyTensor: NumPy-style tensor operations";
  let description = [{
    The `tt` dialect models the tensor programs that TinyTensor's front ends
    trace from NumPy and PyTorch code. Every operation works on value-semantic
    `tensor` types with element type `f32`, `f64`, `i32` or `i64` (integers
    and indices) or `i1` (comparison results), follows NumPy's broadcasting rules
    and infers its result type through `InferTypeOpInterface`. Operands may be
    unranked (`tensor<*xf32>`) until `--tt-infer-shapes` has refined them.

    The dialect is lowered to `linalg` on tensors by `--tt-to-linalg`.
  }];
  let cppNamespace = "::mlir::tt";
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 0;
}

#endif // TINYTENSOR_DIALECT_TT_TTDIALECT_TD
