#!/usr/bin/env python3
"""Runs torch-mlir's end-to-end test suite through TinyTensor's PyTorch
front end and reports what passes, by failure stage, next to what
torch-mlir's own FX importer + linalg backend passes by its xfail sets.

    .venv/bin/python scripts/torch-mlir-e2e.py PATH_TO_TORCH_MLIR_CHECKOUT
    .venv/bin/python scripts/torch-mlir-e2e.py PATH --filter 'Softmax|Conv'
    .venv/bin/python scripts/torch-mlir-e2e.py PATH --timeout 60 --json run.json

The suite is not ours: it is read from a checkout of llvm/torch-mlir (its
`projects/pt1/python/torch_mlir_e2e_test` package: `framework`, `registry`,
`reporting`, `test_suite`; and `projects/pt1/e2e_testing/xfail_sets.py`),
never copied here. torch-mlir itself need not be built: the few names the
suite takes from the `torch_mlir` package (`torch_mlir._version`) and the
`multiprocess` package are provided by this script when missing.

Each test is compiled with `tinytensor.torch.jit` (every call of the test's
trace is run compiled) and checked with the suite's own comparison
(`reporting.SingleTestReport`). Tests run in a worker process, one at a
time; a worker is killed when a test exceeds `--timeout` seconds (a signal
cannot interrupt a compile in C++) or dies, and a new worker takes the next
test. Outcomes:

  pass        the trace matches eager PyTorch
  mismatch    it runs but a result differs (value, dtype or shape)
  unsupported tinytensor.torch refused an op (UnsupportedOpError)
  refused     another clear refusal (TypeError / ValueError from the front end)
  compile     the compiler failed (CompilationError)
  error       any other exception (while tracing the golden run, compiling
              or running)
  timeout     past --timeout: the worker was killed
  crash       the worker died

The summary gives the counts, how many of the selected tests torch-mlir
passes (those not in FX_IMPORTER_XFAIL_SET | FX_IMPORTER_CRASHING_SET), and
the tests it passes that TinyTensor fails, grouped by outcome and first
error line.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import re
import subprocess
import sys
import time
import traceback
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# -- the suite ----------------------------------------------------------------


def _provide_missing_modules() -> None:
    """What the suite imports from packages a TinyTensor machine lacks."""
    try:
        import multiprocess  # noqa: F401
    except ImportError:
        import multiprocessing

        sys.modules["multiprocess"] = multiprocessing
    try:
        import torch_mlir._version  # noqa: F401
    except ImportError:
        import torch
        from packaging import version

        package = types.ModuleType("torch_mlir")
        package.__path__ = []
        module = types.ModuleType("torch_mlir._version")
        module.version = version
        module.torch_version_for_comparison = (
            lambda: version.parse(torch.__version__.split("+")[0]))
        package._version = module
        sys.modules.setdefault("torch_mlir", package)
        sys.modules["torch_mlir._version"] = module


def _import_torchvision() -> None:
    """Imports torchvision when installed (the suite's `conv` and
    `vision_models` modules need it); without it those modules are skipped
    and named."""
    from tinytensor.torch.torchvision_compat import import_torchvision
    import_torchvision()


def load_suite(checkout: str):
    """Imports the suite from `checkout` and registers its tests, test module
    by test module (a module whose imports fail, e.g. torchvision's models
    without torchvision, is skipped and named). Returns the registry (a list
    of framework.Test) and the skipped modules with their errors."""
    python_dir = os.path.join(checkout, "projects", "pt1", "python")
    package_dir = os.path.join(python_dir, "torch_mlir_e2e_test")
    if not os.path.isdir(package_dir):
        raise SystemExit(f"{checkout}: no projects/pt1/python/"
                         f"torch_mlir_e2e_test (not a torch-mlir checkout?)")
    sys.path.insert(0, python_dir)
    _provide_missing_modules()
    _import_torchvision()
    registry = importlib.import_module("torch_mlir_e2e_test.registry")
    suite_dir = os.path.join(package_dir, "test_suite")
    # The modules register_all_tests() imports, in its order.
    with open(os.path.join(suite_dir, "__init__.py")) as f:
        names = re.findall(r"^\s+from \. import (\w+)", f.read(), re.M)
    skipped = {}
    for name in names:
        try:
            importlib.import_module(f"torch_mlir_e2e_test.test_suite.{name}")
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            skipped[name] = f"{type(e).__name__}: {e}"
    return registry.GLOBAL_TEST_REGISTRY, skipped


def torch_mlir_expected_failures(checkout: str) -> set:
    """FX_IMPORTER_XFAIL_SET | FX_IMPORTER_CRASHING_SET of the checkout's
    xfail_sets.py: what torch-mlir's FX importer + linalg backend fails."""
    sys.path.insert(0, os.path.join(checkout, "projects", "pt1",
                                    "e2e_testing"))
    _provide_missing_modules()
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # it prints a version
        xfail_sets = importlib.import_module("xfail_sets")
    return set(xfail_sets.FX_IMPORTER_XFAIL_SET |
               xfail_sets.FX_IMPORTER_CRASHING_SET)


