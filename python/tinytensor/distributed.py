"""Programs over several processes (MPI ranks): tensor and data parallelism.

    # mpirun -np 2 python script.py
    import numpy as np
    from tinytensor import distributed as dist
    from tinytensor.distributed import P

    mesh = dist.Mesh((2,), ("tp",))

    def mlp(x, w1, w2):
        return np.maximum(x @ w1, 0) @ w2

    f = dist.shard(mlp, mesh, in_shardings=(P(), P(None, "tp"), P("tp")),
                   out_shardings=P())
    w1 = dist.distribute(w1, mesh, P(None, "tp"))  # this process's columns
    w2 = dist.distribute(w2, mesh, P("tp"))        # and rows
    y = f(x, w1, w2)                               # the whole product

A mesh names the axes of a grid of processes; a `PartitionSpec` (`P`) says,
per dimension of an array, which mesh axes split it (`None`: not split), as
in JAX. `shard` traces the function with the arrays' global shapes, as
`jit` does, and compiles one program that every process runs on its parts
(SPMD): the arguments' and results' splits become `shard` dialect
annotations, MLIR's sharding propagation and partitioning decide how every
op is split and where processes must communicate, and those collectives
become MPI calls (tt-distribute; docs/distributed.md). Every process must
call the sharded function with the same arguments' structure, in the same
order.

Arrays passed as NumPy arrays are split on each call (a copy of this
process's part); `distribute` splits one once and returns a
`DistributedArray` to pass instead (weights). A split result comes back as
a `DistributedArray` (its `local` part; `gather()` assembles it on every
process), a replicated one as a NumPy array.

MPI is MPICH (Debian's `mpich`); processes are started by `mpirun`. A
program run without mpirun is one process: meshes of size 1 work there.
"""

from __future__ import annotations

import atexit
import ctypes
import math
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import pytree
from ._mlir import ir
from .jit import Compiled, JitFunction, _name, _scope_arrays
from .types import TensorType

__all__ = ["Mesh", "PartitionSpec", "P", "DistributedArray", "shard",
           "shard_module", "distribute", "rank", "size", "barrier",
           "communicators"]

_LIBRARY = None


def _library_path() -> str:
    from ._mlir import _mlir_libs_dir
    return os.path.join(_mlir_libs_dir(), "libTinyTensorMPI.so")


def _runtime():
    """The MPI runtime (libTinyTensorMPI.so), loaded for the whole process
    so that compiled code finds MPI, with MPI initialised."""
    global _LIBRARY
    if _LIBRARY is not None:
        return _LIBRARY
    path = _library_path()
    if not os.path.exists(path):
        raise RuntimeError(
            f"tinytensor.distributed needs its MPI runtime ({path}), which "
            f"is built when MPI is found: install MPICH (Debian: apt install "
            f"mpich libmpich-dev) and build again")
    library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    library.tt_mpi_max.restype = ctypes.c_double
    library.tt_mpi_max.argtypes = [ctypes.c_double]
    if library.tt_mpi_init() != 0:
        raise RuntimeError("MPI_Init_thread failed")
    atexit.register(library.tt_mpi_finalize)
    _LIBRARY = library
    _share_cores(library.tt_mpi_size())
    return library


