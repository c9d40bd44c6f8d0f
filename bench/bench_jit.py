"""Benchmarks: tinytensor.jit against NumPy, PyTorch and JAX in one run.

    python bench/bench_jit.py [--quick] [--filter NAME]

For each workload prints the best-of-N wall time of NumPy, TinyTensor and,
when installed, PyTorch eager (CPU) and JAX (jax.jit, CPU), plus the ratio
NumPy time / other time (> 1 means faster than NumPy). Results are checked
against NumPy before timing. Nothing here is asserted: speed is reported,
not tested.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))

from tinytensor import jit  # noqa: E402


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def normalize(x):
    return (x - np.mean(x, -1, keepdims=True)) / np.sqrt(
        np.var(x, -1, keepdims=True) + 1e-5)


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def linear_gelu(x, w, b):
    return gelu(x @ w + b)


def _torch_versions():
    try:
        import torch
    except ImportError:
        return None
    t = torch
    return {
        "gelu": lambda x: t.nn.functional.gelu(x, approximate="tanh"),
        "normalize": lambda x: (x - x.mean(-1, keepdim=True)) / t.sqrt(
            x.var(-1, keepdim=True, unbiased=False) + 1e-5),
        "softmax": lambda x: t.softmax(x, -1),
        "linear_gelu": lambda x, w, b: t.nn.functional.gelu(
            x @ w + b, approximate="tanh"),
    }


def _jax_versions():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    return {
        "gelu": jax.jit(lambda x: jax.nn.gelu(x, approximate=True)),
        "normalize": jax.jit(lambda x: (x - jnp.mean(x, -1, keepdims=True)) /
                             jnp.sqrt(jnp.var(x, -1, keepdims=True) + 1e-5)),
        "softmax": jax.jit(lambda x: jax.nn.softmax(x, -1)),
        "linear_gelu": jax.jit(lambda x, w, b: jax.nn.gelu(
            x @ w + b, approximate=True)),
    }


def workloads(quick: bool):
    rng = np.random.default_rng(0)
    f32 = np.float32
    n = 256 if quick else 1024
    x = rng.standard_normal((n, 768)).astype(f32)
    w = (rng.standard_normal((768, 768)) * 0.02).astype(f32)
    b = rng.standard_normal(768).astype(f32)
    yield "gelu", gelu, (x,)
    yield "normalize", normalize, (x,)
    yield "softmax", softmax, (x,)
    yield "linear_gelu", linear_gelu, (x, w, b)


def best(fn, args, repeat):
    fn(*args)  # warm up (and compile)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def gpt2_workload(quick: bool):
    from gpt2 import CONFIGS, gpt2, random_params
    config = dict(CONFIGS["small"])
    if not quick:
        config.update(n_embd=256, n_layer=4, n_vocab=4096, n_head=8)
    n_head = config.pop("n_head")
    params = random_params(**config)
    ids = np.arange(32, dtype=np.int32) % config["n_vocab"]
    fn = lambda ids: gpt2(ids, **params, n_head=n_head)  # noqa: E731
    return "gpt2", fn, (ids,)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--filter", default="")
    args = parser.parse_args()

    torch_fns, jax_fns = _torch_versions(), _jax_versions()
    rows = []
    for name, fn, inputs in list(workloads(args.quick)) + [
            gpt2_workload(args.quick)]:
        if args.filter not in name:
            continue
        compiled = jit(fn)
        np.testing.assert_allclose(compiled(*inputs), fn(*inputs),
                                   rtol=1e-4, atol=1e-4)
        row = {"workload": name,
               "numpy": best(fn, inputs, args.repeat),
               "tinytensor": best(compiled, inputs, args.repeat)}
        if torch_fns and name in torch_fns:
            import torch
            targs = [torch.from_numpy(a) for a in inputs]
            with torch.no_grad():
                row["torch"] = best(torch_fns[name], targs, args.repeat)
        if jax_fns and name in jax_fns:
            jfn = jax_fns[name]
            row["jax"] = best(lambda *a: jfn(*a).block_until_ready(), inputs,
                              args.repeat)
        rows.append(row)

    columns = ["tinytensor", "torch", "jax"]
    print(f"{'workload':<12} {'numpy ms':>9} " + " ".join(
        f"{c + ' ms':>14} {'x numpy':>7}" for c in columns))
    for row in rows:
        cells = []
        for c in columns:
            if c in row:
                cells.append(f"{row[c] * 1e3:14.3f} "
                             f"{row['numpy'] / row[c]:7.2f}")
            else:
                cells.append(f"{'-':>14} {'-':>7}")
        print(f"{row['workload']:<12} {row['numpy'] * 1e3:9.3f} " +
              " ".join(cells))


if __name__ == "__main__":
    main()
