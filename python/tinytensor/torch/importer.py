"""Importing PyTorch programs: FX graphs of ATen ops -> tt, via the tracer.

`capture` turns a module into a `GraphProgram`: a plain Python function over
NumPy-like values that interprets the module's ATen graph node by node. Run
under `tinytensor.jit`, every ATen op becomes tt ops (through the tracer's
NumPy protocols), the parameters and buffers (NumPy views of the module's
tensors) become trailing arguments, and each result is cast to the dtype
PyTorch itself computed for the node (`node.meta["val"]`), so dtype
promotion is PyTorch's.

The ops' implementations are in one module per op family, each with its
`ATEN_OPS` table, merged here into `ATEN_OPS`: `elementwise.py`,
`reductions.py` (reductions, scans and sorting), `linear.py`
(contractions), `layout.py` (shapes and data movement), `creation.py`
(creation, conversion and no-ops), `indexing.py`, `scatter.py`,
`vision.py`, `attention.py`, `quantized.py` and `random.py`; `complex.py`
carries complex tensors through them, and `common.py` holds the dtype
conversions and the helpers the families share.
"""

from __future__ import annotations

import functools
import inspect
import operator
import os
import re
import threading
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.fx
import torch.utils._pytree as pytree

from ..shapes import DynamicDims
from ..tracing import Tracer, current_trace
from . import (attention, complex, creation, elementwise, indexing, layout,
               linalg, linear, quantized, random, reductions, scatter,
               transformer, vision)
# The dtype conversions, also imported from here (frontend.py, dynamo.py,
# the op families' lazy imports).
from .common import (_TORCH_TO_NUMPY, numpy_dtype,  # noqa: F401
                     numpy_to_tensor, tensor_to_numpy)
from .errors import UnsupportedOpError


# -- the ATen op table --------------------------------------------------------

#: The op families whose `ATEN_OPS` tables make up the importer's, and
#: random.py's `OPS` (called with the program's generator first). Each
#: name is in one table only (an error at import otherwise), so the order
#: decides nothing.
_FAMILIES = (elementwise, reductions, linear, linalg, layout, creation,
             indexing, scatter, vision, attention, transformer, quantized)


def _merge_tables(tables) -> Dict[str, Callable]:
    merged: Dict[str, Callable] = {}
    for module, table in tables:
        twice = sorted(merged.keys() & table.keys())
        if twice:
            raise RuntimeError(f"ATen ops {twice} are implemented twice "
                               f"(again in {module})")
        merged.update(table)
    return merged


ATEN_OPS: Dict[str, Callable] = _merge_tables(
    [(family.__name__, family.ATEN_OPS) for family in _FAMILIES] +
    [(random.__name__, random.OPS)])


# -- programs -----------------------------------------------------------------

class _Unavailable:
    """A result TinyTensor cannot compute (the indices of max.dim): an error
    if anything reads it."""

    def __init__(self, what: str):
        self.what = what


#: ATen ops whose result shares its input's memory (as_strided follows
#: them back to the tensor that owns it).
_VIEW_OPS = frozenset({
    "view", "_unsafe_view", "alias", "as_strided", "detach", "expand",
    "permute", "transpose", "t", "slice", "select", "diagonal", "narrow",
    "unsqueeze", "squeeze", "unfold", "movedim", "split", "split_with_sizes",
    "chunk", "unbind", "getitem", "view_as"})


def _op_name(target) -> str:
    if target is operator.getitem:
        return "getitem"
    name = getattr(target, "__name__", str(target))
    packet = getattr(target, "overloadpacket", None)
    if packet is not None:
        return packet.__name__
    return name.split(".")[0]


