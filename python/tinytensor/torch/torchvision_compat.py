"""Importing PyPI's torchvision next to the CPU build of PyTorch.

PyPI's torchvision wheel is built for CUDA: with the CPU torch its
`_meta_registrations` (fake-tensor kernels of its own ops such as `nms`,
unused by the models) fail to register with "operator torchvision::nms does
not exist". `import_torchvision` skips that module and imports the rest; the
benchmarks and the torch-mlir suite runner use it.
"""

from __future__ import annotations

import sys
import types


def import_torchvision():
    """torchvision, or None when it is not installed."""
    try:
        import torchvision
    except ImportError:
        return None
    except RuntimeError:
        for name in [n for n in sys.modules if n.startswith("torchvision")]:
            del sys.modules[name]
        sys.modules["torchvision._meta_registrations"] = types.ModuleType(
            "torchvision._meta_registrations")
        import torchvision
    return torchvision
