"""Session 17 fast paths of the sampling ops of issue 13 (bench/bench_sampling.py): Im2col's bit copy (out of x's
dtype). Each result is compared byte for byte with a literal numpy reference (edge values: signalling and quiet NaNs
with payloads, +-Inf, subnormals, -0; odd widths; strided input and output views), and its bytes must be the same
for OMP_NUM_THREADS 1/2/3 and every PYACLNN_SIMD level."""
import hashlib

import numpy as np
import pytest

import pyaclnn
from helpers import REPO, strided, same_bytes_for_threads_and_levels

BF16 = pyaclnn.bfloat16
DTS = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": np.dtype(BF16)}
# the bits of: sNaN, negative sNaN, qNaN with a payload, +Inf, -Inf, the smallest subnormal, -largest subnormal, -0
SPECIAL = {
    "f32": [0x7f800001, 0xffa00005, 0x7fc12345, 0x7f800000, 0xff800000, 0x00000001, 0x807fffff, 0x80000000],
    "f16": [0x7c01, 0xfd05, 0x7e33, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x8000],
    "bf16": [0x7f81, 0xffa5, 0x7fc3, 0x7f80, 0xff80, 0x0001, 0x807f, 0x8000],
}
QUIET = {"f32": 0x00400000, "f16": 0x0200, "bf16": 0x0040}


def _ut(dt):
    return np.uint32 if DTS[dt].itemsize == 4 else np.uint16


def special(rng, shape, dt):
    """standard normal values with every SPECIAL bit pattern planted at random places"""
    x = rng.standard_normal(shape).astype(np.float32).astype(DTS[dt])
    flat = x.reshape(-1).view(_ut(dt))
    pos = rng.choice(flat.size, min(flat.size, 40), replace=False)
    for i, p in enumerate(pos):
        flat[p] = SPECIAL[dt][i % len(SPECIAL[dt])]
    return x


def quieted(bits, dt):
    """the NaN rule's result bits of a copy: a NaN keeps its payload with the quiet bit set"""
    b = np.asarray(bits).copy()
    if dt == "f32":
        nan = (b & 0x7fffffff) > 0x7f800000
    elif dt == "f16":
        nan = (b & 0x7fff) > 0x7c00
    else:
        nan = (b & 0x7fff) > 0x7f80
    b[nan] |= QUIET[dt]
    return b


# ---------------------------------------------------------------- Im2col

# (shape, kernel, dilation, padding, stride)
IM2COL = [
    ((2, 3, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((3, 5, 7), (2, 3), (1, 2), (1, 0), (2, 1)),
    ((1, 4, 13, 6), (2, 2), (1, 1), (0, 0), (2, 2)),
    ((2, 2, 5, 5), (3, 2), (2, 3), (2, 1), (3, 2)),
    ((1, 2, 3, 4), (5, 5), (1, 1), (3, 3), (1, 1)),   # kernel taps entirely in the padding
    ((1, 8, 33, 67), (3, 3), (1, 1), (1, 1), (1, 1)),
]


def im2col_ref(x, k, d, p, s):
    """literal loop: out[n, (c, ki, kj), (i, j)] = x[n, c, i s0 - p0 + ki d0, j s1 - p1 + kj d1] or +0"""
    b = x[None] if x.ndim == 3 else x
    N, C, H, W = b.shape
    oh = (H + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (W + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((N, C * k[0] * k[1], oh * ow), x.dtype)
    for n in range(N):
        for c in range(C):
            for ki in range(k[0]):
                for kj in range(k[1]):
                    row = (c * k[0] + ki) * k[1] + kj
                    for i in range(oh):
                        y = i * s[0] - p[0] + ki * d[0]
                        if not 0 <= y < H:
                            continue
                        for j in range(ow):
                            xx = j * s[1] - p[1] + kj * d[1]
                            if 0 <= xx < W:
                                out[n, row, i * ow + j] = b[n, c, y, xx]
    return out[0] if x.ndim == 3 else out


def im2col_results(dt, seed=5):
    """(label, out) of every IM2COL case x input view (contiguous / slice / transpose) x output view"""
    rng = np.random.default_rng(seed)
    res = []
    for shape, k, d, p, s in IM2COL:
        img = special(rng, shape, dt)
        L = [(shape[-2 + i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
        oshape = shape[:-3] + (shape[-3] * k[0] * k[1], L[0] * L[1])
        for view in ("c", "slice", "transpose"):
            xin = img if view == "c" else strided(img, view)
            for oview in ("c", "slice"):
                if oview == "c":
                    o = np.full(oshape, 7, DTS[dt])
                else:
                    o = np.full(oshape[:-1] + (oshape[-1] * 2,), 7, DTS[dt])[..., ::2]
                pyaclnn.call("Im2col", xin, list(k), list(d), list(p), list(s), o)
                res.append((f"{shape} k{k} d{d} p{p} s{s} {view}/{oview}", img, (k, d, p, s), o))
    return res


@pytest.mark.parametrize("dt", list(DTS))
def test_im2col_bytes_vs_reference(dt):
    for label, img, (k, d, p, s), o in im2col_results(dt):
        exp = quieted(im2col_ref(img, k, d, p, s).view(_ut(dt)), dt)
        got = np.ascontiguousarray(o).view(_ut(dt))
        assert np.array_equal(got, exp), f"{dt} {label}: {np.count_nonzero(got != exp)} elements differ"


def _digest_code(fn, dt):
    return (f"import sys, hashlib; sys.path.insert(0, {REPO + '/tests'!r})\n"
            f"import numpy as np, test_sampling_fast_s17 as t\n"
            f"h = hashlib.sha1()\n"
            f"for r in t.{fn}({dt!r}): h.update(np.ascontiguousarray(r[-1]).tobytes())\n"
            f"print(h.hexdigest())\n")


@pytest.mark.parametrize("dt", list(DTS))
def test_im2col_same_bytes_threads_levels(dt):
    same_bytes_for_threads_and_levels(_digest_code("im2col_results", dt), threads=(1, 2, 3))