def _share_cores(processes: int) -> None:
    """Unless TT_NUM_THREADS says otherwise, the processes on this machine
    share its cores: each runs compiled code on cores / processes threads
    (MPICH's mpirun says how many of them are here)."""
    if os.environ.get("TT_NUM_THREADS"):
        return
    from . import runtime
    here = int(os.environ.get("MPI_LOCALNRANKS", processes) or processes)
    runtime._set_omp_threads(max(1, runtime.NUM_THREADS // max(1, here)))


def rank() -> int:
    """This process's rank (0 without mpirun)."""
    return _runtime().tt_mpi_rank()


def size() -> int:
    """The number of processes (1 without mpirun)."""
    return _runtime().tt_mpi_size()


def barrier() -> None:
    """Waits until every process has reached it."""
    _runtime().tt_mpi_barrier()


def maximum(value: float) -> float:
    """The largest of `value` over all processes."""
    return _runtime().tt_mpi_max(float(value))


def communicators() -> int:
    """MPI communicators that compiled code has made so far: one per group
    of processes it communicates within, made once (a number that stays
    constant however many calls follow)."""
    return _runtime().tt_mpi_communicators()


# -- meshes and partition specs --------------------------------------------------

class Mesh:
    """A grid of processes with named axes: `Mesh((2,), ("tp",))`,
    `Mesh((2, 4), ("dp", "tp"))`. Process `r` sits at the row-major
    coordinates of `r` in the grid; the grid's size must be the number of
    processes when a sharded function is called."""

    def __init__(self, shape, axis_names: Optional[Sequence[str]] = None):
        if isinstance(shape, int):
            shape = (shape,)
        shape = tuple(shape)
        if not shape or not all(isinstance(n, (int, np.integer)) and n >= 1
                                for n in shape):
            raise ValueError(f"a mesh's shape is a tuple of positive "
                             f"integers, got {shape!r}")
        self.shape = tuple(int(n) for n in shape)
        if axis_names is None:
            axis_names = tuple(f"a{i}" for i in range(len(shape)))
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        if len(axis_names) != len(self.shape):
            raise ValueError(f"mesh of shape {self.shape} needs "
                             f"{len(self.shape)} axis names, got "
                             f"{axis_names!r}")
        if len(set(axis_names)) != len(axis_names) or not all(
                isinstance(n, str) for n in axis_names):
            raise ValueError(f"mesh axis names must be distinct strings, "
                             f"got {axis_names!r}")
        self.axis_names = axis_names

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def axis(self, name: str, where: str) -> int:
        """The index of axis `name`; ValueError naming `where` if the mesh
        has no such axis."""
        try:
            return self.axis_names.index(name)
        except ValueError:
            raise ValueError(f"{where}: the mesh has no axis {name!r} (its "
                             f"axes: {', '.join(self.axis_names)})") from None

    def coordinates(self, process: int) -> Tuple[int, ...]:
        return tuple(int(c) for c in np.unravel_index(process, self.shape))

    def check(self) -> None:
        processes = size()
        if processes != self.size:
            raise ValueError(
                f"mesh {dict(zip(self.axis_names, self.shape))} has "
                f"{self.size} processes, but this run has {processes}: start "
                f"it with `mpirun -np {self.size} ...`")

    def __eq__(self, other):
        return (isinstance(other, Mesh) and self.shape == other.shape and
                self.axis_names == other.axis_names)

    def __hash__(self):
        return hash((self.shape, self.axis_names))

    def __repr__(self):
        axes = ", ".join(f"{n}={s}" for n, s in zip(self.axis_names,
                                                     self.shape))
        return f"Mesh({axes})"


class PartitionSpec(tuple):
    """How an array is split: one entry per leading dimension, each `None`
    (not split), a mesh axis name, or a tuple of names (split over their
    product, the first varying slowest). Dimensions past the entries are
    not split: `P()` replicates, `P("dp")` splits the first dimension."""

    def __new__(cls, *entries):
        for e in entries:
            if not (e is None or isinstance(e, str) or (
                    isinstance(e, tuple) and all(isinstance(n, str)
                                                 for n in e))):
                raise TypeError(f"a PartitionSpec entry is None, a mesh axis "
                                f"name or a tuple of names, got {e!r}")
        return super().__new__(cls, entries)

    def __repr__(self):
        return "P(" + ", ".join(repr(e) for e in self) + ")"


P = PartitionSpec


def _split_axes(spec: Optional[PartitionSpec], mesh: Mesh,
                shape: Tuple[int, ...], label: str) -> List[List[int]]:
    """`spec` as mesh axis indices per dimension of an array of `shape`,
    checked: known axes, each used once, dimensions divisible."""
    if spec is None:
        return [[] for _ in shape]
    if not isinstance(spec, PartitionSpec):
        raise TypeError(f"{label}: expected a PartitionSpec (P(...)) or "
                        f"None, got {type(spec).__name__}")
    if len(spec) > len(shape):
        raise ValueError(f"{label}: {spec!r} has {len(spec)} entries for an "
                         f"array of shape {shape}")
    axes: List[List[int]] = []
    used: Dict[int, int] = {}
    for dim, entry in enumerate(list(spec) + [None] * (len(shape) -
                                                        len(spec))):
        names = () if entry is None else (
            (entry,) if isinstance(entry, str) else entry)
        indices = []
        for name in names:
            i = mesh.axis(name, label)
            if i in used:
                raise ValueError(f"{label}: mesh axis {name!r} splits both "
                                 f"dimension {used[i]} and {dim}")
            used[i] = dim
            indices.append(i)
        parts = math.prod(mesh.shape[i] for i in indices)
        if shape[dim] % parts:
            raise ValueError(
                f"{label}: dimension {dim} (size {shape[dim]}) cannot be "
                f"split evenly over mesh axes {names} ({parts} processes)")
        axes.append(indices)
    return axes


def _local_shape(shape, axes, mesh: Mesh) -> Tuple[int, ...]:
    return tuple(n // math.prod(mesh.shape[i] for i in a)
                 for n, a in zip(shape, axes))


def _local_part(array: np.ndarray, axes, mesh: Mesh, process: int
                ) -> np.ndarray:
    """The part of `array` that `process` holds (a contiguous copy, or the
    array itself when it is not split)."""
    if not any(axes):
        return array
    coords = mesh.coordinates(process)
    index = []
    for n, a in zip(array.shape, axes):
        part = 0
        for i in a:  # the first axis varies slowest
            part = part * mesh.shape[i] + coords[i]
        length = n // math.prod(mesh.shape[i] for i in a)
        index.append(slice(part * length, (part + 1) * length))
    return np.ascontiguousarray(array[tuple(index)])


# -- distributed arrays -------------------------------------------------------------

class DistributedArray:
    """An array split over a mesh's processes: `local` is this process's
    part; `shape` and `dtype` are the whole array's."""

    __slots__ = ("local", "shape", "mesh", "spec", "_axes")

    def __init__(self, local: np.ndarray, shape, mesh: Mesh,
                 spec: PartitionSpec, axes=None):
        self.local = local
        self.shape = tuple(shape)
        self.mesh = mesh
        self.spec = spec
        self._axes = axes if axes is not None else _split_axes(
            spec, mesh, self.shape, "DistributedArray")

    @property
    def dtype(self):
        return self.local.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def gather(self) -> np.ndarray:
        """The whole array, on every process (a compiled all-gather: every
        process must call it)."""
        key = (self.mesh, self.spec)
        f = _GATHERS.get(key)
        if f is None:
            f = _GATHERS[key] = shard(_identity, self.mesh,
                                      in_shardings=(self.spec,),
                                      out_shardings=P())
        return f(self)

    def __repr__(self):
        return (f"DistributedArray(shape={self.shape}, dtype={self.dtype}, "
                f"spec={self.spec!r}, {self.mesh!r})")


_GATHERS: Dict[tuple, "ShardedFunction"] = {}


def _identity(x):
    return x + np.zeros((), x.dtype)


def distribute(value, mesh: Mesh, spec) -> Any:
    """This process's part of `value`, split as `spec` says, kept: pass it
    to a sharded function instead of the whole array (nothing is copied per
    call). `value` is an array (the result is a DistributedArray) or a
    pytree of arrays (dicts, lists, tuples), with `spec` a PartitionSpec for
    all of them or a pytree of specs matching its structure (a prefix of
    it), as in_shardings."""
    process = rank()

    def leaf(array, leaf_spec, label):
        if isinstance(array, DistributedArray):
            raise TypeError(f"{label} is distributed already")
        array = np.asarray(array)
        leaf_spec = leaf_spec if leaf_spec is not None else P()
        axes = _split_axes(leaf_spec, mesh, array.shape, label)
        return DistributedArray(_local_part(array, axes, mesh, process),
                                array.shape, mesh, leaf_spec, axes)

    if not isinstance(value, (dict, list, tuple, DistributedArray)):
        value = np.asarray(value)
    result = _match(spec, value, "distribute", leaf)
    mesh.check()
    return result


# -- sharded functions ---------------------------------------------------------------

class _Leaf:
    """What a sharded call passes for one array leaf."""

    __slots__ = ("local", "axes")

    def __init__(self, local, axes):
        self.local = local
        self.axes = axes


def _placeholder(shape, dtype) -> np.ndarray:
    """An array of `shape` that takes no memory: the traced shape of a
    split argument."""
    return np.broadcast_to(np.zeros((), dtype), shape)


def _is_spec(spec) -> bool:
    return spec is None or isinstance(spec, PartitionSpec)


def _match(spec, value, label: str, leaf):
    """`value` with each array leaf `a` (under a PartitionSpec or None of
    the `spec` tree, a prefix of value's structure) replaced by
    `leaf(a, spec, label)`."""
    if _is_spec(spec):
        return _apply(value, spec, label, leaf)
    if isinstance(value, dict) and isinstance(spec, dict):
        unknown = set(spec) - set(value)
        if unknown:
            raise ValueError(f"{label}: the shardings name keys "
                             f"{sorted(map(repr, unknown))} it does not have")
        return type(value)(
            (k, _match(spec.get(k), v, f"{label}[{k!r}]", leaf))
            for k, v in value.items())
    if isinstance(value, (list, tuple)) and isinstance(spec, (list, tuple)) \
            and not hasattr(value, "_fields"):
        if len(spec) != len(value):
            raise ValueError(f"{label}: {len(spec)} shardings for "
                             f"{len(value)} items")
        items = [_match(s, v, f"{label}[{i}]", leaf)
                 for i, (s, v) in enumerate(zip(spec, value))]
        return type(value)(items)
    raise TypeError(f"{label}: the shardings' structure "
                    f"({type(spec).__name__}) does not match the value's "
                    f"({type(value).__name__})")


def _apply(value, spec, label, leaf):
    """Every array leaf of `value` under one spec; a split spec over
    anything else is an error (it would silently run replicated)."""
    if isinstance(value, (np.ndarray, DistributedArray)):
        return leaf(value, spec, label)
    if isinstance(value, dict):
        return type(value)((k, _apply(v, spec, f"{label}[{k!r}]", leaf))
                           for k, v in value.items())
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_apply(v, spec, f"{label}[{i}]", leaf)
                           for i, v in enumerate(value))
    if spec is not None and any(e is not None for e in spec):
        raise TypeError(f"{label} is a {type(value).__name__}, not a NumPy "
                        f"array: it cannot be split as {spec!r} (pass "
                        f"np.asarray(...) to split it)")
    return value


class _Plan:
    """The splits of one specialisation's arguments and results; writes
    them into its traced module (Compiled calls `annotate`)."""

    def __init__(self, owner: "ShardedFunction", axes: List[List[List[int]]]):
        self.owner = owner
        self.axes = axes
        self.result_axes: List[List[List[int]]] = []

    def annotate(self, module: ir.Module, compiled: Compiled):
        mesh = self.owner.mesh
        fop = module.body.operations[0]
        i64 = ir.IntegerType.get_signless(64)

        def attr(axes):
            return ir.DictAttr.get({"tt.split_axes": ir.ArrayAttr.get(
                [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, a) for a in d])
                 for d in axes])}) if any(axes) else ir.DictAttr.get({})

        inputs = list(compiled.input_types) + [
            TensorType(a.shape, a.dtype) for a in compiled._captured]
        in_axes = self.axes + [[[] for _ in t.shape]
                               for t in inputs[len(self.axes):]]
        # The results' splits: out_shardings over the result's structure.
        count = len(compiled.output_types)
        where = compiled._out_def.build(list(range(count)))
        out_axes: List[Optional[List[List[int]]]] = [None] * count

        def result_leaf(index, spec, label):
            t = compiled.output_types[index]
            out_axes[index] = _split_axes(spec, mesh, t.shape, label)
            return index

        _match_indices(self.owner.out_shardings, where,
                       f"the result of {_name(self.owner.fn)}()",
                       result_leaf)
        results = compiled._result_types
        out_axes = [a if a is not None else [[] for _ in t.shape]
                    for a, t in zip(out_axes + [None] * (len(results) -
                                                         count), results)]
        self.result_axes = out_axes[:count]
        module.operation.attributes["tt.grid"] = ir.DenseI64ArrayAttr.get(
            list(mesh.shape))
        fop.attributes["arg_attrs"] = ir.ArrayAttr.get(
            [attr(a) for a in in_axes])
        fop.attributes["res_attrs"] = ir.ArrayAttr.get(
            [attr(a) for a in out_axes])
        local_inputs = [TensorType(_local_shape(t.shape, a, mesh), t.dtype)
                        for t, a in zip(inputs, in_axes)]
        local_results = [TensorType(_local_shape(t.shape, a, mesh), t.dtype)
                         for t, a in zip(results, out_axes)]
        return local_inputs, local_results


