"""The `tt` dialect from Python: op builders with inferred result types,
verifier errors as exceptions, attributes/enums, the named pipelines through
PassManager, running the lowered code, and one copy of MLIR/LLVM loaded."""

import ctypes
import os
import re

import numpy as np
import pytest

from mlir import execution_engine, ir, passmanager
from mlir.dialects import func, tt
from mlir.runtime import get_ranked_memref_descriptor

_RUNNER_UTILS = os.path.join(
    os.environ.get("TT_LLVM_LIB_DIR", "/usr/lib/llvm-22/lib"),
    "libmlir_c_runner_utils.so")


@pytest.fixture(scope="module", autouse=True)
def _passes():
    tt.register_passes()


@pytest.fixture
def ctx():
    context = ir.Context()
    tt.register_dialect(context)
    with context, ir.Location.unknown():
        yield context


def f32():
    return ir.F32Type.get()


def tensor(shape, etype=None):
    return ir.RankedTensorType.get(list(shape), etype or f32())


def build(arg_types, body):
    """A module with one function `main(arg_types...)` whose body is
    `body(*args)`; returns (module, result value(s))."""
    module = ir.Module.create()
    results = {}
    with ir.InsertionPoint(module.body):
        @func.FuncOp.from_py_func(*arg_types, name="main")
        def main(*args):
            results["out"] = body(*args)
            return results["out"]
    main.func_op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
    return module, results["out"]


def shape_and_type(value):
    t = ir.RankedTensorType(value.type)
    return tuple(t.shape), str(t.element_type)


# -- builders and type inference ------------------------------------------------

def test_add_infers_result_type(ctx):
    module, out = build([tensor([4, 1]), tensor([3])],
                        lambda a, b: tt.add(a, b))
    # No result type was passed: the dialect inferred the broadcast type.
    assert str(out.type) == "tensor<4x3xf32>"
    assert isinstance(out.owner.opview, tt.AddOp)
    assert module.operation.verify()
    text = str(module)
    assert "tt.add %arg0, %arg1 : (tensor<4x1xf32>, tensor<3xf32>) -> " \
           "tensor<4x3xf32>" in text


@pytest.mark.parametrize("a,b", [
    ((4, 1), (3,)), ((2, 3), (2, 3)), ((1,), (5, 4)), ((2, 1, 4), (3, 1)),
    ((), (2, 3)), ((7, 1, 1), (1, 6, 1)), ((1, 1), (1,)),
])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "max",
                                "min"])
def test_binary_broadcasting(ctx, a, b, op):
    _, out = build([tensor(a), tensor(b)],
                   lambda x, y: getattr(tt, op)(x, y))
    assert shape_and_type(out) == (np.broadcast_shapes(a, b), "f32")


@pytest.mark.parametrize("etype", ["f64", "i32"])
def test_element_type_is_propagated(ctx, etype):
    et = ir.Type.parse(etype)
    _, out = build([tensor([2, 3], et), tensor([3], et)],
                   lambda x, y: tt.mul(x, y))
    assert shape_and_type(out) == ((2, 3), etype)


@pytest.mark.parametrize("a,b", [((4,), (3,)), ((2, 3), (3, 2)),
                                 ((5, 4), (2, 5, 3))])
def test_broadcast_error_raises(ctx, a, b):
    with pytest.raises(ir.MLIRError, match="broadcast"):
        build([tensor(a), tensor(b)], lambda x, y: tt.add(x, y))


def test_mixed_element_types_raise(ctx):
    with pytest.raises(ir.MLIRError):
        build([tensor([3]), tensor([3], ir.F64Type.get())],
              lambda x, y: tt.add(x, y))


def test_float_only_op_rejects_int(ctx):
    # Operand constraints are checked by the verifier, not on creation.
    module, _ = build([tensor([3], ir.IntegerType.get_signless(32))],
                      lambda x: tt.exp(x))
    with pytest.raises(ir.MLIRError, match="tt.exp"):
        module.operation.verify()


@pytest.mark.parametrize("name", ["neg", "abs", "exp", "log", "tanh",
                                  "sqrt", "rsqrt", "erf"])
def test_unary_keeps_type(ctx, name):
    _, out = build([tensor([2, 5])], lambda x: getattr(tt, name)(x))
    assert shape_and_type(out) == ((2, 5), "f32")


# -- enum and attribute ops ------------------------------------------------------

