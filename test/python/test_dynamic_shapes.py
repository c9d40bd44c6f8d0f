"""Dynamic dimensions at the NumPy level: JitFunction.compile_dynamic
compiles once for every size of the chosen input dimensions, and refuses
programs whose ops depend on those sizes."""

import numpy as np
import pytest

from tinytensor import jit
from tinytensor.shapes import DynamicDims, OutOfRange

BATCH = DynamicDims({(0, 0): "s0"})


def test_one_program_every_batch_size():
    w = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)

    def f(x, w):
        h = np.tanh(x @ w)
        return h - h.mean(axis=1, keepdims=True), h.max(axis=0)

    compiled = jit(f).compile_dynamic((np.ones((4, 5), np.float32), w),
                                      DynamicDims({(0, 0): "s0"}))
    assert "tensor<?x5xf32>" in str(compiled.module)
    for n in (1, 4, 17, 300):
        x = np.random.default_rng(n).standard_normal((n, 5)).astype(np.float32)
        got, want = compiled.run(x, w), f(x, w)
        for g, e in zip(got, want):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_reductions_of_a_dynamic_axis_on_negative_data(dtype):
    """The last, partial vector of a reduction over a dynamic axis is
    masked; the masked-off lanes must not take part (difftest seed 7200176:
    the maximum of negative numbers was -1e-45)."""
    def f(x):
        return (np.max(x, axis=0, keepdims=True), np.min(-x, axis=0),
                np.sum(x, axis=0))

    compiled = jit(f).compile_dynamic((np.ones(3, dtype),), BATCH)
    for n in (1, 2, 3, 15, 16, 17, 257, 1000):
        x = -1 - np.random.default_rng(n).integers(0, 50, n).astype(dtype)
        for got, want in zip(compiled.run(x), f(x)):
            np.testing.assert_allclose(got, want, rtol=1e-6)


def test_shared_symbol_must_agree_and_ranges_hold():
    def f(x, y):
        return x * y

    dims = DynamicDims({(0, 0): "b", (1, 0): "b"}, [["b", None]],
                       ranges={"b": (2, 10)})
    a = np.ones((3, 2), np.float32)
    compiled = jit(f).compile_dynamic((a, a), dims)
    np.testing.assert_array_equal(compiled.run(np.ones((5, 2), np.float32),
                                               np.ones((5, 2), np.float32)),
                                  np.ones((5, 2), np.float32))
    with pytest.raises(ValueError, match="must be equal"):
        compiled.run(np.ones((5, 2), np.float32), np.ones((4, 2), np.float32))
    with pytest.raises(OutOfRange, match="outside the range"):
        compiled.run(np.ones((11, 2), np.float32),
                     np.ones((11, 2), np.float32))
    with pytest.raises(TypeError, match="this specialisation takes"):
        compiled.run(np.ones((5, 3), np.float32), np.ones((5, 3), np.float32))


@pytest.mark.parametrize("fn", [
    lambda x: x[0:2],                          # a slice to a fixed bound
    lambda x: x[0:2].sum(axis=0),              # left out at the traced size
    lambda x: x + np.ones(x.shape, np.float32),  # an array made for one size
    lambda x: x.reshape(2, -1),                # reshape to a fixed size
], ids=["slice", "elided-slice", "array-for-one-size", "reshape"])
def test_size_dependent_programs_are_refused(fn):
    with pytest.raises(ValueError, match="dynamic dimensions"):
        jit(fn).compile_dynamic((np.ones((2, 3), np.float32),), BATCH)


def test_flatten_takes_the_dynamic_size():
    f = lambda x: x.reshape(-1, 6) * 2.0  # noqa: E731
    compiled = jit(f).compile_dynamic((np.ones((4, 2, 3), np.float32),),
                                      BATCH)
    x = np.arange(5 * 6, dtype=np.float32).reshape(5, 2, 3)
    np.testing.assert_array_equal(compiled.run(x), f(x))


def test_outputs_may_be_left_out_only_with_one_symbol():
    with pytest.raises(ValueError, match="one symbol"):
        DynamicDims({(0, 0): "a", (0, 1): "b"})


