#!/usr/bin/env bash
# Runs every TinyTensor test: the lit suite (dialect, conversions, compiled
# and executed integration tests) and the Python tests.
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
