"""The fp16/bf16 <-> fp32 row converters of the portable paths (libsrc/common/half_rows.h) against the scalar
conversions of libsrc/common/dtype.h, bit for bit, by the C harness tests/c/half_rows_check.c: all 65536 fp16 and
bf16 patterns widened and all 2^32 fp32 patterns narrowed, compiled with the library's flags. The SSE2 row
functions (x86-64) are checked exhaustively; the plain loops (what aarch64 and other targets compile, checked
exhaustively under qemu by tools/cross_check.sh) on every 7th block here, and GCC must vectorise them. On x86-64
the harness also sweeps the AVX2 / AVX-512 / AVX512_BF16 fp32 -> bf16 rows, the AVX-512 fp16 narrowing and bf16 widening of
libsrc/kernels/f16_rows.h, each where the CPU has it."""
import os
import platform
import subprocess

import pytest

import native
from helpers import REPO

FLAGS = ["-std=c11", "-O3", "-fopenmp", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", f"-I{REPO}/include",
         f"-I{REPO}/libsrc"]
SRC = os.path.join(REPO, "tests", "c", "half_rows_check.c")


def _build(tmp_path, name, *defs):
    exe = tmp_path / name
    res = subprocess.run(["gcc", *FLAGS, *native.san_flags(), *defs, SRC, "-o", str(exe)], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    return exe, res.stderr


def test_rows_bit_identical_exhaustive(tmp_path):
    exe, _ = _build(tmp_path, "half_rows_check")
    step = "61" if native.sanitize() else "1"  # sanitized builds are ~10x slower: a sample then
    res = subprocess.run([str(exe), step], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout
    assert step != "1" or "half_rows ok (65536 blocks" in res.stdout, res.stdout


def test_plain_loops_bit_identical_and_vectorised(tmp_path):
    exe, diag = _build(tmp_path, "half_rows_plain", "-DPYACLNN_NO_SSE2_ROWS", "-fopt-info-vec-optimized")
    vec = {ln.split(":")[1] for ln in diag.splitlines() if "half_rows.h" in ln and "loop vectorized" in ln}
    if platform.machine() in ("x86_64", "aarch64") and not native.sanitize():  # ASan instrumentation stops it
        assert len(vec) >= 4, diag  # the four row loops
    res = subprocess.run([str(exe), "7"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout


@pytest.mark.parametrize("orig,repl", [("0x00400000u", "0x00200000u"), ("_mm_set1_epi16(0x7bff)", "_mm_set1_epi16(0x7c00)"),
                                       ("(short)0x8efe", "(short)0x8f7e")])
def test_harness_catches_a_wrong_bit(tmp_path, orig, repl):
    """The harness fails when one constant of the converters is off (so a pass means something)."""
    src = open(os.path.join(REPO, "libsrc", "common", "half_rows.h")).read()
    assert orig in src
    d = tmp_path / "inc" / "common"
    d.mkdir(parents=True)
    (d / "half_rows.h").write_text(src.replace(orig, repl))
    exe = tmp_path / "bad"
    subprocess.run(["gcc", f"-I{tmp_path / 'inc'}", *FLAGS, SRC, "-o", str(exe)], check=True, capture_output=True)
    res = subprocess.run([str(exe), "255"], capture_output=True, text=True, timeout=600)  # 255 | 0x7f80: NaNs
    assert res.returncode == 1 and "FAILED" in res.stdout, res.stdout