def _where_in_model(node: torch.fx.Node) -> str:
    """"in module 'path' (Type) at file:line" for diagnostics."""
    parts = []
    stack = node.meta.get("nn_module_stack")
    if stack:
        path, cls = list(stack.values())[-1]
        cls_name = getattr(cls, "__name__", str(cls)).split(".")[-1]
        parts.append(f"in module '{path or '<root>'}' ({cls_name})")
    trace = node.meta.get("stack_trace")
    if trace:
        lines = [l.strip() for l in trace.strip().splitlines()
                 if l.strip().startswith("File ")]
        # The innermost frame outside PyTorch's tracing machinery.
        internal = ("/torch/fx/", "/torch/_", "/torch/export/",
                    "/torch/utils/")
        lines = [l for l in lines if not any(d in l for d in internal)]
        if lines:
            parts.append("at " + lines[-1])
    return ", ".join(parts) or f"at graph node '{node.name}'"


def _node_location(node: torch.fx.Node):
    """The MLIR location of a graph node's ops: its submodule (a name) at
    the model's source line that made it, when torch recorded them."""
    from .._mlir import ir
    loc = None
    trace = node.meta.get("stack_trace")
    if trace:
        internal = ("/torch/fx/", "/torch/_", "/torch/export/",
                    "/torch/utils/")
        frames = [m for m in re.finditer(r'File "([^"]+)", line (\d+)', trace)
                  if not any(d in m.group(1) for d in internal)]
        if frames:
            loc = ir.Location.file(frames[-1].group(1),
                                   int(frames[-1].group(2)), 0)
    stack = node.meta.get("nn_module_stack")
    if stack:
        path, cls = list(stack.values())[-1]
        cls_name = getattr(cls, "__name__", str(cls)).split(".")[-1]
        name = f"{path or '<root>'} ({cls_name})"
        loc = ir.Location.name(name, childLoc=loc) if loc else \
            ir.Location.name(name)
    return loc


def _module_calls(node: torch.fx.Node, parents) -> List[Tuple[str, str]]:
    """The module calls a graph node was traced in, outermost first, as
    (call key, class name) pairs: the scopes of its ops, by which
    tt-outline-repeated-scopes compiles identical blocks of a network (the
    layers of a transformer, a ResNet's repeated blocks) once. Only calls
    of modules that call others (`parents`: their keys) are scopes: a leaf
    module (a batch norm, an activation) outlined would be a fusion
    boundary in every block. The root module is not a scope."""
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return []
    calls = []
    for key, (path, cls) in stack.items():
        if not path or key not in parents:
            continue
        name = getattr(cls, "__name__", None) or str(cls).rsplit(".", 1)[-1]
        calls.append((key, name))
    return calls


def _parent_modules(graph: torch.fx.Graph) -> set:
    """The nn_module_stack keys of module calls with calls inside them."""
    parents = set()
    for node in graph.nodes:
        stack = node.meta.get("nn_module_stack")
        if stack:
            parents.update(list(stack)[:-1])
    return parents


def _empty_result(node):
    """A node's result when it is a tensor with no elements and a static
    shape: zeros of that shape (it has no values to compute), else None."""
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor) or \
            not all(isinstance(d, int) for d in value.shape) or \
            0 not in value.shape:
        return None
    try:
        dtype = numpy_dtype(value.dtype)
    except TypeError:
        return None
    return np.zeros(tuple(value.shape), dtype)


def _memory_order(value) -> Optional[List[int]]:
    """The dimensions of a tensor that owns its memory densely (no gaps,
    no overlap, offset 0: contiguous or e.g. channels-last) from the
    outermost in memory to the innermost, or None."""
    if not isinstance(value, torch.Tensor) or value.storage_offset() != 0:
        return None
    shape, strides = tuple(value.shape), tuple(value.stride())
    order = sorted(range(len(shape)), key=lambda d: -strides[d])
    expected = 1
    for d in reversed(order):
        if shape[d] != 1 and strides[d] != expected:
            return None
        expected *= shape[d]
    return order


