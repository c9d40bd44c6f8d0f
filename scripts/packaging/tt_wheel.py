"""PEP 517 build backend of TinyTensor's wheel (pyproject.toml).

    bash scripts/setup.sh                 # builds the C++ into build/
    /path/to/your/venv/bin/pip install .  # this backend packs the wheel

TinyTensor's native parts (the tt dialect, its passes and the runtime,
linked into MLIR's Python bindings) are built by CMake against Debian's
LLVM/MLIR 22 in `scripts/setup.sh`; a wheel builder that ran CMake again
would need the same Debian packages and the bindings' sources, and take
the whole build's time. This backend therefore packs what that build made
(`$TT_BUILD_DIR`, default `build/`): `python_packages/mlir` (the bindings
with tt plugged in) and the pure-Python `python/tinytensor`, with the
dependencies, the `tinytensor.torch` extra and the `torch.compile` backend
entry point from pyproject.toml. The wheel is tagged for the Python that
the extension modules were built for; it runs where Debian's libMLIR 22
is installed (the modules link it by absolute path), in any environment of
that Python version. Without a build it stops and says so.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
import zipfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project's Python is 3.11 or newer
    tomllib = None

ROOT = Path(__file__).resolve().parents[2]
NAME = "tinytensor"


class BuildError(RuntimeError):
    pass


def _project() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _version() -> str:
    text = (ROOT / "python" / "tinytensor" / "__init__.py").read_text()
    match = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    if not match:
        raise BuildError("python/tinytensor/__init__.py has no __version__")
    return match.group(1)


def _build_dir() -> Path:
    build = Path(os.environ.get("TT_BUILD_DIR") or ROOT / "build")
    if not build.is_absolute():
        build = ROOT / build
    return build


def _bindings() -> Path:
    mlir = _build_dir() / "python_packages" / "mlir"
    if not any(mlir.glob("_mlir_libs/_ttDialects.*.so")):
        raise BuildError(
            f"no TinyTensor build in {mlir.parent} (the tt extension "
            "_ttDialects is missing): run `bash scripts/setup.sh` first, or "
            "set TT_BUILD_DIR to the CMake build directory")
    return mlir


def _tag() -> str:
    """cp311-cp311-linux_x86_64 from the extension modules' suffix."""
    so = next(_bindings().glob("_mlir_libs/_ttDialects.*.so")).name
    match = re.match(r"_ttDialects\.cpython-(\d+)-(\w+?)-linux-gnu\.so$", so)
    if not match:
        raise BuildError(f"cannot tell the Python of {so}")
    python, machine = match.groups()
    return f"cp{python}-cp{python}-linux_{machine}"


def _metadata() -> str:
    project = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {NAME}",
             f"Version: {_version()}", f"Summary: {project['description']}",
             f"Requires-Python: {project['requires-python']}"]
    lines += [f"Requires-Dist: {d}" for d in project["dependencies"]]
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    readme = (ROOT / "README.md").read_text()
    lines += ["Description-Content-Type: text/markdown", "", readme]
    return "\n".join(lines)


def _entry_points() -> str:
    out = []
    for group, entries in _project().get("entry-points", {}).items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in entries.items()]
        out.append("")
    return "\n".join(out)


def _files():
    """(path in the wheel, file on disk) for every file of the wheel."""
    skip = re.compile(r"(__pycache__|\.pyc$)")
    for base, prefix in ((_bindings(), "mlir"),
                         (ROOT / "python" / "tinytensor", "tinytensor")):
        for path in sorted(base.rglob("*")):
            if path.is_file() and not skip.search(str(path)):
                yield f"{prefix}/{path.relative_to(base).as_posix()}", path


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f"{name},sha256={digest.rstrip(b'=').decode()},{len(data)}"


def _dist_info(tag: str) -> dict:
    return {"METADATA": _metadata(),
            "WHEEL": ("Wheel-Version: 1.0\nGenerator: tt_wheel\n"
                      f"Root-Is-Purelib: false\nTag: {tag}\n"),
            "entry_points.txt": _entry_points()}


# --- PEP 517 hooks ----------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = f"{NAME}-{_version()}.dist-info"
    target = Path(metadata_directory) / info
    target.mkdir(parents=True, exist_ok=True)
    for name, text in _dist_info(_tag()).items():
        (target / name).write_text(text)
    return info


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    tag = _tag()
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    wheel = Path(wheel_directory) / f"{NAME}-{version}-{tag}.whl"
    records = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for name, path in _files():
            data = path.read_bytes()
            info_ = zipfile.ZipInfo(name)
            info_.external_attr = (path.stat().st_mode & 0o777) << 16
            info_.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info_, data)
            records.append(_record_line(name, data))
        for name, text in _dist_info(tag).items():
            data = text.encode()
            z.writestr(f"{info}/{name}", data)
            records.append(_record_line(f"{info}/{name}", data))
        records.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel.name
