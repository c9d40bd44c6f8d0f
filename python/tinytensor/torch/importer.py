"""Importing PyTorch programs: FX graphs of ATen ops -> tt, via the tracer.

`capture` turns a module into a `GraphProgram`: a plain Python function over
NumPy-like values that interprets the module's ATen graph node by node. Run
under `tinytensor.jit`, every ATen op becomes tt ops (through the tracer's
NumPy protocols), the parameters and buffers (NumPy views of the module's
tensors) become trailing arguments, and each result is cast to the dtype
PyTorch itself computed for the node (`node.meta["val"]`), so dtype
promotion is PyTorch's.
"""

from __future__ import annotations

import functools
import inspect
import math
import operator
import re
import threading
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import torch
import torch.fx
import torch.utils._pytree as pytree

from ..shapes import DynamicDims
from ..tracing import Tracer, as_tracer, current_trace, integer_divmod, sort
from ..types import BFLOAT16, is_float, result_dtype


from .errors import UnsupportedOpError  # noqa: E402
from . import (attention, complex, indexing, quantized, random,  # noqa: E402
               scatter, vision)


_TORCH_TO_NUMPY = {
    torch.float16: np.float16, torch.float32: np.float32,
    torch.float64: np.float64, torch.int8: np.int8, torch.int16: np.int16,
    torch.int32: np.int32, torch.int64: np.int64, torch.uint8: np.uint8,
    torch.bool: np.bool_,
}
if BFLOAT16 is not None:
    _TORCH_TO_NUMPY[torch.bfloat16] = BFLOAT16

_SUPPORTED_NAMES = ", ".join(str(d).replace("torch.", "")
                             for d in _TORCH_TO_NUMPY)


def numpy_dtype(dtype: torch.dtype):
    if dtype not in _TORCH_TO_NUMPY:
        kind = " here (complex tensors are their real and imaginary " \
            "parts, which this op does not take)" if dtype.is_complex else ""
        raise TypeError(f"PyTorch dtype {dtype} is not supported by "
                        f"TinyTensor{kind}; supported: {_SUPPORTED_NAMES}")
    return np.dtype(_TORCH_TO_NUMPY[dtype])


def tensor_to_numpy(t: torch.Tensor, what: str = "tensor") -> np.ndarray:
    """A NumPy view of a CPU tensor (bfloat16 as ml_dtypes' bfloat16)."""
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16 and BFLOAT16 is not None:
        return t.view(torch.uint16).numpy().view(BFLOAT16)
    if t.is_complex():  # as (real, imaginary) pairs: complex.py
        return torch.view_as_real(t.resolve_conj()).numpy()
    return t.numpy()


def numpy_to_tensor(array: np.ndarray) -> torch.Tensor:
    """A tensor sharing `array`'s memory (bfloat16 included)."""
    if BFLOAT16 is not None and array.dtype == BFLOAT16:
        return torch.from_numpy(array.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(array)


# -- ATen op implementations --------------------------------------------------
#
# Each takes the node's arguments with graph values replaced by NumPy arrays
# or Tracers, and returns the result(s).

def _dim(x) -> int:
    return np.ndim(x) if not isinstance(x, Tracer) else x.ndim


def _axes(dims, x):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return None
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if _dim(x) == 0 and all(d in (0, -1) for d in dims):
        return None  # PyTorch lets dim 0 / -1 name a 0-d tensor's "axis"
    return dims


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


def _add(x, y, alpha=1):
    if _dtype_of(x) == np.bool_ and _dtype_of(y) == np.bool_:
        return x | y  # PyTorch's sum of booleans
    return x + (y if alpha == 1 else y * alpha)


def _sub(x, y, alpha=1):
    return x - (y if alpha == 1 else y * alpha)


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                      (x + 0.044715 * x * x * x)))
    from ..functions import erf
    return 0.5 * x * (1 + erf(x * (1 / math.sqrt(2))))


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


def _addmm(bias, a, b, beta=1, alpha=1):
    product = a @ b
    if alpha != 1:
        product = product * alpha
    return product + (bias if beta == 1 else bias * beta)


def _linear(x, weight, bias=None):
    out = x @ np.transpose(weight)
    return out if bias is None else out + bias


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


def _where(cond, x, y):
    if _dtype_of(x) == np.bool_ and _dtype_of(y) == np.bool_:
        return np.where(cond, _as_int(x), _as_int(y)) != 0  # no i1 select
    return np.where(cond, x, y)


def _to_copy(x, dtype=None, **kwargs):
    if dtype is None:
        return x
    if dtype == torch.bool and _dtype_of(x) != np.bool_:
        return x != 0  # PyTorch's bool(x), not a truncating cast
    return as_tracer(x).astype(numpy_dtype(dtype)) if isinstance(
        x, Tracer) else np.asarray(x).astype(numpy_dtype(dtype))


def _full(size, fill_value, dtype=None, **kwargs):
    """A traced constant broadcast to `size` (not a NumPy array, which the
    tracer would turn into an extra function argument)."""
    if dtype is not None:
        dtype = numpy_dtype(dtype)
    else:
        dtype = np.bool_ if isinstance(fill_value, bool) else (
            np.float32 if isinstance(fill_value, float) else np.int64)
    value = as_tracer(np.asarray(fill_value, dtype=dtype)[()])
    shape = tuple(int(d) for d in size)
    return np.broadcast_to(value, shape) if shape else value


def _arange(start, end=None, step=1, dtype=None, **kwargs):
    if end is None:
        start, end = 0, start
    if dtype is not None:
        np_dtype = numpy_dtype(dtype)
    else:
        np_dtype = np.float32 if any(isinstance(v, float) for v in (
            start, end, step)) else np.int64
    values = np.arange(start, end, step, dtype=np.float64)
    if values.size == 0:
        raise UnsupportedOpError("arange with no elements (empty tensors "
                                 "cannot be compiled)")
    return current_trace().constant(values.astype(np_dtype))


def _full_like(x, fill_value, dtype=None, **kwargs):
    if dtype is None:
        dtype = _dtype_of(x)
    else:
        dtype = numpy_dtype(dtype)
    value = as_tracer(np.asarray(fill_value, dtype=dtype)[()])
    shape = tuple(np.shape(x)) if not isinstance(x, Tracer) else x.shape
    return np.broadcast_to(value, shape) if shape else value


def _embedding(weight, indices, *args):
    return as_tracer(weight)[indices]


def _erf(x):
    from ..functions import erf
    return erf(x)


def _identity(x, *args, **kwargs):
    return x


def _dtype_of(x) -> np.dtype:
    return x.dtype if isinstance(x, (Tracer, np.ndarray, np.generic)) \
        else np.asarray(x).dtype


