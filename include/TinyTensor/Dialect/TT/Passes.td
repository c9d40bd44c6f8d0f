//===- Passes.td - tt dialect passes -----------------------*- tablegen -*-===//

#ifndef TINYTENSOR_DIALECT_TT_PASSES_TD
#define TINYTENSOR_DIALECT_TT_PASSES_TD

include "mlir/Pass/PassBase.td"

def TTInferShapes : Pass<"tt-infer-shapes", "ModuleOp"> {
  let summary = "Refine unranked tt result types from their operands";
  let description = [{
    Walks each function in order and gives every `tt` op whose result is
    unranked the type its shape rules infer from its (already refined)
    operands. `tensor.cast` ops that erase a shape, as left behind when a
    generic function is inlined into a caller with concrete types, are looked
    through. A function without callers gets the refined result types in
    its signature; a function that is called keeps its signature (a
    `tensor.cast` back to it is inserted before `return`). Other non-tt users
    of a refined value also get a `tensor.cast` back to the type they expect.
    An op whose type cannot be inferred is reported as an error.

    Example: `tiny-opt --inline --tt-infer-shapes input.mlir`.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

#endif // TINYTENSOR_DIALECT_TT_PASSES_TD
