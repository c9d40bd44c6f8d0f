"""tinytensor.torch: convolutions, pooling, batch norm and padding, and
the CNNs of issue 11 (the seed's full CNN, a ResNet basic block), against
PyTorch eager (float32, rtol 1e-5 unless stated)."""

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402
from tinytensor.torch import UnsupportedOpError  # noqa: E402
from torch_cnn import FullCNN  # noqa: E402  (examples/, the seed's CNN)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def check(model, *inputs, rtol=1e-5, atol=1e-5):
    model = model.eval()
    got = ttorch.jit(model)(*inputs)
    with torch.no_grad():
        expected = model(*inputs)
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("kwargs", [
    dict(), dict(stride=2), dict(padding=1), dict(padding=(2, 0)),
    dict(dilation=2), dict(stride=(2, 1), padding=1, dilation=(1, 2)),
    dict(groups=2), dict(groups=4, padding=1), dict(bias=False),
], ids=str)
def test_conv2d(kwargs):
    check(nn.Conv2d(4, 8, 3, **kwargs), torch.randn(2, 4, 11, 9))


def test_conv2d_kernel_shapes():
    check(nn.Conv2d(3, 5, 1), torch.randn(2, 3, 7, 6))
    check(nn.Conv2d(3, 5, (2, 5), stride=(1, 3)), torch.randn(1, 3, 9, 13))
    check(nn.Conv2d(6, 6, 3, groups=6, padding=1), torch.randn(2, 6, 8, 8))


@pytest.mark.parametrize("kwargs", [dict(), dict(stride=2, padding=2),
                                    dict(dilation=3), dict(groups=3)],
                         ids=str)
def test_conv1d(kwargs):
    check(nn.Conv1d(3, 6, 4, **kwargs), torch.randn(2, 3, 17))


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=2, dilation=2), dict(kernel_size=(3, 2), stride=(1, 2)),
], ids=str)
def test_max_pool2d(kwargs):
    check(nn.MaxPool2d(**kwargs), torch.randn(2, 3, 11, 10))


class ConvPool(nn.Module):
    """conv -> bias -> ReLU -> pooling: the pooling windows gather the
    convolution's channels-last output, and the back end vectorises the
    window reduction along the channels (window-vectors)."""

    def __init__(self, cin, cout, pool, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3)
        self.pool = pool(**kwargs)

    def forward(self, x):
        return self.pool(F.relu(self.conv(x)))


@pytest.mark.parametrize("channels", [1, 5, 17, 33, 64])
@pytest.mark.parametrize("pool,kwargs", [
    (nn.MaxPool2d, dict(kernel_size=2)),
    (nn.MaxPool2d, dict(kernel_size=3, stride=2)),
    (nn.MaxPool2d, dict(kernel_size=2, stride=1)),
    (nn.MaxPool2d, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (nn.AvgPool2d, dict(kernel_size=2)),
    (nn.AvgPool2d, dict(kernel_size=(3, 2), stride=(2, 1))),
], ids=str)
def test_conv_relu_pool(channels, pool, kwargs):
    check(ConvPool(3, channels, pool, **kwargs), torch.randn(3, 3, 13, 12))


def test_conv_relu_pool_float64():
    check(ConvPool(2, 19, nn.MaxPool2d, kernel_size=2).double(),
          torch.randn(2, 2, 11, 14, dtype=torch.float64))


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
         count_include_pad=False),
    dict(kernel_size=2, divisor_override=3),
], ids=str)
def test_avg_pool2d(kwargs):
    check(nn.AvgPool2d(**kwargs), torch.randn(2, 3, 11, 10))


@pytest.mark.parametrize("size", [1, 2, (3, 2), (5, 7), (None, 3)],
                         ids=str)
def test_adaptive_avg_pool2d(size):
    check(nn.AdaptiveAvgPool2d(size), torch.randn(2, 3, 10, 7))


def test_batch_norm_eval():
    bn = nn.BatchNorm2d(5)
    with torch.no_grad():
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.normal_()
        bn.bias.normal_()
    check(bn, torch.randn(3, 5, 4, 6))
    check(nn.BatchNorm2d(5, affine=False), torch.randn(2, 5, 3, 3))