def _cast(x, dtype):
    dtype = np.dtype(dtype)
    if _dtype_of(x) == dtype:
        return x
    return x.astype(dtype) if isinstance(x, (Tracer, np.ndarray)) \
        else np.asarray(x, dtype=dtype)


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


def _integer_divmod(x, y, floor):
    """Quotient and remainder of integer tensors, rounded toward -inf
    (`floor`) or zero; PyTorch raises on a zero divisor, and so does the
    compiled code (ZeroDivisionError after the call)."""
    dtype = result_dtype(np.floor_divide, x, y)  # Python ints are weak
    if dtype == np.bool_:
        dtype = np.dtype(np.int32)
    a, b = as_tracer(x, dtype), as_tracer(y, dtype)
    current_trace().check_nonzero_divisor(b)
    return integer_divmod(a, b, floor=floor)


def _both_integers(x, y):
    return _dtype_of(x).kind in "biu" and _dtype_of(y).kind in "biu"


def _remainder(x, y):
    """Python's modulo (the divisor's sign)."""
    if _both_integers(x, y):
        return _integer_divmod(x, y, floor=True)[1]
    return x - np.floor(x / y) * y


def _fmod(x, y):
    """C's fmod (the dividend's sign)."""
    if _both_integers(x, y):
        return _integer_divmod(x, y, floor=False)[1]
    q = x / y
    return x - np.where(q < 0, np.ceil(q), np.floor(q)) * y


def _index_select(x, dim, index):
    # A 0-d index selects one entry and keeps the axis (size 1), unlike
    # np.take, which drops it.
    if _dim(index) == 0:
        index = np.reshape(index, (1,))
    return np.take(x, index, axis=dim % max(_dim(x), 1))


def _gather(x, dim, index, sparse_grad=False):
    """torch.gather: out[i][j][k] = x[i][index[i][j][k]][k] for dim=1."""
    n = _dim(x)
    dim = dim % max(n, 1)
    shape = tuple(np.shape(index)) if not isinstance(index, Tracer) else \
        index.shape
    key = []
    for d in range(n):
        if d == dim:
            key.append(index)
        else:
            ar = np.arange(shape[d], dtype=np.int32).reshape(
                [-1 if e == d else 1 for e in range(n)])
            key.append(np.broadcast_to(ar, shape))
    return as_tracer(x)[tuple(key)]


class _Unavailable:
    """A result TinyTensor cannot compute (the indices of max.dim): an error
    if anything reads it."""

    def __init__(self, what: str):
        self.what = what


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


def _triangle_indices(lower: bool):
    def indices(row, col, offset=0, dtype=None, **kwargs):
        """aten.tril_indices / triu_indices: the [2, N] coordinates of the
        triangle, row by row (a constant)."""
        rows, cols = (np.tril_indices if lower else np.triu_indices)(
            int(row), int(offset), int(col))
        if rows.size == 0:
            raise UnsupportedOpError(
                f"{'tril' if lower else 'triu'}_indices of an empty "
                f"triangle (empty tensors are not supported)")
        target = numpy_dtype(dtype) if dtype is not None else np.int64
        return as_tracer(np.stack([rows, cols]).astype(target))
    return indices


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


def _div(x, y, rounding_mode=None):
    if rounding_mode is None:
        return x / y
    if rounding_mode not in ("trunc", "floor"):
        raise UnsupportedOpError(f"unknown rounding_mode {rounding_mode!r}")
    if _both_integers(x, y):
        return _integer_divmod(x, y, floor=rounding_mode == "floor")[0]
    # Floating point: the quotient rounded down or toward zero (as
    # remainder and fmod are computed).
    q = x / y
    if rounding_mode == "floor":
        return np.floor(q)
    return np.where(q < 0, np.ceil(q), np.floor(q))


def _as_int(x):
    """Booleans (or numbers, as `x != 0`) as int32 0/1: tt's select has
    no boolean operands, so logic is done on integers."""
    if _dtype_of(x) != np.bool_:
        x = x != 0
    return _cast(x, np.int32)


def _logical_not(x):
    return _as_int(x) == 0


def _logical_and(x, y):
    return _as_int(x) * _as_int(y) != 0


def _logical_or(x, y):
    return _as_int(x) + _as_int(y) != 0


def _rrelu_backward(grad, x, noise, lower, upper, training,
                    self_is_result=False):
    """aten.rrelu_with_noise_backward, as PyTorch computes it: in training
    (with a range of slopes) the gradient times the recorded noise, else
    leaky relu's gradient with the mean slope."""
    if training and upper - lower > 1e-6:
        return grad * noise
    slope = _dtype_of(grad).type((lower + upper) / 2)
    return np.where(x > 0, grad, grad * slope)


def _elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    negative = np.expm1(x * input_scale) * alpha
    return np.where(x > 0, x, negative) * scale


#: The longest axis a cumulative product is unrolled along (one multiply
#: per element of the axis; tt has no scan but cumsum).
_MAX_CUMPROD = 256


def _cumprod(x, dim, dtype=None):
    if dtype is not None:
        x = _cast(x, numpy_dtype(dtype))
    elif _dtype_of(x).kind in "biu":
        x = _cast(x, np.int64)
    axis = dim % max(_dim(x), 1)
    n = np.shape(x)[axis] if _dim(x) else 1
    if n > _MAX_CUMPROD:
        raise UnsupportedOpError(f"cumprod along an axis of {n} elements "
                                 f"(at most {_MAX_CUMPROD})")
    if _dim(x) == 0 or n == 1:
        return x
    parts = np.split(x, n, axis=axis)
    running = [parts[0]]
    for part in parts[1:]:
        running.append(running[-1] * part)
    return np.concatenate(running, axis=axis)


def _logcumsumexp(x, dim):
    """log(cumsum(exp(x))) along `dim`, each step logaddexp(running, x_i)
    = max + log1p(exp(-|difference|)): exact where one shift by the
    row's maximum would underflow the early terms. Unrolled along the
    axis (at most _MAX_CUMPROD elements)."""
    axis = dim % max(_dim(x), 1)
    n = np.shape(x)[axis] if _dim(x) else 1
    if n > _MAX_CUMPROD:
        raise UnsupportedOpError(f"logcumsumexp along an axis of {n} "
                                 f"elements (at most {_MAX_CUMPROD})")
    if _dim(x) == 0 or n == 1:
        return x
    parts = np.split(x, n, axis=axis)
    running = [parts[0]]
    for part in parts[1:]:
        a, b = running[-1], part
        high = np.maximum(a, b)
        step = high + np.log1p(np.exp(-np.abs(a - b)))
        # -inf with -inf stays -inf (the difference would be NaN).
        running.append(np.where(high == -np.inf, high, step))
    return np.concatenate(running, axis=axis)


