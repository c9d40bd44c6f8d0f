"""Random ops: rand, randn, randint (and their _like forms), uniform,
normal, exponential, bernoulli, dropout and rrelu in training.

The numbers come from a counter-based generator computed in the program:
each element's 64 random bits are splitmix64's finalizer applied to its
index, the call's seed and the op's stream number. The seed is an int64
argument of the compiled function that the caller draws from PyTorch's
default generator before every call (`GraphProgram.refresh_seed`), so
results follow `torch.manual_seed` and differ from call to call; they
have PyTorch's distributions but not its values.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch

from ..tracing import Tracer, as_tracer, current_trace
from ..types import is_float
from .errors import UnsupportedOpError


def _int64(value: int) -> np.ndarray:
    """A 64-bit constant given as an unsigned number, as int64 bits."""
    return np.array(value, np.uint64).view(np.int64)


_GOLDEN = _int64(0x9E3779B97F4A7C15)
_MIX1 = _int64(0xBF58476D1CE4E5B9)
_MIX2 = _int64(0x94D049BB133111EB)
_STREAM = 0xD1B54A32D192ED03


def _shift_right(x, k: int):
    """Logical right shift of int64 bits (tt's shift is arithmetic)."""
    return (x >> k) & np.int64((1 << (64 - k)) - 1)


class Generator:
    """The random bits of one traced program: `seed` is the (1,) int64
    array the caller refreshes before each call; each op takes the next
    stream."""

    def __init__(self, seed: np.ndarray):
        self.seed = seed
        self.streams = 0

    def bits(self, shape: Sequence[int]) -> Tracer:
        """64 random bits per element of `shape`, as int64."""
        shape = tuple(int(d) for d in shape)
        n = int(np.prod(shape, dtype=np.int64))
        if n == 0:
            raise UnsupportedOpError("a random tensor with no elements")
        self.streams += 1
        like = np.broadcast_to(as_tracer(np.zeros((), np.int8)), (n,))
        index = Tracer(current_trace().builder.iota(like.value, 0))
        index = index.astype(np.int64).reshape(shape)
        seed = as_tracer(self.seed).reshape(())
        stream = _int64(self.streams * _STREAM % 2 ** 64)
        x = index * _GOLDEN + seed + stream
        x = (x ^ _shift_right(x, 30)) * _MIX1
        x = (x ^ _shift_right(x, 27)) * _MIX2
        return x ^ _shift_right(x, 31)

    def uniform(self, shape, dtype) -> Tracer:
        """Uniform in [0, 1): as many random bits as the dtype's mantissa
        holds exactly (53 for float64, 24 for float32, 11 for float16, 8
        for bfloat16), so that no value rounds up to 1."""
        dtype = np.dtype(dtype)
        if not is_float(dtype):
            raise UnsupportedOpError(f"random floats of dtype {dtype}")
        bits = self.bits(shape)
        if dtype == np.float64:
            return _shift_right(bits, 11).astype(np.float64) * 2.0 ** -53
        k = {np.dtype(np.float32): 24, np.dtype(np.float16): 11}.get(dtype, 8)
        u = _shift_right(bits, 64 - k).astype(np.float32) * \
            np.float32(2.0 ** -k)
        return u.astype(dtype)

    def normal(self, shape, dtype) -> Tracer:
        """Standard normal (Box-Muller, computed in float32 or float64)."""
        dtype = np.dtype(dtype)
        wide = np.float64 if dtype == np.float64 else np.float32
        u1, u2 = self.uniform(shape, wide), self.uniform(shape, wide)
        radius = np.sqrt(np.asarray(-2, wide) * np.log(1 - u1))
        return (radius * np.cos(np.asarray(2 * math.pi, wide) * u2)) \
            .astype(dtype)


def _float_dtype(dtype):
    from .importer import numpy_dtype  # the importer imports this module
    return np.dtype(np.float32) if dtype is None else numpy_dtype(dtype)


def _like(x, dtype):
    from .importer import numpy_dtype
    return tuple(x.shape), (np.dtype(x.dtype) if dtype is None
                            else numpy_dtype(dtype))


def rand(gen, size, *, dtype=None, generator=None, **kwargs):
    return gen.uniform(size, _float_dtype(dtype))


def rand_like(gen, x, *, dtype=None, **kwargs):
    return gen.uniform(*_like(x, dtype))


def randn(gen, size, *, dtype=None, generator=None, **kwargs):
    return gen.normal(size, _float_dtype(dtype))


def randn_like(gen, x, *, dtype=None, **kwargs):
    return gen.normal(*_like(x, dtype))


def randint(gen, *args, dtype=None, generator=None, **kwargs):
    """randint(high, size) or randint(low, high, size): uniform integers
    in [low, high)."""
    if len(args) == 2:
        (high, size), low = args, 0
    else:
        low, high, size = args
    from .importer import numpy_dtype
    dtype = np.dtype(np.int64) if dtype is None else numpy_dtype(dtype)
    u = gen.uniform(size, np.float64)
    value = np.floor(u * float(high - low)) + float(low)
    return np.minimum(value, float(high - 1)).astype(dtype)


def uniform(gen, x, low=0.0, high=1.0, *, generator=None):
    shape, dtype = _like(x, None)
    return (gen.uniform(shape, dtype) * (high - low) + low).astype(dtype)


def normal(gen, x, mean=0.0, std=1.0, *, generator=None):
    shape, dtype = _like(x, None)
    return (gen.normal(shape, dtype) * std + mean).astype(dtype)


def exponential(gen, x, lambd=1.0, *, generator=None):
    shape, dtype = _like(x, None)
    u = gen.uniform(shape, np.float64 if dtype == np.float64 else np.float32)
    return (-np.log(1 - u) / lambd).astype(dtype)


def bernoulli(gen, x, p=None, *, generator=None):
    """bernoulli(x): 1 with probability x; bernoulli.p(x, p): with p."""
    shape, dtype = _like(x, None)
    u = gen.uniform(shape, np.float64 if dtype == np.float64 else np.float32)
    return (u < (x if p is None else p)).astype(dtype)


def native_dropout(gen, x, p, train):
    """(x * mask / (1 - p), mask) with mask ~ bernoulli(1 - p) in training;
    (x, all true) in eval."""
    shape, dtype = _like(x, None)
    if not train or p == 0:
        return x, np.ones(shape, np.bool_)
    if p >= 1:
        return x * dtype.type(0), np.zeros(shape, np.bool_)
    u = gen.uniform(shape, np.float32 if dtype != np.float64 else dtype)
    keep = u >= p
    return np.where(keep, x * dtype.type(1 / (1 - p)), dtype.type(0)), keep


def dropout(gen, x, p=0.5, train=False):
    return native_dropout(gen, x, p, train)[0]


def rrelu_with_noise_functional(gen, x, noise, lower=0.125, upper=1 / 3,
                                training=False, generator=None):
    """In training, each negative element is scaled by a slope drawn from
    U(lower, upper), which is also the returned noise (1 where x >= 0);
    in eval, the mean slope."""
    shape, dtype = _like(x, None)
    if not training:
        slope = dtype.type((lower + upper) / 2)
        return np.where(x >= 0, x, x * slope), noise
    slope = (gen.uniform(shape, dtype) * dtype.type(upper - lower) +
             dtype.type(lower))
    negative = x < 0
    return np.where(negative, x * slope, x), \
        np.where(negative, slope, dtype.type(1))


def multinomial(gen, x, num_samples, replacement=False, *, generator=None):
    """Category indices drawn with probabilities proportional to the rows
    of `x`: with replacement by the inverse of the cumulative
    distribution (the number of categories whose cumulative weight is at
    most a uniform draw), without by the Gumbel top-k (the num_samples
    largest log w + Gumbel noise)."""
    x = as_tracer(x)
    if x.ndim not in (1, 2):
        raise UnsupportedOpError(f"multinomial of a rank-{x.ndim} tensor")
    wide = np.float64 if x.dtype == np.float64 else np.float32
    w = x.astype(wide)
    k = int(x.shape[-1])
    rows = tuple(int(d) for d in x.shape[:-1])
    if replacement:
        cdf = np.cumsum(w, axis=-1)
        cdf = cdf / cdf[..., -1:]
        u = gen.uniform(rows + (int(num_samples),), wide)
        below = cdf[..., None, :k - 1] <= u[..., :, None]
        return np.sum(below.astype(np.int64), axis=-1)
    if num_samples > k:
        raise ValueError(f"multinomial: {num_samples} samples without "
                         f"replacement from {k} categories")
    u = gen.uniform(rows + (k,), wide)
    keys = np.log(w) - np.log(-np.log(np.maximum(u, wide(1e-30))))
    from .reductions import _topk  # the importer imports this module
    return _topk(keys, int(num_samples), -1)[1].astype(np.int64)


#: The random ATen ops, each called with the program's Generator first.
OPS = {
    "rand": rand, "rand_like": rand_like, "randn": randn,
    "randn_like": randn_like, "randint": randint, "uniform": uniform,
    "normal_functional": normal, "exponential": exponential,
    "bernoulli": bernoulli, "native_dropout": native_dropout,
    "multinomial": multinomial,
    "dropout": dropout,
    "rrelu_with_noise_functional": rrelu_with_noise_functional,
}


def new_seed() -> int:
    """A seed from PyTorch's default generator (so torch.manual_seed makes
    the compiled program's numbers repeat too)."""
    return int(torch.randint(-2 ** 63, 2 ** 63 - 1, (), dtype=torch.int64))
