"""tinytensor.torch: convolutions as one tt.conv each, against PyTorch
eager on awkward shapes: every shape class of the CPU strategy
(tt-cpu-convolutions: patches as rows or columns of a product, 1 x 1 as a
free view, depthwise channels last; tt-channels-last on and off), groups
that do not divide 8,
dilation, 1-D and 3-D, transposed convolutions, batch 1 and 7."""

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402
from tinytensor import compiler  # noqa: E402
from test_torch_vision import _seed, check  # noqa: E402,F401


# (in channels, out channels, kernel, kwargs, input spatial size): each
# class of the strategy, with sizes that fill no vector or register tile.
CONV2D = [
    (3, 64, 7, dict(stride=2, padding=3), (37, 29)),      # stem: columns
    (20, 24, 3, dict(padding=1), (13, 11)),               # depth 180
    (40, 17, 3, dict(padding=1), (9, 7)),                 # depth 360: rows
    (64, 33, 3, dict(stride=2, padding=1), (15, 12)),     # rows, strided
    (70, 10, 1, dict(), (9, 5)),                          # 1 x 1: free view
    (21, 12, 1, dict(stride=2), (11, 7)),                 # 1 x 1 strided
    (9, 15, 3, dict(groups=3, padding=2, dilation=2), (10, 13)),
    (30, 18, 3, dict(groups=3, padding=1), (6, 5)),       # grouped, rows
    (36, 60, 3, dict(groups=4, stride=2, padding=1), (13, 10)),  # 9 -> 15
    (96, 96, 3, dict(groups=2, padding=1), (3, 2)),       # grouped, deep
    (7, 7, 3, dict(groups=7, padding=1), (12, 9)),        # depthwise
    (5, 15, 5, dict(groups=5, stride=2, padding=2), (11, 14)),  # multiplier
    (6, 4, (2, 5), dict(stride=(1, 3), padding=(1, 0)), (8, 16)),
    (4, 6, 3, dict(padding="same", dilation=(1, 2)), (9, 10)),
    (4, 6, 4, dict(padding="same"), (9, 10)),             # even kernel
    (4, 6, 3, dict(padding="valid", bias=False), (5, 9)),
]


@pytest.mark.parametrize("batch", [1, 7])
@pytest.mark.parametrize("cin,cout,kernel,kwargs,size", CONV2D, ids=str)
def test_conv2d_shape_classes(batch, cin, cout, kernel, kwargs, size):
    check(nn.Conv2d(cin, cout, kernel, **kwargs),
          torch.randn(batch, cin, *size))


@pytest.mark.parametrize("cin,cout,kernel,kwargs,size", CONV2D, ids=str)
def test_conv2d_shape_classes_channels_first(cin, cout, kernel, kwargs, size,
                                             monkeypatch):
    """The channels-first strategies (tt-optimize{channels-last=false})."""
    monkeypatch.setattr(compiler, "_OPTIMIZE_OPTIONS", "channels-last=false")
    check(nn.Conv2d(cin, cout, kernel, **kwargs),
          torch.randn(7, cin, *size))


