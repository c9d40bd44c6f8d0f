"""Complex tensors, as pairs of real ones.

tt has no complex element type: the importer carries a complex64 or
complex128 value as a `Complex` of two float32 or float64 values (its real
and imaginary parts), and the compiled function takes and returns complex
tensors as `torch.view_as_real` arrays (a trailing axis of 2). The ops
here are those of complex tensors in torch-mlir's suite and common
models: arithmetic, abs/angle/conj, norms, sums, views and shape ops
(applied to both parts), concatenation with real tensors, casts,
`view_as_real`/`view_as_complex`, `complex`, `polar` and the discrete
Fourier transforms (`_fft_r2c`, `_fft_c2c`, as products with cos and sin
matrices). Any other op on a complex tensor is an UnsupportedOpError
naming it.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch

from ..tracing import Tracer, as_tracer
from . import indexing
from .errors import UnsupportedOpError


class Complex:
    """A complex value: its real and imaginary parts, of one float dtype."""

    __slots__ = ("re", "im")

    def __init__(self, re, im):
        self.re, self.im = re, im

    @property
    def shape(self) -> tuple:
        return tuple(np.shape(self.re))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return _dtype(self.re)

    def parts(self):
        return self.re, self.im


def _dtype(x) -> np.dtype:
    """The dtype of a traced value, an array or a number."""
    return np.dtype(x.dtype) if hasattr(x, "dtype") else np.result_type(x)


def is_complex(dtype) -> bool:
    return isinstance(dtype, torch.dtype) and dtype.is_complex


def part_dtype(dtype: torch.dtype) -> np.dtype:
    """The float dtype of a complex dtype's parts."""
    return np.dtype(np.float64 if dtype == torch.complex128 else np.float32)


def from_pairs(x) -> Complex:
    """A `view_as_real` array (last axis: real, imaginary) as a Complex."""
    return Complex(x[..., 0], x[..., 1])


def to_pairs(z: Complex):
    """The `view_as_real` form of `z`."""
    return np.stack([z.re, z.im], axis=-1)


def _lift(x, dtype=None) -> Complex:
    """`x` as a Complex (a real value gets a zero imaginary part)."""
    if isinstance(x, Complex):
        return x if dtype is None else Complex(_cast(x.re, dtype),
                                               _cast(x.im, dtype))
    if dtype is None:
        dtype = _dtype(x) if _dtype(x).kind == "f" else np.dtype(np.float32)
    re = _cast(x, dtype)
    return Complex(re, re * dtype.type(0))


def _cast(x, dtype):
    dtype = np.dtype(dtype)
    if isinstance(x, Tracer):
        return x.astype(dtype)
    return np.asarray(x).astype(dtype)


def _common(*values) -> np.dtype:
    """The part dtype of a complex result of `values` (PyTorch's
    promotion: complex128 if any part or real operand is float64)."""
    dtypes = [_dtype(v) for v in values
              if not isinstance(v, (int, float, complex))]
    return np.dtype(np.float64) if any(d == np.float64 for d in dtypes) \
        else np.dtype(np.float32)


def _operand(v, dtype):
    if isinstance(v, (int, float, complex)) and not isinstance(v, bool):
        s = complex(v)
        return Complex(dtype.type(s.real), dtype.type(s.imag))
    return _lift(v, dtype)


def _add(a, b, alpha=1):
    dtype = _common(a, b)
    a, b = _operand(a, dtype), _operand(b, dtype)
    if alpha != 1:
        b = _mul(b, alpha)
    return Complex(a.re + b.re, a.im + b.im)


def _sub(a, b, alpha=1):
    return _add(a, _neg(_operand(b, _common(a, b))), alpha)


def _mul(a, b):
    dtype = _common(a, b)
    a, b = _operand(a, dtype), _operand(b, dtype)
    return Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)


def _div(a, b, rounding_mode=None):
    if rounding_mode is not None:
        raise UnsupportedOpError("division of complex tensors with a "
                                 "rounding mode")
    dtype = _common(a, b)
    a, b = _operand(a, dtype), _operand(b, dtype)
    d = b.re * b.re + b.im * b.im
    return Complex((a.re * b.re + a.im * b.im) / d,
                   (a.im * b.re - a.re * b.im) / d)