def test_heads_joined_along_the_static_axis():
    """Attention-style heads of a dynamic number of rows joined with
    np.hstack: a concatenation whose other dimension is dynamic."""
    rng = np.random.default_rng(3)
    w = rng.standard_normal((12, 7))

    def f(x):
        heads = np.split(x, 3, axis=-1)
        joined = np.hstack([np.tanh(h) for h in reversed(heads)])
        return joined, joined @ w

    compiled = jit(f).compile_dynamic((np.ones((5, 12)),), BATCH)
    assert "tensor<?x12xf64>" in str(compiled.module)
    for n in (1, 2, 9, 130):
        x = rng.standard_normal((n, 12))
        for got, want in zip(compiled.run(x), f(x)):
            np.testing.assert_allclose(got, want, rtol=1e-13)


def test_positions_of_a_dynamic_length_are_made_from_it():
    """`table[range(len(x))]` (GPT-2's positions) with a dynamic len(x):
    the range is recognised as the dimension's indices (tt.iota), the
    second trace confirms it, and every length runs."""
    table = np.random.default_rng(4).standard_normal((50, 4))

    def f(x, table):
        return x + table[range(len(x))]

    compiled = jit(f).compile_dynamic((np.ones((6, 4)), table), BATCH)
    assert "tt.iota" in str(compiled.module)
    for n in (1, 2, 7, 50):
        x = np.random.default_rng(n).standard_normal((n, 4))
        np.testing.assert_allclose(compiled.run(x, table), f(x, table))


@pytest.mark.parametrize("offset", [0.0, -1e10])
def test_causal_mask_of_a_dynamic_length_is_made_from_it(offset):
    """A lower-triangular mask made with np.tri for the traced length
    (GPT-2's `(1 - np.tri(n)) * -1e10`) becomes a comparison of indices of
    the run-time length."""
    def f(scores):
        mask = (1 - np.tri(scores.shape[0], dtype=scores.dtype)) * -1e10
        return scores + mask + offset

    dims = DynamicDims({(0, 0): "n", (0, 1): "n"})
    compiled = jit(f).compile_dynamic((np.ones((5, 5)),), dims)
    assert "tt.iota" in str(compiled.module)
    for n in (1, 2, 3, 33):
        s = np.random.default_rng(n).standard_normal((n, n))
        np.testing.assert_array_equal(compiled.run(s), f(s))


def test_masks_made_and_freed_while_tracing_keep_their_own_values():
    """Temporary masks of different values made one after another (each
    freed while tracing goes on, so NumPy may place the next one where it
    was): every one is traced with its own values, not those of an earlier
    array that had the same id."""
    def f(x):
        out = x
        for v in range(1, 9):
            out = out + (1 - np.tri(x.shape[0], dtype=x.dtype)) * float(v)
        return out

    dims = DynamicDims({(0, 0): "n", (0, 1): "n"})
    compiled = jit(f).compile_dynamic((np.zeros((5, 5), np.float32),), dims)
    for n in (1, 5, 7):
        x = np.random.default_rng(n).standard_normal((n, n)).astype(
            np.float32)
        np.testing.assert_allclose(compiled.run(x), f(x), rtol=1e-6)


def test_index_arrays_into_a_dynamic_axis_check_its_run_time_size():
    """x[i] with a dynamic first axis: negative indices count from the
    run-time end and out-of-range ones raise IndexError with that size."""
    def f(x, i):
        return x[i] * 2.0

    compiled = jit(f).compile_dynamic((np.ones((4, 3)), np.array([1])),
                                      BATCH)
    for n in (1, 5, 20):
        x = np.random.default_rng(n).standard_normal((n, 3))
        for i in (0, n - 1, -1, -n):
            np.testing.assert_array_equal(compiled.run(x, np.array([i])),
                                          f(x, np.array([i])))
        with pytest.raises(IndexError, match=f"with size {n}"):
            compiled.run(x, np.array([n]))
        with pytest.raises(IndexError, match=f"with size {n}"):
            compiled.run(x, np.array([-n - 1]))
