"""Importing PyTorch programs: FX graphs of ATen ops -> tt, via the tracer.

`capture` turns a module into a `GraphProgram`: a plain Python function over
NumPy-like values that interprets the module's ATen graph node by node. Run
under `tinytensor.jit`, every ATen op becomes tt ops (through the tracer's
NumPy protocols), the parameters and buffers (NumPy views of the module's
tensors) become trailing arguments, and each result is cast to the dtype
PyTorch itself computed for the node (`node.meta["val"]`), so dtype
promotion is PyTorch's.
"""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import torch
import torch.fx
import torch.utils._pytree as pytree

from ..tracing import Tracer, as_tracer


class UnsupportedOpError(NotImplementedError):
    """A PyTorch operation TinyTensor cannot compile (yet)."""


_TORCH_TO_NUMPY = {
    torch.float32: np.float32, torch.float64: np.float64,
    torch.int32: np.int32, torch.int64: np.int32, torch.bool: np.bool_,
}


def numpy_dtype(dtype: torch.dtype):
    if dtype not in _TORCH_TO_NUMPY:
        raise TypeError(f"PyTorch dtype {dtype} is not supported by "
                        f"TinyTensor (float32, float64, int32/int64, bool)")
    return np.dtype(_TORCH_TO_NUMPY[dtype])


def tensor_to_numpy(t: torch.Tensor) -> np.ndarray:
    """A NumPy view (copy only for int64 -> int32) of a CPU tensor."""
    array = t.detach().cpu().numpy()
    return array.astype(np.int32) if array.dtype == np.int64 else array


# -- ATen op implementations ----------------------------------------------------
#
# Each takes the node's arguments with graph values replaced by NumPy arrays
# or Tracers, and returns the result(s).

def _dim(x) -> int:
    return np.ndim(x) if not isinstance(x, Tracer) else x.ndim


def _axes(dims, x):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return None
    return tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)


def _add(x, y, alpha=1):
    return x + (y if alpha == 1 else y * alpha)


def _sub(x, y, alpha=1):
    return x - (y if alpha == 1 else y * alpha)


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                      (x + 0.044715 * x * x * x)))
    from ..functions import erf
    return 0.5 * x * (1 + erf(x * (1 / math.sqrt(2))))


def _softmax(x, dim, half_to_float=False):
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def _log_softmax(x, dim, half_to_float=False):
    shifted = x - np.max(x, axis=dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))


