"""Scatters of the ATen importer: `index_put`, `scatter` (src, value,
reduce), `scatter_add`, `scatter_reduce`, `index_add`, `index_copy`,
`slice_scatter` and `select_scatter`,
each one `tt.scatter` (rows written into a copy of a table, in order) of
the table seen as rows: the indexed leading axes (or all axes, for an
element scatter) flattened into one. Indices are checked like gathered
ones (IndexError after the call); negative ones count from the end."""

from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np

from ..tracing import Tracer, as_tracer, current_trace
from ..types import is_float
from .errors import UnsupportedOpError

_REDUCE_MODES = {"sum": "add", "add": "add", "prod": "mul",
                 "multiply": "mul", "amax": "max", "amin": "min"}


def _shape(x) -> tuple:
    return tuple(int(d) for d in np.shape(x))


def _wrapped(index, n: int, axis: int):
    """Int64 indices into an axis of size n, checked (IndexError after the
    call) and with negative ones counted from the end."""
    index = as_tracer(index)
    if index.dtype.kind not in "iu":
        raise UnsupportedOpError(f"scatter with {index.dtype} indices")
    index = index.astype(np.int64)
    current_trace().check_index(index, n, axis)
    return np.where(index < 0, index + n, index)


def _scatter_rows(mode: str, table, rows, updates):
    """tt.scatter of `updates` [M, R...] into `table` [N, R...] at the
    (already wrapped) row indices `rows` [M]."""
    table = as_tracer(table)
    updates = as_tracer(updates).astype(table.dtype)
    rows = as_tracer(rows)
    trace = current_trace()
    return Tracer(trace.builder.scatter(mode, table.value, rows.value,
                                        updates.value))


def _identity(mode: str, dtype: np.dtype):
    if mode == "add":
        return 0
    if mode == "mul":
        return 1
    if is_float(dtype):
        return -np.inf if mode == "max" else np.inf
    info = np.iinfo(dtype)
    return info.min if mode == "max" else info.max


def index_put(x, indices: Sequence[Optional[object]], values,
              accumulate: bool = False, unsafe: bool = False):
    """aten.index_put: x[indices] = values (+= with accumulate), for index
    tensors on the leading axes (broadcast together) or one boolean mask
    over them with values that do not depend on how many it selects."""
    x = as_tracer(x)
    shape = _shape(x)
    indices = list(indices)
    while indices and indices[-1] is None:
        indices.pop()
    lead = 0
    while lead < len(indices) and indices[lead] is None:
        lead += 1
    if not indices or any(i is None for i in indices[lead:]):
        raise UnsupportedOpError(
            "index_put with index tensors separated by a full slice "
            "(x[i, :, j] = v)")
    if lead:
        # x[:, i] = v: the indexed axes moved first, and the indexed
        # block's axes of v with them.
        k = len(indices) - lead
        if lead + k > len(shape):
            raise IndexError(f"index_put: {lead + k} indices for a tensor "
                             f"of rank {len(shape)}")
        batch = np.broadcast_shapes(*[_shape(i) for i in indices[lead:]])
        rest = shape[lead + k:]
        full = np.broadcast_to(as_tracer(values).astype(x.dtype),
                               shape[:lead] + batch + rest)
        b = len(batch)
        order = list(range(lead, lead + b)) + list(range(lead)) + \
            list(range(lead + b, lead + b + len(rest)))
        axes = list(range(lead, lead + k)) + list(range(lead)) + \
            list(range(lead + k, len(shape)))
        out = index_put(np.transpose(x, axes), indices[lead:],
                        np.transpose(full, order), accumulate)
        return np.transpose(out, list(np.argsort(axes)))
    k = len(indices)
    if k == 1 and np.dtype(indices[0].dtype) == np.bool_:
        mask = as_tracer(indices[0])
        rest = shape[mask.ndim:]
        values = as_tracer(values).astype(x.dtype)
        vshape = _shape(values)
        size = int(np.prod(vshape, dtype=np.int64))
        per_row = bool(rest) and size == int(np.prod(rest)) and \
            vshape[len(vshape) - len(rest):] == rest
        if size != 1 and not per_row:
            raise UnsupportedOpError(
                "index_put with a boolean mask and a value per selected "
                "entry (their number depends on the data)")
        if size == 1:
            values = np.reshape(values, ())
        else:
            values = np.reshape(values, rest)
        keep = np.reshape(mask, _shape(mask) + (1,) * len(rest))
        if accumulate:
            return x + np.where(keep, values, x.dtype.type(0))
        return np.where(keep, values, x)
    if k > len(shape):
        raise IndexError(f"index_put: {k} indices for a tensor of rank "
                         f"{len(shape)}")
    wrapped = [_wrapped(i, shape[a], a) for a, i in enumerate(indices)]
    batch = np.broadcast_shapes(*[_shape(i) for i in wrapped])
    linear = None
    for a, i in enumerate(wrapped):
        stride = int(np.prod(shape[a + 1:k], dtype=np.int64))
        term = np.broadcast_to(i, batch) * stride
        linear = term if linear is None else linear + term
    count = int(np.prod(batch, dtype=np.int64))
    rest = shape[k:]
    table = np.reshape(x, (int(np.prod(shape[:k], dtype=np.int64)),) + rest)
    updates = np.broadcast_to(as_tracer(values).astype(x.dtype),
                              batch + rest)
    out = _scatter_rows("add" if accumulate else "set", table,
                        np.reshape(linear, (count,)),
                        np.reshape(updates, (count,) + rest))
    return np.reshape(out, shape)


