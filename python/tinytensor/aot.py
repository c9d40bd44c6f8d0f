"""Ahead-of-time compilation: a NumPy function into a shared library.

    from tinytensor import aot
    aot.export(gelu, np.zeros((4096, 1024), np.float32), path="libgelu.so",
               header="gelu.h", target="cuda")

The function is traced for the given example arguments (their shapes and
dtypes; other values are static, as with `jit`) and compiled by the same
code as `tiny-aot`: tt-lower-to-llvm (`target="cpu"`) or tt-lower-to-nvvm
(`target="cuda"`) and the host CPU's code generator, linked into a shared
library with one C entry point, `int <name>(const T *arg0, ..., T
*result0, ...)`, over dense row-major arrays (device memory for CUDA). The
library needs only libTinyTensorCudaRuntime.so (copied beside it) and the
CUDA driver for CUDA, libomp for CPU code with threads.

Arrays the function reads from its scope (globals, closures) are baked into
the library as constants. Gather indices are not bounds-checked (an
out-of-range index is clamped), as the C entry points have no exceptions.
"""

from typing import Optional

from mlir.dialects import tt

from .jit import JitFunction


def export(fn, *args, path: str, name: Optional[str] = None,
           target: str = "cpu", header: str = "", manifest: str = "",
           cpu: str = "host", features: str = "", pipeline_options: str = "",
           static_argnums=(), static_argnames=(), **kwargs) -> str:
    """Compiles `fn` for the example `args`/`kwargs` into the shared library
    `path` (and the C `header` and JSON `manifest`, if given). The entry
    point is called `name` (default: the function's name). `cpu` is the
    CPU the host code is for: "host", or an LLVM CPU name such as
    "x86-64-v3" to run the library on another machine. Returns `path`."""
    if target not in ("cpu", "cuda"):
        raise ValueError(f"target must be 'cpu' or 'cuda', got {target!r}")
    entry = name or getattr(fn, "__name__", "model")
    if not entry.isidentifier() or entry == "main":
        raise ValueError(f"the entry point's name must be a C identifier "
                         f"other than main, got {entry!r}: pass name=")
    traced = JitFunction(fn, static_argnums=static_argnums,
                         static_argnames=static_argnames, name=entry,
                         check_indices=False).trace(*args, **kwargs)
    tt.aot_export(traced.module, target, path, header=header,
                  manifest=manifest, pipeline_options=pipeline_options,
                  cpu=cpu, features=features)
    return path
