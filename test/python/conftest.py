"""Shared setup for TinyTensor's Python tests.

Run as:
    PYTHONPATH=build/python_packages:python .venv/bin/python -m pytest -q test/python
"""

import atexit
import os
import shutil
import sys
import tempfile

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

# Make the tests runnable without PYTHONPATH too; examples/ for gpt2.py.
for _path in (os.path.join(ROOT, "build", "python_packages"),
              os.path.join(ROOT, "python"),
              os.path.join(ROOT, "examples")):
    if os.path.isdir(_path) and _path not in sys.path:
        sys.path.append(_path)


# The compile cache of the tests is their own (fresh for every run): a
# developer's ~/.cache/tinytensor is neither read nor filled.
if "TT_CACHE_DIR" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="tinytensor-test-cache-")
    os.environ["TT_CACHE_DIR"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: takes minutes (GPT-2 124M compile); still runs by "
        "default, deselect with -m 'not slow'")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def compiles(monkeypatch):
    """Counts the specialisations built (traces + lowerings + engines)."""
    from tinytensor import Compiled

    count = {"n": 0}
    original = Compiled.__init__

    def counting_init(self, *args, **kwargs):
        count["n"] += 1
        original(self, *args, **kwargs)

    monkeypatch.setattr(Compiled, "__init__", counting_init)
    return count


@pytest.fixture(autouse=True)
def _seed_arrays(request):
    """Seeds arrays.py's generator from the test's id."""
    import arrays
    arrays.seed(request.node.nodeid)


@pytest.fixture(scope="session")
def transformers():
    """Hugging Face `transformers`, or the test is skipped (the benchmark
    environment installs it, the core one does not). transformers imports
    torchvision when it is installed, and PyPI's CUDA-built torchvision
    wheel needs its meta registrations skipped with the CPU torch."""
    pytest.importorskip("torch")
    from tinytensor.torch.torchvision_compat import import_torchvision
    import_torchvision()
    module = pytest.importorskip("transformers")
    try:
        module.GPT2Config, module.T5EncoderModel
    except (ImportError, RuntimeError) as e:
        pytest.skip(f"transformers cannot import its models here: {e}")
    return module