def _fmax_fmin(pick):
    """aten.fmax / fmin: NaN only where both operands are NaN."""
    def impl(x, y):
        both = pick(x, y)
        return np.where(x != x, y, np.where(y != y, x, both))
    return impl


def _signbit(x):
    """The sign bit (of -0.0 and of a negative NaN too)."""
    dtype = _dtype_of(x)
    if not is_float(dtype):
        return x < 0
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[dtype.itemsize]
    return as_tracer(x).view(bits) < 0


def _view_dtype(x, dtype):
    """aten.view.dtype: the elements' bits as another dtype of the same
    size."""
    target = numpy_dtype(dtype)
    if target.itemsize != _dtype_of(x).itemsize:
        raise UnsupportedOpError(
            f"view of a {_dtype_of(x)} tensor as {dtype} (elements of "
            f"another size)")
    return as_tracer(x).view(target)


def _fake_quantize_cachemask(x, scale, zero_point, quant_min, quant_max):
    """aten.fake_quantize_per_tensor_affine_cachemask: (the quantized
    and dequantized x, where the rounded value was inside [qmin, qmax])."""
    scale = np.reshape(scale, ()) if not isinstance(scale, float) else scale
    zero_point = np.reshape(zero_point, ()) \
        if not isinstance(zero_point, int) else zero_point
    q = np.round(x * (1.0 / scale)) + zero_point
    out = (np.clip(q, quant_min, quant_max) - zero_point) * scale
    return out.astype(_dtype_of(x)), (q >= quant_min) & (q <= quant_max)


def _leaky_relu(x, negative_slope=0.01):
    return np.where(x > 0, x, x * negative_slope)


def _no_op(*args, **kwargs):
    return None


