"""PyTorch's fused inference ops for transformer layers, as the ATen
importer composes them from tt: `aten._native_multi_head_attention` (what
`nn.MultiheadAttention` calls in eval mode without gradients) and
`aten._transformer_encoder_layer_fwd` (the same for a whole
`nn.TransformerEncoderLayer`, the "fast path"). `torch.compile` hands them
over as they are; without them those layers ran eagerly between compiled
partitions.

Their masks are PyTorch's fast-path masks: `mask_type` 0 is an attention
mask [L, S], 1 a key padding mask [B, S], 2 both merged [B, H, L, S];
boolean masks are True where a key is hidden, float masks are added to the
scores. A row whose keys are all hidden gets zero weights, as PyTorch's
masked softmax gives.
"""

from __future__ import annotations

import math

import numpy as np

from ..tracing import as_tracer
from .attention import _softmax_and_lse
from .elementwise import _gelu
from .errors import UnsupportedOpError
from .reductions import _layer_norm


def _masked(scores, mask, mask_type):
    """`scores` [B, H, L, S] with a fast-path mask applied."""
    if mask is None:
        return scores
    mask = as_tracer(mask)
    batch, heads, length, keys = (int(d) for d in scores.shape)
    if mask_type == 1 or (mask_type is None and mask.ndim == 2 and
                          tuple(mask.shape) == (batch, keys) and
                          batch != length):
        mask = np.reshape(mask, (batch, 1, 1, keys))
    elif mask.ndim not in (2, 4):
        raise UnsupportedOpError(
            f"_native_multi_head_attention with a mask of shape "
            f"{tuple(mask.shape)} (mask_type {mask_type})")
    if mask.dtype == np.bool_:
        return np.where(mask, -np.inf, scores)
    return scores + mask


def native_multi_head_attention(query, key, value, embed_dim, num_head,
                                qkv_weight, qkv_bias, proj_weight, proj_bias,
                                mask=None, need_weights=True,
                                average_attn_weights=True, mask_type=None):
    """(attention output [B, L, E], its weights [B, L, S] averaged over
    heads, or per head [B, H, L, S]; an empty tensor without
    need_weights)."""
    q, k, v = as_tracer(query), as_tracer(key), as_tracer(value)
    if q.ndim != 3:
        raise UnsupportedOpError(f"_native_multi_head_attention of a "
                                 f"rank-{q.ndim} query (batched [B, L, E] "
                                 f"only)")
    e, h = int(embed_dim), int(num_head)
    d = e // h
    w, b = as_tracer(qkv_weight), as_tracer(qkv_bias)

    def heads(x, part):
        x = x @ np.transpose(w[part * e:(part + 1) * e]) + \
            b[part * e:(part + 1) * e]
        batch, length = int(x.shape[0]), int(x.shape[1])
        return np.transpose(np.reshape(x, (batch, length, h, d)),
                            (0, 2, 1, 3))

    q, k, v = heads(q, 0), heads(k, 1), heads(v, 2)
    scores = _masked(q @ np.transpose(k, (0, 1, 3, 2)) * (1 / math.sqrt(d)),
                     mask, mask_type)
    probs, _ = _softmax_and_lse(scores, mask is not None)
    out = probs @ v                                      # [B, H, L, d]
    batch, length = int(out.shape[0]), int(out.shape[2])
    out = np.reshape(np.transpose(out, (0, 2, 1, 3)), (batch, length, e))
    out = out @ np.transpose(as_tracer(proj_weight)) + as_tracer(proj_bias)
    if not need_weights:
        return out, np.zeros((0,), dtype=np.float32)
    return out, (np.mean(probs, axis=1) if average_attn_weights else probs)


def transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight,
                                  qkv_bias, proj_weight, proj_bias, use_gelu,
                                  norm_first, eps, norm_weight_1, norm_bias_1,
                                  norm_weight_2, norm_bias_2, ffn_weight_1,
                                  ffn_bias_1, ffn_weight_2, ffn_bias_2,
                                  mask=None, mask_type=None):
    """One `nn.TransformerEncoderLayer` (eval): self-attention and a
    feed-forward block, each with a residual connection and a layer norm
    after it (or before it, with `norm_first`)."""
    x = src = as_tracer(src)
    e = int(embed_dim)

    def norm(y, weight, bias):
        return _layer_norm(y, [e], weight, bias, eps)

    if norm_first:
        x = norm(x, norm_weight_1, norm_bias_1)
    x = native_multi_head_attention(x, x, x, e, num_heads, qkv_weight,
                                    qkv_bias, proj_weight, proj_bias, mask,
                                    False, True, mask_type)[0] + src
    if not norm_first:
        x = norm(x, norm_weight_1, norm_bias_1)
    residual = x
    if norm_first:
        x = norm(x, norm_weight_2, norm_bias_2)
    hidden = x @ np.transpose(as_tracer(ffn_weight_1)) + ffn_bias_1
    hidden = _gelu(hidden) if use_gelu else np.maximum(hidden, 0)
    x = hidden @ np.transpose(as_tracer(ffn_weight_2)) + ffn_bias_2 + residual
    if not norm_first:
        x = norm(x, norm_weight_2, norm_bias_2)
    return x


ATEN_OPS = {
    "_native_multi_head_attention": native_multi_head_attention,
    "_transformer_encoder_layer_fwd": transformer_encoder_layer_fwd,
}
