"""The per-thread scratch helpers of libsrc/common/parallel.h (acl_team_block, acl_team_alloc), through the C
harness tests/c/team_alloc_check.c compiled with the library's flags: each thread's block of a scratch allocation
starts on its own 64-byte cache line (so no line is written by two threads), is the smallest whole number of lines
holding the elements, comes zeroed when asked, and impossible sizes are refused. The layouts they give change no
result byte (the thread-count and SIMD-level byte tests of every op that uses them still pass); the speed they buy
is measured in bench/ (README, session 16)."""
import os
import subprocess

import native
from helpers import REPO

FLAGS = ["-std=c11", "-O2", "-fopenmp", "-Wall", "-Wextra", "-Werror", f"-I{REPO}/include", f"-I{REPO}/libsrc"]


def test_team_blocks_own_their_lines(tmp_path):
    exe = tmp_path / "team_alloc_check"
    src = os.path.join(REPO, "tests", "c", "team_alloc_check.c")
    res = subprocess.run(["gcc", *FLAGS, *native.san_flags(), src, "-o", str(exe)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    res = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "team_alloc ok" in res.stdout, res.stdout + res.stderr
