"""tinytensor.torch: ATen ops added with the NumPy front end's new tt ops
(sin ... cumsum, argmax/argmin and max.dim indices, any/all, index_select,
gather, remainder/fmod, tril/triu), attention through
F.scaled_dot_product_attention and nn.TransformerEncoderLayer, each against
PyTorch eager."""

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402



@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


from test_torch_ops import Fn, check  # noqa: E402  (shared helpers)


@pytest.mark.parametrize("fn", [
    torch.sin, torch.cos, torch.floor, torch.ceil, torch.round, torch.sign,
    torch.square, torch.exp2, torch.expm1,
    lambda x: torch.log1p(x.abs()), lambda x: torch.log2(x.abs() + 1),
    lambda x: torch.round(x * 10, decimals=1),
], ids=lambda f: getattr(f, "__name__", "lambda"))
def test_elementwise(fn):
    check(Fn(fn), torch.randn(5, 7) * 3)


def test_remainder_fmod():
    x, y = torch.randn(4, 6) * 5, torch.randn(4, 6) + 3
    check(Fn(torch.remainder), x, y)
    check(Fn(torch.fmod), x, y)
    check(Fn(lambda a: torch.remainder(a, 1.5)), x)


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_arg_reductions(dim):
    x = torch.randn(6, 9)
    check(Fn(lambda a: torch.argmax(a, dim=dim)), x)
    check(Fn(lambda a: torch.argmin(a, dim=dim, keepdim=dim is not None)), x)


def test_max_min_dim_values_and_indices():
    x = torch.randn(4, 5, 3)
    check(Fn(lambda a: torch.max(a, dim=1)), x)
    check(Fn(lambda a: torch.min(a, dim=-1, keepdim=True)), x)
    check(Fn(lambda a: a.max(dim=0).indices * 2), x)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_any_all(dim):
    x = torch.randn(5, 4)
    if dim is None:
        check(Fn(lambda a: torch.any(a > 1.5)), x)
        check(Fn(lambda a: torch.all(a > -3)), x)
    else:
        check(Fn(lambda a: torch.any(a > 1.0, dim=dim)), x)
        check(Fn(lambda a: torch.all(a > -1.0, dim=dim, keepdim=True)), x)


def test_prod_cumsum():
    x = torch.randn(4, 6)
    check(Fn(lambda a: torch.prod(a, dim=1)), x)
    check(Fn(lambda a: torch.prod(a)), x)
    check(Fn(lambda a: torch.cumsum(a, dim=1)), x)
    check(Fn(lambda a: torch.cumsum(a, dim=0, dtype=torch.float64)), x)
    i = torch.randint(-3, 4, (3, 5))
    check(Fn(lambda a: torch.cumsum(a, dim=1)), i)
    check(Fn(lambda a: torch.prod(a, dim=0)), i)


def test_index_select_and_gather():
    x = torch.randn(5, 6, 3)
    idx = torch.tensor([4, 0, 2, 2])
    check(Fn(lambda a, i: torch.index_select(a, 1, i)), x, idx)
    check(Fn(lambda a, i: torch.index_select(a, 0, i)), x, idx)
    # A 0-d index keeps the axis: [5, 1, 3].
    check(Fn(lambda a, i: torch.index_select(a, 1, i)), x, torch.tensor(2))
    g = torch.randint(0, 6, (5, 2, 3))
    check(Fn(lambda a, i: torch.gather(a, 1, i)), x, g)
    g0 = torch.randint(0, 5, (3, 6, 3))
    check(Fn(lambda a, i: torch.gather(a, 0, i)), x, g0)


def test_tril_triu():
    x = torch.randn(5, 7)
    check(Fn(lambda a: torch.tril(a, -1)), x)
    check(Fn(lambda a: torch.triu(a, 2)), x)


