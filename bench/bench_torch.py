"""PyTorch models through `tinytensor.torch.jit` against eager PyTorch and
`torch.compile`, in one process (issue 11's speed targets).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        .venv-bench/bin/python bench/bench_torch.py [--seconds S] \\
        [--filter REGEX] [--json out.json]

(`.venv` works too: it has PyTorch where a local CPU build exists.)

Cases: the seed tutorial's full CNN (conv 1->32, conv 32->64, max pool,
two linear layers, log_softmax) on a [64, 1, 28, 28] batch,
`nn.TransformerEncoderLayer(d_model=64, nhead=4, batch_first=True)` on
[8, 128, 64], and torchvision's ResNet-18, MobileNetV3-small,
EfficientNet-B0 and ViT-B/16 at batch 1 and 8 (224 x 224; skipped without
torchvision), Hugging Face's GPT-2 124M, BERT-base and a 4-layer Llama
with grouped-query attention at batch 1 and 8 of 64 tokens (skipped
without transformers), all in eval mode with random weights. Each framework's
output is checked against eager PyTorch (max abs error <= 1e-4 of the
largest output); then timed as bench.py times (its `measure`): the
median of N calls (N so that the calls take about --seconds), with
CPU-seconds per wall-second over them.
Frameworks: eager PyTorch, `tinytensor.torch.jit`, "tt-backend"
(`torch.compile(model, backend="tinytensor")`) and `torch.compile` with
Inductor.
"first call" is the first call of a fresh compiled model: capture,
compile and run (TinyTensor with an empty compile cache, inductor with an
empty cache directory). Threads are every framework's default.
"""

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.utils._pytree as pytree

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))
from bench import measure, summarize  # noqa: E402  (the suite's timing)
from torch_cnn import FullCNN  # noqa: E402  (the seed tutorial's CNN)


#: torchvision's models (weights=None), when torchvision is installed
#: (scripts/setup-bench.sh installs it).
VISION_MODELS = ["resnet18", "mobilenet_v3_small", "efficientnet_b0",
                 "vit_b_16"]


@contextlib.contextmanager
def fresh_compile_caches(prefix: str):
    """Empty compile caches for TinyTensor and Inductor (unless the
    environment names its own) in a new directory, removed on exit: first
    calls then include compiling."""
    cache = tempfile.mkdtemp(prefix=prefix)
    os.environ.setdefault("TT_CACHE_DIR", os.path.join(cache, "tt"))
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR",
                          os.path.join(cache, "inductor"))
    try:
        yield cache
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def transformers_models():
    """Hugging Face models from configs with random weights (GPT-2 124M,
    BERT-base, a small Llama with grouped-query attention and rotary
    positions), when transformers is installed: (name, model, token ids
    [batch, 64]) at batch 1 and 8."""
    try:
        from tinytensor.torch.torchvision_compat import import_torchvision
        import_torchvision()  # transformers imports it when installed
        import transformers as hf
        models = [
            ("gpt2", lambda: hf.GPT2LMHeadModel(hf.GPT2Config())),
            ("bert-base", lambda: hf.BertModel(hf.BertConfig())),
            ("llama-gqa", lambda: hf.LlamaForCausalLM(hf.LlamaConfig(
                vocab_size=32000, hidden_size=512, intermediate_size=1376,
                num_hidden_layers=4, num_attention_heads=8,
                num_key_value_heads=2, max_position_embeddings=512))),
        ]
    except (ImportError, RuntimeError) as e:
        print(f"transformers is not usable ({e}): its models are skipped",
              file=sys.stderr)
        return
    for name, build in models:
        torch.manual_seed(0)
        model = build().eval()
        vocab = model.config.vocab_size
        for batch in (1, 8):
            yield (f"{name} b{batch}x64", model,
                   (torch.randint(0, vocab, (batch, 64)),))


def cases():
    torch.manual_seed(0)
    yield ("cnn b64", FullCNN().eval(), (torch.randn(64, 1, 28, 28),))
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4,
                                       batch_first=True).eval()
    yield ("transformer_layer 8x128x64", layer, (torch.randn(8, 128, 64),))
    from tinytensor.torch.torchvision_compat import import_torchvision
    torchvision = import_torchvision()
    if torchvision is None:
        print("torchvision is not installed: its models are skipped",
              file=sys.stderr)
    else:
        for name in VISION_MODELS:
            torch.manual_seed(0)
            model = getattr(torchvision.models, name)(weights=None).eval()
            for batch in (1, 8):
                yield (f"{name} b{batch}", model,
                       (torch.randn(batch, 3, 224, 224),))
    yield from transformers_models()


def relative_error(out, ref) -> float:
    """The largest error over the output's tensors (a Hugging Face model
    returns logits and its key/value cache), each relative to its own
    largest value."""
    got = [t for t in pytree.tree_flatten(out)[0]
           if isinstance(t, torch.Tensor)]
    want = [t for t in pytree.tree_flatten(ref)[0]
            if isinstance(t, torch.Tensor)]
    if len(got) != len(want):
        return float("inf")
    return max(float((g - w).abs().max() / w.abs().max().clamp_min(1e-30))
               for g, w in zip(got, want))


def frameworks():
    def tinytensor(model):
        import tinytensor.torch as ttorch
        return ttorch.jit(model)

    def eager(model):
        return model

    def compiled(model):
        torch._dynamo.reset()
        return torch.compile(model)

    def backend(model):
        import tinytensor.torch  # noqa: F401  (registers the backend)
        torch._dynamo.reset()
        return torch.compile(model, backend="tinytensor")

    return [("torch", eager), ("tinytensor", tinytensor),
            ("tt-backend", backend), ("torch.compile", compiled)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--filter", default="")
    parser.add_argument("--json")
    args = parser.parse_args()
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if var in os.environ:
            print(f"warning: {var} is set", file=sys.stderr)
    records, failed = [], False
    print(f"{'case':28} {'framework':14} {'median ms':>10} {'x eager':>8} "
          f"{'cpu/wall':>8} {'runs':>6} {'first call':>10}  check")
    print("-" * 98)
    with fresh_compile_caches("tt-bench-torch-"):
        for name, model, inputs in cases():
            if args.filter and not re.search(args.filter, name):
                continue
            with torch.no_grad():
                ref = model(*inputs)
            eager_ms = None
            for fw, build in frameworks():
                t0 = time.perf_counter()
                with torch.no_grad():
                    run = build(model)
                    out = run(*inputs)
                first = time.perf_counter() - t0
                error = relative_error(out, ref)
                ok = error <= 1e-4
                failed |= not ok
                with torch.no_grad():
                    timing = summarize(*measure(lambda: run(*inputs),
                                                args.seconds, min_runs=5))
                ms = timing["median_s"] * 1e3
                runs, cpu = timing["runs"], timing["cpu_per_wall"]
                if fw == "torch":
                    eager_ms = ms
                records.append(dict(case=name, framework=fw, median_ms=ms,
                                    x_eager=eager_ms / ms, runs=runs,
                                    cpu_per_wall=cpu, first_call_s=first,
                                    error=error))
                print(f"{name:28} {fw:14} {ms:10.3f} {eager_ms / ms:8.2f} "
                      f"{cpu:8.2f} {runs:6d} {first:9.2f}s  "
                      f"{'ok' if ok else f'WRONG ({error:.1e})'}")
            print()
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
