"""Large random programs with the op mix of transformer and CNN graphs, for
scripts/difftest.py --large (and the pytest and fuzz runs built on it).

A program is a NumPy function of 1,000 to 10,000 operations that carries two
streams of activations through randomly chosen blocks:

  sequence [S, D]   attention (projections, heads split by reshape and
                    transpose, scores, a mask by `where`, softmax), MLPs
                    (tanh GELU, ReLU, sigmoid gating), layer and RMS norms,
                    row gathers by index inputs (`np.take`), leaky ReLU by
                    `where`
  image [C, H, W]   1x1 convolutions (transposes and reshapes around a
                    matmul), depthwise 3x3 convolutions (zero padding by
                    concatenation, nine shifted slices), instance norms,
                    ReLU, 2x2 max pooling (reshape, then max over the window
                    axes), channel gates

and blocks that mix the two (pooled image features projected into the
sequence). Every block ends in a residual add or a normalisation, so that
values stay moderate however deep the program is. Inputs are the token ids
(an embedding gather), weights (scaled by 1/sqrt(fan-in) in the program),
an attention mask and row permutations (integers, exact in both worlds).

The programs are plain Python source, like difftest's small ones: NumPy
runs them as they are, `tinytensor.jit` traces and compiles them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

import numpy as np

from difftest import Program, Value


@dataclass
class Input(Value):
    # "normal": N(0, 1); "ids": integers in [0, high); "mask": 0 or 1 with
    # a 1 on every row's diagonal; "perm": a permutation of range(high).
    kind: str = "normal"
    high: int = 0


@dataclass
class GraphProgram(Program):
    """difftest's Program (its source, with every value for the
    magnitudes), with the inputs' kinds and a count of operations."""

    ops: int = 0

    def arrays(self, rng: np.random.Generator) -> List[np.ndarray]:
        """Inputs that fit the program's input kinds."""
        out = []
        for t in self.inputs:
            if t.kind == "ids":
                out.append(rng.integers(0, t.high, t.shape).astype(t.dtype))
            elif t.kind == "perm":
                out.append(rng.permutation(t.high).astype(t.dtype))
            elif t.kind == "mask":
                mask = (rng.random(t.shape) < 0.7) | np.eye(t.shape[0],
                                                             dtype=bool)
                out.append(mask.astype(t.dtype))
            else:
                out.append(rng.standard_normal(t.shape).astype(t.dtype))
        return out