def test_embedding_out_of_range_is_an_index_error():
    model = nn.Embedding(10, 4)
    run = ttorch.jit(model)
    ok = torch.tensor([[1, 9], [0, 3]])
    torch.testing.assert_close(run(ok), model(ok).detach())
    with pytest.raises(IndexError):
        model(torch.tensor([[1, 10]]))
    with pytest.raises(IndexError, match="out of bounds"):
        run(torch.tensor([[1, 10]]))


def test_embedding_then_argmax():
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 8)
            self.out = nn.Linear(8, 5)

        def forward(self, ids):
            return self.out(self.emb(ids)).argmax(dim=-1)

    check(Tagger().eval(), torch.randint(0, 20, (3, 7)))


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_product_attention(causal):
    q, k, v = (torch.randn(2, 3, 5, 8) for _ in range(3))
    check(Fn(lambda a, b, c: F.scaled_dot_product_attention(
        a, b, c, is_causal=causal)), q, k, v, rtol=1e-4, atol=1e-5)


def test_scaled_dot_product_attention_masks():
    q = torch.randn(2, 3, 4, 8)
    k, v = torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8)
    keep = torch.rand(4, 6) > 0.4
    keep[2] = False  # a row that sees nothing: zeros, as PyTorch gives
    bias = torch.randn(2, 1, 4, 6)
    bias[1, 0, 3] = float("-inf")
    for mask in (keep, bias):
        check(Fn(lambda a, b, c, m: F.scaled_dot_product_attention(
            a, b, c, attn_mask=m)), q, k, v, mask, rtol=1e-4, atol=1e-5)


def test_scaled_dot_product_attention_shapes():
    # Grouped-query attention (6 query heads over 2 key/value heads), an
    # explicit scale, a causal mask over more keys than queries, no head
    # axis at all.
    q, k, v = (torch.randn(2, 6, 5, 8), torch.randn(2, 2, 7, 8),
               torch.randn(2, 2, 7, 4))
    check(Fn(lambda a, b, c: F.scaled_dot_product_attention(
        a, b, c, is_causal=True, scale=0.3, enable_gqa=True)), q, k, v,
        rtol=1e-4, atol=1e-5)
    q, k, v = torch.randn(3, 5, 8), torch.randn(3, 9, 8), torch.randn(3, 9, 8)
    check(Fn(lambda a, b, c: F.scaled_dot_product_attention(a, b, c)),
          q, k, v, rtol=1e-4, atol=1e-5)


