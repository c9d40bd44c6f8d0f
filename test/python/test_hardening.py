"""Issue 12's reproducers for the Python front ends, each a regression test:
wrong answers that now match NumPy/PyTorch or raise their errors, threads,
bounded memory."""

import gc
import os
import warnings

import numpy as np
import pytest

from tinytensor import erf, jit


def test_var_with_ddof_at_least_n_is_inf_as_numpy():
    x = np.arange(3, dtype=np.float32)
    for ddof in (3, 4, 7):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = np.var(x, ddof=ddof)
        got = jit(lambda a: np.var(a, ddof=ddof))(x)
        assert np.isinf(got) and np.isinf(expected)


def test_integer_power_with_negative_exponent_raises_as_numpy():
    x = np.arange(1, 4, dtype=np.int32)
    with pytest.raises(ValueError, match="negative integer powers"):
        jit(lambda a: a ** -1)(x)  # a constant exponent: at trace time
    f = jit(lambda a, b: a ** b)
    np.testing.assert_array_equal(f(x, np.array([2, 0, 1], np.int32)),
                                  x ** np.array([2, 0, 1]))
    with pytest.raises(ValueError, match="negative integer powers"):
        f(x, np.array([2, -1, 1], np.int32))  # traced: at call time


def test_power_one_half_is_sqrt_as_numpy():
    x = np.array([-np.inf, 4.0, -0.0, -1.0, np.inf], np.float32)
    with np.errstate(invalid="ignore"):
        expected = x ** 0.5
    got = jit(lambda a: a ** 0.5)(x)
    np.testing.assert_array_equal(got, expected)
    assert np.signbit(got[2]) == np.signbit(expected[2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erf_of_negative_zero(dtype):
    got = jit(lambda a: erf(a))(np.array([-0.0, 0.0], dtype))
    assert np.signbit(got[0]) and not np.signbit(got[1])


@pytest.mark.slow
def test_rss_stays_bounded_over_many_shapes(monkeypatch):
    """1000 shapes through one jitted function with the default cache
    bound: the memory of evicted specialisations is released."""
    def rss_mb():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    monkeypatch.setenv("TT_CACHE", "0")  # memory, not the disk cache
    # 1000 distinct small shapes (small, so that they compile fast).
    shapes = [(n,) for n in range(1, 65)]
    shapes += [(i, j) for i in range(2, 65) for j in range(2, 65)
               if i * j <= 64]
    shapes += [(i, j, k) for i in range(2, 33) for j in range(2, 33)
               for k in range(2, 33) if i * j * k <= 192]
    shapes = shapes[:1000]
    assert len(shapes) == 1000
    f = jit(lambda a: a * 2.0 + 1.0, cache_size=16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the recompilation warning
        for shape in shapes[:100]:
            f(np.ones(shape, np.float32))
        gc.collect()
        before = rss_mb()
        for shape in shapes[100:]:
            f(np.ones(shape, np.float32))
        gc.collect()
        after = rss_mb()
    assert len(f._cache) == 16
    # 900 more specialisations kept would be ~3 MB each.
    assert after - before < 300, (before, after)


def test_torch_first_calls_from_eight_threads():
    torch = pytest.importorskip("torch")
    import tinytensor.torch as ttorch

    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
    run = ttorch.jit(model)
    x = torch.randn(2, 4)
    from arrays import call_from_threads
    results = call_from_threads(lambda i: run(x + i))
    assert len(run._cache) == 1
    with torch.no_grad():
        for i, r in enumerate(results):
            assert torch.allclose(r, model(x + i), atol=1e-6)


def test_torch_extra_arguments_are_a_type_error():
    torch = pytest.importorskip("torch")
    import tinytensor.torch as ttorch

    model = torch.nn.Linear(4, 3)
    run = ttorch.jit(model)
    x = torch.randn(2, 4)
    with pytest.raises(TypeError) as eager:
        model(x, x)
    with pytest.raises(TypeError, match="Linear.forward") as ours:
        run(x, x)
    assert "argument" in str(ours.value) and "argument" in str(eager.value)
    # Also once a call has been compiled and cached (cached calls skip the
    # signature check), and for keyword arguments.
    torch.testing.assert_close(run(x), model(x))
    with pytest.raises(TypeError, match="too many positional"):
        run(x, x)
    with pytest.raises(TypeError, match="keyword"):
        run(x, bias=x)