# -- one test, in a worker ------------------------------------------------------


def _classify(e: BaseException) -> str:
    from tinytensor import compiler
    from tinytensor.torch import UnsupportedOpError

    if isinstance(e, UnsupportedOpError):
        return "unsupported"
    if isinstance(e, compiler.CompilationError):
        return "compile"
    if isinstance(e, (TypeError, ValueError)):
        return "refused"
    return "error"


def run_test(test) -> dict:
    """Compiles and runs `test` (a framework.Test) with TinyTensor and
    compares its trace with the eager one."""
    import torch

    from torch_mlir_e2e_test import framework, reporting

    import tinytensor.torch as ttorch

    try:
        golden = framework.generate_golden_trace(test)
    except Exception as e:  # noqa: BLE001
        return {"outcome": "error", "stage": "eager",
                "message": f"the eager run failed: {type(e).__name__}: {e}"}
    module = test.program_factory()
    compiled = {}
    trace = []
    stage = "compile"
    try:
        for item in golden:
            # The trace calls methods of the module by their path
            # ("forward", or "sub.forward" for a submodule's).
            target = module
            *path, method = item.symbol.split(".")
            for name in path:
                target = getattr(target, name)
            if method != "forward":
                raise ValueError(f"the trace calls {item.symbol}, not a "
                                 f"forward method")
            run = compiled.get(item.symbol)
            if run is None:
                run = compiled[item.symbol] = ttorch.jit(target)
            inputs = framework.clone_torch_script_value(item.inputs)
            output = run(*inputs)
            stage = "run"
            trace.append(framework.TraceItem(symbol=item.symbol,
                                             inputs=item.inputs,
                                             output=output))
    except Exception as e:  # noqa: BLE001
        lines = traceback.format_exception_only(type(e), e)
        return {"outcome": _classify(e), "stage": stage,
                "message": "".join(lines).strip()}
    result = framework.TestResult(unique_name=test.unique_name,
                                  compilation_error=None, runtime_error=None,
                                  trace=trace, golden_trace=golden)
    try:
        report = reporting.SingleTestReport(result,
                                            reporting.ErrorContext.empty())
        failed = report.failed
        message = report.error_str().strip() if failed else ""
    except Exception as e:  # noqa: BLE001 - an output the report can't read
        failed, message = True, f"{type(e).__name__}: {e}"
    del torch
    return {"outcome": "mismatch" if failed else "pass", "stage": "check",
            "message": message}


def worker(checkout: str) -> int:
    """Reads test names from stdin, writes one JSON result per line."""
    tests, _ = load_suite(checkout)
    by_name = {t.unique_name: t for t in tests}
    import torch

    torch.autograd.set_grad_enabled(False)
    for line in sys.stdin:
        name = line.strip()
        start = time.perf_counter()
        try:
            result = run_test(by_name[name])
        except BaseException as e:  # noqa: BLE001 - never lose the worker
            result = {"outcome": "error", "stage": "runner",
                      "message": f"{type(e).__name__}: {e}"}
        result["name"] = name
        result["seconds"] = round(time.perf_counter() - start, 3)
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
    return 0


# -- the driver -------------------------------------------------------------------


class Worker:
    """A worker process that runs tests one at a time; killed and replaced
    when a test takes too long or it dies."""

    def __init__(self, checkout: str):
        self.checkout = checkout
        self.proc = None

    def start(self):
        env = dict(os.environ)
        env.setdefault("TT_CACHE", "0")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker",
             self.checkout],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env)

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
        if self.proc:
            self.proc.wait()
        self.proc = None

    def run(self, name: str, timeout: float) -> dict:
        import selectors

        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        # The first test also pays for starting the worker (importing the
        # suite and torch).
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                self.kill()
                return {"name": name, "outcome": "timeout", "stage": "",
                        "seconds": timeout,
                        "message": f"no result within {timeout:g} s; the "
                                   f"worker was killed"}
            line = self.proc.stdout.readline()
            if not line:
                code = self.proc.wait()
                self.proc = None
                return {"name": name, "outcome": "crash", "stage": "",
                        "seconds": 0.0,
                        "message": f"the worker died (exit status {code})"}
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue  # something else the test printed to stdout


