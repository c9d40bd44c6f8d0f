"""Trains a small GPT (4 layers, 4 heads, 128 wide, 64 tokens) with AdamW
through `torch.compile(backend="tinytensor")`, and checks every step's
loss against the same training in eager PyTorch.

    python examples/torch_small_gpt.py [--steps 50] [--batch 8]
        [--backend tinytensor|inductor|eager] [--no-check]

The data is a fixed synthetic sequence task (each token is the sum of the
two before it, modulo the vocabulary), so the loss falls steadily. Dropout
is 0: the compiled and the eager run compute the same numbers.
"""

import argparse
import copy
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = [y.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for y in (q, k, v)]
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attn = CausalSelfAttention(width, heads)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class SmallGPT(nn.Module):
    def __init__(self, vocab=128, width=128, layers=4, heads=4, context=64):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads)
                                    for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.tokens(ids) + self.positions(torch.arange(t))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def batch(size: int, context: int, vocab: int, seed: int = 0):
    """Sequences where each token is the sum of the two before it (mod
    vocab): inputs and next-token targets."""
    g = torch.Generator().manual_seed(seed)
    seq = torch.empty(size, context + 1, dtype=torch.long)
    seq[:, :2] = torch.randint(0, vocab, (size, 2), generator=g)
    for i in range(2, context + 1):
        seq[:, i] = (seq[:, i - 1] + seq[:, i - 2]) % vocab
    return seq[:, :-1], seq[:, 1:]


def train_step(model, optimizer, ids, targets):
    logits = model(ids)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                           targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def trainer(model, backend: str):
    """One training step (forward, backward, AdamW) as a function, compiled
    with `backend` ("eager": not compiled)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, foreach=True)
    if backend == "eager":
        return lambda ids, targets: train_step(model, optimizer, ids,
                                               targets)
    compiled = torch.compile(model, backend=backend)
    step = torch.compile(optimizer.step, backend=backend)

    def run(ids, targets):
        logits = compiled(ids)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        step()
        return loss
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--backend", default="tinytensor")
    parser.add_argument("--no-check", action="store_true")
    args = parser.parse_args()
    if args.backend == "tinytensor":
        import tinytensor.torch  # noqa: F401  (registers the backend)
    torch.manual_seed(0)
    model = SmallGPT()
    reference = copy.deepcopy(model)
    ids, targets = batch(args.batch, 64, 128)
    run = trainer(model, args.backend)
    ref_run = None if args.no_check else trainer(reference, "eager")
    worst = 0.0
    for step in range(args.steps):
        start = time.perf_counter()
        loss = float(run(ids, targets))
        took = time.perf_counter() - start
        line = f"step {step:3d}  loss {loss:.5f}  {took * 1e3:8.1f} ms"
        if ref_run is not None:
            want = float(ref_run(ids, targets))
            error = abs(loss - want) / abs(want)
            worst = max(worst, error)
            line += f"  eager {want:.5f}  rel. diff {error:.1e}"
        print(line)
    if ref_run is not None:
        print(f"largest relative difference from eager: {worst:.1e}")
        return 0 if worst <= 1e-4 and math.isfinite(worst) else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