def _neg(z):
    return Complex(-z.re, -z.im)


def _abs(z):
    return np.sqrt(z.re * z.re + z.im * z.im)


def _exp(z):
    scale = np.exp(z.re)
    return Complex(scale * np.cos(z.im), scale * np.sin(z.im))


def _cat(tensors, dim=0):
    dtype = _common(*tensors)
    parts = [_lift(t, dtype) for t in tensors if 0 not in np.shape(
        t.re if isinstance(t, Complex) else t)]
    return Complex(np.concatenate([p.re for p in parts], axis=dim),
                   np.concatenate([p.im for p in parts], axis=dim))


def _hstack(tensors):
    dim = 0 if all(np.ndim(t.re if isinstance(t, Complex) else t) == 1
                   for t in tensors) else 1
    return _cat(tensors, dim)


def _to_copy(z, dtype=None, **kwargs):
    if dtype is None:
        return z
    if is_complex(dtype):
        return _lift(z, part_dtype(dtype))
    from .importer import numpy_dtype
    # PyTorch discards the imaginary part (with a warning).
    return _cast(z.re, numpy_dtype(dtype))


def _vector_norm(z, ord=2, dim=None, keepdim=False, dtype=None):
    return indexing.linalg_vector_norm(_abs(z), ord, dim, keepdim)


def _norm(z, p=2, dim=None, keepdim=False, dtype=None):
    return _vector_norm(z, 2 if p is None else p, dim, keepdim)


def _sum(z, dim=None, keepdim=False, dtype=None):
    axes = None if dim in (None, [], ()) else tuple(
        dim if isinstance(dim, (list, tuple)) else (dim,))
    return Complex(np.sum(z.re, axis=axes, keepdims=keepdim),
                   np.sum(z.im, axis=axes, keepdims=keepdim))


def _mean(z, dim=None, keepdim=False, dtype=None):
    axes = None if dim in (None, [], ()) else tuple(
        dim if isinstance(dim, (list, tuple)) else (dim,))
    return Complex(np.mean(z.re, axis=axes, keepdims=keepdim),
                   np.mean(z.im, axis=axes, keepdims=keepdim))


def _dft(re, im, dim: int, n: int, keep: int, sign: float, scale: float):
    """The DFT of length n of (re, im) along `dim`, its first `keep`
    outputs: sum_t x[t] e^(sign 2 pi i k t / n), times `scale`; `im` may
    be None (a real input)."""
    dtype = _dtype(re)
    t = np.arange(n, dtype=np.float64)
    angle = 2 * math.pi * np.outer(t, np.arange(keep)) / n
    cos = (np.cos(angle) * scale).astype(dtype)
    sin = (sign * np.sin(angle) * scale).astype(dtype)
    axis = dim % np.ndim(re)
    order = [d for d in range(np.ndim(re)) if d != axis] + [axis]
    back = list(np.argsort(order))
    move = lambda x: np.transpose(x, order)  # noqa: E731
    re_t = move(re)
    out_re, out_im = re_t @ cos, re_t @ sin
    if im is not None:
        im_t = move(im)
        out_re, out_im = out_re - im_t @ sin, out_im + im_t @ cos
    return np.transpose(out_re, back), np.transpose(out_im, back)


def _scale(normalization: int, n: int) -> float:
    """PyTorch's fft normalization codes: 0 none, 1 1/sqrt(n), 2 1/n."""
    return {0: 1.0, 1: 1.0 / math.sqrt(n), 2: 1.0 / n}[int(normalization)]


def fft_r2c(x, dim: Sequence[int], normalization: int, onesided: bool):
    """aten._fft_r2c: the forward DFT of a real tensor over `dim` (the last
    of them first, keeping n // 2 + 1 outputs when onesided)."""
    if isinstance(x, Complex):
        raise UnsupportedOpError("_fft_r2c of a complex tensor")
    x = as_tracer(x)
    if x.dtype not in (np.float32, np.float64):
        x = x.astype(np.float32)
    dims = list(dim)
    last = dims[-1]
    n = int(x.shape[last])
    keep = n // 2 + 1 if onesided else n
    re, im = _dft(x, None, last, n, keep, -1.0, _scale(normalization, n))
    z = Complex(re, im)
    for d in reversed(dims[:-1]):
        z = _c2c(z, d, normalization, True)
    return z


