#!/usr/bin/env python3
"""Serial-vs-parallel crossover of the kernel families whose small problems run serially below a grain
(libsrc/common/parallel.h, acl_grain): times each family over a size sweep with OMP_NUM_THREADS=1 and =N (a fresh
interpreter each, alternating, `--rounds` times; medians), and prints per size the family's work figure (computed
as its call site computes it), both times and which wins. The grain of the table is the work above which the
parallel time wins on every larger size.

usage: python bench/crossover.py [--threads 2] [--rounds 3] [--family grid2d_fwd] ...

The machine may be shared: timings are noisy, so the script alternates the two thread counts and reports medians
over rounds; read a crossover as a range, not a point.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

# family -> list of (label, (points, channels), setup code producing `fn`)
_GRID2D = """
import numpy as np, pyaclnn
from common import op_runner
rng = np.random.default_rng(0); T = pyaclnn.AclTensor.from_array
N, C, S = {N}, {C}, {S}
x = rng.standard_normal((N, C, S, S)).astype(np.float32)
g = rng.uniform(-1.1, 1.1, (N, S, S, 2)).astype(np.float32)
if {bwd}:
    go = rng.standard_normal((N, C, S, S)).astype(np.float32)
    gi, gg = pyaclnn.AclTensor.empty(x.shape, np.float32), pyaclnn.AclTensor.empty(g.shape, np.float32)
    fn = op_runner("GridSampler2DBackward", T(go), T(x), T(g), 0, 0, False, pyaclnn.bool_array([True, True]), gi, gg)
else:
    out = pyaclnn.AclTensor.empty((N, C, S, S), np.float32)
    fn = op_runner("GridSampler2D", T(x), T(g), 0, 0, False, out)
"""
_GRID3D = """
import numpy as np, pyaclnn
from common import op_runner
rng = np.random.default_rng(0); T = pyaclnn.AclTensor.from_array
N, C, S = {N}, {C}, {S}
x = rng.standard_normal((N, C, S, S, S)).astype(np.float32)
g = rng.uniform(-1.1, 1.1, (N, S, S, S, 3)).astype(np.float32)
if {bwd}:
    go = rng.standard_normal((N, C, S, S, S)).astype(np.float32)
    gi, gg = pyaclnn.AclTensor.empty(x.shape, np.float32), pyaclnn.AclTensor.empty(g.shape, np.float32)
    fn = op_runner("GridSampler3DBackward", T(go), T(x), T(g), 0, 0, False, pyaclnn.bool_array([True, True]), gi, gg)
else:
    out = pyaclnn.AclTensor.empty((N, C, S, S, S), np.float32)
    fn = op_runner("GridSampler3D", T(x), T(g), 0, 0, False, out)
"""


def families():
    f = {}
    for bwd in (0, 1):
        name = "grid2d_" + ("bwd" if bwd else "fwd")
        f[name] = [(f"N8 C{C} {S}x{S}", (8 * S * S, C), _GRID2D.format(N=8, C=C, S=S, bwd=bwd))
                   for C in (1, 3, 8) for S in (8, 16, 24, 32, 48, 64, 96)]
        name = "grid3d_" + ("bwd" if bwd else "fwd")
        f[name] = [(f"N1 C{C} {S}^3", (S ** 3, C), _GRID3D.format(N=1, C=C, S=S, bwd=bwd))
                   for C in (1, 4, 16) for S in (8, 12, 16, 24, 32)]
    return f


_RUN = """
import sys, time
sys.path.insert(0, {repo!r}); sys.path.insert(0, {bench!r})
import numpy as np
{setup}
fn()
s = []
for _ in range(7):
    n, t0 = 0, time.perf_counter()
    while True:
        fn(); n += 1
        dt = time.perf_counter() - t0
        if dt >= 0.04: break
    s.append(dt / n)
print(float(np.median(s)))
"""


def time_case(setup, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    code = _RUN.format(repo=str(HERE.parent), bench=str(HERE), setup=setup)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--family", action="append", default=[])
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    fams = families()
    rows = []
    for fam, cases in fams.items():
        if args.family and fam not in args.family:
            continue
        print(f"== {fam}: output points, channels, serial ms, {args.threads}-thread ms", flush=True)
        for label, pts, setup in cases:
            t1, tn = [], []
            for _ in range(args.rounds):
                t1.append(time_case(setup, 1))
                tn.append(time_case(setup, args.threads))
            a, b = statistics.median(t1) * 1e3, statistics.median(tn) * 1e3
            rows.append(dict(family=fam, case=label, points=pts[0], channels=pts[1], serial_ms=a, parallel_ms=b))
            print(f"{fam:12s} {label:18s} points={pts[0]:8d} C={pts[1]:3d}  serial {a:8.4f}  par {b:8.4f}  "
                  f"{'parallel' if b < a else 'serial'} wins ({a / b:.2f}x)", flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
