#!/usr/bin/env bash
# Runs bench/bench.py in the benchmark environment (scripts/setup-bench.sh)
# without OpenBLAS' kernel overrides, which would force NumPy's OpenBLAS onto
# another kernel or cache size. Arguments are passed through:
#   bench/run.sh [--quick] [--filter REGEX] [--json out.json]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TT_BENCH_VENV:-$ROOT/.venv-bench}"
exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  "$VENV/bin/python" "$ROOT/bench/bench.py" "$@"
