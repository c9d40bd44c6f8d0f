"""Ahead-of-time compilation (tinytensor.aot, tiny-aot) and the CUDA target
without a GPU.

CPU libraries are loaded with ctypes and compared with NumPy. For CUDA, the
libraries are built the same way; they run against the fake driver of
test/Runtime/fake-cuda-driver.c (host memory; launches are printed, not
run), which checks the host side: module loading, kernel names, grids and
device copies. Kernels themselves run only on a real GPU (scripts/gpu-check).
Driver-dependent cases run in subprocesses: the runtime loads its driver
once per process."""

import ctypes
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tinytensor import aot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
TINY_AOT = os.path.join(BUILD, "bin", "tiny-aot")
FAKE_CUDA = os.path.join(BUILD, "lib", "libtinytensor-fake-cuda.so")
RNG = np.random.default_rng(5)


def ptr(a):
    return ctypes.c_void_p(a.ctypes.data)


def gelu(x, b):
    h = x + b
    return 0.5 * h * (1 + np.tanh(0.79788456 * (h + 0.044715 * h ** 3)))


def layer_norm(x, g, b):
    m = x.mean(axis=-1, keepdims=True)
    v = x.var(axis=-1, keepdims=True)
    return g * (x - m) / np.sqrt(v + 1e-5) + b


def test_cpu_library_matches_numpy(tmp_path):
    x, b = RNG.standard_normal((37, 300), np.float32), \
        RNG.standard_normal(300).astype(np.float32)
    lib_path = str(tmp_path / "libgelu.so")
    header = tmp_path / "gelu.h"
    manifest = tmp_path / "gelu.json"
    aot.export(gelu, x, b, path=lib_path, header=str(header),
               manifest=str(manifest))
    lib = ctypes.CDLL(lib_path)
    out = np.empty_like(x)
    assert lib.gelu(ptr(x), ptr(b), ptr(out)) == 0
    np.testing.assert_allclose(out, gelu(x, b), rtol=1e-5, atol=1e-6)
    text = header.read_text()
    assert "int gelu(const float *arg0, const float *arg1, float *result0);" \
        in text
    assert "arg0: float32[37, 300]" in text
    info = json.loads(manifest.read_text())
    assert info["target"] == "cpu" and info["library"] == "libgelu.so"
    (fn,) = info["functions"]
    assert fn["name"] == "gelu"
    assert [p["shape"] for p in fn["inputs"]] == [[37, 300], [300]]
    assert fn["results"] == [{"name": "result0", "dtype": "float32",
                              "shape": [37, 300]}]


def test_cpu_library_several_results_and_dtypes(tmp_path):
    def stats(x, k):
        return (x * 2.0).astype(np.float64), x > 0, (k * 3), k.sum() * 2 ** 40

    x = RNG.standard_normal((5, 7), np.float32)
    k = RNG.integers(-9, 9, (4,)).astype(np.int32)
    path = str(tmp_path / "libstats.so")
    aot.export(stats, x, k, path=path, header=str(tmp_path / "stats.h"))
    lib = ctypes.CDLL(path)
    a, m, n, s = (np.empty((5, 7), np.float64), np.empty((5, 7), np.bool_),
                  np.empty(4, np.int32), np.empty((), np.int64))
    assert lib.stats(ptr(x), ptr(k), ptr(a), ptr(m), ptr(n), ptr(s)) == 0
    np.testing.assert_array_equal(a, (x * 2.0).astype(np.float64))
    np.testing.assert_array_equal(m, x > 0)
    np.testing.assert_array_equal(n, k * 3)
    assert s == k.sum() * 2 ** 40 and s.dtype == np.int64
    header = (tmp_path / "stats.h").read_text()
    assert "uint8_t *result1" in header and "int64_t *result3" in header