class _WindowAttention(nn.Module):
    """Hugging Face Swin's attention in miniature: heads split from a
    projection by view + transpose, attention over them with a bias mask,
    the output's heads merged back by transpose + reshape, after a roll
    (an op the one-trace capture leaves for decomposition)."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(24, 72)
        self.out = nn.Linear(24, 24)

    def forward(self, x, mask):
        x = torch.roll(x, 1, 1)
        b, t, _ = x.shape
        q, k, v = (y.view(b, t, 3, 8).transpose(1, 2)
                   for y in self.qkv(x).chunk(3, -1))
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(a.transpose(1, 2).reshape(b, t, -1))


def test_attention_heads_merged_by_a_view():
    # The one-trace program views the merged heads (PyTorch's CPU flash
    # attention returns them laid out so); decomposing it again gave them
    # other strides and failed ("Cannot view a tensor with shape [4, 49,
    # 24] and strides (24, 96, 1)"): the capture decomposes the training
    # IR instead.
    check(_WindowAttention().eval(), torch.randn(4, 49, 24),
          torch.randn(1, 3, 49, 49), rtol=1e-4, atol=1e-5)


def test_scaled_dot_product_attention_dropout_is_refused(monkeypatch):
    # Through torch.export's training IR (dynamic shapes; here forced),
    # attention stays one op, which has no dropout.
    from tinytensor.torch import UnsupportedOpError
    monkeypatch.setenv("TT_EXPORT_ONE_TRACE", "0")
    q = torch.randn(1, 2, 3, 4)
    model = Fn(lambda a: F.scaled_dot_product_attention(a, a, a,
                                                        dropout_p=0.5))
    with pytest.raises(UnsupportedOpError, match="dropout_p=0.5"):
        ttorch.jit(model)(q)


def test_scaled_dot_product_attention_dropout_drops():
    # The one-trace capture decomposes attention with dropout into its
    # product, softmax and native_dropout: with values of ones, each output
    # is the kept weights' sum over 1 - p, 1 on average, not always 1.
    q, k = torch.randn(2, 4, 128, 8), torch.randn(2, 4, 256, 8)
    v = torch.ones(2, 4, 256, 8)
    model = Fn(lambda q, k, v: F.scaled_dot_product_attention(
        q, k, v, dropout_p=0.5))
    out = ttorch.jit(model)(q, k, v)
    assert out.shape == (2, 4, 128, 8)
    assert abs(out.mean().item() - 1.0) < 0.05
    assert out.std().item() > 0.01


def test_cat_skips_legacy_empty_and_empty_buffers():
    # PyTorch's cat skips 1-D tensors of size 0 whatever the other
    # operands' rank; an empty buffer is no argument of the compiled code.
    class Cache(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("past", torch.tensor([]))

        def forward(self, x):
            return torch.cat([self.past, x, torch.tensor([])], dim=-2) * 2

    check(Cache(), torch.randn(2, 3, 4))


def test_transformer_encoder_layer_unmodified():
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4,
                                       batch_first=True).eval()
    x = torch.randn(2, 10, 64)
    check(layer, x, rtol=1e-4, atol=1e-5)


def test_python_scalar_inputs_are_static():
    class Scaled(nn.Module):
        def forward(self, x, alpha: float, n: int = 2):
            return x * alpha + n

    model = Scaled()
    run = ttorch.jit(model)
    x = torch.randn(4, 3)
    for args in [(0.5,), (1.5, 3), (0.5,)]:
        torch.testing.assert_close(run(x, *args), model(x, *args))
    assert len(run._cache) == 2  # one specialisation per scalar value
    with pytest.raises(TypeError, match="Python scalar"):
        run(x, [1.0])


def test_integer_remainder_fmod_and_zero_divisors():
    # Integer remainder (the divisor's sign), fmod (the dividend's) and
    # rounding divisions are exact; a zero divisor raises, as in PyTorch
    # (ZeroDivisionError after the call, instead of a crash of the machine
    # division).
    x = torch.tensor([[7, -7, 6, -6, 0, 5], [1, -1, 100, -100, 3, -3]])
    y = torch.tensor([[2, 2, -4, -4, 3, -5], [3, 3, 7, 7, -3, -3]])
    check(Fn(torch.remainder), x, y)
    check(Fn(torch.fmod), x, y)
    check(Fn(lambda a: a % 4), x)
    z = y.clone()
    z[1, 2] = 0
    for fn in (torch.remainder, torch.fmod,
               lambda a, b: torch.div(a, b, rounding_mode="floor"),
               lambda a, b: torch.div(a, b, rounding_mode="trunc")):
        with pytest.raises(RuntimeError):
            fn(x, z)
        with pytest.raises(ZeroDivisionError, match="division by zero"):
            ttorch.jit(Fn(fn))(x, z)


_X = torch.randn(3, 5, 7)


@pytest.mark.parametrize("fn,inputs", [
    (lambda a: torch.flip(a, [0, 2]), (_X,)),
    (lambda a: torch.diagonal(a, 1, 1, 2), (_X,)),
    (lambda a: torch.diagonal(a, -2, 2, 0), (_X,)),
    (lambda a: torch.linalg.vector_norm(a, 3.5, dim=(0, 2), keepdim=True),
     (_X,)),
    (lambda a: torch.linalg.vector_norm(a), (_X,)),
    (lambda a: torch.linalg.vector_norm(a, float("inf"), dim=1), (_X,)),
    (lambda a: torch.linalg.vector_norm(a, float("-inf"), dim=-1), (_X,)),
    (lambda a: torch.linalg.vector_norm(torch.relu(a), 0, dim=1), (_X,)),
    (lambda a: a.norm(dim=1), (_X,)),
    (lambda a: torch.isnan(a.log()), (_X,)),
    (lambda a: torch.isinf(1 / a.round()), (_X,)),
    (lambda a: torch.isfinite(1 / a.round()), (_X,)),
    (lambda a, b: torch.div(a, b, rounding_mode="floor"), (_X * 4, _X + .1)),
    (lambda a, b: torch.div(a, b, rounding_mode="trunc"), (_X * 4, _X + .1)),
    (lambda a: F.max_pool3d(a, 2, stride=(1, 2, 2), padding=1),
     (torch.randn(2, 3, 5, 6, 7),)),
    (lambda a: F.avg_pool3d(a, (2, 3, 2), ceil_mode=True),
     (torch.randn(2, 3, 5, 6, 7),)),
    (lambda a, b: a.copy_(b) * 1, (torch.zeros(3, 5, 7), torch.randn(5, 7))),
    (lambda a, b: (a > 0) * (b > 0), (_X, -_X.flip(0))),
    (lambda a: a.repeat(2, 1, 3), (_X,)),
    (lambda a: F.max_pool2d(a, 3, 2, 1, return_indices=True),
     (torch.randn(2, 3, 9, 8),)),
    (lambda a: F.max_pool2d(a, (2, 3), (1, 2), (1, 0), (2, 1),
                            ceil_mode=True, return_indices=True),
     (torch.randn(1, 2, 9, 11),)),
    (lambda a: F.max_pool1d(a, 3, 2, return_indices=True),
     (torch.randn(2, 3, 10),)),
    (lambda a: F.max_pool3d(a, 2, 2, 1, return_indices=True),
     (torch.randn(1, 2, 5, 6, 7),)),
    (lambda a: torch.trunc(a * 3), (_X,)),
    (lambda a: torch.var_mean(a, 1, correction=0), (_X,)),
    (lambda a: a[0].repeat(2, 1, 3), (_X,)),
], ids=["flip", "diagonal", "diagonal_negative", "vector_norm_p",
        "vector_norm_2", "vector_norm_inf", "vector_norm_neg_inf",
        "vector_norm_0", "norm", "isnan", "isinf", "isfinite", "div_floor",
        "div_trunc", "max_pool3d", "avg_pool3d", "copy", "mul_bool",
        "repeat", "repeat_new_axes", "max_pool2d_indices",
        "max_pool2d_indices_dilated", "max_pool1d_indices",
        "max_pool3d_indices", "trunc", "var_mean"])
def test_suite_ops(fn, inputs):
    check(Fn(fn), *inputs, equal_nan=True)


_T = torch.randn(6, 4)
_I = torch.tensor([0, 5, -1, 2, 2])  # repeated and negative rows
_E = torch.tensor([[0, 1, 2, 3], [0, 1, 2, 3], [5, 5, 5, 5]])


@pytest.mark.parametrize("fn,inputs", [
    (lambda a, i, v: torch.index_put(a, (i,), v), (_T, _I, torch.randn(5, 4))),
    (lambda a, i, v: torch.index_put(a, (i,), v, accumulate=True),
     (_T, _I, torch.randn(5, 4))),
    (lambda a, r, c, v: torch.index_put(a, (r, c), v, accumulate=True),
     (_T, _I, torch.tensor([1, 3, 0, 0, 2]), torch.randn(5))),
    (lambda a, i: torch.index_put(a, (i,), torch.tensor(3.0)), (_T, _I)),
    (lambda a, i, v: torch.ops.aten.index_put(a, [None, i], v, True),
     (torch.randn(2, 5, 3), torch.tensor([[1, 4], [0, 1]]),
      torch.randn(2, 2, 2, 3))),
    (lambda a: a.masked_fill(a > 0, 0.5), (_T,)),
    (lambda a: torch.index_put(a, (a[:, 0] > 0,), torch.tensor(7.0)), (_T,)),
    (lambda a, i, s: torch.scatter(a, 1, i, s),
     (_T, torch.tensor([[0, 1], [3, 2], [1, 1], [0, 0], [2, 3], [3, 3]]),
      torch.randn(6, 3))),
    (lambda a, i: torch.scatter(a, 0, i, 2.5),
     (_T, torch.tensor([[0, 1, 2, 3], [5, 4, 3, 2]]))),
    (lambda a, i, s: torch.scatter_add(a, 0, i, s),
     (_T, _E, torch.randn(3, 4))),
    (lambda a, i, s: torch.scatter_reduce(a, 0, i, s, "amax",
                                          include_self=False),
     (_T, _E, torch.randn(3, 4))),
    (lambda a, i, s: torch.scatter_reduce(a, 0, i, s, "mean"),
     (_T, _E, torch.randn(3, 4))),
    (lambda a, i, s: torch.scatter_reduce(a, 1, i, s, "prod",
                                          include_self=False),
     (_T, torch.tensor([[0, 0], [1, 1], [2, 2], [3, 0], [1, 1], [0, 0]]),
      torch.randn(6, 2))),
    (lambda a, i, s: torch.index_add(a, 1, i, s, alpha=2),
     (_T, torch.tensor([3, 0, 3]), torch.randn(6, 3))),
    (lambda a, i, s: torch.index_copy(a, 0, i, s),
     (_T, torch.tensor([4, 1]), torch.randn(2, 4))),
    (lambda a, i, v: torch.index_put(a, (i,), v, accumulate=True),
     (torch.randint(0, 9, (6, 4)), _I, torch.randint(0, 9, (5, 4)))),
    (lambda a, s: torch.slice_scatter(a, s, 1, 1, None, 2),
     (_T, torch.randn(6, 2))),
    (lambda a, s: torch.slice_scatter(a, s, 0, -4, -1),
     (_T, torch.randn(3, 4))),
    (lambda a, s: torch.select_scatter(a, s, 1, -1), (_T, torch.randn(6))),
], ids=["index_put", "index_put_accumulate", "index_put_two_axes",
        "index_put_scalar", "index_put_after_slice", "masked_fill",
        "index_put_mask", "scatter", "scatter_value", "scatter_add",
        "scatter_reduce_amax", "scatter_reduce_mean", "scatter_reduce_prod",
        "index_add", "index_copy", "index_put_int", "slice_scatter_step",
        "slice_scatter_negative", "select_scatter"])
def test_scatter_ops(fn, inputs):
    before = [t.clone() for t in inputs]
    check(Fn(fn), *inputs)
    for t, b in zip(inputs, before):  # the inputs are left as they were
        assert torch.equal(t, b)


def test_scatter_index_out_of_range():
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        ttorch.jit(Fn(lambda a, i, v: torch.index_put(a, (i,), v)))(
            _T, torch.tensor([0, 9]), torch.randn(2, 4))


@pytest.mark.parametrize("model,inputs", [
    (Fn(lambda a: torch.empty(3, 4).fill_(2) + a), (torch.randn(3, 4),)),
    (Fn(lambda a: torch.empty_like(a).fill_(1) * a), (torch.randn(3, 4),)),
    (Fn(lambda a, b: torch.logical_xor(a > 0, b > 0)),
     (torch.randn(3, 4), torch.randn(3, 4))),
    (nn.GroupNorm(3, 6), (torch.randn(2, 6, 5, 4),)),
    (Fn(lambda a: F.interpolate(a, scale_factor=2, mode="nearest")),
     (torch.randn(1, 2, 3, 5),)),
    (Fn(lambda a: F.interpolate(a, size=(7, 4), mode="nearest")),
     (torch.randn(1, 2, 3, 5),)),
    (Fn(lambda a: F.interpolate(a, size=7, mode="nearest")),
     (torch.randn(1, 2, 5),)),
    (Fn(lambda a: F.interpolate(a, scale_factor=1.5, mode="nearest")),
     (torch.randn(1, 2, 4, 6),)),
    (Fn(lambda a: a.unfold(1, 3, 2)), (torch.randn(2, 9, 4),)),
    (Fn(lambda a: a.unfold(-1, 2, 1)), (torch.randn(3, 5),)),
    (nn.RReLU(0.1, 0.3).eval(), (torch.randn(4, 5),)),
    (Fn(lambda g, x, n: torch.ops.aten.rrelu_with_noise_backward(
        g, x, n, 0.1, 0.3, True, False)),
     (torch.randn(4, 5), torch.randn(4, 5), torch.rand(4, 5))),
    (Fn(lambda g, x, n: torch.ops.aten.rrelu_with_noise_backward(
        g, x, n, 0.1, 0.3, False, False)),
     (torch.randn(4, 5), torch.randn(4, 5), torch.rand(4, 5))),
    (Fn(lambda a: torch.kthvalue(a, 3, 1)), (torch.randn(4, 7),)),
    (Fn(lambda a: torch.kthvalue(a, 2, 0, keepdim=True)),
     (torch.randn(4, 7),)),
    (Fn(lambda a, b: torch.bucketize(a, b)),
     (torch.randn(4, 7), torch.tensor([-1.0, 0.0, 0.5, 1.0]))),
    (Fn(lambda a, b: torch.bucketize(a.round(), b, right=True,
                                     out_int32=True)),
     (torch.randn(4, 7), torch.tensor([-1.0, 0.0, 1.0]))),
    (Fn(lambda a: a[tuple(torch.tril_indices(4, 7, 1))]),
     (torch.randn(4, 7),)),
    (Fn(lambda a: torch.triu_indices(3, 5, -1) + a.sum().long()),
     (torch.randn(4, 7),)),
    (Fn(lambda a: torch.ops.prims.collapse(a, 1, 2) * 2),
     (torch.randn(2, 3, 4, 5),)),
], ids=["empty", "empty_like", "logical_xor", "group_norm",
        "upsample_nearest_x2", "upsample_nearest_size",
        "upsample_nearest_1d", "upsample_nearest_x1_5", "unfold",
        "unfold_last_axis", "rrelu_eval", "rrelu_backward_training",
        "rrelu_backward_eval", "kthvalue", "kthvalue_keepdim", "bucketize",
        "bucketize_right", "tril_indices", "triu_indices",
        "prims_collapse"])
def test_model_ops(model, inputs):
    check(model, *inputs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.uint8])
def test_bitwise_and_shifts(dtype):
    info = torch.iinfo(dtype)
    a = torch.randint(info.min, info.max, (4, 9)).to(dtype)
    b = torch.randint(info.min, info.max, (9,)).to(dtype)
    n = torch.randint(0, info.bits, (4, 9)).to(dtype)
    check(Fn(lambda a, b, n: (a & b, a | b, a ^ b, ~a, a & 5,
                              torch.bitwise_left_shift(a, n), a >> n,
                              a << 2, torch.bitwise_xor(a, 3))), a, b, n)


def test_atan_atan2():
    y, x = torch.randn(5, 7), torch.randn(7)
    check(Fn(lambda y, x: (torch.atan(y), torch.atan2(y, x))), y, x)


def test_as_strided_of_views():
    """as_strided reads the memory of the tensor a view shares: its
    strides and offset are those of the input's storage."""
    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)

    def f(x):
        view = x[1:].permute(1, 0, 2)
        return (torch.as_strided(view, (2, 2), (4, 1)),
                torch.as_strided(x, (3, 3), (4, 5), 1),
                torch.as_strided(x.t() if x.dim() == 2 else x[0], (2, 5),
                                 (1, 2)))

    check(Fn(f), x)


