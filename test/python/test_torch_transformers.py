"""Hugging Face `transformers` models through tinytensor.torch, against
eager PyTorch: GPT-2, BERT and a Llama with grouped-query attention and
rotary positions, built from small configs with random weights.

Skipped without `transformers` (the `transformers` fixture of conftest.py;
scripts/setup-bench.sh installs it, the core environment does not). GPT-2 and Llama return their key/value cache (a
`transformers.DynamicCache`) next to the logits: the compiled model returns
the same structure, its tensors equal to eager's.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.utils._pytree as pytree  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402


def leaves(output):
    """The tensors of a model's output, caches included, in order."""
    flat, _ = pytree.tree_flatten(output)
    return [t for t in flat if isinstance(t, torch.Tensor)]


def check(model, ids, rtol=1e-4):
    model.eval()
    with torch.no_grad():
        want = model(ids)
        got = ttorch.jit(model)(ids)
    assert type(got) is type(want)
    want_leaves, got_leaves = leaves(want), leaves(got)
    assert len(got_leaves) == len(want_leaves) > 0
    for g, w in zip(got_leaves, want_leaves):
        assert g.shape == w.shape and g.dtype == w.dtype
        scale = float(w.abs().max())
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol,
                                   atol=rtol * scale)
    return got


@pytest.mark.parametrize("batch,seq", [(1, 7), (3, 13)])
def test_gpt2_lm_head_with_cache(transformers, batch, seq):
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        vocab_size=101, n_positions=32, n_embd=64, n_layer=2, n_head=4)
    model = transformers.GPT2LMHeadModel(config)
    got = check(model, torch.randint(0, 101, (batch, seq)))
    cache = got.past_key_values
    assert isinstance(cache, transformers.DynamicCache)
    assert tuple(cache.layers[0].keys.shape) == (batch, 4, seq, 16)


@pytest.mark.parametrize("batch,seq", [(1, 9), (2, 17)])
def test_bert(transformers, batch, seq):
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=97, hidden_size=48, num_hidden_layers=2,
        num_attention_heads=3, intermediate_size=80,
        max_position_embeddings=32)
    check(transformers.BertModel(config),
          torch.randint(0, 97, (batch, seq)))


@pytest.mark.parametrize("batch,seq", [(1, 5), (2, 19)])
def test_llama_grouped_query_attention_and_rope(transformers, batch, seq):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=89, hidden_size=64, intermediate_size=112,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=64)
    got = check(transformers.LlamaForCausalLM(config),
                torch.randint(0, 89, (batch, seq)))
    # Two key/value heads shared by four query heads.
    assert got.past_key_values.layers[0].keys.shape[1] == 2
