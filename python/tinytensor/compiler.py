"""Compiling traced modules with TinyTensor's named pipelines.

The pipelines are built in C++ (lib/Pipelines) and registered with MLIR's
pass registry, so this runs exactly what `tiny-opt --tt-optimize` and
`tiny-opt --tt-lower-to-llvm` run.
"""

from __future__ import annotations

import os

from ._mlir import ir, passmanager

# Extra tt-lower-to-llvm options for every compilation in this process, e.g.
# TT_PIPELINE_OPTIONS="pack=false threads=1" to compare code generation
# stages (see docs/architecture.md for the options).
_EXTRA_OPTIONS = os.environ.get("TT_PIPELINE_OPTIONS", "").strip()


class CompilationError(RuntimeError):
    """The compiler rejected or failed on a traced program (a bug in
    TinyTensor when the program traced fine)."""


def run_pipeline(module: ir.Module, pipeline: str) -> None:
    """Runs `pipeline` (a pass pipeline string) on `module` in place."""
    try:
        pm = passmanager.PassManager.parse(f"builtin.module({pipeline})",
                                           context=module.context)
    except ValueError as e:
        hint = (f" (TT_PIPELINE_OPTIONS={_EXTRA_OPTIONS!r} is added to "
                "tt-lower-to-llvm; see docs/architecture.md for its options)"
                if _EXTRA_OPTIONS else "")
        raise ValueError(f"invalid pipeline '{pipeline}'{hint}: {e}") from None
    try:
        pm.run(module.operation)
    except ir.MLIRError as e:
        raise CompilationError(f"pipeline '{pipeline}' failed: {e}") from None


def optimize(module: ir.Module) -> None:
    """tt -> optimised linalg on tensors."""
    run_pipeline(module, "tt-optimize")


def lower_optimized_to_llvm(module: ir.Module) -> None:
    """Optimised linalg -> LLVM dialect with caller-allocated outputs."""
    options = "optimize=false out-params=true"
    if _EXTRA_OPTIONS:
        options += " " + _EXTRA_OPTIONS
    run_pipeline(module, f"tt-lower-to-llvm{{{options}}}")
