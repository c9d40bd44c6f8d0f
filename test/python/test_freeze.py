"""jit(freeze=True): captured arrays as constants, matmul weights packed
once (--tt-cpu-prepack-constants, --tt-cpu-prepare-constants), checked
against NumPy and against the same function without freeze."""

import numpy as np
import pytest

from tinytensor import jit

RNG = np.random.default_rng(11)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(got, expected, rtol):
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    scale = max(float(np.abs(expected).max()), 1.0)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale)


def tolerance(dtype):
    return 2e-5 if dtype == np.float32 else 1e-12


@pytest.fixture(autouse=True)
def no_cache(monkeypatch):
    monkeypatch.setenv("TT_CACHE", "0")


# (rows, k, n): strips of 64 (f32) or 32 (f64) columns that do not divide
# n (the last packed strip padded), one row; rows past a 6-row tile; a
# prime K split into reduction blocks; 517 rows in blocks of 256.
SHAPES = [(1, 96, 200), (17, 96, 3000), (130, 257, 1003), (67, 2083, 129),
          (517, 300, 193)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64],
                         ids=["f32", "f64"])
@pytest.mark.parametrize("m,k,n", SHAPES, ids=str)
def test_weights_packed_once(m, k, n, dtype):
    w = randn(k, n, dtype=dtype)
    wt = randn(n, k, dtype=dtype)
    bias = randn(n, dtype=dtype)

    def layer(x):
        return np.tanh(x @ w + bias) + x @ wt.T

    frozen = jit(layer, freeze=True)
    x = randn(m, k, dtype=dtype)
    expected = layer(x)
    got = frozen(x)
    close(got, expected, tolerance(dtype))
    np.testing.assert_array_equal(got, jit(layer)(x))
    # Later calls (and other inputs) use the prepared weights.
    x2 = randn(m, k, dtype=dtype)
    close(frozen(x2), layer(x2), tolerance(dtype))


def test_prepare_runs_once_per_specialisation():
    w = randn(300, 520)
    f = jit(lambda x: x @ w, freeze=True)
    x = randn(130, 300)
    compiled = f.compile(x)
    assert "prepare" in compiled.timings
    assert "tt_prepare" in str(compiled.lowered)
    for _ in range(3):
        close(f(x), x @ w, 2e-5)
    assert f.cache_info().misses == 1


@pytest.mark.parametrize("m,k,n", [(1, 96, 200), (17, 300, 520),
                                   (31, 96, 200), (32, 96, 200),
                                   (64, 257, 1003), (130, 96, 33)], ids=str)
def test_float64_model_with_float32_weights(m, k, n):
    """f64 x f32 (NumPy's promotion in GPT-2): from 32 rows the weights are
    packed whole converted to float64 once, plain and transposed (with
    fewer, packed per panel at every call); the results are NumPy's and bit
    for bit those of the unfrozen function."""
    w = randn(k, n)
    wt = randn(n, k)

    def layer(x):
        return x @ w + x @ wt.T

    f = jit(layer, freeze=True)
    x = randn(m, k, dtype=np.float64)
    compiled = f.compile(x)
    whole = f"tt_pack_{k}x{n}xf32_32_to_f64" in str(compiled.lowered)
    assert whole == (m >= 32)
    got = f(x)
    close(got, layer(x), 1e-12)
    np.testing.assert_array_equal(got, jit(layer)(x))


def test_batch_broadcast_and_layers():
    """A stack of matrices times constant weights, and one outlined layer
    called with two weights (each gets its own packed copy)."""
    w1, w2 = randn(96, 200), randn(200, 96)
    b1, b2 = randn(200), randn(96)

    def mlp(x):
        for _ in range(2):
            x = np.maximum(x @ w1 + b1, 0) @ w2 + b2
        return x

    x = randn(3, 70, 96)
    close(jit(mlp, freeze=True)(x), mlp(x), 1e-4)


WEIGHTS = randn(64, 100)


def global_weights(x):
    return x @ WEIGHTS


def test_rebinding_a_captured_array_specialises_again():
    global WEIGHTS
    saved = WEIGHTS
    f = jit(global_weights, freeze=True)
    x = randn(70, 64)
    try:
        close(f(x), x @ WEIGHTS, 2e-5)
        compiled = f.compile(x)
        WEIGHTS = randn(64, 100)
        close(f(x), x @ WEIGHTS, 2e-5)
        assert f.cache_info().misses == 2
        with pytest.raises(TypeError, match="replaced by another array"):
            compiled(x)
    finally:
        WEIGHTS = saved


def test_freeze_is_cpu_only():
    with pytest.raises(ValueError, match="CPU target only"):
        jit(lambda x: x, freeze=True, target="cuda")
