"""A short, deterministic run of the random-program differential tester
(scripts/difftest.py): random NumPy programs compiled by tinytensor.jit
must agree with NumPy (shapes, dtypes, values within NumPy's own error)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "scripts"))

import difftest  # noqa: E402


def test_random_programs_agree_with_numpy():
    failures = difftest.failures(range(100_000, 100_200))
    assert not failures, "\n".join(failures)


def test_random_programs_with_a_dynamic_leading_dimension():
    """Compiled once with `?` leading dimensions, run at three sizes."""
    failures, counts = difftest.dynamic_failures(range(300_000, 300_060))
    assert not failures, "\n".join(failures)
    # Most programs take a dynamic batch; the rest are refused cleanly.
    assert counts["compiled"] >= 30, counts


def test_the_checker_catches_a_wrong_answer(monkeypatch):
    # The comparison can fail: a compiled result that is off by a little
    # more than rounding, or of another dtype, is reported.
    import numpy as np
    import tinytensor

    def program(x0):
        return (np.tanh(x0) * 3,)

    x = np.random.default_rng(0).standard_normal((17, 33)).astype(np.float32)
    assert difftest.check(program, [x]) is None

    real_jit = tinytensor.jit

    def off_by_a_little(fn):
        compiled = real_jit(fn)
        return lambda *a: tuple(r * np.float32(1 + 1e-4) for r in compiled(*a))

    monkeypatch.setattr(tinytensor, "jit", off_by_a_little)
    assert "error" in difftest.check(program, [x])

    def wrong_dtype(fn):
        compiled = real_jit(fn)
        return lambda *a: tuple(r.astype(np.float64) for r in compiled(*a))

    monkeypatch.setattr(tinytensor, "jit", wrong_dtype)
    assert "float64" in difftest.check(program, [x])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_programs_are_reproducible(seed):
    assert difftest.draw(seed, 8)[0] == difftest.draw(seed, 8)[0]
