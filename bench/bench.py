"""TinyTensor against NumPy, JAX, PyTorch, torch.compile, Numba and IREE.

Run it in the benchmark environment (scripts/setup-bench.sh), with OpenBLAS'
kernel overrides removed from the environment, as bench/run.sh does:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        .venv-bench/bin/python bench/bench.py [--quick] [--filter REGEX] \\
        [--json out.json]

(OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE force NumPy's OpenBLAS onto another
kernel or cache size; the script unsets nothing itself and warns when either
is set.)

Every case runs on every framework that has an implementation of it, in the
same process: the output is first checked against NumPy (normalised max
error max|out - ref| / max|ref|; "WRONG" in the table when it is too large,
or when the shape or dtype differ). Then every framework of the case is
timed in --rounds rounds (default 3), taking turns: in each round each
framework is warmed up and called for about --seconds / rounds (1 s in all,
0.2 s with --quick), so that a change in the machine's speed during the
case (on a shared VM host, memory-bound code can slow down by 2x for
minutes) hits every framework alike. The table shows the median of all
timed calls and CPU/wall = CPU seconds of the whole process (all threads)
per wall second over them. "x numpy" is NumPy's
median / that median (> 1 is faster than NumPy). "first call" is the wall
time of the first call of a fresh compiled function (trace/lower/compile +
run); for IREE it includes lowering with JAX and iree-compile; torch.compile
gets an empty inductor cache directory (unless TORCHINDUCTOR_CACHE_DIR is
set) and TinyTensor an empty compile cache (unless TT_CACHE_DIR is set), so
their first calls are cold like everybody else's.

Thread counts are left at every framework's default (TinyTensor reads
TT_NUM_THREADS) and printed. A framework that is not installed, or that
fails for a case, is shown as "-" with the reason in a footnote. The exit
status is 1 when some result is WRONG, else 0.

Frameworks: numpy, tinytensor (`jit(numpy_function)`, as a user would),
tinytensor-freeze (`jit(numpy_function, freeze=True)`, GPT-2 only: its
weights, read from the closure, as constants), jax (`jax.jit`), torch (eager), torch.compile (default inductor), numba
(`njit(parallel=True, fastmath=True)`), iree (StableHLO from jax, llvm-cpu
for the host CPU, local-task driver).
"""

import argparse
import datetime
import functools
import gc
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

# Optional peers: a missing one is shown as "-", with this reason.
IMPORT_ERRORS = {}


def _import_error(name, e):
    IMPORT_ERRORS[name] = f"not available ({type(e).__name__}: {e})"


try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001
    torch = F = None
    _import_error("torch", e)
try:
    import jax
    import jax.numpy as jnp
except Exception as e:  # noqa: BLE001
    jax = jnp = None
    _import_error("jax", e)
try:
    import numba
    from numba import prange
except Exception as e:  # noqa: BLE001
    numba = None
    prange = range
    _import_error("numba", e)

f32 = np.float32
GELU_C = math.sqrt(2 / math.pi)  # a Python float: keeps float32 float32


def rng():
    return np.random.default_rng(0)


# =============================================================================
# Cases
# =============================================================================

@dataclass
class Case:
    """One workload. Every implementation takes the arrays from `inputs()`.

    numpy: the reference; TinyTensor compiles exactly this function.
    jax:   jax.numpy version (jax.jit; lowered to StableHLO for IREE).
    torch: torch version (eager and torch.compile).
    numba: plain Python loops; the adapter applies njit(parallel, fastmath).
    jax_weights: extra trailing arguments (pytrees of arrays) for jax/iree
        only: JAX compiles arrays a function closes over in as constants,
        the other frameworks read them from the closure.
    """
    name: str
    inputs: Callable[[], tuple]
    numpy: Callable
    jax: Optional[Callable] = None
    torch: Optional[Callable] = None
    numba: Optional[Callable] = None
    jax_weights: Optional[Callable[[], tuple]] = None
    flops: float = 0.0     # per call: rate column in GFLOP/s
    bytes: float = 0.0     # per call (read + written): rate column in GB/s
    tol: float = 1e-4      # normalised max error allowed
    numpy_only: bool = False  # a reference row (the copy floor)
    # The numpy function reads weights from its closure that do not change
    # between calls: tinytensor-freeze (jit(freeze=True)) runs it too.
    constant_weights: bool = False


def gelu(x):
    return 0.5 * x * (1 + np.tanh(GELU_C * (x + 0.044715 * x**3)))


