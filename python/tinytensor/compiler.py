"""Compiling traced modules with TinyTensor's named pipelines.

The pipelines are built in C++ (lib/Pipelines) and registered with MLIR's
pass registry, so this runs exactly what `tiny-opt --tt-optimize` and
`tiny-opt --tt-lower-to-llvm` run.
"""

from __future__ import annotations

from ._mlir import ir, passmanager


class CompilationError(RuntimeError):
    """The compiler rejected or failed on a traced program (a bug in
    TinyTensor when the program traced fine)."""


def run_pipeline(module: ir.Module, pipeline: str) -> None:
    """Runs `pipeline` (a pass pipeline string) on `module` in place."""
    pm = passmanager.PassManager.parse(f"builtin.module({pipeline})",
                                       context=module.context)
    try:
        pm.run(module.operation)
    except ir.MLIRError as e:
        raise CompilationError(f"pipeline '{pipeline}' failed: {e}") from None


def optimize(module: ir.Module) -> None:
    """tt -> optimised linalg on tensors."""
    run_pipeline(module, "tt-optimize")


def lower_optimized_to_llvm(module: ir.Module) -> None:
    """Optimised linalg -> LLVM dialect with caller-allocated outputs."""
    run_pipeline(module, "tt-lower-to-llvm{optimize=false out-params=true}")
