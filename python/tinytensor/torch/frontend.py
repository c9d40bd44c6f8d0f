"""`compile` and `jit` for PyTorch modules."""

from __future__ import annotations

import inspect
import threading
import warnings
from typing import Sequence

import numpy as np
import torch

from ..jit import RecompilationWarning, jit as _np_jit
from .._mlir import ir, new_context
from ..shapes import DynamicDims
from .importer import (GraphProgram, UnsupportedOpError, capture,
                       numpy_dtype, numpy_to_tensor, tensor_to_numpy)

OUTPUT_TYPES = ("tt", "linalg-on-tensors", "llvm")


def _as_tuple(example_inputs) -> tuple:
    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,)
    return tuple(example_inputs)


def _to_numpy(t: torch.Tensor, what: str) -> np.ndarray:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{what} must be a torch.Tensor, got "
                        f"{type(t).__name__}")
    return tensor_to_numpy(t, what)


_STATIC_TYPES = (bool, int, float, type(None))


def _argument(value, what: str):
    """A tensor input as a NumPy array; a Python scalar (or None) as it is:
    a static argument, compiled in (torch.export specialises on it too)."""
    if isinstance(value, _STATIC_TYPES):
        return value
    return _to_numpy(value, what)


def _to_torch(array) -> torch.Tensor:
    array = np.asarray(array)  # 0-d results arrive as NumPy scalars
    if not array.flags.c_contiguous or not array.flags.writeable:
        array = array.copy()
    return numpy_to_tensor(array)


