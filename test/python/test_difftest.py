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


# -- large generated graphs (scripts/graphgen.py) ---------------------------


def test_the_checker_compares_compiled_code_with_its_reference():
    import numpy as np

    def program(x0):
        return (np.tanh(x0) * 3,)

    x = np.random.default_rng(1).standard_normal((5, 7))
    assert difftest.check(program, [x], reference=program) is None

    def off(x0):
        return (np.tanh(x0) * 3 * (1 + 1e-9),)

    assert "error" in difftest.check(off, [x], reference=program)


@pytest.mark.parametrize("seed", [7, 8])
def test_large_generated_graphs_agree_with_numpy(seed, monkeypatch):
    """Graphs of 1,000 to 1,500 operations with the op mix of transformers
    and CNNs compile (or fail with a diagnostic, which is reported as a
    failure all the same) and match NumPy. Longer runs: difftest --large
    and scripts/fuzz.sh."""
    monkeypatch.setenv("TT_CACHE", "0")
    source, summary, problem = difftest.run_large(seed, 1000, 1500)
    assert problem is None, f"seed {seed}: {summary}: {problem}\n{source}"


def test_large_graphs_are_large_and_reproducible():
    import graphgen

    prog = graphgen.draw_graph(3, 2000)
    assert prog.ops >= 2000
    source = prog.source()
    for op in ("np.take", "np.where", "np.transpose", ".reshape", " @ ",
               "np.max", "np.mean", "np.concatenate"):
        assert op in source, op
    assert graphgen.draw_graph(3, 2000).source() == source


def test_compile_time_grows_linearly_with_graph_size(monkeypatch):
    """The compile time per operation of a 1,200-op graph is at most twice
    that of a 300-op one (a pass quadratic in the number of ops would make
    it four times). The larger graph extends the smaller one: the same seed
    draws the same blocks first. Each size is timed twice, the faster
    run counts."""
    import numpy as np

    import graphgen
    from tinytensor import jit

    monkeypatch.setenv("TT_CACHE", "0")
    per_op = {}
    for size in (300, 1200):
        prog = graphgen.draw_graph(11, size)
        fn = difftest.compile_source(prog.source())
        arrays = prog.arrays(np.random.default_rng(11))
        best = float("inf")
        for _ in range(2):
            t = jit(fn).compile(*arrays).timings
            best = min(best, sum(t.get(k, 0.0) for k in
                                 ("tt-optimize", "tt-lower-to-llvm", "llvm")))
        per_op[size] = best / prog.ops
    assert per_op[1200] <= 2 * per_op[300], per_op