class _Block(nn.Module):
    """What tt-channels-last keeps channels last between convolutions: a
    stem, batch norm, max pooling, an inverted residual with hardswish, a
    depthwise convolution and squeeze-excite, a grouped convolution (which
    is channels last too), a residual add, global pooling and a
    classifier."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 12, 3, stride=2, padding=1),
                                  nn.BatchNorm2d(12), nn.ReLU())
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.expand = nn.Sequential(nn.Conv2d(12, 36, 1), nn.BatchNorm2d(36),
                                    nn.Hardswish())
        self.depthwise = nn.Sequential(
            nn.Conv2d(36, 36, 5, padding=2, groups=36), nn.BatchNorm2d(36),
            nn.Hardswish())
        self.squeeze = nn.Sequential(nn.AdaptiveAvgPool2d(1),
                                     nn.Conv2d(36, 9, 1), nn.ReLU(),
                                     nn.Conv2d(9, 36, 1), nn.Hardsigmoid())
        self.project = nn.Sequential(nn.Conv2d(36, 12, 1), nn.BatchNorm2d(12))
        self.grouped = nn.Conv2d(12, 12, 3, padding=1, groups=3)
        self.head = nn.Linear(12, 10)

    def forward(self, x):
        x = self.pool(self.stem(x))
        y = self.depthwise(self.expand(x))
        y = self.project(y * self.squeeze(y))
        x = self.grouped(x + y)
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


@pytest.mark.parametrize("batch,size", [(1, (29, 23)), (7, (16, 16))])
@pytest.mark.parametrize("layout", ["", "channels-last=false",
                                    "channels-last-grouped=false"])
def test_network_layouts(batch, size, layout, monkeypatch):
    """A small network of every layer kind, channels last
    (tt-channels-last), first, and with the grouped convolution channels
    first between channels-last layers, against eager; batch norm's statistics
    are random so that a mixed-up channel would show."""
    torch.manual_seed(0)
    model = _Block().eval()
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-1, 1)
            module.running_var.uniform_(0.5, 2)
            module.weight.data.uniform_(0.5, 1.5)
    monkeypatch.setattr(compiler, "_OPTIMIZE_OPTIONS", layout)
    check(model, torch.randn(batch, 3, *size), rtol=1e-4, atol=1e-4)


# Patches of more than 4 MB: computed a block of output rows at a time
# (tt-cpu-convolutions' patch-blocks), blocks of 15, 11 and 7 rows.
BLOCKED = [
    (24, 20, 3, dict(padding=1), (45, 39)),                     # shallow
    (40, 17, 3, dict(padding=2, dilation=2), (33, 29)),         # rows
    (3, 64, 7, dict(stride=2, padding=3, bias=False), (97, 83)),  # stem
]


@pytest.mark.parametrize("cin,cout,kernel,kwargs,size", BLOCKED, ids=str)
def test_conv2d_patch_blocks(cin, cout, kernel, kwargs, size, monkeypatch):
    """Blocked patches and the whole ones give eager's result."""
    model = nn.Conv2d(cin, cout, kernel, **kwargs)
    x = torch.randn(7 if cin != 40 else 4, cin, *size)
    check(model, x)
    compiled = ttorch.compile(model, x, output_type="linalg-on-tensors")
    assert "scf.forall" in str(compiled)
    for options in ("conv-patch-blocks=false", "channels-last=false",
                    "channels-last=false conv-patch-blocks=false"):
        monkeypatch.setattr(compiler, "_OPTIMIZE_OPTIONS", options)
        check(model, x)


def test_conv2d_float64():
    check(nn.Conv2d(12, 9, 3, padding=1).double(),
          torch.randn(2, 12, 7, 6, dtype=torch.float64))


@pytest.mark.parametrize("kwargs", [dict(), dict(stride=2, padding=1),
                                    dict(groups=3, dilation=2)], ids=str)
def test_conv3d(kwargs):
    check(nn.Conv3d(6, 9, 3, **kwargs), torch.randn(2, 6, 7, 5, 8))


def test_conv1d_deep_and_depthwise():
    check(nn.Conv1d(96, 20, 5, padding=2), torch.randn(3, 96, 13))
    check(nn.Conv1d(11, 11, 3, groups=11), torch.randn(1, 11, 9))


@pytest.mark.parametrize("module,kwargs,shape", [
    (nn.ConvTranspose2d, dict(in_channels=4, out_channels=3, kernel_size=3,
                              stride=2, padding=1, output_padding=1),
     (2, 4, 5, 6)),
    (nn.ConvTranspose2d, dict(in_channels=6, out_channels=9, kernel_size=(3, 2),
                              stride=(2, 1), padding=(0, 2), dilation=(1, 2),
                              groups=3), (1, 6, 5, 5)),
    (nn.ConvTranspose2d, dict(in_channels=5, out_channels=7, kernel_size=4,
                              stride=3, padding=4), (7, 5, 4, 3)),
    (nn.ConvTranspose1d, dict(in_channels=2, out_channels=5, kernel_size=4,
                              stride=3, padding=2), (3, 2, 7)),
    (nn.ConvTranspose3d, dict(in_channels=2, out_channels=3, kernel_size=2,
                              stride=2, bias=False), (1, 2, 3, 4, 3)),
], ids=["2d", "2d-groups-dilation", "2d-padding-beyond-kernel", "1d", "3d"])
def test_conv_transpose(module, kwargs, shape):
    check(module(**kwargs), torch.randn(*shape))