class TorchCompiled:
    """A module compiled for one set of input shapes and dtypes.

    The parameters and buffers are trailing arguments of the compiled
    function, passed as NumPy views of the module's tensors at every call:
    in-place updates (`weight.add_(1)`, `load_state_dict`) are seen without
    recompiling. If the module's tensors are replaced (`model.fc.weight =
    nn.Parameter(...)`, `param.data = ...`, `model.double()`), the next call
    captures the module again.

    With `dynamic_shapes` (torch.export's argument, e.g. `{"x": {0:
    Dim("batch")}}`) the dimensions torch.export makes symbolic are dynamic
    (`?`) in the compiled program, and one compiled function serves every
    size of them (`accepts` says whether it serves given inputs).
    """

    def __init__(self, model: torch.nn.Module, example_inputs: Sequence,
                 dynamic_shapes=None, program: GraphProgram = None,
                 check_indices: bool = True):
        self.model = model
        self._dynamic_shapes = dynamic_shapes
        self._check_indices = check_indices
        #: A program captured elsewhere (a graph Dynamo handed over), used
        #: instead of capturing `model`.
        self._given = program
        self._build(_as_tuple(example_inputs))

    def _build(self, inputs: tuple):
        self.program: GraphProgram = self._given or capture(
            self.model, inputs, self._dynamic_shapes)
        self._jit = _np_jit(self.program.function, name="forward",
                            check_indices=self._check_indices)
        arrays = [_argument(t, f"input #{i}") for i, t in enumerate(inputs)]
        # A user input's new value is computed into its own memory (an
        # optimizer step's parameters): the compiled function's argument
        # leaves are the inputs with elements.
        leaves = {}
        for i, a in enumerate(arrays):
            if isinstance(a, np.ndarray) and a.size:
                leaves[i] = len(leaves)
        self._jit.updates = {
            k: leaves[target] for k, (kind, target) in
            enumerate(self.program.mutations)
            if kind == "input" and target in leaves}
        self._example_arrays = arrays
        self._leaf_dynamic = None
        if self.program.dynamic is None:
            self._compiled = self._jit.compile(*arrays)
            return
        # Dynamic dimensions over the array leaves (Python scalars are
        # static and not leaves).
        leaf, leaves = {}, 0
        for i, t in enumerate(inputs):
            if isinstance(t, torch.Tensor):
                leaf[i] = leaves
                leaves += 1
        dynamic = self.program.dynamic
        self._leaf_dynamic = DynamicDims(
            {(leaf[i], d): s for (i, d), s in dynamic.inputs.items()},
            dynamic.outputs, dynamic.ranges)
        self._compiled = self._jit.compile_dynamic(arrays, self._leaf_dynamic)

    @property
    def dynamic(self) -> bool:
        """Whether the compiled program has dynamic dimensions."""
        return self._compiled.dynamic is not None

    def accepts(self, inputs: Sequence) -> bool:
        """Whether the compiled program serves `inputs` as they are: the
        compiled dtypes and static sizes, dynamic sizes that agree and lie
        in the ranges torch.export gave them."""
        # Tensors with no elements are static arguments, not inputs.
        tensors = [t for t in inputs
                   if isinstance(t, torch.Tensor) and t.numel()]
        types_ = self._compiled.input_types
        if len(tensors) != len(types_):
            return False
        for t, ty in zip(tensors, types_):
            shape = tuple(t.shape)
            if t.is_complex():  # passed as (real, imaginary) pairs
                dtype = np.dtype(np.float64 if t.dtype == torch.complex128
                                 else np.float32)
                shape += (2,)
            else:
                dtype = numpy_dtype(t.dtype)
            if dtype != ty.dtype or not ty.accepts(shape):
                return False
        if self._compiled.dynamic is not None:
            try:
                self._compiled.dynamic.sizes([tuple(t.shape)
                                              for t in tensors])
            except ValueError:
                return False
        return True

    @property
    def tt(self) -> str:
        return str(self._compiled.module)

    @property
    def linalg(self) -> str:
        return str(self._compiled.optimized)

    @property
    def llvm(self) -> str:
        return str(self._compiled.lowered)

    def module(self, output_type: str) -> ir.Module:
        """The compiled program at `output_type`, as an MLIR module."""
        if output_type not in OUTPUT_TYPES:
            raise ValueError(f"output_type must be one of {OUTPUT_TYPES}, "
                             f"got {output_type!r}")
        text = {"tt": self.tt, "linalg-on-tensors": self.linalg,
                "llvm": self.llvm}[output_type]
        return ir.Module.parse(text, context=new_context())

    def inline_module(self, output_type: str) -> ir.Module:
        """The program at `output_type` with the parameters and buffers
        embedded as `dense_resource` constants (named by their paths in
        the model) instead of trailing arguments: a self-contained module
        for other MLIR tools. "llvm" is `tt-lower-to-llvm` with its default
        options (results returned, as `mlir-runner` expects)."""
        if output_type not in OUTPUT_TYPES:
            raise ValueError(f"output_type must be one of {OUTPUT_TYPES}, "
                             f"got {output_type!r}")
        names = {id(a): self.program.targets.get(n, n)
                 for n, a in self.program.params.items()}
        traced = self._jit.trace_embedded(self._example_arrays, names,
                                          self._leaf_dynamic)
        context = new_context()
        module = ir.Module.parse(
            traced.module.operation.get_asm(), context=context)
        from .. import compiler
        with context:
            if output_type != "tt":
                compiler.optimize(module)
            if output_type == "llvm":
                compiler.run_pipeline(module, "tt-lower-to-llvm{optimize=false}")
        return module

    def __call__(self, *inputs):
        if not self.program.is_current(self.model):
            self._build(inputs)
        arrays = [_argument(t, f"input #{i}") for i, t in enumerate(inputs)]
        self.program.refresh_seed()
        if self._compiled.dynamic is not None:
            out = self._compiled.run(*arrays)
        else:
            out = self._jit(*arrays)
        out = out if isinstance(out, (tuple, list)) else [out]
        mutations = self.program.mutations
        if mutations:
            # The in-place updates the model makes. A user input's update
            # computed into its own memory is there already (the result is
            # its array); the others are copied in one call (an optimizer
            # step updates hundreds of tensors).
            dests, values = [], []
            for k, (kind, target) in enumerate(mutations):
                if kind == "input":
                    if out[k] is arrays[target]:
                        continue
                    dests.append(inputs[target])
                else:
                    dests.append(self.model.get_buffer(target))
                values.append(_to_torch(out[k]))
            if dests:
                with torch.no_grad():
                    torch._foreach_copy_(dests, values)
        return self.program.restructure(
            [_to_torch(o) for o in out[len(mutations):]])


