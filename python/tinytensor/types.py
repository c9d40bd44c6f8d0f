"""Tensor types and the mapping between NumPy dtypes and MLIR element types.

The supported element types are defined here, once (SUPPORTED_DTYPES and
their MLIR names); everything else asks this module.

Dtype promotion is not re-implemented: every rule asks the installed NumPy
(see `result_dtype`), so traced programs get exactly NumPy's result dtypes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import numpy as np

try:  # NumPy has no bfloat16; ml_dtypes (a dependency) provides it.
    from ml_dtypes import bfloat16 as _bfloat16
    BFLOAT16 = np.dtype(_bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is in requirements.txt
    BFLOAT16 = None

_MLIR_NAMES = {
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "ui8",
    np.dtype(np.bool_): "i1",
}
if BFLOAT16 is not None:
    _MLIR_NAMES[BFLOAT16] = "bf16"

#: dtypes a TinyTensor argument or result may have.
SUPPORTED_DTYPES = tuple(_MLIR_NAMES)

#: dtypes accepted for function arguments.
ARGUMENT_DTYPES = SUPPORTED_DTYPES

#: The list of supported dtypes, as error messages spell it.
SUPPORTED_NAMES = ", ".join(str(d) for d in SUPPORTED_DTYPES)

#: How the runtime passes a dtype NumPy cannot export through the buffer
#: protocol (bfloat16): as the unsigned integer of its width.
STORAGE_DTYPES = {BFLOAT16: np.dtype(np.uint16)} if BFLOAT16 is not None \
    else {}


def storage_view(array: np.ndarray) -> np.ndarray:
    """`array` as the runtime passes it: the same memory, in a dtype the
    buffer protocol knows."""
    storage = STORAGE_DTYPES.get(array.dtype)
    return array if storage is None else array.view(storage)


def is_float(dtype) -> bool:
    """Whether `dtype` is a floating-point type (bfloat16 included, whose
    NumPy kind is "V")."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype == BFLOAT16


def check_dtype(dtype, what: str) -> np.dtype:
    """Returns `dtype` as np.dtype or raises TypeError naming `what`."""
    dtype = np.dtype(dtype)
    if dtype not in SUPPORTED_DTYPES:
        raise TypeError(
            f"{what} has dtype {dtype}, which TinyTensor does not support "
            f"(supported: {SUPPORTED_NAMES}); convert it with "
            f".astype(...) first")
    return dtype


def mlir_element_name(dtype: np.dtype) -> str:
    return _MLIR_NAMES[np.dtype(dtype)]


_DTYPES_BY_ELEMENT = {name: dtype for dtype, name in _MLIR_NAMES.items()}


def dtype_of_element(name: str):
    """The NumPy dtype of an MLIR element type ("f32", ...), or None."""
    return _DTYPES_BY_ELEMENT.get(name)


#: A dynamic dimension of a TensorType (`?` in MLIR): any size at run time.
DYNAMIC = -1


@dataclass(frozen=True)
class TensorType:
    """A tensor type: shape (positive dims, or DYNAMIC for a size known only
    at run time) and dtype."""

    shape: Tuple[int, ...]
    dtype: np.dtype

    def __post_init__(self):
        shape = tuple(int(d) for d in self.shape)
        if any(d <= 0 and d != DYNAMIC for d in shape):
            raise ValueError(
                f"TensorType shape {shape} must have positive dimensions "
                f"(or DYNAMIC)")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", check_dtype(self.dtype, "TensorType"))

    @staticmethod
    def of(value, what: str = "argument") -> "TensorType":
        """The type of a NumPy array argument; TypeError for anything else."""
        if not isinstance(value, np.ndarray):
            raise TypeError(
                f"{what} must be a numpy.ndarray, got {type(value).__name__}")
        if value.dtype not in ARGUMENT_DTYPES:
            raise TypeError(
                f"{what} has dtype {value.dtype}, which TinyTensor does not "
                f"support (supported: {SUPPORTED_NAMES})")
        if any(d == 0 for d in value.shape):
            raise ValueError(f"{what} has an empty dimension {value.shape}")
        return TensorType(value.shape, value.dtype)

    @staticmethod
    def from_mlir(shape, dtype) -> "TensorType":
        """The type of an MLIR ranked tensor's shape (whose dynamic sizes
        are ShapedType's sentinel) and a dtype."""
        return TensorType(tuple(DYNAMIC if d < 0 else d for d in shape),
                          dtype)

    @property
    def is_static(self) -> bool:
        return DYNAMIC not in self.shape

    def accepts(self, shape) -> bool:
        """Whether an array of `shape` has this type's shape (any size where
        a dimension is dynamic)."""
        return len(shape) == len(self.shape) and all(
            d == DYNAMIC or d == n for d, n in zip(self.shape, shape))

    def mlir(self) -> str:
        """The MLIR spelling, e.g. tensor<2x3xf32> or tensor<?x3xf32>."""
        dims = "".join(f"{'?' if d == DYNAMIC else d}x" for d in self.shape)
        return f"tensor<{dims}{mlir_element_name(self.dtype)}>"

    def __repr__(self):
        shape = tuple("?" if d == DYNAMIC else d for d in self.shape)
        return f"TensorType({shape}, {self.dtype})".replace("'?'", "?")


def dummy(value):
    """A stand-in for `value` that NumPy's promotion rules treat the same:
    traced values and arrays become 0-d arrays of their dtype (strong types),
    NumPy scalars and Python scalars are kept (Python scalars are weak)."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and not isinstance(value, np.generic):
        return np.ones((), dtype)
    return value


def result_dtype(fn, *operands) -> np.dtype:
    """The dtype NumPy's `fn` produces for `operands` (traced or not)."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(*[dummy(o) for o in operands])).dtype


def common_dtype(*operands) -> np.dtype:
    """The dtype NumPy promotes `operands` to (weak Python scalars)."""
    return np.result_type(*[dummy(o) for o in operands])