def _match_indices(spec, where, label, leaf):
    """Like _match over a structure whose leaves are result indices."""
    if _is_spec(spec):
        return _apply_indices(where, spec, label, leaf)
    if isinstance(where, dict) and isinstance(spec, dict):
        for k, v in where.items():
            _match_indices(spec.get(k), v, f"{label}[{k!r}]", leaf)
        return
    if isinstance(where, (list, tuple)) and isinstance(spec, (list, tuple)):
        if len(spec) != len(where):
            raise ValueError(f"{label}: {len(spec)} shardings for "
                             f"{len(where)} results")
        for i, (s, v) in enumerate(zip(spec, where)):
            _match_indices(s, v, f"{label}[{i}]", leaf)
        return
    raise TypeError(f"{label}: out_shardings' structure "
                    f"({type(spec).__name__}) does not match the result's "
                    f"({type(where).__name__})")


def _apply_indices(where, spec, label, leaf):
    if isinstance(where, int) and not isinstance(where, bool):
        leaf(where, spec, label)
    elif isinstance(where, dict):
        for k, v in where.items():
            _apply_indices(v, spec, f"{label}[{k!r}]", leaf)
    elif isinstance(where, (list, tuple)):
        for i, v in enumerate(where):
            _apply_indices(v, spec, f"{label}[{i}]", leaf)


