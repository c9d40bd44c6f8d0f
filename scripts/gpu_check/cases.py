"""The cases of scripts/gpu-check, in plain NumPy (no TinyTensor): the build
side exports each function for CUDA, the GPU side (run.py) calls the
library on the same seeded inputs and compares with NumPy.

Each case: the function (positional arrays in, arrays out), its inputs from
a seed, the work it does (bytes moved for memory-bound cases, flops for
matmuls), a tolerance, and the same computation in PyTorch for timing."""

import numpy as np

try:  # the GPT-2 block of examples/gpt2.py (copied beside this file)
    import gpt2
except ImportError:  # pragma: no cover
    gpt2 = None


def scale_bias(x, b):  # the @jit example of README.md
    return x * 2.0 + b


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, g, b):
    m = x.mean(axis=-1, keepdims=True)
    v = x.var(axis=-1, keepdims=True)
    return g * (x - m) / np.sqrt(v + 1e-5) + b


def matmul(a, b):
    return a @ b


BLOCK_T, BLOCK_D, BLOCK_HEADS = 64, 768, 12


def gpt2_block(x, fc_w, fc_b, proj_w, proj_b, attn_w, attn_b, out_w, out_b,
               g1, b1, g2, b2):
    """One GPT-2 124M transformer block (examples/gpt2.py) on 64 tokens."""
    return gpt2.transformer_block(
        x, mlp={"c_fc": {"w": fc_w, "b": fc_b},
                "c_proj": {"w": proj_w, "b": proj_b}},
        attn={"c_attn": {"w": attn_w, "b": attn_b},
              "c_proj": {"w": out_w, "b": out_b}},
        ln_1={"g": g1, "b": b1}, ln_2={"g": g2, "b": b2}, n_head=BLOCK_HEADS)


def _normal(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _block_inputs(rng):
    d = BLOCK_D
    w = lambda *s: _normal(rng, *s, scale=0.02)
    return [_normal(rng, BLOCK_T, d), w(d, 4 * d), w(4 * d), w(4 * d, d), w(d),
            w(d, 3 * d), w(3 * d), w(d, d), w(d),
            1 + w(d), w(d), 1 + w(d), w(d)]


class Case:
    def __init__(self, name, fn, inputs, bytes_=0, flops=0, rtol=1e-4,
                 torch_fn=None):
        self.name, self.fn, self.inputs = name, fn, inputs
        self.bytes, self.flops, self.rtol = bytes_, flops, rtol
        self.torch_fn = torch_fn


def _f32(n):
    return 4 * n


CASES = [
    Case("scale_bias", scale_bias,
         lambda r: [_normal(r, 8), _normal(r, 8)], bytes_=_f32(24)),
    Case("gelu_4m", gelu, lambda r: [_normal(r, 4096, 1024)],
         bytes_=_f32(2 * 4096 * 1024),
         torch_fn=lambda t, x: t.nn.functional.gelu(x, approximate="tanh")),
    Case("softmax_1024", softmax, lambda r: [_normal(r, 1024, 1024, scale=4)],
         bytes_=_f32(2 * 1024 * 1024),
         torch_fn=lambda t, x: t.softmax(x, dim=-1)),
    Case("layer_norm_4096x768", layer_norm,
         lambda r: [_normal(r, 4096, 768) + 3, 1 + _normal(r, 768, scale=0.1),
                    _normal(r, 768)],
         bytes_=_f32(2 * 4096 * 768), rtol=1e-3,
         torch_fn=lambda t, x, g, b: t.nn.functional.layer_norm(
             x, (768,), g, b, 1e-5)),
    Case("matmul_1024", matmul,
         lambda r: [_normal(r, 1024, 1024), _normal(r, 1024, 1024)],
         flops=2 * 1024 ** 3, rtol=1e-3, torch_fn=lambda t, a, b: a @ b),
    Case("matmul_4096", matmul,
         lambda r: [_normal(r, 4096, 4096), _normal(r, 4096, 4096)],
         flops=2 * 4096 ** 3, rtol=1e-3, torch_fn=lambda t, a, b: a @ b),
    Case("gpt2_block_64", gpt2_block, _block_inputs,
         flops=2 * BLOCK_T * 12 * BLOCK_D ** 2, rtol=1e-3),
]
