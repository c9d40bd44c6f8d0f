"""tinytensor.torch with dynamic_shapes: one compiled program for every
batch size (torch.export's symbolic dimensions become `?` in tt), compared
with PyTorch eager."""

import warnings

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
from torch.export import Dim  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402
from tinytensor.torch import UnsupportedOpError  # noqa: E402


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


class DynamicBatchMLP(nn.Module):
    """torch-mlir's e2e DynamicBatchMLP shape: Linear, ReLU, Linear on a
    batch of any size."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return torch.log_softmax(self.fc2(torch.relu(self.fc1(x))), dim=1)


BATCH = {"x": {0: Dim("batch")}}


def test_mlp_batch_2_then_7_compiles_once():
    model = DynamicBatchMLP().eval()
    run = ttorch.jit(model, dynamic_shapes=BATCH)
    for n in (2, 7, 1, 33, 2):
        x = torch.randn(n, 16)
        with torch.no_grad():
            expected = model(x)
        torch.testing.assert_close(run(x), expected, rtol=1e-5, atol=1e-5)
    assert run.compilations == 1


def test_without_dynamic_shapes_every_batch_compiles():
    model = DynamicBatchMLP().eval()
    run = ttorch.jit(model)
    run(torch.randn(2, 16))
    run(torch.randn(7, 16))
    assert run.compilations == 2


def test_module_has_dynamic_types():
    model = DynamicBatchMLP().eval()
    for output_type in ("tt", "linalg-on-tensors"):
        text = str(ttorch.compile(model, torch.randn(4, 16),
                                  output_type=output_type,
                                  dynamic_shapes=BATCH))
        assert "tensor<?x16xf32>" in text, output_type
        assert "tensor<?x10xf32>" in text, output_type
    llvm = str(ttorch.compile(model, torch.randn(4, 16), output_type="llvm",
                              dynamic_shapes=BATCH))
    assert "llvm.func" in llvm


def test_two_inputs_share_the_batch():
    class Pair(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x, y):
            return self.fc(x) * y + x.sum(dim=1, keepdim=True)

    model = Pair().eval()
    batch = Dim("batch")
    run = ttorch.jit(model, dynamic_shapes={"x": {0: batch}, "y": {0: batch}})
    for n in (3, 5):
        x, y = torch.randn(n, 8), torch.randn(n, 8)
        with torch.no_grad():
            expected = model(x, y)
        torch.testing.assert_close(run(x, y), expected, rtol=1e-5,
                                   atol=1e-5)
    assert run.compilations == 1


def test_dynamic_sequence_of_a_3d_input():
    """A [batch, seq, d] input with both leading dimensions dynamic: the
    linear layer runs on the stack of rows; mean and softmax over the last
    dimension."""
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 12)

        def forward(self, x):
            h = torch.softmax(self.fc(x), dim=-1)
            return h - h.mean(dim=-1, keepdim=True), h.amax(dim=1)

    model = Block().eval()
    run = ttorch.jit(model, dynamic_shapes={"x": {0: Dim("b"), 1: Dim("s")}})
    for shape in ((2, 3, 12), (4, 9, 12), (3, 2, 12)):
        x = torch.randn(*shape)
        with torch.no_grad():
            expected = model(x)
        got = run(x)
        for g, e in zip(got, expected):
            torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)
    assert run.compilations == 1


def test_other_dtype_or_rank_gets_its_own_program():
    model = DynamicBatchMLP().eval()
    run = ttorch.jit(model, dynamic_shapes=BATCH)
    run(torch.randn(3, 16))
    x = torch.randn(5, 16, dtype=torch.float64)
    with torch.no_grad():
        expected = model.double()(x)
    torch.testing.assert_close(run(x), expected)


def test_sizes_outside_the_range_compile_for_their_shape():
    model = DynamicBatchMLP().eval()
    run = ttorch.jit(model, dynamic_shapes={"x": {0: Dim("batch", min=2,
                                                          max=8)}})
    run(torch.randn(4, 16))
    run(torch.randn(8, 16))
    assert run.compilations == 1
    x = torch.randn(20, 16)
    with torch.no_grad():
        expected = model(x)
    torch.testing.assert_close(run(x), expected, rtol=1e-5, atol=1e-5)
    assert run.compilations == 2


def test_flatten_takes_the_dynamic_batch():
    """`flatten` reshapes by the batch size: the reshape takes a -1."""
    class MNIST(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(torch.flatten(x, 1))))

    model = MNIST().eval()
    run = ttorch.jit(model, dynamic_shapes=BATCH)
    for n in (2, 9):
        x = torch.randn(n, 1, 28, 28)
        with torch.no_grad():
            expected = model(x)
        torch.testing.assert_close(run(x), expected, rtol=1e-5, atol=1e-5)
    assert run.compilations == 1
    text = str(ttorch.compile(model, torch.randn(4, 1, 28, 28),
                              output_type="tt", dynamic_shapes=BATCH))
    assert "tt.reshape %arg0 [-1, 784] : tensor<?x1x28x28xf32> -> " \
        "tensor<?x784xf32>" in text


def test_size_used_as_a_value_is_refused():
    """The batch size as a number (here a divisor) would be compiled in:
    traced at two sizes, the programs differ."""
    class Mean(nn.Module):
        def forward(self, x):
            return x.sum(0) / x.shape[0]

    with pytest.raises(ValueError, match="ops depend on their sizes"):
        ttorch.compile(Mean(), torch.randn(3, 2, 4),
                       dynamic_shapes={"x": {0: Dim("batch")}})


def test_cnn_with_a_dynamic_batch_compiles_once():
    """tt.conv takes a dynamic batch: one program serves every batch size
    (dense, depthwise and strided convolutions, then a linear layer)."""
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, 3, groups=8, stride=2), nn.Conv2d(8, 40, 3),
        nn.Flatten(), nn.Linear(160, 5)).eval()
    run = ttorch.jit(model, dynamic_shapes=({0: Dim("batch")},))
    for batch in (2, 1, 3, 7):
        x = torch.randn(batch, 3, 9, 9)
        with torch.no_grad():
            torch.testing.assert_close(run(x), model(x), rtol=1e-5,
                                       atol=1e-5)
    assert run.compilations == 1
    module = ttorch.compile(model, torch.randn(2, 3, 9, 9),
                            dynamic_shapes=({0: Dim("batch")},))
    assert "tensor<?x3x9x9xf32>" in str(module)


def test_static_size_meeting_a_dynamic_one_is_refused():
    """A buffer made for one batch size cannot serve others: torch.export
    itself refuses to make that dimension dynamic."""
    class Offset(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("offset", torch.ones(4, 8))

        def forward(self, x):
            return x + self.offset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(UnsupportedOpError, match="dynamic_shapes"):
            ttorch.compile(Offset(), torch.randn(4, 8),
                           dynamic_shapes={"x": {0: Dim("batch")}})


def test_refusal_names_the_submodule_and_the_line():
    """An op that cannot take the dynamic batch (a slice of the first rows)
    is reported at the model's source line, in its submodule."""
    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            y = self.fc(x)
            return y[:3].sum(0) + x.mean(0)  # the line named

    with pytest.raises(ValueError) as info:
        ttorch.compile(Head(), torch.randn(4, 8),
                       dynamic_shapes={"x": {0: Dim("batch", min=3)}})
    message = str(info.value)
    assert "(Head)" in message and "test_torch_dynamic.py" in message
    assert "only all of a dynamic dimension can be taken" in message


def test_automatic_dynamic_batch():
    """Without dynamic_shapes, a batch size that changes makes the batch
    dimension dynamic at the second size: two programs for any number of
    sizes; dynamic=False compiles one per size."""
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 3))
    run = ttorch.jit(model)
    per_shape = ttorch.jit(model, dynamic=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in (2, 5, 9, 3, 17):
            x = torch.randn(n, 8)
            with torch.no_grad():
                torch.testing.assert_close(run(x), model(x))
            per_shape(x)
    assert run.compilations == 2
    assert per_shape.compilations == 5


def test_automatic_dynamic_refusal_warns_and_compiles_per_shape():
    class SizeAsNumber(nn.Module):
        def forward(self, x):
            return x * x.shape[0]  # the size becomes a constant

    run = ttorch.jit(SizeAsNumber())
    run(torch.randn(3, 2))
    x = torch.randn(5, 2)
    torch.testing.assert_close(run(x), x * 5)
    run(torch.randn(7, 2))
    assert run.compilations <= 3