class ShardedFunction:
    """A function compiled for a mesh of processes (see `shard`)."""

    def __init__(self, fn, mesh: Mesh, in_shardings, out_shardings,
                 static_argnums=(), static_argnames=()):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"mesh must be a tinytensor.distributed.Mesh, "
                            f"got {type(mesh).__name__}")
        self.fn = fn
        self.mesh = mesh
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        self._jit = JitFunction(fn, static_argnums=static_argnums,
                                static_argnames=static_argnames,
                                dynamic=False)
        self._cache: Dict[tuple, Compiled] = {}

    def _parameter_shardings(self, bound) -> Dict[str, Any]:
        """in_shardings by parameter name: a tuple (one entry per
        positional parameter, in order), a dict by name, or one spec for
        every argument."""
        spec = self.in_shardings
        names = list(bound.arguments)
        if _is_spec(spec):
            return {n: spec for n in names}
        if isinstance(spec, dict):
            unknown = set(spec) - set(self._jit._signature.parameters)
            if unknown:
                raise ValueError(f"in_shardings: {_name(self.fn)}() has no "
                                 f"parameter {sorted(unknown)[0]!r}")
            return dict(spec)
        if isinstance(spec, (list, tuple)):
            params = list(self._jit._signature.parameters)
            if len(spec) > len(params):
                raise ValueError(f"in_shardings has {len(spec)} entries for "
                                 f"{_name(self.fn)}()'s {len(params)} "
                                 f"parameters")
            return dict(zip(params, spec))
        raise TypeError(f"in_shardings must be a PartitionSpec, a tuple or "
                        f"a dict of them, got {type(spec).__name__}")

    def __call__(self, *args, **kwargs):
        process = rank()
        jit = self._jit
        fname = _name(self.fn)
        try:
            bound = jit._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{fname}(): {e}") from None
        # Defaults too: in_shardings may name them.
        bound.apply_defaults()
        shardings = self._parameter_shardings(bound)
        leaves: Dict[int, _Leaf] = {}

        def leaf(array, spec, label):
            if isinstance(array, DistributedArray):
                if array.mesh != self.mesh:
                    raise ValueError(f"{label} is distributed over "
                                     f"{array.mesh!r}, not {self.mesh!r}")
                axes = _split_axes(spec, self.mesh, array.shape, label)
                if axes != array._axes:
                    raise ValueError(
                        f"{label} is distributed as {array.spec!r}, but "
                        f"in_shardings says {spec!r}")
                placeholder = _placeholder(array.shape, array.dtype)
                leaves[id(placeholder)] = _Leaf(array.local, axes)
                return placeholder
            axes = _split_axes(spec, self.mesh, array.shape, label)
            if not any(axes):
                return array
            placeholder = _placeholder(array.shape, array.dtype)
            leaves[id(placeholder)] = _Leaf(
                _local_part(array, axes, self.mesh, process), axes)
            return placeholder

        for name, value in list(bound.arguments.items()):
            bound.arguments[name] = _match(
                shardings.get(name), value, f"argument '{name}' of {fname}()",
                leaf)
        # The shardings are checked first: their errors do not depend on
        # how many processes run.
        self.mesh.check()
        call = jit._arguments(bound.args, bound.kwargs)
        scope = _scope_arrays(self.fn)
        axes, local = [], []
        for a in call.arrays:
            info = leaves.get(id(a))
            axes.append(info.axes if info else [[] for _ in a.shape])
            local.append(info.local if info else a)
        key = call.key + (jit._scope_key(scope),
                          tuple(tuple(map(tuple, a)) for a in axes))
        compiled = self._cache.get(key)
        if compiled is None:
            if call.labels is None:
                call.labels = jit._labels_simple()
            types_ = [TensorType(a.shape, a.dtype) for a in call.arrays]
            plan = _Plan(self, axes)
            compiled = Compiled(self.fn, jit._builder(call), types_, scope,
                                jit.name, owner=jit, key=key, sharding=plan)
            compiled._plan = plan
            self._cache[key] = compiled
        out = compiled._run(local, scope)
        return self._wrap(compiled, out)

    def _wrap(self, compiled: Compiled, out):
        """Split results as DistributedArrays."""
        axes = compiled._plan.result_axes
        if not any(any(a) for a in axes):
            return out
        values, tree = pytree.flatten(out, "the result", _any_leaf,
                                      number_lists=False)
        wrapped = []
        for (_, value), a, t in zip(values, axes, compiled.output_types):
            if any(a):
                spec = P(*[tuple(self.mesh.axis_names[i] for i in d) or None
                           for d in a])
                value = DistributedArray(value, t.shape, self.mesh, spec, a)
            wrapped.append(value)
        return tree.build(wrapped)

    def compiled(self) -> List[Compiled]:
        """The specialisations compiled so far."""
        return list(self._cache.values())

    def __repr__(self):
        return f"<sharded {_name(self.fn)} over {self.mesh!r}>"


