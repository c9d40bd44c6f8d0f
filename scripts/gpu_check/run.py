"""scripts/gpu-check's GPU side: runs the libraries built by
`scripts/gpu-check build DIR` and prints, per case, the largest error
against NumPy, the time per call, the bandwidth or FLOP rate, and the same
computation with PyTorch when it has CUDA. Needs Python, NumPy and an
NVIDIA driver; no LLVM, MLIR or TinyTensor.

    python DIR/run.py [--repeat N] [--json results.json]
"""

import argparse
import ctypes
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402


def load_runtime():
    rt = ctypes.CDLL(os.path.join(HERE, "libTinyTensorCudaRuntime.so"),
                     mode=ctypes.RTLD_GLOBAL)
    rt.ttCudaLastError.restype = ctypes.c_char_p
    rt.ttCudaDeviceName.restype = ctypes.c_char_p
    rt.ttCudaAlloc.restype = ctypes.c_void_p
    rt.ttCudaAlloc.argtypes = [ctypes.c_size_t]
    rt.ttCudaFree.argtypes = [ctypes.c_void_p]
    for name in ("ttCudaCopyToDevice", "ttCudaCopyToHost"):
        getattr(rt, name).argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_size_t]
    rt.mgpuMemcpy.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_size_t,
                                                      ctypes.c_void_p]
    return rt


def check(rt, what):
    error = rt.ttCudaLastError()
    if error:
        raise RuntimeError(f"{what}: {error.decode()}")


def timed(fn, sync, repeat):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def copy_bandwidth(rt, repeat):
    """Device-to-device copy of 256 MiB (read + write), GB/s."""
    n = 256 << 20
    a, b = rt.ttCudaAlloc(n), rt.ttCudaAlloc(n)
    check(rt, "allocating the copy buffers")
    t = timed(lambda: rt.mgpuMemcpy(b, a, n, None), rt.ttCudaSynchronize,
              repeat)
    rt.ttCudaFree(a)
    rt.ttCudaFree(b)
    return 2 * n / t / 1e9


def torch_time(case, inputs, repeat):
    try:
        import torch
    except ImportError:
        return None
    if case.torch_fn is None or not torch.cuda.is_available():
        return None
    args = [torch.from_numpy(x).cuda() for x in inputs]
    return timed(lambda: case.torch_fn(torch, *args), torch.cuda.synchronize,
                 repeat)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--only", help="comma-separated case names")
    args = parser.parse_args()
    with open(os.path.join(HERE, "manifest.json")) as f:
        manifest = json.load(f)
    rt = load_runtime()
    if rt.ttCudaInit() != 0:
        check(rt, "no CUDA device")
    device = rt.ttCudaDeviceName().decode()
    copy = copy_bandwidth(rt, args.repeat)
    print(f"device: {device}; device copy bandwidth {copy:.0f} GB/s; "
          f"host {platform.machine()}, NumPy {np.__version__}")
    results = {"device": device, "copy_gb_s": copy, "cases": []}
    print(f"{'case':22} {'max err':>9} {'ok':>3} {'ms':>9} {'rate':>14} "
          f"{'torch ms':>9}")
    failures = 0
    only = set(args.only.split(",")) if args.only else None
    for case in cases.CASES:
        if (only and case.name not in only) or \
                case.name not in manifest["cases"]:
            continue
        entry = manifest["cases"][case.name]
        lib = ctypes.CDLL(os.path.join(HERE, entry["library"]))
        check(rt, f"{case.name}: loading the kernels")
        fn = getattr(lib, case.name)
        inputs = case.inputs(np.random.default_rng(entry["seed"]))
        expected = case.fn(*inputs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        dev_in = []
        for x in inputs:
            p = rt.ttCudaAlloc(max(x.nbytes, 1))
            rt.ttCudaCopyToDevice(p, x.ctypes.data, x.nbytes)
            dev_in.append(p)
        dev_out = [rt.ttCudaAlloc(max(e.nbytes, 1)) for e in expected]
        check(rt, f"{case.name}: device buffers")
        pointers = [ctypes.c_void_p(p) for p in dev_in + dev_out]
        if fn(*pointers) != 0:
            check(rt, f"{case.name}: running")
        error = 0.0
        ok = True
        for p, e in zip(dev_out, expected):
            got = np.empty_like(e)
            rt.ttCudaCopyToHost(got.ctypes.data, p, got.nbytes)
            scale = max(float(np.abs(e).max()), 1.0)
            err = float(np.abs(got.astype(np.float64) - e).max())
            error = max(error, err / scale)
            ok &= bool(np.isfinite(got).all()) and err <= case.rtol * scale
        seconds = timed(lambda: fn(*pointers), rt.ttCudaSynchronize,
                        args.repeat)
        check(rt, f"{case.name}: timing")
        rate = (f"{case.flops / seconds / 1e9:.0f} GFLOP/s" if case.flops else
                f"{case.bytes / seconds / 1e9:.0f} GB/s")
        torch_s = torch_time(case, inputs, args.repeat)
        print(f"{case.name:22} {error:9.2e} {'yes' if ok else 'NO':>3} "
              f"{seconds * 1e3:9.3f} {rate:>14} "
              f"{'' if torch_s is None else f'{torch_s * 1e3:9.3f}'}")
        results["cases"].append({"name": case.name, "max_rel_error": error,
                                 "ok": ok, "ms": seconds * 1e3,
                                 "rate": rate, "torch_ms": None if torch_s
                                 is None else torch_s * 1e3})
        failures += not ok
        for p in dev_in + dev_out:
            rt.ttCudaFree(p)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print(f"{failures} case(s) failed" if failures else "all cases correct")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