def test_scope_arrays_are_constants(tmp_path):
    table = RNG.standard_normal(6).astype(np.float32)

    def add_table(a):
        return a + table
    x = RNG.standard_normal((3, 6)).astype(np.float32)
    path = str(tmp_path / "libadd_table.so")
    aot.export(add_table, x, path=path)
    out = np.empty_like(x)
    assert ctypes.CDLL(path).add_table(ptr(x), ptr(out)) == 0
    np.testing.assert_array_equal(out, x + table)


def test_portable_cpu(tmp_path):
    # Code for a baseline x86-64 CPU runs here too (and on the GPU machine).
    x, g, b = (RNG.standard_normal((9, 768), np.float32),
               RNG.standard_normal(768).astype(np.float32),
               RNG.standard_normal(768).astype(np.float32))
    path = str(tmp_path / "libln.so")
    aot.export(layer_norm, x, g, b, path=path, cpu="x86-64",
               pipeline_options="threads=1")
    out = np.empty_like(x)
    assert ctypes.CDLL(path).layer_norm(ptr(x), ptr(g), ptr(b), ptr(out)) == 0
    np.testing.assert_allclose(out, layer_norm(x, g, b), rtol=1e-4,
                               atol=1e-4)


def test_export_errors(tmp_path):
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="name must be a C identifier"):
        aot.export(lambda a: a + 1.0, x, path=str(tmp_path / "l.so"))
    with pytest.raises(ValueError, match="target must be 'cpu' or 'cuda'"):
        aot.export(gelu, x, x, path=str(tmp_path / "l.so"), target="tpu")
    with pytest.raises(RuntimeError, match="cannot create a target machine"):
        aot.export(gelu, x, x, path=str(tmp_path / "l.so"), cpu="no-such-cpu")


def run_tiny_aot(tmp_path, source, *args):
    src = tmp_path / "model.mlir"
    src.write_text(textwrap.dedent(source))
    return subprocess.run([TINY_AOT, str(src), *args], capture_output=True,
                          text=True)


def test_tiny_aot_tool(tmp_path):
    source = """
        func.func @scale(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
          %c = tt.constant dense<3.0> : tensor<f32>
          %y = tt.mul %x, %c : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
          return %y : tensor<3x4xf32>
        }
    """
    lib = tmp_path / "libscale.so"
    r = run_tiny_aot(tmp_path, source, "-o", str(lib), "--header",
                     str(tmp_path / "scale.h"))
    assert r.returncode == 0, r.stderr
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.empty_like(x)
    assert ctypes.CDLL(str(lib)).scale(ptr(x), ptr(out)) == 0
    np.testing.assert_array_equal(out, x * 3)

    r = run_tiny_aot(tmp_path, """
        func.func @f(%x: tensor<*xf32>) -> tensor<*xf32> {
          return %x : tensor<*xf32>
        }
    """, "-o", str(lib))
    assert r.returncode == 1
    assert "@f argument #0: only statically shaped tensors can be " \
        "exported, not tensor<*xf32>" in r.stderr
    r = run_tiny_aot(tmp_path, source, "-o", str(lib), "--target=tpu")
    assert "unknown target 'tpu' (cpu or cuda)" in r.stderr


CUDA_SCRIPT = """
import numpy as np, tinytensor
from tinytensor import jit, aot
x = np.arange(12, dtype=np.float32).reshape(3, 4)
d = tinytensor.device_put(x)
print("round trip", (d.numpy() == x).all())
f = jit(lambda a, b: np.maximum(a, 1.0) @ b, target="cuda")
out = f(d, np.ones((4, 5), np.float32))
print("result", out.shape, out.dtype)
try:
    jit(lambda a: a + 1.0)(d)
except TypeError as e:
    print("TypeError:", e)
"""


def run_python(script, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", script], capture_output=True,
                          text=True, env=full)


