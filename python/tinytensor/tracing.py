"""Tracing: symbolic values that record NumPy operations as `tt` IR.

A `Tracer` stands for one tensor value while a function is being traced. Its
operators, its NumPy protocols (`__array_ufunc__`, `__array_function__`) and
its array-like methods each append one or a few tt ops at the current
insertion point. Shapes come from the tt dialect's type inference; result
dtypes come from the installed NumPy (see `types.result_dtype`).
"""

from __future__ import annotations

import builtins
import numbers
import os
import sys
import threading
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .builder import IRBuilder, dtype_of, shape_of, user_location
from .types import (SUPPORTED_DTYPES, check_dtype, common_dtype, is_float,
                    result_dtype)
from ._mlir import ir, tt


class TracingError(TypeError):
    """A Python construct that cannot be traced (data-dependent control
    flow, conversion of a traced value to a Python or NumPy value)."""


_local = threading.local()


def current_trace() -> Optional["TraceContext"]:
    """The trace this thread is running, or None."""
    return getattr(_local, "trace", None)


class TraceContext:
    """The state of one trace: the IR builder, the function's block and the
    NumPy arrays that became extra (trailing) arguments. Each thread has
    its own current trace (`current_trace()`), entered with `with`."""

    def __init__(self, context: ir.Context, block: ir.Block):
        self.context = context
        self.block = block
        self.builder = IRBuilder(context)
        self.captured: List[np.ndarray] = []
        # id(array) -> (array, its tracer). The array is kept alive with
        # it: a temporary (a causal mask made in each layer) freed while
        # tracing would otherwise leave its id to the next array made,
        # which would get the first one's value.
        self._captured_ids: Dict[int, Tuple[np.ndarray, "Tracer"]] = {}
        #: Whether traced indices are bounds-checked at run time.
        self.check_indices = True
        #: Concrete arrays (globals, closures, arrays made while tracing)
        #: become constants instead of trailing arguments (for export).
        self.embed_arrays = False
        #: With embed_arrays: embedded arrays become `dense_resource`
        #: constants (a binary blob each, as torch-mlir writes weights),
        #: named by this map from id(array) (others `array<n>`).
        self.resource_names: Optional[Dict[int, str]] = None
        #: Run-time checks: (scalar tracers, check) pairs; the tracers
        #: become extra results of the compiled function and after every
        #: call `check(*values)` raises if they show an error.
        self.checks: List[tuple] = []
        #: With dynamic dimensions (JitFunction.compile_dynamic): the
        #: traced size of each dynamic dimension -> (the input tracer, the
        #: dimension). A size the program takes from one (`range(len(x))`,
        #: `np.tri(x.shape[0])`) is recognised by its value and made from
        #: the input's run-time size instead; the second trace, one larger,
        #: confirms it (a fixed bound that happens to equal the traced size
        #: is then refused).
        self.dynamic_sizes: Dict[int, tuple] = {}
        #: The ScopeRecorder of this trace while one is active, else None:
        #: a front end whose source calls the profile hook cannot see (the
        #: modules of a torch.fx graph) names them with `module_scopes`.
        self.scopes: Optional["ScopeRecorder"] = None

    def dynamic_iota(self, n: int) -> Optional["Tracer"]:
        """0, 1, ..., n - 1 as int32 made from the run-time size of the
        dynamic dimension traced with size `n`; None if there is none."""
        source = self.dynamic_sizes.get(n)
        if source is None or n < 2:
            return None
        tracer, dim = source
        return Tracer(self.builder.iota(tracer.value, dim))

    def _dynamic_array(self, array: np.ndarray) -> Optional["Tracer"]:
        """A concrete array sized by dynamic dimensions, made from their
        run-time sizes when it is one the tracer recognises: `np.arange(n)`
        and a lower-triangular pattern of two values (`np.tri(n)`, a
        causal mask `(1 - np.tri(n)) * -1e10`)."""
        if not self.dynamic_sizes or array.dtype == np.bool_ or \
                not any(d in self.dynamic_sizes for d in array.shape):
            return None
        if array.ndim == 1:
            n = array.shape[0]
            if np.array_equal(array, np.arange(n)):
                iota = self.dynamic_iota(n)
                return None if iota is None else iota.astype(array.dtype)
            return None
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            return None
        n = array.shape[0]
        below, above = array[0, 0], array[0, 1]
        lower = np.tri(n, dtype=bool)
        same = lambda part, value: np.array_equal(  # noqa: E731
            part.view(np.uint8), np.full(part.shape, value,
                                         array.dtype).view(np.uint8))
        if below == above or not same(array[lower], below) or \
                not same(array[~lower], above):
            return None
        iota = self.dynamic_iota(n)
        if iota is None:
            return None
        rows, cols = iota.reshape(n, 1), iota.reshape(1, n)
        below_t = Tracer(self.builder.constant(np.asarray(below)))
        above_t = Tracer(self.builder.constant(np.asarray(above)))
        return _where(cols <= rows, below_t, above_t)

    def __enter__(self) -> "TraceContext":
        self._previous = current_trace()
        _local.trace = self
        tt.trace_entered()  # cached jit calls then go through Python
        return self

    def __exit__(self, *exc) -> None:
        _local.trace = self._previous
        tt.trace_exited()

    def capture(self, array: np.ndarray) -> "Tracer":
        """The traced value of a concrete NumPy array: a trailing argument,
        one per distinct array object."""
        key = id(array)
        if key in self._captured_ids:
            return self._captured_ids[key][1]
        made = self._dynamic_array(array)
        if made is not None:
            self._captured_ids[key] = (array, made)
            return made
        if array.dtype not in SUPPORTED_DTYPES or self.embed_arrays:
            resource = None
            if self.embed_arrays and self.resource_names is not None:
                resource = self.resource_names.get(
                    key, f"array{len(self._captured_ids)}")
            traced = Tracer(self.builder.constant(array, resource))
        else:
            from .builder import tensor_type
            arg = self.block.add_argument(
                tensor_type(array.shape, array.dtype), user_location())
            self.captured.append(array)
            traced = Tracer(arg)
        self._captured_ids[key] = (array, traced)
        return traced

    def check_index(self, ids: "Tracer", n: int, axis: int) -> None:
        """Records a bounds check of traced indices into an axis of size
        `n`: their largest and smallest values become extra results of the
        compiled function, checked after each call (IndexError)."""
        if not self.check_indices:
            return
        hi = Tracer(self.builder.reduce("reduce_max", ids.value,
                                        tuple(range(ids.ndim)), False))
        lo = Tracer(self.builder.reduce("reduce_min", ids.value,
                                        tuple(range(ids.ndim)), False))

        def check(hi, lo, last=None):
            size = n if last is None else int(last) + 1
            if hi >= size or lo < -size:
                bad = int(hi) if hi >= size else int(lo)
                raise IndexError(f"index {bad} is out of bounds for axis "
                                 f"{axis} with size {size}")
        iota = self.dynamic_iota(n)
        if iota is None:
            self.checks.append(((hi, lo), check))
            return
        # The axis has the run-time size of a dynamic dimension: its last
        # index is a result too.
        last = Tracer(self.builder.reduce("reduce_max", iota.value, (0,),
                                          False))
        self.checks.append(((hi, lo, last), check))

    def check_nonnegative_exponent(self, exponent: "Tracer") -> None:
        """NumPy refuses integer powers with negative exponents: a run-time
        check of traced integer exponents."""
        lo = Tracer(self.builder.reduce("reduce_min", exponent.value,
                                        tuple(range(exponent.ndim)), False))

        def check(lo):
            if lo < 0:
                raise ValueError("Integers to negative integer powers are "
                                 "not allowed.")
        self.checks.append(((lo,), check))

    def check_nonzero_divisor(self, divisor: "Tracer") -> None:
        """PyTorch raises on integer division by zero: a run-time check of a
        traced integer divisor (ZeroDivisionError after the call)."""
        dtype = divisor.dtype
        nonzero = _where(divisor == as_tracer(0, dtype), as_tracer(0, dtype),
                         as_tracer(1, dtype))
        lo = Tracer(self.builder.reduce("reduce_min", nonzero.value,
                                        tuple(range(nonzero.ndim)), False))

        def check(lo):
            if lo == 0:
                raise ZeroDivisionError("integer division by zero")
        self.checks.append(((lo,), check))

    def constant(self, value, dtype=None) -> "Tracer":
        array = np.asarray(value, dtype=dtype)
        check_dtype(array.dtype, "constant")
        return Tracer(self.builder.constant(array))


