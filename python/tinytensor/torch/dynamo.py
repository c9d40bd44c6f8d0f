"""`torch.compile(model, backend="tinytensor")`: TinyTensor as a Dynamo
backend.

    import tinytensor.torch  # registers the backend
    fast = torch.compile(model, backend="tinytensor")
    fast = torch.compile(model, backend="tinytensor",
                         options={"fallback": False})

How a graph flows: Dynamo captures the Python code between graph breaks
(data-dependent control flow, `.item()`, `print` stay Python) as FX graphs
of torch calls; AOTAutograd turns each into ATen graphs, a forward and,
when the inputs require gradients, a backward; each ATen graph is
partitioned here: the nodes the importer can compile form partitions, each
compiled by the same path as `tinytensor.torch.jit` (importer -> tt ->
linalg -> CPU code), and the nodes it cannot run eagerly between them
(`torch.fx.passes.infra.partitioner.CapabilityBasedPartitioner`). A
partition is compiled on its first call for the shapes it gets, and again
for new shapes.

Falling back: each op kind that runs eagerly is reported once per process
as a `FallbackWarning` naming it; the logger "tinytensor.torch.dynamo"
lists every graph's partitions and eager nodes at level INFO. With
`options={"fallback": False}` an op TinyTensor cannot compile raises
`UnsupportedOpError` naming it and where the model uses it.

Options (`torch.compile(..., options={...})`):
- "fallback" (default True): run what TinyTensor cannot compile eagerly;
  False raises UnsupportedOpError instead.
- "check_indices" (default True): check gathered indices at run time
  (IndexError); False clamps them instead (as `tinytensor.jit`).
- "min_partition_ops" (default 1): partitions with fewer compute ops run
  eagerly (view and shape ops do not count).
- "threads" (default: TT_NUM_THREADS): threads of the compiled code's
  parallel loops.
- "opt_level" (default: TT_OPT_LEVEL, 2): LLVM's optimisation level, 0-3.
- "eager_ops" (default ("convolution_backward",)): ATen ops (overload
  packet names) that run eagerly although TinyTensor compiles them,
  because PyTorch's kernels are faster there: oneDNN's convolution
  gradients beat ours at training batch sizes (docs/performance.md).
  () compiles everything TinyTensor can.
- "partition" (default "min-cut"): how AOTAutograd splits a training graph
  into forward and backward: "min-cut" (its min-cut rematerialisation, as
  Inductor uses: the backward recomputes cheap elementwise values instead
  of the forward saving them) or "default" (the forward saves every value
  the backward reads).
Pass options stay environment variables, read at import:
TT_OPTIMIZE_OPTIONS / TT_PIPELINE_OPTIONS (e.g. turning one optimisation
off), and TT_CACHE_DIR (the compile cache).
"""

from __future__ import annotations

import functools
import logging
import operator
import threading
import warnings
from typing import Any, Dict, Optional, Set

import torch
import torch.utils._pytree as pytree
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from .. import runtime
from ..compiler import CompilationError
from .errors import UnsupportedOpError
from .importer import (_TORCH_TO_NUMPY, ATEN_OPS, GraphProgram, _op_name,
                       _where_in_model)

log = logging.getLogger("tinytensor.torch.dynamo")

BACKEND_NAME = "tinytensor"

#: The options and their defaults.
DEFAULT_OPTIONS: Dict[str, Any] = {
    "fallback": True,
    "check_indices": True,
    "min_partition_ops": 1,
    "threads": None,
    "opt_level": None,
    "eager_ops": ("convolution_backward",),
    "partition": "min-cut",
}


class FallbackWarning(UserWarning):
    """An op of a graph that TinyTensor cannot compile runs eagerly."""


#: Tensor dtypes the compiled code takes and returns.
_DTYPES = frozenset(_TORCH_TO_NUMPY)

#: Ops that move no data or only reshape it: a partition of these alone is
#: not worth a compiled call.
_VIEW_OPS = {"view", "_unsafe_view", "reshape", "permute", "t", "transpose",
             "expand", "squeeze", "unsqueeze", "alias", "clone", "slice",
             "select", "detach", "getitem", "split", "split_with_sizes",
             "contiguous", "lift_fresh_copy"}

