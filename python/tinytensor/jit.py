"""`tinytensor.jit`: trace a NumPy function to `tt`, compile, run.

    @jit
    def f(x, bias):
        return x * 2.0 + bias

The first call with a given tuple of argument types (shape, dtype) traces
`f` with symbolic values, builds a `tt` module, lowers it with the named
pipelines and creates an executable; later calls with the same types reuse
it. NumPy arrays that `f` reads from its enclosing scope (closure variables
and globals, also inside dicts, lists and tuples) become trailing arguments
of the compiled function, read afresh at every call: their shape and dtype
are part of the specialisation, their values are not compiled in.
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
import types
import warnings
from collections import OrderedDict, namedtuple
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from . import cache, compiler, pytree, runtime
from ._mlir import func, ir, new_context, tt
from .builder import dtype_of, user_location
from .runtime import Executable
from .tracing import (ScopeRecorder, Tracer, TraceContext, as_tracer,
                      current_trace)
from .shapes import DynamicDims
from .types import ARGUMENT_DTYPES, DYNAMIC, SUPPORTED_DTYPES, TensorType

_ENTRY = "main"


# -- arrays captured from the enclosing scope -----------------------------------

def _collect_arrays(value, out: List[np.ndarray], depth: int = 0) -> None:
    if isinstance(value, np.ndarray):
        if value.dtype in SUPPORTED_DTYPES:
            out.append(value)
    elif depth < 8 and isinstance(value, dict):
        for v in value.values():
            _collect_arrays(v, out, depth + 1)
    elif depth < 8 and isinstance(value, (list, tuple)):
        for v in value:
            _collect_arrays(v, out, depth + 1)


_SCOPE_KINDS = (np.ndarray, dict, list, tuple)


def _name(fn) -> str:
    """`fn`'s name for messages: a function's, else its type's (a callable
    object, a functools.partial)."""
    return getattr(fn, "__name__", None) or type(fn).__name__


def _scope_arrays(fn) -> List[np.ndarray]:
    """The distinct NumPy arrays reachable from `fn`'s scope, in order.
    Run at every call (a closure variable or global may be rebound, or a
    captured dict updated): values that are neither arrays nor containers
    (modules, functions, numbers) cost one dictionary lookup each."""
    arrays: List[np.ndarray] = []
    code = getattr(fn, "__code__", None)
    if code is None:
        # Not a Python function (a NumPy ufunc, a builtin): no scope of its
        # own to capture arrays from.
        return arrays
    closure = fn.__closure__
    if closure:
        for cell in closure:
            try:
                value = cell.cell_contents
            except ValueError:  # empty cell
                continue
            if isinstance(value, _SCOPE_KINDS):
                _collect_arrays(value, arrays)
    globals_ = fn.__globals__
    for name in code.co_names:
        value = globals_.get(name)
        if value is not None and isinstance(value, _SCOPE_KINDS):
            _collect_arrays(value, arrays)
    if len(arrays) < 2:
        return arrays
    seen, unique = set(), []
    for a in arrays:
        if id(a) not in seen:
            seen.add(id(a))
            unique.append(a)
    return unique


def _substitute(value, mapping: Dict[int, Tracer], depth: int = 0):
    """`value` with captured arrays replaced by their tracers. Containers
    without captured arrays are returned as they are (not copied), so that
    the traced function's side effects on them (appending to a closure
    list, counting in a global dict) are not lost."""
    if isinstance(value, np.ndarray):
        return mapping.get(id(value), value)
    if depth < 8 and isinstance(value, dict):
        items = [(k, _substitute(v, mapping, depth + 1))
                 for k, v in value.items()]
        if all(new is old for (_, new), old in zip(items, value.values())):
            return value
        return type(value)(items)
    if depth < 8 and isinstance(value, (list, tuple)) and not hasattr(
            value, "_fields"):
        items = [_substitute(v, mapping, depth + 1) for v in value]
        if all(new is old for new, old in zip(items, value)):
            return value
        return type(value)(items)
    return value


def _with_scope(fn, mapping: Dict[int, Tracer]):
    """A copy of `fn` whose closure and globals see tracers for arrays
    (`fn` itself when it is not a Python function, or has nothing to see)."""
    code = getattr(fn, "__code__", None)
    if code is None or not mapping:
        return fn
    closure = None
    if fn.__closure__:
        cells = []
        for cell in fn.__closure__:
            try:
                contents = cell.cell_contents
            except ValueError:  # empty cell
                cells.append(cell)
                continue
            new = _substitute(contents, mapping)
            # Unchanged cells are shared, so `nonlocal` writes still work.
            cells.append(cell if new is contents else types.CellType(new))
        closure = tuple(cells)
    globals_ = fn.__globals__
    changed = {name: _substitute(globals_[name], mapping)
               for name in code.co_names if name in globals_}
    changed = {k: v for k, v in changed.items() if v is not globals_[k]}
    if changed:
        globals_ = dict(globals_)
        globals_.update(changed)
    copy = types.FunctionType(code, globals_, fn.__name__, fn.__defaults__,
                              closure)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


# -- arguments -------------------------------------------------------------------

def _argument_array(value, label):
    """Classifies a pytree leaf of the arguments: an array (checked), or
    None for a static value."""
    if isinstance(value, np.ndarray):
        if value.size == 0 and value.dtype in _ARGUMENT_DTYPES:
            return None  # no elements: static (its shape and dtype)
        TensorType.of(value, label)  # raises for unsupported dtypes
        return value
    if type(value).__name__ == "DeviceArray":
        from .cuda import DeviceArray
        if isinstance(value, DeviceArray):
            return value
    if isinstance(value, Tracer):
        raise TypeError(f"{label} is a traced value outside of a trace")
    return None


class _Arguments:
    """One call's arguments, flattened: the array leaves, the structure and
    static values of each parameter, and the specialisation key."""

    __slots__ = ("labels", "arrays", "defs", "key")

    def __init__(self, labels, arrays, defs, key):
        self.labels = labels
        self.arrays = arrays
        self.defs = defs
        self.key = key


def _array_key(arrays) -> tuple:
    return tuple((a.shape, a.dtype) for a in arrays)


# -- compiled functions ----------------------------------------------------------

class Compiled:
    """One specialisation of a jitted function.

    Attributes: `module` (the traced tt module), `optimized` (after
    canonicalisation, CSE, conversion to linalg and fusion), `lowered` (the
    LLVM dialect module that runs): independent `mlir.ir.Module`s, `str()`
    gives their text (when the code came from the compile cache, the last
    two are computed again when first read). `input_types` and
    `output_types` are the array leaves' types; `timings` the seconds spent
    in each stage; `cached` whether the object code came from the cache.
    """

    def __init__(self, fn, build, arg_types: Sequence[TensorType],
                 scope: Sequence[np.ndarray], name: str = _ENTRY,
                 owner=None, key=None, trace_only=False, dynamic=None,
                 resource_names=None, sharding=None):
        self._build = build
        self._embed_arrays = trace_only
        self._resource_names = resource_names
        self._owner = owner
        self._key = key
        self.name = name
        self.input_types = list(arg_types)
        context = new_context()
        #: Seconds spent in each stage of the first compilation: tracing,
        #: the tt-optimize and tt-lower-to-llvm pipelines (MLIR) and each of
        #: their passes ("pass:<name>"), LLVM's optimisation and code
        #: generation ("llvm"), or reading the compile cache ("cache").
        self.timings = {}
        self._optimized = self._lowered = None
        clock = time.perf_counter
        with context, ir.Location.unknown():
            module = ir.Module.create()
            start = clock()
            #: The dynamic dimensions (shapes.DynamicDims, a copy: its
            #: outputs are filled in here when left out), or None.
            if dynamic is not None:
                import copy
                dynamic = copy.deepcopy(dynamic)
            self.dynamic = dynamic
            self._trace(fn, module, context, scope)
            if dynamic is not None:
                traced_types = list(self.input_types)
                self._generalize(module, dynamic)
                # The generalized trace itself is the reference, unless it
                # holds resource blobs (renamed apart in another trace).
                self._check_polymorphic(
                    fn, context, scope, dynamic, traced_types,
                    None if self._resource_names else str(module))
            #: With `sharding` (tinytensor.distributed): the types this
            #: process passes and receives, its parts of the traced ones.
            self._local_types = None
            if sharding is not None:
                self._local_types = sharding.annotate(module, self)
            self.module = compiler.clone(module)
            self.timings["trace"] = clock() - start
            start = clock()
            if trace_only:
                self.cached = False
                self._executable = None
            elif getattr(owner, "target", "cpu") == "cuda":
                if dynamic is not None:
                    raise ValueError("dynamic dimensions are supported by "
                                     "the CPU target only")
                from .cuda import CudaExecutable
                self.cached = False
                self._executable = CudaExecutable(
                    compiler.clone(module), self.name,
                    self.input_types + [TensorType.of(a, "captured array")
                                        for a in self._captured],
                    self._result_types)
                self.timings["tt-lower-to-nvvm"] = clock() - start
            else:
                entry = None
                if cache.enabled():
                    entry = cache.key("object", self.name, str(module),
                                      compiler.optimize_pipeline(
                                          sharding is not None),
                                      compiler.lowering_pipeline(),
                                      runtime.codegen_key())
                    objects = cache.load(entry)
                else:
                    objects = None
                self.cached = objects is not None
                if self.cached:
                    self.timings["cache"] = clock() - start
                else:
                    compiler.optimize(module, self.timings,
                                      distribute=sharding is not None)
                    self._optimized = compiler.clone(module)
                    self.timings["tt-optimize"] = clock() - start
                    start = clock()
                    compiler.lower_optimized_to_llvm(module, self.timings)
                    self._lowered = module
                    self.timings["tt-lower-to-llvm"] = clock() - start
                    start = clock()
                    objects = runtime.compile_objects(module)
                    if entry is not None:
                        cache.store(entry, objects)
                inputs = self.input_types + [
                    TensorType.of(a, "captured array") for a in self._captured]
                results = self._result_types
                if self._local_types is not None:
                    inputs, results = self._local_types
                self._executable = Executable(
                    objects, self.name, inputs, results, dynamic,
                    self._updates if self._local_types is None else ())
                if not self.cached:
                    self.timings["llvm"] = clock() - start
                if getattr(owner, "freeze", False) and self._captured:
                    # What the code computes from the frozen arrays alone
                    # (their matmul weights packed) is computed now, once.
                    start = clock()
                    if self._executable.prepare(self._captured):
                        self.timings["prepare"] = clock() - start
        self._context = context
        # Where each captured array is found in the scope: those are read
        # afresh at each call (the closure or global may be rebound to a new
        # array of the same type); others (arrays made while tracing) stay.
        index = {id(a): i for i, a in enumerate(scope)}
        #: With freeze=True: the captured arrays this specialisation was
        #: prepared with (kept alive, so their ids are not reused).
        self._frozen = (list(self._captured)
                        if getattr(owner, "freeze", False) else None)
        self._fn = fn
        self._scope_slots = [index.get(id(a)) for a in self._captured]
        self._captured_types = [TensorType(a.shape, a.dtype)
                                for a in self._captured]
        self._captured = [None if i is not None else a
                          for i, a in zip(self._scope_slots, self._captured)]
        # The common case runs without the general result handling: no
        # captured arrays, no 0-d results.
        self._plain = (not self._captured and not self._checks and
                       all(t.shape for t in self.output_types))
        self._out_fast = self._out_def.builder()

    def _check_polymorphic(self, fn, context, scope, dynamic, traced_types,
                           reference=None) -> None:
        """Traces the function again with the dynamic dimensions one larger
        and refuses it (ValueError) unless both traces generalize to the
        same module: a program whose ops depend on those sizes (a slice to
        a fixed bound, a tensor made from `x.shape[0]`, a step the tracer
        leaves out at the traced size) would otherwise compile the traced
        size in. `reference` is the generalized trace's text, if it has
        one without resource blobs (else the size is traced again)."""
        import copy
        saved = dict(self.__dict__)
        self.input_types = list(traced_types)
        first = ir.Module.create()
        other = ir.Module.create()
        try:
            # Embedded arrays as plain constants: resource blobs would be
            # renamed apart in the second trace.
            self._resource_names = None
            if reference is None:
                self._trace(fn, first, context, scope)
                self._generalize(first, copy.deepcopy(dynamic))
                reference = str(first)
                self.__dict__.update(saved)
                self.input_types = list(traced_types)
            self._resource_names = None
            self.input_types = [
                TensorType(tuple(n + 1 if (i, d) in dynamic.inputs else n
                                 for d, n in enumerate(t.shape)), t.dtype)
                for i, t in enumerate(traced_types)]
            try:
                self._trace(fn, other, context, scope)
                self._generalize(other, copy.deepcopy(dynamic))
            except Exception as e:  # noqa: BLE001 - reported as the cause
                raise ValueError(
                    f"cannot compile with dynamic dimensions: the program "
                    f"fails at other sizes of them ({type(e).__name__}: "
                    f"{e})") from None
            if reference != str(other):
                raise ValueError(
                    "cannot compile with dynamic dimensions: the program's "
                    "ops depend on their sizes (traced one larger, it is "
                    "another program: e.g. a slice to a fixed bound, a "
                    "tensor sized by x.shape, or an array made for one "
                    "size); keep those dimensions static")
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)

    def _generalize(self, module, dynamic) -> None:
        """Makes the `dynamic` input dimensions `?` in the traced module
        (--tt-generalize-shapes) and takes the types that follow."""
        compiler.generalize(module, self.name, dynamic.pass_dims())
        fop = next(op for op in module.body.operations
                   if ir.StringAttr(op.attributes["sym_name"]).value ==
                   self.name)
        ftype = ir.FunctionType(ir.TypeAttr(
            fop.attributes["function_type"]).value)

        def types(mlir_types, static):
            return [TensorType.from_mlir(ir.RankedTensorType(t).shape,
                                         s.dtype)
                    for t, s in zip(mlir_types, static)]
        n = len(self.input_types)
        traced_results = self._result_types
        self.input_types = types(ftype.inputs[:n], self.input_types)
        self._result_types = types(ftype.results, self._result_types)
        self.output_types = self._result_types[:len(self.output_types)]
        if dynamic.outputs is None and len(set(dynamic.inputs.values())) == 1:
            # One symbol: every dynamic result dimension.
            symbol = next(iter(dynamic.inputs.values()))
            dynamic.outputs = [[symbol if d == DYNAMIC else None
                                for d in t.shape]
                               for t in self._result_types]
        elif dynamic.outputs is None:
            # Symbols of different traced sizes: each dynamic result
            # dimension is the one of its traced size.
            by_size = {n: s for s, n in dynamic.traced_sizes.items()}
            dynamic.outputs = []
            for i, (t, traced) in enumerate(zip(self._result_types,
                                                traced_results)):
                dims = []
                for d, (size, n) in enumerate(zip(t.shape, traced.shape)):
                    if size != DYNAMIC:
                        dims.append(None)
                    elif n in by_size:
                        dims.append(by_size[n])
                    else:
                        raise ValueError(
                            f"with dynamic dimensions, result #{i} "
                            f"dimension {d} has a size ({n} when traced) "
                            f"that is no input dimension's")
                dynamic.outputs.append(dims)
        # Where the results are dynamic must be where the front end said.
        # Results past the front end's (run-time checks: index bounds) are
        # static.
        outputs = list(dynamic.outputs)
        outputs += [[None] * len(t.shape)
                    for t in self._result_types[len(outputs):]]
        dynamic.outputs = outputs
        for i, (t, dims) in enumerate(zip(self._result_types, outputs)):
            expected = [s is not None for s in dims]
            found = [d == DYNAMIC for d in t.shape]
            if expected != found:
                raise ValueError(
                    f"with dynamic dimensions, result #{i} has type "
                    f"{t.mlir()} where dimensions {expected} were expected "
                    f"to be dynamic: an op computed a size the front end "
                    f"does not know")

    @property
    def optimized(self) -> ir.Module:
        if self._optimized is None:
            with self._context:
                self._optimized = compiler.clone(self.module)
                compiler.optimize(self._optimized,
                                  distribute=self._local_types is not None)
        return self._optimized

    @property
    def lowered(self) -> ir.Module:
        if self._lowered is None:
            with self._context:
                self._lowered = compiler.clone(self.optimized)
                compiler.lower_optimized_to_llvm(self._lowered)
        return self._lowered

    def _trace(self, fn, module, context, scope):
        from .builder import tensor_type
        with ir.InsertionPoint(module.body):
            ftype = ir.FunctionType.get(
                [tensor_type(t.shape, t.dtype) for t in self.input_types], [])
            fop = func.FuncOp(self.name, ftype)
            block = fop.add_entry_block()
        trace = TraceContext(context, block)
        trace.check_indices = getattr(self._owner, "check_indices", True)
        trace.embed_arrays = self._embed_arrays
        trace.resource_names = self._resource_names
        try:
            with trace, ir.InsertionPoint(block):
                args = [Tracer(a) for a in block.arguments]
                if self.dynamic is not None:
                    for (i, d) in self.dynamic.inputs:
                        trace.dynamic_sizes.setdefault(
                            self.input_types[i].shape[d], (args[i], d))
                mapping = {id(a): trace.capture(a) for a in scope}
                pargs, pkwargs = self._build(args)
                traced = _with_scope(fn, mapping)
                with ScopeRecorder(trace.builder, trace) as scopes:
                    out = traced(*pargs, **pkwargs)
                leaves, self._out_def = pytree.flatten(
                    out, "the result", _result_leaf, number_lists=False)
                values = [t.value for _, t in leaves]
                # Run-time checks (index bounds, integer exponents): their
                # values are extra results, checked after each call.
                self._checks = [(len(tracers), check)
                                for tracers, check in trace.checks]
                for tracers, _ in trace.checks:
                    values += [t.value for t in tracers]
                func.ReturnOp(values, loc=user_location())
        finally:
            trace.builder.diagnostics.detach()
        self._captured = list(trace.captured)
        attrs = [{} for _ in block.arguments]
        if getattr(self._owner, "freeze", False) and self._captured:
            # The captured arrays' arguments are constant across calls.
            first = len(block.arguments) - len(self._captured)
            for i in range(first, len(attrs)):
                attrs[i]["tt.constant"] = ir.UnitAttr.get()
        #: (result, argument) pairs whose result is computed into the
        #: argument's array (tt.updated_by): see JitFunction.updates.
        self._updates = []
        if self.dynamic is None and not self._embed_arrays and \
                getattr(self._owner, "target", "cpu") == "cpu":
            i64 = ir.IntegerType.get_signless(64)
            for j, i in sorted(getattr(self._owner, "updates", {}).items()):
                if j < len(values) and i < len(self.input_types) and \
                        values[j].type == block.arguments[i].type and \
                        "tt.updated_by" not in attrs[i]:
                    attrs[i]["tt.updated_by"] = ir.IntegerAttr.get(i64, j)
                    self._updates.append((j, i))
        if any(attrs):
            fop.attributes["arg_attrs"] = ir.ArrayAttr.get(
                [ir.DictAttr.get(a) for a in attrs])
        names = scopes.names_attribute()
        if names is not None:
            fop.attributes["tt.scope_names"] = names
        fop.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], [v.type for v in values]))
        types_ = [TensorType(tuple(ir.RankedTensorType(v.type).shape),
                             dtype_of(v)) for v in values]
        #: The results' types (without the index checks' extra results).
        self._check_results = sum(n for n, _ in self._checks)
        self.output_types = types_[:len(types_) - self._check_results]
        self._result_types = types_
        if not module.operation.verify():
            raise compiler.CompilationError("traced module does not verify")

    def __call__(self, *args, **kwargs):
        """Runs this specialisation; the arguments must have the structure,
        static values and array types it was compiled for."""
        call = self._owner._arguments(args, kwargs)
        scope = _scope_arrays(self._fn)
        if call.key != self._key[:len(call.key)]:
            for label, a, t in zip(call.labels, call.arrays,
                                   self.input_types):
                if (a.shape, a.dtype) != (t.shape, t.dtype):
                    raise TypeError(f"{label} has type {TensorType.of(a)}, "
                                    f"this specialisation takes {t}")
            raise TypeError("the arguments' structure or static values "
                            "differ from this specialisation's; call the "
                            "jit function to get a new specialisation")
        return self._run(call.arrays, scope)

    def run(self, *args):
        """Runs this specialisation with positional arguments of its
        structure and static values; with dynamic dimensions, arrays of
        any size there (the other dimensions and dtypes as compiled)."""
        call = self._owner._arguments(args, {})
        if call.key[0] != self._key[0]:
            raise TypeError("the arguments' structure or static values "
                            "differ from this specialisation's")
        for label, a, t in zip(call.labels or self._owner._labels_simple(),
                               call.arrays, self.input_types):
            if not t.accepts(a.shape) or a.dtype != t.dtype:
                raise TypeError(f"{label} has type {TensorType.of(a)}, "
                                f"this specialisation takes {t}")
        return self._run(call.arrays, _scope_arrays(self._fn))

    def _run_checks(self, values) -> None:
        """Raises the error a run-time check found (IndexError for a traced
        index out of bounds, which the compiled gather clamped; ValueError
        for a negative integer exponent)."""
        it = iter(values)
        for count, check in self._checks:
            check(*[next(it)[()] for _ in range(count)])

    def _run(self, args, scope):
        """Runs with the captured arrays as found in `scope` now (of the
        types this specialisation was compiled for)."""
        if self._plain:
            return self._out_fast(self._executable(args))
        captured = []
        for slot, fixed, t in zip(self._scope_slots, self._captured,
                                  self._captured_types):
            a = fixed if slot is None else (
                scope[slot] if slot < len(scope) else None)
            if a is None or a.shape != t.shape or a.dtype != t.dtype:
                raise TypeError(
                    "an array captured from the function's scope changed "
                    "shape or dtype; call the jit function (not the "
                    "Compiled object) to get a new specialisation")
            captured.append(a)
        if self._frozen is not None and any(
                a is not f for a, f in zip(captured, self._frozen)):
            raise TypeError(
                "a captured array of a jit(freeze=True) function was "
                "replaced by another array; call the jit function (not the "
                "Compiled object) to get a specialisation for it")
        results = self._executable(list(args) + captured)
        if self._checks:
            count = self._check_results
            self._run_checks(results[-count:])
            results = results[:-count]
        # 0-d results are NumPy scalars, except those computed into an
        # argument's array (JitFunction.updates): that array is the result.
        updated = {j for j, _ in self._updates}
        results = [r[()] if r.ndim == 0 and j not in updated else r
                   for j, r in enumerate(results)]
        return self._out_def.build(results)


def _result_leaf(value, label):
    """Classifies a pytree leaf of the results: traced values, arrays and
    NumPy scalars are results of the compiled function; anything else
    (None, a string, a Python number) is returned as it is."""
    if isinstance(value, np.ndarray) and value.size == 0:
        return None  # no elements: returned as it is
    if isinstance(value, (Tracer, np.ndarray, np.generic)):
        return as_tracer(value)
    return None


CacheInfo = namedtuple("CacheInfo", "hits misses maxsize currsize")


class RecompilationWarning(UserWarning):
    """A jitted function keeps being specialised for new arguments."""


#: Specialisations after which `jit` warns that an argument keeps changing
#: (as torch.compile's recompile limit does).
RECOMPILE_WARNING_LIMIT = 8

#: Default number of specialisations a jitted function keeps (least recently
#: used ones beyond it are dropped, with their compiled code).
DEFAULT_CACHE_SIZE = 64


class JitFunction:
    """A NumPy function compiled on its first call per argument types.

    Arrays (and lists of numbers) anywhere in the arguments, also inside
    dicts, lists, tuples, NamedTuples and dataclasses, are arguments of the
    compiled code; every other value is static: part of the specialisation
    and substituted as it is while tracing. Calling a jitted function while
    another one is being traced inlines it.
    """

    def __init__(self, fn, *, static_argnums=(), static_argnames=(),
                 name: str = _ENTRY, cache_size: int = DEFAULT_CACHE_SIZE,
                 check_indices: bool = True, target: str = "cpu",
                 freeze: bool = False, dynamic=None):
        if not callable(fn):
            raise TypeError(f"jit expects a function, got {type(fn).__name__}")
        if not isinstance(cache_size, int) or cache_size < 1:
            raise ValueError(f"cache_size must be a positive integer, got "
                             f"{cache_size!r}")
        functools.update_wrapper(self, fn)
        if target not in ("cpu", "cuda"):
            raise ValueError(f"target must be 'cpu' or 'cuda', got {target!r}")
        if freeze and target != "cpu":
            raise ValueError("freeze=True is supported by the CPU target only")
        if dynamic not in (None, False, True):
            raise ValueError(f"dynamic must be None (automatic), False (one "
                             f"specialisation per shape) or True (every "
                             f"dimension dynamic from the first call), got "
                             f"{dynamic!r}; compile_dynamic takes chosen "
                             f"dimensions")
        if dynamic is True and target != "cpu":
            raise ValueError("dynamic=True is supported by the CPU target "
                             "only")
        #: None: a dimension whose size changes between calls becomes
        #: dynamic at the second size; False: one specialisation per
        #: shape; True: every dimension larger than 1 is dynamic from the
        #: first call.
        self.dynamic = dynamic if target == "cpu" else False
        #: Per argument structure (static values, array dtypes and ranks,
        #: captured arrays): the shapes first seen, the dimensions found to
        #: change, and the dynamic specialisation that serves them.
        self._families: Dict[tuple, "_ShapeFamily"] = {}
        #: Captured arrays are constants: read at the first call of each
        #: specialisation (see jit).
        self.freeze = bool(freeze)
        self.fn = fn
        self.name = name
        #: "cpu" (tt-lower-to-llvm, run in this process) or "cuda"
        #: (tt-lower-to-nvvm, see tinytensor.cuda).
        self.target = target
        self.cache_size = cache_size
        #: Traced gather indices are bounds-checked at every call.
        self.check_indices = bool(check_indices)
        #: {result leaf: argument leaf}: results that update an argument,
        #: computed into its array where that is safe and returned as it
        #: (an optimizer step's parameters; tinytensor.torch sets it).
        #: The CPU target, static shapes; others return new arrays.
        self.updates: Dict[int, int] = {}
        self._signature = inspect.signature(fn)
        params = list(self._signature.parameters.values())
        if isinstance(static_argnums, int):
            static_argnums = (static_argnums,)
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        self._static_names = set(static_argnames)
        for n in self._static_names:
            if n not in self._signature.parameters:
                raise ValueError(f"static_argnames: {_name(fn)}() has no "
                                 f"parameter {n!r}")
        self._static_positions = set()
        positional = [p for p in params if p.kind in (
            p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
        for i in static_argnums:
            i = int(i)
            if i < 0:
                i += len(positional)
            if i < 0 or (i >= len(positional) and not varargs):
                raise ValueError(f"static_argnums: {_name(fn)}() has no "
                                 f"positional parameter {i}")
            if i < len(positional):
                self._static_names.add(positional[i].name)
            else:
                self._static_positions.add(i - len(positional))
        # The fast path: positional array arguments, one per parameter.
        self._simple = (not self._static_names and not self._static_positions
                        and all(p.kind == p.POSITIONAL_OR_KEYWORD and
                                p.default is p.empty for p in params))
        self._nparams = len(params)
        self._cache: "OrderedDict[tuple, Compiled]" = OrderedDict()
        #: The cached calls of plain specialisations, served in C++ (see
        #: _offer); None where calls cannot be plain.
        self._dispatch = (tt.Dispatcher(fn, self._nparams, np.empty,
                                        np.ndarray)
                          if self._simple and target == "cpu" else None)
        self._lock = threading.Lock()
        self._history: List[tuple] = []
        self._warned = False
        self._hits = self._misses = 0

    # -- arguments -----------------------------------------------------------
    def _arguments(self, args, kwargs) -> _Arguments:
        fname = _name(self.fn)
        if self._simple and not kwargs and len(args) == self._nparams and \
                all(type(a) is np.ndarray for a in args):
            labels = None
            defs = ()
            arrays = list(args)
            simple = True
            for a in arrays:
                if a.dtype not in _ARGUMENT_DTYPES:
                    labels = self._labels_simple()
                    for label, x in zip(labels, arrays):
                        _argument_array(x, label)
                if 0 in a.shape:  # static: the general path below
                    simple = False
            if simple:
                return _Arguments(labels, arrays, defs,
                                  (defs, _array_key(arrays)))
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{fname}(): {e}") from None
        given = set(bound.arguments)
        bound.apply_defaults()
        labels, arrays, defs = [], [], []
        for name, value in bound.arguments.items():
            param = self._signature.parameters[name]
            # Keyword-only defaults the caller left out stay left out (a
            # NumPy ufunc refuses some combinations of them spelled out,
            # such as dtype=None with signature=None).
            if (name not in given and param.kind == param.KEYWORD_ONLY
                    and not isinstance(param.default, np.ndarray)):
                continue
            if param.kind == param.VAR_POSITIONAL:
                items = [(f"{name}[{i}]", v, i in self._static_positions, i)
                         for i, v in enumerate(value)]
            elif param.kind == param.VAR_KEYWORD:
                items = [(f"{name}[{k!r}]", v, False, k)
                         for k, v in value.items()]
            else:
                items = [(name, value, name in self._static_names, None)]
            for label, v, static, where in items:
                what = f"argument '{label}' of {fname}()"
                if static:
                    try:
                        hash(v)
                    except TypeError:
                        raise TypeError(
                            f"{what} is static (static_argnums/"
                            f"static_argnames) but its "
                            f"{type(v).__name__} value is not hashable"
                        ) from None
                    defs.append((name, where, pytree.TreeDef(
                        ("static", (type(v), v), v))))
                    continue
                leaves, tree = pytree.flatten(v, what, _argument_array)
                for l, a in leaves:
                    labels.append(l)
                    arrays.append(a)
                defs.append((name, where, tree))
        if self._simple and all(t.node is pytree.ARRAY for _, _, t in defs):
            defs = []  # the fast path's key for the same call
        defs = tuple(defs)
        return _Arguments(labels, arrays, defs, (defs, _array_key(arrays)))

    def _labels_simple(self):
        return [f"argument '{p}' of {_name(self.fn)}()"
                for p in self._signature.parameters]

    def _builder(self, call: _Arguments):
        """Rebuilds the user's arguments from traced array leaves."""
        if not call.defs:
            return lambda leaves: (list(leaves), {})
        defs = call.defs
        params = self._signature.parameters

        def build(leaves):
            it = iter(leaves)
            args, kwargs = [], {}
            for name, where, tree in defs:
                value = tree.build([next(it) for _ in
                                    range(_count_arrays(tree.node))])
                kind = params[name].kind
                if kind == inspect.Parameter.VAR_KEYWORD:
                    kwargs[where] = value
                elif kind == inspect.Parameter.KEYWORD_ONLY:
                    kwargs[name] = value
                else:  # positional, or an item of *args
                    args.append(value)
            return args, kwargs
        return build

    def trace(self, *args, **kwargs) -> Compiled:
        """The specialisation for these arguments traced but not compiled:
        its `module` is the tt module (for tinytensor.aot.export)."""
        call = self._arguments(args, kwargs)
        scope = _scope_arrays(self.fn)
        if call.labels is None:
            call.labels = self._labels_simple()
        types_ = [TensorType(a.shape, a.dtype) for a in call.arrays]
        return Compiled(self.fn, self._builder(call), types_, scope,
                        self.name, owner=self, trace_only=True)

    def trace_embedded(self, args, resource_names, dynamic=None) -> Compiled:
        """Positional `args` traced, not compiled, with the arrays the
        function reads embedded as `dense_resource` constants named by
        `resource_names` (id(array) -> name): a self-contained tt module
        (`.module`); `dynamic` as in compile_dynamic."""
        call = self._arguments(tuple(args), {})
        if call.labels is None:
            call.labels = self._labels_simple()
        types_ = [TensorType(a.shape, a.dtype) for a in call.arrays]
        return Compiled(self.fn, self._builder(call), types_,
                        _scope_arrays(self.fn), self.name, owner=self,
                        trace_only=True, dynamic=dynamic,
                        resource_names=dict(resource_names))

    def compile_dynamic(self, args, dynamic) -> Compiled:
        """A specialisation for positional `args` in which the input
        dimensions of `dynamic` (a shapes.DynamicDims over the array
        leaves) take any size: one compiled function for every batch size.
        It is not kept in this function's cache; call it with `.run`."""
        call = self._arguments(tuple(args), {})
        scope = _scope_arrays(self.fn)
        if call.labels is None:
            call.labels = self._labels_simple()
        types_ = [TensorType(a.shape, a.dtype) for a in call.arrays]
        return Compiled(self.fn, self._builder(call), types_, scope,
                        self.name, owner=self, key=call.key, dynamic=dynamic)

    # -- the cache -------------------------------------------------------------
    def compile(self, *args, **kwargs) -> Compiled:
        """The compiled specialisation for these arguments."""
        call = self._arguments(args, kwargs)
        return self._lookup(call, _scope_arrays(self.fn))

    def _scope_key(self, scope) -> tuple:
        """The captured arrays' part of a specialisation's key: their
        types, and with freeze=True which arrays they are."""
        if self.freeze:
            return tuple([(id(a), a.shape, a.dtype) for a in scope])
        return tuple([(a.shape, a.dtype) for a in scope])

    def _lookup(self, call: _Arguments, scope) -> Compiled:
        key = call.key + (self._scope_key(scope),)
        compiled = self._cache.get(key)
        if compiled is not None:
            return compiled
        with self._lock:  # one thread compiles; the others wait for it
            compiled = self._cache.get(key)
            if compiled is not None:
                return compiled
            if call.labels is None:
                call.labels = self._labels_simple()
            compiled = self._dynamic_lookup(call, scope, key)
            if compiled is None:
                types_ = [TensorType(a.shape, a.dtype) for a in call.arrays]
                compiled = Compiled(self.fn, self._builder(call), types_,
                                    scope, self.name, owner=self, key=key)
                self._misses += 1
                self._note_specialisation(call, scope)
                self._remember_shapes(call, scope)
            self._cache[key] = compiled
            if len(self._cache) > self.cache_size:
                if self._dispatch is not None:
                    for used in self._dispatch.recent():
                        self._touch(used)
                while len(self._cache) > self.cache_size:
                    evicted, _ = self._cache.popitem(last=False)
                    if self._dispatch is not None:
                        self._dispatch.remove(evicted)
            self._offer(key, compiled)
        return compiled

    def _offer(self, key, compiled: "Compiled") -> None:
        """Lets the C++ dispatcher serve this specialisation's calls when
        they are plain: positional arrays only, nothing captured, no
        run-time checks, static shapes, no updated arguments, no dtype that
        travels as another, results an array or a flat tuple or list of
        arrays. Its calls are then the same as Compiled._run's."""
        if self._dispatch is None or key[0] != () or key[-1] != ():
            return
        executable = compiled._executable
        if (not compiled._plain or type(executable) is not Executable
                or executable.dynamic is not None or executable.updates
                or executable._storage):
            return
        node = compiled._out_def.node
        if node is pytree.ARRAY:
            result = "array"
        elif (node[0] == "seq" and node[1] in (tuple, list)
              and all(c is pytree.ARRAY for c in node[3])):
            result = node[1].__name__
        else:
            return
        self._dispatch.add(key, executable, executable._runner,
                           [(tuple(shape), np.dtype(dtype)) for shape, dtype
                            in executable._output_types], result)

    def _family_key(self, call: _Arguments, scope) -> tuple:
        """The argument structure: static values, array dtypes and ranks,
        captured arrays."""
        return (call.key[0], tuple((a.dtype, a.ndim) for a in call.arrays),
                self._scope_key(scope))

    def _remember_shapes(self, call: _Arguments, scope) -> None:
        """Records the shapes of the first specialisation of a structure
        that compiled (automatic dynamic shapes compare later calls with
        them)."""
        if self.dynamic is None and call.arrays:
            self._families.setdefault(
                self._family_key(call, scope),
                _ShapeFamily(tuple(tuple(a.shape) for a in call.arrays)))

    def _dynamic_lookup(self, call: _Arguments, scope, key):
        """The dynamic specialisation that serves this call (compiled now
        if its arrays differ from the first call of their structure in the
        sizes of some dimensions), or None for a static one."""
        if self.dynamic is False or not call.arrays:
            return None
        shapes = tuple(tuple(a.shape) for a in call.arrays)
        if self.dynamic is True:
            return self._all_dynamic_lookup(call, scope, key, shapes)
        family = self._families.get(self._family_key(call, scope))
        if family is None:
            # The first shape compiles static (and is remembered once it
            # compiled: see _remember_shapes).
            return None
        compiled = family.compiled
        if compiled is not None and _serves(compiled, shapes):
            self._hits += 1
            return compiled
        changed = family.changed(shapes)
        if changed is None or family.refused:
            return None
        symbols = family.symbols(changed, shapes)
        if len(set(symbols.values())) != 1:
            family.refused = True
            warnings.warn(
                f"jit({_name(self.fn)}): sizes changed by different amounts "
                f"between calls ({_describe_changes(family.shapes, shapes)}); "
                f"each shape compiles a specialisation of its own "
                f"(compile_dynamic with the outputs' dimensions spelled out "
                f"takes them)", RecompilationWarning, stacklevel=4)
            return None
        compiled = self._compile_dynamic_or_refuse(
            call, scope, key, DynamicDims(symbols), family,
            f"jit({_name(self.fn)}): the sizes that changed between calls "
            f"cannot be dynamic ({{}}); each shape compiles a specialisation "
            f"of its own (jit(..., dynamic=False) asks for that)",
            stacklevel=5)
        if compiled is None:
            return None
        family.compiled = compiled
        family.dims = set(changed)
        return compiled

    def _compile_dynamic_or_refuse(self, call: _Arguments, scope, key,
                                   dims: DynamicDims, family, refusal: str,
                                   stacklevel: int):
        """The specialisation with the dimensions of `dims` dynamic, or None
        when the program cannot take them: the family is then refused and a
        RecompilationWarning says `refusal` with the reason in its {}."""
        types_ = [TensorType(a.shape, a.dtype) for a in call.arrays]
        try:
            compiled = Compiled(self.fn, self._builder(call), types_, scope,
                                self.name, owner=self, key=key,
                                dynamic=dims)
        except Exception as e:  # a static compile reports a real error
            family.refused = True
            warnings.warn(refusal.format(e), RecompilationWarning,
                          stacklevel=stacklevel)
            return None
        self._misses += 1
        return compiled

    def _all_dynamic_lookup(self, call: _Arguments, scope, key, shapes):
        """dynamic=True: the specialisation with every dimension larger
        than 1 dynamic that serves these shapes, compiled now if none
        does. Dimensions of equal size share a symbol (as torch.compile's
        dynamic shapes do: a program that adds two arrays of the same
        shape compiles for any shape they share); sizes 0 and 1 stay static
        (broadcasting depends on them). None (the caller compiles a static
        specialisation) when the program cannot be dynamic, with a
        warning."""
        family = self._families.setdefault(self._family_key(call, scope),
                                           _ShapeFamily(shapes))
        for compiled in family.all_dynamic:
            if _serves(compiled, shapes):
                self._hits += 1
                return compiled
        if family.refused:
            return None
        symbols, sizes = {}, {}
        for i, shape in enumerate(shapes):
            for d, n in enumerate(shape):
                if n > 1:
                    symbols[(i, d)] = sizes.setdefault(n, f"s{len(sizes)}")
        if not symbols:
            return None
        dims = DynamicDims(symbols,
                           ranges={s: (2, None) for s in sizes.values()},
                           traced_sizes={s: n for n, s in sizes.items()})
        compiled = self._compile_dynamic_or_refuse(
            call, scope, key, dims, family,
            f"jit({_name(self.fn)}, dynamic=True): the dimensions cannot all "
            f"be dynamic ({{}}); each shape compiles a specialisation of its "
            f"own", stacklevel=6)
        if compiled is None:
            return None
        family.all_dynamic.append(compiled)
        return compiled

    def _note_specialisation(self, call: _Arguments, scope) -> None:
        """Warns once when the function has been specialised more than
        RECOMPILE_WARNING_LIMIT times, naming what keeps changing."""
        entry = {}
        for name, where, tree in call.defs:
            label = name if where is None else f"{name}[{where!r}]"
            entry[f"argument '{label}'"] = tree.key
        for label, a in zip(call.labels, call.arrays):
            entry[label] = (a.shape, a.dtype)
        entry["captured arrays"] = tuple((a.shape, a.dtype) for a in scope)
        self._history.append(entry)
        if self._warned or len(self._history) <= RECOMPILE_WARNING_LIMIT:
            return
        self._warned = True
        names = sorted({k for e in self._history for k in e})
        changing = [n for n in names
                    if len({repr(e.get(n)) for e in self._history}) > 1]
        warnings.warn(
            f"jit({_name(self.fn)}) has been specialised "
            f"{len(self._history)} times; what keeps changing: "
            f"{', '.join(changing) or 'unknown'}. Each new shape, dtype or "
            f"static value (non-array argument) compiles again: pass "
            f"changing numbers as arrays.", RecompilationWarning,
            stacklevel=4)

    def __call__(self, *args, **kwargs):
        if not kwargs and self._dispatch is not None:
            results = self._dispatch(args)  # a cached plain call, in C++
            if results is not None:
                return results
        if current_trace() is not None:
            return self.fn(*args, **kwargs)  # inline into the outer trace
        if self._simple and not kwargs:
            # The fast path: a cache hit is the proof that these array
            # types were checked when the specialisation was compiled.
            try:
                arrays = tuple([(a.shape, a.dtype) for a in args])
            except AttributeError:  # not all arrays: the general path
                arrays = None
            if arrays is not None:
                scope = _scope_arrays(self.fn)
                key = ((), arrays, self._scope_key(scope) if scope else ())
                compiled = self._cache.get(key)
                if compiled is not None:
                    self._hits += 1
                    self._touch(key)
                    return compiled._run(args, scope)
        call = self._arguments(args, kwargs)
        scope = _scope_arrays(self.fn)
        key = call.key + (self._scope_key(scope),)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = self._lookup(call, scope)
        else:
            self._hits += 1
            self._touch(key)
        return compiled._run(call.arrays, scope)

    def cache_info(self) -> "CacheInfo":
        """Calls that found their specialisation (hits), specialisations
        compiled (misses, including ones read from the disk cache), the
        bound (maxsize) and how many are kept (currsize), as
        functools.lru_cache reports."""
        hits = self._hits + (self._dispatch.hits
                             if self._dispatch is not None else 0)
        return CacheInfo(hits, self._misses, self.cache_size,
                         len(self._cache))

    def _touch(self, key) -> None:
        """Marks a specialisation as recently used (for the LRU bound)."""
        try:
            self._cache.move_to_end(key)
        except KeyError:  # evicted by another thread meanwhile
            pass

    def __repr__(self):
        return f"<tinytensor.jit {getattr(self.fn, '__qualname__', _name(self.fn))}>"


