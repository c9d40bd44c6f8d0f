"""`pip install .`: pyproject.toml's in-tree backend (scripts/packaging/
tt_wheel.py) packs the CMake build into a wheel that works in a fresh
virtual environment, with `torch.compile(backend="tinytensor")` found
through its entry point without importing tinytensor."""

import os
import site
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pip(*args, env=None, check=True):
    run = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                         capture_output=True, text=True, timeout=600,
                         env=env, cwd=ROOT)
    if check:
        assert run.returncode == 0, run.stdout + run.stderr
    return run


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(out),
        str(ROOT))
    (path,) = out.glob("tinytensor-*.whl")
    return path


def test_wheel_contents(wheel):
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert wheel.name.startswith(f"tinytensor-0.1.0-{py}-{py}-linux_")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        info = "tinytensor-0.1.0.dist-info"
        entry_points = z.read(f"{info}/entry_points.txt").decode()
        metadata = z.read(f"{info}/METADATA").decode()
        record = z.read(f"{info}/RECORD").decode()
    assert "tinytensor/jit.py" in names
    assert "tinytensor/torch/dynamo.py" in names
    assert any(n.startswith("mlir/_mlir_libs/_ttDialects.") for n in names)
    assert not any("__pycache__" in n for n in names)
    assert ("[torch_dynamo_backends]\n"
            "tinytensor = tinytensor.torch.dynamo:tinytensor_backend"
            in entry_points)
    assert "Requires-Dist: numpy>=2,<3" in metadata
    assert 'Requires-Dist: torch==2.13.0; extra == "torch"' in metadata
    # Every file is in RECORD with its hash.
    recorded = {line.split(",")[0] for line in record.splitlines()}
    assert names == recorded


def test_installs_into_a_fresh_environment(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys._base_executable, "-m", "venv", str(venv)],
                   check=True, timeout=120)
    python = venv / "bin" / "python"
    run = subprocess.run([str(python), "-m", "pip", "install", "--no-deps",
                          "--disable-pip-version-check", "-q", str(wheel)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    # The dependencies (NumPy, ml_dtypes, PyTorch) from this environment:
    # its directories on the new one's path, after its own site-packages
    # (this environment's tinytensor.pth is not read from there).
    (purelib,) = venv.glob("lib/python*/site-packages")
    (purelib / "zz_test_deps.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n")
    script = textwrap.dedent("""
        import sys
        import numpy as np
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            # No import of tinytensor: the entry point finds the backend.
            model = torch.nn.Linear(4, 3)
            x = torch.randn(2, 4)
            out = torch.compile(model, backend="tinytensor")(x)
            assert "tinytensor.torch" in sys.modules
            assert (out - model(x)).abs().max().item() < 1e-5
        import tinytensor
        from tinytensor import jit
        x = np.arange(5, dtype=np.float32)
        np.testing.assert_array_equal(jit(lambda x: x * 2.0 + 1.0)(x),
                                      x * 2.0 + 1.0)
        print(tinytensor.__file__)
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([str(python), "-c", script], capture_output=True,
                         text=True, timeout=600, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().startswith(str(venv))


def test_no_build_is_a_clear_error(tmp_path):
    env = dict(os.environ, TT_BUILD_DIR=str(tmp_path / "nothing"))
    run = pip("wheel", "--no-deps", "--no-build-isolation", "-w",
              str(tmp_path), str(ROOT), env=env, check=False)
    assert run.returncode != 0
    assert "run `bash scripts/setup.sh` first" in run.stdout + run.stderr