def _scalar_type(output) -> Optional[type]:
    """bool, int or float when a graph output is a Python number (a
    constant, or a symbolic size), else None."""
    value = output.meta.get("val") if isinstance(output, torch.fx.Node) \
        else output
    for kind, symbolic in ((bool, torch.SymBool), (int, torch.SymInt),
                           (float, torch.SymFloat)):
        if isinstance(value, (kind, symbolic)):
            return kind
    return None


def _meta_dtype(node) -> Optional[torch.dtype]:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val.dtype if isinstance(val, torch.Tensor) else None


def _attribute(model: torch.nn.Module, path: str):
    obj = model
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _tensor_key(t: torch.Tensor) -> tuple:
    return (t.data_ptr(), tuple(t.shape), t.stride(), t.dtype, t.device)


def _child(obj, name: str):
    """getattr(obj, name, None), without nn.Module.__getattr__'s Python
    fallback for parameters, buffers and submodules."""
    if isinstance(obj, torch.nn.Module):
        fields = obj.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            entries = fields.get(table)
            if entries is not None and name in entries:
                return entries[name]
    return getattr(obj, name, None)


class GraphProgram:
    """An FX graph of ATen ops plus the tensors it reads, as a function that
    TinyTensor's tracer can run.

    `constants` maps graph names to the parameter, buffer and constant
    tensors; `targets` maps the graph names of parameters and buffers to
    their attribute paths in the model (for `is_current`). `mutations` lists,
    for each leading graph output that is not a user output, ("input", index)
    or ("buffer", path): the new value of a user input or buffer that the
    model updates in place.
    """

    def __init__(self, graph: torch.fx.Graph, user_inputs: List[str],
                 constants: Dict[str, torch.Tensor], out_spec,
                 targets: Optional[Dict[str, str]] = None,
                 mutations: Sequence[tuple] = ()):
        self.graph = graph
        self.user_inputs = user_inputs
        self.out_spec = out_spec
        self.targets = dict(targets or {})
        self.mutations = list(mutations)
        #: The symbolic sizes of a program exported with dynamic_shapes:
        #: a DynamicDims over the user inputs (by position) and all graph
        #: outputs, or None.
        self.dynamic: Optional[DynamicDims] = None
        placeholders = {n.name: n for n in graph.nodes
                        if n.op == "placeholder"}
        self.input_dtypes = [_meta_dtype(placeholders.get(name))
                             for name in user_inputs]
        output = next(n for n in graph.nodes if n.op == "output")
        flat, _ = pytree.tree_flatten(output.args[0])
        self.output_dtypes = [_meta_dtype(n) for n in flat]
        #: The Python type (bool, int, float) of each output the model
        #: returns as a number rather than a tensor, else None.
        self.output_scalars = [_scalar_type(n) for n in flat]
        # NumPy views of the parameters and buffers: the tracer turns them
        # into trailing arguments, read afresh at every call; 0-d ones are
        # passed as shape (1,) views (the tracer would fold 0-d arrays as
        # constants).
        self.sources = dict(constants)
        self._keys = {name: _tensor_key(t) for name, t in constants.items()}
        #: For is_current: the attribute paths split, and the tensor
        #: objects last found current (by name).
        self._paths: Optional[List[Tuple[str, List[str]]]] = None
        self._seen: Dict[str, torch.Tensor] = {}
        self._scalars = set()
        params = {}
        #: Constants with no elements (Hugging Face's empty key/value cache
        #: before its first update): plain NumPy values, not arguments
        #: (a compiled function takes no empty arrays).
        self._empty = {}
        for name, t in constants.items():
            array = tensor_to_numpy(t, f"'{self.targets.get(name, name)}'")
            if array.ndim == 0:
                array = array.reshape(1)
                self._scalars.add(name)
            if array.size == 0:
                self._empty[name] = array
            else:
                params[name] = array
        #: The seed of the random ops (random.py), drawn from PyTorch's
        #: generator before every call (`refresh_seed`); None without them.
        self._rng_seed = None
        if any(n.op == "call_function" and _op_name(n.target) in random.OPS
               for n in graph.nodes):
            self._rng_seed = np.zeros(1, np.int64)
        self.params = params
        program = self

        def forward(*inputs):
            return program.run(inputs, params)

        # One named positional parameter per user input (the graph's
        # placeholder names), so that jit's fast path for positional arrays
        # serves the calls: a *inputs signature takes the general path,
        # which binds the signature and flattens the arguments every call.
        names = list(self.user_inputs)
        if not all(n.isidentifier() for n in names) or \
                len(set(names)) != len(names):
            names = [f"input{i}" for i in range(len(names))]
        forward.__signature__ = inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
             for n in names])
        self.function = forward

    def refresh_seed(self) -> None:
        """Draws the next seed of the program's random ops (if it has
        any) from PyTorch's default generator."""
        if self._rng_seed is not None:
            self._rng_seed[0] = random.new_seed()

    # -- the current values of the parameters and buffers ---------------------
    def is_current(self, model: torch.nn.Module) -> bool:
        """Whether the model still holds the tensors (same storage, shape,
        strides and dtype) this program reads; False after e.g.
        `model.fc.weight = nn.Parameter(...)`, `param.data = ...` or
        `model.double()`, which need a new capture."""
        # Called before every run: the same tensor object with the same
        # storage, shape, strides and dtype is the common case, checked
        # without building its key (MobileNetV3's 244 tensors: 1.3 ms ->
        # 0.6 ms per call).
        if self._paths is None:
            self._paths = [(name, path.split("."))
                           for name, path in self.targets.items()]
        seen = self._seen
        for name, parts in self._paths:
            current = model
            for part in parts:
                current = _child(current, part)
                if current is None:
                    return False
            if not isinstance(current, torch.Tensor):
                return False
            key = self._keys[name]
            if seen.get(name) is current and current.data_ptr() == key[0] \
                    and current.shape == key[1] and \
                    current.stride() == key[2] and current.dtype == key[3]:
                continue
            if _tensor_key(current) != key:
                return False
            seen[name] = current
        return True

    # -- tracing --------------------------------------------------------------
    def run(self, inputs: Sequence, params: Dict[str, Any]):
        env: Dict[torch.fx.Node, Any] = {}
        if len(self.user_inputs) != len(inputs):
            raise TypeError(f"expected {len(self.user_inputs)} inputs, got "
                            f"{len(inputs)}")
        user = dict(zip(self.user_inputs, inputs))

        def load(a):
            if not isinstance(a, torch.fx.Node):
                return a
            value = env[a]
            if isinstance(value, _Unavailable):
                error = UnsupportedOpError(
                    f"{value.what} is not supported {_where_in_model(a)}")
                error.node = a.name
                raise error
            return value

        self._env = env
        self._generator = random.Generator(self._rng_seed)
        parents = _parent_modules(self.graph)
        for node in self.graph.nodes:
            if node.op == "placeholder":
                if node.name in user:
                    env[node] = user[node.name]
                else:
                    env[node] = self._param(node.name, params)
                if complex.is_complex(_meta_dtype(node)):
                    env[node] = complex.from_pairs(env[node])
            elif node.op == "get_attr":
                env[node] = self._param(node.target, params)
            elif node.op == "call_function":
                args = pytree.tree_map(load, node.args)
                kwargs = pytree.tree_map(load, node.kwargs)
                trace = current_trace()
                if trace is not None:  # the ops' location: the model's
                    trace.builder.location = _node_location(node)
                    if trace.scopes is not None:
                        trace.scopes.module_scopes(
                            _module_calls(node, parents))
                try:
                    env[node] = self._call(node, args, kwargs)
                except (UnsupportedOpError, TypeError, ValueError) as e:
                    # The node that failed, for a caller that compiles
                    # around it (the Dynamo backend's fallback).
                    if getattr(e, "node", None) is None:
                        e.node = node.name
                    raise
                finally:
                    if trace is not None:
                        trace.builder.location = None
                        if trace.scopes is not None:
                            trace.scopes.module_scopes(())
            elif node.op == "output":
                outputs = pytree.tree_flatten(
                    pytree.tree_map(load, node.args[0]))[0]
                outputs = [complex.to_pairs(o) if isinstance(
                    o, complex.Complex) else o for o in outputs]
                for out, src in zip(outputs, pytree.tree_flatten(
                        node.args[0])[0]):
                    if out is None or isinstance(out, _Unavailable):
                        raise UnsupportedOpError(
                            f"the model returns a value TinyTensor cannot "
                            f"compute ({src})")
                return list(outputs)
            else:
                raise UnsupportedOpError(
                    f"unsupported FX node kind '{node.op}' ({node.target}) "
                    f"{_where_in_model(node)}")
        raise RuntimeError("graph has no output node")

    def _param(self, name, params):
        value = self._empty[name] if name in self._empty else params[name]
        return np.reshape(value, ()) if name in self._scalars else value

    def _as_strided(self, node, x, size, stride, storage_offset=None):
        """aten.as_strided reads the memory of the tensor that `x` is a
        view of: the graph's views are followed back to the value that
        owns it, and the offset and strides are those of that storage (as
        PyTorch's fake tensor for `x` records them)."""
        root = node.args[0]
        while root.op == "call_function" and \
                _op_name(root.target) in _VIEW_OPS:
            root = root.args[0]
        value = root.meta.get("val")
        order = _memory_order(value)
        if order is None:
            raise UnsupportedOpError(
                f"as_strided of a view whose storage TinyTensor cannot "
                f"find ({root.name}) {_where_in_model(node)}")
        if storage_offset is None:
            storage_offset = node.args[0].meta["val"].storage_offset()
        storage = np.transpose(self._env[root], order)  # memory order
        return indexing.as_strided(storage, value.numel(), size, stride,
                                   int(storage_offset))

    def _call(self, node, args, kwargs):
        name = _op_name(node.target)
        empty = _empty_result(node)
        if empty is not None:  # no elements: nothing to compute
            return empty
        if name == "getitem":
            return args[0][args[1]]
        if name == "sym_size":
            # The traced size. With dynamic_shapes the program is traced at
            # two sizes, and what the size did must generalize (a reshape
            # by it takes a -1) or the program is refused.
            return int(args[0].shape[args[1]])
        if name == "as_strided":
            return self._as_strided(node, *args, **kwargs)
        if name in ("sym_numel", "sym_stride"):
            raise UnsupportedOpError(
                f"the program uses '{node.target}' "
                f"{_where_in_model(node)}, which TinyTensor does not "
                f"support")
        if complex.has_complex(args) or complex.has_complex(kwargs.values()):
            return self._torch_dtype(node, complex.call(
                name, ATEN_OPS.get(name), args, kwargs))
        if complex.creates(name, kwargs):
            return self._torch_dtype(node, complex.create(name, args, kwargs))
        impl = ATEN_OPS.get(name)
        if name in random.OPS:
            impl = functools.partial(impl, self._generator)
        if impl is None:
            raise UnsupportedOpError(
                f"unsupported PyTorch operation '{node.target}' "
                f"{_where_in_model(node)}")
        kwargs = {k: v for k, v in kwargs.items()
                  if k not in ("layout", "device", "pin_memory",
                               "memory_format", "non_blocking")}
        try:
            result = impl(*args, **kwargs)
        except UnsupportedOpError as e:
            raise UnsupportedOpError(
                f"{e} (in '{node.target}' {_where_in_model(node)})") from None
        except (TypeError, ValueError) as e:
            raise type(e)(f"{e} (while compiling '{node.target}' "
                          f"{_where_in_model(node)})") from None
        return self._torch_dtype(node, result)

    @staticmethod
    def _torch_dtype(node, result):
        """Casts a tensor result to the dtype PyTorch computed."""
        dtype = _meta_dtype(node)
        if isinstance(result, complex.Complex) and complex.is_complex(dtype):
            return complex._lift(result, complex.part_dtype(dtype))
        if dtype is not None and isinstance(result, (Tracer, np.ndarray)):
            target = numpy_dtype(dtype)
            if result.dtype != target:
                return result.astype(target)
        return result

    # -- results --------------------------------------------------------------
    def restructure(self, outputs: List[torch.Tensor]):
        """The model's result structure from the flat user outputs, each in
        the dtype PyTorch computes (int64 where TinyTensor computed an
        int32 index, e.g. of argmax)."""
        dtypes = self.output_dtypes[len(self.mutations):]
        scalars = self.output_scalars[len(self.mutations):]
        outputs = [kind(o.item()) if kind is not None else
                   torch.view_as_complex(o).to(d) if d is not None and
                   d.is_complex else
                   o.to(d) if d is not None and o.dtype != d else o
                   for o, d, kind in zip(outputs, dtypes, scalars)]
        if self.out_spec is None:
            return outputs[0] if len(outputs) == 1 else tuple(outputs)
        return pytree.tree_unflatten(outputs, self.out_spec)


