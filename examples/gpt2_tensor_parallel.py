"""GPT-2 over MPI ranks, Megatron-style tensor parallelism, with
tinytensor.distributed.

    mpirun -np 2 .venv/bin/python examples/gpt2_tensor_parallel.py --tokens 64
    .venv/bin/python examples/gpt2_tensor_parallel.py --tokens 64   # 1 process

The model is the GPT-2 of examples/gpt2.py (124M shapes, the same random
weights) with its attention weights laid out per head, so that a split of
the heads is a split of an array dimension: `c_attn` becomes query, key and
value weights of shape [heads, n_embd, head size] and `c_proj` one of shape
[heads, head size, n_embd]. The mesh has one axis, "tp", as long as there
are processes. Each process holds:

  * attention: its heads' query, key and value weights and its heads' rows
    of the output projection; it computes its heads' attention and its part
    of the projection, and an all-reduce sums the parts;
  * MLP: its columns of `c_fc` and its rows of `c_proj` (column- then
    row-parallel); an all-reduce sums the products;
  * embeddings, layer norms and the final projection: replicated.

Nothing here says where to communicate: the arguments' splits
(`in_shardings`) go through MLIR's sharding propagation and partitioning,
which find the two all-reduces per block (docs/distributed.md).

Generation is greedy, on a context of a fixed length (`--context`, default
prompt + tokens): the token ids are padded after the real ones, which is
exact because GPT-2 is causal (generate.py's --bucket explains why), and
past that length the context is the last `--context` tokens. One
compilation serves every step.

Prints the generated tokens, the largest difference of each step's logits
against the unmodified model compiled with `jit` in one process (rank 0
computes it; `--no-check` skips it), the time per token (the sharded call
alone, after a barrier, median over the steps) and, with `--memory`, the
resident memory and MPI communicators after the first 100 tokens and at
the end.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gpt2 import CONFIGS, gelu, gpt2, layer_norm, random_params, softmax  # noqa: E402,E501


def attention_heads(x, attn, mask):
    """Multi-head attention with per-head weights: every product keeps the
    heads as a dimension of its own ([..., heads, T, k]), and the heads'
    outputs are summed by the output projection. `x` is [T, n_embd] or
    [batch, T, n_embd]."""
    x = x[..., None, :, :]
    q = x @ attn["w_q"] + attn["b_q"]                       # [.., heads, T, k]
    k = x @ attn["w_k"] + attn["b_k"]
    v = x @ attn["w_v"] + attn["b_v"]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]) + mask
    out = softmax(scores) @ v                               # [.., heads, T, k]
    return (out @ attn["w_o"]).sum(axis=-3) + attn["b_o"]   # [.., T, n_embd]


def mlp(x, c_fc, c_proj):
    return gelu(x @ c_fc["w"] + c_fc["b"]) @ c_proj["w"] + c_proj["b"]


def gpt2_heads(inputs, last, wte, wpe, blocks, ln_f):
    """GPT-2's logits at position `last` (a 0-d array) of token ids
    `inputs` ([T], or [batch, T]), with attention weights per head
    (`head_params`)."""
    n = inputs.shape[-1]
    x = wte[inputs] + wpe[range(n)]
    mask = (1 - np.tri(n, dtype=x.dtype)) * -1e10
    for block in blocks:
        x = x + attention_heads(layer_norm(x, **block["ln_1"]), block["attn"],
                                mask)
        x = x + mlp(layer_norm(x, **block["ln_2"]), **block["mlp"])
    return (layer_norm(x, **ln_f) @ wte.T)[..., last, :]


def head_params(params, n_head):
    """examples/gpt2.py's parameters with each block's attention weights
    per head (the same model)."""
    def per_head(block):
        attn = block["attn"]
        n_embd = attn["c_proj"]["w"].shape[0]
        size = n_embd // n_head
        w = attn["c_attn"]["w"].reshape(n_embd, 3, n_head, size)
        b = attn["c_attn"]["b"].reshape(3, n_head, 1, size)
        heads = {name: np.ascontiguousarray(w[:, i].transpose(1, 0, 2))
                 for i, name in enumerate(("w_q", "w_k", "w_v"))}
        heads.update({name: np.ascontiguousarray(b[i])
                      for i, name in enumerate(("b_q", "b_k", "b_v"))})
        heads["w_o"] = attn["c_proj"]["w"].reshape(n_head, size, n_embd)
        heads["b_o"] = attn["c_proj"]["b"]
        return {"attn": heads, "mlp": block["mlp"], "ln_1": block["ln_1"],
                "ln_2": block["ln_2"]}
    return {"wte": params["wte"], "wpe": params["wpe"],
            "blocks": [per_head(b) for b in params["blocks"]],
            "ln_f": params["ln_f"]}


def megatron_shardings(n_layer):
    """in_shardings for gpt2_heads: heads split in attention, c_fc's
    columns and c_proj's rows in the MLP, everything else replicated."""
    from tinytensor.distributed import P
    heads = P("tp")
    block = {"attn": {"w_q": heads, "b_q": heads, "w_k": heads,
                      "b_k": heads, "w_v": heads, "b_v": heads,
                      "w_o": heads, "b_o": P()},
             "mlp": {"c_fc": {"w": P(None, "tp"), "b": P("tp")},
                     "c_proj": {"w": P("tp"), "b": P()}},
             "ln_1": P(), "ln_2": P()}
    return {"inputs": P(), "last": P(), "wte": P(), "wpe": P(),
            "blocks": [block] * n_layer, "ln_f": P()}


