"""What test_distributed.py runs on several MPI ranks:
`mpirun -np 2 python distributed_ranks.py`. Prints one line per check on
rank 0 ("ok <name> <error>"); any failure raises (a non-zero exit)."""

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
sys.path[:0] = [os.path.join(ROOT, "build", "python_packages"),
                os.path.join(ROOT, "python"), os.path.join(ROOT, "examples")]

from tinytensor import distributed as dist  # noqa: E402
from tinytensor.distributed import P  # noqa: E402


def report(name, error, bound):
    assert error <= bound, f"{name}: error {error} > {bound}"
    if dist.rank() == 0:
        print(f"ok {name} {error:.3g}", flush=True)


def mlp(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


def main():
    n = dist.size()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2 * n, 10), dtype=np.float32)
    w1 = rng.standard_normal((10, 4 * n), dtype=np.float32)
    b1 = rng.standard_normal(4 * n, dtype=np.float32)
    w2 = rng.standard_normal((4 * n, 7), dtype=np.float32)
    b2 = rng.standard_normal(7, dtype=np.float32)
    expected = mlp(x, w1, b1, w2, b2)

    # Tensor parallel: columns of w1, rows of w2, one all-reduce.
    tp = dist.Mesh((n,), ("tp",))
    f = dist.shard(mlp, tp, in_shardings=(P(), P(None, "tp"), P("tp"),
                                          P("tp"), P()))
    report("tensor-parallel", float(np.abs(f(x, w1, b1, w2, b2)
                                           - expected).max()), 1e-5)
    # The same with weights distributed once.
    local = dist.distribute((w1, b1, w2), tp, (P(None, "tp"), P("tp"),
                                               P("tp")))
    report("distributed-weights", float(np.abs(
        f(x, *local, b2) - expected).max()), 1e-5)
    before = dist.communicators()
    for _ in range(20):
        f(x, w1, b1, w2, b2)
    assert dist.communicators() == before, "a communicator per call"
    report("communicators-constant", 0.0, 0.0)

    # Data parallel: the batch split; the result split, then gathered.
    rows = x[:2 * n]
    dp = dist.Mesh((n,), ("dp",))
    g = dist.shard(mlp, dp, in_shardings=(P("dp"),), out_shardings=P("dp"))
    y = g(rows, w1, b1, w2, b2)
    assert isinstance(y, dist.DistributedArray) and y.local.shape == (2, 7)
    report("data-parallel", float(np.abs(
        y.gather() - mlp(rows, w1, b1, w2, b2)).max()), 1e-5)

    # A row picked by a traced index from a split batch (a table read
    # inside a generic's body).
    pick = dist.shard(lambda a, i: a[:, i], dp, in_shardings=(P("dp"),))
    a = rng.standard_normal((2 * n, 5, 3), dtype=np.float32)
    report("traced-index", float(np.abs(
        pick(a, np.array(3)) - a[:, 3]).max()), 0.0)

    # Positions along a split dimension (an iota; a gather whose result is
    # split): each process's offset is added.
    rows = dist.shard(lambda a: a + np.arange(a.shape[0])[:, None], dp,
                      in_shardings=(P("dp"),), out_shardings=P("dp"))
    a = rng.standard_normal((2 * n, 3), dtype=np.float32)
    report("split-iota", float(np.abs(rows(a).gather() - (
        a + np.arange(2 * n)[:, None])).max()), 0.0)
    pick_split = dist.shard(lambda a, i: a[:, i], dp, in_shardings=(P("dp"),),
                            out_shardings=P("dp"))
    a = rng.standard_normal((2 * n, 5, 3), dtype=np.float32)
    report("split-gather", float(np.abs(
        pick_split(a, np.array(2)).gather() - a[:, 2]).max()), 0.0)

    # A table that an op reads inside its body and also takes as an operand
    # (a gather fused into an add of the same array).
    both = dist.shard(lambda a, i: a + a[i], dp, in_shardings=(P("dp"),))
    a = rng.standard_normal((2 * n, 3), dtype=np.float32)
    report("captured-operand", float(np.abs(
        both(a, np.array(1)) - (a + a[1])).max()), 0.0)

    if n == 4:
        two_d(rng)

    # A PyTorch module with a split batch.
    try:
        import torch
    except ImportError:
        return
    from torch_small_gpt import SmallGPT
    torch.manual_seed(0)
    model = SmallGPT(layers=2).eval()
    ids = torch.randint(0, 128, (2 * n, 16))
    m = dist.shard_module(model, (ids,), dp, in_shardings=P("dp"))
    with torch.no_grad():
        reference = model(ids)
    report("torch-module", float((m(ids) - reference).abs().max()), 1e-4)


def two_d(rng):
    """A 2 x 2 mesh: all-reduces over different axes of one program (each
    call site with a communicator of its own), and tensor parallelism
    within data-parallel groups."""
    mesh = dist.Mesh((2, 2), ("dp", "tp"))
    x = rng.standard_normal((4, 6), dtype=np.float32)
    f = dist.shard(lambda x: x.sum(axis=0), mesh,
                   in_shardings=(P("dp", "tp"),))
    report("2d-sum", float(np.abs(f(x) - x.sum(axis=0)).max()), 1e-5)
    g = dist.shard(lambda x: (x.sum(axis=0), x.sum(axis=1)), mesh,
                   in_shardings=(P("dp", "tp"),))
    first, second = g(x)
    report("2d-two-axes", float(max(np.abs(first - x.sum(axis=0)).max(),
                                    np.abs(second - x.sum(axis=1)).max())),
           1e-5)
    w1 = rng.standard_normal((6, 8), dtype=np.float32)
    w2 = rng.standard_normal((8, 5), dtype=np.float32)
    h = dist.shard(lambda x, w1, w2: np.maximum(x @ w1, 0) @ w2, mesh,
                   in_shardings=(P("dp"), P(None, "tp"), P("tp")))
    report("dp-tp-mlp", float(np.abs(h(x, w1, w2) - np.maximum(
        x @ w1, 0) @ w2).max()), 1e-5)


if __name__ == "__main__":
    main()
