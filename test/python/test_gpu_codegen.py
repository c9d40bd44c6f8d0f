"""The GPU strategy (lib/Codegen/GPU) against NumPy, with no GPU.

`--tt-gpu-tile-and-distribute` turns every op into loops of blocks and
threads on tensors: one element per thread in chunks of the block, row
reductions split into strided per-thread partial results merged by the
block, rows of a softmax or layer norm fused into one block, matmul blocks
with 4 x 4 outputs per thread. Those loops mean the same on any machine, so
here they are lowered by the CPU pipeline (sequential loops, no further
tiling) and run: every index computation, slice and partial reduction of
the GPU strategy is checked on awkward sizes. What only a GPU can check
(thread ids, barriers, gpu.all_reduce, workgroup memory) is left to
scripts/gpu-check; test/Codegen/GPU checks the IR that makes them."""

import os
import sys

import numpy as np
import pytest

from tinytensor import compiler, jit

RNG = np.random.default_rng(11)

EMULATED = ("func.func(tt-gpu-tile-and-distribute{workgroup-memory=false}),"
            "canonicalize,tt-lower-to-llvm{optimize=false tile=false "
            "vectorize=false threads=1 out-params=true generic-alloc=true}")


@pytest.fixture(autouse=True)
def gpu_strategy(monkeypatch):
    # The compile cache keys on the pipeline, so nothing compiled by the
    # CPU pipeline is reused.
    monkeypatch.setattr(compiler, "lowering_pipeline", lambda: EMULATED)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(got, expected, rtol=2e-5):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    scale = max(float(np.abs(expected).max()), 1.0)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("shape", [(1,), (7,), (255,), (257,), (1000, 3),
                                   (3, 1000), (17, 300), (2, 3, 5, 7),
                                   (2, 3, 4, 5, 6)], ids=str)
def test_elementwise(shape):
    x, b = randn(*shape), randn(shape[-1])
    f = lambda x, b: np.tanh(x * 2.0 + b) - x
    close(jit(f)(x, b), f(x, b))


@pytest.mark.parametrize("rows,cols", [(1, 1), (5, 63), (3, 64), (7, 100),
                                       (4, 256), (3, 1000), (2, 1023),
                                       (2, 4096), (33, 768)], ids=str)
def test_softmax(rows, cols):
    def softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    x = randn(rows, cols) * 4
    close(jit(softmax)(x), softmax(x))


@pytest.mark.parametrize("rows,cols", [(1, 64), (9, 100), (5, 768), (3, 1031),
                                       (2, 5000)], ids=str)
def test_layer_norm(rows, cols):
    def layer_norm(x, g, b):
        m = x.mean(axis=-1, keepdims=True)
        v = x.var(axis=-1, keepdims=True)
        return g * (x - m) / np.sqrt(v + 1e-5) + b
    x, g, b = randn(rows, cols) + 3, randn(cols), randn(cols)
    close(jit(layer_norm)(x, g, b), layer_norm(x, g, b), rtol=1e-4)


@pytest.mark.parametrize("shape,axis", [((1000,), None), ((1000, 3), None),
                                        ((5, 300), 1), ((300, 5), 0),
                                        ((4, 5, 70), 2), ((4, 70, 5), 1),
                                        ((2, 3, 4, 65), -1)], ids=str)
def test_reductions(shape, axis):
    x = randn(*shape)
    for f in (lambda x: x.sum(axis=axis), lambda x: x.max(axis=axis),
              lambda x: x.min(axis=axis), lambda x: x.mean(axis=axis)):
        close(np.asarray(jit(f)(x)), np.asarray(f(x)), rtol=1e-4)


def test_integer_and_index_reductions():
    x = RNG.integers(-50, 50, (6, 333)).astype(np.int32)
    s = lambda x: x.sum(axis=1, dtype=np.int32)
    np.testing.assert_array_equal(jit(s)(x), s(x))
    np.testing.assert_array_equal(jit(lambda x: x.max(axis=1))(x),
                                  x.max(axis=1))
    y = randn(5, 129)
    np.testing.assert_array_equal(jit(lambda y: y.argmax(axis=1))(y),
                                  y.argmax(axis=1))


