#!/usr/bin/env bash
# Installs everything TinyTensor needs on Debian 12 or 13 (as root) and
# builds it: Debian packages with apt, Python packages into ./.venv, MLIR's
# Python bindings (cached outside the clone), then the C++ project.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TT_BUILD_DIR:-$ROOT/build}"
VENV="${TT_VENV:-$ROOT/.venv}"
LLVM_PREFIX=/usr/lib/llvm-22

log() { printf '\n==> %s\n' "$*"; }

# --- Debian packages ---------------------------------------------------------
APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  clang-22 lld-22 libomp-22-dev
  # GNU OpenMP: PyTorch's runtime, which compiled code's parallel loops
  # share when torch is loaded (TT_OPENMP; the tests load it either way).
  libgomp1
  # MPI (MPICH, whose ABI MLIR's MPI lowering targets): the runtime of
  # tinytensor.distributed and mpirun for its 2-rank tests.
  mpich libmpich-dev
  # Sanitizer and libFuzzer runtimes, for the sanitised build and the
  # short fuzz run of scripts/test.sh (scripts/fuzz.sh).
  libclang-rt-22-dev
  cmake ninja-build xz-utils ca-certificates
  # Debian's own Python (3.11 on 12, 3.13 on 13), its venv module and
  # headers (for MLIR's Python bindings); a minimal install has none.
  python3 python3-venv python3-dev
)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  log "Installing Debian packages: ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
else
  log "Debian packages already installed"
fi

# --- Python virtual environment ---------------------------------------------
PYTHON="${PYTHON:-python3}"
if [[ ! -x "$VENV/bin/python" ]]; then
  log "Creating virtual environment $VENV"
  "$PYTHON" -m venv "$VENV"
fi
log "Installing Python packages into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r "$ROOT/python/requirements.txt"
# PyTorch: only the local CPU build (any other torch 2.13.0 is a multi-GB
# CUDA download). TT_WITH_TORCH=auto (default) installs it if a wheel for
# this Python is in pip's find-links, 1 always, 0 never. Without it the
# PyTorch front end's tests skip.
torch_spec=$(grep -m1 '^torch==' "$ROOT/python/requirements-torch.txt")
local_torch_wheel() {
  local tag dirs dir
  tag=$("$VENV/bin/python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
  dirs="${PIP_FIND_LINKS:-} $("$VENV/bin/python" -m pip config get global.find-links 2>/dev/null || true)"
  for dir in $dirs; do
    dir=${dir#file://}
    compgen -G "$dir/torch-${torch_spec#torch==}+cpu-$tag-*.whl" >/dev/null && return 0
  done
  return 1
}
with_torch=${TT_WITH_TORCH:-auto}
if [[ $with_torch == auto ]]; then
  if local_torch_wheel; then with_torch=1; else
    with_torch=0
    log "No local CPU build of $torch_spec for $("$VENV/bin/python" -V): skipping the PyTorch front end (its tests skip; TT_WITH_TORCH=1 installs it anyway)"
  fi
fi
if [[ $with_torch == 1 ]]; then
  log "Installing PyTorch (CPU) for the PyTorch front end"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$ROOT/python/requirements-torch.txt"
fi

# --- MLIR Python bindings (cached outside the clone) -------------------------
if [[ -f "$ROOT/scripts/build-mlir-python.sh" ]]; then
  log "MLIR Python bindings"
  MLIR_PYTHON_PACKAGE="$("$ROOT/scripts/build-mlir-python.sh" "$VENV/bin/python" | tail -n 1)"
  PYTHON_CMAKE_ARGS=(
    -DTINYTENSOR_ENABLE_PYTHON=ON
    -DMLIR_PYTHON_PACKAGE_DIR="$MLIR_PYTHON_PACKAGE"
    -DPython3_EXECUTABLE="$VENV/bin/python"
  )
else
  PYTHON_CMAKE_ARGS=(-DPython3_EXECUTABLE="$VENV/bin/python")
fi

# --- Build ---------------------------------------------------------------------
log "Configuring and building TinyTensor in $BUILD_DIR"
cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
  -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
  "${PYTHON_CMAKE_ARGS[@]}"
cmake --build "$BUILD_DIR"

# Make the packages importable from the virtual environment: MLIR's bindings
# with tt (build tree) and the tinytensor package (source tree).
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
printf '%s\n' "$BUILD_DIR/python_packages" "$ROOT/python" > "$site/tinytensor.pth"
log "Setup complete: $VENV/bin/python -c 'from tinytensor import jit'"
