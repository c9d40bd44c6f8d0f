"""bench/matmul_ceiling.c, the matmul ceiling study of docs/performance.md:
it builds, and its blocked products (B packed per block, B prepacked,
A packed) agree with a float64 reference, for the default tile and two
others, with tails in every blocked dimension."""

import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "bench", "matmul_ceiling.c")


def _has_avx512f():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


pytestmark = [
    pytest.mark.skipif(shutil.which("clang-22") is None,
                       reason="needs clang-22"),
    pytest.mark.skipif(not _has_avx512f(), reason="needs AVX-512F"),
]


def _build(tmp_path, rows, vectors):
    binary = tmp_path / f"ceiling_{rows}x{vectors}"
    subprocess.run(
        ["clang-22", "-O2", "-march=native", "-fopenmp=libomp",
         "-L/usr/lib/llvm-22/lib", "-Wl,-rpath,/usr/lib/llvm-22/lib",
         f"-DTILE_ROWS={rows}", f"-DTILE_VECTORS={vectors}", SOURCE,
         "-o", str(binary)], check=True)
    return str(binary)


@pytest.mark.parametrize("rows,vectors", [(6, 4), (8, 3), (5, 1)])
def test_blocked_products_are_right(tmp_path, rows, vectors):
    binary = _build(tmp_path, rows, vectors)
    width = 16 * vectors
    # 103 rows: partial row blocks (mc 37) and partial row tiles; 3 column
    # blocks of 2 strips; 4 reduction blocks.
    run = subprocess.run(
        [binary, "103", str(6 * width), "96", "37", str(2 * width), "24",
         "0.01"], capture_output=True, text=True,
        env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "WRONG" not in run.stdout
    for row in ("peak", f"tile {rows}x{vectors} L1", "blocked",
                "prepacked B, A in place", "prepacked B, packed A"):
        assert row in run.stdout
    err = float(run.stdout.split("float64:")[1].split()[0])
    assert err < 1e-5


def test_bad_arguments_are_refused(tmp_path):
    binary = _build(tmp_path, 6, 4)
    run = subprocess.run([binary, "64", "100", "64", "64", "64", "64"],
                         capture_output=True, text=True)
    assert run.returncode == 2
    assert "nc % 64 == 0" in run.stderr
    run = subprocess.run([binary, "64"], capture_output=True, text=True)
    assert run.returncode == 2 and "usage" in run.stderr