def matmul_case(n):
    def inputs():
        r = rng()
        return (r.standard_normal((n, n), dtype=f32),
                r.standard_normal((n, n), dtype=f32))

    def numba_matmul(a, b):
        return np.dot(a, b)

    return Case(f"matmul {n}x{n}x{n}", inputs,
                numpy=lambda a, b: a @ b,
                jax=lambda a, b: a @ b,
                torch=lambda a, b: a @ b,
                numba=numba_matmul,
                flops=2.0 * n**3)


def linear_gelu_case(m=1024, k=768, n=3072):
    def inputs():
        r = rng()
        return (r.standard_normal((m, k), dtype=f32),
                r.standard_normal((k, n), dtype=f32) * f32(0.02),
                r.standard_normal(n, dtype=f32) * f32(0.02))

    def numba_linear_gelu(x, w, b):
        y = np.dot(x, w)
        for i in prange(y.shape[0]):
            for j in range(y.shape[1]):
                v = y[i, j] + b[j]
                y[i, j] = 0.5 * v * (
                    1 + np.tanh(GELU_C * (v + 0.044715 * v**3)))
        return y

    return Case(f"linear+gelu {m}x{k}x{n}", inputs,
                numpy=lambda x, w, b: gelu(x @ w + b),
                jax=lambda x, w, b: jax.nn.gelu(x @ w + b, approximate=True),
                torch=lambda x, w, b: F.gelu(F.linear(x, w.T, b),
                                             approximate="tanh"),
                numba=numba_linear_gelu,
                flops=2.0 * m * k * n)


def layer_norm_case(m=4096, n=768):
    def inputs():
        r = rng()
        return (r.standard_normal((m, n), dtype=f32),
                1 + r.standard_normal(n, dtype=f32) * f32(0.1),
                r.standard_normal(n, dtype=f32) * f32(0.1))

    def numpy_layer_norm(x, g, b):  # as in examples/gpt2.py
        mean = np.mean(x, axis=-1, keepdims=True)
        variance = np.var(x, axis=-1, keepdims=True)
        return g * ((x - mean) / np.sqrt(variance + 1e-5)) + b

    def jax_layer_norm(x, g, b):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        variance = jnp.var(x, axis=-1, keepdims=True)
        return g * ((x - mean) / jnp.sqrt(variance + 1e-5)) + b

    def numba_layer_norm(x, g, b):
        rows, cols = x.shape
        out = np.empty_like(x)
        for i in prange(rows):
            total = 0.0
            for j in range(cols):
                total += x[i, j]
            mean = total / cols
            total = 0.0
            for j in range(cols):
                total += (x[i, j] - mean) ** 2
            inv = 1 / np.sqrt(total / cols + 1e-5)
            for j in range(cols):
                out[i, j] = g[j] * ((x[i, j] - mean) * inv) + b[j]
        return out

    return Case(f"layer_norm {m}x{n}", inputs,
                numpy=numpy_layer_norm, jax=jax_layer_norm,
                torch=lambda x, g, b: F.layer_norm(x, x.shape[-1:], g, b,
                                                   eps=1e-5),
                numba=numba_layer_norm,
                bytes=2.0 * m * n * 4)


def softmax_case(m=1024, n=1024):
    def numpy_softmax(x):  # as in examples/gpt2.py
        exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
        return exp_x / np.sum(exp_x, axis=-1, keepdims=True)

    def numba_softmax(x):
        rows, cols = x.shape
        out = np.empty_like(x)
        for i in prange(rows):
            top = x[i, 0]
            for j in range(cols):
                top = max(top, x[i, j])
            total = 0.0
            for j in range(cols):
                out[i, j] = np.exp(x[i, j] - top)
                total += out[i, j]
            for j in range(cols):
                out[i, j] /= total
        return out

    return Case(f"softmax {m}x{n}",
                lambda: (rng().standard_normal((m, n), dtype=f32),),
                numpy=numpy_softmax,
                jax=lambda x: jax.nn.softmax(x, axis=-1),
                torch=lambda x: F.softmax(x, dim=-1),
                numba=numba_softmax,
                bytes=2.0 * m * n * 4)


GELU_N = 4 * 1024 * 1024


def gelu_case(n=GELU_N):
    def numba_gelu(x):
        out = np.empty_like(x)
        for i in prange(x.size):
            v = x[i]
            out[i] = 0.5 * v * (1 + np.tanh(GELU_C * (v + 0.044715 * v**3)))
        return out

    return Case(f"gelu {n // 2**20}M",
                lambda: (rng().standard_normal(n, dtype=f32),),
                numpy=gelu,
                jax=lambda x: jax.nn.gelu(x, approximate=True),
                torch=lambda x: F.gelu(x, approximate="tanh"),
                numba=numba_gelu,
                bytes=2.0 * n * 4)


