"""Linear algebra: determinants (`_linalg_det`, `_linalg_slogdet`) by
Gaussian elimination with partial pivoting, as LAPACK's getrf (the row
with the largest magnitude in each column is the pivot, the first of
equal ones), unrolled over the static matrix size."""

from __future__ import annotations

import numpy as np

from ..tracing import as_tracer
from ..types import is_float
from .errors import UnsupportedOpError

#: The largest matrix the elimination is unrolled for (one step per
#: column, each over the remaining rows).
MAX_SIZE = 64


def _pivots(a):
    """The diagonal of U in A = P L U (batched over leading axes) and the
    sign of the permutation P."""
    a = as_tracer(a)
    if not is_float(a.dtype):
        raise UnsupportedOpError(f"a determinant of a {a.dtype} matrix")
    n = int(a.shape[-1])
    if a.ndim < 2 or int(a.shape[-2]) != n:
        raise ValueError(f"a determinant of a non-square matrix "
                         f"{tuple(a.shape)}")
    if n > MAX_SIZE:
        raise UnsupportedOpError(f"a determinant of a {n}x{n} matrix (at "
                                 f"most {MAX_SIZE}x{MAX_SIZE})")
    dtype = a.dtype
    zero, one = dtype.type(0), dtype.type(1)
    sign = np.ones(tuple(a.shape[:-2]), dtype)
    diagonal = []
    rows = a  # the rows not yet eliminated: (..., n - k, n)
    for k in range(n):
        m = n - k
        column = rows[..., :, k]
        first = np.argmax(np.abs(column), axis=-1)  # (...,)
        chosen = np.arange(m) == first[..., None]  # (..., m) one-hot
        pivot_row = np.sum(np.where(chosen[..., None], rows, zero), axis=-2)
        top_row = rows[..., 0, :]
        pivot = pivot_row[..., k]
        diagonal.append(pivot)
        sign = np.where(first != 0, -sign, sign)
        if m == 1:
            break
        # Row 0 and the pivot row swap places; the others stay.
        is_top = (np.arange(m) == 0)[:, None]
        rows = np.where(is_top, pivot_row[..., None, :],
                        np.where(chosen[..., None], top_row[..., None, :],
                                 rows))
        below = rows[..., 1:, :]
        factor = np.where(pivot[..., None] == zero, zero,
                          below[..., :, k] / np.where(
                              pivot[..., None] == zero, one,
                              pivot[..., None]))
        rows = below - factor[..., None] * pivot_row[..., None, :]
    return np.stack(diagonal, axis=-1), sign


def _not_computed(what: str):
    """An output these ops do not compute (the LU factors and pivots):
    an error naming it if the program reads it."""
    from .importer import _Unavailable  # the importer imports this module
    return _Unavailable(what)


def det(a):
    """aten._linalg_det: (det, LU, pivots); only det is computed."""
    diagonal, sign = _pivots(a)
    return (sign * np.prod(diagonal, axis=-1), _not_computed("LU factors"),
            _not_computed("LU pivots"))


def slogdet(a):
    """aten._linalg_slogdet: (sign, log |det|, LU, pivots)."""
    diagonal, sign = _pivots(a)
    dtype = diagonal.dtype
    sign = sign * np.prod(np.sign(diagonal), axis=-1)
    log_abs = np.sum(np.log(np.abs(diagonal)), axis=-1)
    return (sign.astype(dtype), log_abs, _not_computed("LU factors"),
            _not_computed("LU pivots"))


ATEN_OPS = {"_linalg_det": det, "_linalg_slogdet": slogdet}