@pytest.mark.parametrize("a,b", [((1, 1), (1, 1)), ((3, 17), (17, 5)),
                                 ((64, 64), (64, 64)), ((65, 130), (130, 63)),
                                 ((200, 300), (300, 130)),
                                 ((3, 37, 19), (3, 19, 70)),
                                 ((2, 5, 33, 8), (8, 65))], ids=str)
def test_matmul(a, b):
    x, y = randn(*a), randn(*b)
    close(jit(lambda p, q: p @ q)(x, y), x @ y, rtol=1e-4)


def test_matmul_with_epilogue_and_rows():
    # A transformer's feed-forward: matmul, bias, gelu, then a layer norm.
    def ff(x, w, b):
        h = x @ w + b
        h = 0.5 * h * (1 + np.tanh(0.79788456 * (h + 0.044715 * h ** 3)))
        m = h.mean(axis=-1, keepdims=True)
        return (h - m) / np.sqrt(h.var(axis=-1, keepdims=True) + 1e-5)
    x, w, b = randn(37, 64), randn(64, 96), randn(96)
    close(jit(ff)(x, w, b), ff(x, w, b), rtol=1e-4)


def test_shape_ops_and_scans():
    x, y = randn(7, 33), randn(7, 5)
    ids = np.array([3, 0, 6, 6], dtype=np.int32)
    for f in (lambda x, y: np.cumsum(x, axis=1),
              lambda x, y: x[::2, 1::3],
              lambda x, y: x.T + 1.0,
              lambda x, y: np.concatenate([x, y], axis=1),
              lambda x, y: np.where(x > 0, x, y[:, :1])):
        close(jit(f)(x, y), f(x, y))
    take = lambda x, ids: x[ids] * 2.0
    close(jit(take)(x, ids), take(x, ids))


# Random programs (scripts/difftest.py) through the GPU strategy: emulated
# on the CPU against NumPy, and compiled for the GPU to the end.

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "scripts"))
import difftest  # noqa: E402


def test_random_programs_agree_with_numpy():
    failures = difftest.failures(range(300_000, 300_100))
    assert not failures, "\n".join(failures)


def compile_for_gpu(seeds, pipeline):
    from tinytensor.jit import JitFunction
    failures = []
    for seed in seeds:
        source, fn, arrays, _, _ = difftest.draw(seed, 8)
        traced = JitFunction(fn, name="prog").trace(*arrays)
        with traced._context:
            module = compiler.clone(traced.module)
            try:
                compiler.run_pipeline(module, pipeline)
            except Exception as e:  # the compiler's error, with the program
                failures.append(f"seed {seed}: {str(e)[:2000]}\n{source}")
    return failures


def test_random_programs_compile_for_the_gpu():
    # Kernels and host code verify and lower to the LLVM dialect (found
    # before: values used before their definition after thread mapping,
    # whole-result buffers in every block's workgroup memory).
    failures = compile_for_gpu(range(300_000, 300_200),
                               "tt-lower-to-nvvm{binary=false}")
    assert not failures, "\n".join(failures)


CUDA = os.environ.get("CUDA_PATH", "/usr/local/cuda")


@pytest.mark.skipif(
    not (os.path.exists(os.path.join(CUDA, "bin", "ptxas")) and
         os.path.exists(os.path.join(CUDA, "nvvm", "libdevice",
                                     "libdevice.10.bc"))),
    reason="needs CUDA's ptxas and libdevice")
def test_random_programs_assemble_with_ptxas():
    # The PTX of the same programs assembles into cubins for sm_90.
    failures = compile_for_gpu(
        range(300_000, 300_040),
        f"tt-lower-to-nvvm{{format=bin cuda-path={CUDA}}}")
    assert not failures, "\n".join(failures)