@pytest.mark.parametrize("fn", [
    torch.tan, torch.asin, torch.acos, torch.sinh, torch.cosh, torch.asinh,
    lambda x: torch.acosh(x + 2), torch.atanh,
    lambda x: torch.log10(x.abs() + 1)],
    ids=["tan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh",
         "log10"])
def test_trigonometric(fn):
    check(Fn(fn), torch.rand(6, 5) * 1.8 - 0.9)


def test_python_number_results():
    """A model that returns Python numbers (a size, a flag, a constant)
    returns them as numbers, not tensors."""
    result = ttorch.jit(Fn(lambda x: (torch.is_floating_point(x), x.numel(),
                                      x * 2, 3.5)))(torch.ones(3, 4))
    assert result[0] is True and result[1] == 12 and result[3] == 3.5
    assert type(result[1]) is int and type(result[3]) is float


@pytest.mark.parametrize("size", [(2, 3), (5, 4), (1, 1)])
def test_adaptive_max_pool_values_and_indices(size):
    x = torch.randn(2, 3, 9, 7)
    x[0, 0, 2:4, 1:3] = 5.0  # ties: the first in row-major order wins
    check(Fn(lambda x: F.adaptive_max_pool2d(x, size, return_indices=True)),
          x)
    check(Fn(lambda x: F.adaptive_max_pool3d(x, (2, 3, 2),
                                             return_indices=True)),
          torch.randn(1, 2, 5, 7, 4))


