//===- TTOps.td - TinyTensor operations --------------------*- tablegen -*-===//
//
// Operation definitions of the `tt` dialect. Every op infers its result type
// from its operands and attributes through InferTypeOpInterface; the shape
// rules (broadcasting, reductions, matmul, ...) live in TypeInference.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_DIALECT_TT_TTOPS_TD
#define TINYTENSOR_DIALECT_TT_TTOPS_TD

include "TinyTensor/Dialect/TT/TTDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// A ranked tensor, whose dimensions may be dynamic (`?`, a size known only
/// at run time), or an unranked tensor whose shape has not been inferred
/// yet. Elementwise ops, reductions, matmul, transpose, argmax/argmin and
/// gather indices take dynamic dimensions; the ops whose attributes spell
/// out sizes (reshape, broadcast_to, slice, concat, windows) and cumsum and
/// sort take the static kind below.
class TT_TensorOf<list<Type> allowed> : TensorOf<allowed>;

/// A tensor with a static shape, or an unranked tensor whose shape has not
/// been inferred yet.
class TT_StaticTensorOf<list<Type> allowed> : TensorOf<allowed,
    [Or<[IsUnrankedTensorTypePred, HasStaticShapePred]>],
    "statically shaped or unranked tensor">;

/// Element types. float16, bfloat16 and uint8 are first-class in tt, with
/// PyTorch's CPU semantics (f16/bf16 compute in f32 and round per op; ui8
/// is unsigned); `--tt-legalize-types` rewrites them into f32/i32 compute
/// and signless storage before the lowering, so later passes see no
/// unsigned type and no 16-bit float arithmetic.
defvar TT_FloatTypes = [F16, BF16, F32, F64];
defvar TT_IntTypes = [I8, I16, I32, I64, UI8];
defvar TT_NumericTypes = !listconcat(TT_FloatTypes, TT_IntTypes);
defvar TT_AnyTypes = !listconcat(TT_NumericTypes, [I1]);

def TT_AnyTensor : TT_TensorOf<TT_AnyTypes>;
def TT_NumericTensor : TT_TensorOf<TT_NumericTypes>;
def TT_FloatTensor : TT_TensorOf<TT_FloatTypes>;
def TT_IntegerTensor : TT_TensorOf<!listconcat(TT_IntTypes, [I1])>;
def TT_IndexTensor : TT_TensorOf<[I32, I64]>;
def TT_BoolTensor : TT_TensorOf<[I1]>;
def TT_StaticAnyTensor : TT_StaticTensorOf<TT_AnyTypes>;
def TT_StaticNumericTensor : TT_StaticTensorOf<TT_NumericTypes>;
def TT_StaticIndexTensor : TT_StaticTensorOf<[I32, I64]>;
def TT_ElementType : AnyTypeOf<TT_AnyTypes>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

/// Every tt op is pure and infers its result type. Inferred and declared
/// result types are compatible when their element types match and their
/// shapes agree where both are known (unranked types match any shape).
class TT_Op<string mnemonic, list<Trait> traits = []>
    : Op<TT_Dialect, mnemonic,
         !listconcat([Pure, InferTypeOpAdaptorWithIsCompatible], traits)> {
  code compatibleReturnTypesDef = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l,
                                            ::mlir::TypeRange r) {
      return ::mlir::tt::areCompatibleTensorTypes(l, r);
    }
  }];
  /// Families of ops append the shared definition of their inferReturnTypes.
  code familyDef = "";
  let extraClassDefinition = !strconcat(compatibleReturnTypesDef, familyDef);
}

class TT_BinaryOp<string mnemonic, list<Trait> traits = []>
    : TT_Op<mnemonic, traits> {
  let arguments = (ins TT_NumericTensor:$lhs, TT_NumericTensor:$rhs);
  let results = (outs TT_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let familyDef = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::tt::inferElementwiseResults(
          loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          results);
    }
  }];
}

/// A binary elementwise op of other operand types than TT_BinaryOp's.
class TT_TypedBinaryOp<string mnemonic, Type operandType,
                       list<Trait> traits = []> : TT_Op<mnemonic, traits> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let familyDef = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::tt::inferElementwiseResults(
          loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          results);
    }
  }];
}