#: Counts since the process started (or `reset_counters()`): "graphs",
#: the ATen graphs the backend was handed (forward, backward and
#: inference graphs apart), "programs", the TinyTensor programs compiled
#: for their partitions (one per partition and set of shapes), and
#: "fallbacks", partitions partitioned again after a node failed.
counters: Dict[str, int] = {"graphs": 0, "programs": 0, "fallbacks": 0}


def reset_counters() -> None:
    for key in counters:
        counters[key] = 0


_warned: Set[str] = set()
_warned_lock = threading.Lock()


def _options(options: Optional[dict]) -> Dict[str, Any]:
    settings = dict(DEFAULT_OPTIONS)
    for key, value in (options or {}).items():
        if key not in DEFAULT_OPTIONS:
            raise ValueError(
                f"unknown tinytensor backend option {key!r} (options: "
                f"{', '.join(sorted(DEFAULT_OPTIONS))}; pass options are "
                f"the environment variables TT_OPTIMIZE_OPTIONS and "
                f"TT_PIPELINE_OPTIONS)")
        settings[key] = value
    eager = settings["eager_ops"]
    if isinstance(eager, str) or not all(isinstance(op, str)
                                         for op in eager):
        raise ValueError(f"eager_ops must be a sequence of ATen op names "
                         f"(e.g. ('convolution_backward',)), got {eager!r}")
    runtime.check_settings(settings["opt_level"], settings["threads"])
    if settings["partition"] not in ("min-cut", "default"):
        raise ValueError(f"partition must be 'min-cut' or 'default', got "
                         f"{settings['partition']!r}")
    return settings


def _tensors(value):
    return [v for v in pytree.tree_flatten(value)[0]
            if isinstance(v, torch.Tensor)]


#: Arithmetic on sizes that a graph with dynamic shapes computes (the
#: importer computes it on the traced sizes).
_SIZE_OPS = {operator.add, operator.sub, operator.mul,
             torch.ops.aten.sym_size.int}


def _node_tensors_ok(node: torch.fx.Node) -> bool:
    """Whether every tensor the node reads and makes has a dtype the
    compiled code takes and its results no empty dimension; a size
    (SymInt) it makes must come from size arithmetic, and no other scalar
    may flow in (a float from `.item()`)."""
    val = node.meta.get("val")
    if isinstance(val, torch.SymInt):
        return node.target in _SIZE_OPS
    values = _tensors(val)
    if not values and val is not None:
        return False  # another scalar result
    for arg in pytree.tree_flatten((node.args, node.kwargs))[0]:
        if isinstance(arg, torch.fx.Node):
            val = arg.meta.get("val")
            if isinstance(val, torch.SymInt):
                continue
            if not isinstance(val, (torch.Tensor, list, tuple)):
                return False
            values += _tensors(val)
    # Empty inputs are fine (a partition takes them as constants: a key/
    # value cache before its first token); empty results are not.
    return all(t.dtype in _DTYPES for t in values) and _results_ok(node)


def _results_ok(node: torch.fx.Node) -> bool:
    """Whether the tensors a node makes have dtypes the compiled code
    returns, with no empty dimension. A multi-result op's empty results
    (batch norm's saved statistics in eval mode) are fine while nothing
    reads them: each result read is a getitem, checked on its own."""
    val = node.meta.get("val")
    multi = isinstance(val, (list, tuple))
    return all(t.dtype in _DTYPES and (multi or not any(
        isinstance(d, int) and d == 0 for d in t.shape))
        for t in _tensors(val))


class _Support(OperatorSupportBase):
    """The nodes the importer compiles, less the ones excluded after they
    failed to compile."""

    def __init__(self, excluded: Set[str], eager_ops=()):
        self.excluded = excluded
        self.eager_ops = frozenset(eager_ops)

    def is_node_supported(self, submodules, node: torch.fx.Node) -> bool:
        if node.op != "call_function" or node.name in self.excluded:
            return False
        name = _op_name(node.target)
        if name in self.eager_ops:
            return False
        if name == "getitem":
            source = node.args[0]
            return isinstance(source, torch.fx.Node) and \
                self.is_node_supported(submodules, source) and \
                _results_ok(node)
        if node.target is torch.ops.aten.sym_size.int:
            return True
        if _is_input_update(node):
            return _node_tensors_ok(node)
        return name in ATEN_OPS and _node_tensors_ok(node)


