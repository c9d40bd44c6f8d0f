"""Compiling traced modules with TinyTensor's named pipelines.

The pipelines are built in C++ (lib/Pipelines) and registered with MLIR's
pass registry, so this runs exactly what `tiny-opt --tt-optimize` and
`tiny-opt --tt-lower-to-llvm` run. Pipelines run without the GIL and report
the time of every pass. When one fails, the error names the pass that failed
and the op it failed on (a pass that fails without a diagnostic is reported
as such), its input is written to a file and the error shows the `tiny-opt`
command that reproduces the failure.
"""

from __future__ import annotations

import os
import tempfile
from typing import Dict, List, Optional, Tuple

from ._mlir import ir, tt

# Extra tt-lower-to-llvm options for every compilation in this process, e.g.
# TT_PIPELINE_OPTIONS="pack=false threads=1" to compare code generation
# stages (see docs/architecture.md for the options).
_EXTRA_OPTIONS = os.environ.get("TT_PIPELINE_OPTIONS", "").strip()
# TT_VERIFY_EACH=1 verifies the module after every pass (as tiny-opt does),
# to find the pass that broke it; by default it is verified once, at the end
# of each pipeline (after every pass, MobileNetV3-small's lowering took a
# third longer).
VERIFY_EACH = os.environ.get("TT_VERIFY_EACH", "0").strip() == "1"
# Options of tt-optimize, e.g. TT_OPTIMIZE_OPTIONS="outline-repeated=false".
_OPTIMIZE_OPTIONS = os.environ.get("TT_OPTIMIZE_OPTIONS", "").strip()

#: Where reproducers of compiler failures are written (TT_REPRODUCER_DIR,
#: default: the system's temporary directory).
REPRODUCER_DIR = os.environ.get("TT_REPRODUCER_DIR") or tempfile.gettempdir()


class CompilationError(RuntimeError):
    """The compiler rejected or failed on a traced program (a bug in
    TinyTensor when the program traced fine). `reproducer` is the path of
    the failing pipeline's input, when one was written."""

    def __init__(self, message: str, reproducer: Optional[str] = None):
        super().__init__(message)
        self.reproducer = reproducer


def clone(module: ir.Module) -> ir.Module:
    """An independent copy of `module` (in the same context)."""
    return tt.clone_module(module)


def _write_reproducer(text: str) -> Optional[str]:
    try:
        os.makedirs(REPRODUCER_DIR, exist_ok=True)
        fd, path = tempfile.mkstemp(prefix="tinytensor-repro-",
                                    suffix=".mlir", dir=REPRODUCER_DIR)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return path
    except OSError:
        return None


def run_pipeline(module: ir.Module, pipeline: str,
                 timings: Optional[Dict[str, float]] = None) -> None:
    """Runs `pipeline` (a pass pipeline string) on `module` in place; adds
    the seconds of each pass to `timings` (keyed `pass:<argument>`)."""
    anchored = f"builtin.module({pipeline})"
    before = clone(module)  # printed only if the pipeline fails
    try:
        times: List[Tuple[str, float]] = tt.run_pipeline(
            module, pipeline, verify_each=VERIFY_EACH)
    except ValueError as e:
        hint = "".join(
            f" ({var}={value!r} is added to {name}; see "
            f"docs/architecture.md for its options)"
            for var, value, name in (
                ("TT_PIPELINE_OPTIONS", _EXTRA_OPTIONS, "tt-lower-to-llvm"),
                ("TT_OPTIMIZE_OPTIONS", _OPTIMIZE_OPTIONS, "tt-optimize"))
            if value)
        raise ValueError(f"invalid pipeline '{pipeline}'{hint}: "
                         f"{str(e).strip()}") from None
    except RuntimeError as e:
        path = _write_reproducer(
            before.operation.get_asm(enable_debug_info=True))
        where = (f"\nreproduce with: tiny-opt {path} "
                 f"--pass-pipeline='{anchored}'"
                 if path else "")
        # str(e): "pass 'NAME' on OP failed:" and the diagnostics.
        raise CompilationError(
            f"pipeline '{pipeline}': {str(e).rstrip()}{where}",
            path) from None
    if timings is not None:
        for name, seconds in times:
            key = f"pass:{name}"
            timings[key] = timings.get(key, 0.0) + seconds


def optimize_pipeline(distribute: bool = False) -> str:
    """The pipeline from tt to optimised linalg (with
    TT_OPTIMIZE_OPTIONS); with `distribute`, to one process's part of it
    (tt-distribute, after tt-optimize without outlining: sharding
    propagation sees one function at a time)."""
    options = _OPTIMIZE_OPTIONS
    if distribute:
        options = (options + " outline-repeated=false").strip()
    pipeline = f"tt-optimize{{{options}}}" if options else "tt-optimize"
    return pipeline + ",tt-distribute" if distribute else pipeline


def optimize(module: ir.Module, timings=None, distribute: bool = False
             ) -> None:
    """tt -> optimised linalg on tensors (this process's part of it with
    `distribute`: see tinytensor.distributed)."""
    run_pipeline(module, optimize_pipeline(distribute), timings)


def lowering_pipeline() -> str:
    """The pipeline that lowers optimised linalg to the LLVM dialect, with
    caller-allocated outputs, buffers from the runtime's cache (see
    `tt.Library`) and TT_PIPELINE_OPTIONS."""
    options = "optimize=false out-params=true generic-alloc=true"
    if _EXTRA_OPTIONS:
        options += " " + _EXTRA_OPTIONS
    return f"tt-lower-to-llvm{{{options}}}"


def lower_optimized_to_llvm(module: ir.Module, timings=None) -> None:
    """Optimised linalg -> LLVM dialect with caller-allocated outputs."""
    run_pipeline(module, lowering_pipeline(), timings)


def generalize(module: ir.Module, function: str, dims: str) -> None:
    """Makes the argument dimensions `dims` ("arg:dim,...") of `function`
    dynamic (--tt-generalize-shapes); ValueError with the dialect's
    diagnostics when an op would compile the traced size in."""
    try:
        run_pipeline(module,
                     f"tt-generalize-shapes{{function={function} dims={dims}}}")
    except CompilationError as e:
        message = str(e).split("\n", 1)[-1]
        message = message.split("\nreproduce with:")[0].strip()
        raise ValueError(f"cannot compile with dynamic dimensions (argument:"
                         f"dimension {dims}): {message}") from None