@pytest.mark.parametrize("pred", list(tt.CmpPredicate))
def test_cmp_with_enum(ctx, pred):
    module, out = build([tensor([4, 1]), tensor([1, 3])],
                        lambda a, b: tt.cmp(pred, a, b))
    assert shape_and_type(out) == ((4, 3), "i1")
    assert out.owner.opview.predicate.value == int(pred)
    assert f"tt.cmp {pred}, %arg0, %arg1" in str(module)
    assert module.operation.verify()


def test_cmp_with_integer_attribute(ctx):
    attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3)
    module, out = build([tensor([3]), tensor([3])],
                        lambda a, b: tt.cmp(attr, a, b))
    assert "tt.cmp le" in str(module)
    assert shape_and_type(out) == ((3,), "i1")


@pytest.mark.parametrize("axes,keepdims,expected", [
    ([1], True, (2, 1, 4)), ([1], False, (2, 4)), ([0, 2], False, (3,)),
    ([0, 1, 2], False, ()), ([0, 1, 2], True, (1, 1, 1)),
])
@pytest.mark.parametrize("name", ["sum", "mean", "var", "reduce_max"])
def test_reductions(ctx, name, axes, keepdims, expected):
    module, out = build(
        [tensor([2, 3, 4])],
        lambda x: getattr(tt, name)(x, axes, keepdims=keepdims))
    assert shape_and_type(out) == (expected, "f32")
    op = out.owner.opview
    assert list(op.axes) == axes
    assert op.keepdims == keepdims
    text = str(module)
    assert f"tt.{name} %arg0 axes = {axes}" in text
    assert ("keepdims" in text) == keepdims


def test_var_ddof_attribute(ctx):
    ddof = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)
    module, out = build([tensor([5, 6])],
                        lambda x: tt.var(x, [1], ddof=ddof))
    assert shape_and_type(out) == ((5,), "f32")
    assert "ddof = 1" in str(module)


@pytest.mark.parametrize("axes", [[3], [0, 0], [-1]])
def test_reduction_bad_axes_raise(ctx, axes):
    with pytest.raises(ir.MLIRError):
        build([tensor([2, 3, 4])], lambda x: tt.sum(x, axes))


@pytest.mark.parametrize("a,b,expected", [
    ((2, 3), (3, 4), (2, 4)), ((3,), (3, 4), (4,)), ((2, 3), (3,), (2,)),
    ((3,), (3,), ()), ((5, 2, 3), (3, 4), (5, 2, 4)),
    ((1, 2, 3), (6, 3, 4), (6, 2, 4)),
])
def test_matmul_infers_numpy_shapes(ctx, a, b, expected):
    _, out = build([tensor(a), tensor(b)], lambda x, y: tt.matmul(x, y))
    assert shape_and_type(out) == (expected, "f32")
    assert expected == np.matmul(np.ones(a), np.ones(b)).shape


def test_matmul_mismatch_raises(ctx):
    with pytest.raises(ir.MLIRError):
        build([tensor([2, 3]), tensor([4, 5])], lambda x, y: tt.matmul(x, y))


def test_shape_ops(ctx):
    i32 = ir.IntegerType.get_signless(32)

    def body(x, ids):
        t = tt.transpose(x, [2, 0, 1])
        r = tt.reshape(x, [6, 4])
        s = tt.slice(x, [0, 1, 0], [2, 1, 2], [1, 1, 2])
        b = tt.broadcast_to(tt.reshape(x, [1, 2, 3, 4]), [5, 2, 3, 4])
        c = tt.concat([x, x], ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), 1))
        g = tt.gather(r, ids)
        k = tt.cast(x, ir.TypeAttr.get(ir.F64Type.get()))
        return t, r, s, b, c, g, k

    module, outs = build([tensor([2, 3, 4]), tensor([7, 2], i32)], body)
    got = [shape_and_type(o) for o in outs]
    assert got == [((4, 2, 3), "f32"), ((6, 4), "f32"), ((2, 1, 2), "f32"),
                   ((5, 2, 3, 4), "f32"), ((2, 6, 4), "f32"),
                   ((7, 2, 4), "f32"), ((2, 3, 4), "f64")]
    assert module.operation.verify()


def test_reshape_size_mismatch_raises(ctx):
    with pytest.raises(ir.MLIRError):
        build([tensor([2, 3])], lambda x: tt.reshape(x, [4, 2]))


def test_transpose_bad_permutation_raises(ctx):
    with pytest.raises(ir.MLIRError):
        build([tensor([2, 3])], lambda x: tt.transpose(x, [0, 0]))


