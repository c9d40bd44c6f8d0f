"""Contractions among the ATen ops: mm, bmm, matmul, addmm, addbmm,
linear and _trilinear (nn.Bilinear). `_int_mm` is in quantized.py.
"""

from __future__ import annotations

import operator

import numpy as np

from .common import _dim


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim,
               unroll_dim=1):
    """aten._trilinear (nn.Bilinear): i1 * i2 * i3 after unsqueezing each
    at its expand dimensions, summed over `sumdim`."""
    total = _dim(i1) + len(expand1)
    for d in range(total):
        if d in expand1:
            i1 = np.expand_dims(i1, d)
        if d in expand2:
            i2 = np.expand_dims(i2, d)
        if d in expand3:
            i3 = np.expand_dims(i3, d)
    out = i1 * i2 * i3
    return np.sum(out, axis=tuple(sumdim)) if sumdim else out


def _addmm(bias, a, b, beta=1, alpha=1):
    product = a @ b
    if alpha != 1:
        product = product * alpha
    return product + (bias if beta == 1 else bias * beta)


def _linear(x, weight, bias=None):
    out = x @ np.transpose(weight)
    return out if bias is None else out + bias


ATEN_OPS = {
    "mm": operator.matmul, "bmm": operator.matmul,
    "matmul": operator.matmul, "addmm": _addmm, "linear": _linear,
    "addbmm": lambda x, b1, b2, beta=1, alpha=1: beta * x + alpha * np.sum(
        np.matmul(b1, b2), axis=0) if beta != 0 else alpha * np.sum(
        np.matmul(b1, b2), axis=0),
    "_trilinear": _trilinear,
}
