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
import time
import types
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from . import compiler
from ._mlir import func, ir, new_context
from .builder import dtype_of, tensor_type, user_location
from .runtime import Executable
from .tracing import Tracer, TraceContext, as_tracer
from .types import TensorType

_ENTRY = "main"


# -- arrays captured from the enclosing scope -----------------------------------

def _collect_arrays(value, out: List[np.ndarray], depth: int = 0) -> None:
    if isinstance(value, np.ndarray):
        if value.dtype in (np.float32, np.float64, np.int32, np.bool_):
            out.append(value)
    elif depth < 8 and isinstance(value, dict):
        for v in value.values():
            _collect_arrays(v, out, depth + 1)
    elif depth < 8 and isinstance(value, (list, tuple)):
        for v in value:
            _collect_arrays(v, out, depth + 1)


def _scope_names(fn) -> List[Tuple[str, Any]]:
    """(name, value) of the closure variables and globals `fn` reads."""
    code = fn.__code__
    names = []
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            names.append((name, cell.cell_contents))
        except ValueError:  # empty cell
            pass
    for name in code.co_names:
        if name in fn.__globals__:
            names.append((name, fn.__globals__[name]))
    return names


def _scope_arrays(fn) -> List[np.ndarray]:
    """The distinct NumPy arrays reachable from `fn`'s scope, in order."""
    arrays: List[np.ndarray] = []
    for _, value in _scope_names(fn):
        _collect_arrays(value, arrays)
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
    """A copy of `fn` whose closure and globals see tracers for arrays."""
    code = fn.__code__
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


# -- compiled functions ----------------------------------------------------------

class Compiled:
    """One specialisation of a jitted function.

    Attributes: `module` (the traced tt module, as text), `optimized` (after
    canonicalisation, CSE, conversion to linalg and fusion), `lowered` (the
    LLVM dialect module that runs), `input_types`, `output_types`.
    """

    def __init__(self, fn, pack, arg_types: Sequence[TensorType],
                 scope: Sequence[np.ndarray], name: str = _ENTRY):
        self._pack = pack
        self.name = name
        self.input_types = list(arg_types)
        context = new_context()
        #: Seconds spent in each stage of the first compilation: tracing,
        #: the tt-optimize and tt-lower-to-llvm pipelines (MLIR), and LLVM's
        #: optimisation and code generation in the JIT.
        self.timings = {}
        clock = time.perf_counter
        with context, ir.Location.unknown():
            module = ir.Module.create()
            start = clock()
            self._trace(fn, module, context, scope)
            self.module = str(module)
            self.timings["trace"] = clock() - start
            start = clock()
            compiler.optimize(module)
            self._unique_results(module)
            self.optimized = str(module)
            self.timings["tt-optimize"] = clock() - start
            start = clock()
            compiler.lower_optimized_to_llvm(module)
            self.lowered = str(module)
            self.timings["tt-lower-to-llvm"] = clock() - start
            start = clock()
            self._executable = Executable(
                module, self.name,
                self.input_types + [TensorType.of(a, "captured array")
                                    if a.dtype != np.bool_ else
                                    TensorType(a.shape, np.int32)
                                    for a in self._captured],
                [self.output_types[self._result_slots.index(i)]
                 for i in range(max(self._result_slots, default=-1) + 1)])
            self.timings["llvm"] = clock() - start
        self._context = context
        # Where each captured array is found in the scope: those are read
        # afresh at each call (the closure or global may be rebound to a new
        # array of the same type); others (arrays made while tracing) stay.
        index = {id(a): i for i, a in enumerate(scope)}
        self._fn = fn
        self._scope_slots = [index.get(id(a)) for a in self._captured]
        self._captured_types = [TensorType(a.shape, a.dtype)
                                for a in self._captured]
        self._captured = [None if i is not None else a
                          for i, a in zip(self._scope_slots, self._captured)]

    def _trace(self, fn, module, context, scope):
        with ir.InsertionPoint(module.body):
            ftype = ir.FunctionType.get(
                [tensor_type(t.shape, t.dtype) for t in self.input_types], [])
            fop = func.FuncOp(self.name, ftype)
            block = fop.add_entry_block()
        trace = TraceContext(context, block)
        previous, TraceContext.current = TraceContext.current, trace
        try:
            with ir.InsertionPoint(block):
                args = [Tracer(a) for a in block.arguments]
                mapping = {id(a): trace.capture(a) for a in scope}
                pargs, pkwargs = self._pack(args)
                out = _with_scope(fn, mapping)(*pargs, **pkwargs)
                results, self._structure = self._flatten(out)
                values, self._bool_results = [], []
                for r in results:
                    t = as_tracer(r)
                    # Booleans leave as int32 (NumPy bool is one byte).
                    values.append(t.astype(np.int32).value
                                  if t.dtype == np.bool_ else t.value)
                    self._bool_results.append(t.dtype == np.bool_)
                func.ReturnOp(values, loc=user_location())
        finally:
            TraceContext.current = previous
            trace.builder.diagnostics.detach()
        self._captured = list(trace.captured)
        fop.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], [v.type for v in values]))
        self.output_types = [
            TensorType(tuple(ir.RankedTensorType(v.type).shape),
                       np.int32 if b else dtype_of(v))
            for v, b in zip(values, self._bool_results)]
        if not module.operation.verify():
            raise compiler.CompilationError("traced module does not verify")

    def _unique_results(self, module):
        """Returns each distinct value once: `return %1, %1` (one value
        returned twice, e.g. after CSE) crashes the out-params lowering, and
        two results must not share one output buffer anyway. The duplicates
        are copies made in `__call__`."""
        self._result_slots = list(range(len(self.output_types)))
        fop = next(op for op in module.body.operations
                   if op.operation.name == "func.func" and
                   ir.StringAttr(op.attributes["sym_name"]).value ==
                   self.name)
        if len(fop.regions[0].blocks) != 1:
            return
        ret = list(fop.regions[0].blocks[0].operations)[-1]
        operands = list(ret.operands)
        unique, slots = [], []
        for v in operands:
            for i, u in enumerate(unique):
                if u == v:
                    slots.append(i)
                    break
            else:
                slots.append(len(unique))
                unique.append(v)
        if len(unique) == len(operands):
            return
        with ir.InsertionPoint(ret), ret.location:
            func.ReturnOp(unique)
        ret.erase()
        ftype = ir.FunctionType(ir.TypeAttr(fop.attributes["function_type"])
                                .value)
        fop.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            ftype.inputs, [v.type for v in unique]))
        self._result_slots = slots

    @staticmethod
    def _flatten(out):
        if isinstance(out, (tuple, list)):
            return list(out), type(out)
        return [out], None

    def __call__(self, *args):
        """Runs this specialisation; the arguments must have its input
        types (anything else would read out of bounds)."""
        if len(args) != len(self.input_types):
            raise TypeError(f"expected {len(self.input_types)} arguments, "
                            f"got {len(args)}")
        for i, (a, t) in enumerate(zip(args, self.input_types)):
            if TensorType.of(a, f"argument {i}") != t:
                raise TypeError(f"argument {i} has type "
                                f"{TensorType.of(a)}, this specialisation "
                                f"takes {t}")
        return self._run(args, _scope_arrays(self._fn))

    def _run(self, args, scope):
        """Runs with the captured arrays as found in `scope` now (of the
        types this specialisation was compiled for)."""
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
            captured.append(a)  # the runtime passes booleans as int32
        unique = self._executable(list(args) + captured)
        results, seen = [], set()
        for slot in self._result_slots:
            results.append(unique[slot].copy() if slot in seen
                           else unique[slot])
            seen.add(slot)
        results = [r.astype(np.bool_) if b else r
                   for r, b in zip(results, self._bool_results)]
        results = [r[()] if r.ndim == 0 else r for r in results]
        if self._structure is None:
            return results[0]
        return self._structure(results)


