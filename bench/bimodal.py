#!/usr/bin/env python3
"""Per-process spread of our bench rows: runs each matching row in several fresh interpreters (its own tensors and
scratch addresses each time) at the given thread count, keeps each process's fastest call (the figure least
disturbed by other work on the machine) and flags a row whose slowest process minimum is more than --flag times
its fastest. A row that is fast in one process and slow in the next depends on something outside its arguments:
the alignment of a buffer, which lines two threads' scratch blocks share (libsrc/common/parallel.h acl_team_alloc),
huge pages, the core a thread landed on.

usage: python bench/bimodal.py --filter "nearest3d bwd" [--threads 2] [--procs 6] [--calls 40] [--flag 1.3]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

_CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
sys.path.insert(0, {here!r})
import importlib
mod = importlib.import_module({mod!r})
setup = dict(mod.CASES)[{name!r}]
fn = setup()["ours"]
for _ in range(5):
    fn()
best = float("inf")
for _ in range({calls}):
    t0 = time.perf_counter(); fn(); best = min(best, time.perf_counter() - t0)
print(json.dumps(best))
"""


def rows(pattern):
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    import importlib
    for path in sorted(HERE.glob("bench_*.py")):
        mod = importlib.import_module(path.stem)
        for name, _ in getattr(mod, "CASES", []):
            full = f"{path.stem[len('bench_'):]}/{name}"
            if pattern in full:
                yield path.stem, name, full


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--filter", default="")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--procs", type=int, default=6)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--flag", type=float, default=1.3)
    a = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), PYACLNN_BENCH_NO_TORCH="1")
    flagged = 0
    print(f"threads={a.threads} processes={a.procs} calls={a.calls} (ms: each process's fastest call)")
    for mod, name, full in rows(a.filter):
        code = _CHILD.format(root=str(HERE.parent), here=str(HERE), mod=mod, name=name, calls=a.calls)
        ts = []
        for _ in range(a.procs):
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=HERE.parent)
            if r.returncode != 0:
                print(f"{full}: failed\n{r.stderr[-2000:]}")
                break
            ts.append(json.loads(r.stdout.strip().splitlines()[-1]) * 1e3)
        if len(ts) < a.procs:
            continue
        spread = max(ts) / min(ts)
        bad = spread > a.flag
        flagged += bad
        print(f"{full:70s} {min(ts):8.3f} .. {max(ts):8.3f}  x{spread:4.2f}{'  <- differs by process' if bad else ''}",
              flush=True)
    print(f"{flagged} row(s) flagged")


if __name__ == "__main__":
    main()