def _register_library_pytrees(model: torch.nn.Module) -> None:
    """Lets torch.export flatten the non-tensor containers a library's
    models return: Hugging Face models return their key/value cache (a
    `transformers.Cache`) next to the logits, a type torch.export does not
    know until transformers registers it (its own function, used for its
    own exports)."""
    if not type(model).__module__.startswith("transformers."):
        return
    try:
        from transformers.exporters.exporter_dynamo import (
            register_cache_pytrees_for_model)
    except ImportError:  # transformers 4.x
        try:
            from transformers.integrations.executorch import (
                register_dynamic_cache_export_support)
        except ImportError:
            return
        register_dynamic_cache_export_support()
        return
    register_cache_pytrees_for_model(model)


def _importable(ep) -> bool:
    """Whether the importer has every op of an exported program."""
    return all(_op_name(node.target) in ATEN_OPS or
               _op_name(node.target) in ("getitem", "sym_size", "as_strided")
               for node in ep.graph.nodes if node.op == "call_function")


def _export_aten(model, inputs):
    """The model's ATen program from one trace, or None.

    torch.export.export records the training IR (before autograd, with
    in-place ops) and `run_decompositions` traces that again to reach ATen
    ops: two traces of the model (MobileNetV3-small: 0.4 + 1.2 s). Its
    non-strict tracer can also stop below autograd, functional, in one
    trace (torch.export's own `_export(pre_dispatch=False)`, what
    torch.export produced before its training IR; 0.8 s), leaving some
    composite ops whole (`hardswish`, `mish`). None when that tracer fails
    (the usual path then reports the model's error) or with
    TT_EXPORT_ONE_TRACE=0."""
    if os.environ.get("TT_EXPORT_ONE_TRACE", "1") == "0":
        return None
    try:
        from torch.export._trace import _export as export_aten
        return export_aten(model, inputs, strict=False, pre_dispatch=False)
    except Exception:
        return None