def test_bilinear_layer():
    check(nn.Bilinear(5, 7, 3), torch.randn(4, 5), torch.randn(4, 7))


@pytest.mark.parametrize("align_corners", [False, True])
def test_upsample_bilinear(align_corners):
    x = torch.randn(2, 3, 5, 7)
    check(Fn(lambda x: F.interpolate(x, size=(9, 4), mode="bilinear",
                                     align_corners=align_corners)), x)
    check(Fn(lambda x: F.interpolate(x, scale_factor=2.5, mode="bilinear",
                                     align_corners=align_corners)), x)


def test_more_elementwise_and_scans():
    x, y = torch.randn(4, 6), torch.randn(4, 6)
    x[0, 0], y[0, 1] = float("nan"), float("nan")
    check(Fn(lambda x, y: (F.elu(x), F.elu(x, 0.5), torch.fmax(x, y),
                           torch.fmin(x, y), torch.signbit(x),
                           torch.ldexp(x, torch.tensor([[2.0]])),
                           torch.cumprod(x, 1), torch.cumprod(
                               torch.arange(1, 7), 0))), x, y,
          equal_nan=True)
    check(Fn(lambda x: torch.signbit(x)), torch.tensor([0.0, -0.0, -1.0]))
    check(Fn(lambda a, b, c: torch.addbmm(a, b, c, beta=0.5, alpha=2)),
          torch.randn(3, 5), torch.randn(4, 3, 6), torch.randn(4, 6, 5))