_STDLIB_DIR = os.path.dirname(os.__file__)
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_MLIR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(ir.__file__)))


def _torch_dir() -> Optional[str]:
    """PyTorch's package directory when it is imported (its FX interpreter
    runs the graphs tinytensor.torch traces: not user scopes)."""
    torch = sys.modules.get("torch")
    path = getattr(torch, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) if path else None


class ScopeRecorder:
    """Records which source calls each traced op comes from, for
    `tt-outline-repeated-scopes`: while tracing, a profile hook (this
    thread's `sys.setprofile`) numbers every call of a user's Python
    function, and new ops get a `tt.scope` attribute listing the calls they
    are made in, outermost first. Calls inside TinyTensor, MLIR's bindings,
    NumPy, PyTorch and the standard library, and comprehensions, are not
    scopes. Not installed
    when another profiler is active (ops then have no scopes)."""

    def __init__(self, builder, trace: Optional[TraceContext] = None):
        self.builder = builder
        self.names: List[str] = []
        self._stack: List[tuple] = []
        self._previous = None
        self.active = False
        self._torch = _torch_dir()
        self._trace = trace
        #: Front-end scopes (`module_scopes`): the key of each source call
        #: -> its id, and the ids of the current node's calls.
        self._keys: Dict[object, int] = {}
        self._modules: List[int] = []

    def __enter__(self):
        if sys.getprofile() is None:
            sys.setprofile(self._event)
            self.active = True
        if self._trace is not None:
            self._trace.scopes = self
        return self

    def __exit__(self, *exc):
        if self.active:
            sys.setprofile(None)
            self.active = False
        if self._trace is not None:
            self._trace.scopes = None
        self._stack.clear()
        self._modules = []
        self.builder.scope = None

    def module_scopes(self, calls: Sequence[Tuple[object, str]]) -> None:
        """Sets the source calls of the ops traced next, inside those the
        profile hook sees: `calls` lists (key, name) pairs, outermost
        first, where equal keys are one call (tinytensor.torch passes a
        graph node's module calls: the call's key in torch's module stack
        and the module's class name). An empty list ends them."""
        ids = []
        for key, name in calls:
            if key not in self._keys:
                self.names.append(name)
                self._keys[key] = len(self.names) - 1
            ids.append(self._keys[key])
        self._modules = ids
        self._update()

    def _event(self, frame, event, arg):
        if event == "call":
            code = frame.f_code
            filename = code.co_filename
            if code.co_name.startswith("<") and code.co_name != "<lambda>":
                return
            if filename.startswith(_PACKAGE_DIR) or "numpy" in filename or \
                    filename.startswith(_STDLIB_DIR) or \
                    filename.startswith(_MLIR_DIR) or \
                    filename.startswith("<") or \
                    (self._torch and filename.startswith(self._torch)):
                return
            self.names.append(code.co_qualname)
            self._stack.append((frame, len(self.names) - 1))
            self._update()
        elif event == "return" and self._stack:
            if self._stack[-1][0] is frame:
                self._stack.pop()
                self._update()

    def _update(self):
        ids = [i for _, i in self._stack] + self._modules
        self.builder.scope = ir.DenseI64ArrayAttr.get(ids) if ids else None

    def names_attribute(self) -> Optional[ir.Attribute]:
        """`tt.scope_names` for the traced function, None without scopes."""
        if not self.names:
            return None
        return ir.ArrayAttr.get([ir.StringAttr.get(n) for n in self.names])


def _ctx() -> TraceContext:
    trace = current_trace()
    if trace is None:
        raise TracingError("a traced value was used outside of its trace")
    return trace


def _is_scalar(x) -> bool:
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(
        x, np.ndarray)


def as_tracer(x, dtype=None) -> "Tracer":
    """Lifts `x` into the trace: tracers stay, arrays are captured, Python
    and NumPy scalars become constants of `dtype`."""
    if isinstance(x, Tracer):
        return x if dtype is None else x.astype(dtype)
    if isinstance(x, np.ndarray):
        t = _ctx().capture(x)
        return t if dtype is None else t.astype(dtype)
    if _is_scalar(x) or isinstance(x, (list, tuple)):
        return _ctx().constant(x, dtype=dtype)
    raise TypeError(f"cannot use a {type(x).__name__} in a traced "
                    f"computation")


def _normalize_axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(np.lib.array_utils.normalize_axis_tuple(axis, ndim)))


# Binary ufuncs: (tt op, kind); kind "arith" casts operands to the result
# dtype, "compare" to their common dtype and yields bool.
_BINARY = {
    np.add: ("add", "arith"), np.subtract: ("sub", "arith"),
    np.multiply: ("mul", "arith"), np.true_divide: ("div", "arith"),
    np.power: ("pow", "arith"), np.maximum: ("max", "arith"),
    np.minimum: ("min", "arith"),
    np.equal: ("eq", "compare"), np.not_equal: ("ne", "compare"),
    np.less: ("lt", "compare"), np.less_equal: ("le", "compare"),
    np.greater: ("gt", "compare"), np.greater_equal: ("ge", "compare"),
    np.arctan2: ("atan2", "arith"),
    np.bitwise_and: ("bitwise_and", "bitwise"),
    np.bitwise_or: ("bitwise_or", "bitwise"),
    np.bitwise_xor: ("bitwise_xor", "bitwise"),
    np.left_shift: ("shift_left", "shift"),
    np.right_shift: ("shift_right", "shift"),
}
# Logical ufuncs: the bitwise op on the operands' truth values.
_LOGICAL = {np.logical_and: np.bitwise_and, np.logical_or: np.bitwise_or,
            np.logical_xor: np.bitwise_xor}
_UNARY = {np.negative: "neg", np.exp: "exp", np.log: "log", np.tanh: "tanh",
          np.sqrt: "sqrt", np.absolute: "abs", np.positive: None,
          np.sin: "sin", np.cos: "cos", np.floor: "floor", np.ceil: "ceil",
          np.rint: "round", np.log1p: "log1p", np.expm1: "expm1",
          np.exp2: "exp2", np.log2: "log2", np.arctan: "atan",
          np.tan: "tan", np.arcsin: "asin", np.arccos: "acos",
          np.sinh: "sinh", np.cosh: "cosh", np.arcsinh: "asinh",
          np.arccosh: "acosh", np.arctanh: "atanh", np.log10: "log10"}
