"""Access to MLIR's Python bindings with the tt dialect plugged in."""

from __future__ import annotations

import functools

try:
    from mlir import ir, passmanager  # noqa: F401
    from mlir.dialects import func, tensor, tt  # noqa: F401
    from mlir import execution_engine  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        "TinyTensor needs MLIR's Python bindings with the tt dialect "
        "(built by scripts/setup.sh into build/python_packages); "
        f"importing them failed: {e}") from e


@functools.lru_cache(maxsize=None)
def _register_passes_once():
    tt.register_passes()


def new_context() -> ir.Context:
    """A context with tt (and every upstream dialect) available and
    TinyTensor's passes and pipelines registered."""
    _register_passes_once()
    ctx = ir.Context()
    tt.register_dialect(ctx)
    return ctx


def _mlir_libs_dir() -> str:
    """The directory of MLIR's native libraries and ours (the extension,
    libTinyTensorMPI.so)."""
    import os
    from mlir import _mlir_libs
    return os.path.dirname(_mlir_libs.__file__)
