"""Training steps (forward, backward, optimizer) through
`torch.compile(backend="tinytensor")` against eager PyTorch and
`torch.compile` with Inductor, in one process (issue 44's speed targets).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        .venv-bench/bin/python bench/bench_training.py [--steps 50] \\
        [--filter REGEX] [--json out.json]

Cases: torchvision's ResNet-18 (weights=None, batch 8 of 224 x 224, SGD
with momentum, cross-entropy; skipped without torchvision) and the small
GPT of examples/torch_small_gpt.py (4 layers, 4 heads, 128 wide, batch 8
of 64 tokens, AdamW with foreach=True). Each framework trains its own copy
of the same initial model for --steps steps on one fixed batch; every
step's loss is compared with eager's: "agree" is the number of leading
steps within 1e-4 relative, "max diff" the largest relative difference.
The control row "eager-1thread" is eager PyTorch on one thread: how far
float32 training drifts from a mere change in summation order (ResNet-18's
drifts past 1e-4 within a few steps, so no compiler can track eager for 50
steps there). "first step" is the first step's wall time (capture and
compile for the compiled ones, with empty caches), "median ms" the median
of the later steps. The run fails if a compiled model's first loss (same
weights, one forward) differs from eager's by more than 1e-4.
"""

import argparse
import copy
import json
import re
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))
from bench_torch import fresh_compile_caches  # noqa: E402
from torch_small_gpt import SmallGPT, batch  # noqa: E402


def cases():
    torch.manual_seed(0)
    ids, targets = batch(8, 64, 128)
    yield ("small-gpt b8x64 adamw", SmallGPT(), ids, targets,
           lambda params: torch.optim.AdamW(params, lr=3e-3, foreach=True))
    from tinytensor.torch.torchvision_compat import import_torchvision
    torchvision = import_torchvision()
    if torchvision is None:
        print("torchvision is not installed: ResNet-18 is skipped",
              file=sys.stderr)
        return
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None)
    yield ("resnet18 b8 sgd", model, torch.randn(8, 3, 224, 224),
           torch.randint(0, 1000, (8,)),
           lambda params: torch.optim.SGD(params, lr=0.01, momentum=0.9))


def stepper(model, make_optimizer, backend):
    optimizer = make_optimizer(model.parameters())
    forward, step = model, optimizer.step
    if backend != "eager":
        forward = torch.compile(model, backend=backend)
        step = torch.compile(optimizer.step, backend=backend)

    def run(x, y):
        out = forward(x)
        loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        step()
        return float(loss)
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--filter", default="")
    parser.add_argument("--json")
    args = parser.parse_args()
    import tinytensor.torch  # noqa: F401  (registers the backend)
    records, failed = [], False
    print(f"{'case':24} {'framework':14} {'median ms':>10} {'x eager':>8} "
          f"{'first step':>10} {'agree':>6} {'max diff':>9}")
    print("-" * 88)
    with fresh_compile_caches("tt-bench-train-"):
        for name, model, x, y, make_optimizer in cases():
            if args.filter and not re.search(args.filter, name):
                continue
            eager_losses, eager_ms = None, None
            for fw in ("eager", "eager-1thread", "tinytensor", "inductor"):
                torch._dynamo.reset()
                copy_ = copy.deepcopy(model).train()
                run = stepper(copy_, make_optimizer,
                              "eager" if fw == "eager-1thread" else fw)
                threads = torch.get_num_threads()
                if fw == "eager-1thread":
                    torch.set_num_threads(1)
                losses, times = [], []
                try:
                    for _ in range(args.steps):
                        start = time.perf_counter()
                        losses.append(run(x, y))
                        times.append(time.perf_counter() - start)
                finally:
                    torch.set_num_threads(threads)
                ms = statistics.median(times[2:] or times) * 1e3
                if fw == "eager":
                    eager_losses, eager_ms = losses, ms
                diffs = [abs(a - b) / abs(b)
                         for a, b in zip(losses, eager_losses)]
                agree = next((i for i, d in enumerate(diffs)
                              if not d <= 1e-4), len(diffs))
                failed |= fw in ("tinytensor",) and not diffs[0] <= 1e-4
                records.append(dict(case=name, framework=fw, median_ms=ms,
                                    x_eager=eager_ms / ms,
                                    first_step_s=times[0],
                                    agreeing_steps=agree,
                                    max_loss_rel_diff=max(diffs),
                                    steps=args.steps))
                print(f"{name:24} {fw:14} {ms:10.2f} {eager_ms / ms:8.2f} "
                      f"{times[0]:9.2f}s {agree:6d} {max(diffs):9.1e}")
            print()
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
