"""Reductions, scans and sorting among the ATen ops: sum, mean, var,
max/min (and amax/amin, argmax/argmin), any/all, prod, cumsum, cumprod,
logcumsumexp, softmax and log_softmax, layer norm, and sort, topk,
kthvalue and bucketize.
"""

from __future__ import annotations

import numpy as np

from ..tracing import as_tracer, sort
from .common import _cast, _dim, _dtype_of, numpy_dtype
from .errors import UnsupportedOpError


def _axes(dims, x):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return None
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if _dim(x) == 0 and all(d in (0, -1) for d in dims):
        return None  # PyTorch lets dim 0 / -1 name a 0-d tensor's "axis"
    return dims


def _softmax(x, dim, half_to_float=False):
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def _log_softmax(x, dim, half_to_float=False):
    shifted = x - np.max(x, axis=dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))


def _native_layer_norm(x, normalized_shape, weight, bias, eps):
    axes = tuple(range(_dim(x) - len(normalized_shape), _dim(x)))
    mean = np.mean(x, axis=axes, keepdims=True)
    var = np.var(x, axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    out = (x - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


def _layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5,
                cudnn_enable=True):
    return _native_layer_norm(x, normalized_shape, weight, bias, eps)[0]


def _var(x, dim=None, unbiased=None, keepdim=False, correction=None):
    ddof = correction if correction is not None else (
        1 if unbiased is None or unbiased else 0)
    if ddof != int(ddof):
        raise UnsupportedOpError(f"var with a fractional correction "
                                 f"({ddof}) is not supported")
    ddof = int(ddof)
    return np.var(x, axis=_axes(dim, x), ddof=ddof, keepdims=keepdim)


def _sum(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = _cast(x, numpy_dtype(dtype))
    # PyTorch sums integers and booleans as int64.
    target = np.int64 if _dtype_of(x).kind in "biu" else None
    return np.sum(x, axis=_axes(dim, x), keepdims=keepdim, dtype=target)


def _mean(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = _cast(x, numpy_dtype(dtype))
    return np.mean(x, axis=_axes(dim, x), keepdims=keepdim)


def _amax(x, dim=(), keepdim=False):
    return np.max(x, axis=_axes(dim, x), keepdims=keepdim)


def _amin(x, dim=(), keepdim=False):
    if _dtype_of(x) == np.bool_:
        return np.all(x, axis=_axes(dim, x), keepdims=keepdim)
    return np.min(x, axis=_axes(dim, x), keepdims=keepdim)


def _arg(fn, x, dim=None, keepdim=False):
    if _dtype_of(x) == np.bool_:
        x = _cast(x, np.int32)
    if dim is None:
        out = fn(np.reshape(x, (-1,)))
        return np.reshape(out, (1,) * _dim(x)) if keepdim else out
    return fn(x, axis=dim % max(_dim(x), 1), keepdims=keepdim)


def _any(x, dim=None, keepdim=False):
    return np.any(x, axis=_axes(dim, x), keepdims=keepdim)


def _all(x, dim=None, keepdim=False):
    return np.all(x, axis=_axes(dim, x), keepdims=keepdim)


def _prod(x, dim=None, keepdim=False, dtype=None, output_dtype=None):
    """aten.prod (one dim or all) and prims.prod (a list of dims)."""
    dtype = dtype or output_dtype
    if dtype is not None:
        x = _cast(x, numpy_dtype(dtype))
    target = np.int64 if _dtype_of(x).kind in "biu" else None
    if isinstance(dim, (list, tuple)):
        axis = tuple(d % max(_dim(x), 1) for d in dim) if dim else None
    else:
        axis = None if dim is None else dim % max(_dim(x), 1)
    return np.prod(x, axis=axis, keepdims=keepdim, dtype=target)


def _cumsum(x, dim, dtype=None):
    if dtype is not None:
        x = _cast(x, numpy_dtype(dtype))
    target = np.int64 if _dtype_of(x).kind in "biu" else None
    return np.cumsum(x, axis=dim % max(_dim(x), 1), dtype=target)


def _max(x, dim=None, keepdim=False):
    if dim is None:                      # max.default: full reduction
        return _amax(x)
    return _amax(x, dim, keepdim), _arg(np.argmax, x, dim, keepdim)


def _min(x, dim=None, keepdim=False):
    if dim is None:
        return _amin(x)
    return _amin(x, dim, keepdim), _arg(np.argmin, x, dim, keepdim)


def _sort(x, dim=-1, descending=False, stable=None):
    """aten.sort (and sort.stable): always stable, NaN the largest."""
    if _dim(x) == 0:
        return x, np.zeros((), np.int64)
    return sort(x, dim % _dim(x), descending)


def _kthvalue(x, k, dim=-1, keepdim=False):
    """aten.kthvalue: the last of the k smallest along dim (topk's stable
    sort) and its index."""
    if k < 1:
        raise IndexError(f"kthvalue: k ({k}) must be at least 1")
    values, indices = _topk(x, k, dim, largest=False)
    n = _dim(x)
    if n == 0:
        return values, indices
    axis = dim % n
    pick = tuple(slice(k - 1, k) if d == axis else slice(None)
                 for d in range(n))
    values, indices = values[pick], indices[pick]
    if not keepdim:
        values, indices = np.squeeze(values, axis), np.squeeze(indices, axis)
    return values, indices


def _bucketize(x, boundaries, out_int32=False, right=False):
    """aten.bucketize.Tensor: for each x, how many (sorted) boundaries lie
    below it (`right`: at or below it)."""
    x = as_tracer(x)
    edges = as_tracer(boundaries).astype(x.dtype)
    expanded = np.expand_dims(x, -1)
    below = expanded >= edges if right else expanded > edges
    return np.sum(below.astype(np.int32), axis=-1).astype(
        np.int32 if out_int32 else np.int64)


def _topk(x, k, dim=-1, largest=True, sorted=True):
    """aten.topk: the first k of a stable sort (largest first, NaN the
    largest, or smallest first); equal elements in their order."""
    n = _dim(x)
    axis = dim % max(n, 1)
    size = x.shape[axis] if n else 1
    if not 0 <= k <= size:
        raise ValueError(f"topk: k ({k}) is out of range for dimension "
                         f"{dim} of size {size}")
    if n == 0:
        return x, np.zeros((), np.int64)
    values, indices = sort(x, axis, largest)
    keep = tuple(slice(0, k) if d == axis else slice(None) for d in range(n))
    return values[keep], indices[keep]


#: The longest axis a scan other than cumsum is unrolled along (one step
#: per element of the axis; tt has no scan but cumsum).
_MAX_SCAN = 256


def _unrolled_scan(what: str, x, dim, step):
    """The inclusive scan of `x` along `dim` by `step(running, next)`,
    unrolled along the axis (at most _MAX_SCAN elements)."""
    axis = dim % max(_dim(x), 1)
    n = np.shape(x)[axis] if _dim(x) else 1
    if n > _MAX_SCAN:
        raise UnsupportedOpError(f"{what} along an axis of {n} elements "
                                 f"(at most {_MAX_SCAN})")
    if _dim(x) == 0 or n == 1:
        return x
    parts = np.split(x, n, axis=axis)
    running = [parts[0]]
    for part in parts[1:]:
        running.append(step(running[-1], part))
    return np.concatenate(running, axis=axis)


def _cumprod(x, dim, dtype=None):
    if dtype is not None:
        x = _cast(x, numpy_dtype(dtype))
    elif _dtype_of(x).kind in "biu":
        x = _cast(x, np.int64)
    return _unrolled_scan("cumprod", x, dim, lambda a, b: a * b)


def _logaddexp(a, b):
    """log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)); -inf with -inf
    stays -inf (the difference would be NaN)."""
    high = np.maximum(a, b)
    step = high + np.log1p(np.exp(-np.abs(a - b)))
    return np.where(high == -np.inf, high, step)


def _logcumsumexp(x, dim):
    """log(cumsum(exp(x))) along `dim` by logaddexp steps: exact where one
    shift by the row's maximum would underflow the early terms."""
    return _unrolled_scan("logcumsumexp", x, dim, _logaddexp)


ATEN_OPS = {
    "sum": _sum, "mean": _mean, "var": _var,
    "amax": _amax, "amin": _amin, "max": _max, "min": _min,
    "cumprod": _cumprod,
    "logcumsumexp": _logcumsumexp,
    "argmax": lambda x, dim=None, keepdim=False: _arg(np.argmax, x, dim,
                                                      keepdim),
    "argmin": lambda x, dim=None, keepdim=False: _arg(np.argmin, x, dim,
                                                      keepdim),
    "any": _any, "all": _all, "prod": _prod, "cumsum": _cumsum,
    "sort": _sort, "topk": _topk,
    "_softmax": _softmax, "softmax": lambda x, dim, dtype=None: _softmax(
        x if dtype is None else _cast(x, numpy_dtype(dtype)), dim),
    "_log_softmax": _log_softmax,
    "log_softmax": lambda x, dim, dtype=None: _log_softmax(
        x if dtype is None else _cast(x, numpy_dtype(dtype)), dim),
    "native_layer_norm": _native_layer_norm, "layer_norm": _layer_norm,
    "kthvalue": _kthvalue,
    "bucketize": _bucketize,
    "var_mean": lambda x, dim=None, correction=None, keepdim=False: (
        _var(x, dim, correction=correction, keepdim=keepdim),
        _mean(x, dim, keepdim=keepdim)),
}