def copy_floor_case(n=GELU_N):
    """The memory-bandwidth floor of an elementwise op on the same bytes."""
    out = np.empty(n, dtype=f32)

    def copy(x):
        np.copyto(out, x)
        return out

    return Case(f"copy {n // 2**20}M (floor)",
                lambda: (rng().standard_normal(n, dtype=f32),),
                numpy=copy, bytes=2.0 * n * 4, numpy_only=True)


def dispatch_case():
    def numba_scale_bias(x, b):
        out = np.empty_like(x)
        for i in prange(x.size):
            out[i] = x[i] * 2.0 + b[i]
        return out

    def scale_bias(x, b):
        return x * 2.0 + b

    return Case("dispatch x*2+b [8]",
                lambda: (np.arange(8, dtype=f32), np.ones(8, dtype=f32)),
                numpy=scale_bias, jax=scale_bias, torch=scale_bias,
                numba=numba_scale_bias)


# --- GPT-2 -------------------------------------------------------------------

def _load_gpt2(module_name):
    """A fresh instance of examples/gpt2.py (unmodified source)."""
    spec = importlib.util.spec_from_file_location(
        module_name, ROOT / "examples" / "gpt2.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# (a) examples/gpt2.py as it is: NumPy 2 promotion makes it float64, since
#     np.sqrt(...) returns float64 scalars (in attention's 1/sqrt(head size)
#     as well as in gelu), which are not "weak" like Python floats.
GPT2 = _load_gpt2("gpt2")
# (b) the same model with those two constants as Python floats: float32
#     throughout, like the float32 peers.
GPT2_F32 = _load_gpt2("gpt2_f32")
GPT2_F32.gelu = gelu
GPT2_F32.attention = lambda q, k, v, mask: GPT2_F32.softmax(
    q @ k.T / math.sqrt(q.shape[-1]) + mask) @ v


@functools.lru_cache(maxsize=None)
def gpt2_params(config):
    """Random GPT-2 weights (float32, shared by every GPT-2 case)."""
    cfg = dict(GPT2.CONFIGS[config])
    del cfg["n_head"]
    return GPT2.random_params(**cfg)


def torch_gpt2(ids, p, n_head):
    """GPT-2 with the natural torch ops, on the same (in, out) weights."""
    def linear(x, w, b):
        return torch.addmm(b, x, w)

    def layer_norm(x, g, b):
        return F.layer_norm(x, x.shape[-1:], g, b, eps=1e-5)

    tokens, embd = ids.shape[0], p["wte"].shape[1]
    x = F.embedding(ids, p["wte"]) + p["wpe"][:tokens]
    for block in p["blocks"]:
        attn, mlp = block["attn"], block["mlp"]
        h = linear(layer_norm(x, **block["ln_1"]), **attn["c_attn"])
        q, k, v = (t.view(tokens, n_head, -1).transpose(0, 1)
                   for t in h.split(embd, dim=-1))
        h = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + linear(h.transpose(0, 1).reshape(tokens, embd),
                       **attn["c_proj"])
        h = F.gelu(linear(layer_norm(x, **block["ln_2"]), **mlp["c_fc"]),
                   approximate="tanh")
        x = x + linear(h, **mlp["c_proj"])
    return layer_norm(x, **p["ln_f"]) @ p["wte"].T


def jax_gpt2(inputs, params, n_head):
    """examples/gpt2.py written with jax.numpy (float32 constants). JAX
    rejects wpe[range(n)], hence wpe[:n]."""
    def gelu(x):
        return 0.5 * x * (1 + jnp.tanh(GELU_C * (x + 0.044715 * x**3)))

    def softmax(x):
        exp_x = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
        return exp_x / jnp.sum(exp_x, axis=-1, keepdims=True)

    def layer_norm(x, g, b, eps=1e-5):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        variance = jnp.var(x, axis=-1, keepdims=True)
        return g * ((x - mean) / jnp.sqrt(variance + eps)) + b

    def linear(x, w, b):
        return x @ w + b

    def attention(q, k, v, mask):
        return softmax(q @ k.T / math.sqrt(q.shape[-1]) + mask) @ v

    def mha(x, c_attn, c_proj):
        x = linear(x, **c_attn)
        qkv = jnp.split(x, 3, axis=-1)
        heads = [jnp.split(t, n_head, axis=-1) for t in qkv]
        mask = (1 - jnp.tri(x.shape[0], dtype=x.dtype)) * -1e10
        x = jnp.hstack([attention(q, k, v, mask) for q, k, v in zip(*heads)])
        return linear(x, **c_proj)

    x = params["wte"][inputs] + params["wpe"][:len(inputs)]
    for block in params["blocks"]:
        x = x + mha(layer_norm(x, **block["ln_1"]), **block["attn"])
        mlp = block["mlp"]
        h = gelu(linear(layer_norm(x, **block["ln_2"]), **mlp["c_fc"]))
        x = x + linear(h, **mlp["c_proj"])
    return layer_norm(x, **params["ln_f"]) @ params["wte"].T


def gpt2_case(config, tokens, float64):
    # The weights, read from the closure as in examples/gpt2.py (TinyTensor
    # turns closure arrays into arguments). inputs() fills them, so that they
    # are only built when a GPT-2 case runs.
    weights, torch_weights = {}, {}

    def inputs():
        weights.update(gpt2_params(config))
        if torch is not None:
            torch_weights.update(_tree_map(torch.from_numpy, weights))
        n_vocab = GPT2.CONFIGS[config]["n_vocab"]
        return (np.random.default_rng(1).integers(0, n_vocab, tokens)
                .astype(np.int32),)

    shape = GPT2.CONFIGS[config]
    n_head, embd = shape["n_head"], shape["n_embd"]
    # Matmul FLOPs: per layer and token 2 x 12 E^2 (qkv, proj, fc, fc_proj)
    # and 4 T E (q k^T, attention @ v); 2 E V for the logits.
    per_layer = 12 * embd**2 + 2 * tokens * embd
    flops = 2.0 * tokens * (shape["n_layer"] * per_layer
                            + embd * shape["n_vocab"])
    if float64:
        return Case(f"gpt2-{config} f64 T={tokens}", inputs,
                    numpy=lambda ids: GPT2.gpt2(ids, **weights, n_head=n_head),
                    flops=flops, tol=1e-3, constant_weights=True)

    return Case(f"gpt2-{config} f32 T={tokens}", inputs,
                numpy=lambda ids: GPT2_F32.gpt2(ids, **weights, n_head=n_head),
                jax=lambda ids, p: jax_gpt2(ids, p, n_head),
                jax_weights=lambda: (weights,),
                torch=lambda ids: torch_gpt2(ids, torch_weights, n_head),
                flops=flops, tol=1e-3, constant_weights=True)


def _tree_map(fn, tree):
    if isinstance(tree, dict):
        return {k: _tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_tree_map(fn, v) for v in tree)
    return fn(tree)


def cases(gpt2_config):
    yield from (matmul_case(256), matmul_case(1024), matmul_case(2048),
                linear_gelu_case(), layer_norm_case(), softmax_case(),
                gelu_case(), copy_floor_case(), dispatch_case())
    if gpt2_config:
        for float64 in (True, False):
            for tokens in (16, 64):
                yield gpt2_case(gpt2_config, tokens, float64)


# =============================================================================
# Framework adapters: build(fn, args) compiles/prepares `fn` for `args` (NumPy
# arrays, or pytrees of them for jax_weights) and returns a zero-argument call
# that runs it to completion and returns its output.
# =============================================================================

class Unavailable(Exception):
    """Raised by Framework.setup: the reason the framework cannot run."""


class Framework:
    name = ""
    style = "numpy"     # which implementation of a case it runs
    compiles = True     # whether "first call" is a compile time
    packages = ()       # distributions whose versions are recorded

    def setup(self):
        """Imports; raises if the framework cannot be used at all."""

    def build(self, fn, args):
        return lambda: fn(*args)

    def to_numpy(self, out):
        return np.asarray(out)

    def threads(self):
        return None

    def close(self):
        """Releases what setup() holds, before the interpreter exits."""


class NumPy(Framework):
    name, compiles, packages = "numpy", False, ("numpy",)

    def threads(self):
        blas = numpy_blas()
        return blas and f"OpenBLAS {blas.get('num_threads')} threads"


class TinyTensor(Framework):
    name = "tinytensor"

    def setup(self):
        # Cold compiles, like every other framework's first call: an empty
        # compile cache unless TT_CACHE_DIR is set.
        if not os.environ.get("TT_CACHE_DIR"):
            os.environ["TT_CACHE_DIR"] = tempfile.mkdtemp(
                prefix="tt-bench-cache-")
        from tinytensor import jit
        self.jit = jit

    def build(self, fn, args):
        compiled = self.jit(fn)
        return lambda: compiled(*args)

    def threads(self):
        return f"TT_NUM_THREADS={os.environ.get('TT_NUM_THREADS', 'unset')}"


class TinyTensorFreeze(TinyTensor):
    """jit(fn, freeze=True): the closure's arrays are constants, and the
    matmul weights among them are packed once (cases with
    constant_weights only)."""
    name = "tinytensor-freeze"
    needs_constant_weights = True

    def build(self, fn, args):
        compiled = self.jit(fn, freeze=True)
        return lambda: compiled(*args)


class Jax(Framework):
    name, style, packages = "jax", "jax", ("jax", "jaxlib")

    def setup(self):
        if jax is None:
            raise Unavailable(IMPORT_ERRORS["jax"])

    def build(self, fn, args):
        compiled = jax.jit(fn)
        device_args = [jax.device_put(a) for a in args]
        return lambda: jax.block_until_ready(compiled(*device_args))

    def threads(self):
        return f"XLA_FLAGS={os.environ.get('XLA_FLAGS', 'unset')}"


class Torch(Framework):
    name, style, compiles, packages = "torch", "torch", False, ("torch",)

    def setup(self):
        if torch is None:
            raise Unavailable(IMPORT_ERRORS["torch"])

    def build(self, fn, args):
        torch_args = [torch.from_numpy(a) for a in args]
        fn = self.wrap(fn)
        return lambda: fn(*torch_args)

    def wrap(self, fn):
        return fn

    def to_numpy(self, out):
        return out.detach().numpy()

    def threads(self):
        return (f"{torch.get_num_threads()} intra-op, "
                f"{torch.get_num_interop_threads()} inter-op threads")


class TorchCompile(Torch):
    name, compiles = "torch.compile", True

    def setup(self):
        super().setup()
        # Cold compiles, like every other framework's first call: inductor
        # caches compiled kernels on disk across runs.
        self.cache_dir = None
        if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
            self.cache_dir = tempfile.mkdtemp(prefix="bench-inductor-")
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = self.cache_dir

    def close(self):
        if self.cache_dir:
            shutil.rmtree(self.cache_dir, ignore_errors=True)

    def wrap(self, fn):
        torch._dynamo.reset()  # each case compiles afresh, static shapes
        return torch.compile(fn)

    def threads(self):
        return None


class Numba(Framework):
    name, style, packages = "numba", "numba", ("numba", "llvmlite")

    def setup(self):
        if numba is None:
            raise Unavailable(IMPORT_ERRORS["numba"])
        # e.g. "parallel=True but no transformation possible" for np.dot
        warnings.simplefilter("ignore", numba.NumbaPerformanceWarning)

    def build(self, fn, args):
        compiled = numba.njit(parallel=True, fastmath=True)(fn)
        return lambda: compiled(*args)

    def threads(self):
        try:
            layer = numba.threading_layer()
        except ValueError:  # no parallel function has run yet
            layer = "not chosen yet"
        return (f"NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}, "
                f"threading layer {layer}")


class Iree(Framework):
    name, style = "iree", "jax"
    packages = ("iree-base-compiler", "iree-base-runtime")
    FLAGS = ["--iree-llvmcpu-target-cpu=host"]
    # iree.compiler cannot be imported next to TinyTensor: both ship MLIR
    # Python bindings with the same sonames (libMLIRPythonSupport-mlir.so,
    # libnanobind-mlir.so), and whichever loads second gets the first one's
    # libraries. So compile_str runs in a child process; iree.runtime has no
    # MLIR and is used here.
    COMPILE = ("import sys, iree.compiler as c; sys.stdout.buffer.write("
               "c.compile_str(sys.stdin.read(), input_type='stablehlo', "
               "target_backends=['llvm-cpu'], extra_args=sys.argv[1:]))")

    def setup(self):
        if jax is None:
            raise Unavailable("needs jax to produce StableHLO: "
                              + IMPORT_ERRORS["jax"])
        if importlib.util.find_spec("iree.compiler") is None:
            raise Unavailable("not available (no module iree.compiler)")
        import iree.runtime
        self.runtime = iree.runtime
        self.config = iree.runtime.Config("local-task")

    def build(self, fn, args):
        rt = self.runtime
        stablehlo = jax.jit(fn).lower(*args).as_text()
        compiled = subprocess.run([sys.executable, "-c", self.COMPILE,
                                   *self.FLAGS], input=stablehlo.encode(),
                                  capture_output=True)
        if compiled.returncode:
            raise RuntimeError("iree compile_str failed: "
                               + compiled.stderr.decode(errors="replace"))
        context = rt.SystemContext(config=self.config)
        module = rt.VmModule.copy_buffer(context.instance, compiled.stdout)
        context.add_vm_module(module)
        main = context.modules[module.name]["main"]
        device_args = [rt.asdevicearray(self.config.device, np.asarray(a))
                       for a in jax.tree_util.tree_leaves(args)]
        return lambda: main(*device_args)

    def to_numpy(self, out):
        return out.to_host()

    def close(self):
        # Without this, nanobind lists every iree.runtime object still
        # alive at exit as "leaked".
        self.config = None
        gc.collect()


FRAMEWORKS = [NumPy(), TinyTensor(), TinyTensorFreeze(), Jax(), Torch(), TorchCompile(), Numba(),
              Iree()]


# =============================================================================
# Measuring
# =============================================================================

def measure(run, seconds, min_runs, max_runs=200_000):
    """Times one slice: N calls after a warm-up; returns the sorted call
    times, the CPU seconds and the wall seconds of the timed calls.

    Warm-up: at least 2 calls (1 if a call takes over a quarter of
    `seconds`) and 10% of `seconds`; the fastest sets N. A full garbage
    collection first (compilers leave many objects behind), and none during
    the timed calls."""
    gc.collect()
    warmup = []
    while (len(warmup) < 2 and sum(warmup) < 0.25 * seconds
           or sum(warmup) < 0.1 * seconds):
        t0 = time.perf_counter()
        run()
        warmup.append(time.perf_counter() - t0)
    per_call = max(min(warmup), 1e-9)
    runs = max(min_runs, min(max_runs, int(seconds / per_call)))
    times = [0.0] * runs
    gc.collect()
    gc.disable()
    try:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for i in range(runs):
            t0 = time.perf_counter()
            run()
            times[i] = time.perf_counter() - t0
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        gc.enable()
    return times, cpu, wall


def summarize(times, cpu, wall):
    """The statistics of all timed calls of one (case, framework)."""
    times = sorted(times)
    runs = len(times)
    return {"median_s": statistics.median(times), "min_s": times[0],
            "p10_s": times[runs // 10], "p90_s": times[(9 * runs) // 10],
            "max_s": times[-1], "mean_s": statistics.fmean(times),
            "runs": runs, "cpu_per_wall": cpu / wall}


def check(out, ref, tol):
    """(ok, error, message): normalised max error against NumPy."""
    if out.shape != ref.shape:
        return False, None, f"shape {out.shape} != {ref.shape}"
    if out.dtype != ref.dtype:
        return False, None, f"dtype {out.dtype} != {ref.dtype}"
    diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    scale = max(float(np.max(np.abs(ref), initial=0)), 1e-30)
    error = float(np.max(diff, initial=0)) / scale
    if not math.isfinite(error) or error > tol:
        return False, error, (f"max error {error:.2e} of max|ref| "
                              f"(tol {tol:.0e})")
    return True, error, "ok"


def short_reason(e):
    """One line for a footnote: the exception and its most telling line."""
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    telling = [l for l in lines if "error" in l.lower()]
    text = (telling or lines or [""])[0]
    return f"{type(e).__name__}: {text[:240]}"


def implementation(case, fw):
    if case.numpy_only and fw.name != "numpy":
        return None
    if getattr(fw, "needs_constant_weights", False) and \
            not case.constant_weights:
        return None
    return getattr(case, fw.style)


def build_case(case, fw, ref, inputs):
    """Builds and checks one (case, framework): the record, and the call to
    time (None when it failed)."""
    record = {"case": case.name, "framework": fw.name}
    fn = implementation(case, fw)
    call_args = inputs
    if fw.style == "jax" and case.jax_weights:
        call_args = inputs + case.jax_weights()
    try:
        t0 = time.perf_counter()
        run = fw.build(fn, call_args)
        out = run()
        record["first_call_s"] = time.perf_counter() - t0
        out = fw.to_numpy(out)
    except Exception as e:  # noqa: BLE001
        record.update(status="failed", reason=short_reason(e))
        return record, None
    ok, error, message = check(out, ref, case.tol)
    record.update(status="ok" if ok else "wrong", error=error,
                  check=message, output_dtype=str(out.dtype))
    return record, run


def time_case(case, built, args):
    """Times every built framework of a case in `args.rounds` rounds, each
    framework for `args.seconds / rounds` per round, one after the other:
    when the machine's speed drifts (other guests of a VM host share its
    memory bandwidth and caches), every framework sees the drift alike.
    The statistics are over the calls of all rounds."""
    slices = {name: ([], 0.0, 0.0) for name, (record, run) in built.items()
              if run is not None}
    min_runs = max(1, math.ceil(args.min_runs / args.rounds))
    for _ in range(args.rounds):
        for name in slices:
            record, run = built[name]
            try:
                times, cpu, wall = measure(run, args.seconds / args.rounds,
                                           min_runs)
            except Exception as e:  # noqa: BLE001
                record.update(status="failed", reason=short_reason(e))
                built[name] = (record, None)
                continue
            old = slices[name]
            slices[name] = (old[0] + times, old[1] + cpu, old[2] + wall)
            time.sleep(args.pause)
    for name, (times, cpu, wall) in slices.items():
        record, run = built[name]
        if run is None or not times:
            continue
        record.update(summarize(times, cpu, wall))
        median = record["median_s"]
        if case.flops:
            record["gflops"] = case.flops / median / 1e9
        if case.bytes:
            record["gbytes_per_s"] = case.bytes / median / 1e9


# =============================================================================
# Reporting
# =============================================================================

class Table:
    COLUMNS = (("case", 26), ("framework", 17), ("median ms", 10),
               ("x numpy", 8), ("cpu/wall", 8), ("rate", 15), ("runs", 7),
               ("first call", 10), ("check", 0))

    def __init__(self):
        self.notes = []  # footnote texts; a cell refers to its number

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)
        return f"[{self.notes.index(text) + 1}]"

    @staticmethod
    def line(cells):
        return " ".join(f"{c:>{w}}" if 2 <= i < len(cells) - 1 else
                        f"{c:<{w}}" for i, (c, (_, w)) in enumerate(
                            zip(cells, Table.COLUMNS))).rstrip()

    def header(self):
        print(self.line([c for c, _ in self.COLUMNS]))
        print("-" * 118)

    def row(self, case_label, r, compiles):
        name = r["framework"]
        if r["status"] in ("failed", "unavailable"):
            print(self.line([case_label, name, "-", "", "", "", "", "",
                             self.note(f"{name}: {r['reason']}")]), flush=True)
            return
        rate = ""
        if "gflops" in r:
            rate = f"{r['gflops']:.1f} GFLOP/s"
        elif "gbytes_per_s" in r:
            rate = f"{r['gbytes_per_s']:.1f} GB/s"
        check = "ok" if r["status"] == "ok" else "WRONG " + self.note(
            f"{name}, {r['case']}: {r['check']}")
        first = f"{r['first_call_s']:.2f}s" if compiles else ""
        print(self.line([case_label, name, format_ms(r["median_s"]),
                         f"{r['x_numpy']:.2f}" if "x_numpy" in r else "",
                         f"{r['cpu_per_wall']:.2f}", rate, str(r["runs"]),
                         first, check]), flush=True)

    def footnotes(self):
        for i, text in enumerate(self.notes, 1):
            print(f"[{i}] {text}")


def format_ms(seconds):
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 1000 else f"{ms:.4g}"


def numpy_blas():
    """threadpoolctl's record of NumPy's own OpenBLAS (kernel, threads)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    mine = [i for i in blas if "numpy" in i.get("filepath", "")]
    return (mine or blas or [None])[0]


def machine_info():
    model, flags = None, []
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model is None:
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = value.split()
    mem = None
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    isa = sorted(f for f in flags if f.startswith(("avx512", "amx")))
    return {"cpu": model, "cores": len(os.sched_getaffinity(0)),
            "cpu_count": os.cpu_count(), "memory_bytes": mem,
            "avx512": any(f.startswith("avx512") for f in isa),
            "amx": any(f.startswith("amx") for f in isa), "isa_flags": isa,
            "platform": platform.platform(), "python": sys.version.split()[0]}


def versions():
    out = {}
    for fw in FRAMEWORKS:
        for dist in fw.packages:
            try:
                out[dist] = importlib.metadata.version(dist)
            except importlib.metadata.PackageNotFoundError:
                out[dist] = None
    try:
        out["threadpoolctl"] = importlib.metadata.version("threadpoolctl")
    except importlib.metadata.PackageNotFoundError:
        out["threadpoolctl"] = None
    return out


def git_info():
    def git(*argv):
        return subprocess.run(["git", "-C", str(ROOT), *argv], text=True,
                              capture_output=True, check=True).stdout.strip()
    try:
        return {"commit": git("rev-parse", "HEAD"),
                "dirty": bool(git("status", "--porcelain",
                                  "--untracked-files=no"))}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}


def thread_settings(available):
    return {fw.name: fw.threads() for fw in FRAMEWORKS
            if fw.name in available and fw.threads()}


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Run as: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "
               ".venv-bench/bin/python bench/bench.py (bench/run.sh)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer and shorter timed runs; no GPT-2")
    parser.add_argument("--filter", default="",
                        help="only cases whose name matches this regex")
    parser.add_argument("--frameworks", default="",
                        help="comma-separated subset of: " + ",".join(
                            fw.name for fw in FRAMEWORKS) +
                        " (numpy always runs: it is the reference)")
    parser.add_argument("--json", help="write all results to this file")
    parser.add_argument("--seconds", type=float,
                        help="timed seconds per measurement "
                             "(default 1, 0.2 with --quick)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="timing rounds per case: each framework is "
                             "timed for seconds / rounds per round, the "
                             "frameworks taking turns, so that a drift in "
                             "the machine's speed hits all alike (default 3; "
                             "1: each framework once, one after the other)")
    parser.add_argument("--gpt2", choices=["124m", "small", "none"],
                        help="GPT-2 shapes (default 124m, none with --quick)")
    parser.add_argument("--pause", type=float, default=0.2,
                        help="seconds idle between measurements, so that "
                             "spinning worker threads of one framework do "
                             "not run into the next (default 0.2)")
    args = parser.parse_args()
    args.seconds = args.seconds or (0.2 if args.quick else 1.0)
    args.min_runs = 3 if args.quick else 5
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    gpt2_config = args.gpt2 or ("none" if args.quick else "124m")
    gpt2_config = None if gpt2_config == "none" else gpt2_config

    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if var in os.environ:
            print(f"WARNING: {var}={os.environ[var]} is set: it overrides "
                  f"NumPy's OpenBLAS kernel choice. Run as bench/run.sh does: "
                  f"env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "
                  f".venv-bench/bin/python bench/bench.py", flush=True)

    env = {k: os.environ.get(k) for k in (
        "TT_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
        "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
        "NUMBA_NUM_THREADS", "XLA_FLAGS", "TORCHINDUCTOR_CACHE_DIR")}
    wanted = {n.strip() for n in args.frameworks.split(",") if n.strip()}
    unknown = wanted - {fw.name for fw in FRAMEWORKS}
    if unknown:
        parser.error(f"unknown frameworks: {', '.join(sorted(unknown))}")
    frameworks = [fw for fw in FRAMEWORKS
                  if not wanted or fw.name in wanted or fw.name == "numpy"]

    unavailable = {}
    for fw in frameworks:
        try:
            fw.setup()
        except Unavailable as e:
            unavailable[fw.name] = str(e)
        except Exception as e:  # noqa: BLE001 e.g. TinyTensor mid-rebuild
            unavailable[fw.name] = f"not available ({short_reason(e)})"
    available = [fw.name for fw in frameworks if fw.name not in unavailable]

    machine, vers, git = machine_info(), versions(), git_info()
    blas = numpy_blas() or {}
    print(f"machine: {machine['cpu']}, {machine['cores']} cores, "
          f"AVX-512 {'yes' if machine['avx512'] else 'no'}, "
          f"AMX {'yes' if machine['amx'] else 'no'}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in vers.items() if v))
    print(f"git: {git['commit']}{' (dirty)' if git['dirty'] else ''}")
    print(f"NumPy OpenBLAS: {blas.get('version')}, kernel "
          f"{blas.get('architecture')}, {blas.get('num_threads')} threads, "
          f"{blas.get('threading_layer')}")
    print("threads (defaults, not set here): " + "; ".join(
        f"{k}: {v}" for k, v in thread_settings(available).items()))
    print(f"timing: median of N calls, ~{args.seconds:g} s per measurement "
          f"in {args.rounds} interleaved round(s), N >= {args.min_runs}\n",
          flush=True)

    table = Table()
    table.header()
    records = []
    for case in cases(gpt2_config):
        if args.filter and not re.search(args.filter, case.name, re.I):
            continue
        inputs = case.inputs()
        ref = np.asarray(case.numpy(*inputs))
        built = {}
        for fw in frameworks:
            if implementation(case, fw) is None:
                continue
            if fw.name in unavailable:
                built[fw.name] = ({"case": case.name, "framework": fw.name,
                                   "status": "unavailable",
                                   "reason": unavailable[fw.name]}, None)
            else:
                built[fw.name] = build_case(case, fw, ref, inputs)
        time_case(case, built, args)
        numpy_record = built.get("numpy", ({}, None))[0]
        numpy_median = numpy_record.get("median_s")
        label = case.name
        for fw in frameworks:
            if fw.name not in built:
                continue
            record = built[fw.name][0]
            if numpy_median and "median_s" in record:
                record["x_numpy"] = numpy_median / record["median_s"]
            table.row(label, record, fw.compiles)
            label = ""
            records.append(record)
        print()

    wrong = [r for r in records if r["status"] == "wrong"]
    table.footnotes()
    if wrong:
        print("\n*** WRONG RESULTS: " + "; ".join(
            f"{r['framework']} on {r['case']} ({r['check']})" for r in wrong))
    threads = thread_settings(available)  # numba's layer is known by now
    if "numba" in threads:
        print(f"numba: {threads['numba']}")

    if args.json:
        try:
            from threadpoolctl import threadpool_info
            pools = threadpool_info()
        except ImportError:
            pools = None
        report = {
            "date": datetime.datetime.now().astimezone().isoformat(),
            "args": vars(args), "gpt2_config": gpt2_config,
            "machine": machine, "versions": vers, "git": git,
            "numpy_openblas": blas, "threadpools": pools, "threads": threads,
            "env": env,
            "unavailable": unavailable, "results": records,
            "footnotes": table.notes,
        }
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"wrote {args.json}")

    for fw in frameworks:
        if fw.name not in unavailable:
            fw.close()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
