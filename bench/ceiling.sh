#!/usr/bin/env bash
# The matmul ceiling study of docs/performance.md ("Where the last 15% go"):
# builds bench/matmul_ceiling.c with clang-22 and runs it, then times
# TinyTensor's jit matmul, NumPy's (OpenBLAS) and, where the benchmark
# environment has torch, torch eager (oneDNN/MKL) and torch.compile on the
# same float32 problem in the same run, each as a share of the FMA peak the
# C program measured (the larger of two measurements, before and after).
#   bench/ceiling.sh [M N K mc nc kc]     (default 1024 1024 1024 256 128 1024)
# mc, nc and kc are the C program's blocks: give the ones TinyTensor picks
# for the shape (tiny-opt --tt-cpu-tile-and-fuse shows them).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TT_BENCH_VENV:-$ROOT/.venv-bench}"
[ -x "$VENV/bin/python" ] || VENV="$ROOT/.venv"
ARGS=("${@:-1024 1024 1024 256 128 1024}")
read -r M N K _ <<<"${ARGS[*]}"
BIN="$(mktemp -d)/matmul_ceiling"
trap 'rm -rf "$(dirname "$BIN")"' EXIT
clang-22 -O3 -march=native -fopenmp=libomp -L/usr/lib/llvm-22/lib \
  -Wl,-rpath,/usr/lib/llvm-22/lib "$ROOT/bench/matmul_ceiling.c" -o "$BIN"
OUT="$("$BIN" ${ARGS[*]})"
echo "$OUT"
PEAK="$(awk '/^peak/ {print $(NF-1)}' <<<"$OUT")"
# The peak once more after the matmuls below: the larger of the two is the
# reference (on a shared machine the peak moves from minute to minute).
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  PYTHONPATH="$ROOT/build/python_packages:$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
  "$VENV/bin/python" - "$M" "$N" "$K" "$PEAK" "$BIN" <<'PY'
import gc, subprocess, sys, time
import numpy as np
import tinytensor

m, n, k = (int(x) for x in sys.argv[1:4])
peak, ceiling = float(sys.argv[4]), sys.argv[5]


def best_seconds(f, seconds=2.0):
    f()
    best, end, runs = float("inf"), time.perf_counter() + seconds, 0
    while runs < 3 or time.perf_counter() < end:
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
        runs += 1
    return best


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    rates = {}
    mm = tinytensor.jit(lambda x, y: x @ y)
    assert np.allclose(mm(a, b), a @ b, rtol=1e-3, atol=1e-2)
    rates["TinyTensor jit"] = best_seconds(lambda: mm(a, b))
    rates["NumPy"] = best_seconds(lambda: a @ b)
    try:
        import torch
    except ImportError:
        rates["torch eager"] = rates["torch.compile"] = None
    else:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        rates["torch eager"] = best_seconds(lambda: ta @ tb)
        tc = torch.compile(lambda x, y: x @ y)
        assert np.allclose(tc(ta, tb).numpy(), a @ b, rtol=1e-3, atol=1e-2)
        rates["torch.compile"] = best_seconds(lambda: tc(ta, tb))
    after = subprocess.run([ceiling, "--peak"], capture_output=True, text=True,
                           check=True).stdout
    print(after, end="")
    best = max(peak, float(after.split()[-2]))
    for name, seconds in rates.items():
        if seconds is None:
            print(f"{name:<44}       -")
            continue
        g = 2.0 * m * n * k / seconds / 1e9
        print(f"{name + ' (best run)':<44} {g:7.1f} GFLOP/s "
              f"{100 * g / best:5.1f}% of the larger peak")


main()
gc.collect()
PY