def _export(model, inputs, dynamic_shapes=None):
    _register_library_pytrees(model)
    with warnings.catch_warnings():
        # PyTorch's own pytree internals warn about their deprecated API.
        warnings.filterwarnings("ignore", category=FutureWarning,
                                message=".*LeafSpec.*")
        ep = _export_aten(model, inputs) if dynamic_shapes is None else None
        if ep is not None and _importable(ep):
            return ep
        # The training IR, or an ATen program with ops the importer does
        # not have: decomposed (traced again) to core ATen ops.
        table = torch.export.default_decompositions()
        # Attention stays one op (attention.py says why).
        table.pop(torch.ops.aten.scaled_dot_product_attention.default, None)
        if dynamic_shapes is not None:
            # With dynamic dimensions, aten.linear of a stack of rows stays
            # one op (tt.matmul takes the stack): its decomposition
            # reshapes by the symbolic sizes, which tt.reshape cannot take.
            table.pop(torch.ops.aten.linear.default, None)
        if ep is not None:
            try:
                return ep.run_decompositions(table)
            except Exception:
                # Traced again from ATen, a view may meet strides that the
                # training IR's trace never has (Hugging Face's Swin: "Cannot
                # view a tensor with shape [64, 49, 96] and strides (96,
                # 6144, 1)"): decomposed from the training IR instead.
                pass
        try:
            ep = torch.export.export(model, inputs,
                                     dynamic_shapes=dynamic_shapes)
        except Exception as error:
            if "data-dependent" not in str(error):
                raise
            # int(tensor), float(tensor), tensor.item(): Dynamo's (strict)
            # export records them as aten.item / _local_scalar_dense where
            # the non-strict one needs a concrete value.
            ep = torch.export.export(model, inputs,
                                     dynamic_shapes=dynamic_shapes,
                                     strict=True)
        return ep.run_decompositions(table)


