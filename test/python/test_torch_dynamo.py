"""torch.compile(model, backend="tinytensor"), against eager PyTorch:
graph breaks, ops that fall back (and the error with the fallback off),
dynamic shapes counting compilations, gradients through AOTAutograd, and
training loops."""

import copy
import warnings

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tinytensor.torch  # noqa: E402,F401  (registers the backend)
from tinytensor.torch import FallbackWarning, UnsupportedOpError  # noqa
from tinytensor.torch import dynamo  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh():
    torch.manual_seed(0)
    torch._dynamo.reset()
    dynamo.reset_counters()
    yield
    torch._dynamo.reset()


def tt_compile(model, **kwargs):
    return torch.compile(model, backend="tinytensor", **kwargs)


def close(got, want, rtol=1e-5, atol=1e-6):
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


class MLP(nn.Module):
    def __init__(self, d_in=13, hidden=37, d_out=5):
        super().__init__()
        self.l1, self.l2 = nn.Linear(d_in, hidden), nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.l2(F.gelu(self.l1(x)))


def test_backend_is_registered():
    assert "tinytensor" in torch._dynamo.list_backends()


def test_inference_matches_eager_and_compiles():
    model = MLP().eval()
    x = torch.randn(7, 13)
    with torch.no_grad():
        close(tt_compile(model)(x), model(x))
    assert dynamo.counters["graphs"] == 1
    assert dynamo.counters["programs"] == 1


