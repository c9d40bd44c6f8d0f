"""`compile` and `jit` for PyTorch modules."""

from __future__ import annotations

from typing import Any, List, Sequence

import numpy as np
import torch

from ..jit import jit as _np_jit
from .._mlir import ir
from .importer import GraphProgram, UnsupportedOpError, capture

OUTPUT_TYPES = ("tt", "linalg-on-tensors", "llvm")


def _as_tuple(example_inputs) -> tuple:
    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,)
    return tuple(example_inputs)


def _to_numpy(t: torch.Tensor, what: str) -> np.ndarray:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{what} must be a torch.Tensor, got "
                        f"{type(t).__name__}")
    array = t.detach().cpu().numpy()
    if array.dtype == np.int64:
        array = array.astype(np.int32)
    return array


class TorchCompiled:
    """A module compiled for one set of input shapes and dtypes."""

    def __init__(self, model: torch.nn.Module, example_inputs: Sequence):
        self.program: GraphProgram = capture(model, _as_tuple(example_inputs))
        self._jit = _np_jit(self.program.function, name="forward")
        arrays = [_to_numpy(t, f"input #{i}")
                  for i, t in enumerate(_as_tuple(example_inputs))]
        self._compiled = self._jit.compile(*arrays)

    @property
    def tt(self) -> str:
        return self._compiled.module

    @property
    def linalg(self) -> str:
        return self._compiled.optimized

    @property
    def llvm(self) -> str:
        return self._compiled.lowered

    def module(self, output_type: str) -> ir.Module:
        """The compiled program at `output_type`, as an MLIR module."""
        text = {"tt": self.tt, "linalg-on-tensors": self.linalg,
                "llvm": self.llvm}[output_type]
        return ir.Module.parse(text, context=ir.Context())

    def __call__(self, *inputs):
        arrays = [_to_numpy(t, f"input #{i}") for i, t in enumerate(inputs)]
        out = self._jit(*arrays)
        return self.program.restructure(
            [torch.from_numpy(np.ascontiguousarray(o)) for o in
             (out if isinstance(out, (tuple, list)) else [out])])


def compile(model: torch.nn.Module, example_inputs,
            output_type: str = "linalg-on-tensors") -> ir.Module:
    """Compiles `model` for `example_inputs` (a tensor or a tuple of
    tensors) and returns the MLIR module at `output_type`: "tt",
    "linalg-on-tensors" or "llvm"."""
    if output_type not in OUTPUT_TYPES:
        raise ValueError(f"output_type must be one of {OUTPUT_TYPES}, got "
                         f"{output_type!r}")
    return TorchCompiled(model, example_inputs).module(output_type)


class jit:
    """A compiled callable for `model`: the first call per input shapes and
    dtypes compiles, later calls reuse it."""

    def __init__(self, model: torch.nn.Module):
        self.model = model
        self._cache = {}

    def __call__(self, *inputs):
        key = tuple((tuple(t.shape), t.dtype) for t in inputs)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = self._cache[key] = TorchCompiled(self.model, inputs)
        return compiled(*inputs)
