"""Site initialiser: every mlir.ir.Context knows the tt dialect, and
TinyTensor's passes and pipelines are registered for PassManager.parse."""

from ._ttDialects.tt import register_dialects, register_passes

register_passes()

__all__ = ["register_dialects"]
