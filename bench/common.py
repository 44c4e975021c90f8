"""Timing helpers for bench/: best-of medians, memory bandwidth, and op runners over pre-built tensors."""
import os
import time

import numpy as np


def threads():
    return int(os.environ.get("OMP_NUM_THREADS", "2"))


def timeit(fn, min_time=0.25, repeat=5):
    """Median seconds per call over `repeat` rounds, each at least `min_time` long (after one warm-up)."""
    fn()
    samples = []
    for _ in range(repeat):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            dt = time.perf_counter() - t0
            if dt >= min_time:
                break
        samples.append(dt / n)
    return float(np.median(samples))


def timeit_min(fn, budget=0.5, max_calls=50, clock=time.perf_counter):
    """The fastest single call (after one warm-up) of up to max_calls within about `budget` seconds: the estimate
    least disturbed by other work on the machine (used to compare variants of our own kernels, never for the
    ratio against PyTorch). clock=time.thread_time measures the calling thread's CPU time (immune to the other
    processes of a loaded machine; only meaningful when the work runs on that thread, i.e. one OpenMP thread)."""
    fn()
    best, t_end, n = float("inf"), time.perf_counter() + budget, 0
    while n < 3 or (n < max_calls and time.perf_counter() < t_end):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
        n += 1
    return best


def timeit_cold(fn, repeat=15):
    """Median seconds of single calls, each after evict_caches() (its operands come from memory, not L3)."""
    fn()
    samples = []
    for _ in range(repeat):
        evict_caches()
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return float(np.median(samples))


_FLUSH = None


def evict_caches():
    """Reads a buffer 3x the 32 MiB L3, so no operand of the next call is still cached. Reading (not writing)
    leaves clean lines behind: evicting them costs the timed call nothing, and the dirty lines of the previous
    call are written back here."""
    global _FLUSH
    if _FLUSH is None:
        _FLUSH = np.ones((96 << 20) // 8, np.float64)
    return float(_FLUSH.sum())


_BW = None


def memory_bandwidth():
    """Copy bandwidth in bytes/s (read + write) of a 256 MiB array copy, with torch at `threads()` when present."""
    global _BW
    if _BW is None:
        n = 256 << 20
        try:
            import torch

            torch.set_num_threads(threads())
            a = torch.ones(n // 4, dtype=torch.float32)
            b = torch.empty_like(a)
            t = timeit(lambda: b.copy_(a), min_time=0.5, repeat=3)
        except ImportError:
            a = np.ones(n // 4, np.float32)
            b = np.empty_like(a)
            t = timeit(lambda: np.copyto(b, a), min_time=0.5, repeat=3)
        _BW = 2 * n / t
    return _BW


def op_runner(op, *args):
    """A closure running both phases of aclnn<op> on pre-built AclTensors (no host<->device copies timed)."""
    import pyaclnn

    def run():
        pyaclnn.launch(op, *args)

    return run


def torch_or_none():
    if os.environ.get("PYACLNN_BENCH_NO_TORCH"):  # our side only (bench/bimodal.py: no torch import a process)
        return None
    try:
        import torch

        torch.set_num_threads(threads())
        return torch
    except ImportError:
        return None
