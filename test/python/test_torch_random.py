"""Random ops (tinytensor/torch/random.py): PyTorch's distributions from a
counter-based generator seeded from torch's default generator, so that
torch.manual_seed repeats them and each call draws new numbers; dropout
in training through torch.compile."""

import math
import warnings

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402
from tinytensor.torch import FallbackWarning, dynamo  # noqa: E402
from test_torch_ops import Fn  # noqa: E402

N = (317, 1031)  # 326k samples: sampling error of a mean ~ 0.002 sigma


def _stats(x):
    x = x.double()
    return float(x.mean()), float(x.std())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64,
                                   torch.float16])
def test_rand_and_randn_distributions(dtype):
    u, z = ttorch.jit(Fn(lambda x: (torch.rand(N, dtype=dtype),
                                    torch.randn_like(x, dtype=dtype))))(
        torch.empty(N))
    assert u.dtype == dtype and z.dtype == dtype and u.shape == N
    assert 0 <= float(u.min()) and float(u.max()) < 1
    mean, std = _stats(u)
    assert abs(mean - 0.5) < 0.01 and abs(std - math.sqrt(1 / 12)) < 0.01
    mean, std = _stats(z)
    assert abs(mean) < 0.01 and abs(std - 1) < 0.01
    # Independent streams: two draws in one program do not correlate.
    both = torch.stack([u.double().flatten(), z.double().flatten()])
    assert abs(float(torch.corrcoef(both)[0, 1])) < 0.01


def test_randint_uniform_exponential_bernoulli():
    def f(x):
        return (torch.randint(3, 10, N), torch.randint(7, N),
                torch.empty_like(x).uniform_(-2, 5),
                torch.empty_like(x).exponential_(2.0),
                torch.bernoulli(torch.full_like(x, 0.3)),
                torch.empty_like(x).normal_(3.0, 0.5))

    a, b, u, e, p, n = ttorch.jit(Fn(f))(torch.empty(N))
    assert a.dtype == torch.int64 and int(a.min()) == 3 and int(a.max()) == 9
    assert int(b.min()) == 0 and int(b.max()) == 6
    assert abs(float(a.double().mean()) - 6) < 0.02
    assert -2 <= float(u.min()) and float(u.max()) < 5
    assert abs(_stats(u)[0] - 1.5) < 0.02
    assert abs(_stats(e)[0] - 0.5) < 0.01  # mean 1 / lambda
    assert set(p.unique().tolist()) == {0.0, 1.0}
    assert abs(_stats(p)[0] - 0.3) < 0.01
    mean, std = _stats(n)
    assert abs(mean - 3) < 0.01 and abs(std - 0.5) < 0.01


def test_seeded_by_torch_and_new_every_call():
    run = ttorch.jit(Fn(lambda x: torch.rand_like(x) + x))
    x = torch.zeros(64)
    torch.manual_seed(5)
    first = run(x)
    torch.manual_seed(5)
    again = run(x)
    other = run(x)
    assert torch.equal(first, again)
    assert not torch.equal(first, other)


def test_dropout_in_training():
    x = torch.ones(N)
    out, mask = ttorch.jit(Fn(lambda x: torch.ops.aten.native_dropout(
        x, 0.25, True)))(x)
    kept = float(mask.double().mean())
    assert abs(kept - 0.75) < 0.01
    # Kept elements are scaled by 1 / (1 - p), dropped ones are zero.
    torch.testing.assert_close(out, mask.float() / 0.75)


def test_torch_compile_trains_with_dropout():
    """nn.Dropout in training compiles (no eager fallback), and the
    backward uses the forward's mask."""
    torch._dynamo.reset()
    dynamo.reset_counters()
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(32, 1))
    compiled = torch.compile(model, backend="tinytensor")
    x = torch.randn(64, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        loss = compiled(x).pow(2).mean()
        loss.backward()
    assert dynamo.counters["fallbacks"] == 0
    grad = model[0].weight.grad
    assert grad is not None and torch.isfinite(grad).all()
    # Some hidden units are dropped for the whole batch row: their
    # gradient contributions vanish, so the gradient is not eager's with
    # dropout off.
    model.zero_grad()
    model.eval()
    model(x).pow(2).mean().backward()
    assert not torch.allclose(grad, model[0].weight.grad)
    torch._dynamo.reset()


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial(replacement):
    weights = torch.tensor([[1.0, 0.0, 3.0, 4.0, 2.0], [5.0, 1.0, 1.0, 1.0,
                                                        2.0]])
    n = 20000 if replacement else 4
    draw = ttorch.jit(Fn(lambda w: torch.multinomial(w, n, replacement)))
    samples = draw(weights)
    assert samples.shape == (2, n) and samples.dtype == torch.int64
    assert int(samples.min()) >= 0 and int(samples.max()) <= 4
    if replacement:
        assert not (samples[0] == 1).any()  # a zero weight is never drawn
        frequency = torch.stack([torch.bincount(r, minlength=5)
                                 for r in samples]).double() / n
        expected = weights / weights.sum(1, keepdim=True)
        torch.testing.assert_close(frequency, expected.double(), atol=0.02,
                                   rtol=0)
    else:
        for row in samples:  # distinct categories, none of weight 0
            assert len(set(row.tolist())) == n
        assert 1 not in samples[0].tolist()