def test_private_convolution_and_conv_tbc():
    """aten._convolution (cuDNN's flags ignored) and aten.conv_tbc
    (time-major 1-D convolution)."""
    class Private(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(6, 2, 3, 2))

        def forward(self, x):
            return torch.ops.aten._convolution(
                x, self.w, None, [2, 1], [1, 0], [1, 1], False, [0, 0], 2,
                False, False, True, True)

    class Tbc(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(3, 4, 5))
            self.b = nn.Parameter(torch.randn(5))

        def forward(self, x):
            return torch.conv_tbc(x, self.w, self.b, 1)

    check(Private(), torch.randn(3, 4, 7, 6))
    check(Tbc(), torch.randn(9, 2, 4))


def test_one_tt_conv_per_convolution():
    """A depthwise layer over 96 channels is one tt.conv (not a matmul per
    group), and the CPU strategy turns the dense one into a product."""
    model = nn.Sequential(nn.Conv2d(8, 96, 1), nn.ReLU(),
                          nn.Conv2d(96, 96, 3, padding=1, groups=96),
                          nn.Conv2d(96, 16, 3, padding=1)).eval()
    run = ttorch.jit(model)
    x = torch.randn(1, 8, 10, 10)
    with torch.no_grad():
        torch.testing.assert_close(run(x), model(x), rtol=1e-5, atol=1e-5)
    compiled = ttorch.compile(model, x, output_type="tt")
    assert str(compiled).count("tt.conv") == 3
    assert "tt.matmul" not in str(compiled)


def test_conv_matmul_off_computes_the_same(monkeypatch):
    """tt-optimize's conv-matmul=false keeps every convolution a direct
    reduction (the generic path); the results are the same."""
    monkeypatch.setattr(compiler, "_OPTIMIZE_OPTIONS", "conv-matmul=false")
    check(nn.Conv2d(20, 12, 3, padding=1, stride=2), torch.randn(2, 20, 9, 8))


def test_mixed_dtypes_are_an_error():
    class Mixed(nn.Module):
        def forward(self, x, w):
            return F.conv2d(x, w)
    with pytest.raises(Exception, match="convolution"):
        ttorch.jit(Mixed())(torch.randn(1, 2, 5, 5),
                            torch.randn(3, 2, 3, 3, dtype=torch.float64))



def test_conv2d_patch_blocks_dynamic_batch():
    """Blocked patches over a dynamic batch (the parallel loop's bound is
    the batch size; one image's patches, 4.4 MB, decide): a new batch size
    compiles once more, then every size matches eager."""
    model = nn.Conv2d(24, 20, 3, padding=1)
    x = torch.randn(3, 24, 72, 70)
    module = ttorch.compile(
        model, x, dynamic_shapes=({0: torch.export.Dim("batch")},))
    assert "scf.forall" in str(module) and "tensor<?x24x72x70xf32>" in str(
        module)
    compiled = ttorch.jit(model)
    for batch in (3, 5, 2, 7):
        x = torch.randn(batch, 24, 72, 70)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4,
                                       atol=1e-4)
    assert compiled.compilations <= 2


def test_grouped_conv_dynamic_batch():
    """Grouped convolutions channels last over a dynamic batch (the patch
    rows and the per-group product take the batch size at run time): a
    second batch size compiles once more, then every size matches eager,
    and the captured module has the batch dynamic."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU(),
        nn.Conv2d(48, 48, 3, stride=2, padding=1, groups=4),
        nn.BatchNorm2d(48), nn.ReLU(),
        nn.Conv2d(48, 96, 3, padding=1, groups=2)).eval()
    x = torch.randn(2, 3, 13, 11)
    module = ttorch.compile(
        model, x, dynamic_shapes=({0: torch.export.Dim("batch")},))
    assert "tensor<?x3x13x11xf32>" in str(module)
    compiled = ttorch.jit(model)
    for batch in (2, 3, 5, 4):
        x = torch.randn(batch, 3, 13, 11)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4,
                                       atol=1e-4)
    assert compiled.compilations <= 2
