#!/usr/bin/env python3
"""Differential testing of the whole compiler: random NumPy programs, run by
`tinytensor.jit` and by NumPy, must agree.

    python scripts/difftest.py --programs 1000 --seed 0
    python scripts/difftest.py --seconds 600 --seed 7 --keep /tmp/failures
    python scripts/difftest.py --dynamic --programs 500

With `--large`, each program is a graph of 1,000 to 10,000 operations
(`--graph-ops MIN MAX`, drawn log-uniformly) with the op mix of transformer
and CNN graphs, from scripts/graphgen.py: attention and MLP blocks, norms,
reshapes and transposes between elementwise ops, reductions, gathers,
selects, convolutions by slices and matmuls, pooling. Each must compile
and match NumPy, or fail with a diagnostic; a compiler failure without one
is a failure of its own kind. One line per program gives its size, dtype
and compile time (`tt-optimize`, the lowering, LLVM).

With `--dynamic`, each program is compiled once with the leading
dimension of its inputs dynamic (`?`) and run at three sizes of it
against NumPy; programs that compile the traced size in are refused with
a ValueError (counted, not failures).

Each program is a random, well-typed sequence of NumPy operations over a
few input arrays of awkward shapes (1, 3, 17, 33, 129, ...) and dtypes
(float32, float64, int32, int64): elementwise math, broadcasting arithmetic,
reductions over random axes, matmuls, transposes, reshapes, slices
(negative steps too), concatenation, `where`, casts. The generator keeps a
pool of the values computed so far with their shapes and dtypes and only
draws operations whose operands fit, so every program traces.

A program passes when the compiled results have NumPy's shapes and dtypes
and agree with NumPy's values: exactly for integers and booleans, and for
floats within 64 times NumPy's own error plus 1000 units of rounding of
the largest magnitude the program computes along the way (errors are
measured against the same program run in float64; the allowance covers
reassociated sums whose rounding a later division by a small number,
such as sqrt(var + 1e-5) of a constant row, magnifies). Operations that are not continuous (floor, rint, sign,
comparisons, argmax, integer casts) only take values that are exact in
both worlds (inputs, and what exact operations make of them), so a
rounding difference upstream cannot flip them. Programs whose float64
result is not finite or beyond 1e6 are drawn again.

A failure (a mismatch, or an exception other than the documented
TypeError/ValueError refusals, which the generator should never provoke)
prints the program's source and its seed; `--keep DIR` also writes them
there. Exit status 1 if any program failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np

SIZES = (1, 2, 3, 5, 7, 16, 17, 31, 33, 64, 100, 129)
LARGE_SIZES = (257, 768, 1031)
MAX_ELEMENTS = 1 << 18
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
INTS = (np.dtype(np.int32), np.dtype(np.int64))


@dataclass
class Value:
    name: str
    shape: Tuple[int, ...]
    dtype: np.dtype
    exact: bool  # identical bits in NumPy and in the compiled code


@dataclass
class Program:
    inputs: List[Value]
    lines: List[str] = field(default_factory=list)
    pool: List[Value] = field(default_factory=list)
    outputs: List[Value] = field(default_factory=list)

    def source(self, every_value=False) -> str:
        """The program as a Python function; with `every_value` it returns
        every value it computes (for the magnitudes along the way)."""
        args = ", ".join(v.name for v in self.inputs)
        body = "\n".join(f"    {line}" for line in self.lines)
        outs = ", ".join(v.name for v in
                         (self.pool if every_value else self.outputs))
        return f"def program({args}):\n{body}\n    return ({outs},)\n"


def result_dtype(*dtypes) -> np.dtype:
    return np.result_type(*dtypes)


class Generator:
    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def shape(self, rank=None) -> Tuple[int, ...]:
        """Mostly small awkward sizes, sometimes a large one (the blocks
        and row loops of the code generator), at most MAX_ELEMENTS."""
        rank = int(self.rng.integers(1, 4)) if rank is None else rank
        while True:
            shape = tuple(int(self.pick(LARGE_SIZES if self.rng.random() <
                                        0.1 else SIZES))
                          for _ in range(rank))
            if np.prod(shape) <= MAX_ELEMENTS:
                return shape

    def program(self, max_ops: int) -> Program:
        n_inputs = int(self.rng.integers(1, 4))
        inputs = []
        base = self.shape()
        for i in range(n_inputs):
            # Later inputs often broadcast against the first.
            if i and self.rng.random() < 0.6:
                shape = tuple(d if self.rng.random() < 0.7 else 1
                              for d in base[int(self.rng.integers(
                                  len(base))):])
            else:
                shape = self.shape()
            dtype = (self.pick(INTS) if self.rng.random() < 0.12
                     else self.pick(FLOATS))
            inputs.append(Value(f"x{i}", shape, dtype, True))
        prog = Program(inputs, pool=list(inputs))
        for _ in range(int(self.rng.integers(1, max_ops + 1))):
            self.step(prog)
        last = prog.pool[-1]
        outs = [last]
        other = self.pick(prog.pool)
        if other is not last and other not in prog.inputs:
            outs.append(other)
        prog.outputs = outs
        return prog

    # -- operations -------------------------------------------------------

    def new(self, prog: Program, expr: str, shape, dtype, exact: bool):
        v = Value(f"v{len(prog.pool)}", tuple(shape), np.dtype(dtype), exact)
        prog.lines.append(f"{v.name} = {expr}")
        prog.pool.append(v)
        return v

    def step(self, prog: Program) -> None:
        ops = [self.unary, self.binary, self.binary, self.reduce,
               self.matmul, self.layout, self.discrete, self.where,
               self.combine]
        for _ in range(20):
            if self.pick(ops)(prog):
                return

    def floats(self, prog: Program) -> List[Value]:
        return [v for v in prog.pool if v.dtype.kind == "f"]

    def unary(self, prog: Program) -> bool:
        vals = self.floats(prog)
        if not vals:
            return False
        a = self.pick(vals)
        forms = [("np.tanh({})", False), ("-{}", a.exact),
                 ("np.abs({})", a.exact), ("np.exp(np.tanh({}))", False),
                 ("np.log(np.abs({}) + 1)", False), ("np.sqrt(np.abs({}))",
                                                    False),
                 ("np.square({})", False), ("np.sin({})", False),
                 ("np.cos({})", False), ("np.log1p(np.abs({}))", False),
                 ("np.expm1(np.tanh({}))", False), ("{} ** 2", False),
                 ("np.exp2(np.tanh({}))", False),
                 ("np.log2(np.abs({}) + 1)", False),
                 ("np.reciprocal(np.abs({}) + 1)", False),
                 ("np.clip({}, -0.5, 0.5)", a.exact)]
        form, exact = self.pick(forms)
        self.new(prog, form.format(a.name), a.shape, a.dtype, exact)
        return True

    def broadcastable(self, prog: Program, a: Value) -> List[Value]:
        out = []
        for b in prog.pool:
            try:
                np.broadcast_shapes(a.shape, b.shape)
            except ValueError:
                continue
            out.append(b)
        return out

    def binary(self, prog: Program) -> bool:
        a = self.pick(prog.pool)
        b = self.pick(self.broadcastable(prog, a))
        shape = np.broadcast_shapes(a.shape, b.shape)
        dtype = result_dtype(a.dtype, b.dtype)
        if dtype.kind == "i":
            op = self.pick(["+", "-", "*"])
            self.new(prog, f"{a.name} {op} {b.name}", shape, dtype,
                     a.exact and b.exact)
            return True
        op = self.pick(["+", "-", "*", "/", "max", "min"])
        exact = False
        if op == "/":
            expr = f"{a.name} / (np.abs({b.name}) + 0.5)"
            dtype = result_dtype(dtype, np.float32)
        elif op in ("max", "min"):
            expr = f"np.{op}imum({a.name}, {b.name})"
            exact = a.exact and b.exact
        else:
            expr = f"{a.name} {op} {b.name}"
        self.new(prog, expr, shape, dtype, exact)
        return True

    def reduce(self, prog: Program) -> bool:
        a = self.pick(prog.pool)
        if a.dtype.kind not in "fi":
            return False
        axis = int(self.rng.integers(-1, len(a.shape)))
        keep = bool(self.rng.random() < 0.5)
        axes = None if axis < 0 else axis
        if a.dtype.kind == "i":
            fn, dtype, exact = self.pick(
                [("sum", np.dtype(np.int64), a.exact),
                 ("max", a.dtype, a.exact), ("min", a.dtype, a.exact)])
        else:
            fn, dtype, exact = self.pick(
                [("sum", a.dtype, False), ("mean", a.dtype, False),
                 ("max", a.dtype, a.exact), ("min", a.dtype, a.exact),
                 ("var", a.dtype, False), ("std", a.dtype, False)])
        if fn == "sum" and a.dtype.kind == "i" and dtype.itemsize == 8:
            return False  # int64 results: not a dtype the compiler keeps
        if axes is None:
            shape = (1,) * len(a.shape) if keep else ()
        else:
            shape = tuple(1 if i == axes else d for i, d in
                          enumerate(a.shape) if keep or i != axes)
        if shape == ():
            return False  # 0-d results: covered by the jit tests
        self.new(prog, f"np.{fn}({a.name}, axis={axes}, keepdims={keep})",
                 shape, dtype, exact)
        return True

    def matmul(self, prog: Program) -> bool:
        mats = [v for v in prog.pool if len(v.shape) >= 2 and
                v.dtype.kind == "f"]
        if not mats:
            return False
        a = self.pick(mats)
        k = a.shape[-1]
        partners = [v for v in prog.pool if len(v.shape) == 2 and
                    v.shape[0] == k and v.dtype.kind == "f"]
        transposed = [v for v in prog.pool if len(v.shape) == 2 and
                      v.shape[1] == k and v.dtype.kind == "f"]
        if not partners and not transposed:
            # A new weight-like input: [k, n] or, for x @ w.T, [n, k].
            n = int(self.pick(SIZES + LARGE_SIZES))
            shape = (n, k) if self.rng.random() < 0.4 else (k, n)
            if np.prod(shape) > MAX_ELEMENTS:
                return False
            w = Value(f"x{len(prog.inputs)}", shape, self.pick(FLOATS), True)
            prog.inputs.append(w)
            prog.pool.append(w)
            (transposed if shape[1] == k else partners).append(w)
        if transposed and (not partners or self.rng.random() < 0.4):
            b = self.pick(transposed)
            expr, n = f"{a.name} @ {b.name}.T", b.shape[0]
        else:
            b = self.pick(partners)
            expr, n = f"{a.name} @ {b.name}", b.shape[1]
        self.new(prog, expr, a.shape[:-1] + (n,),
                 result_dtype(a.dtype, b.dtype), False)
        return True

    def layout(self, prog: Program) -> bool:
        a = self.pick(prog.pool)
        r = len(a.shape)
        choice = int(self.rng.integers(5))
        if choice == 0 and r >= 2:
            perm = [int(p) for p in self.rng.permutation(r)]
            shape = tuple(a.shape[p] for p in perm)
            self.new(prog, f"np.transpose({a.name}, {tuple(perm)})", shape,
                     a.dtype, a.exact)
        elif choice == 1 and r >= 2:
            shape = a.shape[:-2] + (a.shape[-2] * a.shape[-1],)
            self.new(prog, f"{a.name}.reshape({shape})", shape, a.dtype,
                     a.exact)
        elif choice == 2:
            axis = int(self.rng.integers(r))
            d = a.shape[axis]
            lo = int(self.rng.integers(d))
            hi = int(self.rng.integers(lo + 1, d + 1))
            step = self.pick([1, 1, 2, -1])
            if step < 0:
                index, n = f"{hi - 1}:{lo - 1 if lo else ''}:-1", hi - lo
            else:
                index, n = f"{lo}:{hi}:{step}", len(range(lo, hi, step))
            sl = ", ".join([":"] * axis + [index])
            shape = a.shape[:axis] + (n,) + a.shape[axis + 1:]
            self.new(prog, f"{a.name}[{sl}]", shape, a.dtype, a.exact)
        elif choice == 3:
            axis = int(self.rng.integers(r + 1))
            shape = a.shape[:axis] + (1,) + a.shape[axis:]
            self.new(prog, f"np.expand_dims({a.name}, {axis})", shape,
                     a.dtype, a.exact)
        else:
            same = [v for v in prog.pool if len(v.shape) == r]
            b = self.pick(same)
            axis = int(self.rng.integers(r))
            if any(x != y for i, (x, y) in
                   enumerate(zip(a.shape, b.shape)) if i != axis):
                return False
            shape = tuple(x + y if i == axis else x
                          for i, (x, y) in enumerate(zip(a.shape, b.shape)))
            self.new(prog,
                     f"np.concatenate([{a.name}, {b.name}], axis={axis})",
                     shape, result_dtype(a.dtype, b.dtype),
                     a.exact and b.exact)
        return True

    def discrete(self, prog: Program) -> bool:
        exact = [v for v in prog.pool if v.exact and v.dtype.kind == "f"]
        if not exact:
            return False
        a = self.pick(exact)
        form = int(self.rng.integers(5))
        if form == 0:
            self.new(prog, f"np.floor({a.name} * 2)", a.shape, a.dtype, True)
        elif form == 1:
            self.new(prog, f"np.rint({a.name} * 3)", a.shape, a.dtype, True)
        elif form == 2:
            self.new(prog, f"np.sign({a.name})", a.shape, a.dtype, True)
        elif form == 3:
            self.new(prog, f"({a.name} * 4).astype(np.int32)", a.shape,
                     np.int32, True)
        else:
            axis = int(self.rng.integers(len(a.shape)))
            fn = self.pick(["argmax", "argmin"])
            shape = a.shape[:axis] + a.shape[axis + 1:]
            if not shape:
                return False
            self.new(prog, f"np.{fn}({a.name}, axis={axis}).astype(np.int32)",
                     shape, np.int32, True)
        return True

    def where(self, prog: Program) -> bool:
        exact = [v for v in prog.pool if v.exact and v.dtype.kind in "fi"]
        if not exact:
            return False
        c = self.pick(exact)
        a = self.pick(self.broadcastable(prog, c))
        try:
            shape = np.broadcast_shapes(c.shape, a.shape)
        except ValueError:
            return False
        b = self.pick(self.broadcastable(prog, Value("", shape,
                                                     a.dtype, False)))
        shape = np.broadcast_shapes(shape, b.shape)
        cmp = self.pick([">", "<", ">=", "=="])
        self.new(prog, f"np.where({c.name} {cmp} 0, {a.name}, {b.name})",
                 shape, result_dtype(a.dtype, b.dtype), a.exact and b.exact)
        return True

    def combine(self, prog: Program) -> bool:
        # Row statistics against their rows: softmax and layer norm shapes.
        rows = [v for v in prog.pool if len(v.shape) >= 2 and
                v.dtype.kind == "f"]
        if not rows:
            return False
        a = self.pick(rows)
        if self.rng.random() < 0.5:
            expr = (f"np.exp({a.name} - np.max({a.name}, axis=-1, "
                    f"keepdims=True)) / np.sum(np.exp({a.name} - np.max("
                    f"{a.name}, axis=-1, keepdims=True)), axis=-1, "
                    f"keepdims=True)")
        else:
            expr = (f"({a.name} - np.mean({a.name}, axis=-1, keepdims=True))"
                    f" / np.sqrt(np.var({a.name}, axis=-1, keepdims=True) "
                    f"+ 1e-5)")
        self.new(prog, expr, a.shape, a.dtype, False)
        return True


def make_inputs(prog: Program, rng: np.random.Generator, wide=False):
    arrays = []
    for v in prog.inputs:
        if v.dtype.kind == "i":
            arrays.append(rng.integers(-5, 6, v.shape).astype(v.dtype))
        else:
            arrays.append(rng.standard_normal(v.shape).astype(v.dtype))
    return arrays


def compile_source(source: str):
    scope = {"np": np}
    exec(compile(source, "<difftest program>", "exec"), scope)
    return scope["program"]


def as_float64(arrays):
    return [a.astype(np.float64) if a.dtype.kind == "f" else a
            for a in arrays]


def largest_magnitude(every_value, arrays) -> float:
    """The largest finite magnitude of any float value of the program."""
    with np.errstate(all="ignore"):
        values = every_value(*as_float64(arrays))
    largest = 1.0
    for v in values:
        v = np.asarray(v)
        if v.dtype.kind == "f" and v.size:
            finite = np.abs(v[np.isfinite(v)])
            if finite.size:
                largest = max(largest, float(finite.max()))
    return largest


def coarsest_eps(prog: Program) -> float:
    """The rounding unit of the least precise float type the program
    computes in (float32 anywhere makes a float64 result float32-exact
    at best)."""
    eps = [float(np.finfo(v.dtype).eps) for v in prog.pool
           if v.dtype.kind == "f"]
    return max(eps, default=float(np.finfo(np.float64).eps))


def check(fn, arrays, scale=1.0, eps=None, reference=None) -> Optional[str]:
    """None if jit(fn) agrees with NumPy on `arrays`, else why not; `scale`
    is the largest magnitude the program computes, `eps` the rounding unit
    it computes in (default: each result's). With `reference` (the NumPy
    program), `fn` is the compiled code itself."""
    from tinytensor import jit

    numpy_fn = reference or fn
    with np.errstate(all="ignore"):
        expected = numpy_fn(*arrays)
        truth = numpy_fn(*as_float64(arrays))
    got = fn(*arrays) if reference else jit(fn)(*arrays)
    for i, (g, e, t) in enumerate(zip(got, expected, truth)):
        g, e, t = np.asarray(g), np.asarray(e), np.asarray(t)
        if g.shape != e.shape or g.dtype != e.dtype:
            return (f"result {i}: {g.dtype}{list(g.shape)} where NumPy "
                    f"gives {e.dtype}{list(e.shape)}")
        if e.dtype.kind != "f":
            if not np.array_equal(g, e):
                bad = np.argwhere(g != e)[0]
                return (f"result {i}: {g[tuple(bad)]} at {tuple(bad)} where "
                        f"NumPy gives {e[tuple(bad)]}")
            continue
        if not np.array_equal(np.isnan(g), np.isnan(e)):
            return f"result {i}: NaNs differ from NumPy's"
        finite = np.isfinite(e)
        if not np.array_equal(g[~finite & ~np.isnan(e)],
                              e[~finite & ~np.isnan(e)]):
            return f"result {i}: infinities differ from NumPy's"
        if not finite.any():
            continue
        t = t.astype(np.float64)[finite]
        ours = np.abs(g[finite].astype(np.float64) - t)
        numpy_err = np.abs(e[finite].astype(np.float64) - t)
        ulp = eps if eps is not None else float(np.finfo(e.dtype).eps)
        bound = 64 * numpy_err + 1000 * ulp * scale
        if not (ours <= bound).all():
            j = int(np.argmax(ours - bound))
            return (f"result {i}: error {ours[j]:.3g} where NumPy's is "
                    f"{numpy_err[j]:.3g} (value {t[j]:.6g}, bound "
                    f"{bound[j]:.3g})")
    return None


def draw(seed: int, max_ops: int):
    """The program of `seed` (drawn again until its float64 result is
    finite and moderate): its source, function, inputs, the largest
    magnitude it computes and its coarsest rounding unit."""
    rng = np.random.default_rng(seed)
    gen = Generator(rng)
    while True:
        prog = gen.program(max_ops)
        source = prog.source()
        fn = compile_source(source)
        arrays = make_inputs(prog, rng)
        with np.errstate(all="ignore"):
            truth = fn(*[a.astype(np.float64) if a.dtype.kind == "f" else a
                         for a in arrays])
        if all(np.isfinite(np.asarray(t, dtype=np.float64)).all() and
               np.abs(np.asarray(t, dtype=np.float64)).max(initial=0) < 1e6
               for t in truth):
            scale = largest_magnitude(
                compile_source(prog.source(every_value=True)), arrays)
            return source, fn, arrays, scale, coarsest_eps(prog)


def run_one(seed: int, max_ops: int) -> Tuple[str, Optional[str]]:
    source, fn, arrays, scale, eps = draw(seed, max_ops)
    try:
        return source, check(fn, arrays, scale, eps)
    except Exception:  # noqa: BLE001 - a crash is a finding
        return source, "exception:\n" + traceback.format_exc(limit=4)


def check_dynamic(seed: int, fn, arrays) -> Tuple[str, Optional[str]]:
    """Compiles `fn` once with the leading dimension of every input that
    has the first input's leading size dynamic (`compile_dynamic`), and
    runs it at that size and two others against NumPy. Returns "refused"
    (the program compiles that size in: a ValueError, as documented),
    "compiled" or "skipped", and the problem found, if any."""
    from tinytensor import jit
    from tinytensor.shapes import DynamicDims
    lead = [a.shape[0] for a in arrays if a.ndim >= 1]
    if not lead:
        return "skipped", None
    size = lead[0]
    dims = {(i, 0): "s0" for i, a in enumerate(arrays)
            if a.ndim >= 1 and a.shape[0] == size}
    try:
        compiled = jit(fn).compile_dynamic(arrays, DynamicDims(dims))
    except ValueError:
        return "refused", None
    rng = np.random.default_rng(seed + 1)
    for other in (size, size + 3, max(1, size // 2)):
        new = []
        for i, a in enumerate(arrays):
            shape = (other,) + a.shape[1:] if (i, 0) in dims else a.shape
            new.append(rng.integers(-5, 6, shape).astype(a.dtype)
                       if a.dtype.kind == "i" else
                       rng.standard_normal(shape).astype(a.dtype))
        try:
            with np.errstate(all="ignore"):
                want = fn(*new)
        except (ValueError, IndexError):
            continue  # the program is shape-specific in NumPy too
        got = compiled.run(*new)
        got = got if isinstance(got, (tuple, list)) else (got,)
        want = want if isinstance(want, (tuple, list)) else (want,)
        for k, (g, w) in enumerate(zip(got, want)):
            g, w = np.asarray(g), np.asarray(w)
            if g.shape != w.shape or g.dtype != w.dtype:
                return "compiled", (f"size {other}: result #{k} is "
                                    f"{g.dtype}{list(g.shape)}, NumPy's "
                                    f"{w.dtype}{list(w.shape)}")
            if w.dtype.kind != "f":
                ok = np.array_equal(g, w)
            else:
                unit = 1e-3 if w.dtype == np.float32 else 1e-9
                bound = unit * max(1.0, float(np.abs(w).max(initial=0)))
                ok = np.allclose(g, w, rtol=1e-3, atol=10 * bound,
                                 equal_nan=True)
            if not ok:
                return "compiled", (f"size {other}: result #{k} differs "
                                    f"from NumPy")
    return "compiled", None


def dynamic_failures(seeds, max_ops: int = 8) -> Tuple[List[str], dict]:
    """check_dynamic on the programs of `seeds`: the failures (as
    `failures`) and how many programs compiled, were refused or skipped."""
    found, counts = [], {"compiled": 0, "refused": 0, "skipped": 0}
    for seed in seeds:
        source, fn, arrays, _, _ = draw(seed, max_ops)
        try:
            outcome, problem = check_dynamic(seed, fn, arrays)
        except Exception:  # noqa: BLE001 - a crash is a finding
            outcome = "compiled"
            problem = "exception:\n" + traceback.format_exc(limit=4)
        counts[outcome] += 1
        if problem:
            found.append(f"seed {seed} (dynamic): {problem}\n{source}")
    return found, counts


def failures(seeds, max_ops: int = 8) -> List[str]:
    """The programs of `seeds` that fail, each as "seed N: problem" and its
    source (what the pytest runs report)."""
    found = []
    for seed in seeds:
        source, problem = run_one(seed, max_ops)
        if problem:
            found.append(f"seed {seed}: {problem}\n{source}")
    return found


def draw_large(seed: int, min_ops: int, max_ops: int):
    """The large program of `seed` (scripts/graphgen.py), with a size drawn
    log-uniformly from [min_ops, max_ops]: its source, function, inputs,
    the largest magnitude it computes, its rounding unit and its size."""
    import graphgen

    rng = np.random.default_rng(seed)
    size = int(np.exp(rng.uniform(np.log(min_ops), np.log(max_ops))))
    prog = graphgen.draw_graph(seed, size)
    source = prog.source()
    arrays = prog.arrays(rng)
    scale = largest_magnitude(compile_source(prog.source(every_value=True)),
                              arrays)
    eps = float(np.finfo(prog.inputs[1].dtype).eps)
    return source, compile_source(source), arrays, scale, eps, prog.ops


def run_large(seed: int, min_ops: int = 1000, max_ops: int = 10000):
    """Compiles and checks the large program of `seed`. Returns its source,
    a summary line and the problem found (None if it compiled and matched
    NumPy). A compiler failure is a problem; one without a diagnostic says
    so first."""
    from tinytensor import compiler, jit

    source, fn, arrays, scale, eps, ops = draw_large(seed, min_ops, max_ops)
    dtype = np.dtype(arrays[1].dtype).name
    start = time.perf_counter()
    try:
        compiled = jit(fn).compile(*arrays)
    except compiler.CompilationError as e:
        kind = ("a compiler failure WITHOUT a diagnostic"
                if "without an error diagnostic" in str(e) else
                "a compiler failure with a diagnostic")
        return source, f"{ops} ops {dtype}", f"{kind}:\n{e}"
    except Exception:  # noqa: BLE001 - a crash is a finding
        return (source, f"{ops} ops {dtype}",
                "exception:\n" + traceback.format_exc(limit=4))
    seconds = time.perf_counter() - start
    t = compiled.timings
    summary = (f"{ops} ops {dtype}, compiled in {seconds:.1f} s "
               f"(tt-optimize {t.get('tt-optimize', 0):.2f}, lowering "
               f"{t.get('tt-lower-to-llvm', 0):.2f}, LLVM "
               f"{t.get('llvm', 0):.2f})")
    try:
        problem = check(compiled.run, arrays, scale, eps, reference=fn)
    except Exception:  # noqa: BLE001
        problem = "exception:\n" + traceback.format_exc(limit=4)
    return source, summary, problem


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=None,
                        help="run for this long instead of --programs")
    parser.add_argument("--seed", type=int, default=0,
                        help="first seed; program i uses seed + i")
    parser.add_argument("--max-ops", type=int, default=8)
    parser.add_argument("--keep", default=None,
                        help="write failing programs to this directory")
    parser.add_argument("--dynamic", action="store_true",
                        help="compile each program once with a dynamic "
                             "leading dimension and run it at three sizes")
    parser.add_argument("--large", action="store_true",
                        help="graphs of thousands of operations with the "
                             "op mix of transformers and CNNs")
    parser.add_argument("--graph-ops", type=int, nargs=2, default=(1000, 10000),
                        metavar=("MIN", "MAX"),
                        help="with --large: the range of program sizes")
    args = parser.parse_args(argv)
    if args.large:
        return main_large(args)
    if args.dynamic:
        count = args.programs
        found, counts = dynamic_failures(range(args.seed, args.seed + count),
                                         args.max_ops)
        for f in found:
            print(f"--- {f}", flush=True)
        print(f"{count} programs (seeds {args.seed}..{args.seed + count - 1}"
              f"): {counts}, {len(found)} failures")
        return 1 if found else 0

    def small(seed):
        source, problem = run_one(seed, args.max_ops)
        return source, None, problem

    return run_seeds(args, small, "programs", "seed")


def main_large(args) -> int:
    # A failing large program is kept (--keep), not printed.
    return run_seeds(
        args, lambda seed: run_large(seed, *args.graph_ops),
        "large programs", "large", show_source=False)


def run_seeds(args, run, kind: str, prefix: str, show_source=True) -> int:
    """Runs `run(seed)` -> (source, summary, problem) on seeds from
    --seed on, for --programs programs or --seconds; prints each summary
    (when there is one) and each failure, keeps failing programs in
    --keep as PREFIX<seed>.py. Exit status 1 if any failed."""
    start = time.perf_counter()
    failures = i = 0
    while (time.perf_counter() - start < args.seconds
           if args.seconds is not None else i < args.programs):
        seed = args.seed + i
        source, summary, problem = run(seed)
        if summary is not None:
            print(f"seed {seed}: {summary}: {'FAILED' if problem else 'ok'}",
                  flush=True)
        if problem:
            failures += 1
            print(f"--- seed {seed}: {problem}" +
                  (f"\n{source}" if show_source else ""), flush=True)
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                with open(os.path.join(args.keep, f"{prefix}{seed}.py"),
                          "w") as f:
                    f.write(f"# {problem.splitlines()[0]}\n{source}")
        i += 1
    elapsed = time.perf_counter() - start
    print(f"{i} {kind} (seeds {args.seed}..{args.seed + i - 1}), "
          f"{failures} failures, {elapsed:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