def _any_leaf(value, label):
    if isinstance(value, (np.ndarray, np.generic)):
        return value
    return None


def shard(fn=None, mesh: Optional[Mesh] = None, in_shardings=None,
          out_shardings=None, *, static_argnums=(), static_argnames=()):
    """`fn` compiled for `mesh`: every process runs its part of it.

    `in_shardings`: how the arguments are split: one PartitionSpec for all,
    a tuple with one entry per parameter (in order) or a dict by parameter
    name, each entry a PartitionSpec (for every array in that argument), a
    pytree of them matching the argument's structure (a prefix of it), or
    None (replicated). `out_shardings` likewise for the result (default:
    replicated, the whole result on every process). Static arguments as in
    `jit`. Usable as a decorator: `@shard(mesh=..., in_shardings=...)`."""
    if mesh is None:
        raise TypeError("shard() needs a mesh")
    if fn is None:
        return lambda f: ShardedFunction(f, mesh, in_shardings, out_shardings,
                                         static_argnums, static_argnames)
    return ShardedFunction(fn, mesh, in_shardings, out_shardings,
                           static_argnums, static_argnames)


class ShardedModule:
    """A torch.nn.Module compiled for a mesh (see `shard_module`)."""

    def __init__(self, model, example_inputs, mesh: Mesh, in_shardings,
                 out_shardings):
        from .torch.frontend import _as_tuple
        from .torch.importer import capture
        self.model = model
        self.program = capture(model, _as_tuple(example_inputs), None)
        if self.program.mutations:
            raise NotImplementedError(
                f"shard_module({type(model).__name__}): the module updates "
                f"its buffers or inputs in place (batch norm in training "
                f"mode?), which sharded modules do not support; call "
                f"model.eval() first")
        self.function = shard(self.program.function, mesh, in_shardings,
                              out_shardings)

    def __call__(self, *inputs):
        import torch
        from .torch.frontend import _argument, _to_torch
        if not self.program.is_current(self.model):
            raise RuntimeError(f"shard_module({type(self.model).__name__}): "
                               f"the module's tensors were replaced after it "
                               f"was compiled; call shard_module again")
        arrays = [_argument(t, f"input #{i}") for i, t in enumerate(inputs)]
        self.program.refresh_seed()
        out = self.function(*arrays)
        outs = out if isinstance(out, (tuple, list)) else [out]
        results = [o if isinstance(o, DistributedArray) else _to_torch(o)
                   for o in outs]
        if any(isinstance(o, DistributedArray) for o in results):
            return results if isinstance(out, (tuple, list)) else results[0]
        return self.program.restructure(results)


def shard_module(model, example_inputs, mesh: Mesh, in_shardings=None,
                 out_shardings=None) -> ShardedModule:
    """A PyTorch module (inference) compiled for `mesh`: captured with
    torch.export as `tinytensor.torch.compile` does, its forward sharded as
    `shard` shards a function. `in_shardings` applies to the forward's
    inputs (e.g. `P("dp")` to split the batch); the parameters and buffers
    are replicated. Call it with torch tensors; replicated results come
    back as torch tensors, split ones as DistributedArrays."""
    return ShardedModule(model, example_inputs, mesh, in_shardings,
                         out_shardings)
