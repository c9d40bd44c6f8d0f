"""The seed tutorial's "full CNN" (MNIST-shaped), compiled with TinyTensor.

    .venv/bin/python examples/torch_cnn.py [--batch N] [--output-type tt]

Prints the first lines of the compiled module at the chosen level, then
runs `tinytensor.torch.jit(model)` on a random batch and compares it with
eager PyTorch. `FullCNN` is also the model of the tests
(test/python/test_torch_vision.py) and of bench/bench_torch.py.
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

import tinytensor.torch as ttorch


class FullCNN(nn.Module):
    """conv(1->32, 3x3) -> ReLU -> conv(32->64, 3x3) -> ReLU -> max_pool 2x2
    -> dropout -> flatten -> Linear(9216->128) -> ReLU -> Linear(128->10)
    -> log_softmax, on [N, 1, 28, 28]."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--output-type", default="tt",
                        choices=ttorch.OUTPUT_TYPES)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = FullCNN().eval()
    x = torch.randn(args.batch, 1, 28, 28)
    module = str(ttorch.compile(model, x, output_type=args.output_type))
    lines = module.splitlines()
    print("\n".join(lines[:20]))
    if len(lines) > 20:
        print(f"... ({len(lines) - 20} more lines)")

    got = ttorch.jit(model)(x)
    with torch.no_grad():
        expected = model(x)
    error = (got - expected).abs().max().item()
    print(f"max |tinytensor - eager| = {error:.2e}")
    return 0 if error <= 1e-4 else 1


if __name__ == "__main__":
    raise SystemExit(main())