def test_multi_result_ops_stay_in_one_partition():
    # Eval batch norm returns empty saved statistics next to its result,
    # layer norm its mean and rstd: the results read are compiled with
    # the rest, in one program.
    model = nn.Sequential(nn.Conv2d(3, 6, 3), nn.BatchNorm2d(6), nn.ReLU(),
                          nn.Flatten(), nn.LayerNorm(6 * 5 * 5)).eval()
    x = torch.randn(2, 3, 7, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        with torch.no_grad():
            close(tt_compile(model)(x), model(x), rtol=1e-4, atol=1e-5)
    assert dynamo.counters["programs"] == 1


def test_graph_break():
    # Data-dependent Python: Dynamo splits the function in two graphs,
    # each compiled by TinyTensor; the Python between them runs as is.
    def fn(x, w):
        h = torch.tanh(x @ w)
        if h.sum() > 0:
            h = h * 2
        print("between the graphs", end="")
        return h.softmax(-1)

    x, w = torch.randn(6, 9), torch.randn(9, 11)
    for sign in (1, -1):
        close(tt_compile(fn)(sign * x, w), fn(sign * x, w))
    assert dynamo.counters["graphs"] >= 2


def test_unsupported_op_falls_back_with_one_warning():
    def fn(x):
        return torch.special.bessel_j0(x * 3).exp() + 1

    x = torch.randn(4, 5)
    with pytest.warns(FallbackWarning, match="special_bessel_j0"):
        got = tt_compile(fn)(x)
    close(got, fn(x))
    # The two compiled partitions around it.
    assert dynamo.counters["programs"] == 2
    # One warning per op kind per process.
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        close(tt_compile(fn)(x + 1), fn(x + 1))


def test_fallback_off_raises_naming_the_op():
    def fn(x):
        return torch.special.bessel_j0(x) + 1

    with pytest.raises(Exception, match="special_bessel_j0") as info:
        tt_compile(fn, options={"fallback": False})(torch.randn(3))
    cause = info.value
    while cause is not None and not isinstance(cause, UnsupportedOpError):
        cause = cause.__cause__ or getattr(cause, "inner_exception", None)
    assert isinstance(cause, UnsupportedOpError)


def test_unknown_option_is_refused():
    with pytest.raises(Exception, match="unknown tinytensor backend option"):
        tt_compile(MLP(), options={"thread": 2})(torch.randn(2, 13))


def test_threads_and_opt_level_options():
    model = MLP().eval()
    x = torch.randn(7, 13)
    with torch.no_grad():
        want = model(x)
        got = tt_compile(model, options={"threads": 1, "opt_level": 0})(x)
    close(got, want)
    for bad in ({"threads": 0}, {"opt_level": 5}):
        torch._dynamo.reset()
        with pytest.raises(Exception, match="threads|opt_level"):
            tt_compile(model, options=bad)(x)


def test_check_indices_option():
    table = nn.Embedding(10, 4)
    ids = torch.tensor([[1, 12]])  # 12 is out of range
    with pytest.raises(IndexError):
        with torch.no_grad():
            tt_compile(table)(ids)
    torch._dynamo.reset()
    with torch.no_grad():  # clamped instead: the last row
        got = tt_compile(table, options={"check_indices": False})(ids)
    close(got[0, 1], table.weight[9].detach())


def test_node_that_fails_to_compile_is_partitioned_out():
    # var with a fractional correction is refused by the importer when it
    # is traced (its op is known): that node runs eagerly, the rest is
    # compiled around it.
    def fn(x):
        y = torch.tanh(x) * 2
        return torch.var(y, dim=1, correction=0.5) + y.sum(1)

    x = torch.randn(5, 7)
    with pytest.warns(FallbackWarning, match="var"):
        got = tt_compile(fn)(x)
    close(got, fn(x), rtol=1e-4, atol=1e-5)
    assert dynamo.counters["fallbacks"] >= 1


def test_max_pool_gradients_are_compiled():
    model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.MaxPool2d(3, 2, 1),
                          nn.Flatten(), nn.Linear(4 * 3 * 3, 3))
    reference = copy.deepcopy(model)
    x = torch.randn(2, 2, 8, 8, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_()
    got, got_grads = gradients(tt_compile(model), x)
    want, want_grads = gradients(reference, x_ref)
    close(got, want, rtol=1e-4, atol=1e-5)
    for g, w in zip(got_grads, want_grads):
        close(g, w, rtol=1e-4, atol=1e-5)
    assert dynamo.counters["fallbacks"] == 0


class Block(nn.Module):
    """Embedding, layer norm, causal attention, a residual."""

    def __init__(self, d=32, heads=4, vocab=50):
        super().__init__()
        self.heads = heads
        self.emb = nn.Embedding(vocab, d)
        self.ln = nn.LayerNorm(d)
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, ids):
        x = self.emb(ids)
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln(x)).split(c, dim=2)
        q, k, v = [y.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for y in (q, k, v)]
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.out(y.transpose(1, 2).reshape(b, t, c))


@pytest.mark.parametrize("shape,kernel,stride,padding,dilation,ceil", [
    ((2, 3, 11, 13), 3, 2, 1, 1, False),
    ((1, 4, 9, 9), 2, 2, 0, 1, True),
    ((2, 2, 10, 7), 3, 1, 1, 2, False),
    ((1, 3, 12), 3, 2, 1, 1, False),
    ((1, 2, 5, 6, 7), 2, 2, 1, 1, True),
])
def test_max_pool_indices_match_eager(shape, kernel, stride, padding,
                                      dilation, ceil):
    # The index of each window's first largest element (the first NaN
    # where there is one) in the flattened input plane, as eager's.
    x = torch.randn(*shape)
    x[0, 0].view(-1)[5] = float("nan")
    pool = [None, F.max_pool1d, F.max_pool2d, F.max_pool3d][len(shape) - 2]

    def f(x):
        return pool(x, kernel, stride, padding, dilation, ceil_mode=ceil,
                    return_indices=True)

    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)  # compiled, not eager
        got = tt_compile(f)(x)
    want = f(x)
    assert torch.equal(got[1], want[1])
    torch.testing.assert_close(got[0], want[0], equal_nan=True)
    assert dynamo.counters["fallbacks"] == 0