def resident_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv=None):
    from tinytensor import distributed as dist, jit
    from tinytensor.distributed import P

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", choices=sorted(CONFIGS), default="124m")
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--prompt", type=int, default=8)
    parser.add_argument("--context", type=int, default=None,
                        help="length the ids are padded to (default: "
                             "prompt + tokens, at most the model's n_ctx)")
    parser.add_argument("--data-parallel", type=int, default=0,
                        metavar="BATCH",
                        help="instead of splitting the model, generate "
                             "BATCH sequences at once, each process running "
                             "the whole model on BATCH / processes of them")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="skip the comparison with one process")
    parser.add_argument("--memory", action="store_true",
                        help="report memory and communicators after 100 "
                             "tokens and at the end")
    args = parser.parse_args(argv)

    config = dict(CONFIGS[args.config])
    n_head = config.pop("n_head")
    context = args.context or min(args.prompt + args.tokens,
                                  config["n_ctx"])
    params = random_params(**config)
    heads = head_params(params, n_head)
    me = dist.rank()
    batch = args.data_parallel or 1
    if args.data_parallel:
        # Data parallel: the batch of sequences is split, the weights and
        # the logits replicated.
        mesh = dist.Mesh((dist.size(),), ("dp",))
        shardings = {"inputs": P("dp")}
    else:
        mesh = dist.Mesh((dist.size(),), ("tp",))
        shardings = megatron_shardings(config["n_layer"])
    # Each process keeps its part of the weights (split once, not per call).
    local = dist.distribute(heads, mesh, {k: shardings.get(k) for k in heads})
    step = dist.shard(gpt2_heads, mesh, in_shardings=shardings)
    reference = jit(lambda ids, last: gpt2(ids, **params, n_head=n_head)[last])

    rng = np.random.default_rng(1)
    ids = [list(rng.integers(0, config["n_vocab"], args.prompt))
           for _ in range(batch)]
    times, errors = [], []
    memory = {}
    start = time.perf_counter()
    for t in range(args.tokens):
        n = min(len(ids[0]), context)
        padded = np.zeros((batch, context), np.int32)
        for row, sequence in zip(padded, ids):
            row[:n] = sequence[-n:]
        last = np.array(n - 1, np.int64)
        inputs = padded if args.data_parallel else padded[0]
        dist.barrier()
        begin = time.perf_counter()
        logits = step(inputs, last, **local).reshape(batch, -1)
        times.append(time.perf_counter() - begin)
        if t == 0:
            first_call = time.perf_counter() - start
        tokens = [int(i) for i in np.argmax(logits, axis=-1)]
        if args.check and me == 0:
            for row, got, token in zip(padded, logits, tokens):
                expected = reference(row, last)
                errors.append(float(np.abs(got - expected).max()))
                if int(np.argmax(expected)) != token:
                    errors[-1] = float("inf")
        for sequence, token in zip(ids, tokens):
            sequence.append(token)
        if args.memory and t + 1 == min(100, args.tokens):
            memory["first"] = (resident_mib(), dist.communicators())
    if args.memory:
        memory["last"] = (resident_mib(), dist.communicators())

    if me == 0:
        kind = (f"data parallel, batch {batch}" if args.data_parallel
                else "tensor parallel")
        print(f"processes: {mesh.size} ({kind}), GPT-2 {args.config}, "
              f"context {context}, {args.tokens} tokens")
        for sequence in ids:
            print(f"tokens: {' '.join(map(str, sequence[args.prompt:]))}")
        print(f"first call (trace + compile + run): {first_call:.2f} s")
        print(f"time per token: {np.median(times[1:] or times) * 1e3:.2f} ms "
              f"(median of the sharded calls)")
        if errors:
            worst = max(errors)
            same = "identical" if np.isfinite(worst) else "DIFFERENT"
            print(f"vs one process (jit of examples/gpt2.py): tokens "
                  f"{same}, max |logits difference| {worst:.3g}")
    if memory:
        (rss0, comms0), (rss1, comms1) = memory["first"], memory["last"]
        for r in range(mesh.size):
            if r == me:
                print(f"rank {me}: resident {rss0:.1f} MiB after "
                      f"{min(100, args.tokens)} tokens, {rss1:.1f} MiB after "
                      f"{args.tokens} ({(rss1 / rss0 - 1) * 100:+.2f}%); "
                      f"communicators {comms0} -> {comms1}", flush=True)
            dist.barrier()
    if errors and not np.isfinite(max(errors)):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