class _ShapeFamily:
    """The calls of one argument structure: the shapes first seen, the
    dimensions made dynamic and the specialisation compiled for them."""

    def __init__(self, shapes):
        self.shapes = shapes
        self.dims = set()
        self.compiled = None
        self.refused = False
        #: dynamic=True: the specialisations compiled so far (a call whose
        #: equal sizes differ, or a size that became 1, needs another).
        self.all_dynamic = []

    def changed(self, shapes):
        """The (array, dimension) pairs to make dynamic for `shapes` (those
        made dynamic before, and those whose size differs from the first
        call's), or None when none can: a size 1 changed (broadcasting
        would change) or nothing new changed."""
        dims = set(self.dims)
        for i, (first, now) in enumerate(zip(self.shapes, shapes)):
            for d, (a, b) in enumerate(zip(first, now)):
                if a != b:
                    if min(a, b) <= 1:
                        return None
                    dims.add((i, d))
        if not dims or dims == self.dims and self.compiled is not None:
            return None
        return dims

    def symbols(self, dims, shapes):
        """One symbol per pair of sizes (first call, this call): dimensions
        that had equal sizes both times share it."""
        names = {}
        inputs = {}
        for i, d in sorted(dims):
            pair = (self.shapes[i][d], shapes[i][d])
            inputs[(i, d)] = names.setdefault(pair, f"s{len(names)}")
        return inputs