def _symbol(size, what: str) -> Optional[str]:
    """The symbol of a dynamic size (a torch.SymInt that is one symbol), or
    None for a static size."""
    if not isinstance(size, torch.SymInt):
        return None
    import sympy
    expr = size.node.expr
    if isinstance(expr, sympy.Integer):
        return None
    if not isinstance(expr, sympy.Symbol):
        raise UnsupportedOpError(
            f"{what} has the size {expr}: with dynamic_shapes, TinyTensor "
            f"supports sizes that are one dynamic dimension of an input, "
            f"not expressions of them")
    return str(expr)


def _dynamic_dims(ep, user_inputs: List[str]) -> DynamicDims:
    """The symbolic sizes of an exported program: which user input
    dimensions are dynamic, the symbol of each output dimension, and the
    symbols' ranges."""
    graph = ep.graph_module.graph
    placeholders = {n.name: n for n in graph.nodes if n.op == "placeholder"}
    inputs = {}
    for i, name in enumerate(user_inputs):
        val = placeholders[name].meta.get("val")
        for d, size in enumerate(getattr(val, "shape", ())):
            symbol = _symbol(size, f"input #{i} dimension {d}")
            if symbol is not None:
                inputs[(i, d)] = symbol
    output = next(n for n in graph.nodes if n.op == "output")
    flat, _ = pytree.tree_flatten(output.args[0])
    outputs = []
    for k, node in enumerate(flat):
        val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
        outputs.append([_symbol(size, f"output #{k} dimension {d}")
                        for d, size in enumerate(getattr(val, "shape", ()))])
    ranges = {}
    for symbol, vr in ep.range_constraints.items():
        lo = max(int(vr.lower), 1)
        hi = None if str(vr.upper) in ("int_oo", "oo") else int(vr.upper)
        ranges[str(symbol)] = (lo, hi)
    return DynamicDims(inputs, outputs, ranges)