def error_kind(result: dict) -> str:
    """The part of a result's error that tests failing the same way share:
    its last line without the module, source location and numbers."""
    lines = [l for l in result["message"].splitlines() if l.strip()]
    if result["outcome"] == "mismatch":
        # The suite's report: the first line saying what differs.
        lines = [l for l in lines if "differ" in l or "mismatch" in l
                 or "expected" in l.lower()] or lines
        text = lines[0] if lines else ""
    else:
        text = lines[-1] if lines else ""
    text = re.sub(r"^[\w.]+Error: ", "", text.strip())
    text = re.split(r" in module '| \(\w+Module\w*\)|, at File ", text)[0]
    if result["outcome"] == "mismatch":  # sizes and values
        text = re.sub(r"\d+", "N", text)
    elif result["outcome"] == "refused":  # sizes, not dtype names
        text = re.sub(r"\((\d+(?:, \d+)*)\)", lambda m: "(" + ", ".join(
            "N" for _ in m.group(1).split(",")) + ")", text)
    return text[:150]


def summarize(results, expected_failures, skipped, out=sys.stdout):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    counts = collections.Counter(r["outcome"] for r in results)
    names = [r["name"] for r in results]
    theirs = [n for n in names if n not in expected_failures]
    ours = {r["name"] for r in results if r["outcome"] == "pass"}
    p(f"\n{len(results)} tests: " + ", ".join(
        f"{k} {counts[k]}" for k in ("pass", "mismatch", "unsupported",
                                     "refused", "compile", "error",
                                     "timeout", "crash") if counts[k]))
    p(f"TinyTensor passes {len(ours)}; torch-mlir's FX importer + linalg "
      f"passes {len(theirs)} of the same tests (by its xfail sets); both "
      f"pass {len(ours & set(theirs))}; only TinyTensor "
      f"{len(ours - set(theirs))}")
    if skipped:
        p("Test modules not imported: " + "; ".join(
            f"{k} ({v})" for k, v in skipped.items()))
    missing = [r for r in results
               if r["name"] in set(theirs) and r["outcome"] != "pass"]
    if missing:
        p(f"\n{len(missing)} tests torch-mlir passes and TinyTensor fails, "
          f"by outcome and first line of the error:")
        groups = collections.defaultdict(list)
        for r in missing:
            groups[(r["outcome"], error_kind(r))].append(r["name"])
        for (outcome, first), group in sorted(
                groups.items(), key=lambda kv: -len(kv[1])):
            p(f"  {len(group):4d} {outcome}: {first}")
            p(f"       {', '.join(sorted(group)[:6])}"
              f"{' ...' if len(group) > 6 else ''}")


def main(argv=None) -> int:
    summary, rest = __doc__.split("\n\n", 1)
    parser = argparse.ArgumentParser(
        description=" ".join(summary.split()),
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=rest)
    parser.add_argument("checkout", help="a checkout of llvm/torch-mlir")
    parser.add_argument("--filter", default=None,
                        help="only tests whose name matches this regex")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds per test before its worker is killed "
                             "(default 120, the suite's own default)")
    parser.add_argument("--limit", type=int, default=None,
                        help="only the first N tests (in name order)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="start no test after this many seconds (the "
                             "summary then covers the tests run)")
    parser.add_argument("--json", default=None,
                        help="write every result to this file")
    parser.add_argument("--worker", action="store_true",
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.checkout)

    tests, skipped = load_suite(args.checkout)
    expected_failures = torch_mlir_expected_failures(args.checkout)
    names = sorted(t.unique_name for t in tests)
    if args.filter:
        names = [n for n in names if re.search(args.filter, n)]
    if args.limit is not None:
        names = names[:args.limit]
    print(f"{len(names)} of {len(tests)} tests, at most {args.timeout:g} s "
          f"each", flush=True)
    results = []
    pool = Worker(args.checkout)
    start = time.perf_counter()
    try:
        for i, name in enumerate(names):
            if (args.seconds is not None and
                    time.perf_counter() - start > args.seconds):
                print(f"--seconds {args.seconds:g} reached: {len(names) - i} "
                      f"tests not run", flush=True)
                break
            # The first test of a new worker also pays for its start.
            fresh = pool.proc is None
            r = pool.run(name, args.timeout + (60 if fresh else 0))
            results.append(r)
            line = f"[{i + 1}/{len(names)}] {r['outcome']:<11} {name}"
            if r["outcome"] != "pass":
                line += f": {error_kind(r)}"
            print(line, flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    finally:
        pool.kill()
    print(f"({time.perf_counter() - start:.0f} s)")
    summarize(results, expected_failures, skipped)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "skipped_modules": skipped,
                       "torch_mlir_expected_failures":
                           sorted(expected_failures & set(names))}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
