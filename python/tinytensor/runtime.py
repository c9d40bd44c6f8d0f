"""Running compiled code: MLIR's ExecutionEngine plus a native call path.

Compiled functions take every input and output as a memref descriptor
pointer (the `_mlir_ciface_` C interface with outputs as trailing
arguments). C-contiguous NumPy arrays are passed without copying; outputs
are allocated here with NumPy.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import os
from typing import Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ._mlir import ir, tt
from .types import STORAGE_DTYPES, TensorType, storage_view

_LLVM_LIB_DIR = os.environ.get("TT_LLVM_LIB_DIR", "/usr/lib/llvm-22/lib")


def _configure_threads() -> int:
    """Threads of the OpenMP runtime (LLVM's libomp) that runs parallel tile
    loops: TT_NUM_THREADS, else every core this process may use. Set through
    libomp's environment before it starts, so it holds for every thread of
    the process. Idle workers stop spinning after KMP_BLOCKTIME (1 ms unless
    set), so they do not compete with NumPy's BLAS threads between calls."""
    try:
        default = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        default = os.cpu_count() or 1
    value = os.environ.get("TT_NUM_THREADS", "")
    try:
        threads = int(value) if value else default
    except ValueError:
        raise ValueError(
            f"TT_NUM_THREADS must be a positive integer, got {value!r}") from None
    if threads < 1:
        raise ValueError(
            f"TT_NUM_THREADS must be a positive integer, got {value!r}")
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ.setdefault("KMP_BLOCKTIME", "1")
    return threads


NUM_THREADS = _configure_threads()
_SHARED_LIBS = [os.path.join(_LLVM_LIB_DIR, "libmlir_c_runner_utils.so"),
                os.path.join(_LLVM_LIB_DIR, "libomp.so")]
# glibc's vector math library: f64 tanh/exp/log/erf on vectors call it
# (--tt-cpu-vector-math). Part of glibc on x86-64.
_LIBMVEC = "/lib/x86_64-linux-gnu/libmvec.so.1"
if os.path.exists(_LIBMVEC):
    _SHARED_LIBS.append(_LIBMVEC)

# LLVM optimisation level. Level 2 already vectorises loops for the host
# CPU; level 3 took ten times longer to compile the GPT-2 example (26 s vs
# 2.2 s) without being faster.
OPT_LEVEL = int(os.environ.get("TT_OPT_LEVEL", "2"))


_OPT_LEVEL_OVERRIDE: contextvars.ContextVar = contextvars.ContextVar(
    "tt_opt_level", default=None)


def opt_level() -> int:
    """The LLVM optimisation level of compilations now: TT_OPT_LEVEL, or
    what an enclosing `settings(opt_level=...)` says."""
    level = _OPT_LEVEL_OVERRIDE.get()
    return OPT_LEVEL if level is None else level


#: TT_LLVM_SLP=1 adds LLVM's SLP vectoriser to compilations (off by
#: default: the code is vectorised already, and it took most of LLVM's
#: time on CNNs). Part of the compile cache's key.
LLVM_SLP = os.environ.get("TT_LLVM_SLP", "0").strip() == "1"

#: TT_LLVM_POST_RA_SCHED=1 runs LLVM's post-register-allocation list
#: scheduler where the CPU's scheduling model asks for it (AMD Zen's):
#: off by default, as it is quadratic in a block's length (a quarter of
#: GPT-2's LLVM time on a Zen 4) for no measured speed. Read once, by the
#: first compilation; part of the compile cache's key.
LLVM_POST_RA_SCHED = os.environ.get("TT_LLVM_POST_RA_SCHED",
                                    "0").strip() == "1"


def codegen_key() -> str:
    """What, besides the pipelines, decides the object code: the LLVM
    optimisation level, TT_LLVM_SLP and TT_LLVM_POST_RA_SCHED."""
    return (f"O{opt_level()}" + ("-slp" if LLVM_SLP else "")
            + ("-postra" if LLVM_POST_RA_SCHED else ""))


_libomp = None


def _set_omp_threads(n: int) -> None:
    """omp_set_num_threads for the calling thread: the parallel loops of
    compiled code it runs next use `n` threads (on either runtime)."""
    global _libomp
    if _libomp is None:
        _libomp = ctypes.CDLL(os.path.join(_LLVM_LIB_DIR, "libomp.so"))
    _libomp.omp_set_num_threads(int(n))
    tt.set_gnu_openmp_threads(int(n))


#: TT_OPENMP: which OpenMP runtime runs compiled code's parallel loops.
#: "llvm": LLVM's libomp; "gnu": the GNU libgomp already loaded in the
#: process (PyTorch's), through a shim of libomp's entry points, so that
#: compiled code and torch's eager ops share one pool of threads instead
#: of two whose idle threads spin against each other; "auto" (default):
#: "gnu" when a libgomp is loaded when the code is loaded, else "llvm".
OPENMP = os.environ.get("TT_OPENMP", "auto").strip().lower() or "auto"
if OPENMP not in ("auto", "llvm", "gnu"):
    raise ValueError(f"TT_OPENMP must be auto, llvm or gnu, got {OPENMP!r}")
tt.set_gnu_openmp_default_threads(NUM_THREADS)


def _loaded_gnu_openmp() -> Optional[str]:
    """The path of the libgomp loaded in this process, if any."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if "/" in line else ""
                if os.path.basename(path).startswith("libgomp"):
                    return path
    except OSError:
        pass
    return None


def openmp_runtime() -> Tuple[str, Optional[str]]:
    """("gnu", path of libgomp) or ("llvm", None): the runtime that code
    loaded now runs its parallel loops on (TT_OPENMP)."""
    if OPENMP == "llvm":
        return "llvm", None
    path = _loaded_gnu_openmp()
    if path is None and OPENMP == "gnu":
        for name in ("libgomp.so.1", "libgomp.so"):
            try:
                ctypes.CDLL(name)
            except OSError:
                continue
            path = _loaded_gnu_openmp()
            break
        if path is None:
            raise RuntimeError("TT_OPENMP=gnu: no libgomp in this process "
                               "or on the system")
    return ("gnu", path) if path else ("llvm", None)


def check_settings(opt_level: Optional[int] = None,
                   threads: Optional[int] = None) -> None:
    """ValueError unless `opt_level` is None or 0-3 and `threads` None or a
    positive integer."""
    if opt_level is not None and opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive integer, got "
                         f"{threads!r}")


@contextlib.contextmanager
def settings(opt_level: Optional[int] = None,
             threads: Optional[int] = None) -> Iterator[None]:
    """Per-use settings, for what runs inside: `opt_level` for the
    compilations (0-3, part of the compile cache's key), `threads` for the
    compiled code's parallel loops run from this thread (afterwards back
    to TT_NUM_THREADS)."""
    check_settings(opt_level, threads)
    token = _OPT_LEVEL_OVERRIDE.set(opt_level) if opt_level is not None \
        else None
    if threads is not None:
        _set_omp_threads(threads)
    try:
        yield
    finally:
        if token is not None:
            _OPT_LEVEL_OVERRIDE.reset(token)
        if threads is not None:
            _set_omp_threads(NUM_THREADS)


def buffer_cache_stats() -> dict:
    """The cache of buffers that compiled code allocates (intermediate
    results, packed panels): `cached_bytes` kept for reuse, their
    `limit_bytes`, `peak_bytes` (the most bytes of such buffers in use at
    once), whether the limit is `automatic`, and the allocations it served
    (`hits`) and did not (`misses`). Released buffers of 128 KiB and more
    are kept, so the next call gets buffers whose pages are mapped already
    instead of paying a page fault per 4 KiB. The limit is
    TT_BUFFER_CACHE_MB (0 turns reuse off), or when that is unset the peak
    in use, between 256 MiB and a quarter of the machine's memory: what a
    function's next call needs again."""
    return dict(tt.buffer_cache_stats())


def release_cached_buffers() -> None:
    """Returns the buffers kept for reuse to the system."""
    tt.release_cached_buffers()


def compile_objects(module: ir.Module) -> List[bytes]:
    """Object code for the host CPU from a module in the LLVM dialect:
    machine code for parts of the module is generated on NUM_THREADS
    threads, one object each."""
    return tt.compile_objects(module, opt_level(), NUM_THREADS)

class Executable:
    """A compiled entry function, callable with NumPy arrays.

    The object code (from `compile_objects`, or the compile cache) is loaded
    with LLVM's ORC JIT. Calls go through `Runner` (C++, in our extension):
    it reads the arrays' buffers, builds the memref descriptors and runs
    the compiled code without the GIL. Inputs of another dtype or layout
    are converted here first; C-contiguous inputs of the compiled dtype are
    passed without copying. Outputs are allocated here with NumPy.
    """

    def __init__(self, objects: Sequence[bytes], name: str,
                 inputs: Sequence[TensorType], outputs: Sequence[TensorType],
                 dynamic=None, updates: Sequence[tuple] = ()):
        self.objects = list(objects)
        kind, gnu = openmp_runtime()
        #: "gnu" or "llvm": the OpenMP runtime of this code's parallel loops.
        self.openmp = kind
        self._library = tt.Library(self.objects, _SHARED_LIBS, gnu or "")
        # The packed wrapper of the C-interface function: it takes one array
        # holding the address of each argument, and each argument is a
        # pointer to a memref descriptor.
        address = self._library.lookup(f"_mlir__mlir_ciface_{name}")
        self._name = name
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        #: (result, input) pairs: the result is computed into the input's
        #: array (tt.updated_by), which the call returns as that result.
        self.updates = tuple(updates)
        self._runner = tt.Runner(address, [_spec(t) for t in self.inputs],
                                 [_spec(t) for t in self.outputs],
                                 [i for _, i in self.updates])
        self._output_types = [(t.shape, t.dtype) for t in self.outputs]
        #: Whether a dtype passes through the runtime as another (bfloat16
        #: as uint16, see types.STORAGE_DTYPES).
        self._storage = any(t.dtype in STORAGE_DTYPES
                            for t in self.inputs + self.outputs)
        #: The dynamic dimensions (a shapes.DynamicDims), or None: outputs
        #: are then allocated from the inputs' sizes at each call.
        self.dynamic = dynamic

    def __call__(self, arrays: Sequence[np.ndarray]) -> List[np.ndarray]:
        arrays = tuple(arrays)
        if self.updates:
            return self._call_updating(arrays)
        if self.dynamic is None:
            results = [np.empty(shape, dtype) for shape, dtype in
                       self._output_types]
        else:
            shapes = self.dynamic.output_shapes(
                [np.shape(a) for a in arrays],
                [shape for shape, _ in self._output_types])
            results = [np.empty(shape, dtype) for shape, (_, dtype) in
                       zip(shapes, self._output_types)]
        if self._storage:
            self._runner(tuple(storage_view(a) for a in self._convert(arrays)),
                         tuple(storage_view(r) for r in results))
            return results
        try:
            self._runner(arrays, tuple(results))
        except TypeError:
            self._runner(tuple(self._convert(arrays)), tuple(results))
        return results

    def _call_updating(self, arrays):
        """A call whose updating results are computed into their inputs'
        arrays (static shapes): those arrays are the results (the caller's
        own memory when they were passed as they are). Inputs to convert,
        read-only ones or ones whose memory overlaps another input's are
        passed as copies."""
        updated = {j for j, _ in self.updates}
        results = [None if j in updated else np.empty(shape, dtype)
                   for j, (shape, dtype) in enumerate(self._output_types)]
        for attempt in range(3):
            if attempt == 1:
                arrays = tuple(self._convert(arrays))
            elif attempt == 2:
                inputs = {i for _, i in self.updates}
                arrays = tuple(a.copy() if i in inputs else a
                               for i, a in enumerate(arrays))
            for j, i in self.updates:
                results[j] = arrays[i]
            try:
                if self._storage:
                    self._runner(tuple(storage_view(a) for a in arrays),
                                 tuple(storage_view(r) for r in results))
                else:
                    self._runner(arrays, tuple(results))
                return results
            except (TypeError, ValueError):
                if attempt == 2:
                    raise
        return results

    def prepare(self, constants: Sequence[np.ndarray]) -> bool:
        """Runs `<name>_tt_prepare` (from --tt-cpu-prepare-constants), if the
        code has one, with the constant arguments (in their order): it
        stores what the function computes from them alone. False if there
        is none."""
        try:
            address = self._library.lookup(
                f"_mlir__mlir_ciface_{self._name}_tt_prepare")
        except RuntimeError:
            return False
        types = [TensorType(np.shape(a), np.asarray(a).dtype)
                 for a in constants]
        runner = tt.Runner(address, [_spec(t) for t in types], [])
        arrays = tuple(storage_view(np.ascontiguousarray(a))
                       for a in constants)
        runner(arrays, ())
        return True

    def _convert(self, arrays):
        """The inputs in the compiled dtypes, C-contiguous."""
        for array, t in zip(arrays, self.inputs):
            if type(array).__name__ == "DeviceArray":
                raise TypeError("a DeviceArray is in GPU memory: pass it to "
                                "a function jitted with target='cuda', or "
                                "call .numpy() first")
            if not isinstance(array, np.ndarray) or not t.accepts(array.shape):
                raise TypeError(f"an input has shape "
                                f"{getattr(array, 'shape', None)}, the "
                                f"compiled function takes {t}")
            if array.dtype != t.dtype:
                array = array.astype(t.dtype)
            if not array.flags.c_contiguous:
                array = array.copy()  # ascontiguousarray would make 0-d 1-d
            yield array


def _spec(t: TensorType):
    """A Runner's description of one array: shape, buffer format, item
    size."""
    dtype = STORAGE_DTYPES.get(t.dtype, t.dtype)
    return (list(t.shape), dtype.char, dtype.itemsize)
