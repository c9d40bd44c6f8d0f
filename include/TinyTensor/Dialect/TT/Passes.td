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

def TTLegalizeTypes : Pass<"tt-legalize-types", "ModuleOp"> {
  let summary = "Rewrite float16, bfloat16 and uint8 into the types the "
                "lowering computes with";
  let description = [{
    tt takes `f16`, `bf16` and `ui8` tensors with PyTorch's CPU semantics;
    this pass makes them explicit, so that the passes after it see no
    unsigned type and no arithmetic on 16-bit floats:

    - Arithmetic on `f16`/`bf16` (elementwise ops, reductions, matmul,
      convolution, sort, ...) computes in `f32`: the operands are cast to
      `f32` and each result is rounded back, once per op, as PyTorch's CPU
      kernels do (sums and products accumulate in `f32`). Ops that only
      move elements (reshape, transpose, slice, concat, gather, select, a
      scatter that sets) keep the 16-bit type: the tensors are stored in
      it.
    - `ui8` is stored as `i8`. Ops whose result bits do not depend on the
      sign (add, sub, mul, neg, sum, prod, cumsum, matmul, convolution,
      bitwise and/or/xor, and the moves) just take the signless type; every other op
      (comparison, division, max/min, their reductions, argmax/argmin,
      sort, pow, abs, shifts, a scatter that combines by max/min) computes
      on operands zero-extended to `i32` and truncates its result back.
    - A cast between a 16-bit float and anything other than `f32` goes
      through `f32`; a cast from `ui8` zero-extends, and a float cast to
      `ui8` converts to `i32` first (and keeps the low 8 bits).

    Function signatures follow (`ui8` arguments and results become `i8`).
    The pass runs first in every named pipeline.

    Example: `tiny-opt --tt-legalize-types`.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TTOutlineRepeatedScopes : Pass<"tt-outline-repeated-scopes",
                                   "ModuleOp"> {
  let summary = "Compile the ops of repeated calls of one source function "
                "once, as a function that each call site calls";
  let description = [{
    A tracer marks each op with the source-level calls it was traced in: a
    `tt.scope` attribute (`array<i64>`, outermost call first) whose ids
    index the enclosing function's `tt.scope_names` (an array of strings,
    the called functions' names). TinyTensor's NumPy tracer does this for
    every Python function the traced code calls; its PyTorch front end for
    every call of a module that calls other modules (the graph's
    `nn_module_stack`, named by the module's class: a ResNet's
    `BasicBlock`, a transformer's layer; leaf modules such as a batch norm
    are not scopes, they would only cut fusion).

    The ops of one call form a range in the function body; constants are
    in no range (a pass before this one may have hoisted and merged them).
    Ranges of calls of the same name that are structurally identical (the
    same ops, with the same attributes and types, consuming values from
    outside the range in the same order, and producing the values used
    after it from the same ops) are outlined: the first becomes a private
    function taking the outside values as arguments and returning the
    used values, and every range is replaced by a `func.call` of it.
    Constants that are the same in every call are copied into the
    function instead of being arguments; calls of one name with the very
    same ops (a module that only calls another of its class) are one
    range. The largest ranges are
    outlined first (ranges are compared within groups of one name and
    size, so a larger call of a name that has no equivalent, such as a
    `lambda` around the whole program, does not put the small `lambda`s it
    contains ahead of the blocks around them); ranges inside an outlined
    one are left in it, and
    ranges of fewer than `min-ops` ops stay inline (a call is a fusion
    boundary). The twelve transformer blocks of GPT-2 then compile once.
    Finally the `tt.scope` and `tt.scope_names` attributes are removed.
  }];
  let options = [
    Option<"minOps", "min-ops", "unsigned", /*default=*/"8",
           "Outline only ranges of at least this many ops">,
    Option<"maxOutputs", "max-outputs", "unsigned", /*default=*/"4",
           "Outline only ranges whose values used after them are at most "
           "this many (each is a buffer of the call, copied where a "
           "program's result is made of it: a training graph's block "
           "returns every activation it saves for the backward pass)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TTSinkRowSelections : Pass<"tt-sink-row-selections"> {
  let summary = "Compute only the rows of a value that its uses select";
  let description = [{
    A selection of rows is a `tt.slice` that takes part of dimension 0 and
    all of the others, or a `tt.gather` by a 1-D index tensor (NumPy's
    `x[3:5]`, `x[-1]`, `x[i]` with an array `i`). When every use of a
    value selects the same rows of it (the same slice, or a gather by the
    same indices), and the op that computes the value computes each row
    from the same rows of its operands, the selection moves above the op:
    its operands are selected instead, and it computes the selected rows
    only. Such ops are elementwise ops (an operand that broadcasts over
    the rows, of lower rank or with one row, is used as it is),
    reductions that keep dimension 0, `matmul` of a matrix (its left
    operand's rows), slices of columns, and concatenations along another
    dimension. Repeated, the selection climbs as far as the values have no
    other uses: `logits[-1]` of a language model's `layer_norm(x) @ w.T`
    computes one row of the layer norm and of the product.

    A gather that selects at least as many rows as there are is left in
    place; of a dynamic number of rows, a gather of one row moves (one is
    never more than there are) and a gather of more stays. A slice moves
    only through static shapes.

    Example: `tiny-opt --tt-sink-row-selections`.
  }];
}

def TTChannelsLast : Pass<"tt-channels-last"> {
  let summary = "Compute convolutions channels last and keep the values "
                "between them channels last";
  let description = [{
    PyTorch's convolutions take and give channels first (`[N, C, H, W]`);
    the CPU computes them best channels last (`[N, H, W, C]`): a 1 x 1
    convolution is then one product `[N * H * W, C] @ [F, C].T` whose
    result is already the output, a dense one a product over patch rows
    that copy runs of channels, a depthwise one vectors of channels, and
    none needs a transpose of its own.

    Each `tt.conv` of one group, depthwise (one input and one output
    channel per group), or of several groups with several input channels
    each (`grouped`), becomes `tt.transpose` to channels last, `tt.conv
    {channels_last}` and `tt.transpose` back. The transposes then move
    down through the ops between convolutions until they meet the next
    convolution's transpose and cancel:

    - elementwise ops whose other operands are transposes by the same
      permutation, splat constants, per-channel vectors (`[1, C, 1, 1]`
      becomes `[1, 1, 1, C]`, a reshape) or small;
    - reductions (`sum`, `mean`, `reduce_max`, `reduce_min`, `prod`): the
      axes are renamed (global average pooling);
    - reshapes that merge dimensions consecutive in both orders, or only
      split them; concatenations with splat constants (a pooling's
      padding); `tt.windows` over axes consecutive in both orders (max
      pooling).

    A transpose that moves only dimensions of size 1 becomes a reshape.
    The ops the pass makes take the `tt.scope` of the op they replace, so
    that tt-outline-repeated-scopes, which runs after this pass, finds the
    calls of a network's repeated blocks whole and alike (channels last
    inside and between them); a module without convolutions is left as it
    is.
    What remains is one transpose at each place where a channels-last
    value meets an op that needs the other order (usually the function's
    input and the classifier's flatten, which is a reshape by then).

    Example: `tiny-opt --tt-channels-last`; `tt-optimize{channels-last=false}`
    turns it off.
  }];
  let options = [
    Option<"grouped", "grouped", "bool", /*default=*/"true",
           "Also convolutions of several groups with several input "
           "channels each (ResNeXt, RegNet); off, they stay channels first "
           "between two transposes">
  ];
}

def TTGeneralizeShapes : Pass<"tt-generalize-shapes", "ModuleOp"> {
  let summary = "Make chosen argument dimensions dynamic and infer the "
                "types that follow";
  let description = [{
    Turns a function traced or written for one shape into one for every
    size of the chosen argument dimensions (a batch size, a sequence
    length): each `arg:dim` of `dims` becomes dynamic (`?`) in the
    signature of `function`, and every `tt` op's result types are inferred
    again, in order, from its operands; the function's result types follow
    what it returns.

    A reshape reached by a dynamic dimension gets a -1 (the inferred
    size) where that dimension goes: into the output dimension its group
    of the traced reshape collapses into, or the one it is (a flatten of
    `[2, 3, 4]` to `[2, 12]` becomes `[-1, 12]`).

    The pass refuses, with an error at the op, what would compile the
    traced size in: an op whose shape rules combine a dynamic dimension
    with a static size other than 1 (`tensor<?x8xf32>` plus a
    `tensor<2x8xf32>` made for a batch of 2, or a matmul contracting a
    dynamic dimension with a static one), a reshape that splits a dynamic
    dimension or sends dynamic dimensions to two places, a slice that
    takes part of a dynamic dimension (one that takes all of it gets the
    size -1), and an op that takes only static shapes (broadcast_to,
    windows, cumsum, sort; concat along a dynamic dimension) reached by a
    dynamic dimension. Ops other than `tt` ops
    and `func.return` are refused too.

    Example: `tiny-opt --tt-generalize-shapes="function=forward dims=0:0"`
    makes dimension 0 of argument 0 of `@forward` dynamic.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The function whose signature is generalized">,
    ListOption<"dims", "dims", "std::string",
               "Argument dimensions to make dynamic, each `arg:dim`">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // TINYTENSOR_DIALECT_TT_PASSES_TD
