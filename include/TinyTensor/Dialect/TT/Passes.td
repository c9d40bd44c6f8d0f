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

def TTEmitCInterface : Pass<"tt-emit-c-interface", "ModuleOp"> {
  let summary = "Mark public functions for C-interface wrappers";
  let description = [{
    Adds `llvm.emit_c_interface` to every public `func.func` with a body, so
    that `--convert-func-to-llvm` emits `_mlir_ciface_<name>` wrappers that
    take memref descriptors by pointer (what the ExecutionEngine and
    TinyTensor's runtime call).
  }];
}

def TTInterchangeContractions : Pass<"tt-interchange-contractions",
                                     "func::FuncOp"> {
  let summary = "Choose a vectorisable loop order for matmul-like ops";
  let description = [{
    Rewrites `linalg.matmul`, `linalg.batch_matmul` and matmul-shaped
    `linalg.generic` ops (iteration space `(batch..., m, n, k)`) into generic
    form with a loop order whose innermost loop is contiguous, which LLVM
    vectorises for the host CPU once lowered to loops:

    * `B[..., k, n]`: order `(batch..., k, m, n)` when the result slice
      `C[m, n]` fits in cache (each row of B is streamed once), otherwise
      `(batch..., m, k, n)`;
    * `B[..., n, k]` (a transposed right operand, e.g. `x @ w.T`): order
      `(batch..., n, m, k)`, dot products over contiguous rows, with the body
      marked `fastmath<reassoc, contract>` so that LLVM vectorises the sum.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def TTApproximateMath : Pass<"tt-approximate-math"> {
  let summary = "Replace f32 math functions by vectorisable polynomials";
  let description = [{
    Rewrites f32 `math.tanh`, `math.exp`, `math.log`, `math.erf` (and the
    functions they are built from) into polynomial approximations made of
    `arith` ops and `math.fma`/`absf`/`floor` (LLVM intrinsics, not calls),
    which LLVM vectorises, instead of scalar libm calls. The
    approximations are MLIR's upstream ones (errors of a few ulps). f64 ops
    keep calling libm.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TTUntieEmptyTensors : Pass<"tt-untie-empty-tensors"> {
  let summary = "Give every use of a tensor.empty its own op";
  let description = [{
    CSE merges identical `tensor.empty` ops, so one value ends up as the
    `outs` operand of many linalg ops. One-shot bufferization then sees all of
    their results in one alias set, which makes its analysis quadratic in the
    program size and can force copies. This pass clones a shared
    `tensor.empty` next to each of its users; run it right before
    bufferization.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def TTOutlineLoops : Pass<"tt-outline-loops", "ModuleOp"> {
  let summary = "Move each top-level loop nest into its own function";
  let description = [{
    Outlines every top-level `scf.for` nest without results (the loops that
    `convert-linalg-to-loops` produces on buffers) into a private function
    marked `noinline`, called from where the loop was. Constants the loop
    uses are cloned into the new function, so bounds stay static for LLVM.
    LLVM's function passes are superlinear in function size; small functions
    keep JIT compile time linear in the size of the program.
  }];
  let options = [
    Option<"minOps", "min-ops", "unsigned", /*default=*/"8",
           "Only outline loop nests with at least this many operations">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def TTCopyRepeatedResults : Pass<"tt-copy-repeated-results", "func::FuncOp"> {
  let summary = "Return a copy when a function returns one tensor twice";
  let description = [{
    When a `func.return` lists the same tensor value more than once (as CSE
    makes of `return f(x), f(x)`), every repetition after the first is
    replaced by a `linalg.copy` into a new tensor, so that after
    bufferization each result has its own buffer (required when results
    become caller-allocated output arguments).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TTFuseCastsIntoContractions : Pass<"tt-fuse-casts-into-contractions",
                                       "func::FuncOp"> {
  let summary = "Convert matmul operands inside the matmul loop";
  let description = [{
    A matmul of mixed precision (NumPy promotes `f64 @ f32` to f64) reads an
    operand through an elementwise `linalg.generic` that only converts its
    element type. Materialising that conversion writes a full copy of the
    operand (for weights, every call). This pass fuses such single-use
    conversions into the contraction (generalising named matmuls), so each
    element is converted as it is read. Other elementwise producers are left
    alone: fusing them into a contraction would recompute them for every
    output column.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // TINYTENSOR_DIALECT_TT_PASSES_TD
