"""Building `tt` IR: one function per tt op, used by the tracer.

Result types always come from the tt dialect's own type inference (the op
classes are generated from TinyTensor's ODS); shape or dtype mistakes it
reports become ValueError/TypeError with the dialect's message.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from typing import List, Sequence

import numpy as np

from ._mlir import ir, tt
from .types import (check_dtype, dtype_of_element, is_float,
                    mlir_element_name, storage_view)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_CMP_PREDICATES = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}
_SCATTER_MODES = {"set": 0, "add": 1, "mul": 2, "max": 3, "min": 4}


def user_location() -> ir.Location:
    """The location of the innermost stack frame outside TinyTensor and
    NumPy: the user's line that is being traced."""
    frame = inspect.currentframe()
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (filename.startswith(_PACKAGE_DIR) or "numpy" in filename
                or filename.startswith("<__array_function__")):
            return ir.Location.file(filename, frame.f_lineno, 0)
        frame = frame.f_back
    return ir.Location.unknown()


def element_type(dtype) -> ir.Type:
    return ir.Type.parse(mlir_element_name(np.dtype(dtype)))


def tensor_type(shape: Sequence[int], dtype) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), element_type(dtype))


def shape_of(value: ir.Value):
    return tuple(ir.RankedTensorType(value.type).shape)


def dtype_of(value: ir.Value) -> np.dtype:
    et = str(ir.RankedTensorType(value.type).element_type)
    dtype = dtype_of_element(et)
    if dtype is None:
        raise TypeError(f"unsupported element type {et}")
    return dtype


def _scalar_attr(value, dtype) -> ir.Attribute:
    et = element_type(dtype)
    if is_float(np.dtype(dtype)):
        return ir.FloatAttr.get(et, float(value))
    return ir.IntegerAttr.get(et, int(value))


class Diagnostics:
    """Collects the diagnostics a context emits while building one op."""

    def __init__(self, context: ir.Context):
        self.messages: List[str] = []
        self._handler = context.attach_diagnostic_handler(self._record)

    def _record(self, diagnostic) -> bool:
        self.messages.append(str(diagnostic.message))
        return True

    def detach(self):
        self._handler.detach()


@contextlib.contextmanager
def translate_errors(op_name: str, diagnostics: Diagnostics):
    """Turns a failure to build `op_name` into a ValueError carrying what
    the dialect said."""
    diagnostics.messages.clear()
    try:
        yield
    except (ir.MLIRError, ValueError) as e:
        details = [m for m in diagnostics.messages
                   if "failed to infer returned types" not in m]
        if not details and isinstance(e, ir.MLIRError):
            details = [str(d.message) for d in e.error_diagnostics]
        message = "; ".join(details) or str(e)
        raise ValueError(f"{op_name}: {message}") from None