def _c2c(z, d, normalization, forward):
    n = int(z.shape[d])
    re, im = _dft(z.re, z.im, d, n, n, -1.0 if forward else 1.0,
                  _scale(normalization, n))
    return Complex(re, im)


def fft_c2c(z, dim: Sequence[int], normalization: int, forward: bool):
    """aten._fft_c2c: the DFT (forward or inverse) over each of `dim`."""
    z = _lift(z)
    for d in dim:
        z = _c2c(z, d, normalization, forward)
    return z


#: Ops that act on each part alike (shapes, views, copies, selections):
#: the op applied to the real and to the imaginary part.
_PARTWISE = frozenset({
    "clone", "alias", "detach", "lift_fresh_copy", "contiguous", "view",
    "_unsafe_view", "reshape", "permute", "transpose", "t", "unsqueeze",
    "squeeze", "expand", "slice", "select", "flip", "repeat", "flatten",
    "split", "split_with_sizes", "chunk", "unbind", "diagonal", "roll",
    "narrow", "index_select", "index", "gather", "getitem"})

#: The other ops on complex values, by ATen name.
OPS = {
    "add": _add, "sub": _sub, "mul": _mul, "div": _div, "neg": _neg,
    "abs": _abs, "exp": _exp,
    "conj": lambda z: Complex(z.re, -z.im),
    "conj_physical": lambda z: Complex(z.re, -z.im),
    "_conj": lambda z: Complex(z.re, -z.im),
    "resolve_conj": lambda z: z, "resolve_neg": lambda z: z,
    "real": lambda z: z.re, "imag": lambda z: z.im,
    "angle": lambda z: np.arctan2(z.im, z.re),
    "view_as_real": to_pairs, "cat": _cat, "hstack": _hstack,
    "_to_copy": _to_copy, "to": _to_copy,
    "linalg_vector_norm": _vector_norm, "norm": _norm,
    "frobenius_norm": lambda z, dim=None, keepdim=False: _vector_norm(
        z, 2, dim, keepdim),
    "sum": _sum, "mean": _mean,
    "_fft_c2c": fft_c2c,
}

#: Ops that make complex values from real ones.
CREATORS = {
    "view_as_complex": from_pairs,
    # Both parts broadcast to the shape of the two.
    "complex": lambda re, im: Complex(re + im * _dtype(im).type(0),
                                      im + re * _dtype(re).type(0)),
    "polar": lambda r, theta: Complex(r * np.cos(theta), r * np.sin(theta)),
    "_fft_r2c": fft_r2c,
}


def creates(name: str, kwargs) -> bool:
    """Whether ATen op `name` makes a complex value from real ones."""
    return name in CREATORS or (name in ("_to_copy", "to") and
                                is_complex(kwargs.get("dtype")))


def create(name: str, args, kwargs):
    if name in ("_to_copy", "to"):
        return _lift(args[0], part_dtype(kwargs["dtype"]))
    return CREATORS[name](*args, **kwargs)


def has_complex(args) -> bool:
    for a in args:
        if isinstance(a, Complex):
            return True
        if isinstance(a, (list, tuple)) and has_complex(a):
            return True
    return False


def call(name: str, impl, args, kwargs):
    """Runs ATen op `name` on arguments of which some are Complex; `impl`
    is the op's real implementation (for the partwise ops)."""
    if name in _PARTWISE and impl is not None:
        def part(which):
            pick = lambda a: getattr(a, which) if isinstance(  # noqa: E731
                a, Complex) else a
            return impl(*[pick(a) if not isinstance(a, (list, tuple)) else
                          type(a)(pick(b) for b in a) for a in args],
                        **kwargs)
        re, im = part("re"), part("im")
        if isinstance(re, (list, tuple)):
            return type(re)(Complex(r, i) for r, i in zip(re, im))
        return Complex(re, im)
    if name in ("_assert_tensor_metadata", "_assert_async"):
        return None
    fn = OPS.get(name)
    if fn is None:
        raise UnsupportedOpError(f"{name} of complex tensors is not "
                                 f"supported")
    return fn(*args, **kwargs)