def test_select_and_constant(ctx):
    def body(x):
        zero = tt.constant(ir.DenseElementsAttr.get_splat(
            tensor([]), ir.FloatAttr.get(f32(), 0.0)))
        cond = tt.cmp(tt.CmpPredicate.gt, x, zero)
        return tt.select(cond, x, zero)

    module, out = build([tensor([3, 2])], body)
    assert shape_and_type(out) == ((3, 2), "f32")
    assert "tt.select" in str(module) and "tt.constant dense<0.0" in \
        str(module)


def test_textual_round_trip(ctx):
    module, _ = build([tensor([4, 1]), tensor([3])],
                      lambda a, b: tt.sum(tt.mul(tt.add(a, b), b), [0, 1]))
    again = ir.Module.parse(str(module))
    assert again.operation.verify()
    assert str(again) == str(module)


# -- pipelines ------------------------------------------------------------------

def _example_module():
    # relu(a + b) summed over rows with keepdims, then scaled by 2.
    def body(a, b):
        s = tt.add(a, b)
        zero = tt.constant(ir.DenseElementsAttr.get_splat(
            tensor([]), ir.FloatAttr.get(f32(), 0.0)))
        r = tt.max(s, zero)
        two = tt.constant(ir.DenseElementsAttr.get_splat(
            tensor([]), ir.FloatAttr.get(f32(), 2.0)))
        return tt.mul(tt.sum(r, [1], keepdims=True), two)
    return build([tensor([4, 1]), tensor([3])], body)[0]


def _example_numpy(a, b):
    return np.maximum(a + b, 0).sum(axis=1, keepdims=True) * 2


def test_tt_optimize_from_python(ctx):
    module = _example_module()
    pm = passmanager.PassManager.parse("builtin.module(tt-optimize)")
    pm.run(module.operation)
    text = str(module)
    assert "linalg." in text
    assert not re.search(r"\btt\.", text), text
    assert module.operation.verify()


def test_unknown_pipeline_option_raises(ctx):
    with pytest.raises(ValueError):
        passmanager.PassManager.parse(
            "builtin.module(tt-optimize{no-such-option=1})")


@pytest.mark.parametrize("pipeline", [
    "tt-lower-to-llvm{out-params=true}",
    "tt-optimize,tt-lower-to-llvm{optimize=false out-params=true}",
    "tt-lower-to-llvm{out-params=true fusion=false interchange=false "
    "fast-math=false}",
])
def test_tt_lower_to_llvm_from_python_and_run(ctx, pipeline):
    module = _example_module()
    passmanager.PassManager.parse(f"builtin.module({pipeline})").run(
        module.operation)
    text = str(module)
    assert "llvm.func @main" in text
    assert not re.search(r"\b(tt|linalg|tensor)\.", text)

    engine = execution_engine.ExecutionEngine(module, opt_level=2,
                                              shared_libs=[_RUNNER_UTILS])
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 1)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    out = np.full((4, 1), np.nan, np.float32)
    args = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(x)))
            for x in (a, b, out)]
    engine.invoke("main", *args)
    np.testing.assert_allclose(out, _example_numpy(a, b), rtol=1e-5)


def test_parsing_checks_inferred_types(ctx):
    with pytest.raises(ir.MLIRError, match="incompatible with return type"):
        ir.Module.parse("""
          func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
            %0 = "tt.neg"(%arg0) : (tensor<3xf32>) -> tensor<4xf32>
            return %arg0 : tensor<3xf32>
          }""")


def test_pipeline_on_invalid_module_raises(ctx):
    # tt.exp of i32 is built (operand constraints are the verifier's job);
    # the pass manager verifies first and reports an MLIRError.
    module, _ = build([tensor([3], ir.IntegerType.get_signless(32))],
                      lambda x: tt.exp(x))
    with pytest.raises(ir.MLIRError):
        passmanager.PassManager.parse(
            "builtin.module(tt-lower-to-llvm)").run(module.operation)


def test_single_copy_of_mlir_and_llvm_loaded(ctx):
    # Load everything a user would: the tt bindings, the pipelines, the
    # execution engine and TinyTensor itself.
    import tinytensor
    tinytensor.jit(lambda x: x + 1)(np.ones(3, np.float32))
    libs = {"libMLIR": set(), "libLLVM": set()}
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) < 6 or not fields[5].startswith("/"):
                continue
            path = os.path.realpath(fields[5])
            name = os.path.basename(path)
            for prefix in libs:
                if re.match(rf"{prefix}(-[\d.]+)?\.so(\.|$)", name):
                    libs[prefix].add(path)
    assert len(libs["libMLIR"]) == 1, libs
    assert len(libs["libLLVM"]) == 1, libs