ATEN_OPS: Dict[str, Callable] = {
    "add": _add, "sub": _sub, "rsub": lambda x, y, alpha=1: _sub(y, x, alpha),
    "mul": lambda x, y: _logical_and(x, y) if _dtype_of(x) == np.bool_
        and _dtype_of(y) == np.bool_ else x * y, "div": _div,
    "pow": operator.pow, "neg": operator.neg, "abs": np.abs,
    "exp": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x,
    "erf": lambda x: _erf(x),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "relu": lambda x: np.maximum(x, 0), "gelu": _gelu,
    "maximum": np.maximum, "minimum": np.minimum,
    "clamp": lambda x, min=None, max=None: _clamp(x, min, max),
    "clamp_min": lambda x, min: np.maximum(x, min),
    "clamp_max": lambda x, max: np.minimum(x, max),
    "where": _where, "gt": operator.gt, "lt": operator.lt,
    "ge": operator.ge, "le": operator.le, "eq": operator.eq,
    "ne": operator.ne,
    "sum": _sum, "mean": _mean, "var": _var,
    "amax": _amax, "amin": _amin, "max": _max, "min": _min,
    "logical_not": _logical_not, "bitwise_not": np.invert,
    "logical_and": _logical_and, "logical_or": _logical_or,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "__and__": np.bitwise_and,
    "__or__": np.bitwise_or, "__xor__": np.bitwise_xor,
    "bitwise_left_shift": np.left_shift, "__lshift__": np.left_shift,
    "bitwise_right_shift": np.right_shift, "__rshift__": np.right_shift,
    "atan": np.arctan, "atan2": np.arctan2, "arctan2": np.arctan2,
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh,
    "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "log10": np.log10,
    "leaky_relu": _leaky_relu, "elu": _elu, "cumprod": _cumprod,
    "logcumsumexp": _logcumsumexp,
    # Python arithmetic on sizes and numbers (operator.truediv, ...).
    "truediv": operator.truediv, "floordiv": operator.floordiv,
    "mod": operator.mod,
    "_assert_async": _no_op,
    "iota": lambda length, start=0, step=1, dtype=None, **kw: _arange(
        start, start + step * length, step, dtype=dtype),
    "upsample_nearest1d_backward": vision.upsample_nearest_backward,
    "upsample_nearest2d_backward": vision.upsample_nearest_backward,
    "upsample_nearest3d_backward": vision.upsample_nearest_backward,
    "fmax": _fmax_fmin(np.maximum), "fmin": _fmax_fmin(np.minimum),
    "signbit": _signbit, "ldexp": lambda x, e: x * np.exp2(e),
    "addbmm": lambda x, b1, b2, beta=1, alpha=1: beta * x + alpha * np.sum(
        np.matmul(b1, b2), axis=0) if beta != 0 else alpha * np.sum(
        np.matmul(b1, b2), axis=0),
    "fake_quantize_per_tensor_affine_cachemask": _fake_quantize_cachemask,
    "_adaptive_avg_pool3d": lambda x, size: vision.adaptive_avg_pool(
        x, size, nd=3),
    "adaptive_avg_pool3d": lambda x, size: vision.adaptive_avg_pool(
        x, size, nd=3),
    "hardtanh": lambda x, min_val=-1.0, max_val=1.0: _clamp(x, min_val,
                                                            max_val),
    "log1p": np.log1p, "expm1": np.expm1, "exp2": np.exp2, "log2": np.log2,
    "sin": np.sin, "cos": np.cos, "floor": np.floor, "ceil": np.ceil,
    "round": lambda x, decimals=0: np.round(x, decimals), "sign": np.sign,
    "square": np.square, "remainder": _remainder, "fmod": _fmod,
    "argmax": lambda x, dim=None, keepdim=False: _arg(np.argmax, x, dim,
                                                      keepdim),
    "argmin": lambda x, dim=None, keepdim=False: _arg(np.argmin, x, dim,
                                                      keepdim),
    "any": _any, "all": _all, "prod": _prod, "cumsum": _cumsum,
    "sort": _sort, "topk": _topk,
    "index_select": _index_select, "gather": _gather,
    "tril": lambda x, diagonal=0: np.tril(x, diagonal),
    "triu": lambda x, diagonal=0: np.triu(x, diagonal),
    "_assert_tensor_metadata": _no_op,
    "_softmax": _softmax, "softmax": lambda x, dim, dtype=None: _softmax(
        x if dtype is None else _cast(x, numpy_dtype(dtype)), dim),
    "_log_softmax": _log_softmax,
    "log_softmax": lambda x, dim, dtype=None: _log_softmax(
        x if dtype is None else _cast(x, numpy_dtype(dtype)), dim),
    "native_layer_norm": _native_layer_norm, "layer_norm": _layer_norm,
    "mm": operator.matmul, "bmm": operator.matmul,
    "matmul": operator.matmul, "addmm": _addmm, "linear": _linear,
    "view": lambda x, size: _view_dtype(x, size) if isinstance(
        size, torch.dtype) else np.reshape(x, tuple(size)),
    "_unsafe_view": lambda x, size: np.reshape(x, tuple(size)),
    "reshape": lambda x, size: np.reshape(x, tuple(size)),
    "permute": lambda x, dims: np.transpose(x, tuple(d % _dim(x)
                                                      for d in dims)),
    "t": lambda x: np.transpose(x),
    "unsqueeze": lambda x, dim: np.expand_dims(x, dim % (_dim(x) + 1)),
    "squeeze": _squeeze, "flatten": _flatten, "expand": _expand,
    "slice": _slice, "select": _select, "cat": _cat,
    "split": _split, "split_with_sizes": _split_with_sizes, "chunk": _chunk,

    # Empty tensors' contents are unspecified in PyTorch: zeros here.
    "empty": lambda size, dtype=None, **kw: _full(
        size, 0, dtype or torch.float32),
    "empty_permuted": lambda size, layout, dtype=None, **kw: _full(
        size, 0, dtype or torch.float32),
    "empty_strided": lambda size, stride, dtype=None, **kw: _full(
        size, 0, dtype or torch.float32),
    "new_empty_strided": lambda x, size, stride, dtype=None, **kw: _cast(
        _full(size, 0, dtype or torch.float32),
        numpy_dtype(dtype) if dtype is not None else _dtype_of(x)),
    "empty_like": lambda x, dtype=None, **kw: _full_like(x, 0, dtype),
    "new_empty": lambda x, size, dtype=None, **kw: _cast(
        _full(size, 0, dtype or torch.float32),
        numpy_dtype(dtype) if dtype is not None else _dtype_of(x)),
    "logical_xor": lambda x, y: _as_int(x) != _as_int(y),
    "kthvalue": _kthvalue,
    "bucketize": _bucketize,
    "tril_indices": _triangle_indices(lower=True),
    "triu_indices": _triangle_indices(lower=False),
    # prims.collapse: the axes start..end merged into one.
    "collapse": lambda x, start, end: np.reshape(
        x, tuple(np.shape(x)[:start]) + (-1,) + tuple(np.shape(x)[end + 1:])),
    "unfold": vision.unfold,
    "rrelu_with_noise_backward": _rrelu_backward,
    "native_group_norm": vision.group_norm,
    "upsample_linear1d": vision.upsample_linear_aten,
    "upsample_bilinear2d": vision.upsample_linear_aten,
    "upsample_trilinear3d": vision.upsample_linear_aten,
    "upsample_nearest1d": vision.upsample_nearest_aten,
    "upsample_nearest2d": vision.upsample_nearest_aten,
    "upsample_nearest3d": vision.upsample_nearest_aten,
    # A tensor's one element as a number (int(x), x.item()): a 0-d value.
    "item": lambda x: np.reshape(x, ()),
    "_local_scalar_dense": lambda x: np.reshape(x, ()),
    "_assert_scalar": _no_op, "sym_constrain_range": _no_op,
    "sym_constrain_range_for_size": _no_op,
    "_to_copy": _to_copy, "to": _to_copy,
    "convert_element_type": lambda x, dtype: _to_copy(x, dtype=dtype), "full": _full,
    "full_like": _full_like, "arange": _arange,
    "scalar_tensor": lambda v, dtype=None, **kw: _full((), v, dtype),
    "embedding": _embedding,
    "scaled_dot_product_attention": attention.scaled_dot_product_attention,
    # AOTAutograd's form of it and its backward.
    "_scaled_dot_product_flash_attention_for_cpu":
        attention.flash_attention_for_cpu,
    "_scaled_dot_product_flash_attention_for_cpu_backward":
        attention.flash_attention_for_cpu_backward,
    "convolution": vision.convolution,
    # cuDNN's flags (benchmark, deterministic, cudnn_enabled, allow_tf32)
    # choose among kernels of equal results.
    "_convolution": lambda x, w, b, stride, padding, dilation, transposed,
        output_padding, groups, *flags: vision.convolution(
            x, w, b, stride, padding, dilation, transposed, output_padding,
            groups),
    "conv_tbc": vision.conv_tbc,
    "max_pool2d_with_indices": vision.max_pool_with_indices,
    "max_pool2d_with_indices_backward": vision.max_pool_backward,
    "max_pool3d_with_indices_backward":
        lambda *args: vision.max_pool_backward(*args, nd=3),
    "max_pool2d": lambda x, kernel_size, stride=(), padding=0, dilation=1,
        ceil_mode=False: vision.max_pool(x, kernel_size, stride, padding,
                                         dilation, ceil_mode),
    "max_pool3d_with_indices": lambda x, kernel_size, stride=(), padding=0,
        dilation=1, ceil_mode=False: vision.max_pool_with_indices(
            x, kernel_size, stride, padding, dilation, ceil_mode, nd=3),
    "trunc": lambda x: np.where(x < 0, np.ceil(x), np.floor(x))
        if is_float(_dtype_of(x)) else x,
    "var_mean": lambda x, dim=None, correction=None, keepdim=False: (
        _var(x, dim, correction=correction, keepdim=keepdim),
        _mean(x, dim, keepdim=keepdim)),
    "max_pool3d": lambda x, kernel_size, stride=(), padding=0, dilation=1,
        ceil_mode=False: vision.max_pool(x, kernel_size, stride, padding,
                                         dilation, ceil_mode, nd=3),
    "avg_pool3d": lambda x, kernel_size, stride=(), padding=0,
        ceil_mode=False, count_include_pad=True, divisor_override=None:
        vision.avg_pool(x, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override, nd=3),
    "index_put": scatter.index_put,
    "_index_put_impl": scatter.index_put,
    "scatter": scatter.scatter,
    "scatter_add": scatter.scatter_add,
    "scatter_reduce": scatter.scatter_reduce,
    "index_add": scatter.index_add,
    "index_copy": scatter.index_copy,
    "slice_scatter": scatter.slice_scatter,
    "select_scatter": scatter.select_scatter,
    "flip": indexing.flip,
    "repeat": indexing.repeat,
    "diagonal": indexing.diagonal,
    "linalg_vector_norm": indexing.linalg_vector_norm,
    "norm": indexing.norm,
    "isnan": lambda x: x != x,
    "isinf": lambda x: np.abs(x) == np.inf if is_float(_dtype_of(x))
        else x != x,
    "isfinite": lambda x: (np.abs(x) < np.inf) if is_float(_dtype_of(x))
        else x == x,
    "copy": lambda x, src, non_blocking=False: _cast(
        np.broadcast_to(src, np.shape(x)), _dtype_of(x)),
    "avg_pool2d": vision.avg_pool,
    "avg_pool1d": lambda x, kernel_size, stride=(), padding=0,
        ceil_mode=False, count_include_pad=True: vision.avg_pool(
            x, kernel_size, stride, padding, ceil_mode, count_include_pad,
            nd=1),
    "adaptive_max_pool2d": vision.adaptive_max_pool,
    "adaptive_max_pool3d": lambda x, output_size:
        vision.adaptive_max_pool(x, output_size, nd=3),
    "_trilinear": _trilinear,
    "_adaptive_avg_pool2d": vision.adaptive_avg_pool,
    "adaptive_avg_pool2d": vision.adaptive_avg_pool,
    "_native_batch_norm_legit_no_training": vision.batch_norm_eval,
    "_native_batch_norm_legit_functional": vision.batch_norm_train,
    "_native_batch_norm_legit": vision.batch_norm_legit,
    "constant_pad_nd": vision.constant_pad_nd,
    "index": vision.index_tensor,
    "clone": _identity, "contiguous": _identity, "alias": _identity,
    "detach": _identity, "lift_fresh_copy": _identity,
}


