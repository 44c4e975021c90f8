#!/usr/bin/env python3
"""Benchmark driver: times every case of every bench/bench_*.py against PyTorch CPU at the same thread count,
and reports the ratio and the achieved fraction of the measured memory bandwidth.

usage: python bench/run.py [--threads N] [--filter SUBSTRING] [--json FILE] [--cold]

By default a case is timed warm: calls back to back, so operands that fit in the 32 MiB L3 (most upsample and
avg_pool cases move 10-40 MiB) are partly served from cache and %BW can pass 100%. --cold times single calls after
evicting the caches, which is what the memory-bandwidth figure (a 256 MiB copy, bytes read + written) compares to.

A bench module defines CASES, a list of (name, setup) where setup() returns a dict with
  ours:  a zero-argument callable running our op (tensors pre-built, no copies timed)
  torch: a zero-argument callable running the PyTorch CPU equivalent, or None
  bytes: bytes the op must move at least (inputs read + outputs written), for the bandwidth figure
"""
import argparse
import importlib.util
import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--filter", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--cold", action="store_true", help="evict the caches before every timed call")
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before the library (and its OpenMP) loads
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    import common

    bw = common.memory_bandwidth()
    print(f"threads={args.threads}  memory copy bandwidth={bw / 1e9:.1f} GB/s  "
          f"timing={'cold (caches evicted before each call)' if args.cold else 'warm (back-to-back calls)'}")
    timeit = common.timeit_cold if args.cold else common.timeit
    print(f"{'case':58s} {'ours ms':>9s} {'torch ms':>9s} {'speedup':>8s} {'GB/s':>7s} {'%BW':>5s}")
    rows = []
    for path in sorted(HERE.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for name, setup in mod.CASES:
            full = f"{path.stem[6:]}/{name}"
            if args.filter not in full:
                continue
            case = setup()
            t_ours = timeit(case["ours"])
            t_torch = timeit(case["torch"]) if case.get("torch") else float("nan")
            gbs = case["bytes"] / t_ours / 1e9
            row = dict(case=full, ours_ms=t_ours * 1e3, torch_ms=t_torch * 1e3, speedup=t_torch / t_ours,
                       gbs=gbs, bw_frac=case["bytes"] / t_ours / bw)
            rows.append(row)
            print(f"{full:58s} {row['ours_ms']:9.3f} {row['torch_ms']:9.3f} {row['speedup']:7.2f}x "
                  f"{gbs:7.1f} {100 * row['bw_frac']:4.0f}%", flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(dict(threads=args.threads, bandwidth=bw, cold=args.cold, rows=rows), indent=1))


if __name__ == "__main__":
    main()