def compile(model: torch.nn.Module, example_inputs,
            output_type: str = "linalg-on-tensors",
            dynamic_shapes=None, weights: str = "arguments") -> ir.Module:
    """Compiles `model` for `example_inputs` (a tensor or a tuple of
    tensors) and returns the MLIR module at `output_type`: "tt",
    "linalg-on-tensors" or "llvm". `dynamic_shapes` is torch.export's
    argument (e.g. `{"x": {0: torch.export.Dim("batch")}}`): the dimensions
    it makes symbolic are `?` in the module (`tensor<?x784xf32>`).

    `weights="arguments"` (the default) makes the parameters and buffers
    trailing arguments of `@forward`; `weights="inline"` embeds them as
    `dense_resource` constants, a self-contained module for other MLIR
    tools (`tiny-opt --tt-lower-to-llvm`, `mlir-runner`)."""
    if output_type not in OUTPUT_TYPES:
        raise ValueError(f"output_type must be one of {OUTPUT_TYPES}, got "
                         f"{output_type!r}")
    if weights not in ("arguments", "inline"):
        raise ValueError(f"weights must be 'arguments' or 'inline', got "
                         f"{weights!r}")
    compiled = TorchCompiled(model, example_inputs, dynamic_shapes)
    if weights == "inline":
        return compiled.inline_module(output_type)
    return compiled.module(output_type)


def _structure(inputs, modes) -> tuple:
    """Input ranks, dtypes and static values, and the modules' modes."""
    return (tuple((t.dim(), t.dtype) if isinstance(t, torch.Tensor)
                  else (type(t), t) for t in inputs), modes)


def _shapes(inputs) -> tuple:
    return tuple(tuple(t.shape) if isinstance(t, torch.Tensor) else None
                 for t in inputs)


def _changed_dimensions(first, now):
    """torch.export's dynamic_shapes (one entry per input) making the
    dimensions whose sizes differ between `first` and `now` dynamic, one
    Dim for them all; None when nothing changed, a size 1 did, or sizes
    changed by different amounts."""
    from torch.export import Dim
    pairs, spec = set(), []
    for a, b in zip(first, now):
        if a is None:
            spec.append(None)
            continue
        dims = {}
        for d, (x, y) in enumerate(zip(a, b)):
            if x != y:
                if min(x, y) <= 1:
                    return None
                pairs.add((x, y))
                dims[d] = None
        spec.append(dims or None)
    if len(pairs) != 1:
        return None
    size = Dim("size", min=2)
    return tuple(None if dims is None else {d: size for d in dims}
                 for dims in spec)