def _clamp(x, lo, hi):
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def _swapaxes(x, a, b):
    n = _dim(x)
    perm = list(range(n))
    perm[a % n], perm[b % n] = perm[b % n], perm[a % n]
    return np.transpose(x, perm)


ATEN_OPS.update(quantized.ATEN_OPS)
ATEN_OPS.update(random.OPS)  # called with the program's generator first
ATEN_OPS["transpose"] = _swapaxes
ATEN_OPS["addcmul"] = lambda x, a, b, value=1: x + value * (a * b)
ATEN_OPS["addcdiv"] = lambda x, a, b, value=1: x + value * (a / b)
ATEN_OPS["lerp"] = lambda x, end, weight: x + weight * (end - x)


def _foreach(op: str):
    """aten._foreach_<op>: `op` applied to each tensor of the list
    arguments (zipped), scalars and single tensors shared (optimizers'
    multi-tensor updates)."""
    impl = ATEN_OPS[op]

    def apply(*args, **kwargs):
        n = next(len(a) for a in args if isinstance(a, (list, tuple)))

        def pick(a, i):
            return a[i] if isinstance(a, (list, tuple)) else a
        return [impl(*(pick(a, i) for a in args), **kwargs)
                for i in range(n)]
    return apply


for _op in ("add", "sub", "mul", "div", "pow", "neg", "abs", "exp", "sqrt",
            "reciprocal", "sign", "maximum", "minimum", "clamp_min",
            "clamp_max", "addcmul", "addcdiv", "lerp"):
    ATEN_OPS[f"_foreach_{_op}"] = _foreach(_op)


# -- programs -----------------------------------------------------------------

#: ATen ops whose result shares its input's memory (as_strided follows
#: them back to the tensor that owns it).
_VIEW_OPS = frozenset({
    "view", "_unsafe_view", "alias", "as_strided", "detach", "expand",
    "permute", "transpose", "t", "slice", "select", "diagonal", "narrow",
    "unsqueeze", "squeeze", "unfold", "movedim", "split", "split_with_sizes",
    "chunk", "unbind", "getitem", "view_as"})


def _op_name(target) -> str:
    if target is operator.getitem:
        return "getitem"
    name = getattr(target, "__name__", str(target))
    packet = getattr(target, "overloadpacket", None)
    if packet is not None:
        return packet.__name__
    return name.split(".")[0]


def _where_in_model(node: torch.fx.Node) -> str:
    """"in module 'path' (Type) at file:line" for diagnostics."""
    parts = []
    stack = node.meta.get("nn_module_stack")
    if stack:
        path, cls = list(stack.values())[-1]
        cls_name = getattr(cls, "__name__", str(cls)).split(".")[-1]
        parts.append(f"in module '{path or '<root>'}' ({cls_name})")
    trace = node.meta.get("stack_trace")
    if trace:
        lines = [l.strip() for l in trace.strip().splitlines()
                 if l.strip().startswith("File ")]
        # The innermost frame outside PyTorch's tracing machinery.
        internal = ("/torch/fx/", "/torch/_", "/torch/export/",
                    "/torch/utils/")
        lines = [l for l in lines if not any(d in l for d in internal)]
        if lines:
            parts.append("at " + lines[-1])
    return ", ".join(parts) or f"at graph node '{node.name}'"


def _node_location(node: torch.fx.Node):
    """The MLIR location of a graph node's ops: its submodule (a name) at
    the model's source line that made it, when torch recorded them."""
    from .._mlir import ir
    loc = None
    trace = node.meta.get("stack_trace")
    if trace:
        internal = ("/torch/fx/", "/torch/_", "/torch/export/",
                    "/torch/utils/")
        frames = [m for m in re.finditer(r'File "([^"]+)", line (\d+)', trace)
                  if not any(d in m.group(1) for d in internal)]
        if frames:
            loc = ir.Location.file(frames[-1].group(1),
                                   int(frames[-1].group(2)), 0)
    stack = node.meta.get("nn_module_stack")
    if stack:
        path, cls = list(stack.values())[-1]
        cls_name = getattr(cls, "__name__", str(cls)).split(".")[-1]
        name = f"{path or '<root>'} ({cls_name})"
        loc = ir.Location.name(name, childLoc=loc) if loc else \
            ir.Location.name(name)
    return loc


def _empty_result(node):
    """A node's result when it is a tensor with no elements and a static
    shape: zeros of that shape (it has no values to compute), else None."""
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor) or \
            not all(isinstance(d, int) for d in value.shape) or \
            0 not in value.shape:
        return None
    try:
        dtype = numpy_dtype(value.dtype)
    except TypeError:
        return None
    return np.zeros(tuple(value.shape), dtype)


def _memory_order(value) -> Optional[List[int]]:
    """The dimensions of a tensor that owns its memory densely (no gaps,
    no overlap, offset 0: contiguous or e.g. channels-last) from the
    outermost in memory to the innermost, or None."""
    if not isinstance(value, torch.Tensor) or value.storage_offset() != 0:
        return None
    shape, strides = tuple(value.shape), tuple(value.stride())
    order = sorted(range(len(shape)), key=lambda d: -strides[d])
    expected = 1
    for d in reversed(order):
        if shape[d] != 1 and strides[d] != expected:
            return None
        expected *= shape[d]
    return order


