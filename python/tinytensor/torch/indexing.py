"""Ops of the ATen importer that pick elements by position: `flip` and
`diagonal` (gathers by constant index arrays), `index_select`, `gather`
and `embedding` (gathers by index tensors), `repeat` (a broadcast),
and the vector norms
(`linalg_vector_norm`), composed from tt's gather, reductions and
elementwise ops."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ..tracing import Tracer, as_tracer
from ..types import is_float
from .common import _dim
from .errors import UnsupportedOpError


def _axes(dims, ndim: int) -> tuple:
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    if ndim == 0:  # dim 0 / -1 of a 0-d tensor: no axis
        return ()
    return tuple(sorted({d % ndim for d in dims}))


def flip(x, dims: Sequence[int]):
    """aten.flip: `x` reversed along each of `dims`."""
    x = as_tracer(x)
    for axis in _axes(dims, x.ndim):
        n = int(x.shape[axis])
        if n > 1:
            x = np.take(x, np.arange(n - 1, -1, -1, dtype=np.int64),
                        axis=axis)
    return x


def diagonal(x, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """aten.diagonal: the entries x[..., i, i + offset] of the matrices
    over (dim1, dim2), as a new last axis (the other axes keep their
    order)."""
    x = as_tracer(x)
    n = x.ndim
    a, b = dim1 % n, dim2 % n
    if a == b:
        raise ValueError(f"diagonal: dim1 and dim2 are both {dim1}")
    rest = [d for d in range(n) if d not in (a, b)]
    moved = np.transpose(x, rest + [a, b])
    rows, cols = int(x.shape[a]), int(x.shape[b])
    first_row, first_col = max(-offset, 0), max(offset, 0)
    length = max(min(rows - first_row, cols - first_col), 0)
    if length == 0:
        raise UnsupportedOpError(
            f"diagonal with offset {offset} of a {rows} x {cols} matrix is "
            f"empty (empty tensors are not supported)")
    lead = tuple(int(moved.shape[d]) for d in range(n - 2))
    flat = np.reshape(moved, lead + (rows * cols,))
    index = (np.arange(length, dtype=np.int64) + first_row) * cols + \
        np.arange(length, dtype=np.int64) + first_col
    return np.take(flat, index, axis=n - 2)


def linalg_vector_norm(x, ord=2, dim=None, keepdim: bool = False,
                       dtype=None):
    """aten.linalg_vector_norm: (sum |x|^ord)^(1 / ord) over `dim` (all
    axes by default); ord inf / -inf are the largest / smallest |x|, ord 0
    counts the non-zero entries."""
    from .importer import numpy_dtype
    x = as_tracer(x)
    if dtype is not None:
        x = x.astype(numpy_dtype(dtype))
    if not is_float(x.dtype):
        raise UnsupportedOpError(
            f"linalg_vector_norm of a {x.dtype} tensor (PyTorch takes only "
            f"floating point ones)")
    axes = _axes(dim if dim not in ((), []) else None, x.ndim)
    magnitude = np.abs(x)
    ord = float(ord)
    if ord == np.inf:
        return np.max(magnitude, axis=axes, keepdims=keepdim)
    if ord == -np.inf:
        return np.min(magnitude, axis=axes, keepdims=keepdim)
    if ord == 0:
        nonzero = (magnitude != 0).astype(x.dtype)
        return np.sum(nonzero, axis=axes, keepdims=keepdim)
    if ord == 1:
        return np.sum(magnitude, axis=axes, keepdims=keepdim)
    if ord == 2:
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=keepdim))
    total = np.sum(magnitude ** x.dtype.type(ord), axis=axes,
                   keepdims=keepdim)
    return total ** x.dtype.type(1.0 / ord)


def norm(x, p: Optional[float] = 2, dim=None, keepdim: bool = False,
         dtype=None):
    """aten.norm (ScalarOpt_dim and friends): the vector norm."""
    return linalg_vector_norm(x, 2 if p is None else p, dim, keepdim, dtype)


def repeat(x, sizes: Sequence[int]):
    """aten.repeat (NumPy's tile): `x` repeated sizes[i] times along axis
    i, with leading axes of size 1 added when sizes is longer."""
    x = as_tracer(x)
    sizes = [int(r) for r in sizes]
    if len(sizes) < x.ndim:
        raise ValueError(f"repeat: {len(sizes)} repeats for a tensor of "
                         f"rank {x.ndim}")
    shape = (1,) * (len(sizes) - x.ndim) + tuple(int(d) for d in x.shape)
    if any(r == 0 for r in sizes):
        raise UnsupportedOpError("repeat with a zero count makes an empty "
                                 "tensor (not supported)")
    spread = []
    for d in shape:
        spread += [1, d]
    target = []
    for r, d in zip(sizes, shape):
        target += [r, d]
    tiled = np.broadcast_to(np.reshape(x, spread), target)
    return np.reshape(tiled, [r * d for r, d in zip(sizes, shape)])


def as_strided(storage, storage_numel: int, size: Sequence[int],
               stride: Sequence[int], offset: int):
    """aten.as_strided: the elements storage[offset + sum(i_k * stride_k)]
    for every index i of `size`, where `storage` is the tensor that owns
    the memory the viewed tensor shares (contiguous, flattened here)."""
    size, stride = [int(n) for n in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise ValueError(f"as_strided: size {size} and stride {stride} "
                         f"differ in length")
    if any(s < 0 for s in stride) or offset < 0:
        raise UnsupportedOpError(f"as_strided with a negative stride or "
                                 f"offset ({stride}, {offset})")
    index = np.full(size, offset, np.int64)
    for axis, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        index = index + np.arange(n, dtype=np.int64).reshape(shape) * s
    if index.size and int(index.max()) >= storage_numel:
        raise ValueError(f"as_strided: size {size}, stride {stride} and "
                         f"offset {offset} reach element {int(index.max())} "
                         f"of a storage of {storage_numel}")
    flat = np.reshape(storage, (-1,))
    return flat[index] if index.ndim else flat[int(index)]


def _embedding(weight, indices, *args):
    return as_tracer(weight)[indices]


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


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False,
                  mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=-1):
    """aten._embedding_bag / _embedding_bag_forward_only: the rows of
    `weight` at `indices`, reduced per bag (sum, mean or max; an empty bag
    gives zeros), bag b holding the indices from offsets[b] to the next
    offset. Also PyTorch's (offset2bag, bag_size, max_indices) as its CPU
    kernel gives them: for a sum, bag sizes and max indices of zeros;
    for a mean, the bag sizes twice; for a max, the row each maximum came
    from."""
    indices = as_tracer(indices)
    n = int(indices.shape[0])
    starts = as_tracer(offsets)
    bags = int(starts.shape[0]) - (1 if include_last_offset else 0)
    if include_last_offset:
        starts = starts[:bags]
    positions = np.arange(n, dtype=np.int64)
    bag = np.sum((starts[None, :] <= positions[:, None]).astype(np.int64),
                 axis=1) - 1  # the bag of each index
    member = bag[None, :] == np.arange(bags, dtype=np.int64)[:, None]
    if padding_idx is not None and padding_idx >= 0:
        member = member & (indices != padding_idx)[None, :]
    rows = np.take(as_tracer(weight), indices, axis=0)  # (n, d)
    if per_sample_weights is not None:
        rows = rows * as_tracer(per_sample_weights)[:, None]
    dtype = rows.dtype
    count = np.sum(member.astype(np.int64), axis=1)
    weights = member.astype(dtype)
    zeros = np.zeros((bags,), np.int64)
    if mode == 0:
        return weights @ rows, bag, zeros, zeros
    if mode == 1:
        total = weights @ rows
        mean = total / np.maximum(count, 1).astype(dtype)[:, None]
        return mean, bag, count, count
    if mode == 2:
        values = np.where(member[:, :, None], rows[None, :, :],
                          dtype.type(-np.inf))
        best = np.argmax(values, axis=1)  # (bags, d)
        top = np.max(values, axis=1)
        top = np.where(count[:, None] > 0, top, dtype.type(0))
        chosen = np.take(indices, best, axis=0).astype(np.int64)
        return top, bag, count, np.where(count[:, None] > 0, chosen,
                                         np.int64(0))
    raise UnsupportedOpError(f"embedding_bag with mode {mode}")


ATEN_OPS = {
    "embedding": _embedding,
    "_embedding_bag": embedding_bag,
    "_embedding_bag_forward_only": embedding_bag,
    "index_select": _index_select, "gather": _gather,
    "flip": flip,
    "repeat": repeat,
    "diagonal": diagonal,
    "linalg_vector_norm": linalg_vector_norm,
    "norm": norm,
}
