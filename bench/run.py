#!/usr/bin/env python3
"""Benchmark driver: times every case of every bench/bench_*.py against PyTorch CPU at the same thread count,
and reports the ratio and the achieved fraction of the measured memory bandwidth.

usage: python bench/run.py [--threads N] [--filter SUBSTRING[|SUBSTRING...]] [--json FILE] [--cold] [--paired N]
                           [--simd-levels]

By default a case is timed warm: calls back to back, so operands that fit in the 32 MiB L3 (most upsample and
avg_pool cases move 10-40 MiB) are partly served from cache and %BW can pass 100%. --cold times single calls after
evicting the caches, which is what the memory-bandwidth figure (a 256 MiB copy, bytes read + written) compares to.

--paired N times each row in N rounds that alternate our side and PyTorch's, each side's figure the fastest call of
the round (common.timeit_min), and reports each side's fastest over the rounds and the spread of the per-round
ratios: on a shared host, a burst of other work that hits one side of one round moves the spread, not the figure.

--simd-levels times our side of every case once per SIMD level (PYACLNN_SIMD=avx512, avx2, off: one fresh process
per level, so each runs with that cap; the default is the uncapped run) and flags a row whose default is more than
10% slower than the fastest level. With --isolate every row gets its own process per level and round (slower; for
re-timing the rows a sweep flagged; a memory-heavy row still varies from process to process, so use several rounds).

A bench module defines CASES, a list of (name, setup) where setup() returns a dict with
  ours:  a zero-argument callable running our op (tensors pre-built, no copies timed)
  torch: a zero-argument callable running the PyTorch CPU equivalent, or None
  bytes: bytes the op must move at least (inputs read + outputs written), for the bandwidth figure
"""
import argparse
import functools
import importlib.util
import json
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


def cases(filt, exact=False):
    """(full name, setup) of every case of every bench module whose name contains filt (or one of its
    "|"-separated parts: `--filter "a|b"` re-times rows a --simd-levels sweep flagged); exact: whose full name is
    one of the parts."""
    parts = filt.split("|")
    for path in sorted(HERE.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for name, setup in mod.CASES:
            full = f"{path.stem[6:]}/{name}"
            if (full in parts) if exact else any(f in full for f in parts):
                yield full, setup


LEVELS = ("", "avx512", "avx2", "off")  # "" = the default (no cap)


def simd_levels(args):
    """One child process per level and round (rounds interleaved); the minimum over rounds per case and level."""
    import subprocess
    times = {lv: {} for lv in LEVELS}

    def child(lv, filt, exact):
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
        env.pop("PYACLNN_SIMD", None)
        if lv:
            env["PYACLNN_SIMD"] = lv
        cmd = ([sys.executable, __file__, "--child-times", "--filter", filt] + (["--exact"] if exact else [])
               + (["--cold"] if args.cold else []))
        res = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if res.returncode:
            sys.exit(res.stderr)
        for k, v in json.loads(res.stdout.strip().splitlines()[-1]).items():
            times[lv][k] = min(times[lv].get(k, float("inf")), v)

    if args.isolate:  # one process per row, level and round; the level order rotates from round to round
        sys.path.insert(0, str(HERE.parent))
        sys.path.insert(0, str(HERE))
        names = [full for full, _ in cases(args.filter)]
        for r in range(args.rounds):
            for name in names:
                for i in range(len(LEVELS)):
                    child(LEVELS[(i + r) % len(LEVELS)], name, True)
    else:
        for _ in range(args.rounds):
            for lv in LEVELS:
                child(lv, args.filter, False)
    print(f"threads={args.threads}  our time in ms per SIMD level (minimum of {args.rounds} interleaved rounds"
          + ("; thread CPU time" if args.threads == 1 and not args.cold else "")
          + ("; one process per row and level)" if args.isolate else ")"))
    print(f"{'case':58s} {'default':>8s} {'avx512':>8s} {'avx2':>8s} {'off':>8s}  fastest")
    rows, slow = [], 0
    for k, t0 in times[""].items():
        ts = {lv: times[lv].get(k, float("nan")) for lv in LEVELS}
        best_lv = min(LEVELS[1:], key=lambda lv: ts[lv])
        flag = t0 > 1.10 * ts[best_lv]
        slow += flag
        rows.append(dict(case=k, **{(lv or "default") + "_ms": ts[lv] for lv in LEVELS}, fastest=best_lv,
                         default_slow=flag))
        print(f"{k:58s} " + " ".join(f"{ts[lv]:8.3f}" for lv in LEVELS) + f"  {best_lv}"
              + ("  <-- default >10% slower" if flag else ""), flush=True)
    print(f"{slow} of {len(rows)} rows: the default more than 10% slower than the fastest level")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(dict(threads=args.threads, rows=rows), indent=1))