class IRBuilder:
    """Creates tt ops at the current insertion point."""

    def __init__(self, context: ir.Context):
        self.diagnostics = Diagnostics(context)
        #: The `tt.scope` attribute of new ops (the source calls they are
        #: traced in, see tracing.ScopeRecorder), or None.
        self.scope = None
        #: The location of new ops, when a front end knows it better than
        #: the Python stack (tinytensor.torch: the model's source line and
        #: submodule); else the user's line being traced.
        self.location = None

    def _build(self, name: str, fn, *args, **kwargs) -> ir.Value:
        with translate_errors(name, self.diagnostics):
            with self.location or user_location():
                value = fn(*args, **kwargs)
        if self.scope is not None:
            # One result, or the results of a multi-result op (tt.sort).
            owner = value.owner if isinstance(value, ir.Value) \
                else value[0].owner
            owner.attributes["tt.scope"] = self.scope
        return value

    # -- constants and casts -------------------------------------------------
    def constant(self, array: np.ndarray, resource: str = None) -> ir.Value:
        """A tt.constant of `array`: a splat when all its elements are
        equal, else dense elements, or a `dense_resource` blob named
        `resource` when one is given (not for bool arrays)."""
        array = np.asarray(array)
        if not array.flags.c_contiguous:
            array = array.copy()
        check_dtype(array.dtype, "constant")
        etype = tensor_type(array.shape, array.dtype)
        if array.size and (array == array.flat[0]).all() and \
                not np.isnan(array.flat[0]):
            return self._build("constant", tt.constant,
                               ir.DenseElementsAttr.get_splat(
                                   etype, _scalar_attr(array.flat[0],
                                                       array.dtype)))
        if resource is not None and array.dtype != np.bool_:
            attr = ir.DenseResourceElementsAttr.get_from_buffer(
                memoryview(storage_view(array)), resource, etype)
            return self._build("constant", tt.constant, attr)
        if array.dtype == np.bool_:
            attr = ir.DenseElementsAttr.get(
                np.packbits(array, bitorder="little"), type=etype)
        else:
            attr = ir.DenseElementsAttr.get(storage_view(array), type=etype)
        return self._build("constant", tt.constant, attr)

    def cast(self, value: ir.Value, dtype) -> ir.Value:
        if dtype_of(value) == np.dtype(dtype):
            return value
        return self._build("astype", tt.cast, value,
                           ir.TypeAttr.get(element_type(dtype)))

    def bitcast(self, value: ir.Value, dtype) -> ir.Value:
        """The elements' bits as `dtype` (of the same width)."""
        return self._build("view", tt.bitcast, value,
                           ir.TypeAttr.get(element_type(dtype)))

    # -- elementwise ---------------------------------------------------------
    def binary(self, name: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        return self._build(name, getattr(tt, name), lhs, rhs)

    def unary(self, name: str, value: ir.Value) -> ir.Value:
        return self._build(name, getattr(tt, name), value)

    def compare(self, predicate: str, lhs: ir.Value, rhs: ir.Value):
        attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                  _CMP_PREDICATES[predicate])
        return self._build("comparison", tt.cmp, attr, lhs, rhs)

    def select(self, cond, on_true, on_false) -> ir.Value:
        return self._build("where", tt.select, cond, on_true, on_false)

    # -- reductions and contractions ------------------------------------------
    def reduce(self, name: str, value, axes, keepdims: bool, ddof=None):
        kwargs = {}
        if ddof:
            kwargs["ddof"] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), int(ddof))
        fn = getattr(tt, name)
        return self._build(name, fn, value, ir.DenseI64ArrayAttr.get(
            list(axes)), keepdims=bool(keepdims) or None, **kwargs)

    def arg_reduce(self, name: str, value, axis: int, keepdims: bool):
        fn = getattr(tt, name)
        return self._build(name, fn, value, ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), int(axis)),
            keepdims=bool(keepdims) or None)

    def cumsum(self, value, axis: int):
        return self._build("cumsum", tt.cumsum, value, ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), int(axis)))

    def sort(self, value, axis: int, descending: bool = False):
        """(values, int32 indices) of a stable sort along `axis`."""
        values, indices = self._build(
            "sort", tt.sort, value,
            ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(axis)),
            descending=bool(descending) or None)
        return values, indices

    def matmul(self, lhs, rhs) -> ir.Value:
        return self._build("matmul", tt.matmul, lhs, rhs)

    # -- shape ops -------------------------------------------------------------
    def transpose(self, value, perm) -> ir.Value:
        return self._build("transpose", tt.transpose, value,
                           ir.DenseI64ArrayAttr.get(list(perm)))

    def reshape(self, value, shape) -> ir.Value:
        if shape_of(value) == tuple(shape):
            return value
        return self._build("reshape", tt.reshape, value,
                           ir.DenseI64ArrayAttr.get(list(shape)))

    def broadcast_to(self, value, shape) -> ir.Value:
        if shape_of(value) == tuple(shape):
            return value
        return self._build("broadcast_to", tt.broadcast_to, value,
                           ir.DenseI64ArrayAttr.get(list(shape)))

    def slice(self, value, starts, sizes, strides) -> ir.Value:
        return self._build(
            "slice", tt.slice, value, ir.DenseI64ArrayAttr.get(list(starts)),
            ir.DenseI64ArrayAttr.get(list(sizes)),
            ir.DenseI64ArrayAttr.get(list(strides)))

    def concat(self, values, axis: int) -> ir.Value:
        if len(values) == 1:
            return values[0]
        return self._build("concatenate", tt.concat, list(values),
                           ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                              axis))

    def windows(self, value, axis: int, kernel, strides, dilations):
        return self._build(
            "windows", tt.windows, value,
            ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(axis)),
            ir.DenseI64ArrayAttr.get(list(kernel)),
            ir.DenseI64ArrayAttr.get(list(strides)),
            ir.DenseI64ArrayAttr.get(list(dilations)))

    def conv(self, value, weight, strides, dilations, pad_low, pad_high,
             groups: int) -> ir.Value:
        arr = ir.DenseI64ArrayAttr.get
        return self._build(
            "conv", tt.conv, value, weight, arr(list(strides)),
            arr(list(dilations)), arr(list(pad_low)), arr(list(pad_high)),
            ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(groups)))

    def iota(self, like, dim: int) -> ir.Value:
        return self._build(
            "iota", tt.iota, like,
            ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(dim)))

    def gather(self, table, indices) -> ir.Value:
        return self._build("gather", tt.gather, table, indices)

    def scatter(self, mode: str, table, indices, updates) -> ir.Value:
        """tt.scatter: `mode` is "set", "add", "mul", "max" or "min"."""
        attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                  _SCATTER_MODES[mode])
        return self._build("scatter", tt.scatter, attr, table, indices,
                           updates)
