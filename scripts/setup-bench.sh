#!/usr/bin/env bash
# Creates the benchmark-only virtual environment (default ./.venv-bench,
# override with TT_BENCH_VENV) for bench/bench.py: NumPy, PyTorch 2.13 CPU,
# JAX (CPU), Numba, IREE (compiler + runtime), threadpoolctl, torchvision and
# transformers, pinned in
# bench/requirements.txt. scripts/setup.sh installs none of these.
#
# TinyTensor itself is not built here: run scripts/setup.sh first (or later);
# this script only puts the build tree's packages on the venv's path, as
# scripts/setup.sh does for .venv. Until the build exists, bench/bench.py
# still runs and shows TinyTensor as "-".
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TT_BUILD_DIR:-$ROOT/build}"
VENV="${TT_BENCH_VENV:-$ROOT/.venv-bench}"
PYTHON="${PYTHON:-python3}"

log() { printf '\n==> %s\n' "$*"; }

version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [[ "$version" != 3.11 ]]; then
  echo "setup-bench.sh: needs Python 3.11 (got $version from $PYTHON; set PYTHON=...)" >&2
  exit 1
fi

if [[ ! -x "$VENV/bin/python" ]]; then
  log "Creating virtual environment $VENV"
  "$PYTHON" -m venv "$VENV"
fi

# The constraints file keeps torch at 2.13.0 (the CPU build) and NumPy on
# major 2 whatever another package asks for.
log "Installing benchmark packages into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  -c "$ROOT/bench/constraints.txt" -r "$ROOT/bench/requirements.txt"

# Same as scripts/setup.sh: MLIR's bindings with tt (build tree) and the
# tinytensor package (source tree). The bindings need only NumPy at run time.
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
printf '%s\n' "$BUILD_DIR/python_packages" "$ROOT/python" > "$site/tinytensor.pth"

"$VENV/bin/python" - <<'PY'
import importlib.metadata as md
for name in ["numpy", "torch", "jax", "jaxlib", "numba", "llvmlite",
             "iree-base-compiler", "iree-base-runtime", "threadpoolctl",
             "torchvision", "transformers"]:
    print(f"  {name:<20} {md.version(name)}")
PY
log "Benchmark environment ready: bench/run.sh [--quick] [--filter REGEX] [--json out.json]"