def _is_input_update(node: torch.fx.Node) -> bool:
    """Whether a node is `copy_(input, value)` of a graph input with a value
    of its shape and dtype, the input's last use: an in-place update that
    AOTAutograd keeps in the graph (an optimizer step's), compiled as a
    result computed into the input's memory (see `_input_updates`)."""
    if node.target is not torch.ops.aten.copy_.default or node.users or \
            len(node.args) != 2 or node.kwargs:
        return False
    dst, src = node.args
    if not isinstance(dst, torch.fx.Node) or dst.op != "placeholder" or \
            not isinstance(src, torch.fx.Node):
        return False
    a, b = dst.meta.get("val"), src.meta.get("val")
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor) or \
            a.dtype != b.dtype or a.shape != b.shape:
        return False
    later = False
    for n in node.graph.nodes:  # no use of the input after the update
        if n is node:
            later = True
        elif later and dst in n.all_input_nodes:
            return False
    return True


def _input_updates(gm: torch.fx.GraphModule, inputs: list):
    """A copy of the graph without its input updates (`_is_input_update`),
    their values leading its outputs instead; with GraphProgram's
    `mutations` for them (("input", position in `inputs`, the placeholder
    names passed)) and the original outputs' structure. None if the graph
    updates no input."""
    updates = [n for n in gm.graph.nodes if _is_input_update(n) and
               n.args[0].name in inputs]
    targets = [n.args[0].name for n in updates]
    if not updates or len(set(targets)) != len(targets):
        return None
    graph = torch.fx.Graph()
    mapping = {}
    out = graph.graph_copy(gm.graph, mapping)
    flat, spec = pytree.tree_flatten(out)
    for n in updates:
        graph.erase_node(mapping[n])
    values = [mapping[n.args[1]] for n in updates]
    graph.output(tuple(values) + tuple(flat))
    mutations = [("input", inputs.index(t)) for t in targets]
    return graph, mutations, spec


def _describe(node: torch.fx.Node) -> str:
    return str(node.target)


def _report_eager(nodes, settings, where: str) -> None:
    """Warns once per op kind that runs eagerly; raises instead when the
    fallback is off."""
    if not nodes:
        return
    if not settings["fallback"]:
        node = nodes[0]
        raise UnsupportedOpError(
            f"TinyTensor cannot compile '{_describe(node)}' "
            f"{_where_in_model(node)} (torch.compile backend "
            f"'{BACKEND_NAME}' with fallback off; {len(nodes)} node(s) of "
            f"the {where} graph are not supported: "
            f"{', '.join(sorted({_describe(n) for n in nodes}))})")
    first = {}
    for n in nodes:
        first.setdefault(_describe(n), n)
    with _warned_lock:
        new = sorted(set(first) - _warned)
        _warned.update(new)
    for op in new:
        warnings.warn(
            f"tinytensor: '{op}' runs eagerly in PyTorch between compiled "
            f"partitions (TinyTensor cannot compile it; first use "
            f"{_where_in_model(first[op])})", FallbackWarning, stacklevel=2)


def _is_compute(node: torch.fx.Node) -> bool:
    return node.op == "call_function" and \
        _op_name(node.target) not in _VIEW_OPS


def _graph_constants(gm: torch.fx.GraphModule) -> Dict[str, torch.Tensor]:
    return {node.target: getattr(gm, node.target) for node in gm.graph.nodes
            if node.op == "get_attr"}


def _output_size(size, what: str) -> Optional[str]:
    """An output dimension's size for DynamicDims: None when static, a
    symbol, or a symbol plus a constant ("s0+1": a key/value cache one
    token longer)."""
    from .importer import _symbol
    if not isinstance(size, torch.SymInt):
        return None
    import sympy
    expr = size.node.expr
    if isinstance(expr, sympy.Add) and len(expr.free_symbols) == 1:
        constant, rest = expr.as_coeff_Add()
        if isinstance(rest, sympy.Symbol) and constant.is_Integer:
            return f"{rest}{int(constant):+d}"
    return _symbol(size, what)