def test_growing_sequence_compiles_twice():
    model = Block().eval()
    run = tt_compile(model)
    with torch.no_grad():
        for n in range(3, 12):
            ids = torch.randint(0, 50, (2, n))
            close(run(ids), model(ids), rtol=1e-4, atol=1e-5)
    # The first length static, then one program for every length.
    assert dynamo.counters["graphs"] == 2
    assert dynamo.counters["programs"] == 2


def test_mark_dynamic_compiles_once():
    model = MLP().eval()
    run = tt_compile(model)
    with torch.no_grad():
        for rows in (3, 8, 21):
            x = torch.randn(rows, 13)
            torch._dynamo.mark_dynamic(x, 0)
            close(run(x), model(x))
    assert dynamo.counters["programs"] == 1


def test_dynamic_false_compiles_per_shape():
    model = MLP().eval()
    run = tt_compile(model, dynamic=False)
    with torch.no_grad():
        for rows in (3, 8, 21):
            x = torch.randn(rows, 13)
            close(run(x), model(x))
    assert dynamo.counters["programs"] == 3


def gradients(model, *inputs):
    out = model(*inputs)
    (out.float() * torch.linspace(-1, 1, out.numel()).view(out.shape)).sum() \
        .backward()
    grads = [p.grad.clone() for p in model.parameters()]
    grads += [x.grad.clone() for x in inputs if x.grad is not None]
    return out, grads


@pytest.mark.parametrize("case", ["linear", "conv", "batch_norm",
                                  "layer_norm", "attention", "embedding"])
def test_gradients_match_eager(case):
    if case == "linear":
        model, x = MLP(), torch.randn(5, 13, requires_grad=True)
    elif case == "conv":
        model = nn.Sequential(nn.Conv2d(3, 6, 3, stride=2, padding=1),
                              nn.ReLU(), nn.Conv2d(6, 4, 1))
        x = torch.randn(2, 3, 9, 7, requires_grad=True)
    elif case == "batch_norm":
        model = nn.Sequential(nn.Conv2d(3, 5, 3), nn.BatchNorm2d(5),
                              nn.ReLU())
        x = torch.randn(4, 3, 6, 6, requires_grad=True)
    elif case == "layer_norm":
        model = nn.Sequential(nn.Linear(12, 12), nn.LayerNorm(12))
        x = torch.randn(3, 7, 12, requires_grad=True)
    elif case == "attention":
        model, x = Block(), torch.randint(0, 50, (2, 9))
    else:
        model, x = nn.Sequential(nn.Embedding(30, 8), nn.Linear(8, 3)), \
            torch.randint(0, 30, (4, 6))
    reference = copy.deepcopy(model)
    x_ref = x.detach().clone().requires_grad_(x.requires_grad)
    got, got_grads = gradients(tt_compile(model), x)
    want, want_grads = gradients(reference, x_ref)
    close(got, want, rtol=1e-4, atol=1e-5)
    assert len(got_grads) == len(want_grads)
    for g, w in zip(got_grads, want_grads):
        close(g, w, rtol=1e-4, atol=1e-5)
    if case == "batch_norm":  # the running stats land in the module
        close(model[1].running_mean, reference[1].running_mean)
        close(model[1].running_var, reference[1].running_var)


def train(model, x, y, steps, compiled):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    run = tt_compile(model) if compiled else model
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(run(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    return losses


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.b1(self.c1(x)))
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.mean((2, 3)))


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_training_loop_matches_eager(kind):
    if kind == "mlp":
        model, x = MLP(13, 32, 10), torch.randn(16, 13)
    else:
        model, x = SmallCNN(), torch.randn(4, 3, 15, 15)
    y = torch.randint(0, 10, (x.shape[0],))
    reference = copy.deepcopy(model)
    got = train(model, x, y, 12, compiled=True)
    want = train(reference, x, y, 12, compiled=False)
    for step, (g, w) in enumerate(zip(got, want)):
        assert abs(g - w) <= 1e-4 * abs(w), (step, got, want)


