"""NVIDIA GPUs: device arrays and the executables of `jit(target="cuda")`.

Compiled code for the GPU is a shared library made by the ahead-of-time
path (`tt.aot_export`, as `tiny-aot --target=cuda`): host code that launches
the kernels of `tt-lower-to-nvvm`, linked against TinyTensor's CUDA runtime
(libTinyTensorCudaRuntime.so), which loads the CUDA driver when first
used. Without a driver, the first GPU call raises RuntimeError naming what
is missing; nothing else needs a GPU to import or build.

    x = tinytensor.device_put(np.ones((1024, 1024), np.float32))
    f = jit(lambda a, b: a @ b, target="cuda")
    y = f(x, x)              # a NumPy array; x stayed on the GPU
    x.numpy()                # back to the host
"""

import ctypes
import os
import shutil
import tempfile
import threading
from typing import List, Optional, Sequence

import numpy as np

from mlir import ir
from mlir.dialects import tt

from .types import TensorType

_lock = threading.Lock()
_runtime: Optional[ctypes.CDLL] = None


def runtime_library_path() -> str:
    """libTinyTensorCudaRuntime.so of this build ($TT_CUDA_RUNTIME
    overrides it)."""
    return os.environ.get("TT_CUDA_RUNTIME") or tt.cuda_runtime_library()


def _load_runtime() -> ctypes.CDLL:
    """The CUDA runtime, loaded once (globally, so that the compiled
    libraries' mgpu* calls bind to this copy)."""
    global _runtime
    with _lock:
        if _runtime is None:
            lib = ctypes.CDLL(runtime_library_path(), mode=ctypes.RTLD_GLOBAL)
            lib.ttCudaLastError.restype = ctypes.c_char_p
            lib.ttCudaDeviceName.restype = ctypes.c_char_p
            lib.ttCudaAlloc.restype = ctypes.c_void_p
            lib.ttCudaAlloc.argtypes = [ctypes.c_size_t]
            lib.ttCudaFree.argtypes = [ctypes.c_void_p]
            for name in ("ttCudaCopyToDevice", "ttCudaCopyToHost"):
                getattr(lib, name).argtypes = [ctypes.c_void_p,
                                               ctypes.c_void_p,
                                               ctypes.c_size_t]
            _runtime = lib
        return _runtime


def _raise_if_failed(what: str) -> None:
    lib = _load_runtime()
    message = lib.ttCudaLastError()
    if message:
        lib.ttCudaClearError()
        raise RuntimeError(f"{what}: {message.decode()}")


def init() -> str:
    """Loads the driver and returns the device's name; RuntimeError (naming
    the missing driver library, or the failing driver call) otherwise."""
    lib = _load_runtime()
    if lib.ttCudaInit() != 0:
        _raise_if_failed("no CUDA device")
    return lib.ttCudaDeviceName().decode()


def is_available() -> bool:
    """Whether a CUDA driver and device can be used."""
    try:
        init()
        return True
    except (RuntimeError, OSError):
        return False


class DeviceArray:
    """An array in GPU memory: `device_put(array)` makes one, `.numpy()`
    copies it back. Passed to a `jit(..., target="cuda")` function, it is
    read where it is, without a copy."""

    __slots__ = ("shape", "dtype", "nbytes", "_ptr", "__weakref__")

    def __init__(self, shape, dtype):
        init()
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * \
            self.dtype.itemsize
        self._ptr = _load_runtime().ttCudaAlloc(max(self.nbytes, 1))
        if not self._ptr:
            _raise_if_failed(f"cannot allocate {self.nbytes} bytes on the GPU")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def pointer(self) -> int:
        """The device address."""
        return self._ptr

    def numpy(self) -> np.ndarray:
        out = np.empty(self.shape, self.dtype)
        lib = _load_runtime()
        if lib.ttCudaCopyToHost(out.ctypes.data, self._ptr, self.nbytes):
            _raise_if_failed("copying a DeviceArray to the host")
        return out

    def __array__(self, dtype=None, copy=None):
        out = self.numpy()
        return out if dtype is None else out.astype(dtype)

    def __repr__(self):
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype})"

    def __del__(self):
        if getattr(self, "_ptr", None) and _runtime is not None:
            _runtime.ttCudaFree(self._ptr)
            self._ptr = None


def device_put(array) -> DeviceArray:
    """Copies `array` (anything np.asarray takes) to the GPU."""
    if isinstance(array, DeviceArray):
        return array
    host = np.ascontiguousarray(array)
    TensorType.of(host, "device_put's argument")  # a supported dtype
    device = DeviceArray(host.shape, host.dtype)
    if _load_runtime().ttCudaCopyToDevice(device.pointer, host.ctypes.data,
                                          host.nbytes):
        _raise_if_failed("copying an array to the GPU")
    return device


class CudaExecutable:
    """A traced tt module compiled for the GPU (a shared library in a
    temporary directory), called with NumPy arrays or DeviceArrays:
    NumPy inputs are copied to the device for the call, results are copied
    back as NumPy arrays."""

    def __init__(self, module: ir.Module, name: str,
                 inputs: Sequence[TensorType], outputs: Sequence[TensorType],
                 pipeline_options: str = ""):
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        init()  # fail early, naming the missing driver
        self._dir = tempfile.mkdtemp(prefix="tinytensor-cuda-")
        # The C entry point takes the function's name; "main" is C's.
        symbol = f"tt_{name}"
        for op in module.body.operations:
            op = op.operation
            if op.name == "func.func" and \
                    ir.StringAttr(op.attributes["sym_name"]).value == name:
                op.attributes["sym_name"] = ir.StringAttr.get(symbol)
        path = os.path.join(self._dir, f"lib{symbol}.so")
        tt.aot_export(module, "cuda", path,
                      pipeline_options=pipeline_options,
                      runtime=runtime_library_path())
        self._library = ctypes.CDLL(path)
        _raise_if_failed("loading the GPU kernels")
        self._fn = getattr(self._library, symbol)
        self._fn.argtypes = [ctypes.c_void_p] * (len(self.inputs) +
                                                 len(self.outputs))
        self._fn.restype = ctypes.c_int

    def __call__(self, arrays: Sequence) -> List[np.ndarray]:
        staged = []
        pointers = []
        for array, t in zip(arrays, self.inputs):
            if isinstance(array, DeviceArray):
                if (array.shape, array.dtype) != (t.shape, t.dtype):
                    raise TypeError(f"a DeviceArray of shape {array.shape} "
                                    f"and dtype {array.dtype}; the compiled "
                                    f"function takes {t}")
                pointers.append(array.pointer)
                continue
            host = np.ascontiguousarray(array, dtype=t.dtype)
            device = device_put(host)
            staged.append(device)
            pointers.append(device.pointer)
        results = [DeviceArray(t.shape, t.dtype) for t in self.outputs]
        pointers += [r.pointer for r in results]
        if self._fn(*pointers) != 0:
            _raise_if_failed("running the compiled GPU code")
        out = [r.numpy() for r in results]
        del staged
        return out

    def __del__(self):
        shutil.rmtree(getattr(self, "_dir", ""), ignore_errors=True)
