#!/usr/bin/env bash
# Runs every TinyTensor test: the lit suite (dialect, conversions, compiled
# and executed integration tests), the Python tests (with 200 random
# programs against NumPy), then the C++ built with ASan + UBSan in
# build-fuzz/: the lit suite again under the sanitizers and a short,
# deterministic libFuzzer run (scripts/fuzz.sh; TT_FUZZ_RUNS inputs,
# default 20000; TT_FUZZ_RUNS=0 skips the sanitised build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TT_BUILD_DIR:-$ROOT/build}"
VENV="${TT_VENV:-$ROOT/.venv}"

echo "==> lit"
cmake --build "$BUILD_DIR" --target check-tinytensor

if [[ -d "$ROOT/test/python" ]]; then
  echo "==> pytest"
  "$VENV/bin/python" -m pytest -q "$ROOT/test/python"
fi

FUZZ_RUNS="${TT_FUZZ_RUNS:-20000}"
if [[ "$FUZZ_RUNS" != 0 ]]; then
  echo "==> sanitised build, lit under ASan + UBSan, $FUZZ_RUNS fuzz inputs"
  TT_FUZZ_RUNS="$FUZZ_RUNS" bash "$ROOT/scripts/fuzz.sh" 600
fi
