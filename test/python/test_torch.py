"""tinytensor.torch: compile / jit API and whole models, against PyTorch eager.

Run as:
    PYTHONPATH=build/python_packages:python .venv/bin/python -m pytest -q \
        test/python/test_torch*.py
"""

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402
from tinytensor.torch import UnsupportedOpError  # noqa: E402
from tinytensor._mlir import ir  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def eager(model, *inputs):
    with torch.no_grad():
        return model(*inputs)


def check(model, *inputs, rtol=RTOL, atol=ATOL):
    """Runs `model` compiled and eagerly; results (structure, shape, dtype
    and values) must agree. Returns the compiled callable."""
    run = ttorch.jit(model)
    got = run(*inputs)
    expected = eager(model, *inputs)
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol)
    return run


class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)

    def forward(self, x):
        return torch.relu(self.linear(x))


def func_body(text: str, name: str = "forward") -> str:
    match = re.search(r"func\.func @%s\(.*?\n  \}" % name, text, re.S)
    assert match, text
    return match.group(0)


# -- the README example -------------------------------------------------------

def test_tinymodel_linalg_on_tensors():
    model = TinyModel()
    module = ttorch.compile(model, torch.randn(1, 4),
                            output_type="linalg-on-tensors")
    assert isinstance(module, ir.Module)
    text = str(module)
    # The input, then the weight and bias as trailing arguments.
    assert "func.func @forward(%arg0: tensor<1x4xf32>, %arg1: " \
           "tensor<2x4xf32>, %arg2: tensor<2xf32>) -> tensor<1x2xf32>" in text
    assert "linalg.generic" in text
    # The matmul: linalg.matmul, or a contraction generic once the weight's
    # transpose is folded into it.
    assert "linalg.matmul" in text or re.search(
        r'linalg\.generic \{[^\n]*"reduction"\]', text), text
    assert "tt." not in text
    assert "llvm." not in text


def test_tinymodel_tt():
    text = str(ttorch.compile(TinyModel(), torch.randn(1, 4),
                              output_type="tt"))
    body = func_body(text)
    assert "func.func @forward(%arg0: tensor<1x4xf32>" in body
    for op in ("tt.matmul", "tt.transpose", "tt.add", "tt.max"):
        assert op in body, op
    assert "linalg." not in text
    assert "llvm." not in text


def test_tinymodel_llvm():
    text = str(ttorch.compile(TinyModel(), torch.randn(1, 4),
                              output_type="llvm"))
    assert "llvm.func @forward(" in text
    assert "func.func" not in text
    assert "linalg." not in text
    assert "tt." not in text
    assert "tensor<" not in text

def test_tinymodel_llvm_module_ops():
    module = ttorch.compile(TinyModel(), torch.randn(1, 4),
                            output_type="llvm")
    names = [op.operation.name for op in module.body.operations]
    assert "llvm.func" in names
    assert all(name.startswith("llvm.") for name in names), names