class jit:
    """Decorator: compile a NumPy function on first call per argument types.

    Calling a jitted function while another one is being traced inlines it.
    """

    def __init__(self, fn, *, name: str = _ENTRY):
        if not callable(fn):
            raise TypeError(f"jit expects a function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.name = name
        self._signature = inspect.signature(fn)
        self._cache: Dict[tuple, Compiled] = {}

    def _arguments(self, args, kwargs) -> Tuple[list, List[TensorType]]:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.fn.__name__}(): {e}") from None
        bound.apply_defaults()
        values, types_ = [], []
        for name, value in bound.arguments.items():
            param = self._signature.parameters[name]
            if param.kind == param.VAR_POSITIONAL:
                items = [(f"{name}[{i}]", v) for i, v in enumerate(value)]
            elif param.kind == param.VAR_KEYWORD:
                items = [(f"{name}[{k!r}]", v) for k, v in value.items()]
            else:
                items = [(name, value)]
            for label, v in items:
                types_.append(TensorType.of(
                    v, f"argument '{label}' of {self.fn.__name__}()"))
                values.append(v)
        return values, types_

    def _key(self, types_, scope):
        return (tuple(types_),
                tuple((a.shape, a.dtype.str) for a in scope))

    def compile(self, *args, **kwargs) -> Compiled:
        """The compiled specialisation for these arguments."""
        _, types_ = self._arguments(args, kwargs)
        return self._lookup(types_, _scope_arrays(self.fn))

    def _lookup(self, types_, scope) -> Compiled:
        key = self._key(types_, scope)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = Compiled(self.fn, self._pack, types_, scope, self.name)
            self._cache[key] = compiled
        return compiled

    def _pack(self, values):
        """Re-packs flat argument values into the user's signature."""
        values = list(values)
        params = list(self._signature.parameters.values())
        args, kwargs = [], {}
        for i, p in enumerate(params):
            if p.kind == p.VAR_KEYWORD:
                raise TypeError(f"{self.fn.__name__}(): jit does not support "
                                f"**kwargs parameters")
            if p.kind == p.VAR_POSITIONAL:
                rest = sum(1 for q in params[i + 1:])
                count = len(values) - rest
                args.extend(values[:count])
                values = values[count:]
            elif p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = values.pop(0)
            else:
                args.append(values.pop(0))
        return args, kwargs

    def __call__(self, *args, **kwargs):
        if TraceContext.current is not None:
            return self.fn(*args, **kwargs)  # inline into the outer trace
        values, types_ = self._arguments(args, kwargs)
        scope = _scope_arrays(self.fn)
        return self._lookup(types_, scope)._run(values, scope)

    def __repr__(self):
        return f"<tinytensor.jit {self.fn.__qualname__}>"
