"""examples/gpt2.py, unmodified NumPy, compiled with tinytensor.jit and
compared with NumPy running the same code."""

import os
import re
import sys
import time

import numpy as np
import pytest

from tinytensor import jit
from tinytensor.types import DYNAMIC

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "examples"))

import gpt2 as gpt2_example  # noqa: E402
from gpt2 import CONFIGS, gpt2, random_params  # noqa: E402


def assert_logits_close(got, expected):
    assert isinstance(got, np.ndarray)
    assert got.shape == expected.shape
    # NumPy's own result is float64: gelu's np.sqrt(2 / np.pi) is a strong
    # float64 scalar. The compiled code must follow NumPy there too.
    assert got.dtype == expected.dtype
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, expected, rtol=1e-4,
                               atol=1e-5 * np.abs(expected).max())


def _model(name, seed=0):
    config = dict(CONFIGS[name])
    n_head = config.pop("n_head")
    return config, n_head, random_params(**config, seed=seed)


def _flat_arrays(value):
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [a for v in value for a in _flat_arrays(v)]


@pytest.fixture(scope="module")
def small():
    config, n_head, params = _model("small")
    compiled = jit(lambda ids: gpt2(ids, **params, n_head=n_head))
    return config, n_head, params, compiled


def test_small_matches_numpy(small):
    config, n_head, params, compiled = small
    ids = np.random.default_rng(1).integers(
        0, config["n_vocab"], 16).astype(np.int32)
    logits = compiled(ids)
    assert logits.shape == (16, config["n_vocab"])
    assert_logits_close(logits, gpt2(ids, **params, n_head=n_head))


def test_small_module_is_tt_with_weights_as_arguments(small):
    config, n_head, params, compiled = small
    ids = np.arange(8, dtype=np.int32)
    c = compiled.compile(ids)
    assert "tt.gather" in str(c.module) and "tt.matmul" in str(c.module)
    assert "llvm.func" in str(c.lowered)
    # Every weight is a trailing argument, none is embedded in the IR.
    signature = re.search(r"func\.func @\w+\(([^)]*)\)", str(c.module)).group(1)
    n_args = signature.count("%arg")
    assert n_args >= 1 + len(_flat_arrays(params))
    assert "dense<[" not in str(c.module)
    assert str(params["wte"].shape[0]) in str(c.module)


def test_small_specialisation(small):
    config, n_head, params, compiled = small
    rng = np.random.default_rng(2)
    ids = rng.integers(0, config["n_vocab"], 12).astype(np.int32)
    first = compiled.compile(ids)
    assert_logits_close(compiled(ids), gpt2(ids, **params, n_head=n_head))
    # New token values of the same length reuse the specialisation.
    ids2 = rng.integers(0, config["n_vocab"], 12).astype(np.int32)
    assert_logits_close(compiled(ids2), gpt2(ids2, **params, n_head=n_head))
    assert compiled.compile(ids2) is first
    # A new length (a new shape, and a new causal mask): the length is
    # dynamic from the second length on (automatic dynamic shapes).
    ids3 = rng.integers(0, config["n_vocab"], 5).astype(np.int32)
    assert_logits_close(compiled(ids3), gpt2(ids3, **params, n_head=n_head))
    third = compiled.compile(ids3)
    assert third is not first or first.dynamic is not None
    assert third.dynamic is not None
    assert third.input_types[0].shape == (DYNAMIC,)
    # Single token.
    ids4 = ids3[:1].copy()
    assert_logits_close(compiled(ids4), gpt2(ids4, **params, n_head=n_head))


def test_small_weights_are_read_at_each_call():
    config, n_head, params = _model("small", seed=3)
    compiled = jit(lambda ids: gpt2(ids, **params, n_head=n_head))
    ids = np.array([1, 5, 9, 400], np.int32)
    before = compiled(ids)
    first = compiled.compile(ids)
    params["ln_f"]["b"] += 0.5
    params["blocks"][1]["mlp"]["c_fc"]["w"] *= 2
    after = compiled(ids)
    assert compiled.compile(ids) is first
    assert not np.allclose(before, after)
    assert_logits_close(after, gpt2(ids, **params, n_head=n_head))


