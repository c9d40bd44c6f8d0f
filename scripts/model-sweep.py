#!/usr/bin/env python3
"""Models nobody here wrote through `tinytensor.torch.jit`: does each
compile, match eager PyTorch, and how fast is it against eager.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        .venv-bench/bin/python scripts/model-sweep.py \\
        [--suite torchvision|transformers] [--filter REGEX] [--batch N] \\
        [--size PIXELS] [--tokens T] [--max-params M] [--timeout S] \\
        [--calls N] [--json F]

Suites: `torchvision`, every classification model of
`torchvision.models` (weights=None) on [batch, 3, size, size] (224 by
default; inception_v3 gets its minimum of 299); `transformers`, Hugging
Face architectures built from their configs with random weights (base
sizes, decoder-only ones cut to a few layers) on [batch, tokens] token ids
(64 by default), pixels or audio features as each takes. Parameters that
a model initialises to all zeros (ViT's classifier) are drawn at random
instead, so that the output depends on every layer.

Each model runs in a subprocess of its own, bounded by --timeout seconds
(a compile that never ends is reported as a timeout, not waited for), in
eval mode without gradients. The subprocess runs eager once, then the
first TinyTensor call (capture, compile, run; an empty compile cache),
checks every output tensor against eager (max abs error <= 1e-4 of its
largest value, as bench/bench_torch.py), and times --calls alternating
calls of each (median). Models run smallest first (by parameter count).

Prints one line per model and a summary; --json writes the rows. Needs
torchvision or transformers (scripts/setup-bench.sh installs both); exits
1 when a model fails, 0 when every one passes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Input sizes below which a torchvision model cannot run.
MIN_SIZE = {"inception_v3": 299}


def _torchvision():
    from tinytensor.torch.torchvision_compat import import_torchvision
    tv = import_torchvision()
    if tv is None:
        sys.exit("model-sweep.py: torchvision is not installed "
                 "(scripts/setup-bench.sh installs it)")
    return tv


def _transformers():
    _torchvision()  # transformers imports it when installed
    try:
        import transformers
    except ImportError:
        sys.exit("model-sweep.py: transformers is not installed "
                 "(scripts/setup-bench.sh installs it)")
    return transformers


#: Decoder-only models at a size that compiles in seconds: the base
#: configs of most are billions of parameters.
SMALL_DECODER = dict(hidden_size=512, intermediate_size=1376,
                     num_hidden_layers=4, num_attention_heads=8,
                     num_key_value_heads=2, vocab_size=32000,
                     max_position_embeddings=512)


def transformers_models() -> dict:
    """name -> (model class name, config class name, config arguments,
    input kind): "tokens", "pixels" [3, 224, 224] or "encoder-decoder"
    (token ids for both halves)."""
    small = dict(SMALL_DECODER)
    gqa = {k: v for k, v in small.items() if k != "num_key_value_heads"}
    return {
        "bert": ("BertModel", "BertConfig", {}, "tokens"),
        "roberta": ("RobertaModel", "RobertaConfig", {}, "tokens"),
        "distilbert": ("DistilBertModel", "DistilBertConfig", {}, "tokens"),
        "albert": ("AlbertModel", "AlbertConfig", {}, "tokens"),
        "electra": ("ElectraModel", "ElectraConfig", {}, "tokens"),
        "deberta-v2": ("DebertaV2Model", "DebertaV2Config",
                       dict(num_hidden_layers=4), "tokens"),
        "mobilebert": ("MobileBertModel", "MobileBertConfig", {}, "tokens"),
        "gpt2": ("GPT2LMHeadModel", "GPT2Config", {}, "tokens"),
        "gpt-neo": ("GPTNeoForCausalLM", "GPTNeoConfig",
                    dict(num_layers=4, attention_types=[[["global", "local"],
                                                         2]]), "tokens"),
        "opt": ("OPTForCausalLM", "OPTConfig", {}, "tokens"),
        "bloom": ("BloomForCausalLM", "BloomConfig",
                  dict(n_layer=4, hidden_size=512, n_head=8), "tokens"),
        "falcon": ("FalconForCausalLM", "FalconConfig",
                   dict(num_hidden_layers=4, hidden_size=512,
                        num_attention_heads=8), "tokens"),
        "llama": ("LlamaForCausalLM", "LlamaConfig", small, "tokens"),
        "mistral": ("MistralForCausalLM", "MistralConfig", small, "tokens"),
        "qwen2": ("Qwen2ForCausalLM", "Qwen2Config", small, "tokens"),
        "phi": ("PhiForCausalLM", "PhiConfig", gqa, "tokens"),
        "gemma": ("GemmaForCausalLM", "GemmaConfig",
                  dict(small, head_dim=64), "tokens"),
        "t5": ("T5Model", "T5Config", {}, "encoder-decoder"),
        "bart": ("BartModel", "BartConfig", {}, "encoder-decoder"),
        "vit": ("ViTForImageClassification", "ViTConfig", {}, "pixels"),
        "swin": ("SwinForImageClassification", "SwinConfig", {}, "pixels"),
        "convnext": ("ConvNextForImageClassification", "ConvNextConfig", {},
                     "pixels"),
        "resnet": ("ResNetForImageClassification", "ResNetConfig", {},
                   "pixels"),
        "mobilevit": ("MobileViTForImageClassification", "MobileViTConfig",
                      {}, "pixels"),
        "clip-text": ("CLIPTextModel", "CLIPTextConfig", {}, "tokens"),
        "segformer": ("SegformerForSemanticSegmentation", "SegformerConfig",
                      {}, "pixels"),
    }


def build(suite: str, name: str, batch: int, size: int, tokens: int):
    """The model (eval mode, seed 0) and its inputs."""
    import torch
    torch.manual_seed(0)
    if suite == "torchvision":
        tv = _torchvision()
        model = tv.models.get_model(name, weights=None)
        size = max(size, MIN_SIZE.get(name, 0))
        return model.eval(), (torch.randn(batch, 3, size, size),)
    hf = _transformers()
    model_class, config_class, kwargs, kind = transformers_models()[name]
    config = getattr(hf, config_class)(**kwargs)
    model = getattr(hf, model_class)(config).eval()
    if kind == "pixels":
        return model, (torch.randn(batch, 3, 224, 224),)
    vocab = min(getattr(config, "vocab_size", 1000), 30000)
    ids = torch.randint(0, vocab, (batch, tokens))
    if kind == "encoder-decoder":
        return model, (ids, torch.ones_like(ids), ids[:, : tokens // 2])
    return model, (ids,)


def relative_error(got, expected) -> float:
    """The largest error over the outputs' tensors, each relative to its
    own largest value (inf when the structures differ)."""
    import torch.utils._pytree as pytree
    got = [t for t in pytree.tree_flatten(got)[0] if hasattr(t, "abs")]
    want = [t for t in pytree.tree_flatten(expected)[0] if hasattr(t, "abs")]
    if len(got) != len(want):
        return float("inf")
    return max((float((g - w).abs().max() / w.abs().max().clamp_min(1e-30))
                for g, w in zip(got, want) if w.numel()), default=0.0)


def run_one(suite: str, name: str, batch: int, size: int, tokens: int,
            calls: int) -> dict:
    """In the subprocess: compile and time one model; returns its row."""
    import math
    import torch
    import tinytensor.torch as ttt

    model, inputs = build(suite, name, batch, size, tokens)
    with torch.no_grad():
        for p in model.parameters():
            if p.numel() > 1 and not p.any():
                p.normal_(0.0, 0.02)
    row = {"model": name, "suite": suite, "batch": batch,
           "inputs": [list(t.shape) for t in inputs],
           "params_m": sum(p.numel() for p in model.parameters()) / 1e6}
    with torch.no_grad():
        expected = model(*inputs)
        compiled = ttt.jit(model)
        start = time.perf_counter()
        got = compiled(*inputs)
        row["first_call_s"] = time.perf_counter() - start
        row["error"] = relative_error(got, expected)
        row["status"] = ("ok" if math.isfinite(row["error"]) and
                         row["error"] <= 1e-4 else "wrong")
        eager, tt = [], []
        for _ in range(calls):
            start = time.perf_counter()
            model(*inputs)
            eager.append(time.perf_counter() - start)
            start = time.perf_counter()
            compiled(*inputs)
            tt.append(time.perf_counter() - start)
    row["eager_ms"] = statistics.median(eager) * 1e3
    row["tt_ms"] = statistics.median(tt) * 1e3
    row["speedup"] = row["eager_ms"] / row["tt_ms"]
    return row


def sweep(names, args) -> list:
    rows = []
    for name in names:
        env = dict(os.environ)
        with tempfile.TemporaryDirectory(prefix="tt-sweep-") as cache:
            env.setdefault("TT_CACHE_DIR", cache)
            command = [sys.executable, __file__, "--one", name,
                       "--suite", args.suite, "--batch", str(args.batch),
                       "--size", str(args.size), "--tokens", str(args.tokens),
                       "--calls", str(args.calls)]
            start = time.perf_counter()
            try:
                done = subprocess.run(command, env=env, capture_output=True,
                                      text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                row = {"model": name, "status": "timeout",
                       "detail": f"no result in {args.timeout:g} s"}
            else:
                lines = [ln for ln in done.stdout.splitlines()
                         if ln.startswith("{")]
                if done.returncode == 0 and lines:
                    row = json.loads(lines[-1])
                else:
                    tail = done.stderr.strip().splitlines() or [
                        f"exit status {done.returncode}"]
                    errors = [ln for ln in tail if re.match(
                        r"^[\w.]*(Error|Exception)\b", ln)]
                    row = {"model": name, "status": "error",
                           "detail": (errors or tail)[-1][:300]}
            row["wall_s"] = time.perf_counter() - start
        rows.append(row)
        print(format_row(row), flush=True)
    return rows


def format_row(row: dict) -> str:
    if row["status"] in ("ok", "wrong"):
        return (f"{row['model']:<22} {row['status']:<7} "
                f"{row['params_m']:7.1f}M  error {row['error']:.1e}  "
                f"first {row['first_call_s']:6.2f} s  eager "
                f"{row['eager_ms']:8.2f} ms  tt {row['tt_ms']:8.2f} ms  "
                f"{row['speedup']:5.2f}x")
    return f"{row['model']:<22} {row['status']:<7} {row.get('detail', '')}"


def model_names(args) -> list:
    """The suite's models matching --filter, smallest first."""
    if args.suite == "torchvision":
        tv = _torchvision()
        names = tv.models.list_models(module=tv.models)

        def params(name):
            weights = tv.models.get_model_weights(name)
            return next(iter(weights)).meta.get("num_params", 0)
    else:
        names = list(transformers_models())

        def params(name):
            import torch
            with torch.device("meta"):
                model, _ = build(args.suite, name, 1, args.size, 8)
            return sum(p.numel() for p in model.parameters())
    names = [n for n in names if re.search(args.filter, n)]
    sizes = {n: params(n) for n in names}
    names.sort(key=sizes.get)
    if args.max_params is not None:
        names = [n for n in names if sizes[n] <= args.max_params * 1e6]
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=["torchvision", "transformers"],
                        default="torchvision")
    parser.add_argument("--filter", default="",
                        help="only the models whose names match this regex")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--size", type=int, default=224,
                        help="torchvision's input height and width "
                             "(default 224)")
    parser.add_argument("--tokens", type=int, default=64,
                        help="sequence length of token inputs (default 64)")
    parser.add_argument("--max-params", type=float, default=None,
                        help="skip models over this many million parameters")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds per model (default 600)")
    parser.add_argument("--calls", type=int, default=5,
                        help="timed calls of each (default 5)")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.suite, args.one, args.batch, args.size,
                                 args.tokens, args.calls)))
        return 0

    names = model_names(args)
    if not names:
        sys.exit(f"model-sweep.py: no {args.suite} model matches "
                 f"{args.filter!r}")
    rows = sweep(names, args)
    ok = [r for r in rows if r["status"] == "ok"]
    print(f"\n{len(ok)} of {len(rows)} models compile and match eager")
    if ok:
        ratios = [r["speedup"] for r in ok]
        print(f"speed vs eager: median {statistics.median(ratios):.2f}x, "
              f"{sum(r >= 1.0 for r in ratios)} of {len(ok)} at or above")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if len(ok) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