def _unflatten_linear(graph: torch.fx.Graph) -> None:
    """`view(x, [rows, K]) -> mm/addmm -> view(.., [lead..., N])`, the form
    of nn.Linear on a stack of rows after AOTAutograd, becomes `x @ W
    (+ b)` on the stack: with dynamic sizes, merging a dynamic dimension
    into `rows` and splitting it again is a reshape the compiled program
    cannot take (torch.export keeps aten.linear whole for the same
    reason)."""
    aten = torch.ops.aten
    for node in list(graph.nodes):
        if node.target not in (aten.mm.default, aten.addmm.default):
            continue
        flat = node.args[0] if node.target is aten.mm.default \
            else node.args[1]
        users = list(node.users)
        if not isinstance(flat, torch.fx.Node) or \
                flat.target is not aten.view.default or len(users) != 1 or \
                users[0].target is not aten.view.default:
            continue
        source, back = flat.args[0], users[0]
        before = source.meta.get("val")
        after = back.meta.get("val")
        if not isinstance(before, torch.Tensor) or before.dim() < 3 or \
                not isinstance(after, torch.Tensor) or \
                after.dim() != before.dim() or \
                list(after.shape[:-1]) != list(before.shape[:-1]):
            continue
        if node.target is aten.addmm.default and (
                node.kwargs or len(node.args) > 3):
            continue  # beta / alpha
        weight = node.args[1] if node.target is aten.mm.default \
            else node.args[2]
        with graph.inserting_before(back):
            product = graph.call_function(aten.matmul.default,
                                          (source, weight))
            product.meta["val"] = after
            result = product
            if node.target is aten.addmm.default:
                result = graph.call_function(aten.add.Tensor,
                                             (product, node.args[0]))
                result.meta["val"] = after
        back.replace_all_uses_with(result)
    graph.eliminate_dead_code()


