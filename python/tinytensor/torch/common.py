"""What the ATen op families share: PyTorch's dtypes as NumPy's (the
table, `numpy_dtype`, and tensor <-> array views) and the small helpers on
graph values (rank, dtype, casts) that the op implementations use.

`importer` re-exports the dtype conversions; the op families import them
from here.
"""

from __future__ import annotations

import numpy as np
import torch

from ..tracing import Tracer
from ..types import BFLOAT16


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


#: Dtypes whose tensors NumPy views as they are.
_PLAIN_DTYPES = frozenset({torch.float32, torch.float64, torch.int64,
                           torch.int32, torch.bool, torch.float16,
                           torch.int8, torch.uint8, torch.int16})


def tensor_to_numpy(t: torch.Tensor, what: str = "tensor") -> np.ndarray:
    """A NumPy view of a CPU tensor (bfloat16 as ml_dtypes' bfloat16)."""
    if t.dtype in _PLAIN_DTYPES and t.device.type == "cpu":
        return (t.detach() if t.requires_grad else t).numpy()
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


# -- helpers of the ATen op implementations -----------------------------------
#
# Each implementation takes the node's arguments with graph values replaced
# by NumPy arrays or Tracers, and returns the result(s).

def _dim(x) -> int:
    return np.ndim(x) if not isinstance(x, Tracer) else x.ndim


def _dtype_of(x) -> np.dtype:
    return x.dtype if isinstance(x, (Tracer, np.ndarray, np.generic)) \
        else np.asarray(x).dtype


def _cast(x, dtype):
    dtype = np.dtype(dtype)
    if _dtype_of(x) == dtype:
        return x
    return x.astype(dtype) if isinstance(x, (Tracer, np.ndarray)) \
        else np.asarray(x, dtype=dtype)