def _from_export(model, ep) -> GraphProgram:
    from torch.export.graph_signature import InputKind, OutputKind

    sig = ep.graph_signature
    user_inputs, constants, targets = [], {}, {}
    for spec in sig.input_specs:
        name = spec.arg.name
        if spec.kind == InputKind.USER_INPUT:
            user_inputs.append(name)
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            source = ep.state_dict.get(spec.target)
            if source is None:
                source = ep.constants[spec.target]
            constants[name] = source
            if isinstance(_attribute(model, spec.target), torch.Tensor):
                targets[name] = spec.target
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            constants[name] = ep.constants[spec.target]
        else:
            raise UnsupportedOpError(f"unsupported graph input kind "
                                     f"{spec.kind} ({spec.target})")
    mutations, seen_user_output = [], False
    for spec in sig.output_specs:
        if spec.kind == OutputKind.USER_OUTPUT:
            seen_user_output = True
            continue
        if seen_user_output:
            raise UnsupportedOpError(f"unexpected graph output order "
                                     f"({spec.kind} after user outputs)")
        if spec.kind == OutputKind.USER_INPUT_MUTATION:
            mutations.append(("input", user_inputs.index(spec.target)))
        elif spec.kind == OutputKind.BUFFER_MUTATION and \
                isinstance(_attribute(model, spec.target), torch.Tensor):
            mutations.append(("buffer", spec.target))
        else:
            raise UnsupportedOpError(
                f"the model updates state in a way TinyTensor cannot "
                f"compile ({spec.kind} of {spec.target})")
    return GraphProgram(ep.graph_module.graph, user_inputs, constants,
                        ep.call_spec.out_spec, targets, mutations)


