"""tinytensor.distributed: the API's errors in one process, and programs
over 2 MPI ranks (mpirun, MPICH) when mpirun is present."""

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT

dist = pytest.importorskip("tinytensor.distributed")
P = dist.P

MPIRUN = shutil.which("mpirun")
needs_mpirun = pytest.mark.skipif(MPIRUN is None,
                                  reason="mpirun (MPICH) is not installed")


def mlp(x, w1, w2):
    return np.maximum(x @ w1, 0) @ w2


def arrays():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((4, 6), dtype=np.float32),
            rng.standard_normal((6, 8), dtype=np.float32),
            rng.standard_normal((8, 3), dtype=np.float32))


def test_one_process_mesh_matches_numpy():
    x, w1, w2 = arrays()
    mesh = dist.Mesh((1,), ("tp",))
    f = dist.shard(mlp, mesh, in_shardings=(P(), P(None, "tp"), P("tp")))
    np.testing.assert_allclose(f(x, w1, w2), mlp(x, w1, w2), rtol=1e-5,
                               atol=1e-5)
    assert dist.size() == 1 and dist.rank() == 0


def test_mesh_larger_than_the_run():
    x, w1, w2 = arrays()
    f = dist.shard(mlp, dist.Mesh((2,), ("tp",)),
                   in_shardings=(P(), P(None, "tp"), P("tp")))
    with pytest.raises(ValueError, match=r"has 2 processes, but this run "
                                         r"has 1: start it with `mpirun -np 2"):
        f(x, w1, w2)


def test_mesh_that_does_not_divide_a_dimension():
    x, w1, w2 = arrays()
    f = dist.shard(mlp, dist.Mesh((4,), ("tp",)),
                   in_shardings=(P(), P(None, "tp"), P("tp")))
    with pytest.raises(ValueError, match=r"argument 'w1' of mlp\(\): "
                                         r"dimension 1 \(size 6\) cannot be split "
                                         r"evenly over mesh axes \('tp',\) "
                                         r"\(4 processes\)"):
        f(x, w1[:, :6].copy(), w2[:6])
    with pytest.raises(ValueError, match=r"argument 'x' of mlp\(\): "
                                         r"dimension 0 \(size 4\) cannot be "
                                         r"split evenly over mesh axes "
                                         r"\('dp',\) \(3 processes\)"):
        dist.shard(mlp, dist.Mesh((3,), ("dp",)),
                   in_shardings=(P("dp"),))(x, w1, w2)


def test_unknown_axis_and_axis_used_twice():
    x, w1, w2 = arrays()
    mesh = dist.Mesh((1, 1), ("dp", "tp"))
    with pytest.raises(ValueError, match=r"the mesh has no axis 'model' "
                                         r"\(its axes: dp, tp\)"):
        dist.shard(mlp, mesh, in_shardings=(P("model"),))(x, w1, w2)
    with pytest.raises(ValueError, match=r"mesh axis 'tp' splits both "
                                         r"dimension 0 and 1"):
        dist.shard(mlp, mesh, in_shardings=(P(), P("tp", "tp")))(x, w1, w2)
    with pytest.raises(ValueError, match=r"has 3 entries for an array of "
                                         r"shape \(4, 6\)"):
        dist.shard(mlp, mesh, in_shardings=(P("dp", None, None),))(
            x, w1, w2)


def test_bad_meshes_and_specs():
    with pytest.raises(ValueError, match="positive integers"):
        dist.Mesh((0,))
    with pytest.raises(ValueError, match="needs 2 axis names"):
        dist.Mesh((1, 1), ("a",))
    with pytest.raises(ValueError, match="distinct strings"):
        dist.Mesh((1, 1), ("a", "a"))
    with pytest.raises(TypeError, match="PartitionSpec entry"):
        P(0)
    with pytest.raises(TypeError, match="needs a mesh"):
        dist.shard(mlp)
    with pytest.raises(TypeError, match="shardings' structure"):
        dist.shard(mlp, dist.Mesh(1), in_shardings=({"a": P()},))(*arrays())


def test_split_spec_over_a_non_array():
    f = dist.shard(lambda x, n: x * n, dist.Mesh((1,), ("dp",)),
                   in_shardings=(P(), P("dp")), static_argnums=1)
    with pytest.raises(TypeError, match=r"argument 'n' of <lambda>\(\) is "
                                        r"a int, not a NumPy array: it "
                                        r"cannot be split"):
        f(np.ones(2, np.float32), 3)


