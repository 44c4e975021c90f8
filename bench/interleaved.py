#!/usr/bin/env python3
"""Ours vs PyTorch on a busy machine: single calls of the two sides interleaved (ours, torch, ours, ...), the fastest
call of each kept, and the copy bandwidth measured the same way (a 256 MiB torch copy_, fastest call) in the same
process, so the three figures see the same load.

usage: python bench/interleaved.py [--threads N] [--filter SUBSTRING] [--rounds R] [--json FILE] [--clock thread]

--clock thread (with --threads 1) times the calling thread's CPU time instead of the wall clock: on a machine
shared with other work a call that is descheduled half-way is not counted twice (memory contention still is).
"""
import argparse
import json
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


CLOCK = time.perf_counter


def fastest(fns, rounds):
    best = [float("inf")] * len(fns)
    for f in fns:
        f()  # warm-up
    for _ in range(rounds):
        for i, f in enumerate(fns):
            t0 = CLOCK()
            f()
            best[i] = min(best[i], CLOCK() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--filter", default="")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--json", default="")
    ap.add_argument("--clock", choices=("wall", "thread"), default="wall")
    args = ap.parse_args()
    global CLOCK
    if args.clock == "thread":
        if args.threads != 1:
            sys.exit("--clock thread needs --threads 1 (the other threads' time is not counted)")
        CLOCK = time.thread_time
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    import run
    import torch

    torch.set_num_threads(args.threads)
    n = 256 << 20
    a = torch.ones(n // 4, dtype=torch.float32)
    b = torch.empty_like(a)
    bw = 2 * n / fastest([lambda: b.copy_(a)], 10)[0]
    del a, b
    print(f"threads={args.threads}  copy bandwidth {bw / 1e9:.1f} GB/s (fastest of 10)  fastest of {args.rounds} "
          "interleaved calls per side, "
          f"{args.clock} clock")
    print(f"{'case':52s} {'ours ms':>9s} {'torch ms':>9s} {'ratio':>7s} {'%BW':>5s}")
    rows = []
    for full, setup in run.cases(args.filter):
        case = setup()
        fns = [case["ours"]] + ([case["torch"]] if case.get("torch") else [])
        t = fastest(fns, args.rounds)
        to = t[1] if len(t) > 1 else float("nan")
        row = dict(case=full, ours_ms=t[0] * 1e3, torch_ms=to * 1e3, ratio=to / t[0],
                   bw_frac=case["bytes"] / t[0] / bw)
        rows.append(row)
        print(f"{full:52s} {row['ours_ms']:9.2f} {row['torch_ms']:9.2f} {row['ratio']:6.2f}x "
              f"{100 * row['bw_frac']:4.0f}%", flush=True)
        del case, fns
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(dict(threads=args.threads, clock=args.clock, bandwidth=bw,
                                                          rows=rows), indent=1))


if __name__ == "__main__":
    main()
