"""Shapes and layout (data movement) among the ATen ops: view (and
view.dtype), reshape, permute, transpose, expand, squeeze/unsqueeze,
flatten, slice and select, cat, split and chunk, tril/triu and
prims.collapse.
"""

from __future__ import annotations

import numpy as np
import torch

from ..tracing import Tracer, as_tracer
from .common import _dim, _dtype_of, numpy_dtype
from .errors import UnsupportedOpError


def _expand(x, size, implicit=False):
    shape = list(size)
    offset = len(shape) - _dim(x)
    current = np.shape(x) if not isinstance(x, Tracer) else x.shape
    for i, s in enumerate(shape):
        if s == -1:
            shape[i] = current[i - offset]
    return np.broadcast_to(as_tracer(x), tuple(shape))


def _slice(x, dim=0, start=None, end=None, step=1):
    n = (x.shape if isinstance(x, Tracer) else np.shape(x))[dim]
    start = 0 if start is None else start
    end = n if end is None else min(end, n)
    index = [slice(None)] * _dim(x)
    index[dim] = slice(start, end, step)
    return x[tuple(index)]


def _cat(tensors, dim=0):
    """aten.cat. Tensors with no elements add nothing (and PyTorch's legacy
    rule skips a 1-D one of size 0 whatever the others' rank: Hugging
    Face's key/value caches start as one)."""
    tensors = list(tensors)
    kept = [t for t in tensors if 0 not in np.shape(t)]
    if not kept:
        return tensors[0]
    return np.concatenate(kept, axis=dim)


def _select(x, dim, index):
    idx = [slice(None)] * _dim(x)
    idx[dim] = index
    return x[tuple(idx)]


def _split(x, split_size, dim=0):
    n = (x.shape if isinstance(x, Tracer) else np.shape(x))[dim]
    bounds = list(range(split_size, n, split_size))
    return np.split(x, bounds, axis=dim)


def _split_with_sizes(x, sizes, dim=0):
    return np.split(x, list(np.cumsum(sizes)[:-1]), axis=dim)


def _chunk(x, chunks, dim=0):
    n = (x.shape if isinstance(x, Tracer) else np.shape(x))[dim]
    return _split(x, -(-n // chunks), dim)


def _squeeze(x, dim=None):
    if dim is None:
        return np.squeeze(x)
    dims = dim if isinstance(dim, (list, tuple)) else [dim]
    shape = x.shape if isinstance(x, Tracer) else np.shape(x)
    dims = [d for d in dims if shape[d] == 1]  # torch ignores size != 1
    return np.squeeze(x, axis=tuple(dims)) if dims else x


def _flatten(x, start_dim=0, end_dim=-1):
    shape = list(x.shape if isinstance(x, Tracer) else np.shape(x))
    if not shape:
        return np.reshape(x, (1,))
    end = end_dim % len(shape)
    new = shape[:start_dim] + [-1] + shape[end + 1:]
    return np.reshape(x, new)


def _view_dtype(x, dtype):
    """aten.view.dtype: the elements' bits as another dtype of the same
    size."""
    target = numpy_dtype(dtype)
    if target.itemsize != _dtype_of(x).itemsize:
        raise UnsupportedOpError(
            f"view of a {_dtype_of(x)} tensor as {dtype} (elements of "
            f"another size)")
    return as_tracer(x).view(target)


def _swapaxes(x, a, b):
    n = _dim(x)
    perm = list(range(n))
    perm[a % n], perm[b % n] = perm[b % n], perm[a % n]
    return np.transpose(x, perm)


ATEN_OPS = {
    "tril": lambda x, diagonal=0: np.tril(x, diagonal),
    "triu": lambda x, diagonal=0: np.triu(x, diagonal),
    "view": lambda x, size: _view_dtype(x, size) if isinstance(
        size, torch.dtype) else np.reshape(x, tuple(size)),
    "_unsafe_view": lambda x, size: np.reshape(x, tuple(size)),
    "reshape": lambda x, size: np.reshape(x, tuple(size)),
    "permute": lambda x, dims: np.transpose(x, tuple(d % _dim(x)
                                                      for d in dims)),
    "t": lambda x: np.transpose(x),
    "transpose": _swapaxes,
    "unsqueeze": lambda x, dim: np.expand_dims(x, dim % (_dim(x) + 1)),
    "squeeze": _squeeze, "flatten": _flatten, "expand": _expand,
    "slice": _slice, "select": _select, "cat": _cat,
    "split": _split, "split_with_sizes": _split_with_sizes, "chunk": _chunk,
    # prims.collapse: the axes start..end merged into one.
    "collapse": lambda x, start, end: np.reshape(
        x, tuple(np.shape(x)[:start]) + (-1,) + tuple(np.shape(x)[end + 1:])),
}