def test_unsupported_op_under_sharding_names_op_and_split():
    from tinytensor.compiler import CompilationError
    x, w1, w2 = arrays()
    f = dist.shard(lambda a: np.concatenate([a, a]), dist.Mesh((1,), ("dp",)),
                   in_shardings=(P("dp"),))
    # np.concatenate becomes tensor.insert_slice ops; the error names the
    # op, the operand that is split, and the line of the call.
    with pytest.raises(CompilationError, match=r"test_distributed.py\":\d+:"
                                               r"\d+\): error: 'tensor\.\w+' "
                                               r"has no sharding rule .* its "
                                               r"operand 0 is split over the "
                                               r"grid"):
        f(x)


def test_replicated_result_and_split_result_in_one_process():
    x, w1, w2 = arrays()
    mesh = dist.Mesh((1,), ("dp",))
    g = dist.shard(mlp, mesh, in_shardings=(P("dp"),),
                   out_shardings=P("dp"))
    y = g(x, w1, w2)
    assert isinstance(y, dist.DistributedArray)
    assert y.shape == (4, 3) and y.local.shape == (4, 3)
    np.testing.assert_allclose(y.gather(), mlp(x, w1, w2), rtol=1e-5,
                               atol=1e-5)


def mpirun(*args, timeout=600, ranks=2):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    result = subprocess.run([MPIRUN, "-np", str(ranks), sys.executable, *args],
                            capture_output=True, text=True, timeout=timeout,
                            cwd=ROOT, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@needs_mpirun
def test_two_ranks():
    out = mpirun(os.path.join(ROOT, "test", "python", "distributed_ranks.py"))
    names = ["tensor-parallel", "distributed-weights",
             "communicators-constant", "data-parallel", "traced-index",
             "captured-operand", "split-iota", "split-gather"]
    try:
        import torch  # noqa: F401
        names.append("torch-module")
    except ImportError:
        pass
    for name in names:
        assert f"ok {name}" in out, out


@needs_mpirun
def test_four_ranks_on_a_two_by_two_mesh():
    """4 ranks (more than the cores here; MPICH shares them): all-reduces
    over either axis of a 2 x 2 mesh in one program, and an MLP with its
    batch split over one axis and its weights over the other."""
    out = mpirun(os.path.join(ROOT, "test", "python", "distributed_ranks.py"),
                 ranks=4)
    for name in ("2d-sum", "2d-two-axes", "dp-tp-mlp", "tensor-parallel",
                 "data-parallel"):
        assert f"ok {name}" in out, out


@needs_mpirun
def test_gpt2_tensor_parallel_tokens_match_one_process():
    out = mpirun(os.path.join(ROOT, "examples", "gpt2_tensor_parallel.py"),
                 "--config", "small", "--tokens", "64", "--context", "64")
    assert "tokens identical" in out, out
    error = float(re.search(r"max \|logits difference\| (\S+)", out)[1])
    assert error < 1e-5, out


@needs_mpirun
def test_gpt2_data_parallel_tokens_match_one_process():
    out = mpirun(os.path.join(ROOT, "examples", "gpt2_tensor_parallel.py"),
                 "--config", "small", "--tokens", "16", "--data-parallel",
                 "4")
    assert "tokens identical" in out, out


@needs_mpirun
def test_thousand_tokens_without_growth():
    """1,000 generated tokens: no new communicators after the first call,
    resident memory within 5% of what it was after 100 tokens."""
    out = mpirun(os.path.join(ROOT, "examples", "gpt2_tensor_parallel.py"),
                 "--config", "small", "--tokens", "1000", "--context", "32",
                 "--no-check", "--memory")
    lines = re.findall(r"rank (\d): resident ([\d.]+) MiB after 100 tokens, "
                       r"([\d.]+) MiB after 1000 \(([-+\d.]+)%\); "
                       r"communicators (\d+) -> (\d+)", out)
    assert len(lines) == 2, out
    for _, before, after, _, comms0, comms1 in lines:
        assert comms0 == comms1, out
        assert float(after) <= 1.05 * float(before), out