class CompiledPartition(torch.nn.Module):
    """One partition of supported nodes: compiled by TinyTensor for each
    set of input shapes it meets, on the first call with them. If a node
    turns out not to compile (an argument the importer refuses), the
    partition is partitioned again without it (fallback on) or the error
    is raised (fallback off)."""

    def __init__(self, gm: torch.fx.GraphModule, settings, where: str,
                 excluded: Set[str]):
        super().__init__()
        self.gm = gm
        self._settings = settings
        self._where = where
        self._excluded = excluded
        self._programs: Dict[tuple, Any] = {}
        #: The program for every size of the symbolic dimensions: None
        #: until the first call, False if there is none.
        self._dynamic = None
        self._size_args: Set[int] = set()
        self._fallback: Optional[torch.nn.Module] = None
        self._lock = threading.Lock()
        #: Programs compiled so far.
        self.compilations = 0

    def forward(self, *args):
        threads = self._settings["threads"]
        if threads is None:
            return self._forward(args)
        with runtime.settings(threads=threads):
            return self._forward(args)

    def _forward(self, args):
        if self._fallback is not None:
            return self._fallback(*args)
        dynamic = self._dynamic
        if dynamic is None and self._symbolic:
            with self._lock:
                if self._dynamic is None:
                    self._dynamic = self._compile_dynamic(args)
                dynamic = self._dynamic
            if self._fallback is not None:
                return self._fallback(*args)
        if dynamic:
            tensors = [a for i, a in enumerate(args)
                       if i not in self._size_args]
            if dynamic.accepts(tensors):
                return dynamic(*tensors)
        key = tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor)
                    else (type(a), a) for a in args)
        compiled = self._programs.get(key)
        if compiled is None:
            with self._lock:
                compiled = self._programs.get(key) or self._compile(args)
                if compiled is None:  # partitioned again
                    return self._fallback(*args)
                self._programs[key] = compiled
        return compiled(*args)

    @functools.cached_property
    def _symbolic(self) -> bool:
        """Whether the graph has dynamic sizes (Dynamo's automatic dynamic
        shapes, `mark_dynamic`, `dynamic=True`); the graph does not change
        after the first call, which asks."""
        for node in self.gm.graph.nodes:
            if node.op != "placeholder":
                continue
            val = node.meta.get("val")
            if isinstance(val, torch.SymInt) or (
                    isinstance(val, torch.Tensor) and
                    any(isinstance(d, torch.SymInt) for d in val.shape)):
                return True
        return False

    def _compile_dynamic(self, args):
        """One program for every size of the graph's symbolic dimensions:
        its size inputs (SymInts) are read from the tensors that have them
        as dimensions, and its symbols become `?` dimensions (the machinery
        of `tinytensor.torch.jit(dynamic_shapes=...)`). False when the
        graph's sizes are not that simple (an output sized by an
        expression of symbols): it is then compiled per shape."""
        from .frontend import TorchCompiled
        from .importer import _symbol
        from ..shapes import DynamicDims
        graph = torch.fx.Graph()
        mapping = {}
        out = graph.graph_copy(self.gm.graph, mapping)
        graph.output(out)
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        tensors = [n for n in placeholders
                   if isinstance(n.meta.get("val"), torch.Tensor)]
        first = next(n for n in graph.nodes if n.op != "placeholder")
        size_args = set()
        try:
            for i, node in enumerate(placeholders):
                val = node.meta.get("val")
                if not isinstance(val, torch.SymInt):
                    continue
                symbol = _symbol(val, f"size input '{node.name}'")
                source = next(((t, d) for t in tensors for d, size in
                               enumerate(t.meta["val"].shape)
                               if isinstance(size, torch.SymInt) and
                               _symbol(size, "a size") == symbol), None)
                if symbol is None or source is None:
                    return False
                with graph.inserting_before(first):
                    size = graph.call_function(torch.ops.aten.sym_size.int,
                                               source)
                size.meta["val"] = val
                node.replace_all_uses_with(size)
                graph.erase_node(node)
                size_args.add(i)
            _unflatten_linear(graph)
            gm = torch.fx.GraphModule(self.gm, graph)
            names = [n.name for n in tensors]
            program = GraphProgram(gm.graph, names, _graph_constants(gm),
                                   None)
            inputs, ranges = {}, {}
            for i, node in enumerate(tensors):
                for d, size in enumerate(node.meta["val"].shape):
                    symbol = _symbol(size, f"input #{i} dimension {d}")
                    if symbol is not None:
                        inputs[(i, d)] = symbol
                        bounds = size.node.shape_env.var_to_range.get(
                            size.node.expr)
                        if bounds is not None:
                            hi = None if str(bounds.upper) in (
                                "int_oo", "oo") else int(bounds.upper)
                            ranges[symbol] = (max(int(bounds.lower), 1), hi)
            outputs = []
            for k, node in enumerate(pytree.tree_flatten(out)[0]):
                val = node.meta.get("val") if isinstance(
                    node, torch.fx.Node) else None
                outputs.append([_output_size(size, f"output #{k} "
                                              f"dimension {d}")
                                for d, size in
                                enumerate(getattr(val, "shape", ()))])
            program.dynamic = DynamicDims(inputs, outputs, ranges)
            self._size_args = size_args
            example = [a for i, a in enumerate(args) if i not in size_args]
            with runtime.settings(opt_level=self._settings["opt_level"]):
                compiled = TorchCompiled(
                    gm, example, program=program,
                    check_indices=self._settings["check_indices"])
        except (UnsupportedOpError, CompilationError, TypeError,
                ValueError) as e:
            log.info("%s graph: a partition does not compile with dynamic "
                     "sizes (%s); it is compiled per shape", self._where, e)
            return False
        self.compilations += 1
        counters["programs"] += 1
        return compiled

    def _compile(self, args):
        from .frontend import TorchCompiled
        # Empty tensors are constants of the program (no compiled function
        # takes an empty array): left out of its arguments.
        placeholders = [n.name for n in self.gm.graph.nodes
                        if n.op == "placeholder"]
        empty = {i for i, a in enumerate(args)
                 if isinstance(a, torch.Tensor) and a.numel() == 0}
        constants = _graph_constants(self.gm)
        constants.update({placeholders[i]: args[i] for i in empty})
        names = [p for i, p in enumerate(placeholders) if i not in empty]
        updates = _input_updates(self.gm, names)
        if updates is None:
            program = GraphProgram(self.gm.graph, names, constants, None)
        else:
            graph, mutations, spec = updates
            program = GraphProgram(graph, names, constants, spec,
                                   mutations=mutations)
        try:
            with runtime.settings(opt_level=self._settings["opt_level"]):
                compiled = TorchCompiled(
                    self.gm, [a for i, a in enumerate(args) if i not in empty],
                    program=program,
                    check_indices=self._settings["check_indices"])
            if empty:
                compiled = _Dropping(compiled, empty)
        except (UnsupportedOpError, CompilationError, TypeError,
                ValueError) as e:
            node = getattr(e, "node", None)
            if not self._settings["fallback"] or node is None or \
                    node in self._excluded:
                raise
            log.info("%s graph: '%s' does not compile (%s); partitioning "
                     "again without it", self._where, node, e)
            counters["fallbacks"] += 1
            failed = {node}
            for n in self.gm.graph.nodes:  # a result of a multi-result op:
                if n.name == node and _op_name(n.target) == "getitem":
                    failed.add(n.args[0].name)  # the op too
            self._fallback = _partitioned(self.gm, self._settings,
                                          self._where,
                                          self._excluded | failed)
            return None
        self.compilations += 1
        counters["programs"] += 1
        return compiled


