"""GPT-2 forward pass in plain NumPy, compiled with tinytensor.jit.

The model code is ordinary NumPy in the style of the well-known minimal
NumPy GPT-2 implementations; `jit` traces it unmodified.

    python examples/gpt2.py            # small config
    python examples/gpt2.py --124m     # GPT-2 124M shapes, random weights

Prints the time per forward pass of NumPy and of the compiled version.
"""

import argparse
import time

import numpy as np


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def layer_norm(x, g, b, eps: float = 1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    x = (x - mean) / np.sqrt(variance + eps)
    return g * x + b


def linear(x, w, b):
    return x @ w + b


def ffn(x, c_fc, c_proj):
    a = gelu(linear(x, **c_fc))
    return linear(a, **c_proj)


def attention(q, k, v, mask):
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


def mha(x, c_attn, c_proj, n_head):
    x = linear(x, **c_attn)
    qkv = np.split(x, 3, axis=-1)
    qkv_heads = list(map(lambda x: np.split(x, n_head, axis=-1), qkv))
    causal_mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads)]
    x = np.hstack(out_heads)
    return linear(x, **c_proj)


def transformer_block(x, mlp, attn, ln_1, ln_2, n_head):
    x = x + mha(layer_norm(x, **ln_1), **attn, n_head=n_head)
    x = x + ffn(layer_norm(x, **ln_2), **mlp)
    return x


def gpt2(inputs, wte, wpe, blocks, ln_f, n_head):
    x = wte[inputs] + wpe[range(len(inputs))]
    for block in blocks:
        x = transformer_block(x, **block, n_head=n_head)
    x = layer_norm(x, **ln_f)
    return x @ wte.T


def random_params(n_vocab, n_ctx, n_embd, n_layer, seed=0, dtype=np.float32):
    """GPT-2-shaped parameters with random weights."""
    rng = np.random.default_rng(seed)

    def w(*shape, scale=0.02):
        return (rng.standard_normal(shape) * scale).astype(dtype)

    def ln():
        return {"g": (1 + w(n_embd, scale=0.1)), "b": w(n_embd)}

    blocks = [{
        "mlp": {"c_fc": {"w": w(n_embd, 4 * n_embd), "b": w(4 * n_embd)},
                "c_proj": {"w": w(4 * n_embd, n_embd), "b": w(n_embd)}},
        "attn": {"c_attn": {"w": w(n_embd, 3 * n_embd), "b": w(3 * n_embd)},
                 "c_proj": {"w": w(n_embd, n_embd), "b": w(n_embd)}},
        "ln_1": ln(), "ln_2": ln(),
    } for _ in range(n_layer)]
    return {"wte": w(n_vocab, n_embd), "wpe": w(n_ctx, n_embd),
            "blocks": blocks, "ln_f": ln()}


CONFIGS = {
    "small": dict(n_vocab=512, n_ctx=64, n_embd=64, n_layer=2, n_head=4),
    "124m": dict(n_vocab=50257, n_ctx=1024, n_embd=768, n_layer=12, n_head=12),
}


def best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    from tinytensor import jit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--124m", dest="big", action="store_true",
                        help="GPT-2 124M shapes (random weights)")
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    config = dict(CONFIGS["124m" if args.big else "small"])
    n_head = config.pop("n_head")
    params = random_params(**config)
    ids = np.random.default_rng(1).integers(
        0, config["n_vocab"], args.tokens).astype(np.int32)

    # The same call as NumPy's: params (nested dicts and lists of arrays)
    # are arguments, n_head (an int) is static.
    compiled_gpt2 = jit(gpt2)

    def compiled(ids):
        return compiled_gpt2(ids, **params, n_head=n_head)

    start = time.perf_counter()
    logits = compiled(ids)
    compile_s = time.perf_counter() - start
    expected = gpt2(ids, **params, n_head=n_head)
    error = np.abs(logits - expected).max() / np.abs(expected).max()

    t_numpy = best_time(lambda: gpt2(ids, **params, n_head=n_head),
                        args.repeat)
    t_tt = best_time(lambda: compiled(ids), args.repeat)
    print(f"config: {'124M' if args.big else 'small'}, {args.tokens} tokens")
    print(f"compile (trace + lower + JIT): {compile_s:.2f} s")
    print(f"max relative error vs NumPy: {error:.2e}")
    print(f"NumPy:      {t_numpy * 1e3:8.2f} ms per forward pass")
    print(f"TinyTensor: {t_tt * 1e3:8.2f} ms per forward pass "
          f"({t_numpy / t_tt:.2f}x NumPy)")


if __name__ == "__main__":
    main()