class GraphGenerator:
    """Draws a `GraphProgram` of at least `min_ops` operations."""

    def __init__(self, rng: np.random.Generator, min_ops: int):
        self.rng = rng
        self.min_ops = min_ops
        self.dtype = np.dtype(np.float64 if rng.random() < 0.5
                              else np.float32)
        pick = self.pick
        self.S = pick([7, 16, 17, 33])          # sequence length
        self.D = pick([16, 24, 32])             # model width
        self.H = pick([h for h in (2, 4) if self.D % h == 0])
        self.F = pick([2 * self.D, 3 * self.D])  # MLP width
        self.C = pick([3, 8, 12])               # image channels
        self.HW = pick([8, 12, 16])             # image height and width
        self.V = pick([11, 50, 97])             # vocabulary

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    # -- emitting ----------------------------------------------------------

    def input(self, shape, kind="normal", dtype=None, high=0) -> Input:
        p = self.prog
        t = Input(f"x{len(p.inputs)}", tuple(shape),
                  np.dtype(dtype or self.dtype), True, kind, high)
        p.inputs.append(t)
        return t

    def weight(self, fan_in: int, shape) -> str:
        """A weight input scaled by 1/sqrt(fan_in), as an expression."""
        w = self.input(shape)
        return f"({w.name} * {1 / np.sqrt(fan_in):.6g})"

    def emit(self, expr: str, shape, ops: int, dtype=None,
             exact=False) -> Value:
        p = self.prog
        t = Value(f"v{len(p.pool)}", tuple(shape),
                   np.dtype(dtype or self.dtype), exact)
        p.lines.append(f"{t.name} = {expr}")
        p.pool.append(t)
        p.ops += ops
        return t

    # -- sequence blocks -----------------------------------------------------

    def norm(self, x: Value) -> Value:
        if self.rng.random() < 0.5:  # layer norm with a gain
            mu = self.emit(f"np.mean({x.name}, axis=-1, keepdims=True)",
                           x.shape[:-1] + (1,), 1)
            c = self.emit(f"{x.name} - {mu.name}", x.shape, 1)
            var = self.emit(f"np.mean({c.name} * {c.name}, axis=-1, "
                            f"keepdims=True)", mu.shape, 2)
            g = self.input(x.shape[-1:])
            return self.emit(f"{c.name} / np.sqrt({var.name} + 1e-5) * "
                             f"(1 + 0.1 * {g.name})", x.shape, 6)
        ms = self.emit(f"np.mean(np.square({x.name}), axis=-1, "
                       f"keepdims=True)", x.shape[:-1] + (1,), 2)
        return self.emit(f"{x.name} / np.sqrt({ms.name} + 1e-6)", x.shape, 3)

    def attention(self, x: Value) -> Value:
        S, D, H = self.S, self.D, self.H
        dh = D // H
        h = self.norm(x)
        heads = []
        for _ in range(3):
            p = self.emit(f"{h.name} @ {self.weight(D, (D, D))}", (S, D), 2)
            r = self.emit(f"{p.name}.reshape({S}, {H}, {dh})", (S, H, dh), 1)
            heads.append(self.emit(f"np.transpose({r.name}, (1, 0, 2))",
                                   (H, S, dh), 1))
        q, k, v = heads
        s = self.emit(f"{q.name} @ np.transpose({k.name}, (0, 2, 1)) * "
                      f"{1 / np.sqrt(dh):.6g}", (H, S, S), 3)
        if self.rng.random() < 0.5:
            m = self.mask
            s = self.emit(f"np.where({m.name} > 0, {s.name}, -30.0)",
                          (H, S, S), 2)
        mx = self.emit(f"np.max({s.name}, axis=-1, keepdims=True)",
                       (H, S, 1), 1)
        e = self.emit(f"np.exp({s.name} - {mx.name})", (H, S, S), 2)
        a = self.emit(f"{e.name} / np.sum({e.name}, axis=-1, keepdims=True)",
                      (H, S, S), 2)
        o = self.emit(f"np.transpose({a.name} @ {v.name}, (1, 0, 2))"
                      f".reshape({S}, {D})", (S, D), 3)
        out = self.emit(f"{o.name} @ {self.weight(D, (D, D))}", (S, D), 2)
        return self.emit(f"{x.name} + {out.name}", (S, D), 1)

    def mlp(self, x: Value) -> Value:
        S, D, F = self.S, self.D, self.F
        h = self.norm(x)
        u = self.emit(f"{h.name} @ {self.weight(D, (D, F))}", (S, F), 2)
        form = int(self.rng.integers(4))
        if form == 0:  # tanh GELU
            a = self.emit(f"0.5 * {u.name} * (1 + np.tanh(0.7978845608 * "
                          f"({u.name} + 0.044715 * {u.name} ** 3)))",
                          (S, F), 8)
        elif form == 1:
            a = self.emit(f"np.maximum({u.name}, 0)", (S, F), 1)
        elif form == 2:  # leaky ReLU as a select (continuous at 0)
            a = self.emit(f"np.where({u.name} > 0, {u.name}, "
                          f"0.1 * {u.name})", (S, F), 3)
        else:  # sigmoid-gated
            g = self.emit(f"{h.name} @ {self.weight(D, (D, F))}", (S, F), 2)
            a = self.emit(f"{u.name} / (1 + np.exp(-{g.name}))", (S, F), 4)
        d = self.emit(f"{a.name} @ {self.weight(F, (F, D))}", (S, D), 2)
        return self.emit(f"{x.name} + {d.name}", (S, D), 1)

    def shuffle(self, x: Value) -> Value:
        """Rows gathered by a permutation and mixed back in (routing)."""
        perm = self.input((self.S,), "perm", np.int32, self.S)
        g = self.emit(f"np.take({x.name}, {perm.name}, axis=0)", x.shape, 1)
        return self.emit(f"0.5 * ({x.name} + {g.name})", x.shape, 2)

    # -- image blocks --------------------------------------------------------

    def instance_norm(self, y: Value) -> Value:
        C = y.shape[0]
        mu = self.emit(f"np.mean({y.name}.reshape({C}, -1), axis=1)"
                       f".reshape({C}, 1, 1)", (C, 1, 1), 3)
        c = self.emit(f"{y.name} - {mu.name}", y.shape, 1)
        var = self.emit(f"np.mean(({c.name} * {c.name}).reshape({C}, -1), "
                        f"axis=1).reshape({C}, 1, 1)", (C, 1, 1), 4)
        return self.emit(f"{c.name} / np.sqrt({var.name} + 1e-5)", y.shape,
                         3)

    def conv1x1(self, y: Value) -> Value:
        C, Hh, Ww = y.shape
        C2 = C if self.rng.random() < 0.7 else self.pick([4, 8, 12])
        rows = self.emit(f"np.transpose({y.name}, (1, 2, 0))"
                         f".reshape({Hh * Ww}, {C})", (Hh * Ww, C), 2)
        m = self.emit(f"{rows.name} @ {self.weight(C, (C, C2))}",
                      (Hh * Ww, C2), 2)
        z = self.emit(f"np.transpose({m.name}.reshape({Hh}, {Ww}, {C2}), "
                      f"(2, 0, 1))", (C2, Hh, Ww), 2)
        z = self.emit(f"np.maximum({z.name}, 0)", z.shape, 1)
        if C2 == C:
            return self.emit(f"{y.name} + {z.name}", y.shape, 1)
        return self.instance_norm(z)

    def depthwise3x3(self, y: Value) -> Value:
        C, Hh, Ww = y.shape
        zr = self.emit(f"np.zeros_like({y.name}[:, :1, :])", (C, 1, Ww), 2)
        p = self.emit(f"np.concatenate([{zr.name}, {y.name}, {zr.name}], "
                      f"axis=1)", (C, Hh + 2, Ww), 1)
        zc = self.emit(f"np.zeros_like({p.name}[:, :, :1])",
                       (C, Hh + 2, 1), 2)
        p = self.emit(f"np.concatenate([{zc.name}, {p.name}, {zc.name}], "
                      f"axis=2)", (C, Hh + 2, Ww + 2), 1)
        w = self.input((C, 9))
        terms = [f"{p.name}[:, {i}:{i + Hh}, {j}:{j + Ww}] * "
                 f"{w.name}[:, {3 * i + j}].reshape({C}, 1, 1)"
                 for i in range(3) for j in range(3)]
        acc = self.emit(" + ".join(terms), y.shape, 9 * 4 + 8)
        acc = self.emit(f"{acc.name} * 0.333", y.shape, 1)
        return self.emit(f"{y.name} + np.maximum({acc.name}, 0)", y.shape, 2)

    def pool(self, y: Value) -> Value:
        C, Hh, Ww = y.shape
        if Hh % 2 or Ww % 2 or Hh < 4 or Ww < 4:
            return self.depthwise3x3(y)
        r = self.emit(f"{y.name}.reshape({C}, {Hh // 2}, 2, {Ww // 2}, 2)",
                      (C, Hh // 2, 2, Ww // 2, 2), 1)
        return self.emit(f"np.max(np.max({r.name}, axis=4), axis=2)",
                         (C, Hh // 2, Ww // 2), 2)

    def gate(self, y: Value) -> Value:
        """Squeeze-and-excitation: channel means through a small MLP."""
        C = y.shape[0]
        s = self.emit(f"np.mean({y.name}.reshape({C}, -1), axis=1)", (C,), 2)
        g = self.emit(f"1 / (1 + np.exp(-({s.name} @ "
                      f"{self.weight(C, (C, C))})))", (C,), 5)
        return self.emit(f"{y.name} * {g.name}.reshape({C}, 1, 1)", y.shape,
                         2)

    # -- mixing ------------------------------------------------------------

    def cross(self, x: Value, y: Value) -> Value:
        C = y.shape[0]
        f = self.emit(f"np.mean({y.name}.reshape({C}, -1), axis=1)", (C,), 2)
        p = self.emit(f"{f.name} @ {self.weight(C, (C, self.D))}",
                      (self.D,), 2)
        return self.emit(f"{x.name} + np.tanh({p.name})", x.shape, 2)

    # -- the program ---------------------------------------------------------

    def program(self) -> GraphProgram:
        self.prog = GraphProgram(inputs=[])
        S, D = self.S, self.D
        ids = self.input((S,), "ids", np.int32, self.V)
        table = self.input((self.V, D))
        self.mask = self.input((S, S), "mask", np.int32)
        image = self.input((self.C, self.HW, self.HW))
        x = self.emit(f"np.take({table.name}, {ids.name}, axis=0)", (S, D), 1)
        y = self.instance_norm(image)
        sequence = [self.attention, self.attention, self.mlp, self.mlp,
                    self.shuffle]
        vision = [self.conv1x1, self.conv1x1, self.depthwise3x3,
                  self.depthwise3x3, self.gate, self.pool]
        while self.prog.ops < self.min_ops:
            choice = self.rng.random()
            if choice < 0.55:
                x = self.pick(sequence)(x)
            elif choice < 0.9:
                y = self.pick(vision)(y)
                if y.shape[1] < 4:  # pooled down: start again from the input
                    y = self.instance_norm(image)
            else:
                x = self.cross(x, y)
        x = self.norm(x)
        self.prog.outputs = [x, y]
        return self.prog


def draw_graph(seed: int, min_ops: int) -> GraphProgram:
    """The large program of `seed`, of at least `min_ops` operations."""
    return GraphGenerator(np.random.default_rng(seed), min_ops).program()