def _scalar_type(output) -> Optional[type]:
    """bool, int or float when a graph output is a Python number (a
    constant, or a symbolic size), else None."""
    value = output.meta.get("val") if isinstance(output, torch.fx.Node) \
        else output
    for kind, symbolic in ((bool, torch.SymBool), (int, torch.SymInt),
                           (float, torch.SymFloat)):
        if isinstance(value, (kind, symbolic)):
            return kind
    return None


def _meta_dtype(node) -> Optional[torch.dtype]:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val.dtype if isinstance(val, torch.Tensor) else None


def _attribute(model: torch.nn.Module, path: str):
    obj = model
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _tensor_key(t: torch.Tensor) -> tuple:
    return (t.data_ptr(), tuple(t.shape), t.stride(), t.dtype, t.device)


class GraphProgram:
    """An FX graph of ATen ops plus the tensors it reads, as a function that
    TinyTensor's tracer can run.

    `constants` maps graph names to the parameter, buffer and constant
    tensors; `targets` maps the graph names of parameters and buffers to
    their attribute paths in the model (for `is_current`). `mutations` lists,
    for each leading graph output that is not a user output, ("input", index)
    or ("buffer", path): the new value of a user input or buffer that the
    model updates in place.
    """

    def __init__(self, graph: torch.fx.Graph, user_inputs: List[str],
                 constants: Dict[str, torch.Tensor], out_spec,
                 targets: Optional[Dict[str, str]] = None,
                 mutations: Sequence[tuple] = ()):
        self.graph = graph
        self.user_inputs = user_inputs
        self.out_spec = out_spec
        self.targets = dict(targets or {})
        self.mutations = list(mutations)
        #: The symbolic sizes of a program exported with dynamic_shapes:
        #: a DynamicDims over the user inputs (by position) and all graph
        #: outputs, or None.
        self.dynamic: Optional[DynamicDims] = None
        placeholders = {n.name: n for n in graph.nodes
                        if n.op == "placeholder"}
        self.input_dtypes = [_meta_dtype(placeholders.get(name))
                             for name in user_inputs]
        output = next(n for n in graph.nodes if n.op == "output")
        flat, _ = pytree.tree_flatten(output.args[0])
        self.output_dtypes = [_meta_dtype(n) for n in flat]
        #: The Python type (bool, int, float) of each output the model
        #: returns as a number rather than a tensor, else None.
        self.output_scalars = [_scalar_type(n) for n in flat]
        # NumPy views of the parameters and buffers: the tracer turns them
        # into trailing arguments, read afresh at every call; 0-d ones are
        # passed as shape (1,) views (the tracer would fold 0-d arrays as
        # constants).
        self.sources = dict(constants)
        self._keys = {name: _tensor_key(t) for name, t in constants.items()}
        self._scalars = set()
        params = {}
        #: Constants with no elements (Hugging Face's empty key/value cache
        #: before its first update): plain NumPy values, not arguments
        #: (a compiled function takes no empty arrays).
        self._empty = {}
        for name, t in constants.items():
            array = tensor_to_numpy(t, f"'{self.targets.get(name, name)}'")
            if array.ndim == 0:
                array = array.reshape(1)
                self._scalars.add(name)
            if array.size == 0:
                self._empty[name] = array
            else:
                params[name] = array
        #: The seed of the random ops (random.py), drawn from PyTorch's
        #: generator before every call (`refresh_seed`); None without them.
        self._rng_seed = None
        if any(n.op == "call_function" and _op_name(n.target) in random.OPS
               for n in graph.nodes):
            self._rng_seed = np.zeros(1, np.int64)
        self.params = params
        program = self

        def forward(*inputs):
            return program.run(inputs, params)

        # One named positional parameter per user input (the graph's
        # placeholder names), so that jit's fast path for positional arrays
        # serves the calls: a *inputs signature takes the general path,
        # which binds the signature and flattens the arguments every call.
        names = list(self.user_inputs)
        if not all(n.isidentifier() for n in names) or \
                len(set(names)) != len(names):
            names = [f"input{i}" for i in range(len(names))]
        forward.__signature__ = inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
             for n in names])
        self.function = forward

    def refresh_seed(self) -> None:
        """Draws the next seed of the program's random ops (if it has
        any) from PyTorch's default generator."""
        if self._rng_seed is not None:
            self._rng_seed[0] = random.new_seed()

    # -- the current values of the parameters and buffers ---------------------
    def is_current(self, model: torch.nn.Module) -> bool:
        """Whether the model still holds the tensors (same storage, shape,
        strides and dtype) this program reads; False after e.g.
        `model.fc.weight = nn.Parameter(...)`, `param.data = ...` or
        `model.double()`, which need a new capture."""
        for name, path in self.targets.items():
            current = _attribute(model, path)
            if not isinstance(current, torch.Tensor) or \
                    _tensor_key(current) != self._keys[name]:
                return False
        return True

    # -- tracing --------------------------------------------------------------
    def run(self, inputs: Sequence, params: Dict[str, Any]):
        env: Dict[torch.fx.Node, Any] = {}
        if len(self.user_inputs) != len(inputs):
            raise TypeError(f"expected {len(self.user_inputs)} inputs, got "
                            f"{len(inputs)}")
        user = dict(zip(self.user_inputs, inputs))

        def load(a):
            if not isinstance(a, torch.fx.Node):
                return a
            value = env[a]
            if isinstance(value, _Unavailable):
                error = UnsupportedOpError(
                    f"{value.what} is not supported {_where_in_model(a)}")
                error.node = a.name
                raise error
            return value

        self._env = env
        self._generator = random.Generator(self._rng_seed)
        for node in self.graph.nodes:
            if node.op == "placeholder":
                if node.name in user:
                    env[node] = user[node.name]
                else:
                    env[node] = self._param(node.name, params)
                if complex.is_complex(_meta_dtype(node)):
                    env[node] = complex.from_pairs(env[node])
            elif node.op == "get_attr":
                env[node] = self._param(node.target, params)
            elif node.op == "call_function":
                args = pytree.tree_map(load, node.args)
                kwargs = pytree.tree_map(load, node.kwargs)
                trace = current_trace()
                if trace is not None:  # the ops' location: the model's
                    trace.builder.location = _node_location(node)
                try:
                    env[node] = self._call(node, args, kwargs)
                except (UnsupportedOpError, TypeError, ValueError) as e:
                    # The node that failed, for a caller that compiles
                    # around it (the Dynamo backend's fallback).
                    if getattr(e, "node", None) is None:
                        e.node = node.name
                    raise
                finally:
                    if trace is not None:
                        trace.builder.location = None
            elif node.op == "output":
                outputs = pytree.tree_flatten(
                    pytree.tree_map(load, node.args[0]))[0]
                outputs = [complex.to_pairs(o) if isinstance(
                    o, complex.Complex) else o for o in outputs]
                for out, src in zip(outputs, pytree.tree_flatten(
                        node.args[0])[0]):
                    if out is None or isinstance(out, _Unavailable):
                        raise UnsupportedOpError(
                            f"the model returns a value TinyTensor cannot "
                            f"compute ({src})")
                return list(outputs)
            else:
                raise UnsupportedOpError(
                    f"unsupported FX node kind '{node.op}' ({node.target}) "
                    f"{_where_in_model(node)}")
        raise RuntimeError("graph has no output node")

    def _param(self, name, params):
        value = self._empty[name] if name in self._empty else params[name]
        return np.reshape(value, ()) if name in self._scalars else value

    def _as_strided(self, node, x, size, stride, storage_offset=None):
        """aten.as_strided reads the memory of the tensor that `x` is a
        view of: the graph's views are followed back to the value that
        owns it, and the offset and strides are those of that storage (as
        PyTorch's fake tensor for `x` records them)."""
        root = node.args[0]
        while root.op == "call_function" and \
                _op_name(root.target) in _VIEW_OPS:
            root = root.args[0]
        value = root.meta.get("val")
        order = _memory_order(value)
        if order is None:
            raise UnsupportedOpError(
                f"as_strided of a view whose storage TinyTensor cannot "
                f"find ({root.name}) {_where_in_model(node)}")
        if storage_offset is None:
            storage_offset = node.args[0].meta["val"].storage_offset()
        storage = np.transpose(self._env[root], order)  # memory order
        return indexing.as_strided(storage, value.numel(), size, stride,
                                   int(storage_offset))

    def _call(self, node, args, kwargs):
        name = _op_name(node.target)
        empty = _empty_result(node)
        if empty is not None:  # no elements: nothing to compute
            return empty
        if name == "getitem":
            return args[0][args[1]]
        if name == "sym_size":
            # The traced size. With dynamic_shapes the program is traced at
            # two sizes, and what the size did must generalize (a reshape
            # by it takes a -1) or the program is refused.
            return int(args[0].shape[args[1]])
        if name == "as_strided":
            return self._as_strided(node, *args, **kwargs)
        if name in ("sym_numel", "sym_stride"):
            raise UnsupportedOpError(
                f"the program uses '{node.target}' "
                f"{_where_in_model(node)}, which TinyTensor does not "
                f"support")
        if complex.has_complex(args) or complex.has_complex(kwargs.values()):
            return self._torch_dtype(node, complex.call(
                name, ATEN_OPS.get(name), args, kwargs))
        if complex.creates(name, kwargs):
            return self._torch_dtype(node, complex.create(name, args, kwargs))
        impl = ATEN_OPS.get(name)
        if name in random.OPS:
            impl = functools.partial(impl, self._generator)
        if impl is None:
            raise UnsupportedOpError(
                f"unsupported PyTorch operation '{node.target}' "
                f"{_where_in_model(node)}")
        kwargs = {k: v for k, v in kwargs.items()
                  if k not in ("layout", "device", "pin_memory",
                               "memory_format", "non_blocking")}
        try:
            result = impl(*args, **kwargs)
        except UnsupportedOpError as e:
            raise UnsupportedOpError(
                f"{e} (in '{node.target}' {_where_in_model(node)})") from None
        except (TypeError, ValueError) as e:
            raise type(e)(f"{e} (while compiling '{node.target}' "
                          f"{_where_in_model(node)})") from None
        return self._torch_dtype(node, result)

    @staticmethod
    def _torch_dtype(node, result):
        """Casts a tensor result to the dtype PyTorch computed."""
        dtype = _meta_dtype(node)
        if isinstance(result, complex.Complex) and complex.is_complex(dtype):
            return complex._lift(result, complex.part_dtype(dtype))
        if dtype is not None and isinstance(result, (Tracer, np.ndarray)):
            target = numpy_dtype(dtype)
            if result.dtype != target:
                return result.astype(target)
        return result

    # -- results --------------------------------------------------------------
    def restructure(self, outputs: List[torch.Tensor]):
        """The model's result structure from the flat user outputs, each in
        the dtype PyTorch computes (int64 where TinyTensor computed an
        int32 index, e.g. of argmax)."""
        dtypes = self.output_dtypes[len(self.mutations):]
        scalars = self.output_scalars[len(self.mutations):]
        outputs = [kind(o.item()) if kind is not None else
                   torch.view_as_complex(o).to(d) if d is not None and
                   d.is_complex else
                   o.to(d) if d is not None and o.dtype != d else o
                   for o, d, kind in zip(outputs, dtypes, scalars)]
        if self.out_spec is None:
            return outputs[0] if len(outputs) == 1 else tuple(outputs)
        return pytree.tree_unflatten(outputs, self.out_spec)


