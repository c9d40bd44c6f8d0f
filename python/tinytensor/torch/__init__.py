"""PyTorch front end: nn.Module -> tt / linalg / LLVM, compiled and run.

    import tinytensor.torch as ttorch
    module = ttorch.compile(model, torch.randn(1, 4),
                            output_type="linalg-on-tensors")
    run = ttorch.jit(model)
    run(x)            # torch.Tensor results, computed by compiled code

Capture follows torch-mlir: `torch.export` produces an ATen-level FX graph
(decomposed to core ATen), which `importer` turns into `tt` ops through
TinyTensor's tracer. Modules that `torch.export` rejects fall back to
`torch.fx.symbolic_trace`. Parameters and buffers become trailing function
arguments (not constants), so large models compile quickly and the compiled
code always reads the module's current weights.
"""

from .frontend import OUTPUT_TYPES, TorchCompiled, UnsupportedOpError, compile, jit
from .dynamo import FallbackWarning, register as _register_backend

_register_backend()  # torch.compile(model, backend="tinytensor")

__all__ = ["compile", "jit", "TorchCompiled", "UnsupportedOpError",
           "FallbackWarning",
           "OUTPUT_TYPES"]