class TT_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : TT_Op<mnemonic, traits> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
  let familyDef = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location>,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      results.push_back(adaptor.getInput().getType());
      return ::mlir::success();
    }
  }];
}

class TT_ReductionOp<string mnemonic, list<Trait> traits = []>
    : TT_Op<mnemonic, traits> {
  let results = (outs TT_NumericTensor:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes (`keepdims` $keepdims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let familyDef = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::tt::inferReductionResults(
          loc, adaptor.getInput().getType(), adaptor.getAxes(),
          adaptor.getKeepdims(), results);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

def TT_ConstantOp : TT_Op<"constant", [ConstantLike]> {
  let summary = "tensor constant";
  let description = [{
    Produces a tensor constant from a dense elements attribute. The result
    type is the type of the attribute.

    ```mlir
    %0 = tt.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = tt.constant dense<0> : tensor<4x4xi32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

def TT_AddOp : TT_BinaryOp<"add", [Commutative]> {
  let summary = "elementwise addition with broadcasting";
  let description = [{
    Adds two tensors of the same element type elementwise. Shapes broadcast
    as in NumPy: dimensions are aligned from the right and a dimension of
    size 1 stretches to the other operand's size.

    ```mlir
    %0 = tt.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def TT_SubOp : TT_BinaryOp<"sub"> {
  let summary = "elementwise subtraction with broadcasting";
  let description = [{
    Computes `lhs - rhs` elementwise with NumPy broadcasting.

    ```mlir
    %0 = tt.sub %a, %b : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    ```
  }];
}

def TT_MulOp : TT_BinaryOp<"mul", [Commutative]> {
  let summary = "elementwise multiplication with broadcasting";
  let description = [{
    Multiplies two tensors elementwise with NumPy broadcasting.

    ```mlir
    %0 = tt.mul %a, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def TT_DivOp : TT_BinaryOp<"div"> {
  let summary = "elementwise division with broadcasting";
  let description = [{
    Computes `lhs / rhs` elementwise with NumPy broadcasting. For integer
    operands this is C-style truncating division; front ends implementing
    NumPy's true division cast to a float type first.

    ```mlir
    %0 = tt.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
}

def TT_PowOp : TT_BinaryOp<"pow"> {
  let summary = "elementwise power with broadcasting";
  let description = [{
    Raises `lhs` to the power `rhs` elementwise with NumPy broadcasting.
    `pow(x, 2)` and `pow(x, 3)` with a splat constant exponent canonicalise
    to multiplications.

    ```mlir
    %0 = tt.pow %x, %e : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let hasCanonicalizer = 1;
}

def TT_MaxOp : TT_BinaryOp<"max", [Commutative]> {
  let summary = "elementwise maximum with broadcasting";
  let description = [{
    Elementwise maximum as `np.maximum`: NaN in either operand gives NaN.

    ```mlir
    %0 = tt.max %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
}

def TT_MinOp : TT_BinaryOp<"min", [Commutative]> {
  let summary = "elementwise minimum with broadcasting";
  let description = [{
    Elementwise minimum as `np.minimum`: NaN in either operand gives NaN.

    ```mlir
    %0 = tt.min %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
}

def TT_BitwiseAndOp
    : TT_TypedBinaryOp<"bitwise_and", TT_IntegerTensor, [Commutative]> {
  let summary = "elementwise bitwise and of integers or booleans";
  let description = [{
    `np.bitwise_and` / `&` with broadcasting.

    ```mlir
    %0 = tt.bitwise_and %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    ```
  }];
  let hasFolder = 1;
}

def TT_BitwiseOrOp
    : TT_TypedBinaryOp<"bitwise_or", TT_IntegerTensor, [Commutative]> {
  let summary = "elementwise bitwise or of integers or booleans";
  let description = [{
    `np.bitwise_or` / `|` with broadcasting.
  }];
  let hasFolder = 1;
}

def TT_BitwiseXorOp
    : TT_TypedBinaryOp<"bitwise_xor", TT_IntegerTensor, [Commutative]> {
  let summary = "elementwise bitwise exclusive or of integers or booleans";
  let description = [{
    `np.bitwise_xor` / `^` with broadcasting; `~x` is `x ^ -1`.
  }];
  let hasFolder = 1;
}

def TT_ShiftLeftOp : TT_TypedBinaryOp<"shift_left", TT_IntegerTensor> {
  let summary = "elementwise left shift";
  let description = [{
    `lhs << rhs`. A shift by the bit width or more, or by a negative
    amount, gives 0 (PyTorch's rule; LLVM leaves it undefined).
  }];
}

def TT_ShiftRightOp : TT_TypedBinaryOp<"shift_right", TT_IntegerTensor> {
  let summary = "elementwise arithmetic right shift";
  let description = [{
    `lhs >> rhs`, filling with the sign bit (`ui8` shifts in zeros: it is
    zero-extended by `--tt-legalize-types`). A shift by the bit width or
    more, or by a negative amount, shifts by the width minus one
    (PyTorch's rule).
  }];
}

def TT_Atan2Op : TT_TypedBinaryOp<"atan2", TT_FloatTensor> {
  let summary = "elementwise arc tangent of lhs / rhs in the right quadrant";
  let description = [{
    `np.arctan2(lhs, rhs)`, in radians, in [-pi, pi].
  }];
  let hasFolder = 1;
}

def TT_CmpPredicateAttr : I64EnumAttr<"CmpPredicate", "comparison predicate", [
    I64EnumAttrCase<"eq", 0>, I64EnumAttrCase<"ne", 1>,
    I64EnumAttrCase<"lt", 2>, I64EnumAttrCase<"le", 3>,
    I64EnumAttrCase<"gt", 4>, I64EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::tt";
}

def TT_CmpOp : TT_Op<"cmp"> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares two tensors of the same element type elementwise with NumPy
    broadcasting and produces an `i1` tensor. Float comparisons are ordered
    (false if either side is NaN) except `ne`, which is true for NaN, as in
    NumPy.

    ```mlir
    %0 = tt.cmp lt, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins TT_CmpPredicateAttr:$predicate, TT_NumericTensor:$lhs,
                       TT_NumericTensor:$rhs);
  let results = (outs TT_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def TT_SelectOp : TT_Op<"select"> {
  let summary = "elementwise selection (np.where) with broadcasting";
  let description = [{
    Picks `true_value` where `condition` is set and `false_value` elsewhere;
    all three operands broadcast together as in `np.where`.

    ```mlir
    %0 = tt.select %c, %a, %b
        : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins TT_BoolTensor:$condition, TT_NumericTensor:$true_value,
                       TT_NumericTensor:$false_value);
  let results = (outs TT_NumericTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

def TT_NegOp : TT_UnaryOp<"neg", TT_NumericTensor> {
  let summary = "elementwise negation";
  let description = [{
    ```mlir
    %0 = tt.neg %x : tensor<4xf32>
    ```
  }];
}

def TT_AbsOp : TT_UnaryOp<"abs", TT_NumericTensor> {
  let summary = "elementwise absolute value";
  let description = [{
    ```mlir
    %0 = tt.abs %x : tensor<4xi32>
    ```
  }];
}

def TT_ExpOp : TT_UnaryOp<"exp", TT_FloatTensor> {
  let summary = "elementwise exponential";
  let description = [{
    ```mlir
    %0 = tt.exp %x : tensor<4xf32>
    ```
  }];
}

def TT_TanOp : TT_UnaryOp<"tan", TT_FloatTensor> {
  let summary = "elementwise tangent";
  let description = [{ `np.tan` (NaN outside its domain). }];
}

def TT_AsinOp : TT_UnaryOp<"asin", TT_FloatTensor> {
  let summary = "elementwise arc sine";
  let description = [{ `np.arcsin` (NaN outside its domain). }];
}

def TT_AcosOp : TT_UnaryOp<"acos", TT_FloatTensor> {
  let summary = "elementwise arc cosine";
  let description = [{ `np.arccos` (NaN outside its domain). }];
}

def TT_SinhOp : TT_UnaryOp<"sinh", TT_FloatTensor> {
  let summary = "elementwise hyperbolic sine";
  let description = [{ `np.sinh` (NaN outside its domain). }];
}

def TT_CoshOp : TT_UnaryOp<"cosh", TT_FloatTensor> {
  let summary = "elementwise hyperbolic cosine";
  let description = [{ `np.cosh` (NaN outside its domain). }];
}

def TT_AsinhOp : TT_UnaryOp<"asinh", TT_FloatTensor> {
  let summary = "elementwise inverse hyperbolic sine";
  let description = [{ `np.arcsinh` (NaN outside its domain). }];
}

def TT_AcoshOp : TT_UnaryOp<"acosh", TT_FloatTensor> {
  let summary = "elementwise inverse hyperbolic cosine";
  let description = [{ `np.arccosh` (NaN outside its domain). }];
}

def TT_AtanhOp : TT_UnaryOp<"atanh", TT_FloatTensor> {
  let summary = "elementwise inverse hyperbolic tangent";
  let description = [{ `np.arctanh` (NaN outside its domain). }];
}

def TT_Log10Op : TT_UnaryOp<"log10", TT_FloatTensor> {
  let summary = "elementwise base-10 logarithm";
  let description = [{ `np.log10` (NaN outside its domain). }];
}

def TT_AtanOp : TT_UnaryOp<"atan", TT_FloatTensor> {
  let summary = "elementwise arc tangent";
  let description = [{
    ```mlir
    %0 = tt.atan %x : tensor<4xf32>
    ```
  }];
}

def TT_LogOp : TT_UnaryOp<"log", TT_FloatTensor> {
  let summary = "elementwise natural logarithm";
  let description = [{
    ```mlir
    %0 = tt.log %x : tensor<4xf32>
    ```
  }];
}

def TT_TanhOp : TT_UnaryOp<"tanh", TT_FloatTensor> {
  let summary = "elementwise hyperbolic tangent";
  let description = [{
    ```mlir
    %0 = tt.tanh %x : tensor<4xf32>
    ```
  }];
}

def TT_SqrtOp : TT_UnaryOp<"sqrt", TT_FloatTensor> {
  let summary = "elementwise square root";
  let description = [{
    ```mlir
    %0 = tt.sqrt %x : tensor<4xf32>
    ```
  }];
}

def TT_RsqrtOp : TT_UnaryOp<"rsqrt", TT_FloatTensor> {
  let summary = "elementwise reciprocal square root";
  let description = [{
    Computes `1 / sqrt(x)`.

    ```mlir
    %0 = tt.rsqrt %x : tensor<4xf32>
    ```
  }];
}

def TT_ErfOp : TT_UnaryOp<"erf", TT_FloatTensor> {
  let summary = "elementwise error function";
  let description = [{
    ```mlir
    %0 = tt.erf %x : tensor<4xf32>
    ```
  }];
}

def TT_SinOp : TT_UnaryOp<"sin", TT_FloatTensor> {
  let summary = "elementwise sine";
  let description = [{
    ```mlir
    %0 = tt.sin %x : tensor<4xf32>
    ```
  }];
}

def TT_CosOp : TT_UnaryOp<"cos", TT_FloatTensor> {
  let summary = "elementwise cosine";
  let description = [{
    ```mlir
    %0 = tt.cos %x : tensor<4xf32>
    ```
  }];
}

def TT_FloorOp : TT_UnaryOp<"floor", TT_FloatTensor> {
  let summary = "elementwise floor (round toward minus infinity)";
  let description = [{
    ```mlir
    %0 = tt.floor %x : tensor<4xf32>
    ```
  }];
}

def TT_CeilOp : TT_UnaryOp<"ceil", TT_FloatTensor> {
  let summary = "elementwise ceiling (round toward plus infinity)";
  let description = [{
    ```mlir
    %0 = tt.ceil %x : tensor<4xf32>
    ```
  }];
}

def TT_RoundOp : TT_UnaryOp<"round", TT_FloatTensor> {
  let summary = "elementwise rounding to the nearest integer, halves to even (as np.round)";
  let description = [{
    ```mlir
    %0 = tt.round %x : tensor<4xf32>
    ```
  }];
}

def TT_Log1pOp : TT_UnaryOp<"log1p", TT_FloatTensor> {
  let summary = "elementwise log(1 + x), accurate for small x";
  let description = [{
    ```mlir
    %0 = tt.log1p %x : tensor<4xf32>
    ```
  }];
}

def TT_Expm1Op : TT_UnaryOp<"expm1", TT_FloatTensor> {
  let summary = "elementwise exp(x) - 1, accurate for small x";
  let description = [{
    ```mlir
    %0 = tt.expm1 %x : tensor<4xf32>
    ```
  }];
}

def TT_Exp2Op : TT_UnaryOp<"exp2", TT_FloatTensor> {
  let summary = "elementwise base-2 exponential";
  let description = [{
    ```mlir
    %0 = tt.exp2 %x : tensor<4xf32>
    ```
  }];
}

def TT_Log2Op : TT_UnaryOp<"log2", TT_FloatTensor> {
  let summary = "elementwise base-2 logarithm";
  let description = [{
    ```mlir
    %0 = tt.log2 %x : tensor<4xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

def TT_CastOp : TT_Op<"cast"> {
  let summary = "element type conversion";
  let description = [{
    Converts every element to the element type `to`, keeping the shape.
    Float to integer conversion truncates toward zero and integer or float to
    `i1` compares with zero, as NumPy's `astype` does.

    ```mlir
    %0 = tt.cast %x to f64 : tensor<2x3xf32> -> tensor<2x3xf64>
    ```
  }];
  let arguments = (ins TT_AnyTensor:$input, TypeAttrOf<TT_ElementType>:$to);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = [{
    $input `to` $to attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def TT_BitcastOp : TT_Op<"bitcast"> {
  let summary = "reinterpret each element's bits as another type";
  let description = [{
    The bits of every element as element type `to`, of the same width
    (`x.view(torch.int32)` of a float32 tensor, the sign bit of a NaN).

    ```mlir
    %0 = tt.bitcast %x to i32 : tensor<4xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins TT_AnyTensor:$input, TypeAttrOf<TT_ElementType>:$to);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = [{
    $input `to` $to attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def TT_SumOp : TT_ReductionOp<"sum"> {
  let summary = "sum over axes";
  let description = [{
    Sums `input` over the listed axes (distinct, in `[0, rank)`). With
    `keepdims` the reduced axes stay as size-1 dimensions, otherwise they are
    removed.

    ```mlir
    %0 = tt.sum %x axes = [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins TT_NumericTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
}

def TT_ReduceMaxOp : TT_ReductionOp<"reduce_max"> {
  let summary = "maximum over axes";
  let description = [{
    Maximum of `input` over the listed axes, as `np.max` (NaN propagates).

    ```mlir
    %0 = tt.reduce_max %x axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins TT_NumericTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
}

def TT_ReduceMinOp : TT_ReductionOp<"reduce_min"> {
  let summary = "minimum over axes";
  let description = [{
    Minimum of `input` over the listed axes, as `np.min` (NaN propagates).

    ```mlir
    %0 = tt.reduce_min %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins TT_NumericTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
}

def TT_ProdOp : TT_ReductionOp<"prod"> {
  let summary = "product over axes";
  let description = [{
    Product of `input` over the listed axes, as `np.prod` (integers wrap
    around on overflow, as in NumPy).

    ```mlir
    %0 = tt.prod %x axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
    ```
  }];
  let arguments = (ins TT_NumericTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
}

def TT_ArgMaxOp : TT_Op<"argmax"> {
  let summary = "index of the maximum along one axis";
  let description = [{
    The `i32` index of the first maximum of `input` along `axis`, as
    `np.argmax` (the first NaN counts as the maximum). With `keepdims` the
    axis stays as a size-1 dimension.

    ```mlir
    %0 = tt.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi32>
    ```
  }];
  let arguments = (ins TT_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$keepdims);
  let results = (outs TT_IndexTensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis (`keepdims` $keepdims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
}

def TT_ArgMinOp : TT_Op<"argmin"> {
  let summary = "index of the minimum along one axis";
  let description = [{
    The `i32` index of the first minimum of `input` along `axis`, as
    `np.argmin` (the first NaN counts as the minimum).

    ```mlir
    %0 = tt.argmin %x axis = 0 : tensor<2x3xf32> -> tensor<3xi32>
    ```
  }];
  let arguments = (ins TT_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$keepdims);
  let results = (outs TT_IndexTensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis (`keepdims` $keepdims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
}

def TT_CumsumOp : TT_Op<"cumsum"> {
  let summary = "cumulative sum along one axis";
  let description = [{
    `result[..., i, ...] = sum(input[..., :i+1, ...])` along `axis`, as
    `np.cumsum` with an axis (same shape and element type).

    ```mlir
    %0 = tt.cumsum %x axis = 1 : tensor<2x3xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins TT_StaticNumericTensor:$input, I64Attr:$axis);
  let results = (outs TT_StaticNumericTensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis attr-dict `:` type($input) `->` type($result)
  }];
}

def TT_SortOp : TT_Op<"sort"> {
  let summary = "stable sort along one axis, with the sorted elements' indices";
  let description = [{
    Sorts `input` along `axis` in ascending order (descending with
    `descending`) and returns the sorted values and, as `i32`, the index
    along `axis` each of them came from. The sort is stable in both
    directions: equal elements keep their order. NaN is greater than every
    number: NaNs come last in ascending order (as in `np.sort`) and first
    in descending order (as in `torch.sort`). -0.0 and +0.0 are equal.

    `--tt-to-linalg` lowers it to a bitonic sorting network over (value,
    index) pairs: O(n log^2 n) comparisons per row, every stage one
    parallel `linalg.generic`.

    ```mlir
    %v, %i = tt.sort %x axis = 1 descending : tensor<2x5xf32> -> tensor<2x5xf32>, tensor<2x5xi32>
    ```
  }];
  let arguments = (ins TT_StaticNumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$descending);
  let results = (outs TT_StaticNumericTensor:$values, TT_StaticIndexTensor:$indices);
  let assemblyFormat = [{
    $input `axis` `=` $axis (`descending` $descending^)? attr-dict `:`
    type($input) `->` type($values) `,` type($indices)
  }];
}

def TT_MeanOp : TT_ReductionOp<"mean"> {
  let summary = "arithmetic mean over axes";
  let description = [{
    Mean of a float tensor over the listed axes.

    ```mlir
    %0 = tt.mean %x axes = [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins TT_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
}

def TT_VarOp : TT_ReductionOp<"var"> {
  let summary = "variance over axes";
  let description = [{
    Variance of a float tensor over the listed axes: the mean of the squared
    deviations from the mean, divided by `N - ddof` instead of `N` when
    `ddof` is given (as `np.var`).

    ```mlir
    %0 = tt.var %x axes = [1] keepdims {ddof = 1 : i64}
        : tensor<2x3xf32> -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins TT_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$ddof);
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

def TT_MatmulOp : TT_Op<"matmul"> {
  let summary = "matrix product with NumPy matmul semantics";
  let description = [{
    Matrix product following `np.matmul`: a 1-D `lhs` is treated as a row
    vector and a 1-D `rhs` as a column vector (the added dimension is removed
    from the result); operands of rank > 2 are stacks of matrices whose batch
    dimensions broadcast.

    ```mlir
    %0 = tt.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = tt.matmul %c, %d
        : (tensor<8x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32>
    ```
  }];
  let arguments = (ins TT_NumericTensor:$lhs, TT_NumericTensor:$rhs);
  let results = (outs TT_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  // matmul(x, broadcast_to(w)) -> matmul(x, w) when the broadcast only adds
  // batch dimensions to a matrix (matmul broadcasts them itself).
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def TT_TransposeOp : TT_Op<"transpose"> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`, as
    `np.transpose(x, permutation)`.

    ```mlir
    %0 = tt.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins TT_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TT_ReshapeOp : TT_Op<"reshape"> {
  let summary = "reshape in row-major order";
  let description = [{
    Reinterprets the elements of `input`, in row-major order, with a new
    shape holding the same number of elements. One size of `shape` may be
    -1, as in NumPy: the size that makes the element count match. That is
    how a dynamic dimension passes a reshape: `tensor<?x1x28x28xf32>` to
    `[-1, 784]` is `tensor<?x784xf32>`. With dynamic dimensions, each of
    them must stay in a group of dimensions that collapses into the -1
    (or is it), so that the reshape is one collapse or expand.

    ```mlir
    %0 = tt.reshape %x [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
    %1 = tt.reshape %y [-1, 6] : tensor<?x2x3xf32> -> tensor<?x6xf32>
    ```
  }];
  let arguments = (ins TT_AnyTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = [{
    $input $shape attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TT_BroadcastToOp : TT_Op<"broadcast_to"> {
  let summary = "broadcast to a shape";
  let description = [{
    Broadcasts `input` to `shape` with NumPy's rules, as `np.broadcast_to`.

    ```mlir
    %0 = tt.broadcast_to %x [4, 3] : tensor<3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins TT_StaticAnyTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs TT_StaticAnyTensor:$result);
  let assemblyFormat = [{
    $input $shape attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def TT_SliceOp : TT_Op<"slice"> {
  let summary = "strided static slice";
  let description = [{
    Extracts `sizes[i]` elements along each dimension `i`, starting at
    `starts[i]` and stepping by `strides[i]` (at least 1). Every accessed
    index must lie inside the input. A size of -1 (with start 0 and stride
    1) takes the whole dimension: the only way a dynamic dimension passes
    a slice.

    ```mlir
    %0 = tt.slice %x starts = [0, 1] sizes = [2, 2] strides = [1, 1]
        : tensor<4x3xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins TT_AnyTensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = [{
    $input `starts` `=` $starts `sizes` `=` $sizes `strides` `=` $strides
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def TT_ConcatOp : TT_Op<"concat"> {
  let summary = "concatenate along an axis";
  let description = [{
    Joins one or more tensors of the same rank and element type along
    `axis`; all other dimensions must agree (`np.concatenate`). The sizes
    along `axis` are static; another dimension may be dynamic in every
    input (checked equal at run time).

    ```mlir
    %0 = tt.concat %a, %b axis = 1
        : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Variadic<TT_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` functional-type($inputs, results)
  }];
  let hasFolder = 1;
}

def TT_WindowsOp : TT_Op<"windows"> {
  let summary = "sliding windows over consecutive axes (im2col, pooling)";
  let description = [{
    For the `n = len(kernel)` axes starting at `axis`, every window of
    `kernel` elements taken every `strides` elements, its elements
    `dilations` apart: `result[b..., o..., k..., c...] =
    input[b..., o * stride + k * dilation, c...]`. The result has the
    input's shape with the windowed axes replaced by the window counts
    `(size - dilation * (kernel - 1) - 1) / stride + 1` followed by the
    kernel sizes. Padding is the caller's (pad first).

    A convolution is its windows over a channels-last input, seen as
    `[N * positions, K * C]`, times the weights; a pooling is a reduction
    of its windows over the kernel axes.

    ```mlir
    %0 = tt.windows %x axis = 1 kernel = [3, 3] strides = [1, 1] dilations = [1, 1] : tensor<2x6x6x4xf32> -> tensor<2x4x4x3x3x4xf32>
    ```
  }];
  let arguments = (ins TT_StaticAnyTensor:$input, I64Attr:$axis,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations);
  let results = (outs TT_StaticAnyTensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis `kernel` `=` $kernel `strides` `=` $strides
    `dilations` `=` $dilations attr-dict `:` type($input) `->` type($result)
  }];
}

def TT_ConvOp : TT_Op<"conv"> {
  let summary = "N-dimensional grouped convolution, channels first";
  let description = [{
    PyTorch's convolution (cross-correlation) over the `d = rank - 2`
    trailing axes: `input` is `[N, C, S1..Sd]` and `weight` `[F, C / groups,
    K1..Kd]`; the input is zero padded by `pad_low` / `pad_high` on each
    spatial axis, and

        result[n, f, o...] = sum over c < C / groups, k... of
            padded[n, g * C / groups + c, o * stride + k * dilation]
            * weight[f, c, k...]      with g = f / (F / groups).

    Each output size is `(S + low + high - dilation * (K - 1) - 1) / stride
    + 1`. Only the batch size may be dynamic. A bias is a separate add; a
    transposed convolution is a convolution of the input spread by its
    stride, with the weights flipped (the front end composes it).

    With `channels_last`, the input is `[N, S1..Sd, C]` and the result
    `[N, O1..Od, F]` (NHWC for 2-D); the weights keep PyTorch's `[F, C /
    groups, K1..Kd]`. `--tt-channels-last` makes convolutions this form.

    ```mlir
    %0 = tt.conv %x, %w strides = [2, 2] dilations = [1, 1]
        pad_low = [1, 1] pad_high = [1, 1] groups = 1
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins TT_NumericTensor:$input, TT_NumericTensor:$weight,
      DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
      DenseI64ArrayAttr:$pad_low, DenseI64ArrayAttr:$pad_high, I64Attr:$groups,
      UnitAttr:$channels_last);
  let results = (outs TT_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight `strides` `=` $strides `dilations` `=` $dilations
    `pad_low` `=` $pad_low `pad_high` `=` $pad_high `groups` `=` $groups
    attr-dict `:` functional-type(operands, results)
  }];
}

def TT_GatherOp : TT_Op<"gather"> {
  let summary = "gather rows of a table (table[ids])";
  let description = [{
    Indexes the first dimension of `table` with the `i32` or `i64` tensor
    `indices`,
    as NumPy's `table[indices]`: the result shape is the indices' shape
    followed by the table's trailing dimensions. Negative indices count from
    the end; indices outside `[-n, n)` are clamped. Any dimension may be
    dynamic.

    ```mlir
    %0 = tt.gather %wte[%ids] : (tensor<50x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins TT_AnyTensor:$table, TT_IndexTensor:$indices);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
}

def TT_ScatterModeAttr
    : I64EnumAttr<"ScatterMode", "how scattered rows combine",
                  [I64EnumAttrCase<"set", 0>, I64EnumAttrCase<"add", 1>,
                   I64EnumAttrCase<"mul", 2>, I64EnumAttrCase<"max", 3>,
                   I64EnumAttrCase<"min", 4>]> {
  let cppNamespace = "::mlir::tt";
}

def TT_ScatterOp : TT_Op<"scatter"> {
  let summary = "rows written into a copy of a table (table[ids] = rows)";
  let description = [{
    The result is `table` with each row `indices[i]` replaced by row `i`
    of `updates` (`set`) or combined with it (`add`, `mul`, `max`, `min`),
    for i in order: NumPy's `out[ids] = updates` and `np.add.at(out, ids,
    updates)`. `indices` is a 1-D `i32` or `i64` tensor, `updates` has
    the shape `[len(indices), table.shape[1:]...]` and the table's element
    type. Negative indices count from the end; a row index outside
    `[-n, n)` is skipped (front ends check them first). A row named twice
    keeps the last update (`set`) or combines all of them. Any dimension
    may be dynamic. An element scatter (`torch.scatter`) is a row scatter
    of the flattened table with rows of one element.

    ```mlir
    %0 = tt.scatter add %table[%ids], %rows : (tensor<50x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<50x8xf32>
    ```
  }];
  let arguments = (ins TT_ScatterModeAttr:$mode, TT_AnyTensor:$table,
      TT_IndexTensor:$indices, TT_AnyTensor:$updates);
  let results = (outs TT_AnyTensor:$result);
  let assemblyFormat = [{
    $mode $table `[` $indices `]` `,` $updates attr-dict `:` functional-type(operands, results)
  }];
}

def TT_IotaOp : TT_Op<"iota"> {
  let summary = "the indices of a dimension (np.arange(x.shape[dim]))";
  let description = [{
    The `i32` values 0, 1, ..., n - 1, where n is the size of dimension
    `dim` of `like`, which may be dynamic; only that size of `like` is
    read. It is how a tensor sized by a dynamic dimension is made: the
    positions `range(len(ids))` of a sequence of any length, or the rows
    and columns that a causal mask compares.

    ```mlir
    %0 = tt.iota %ids dim = 0 : tensor<?xi32> -> tensor<?xi32>
    ```
  }];
  let arguments = (ins TT_AnyTensor:$like, I64Attr:$dim);
  let results = (outs TT_IndexTensor:$result);
  let assemblyFormat = [{
    $like `dim` `=` $dim attr-dict `:` type($like) `->` type($result)
  }];
}

#endif // TINYTENSOR_DIALECT_TT_TTOPS_TD
