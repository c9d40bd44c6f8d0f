"""tinytensor.torch output forms: weights as trailing arguments (the
default) or inline as dense_resource constants, a self-contained module
that tiny-opt and mlir-runner run on their own."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
from torch.export import Dim  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TINY_OPT = os.path.join(ROOT, "build", "bin", "tiny-opt")
LLVM_DIR = os.environ.get("TT_LLVM_LIB_DIR", "/usr/lib/llvm-22/lib")
MLIR_RUNNER = shutil.which("mlir-runner-22") or os.path.join(
    os.path.dirname(LLVM_DIR), "bin", "mlir-runner")


class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)
        self.register_buffer("scale", torch.tensor([0.5, 2.0, -1.0]))

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))) * self.scale


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def test_inline_weights_are_dense_resources():
    model = TinyModel().eval()
    text = str(ttorch.compile(model, torch.randn(2, 4), output_type="tt",
                              weights="inline"))
    assert re.search(r"func.func @forward\(%arg0: tensor<2x4xf32>\) -> "
                     r"tensor<2x3xf32>", text), text
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                 "scale"):
        assert re.search(f'dense_resource<"?{re.escape(name)}"?>', text), name
    assert "dialect_resources" in text
    default = str(ttorch.compile(model, torch.randn(2, 4), output_type="tt"))
    assert "dense_resource" not in default
    assert "%arg1: tensor<8x4xf32>" in default  # a trailing argument


def test_inline_weights_every_output_type():
    model = TinyModel().eval()
    for output_type in ("linalg-on-tensors", "llvm"):
        text = str(ttorch.compile(model, torch.randn(2, 4),
                                  output_type=output_type, weights="inline"))
        assert "dense_resource" in text, output_type
    with pytest.raises(ValueError, match="weights must be"):
        ttorch.compile(model, torch.randn(2, 4), weights="embedded")


def test_inline_weights_with_dynamic_batch():
    model = TinyModel().eval()
    text = str(ttorch.compile(model, torch.randn(2, 4), output_type="tt",
                              weights="inline",
                              dynamic_shapes={"x": {0: Dim("batch")}}))
    assert "func.func @forward(%arg0: tensor<?x4xf32>) -> tensor<?x3xf32>" \
        in text


@pytest.mark.skipif(not (os.path.exists(TINY_OPT) and
                         os.path.exists(MLIR_RUNNER)),
                    reason="needs build/bin/tiny-opt and mlir-runner")
def test_inline_module_runs_with_tiny_opt_and_mlir_runner(tmp_path):
    model = TinyModel().eval()
    x = torch.randn(2, 4)
    text = str(ttorch.compile(model, x, output_type="tt", weights="inline"))
    values = ", ".join("[" + ", ".join(f"{v:.9e}" for v in row) + "]"
                       for row in x.tolist())
    main = f"""
  func.func private @printMemrefF32(tensor<*xf32>)
  func.func @main() {{
    %x = tt.constant dense<[{values}]> : tensor<2x4xf32>
    %r = call @forward(%x) : (tensor<2x4xf32>) -> tensor<2x3xf32>
    %u = tensor.cast %r : tensor<2x3xf32> to tensor<*xf32>
    call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
    return
  }}
"""
    body, resources = text.split("{-#", 1)
    body = body.rstrip()
    assert body.endswith("}")
    path = tmp_path / "model.mlir"
    path.write_text(body[:-1] + main + "}\n{-#" + resources)
    lowered = subprocess.run([TINY_OPT, str(path), "--tt-lower-to-llvm"],
                             capture_output=True, text=True, check=True)
    libs = ",".join(os.path.join(LLVM_DIR, lib) for lib in
                    ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so",
                     "libomp.so"))
    run = subprocess.run([MLIR_RUNNER, "-e", "main",
                          "-entry-point-result=void", f"-shared-libs={libs}"],
                         input=lowered.stdout, capture_output=True,
                         text=True, check=True)
    data = run.stdout.split("data =", 1)[1]
    got = np.array([float(v) for v in re.findall(r"-?[\d.]+(?:e[-+]?\d+)?",
                                                  data)]).reshape(2, 3)
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
