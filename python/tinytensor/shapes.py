"""Dynamic dimensions of a compiled function: which input dimensions take
any size at run time, and how the outputs' sizes follow from them.

Front ends that know the symbolic shapes of a program (torch.export does)
describe them with `DynamicDims`; the compiled function then serves every
size of those dimensions (`--tt-generalize-shapes` makes them `?` in the
tt module), and its outputs are allocated from the inputs' sizes at each
call.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple


class OutOfRange(ValueError):
    """A dynamic dimension's size is outside the range the program was
    compiled for."""


class DynamicDims:
    """The dynamic dimensions of one compiled function.

    `inputs` maps (input index, dimension) to a symbol: input dimensions
    with the same symbol must have the same size at each call. `outputs`
    lists, for every output, the symbol of each of its dimensions (None for
    a static one), or a symbol plus or minus a constant ("s0+1"); every
    output symbol is an input symbol. With one symbol,
    `outputs` may be None: every dynamic dimension of the compiled
    function's results is then that symbol; so may they with several
    symbols whose `traced_sizes` (their sizes at the traced call) differ:
    a dynamic result dimension is then the symbol of its traced size.
    `ranges` maps symbols to (smallest, largest) sizes, largest None when
    unbounded.
    """

    def __init__(self, inputs: Dict[Tuple[int, int], str],
                 outputs: Optional[Sequence[Sequence[Optional[str]]]] = None,
                 ranges: Optional[Dict[str, Tuple[int, Optional[int]]]] = None,
                 traced_sizes: Optional[Dict[str, int]] = None):
        self.inputs = dict(sorted(inputs.items()))
        #: With more than one symbol and no outputs: each symbol's size at
        #: the traced call, all different; a dynamic result dimension is
        #: the symbol whose size it had there (jit(..., dynamic=True)).
        self.traced_sizes = dict(traced_sizes) if traced_sizes else None
        if outputs is None and len(set(self.inputs.values())) != 1 and (
                self.traced_sizes is None or
                len(set(self.traced_sizes.values())) !=
                len(self.traced_sizes)):
            raise ValueError("the outputs' dynamic dimensions can be left "
                             "out only with one symbol, or with symbols of "
                             "different traced sizes")
        #: None until the compiled function's result types give them.
        self.outputs = None if outputs is None else \
            [list(dims) for dims in outputs]
        self.ranges = dict(ranges or {})
        known = set(self.inputs.values())
        for i, dims in enumerate(self.outputs or ()):
            for d, size in enumerate(dims):
                symbol = None if size is None else _split_size(size)[0]
                if symbol is not None and symbol not in known:
                    raise ValueError(
                        f"output #{i} dimension {d} has the dynamic size "
                        f"{symbol}, which is not the size of an input "
                        f"dimension")

    def pass_dims(self) -> str:
        """The `dims` option of --tt-generalize-shapes."""
        return ",".join(f"{i}:{d}" for i, d in self.inputs)

    def sizes(self, shapes: Sequence[Tuple[int, ...]]) -> Dict[str, int]:
        """The size of each symbol for inputs of `shapes`; ValueError when
        two dimensions of one symbol differ, OutOfRange outside its
        range."""
        sizes: Dict[str, int] = {}
        where: Dict[str, Tuple[int, int]] = {}
        for (i, d), symbol in self.inputs.items():
            n = shapes[i][d]
            if symbol in sizes and sizes[symbol] != n:
                j, e = where[symbol]
                raise ValueError(
                    f"input #{i} dimension {d} is {n} but input #{j} "
                    f"dimension {e} is {sizes[symbol]}: both are the "
                    f"dynamic size {symbol} and must be equal")
            sizes[symbol] = n
            where[symbol] = (i, d)
        for symbol, n in sizes.items():
            lo, hi = self.ranges.get(symbol, (1, None))
            if n < lo or (hi is not None and n > hi):
                i, d = where[symbol]
                bound = "inf" if hi is None else hi
                raise OutOfRange(
                    f"input #{i} dimension {d} is {n}, outside the range "
                    f"[{lo}, {bound}] of the dynamic size {symbol}")
        return sizes

    def output_shapes(self, shapes: Sequence[Tuple[int, ...]],
                      static: Sequence[Tuple[int, ...]]) -> List[tuple]:
        """The outputs' shapes for inputs of `shapes`; `static` gives the
        outputs' static sizes (any value where dynamic)."""
        sizes = self.sizes(shapes)

        def size(s, n):
            if s is None:
                return n
            symbol, offset = _split_size(s)
            return sizes[symbol] + offset
        return [tuple(size(s, n) for s, n in zip(dims, shape))
                for dims, shape in zip(self.outputs, static)]


def _split_size(size: str) -> Tuple[str, int]:
    """An output size: a symbol, or a symbol plus or minus a constant
    ("s0+1", the length of a key/value cache after one more token)."""
    for sign in ("+", "-"):
        symbol, found, offset = size.partition(sign)
        if found and offset.strip().isdigit():
            value = int(offset)
            return symbol.strip(), value if sign == "+" else -value
    return size, 0