def _describe_changes(first, now) -> str:
    return ", ".join(f"argument array #{i} dimension {d}: {a} -> {b}"
                     for i, (f, n) in enumerate(zip(first, now))
                     for d, (a, b) in enumerate(zip(f, n)) if a != b)


def _serves(compiled: "Compiled", shapes) -> bool:
    """Whether a dynamic specialisation takes arrays of these shapes."""
    if not all(t.accepts(s) for t, s in zip(compiled.input_types, shapes)):
        return False
    try:
        compiled.dynamic.sizes(list(shapes))
    except ValueError:
        return False
    return True


def _count_arrays(node) -> int:
    if node is pytree.ARRAY:
        return 1
    if node[0] == "static":
        return 0
    return sum(_count_arrays(c) for c in node[3])


_ARGUMENT_DTYPES = frozenset(np.dtype(d) for d in ARGUMENT_DTYPES)


def jit(fn=None, *, static_argnums=(), static_argnames=(), name=_ENTRY,
        cache_size=DEFAULT_CACHE_SIZE, check_indices=True, target="cpu",
        freeze=False, dynamic=None):
    """Compiles a NumPy function on first call per argument types:
    `jit(f)`, `@jit`, or `@jit(static_argnames=("n_head",))`.

    Non-array hashable values (ints, floats, strings, None, tuples of them)
    are static wherever they appear; `static_argnums` / `static_argnames`
    make whole arguments static (as in JAX). `cache_size` bounds the
    specialisations kept (least recently used ones are dropped).
    `check_indices=False` drops the run-time bounds check of traced
    integer-array indices (two reductions over the indices per gather);
    out-of-range indices are then clamped instead of raising IndexError.
    `target="cuda"` compiles for an NVIDIA GPU (tt-lower-to-nvvm): NumPy
    inputs are copied to the device for each call, `tinytensor.DeviceArray`
    inputs (from `tinytensor.device_put`) are read where they are, results
    come back as NumPy arrays; see tinytensor.cuda.

    `freeze=True` treats the arrays `f` captures from its scope (weights
    in a closure or a global) as constants, as `jax.jit` does: each
    specialisation reads them at its first call, and computes once what
    depends on them alone (a matmul's weights packed into the layout its
    kernel reads; float32 weights of a float64 computation are kept packed
    as float64, twice their bytes), so later calls skip that work.
    Rebinding a captured name to another array compiles a new
    specialisation; changing a captured array in place afterwards is not
    supported (the prepared copies would not see it). CPU target only.

    Automatic dynamic shapes (`dynamic=None`, the default): when a call's
    arrays differ from an earlier call's with the same structure only in
    some dimensions' sizes (none of them 1), those dimensions become
    dynamic: one specialisation compiled for every size of them (see
    `compile_dynamic`), which every later size reuses. A function that
    cannot take them dynamic (an op whose result depends on a size as a
    number), or whose changed dimensions changed by different sizes
    (which output dimension is which would be a guess: `compile_dynamic`
    with its outputs spelled out takes them), is compiled per shape
    instead, with a RecompilationWarning saying why. `dynamic=False`
    compiles one specialisation per shape. `dynamic=True` makes every
    dimension larger than 1 dynamic from the first call, dimensions of
    equal size sharing one size (a later call whose equal sizes differ,
    or with a size of 1, compiles another specialisation); a dynamic
    result dimension is the input dimension of its traced size, and a
    function whose ops depend on the sizes, or whose results have sizes
    no input dimension had, is compiled per shape with a
    RecompilationWarning. CPU target only (cuda: per shape).
    """
    def wrap(f):
        return JitFunction(f, static_argnums=static_argnums,
                           static_argnames=static_argnames, name=name,
                           cache_size=cache_size,
                           check_indices=check_indices, target=target,
                           freeze=freeze, dynamic=dynamic)
    if fn is None:
        return wrap
    return wrap(fn)
