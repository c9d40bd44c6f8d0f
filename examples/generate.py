"""Greedy text generation with the NumPy GPT-2 of examples/gpt2.py,
compiled with tinytensor.jit, against NumPy running the same code.

    python examples/generate.py                  # small config, 32 tokens
    python examples/generate.py --124m --new 128 --numpy

Each step runs the model on the whole sequence so far (as the NumPy code
does) and takes the argmax of the last position's logits: `next_token`,
the function that is compiled, is `np.argmax(gpt2(...)[last])`. Since only
one row of the logits is used, the compiler computes only that row of the
final layer norm and of the [n_embd x n_vocab] product that makes the
logits (tt-optimize's `sink-row-selections`); NumPy computes them all.

Sequence lengths, by default: one compilation for every length. The
token ids' length is a dynamic dimension (`JitFunction.compile_dynamic`
with `DynamicDims({(0, 0): "length"})`): the model is traced at the
prompt's length and at one more, the positions `range(len(inputs))` and
the causal mask `np.tri(n)` that the unmodified model makes are
recognised and made from the run-time length (`tt.iota`), and the
compiled code takes ids of any length. The position whose logits are
used is passed as a 0-d array (`np.array(n - 1)`), a value of the
compiled code: a Python int would be a static argument.

With --bucket N, the token ids are instead padded to a multiple of N and
the logits of the last real position are used: one compilation per
bucket, each for a static length. This is exact for GPT-2 because the
model is causal: position i attends only to positions <= i, so tokens
appended after the real ones cannot change the real positions' logits;
the padding costs computation on up to N-1 extra positions per step.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gpt2 import CONFIGS, gpt2, random_params  # noqa: E402


def bucket_length(n: int, bucket: int) -> int:
    """`n` rounded up to a multiple of `bucket`."""
    return -(-n // bucket) * bucket


def next_token(inputs, last, params, n_head):
    """The greedy choice after position `last` of `inputs` (token ids):
    the argmax of that position's logits."""
    return np.argmax(gpt2(inputs, **params, n_head=n_head)[last])


def generate(step, ids, params, n_head, n_new, bucket=None):
    """Greedy decoding: `n_new` tokens after the prompt `ids` (a list of
    ints), each chosen by `step` (`next_token`, compiled or not). With
    `bucket`, the ids are padded to a multiple of it with token 0 (see the
    module's doc)."""
    ids = list(ids)
    for _ in range(n_new):
        n = len(ids)
        inputs = ids if bucket is None else \
            ids + [0] * (bucket_length(n, bucket) - n)
        ids.append(int(step(inputs, np.array(n - 1), params, n_head)))
    return ids[-n_new:]


def compile_for_every_length(prompt, params, n_head):
    """next_token compiled once for token ids of any length (traced with
    `prompt`): a step function for `generate`."""
    from tinytensor import jit
    from tinytensor.shapes import DynamicDims

    compiled = jit(next_token).compile_dynamic(
        (list(prompt), np.array(len(prompt) - 1), params, n_head),
        DynamicDims({(0, 0): "length"}))
    return compiled.run


def main():
    from tinytensor import jit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--124m", dest="big", action="store_true",
                        help="GPT-2 124M shapes (random weights)")
    parser.add_argument("--prompt", type=int, default=16,
                        help="prompt length in tokens (default 16)")
    parser.add_argument("--new", type=int, default=32,
                        help="tokens to generate (default 32)")
    parser.add_argument("--bucket", type=int, default=0,
                        help="pad sequences to a multiple of this and "
                             "compile per bucket (default 0: one "
                             "compilation for every length)")
    parser.add_argument("--numpy", action="store_true",
                        help="also generate with NumPy and compare")
    args = parser.parse_args()

    config = dict(CONFIGS["124m" if args.big else "small"])
    n_head = config.pop("n_head")
    params = random_params(**config)
    prompt = np.random.default_rng(1).integers(
        0, config["n_vocab"], args.prompt).tolist()

    start = time.perf_counter()
    if args.bucket:
        step = jit(next_token)
        tokens = generate(step, prompt, params, n_head, args.new,
                          bucket=args.bucket)
        compilations = step.cache_info().misses
        lengths = f"buckets of {args.bucket}"
    else:
        step = compile_for_every_length(prompt, params, n_head)
        tokens = generate(step, prompt, params, n_head, args.new)
        compilations = 1
        lengths = "dynamic length"
    t_tt = time.perf_counter() - start
    print(f"config: {'124M' if args.big else 'small'}, prompt "
          f"{args.prompt} tokens, {args.new} new, {lengths}")
    print(f"TinyTensor: {t_tt:.2f} s including {compilations} "
          f"compilation(s) ({t_tt / args.new * 1e3:.1f} ms per token)")
    if args.numpy:
        start = time.perf_counter()
        expected = generate(next_token, prompt, params, n_head, args.new)
        t_np = time.perf_counter() - start
        print(f"NumPy:      {t_np:.2f} s ({t_np / args.new * 1e3:.1f} ms "
              f"per token); TinyTensor is {t_np / t_tt:.2f}x NumPy")
        same = tokens == expected
        print(f"same tokens as NumPy: {same}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
