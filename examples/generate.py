"""Greedy text generation with the NumPy GPT-2 of examples/gpt2.py,
compiled with tinytensor.jit, against NumPy running the same code.

    python examples/generate.py                  # small config, 32 tokens
    python examples/generate.py --124m --new 128 --numpy

Each step runs the model on the whole sequence so far (as the NumPy code
does), takes the argmax of the last position's logits and appends it.

Sequence lengths. Compiled code is specialised for its input shapes, so a
new length would compile again at every step. Instead the token ids are
padded to a bucket (a multiple of --bucket tokens) and the logits of the
last real position are read. This is exact for GPT-2 because the model is
causal: position i attends only to positions <= i (the causal mask), so
tokens appended after the real ones cannot change the real positions'
logits. 32 new tokens from a 16-token prompt use two buckets (32 and 64),
so two compilations; the compile cache (TT_CACHE_DIR) keeps them for the
next process. The padding costs computation on up to bucket-1 extra
positions per step.
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


def generate(model, ids, params, n_head, n_new, bucket=None):
    """Greedy decoding: `n_new` tokens after the prompt `ids` (a list of
    ints). With `bucket`, the ids are padded to a multiple of it with token
    0 and the last real position's logits are used (see the module's doc)."""
    ids = list(ids)
    for _ in range(n_new):
        n = len(ids)
        inputs = ids if bucket is None else \
            ids + [0] * (bucket_length(n, bucket) - n)
        logits = model(inputs, **params, n_head=n_head)
        ids.append(int(np.argmax(logits[n - 1])))
    return ids[-n_new:]


def main():
    from tinytensor import jit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--124m", dest="big", action="store_true",
                        help="GPT-2 124M shapes (random weights)")
    parser.add_argument("--prompt", type=int, default=16,
                        help="prompt length in tokens (default 16)")
    parser.add_argument("--new", type=int, default=32,
                        help="tokens to generate (default 32)")
    parser.add_argument("--bucket", type=int, default=32,
                        help="pad sequences to a multiple of this (32)")
    parser.add_argument("--numpy", action="store_true",
                        help="also generate with NumPy and compare")
    args = parser.parse_args()

    config = dict(CONFIGS["124m" if args.big else "small"])
    n_head = config.pop("n_head")
    params = random_params(**config)
    prompt = np.random.default_rng(1).integers(
        0, config["n_vocab"], args.prompt).tolist()

    compiled = jit(gpt2)
    start = time.perf_counter()
    tokens = generate(compiled, prompt, params, n_head, args.new,
                      bucket=args.bucket)
    t_tt = time.perf_counter() - start
    info = compiled.cache_info()
    print(f"config: {'124M' if args.big else 'small'}, prompt "
          f"{args.prompt} tokens, {args.new} new, bucket {args.bucket}")
    print(f"TinyTensor: {t_tt:.2f} s including {info.misses} "
          f"compilations ({t_tt / args.new * 1e3:.1f} ms per token)")
    if args.numpy:
        start = time.perf_counter()
        expected = generate(gpt2, prompt, params, n_head, args.new)
        t_np = time.perf_counter() - start
        print(f"NumPy:      {t_np:.2f} s ({t_np / args.new * 1e3:.1f} ms "
              f"per token); TinyTensor is {t_np / t_tt:.2f}x NumPy")
        same = tokens == expected
        print(f"same tokens as NumPy: {same}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