@pytest.mark.parametrize("pad", [nn.ZeroPad2d((1, 2, 0, 3)),
                                 nn.ConstantPad2d(2, 1.5),
                                 nn.ReflectionPad2d((2, 1, 1, 2)),
                                 nn.ReplicationPad2d(2)],
                         ids=lambda m: type(m).__name__)
def test_padding(pad):
    check(pad, torch.randn(2, 3, 5, 6))


def test_negative_constant_padding_crops():
    class Crop(nn.Module):
        def forward(self, x):
            return F.pad(x, (-1, 2, 1, -2))

    check(Crop(), torch.randn(2, 3, 5, 6))


def test_full_cnn():
    check(FullCNN(), torch.randn(3, 1, 28, 28), rtol=1e-4, atol=1e-4)


class BasicBlock(nn.Module):
    """ResNet's basic block: conv-bn-relu-conv-bn + identity, ReLU."""

    def __init__(self, channels=16):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + x)


def test_resnet_basic_block():
    block = BasicBlock()
    with torch.no_grad():
        for bn in (block.bn1, block.bn2):
            bn.running_mean.normal_()
            bn.running_var.uniform_(0.5, 2.0)
    check(block, torch.randn(2, 16, 9, 9), rtol=1e-4, atol=1e-4)


class Stack(nn.Module):
    """A stem, three identical basic blocks, a wider one and a head: the
    three compile as one function called three times."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.blocks = nn.Sequential(BasicBlock(), BasicBlock(), BasicBlock())
        self.widen = nn.Conv2d(16, 24, 1)
        self.last = BasicBlock(24)
        self.head = nn.Linear(24, 5)

    def forward(self, x):
        x = self.last(self.widen(self.blocks(F.relu(self.stem(x)))))
        return self.head(x.mean(dim=(2, 3)))


def _randomise_batch_norms(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.normal_()
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)


def test_repeated_blocks_compile_once(monkeypatch):
    """The module calls torch.export records (nn_module_stack) are scopes
    for tt-outline-repeated-scopes: identical blocks are one function, its
    constants (the batch norms' epsilon) inside it, channels last across
    the calls; leaf modules (a batch norm) are not scopes."""
    monkeypatch.setenv("TT_CACHE", "0")
    model = Stack().eval()
    _randomise_batch_norms(model)
    x = torch.randn(2, 3, 10, 7)
    compiled = ttorch.compile(model, (x,), output_type="linalg-on-tensors")
    text = str(compiled)
    assert text.count("func.func private @BasicBlock(") == 1
    assert text.count("call @BasicBlock(") == 3
    assert "BatchNorm2d" not in text
    # Channels last: the input's transpose and the weights' of the blocks.
    block = text[text.index("@BasicBlock("):text.index("func.func @")]
    assert "tensor<2x16x10x7xf32>" not in block
    assert "9.99999974E-6" in block
    check(model, x, rtol=1e-4, atol=1e-4)


def test_repeated_blocks_inline_when_outlining_is_off(monkeypatch):
    from tinytensor import compiler
    monkeypatch.setenv("TT_CACHE", "0")
    monkeypatch.setattr(compiler, "_OPTIMIZE_OPTIONS",
                        "outline-repeated=false")
    model = Stack().eval()
    _randomise_batch_norms(model)
    x = torch.randn(2, 3, 10, 7)
    text = str(ttorch.compile(model, (x,), output_type="linalg-on-tensors"))
    assert "call @" not in text
    check(model, x, rtol=1e-4, atol=1e-4)


def test_max_pool_indices_match_eager():
    # The index of each window's first largest input, in the flattened
    # plane (what MaxUnpool2d and max pooling's backward read).
    class WithIndices(nn.Module):
        def __init__(self):
            super().__init__()
            self.pool = nn.MaxPool2d(3, stride=2, padding=1,
                                     return_indices=True)

        def forward(self, x):
            values, indices = self.pool(x)
            return values, indices

    check(WithIndices(), torch.randn(2, 3, 9, 7))
