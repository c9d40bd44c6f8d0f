"""NumPy-compatible functions that work on arrays and traced values alike.

Most forward to NumPy, whose dispatch protocols route traced values to
TinyTensor, so `tinytensor.tanh(x)` is `np.tanh(x)` in both worlds. `erf`,
which NumPy lacks, is traced directly and evaluated with `math.erf` on
concrete arrays.
"""

import math

import numpy as np

from .types import is_float

abs = np.abs  # noqa: A001  (NumPy's name)
exp = np.exp
log = np.log
tanh = np.tanh
sqrt = np.sqrt
maximum = np.maximum
minimum = np.minimum
where = np.where
matmul = np.matmul

_erf_scalar = np.vectorize(math.erf, otypes=[np.float64])


def erf(x):
    """The error function, elementwise."""
    from .tracing import Tracer

    if isinstance(x, Tracer):
        return x._erf()
    x = np.asarray(x)
    dtype = x.dtype if is_float(x.dtype) else np.dtype(np.float64)
    return _erf_scalar(x).astype(dtype)[()]