def test_fake_quantize_cachemask():
    x = torch.randn(5, 8) * 10
    check(Fn(lambda x: torch.ops.aten.fake_quantize_per_tensor_affine_cachemask(
        x, 0.1, 3, -128, 127)), x)


def test_tensor_to_python_number():
    """int(x), float(x), x.item(): export records them as aten.item."""
    class Sum(nn.Module):
        def forward(self, a, b):
            return int(a) + int(b)

    assert ttorch.jit(Sum())(torch.tensor(3), torch.tensor(4)) == 7

    class Scatter(nn.Module):
        def forward(self, x, v):
            return torch.ops.aten.scatter(x, 0, torch.tensor([0, 2]),
                                          float(v))

    check(Scatter(), torch.zeros(4), torch.tensor(2.5))


def test_empty_tensors():
    """Tensors with no elements have nothing to compute: an empty input is
    a static argument, an empty result a constant."""
    check(Fn(lambda a, b: a @ b), torch.randn(3, 0), torch.randn(0, 4))
    check(Fn(lambda x: (x[2:2], x.sum(0), torch.cat([x[:0], x]))),
          torch.randn(5, 3))
    check(Fn(lambda x: x.sum(0) + x.mean(-1)), torch.tensor(2.0))


def test_logcumsumexp_is_stable():
    x = torch.randn(3, 9) * 50  # shifts of one row maximum would underflow
    x[0, 0] = -float("inf")
    check(Fn(lambda x: (torch.logcumsumexp(x, 1), torch.logcumsumexp(x, 0))),
          x)