def test_small_float64():
    config, n_head, _ = _model("small")
    params = random_params(**config, seed=4, dtype=np.float64)
    compiled = jit(lambda ids: gpt2(ids, **params, n_head=n_head))
    ids = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)
    got = compiled(ids)
    expected = gpt2(ids, **params, n_head=n_head)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=1e-9,
                               atol=1e-10 * np.abs(expected).max())


def test_building_blocks_match_numpy():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 32)).astype(np.float32)
    g, b = rng.standard_normal(32).astype(np.float32), \
        rng.standard_normal(32).astype(np.float32)
    for fn, args in [(gpt2_example.gelu, (x,)),
                     (gpt2_example.softmax, (x,)),
                     (lambda x, g, b: gpt2_example.layer_norm(x, g, b),
                      (x, g, b))]:
        expected = fn(*args)
        got = jit(fn)(*args)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_124m_shapes_one_forward_pass(record_property):
    """GPT-2 124M shapes with random weights, 8 tokens: one compile and one
    forward pass (the compile takes minutes on a small machine)."""
    config, n_head, params = _model("124m")
    ids = np.random.default_rng(6).integers(
        0, config["n_vocab"], 8).astype(np.int32)
    compiled = jit(lambda ids: gpt2(ids, **params, n_head=n_head))
    start = time.perf_counter()
    logits = compiled(ids)
    seconds = time.perf_counter() - start
    record_property("compile_and_run_s", round(seconds, 1))
    print(f"\nGPT-2 124M shapes, 8 tokens: compile + first call "
          f"{seconds:.1f} s")
    assert logits.shape == (8, config["n_vocab"])
    assert_logits_close(logits, gpt2(ids, **params, n_head=n_head))


def test_generation_compiles_per_bucket_not_per_length():
    """examples/generate.py: 32 new tokens from a 16-token prompt, padded
    to multiples of 32, compile twice and give NumPy's tokens."""
    import generate

    config, n_head, params = _model("small", seed=5)
    prompt = np.random.default_rng(2).integers(
        0, config["n_vocab"], 16).tolist()
    compiled = jit(generate.next_token)
    tokens = generate.generate(compiled, prompt, params, n_head, 32,
                               bucket=32)
    assert compiled.cache_info().misses == 2  # buckets 32 and 64
    assert compiled.cache_info().hits == 30
    assert tokens == generate.generate(generate.next_token, prompt, params,
                                       n_head, 32)


def test_generation_compiles_once_for_every_length():
    """examples/generate.py's default: the token ids' length is dynamic,
    one compilation serves every step, and the tokens are NumPy's."""
    import generate

    config, n_head, params = _model("small", seed=6)
    prompt = np.random.default_rng(3).integers(
        0, config["n_vocab"], 5).tolist()
    step = generate.compile_for_every_length(prompt, params, n_head)
    tokens = generate.generate(step, prompt, params, n_head, 12)
    assert tokens == generate.generate(generate.next_token, prompt, params,
                                       n_head, 12)


@pytest.mark.parametrize("sink", [True, False])
def test_generation_step_computes_one_row_of_logits(monkeypatch, sink):
    """next_token uses one row of the logits: the compiled step computes
    one row of the final layer norm and of the logits' product, unless
    sink-row-selections is off."""
    import generate
    from tinytensor import compiler

    monkeypatch.setenv("TT_CACHE", "0")
    monkeypatch.setattr(compiler, "_OPTIMIZE_OPTIONS",
                        f"sink-row-selections={str(sink).lower()}")
    config, n_head, params = _model("small", seed=5)
    ids = list(range(1, 33))
    vocab = config["n_vocab"]
    compiled = jit(generate.next_token).compile(ids, np.array(20), params,
                                                n_head)
    optimized = str(compiled.optimized)
    assert (f"tensor<1x{vocab}xf64>" in optimized) == sink
    assert (f"tensor<32x{vocab}xf64>" in optimized) != sink
    for last in (0, 20, 31, -1):
        assert int(compiled(ids, np.array(last), params, n_head)) == \
            int(generate.next_token(ids, np.array(last), params, n_head))


def test_gpt2_jit_takes_the_numpy_call():
    config, n_head, params = _model("small", seed=6)
    ids = [1, 5, 2, 9]
    got = jit(gpt2)(ids, **params, n_head=n_head)
    assert_logits_close(got, gpt2(ids, **params, n_head=n_head))
