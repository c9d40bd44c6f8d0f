"""Quantization as PT2E exports it: `quantized_decomposed` ops (affine
quantize and dequantize, per tensor and per channel) and `aten._int_mm`.

The quantized values are ordinary int8 / uint8 / int16 tensors; the
arithmetic is PyTorch's reference (`torch/ao/quantization/fx/
_decomposed.py`): dequantize is `(q - zero_point) * scale` in float32,
quantize is `clamp(round(x / scale) + zero_point, qmin, qmax)`.
"""

from __future__ import annotations

import numpy as np

from ..tracing import Tracer, as_tracer
from .errors import UnsupportedOpError


def _numpy_dtype(dtype):
    from .importer import numpy_dtype  # the importer imports this module
    return numpy_dtype(dtype)


def _scalar(value, what: str):
    """A per-tensor parameter: a Python number, or a tensor of one element
    (the `.tensor` overloads)."""
    if isinstance(value, (Tracer, np.ndarray)):
        if int(np.prod(value.shape)) != 1:
            raise UnsupportedOpError(f"a per-tensor {what} of shape "
                                     f"{tuple(value.shape)}")
        return np.reshape(value, ())
    return value


def _float(x, out_dtype=None):
    dtype = np.dtype(np.float32) if out_dtype is None else \
        _numpy_dtype(out_dtype)
    return as_tracer(x).astype(dtype) if isinstance(x, Tracer) else \
        np.asarray(x).astype(dtype)


def dequantize_per_tensor(x, scale, zero_point, quant_min, quant_max, dtype,
                          *, out_dtype=None):
    scale = _scalar(scale, "scale")
    zero_point = _scalar(zero_point, "zero point")
    return (_float(x, out_dtype) - zero_point) * scale


def quantize_per_tensor(x, scale, zero_point, quant_min, quant_max, dtype):
    scale = _scalar(scale, "scale")
    zero_point = _scalar(zero_point, "zero point")
    x = _float(x)
    inverse = 1.0 / scale
    q = np.clip(np.round(x * inverse) + zero_point, quant_min, quant_max)
    return q.astype(_numpy_dtype(dtype))


def _per_channel_shape(x, axis: int, n: int) -> tuple:
    shape = [1] * x.ndim
    shape[axis % x.ndim] = n
    return tuple(shape)


def dequantize_per_channel(x, scales, zero_points, axis, quant_min,
                           quant_max, dtype, *, out_dtype=None):
    shape = _per_channel_shape(x, axis, scales.shape[0])
    scales = np.reshape(scales, shape)
    if zero_points is not None:
        x = x - np.reshape(zero_points, shape)
    return _float(x * scales, out_dtype)


def quantize_per_channel(x, scales, zero_points, axis, quant_min, quant_max,
                         dtype):
    shape = _per_channel_shape(x, axis, scales.shape[0])
    x = _float(x)
    q = np.round(x * (1.0 / np.reshape(scales, shape))) + \
        np.reshape(zero_points, shape)
    return np.clip(q, quant_min, quant_max).astype(_numpy_dtype(dtype))


def int_mm(a, b):
    """aten._int_mm: int8 x int8 -> int32 (exact, no wrapping)."""
    return np.matmul(as_tracer(a).astype(np.int32),
                     as_tracer(b).astype(np.int32))


ATEN_OPS = {
    "dequantize_per_tensor": dequantize_per_tensor,
    "quantize_per_tensor": quantize_per_tensor,
    "dequantize_per_channel": dequantize_per_channel,
    "quantize_per_channel": quantize_per_channel,
    "_int_mm": int_mm,
}