def _register_library_pytrees(model: torch.nn.Module) -> None:
    """Lets torch.export flatten the non-tensor containers a library's
    models return: Hugging Face models return their key/value cache (a
    `transformers.Cache`) next to the logits, a type torch.export does not
    know until transformers registers it (its own function, used for its
    own exports)."""
    if not type(model).__module__.startswith("transformers."):
        return
    try:
        from transformers.exporters.exporter_dynamo import (
            register_cache_pytrees_for_model)
    except ImportError:  # transformers 4.x
        try:
            from transformers.integrations.executorch import (
                register_dynamic_cache_export_support)
        except ImportError:
            return
        register_dynamic_cache_export_support()
        return
    register_cache_pytrees_for_model(model)


def _export(model, inputs, dynamic_shapes=None):
    _register_library_pytrees(model)
    with warnings.catch_warnings():
        # PyTorch's own pytree internals warn about their deprecated API.
        warnings.filterwarnings("ignore", category=FutureWarning,
                                message=".*LeafSpec.*")
        try:
            ep = torch.export.export(model, inputs,
                                     dynamic_shapes=dynamic_shapes)
        except Exception as error:
            if "data-dependent" not in str(error):
                raise
            # int(tensor), float(tensor), tensor.item(): Dynamo's (strict)
            # export records them as aten.item / _local_scalar_dense where
            # the non-strict one needs a concrete value.
            ep = torch.export.export(model, inputs,
                                     dynamic_shapes=dynamic_shapes,
                                     strict=True)
        table = torch.export.default_decompositions()
        # Attention stays one op (attention.py says why).
        table.pop(torch.ops.aten.scaled_dot_product_attention.default, None)
        if dynamic_shapes is not None:
            # With dynamic dimensions, aten.linear of a stack of rows stays
            # one op (tt.matmul takes the stack): its decomposition
            # reshapes by the symbolic sizes, which tt.reshape cannot take.
            table.pop(torch.ops.aten.linear.default, None)
        return ep.run_decompositions(table)


