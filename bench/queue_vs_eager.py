#!/usr/bin/env python3
"""Queued (PYACLNN_ASYNC=1) vs eager (PYACLNN_SYNC=1) on the seed benches, in alternating child processes.

usage: python bench/queue_vs_eager.py [--threads 2] [--rounds 8] [--calls 15] [--filter S] [--modes sync,async]

Each round runs one child per mode (the order alternates between rounds); a child times every case (the fastest of
--calls single calls, after a warm-up) and prints them as JSON. Reported per case and mode: the minimum over the
rounds and the median of the per-round minima, and the queued/eager ratio of both. The machine is shared, so the
minimum is the stable figure and the medians show the spread.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
SEEDS = ["grid_sampler/bwd bilinear/zeros f32 N8 C64 64x64->64x64",
         "grid_sampler/fwd bilinear/zeros f32 N8 C64 64x64->64x64",
         "avg_pool/bwd_n32c64_h56w56_k3s2p1_f32",
         "avg_pool/fwd_n32c64_h56w56_k3s2p1_f32",
         "msda/detr_encoder_backward_f32",
         "msda/detr_encoder_forward_f32",
         "upsample/bwd f32 8x64 128x128->64x64 (x2)",
         "upsample/bwd f32 8x64 96x96->64x64 (x1.5)",
         "upsample/fwd f32 8x64 64x64->128x128 (x2)"]
MODES = {"sync": {"PYACLNN_SYNC": "1"}, "async": {"PYACLNN_ASYNC": "1"}, "default": {}}


def child(args):
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    import run
    out = {}
    for full, setup in run.cases(""):
        if full not in SEEDS or args.filter not in full:
            continue
        f = setup()["ours"]
        f()
        best = float("inf")
        for _ in range(args.calls):
            t0 = time.perf_counter()
            f()
            best = min(best, time.perf_counter() - t0)
        out[full] = best * 1e3
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--filter", default="")
    ap.add_argument("--modes", default="sync,async")
    ap.add_argument("--child", action="store_true")
    args = ap.parse_args()
    if args.child:
        return child(args)
    modes = args.modes.split(",")
    res = {m: {} for m in modes}
    for r in range(args.rounds):
        for m in (modes if r % 2 == 0 else modes[::-1]):
            env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
            for k in ("PYACLNN_SYNC", "PYACLNN_ASYNC"):
                env.pop(k, None)
            env.update(MODES[m])
            p = subprocess.run([sys.executable, __file__, "--child", "--calls", str(args.calls), "--filter",
                                args.filter], env=env, capture_output=True, text=True)
            if p.returncode:
                sys.exit(p.stderr)
            for k, v in json.loads(p.stdout.strip().splitlines()[-1]).items():
                res[m].setdefault(k, []).append(v)
    base = modes[0]
    print(f"threads={args.threads}, {args.rounds} alternating rounds, fastest of {args.calls} calls per round; "
          f"ms min / median of rounds; ratio vs {base}")
    for k in res[base]:
        cells = []
        for m in modes:
            v = res[m][k]
            cells.append(f"{m} {min(v):7.3f}/{statistics.median(v):7.3f}")
            if m != base:
                b = res[base][k]
                cells.append(f"x{min(v) / min(b):.3f}/{statistics.median(v) / statistics.median(b):.3f}")
        print(f"{k:56s} " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