def _count_exports(monkeypatch):
    calls = []
    real = torch.export.export

    def export(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(torch.export, "export", export)
    return calls


def test_capture_is_one_trace(monkeypatch):
    """The ATen program comes from one trace (torch.export's tracer below
    autograd), not torch.export.export's training IR traced again by
    run_decompositions; TT_EXPORT_ONE_TRACE=0 goes back to that."""
    monkeypatch.setenv("TT_CACHE", "0")
    calls = _count_exports(monkeypatch)
    model = nn.Sequential(nn.Linear(4, 8), nn.Hardswish(), nn.ReLU(),
                          nn.Linear(8, 3)).eval()
    x = torch.randn(5, 4)
    check(model, x)
    assert calls == []
    monkeypatch.setenv("TT_EXPORT_ONE_TRACE", "0")
    check(model, x)
    assert calls == [1]


def test_capture_decomposes_ops_the_importer_lacks(monkeypatch):
    """An op the one trace leaves whole and the importer does not have
    (aten.mish) is decomposed to core ATen ops."""
    monkeypatch.setenv("TT_CACHE", "0")
    model = nn.Sequential(nn.Linear(4, 8), nn.Mish(), nn.Linear(8, 3)).eval()
    check(model, torch.randn(5, 4))


def test_compile_default_output_type_is_linalg():
    text = str(ttorch.compile(TinyModel(), torch.randn(1, 4)))
    assert "linalg.generic" in text and "tt." not in text


def test_tinymodel_jit():
    model = TinyModel()
    run = ttorch.jit(model)
    x = torch.randn(1, 4)
    out = run(x)
    assert isinstance(out, torch.Tensor)
    assert out.dtype == torch.float32 and out.shape == (1, 2)
    assert torch.allclose(out, eager(model, x), rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(out, eager(model, x), rtol=RTOL, atol=ATOL)


def test_jit_recompiles_per_shape_and_reuses():
    model = TinyModel()
    run = ttorch.jit(model)
    for shape in [(1, 4), (5, 4), (1, 4), (2, 3, 4)]:
        x = torch.randn(*shape)
        torch.testing.assert_close(run(x), eager(model, x), rtol=RTOL,
                                   atol=ATOL)
    assert len(run._cache) == 3


def test_unknown_output_type():
    with pytest.raises(ValueError, match="output_type"):
        ttorch.compile(TinyModel(), torch.randn(1, 4), output_type="torch")
    with pytest.raises(ValueError, match="linalg-on-tensors"):
        ttorch.compile(TinyModel(), torch.randn(1, 4), output_type="linalg")


def test_compile_rejects_non_module():
    with pytest.raises(TypeError, match="nn.Module"):
        ttorch.compile(lambda x: x + 1, torch.randn(2))


class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 4)

    def forward(self, x, y):
        return self.proj(x) * torch.sigmoid(y)


def test_compile_tuple_of_example_inputs():
    model = TwoInputs()
    text = str(ttorch.compile(model, (torch.randn(2, 3), torch.randn(2, 4)),
                              output_type="tt"))
    assert "func.func @forward(%arg0: tensor<2x3xf32>, %arg1: " \
           "tensor<2x4xf32>, %arg2: tensor<4x3xf32>, %arg3: " \
           "tensor<4xf32>)" in text
    text = str(ttorch.compile(model, [torch.randn(2, 3), torch.randn(2, 4)],
                              output_type="linalg-on-tensors"))
    assert "func.func @forward(%arg0: tensor<2x3xf32>, %arg1: " \
           "tensor<2x4xf32>" in text
    assert "linalg." in text and "tt." not in text


def test_multi_input_model():
    check(TwoInputs(), torch.randn(2, 3), torch.randn(2, 4))
    # Broadcasting between inputs of different ranks.
    check(TwoInputs(), torch.randn(5, 2, 3), torch.randn(4))


# -- models -------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self, sizes=(16, 32, 32, 10)):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b)
                                    for a, b in zip(sizes, sizes[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = F.relu(x)
        return x


def test_three_layer_mlp():
    model = MLP()
    run = check(model, torch.randn(8, 16))
    check(model, torch.randn(1, 16))
    text = str(ttorch.compile(model, torch.randn(8, 16), output_type="tt"))
    assert text.count("tt.matmul") == 3


def test_sequential_mlp_with_gelu_and_softmax():
    model = nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.Dropout(0.1),
                          nn.Linear(12, 12), nn.Tanh(), nn.Linear(12, 3),
                          nn.Softmax(dim=-1)).eval()
    check(model, torch.randn(4, 6))


class EncoderBlock(nn.Module):
    """Pre-norm transformer encoder block from the basic modules."""

    def __init__(self, dim=32, heads=4, hidden=64, split_heads="view"):
        super().__init__()
        self.heads, self.split_heads = heads, split_heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden),
                                 nn.GELU(approximate="tanh"),
                                 nn.Linear(hidden, dim), nn.Dropout(0.1))
        self.drop = nn.Dropout(0.1)

    def attention(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=-1)
        if self.split_heads == "view":
            q, k, v = (z.view(b, t, h, d // h).transpose(1, 2)
                       for z in (q, k, v))
        else:  # chunk into heads and stack along a new batch dimension
            q, k, v = (torch.stack(z.chunk(h, dim=-1), dim=1)
                       for z in (q, k, v))
        scores = q @ k.transpose(-2, -1) / (d // h) ** 0.5
        weights = F.softmax(scores, dim=-1)
        out = torch.matmul(self.drop(weights), v)
        if self.split_heads == "view":
            out = out.transpose(1, 2).reshape(b, t, d)
        else:
            out = torch.cat(out.unbind(1), dim=-1)
        return self.proj(out)

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.mlp(self.ln2(x))


@pytest.mark.parametrize("split_heads", ["view", "chunk"])
def test_transformer_encoder_block(split_heads):
    model = EncoderBlock(split_heads=split_heads).eval()
    with torch.no_grad():  # non-trivial LayerNorm affine parameters
        for ln in (model.ln1, model.ln2):
            ln.weight.uniform_(0.5, 1.5)
            ln.bias.uniform_(-0.5, 0.5)
    check(model, torch.randn(2, 7, 32), rtol=1e-5, atol=1e-5)


def test_transformer_encoder_block_linalg():
    text = str(ttorch.compile(EncoderBlock().eval(), torch.randn(1, 5, 32)))
    assert "tt." not in text
    assert "linalg." in text and '"reduction"' in text  # contractions


class Stats(nn.Module):
    def forward(self, x):
        m = x.mean(dim=(1, 3), keepdim=True)
        v = x.var(dim=(1, 3), keepdim=True)
        v0 = torch.var(x, dim=(0, 2), unbiased=False)
        v2 = torch.var(x, dim=[-1, -2], correction=2, keepdim=True)
        return (x - m) / torch.sqrt(v + 1e-5), v0, v2, x.mean((0, 1, 2, 3))


def test_mean_var_over_several_dims_keepdim():
    check(Stats(), torch.randn(3, 4, 5, 6) * 3 + 1)


class BatchedAttentionScores(nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b), torch.matmul(a, b), a @ b[0]


def test_batched_matmul():
    check(BatchedAttentionScores(), torch.randn(4, 3, 5), torch.randn(4, 5, 2))
    text = str(ttorch.compile(BatchedAttentionScores(),
                              (torch.randn(4, 3, 5), torch.randn(4, 5, 2))))
    assert "tt." not in text
    assert "linalg.batch_matmul" in text or '"reduction"' in text


class ReturnsTuple(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 3)

    def forward(self, x):
        y = self.fc(x)
        return y, torch.softmax(y, dim=-1), (y > 0)


class ReturnsNested(nn.Module):
    def forward(self, x):
        return {"double": x * 2, "pair": (x + 1, x.sum(dim=1))}


def test_model_returning_tuple():
    run = check(ReturnsTuple(), torch.randn(4, 5))
    out = run(torch.randn(4, 5))
    assert isinstance(out, tuple) and len(out) == 3
    assert out[2].dtype == torch.bool


def test_model_returning_nested_structure():
    run = check(ReturnsNested(), torch.randn(3, 4))
    out = run(torch.randn(3, 4))
    assert isinstance(out, dict) and isinstance(out["pair"], tuple)


class ReturnsScalar(nn.Module):
    def forward(self, x):
        return x.sum(), x.mean()


def test_zero_dim_results_keep_their_shape():
    run = check(ReturnsScalar(), torch.randn(3, 4))
    s, m = run(torch.randn(3, 4))
    assert s.shape == () and m.shape == ()


# -- parameters are read at every call ----------------------------------------

def test_in_place_weight_update_is_seen_without_recompiling():
    model = TinyModel()
    run = ttorch.jit(model)
    x = torch.randn(3, 4)
    first = run(x)
    torch.testing.assert_close(first, eager(model, x))
    [compiled] = run._cache.values()
    program = compiled.program
    with torch.no_grad():
        model.linear.weight.add_(1)
        model.linear.bias.mul_(-2)
    second = run(x)
    [again] = run._cache.values()
    assert again is compiled and again.program is program  # no recompile
    assert not torch.allclose(first, second)
    torch.testing.assert_close(second, eager(model, x), rtol=RTOL, atol=ATOL)


def test_parameters_are_views_of_the_torch_tensors():
    model = TinyModel()
    compiled = ttorch.TorchCompiled(model, (torch.randn(1, 4),))
    params = list(compiled.program.params.values())
    assert len(params) == 2
    storages = {t.data_ptr() for t in model.parameters()}
    for array in params:
        assert isinstance(array, np.ndarray)
        assert array.__array_interface__["data"][0] in storages
    assert np.shares_memory(params[0], model.linear.weight.detach().numpy())


def test_load_state_dict_is_seen():
    model, other = MLP(), MLP()
    run = ttorch.jit(model)
    x = torch.randn(2, 16)
    torch.testing.assert_close(run(x), eager(model, x))
    model.load_state_dict(other.state_dict())  # copies in place
    torch.testing.assert_close(run(x), eager(other, x), rtol=RTOL, atol=ATOL)


class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((4,), 2.0))
        self.register_buffer("offset", torch.arange(4))  # int64 buffer

    def forward(self, x):
        return x * self.scale + self.offset


def test_buffers_in_place_updates_are_seen():
    model = WithBuffers()
    run = check(model, torch.randn(2, 4))
    model.scale.fill_(-1.0)
    model.offset.add_(10)
    x = torch.randn(2, 4)
    torch.testing.assert_close(run(x), eager(model, x), rtol=RTOL, atol=ATOL)


def test_symbolic_trace_fallback_reads_current_weights():
    from tinytensor.torch import importer

    model = TinyModel()
    gm = importer._symbolic_trace(model, (torch.randn(1, 4),))
    program = importer._from_symbolic_trace(model, gm)
    params = list(program.params.values())
    assert params
    for array in params:
        assert any(np.shares_memory(array, p.detach().numpy())
                   for p in model.parameters())
    assert sorted(program.targets.values()) == ["linear.bias",
                                                "linear.weight"]


def test_symbolic_trace_fallback_end_to_end(monkeypatch):
    from tinytensor.torch import importer

    def reject(model, inputs):
        raise RuntimeError("export says no")

    monkeypatch.setattr(importer, "_export", reject)
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.LayerNorm(8),
                          nn.Linear(8, 3))
    run = check(model, torch.randn(5, 4))
    with torch.no_grad():
        model[0].weight.mul_(-1)
    x = torch.randn(5, 4)
    torch.testing.assert_close(run(x), eager(model, x), rtol=RTOL, atol=ATOL)
    # Errors from the fallback still name the op and the module.
    with pytest.raises(UnsupportedOpError) as info:
        ttorch.compile(nn.Sequential(nn.Linear(4, 4), LogGamma()),
                       torch.randn(2, 4))
    assert "lgamma" in str(info.value)
    assert "'1'" in str(info.value) and "LogGamma" in str(info.value)
    assert "torch.lgamma(x)" in str(info.value) or \
        "test_torch.py" in str(info.value)


