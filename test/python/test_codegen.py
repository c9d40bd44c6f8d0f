"""The CPU back end (tiling, fusion, vectorisation, threads) against NumPy on
sizes that do not divide the tiles or vectors: 1, primes, 17, 1000, 1023,
non-square, broadcast batches, in float32, float64 and NumPy's mixed
precision. Every path of lib/Codegen/CPU/KernelConfig.cpp is reached:
matmul register tiles, dot products (transposed operands), row and column
reductions, elementwise rows, fused epilogues."""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tinytensor import jit

RNG = np.random.default_rng(7)

MATMUL_SHAPES = [
    ((1, 1), (1, 1)),
    ((3, 17), (17, 5)),
    ((17, 3), (3, 1000)),
    ((37, 53), (53, 29)),
    ((130, 257), (257, 67)),
    ((1023, 31), (31, 33)),
    ((8, 1000), (1000, 17)),
    ((1, 769), (769, 1)),
    ((16, 768), (768, 96)),
    ((2, 1, 37, 19), (3, 19, 23)),
    ((5, 17, 64), (5, 64, 33)),
    # K = 1031: the last 7 steps are a matmul of their own; N = 300: the
    # last column block is partial, its last strip masked.
    ((72, 1031), (1031, 300)),
    # Row blocks of 130 sharing each packed panel; 4097 columns.
    ((260, 96), (96, 4097)),
    # 1.5 vectors of columns over many rows: a vector and a peeled half
    # (on 512-bit vectors; 24 is three on 256-bit ones).
    ((4099, 37), (37, 24)),
    # Batched, K = 600 in blocks of 300.
    ((2, 40, 600), (600, 520)),
    # K = 2083 (prime): reduction blocks of 512 or 1024 (with a 2 MiB L2),
    # C carried across them, then a remainder; 67 rows (6-row tiles, 1 left).
    ((67, 2083), (2083, 129)),
    # As x @ w.T: 40 rows and a B of 624 KB, packed rather than dot products.
    ((40, 300), (300, 520)),
    # 517 rows (prime factors 11 x 47): blocks of 256 rows by 128 columns,
    # a partial row block and a partial column block; K = 1100 in one
    # block of 1100 (2 MiB L2) or 1024 and a remainder of 76.
    ((517, 1100), (1100, 193)),
    # B's rows more than 8 KiB apart (in f32 too): the packing prefetches
    # rows 4 ahead, clamped to B's last (K = 3), in full and partial
    # column blocks, and in a batch of B matrices.
    ((17, 3), (3, 2500)),
    ((64, 1023), (1023, 2100)),
    ((3, 16, 64), (3, 64, 2200)),
]


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(got, expected, rtol):
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    scale = max(float(np.abs(expected).max()), 1.0)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale)


def tolerance(dtype):
    return 2e-5 if dtype == np.float32 else 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64],
                         ids=["f32", "f64"])