def test_integer_avg_pool_truncates():
    x = torch.randint(-50, 50, (2, 3, 7, 6))
    check(Fn(lambda x: F.avg_pool2d(x, 3, 2, padding=1)), x)
    check(Fn(lambda x: F.avg_pool1d(x, 3)), torch.randint(-9, 9, (2, 3, 8)))


def test_upsample_nearest_backward():
    g = torch.randn(2, 3, 9, 10)
    check(Fn(lambda g: torch.ops.aten.upsample_nearest2d_backward(
        g, [9, 10], [2, 3, 4, 4])), g)


def test_batch_norm_eval_outputs():
    """native_batch_norm in eval returns empty save_mean / save_invstd."""
    x, w, b = torch.randn(4, 3, 5), torch.rand(3), torch.randn(3)
    mean, var = torch.randn(3), torch.rand(3) + 0.5
    check(Fn(lambda x: torch.ops.aten.native_batch_norm(
        x, w, b, mean, var, False, 0.1, 1e-5)), x)


def test_python_number_ops_and_prims():
    class Div(nn.Module):
        def forward(self, a, b):
            return float(a) / float(b)

    assert ttorch.jit(Div())(torch.tensor(3.0), torch.tensor(4.0)) == 0.75
    check(Fn(lambda x: (x + torch.ops.prims.iota(4, start=2, step=3,
                                                 dtype=torch.int64,
                                                 device="cpu",
                                                 requires_grad=False),
                        torch.ops.prims.prod(x.float(), [0]))),
          torch.arange(4))
    check(Fn(lambda a, b: a + b), torch.tensor([True, False]),
          torch.tensor([True, True]))