class _Dropping:
    """A compiled program called with the arguments it took as constants
    left out."""

    def __init__(self, compiled, positions: Set[int]):
        self.compiled, self.positions = compiled, positions

    def __call__(self, *args):
        return self.compiled(*[a for i, a in enumerate(args)
                               if i not in self.positions])


def _partitioned(gm: torch.fx.GraphModule, settings, where: str,
                 excluded: Set[str] = frozenset()) -> torch.fx.GraphModule:
    """`gm` with its supported nodes fused into CompiledPartition
    submodules and the others left to run eagerly."""
    support = _Support(set(excluded), settings["eager_ops"])
    partitioner = CapabilityBasedPartitioner(
        gm, support, allows_single_node_partition=True)
    partitions = [p for p in partitioner.propose_partitions()
                  if sum(_is_compute(n) for n in p.nodes) >=
                  max(1, settings["min_partition_ops"])]
    inside = set().union(*(p.nodes for p in partitions)) if partitions \
        else set()
    eager = [n for n in gm.graph.nodes
             if n.op == "call_function" and n not in inside and
             _is_compute(n)]
    unsupported = [n for n in eager
                   if not support.is_node_supported({}, n) and
                   _op_name(n.target) not in support.eager_ops]
    _report_eager(unsupported, settings, where)
    fused = partitioner.fuse_partitions(partitions, prefix="tinytensor_")
    count = 0
    for node in fused.graph.nodes:
        if node.op == "call_module" and node.target.startswith("tinytensor_"):
            sub = getattr(fused, node.target)
            setattr(fused, node.target,
                    CompiledPartition(sub, settings, where, set(excluded)))
            count += 1
    log.info("%s graph: %d compiled partition(s), %d node(s) eager%s",
             where, count, len(eager),
             f" ({', '.join(sorted({_describe(n) for n in eager}))})"
             if eager else "")
    return fused


def _graph_compiler(settings, where: str):
    def compile_graph(gm: torch.fx.GraphModule, example_inputs):
        from functorch.compile import make_boxed_func
        counters["graphs"] += 1
        return make_boxed_func(_partitioned(gm, settings, where))
    return compile_graph


def _decompositions():
    """Core ATen, as torch.export's default table, keeping attention whole
    (attention.py)."""
    from torch._decomp import core_aten_decompositions
    table = dict(core_aten_decompositions())
    table.pop(torch.ops.aten.scaled_dot_product_attention.default, None)
    table.pop(torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
              .default, None)
    return table


def tinytensor_backend(gm: torch.fx.GraphModule, example_inputs,
                       options: Optional[dict] = None, mode=None):
    """The Dynamo backend: AOTAutograd with TinyTensor compiling the
    forward, backward and inference graphs."""
    from torch._dynamo.backends.common import aot_autograd
    settings = _options(options)
    if mode not in (None, "default"):
        log.info("mode=%r has no meaning for the tinytensor backend", mode)
    from torch._functorch.partitioners import (
        default_partition, min_cut_rematerialization_partition)
    backend = aot_autograd(
        fw_compiler=_graph_compiler(settings, "forward"),
        bw_compiler=_graph_compiler(settings, "backward"),
        inference_compiler=_graph_compiler(settings, "inference"),
        decompositions=_decompositions(),
        # Input updates stay in inference graphs (an optimizer step), where
        # the compiled code writes them into the inputs' memory.
        keep_inference_input_mutations=True,
        partition_fn=(min_cut_rematerialization_partition
                      if settings["partition"] == "min-cut"
                      else default_partition))
    return backend(gm, example_inputs)


def register() -> None:
    """Registers the backend under the name "tinytensor" (done when
    tinytensor.torch is imported)."""
    from torch._dynamo import list_backends, register_backend
    if BACKEND_NAME in list_backends(exclude_tags=()):
        return
    register_backend(tinytensor_backend, name=BACKEND_NAME)