class LogGamma(nn.Module):
    def forward(self, x):
        return torch.lgamma(x)


def test_replaced_parameters_are_recaptured():
    model = TinyModel()
    run = ttorch.jit(model)
    x = torch.randn(3, 4)
    torch.testing.assert_close(run(x), eager(model, x))
    model.linear.weight = nn.Parameter(torch.randn(2, 4))  # new object
    torch.testing.assert_close(run(x), eager(model, x), rtol=RTOL, atol=ATOL)
    model.linear.bias.data = torch.randn(2)  # new storage, same object
    torch.testing.assert_close(run(x), eager(model, x), rtol=RTOL, atol=ATOL)
    # Same object and storage, other strides (the check's fast path must
    # not take it for the tensor it saw).
    square = nn.Linear(4, 4)
    run = ttorch.jit(square)
    torch.testing.assert_close(run(x), eager(square, x))
    square.weight.data = square.weight.data.t()
    torch.testing.assert_close(run(x), eager(square, x), rtol=RTOL, atol=ATOL)
    # A replaced submodule.
    model.linear = nn.Linear(4, 2)
    run = ttorch.jit(model)
    torch.testing.assert_close(run(x), eager(model, x))
    model.linear = nn.Linear(4, 2)
    torch.testing.assert_close(run(x), eager(model, x), rtol=RTOL, atol=ATOL)