@pytest.mark.parametrize("optimizer", ["sgd", "adamw"])
def test_compiled_optimizer_step_updates_parameters(optimizer):
    # The step is a graph of its own (foreach ops for AdamW); the updated
    # parameters and optimizer state land in the user's tensors.
    def make(model):
        if optimizer == "sgd":
            return torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        return torch.optim.AdamW(model.parameters(), lr=1e-2, foreach=True)

    model = MLP(13, 32, 10)
    reference = copy.deepcopy(model)
    opt, ref_opt = make(model), make(reference)
    run = tt_compile(model)
    step = tt_compile(opt.step)
    x, y = torch.randn(16, 13), torch.randint(0, 10, (16,))
    for _ in range(6):
        loss = F.cross_entropy(run(x), y)
        opt.zero_grad()
        loss.backward()
        step()
        ref_loss = F.cross_entropy(reference(x), y)
        ref_opt.zero_grad()
        ref_loss.backward()
        ref_opt.step()
        assert abs(float(loss) - float(ref_loss)) <= 1e-4 * abs(
            float(ref_loss))
    for p, q in zip(model.parameters(), reference.parameters()):
        close(p, q, rtol=1e-4, atol=1e-5)
    assert dynamo.counters["fallbacks"] == 0


@pytest.mark.parametrize("optimizer", ["sgd", "adamw"])
def test_optimizer_step_updates_in_place(optimizer, monkeypatch):
    # The compiled step computes the new parameters, momentum buffers and
    # step counts (AdamW's, 0-d) into the tensors' own memory: nothing of
    # theirs is copied back.
    copied = []
    real = torch._foreach_copy_
    monkeypatch.setattr(torch, "_foreach_copy_", lambda dests, values: (
        copied.extend(dests), real(dests, values)))
    model = MLP(13, 32, 10)
    reference = copy.deepcopy(model)
    if optimizer == "sgd":
        make = lambda m: torch.optim.SGD(m.parameters(), lr=0.05,  # noqa
                                         momentum=0.9)
    else:
        make = lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2,  # noqa
                                           foreach=True)
    opt, ref_opt = make(model), make(reference)
    step = tt_compile(opt.step)
    pointers = [p.data_ptr() for p in model.parameters()]
    x, y = torch.randn(16, 13), torch.randint(0, 10, (16,))
    for _ in range(4):
        for m, o, run in ((model, opt, step), (reference, ref_opt,
                                               ref_opt.step)):
            o.zero_grad()
            F.cross_entropy(m(x), y).backward()
            run()
    for p, q in zip(model.parameters(), reference.parameters()):
        close(p, q, rtol=1e-5, atol=1e-6)
    assert [p.data_ptr() for p in model.parameters()] == pointers
    state = [t for s in opt.state.values() for t in s.values()
             if isinstance(t, torch.Tensor)]
    assert state
    written = {id(t) for t in copied}
    assert not written & {id(p) for p in model.parameters()}
    assert not written & {id(t) for t in state}
    assert not copied


def test_update_of_an_input_read_afterwards():
    # The old value is read after the update in the graph: the compiled
    # code computes the update aside and copies it in at the end.
    def f(p, w):
        y = p @ w
        p.mul_(0.5)
        return y + p.sum()

    p, w = torch.randn(8, 8), torch.randn(8, 8)
    p_ref = p.clone()
    got = tt_compile(f)(p, w)
    want = f(p_ref, w)
    close(got, want, rtol=1e-5, atol=1e-5)
    close(p, p_ref)


