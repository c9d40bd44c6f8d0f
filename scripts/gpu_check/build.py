"""scripts/gpu-check's build side: exports every case of cases.py for CUDA
(tinytensor.aot, host code for a baseline x86-64 CPU) into one directory
with the CUDA runtime, a manifest, and the GPU-side driver run.py."""

import argparse
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import cases  # noqa: E402
from tinytensor import aot  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the directory to write")
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--cpu", default="x86-64-v2",
                        help="CPU of the host code (the GPU machine's)")
    parser.add_argument("--format", default="isa", choices=("isa", "bin"),
                        help="kernels as PTX (JIT-compiled by the driver: "
                             "works with any driver recent enough for the "
                             "PTX version) or cubins from this ptxas")
    parser.add_argument("--only", help="comma-separated case names")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest = {"chip": args.chip, "cases": {}}
    only = set(args.only.split(",")) if args.only else None
    for seed, case in enumerate(cases.CASES):
        if only and case.name not in only:
            continue
        start = time.perf_counter()
        inputs = case.inputs(np.random.default_rng(seed))
        library = f"lib{case.name}.so"
        aot.export(case.fn, *inputs, name=case.name,
                   path=os.path.join(args.out, library), target="cuda",
                   cpu=args.cpu,
                   pipeline_options=f"chip={args.chip} format={args.format}",
                   header=os.path.join(args.out, f"{case.name}.h"))
        manifest["cases"][case.name] = {"library": library, "seed": seed}
        print(f"{case.name}: {time.perf_counter() - start:.1f} s")
    for name in ("run.py", "cases.py"):
        shutil.copy(os.path.join(HERE, name), args.out)
    shutil.copy(os.path.join(ROOT, "examples", "gpt2.py"), args.out)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    size = sum(os.path.getsize(os.path.join(args.out, f))
               for f in os.listdir(args.out))
    print(f"{args.out}: {size / 1e6:.1f} MB; on the GPU machine run: "
          f"python {os.path.basename(os.path.normpath(args.out))}/run.py")


if __name__ == "__main__":
    main()