# Unary ufuncs built from other ops (see Tracer._composite_unary).
_COMPOSITE_UNARY = (np.square, np.reciprocal, np.sign, np.invert,
                    np.logical_not)
# `//` and `%` (see _integer_division).
_INTEGER_DIVISION = (np.floor_divide, np.remainder)

_HANDLED_FUNCTIONS: Dict[Callable, Callable] = {}


def implements(*np_functions):
    """Registers a `__array_function__` implementation."""
    def decorator(fn):
        for f in np_functions:
            _HANDLED_FUNCTIONS[f] = fn
        return fn
    return decorator


class Tracer:
    """A traced tensor value."""

    __array_priority__ = 1000

    def __init__(self, value: ir.Value):
        self.value = value
        self.shape = shape_of(value)
        self.dtype = dtype_of(value)

    # -- attributes --------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def T(self) -> "Tracer":
        return self.transpose()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized (rank-0) traced value")
        return self.shape[0]

    def __repr__(self):
        return f"Tracer(shape={self.shape}, dtype={self.dtype})"

    # -- conversions that cannot be traced -----------------------------------
    def __bool__(self):
        raise TracingError(
            "the truth value of a traced array is not known while tracing: "
            "data-dependent Python control flow (if/while/and/or on array "
            "values) cannot be compiled; use np.where(...) instead")

    def _concrete(self, *args, **kwargs):
        raise TracingError(
            "a traced array has no concrete value while tracing; it cannot "
            "be converted to a Python number or NumPy array")

    __float__ = __int__ = __index__ = __complex__ = _concrete
    __array__ = _concrete

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    # -- elementwise ---------------------------------------------------------
    def _binary(self, ufunc, lhs, rhs) -> "Tracer":
        name, kind = _BINARY[ufunc]
        b = _ctx().builder
        if kind == "compare":
            dtype = common_dtype(lhs, rhs)
            if dtype == np.bool_:  # tt.cmp compares numbers
                dtype = np.dtype(np.int32)
            l, r = as_tracer(lhs, dtype), as_tracer(rhs, dtype)
            return Tracer(b.compare(name, l.value, r.value))
        if kind in ("bitwise", "shift") and \
                common_dtype(lhs, rhs).kind not in "biu":
            raise TypeError(f"np.{ufunc.__name__} takes integers or "
                            f"booleans, not {common_dtype(lhs, rhs)}")
        dtype = result_dtype(ufunc, lhs, rhs)
        check_dtype(dtype, f"the result of np.{ufunc.__name__}")
        if kind in ("bitwise", "shift"):
            l, r = as_tracer(lhs, dtype), as_tracer(rhs, dtype)
            return Tracer(b.binary(name, l.value, r.value))
        if dtype == np.bool_:
            raise TypeError(f"np.{ufunc.__name__} on booleans is not "
                            f"supported; cast to a number type first")
        if ufunc is np.power and _is_scalar(rhs) and is_float(dtype) and \
                float(rhs) == 0.5 and isinstance(lhs, Tracer):
            # NumPy computes x ** 0.5 (a scalar exponent) as sqrt(x):
            # (-inf) ** 0.5 is nan there, not pow's inf.
            return Tracer(b.unary("sqrt", lhs.astype(dtype).value))
        l, r = as_tracer(lhs, dtype), as_tracer(rhs, dtype)
        if ufunc is np.power and dtype.kind in "iu" and \
                isinstance(rhs, Tracer):
            _ctx().check_nonnegative_exponent(r)
        return Tracer(b.binary(name, l.value, r.value))

    def _unary(self, ufunc, x) -> "Tracer":
        name = _UNARY[ufunc]
        x = as_tracer(x)
        if name is None:
            return x
        dtype = result_dtype(ufunc, x)
        check_dtype(dtype, f"the result of np.{ufunc.__name__}")
        if not is_float(dtype) and name in ("floor", "ceil"):
            return x.astype(dtype)  # integers are their own floor (NumPy 2)
        return Tracer(_ctx().builder.unary(name, x.astype(dtype).value))

    def _composite_unary(self, ufunc, x) -> "Tracer":
        x = as_tracer(x)
        if ufunc is np.invert and x.dtype.kind not in "biu":
            raise TypeError(f"np.invert takes integers or booleans, not "
                            f"{x.dtype}")
        dtype = result_dtype(ufunc, x)
        check_dtype(dtype, f"the result of np.{ufunc.__name__}")
        x = x.astype(dtype)
        if ufunc is np.logical_not:  # x is bool (NumPy's result dtype)
            ufunc = np.invert
        if ufunc is np.invert:  # ~x: x ^ -1 (True for booleans)
            ones = np.array(-1).astype(dtype)  # all bits set
            return Tracer(_ctx().builder.binary(
                "bitwise_xor", x.value, as_tracer(ones).value))
        if ufunc is np.square:
            return x * x
        if ufunc is np.reciprocal:
            return as_tracer(1, dtype) / x if is_float(dtype) else \
                Tracer(_ctx().builder.binary(
                    "div", as_tracer(np.ones((), dtype)).value, x.value))
        # np.sign: -1, 0 or 1; NaN stays NaN, -0.0 gives 0.0.
        one, zero = np.ones((), dtype), np.zeros((), dtype)
        inner = _where(x < zero, -one, _where(x == x, zero, x))
        return _where(x > zero, one, inner)

    def _erf(self) -> "Tracer":
        x = self if is_float(self.dtype) else self.astype(np.float64)
        return Tracer(_ctx().builder.unary("erf", x.value))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None:
            return NotImplemented
        extra = {k: v for k, v in kwargs.items() if v is not None}
        if extra:
            return NotImplemented
        if ufunc in _BINARY and len(inputs) == 2:
            return self._binary(ufunc, *inputs)
        if ufunc in _UNARY and len(inputs) == 1:
            return self._unary(ufunc, *inputs)
        if ufunc in _COMPOSITE_UNARY and len(inputs) == 1:
            return self._composite_unary(ufunc, *inputs)
        if ufunc in _LOGICAL and len(inputs) == 2:
            return self._binary(_LOGICAL[ufunc], _truth(inputs[0]),
                                _truth(inputs[1]))
        if ufunc in _INTEGER_DIVISION and len(inputs) == 2:
            return _integer_division(ufunc, *inputs)
        if ufunc is np.matmul and len(inputs) == 2:
            return _matmul(*inputs)
        return NotImplemented

    def __array_function__(self, func, types, args, kwargs):
        impl = _HANDLED_FUNCTIONS.get(func)
        if impl is None:
            return NotImplemented
        return impl(*args, **kwargs)

    def __add__(self, o): return self._binary(np.add, self, o)
    def __radd__(self, o): return self._binary(np.add, o, self)
    def __sub__(self, o): return self._binary(np.subtract, self, o)
    def __rsub__(self, o): return self._binary(np.subtract, o, self)
    def __mul__(self, o): return self._binary(np.multiply, self, o)
    def __rmul__(self, o): return self._binary(np.multiply, o, self)
    def __truediv__(self, o): return self._binary(np.true_divide, self, o)
    def __rtruediv__(self, o): return self._binary(np.true_divide, o, self)
    def __floordiv__(self, o): return _integer_division(np.floor_divide, self, o)
    def __rfloordiv__(self, o): return _integer_division(np.floor_divide, o, self)
    def __mod__(self, o): return _integer_division(np.remainder, self, o)
    def __rmod__(self, o): return _integer_division(np.remainder, o, self)
    def __pow__(self, o): return self._binary(np.power, self, o)
    def __rpow__(self, o): return self._binary(np.power, o, self)
    def __matmul__(self, o): return _matmul(self, o)
    def __rmatmul__(self, o): return _matmul(o, self)
    def __and__(self, o): return self._binary(np.bitwise_and, self, o)
    def __rand__(self, o): return self._binary(np.bitwise_and, o, self)
    def __or__(self, o): return self._binary(np.bitwise_or, self, o)
    def __ror__(self, o): return self._binary(np.bitwise_or, o, self)
    def __xor__(self, o): return self._binary(np.bitwise_xor, self, o)
    def __rxor__(self, o): return self._binary(np.bitwise_xor, o, self)
    def __lshift__(self, o): return self._binary(np.left_shift, self, o)
    def __rlshift__(self, o): return self._binary(np.left_shift, o, self)
    def __rshift__(self, o): return self._binary(np.right_shift, self, o)
    def __rrshift__(self, o): return self._binary(np.right_shift, o, self)
    def __invert__(self): return self._composite_unary(np.invert, self)
    def __neg__(self): return self._unary(np.negative, self)
    def __pos__(self): return self
    def __abs__(self): return self._unary(np.absolute, self)
    def __eq__(self, o): return self._binary(np.equal, self, o)  # type: ignore[override]
    def __ne__(self, o): return self._binary(np.not_equal, self, o)  # type: ignore[override]
    def __lt__(self, o): return self._binary(np.less, self, o)
    def __le__(self, o): return self._binary(np.less_equal, self, o)
    def __gt__(self, o): return self._binary(np.greater, self, o)
    def __ge__(self, o): return self._binary(np.greater_equal, self, o)
    __hash__ = object.__hash__

    # -- methods -------------------------------------------------------------
    def astype(self, dtype) -> "Tracer":
        dtype = check_dtype(dtype, "astype target")
        return Tracer(_ctx().builder.cast(self.value, dtype))

    def view(self, dtype) -> "Tracer":
        """The elements' bits as `dtype` (NumPy's `view`; of the same
        item size here)."""
        dtype = check_dtype(dtype, "view target")
        if dtype.itemsize != self.dtype.itemsize or np.bool_ in (
                dtype, self.dtype):
            raise TypeError(f"view of {self.dtype} as {dtype}: TinyTensor "
                            f"reinterprets elements of the same size only "
                            f"(not bool)")
        if dtype == self.dtype:
            return self
        return Tracer(_ctx().builder.bitcast(self.value, dtype))

    def reshape(self, *shape, order="C") -> "Tracer":
        return _reshape(self, shape[0] if len(shape) == 1 else shape, order)

    def transpose(self, *axes) -> "Tracer":
        if len(axes) == 1 and (axes[0] is None or
                               isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return _transpose(self, axes or None)

    def swapaxes(self, axis1, axis2) -> "Tracer":
        return _swapaxes(self, axis1, axis2)

    def sum(self, axis=None, dtype=None, keepdims=False):
        return _sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return _mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def var(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return _var(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return _max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return _min(self, axis=axis, keepdims=keepdims)

    def std(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return _std(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return _prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False):
        return _argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return _argmin(self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None):
        return _cumsum(self, axis=axis, dtype=dtype)

    def argsort(self, axis=-1, kind=None, order=None):
        return _argsort(self, axis=axis, kind=kind, order=order)

    def any(self, axis=None, keepdims=False):
        return _any(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return _all(self, axis=axis, keepdims=keepdims)

    def clip(self, min=None, max=None):
        return _clip(self, min, max)

    def round(self, decimals=0):
        return _round(self, decimals)

    def dot(self, other):
        return _dot(self, other)

    def take(self, indices, axis=None):
        return _take(self, indices, axis)

    def flatten(self) -> "Tracer":
        return self.reshape(-1)

    def squeeze(self, axis=None) -> "Tracer":
        return _squeeze(self, axis)

    # -- indexing ------------------------------------------------------------
    def __getitem__(self, key) -> "Tracer":
        return _getitem(self, key)


# -- functions ------------------------------------------------------------------

def _matmul(a, b) -> Tracer:
    dtype = common_dtype(a, b)
    check_dtype(dtype, "the result of matmul")
    a, b = as_tracer(a, dtype), as_tracer(b, dtype)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: input operand does not have enough "
                         "dimensions (use * for scalars)")
    return Tracer(_ctx().builder.matmul(a.value, b.value))


implements(np.matmul)(_matmul)


def _reduce(name: str, x, axis, keepdims, ddof=None) -> Tracer:
    x = as_tracer(x)
    axes = _normalize_axes(axis, x.ndim)
    return Tracer(_ctx().builder.reduce(name, x.value, axes, keepdims, ddof))


@implements(np.sum)
def _sum(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    a = as_tracer(a)
    target = _integer_accumulation("sum", a, dtype)
    return _reduce("sum", a.astype(target), axis, keepdims)


@implements(np.max, np.amax)
def _max(a, axis=None, out=None, keepdims=False, **kwargs):
    return _reduce("reduce_max", a, axis, keepdims)


@implements(np.min, np.amin)
def _min(a, axis=None, out=None, keepdims=False, **kwargs):
    return _reduce("reduce_min", a, axis, keepdims)


def _integer_accumulation(name, a, dtype):
    """The accumulation dtype NumPy uses for np.`name` (int64 for int32 and
    bool arrays)."""
    target = np.dtype(dtype) if dtype is not None else \
        result_dtype(getattr(np, name), a)
    return check_dtype(target, f"the result of np.{name}")


@implements(np.prod)
def _prod(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    a = as_tracer(a)
    target = _integer_accumulation("prod", a, dtype)
    return _reduce("prod", a.astype(target), axis, keepdims)


def _arg_reduction(name, a, axis, keepdims):
    """argmax/argmin: tt computes int32 indices, widened to NumPy's int64."""
    a = as_tracer(a)
    if a.dtype == np.bool_:
        a = a.astype(np.int32)
    if axis is None:
        flat = a.reshape(-1)
        out = Tracer(_ctx().builder.arg_reduce(name, flat.value, 0, False))
        out = out.reshape((1,) * a.ndim) if keepdims else out
    else:
        axis = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
        out = Tracer(_ctx().builder.arg_reduce(name, a.value, axis, keepdims))
    return out.astype(np.int64)


@implements(np.argmax)
def _argmax(a, axis=None, out=None, keepdims=False):
    return _arg_reduction("argmax", a, axis, keepdims)


@implements(np.argmin)
def _argmin(a, axis=None, out=None, keepdims=False):
    return _arg_reduction("argmin", a, axis, keepdims)


@implements(np.cumsum)
def _cumsum(a, axis=None, dtype=None, out=None):
    a = as_tracer(a)
    target = _integer_accumulation("cumsum", a, dtype)
    a = a.astype(target)
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
    return Tracer(_ctx().builder.cumsum(a.value, axis))


def _sorted(a, axis, kind, order, descending=False):
    """(values, int64 indices) of a stable sort of `a` along `axis` (None:
    the flattened array), as np.sort / np.argsort with kind="stable"; NaNs
    last. Other kinds give the same values; for equal elements they may
    order np.argsort's indices differently than NumPy does."""
    if order is not None:
        raise TypeError("np.sort/np.argsort: `order` (structured arrays) is "
                        "not supported")
    if kind not in (None, "stable", "mergesort", "quicksort", "heapsort"):
        raise ValueError(f"np.sort: unknown kind {kind!r}")
    a = as_tracer(a)
    if a.dtype == np.bool_:
        values, indices = _sorted(a.astype(np.int32), axis, kind, order,
                                  descending)
        return values != 0, indices
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.ndim == 0:
        raise np.exceptions.AxisError("np.sort of a 0-d array needs "
                                      "axis=None")
    axis = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
    values, indices = _ctx().builder.sort(a.value, axis, descending)
    return Tracer(values), Tracer(indices).astype(np.int64)


def sort(a, axis: int = -1, descending: bool = False):
    """(values, int64 indices) of a stable sort along `axis`, ascending
    with NaNs last or descending with NaNs first (for front ends: the
    PyTorch importer's sort and topk)."""
    return _sorted(a, axis, None, None, descending)


@implements(np.sort)
def _sort(a, axis=-1, kind=None, order=None, **kwargs):
    return _sorted(a, axis, kind, order)[0]


@implements(np.argsort)
def _argsort(a, axis=-1, kind=None, order=None, **kwargs):
    return _sorted(a, axis, kind, order)[1]


def _truth(a) -> Tracer:
    a = as_tracer(a)
    return (a if a.dtype != np.bool_ else a.astype(np.int32)) != 0


@implements(np.any)
def _any(a, axis=None, out=None, keepdims=False, **kwargs):
    return _reduce("reduce_max", _truth(a).astype(np.int32), axis,
                   keepdims) != 0


@implements(np.all)
def _all(a, axis=None, out=None, keepdims=False, **kwargs):
    return _reduce("reduce_min", _truth(a).astype(np.int32), axis,
                   keepdims) != 0


@implements(np.clip)
def _clip(a, a_min=None, a_max=None, out=None, **kwargs):
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    x = as_tracer(a)
    if a_min is not None:
        x = np.maximum(x, a_min)
    if a_max is not None:
        x = np.minimum(x, a_max)
    return x


@implements(np.round, np.around)
def _round(a, decimals=0, out=None):
    a = as_tracer(a)
    if not is_float(a.dtype):
        if decimals >= 0:
            return a
        raise NotImplementedError("np.round of integers with negative "
                                  "decimals cannot be traced")
    if decimals == 0:
        return np.rint(a)
    # NumPy's own method: rint(x * 10**d) / 10**d.
    scale = 10.0 ** decimals if decimals > 0 else 10.0 ** -decimals
    if decimals > 0:
        return np.rint(a * a.dtype.type(scale)) / a.dtype.type(scale)
    return np.rint(a / a.dtype.type(scale)) * a.dtype.type(scale)

def _float_input(a, dtype):
    a = as_tracer(a)
    target = np.dtype(dtype) if dtype is not None else (
        a.dtype if is_float(a.dtype) else np.dtype(np.float64))
    return a.astype(check_dtype(target, "the result"))


@implements(np.mean)
def _mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    return _reduce("mean", _float_input(a, dtype), axis, keepdims)


@implements(np.std)
def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
         **kwargs):
    return np.sqrt(_var(a, axis=axis, dtype=dtype, ddof=ddof,
                        keepdims=keepdims))


@implements(np.var)
def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
         **kwargs):
    return _reduce("var", _float_input(a, dtype), axis, keepdims, ddof)


def _infer_shape(shape, size: int) -> tuple:
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (shape,)
    shape = [int(d) for d in shape]
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if unknown:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into "
                             f"shape {tuple(shape)}")
        shape[unknown[0]] = size // known
    return tuple(shape)


@implements(np.reshape)
def _reshape(a, shape=None, order="C", **kwargs):
    if shape is None:
        shape = kwargs.pop("newshape")
    if order != "C":
        raise NotImplementedError("only order='C' reshapes can be traced")
    a = as_tracer(a)
    shape = _infer_shape(shape, a.size)
    return Tracer(_ctx().builder.reshape(a.value, shape))


@implements(np.transpose)
def _transpose(a, axes=None):
    a = as_tracer(a)
    if axes is None:
        axes = tuple(reversed(range(a.ndim)))
    else:
        axes = tuple(int(ax) + a.ndim if int(ax) < 0 else int(ax)
                     for ax in axes)
    if axes == tuple(range(a.ndim)):
        return a
    return Tracer(_ctx().builder.transpose(a.value, axes))


@implements(np.swapaxes)
def _swapaxes(a, axis1, axis2):
    a = as_tracer(a)
    axis1, axis2 = np.lib.array_utils.normalize_axis_tuple((axis1, axis2),
                                                           a.ndim,
                                                           allow_duplicate=True)
    axes = list(range(a.ndim))
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return _transpose(a, axes)


@implements(np.moveaxis)
def _moveaxis(a, source, destination):
    a = as_tracer(a)
    source = np.lib.array_utils.normalize_axis_tuple(source, a.ndim)
    destination = np.lib.array_utils.normalize_axis_tuple(destination, a.ndim)
    if len(source) != len(destination):
        raise ValueError("moveaxis: source and destination must have the "
                         "same number of elements")
    order = [d for d in range(a.ndim) if d not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return _transpose(a, order)


@implements(np.expand_dims)
def _expand_dims(a, axis):
    a = as_tracer(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = a.ndim + len(axes)
    axes = np.lib.array_utils.normalize_axis_tuple(axes, ndim)
    it = iter(a.shape)
    shape = [1 if d in axes else next(it) for d in range(ndim)]
    return a.reshape(shape)


@implements(np.squeeze)
def _squeeze(a, axis=None):
    a = as_tracer(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(a.shape) if d == 1)
    else:
        axes = np.lib.array_utils.normalize_axis_tuple(axis, a.ndim)
        for ax in axes:
            if a.shape[ax] != 1:
                raise ValueError("cannot select an axis to squeeze out "
                                 "which has size not equal to one")
    return a.reshape([d for i, d in enumerate(a.shape) if i not in axes])


@implements(np.broadcast_to)
def _broadcast_to(a, shape, subok=False):
    a = as_tracer(a)
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (shape,)
    return Tracer(_ctx().builder.broadcast_to(a.value,
                                              tuple(int(d) for d in shape)))


@implements(np.concatenate)
def _concatenate(arrays, axis=0, out=None, dtype=None, **kwargs):
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    target = np.dtype(dtype) if dtype is not None else common_dtype(*arrays)
    tracers = [as_tracer(a, target) for a in arrays]
    ndim = tracers[0].ndim
    if axis is None:
        tracers = [t.reshape(-1) for t in tracers]
        axis = 0
    elif ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    else:
        axis = np.lib.array_utils.normalize_axis_index(axis, ndim)
    return Tracer(_ctx().builder.concat([t.value for t in tracers], axis))


@implements(np.hstack)
def _hstack(tup, dtype=None, **kwargs):
    arrays = [as_tracer(a) for a in tup]
    arrays = [a.reshape(1) if a.ndim == 0 else a for a in arrays]
    axis = 0 if arrays and arrays[0].ndim == 1 else 1
    return _concatenate(arrays, axis=axis, dtype=dtype)


@implements(np.vstack)
def _vstack(tup, dtype=None, **kwargs):
    arrays = [as_tracer(a) for a in tup]
    arrays = [a.reshape(1, -1) if a.ndim < 2 else a for a in arrays]
    return _concatenate(arrays, axis=0, dtype=dtype)


@implements(np.stack)
def _stack(arrays, axis=0, out=None, dtype=None, **kwargs):
    arrays = [as_tracer(a) for a in arrays]
    axis = np.lib.array_utils.normalize_axis_index(axis, arrays[0].ndim + 1)
    return _concatenate([_expand_dims(a, axis) for a in arrays], axis=axis,
                        dtype=dtype)


@implements(np.split)
def _split(ary, indices_or_sections, axis=0):
    a = as_tracer(ary)
    axis = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0 or n % sections:
            raise ValueError("array split does not result in an equal "
                             "division")
        bounds = [i * (n // sections) for i in range(sections + 1)]
    else:
        bounds = [0] + [min(int(i), n) for i in indices_or_sections] + [n]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        index = [slice(None)] * a.ndim
        index[axis] = slice(lo, max(lo, hi))
        parts.append(a[tuple(index)])
    return parts


@implements(np.array_split)
def _array_split(ary, indices_or_sections, axis=0):
    """Like np.split, but n sections need not divide the axis evenly: the
    first n % sections parts get one element more, as in NumPy."""
    if not isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        return _split(ary, indices_or_sections, axis)
    a = as_tracer(ary)
    n = a.shape[np.lib.array_utils.normalize_axis_index(axis, a.ndim)]
    sections = int(indices_or_sections)
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    each, extra = divmod(n, sections)
    sizes = [each + 1] * extra + [each] * (sections - extra)
    bounds = [builtins.sum(sizes[:i + 1]) for i in range(sections - 1)]
    return _split(a, bounds, axis)


def _integer_division(ufunc, lhs, rhs) -> Tracer:
    """NumPy's `//` (floor_divide) and `%` (remainder) of integers: the
    quotient rounds toward -inf and the remainder has the divisor's sign.
    A zero divisor gives 0 and INT_MIN // -1 wraps to INT_MIN, as in NumPy
    (which warns). Floating-point operands are refused: floor(a / b)
    differs from NumPy's `//` where a / b rounds to an integer."""
    dtype = result_dtype(ufunc, lhs, rhs)
    symbol = "//" if ufunc is np.floor_divide else "%"
    if dtype.kind not in "iu":
        raise TypeError(f"np.{ufunc.__name__} ({symbol}) of {dtype} values "
                        f"is not supported; only integers are")
    check_dtype(dtype, f"the result of np.{ufunc.__name__}")
    q, r = integer_divmod(as_tracer(lhs, dtype), as_tracer(rhs, dtype))
    return q if ufunc is np.floor_divide else r


def integer_divmod(a: Tracer, b: Tracer, floor: bool = True):
    """The quotient and remainder of integer tracers of one dtype, rounded
    toward -inf (`floor`, the remainder then has the divisor's sign) or
    toward zero (C's, the dividend's sign). A zero divisor gives 0 for both
    and INT_MIN / -1 wraps to INT_MIN; the compiled code never divides by
    zero or overflows (undefined behaviour of the machine division, a crash
    on x86)."""
    dtype = a.dtype
    # Constants of the operands' dtype (no scalar promotion rules involved).
    zero, one = as_tracer(0, dtype), as_tracer(1, dtype)
    smallest = as_tracer(int(np.iinfo(dtype).min), dtype)
    # A divisor that cannot fault: 1 where b is 0, or where a / b overflows
    # (a / 1 = INT_MIN is then the wrapped quotient NumPy gives).
    is_zero = b == zero
    safe = _where(is_zero, one, b)
    safe = _where(a == smallest, _where(b == -one, one, safe), safe)
    builder = _ctx().builder
    q = Tracer(builder.binary("div", a.value, safe.value))  # toward zero
    r = a - q * safe
    if floor:
        # One less where the remainder is nonzero and its sign differs from
        # the divisor's.
        adjust = _where(r == zero, False, (r < zero) != (safe < zero))
        q = _where(adjust, q - one, q)
        r = _where(adjust, r + safe, r)
    return _where(is_zero, zero, q), _where(is_zero, zero, r)


@implements(np.where)
def _where(condition, x=None, y=None):
    if x is None or y is None:
        raise TypeError("np.where(condition) without x and y has a "
                        "data-dependent shape and cannot be traced")
    cond = as_tracer(condition)
    if cond.dtype != np.bool_:
        cond = cond != 0
    dtype = common_dtype(x, y)
    check_dtype(dtype, "the result of np.where")
    if dtype == np.bool_:
        # tt.select works on numbers: select as int32, compare back.
        return _where(cond, as_tracer(x, np.int32), as_tracer(y, np.int32)) != 0
    a, b = as_tracer(x, dtype), as_tracer(y, dtype)
    return Tracer(_ctx().builder.select(cond.value, a.value, b.value))


@implements(np.ndim)
def _ndim(a):
    return as_tracer(a).ndim


@implements(np.shape)
def _shape(a):
    return as_tracer(a).shape


# -- indexing -------------------------------------------------------------------

def _is_index_array(k) -> bool:
    return isinstance(k, (Tracer, list, np.ndarray, range))


def _index_array(key, n: int, axis: int = 0, wrap: str = "here") -> Tracer:
    """Integer-array indices into an axis of size `n`, as a traced int32
    value with negative indices wrapped. Concrete indices are checked now;
    traced ones at every call (an IndexError from the compiled code) unless
    the trace's index checks are off. With `wrap="gather"` (the indices go
    straight to a tt.gather, which wraps them itself) negative indices into
    a dynamic axis are left to it."""
    if isinstance(key, Tracer):
        if key.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer type")
        ids = key.astype(np.int32)
        _ctx().check_index(ids, n, axis)
        if wrap == "gather" and n in _ctx().dynamic_sizes:
            # tt.gather counts negative indices from the run-time end.
            return ids
        return _where(ids < 0, ids + np.int32(n), ids)
    array = np.asarray(key)
    if array.dtype == np.bool_:
        raise IndexError("boolean masks cannot be traced (the result's "
                         "shape depends on the data); use np.where")
    if array.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or "
                         "boolean) type")
    if array.size and (array.max() >= n or array.min() < -n):
        bad = array.max() if array.max() >= n else array.min()
        raise IndexError(f"index {bad} is out of bounds for axis {axis} "
                         f"with size {n}")
    return _ctx().constant(np.where(array < 0, array + n, array)
                           .astype(np.int32))


def _take_axis(x: Tracer, ids: Tracer, axis: int) -> Tracer:
    """x indexed along `axis` by (normalised) int32 `ids`: the ids' shape
    replaces that axis."""
    if axis == 0:
        return Tracer(_ctx().builder.gather(x.value, ids.value))
    perm = [axis] + [d for d in range(x.ndim) if d != axis]
    gathered = Tracer(_ctx().builder.gather(_transpose(x, perm).value,
                                            ids.value))
    # [ids..., the other axes in order] -> ids' dimensions at `axis`.
    k = ids.ndim
    rest = list(range(k, gathered.ndim))
    return _transpose(gathered, rest[:axis] + list(range(k)) + rest[axis:])


@implements(np.take)
def _take(a, indices, axis=None, out=None, mode="raise"):
    if mode != "raise":
        raise NotImplementedError("np.take(mode='wrap'/'clip') cannot be "
                                  "traced")
    a = as_tracer(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
    return _take_axis(a, _index_array(indices, a.shape[axis], axis), axis)


def _getitem(x: Tracer, key) -> Tracer:
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is not None and not isinstance(k, (numbers.Integral, np.integer,
                                                slice, type(Ellipsis)))
           and not _is_index_array(k) for k in key):
        bad = next(k for k in key if k is not None and not isinstance(
            k, (numbers.Integral, np.integer, slice, type(Ellipsis)))
            and not _is_index_array(k))
        raise TypeError(f"unsupported index {bad!r} of type "
                        f"{type(bad).__name__}")

    # Expand the Ellipsis and count the dimensions that are indexed.
    consumed = builtins.sum(1 for k in key
                            if k is not None and k is not Ellipsis)
    if consumed > x.ndim:
        raise IndexError(f"too many indices for array: array is "
                         f"{x.ndim}-dimensional, but {consumed} were indexed")
    if builtins.sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    expanded = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (x.ndim - consumed))
        else:
            expanded.append(k)
    expanded.extend([slice(None)] * (x.ndim - builtins.sum(
        1 for k in expanded if k is not None)))
    # A range is a slice where it can be one (no constant, no gather). A
    # range as long as a dynamic dimension over a longer static axis
    # (`wpe[range(len(ids))]`) is gathered by that dimension's indices.
    dim = 0
    for i, k in enumerate(expanded):
        prefix = _prefix_length(k)
        if prefix is not None and prefix < x.shape[dim]:
            iota = _ctx().dynamic_iota(prefix)
            if iota is not None:
                expanded[i] = k = iota
        if isinstance(k, range):
            n = x.shape[dim]
            if k.step > 0 and len(k) and 0 <= k.start and k.stop <= n:
                expanded[i] = slice(k.start, k.stop, k.step)
            else:
                expanded[i] = list(k)
        if k is not None:
            dim += 1
    if any(_is_index_array(k) for k in expanded):
        return _advanced_index(x, expanded)
    return _basic_index(x, expanded)


def _prefix_length(k) -> Optional[int]:
    """m if the index `k` is `range(m)`, else None. (Only ranges: slices
    of equal parts, as np.split makes, would too often be as long as a
    dynamic dimension by chance.)"""
    if isinstance(k, range) and k.start == 0 and k.step == 1:
        return len(k)
    return None


def _basic_index(x: Tracer, expanded) -> Tracer:
    """Integers, slices (any step) and None."""
    starts, sizes, strides, out_shape = [], [], [], []
    reversed_axes = []
    dim = 0
    for k in expanded:
        if k is None:
            out_shape.append(1)
            continue
        n = x.shape[dim]
        if isinstance(k, (numbers.Integral, np.integer)):
            i = int(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} "
                                 f"with size {n}")
            starts.append(i % n); sizes.append(1); strides.append(1)
        else:
            start, stop, step = k.indices(n)
            count = len(range(start, stop, step))
            if count == 0:
                raise ValueError(f"slice {k} selects no elements of axis "
                                 f"{dim}; empty arrays cannot be traced")
            if step < 0:
                # The same elements in ascending order, then reversed.
                start, step = start + (count - 1) * step, -step
                reversed_axes.append(len(sizes))
            starts.append(start); sizes.append(count); strides.append(step)
            out_shape.append(count)
        dim += 1
    value = x
    if starts != [0] * x.ndim or sizes != list(x.shape) or \
            strides != [1] * x.ndim:
        value = Tracer(_ctx().builder.slice(x.value, starts, sizes, strides))
    for axis in reversed_axes:
        n = value.shape[axis]
        ids = _ctx().constant(np.arange(n - 1, -1, -1, dtype=np.int32))
        value = _take_axis(value, ids, axis)
    return value.reshape(out_shape) if tuple(out_shape) != value.shape \
        else value


def _advanced_index(x: Tracer, expanded) -> Tracer:
    """NumPy's advanced indexing: integer arrays (and integers, which then
    count as arrays) broadcast together; their dimensions replace the
    indexed axes where those are adjacent, else go first."""
    if any(k is None for k in expanded):
        raise NotImplementedError("None (np.newaxis) combined with "
                                  "integer-array indices cannot be traced")
    # Slices first, in place (every axis stays).
    basic = [k if isinstance(k, slice) else slice(None) for k in expanded]
    y = _basic_index(x, basic)
    positions = [d for d, k in enumerate(expanded) if not isinstance(k, slice)]
    ids = [_index_array(expanded[d] if not isinstance(
        expanded[d], (numbers.Integral, np.integer)) else np.asarray(
            expanded[d]), y.shape[d], d,
        wrap="gather" if len(positions) == 1 else "here")
        for d in positions]
    try:
        shape = np.broadcast_shapes(*[i.shape for i in ids])
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be "
                         "broadcast together with shapes " +
                         " ".join(str(i.shape) for i in ids)) from None
    rest = [d for d in range(y.ndim) if d not in positions]
    if len(positions) == 1:
        linear = ids[0]
    else:
        # The indexed axes as one (row-major), indexed by the linear index.
        linear, stride = None, 1
        for d, i in reversed(list(zip(positions, ids))):
            term = i * np.int32(stride) if stride != 1 else i
            linear = term if linear is None else linear + term
            stride *= y.shape[d]
    linear = np.broadcast_to(linear, shape) if linear.shape != shape \
        else linear
    if not shape:
        linear = linear.reshape(1)
    flat = _transpose(y, positions + rest).reshape(
        [-1] + [y.shape[d] for d in rest])
    out = Tracer(_ctx().builder.gather(flat.value, linear.value))
    if not shape:
        out = out.reshape([y.shape[d] for d in rest])
    adjacent = positions == list(range(positions[0],
                                       positions[0] + len(positions)))
    if adjacent and positions[0] > 0:
        k, first = len(shape), positions[0]
        tail = list(range(k, out.ndim))
        out = _transpose(out, tail[:first] + list(range(k)) + tail[first:])
    return out


# -- more of NumPy, composed from tt ops ------------------------------------------

def _triangle(m, k: int, upper: bool) -> Tracer:
    """np.tril / np.triu: m where the (constant) triangle mask holds, else
    zero."""
    name = "triu" if upper else "tril"
    m = as_tracer(m)
    if m.ndim < 2:
        raise ValueError(f"np.{name} of a traced array needs at least 2 "
                         f"dimensions")
    rows, cols = m.shape[-2], m.shape[-1]
    lower = np.tri(rows, cols, k - 1 if upper else k, dtype=bool)
    return _where(~lower if upper else lower, m, np.zeros((), m.dtype))


@implements(np.tril)
def _tril(m, k=0):
    return _triangle(m, int(k), upper=False)


@implements(np.triu)
def _triu(m, k=0):
    return _triangle(m, int(k), upper=True)


def _full_like(a, fill_value, dtype=None, shape=None):
    a = as_tracer(a)
    dtype = check_dtype(dtype if dtype is not None else a.dtype,
                        "the result")
    shape = a.shape if shape is None else (
        (int(shape),) if isinstance(shape, (numbers.Integral, np.integer))
        else tuple(int(d) for d in shape))
    value = _ctx().constant(np.full(shape, fill_value, dtype=dtype))
    return value


@implements(np.zeros_like)
def _zeros_like(a, dtype=None, order="K", subok=True, shape=None, **kw):
    return _full_like(a, 0, dtype, shape)


@implements(np.ones_like)
def _ones_like(a, dtype=None, order="K", subok=True, shape=None, **kw):
    return _full_like(a, 1, dtype, shape)


@implements(np.full_like)
def _full_like_impl(a, fill_value, dtype=None, order="K", subok=True,
                    shape=None, **kw):
    if isinstance(fill_value, Tracer):
        a = as_tracer(a)
        target = dtype if dtype is not None else a.dtype
        return np.broadcast_to(fill_value.astype(target),
                               a.shape if shape is None else shape)
    return _full_like(a, fill_value, dtype, shape)


@implements(np.outer)
def _outer(a, b, out=None):
    a, b = as_tracer(a).reshape(-1), as_tracer(b).reshape(-1)
    return a.reshape(-1, 1) * b.reshape(1, -1)


@implements(np.tensordot)
def _tensordot(a, b, axes=2):
    a, b = as_tracer(a), as_tracer(b)
    if isinstance(axes, (numbers.Integral, np.integer)):
        n = int(axes)
        if n < 0 or n > min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={n} is out of range for "
                             f"operands of {a.ndim} and {b.ndim} dimensions")
        axes_a = list(range(a.ndim - n, a.ndim))
        axes_b = list(range(n))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (numbers.Integral,
                                                 np.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (numbers.Integral,
                                                 np.integer)) else list(axes_b)
        if len(axes_a) != len(axes_b):
            raise ValueError("shape-mismatch for sum")
        axes_a = [np.lib.array_utils.normalize_axis_index(x, a.ndim)
                  for x in axes_a]
        axes_b = [np.lib.array_utils.normalize_axis_index(x, b.ndim)
                  for x in axes_b]
    for x, y in zip(axes_a, axes_b):
        if a.shape[x] != b.shape[y]:
            raise ValueError("shape-mismatch for sum")
    free_a = [d for d in range(a.ndim) if d not in axes_a]
    free_b = [d for d in range(b.ndim) if d not in axes_b]
    k = int(np.prod([a.shape[d] for d in axes_a], dtype=np.int64))
    shape_a = [a.shape[d] for d in free_a]
    shape_b = [b.shape[d] for d in free_b]
    lhs = _transpose(a, free_a + axes_a).reshape(-1, k)
    rhs = _transpose(b, axes_b + free_b).reshape(k, -1)
    return _matmul(lhs, rhs).reshape(shape_a + shape_b)


@implements(np.dot)
def _dot(a, b, out=None):
    a, b = as_tracer(a), as_tracer(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if b.ndim == 1:
        return _tensordot(a, b, axes=([a.ndim - 1], [0]))
    return _tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


@implements(np.einsum)
def _einsum(subscripts, *operands, out=None, dtype=None, order="K",
            casting="safe", optimize=False):
    """Explicit and implicit einsum of one or more operands: repeated
    indices within one operand (traces, diagonals) are not supported. Two
    operands contract through transposes, reshapes and one matmul; more
    are contracted left to right."""
    if not isinstance(subscripts, str):
        raise NotImplementedError("einsum's sublist form cannot be traced; "
                                  "use a subscripts string")
    spec = subscripts.replace(" ", "")
    if "..." in spec:
        raise NotImplementedError("einsum with '...' cannot be traced")
    if "->" in spec:
        inputs, output = spec.split("->")
    else:
        inputs = spec
        letters = inputs.replace(",", "")
        output = "".join(sorted(c for c in set(letters)
                                if letters.count(c) == 1))
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} operand subscripts for "
                         f"{len(operands)} operands")
    tracers = [as_tracer(o) for o in operands]
    target = np.dtype(dtype) if dtype is not None else common_dtype(*tracers)
    tracers = [t.astype(target) for t in tracers]
    for term, t in zip(terms, tracers):
        if len(term) != t.ndim:
            raise ValueError(f"einsum: operand has {t.ndim} dimensions, "
                             f"subscripts '{term}' name {len(term)}")
        if len(set(term)) != len(term):
            raise NotImplementedError(
                f"einsum: repeated index in '{term}' (a trace or diagonal) "
                f"cannot be traced")
    sizes = {}
    for term, t in zip(terms, tracers):
        for c, n in zip(term, t.shape):
            if sizes.setdefault(c, n) != n and n != 1 and sizes[c] != 1:
                raise ValueError(f"einsum: index '{c}' has sizes "
                                 f"{sizes[c]} and {n}")
    result, current = tracers[0], terms[0]
    for i in range(1, len(terms)):
        # Indices used by a later operand or the output stay.
        keep = set(output) | set("".join(terms[i + 1:]))
        result, current = _einsum_pair(result, current, tracers[i], terms[i],
                                       keep)
    return _einsum_finish(result, current, output)


def _einsum_finish(x: Tracer, term: str, output: str) -> Tracer:
    """Sums the indices of `term` not in `output` and orders the rest."""
    summed = [i for i, c in enumerate(term) if c not in output]
    if summed:
        x = _sum(x, axis=tuple(summed))
        term = "".join(c for c in term if c in output)
    if set(term) != set(output):
        raise ValueError(f"einsum: output subscripts '{output}' name an "
                         f"index no operand has")
    perm = [term.index(c) for c in output]
    return _transpose(x, perm) if perm != list(range(len(perm))) else x


def _einsum_pair(a: Tracer, ta: str, b: Tracer, tb: str, keep):
    """Contracts two operands: batch indices (in both, kept), contracted
    (in both, not kept), and each side's free indices."""
    # Indices only in one operand and not needed later are summed first.
    only_a = [c for c in ta if c not in tb and c not in keep]
    if only_a:
        a = _sum(a, axis=tuple(ta.index(c) for c in only_a))
        ta = "".join(c for c in ta if c not in only_a)
    only_b = [c for c in tb if c not in ta and c not in keep]
    if only_b:
        b = _sum(b, axis=tuple(tb.index(c) for c in only_b))
        tb = "".join(c for c in tb if c not in only_b)
    batch = [c for c in ta if c in tb and c in keep]
    contract = [c for c in ta if c in tb and c not in keep]
    free_a = [c for c in ta if c not in tb]
    free_b = [c for c in tb if c not in ta]
    size = dict(zip(ta, a.shape))
    size.update(zip(tb, b.shape))
    n = lambda cs: int(np.prod([size[c] for c in cs], dtype=np.int64))  # noqa
    a3 = _transpose(a, [ta.index(c) for c in batch + free_a + contract])
    b3 = _transpose(b, [tb.index(c) for c in batch + contract + free_b])
    a3 = a3.reshape(n(batch), n(free_a), n(contract))
    b3 = b3.reshape(n(batch), n(contract), n(free_b))
    out = _matmul(a3, b3).reshape([size[c] for c in batch + free_a + free_b])
    return out, "".join(batch + free_a + free_b)


@implements(np.linalg.norm)
def _norm(x, ord=None, axis=None, keepdims=False):
    """The 2-norm of vectors (and the Frobenius norm of matrices, with
    axis=None): sqrt(sum(|x|^2)). Other orders are not supported."""
    if ord not in (None, 2, "fro") or (ord == 2 and axis is None and
                                       as_tracer(x).ndim > 1):
        raise NotImplementedError(
            f"np.linalg.norm(ord={ord!r}) cannot be traced (the 2-norm of "
            f"vectors and the Frobenius norm can)")
    x = as_tracer(x)
    if not is_float(x.dtype):
        x = x.astype(np.float64)
    return np.sqrt(_sum(x * x, axis=axis, keepdims=keepdims))