def test_model_converted_to_float64_is_recaptured():
    model = TinyModel()
    run = ttorch.jit(model)
    x = torch.randn(3, 4)
    torch.testing.assert_close(run(x), eager(model, x))
    model.double()
    x = torch.randn(3, 4, dtype=torch.float64)
    got = run(x)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, eager(model, x))


class Counter(nn.Module):
    """Updates a 0-d buffer and its input in place."""

    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))
        self.register_buffer("total", torch.zeros(3))

    def forward(self, x):
        self.calls.add_(1)
        self.total.add_(x.sum(0))
        x.mul_(2)
        return x + self.calls


def test_in_place_updates_of_inputs_and_buffers():
    model, reference = Counter(), Counter()
    run = ttorch.jit(model)
    for _ in range(3):
        x = torch.randn(2, 3)
        x_ref = x.clone()
        got = run(x)
        expected = eager(reference, x_ref)
        torch.testing.assert_close(got, expected)
        torch.testing.assert_close(x, x_ref)  # the input was updated too
        torch.testing.assert_close(model.calls, reference.calls)
        torch.testing.assert_close(model.total, reference.total)
    assert float(model.calls) == 3.0


class ScalarParameter(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        return x * self.scale


def test_zero_dim_parameter_update_is_seen():
    model = ScalarParameter()
    run = check(model, torch.randn(4))
    with torch.no_grad():
        model.scale.fill_(-3.0)
    x = torch.randn(4)
    torch.testing.assert_close(run(x), eager(model, x))


# -- training mode and control flow -------------------------------------------

class WithDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


def test_dropout_in_eval_mode_is_identity():
    model = WithDropout().eval()
    check(model, torch.randn(3, 4))
    text = str(ttorch.compile(model, torch.randn(3, 4), output_type="tt"))
    assert "tt.matmul" in text


def _check_dropout(out, reference, p):
    """`out` is `reference` with elements dropped (zero) or scaled by
    1 / (1 - p)."""
    kept = out != 0
    assert 0 < int(kept.sum()) < out.numel()
    torch.testing.assert_close(out[kept], reference[kept] / (1 - p))


def test_dropout_in_training_mode_drops_and_scales():
    model = WithDropout().train()
    x = torch.randn(64, 4)
    out = ttorch.jit(model)(x)
    with torch.no_grad():
        _check_dropout(out, model.fc(x), 0.5)


class FunctionalDropout(nn.Module):
    def __init__(self, training):
        super().__init__()
        self.use_training = training
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        training = self.training if self.use_training is None else \
            self.use_training
        return F.dropout(self.fc(x), 0.2, training=training)


def test_functional_dropout():
    check(FunctionalDropout(False).train(), torch.randn(2, 4))
    check(FunctionalDropout(None).eval(), torch.randn(2, 4))
    x = torch.randn(32, 4)
    for model in (FunctionalDropout(True).eval(),
                  FunctionalDropout(None).train()):
        with torch.no_grad():
            _check_dropout(ttorch.jit(model)(x), model.fc(x), 0.2)


def test_jit_notices_switch_to_training_mode():
    model = WithDropout().eval()
    run = ttorch.jit(model)
    x = torch.randn(3, 4)
    torch.testing.assert_close(run(x), eager(model, x))
    model.train()
    with torch.no_grad():
        _check_dropout(run(torch.ones(16, 4)), model.fc(torch.ones(16, 4)),
                       0.5)
    model.eval()
    torch.testing.assert_close(run(x), eager(model, x))


class DataDependentIf(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


def test_data_dependent_control_flow_is_a_clear_error():
    model = DataDependentIf()
    for x in (torch.ones(2, 3), -torch.ones(2, 3)):
        with pytest.raises(UnsupportedOpError) as info:
            ttorch.compile(model, x)
        message = str(info.value)
        assert "DataDependentIf" in message
        assert "control flow" in message
        assert "data-dependent" in message
    with pytest.raises(UnsupportedOpError):
        ttorch.jit(model)(torch.ones(2, 3))


class ShapeDependentIf(nn.Module):
    def forward(self, x):
        if x.shape[0] > 2:  # static: fine, specialised per shape
            return x * 2
        return x - 1


def test_shape_dependent_control_flow_specialises_per_shape():
    model = ShapeDependentIf()
    run = ttorch.jit(model)
    for n in (1, 4):
        x = torch.randn(n, 3)
        torch.testing.assert_close(run(x), eager(model, x))


def test_non_contiguous_inputs():
    model = TwoInputs()
    x = torch.randn(3, 2).t()
    y = torch.randn(4, 2)[:, :1].expand(4, 4)[:2]
    assert not x.is_contiguous() and not y.is_contiguous()
    check(model, x, y)


def test_input_requiring_grad():
    x = torch.randn(2, 4, requires_grad=True)
    check(TinyModel(), x)


def test_unsupported_input_dtype_is_an_error():
    class First(nn.Module):
        def forward(self, x):
            return x[0]

    with pytest.raises(TypeError, match="uint16"):
        ttorch.jit(First())(torch.ones(3, 4, dtype=torch.uint16))