def _symbolic_trace(model, inputs) -> torch.fx.GraphModule:
    """torch.fx.symbolic_trace (which rejects data-dependent control flow),
    then make_fx to get ATen ops with the weights as graph attributes."""
    from torch._decomp import core_aten_decompositions
    from torch.fx.experimental.proxy_tensor import make_fx

    import torch.fx.traceback as fx_traceback

    tracer = torch.fx.Tracer()
    tracer.record_stack_traces = True
    traced = torch.fx.GraphModule(model, tracer.trace(model))
    # Interpreting the traced graph under preserve_node_meta carries each
    # node's module path and source line onto the ATen nodes (diagnostics).
    with fx_traceback.preserve_node_meta():
        return make_fx(lambda *args: torch.fx.Interpreter(traced).run(*args),
                       decomposition_table=core_aten_decompositions())(
            *inputs)


def _from_symbolic_trace(model, gm) -> GraphProgram:
    paths = {id(t): path for path, t in list(
        model.named_parameters(remove_duplicate=False)) + list(
        model.named_buffers(remove_duplicate=False))}
    constants, targets = {}, {}
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            constants[node.target] = getattr(gm, node.target)
            if id(constants[node.target]) in paths:
                targets[node.target] = paths[id(constants[node.target])]
    user_inputs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    return GraphProgram(gm.graph, user_inputs, constants, None, targets)


_CAPTURE_LOCK = threading.RLock()


def capture(model: torch.nn.Module, inputs: tuple,
            dynamic_shapes=None) -> GraphProgram:
    """The ATen program of `model` on inputs shaped like `inputs`; with
    `dynamic_shapes` (torch.export's argument) its symbolic sizes are in
    the program's `dynamic`. torch.export is not thread-safe: captures run
    one at a time."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"expected a torch.nn.Module, got "
                        f"{type(model).__name__}")
    with _CAPTURE_LOCK:
        if dynamic_shapes is None:
            return _capture(model, inputs)
        try:
            ep = _export(model, inputs, dynamic_shapes)
        except Exception as e:
            raise UnsupportedOpError(
                f"could not capture {type(model).__name__} with "
                f"dynamic_shapes: torch.export failed "
                f"({type(e).__name__}: {e})") from e
        program = _from_export(model, ep)
        program.dynamic = _dynamic_dims(ep, program.user_inputs)
        return program


def _capture(model: torch.nn.Module, inputs: tuple) -> GraphProgram:
    try:
        ep = _export(model, inputs)
    except Exception as export_error:  # torch.export rejected the module
        try:
            traced = _symbolic_trace(model, inputs)
        except Exception as fx_error:
            raise UnsupportedOpError(
                f"could not capture {type(model).__name__}: torch.export "
                f"failed ({type(export_error).__name__}: {export_error}) "
                f"and torch.fx.symbolic_trace failed "
                f"({type(fx_error).__name__}: {fx_error})") from fx_error
        return _from_symbolic_trace(model, traced)
    return _from_export(model, ep)
