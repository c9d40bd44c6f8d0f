//===- Passes.td - TinyTensor conversion passes ------------*- tablegen -*-===//

#ifndef TINYTENSOR_CONVERSION_PASSES_TD
#define TINYTENSOR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTTToLinalg : Pass<"tt-to-linalg", "ModuleOp"> {
  let summary = "Convert tt ops to linalg on tensors";
  let description = [{
    Converts every `tt` op to `linalg`, `tensor`, `arith` and `math` ops on
    tensors:

    * elementwise ops become `linalg.generic` ops whose indexing maps encode
      NumPy broadcasting (a size-1 operand dimension reads index 0, missing
      leading dimensions are dropped) with `arith`/`math` bodies;
    * `tt.matmul` becomes `linalg.matmul`, `linalg.batch_matmul`,
      `linalg.matvec`, `linalg.vecmat`, `linalg.dot` or, for broadcast batch
      dimensions, a `linalg.generic`, accumulating into a zero fill;
    * reductions become `linalg.reduce` (plus `tensor.expand_shape` for
      `keepdims` and elementwise scaling for `mean`/`var`);
    * shape ops become `linalg.transpose`, `tensor.extract_slice`,
      `tensor.insert_slice` chains, `tensor.collapse_shape` /
      `tensor.expand_shape` and gathering `linalg.generic` ops.

    Types must be ranked (run `--tt-infer-shapes` first for unranked
    values). Dimensions may be dynamic (`?`) where the op takes them: the
    sizes of the results' dynamic dimensions come from `tensor.dim` of the
    operands, and where two operands' sizes must agree at run time (the
    dimensions of a broadcast, the contraction of a matmul) and one of them
    is dynamic, a `cf.assert` checks it. A reshape with dynamic dimensions
    that is not one `collapse_shape` or `expand_shape` is refused. Any `tt` op left unconverted makes the pass
    fail with a diagnostic naming it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
  ];
}

#endif // TINYTENSOR_CONVERSION_PASSES_TD