def child_times(args):
    """Our time per case (ms; warm: the fastest single call) as one JSON line, for --simd-levels."""
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    import common
    timeit = common.timeit_cold if args.cold else common.timeit_min
    if not args.cold and os.environ.get("OMP_NUM_THREADS") == "1":
        # one thread: its CPU time (a shared, loaded machine preempts wall-clock timings for tens of ms)
        timeit = functools.partial(common.timeit_min, clock=time.thread_time)
    out = {}
    for full, setup in cases(args.filter, args.exact):
        out[full] = timeit(setup()["ours"]) * 1e3
    print(json.dumps(out))


def paired(case, rounds, cold, common):
    """(ours s, torch s, (lowest, highest) per-round ratio or None): `rounds` rounds alternating the two sides, each
    side's figure in a round its fastest call (cold: the median of single calls after evicting the caches)."""
    one = (lambda f: common.timeit_cold(f, repeat=5)) if cold else (lambda f: common.timeit_min(f, budget=0.25))
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(one(case["ours"]))
        if case.get("torch"):
            theirs.append(one(case["torch"]))
    if not theirs:
        return min(ours), float("nan"), None
    ratios = [t / o for o, t in zip(ours, theirs)]
    return min(ours), min(theirs), (min(ratios), max(ratios))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--filter", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--cold", action="store_true", help="evict the caches before every timed call")
    ap.add_argument("--paired", type=int, default=0, metavar="N",
                    help="N rounds alternating ours and torch; each side's fastest call, and the per-round ratio spread")
    ap.add_argument("--simd-levels", action="store_true",
                    help="time our side at every SIMD level and flag rows where the default is >10%% slower")
    ap.add_argument("--rounds", type=int, default=2, help="--simd-levels: interleaved rounds (minimum kept)")
    ap.add_argument("--isolate", action="store_true",
                    help="--simd-levels: one process per row, level and round (a row is timed "
                         "without the other rows of the sweep in its process)")
    ap.add_argument("--child-times", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--exact", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before the library (and its OpenMP) loads
    if args.simd_levels:
        return simd_levels(args)
    if args.child_times:
        return child_times(args)
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    import common

    bw = common.memory_bandwidth()
    print(f"threads={args.threads}  memory copy bandwidth={bw / 1e9:.1f} GB/s  "
          f"timing={'cold (caches evicted before each call)' if args.cold else 'warm (back-to-back calls)'}")
    timeit = common.timeit_cold if args.cold else common.timeit
    if args.paired:
        print(f"paired: {args.paired} rounds alternating ours / torch, each side's fastest call; "
              "ratio range = the rounds' ratios")
    print(f"{'case':58s} {'ours ms':>9s} {'torch ms':>9s} {'speedup':>8s} {'GB/s':>7s} {'%BW':>5s}"
          + ("  ratio range" if args.paired else ""))
    rows = []
    for full, setup in cases(args.filter):
        case = setup()
        extra = ""
        if args.paired:
            t_ours, t_torch, spread = paired(case, args.paired, args.cold, common)
            extra = f"  {spread[0]:.2f}-{spread[1]:.2f}x" if spread else ""
        else:
            t_ours = timeit(case["ours"])
            t_torch = timeit(case["torch"]) if case.get("torch") else float("nan")
        gbs = case["bytes"] / t_ours / 1e9
        row = dict(case=full, ours_ms=t_ours * 1e3, torch_ms=t_torch * 1e3, speedup=t_torch / t_ours,
                   gbs=gbs, bw_frac=case["bytes"] / t_ours / bw)
        if extra:
            row["ratio_range"] = list(spread)
        rows.append(row)
        print(f"{full:58s} {row['ours_ms']:9.3f} {row['torch_ms']:9.3f} {row['speedup']:7.2f}x "
              f"{gbs:7.1f} {100 * row['bw_frac']:4.0f}%{extra}", flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(dict(threads=args.threads, bandwidth=bw, cold=args.cold, rows=rows), indent=1))


if __name__ == "__main__":
    main()
