"""The library's fp16/bf16 conversions (libsrc/common/dtype.h, used by every kernel) against numpy/ml_dtypes:
every fp16 bit pattern widened, and narrowing at every rounding boundary of both formats plus random values."""
import os
import subprocess

import numpy as np

import native
from helpers import BF16, REPO


def _narrowing_inputs():
    rng = np.random.default_rng(0)
    # every half value, the midpoints between neighbours and one float32 ulp either side of each midpoint
    h = np.arange(0x10000, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    h = h[np.isfinite(h)]
    hs = np.sort(np.unique(h))
    mid = ((hs[:-1].astype(np.float64) + hs[1:]) / 2).astype(np.float32)
    near = [hs, mid, np.nextafter(mid, np.float32(np.inf)), np.nextafter(mid, np.float32(-np.inf))]
    # bf16: every bf16 value's midpoint to its upper neighbour, and +-1 ulp, over the whole exponent range
    b = (np.arange(0x10000, dtype=np.uint32) << 16).view(np.float32)
    b = b[np.isfinite(b)]
    bmid = (b.view(np.uint32) + 0x8000).view(np.float32)
    bmid = bmid[np.isfinite(bmid)]
    near += [b, bmid, np.nextafter(bmid, np.float32(np.inf)), np.nextafter(bmid, np.float32(-np.inf))]
    near.append(rng.standard_normal(200000).astype(np.float32) * np.float32(1000))
    near.append(rng.integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32).view(np.float32))
    near.append(np.array([0.0, -0.0, np.inf, -np.inf, 65504, 65519.99, 65520, 1e-8, -1e-8, 5.96e-8, 2.98e-8,
                          3.4e38, -3.4e38, 1e-45], np.float32))
    x = np.concatenate(near).astype(np.float32)
    return x[~np.isnan(x)]


def test_conversions_match_numpy(tmp_path):
    exe = tmp_path / "dtype_dump"
    subprocess.run(["gcc", "-std=c11", "-O2", *native.san_flags(), "-Wall", "-Werror", f"-I{REPO}/include", f"-I{REPO}/libsrc",
                    os.path.join(REPO, "tests", "c", "dtype_dump.c"), "-o", str(exe)], check=True)
    x = _narrowing_inputs()
    x.tofile(tmp_path / "in.bin")
    subprocess.run([str(exe), tmp_path / "in.bin", tmp_path / "w.bin", tmp_path / "h.bin", tmp_path / "b.bin"],
                   check=True)
    # widening: every fp16 pattern (NaN payloads compared bitwise too)
    widened = np.fromfile(tmp_path / "w.bin", np.float32)
    expect = np.arange(0x10000, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    np.testing.assert_array_equal(widened.view(np.uint32), expect.view(np.uint32))
    # narrowing to fp16 (RNE, overflow to inf, subnormals)
    h = np.fromfile(tmp_path / "h.bin", np.uint16)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(h, x.astype(np.float16).view(np.uint16))
    # narrowing to bf16
    b = np.fromfile(tmp_path / "b.bin", np.uint16)
    np.testing.assert_array_equal(b, x.astype(BF16).view(np.uint16))


def test_nan_narrowing_stays_nan(tmp_path):
    exe = tmp_path / "dtype_dump"
    subprocess.run(["gcc", "-std=c11", "-O2", *native.san_flags(), f"-I{REPO}/include", f"-I{REPO}/libsrc",
                    os.path.join(REPO, "tests", "c", "dtype_dump.c"), "-o", str(exe)], check=True)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF, 0x7F802000], np.uint32).view(np.float32)
    nans.tofile(tmp_path / "in.bin")
    subprocess.run([str(exe), tmp_path / "in.bin", tmp_path / "w.bin", tmp_path / "h.bin", tmp_path / "b.bin"],
                   check=True)
    h = np.fromfile(tmp_path / "h.bin", np.uint16).view(np.float16)
    b = np.fromfile(tmp_path / "b.bin", np.uint16).view(BF16)
    assert np.isnan(h).all() and np.isnan(b.astype(np.float32)).all()
    np.testing.assert_array_equal(np.signbit(h), np.signbit(nans))