@pytest.mark.parametrize("a,b", MATMUL_SHAPES, ids=str)
def test_matmul(a, b, dtype):
    x, y = randn(*a, dtype=dtype), randn(*b, dtype=dtype)
    close(jit(lambda p, q: p @ q)(x, y), x @ y, tolerance(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("a, b", [((2, 5, 3), (3, 4)), ((7, 17, 33), (33, 65)),
                                  ((3, 2, 129, 64), (64, 31))], ids=str)
def test_stack_of_matrices_times_matrix(a, b, dtype):
    # One matmul with the batch as rows; also through an explicit broadcast
    # of the matrix (as torch.export's expand + bmm writes a linear layer).
    x, w = randn(*a, dtype=dtype), randn(*b, dtype=dtype)
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    close(jit(lambda x, w: x @ w)(x, w), x @ w, rtol)
    expanded = lambda x, w: np.matmul(x, np.broadcast_to(w, a[:-2] + b))
    close(jit(expanded)(x, w), x @ w, rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("batch,m,k,n", [(6, 37, 70, 120), (16, 20, 9, 88),
                                         (12, 100, 64, 100), (3, 7, 5, 3)],
                         ids=str)
def test_batched_matmul_of_odd_widths(batch, m, k, n, dtype):
    # A block per batch holds all n columns: the register tiles' static
    # tail (56, 24, 36 columns) is a masked power-of-two vector; also with
    # B transposed (attention's q @ k.T over 100 tokens).
    a, b = randn(batch, m, k, dtype=dtype), randn(batch, k, n, dtype=dtype)
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    close(jit(lambda a, b: a @ b)(a, b), a @ b, rtol)
    bt = np.ascontiguousarray(np.swapaxes(b, 1, 2))
    close(jit(lambda a, b: a @ np.swapaxes(b, 1, 2))(a, bt), a @ b, rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_batched_matmul_of_a_seq_first_operand(dtype):
    # p @ v with v laid out [seq, batch, d] and transposed to [batch, seq, d]
    # (attention with batch_first=False): the transpose is not folded into
    # the contraction, which stays a batched matmul.
    p, v = randn(12, 33, 33, dtype=dtype), randn(33, 12, 16, dtype=dtype)
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    f = lambda p, v: p @ np.transpose(v, (1, 0, 2))
    close(jit(f)(p, v), f(p, v), rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64],
                         ids=["f32", "f64"])
@pytest.mark.parametrize("a,b", MATMUL_SHAPES, ids=str)
def test_matmul_transposed(a, b, dtype):
    # x @ w.T with w laid out [..., n, k]: the dot-products kernel.
    x = randn(*a, dtype=dtype)
    w = np.ascontiguousarray(np.swapaxes(randn(*b, dtype=dtype), -1, -2))
    axes = (*range(w.ndim - 2), w.ndim - 1, w.ndim - 2)
    close(jit(lambda p, q: p @ q.transpose(axes))(x, w),
          x @ w.transpose(axes), tolerance(dtype))


MIXED_SHAPES = MATMUL_SHAPES[:8] + [
    # Packed B, converted to f64 while packed; K split; masked last strip.
    ((72, 1031), (1031, 300)),
    ((260, 96), (96, 4097)),
    # x @ w.T with 40 rows: packed transposed strips, not dot products.
    ((40, 300), (300, 520)),
    # Blocks of 256 rows by 128 columns, partial both ways.
    ((517, 1100), (1100, 193)),
    # w.T packed 16 rows of a strip at a time (more than 64 rows: not dot
    # products): a reduction of one chunk and one more row, one of a single
    # row, and one with a last chunk of 15 and a single partial strip.
    ((65, 17), (17, 45)),
    ((100, 1), (1, 70)),
    ((80, 1023), (1023, 31)),
]


@pytest.mark.parametrize("transposed", [False, True], ids=["w", "w.T"])
@pytest.mark.parametrize("a,b", MIXED_SHAPES, ids=str)
def test_matmul_mixed_precision(a, b, transposed):
    # NumPy promotes f64 @ f32 to f64; the f32 operand is converted as it is
    # packed or read, inside the contraction.
    x = randn(*a, dtype=np.float64)
    w = randn(*b)
    if transposed:
        w = np.ascontiguousarray(w.T)
        f = jit(lambda p, q: p @ q.T)
        expected = x @ w.T
    else:
        f = jit(lambda p, q: p @ q)
        expected = x @ w
    close(f(x, w), expected, 1e-12)


def at_line_offset(shape, offset, dtype):
    """A C-contiguous array of `shape` whose data starts `offset` bytes past
    a 64-byte cache line (NumPy's own large arrays start 16 bytes past)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(size + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    a = raw[start:start + size].view(dtype).reshape(shape)
    a[...] = randn(*shape, dtype=dtype)
    return a


@pytest.mark.parametrize("align", [True, False],
                         ids=["align-columns", "packed"])
@pytest.mark.parametrize("m,k,n", [(1, 5, 64), (3, 17, 80), (9, 33, 1024),
                                   (16, 768, 768), (16, 100, 272),
                                   (16, 20, 72), (64, 9, 96), (65, 20, 64)],
                         ids=str)
def test_few_rows_times_float32_weights_at_every_line_offset(
        monkeypatch, align, m, k, n):
    """f64 @ f32 with few rows (a float64 model over a few tokens): with
    align-columns the columns are split at run time where B's cache lines
    begin, so one compiled function must be right wherever B starts (every
    float32 position in a line, and one that is not a multiple of 4
    bytes). (16, 20, 72) and (65, 20, 64) are not split."""
    from tinytensor import compiler

    monkeypatch.setenv("TT_CACHE", "0")
    monkeypatch.setattr(compiler, "_EXTRA_OPTIONS",
                        f"align-columns={str(align).lower()}")
    x = randn(m, k, dtype=np.float64)
    b = randn(n, dtype=np.float64)
    f = jit(lambda p, q: p @ q)
    g = jit(lambda p, q, c: np.tanh(p @ q + c))
    for offset in list(range(0, 64, 4)) + [2]:
        w = at_line_offset((k, n), offset, np.float32)
        close(f(x, w), x @ w, 1e-12)
        close(g(x, w, b), np.tanh(x @ w + b), 1e-12)


@pytest.mark.parametrize("prefetch", [True, False],
                         ids=["prefetch", "no-prefetch"])
@pytest.mark.parametrize("xtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("m,k,n", [(1, 768, 1003), (5, 33, 7), (8, 17, 30),
                                   (16, 768, 1001), (13, 100, 3)], ids=str)
def test_logits_with_prefetched_rows(monkeypatch, prefetch, xtype, m, k, n):
    """x @ w.T with few rows (a logits layer) and w a float32 argument: the
    dot-products kernel prefetches the rows of w that the next register
    tile reads, clamped to w's last row; results must not depend on it
    (column counts that are not a multiple of the tile, fewer than one
    tile, and a last block of rows past which nothing is left)."""
    from tinytensor import compiler

    monkeypatch.setenv("TT_CACHE", "0")
    monkeypatch.setattr(compiler, "_EXTRA_OPTIONS",
                        f"prefetch={str(prefetch).lower()}")
    x, w = randn(m, k, dtype=xtype), randn(n, k)
    close(jit(lambda p, q: p @ q.T)(x, w), x @ w.T, tolerance(xtype))


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                  (x + 0.044715 * x**3)))


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (17, 33, 1023), (128, 64, 256),
                                   (1000, 17, 3)])
def test_linear_gelu_epilogue(m, k, n):
    # The bias + gelu epilogue runs in the matmul's blocks.
    x, w, b = randn(m, k), randn(k, n), randn(n)
    close(jit(lambda x, w, b: gelu(x @ w + b))(x, w, b), gelu(x @ w + b),
          1e-5)


def layer_norm(x, g, b):
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return g * (x - mean) / np.sqrt(var + 1e-5) + b


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64],
                         ids=["f32", "f64"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (1000, 1023), (4096, 7),
                                   (2, 5, 769), (64, 768), (17, 1024),
                                   (5, 48), (130, 3072), (3, 4097)], ids=str)
def test_row_reductions(shape, dtype):
    x = randn(*shape, dtype=dtype)
    g, b = randn(shape[-1], dtype=dtype), randn(shape[-1], dtype=dtype)
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    close(jit(layer_norm)(x, g, b), layer_norm(x, g, b), rtol)
    close(jit(softmax)(x), softmax(x), rtol)


@pytest.mark.parametrize("reciprocal", [True, False],
                         ids=["reciprocal", "divide"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64],
                         ids=["f32", "f64"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (7, 1), (1000, 1023),
                                   (2, 5, 769)], ids=str)
def test_division_by_row_values(monkeypatch, reciprocal, dtype, shape):
    """x / s with s one value per row (a row sum, a norm, an argument of
    shape (..., 1), or computed from such values) or one per column (a
    per-channel scale, shape (n,)) is x * (1 / s) with reciprocal-divisors
    (the default): within two roundings of NumPy's quotient; without it,
    and for divisors that vary along every loop, NumPy's quotient bit for
    bit (the row sums themselves are not NumPy's bit for bit: other
    summation order)."""
    from tinytensor import compiler

    monkeypatch.setenv("TT_CACHE", "0")
    monkeypatch.setattr(compiler, "_EXTRA_OPTIONS",
                        f"reciprocal-divisors={str(reciprocal).lower()}")
    x = randn(*shape, dtype=dtype)
    s = randn(*shape[:-1], 1, dtype=dtype) + dtype(3)
    y = randn(shape[-1], dtype=dtype) + dtype(3)

    def by_rows(x):
        return x / (np.sum(np.abs(x), axis=-1, keepdims=True) + 1)

    eps = np.finfo(dtype).eps
    check = (lambda got, want: np.testing.assert_allclose(
        got, want, rtol=2 * eps, atol=0)) if reciprocal else \
        np.testing.assert_array_equal
    np.testing.assert_allclose(jit(by_rows)(x), by_rows(x), rtol=8 * eps,
                               atol=0)
    check(jit(lambda x, s: x / s)(x, s), x / s)
    per_column = check if len(shape) > 1 and shape[0] > 1 else \
        np.testing.assert_array_equal
    per_column(jit(lambda x, y: x / y)(x, y), x / y)
    np.testing.assert_array_equal(jit(lambda x, z: x / z)(x, x + dtype(3)),
                                  x / (x + dtype(3)))
    # Divisors computed from row values in the same op (layer_norm's
    # sqrt(var + eps)), from one row value and from two.
    t = randn(*shape[:-1], 1, dtype=dtype)
    np.testing.assert_allclose(
        jit(lambda x, s: x / np.sqrt(s * s + 1))(x, s),
        x / np.sqrt(s * s + 1), rtol=4 * eps, atol=0)
    np.testing.assert_allclose(
        jit(lambda x, s, t: (x - t) / (s * s + t * t + 1))(x, s, t),
        (x - t) / (s * s + t * t + 1), rtol=4 * eps, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64],
                         ids=["f32", "f64"])
@pytest.mark.parametrize("n", [1, 17, 1023, 4099, 9000])
def test_max_min_nan_and_zeros(n, dtype):
    """Row and whole maxima and minima propagate NaN wherever it is, and
    rows of zeros of either sign give a zero (the sign of a zero result is
    not specified, as in NumPy, whose np.max([0.0, -0.0]) is -0.0)."""
    x = randn(6, n, dtype=dtype)
    x[1, n // 2] = np.nan
    x[2, -1] = np.nan
    x[3, :] = -0.0
    x[3, 0] = 0.0
    x[4, :] = 0.0
    x[4, -1] = -0.0
    x[5, :] = -np.inf
    for f in (lambda x: np.max(x, axis=-1), lambda x: np.min(x, axis=-1),
              lambda x: np.max(x), lambda x: np.min(x[3:]),
              lambda x: np.max(x, axis=-1, keepdims=True) - x):
        got, want = jit(f)(x), f(x)
        np.testing.assert_array_equal(got, want)


def head(x, g, b, w):
    """A language model's head: layer norm, then logits x @ w.T in the
    precision NumPy promotes to."""
    return layer_norm(x, g, b) @ w.T


ROW_SELECTIONS = {
    "last": (lambda y, i: y[-1], None),
    "array index": (lambda y, i: y[i], "index"),
    "index array": (lambda y, i: y[i], "indices"),
    "slice": (lambda y, i: y[2:5], None),
    "strided": (lambda y, i: y[1::3], None),
    "softmax of the last": (lambda y, i: softmax(y[-1:]), None),
}


@pytest.mark.parametrize("sink", [True, False], ids=["sink", "nosink"])
@pytest.mark.parametrize("x_dtype,w_dtype",
                         [(np.float32, np.float32), (np.float64, np.float32),
                          (np.float64, np.float64)],
                         ids=["f32", "f64xf32", "f64"])
@pytest.mark.parametrize("rows,width,vocab", [(7, 17, 1023), (33, 64, 257)])
@pytest.mark.parametrize("select", ROW_SELECTIONS, ids=str)
def test_rows_selected_from_a_model_head(monkeypatch, select, rows, width,
                                         vocab, x_dtype, w_dtype, sink):
    """Rows taken from layer_norm(x) @ w.T (a slice or a gather): with
    sink-row-selections only those rows are computed; same values."""
    from tinytensor import compiler

    monkeypatch.setenv("TT_CACHE", "0")
    monkeypatch.setattr(compiler, "_OPTIMIZE_OPTIONS",
                        f"sink-row-selections={str(sink).lower()}")
    pick, kind = ROW_SELECTIONS[select]
    x = randn(rows, width, dtype=x_dtype)
    g, b = randn(width, dtype=x_dtype), randn(width, dtype=x_dtype)
    w = randn(vocab, width, dtype=w_dtype)
    i = {None: None, "index": np.array(rows // 2),
         "indices": np.array([rows - 1, 0, -2, 3])}[kind]

    def f(x, g, b, w, i):
        return pick(head(x, g, b, w), i)

    close(jit(f)(x, g, b, w, i), f(x, g, b, w, i), tolerance(x_dtype))


def test_f32_row_sums_accuracy():
    # float32 rows summed by 8-value partial sums in float32, then float64
    # (f32-partial-sums=8): closer to the exact sum than NumPy's pairwise
    # float32 summation, on rows whose large mean makes rounding visible.
    x = (1000 + randn(64, 4096)).astype(np.float32)
    exact = x.astype(np.float64).sum(axis=-1)
    ours = jit(lambda a: np.sum(a, axis=-1))(x)
    theirs = np.sum(x, axis=-1)
    assert ours.dtype == theirs.dtype == np.float32
    ours_err = np.abs(ours.astype(np.float64) - exact).max()
    numpy_err = np.abs(theirs.astype(np.float64) - exact).max()
    assert ours_err <= numpy_err
    assert ours_err <= 1e-6 * np.abs(exact).max()


@pytest.mark.parametrize("shape", [(1, 1), (1023, 17), (7, 4099)], ids=str)
def test_column_reductions(shape):
    x = randn(*shape)
    close(jit(lambda a: np.sum(a, axis=0))(x), np.sum(x, axis=0), 2e-5)
    close(jit(lambda a: np.max(a, axis=0))(x), np.max(x, axis=0), 0)


@pytest.mark.parametrize("n", [1, 17, 1000, 100003])
def test_elementwise_1d(n):
    x = randn(n)
    close(jit(gelu)(x), gelu(x), 1e-5)


@pytest.mark.parametrize("fn", [np.tanh, np.exp, np.log, "erf"],
                         ids=["tanh", "exp", "log", "erf"])
@pytest.mark.parametrize("n", [3, 64, 1003])
def test_f64_math_on_vectors(fn, n):
    # f64 transcendental functions on vectors (glibc's libmvec on x86).
    x = np.abs(randn(2, n, dtype=np.float64)) + 0.1
    if fn == "erf":
        import tinytensor
        got = jit(lambda a: tinytensor.erf(a))(x)
        expected = np.vectorize(math.erf)(x)
    else:
        got, expected = jit(lambda a: fn(a))(x), fn(x)
    close(got, expected, 1e-14)


@pytest.mark.parametrize("position", [0, 5, 8, 63])
def test_f64_exp_of_extreme_values(position):
    # exp of lanes below -745.2 is set to 0 around libmvec (which computes
    # such lanes one at a time); subnormal results, overflow and NaN still
    # go through it. One extreme value among ordinary ones, at several
    # lanes of a register, then every value at once.
    extremes = [-1e10, -np.inf, -800.0, -745.3, -745.1, -720.0, -708.5,
                -708.0, 709.7, 710.0, 1e10, np.inf, np.nan]
    f = jit(lambda a: np.exp(a))
    with np.errstate(over="ignore"):
        for value in extremes:
            x = np.linspace(-3.0, 3.0, 64)
            x[position] = value
            np.testing.assert_allclose(f(x), np.exp(x), rtol=1e-14, atol=0)
        x = np.resize(np.array(extremes), 64)
        np.testing.assert_allclose(f(x), np.exp(x), rtol=1e-14, atol=0)


def test_buffers_are_reused_across_calls():
    # Intermediate buffers (here [600 x 600] float32, 1.4 MiB) go back to
    # the runtime's cache and serve the next call.
    from tinytensor import runtime

    f = jit(lambda a, b: np.tanh(a @ b) @ b.T)
    a = randn(600, 600).astype(np.float32)
    expected = np.tanh(a @ a) @ a.T
    close(f(a, a), expected, 2e-5)
    runtime.release_cached_buffers()
    close(f(a, a), expected, 2e-5)  # fills the cache
    before = runtime.buffer_cache_stats()
    assert before["cached_bytes"] > 0
    for _ in range(3):
        close(f(a, a), expected, 2e-5)
    after = runtime.buffer_cache_stats()
    # Most requests are served from the cache. Not all: the worker threads'
    # packed panels of B (512 KiB) are cached too, and how many of them are
    # alive at once depends on how the threads interleave, so a call may
    # need one buffer more than the calls before it released.
    hits = after["hits"] - before["hits"]
    misses = after["misses"] - before["misses"]
    assert hits > 0 and misses < hits, (hits, misses)
    runtime.release_cached_buffers()
    assert runtime.buffer_cache_stats()["cached_bytes"] == 0


def test_buffer_cache_evicts_the_least_recently_used_buffers():
    # A function called no more (f) must not hold the cache for good: with
    # room for g's buffers but not for f's and g's together, g's buffers
    # are served from the cache at every call once f's are evicted (before,
    # g's largest buffer was freed and faulted in afresh at every call).
    script = textwrap.dedent("""
        import numpy as np
        from tinytensor import jit, runtime
        rng = np.random.default_rng(0)
        a = rng.standard_normal((1000, 1000)).astype(np.float32)
        b = rng.standard_normal((1200, 1200)).astype(np.float32)
        f = jit(lambda a: np.tanh(a @ a) @ a)
        g = jit(lambda b: np.tanh(b @ b) @ b)
        for _ in range(3):
            f(a)
        f_bytes = runtime.buffer_cache_stats()["cached_bytes"]
        for _ in range(2):
            g(b)
        before = runtime.buffer_cache_stats()
        for _ in range(4):
            np.testing.assert_allclose(g(b), np.tanh(b @ b) @ b, rtol=2e-3,
                                       atol=2e-3)
        after = runtime.buffer_cache_stats()
        print(f_bytes, after["peak_bytes"], after["limit_bytes"],
              after["misses"] - before["misses"])
    """)
    env = dict(os.environ, TT_BUFFER_CACHE_MB="10")
    run = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    f_bytes, g_peak, limit, misses = map(int, run.stdout.split())
    # The case this tests: f's and g's buffers do not fit together.
    assert g_peak <= limit < f_bytes + g_peak, (f_bytes, g_peak, limit)
    assert misses == 0, misses


@pytest.mark.parametrize("value, warns",
                         [("0", False), ("lots", True), ("", False)])
def test_buffer_cache_size_from_the_environment(value, warns):
    script = textwrap.dedent("""
        import numpy as np
        from tinytensor import jit, runtime
        a = np.random.default_rng(0).standard_normal((600, 600))
        f = jit(lambda a: np.tanh(a @ a) @ a)
        for _ in range(3):
            np.testing.assert_allclose(f(a), np.tanh(a @ a) @ a, rtol=1e-10,
                                       atol=1e-10)
        s = runtime.buffer_cache_stats()
        print(s["cached_bytes"], s["limit_bytes"], s["peak_bytes"],
              int(s["automatic"]))
    """)
    env = dict(os.environ, TT_BUFFER_CACHE_MB=value)
    run = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    cached, limit, peak, automatic = map(int, run.stdout.split())
    assert ("TT_BUFFER_CACHE_MB=lots" in run.stderr) == warns
    assert peak >= 600 * 600 * 8  # tanh(a @ a) at least
    if value == "0":
        assert cached == 0 and limit == 0 and not automatic
    else:
        # Unset or not a number: the automatic limit, the peak in use but
        # at least 256 MiB, and the last call's buffers kept.
        assert automatic and limit == max(256 << 20, peak)
        assert cached > 0


def test_thread_counts_agree():
    # The same program with 1 and 3 threads (more than this machine may
    # have) gives the same results; TT_NUM_THREADS is read at import time.
    script = textwrap.dedent("""
        import numpy as np, sys
        from tinytensor import jit, runtime
        rng = np.random.default_rng(3)
        x, w = rng.standard_normal((300, 200)), rng.standard_normal((200, 500))
        y = jit(lambda a, b: np.tanh(a @ b))(x.astype(np.float32),
                                             w.astype(np.float32))
        np.save(sys.argv[1], y)
        print(runtime.NUM_THREADS)
    """)
    outs = []
    for threads in ("1", "3"):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                            f"tt_threads_{os.getpid()}_{threads}.npy")
        env = dict(os.environ, TT_NUM_THREADS=threads)
        run = subprocess.run([sys.executable, "-c", script, path], env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == threads
        outs.append(np.load(path))
        os.remove(path)
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_bad_thread_count(value):
    env = dict(os.environ, TT_NUM_THREADS=value)
    run = subprocess.run([sys.executable, "-c", "import tinytensor.runtime"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "TT_NUM_THREADS must be a positive integer" in run.stderr


def test_compile_timings(monkeypatch):
    monkeypatch.setenv("TT_CACHE", "0")
    # Each stage of the first compilation is timed (docs/performance.md
    # reports them for GPT-2).
    compiled = jit(lambda a: np.tanh(a) @ a.T).compile(randn(8, 8))
    stages = [k for k in compiled.timings if not k.startswith("pass:")]
    assert stages == ["trace", "tt-optimize", "tt-lower-to-llvm", "llvm"]
    assert all(t >= 0 for t in compiled.timings.values())


@pytest.mark.parametrize("options", ["pack=false threads=1",
                                     "vectorize=false vector-math=false",
                                     "tile=false fusion=false",
                                     "masked=false reciprocal-divisors=false",
                                     "fuse-rows=false f32-partial-sums=1"])
def test_pipeline_options_from_python(options):
    # Every stage has an off switch; TT_PIPELINE_OPTIONS applies them to all
    # compilations of a process, and the results stay NumPy's.
    script = textwrap.dedent("""
        import math, numpy as np
        from tinytensor import jit
        rng = np.random.default_rng(5)
        x = rng.standard_normal((37, 53))
        w = rng.standard_normal((29, 53)).astype(np.float32)
        def f(a, b):
            y = np.tanh(a @ b.T)
            e = np.exp(y - np.max(y, axis=-1, keepdims=True))
            return e / np.sum(e, axis=-1, keepdims=True)
        got, expected = jit(f)(x, w), f(x, w)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
        print("ok")
    """)
    env = dict(os.environ, TT_PIPELINE_OPTIONS=options)
    run = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_bad_pipeline_option_names_the_variable():
    env = dict(os.environ, TT_PIPELINE_OPTIONS="packk=false")
    script = ("import numpy as np\nfrom tinytensor import jit\n"
              "jit(lambda a: a + 1)(np.ones(3))\n")
    run = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "TT_PIPELINE_OPTIONS='packk=false'" in run.stderr


def test_perf_map_names_compiled_functions(tmp_path):
    """TT_PERF_MAP=1 lists compiled code's functions in /tmp/perf-<pid>.map
    (what `perf report` reads to name JIT code)."""
    script = textwrap.dedent("""
        import os
        import numpy as np
        from tinytensor import jit
        a = np.random.default_rng(0).standard_normal((300, 300))
        np.testing.assert_allclose(jit(lambda a: np.tanh(a @ a))(a),
                                   np.tanh(a @ a), rtol=1e-10, atol=1e-10)
        path = f"/tmp/perf-{os.getpid()}.map"
        print(open(path).read())
        os.remove(path)
    """)
    env = dict(os.environ, TT_PERF_MAP="1", TT_CACHE="0")
    run = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = [line.split() for line in run.stdout.splitlines() if line]
    assert lines and all(len(fields) == 3 for fields in lines)
    names = {fields[2] for fields in lines}
    assert "_mlir_ciface_main" in names or any(
        n.startswith("main") for n in names), names
    for address, size, _ in lines:
        assert int(address, 16) > 0 and int(size, 16) > 0


@pytest.mark.parametrize("openmp", ["gnu", "llvm"])
def test_parallel_loops_on_either_openmp_runtime(openmp):
    """TT_OPENMP=gnu runs compiled code's parallel loops on GNU OpenMP
    (libgomp, PyTorch's runtime) through the shim of libomp's entry
    points; the results are the same as on LLVM's libomp, with any number
    of threads and uneven iteration counts."""
    script = textwrap.dedent("""
        import numpy as np
        from tinytensor import jit, runtime
        rng = np.random.default_rng(0)
        f = jit(lambda a, b: (np.tanh(a @ b) + 1.0).sum(axis=1))
        g = jit(lambda x: np.exp(x - x.max(axis=-1, keepdims=True)))
        for n in (1, 7, 333):
            a = rng.standard_normal((n, 257)).astype(np.float32)
            b = rng.standard_normal((257, 129)).astype(np.float32)
            np.testing.assert_allclose(f(a, b), (np.tanh(a @ b) + 1.0).sum(1),
                                       rtol=2e-4, atol=2e-4)
            x = rng.standard_normal((n, 1001))
            np.testing.assert_allclose(
                g(x), np.exp(x - x.max(axis=-1, keepdims=True)), rtol=1e-12)
            for threads in (1, 3):
                with runtime.settings(threads=threads):
                    np.testing.assert_allclose(
                        f(a, b), (np.tanh(a @ b) + 1.0).sum(1), rtol=2e-4,
                        atol=2e-4)
        print(f.compile(a, b)._executable.openmp)
    """)
    env = dict(os.environ, TT_OPENMP=openmp, TT_CACHE="0")
    run = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[-1] == openmp


def test_openmp_runtime_choice():
    script = "from tinytensor import runtime"
    env = dict(os.environ, TT_OPENMP="intel")
    run = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    assert "TT_OPENMP must be auto, llvm or gnu" in run.stderr
    # auto: GNU OpenMP once a library has loaded it (PyTorch does).
    script = textwrap.dedent("""
        import ctypes
        from tinytensor import runtime
        assert runtime.openmp_runtime() == ("llvm", None)
        ctypes.CDLL("libgomp.so.1")
        kind, path = runtime.openmp_runtime()
        assert kind == "gnu" and "libgomp" in path, (kind, path)
    """)
    env = dict(os.environ, TT_OPENMP="auto")
    run = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


def test_slp_vectorizer_switch(tmp_path):
    """TT_LLVM_SLP=1 compiles with LLVM's SLP vectoriser (off by default:
    slower to compile): the same results, and a compile cache key of its
    own."""
    script = textwrap.dedent("""
        import numpy as np
        from tinytensor import jit, runtime
        x = np.random.default_rng(0).standard_normal((37, 300))
        f = jit(lambda x: np.exp(x - x.max(axis=1, keepdims=True)).T @ x)
        np.testing.assert_allclose(
            f(x), np.exp(x - x.max(axis=1, keepdims=True)).T @ x, rtol=1e-9)
        print(runtime.codegen_key())
    """)
    keys = []
    for value in ("0", "1"):
        env = dict(os.environ, TT_LLVM_SLP=value,
                   TT_CACHE_DIR=str(tmp_path))
        run = subprocess.run([sys.executable, "-c", script], env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        keys.append(run.stdout.split()[-1])
    assert keys[1] == keys[0] + "-slp"