class jit:
    """A compiled callable for `model`: the first call per input shapes and
    dtypes (and training/eval mode) compiles, later calls reuse it.

    With `dynamic_shapes` (torch.export's argument, e.g. `{"x": {0:
    Dim("batch")}}`), the first call compiles one program whose symbolic
    dimensions take any size, and later calls of any batch size run it
    (inputs outside the ranges torch.export gave the dimensions get a
    program of their own shapes). Without it (`dynamic=None`, automatic),
    the dimensions whose sizes differ from the first call's (none of them
    1, all by the same sizes) become dynamic at the second size, as if
    given in `dynamic_shapes`; a model that cannot take them dynamic is
    compiled per shape, with a RecompilationWarning saying why.
    `dynamic=False` compiles one program per shape. `compilations` counts
    the programs compiled."""

    def __init__(self, model: torch.nn.Module, dynamic_shapes=None,
                 dynamic=None):
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"expected a torch.nn.Module, got "
                            f"{type(model).__name__}")
        if dynamic not in (None, False):
            raise ValueError(f"dynamic must be None (automatic) or False, "
                             f"got {dynamic!r}; dynamic_shapes names "
                             f"dimensions")
        self.model = model
        self._cache = {}
        self._dynamic_shapes = dynamic_shapes
        self._dynamic = {}
        self._auto = dynamic is None and dynamic_shapes is None
        #: Per input ranks, dtypes, static values and modes: the first
        #: shapes compiled, and the program with dynamic dimensions (or
        #: False once refused).
        self._first_shapes = {}
        self._auto_programs = {}
        #: Programs compiled so far (one per specialisation).
        self.compilations = 0
        self._lock = threading.Lock()
        try:
            self._signature = inspect.signature(model.forward)
        except (TypeError, ValueError):  # no signature to check against
            self._signature = None

    def __call__(self, *inputs, **kwargs):
        for i, t in enumerate(inputs):
            if not isinstance(t, (torch.Tensor,) + _STATIC_TYPES):
                raise TypeError(f"input #{i} must be a torch.Tensor or a "
                                f"Python scalar, got {type(t).__name__}")
        # Modes change what a module computes (dropout, batch norm).
        modes = tuple(m.training for m in self.model.modules())
        if self._dynamic_shapes is not None:
            compiled = self._dynamic_program(inputs, kwargs, modes)
            if compiled.accepts(inputs):
                return compiled(*inputs)
        # Python scalars are static: their values specialise.
        key = (tuple((tuple(t.shape), t.dtype) if isinstance(t, torch.Tensor)
                     else (type(t), t) for t in inputs), modes)
        compiled = self._cache.get(key)
        if compiled is None and self._auto:
            automatic = self._automatic_program(inputs, kwargs, modes)
            if automatic is not None:
                return automatic(*inputs)
        if compiled is None or kwargs:
            # A cached key's arguments have passed these checks before.
            self._check_arguments(inputs, kwargs)
        if compiled is None:
            with self._lock:  # one thread compiles, the others wait
                compiled = self._cache.get(key)
                if compiled is None:
                    compiled = TorchCompiled(self.model, inputs)
                    self.compilations += 1
                    self._cache[key] = compiled
                    self._first_shapes.setdefault(
                        _structure(inputs, modes), _shapes(inputs))
        return compiled(*inputs)

    def _automatic_program(self, inputs, kwargs, modes):
        """The program with the dimensions that changed since the first
        call of this structure dynamic (compiled at their second size), or
        None: the first call, a size 1 changed, sizes changed apart, or
        the model refused them (warned once)."""
        structure = _structure(inputs, modes)
        program = self._auto_programs.get(structure)
        if program is not None:
            return program if program and program.accepts(inputs) else None
        first = self._first_shapes.get(structure)
        if first is None:
            return None
        spec = _changed_dimensions(first, _shapes(inputs))
        if spec is None:
            return None
        self._check_arguments(inputs, kwargs)
        with self._lock:
            if structure in self._auto_programs:
                program = self._auto_programs[structure]
                return program if program and program.accepts(inputs) \
                    else None
            try:
                program = TorchCompiled(self.model, inputs, spec)
            except Exception as e:  # the per-shape compile reports errors
                self._auto_programs[structure] = False
                warnings.warn(
                    f"tinytensor.torch.jit({type(self.model).__name__}): "
                    f"the sizes that changed between calls cannot be "
                    f"dynamic ({type(e).__name__}: {e}); each shape "
                    f"compiles a program of its own (dynamic=False asks "
                    f"for that)", RecompilationWarning, stacklevel=3)
                return None
            self.compilations += 1
            self._auto_programs[structure] = program
        return program if program.accepts(inputs) else None

    def _dynamic_program(self, inputs, kwargs, modes) -> TorchCompiled:
        """The program with dynamic dimensions for inputs of these ranks,
        dtypes and static values, compiled on its first use."""
        key = (tuple((t.dim(), t.dtype) if isinstance(t, torch.Tensor)
                     else (type(t), t) for t in inputs), modes)
        compiled = self._dynamic.get(key)
        if compiled is None or kwargs:
            self._check_arguments(inputs, kwargs)
        if compiled is None:
            with self._lock:
                compiled = self._dynamic.get(key)
                if compiled is None:
                    compiled = TorchCompiled(self.model, inputs,
                                             self._dynamic_shapes)
                    self.compilations += 1
                    self._dynamic[key] = compiled
        return compiled

    def _check_arguments(self, inputs, kwargs) -> None:
        name = f"{type(self.model).__name__}.forward()"
        if self._signature is not None:
            try:  # the TypeError eager PyTorch would raise
                self._signature.bind(*inputs, **kwargs)
            except TypeError as e:
                raise TypeError(f"{name}: {e}") from None
        if kwargs:
            raise TypeError(f"{name}: keyword arguments are not supported "
                            f"by tinytensor.torch.jit; pass the tensors "
                            f"positionally")