def test_cuda_target_on_the_fake_driver():
    r = run_python(CUDA_SCRIPT, TT_LIBCUDA=FAKE_CUDA)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "round trip True" in lines
    # Kernels for the maximum and the matmul, results copied back. (The
    # GPU cases here call no libdevice function: they build on machines
    # without a CUDA toolkit.)
    assert "fake-cuda: module loaded (ptx)" in lines
    assert any(l.startswith("fake-cuda: launch tt_main_kernel") for l in lines)
    assert "result (3, 5) float32" in lines
    assert any("a DeviceArray is in GPU memory" in l for l in lines)


def test_cuda_without_a_driver_is_a_clear_error():
    r = run_python(CUDA_SCRIPT, TT_LIBCUDA="/nonexistent/libcuda.so.1")
    assert r.returncode == 1
    assert "RuntimeError: no CUDA device: TinyTensor CUDA runtime: cannot " \
        "load the CUDA driver library /nonexistent/libcuda.so.1" in r.stderr


def test_cuda_library_and_header(tmp_path):
    x = np.ones((256, 1000), np.float32)
    path = str(tmp_path / "libnormalize.so")

    def normalize(x):  # a block reduction per row, then a division
        return x / x.sum(axis=-1, keepdims=True)
    aot.export(normalize, x, path=path, header=str(tmp_path / "normalize.h"),
               target="cuda")
    assert (tmp_path / "libTinyTensorCudaRuntime.so").exists()
    header = (tmp_path / "normalize.h").read_text()
    assert "Every pointer is CUDA device memory" in header
    assert "const char *tt_last_error(void);" in header
    script = f"""
import ctypes, numpy as np
lib = ctypes.CDLL({path!r})
lib.tt_last_error.restype = ctypes.c_char_p
x = np.ones((256, 1000), np.float32); y = np.empty_like(x)
rc = lib.normalize(ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(y.ctypes.data))
print("rc", rc, lib.tt_last_error())
"""
    # The fake driver's memory is host memory: host pointers do.
    r = run_python(script, TT_LIBCUDA=FAKE_CUDA)
    assert "fake-cuda: launch normalize_kernel grid 256x1x1 block 256x1x1" \
        in r.stdout, r.stdout + r.stderr
    assert "rc 0 None" in r.stdout
    r = run_python(script, TT_LIBCUDA=FAKE_CUDA,
                   FAKE_CUDA_FAIL="cuLaunchKernel")
    assert "rc 1 b'TinyTensor CUDA runtime: cuLaunchKernel failed: " \
        "CUDA_ERROR_OUT_OF_MEMORY" in r.stdout


def test_gpu_check_builds_and_its_driver_runs(tmp_path):
    # The artifacts of scripts/gpu-check and its GPU-side driver, run on
    # the fake driver: every case is loaded, called and timed (the results
    # are not computed, so every case reports a wrong answer). Two cases
    # that need no libdevice, so that this runs without a CUDA toolkit.
    out = tmp_path / "gpucheck"
    r = subprocess.run([os.path.join(ROOT, "scripts", "gpu-check"), "build",
                        str(out), "--only", "scale_bias,matmul_1024"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == sorted([
        "cases.py", "gpt2.py", "libTinyTensorCudaRuntime.so",
        "libscale_bias.so", "libmatmul_1024.so", "manifest.json", "run.py",
        "scale_bias.h", "matmul_1024.h"])
    r = subprocess.run([sys.executable, str(out / "run.py"), "--repeat", "1",
                        "--json", str(tmp_path / "r.json")],
                       capture_output=True, text=True,
                       env=dict(os.environ, TT_LIBCUDA=FAKE_CUDA))
    assert "device: Fake GPU 0" in r.stdout, r.stdout + r.stderr
    assert "fake-cuda: launch matmul_1024_kernel grid 16x16x1 block " \
        "16x16x1" in r.stdout
    results = json.loads((tmp_path / "r.json").read_text())
    assert [c["name"] for c in results["cases"]] == ["scale_bias",
                                                    "matmul_1024"]
    assert r.returncode == 1 and "2 case(s) failed" in r.stdout
