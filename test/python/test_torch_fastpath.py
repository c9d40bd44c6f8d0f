"""PyTorch's fused inference ops for transformer layers under
torch.compile(backend="tinytensor"): `aten._transformer_encoder_layer_fwd`
(nn.TransformerEncoderLayer in eval mode without gradients) and
`aten._native_multi_head_attention` (nn.MultiheadAttention, likewise) are
compiled, not run eagerly between partitions; results against eager."""

import warnings

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402

import tinytensor.torch  # noqa: E402,F401


def compiled_matches(model, *inputs, op, atol=2e-5, **kwargs):
    """Compiles `model` with the tinytensor backend; asserts that the
    importer composed `op`, that no op fell back to eager and that the
    results match."""
    from tinytensor.torch import importer
    torch._dynamo.reset()
    calls = []
    original = importer.ATEN_OPS[op]

    def counted(*args, **kw):
        calls.append(op)
        return original(*args, **kw)

    importer.ATEN_OPS[op] = counted
    f = torch.compile(model, backend="tinytensor")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with torch.no_grad():
                got = f(*inputs, **kwargs)
                expected = model(*inputs, **kwargs)
    finally:
        importer.ATEN_OPS[op] = original
    assert calls, f"{op} was not in the graph"
    fallbacks = [str(w.message) for w in caught
                 if "runs eagerly" in str(w.message)]
    assert not fallbacks, fallbacks
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected):
        if e is None:
            assert g is None
            continue
        torch.testing.assert_close(g, e, atol=atol, rtol=1e-4)


@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_fast_path(activation, norm_first):
    torch.manual_seed(0)
    # An even number of heads: PyTorch takes the fast path only then.
    layer = nn.TransformerEncoderLayer(24, 4, 40, dropout=0.0,
                                       activation=activation,
                                       norm_first=norm_first,
                                       batch_first=True).eval()
    model = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    compiled_matches(model, torch.randn(3, 7, 24),
                     op="_transformer_encoder_layer_fwd")


def test_encoder_layer_with_key_padding_mask():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0,
                                       batch_first=True).eval()
    x = torch.randn(2, 5, 16)
    padding = torch.tensor([[False, False, False, True, True],
                            [False, False, False, False, False]])
    compiled_matches(layer, x, src_key_padding_mask=padding,
                     op="_transformer_encoder_layer_fwd")


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("padding", [False, True])
def test_native_multi_head_attention(need_weights, padding):
    """Dynamo keeps nn.MultiheadAttention whole (AOTAutograd decomposes
    it), so the fused op is called directly, as a model's own fast path
    may."""
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(20, 4, batch_first=True).eval()
    x = torch.randn(2, 6, 20)
    mask = torch.tensor([[False] * 4 + [True] * 2, [False] * 6])

    class Fused(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def forward(self, x):
            out, weights = torch._native_multi_head_attention(
                x, x, x, 20, 4, self.mha.in_proj_weight,
                self.mha.in_proj_bias, self.mha.out_proj.weight,
                self.mha.out_proj.bias, mask if padding else None,
                need_weights, True, 1 if padding else None)
            return (out, weights) if need_weights else out

    compiled_matches(Fused().eval(), x, op="_native_multi_head_attention")