def _element_scatter(mode: str, x, dim: int, index, src):
    """out[.., index[p], ..] (at axis dim) combined with src[p], for every
    position p of index (src read over index's shape)."""
    x = as_tracer(x)
    shape = _shape(x)
    n = len(shape)
    if n == 0:
        x = np.reshape(x, (1,))
        out = _element_scatter(mode, x, 0, np.reshape(index, (1,)),
                               np.reshape(src, (1,)))
        return np.reshape(out, ())
    dim %= n
    index = as_tracer(index)
    ishape = _shape(index)
    if len(ishape) != n:
        raise UnsupportedOpError(
            f"scatter: an index of rank {len(ishape)} into a tensor of rank "
            f"{n}")
    if np.ndim(src) == 0:  # a number, or a traced 0-d value (x.item())
        src = np.full(ishape, src, dtype=x.dtype) if not isinstance(
            src, Tracer) else np.broadcast_to(src.astype(x.dtype), ishape)
    src = as_tracer(src).astype(x.dtype)
    if _shape(src) != ishape:
        src = src[tuple(slice(0, s) for s in ishape)]
    linear = None
    for a in range(n):
        stride = int(np.prod(shape[a + 1:], dtype=np.int64))
        if a == dim:
            coord = _wrapped(index, shape[a], a)
        else:
            coord = np.arange(ishape[a], dtype=np.int64).reshape(
                [-1 if b == a else 1 for b in range(n)])
        term = coord * stride
        linear = term if linear is None else linear + term
    linear = np.broadcast_to(linear, ishape)
    count = int(np.prod(ishape, dtype=np.int64))
    table = np.reshape(x, (int(np.prod(shape, dtype=np.int64)),))
    out = _scatter_rows(mode, table, np.reshape(linear, (count,)),
                        np.reshape(src, (count,)))
    return np.reshape(out, shape)


def scatter(x, dim, index, src, reduce: Optional[str] = None):
    """aten.scatter (.src, .value, .reduce, .value_reduce)."""
    mode = "set" if reduce is None else _REDUCE_MODES.get(reduce)
    if mode is None:
        raise UnsupportedOpError(f"scatter with reduce={reduce!r}")
    return _element_scatter(mode, x, dim, index, src)


def scatter_add(x, dim, index, src):
    return _element_scatter("add", x, dim, index, src)


def scatter_reduce(x, dim, index, src, reduce: str,
                   include_self: bool = True):
    """aten.scatter_reduce.two: sum, prod, amax, amin and mean (of
    integers rounded down, as PyTorch's), with or without the tensor's own
    values."""
    x = as_tracer(x)
    if reduce == "mean":
        if x.dtype == np.bool_:
            raise UnsupportedOpError("scatter_reduce mean of a boolean "
                                     "tensor")
        ones = np.ones(_shape(index), dtype=x.dtype)
        base = x if include_self else _element_scatter(
            "set", x, dim, index, np.zeros(_shape(index), x.dtype))
        total = _element_scatter("add", base, dim, index, src)
        counts = _element_scatter(
            "add", np.ones(_shape(x), x.dtype) if include_self
            else np.zeros(_shape(x), x.dtype), dim, index, ones)
        divisor = np.maximum(counts, 1)
        mean = total / divisor if is_float(x.dtype) else total // divisor
        return np.where(counts > 0, mean, total)
    mode = _REDUCE_MODES.get(reduce)
    if mode is None:
        raise UnsupportedOpError(f"scatter_reduce with reduce={reduce!r}")
    if not include_self:
        x = _element_scatter("set", x, dim, index,
                             np.full(_shape(index),
                                     _identity(mode, x.dtype), x.dtype))
    return _element_scatter(mode, x, dim, index, src)


def _axis_rows(mode: str, x, dim: int, index, source):
    """Rows of `source` along axis `dim` into `x` at `index` (1-D)."""
    x = as_tracer(x)
    shape = _shape(x)
    n = len(shape)
    dim %= max(n, 1)
    perm: List[int] = [dim] + [a for a in range(n) if a != dim]
    back = list(np.argsort(perm))
    index = _wrapped(np.reshape(index, (-1,)), shape[dim], dim)
    table = np.transpose(x, perm)
    rows = np.transpose(as_tracer(source).astype(x.dtype), perm)
    return np.transpose(_scatter_rows(mode, table, index, rows), back)


def index_add(x, dim, index, source, alpha=1):
    """aten.index_add: x with source's rows along dim added at index."""
    if alpha != 1:
        source = as_tracer(source) * alpha
    return _axis_rows("add", x, dim, index, source)


def index_copy(x, dim, index, source):
    return _axis_rows("set", x, dim, index, source)


def slice_scatter(x, src, dim: int = 0, start=None, end=None, step: int = 1):
    """aten.slice_scatter: x with x[.., start:end:step, ..] (at axis dim)
    replaced by src."""
    shape = _shape(x)
    dim %= max(len(shape), 1)
    rows = np.arange(*slice(start, end, step).indices(shape[dim]),
                     dtype=np.int64)
    if rows.size == 0:
        return as_tracer(x)
    return _axis_rows("set", x, dim, rows, src)


def select_scatter(x, src, dim: int, index: int):
    """aten.select_scatter: x with x.select(dim, index) replaced by src."""
    shape = _shape(x)
    dim %= max(len(shape), 1)
    return _axis_rows("set", x, dim, np.array([index], np.int64),
                      np.expand_dims(as_tracer(src), dim))


ATEN_OPS = {
    "index_put": index_put,
    "_index_put_impl": index_put,
    "scatter": scatter,
    "scatter_add": scatter_add,
    "scatter_reduce": scatter_reduce,
    "index_add": index_add,
    "index_copy": index_copy,
    "slice_scatter": slice_scatter,
    "select_scatter": select_scatter,
}
