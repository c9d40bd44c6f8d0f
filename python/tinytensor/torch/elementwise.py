"""Elementwise ATen ops: arithmetic (with PyTorch's integer division and
remainders), comparisons, logical and bitwise ops and shifts, the
elementwise functions and activations (gelu, elu, leaky_relu, rrelu's
backward, ...), where and clamp, and the optimizers' `_foreach_` forms of
them.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..tracing import as_tracer, current_trace, integer_divmod
from ..types import is_float, result_dtype
from .common import _cast, _dtype_of
from .errors import UnsupportedOpError


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


def _where(cond, x, y):
    if _dtype_of(x) == np.bool_ and _dtype_of(y) == np.bool_:
        return np.where(cond, _as_int(x), _as_int(y)) != 0  # no i1 select
    return np.where(cond, x, y)


def _erf(x):
    from ..functions import erf
    return erf(x)


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


def _clamp(x, lo, hi):
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


ATEN_OPS = {
    "add": _add, "sub": _sub, "rsub": lambda x, y, alpha=1: _sub(y, x, alpha),
    "mul": lambda x, y: _logical_and(x, y) if _dtype_of(x) == np.bool_
        and _dtype_of(y) == np.bool_ else x * y, "div": _div,
    "pow": operator.pow, "neg": operator.neg, "abs": np.abs,
    "exp": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x,
    "erf": lambda x: _erf(x),
    "sigmoid": _sigmoid,
    "relu": lambda x: np.maximum(x, 0), "gelu": _gelu,
    # As PyTorch's decompositions write them.
    "hardswish": lambda x: x * _clamp(x + 3, 0, 6) / 6,
    "hardsigmoid": lambda x: _clamp(x + 3, 0, 6) / 6,
    "silu": lambda x: x * _sigmoid(x),
    "maximum": np.maximum, "minimum": np.minimum,
    "clamp": lambda x, min=None, max=None: _clamp(x, min, max),
    "clamp_min": lambda x, min: np.maximum(x, min),
    "clamp_max": lambda x, max: np.minimum(x, max),
    "where": _where, "gt": operator.gt, "lt": operator.lt,
    "ge": operator.ge, "le": operator.le, "eq": operator.eq,
    "ne": operator.ne,
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
    "leaky_relu": _leaky_relu, "elu": _elu,
    "fmax": _fmax_fmin(np.maximum), "fmin": _fmax_fmin(np.minimum),
    "signbit": _signbit, "ldexp": lambda x, e: x * np.exp2(e),
    "fake_quantize_per_tensor_affine_cachemask": _fake_quantize_cachemask,
    "hardtanh": lambda x, min_val=-1.0, max_val=1.0: _clamp(x, min_val,
                                                            max_val),
    "log1p": np.log1p, "expm1": np.expm1, "exp2": np.exp2, "log2": np.log2,
    "sin": np.sin, "cos": np.cos, "floor": np.floor, "ceil": np.ceil,
    "round": lambda x, decimals=0: np.round(x, decimals), "sign": np.sign,
    "square": np.square, "remainder": _remainder, "fmod": _fmod,
    "logical_xor": lambda x, y: _as_int(x) != _as_int(y),
    "rrelu_with_noise_backward": _rrelu_backward,
    "trunc": lambda x: np.where(x < 0, np.ceil(x), np.floor(x))
        if is_float(_dtype_of(x)) else x,
    "isnan": lambda x: x != x,
    "isinf": lambda x: np.abs(x) == np.inf if is_float(_dtype_of(x))
        else x != x,
    "isfinite": lambda x: (np.abs(x) < np.inf) if is_float(_dtype_of(x))
        else x == x,
    "addcmul": lambda x, a, b, value=1: x + value * (a * b),
    "addcdiv": lambda x, a, b, value=1: x + value * (a / b),
    "lerp": lambda x, end, weight: x + weight * (end - x),
}


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
