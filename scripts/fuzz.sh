#!/usr/bin/env bash
# Builds TinyTensor's C++ with AddressSanitizer + UndefinedBehaviorSanitizer
# (and the tiny-fuzz libFuzzer target) in build-fuzz/, runs the lit suite
# with the sanitised tiny-opt, then fuzzes for a while:
#
#   bash scripts/fuzz.sh [SECONDS]          # default 120; 0 skips fuzzing
#   TT_FUZZ_RUNS=20000 bash scripts/fuzz.sh  # at most that many inputs
#                                            # (with the fixed seed: the
#                                            # same inputs on every run)
#
# The corpus is seeded from every lit test (split at `// -----`); crashes,
# sanitizer reports, pipelines that fail without an error diagnostic and
# pipelines that leave invalid IR are written to build-fuzz/fuzz-findings/.
# Then large generated graphs (scripts/difftest.py --large: 1,000 to 10,000
# operations with the op mix of transformers and CNNs, compiled by the
# regular build's Python package and checked against NumPy) for
# TT_FUZZ_GRAPH_SECONDS (default 60; 0 skips them); failing programs go to
# build-fuzz/fuzz-findings/graphs/. Needs the project's setup
# (scripts/setup.sh) and libclang-rt-22-dev (installed here if missing).
# Environment: TT_FUZZ_BUILD_DIR (default build-fuzz), TT_SANITIZE (default
# address,undefined), TT_FUZZ_SEED (default 1: a deterministic run),
# TT_VENV (default .venv).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TT_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SANITIZE="${TT_SANITIZE:-address,undefined}"
SECONDS_TO_FUZZ="${1:-120}"
GRAPH_SECONDS="${TT_FUZZ_GRAPH_SECONDS:-60}"
VENV="${TT_VENV:-$ROOT/.venv}"
LLVM_PREFIX=/usr/lib/llvm-22
log() { printf '\n== %s\n' "$*"; }

if ! dpkg-query -W -f='${Status}' libclang-rt-22-dev 2>/dev/null |
    grep -q "install ok installed"; then
  log "Installing libclang-rt-22-dev (sanitizer and libFuzzer runtimes)"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    libclang-rt-22-dev
fi

log "Configuring $BUILD (-fsanitize=$SANITIZE, tiny-fuzz)"
cmake -G Ninja -S "$ROOT" -B "$BUILD" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
  -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
  -DTT_SANITIZE="$SANITIZE" -DTT_BUILD_FUZZER=ON
cmake --build "$BUILD" --target tiny-opt tinytensor-capi-test tiny-fuzz \
  tinytensor-cuda-runtime-test tinytensor-fake-cuda TinyTensorCudaRuntime

# Leaks are reported too; libMLIR's own allocations are not instrumented.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
log "lit suite with the sanitised tiny-opt"
"$LLVM_PREFIX/bin/lit" -sv "$BUILD/test"

if [[ "$SECONDS_TO_FUZZ" == 0 ]]; then
  exit 0
fi
log "Seeding the corpus from the lit tests"
CORPUS="$BUILD/fuzz-corpus"
FINDINGS="$BUILD/fuzz-findings"
mkdir -p "$CORPUS" "$FINDINGS"
python3 - "$ROOT/test" "$CORPUS" <<'PY'
import hashlib, pathlib, sys
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for path in sorted(src.rglob("*.mlir")):
    for chunk in path.read_text().split("// -----"):
        body = "\n".join(l for l in chunk.splitlines()
                         if not l.lstrip().startswith("// RUN"))
        if body.strip():
            name = hashlib.sha1(body.encode()).hexdigest()[:16] + ".mlir"
            (dst / name).write_text(body)
PY
log "Fuzzing for at most $SECONDS_TO_FUZZ s${TT_FUZZ_RUNS:+, $TT_FUZZ_RUNS inputs}"
RUNS=()
[[ -n "${TT_FUZZ_RUNS:-}" ]] && RUNS=(-runs="$TT_FUZZ_RUNS")
"$BUILD/bin/tiny-fuzz" "$CORPUS" -seed="${TT_FUZZ_SEED:-1}" "${RUNS[@]}" \
  -max_total_time="$SECONDS_TO_FUZZ" -max_len=8192 -timeout=20 \
  -rss_limit_mb=6144 -print_final_stats=1 \
  -artifact_prefix="$FINDINGS/" 2>&1 | tail -40

if [[ "$GRAPH_SECONDS" != 0 ]]; then
  log "Large generated graphs for $GRAPH_SECONDS s (scripts/difftest.py --large)"
  TT_CACHE=0 "$VENV/bin/python" "$ROOT/scripts/difftest.py" --large \
    --seconds "$GRAPH_SECONDS" --seed "$((${TT_FUZZ_SEED:-1} * 1000000))" \
    --keep "$FINDINGS/graphs"
fi