def test_signbit_and_view_dtype():
    x = torch.tensor([1.0, -0.0, 0.0, -2.5, float("nan"), -float("nan"),
                      float("inf"), -float("inf")])
    check(Fn(lambda x: (torch.signbit(x), x.view(torch.int32),
                        x.double().view(torch.int64),
                        x.half().view(torch.int16))), x)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1)])
def test_determinants(shape):
    a = torch.randn(*shape)
    check(Fn(lambda a: (torch.linalg.det(a), torch.linalg.slogdet(a))), a,
          rtol=1e-4, atol=1e-5)
    singular = a.clone()
    singular[..., 0] = 0
    check(Fn(torch.linalg.det), singular)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    weight = torch.randn(20, 6)
    indices = torch.tensor([3, 0, 7, 7, 19, 2, 11, 5])
    offsets = torch.tensor([0, 3, 3, 6])  # an empty bag in the middle
    check(Fn(lambda w, i, o: torch.ops.aten._embedding_bag(
        w, i, o, False, {"sum": 0, "mean": 1, "max": 2}[mode])),
        weight, indices, offsets)
    check(nn.EmbeddingBag.from_pretrained(weight, mode=mode),
          indices, offsets)


@pytest.mark.parametrize("stride, groups", [(1, 1), (2, 1), (1, 2)])
def test_convolution_backward(stride, groups):
    x, w = torch.randn(2, 4, 9, 8), torch.randn(6, 4 // groups, 3, 2)
    g = torch.randn(2, 6, *F.conv2d(x, w, stride=stride, padding=1,
                                    groups=groups).shape[2:])
    check(Fn(lambda g, x, w: torch.ops.aten.convolution_backward(
        g, x, w, [6], [stride, stride], [1, 1], [1, 1], False, [0, 0],
        groups, [True, True, True])), g, x, w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_integer_mean_rounds_down(include_self):
    x, index = torch.tensor([10, -7, 5, 3]), torch.tensor([0, 0, 1, 1, 2])
    src = torch.tensor([1, 2, -9, 4, 6])
    check(Fn(lambda x, i, s: x.scatter_reduce(0, i, s, "mean",
                                              include_self=include_self)),
          x, index, src)
