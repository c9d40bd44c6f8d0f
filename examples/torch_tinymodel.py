"""The README's PyTorch example: compile a small nn.Module with TinyTensor.

    PYTHONPATH=build/python_packages:python .venv/bin/python \
        examples/torch_tinymodel.py [--output-type tt|linalg-on-tensors|llvm]

Prints the compiled module (`@forward`: the input, then the weight and bias
as trailing arguments) and checks the compiled callable against PyTorch
eager, also after an in-place weight update (no recompilation needed).
"""

import argparse

import torch

import tinytensor.torch as ttorch


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 2)

    def forward(self, x):
        return torch.relu(self.linear(x))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-type", default="linalg-on-tensors",
                        choices=ttorch.OUTPUT_TYPES)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = TinyModel()
    x = torch.randn(1, 4)
    module = ttorch.compile(model, x, output_type=args.output_type)
    print(module)

    run = ttorch.jit(model)
    with torch.no_grad():
        for step in range(3):
            x = torch.randn(1, 4)
            got, expected = run(x), model(x)
            assert torch.allclose(got, expected, rtol=1e-5, atol=1e-6), \
                (got, expected)
            print(f"step {step}: tinytensor {got.tolist()} == "
                  f"torch {expected.tolist()}")
            model.linear.weight.add_(0.5)  # seen by the next call
    print("OK: compiled results match PyTorch eager")


if __name__ == "__main__":
    main()