def _symbol(size, what: str) -> Optional[str]:
    """The symbol of a dynamic size (a torch.SymInt that is one symbol), or
    None for a static size."""
    if not isinstance(size, torch.SymInt):
        return None
    import sympy
    expr = size.node.expr
    if isinstance(expr, sympy.Integer):
        return None
    if not isinstance(expr, sympy.Symbol):
        raise UnsupportedOpError(
            f"{what} has the size {expr}: with dynamic_shapes, TinyTensor "
            f"supports sizes that are one dynamic dimension of an input, "
            f"not expressions of them")
    return str(expr)


def _dynamic_dims(ep, user_inputs: List[str]) -> DynamicDims:
    """The symbolic sizes of an exported program: which user input
    dimensions are dynamic, the symbol of each output dimension, and the
    symbols' ranges."""
    graph = ep.graph_module.graph
    placeholders = {n.name: n for n in graph.nodes if n.op == "placeholder"}
    inputs = {}
    for i, name in enumerate(user_inputs):
        val = placeholders[name].meta.get("val")
        for d, size in enumerate(getattr(val, "shape", ())):
            symbol = _symbol(size, f"input #{i} dimension {d}")
            if symbol is not None:
                inputs[(i, d)] = symbol
    output = next(n for n in graph.nodes if n.op == "output")
    flat, _ = pytree.tree_flatten(output.args[0])
    outputs = []
    for k, node in enumerate(flat):
        val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
        outputs.append([_symbol(size, f"output #{k} dimension {d}")
                        for d, size in enumerate(getattr(val, "shape", ()))])
    ranges = {}
    for symbol, vr in ep.range_constraints.items():
        lo = max(int(vr.lower), 1)
        hi = None if str(vr.upper) in ("int_oo", "oo") else int(vr.upper)
        ranges[str(symbol)] = (lo, hi)
    return DynamicDims(inputs, outputs, ranges)


def _from_export(model, ep) -> GraphProgram:
    from torch.export.graph_signature import InputKind, OutputKind

    sig = ep.graph_signature
    user_inputs, constants, targets = [], {}, {}
    for spec in sig.input_specs:
        name = spec.arg.name
        if spec.kind == InputKind.USER_INPUT:
            user_inputs.append(name)
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            source = ep.state_dict.get(spec.target)
            if source is None:
                source = ep.constants[spec.target]
            constants[name] = source
            if isinstance(_attribute(model, spec.target), torch.Tensor):
                targets[name] = spec.target
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            constants[name] = ep.constants[spec.target]
        else:
            raise UnsupportedOpError(f"unsupported graph input kind "
                                     f"{spec.kind} ({spec.target})")
    mutations, seen_user_output = [], False
    for spec in sig.output_specs:
        if spec.kind == OutputKind.USER_OUTPUT:
            seen_user_output = True
            continue
        if seen_user_output:
            raise UnsupportedOpError(f"unexpected graph output order "
                                     f"({spec.kind} after user outputs)")
        if spec.kind == OutputKind.USER_INPUT_MUTATION:
            mutations.append(("input", user_inputs.index(spec.target)))
        elif spec.kind == OutputKind.BUFFER_MUTATION and \
                isinstance(_attribute(model, spec.target), torch.Tensor):
            mutations.append(("buffer", spec.target))
        else:
            raise UnsupportedOpError(
                f"the model updates state in a way TinyTensor cannot "
                f"compile ({spec.kind} of {spec.target})")
    return GraphProgram(ep.graph_module.graph, user_inputs, constants,
                        ep.call_spec.out_spec, targets, mutations)


def _symbolic_trace(model, inputs) -> torch.fx.GraphModule:
    """torch.fx.symbolic_trace (which rejects data-dependent control flow),
    then make_fx to get ATen ops with the weights as graph attributes."""
    from torch._decomp import core_aten_decompositions
    from torch.fx.experimental.proxy_tensor import make_fx

    import torch.fx.traceback as fx_traceback

    tracer = torch.fx.Tracer()
    tracer.record_stack_traces = True
    traced = torch.fx.GraphModule(model, tracer.trace(model))
    # Interpreting the traced graph under preserve_node_meta carries each
    # node's module path and source line onto the ATen nodes (diagnostics).
    with fx_traceback.preserve_node_meta():
        return make_fx(lambda *args: torch.fx.Interpreter(traced).run(*args),
                       decomposition_table=core_aten_decompositions())(
            *inputs)


def _from_symbolic_trace(model, gm) -> GraphProgram:
    paths = {id(t): path for path, t in list(
        model.named_parameters(remove_duplicate=False)) + list(
        model.named_buffers(remove_duplicate=False))}
    constants, targets = {}, {}
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            constants[node.target] = getattr(gm, node.target)
            if id(constants[node.target]) in paths:
                targets[node.target] = paths[id(constants[node.target])]
    user_inputs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    return GraphProgram(gm.graph, user_inputs, constants, None, targets)


_CAPTURE_LOCK = threading.RLock()


def capture(model: torch.nn.Module, inputs: tuple,
            dynamic_shapes=None) -> GraphProgram:
    """The ATen program of `model` on inputs shaped like `inputs`; with
    `dynamic_shapes` (torch.export's argument) its symbolic sizes are in
    the program's `dynamic`. torch.export is not thread-safe: captures run
    one at a time."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"expected a torch.nn.Module, got "
                        f"{type(model).__name__}")
    with _CAPTURE_LOCK:
        if dynamic_shapes is None:
            return _capture(model, inputs)
        try:
            ep = _export(model, inputs, dynamic_shapes)
        except Exception as e:
            raise UnsupportedOpError(
                f"could not capture {type(model).__name__} with "
                f"dynamic_shapes: torch.export failed "
                f"({type(e).__name__}: {e})") from e
        program = _from_export(model, ep)
        program.dynamic = _dynamic_dims(ep, program.user_inputs)
        return program


def _capture(model: torch.nn.Module, inputs: tuple) -> GraphProgram:
    try:
        ep = _export(model, inputs)
    except Exception as export_error:  # torch.export rejected the module
        try:
            traced = _symbolic_trace(model, inputs)
        except Exception as fx_error:
            raise UnsupportedOpError(
                f"could not capture {type(model).__name__}: torch.export "
                f"failed ({type(export_error).__name__}: {export_error}) "
                f"and torch.fx.symbolic_trace failed "
                f"({type(fx_error).__name__}: {fx_error})") from fx_error
        return _from_symbolic_trace(model, traced)
    return _from_export(model, ep)
