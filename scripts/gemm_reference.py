#!/usr/bin/env python3
"""kosumi's matrix products beside OpenBLAS's on the same shapes, one run.

Runs `KOSUMI [--model NET] bench --nn --gemm` (any further arguments are
passed to it: --kernel avx2, --size 9, --seconds 1), reads the shapes and
rates it prints, times numpy's float32 matmul (OpenBLAS, one thread) on
each shape in the same run, and prints a line a shape with both rates and
their ratio, then the pass's products weighted by their operations.

    python3 scripts/gemm_reference.py target/release/kosumi \\
        --model b10c384h6nbttflrs.bin.gz --kernel avx2 [--coretype Haswell]

--coretype Haswell holds OpenBLAS to its AVX2 kernel on an AVX-512
machine (the fair reference for `--kernel avx2`). Needs numpy (and, to
name OpenBLAS's kernel, threadpoolctl): `pip install numpy threadpoolctl`.
"""

import os
import re
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    kosumi, rest = argv[1], argv[2:]
    coretype = None
    if "--coretype" in rest:
        at = rest.index("--coretype")
        coretype = rest[at + 1]
        del rest[at : at + 2]
    # OpenBLAS reads these when it loads: one thread, and the kernel asked
    # for (or its own choice, with no size forced on it).
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    os.environ.pop("OPENBLAS_L2_SIZE", None)
    os.environ.pop("OPENBLAS_CORETYPE", None)
    if coretype:
        os.environ["OPENBLAS_CORETYPE"] = coretype
    import numpy as np

    try:
        import threadpoolctl

        info = threadpoolctl.threadpool_info()
        blas = [
            f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')}"
            for i in info
            if i.get("user_api") == "blas"
        ]
    except ImportError:
        blas = ["(threadpoolctl missing: the kernel unnamed)"]
    # kosumi's options before `bench`, the bench's after it.
    before, after = [], []
    into = before
    for a in rest:
        if a in ("--kernel", "--size", "--seconds"):
            into = after
        into.append(a)
        if into is after and not a.startswith("--"):
            into = before
    command = [kosumi, *before, "bench", "--nn", "--gemm", *after]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        return out.returncode
    print(" ".join(command))
    print(f"numpy {np.__version__}, BLAS: {'; '.join(blas)}")
    rng = np.random.default_rng(1)
    total = {"work": 0.0, "kosumi": 0.0, "blas": 0.0}
    for line in out.stdout.splitlines():
        fields = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
        if "processor" in fields:
            print(line)
            continue
        if "m" not in fields:
            if "products" in fields:
                print(line)
            continue
        m, k, n, calls = (int(fields[x]) for x in ("m", "k", "n", "calls"))
        ours = float(fields["gflops"])
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        c = np.empty((m, n), dtype=np.float32)
        flops = 2.0 * m * k * n
        rate = 0.0
        for timed in (False, True):
            start, reps = time.perf_counter(), 0
            while reps < 3 or time.perf_counter() - start < 0.3:
                np.matmul(a, b, out=c)
                reps += 1
            if timed:
                rate = flops * reps / (time.perf_counter() - start) / 1e9
        work = flops * calls
        total["work"] += work
        total["kosumi"] += work / (ours * 1e9)
        total["blas"] += work / (rate * 1e9)
        print(
            f"gemm {m}x{k}x{n} calls={calls} kosumi_gflops={ours:.1f} "
            f"openblas_gflops={rate:.1f} ratio={ours / rate:.2f}"
        )
    if total["work"]:
        ours = total["work"] / total["kosumi"] / 1e9
        theirs = total["work"] / total["blas"] / 1e9
        print(
            f"gemm pass kosumi_gflops={ours:.1f} openblas_gflops={theirs:.1f} ratio={ours / theirs:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