def test_transformers_gpt2_generate(transformers):
    # Hugging Face's generation loop (Python around the model): the
    # forward graphs compiled, the cache growing by one token per step.
    config = transformers.GPT2Config(vocab_size=101, n_positions=64,
                                     n_embd=64, n_layer=2, n_head=4)
    model = transformers.GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, 101, (1, 7))
    want = model.generate(ids, max_new_tokens=32, do_sample=False,
                          pad_token_id=0)
    model.forward = tt_compile(model.forward)
    got = model.generate(ids, max_new_tokens=32, do_sample=False,
                         pad_token_id=0)
    assert torch.equal(got, want)
    # Prefill, the first decoding step, then one program for every length.
    assert dynamo.counters["graphs"] <= 3
    assert dynamo.counters["programs"] <= 3


def test_eager_ops_option_controls_convolution_backward():
    """convolution_backward runs eagerly by default (faster in PyTorch),
    without a fallback warning; eager_ops=() compiles it too, with the
    same gradients."""
    def grads(options):
        torch._dynamo.reset()
        torch.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(),
                              nn.Conv2d(4, 2, 3, stride=2))
        compiled = torch.compile(model, backend="tinytensor",
                                 options=options)
        compiled(x).pow(2).sum().backward()
        return [p.grad for p in model.parameters()]

    x = torch.randn(2, 3, 9, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        default = grads({})
        compiled = grads({"eager_ops": ()})
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(4, 2, 3, stride=2))
    model(x).pow(2).sum().backward()
    for a, b, c in zip(default, compiled, model.parameters()):
        close(a, c.grad, rtol=1e-4, atol=1e-4)
        close(b, c.grad, rtol=1e-4, atol=1e-4)
    with pytest.raises(Exception, match="eager_ops must be a sequence"):
        torch.compile(model, backend="tinytensor",
                      options={"eager_ops": "convolution_backward"})(x)


@pytest.mark.parametrize("causal", [False, True])
def test_grouped_query_attention_forward_and_gradients(causal):
    """Grouped-query attention (8 query heads over 2 key/value heads, as
    Llama's) reaches the backend as _scaled_dot_product_flash_attention_for_cpu
    and its backward: compiled, no fallback, eager's output and gradients
    (the shared heads' gradients summed over the heads they serve)."""
    def attend(q, k, v):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                             enable_gqa=True)
        return out.tanh().sum()

    torch.manual_seed(0)
    q = torch.randn(2, 8, 7, 16, requires_grad=True)
    k = torch.randn(2, 2, 7, 16, requires_grad=True)
    v = torch.randn(2, 2, 7, 16, requires_grad=True)
    torch._dynamo.reset()
    compiled = torch.compile(attend, backend="tinytensor",
                             options={"fallback": False})
    got = compiled(q, k, v)
    got.backward()
    got_grads = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    want = attend(q, k, v)
    want.backward()
    close(got, want, rtol=1e-5, atol=1e-5)
    for g, t in zip(got_grads, (q, k, v)):
        close(g, t.grad, rtol=1e-4, atol=1e-5)
    assert dynamo.counters["fallbacks"] == 0


def test_partition_option_gradients():
    """AOTAutograd's min-cut rematerialisation (the default: the backward
    recomputes cheap elementwise values) and its default partitioner both
    give eager's gradients; another value is refused."""
    def run(options):
        torch._dynamo.reset()
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.LayerNorm(16),
                              nn.Linear(16, 3))
        compiled = torch.compile(model, backend="tinytensor",
                                 options=options)
        compiled(x).pow(2).sum().backward()
        return [p.grad for p in model.parameters()]

    x = torch.randn(5, 6)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.LayerNorm(16),
                          nn.Linear(16, 3))
    model(x).pow(2).sum().backward()
    for options in ({}, {"partition": "default"}, {"partition": "min-cut"}):
        for a, b in zip(run(options), model.parameters()):
            close(a, b.grad, rtol=1e-4, atol=1e-5)
    with pytest.raises(Exception, match="partition must be 'min-cut' or "
                                        "'default'"):
        torch.compile(model, backend="tinytensor",
                      options={"partition": "greedy"})(x)
