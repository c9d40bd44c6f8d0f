"""Attention ops of the ATen importer: `aten.scaled_dot_product_attention`
as one op of the captured program (kept out of torch.export's
decompositions, see importer._export) and composed here from tt's matmul,
softmax and masks.

Keeping it whole matters for correctness, not only speed: PyTorch's
decomposition of it produces a result with other strides than the eager
kernel's, and a model that `view`s that result (Hugging Face's GPT-2 at
batch > 1) fails inside torch.export's decomposition pass.
"""

from __future__ import annotations

import math

import numpy as np

from ..tracing import as_tracer
from .errors import UnsupportedOpError


def _heads_repeated(x, heads: int):
    """Grouped-query attention: `x` [..., Hkv, S, E] with each key/value
    head repeated for the heads // Hkv query heads it serves ->
    [..., heads, S, E] (torch.repeat_interleave along the head axis)."""
    shape = tuple(int(d) for d in x.shape)
    kv = shape[-3]
    if kv == heads:
        return x
    if heads % kv:
        raise UnsupportedOpError(
            f"scaled_dot_product_attention with {heads} query heads and "
            f"{kv} key/value heads: the query heads must be a multiple")
    lead = shape[:-3]
    spread = np.broadcast_to(
        np.reshape(x, lead + (kv, 1) + shape[-2:]),
        lead + (kv, heads // kv) + shape[-2:])
    return np.reshape(spread, lead + (heads,) + shape[-2:])


def _scores(query, key, attn_mask, is_causal, scale):
    """The masked, scaled scores [..., L, S] (-inf where the mask hides a
    key) and the scale."""
    if is_causal and attn_mask is not None:
        raise UnsupportedOpError(
            "scaled_dot_product_attention with both attn_mask and "
            "is_causal (PyTorch refuses it too)")
    q_shape = tuple(int(d) for d in query.shape)
    length, depth = q_shape[-2], q_shape[-1]
    span = int(key.shape[-2])
    if scale is None:
        scale = 1.0 / math.sqrt(depth)
    perm = list(range(len(key.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    scores = (query @ np.transpose(key, perm)) * scale
    if is_causal:
        # Key position <= query position, from iotas: with dynamic sizes
        # they are made from the run-time lengths (a constant triangle
        # would be compiled in).
        rows = as_tracer(np.arange(length, dtype=np.int32))
        cols = as_tracer(np.arange(span, dtype=np.int32))
        keep = cols[None, :] <= rows[:, None]
        scores = np.where(keep, scores, -np.inf)
    elif attn_mask is not None:
        if np.dtype(attn_mask.dtype) == np.bool_:
            scores = np.where(attn_mask, scores, -np.inf)
        else:
            scores = scores + attn_mask
    return scores, scale


def _grouped(query, key, value, enable_gqa):
    """Key and value with each head repeated for the query heads it serves
    (grouped-query attention)."""
    q_shape = tuple(int(d) for d in query.shape)
    if len(q_shape) >= 3 and int(key.shape[-3]) != q_shape[-3]:
        if not enable_gqa:
            raise UnsupportedOpError(
                f"scaled_dot_product_attention with {q_shape[-3]} query "
                f"heads and {int(key.shape[-3])} key heads needs "
                f"enable_gqa=True")
        key = _heads_repeated(key, q_shape[-3])
        value = _heads_repeated(value, q_shape[-3])
    return key, value


def _no_dropout(dropout_p):
    if dropout_p:
        raise UnsupportedOpError(
            f"scaled_dot_product_attention with dropout_p={dropout_p} "
            f"(random dropout is not supported; eval() sets it to 0)")


def _softmax_and_lse(scores, masked: bool):
    """softmax(scores) over the last axis and its log-sum-exp (the
    normaliser, [..., L]). A row the mask hides entirely attends to
    nothing: zeros, as PyTorch gives (its "safe softmax"), not 0/0."""
    top = np.max(scores, axis=-1, keepdims=True)
    if not masked:
        e = np.exp(scores - top)
        total = np.sum(e, axis=-1, keepdims=True)
        return e / total, np.log(total) + top
    seen = top > -np.inf
    shift = np.where(seen, top, 0.0)
    e = np.exp(scores - shift)
    total = np.sum(e, axis=-1, keepdims=True)
    return e / np.where(seen, total, 1.0), np.log(total) + shift


def scaled_dot_product_attention(query, key, value, attn_mask=None,
                                 dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False, with_lse=False):
    """softmax(query @ key^T * scale + mask) @ value, as
    torch.nn.functional.scaled_dot_product_attention computes it: a boolean
    mask keeps the scores where it is True, a float mask is added,
    `is_causal` keeps key positions <= query positions (the top-left
    triangle of [L, S]), `enable_gqa` shares each key/value head among
    query heads. `with_lse` also returns the softmax's log-sum-exp
    [..., L] (what the backward reads)."""
    _no_dropout(dropout_p)
    key, value = _grouped(query, key, value, enable_gqa)
    scores, _ = _scores(query, key, attn_mask, is_causal, scale)
    probs, lse = _softmax_and_lse(scores, attn_mask is not None)
    out = probs @ value
    if with_lse:
        return out, np.reshape(lse, tuple(int(d) for d in lse.shape[:-1]))
    return out


def flash_attention_for_cpu(query, key, value, dropout_p=0.0,
                            is_causal=False, attn_mask=None, scale=None):
    """aten._scaled_dot_product_flash_attention_for_cpu (AOTAutograd's form
    of attention): (output, log-sum-exp). Like PyTorch's kernel, it shares
    each key/value head among the query heads when there are fewer
    (grouped-query attention: Llama's 8 query heads over 2)."""
    return scaled_dot_product_attention(query, key, value, attn_mask,
                                        dropout_p, is_causal, scale,
                                        enable_gqa=True, with_lse=True)


def flash_attention_for_cpu_backward(grad_out, query, key, value, out, lse,
                                     dropout_p, is_causal, attn_mask=None,
                                     scale=None):
    """Its backward: with P = exp(S - lse) the softmax the forward
    computed, dV = P^T dO, dP = dO V^T, dS = P (dP - rowsum(dO * O)),
    dQ = dS K * scale, dK = dS^T Q * scale. With fewer key/value heads
    than query heads (grouped-query attention) the gradients of a shared
    head are summed over the query heads it served."""
    _no_dropout(dropout_p)
    kv_shape = tuple(int(d) for d in key.shape)
    key, value = _grouped(query, key, value, True)
    scores, scale = _scores(query, key, attn_mask, is_causal, scale)
    if attn_mask is not None:  # rows that see nothing: P = 0, not NaN
        lse = np.where(lse > -np.inf, lse, 0.0)
    probs = np.exp(scores - np.expand_dims(lse, -1))
    rank = len(query.shape)
    swap = list(range(rank))
    swap[-1], swap[-2] = swap[-2], swap[-1]
    grad_value = np.transpose(probs, swap) @ grad_out
    grad_probs = grad_out @ np.transpose(value, swap)
    row = np.sum(grad_out * out, axis=-1, keepdims=True)
    grad_scores = probs * (grad_probs - row)
    grad_query = (grad_scores @ key) * scale
    grad_key = (np.transpose(grad_scores, swap) @ query) * scale
    heads = int(query.shape[-3]) if rank >= 3 else None
    if heads is not None and kv_shape[-3] != heads:
        grouped = kv_shape[:-2] + (heads // kv_shape[-3],) + kv_shape[-2:]
        grad_key = np.sum(np.reshape(grad_key, grouped), axis=-3)
        grad_value = np.sum(np.reshape(grad_value, grouped), axis=-3)
    return grad_query, grad_key, grad_value


ATEN_OPS = {
    "scaled_dot_product_attention": scaled_dot_product_attention,
    # AOTAutograd's form of it and its backward.
    "_scaled_dot_product_flash_attention_for_cpu": flash_attention_for_cpu,
    "_scaled_dot_product_flash_attention_for_cpu_backward":
        flash_attention_for_cpu_backward,
}
