"""Creation, conversion and no-ops among the ATen ops: full, full_like,
arange (and prims.iota), the empty family (zeros here), scalar_tensor,
tril_indices/triu_indices, the casts (_to_copy, to,
convert_element_type), copy, item, the identities (clone, contiguous,
alias, detach, ...), the assertions and size constraints (no-ops) and
Python's arithmetic on sizes.
"""

from __future__ import annotations

import operator

import numpy as np
import torch

from ..tracing import Tracer, as_tracer, current_trace
from .common import _cast, _dtype_of, numpy_dtype
from .errors import UnsupportedOpError


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


def _identity(x, *args, **kwargs):
    return x


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


def _no_op(*args, **kwargs):
    return None


ATEN_OPS = {
    # Python arithmetic on sizes and numbers (operator.truediv, ...).
    "truediv": operator.truediv, "floordiv": operator.floordiv,
    "mod": operator.mod,
    "_assert_async": _no_op,
    "iota": lambda length, start=0, step=1, dtype=None, **kw: _arange(
        start, start + step * length, step, dtype=dtype),
    "_assert_tensor_metadata": _no_op,

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
    "tril_indices": _triangle_indices(lower=True),
    "triu_indices": _triangle_indices(lower=False),
    # A tensor's one element as a number (int(x), x.item()): a 0-d value.
    "item": lambda x: np.reshape(x, ()),
    "_local_scalar_dense": lambda x: np.reshape(x, ()),
    "_assert_scalar": _no_op, "sym_constrain_range": _no_op,
    "sym_constrain_range_for_size": _no_op,
    "_to_copy": _to_copy, "to": _to_copy,
    "convert_element_type": lambda x, dtype: _to_copy(x, dtype=dtype), "full": _full,
    "full_like": _full_like, "arange": _arange,
    "scalar_tensor": lambda v, dtype=None, **kw: _full((), v, dtype),
    "copy": lambda x, src, non_blocking=False: _cast(
        np.broadcast_to(src, np.shape(x)), _dtype_of(x)),
    "clone": _identity, "contiguous": _identity, "alias": _identity,
    "detach": _identity, "lift_fresh_copy": _identity,
}
