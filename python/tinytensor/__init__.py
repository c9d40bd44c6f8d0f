"""TinyTensor: compile NumPy code through MLIR.

    import numpy as np
    from tinytensor import jit

    @jit
    def scale_bias(x, bias):
        return x * 2.0 + bias

The traced program is the `tt` dialect; it is lowered through linalg to LLVM
by TinyTensor's named pipelines and run on the CPU, or, with
`jit(f, target="cuda")`, to NVVM kernels for an NVIDIA GPU
(tinytensor.cuda). `tinytensor.aot.export` writes a shared library instead.
"""

__version__ = "0.1.0"

from .types import TensorType
from .jit import jit, Compiled
from .cuda import DeviceArray, device_put
from .tracing import Tracer, TracingError
from .functions import (
    abs, exp, log, tanh, sqrt, erf, maximum, minimum, where, matmul,
)

__all__ = [
    "jit", "Compiled", "TensorType", "Tracer", "TracingError",
    "DeviceArray", "device_put",
    "abs", "exp", "log", "tanh", "sqrt", "erf", "maximum", "minimum",
    "where", "matmul",
]