def _native_layer_norm(x, normalized_shape, weight, bias, eps):
    axes = tuple(range(_dim(x) - len(normalized_shape), _dim(x)))
    mean = np.mean(x, axis=axes, keepdims=True)
    var = np.var(x, axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    out = (x - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


def _layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5,
                cudnn_enable=True):
    return _native_layer_norm(x, normalized_shape, weight, bias, eps)[0]


def _var(x, dim=None, unbiased=None, keepdim=False, correction=None):
    ddof = correction if correction is not None else (
        1 if unbiased is None or unbiased else 0)
    return np.var(x, axis=_axes(dim, x), ddof=ddof, keepdims=keepdim)


def _addmm(bias, a, b, beta=1, alpha=1):
    product = a @ b
    if alpha != 1:
        product = product * alpha
    return product + (bias if beta == 1 else bias * beta)


def _linear(x, weight, bias=None):
    out = x @ np.transpose(weight)
    return out if bias is None else out + bias


def _expand(x, size, implicit=False):
    shape = list(size)
    offset = len(shape) - _dim(x)
    current = np.shape(x) if not isinstance(x, Tracer) else x.shape
    for i, s in enumerate(shape):
        if s == -1:
            shape[i] = current[i - offset]
    return np.broadcast_to(as_tracer(x), tuple(shape))


def _slice(x, dim=0, start=None, end=None, step=1):
    n = (x.shape if isinstance(x, Tracer) else np.shape(x))[dim]
    start = 0 if start is None else start
    end = n if end is None else min(end, n)
    index = [slice(None)] * _dim(x)
    index[dim] = slice(start, end, step)
    return x[tuple(index)]


def _select(x, dim, index):
    idx = [slice(None)] * _dim(x)
    idx[dim] = index
    return x[tuple(idx)]


def _split(x, split_size, dim=0):
    n = (x.shape if isinstance(x, Tracer) else np.shape(x))[dim]
    bounds = list(range(split_size, n, split_size))
    return np.split(x, bounds, axis=dim)


def _split_with_sizes(x, sizes, dim=0):
    return np.split(x, list(np.cumsum(sizes)[:-1]), axis=dim)


def _chunk(x, chunks, dim=0):
    n = (x.shape if isinstance(x, Tracer) else np.shape(x))[dim]
    return _split(x, -(-n // chunks), dim)


def _squeeze(x, dim=None):
    if dim is None:
        return np.squeeze(x)
    dims = dim if isinstance(dim, (list, tuple)) else [dim]
    shape = x.shape if isinstance(x, Tracer) else np.shape(x)
    dims = [d for d in dims if shape[d] == 1]  # torch ignores size != 1
    return np.squeeze(x, axis=tuple(dims)) if dims else x


def _flatten(x, start_dim=0, end_dim=-1):
    shape = list(x.shape if isinstance(x, Tracer) else np.shape(x))
    if not shape:
        return np.reshape(x, (1,))
    end = end_dim % len(shape)
    new = shape[:start_dim] + [-1] + shape[end + 1:]
    return np.reshape(x, new)


def _where(cond, x, y):
    return np.where(cond, x, y)


def _dropout(x, p=0.5, train=False):
    if train and p > 0:
        raise UnsupportedOpError(
            "dropout in training mode is random; call model.eval() before "
            "compiling")
    return x


def _to_copy(x, dtype=None, **kwargs):
    if dtype is None:
        return x
    return as_tracer(x).astype(numpy_dtype(dtype)) if isinstance(
        x, Tracer) else np.asarray(x).astype(numpy_dtype(dtype))


def _full(size, fill_value, dtype=None, **kwargs):
    dtype = numpy_dtype(dtype) if dtype is not None else (
        np.float32 if isinstance(fill_value, float) else np.int32)
    return np.full(tuple(size), fill_value, dtype=dtype)


def _embedding(weight, indices, *args):
    return as_tracer(weight)[indices]


def _erf(x):
    from ..functions import erf
    return erf(x)


def _identity(x, *args, **kwargs):
    return x


ATEN_OPS: Dict[str, Callable] = {
    "add": _add, "sub": _sub, "rsub": lambda x, y, alpha=1: _sub(y, x, alpha),
    "mul": operator.mul, "div": lambda x, y, rounding_mode=None: x / y,
    "pow": operator.pow, "neg": operator.neg, "abs": np.abs,
    "exp": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x,
    "erf": lambda x: _erf(x),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "relu": lambda x: np.maximum(x, 0), "gelu": _gelu,
    "maximum": np.maximum, "minimum": np.minimum,
    "clamp": lambda x, min=None, max=None: _clamp(x, min, max),
    "clamp_min": lambda x, min: np.maximum(x, min),
    "clamp_max": lambda x, max: np.minimum(x, max),
    "where": _where, "gt": operator.gt, "lt": operator.lt,
    "ge": operator.ge, "le": operator.le, "eq": operator.eq,
    "ne": operator.ne,
    "sum": lambda x, dim=None, keepdim=False, dtype=None: np.sum(
        x, axis=_axes(dim, x), keepdims=keepdim),
    "mean": lambda x, dim=None, keepdim=False, dtype=None: np.mean(
        x, axis=_axes(dim, x), keepdims=keepdim),
    "var": _var,
    "amax": lambda x, dim=(), keepdim=False: np.max(
        x, axis=_axes(dim, x), keepdims=keepdim),
    "_softmax": _softmax, "softmax": lambda x, dim, dtype=None: _softmax(
        x, dim),
    "_log_softmax": _log_softmax,
    "log_softmax": lambda x, dim, dtype=None: _log_softmax(x, dim),
    "native_layer_norm": _native_layer_norm, "layer_norm": _layer_norm,
    "mm": operator.matmul, "bmm": operator.matmul,
    "matmul": operator.matmul, "addmm": _addmm, "linear": _linear,
    "view": lambda x, size: np.reshape(x, tuple(size)),
    "_unsafe_view": lambda x, size: np.reshape(x, tuple(size)),
    "reshape": lambda x, size: np.reshape(x, tuple(size)),
    "permute": lambda x, dims: np.transpose(x, tuple(d % _dim(x)
                                                      for d in dims)),
    "t": lambda x: np.transpose(x),
    "unsqueeze": lambda x, dim: np.expand_dims(x, dim % (_dim(x) + 1)),
    "squeeze": _squeeze, "flatten": _flatten, "expand": _expand,
    "slice": _slice, "select": _select, "cat": lambda ts, dim=0:
        np.concatenate(list(ts), axis=dim),
    "split": _split, "split_with_sizes": _split_with_sizes, "chunk": _chunk,
    "dropout": _dropout, "native_dropout": lambda x, p, train:
        (_dropout(x, p, train), None),
    "_to_copy": _to_copy, "to": _to_copy, "full": _full,
    "scalar_tensor": lambda v, dtype=None, **kw: _full((), v, dtype),
    "embedding": _embedding,
    "clone": _identity, "contiguous": _identity, "alias": _identity,
    "detach": _identity, "lift_fresh_copy": _identity,
}


def _clamp(x, lo, hi):
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def _swapaxes(x, a, b):
    n = _dim(x)
    perm = list(range(n))
    perm[a % n], perm[b % n] = perm[b % n], perm[a % n]
    return np.transpose(x, perm)


ATEN_OPS["transpose"] = _swapaxes


# -- programs -------------------------------------------------------------------

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
        if lines:
            parts.append("at " + lines[-1])
    return ", ".join(parts) or f"at graph node '{node.name}'"


class GraphProgram:
    """An FX graph of ATen ops plus the tensors it reads, as a function that
    TinyTensor's tracer can run."""

    def __init__(self, graph: torch.fx.Graph, user_inputs: List[str],
                 constants: Dict[str, torch.Tensor], out_spec):
        self.graph = graph
        self.user_inputs = user_inputs
        self.out_spec = out_spec
        # NumPy views of the parameters and buffers: the tracer turns them
        # into trailing arguments, read afresh at every call.
        params = {name: tensor_to_numpy(t) for name, t in constants.items()}
        self.params = params
        program = self

        def forward(*inputs):
            return program.run(inputs, params)

        self.function = forward

    def run(self, inputs: Sequence, params: Dict[str, Any]):
        env: Dict[torch.fx.Node, Any] = {}
        user = dict(zip(self.user_inputs, inputs))
        if len(user) != len(inputs):
            raise TypeError(f"expected {len(self.user_inputs)} inputs, got "
                            f"{len(inputs)}")

        def load(a):
            return env[a] if isinstance(a, torch.fx.Node) else a

        for node in self.graph.nodes:
            if node.op == "placeholder":
                env[node] = user[node.name] if node.name in user else \
                    params[node.name]
            elif node.op == "get_attr":
                env[node] = params[node.target]
            elif node.op == "call_function":
                args = pytree.tree_map(load, node.args)
                kwargs = pytree.tree_map(load, node.kwargs)
                env[node] = self._call(node, args, kwargs)
            elif node.op == "output":
                outputs = pytree.tree_map(load, node.args[0])
                return list(outputs) if isinstance(outputs, (list, tuple)) \
                    else [outputs]
            else:
                raise UnsupportedOpError(
                    f"unsupported FX node kind '{node.op}' ({node.target}) "
                    f"{_where_in_model(node)}")
        raise RuntimeError("graph has no output node")

    def _call(self, node, args, kwargs):
        name = _op_name(node.target)
        if name == "getitem":
            return args[0][args[1]]
        impl = ATEN_OPS.get(name)
        if impl is None:
            raise UnsupportedOpError(
                f"unsupported PyTorch operation '{node.target}' "
                f"{_where_in_model(node)}")
        kwargs = {k: v for k, v in kwargs.items()
                  if k not in ("layout", "device", "pin_memory",
                               "memory_format", "non_blocking")}
        try:
            result = impl(*args, **kwargs)
        except (UnsupportedOpError, TypeError, ValueError) as e:
            raise type(e)(f"{e} (while compiling '{node.target}' "
                          f"{_where_in_model(node)})") from None
        return self._torch_dtype(node, result)

    @staticmethod
    def _torch_dtype(node, result):
        """Casts a tensor result to the dtype PyTorch computed."""
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and isinstance(result, Tracer):
            dtype = numpy_dtype(val.dtype)
            if result.dtype != dtype:
                return result.astype(dtype)
        return result

    def restructure(self, outputs: List[torch.Tensor]):
        if self.out_spec is None:
            return outputs[0] if len(outputs) == 1 else tuple(outputs)
        return pytree.tree_unflatten(outputs, self.out_spec)


def _from_export(model, inputs) -> GraphProgram:
    from torch.export.graph_signature import InputKind, OutputKind

    with warnings.catch_warnings():
        # PyTorch's own pytree internals warn about their deprecated API.
        warnings.filterwarnings("ignore", category=FutureWarning,
                                message=".*LeafSpec.*")
        ep = torch.export.export(model, inputs)
        ep = ep.run_decompositions()
    sig = ep.graph_signature
    user_inputs, constants = [], {}
    for spec in sig.input_specs:
        name = spec.arg.name
        if spec.kind == InputKind.USER_INPUT:
            user_inputs.append(name)
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            source = ep.state_dict.get(spec.target)
            if source is None:
                source = ep.constants[spec.target]
            constants[name] = source
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            constants[name] = ep.constants[spec.target]
        else:
            raise UnsupportedOpError(f"unsupported graph input kind "
                                     f"{spec.kind} ({spec.target})")
    for spec in sig.output_specs:
        if spec.kind != OutputKind.USER_OUTPUT:
            raise UnsupportedOpError(
                f"the model mutates state ({spec.kind} of {spec.target}); "
                f"only pure forward passes can be compiled")
    return GraphProgram(ep.graph_module.graph, user_inputs, constants,
                        ep.call_spec.out_spec)


def _from_symbolic_trace(model, inputs) -> GraphProgram:
    """torch.fx.symbolic_trace (which rejects data-dependent control flow),
    then make_fx to get ATen ops with the weights as graph attributes."""
    from torch._decomp import core_aten_decompositions
    from torch.fx.experimental.proxy_tensor import make_fx

    traced = torch.fx.symbolic_trace(model)
    gm = make_fx(traced, decomposition_table=core_aten_decompositions())(
        *inputs)
    constants = {}
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            constants[node.target] = getattr(gm, node.target)
    user_inputs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    return GraphProgram(gm.graph, user_inputs, constants, None)


def capture(model: torch.nn.Module, inputs: tuple) -> GraphProgram:
    """The ATen program of `model` on inputs shaped like `inputs`."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"expected a torch.nn.Module, got "
                        f"{type(model).__name__}")
    try:
        return _from_export(model, inputs)
    except UnsupportedOpError:
        raise
    except Exception as export_error:  # torch.export rejected the module
        try:
            return _from_symbolic_trace(model, inputs)
        except Exception as fx_error:
            raise UnsupportedOpError(
                f"could not capture {type(model).__name__}: torch.export "
                f"failed ({type(export_error).__name__}: {export_error}) "
                f"and torch.fx.symbolic_trace failed "
                f"({type(fx_error).__name__}: {fx_error})") from fx_error
