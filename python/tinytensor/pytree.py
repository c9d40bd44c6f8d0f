"""Pytrees: nested containers of arrays and static values, flattened to the
leaves a compiled function takes and rebuilt around the values it returns.

Containers are dicts, lists, tuples, NamedTuples and dataclass instances
(nested to any depth). A leaf is
  * an array: a NumPy array, or a list of numbers (converted as `np.asarray`
    converts it: Python ints to int64), which becomes an argument of the
    compiled function;
  * static: any other hashable value (int, float, bool, str, None, NumPy
    scalars, ...), which is part of the specialisation key and substituted
    as it is while tracing.

`flatten` returns the array leaves and a hashable `TreeDef` (structure and
static leaves, the latter keyed by type and value, so `1`, `1.0` and `True`
specialise separately and `-0.0` is not `0.0`); `TreeDef.build` puts values
back into the structure.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any, Callable, List, Sequence, Tuple

import numpy as np



class _ArrayLeaf:
    """Marks where an array leaf sits in a TreeDef."""

    __slots__ = ()

    def __repr__(self):
        return "*"


ARRAY = _ArrayLeaf()


def static_key(value) -> tuple:
    """The cache key of a static value: its type and value, with floats by
    their bits (NaN equals NaN, -0.0 differs from 0.0)."""
    if isinstance(value, float):
        return (float, value.hex() if math.isfinite(value) else repr(value))
    if isinstance(value, np.generic):
        return (type(value), value.tobytes())
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return (tuple, tuple(static_key(v) for v in value))
    if isinstance(value, np.ndarray) and value.size == 0:
        # An array with no elements has no values: its shape and dtype
        # are all there is to it.
        return (np.ndarray, value.shape, value.dtype.str)
    return (type(value), value)


def _is_number_list(value) -> bool:
    """A (nested) list whose leaves are all Python or NumPy numbers."""
    if not isinstance(value, list) or not value:
        return False
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)) and not hasattr(item, "_fields"):
            if not item:
                return False
            stack.extend(item)
        elif not isinstance(item, (numbers.Number, np.generic)):
            return False
    return True


def as_array(value: list, what: str) -> np.ndarray:
    """A list of numbers as the array NumPy makes of it."""
    try:
        return np.asarray(value)
    except ValueError as e:  # ragged
        raise TypeError(f"{what}: a list of numbers that is not a "
                        f"rectangular array ({e})") from None


class TreeDef:
    """The structure of a flattened value. `node` is a nested tuple:
    `ARRAY`, `("static", key, value)`, or
    `(kind, type, keys, children)` for containers."""

    __slots__ = ("node", "key", "_hash")

    def __init__(self, node):
        self.node = node
        self.key = _key(node)
        self._hash = hash(self.key)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, TreeDef) and self.key == other.key

    def __repr__(self):
        return f"TreeDef({_describe(self.node)})"

    def builder(self) -> Callable[[Sequence[Any]], Any]:
        """A function equivalent to `build`, fast for the common results
        (one array, or a flat tuple or list of arrays)."""
        node = self.node
        if node is ARRAY:
            return lambda values: values[0]
        if node[0] == "seq" and node[1] in (tuple, list) and \
                all(c is ARRAY for c in node[3]):
            return node[1]
        return self.build

    def build(self, values: Sequence[Any]) -> Any:
        """The structure with its array leaves replaced, in order, by
        `values`."""
        it = iter(values)
        return _build(self.node, it)


def _key(node):
    if node is ARRAY:
        return "*"
    if node[0] == "static":
        return ("static", node[1])
    kind, typ, keys, children = node
    return (kind, typ, keys, tuple(_key(c) for c in children))


def _describe(node) -> str:
    if node is ARRAY:
        return "*"
    if node[0] == "static":
        return repr(node[2])
    kind, typ, keys, children = node
    inner = ", ".join(_describe(c) for c in children)
    if kind == "dict":
        inner = ", ".join(f"{k!r}: {_describe(c)}"
                          for k, c in zip(keys, children))
        return "{" + inner + "}"
    return f"{typ.__name__}({inner})"


def _build(node, it):
    if node is ARRAY:
        return next(it)
    if node[0] == "static":
        return node[2]
    kind, typ, keys, children = node
    items = [_build(c, it) for c in children]
    if kind == "dict":
        return typ(zip(keys, items)) if typ is not dict else dict(
            zip(keys, items))
    if kind == "namedtuple":
        return typ(*items)
    if kind == "dataclass":
        obj = object.__new__(typ)
        for name, v in zip(keys, items):
            object.__setattr__(obj, name, v)
        return obj
    return typ(items)


def flatten(value, label: str, leaf: Callable[[Any, str], Any],
            number_lists: bool = True) -> Tuple[List[Tuple[str, Any]],
                                                TreeDef]:
    """The array leaves of `value` as (label, array) pairs, in order, and its
    TreeDef. `label` names `value` in messages; leaves are labelled by their
    path, e.g. `params['blocks'][3]['attn']`. `leaf(v, label)` classifies a
    non-container value: it returns an array (a leaf), or `None` for a
    static value (which must be hashable), or raises. With `number_lists`
    a list of numbers is one array leaf (as for arguments), otherwise a
    list like any other."""
    leaves: List[Tuple[str, Any]] = []
    node = _flatten(value, label, leaf if number_lists else
                    _NoNumberLists(leaf), leaves, 0)
    return leaves, TreeDef(node)


class _NoNumberLists:
    """A leaf classifier under which lists of numbers stay lists."""

    __slots__ = ("leaf",)

    def __init__(self, leaf):
        self.leaf = leaf

    def __call__(self, value, label):
        return self.leaf(value, label)


def _flatten(value, label, leaf, leaves, depth):
    if depth > 64:
        raise TypeError(f"{label}: nested more than 64 levels deep (a "
                        f"recursive container?)")
    if isinstance(value, dict):
        keys = tuple(value.keys())
        children = tuple(_flatten(value[k], f"{label}[{k!r}]", leaf, leaves,
                                  depth + 1) for k in keys)
        return ("dict", type(value), keys, children)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        children = tuple(_flatten(v, f"{label}.{f}", leaf, leaves, depth + 1)
                         for f, v in zip(value._fields, value))
        return ("namedtuple", type(value), None, children)
    if isinstance(value, list) and not isinstance(leaf, _NoNumberLists) \
            and _is_number_list(value):
        array = leaf(as_array(value, label), label)
        leaves.append((label, array))
        return ARRAY
    if isinstance(value, (list, tuple)):
        children = tuple(_flatten(v, f"{label}[{i}]", leaf, leaves, depth + 1)
                         for i, v in enumerate(value))
        return ("seq", type(value), None, children)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = tuple(f.name for f in dataclasses.fields(value))
        children = tuple(_flatten(getattr(value, n), f"{label}.{n}", leaf,
                                  leaves, depth + 1) for n in names)
        return ("dataclass", type(value), names, children)
    array = leaf(value, label)
    if array is not None:
        leaves.append((label, array))
        return ARRAY
    try:
        key = static_key(value)
        hash(key)
    except TypeError:
        raise TypeError(
            f"{label} is a {type(value).__name__}, which is neither an "
            f"array nor a hashable (static) value; pass an array, a "
            f"container of arrays, or a hashable value") from None
    return ("static", key, value)
