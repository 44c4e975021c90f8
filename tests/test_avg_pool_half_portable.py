"""avg_pool2d fp16/bf16 at the portable level (x86-64 SSE2, libsrc/kernels/avg_pool2d.c): forward rows summed
with the halves widened in registers (fp16 in the 2^-112 scaled domain, one exact scale-back), the window sums of
regular stride-2 blocks by shuffles, quotients 4 at a time, rows narrowed in registers; the backward plane's column
sums from regular blocks 8 columns a step. Geometries: stride 2 with 1..5 taps (zero slots inside and at the edges
of regular blocks, partial blocks, rows of nw % 8 tail columns), ceil mode, count_include_pad off,
divisor_override 1 (sums beyond fp16's range: Inf), strided views. Values: normal, fp16 subnormal inputs and
results, sums at the scaled domain's edges (65504, -65504), -0, Inf / NaN inputs (the kernel's own loop). Checks:
fp32 against a float64 loop, fp16/bf16 equal to the fp32 result of the same (widened) input rounded once, and the
same bytes at every level and for 1/2/7 threads."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, "tests")
from reference import avg_pool as ref
rng = np.random.default_rng(57)
h = hashlib.sha256()

def to_bf16(a32):  # round to nearest even on the bits (a NaN: quietened)
    b = a32.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(a32), (b >> 16).astype(np.uint16) | 0x40, r)

def values(shape, kind):
    x = rng.standard_normal(shape).astype(np.float32)
    if kind == 1:  # fp16 subnormals (inputs and results), -0
        x = x * np.float32(2.0 ** -16)
        x.reshape(-1)[::7] = -0.0
    if kind == 2:  # the largest halves: sums far beyond fp16's range (Inf results with divisor_override 1)
        x = np.where(x > 0, np.float32(65504.0), np.float32(-65504.0)) * (rng.random(shape) < 0.9)
        x = x.astype(np.float32)
    if kind == 3:  # one Inf, one NaN (rows redone by the kernel's loop)
        x.reshape(-1, *shape[-2:])[0, 1, 2] = np.inf
        x.reshape(-1, *shape[-2:])[-1, 2, 3] = np.nan
    return x

def check(y, y32, dt, what):
    if dt == np.float16:
        assert np.array_equal(np.ascontiguousarray(y).view(np.uint16),
                              np.ascontiguousarray(y32).astype(np.float16).view(np.uint16)), what
    elif dt != np.float32:
        assert np.array_equal(np.ascontiguousarray(y).view(np.uint16), to_bf16(np.ascontiguousarray(y32))), what

FWD = [((2, 3, 12, 56), 3, 2, 1, False, True, None), ((1, 2, 9, 61), 3, 2, 1, True, False, None),
       ((1, 2, 8, 45), 2, 2, 0, False, True, None), ((1, 2, 7, 83), 1, 2, 0, False, True, None),
       ((1, 2, 9, 77), 5, 2, 2, True, False, None), ((1, 2, 8, 66), 4, 2, 1, False, True, None),
       ((1, 3, 6, 40), 2, 2, 0, False, True, 1), ((1, 2, 10, 26), 3, 2, 1, True, True, None)]
for shape, k, s, p, ceil, cip, div in FWD:
    for kind in range(4):
        x = values(shape, kind)
        for dt in (np.float32, np.float16, pyaclnn.bfloat16):
            xd = x.astype(dt)
            y = pyaclnn.avg_pool2d(xd, k, s, p, ceil, cip, div)
            if dt == np.float32:
                if kind < 2:
                    r = ref.avg_pool2d(x.astype(np.float64), (k, k), (s, s), (p, p), ceil, cip, div)
                    assert np.allclose(y, r, rtol=1e-5, atol=1e-6 * np.abs(x).max()), (shape, k, s, p)
            else:
                check(y, pyaclnn.avg_pool2d(xd.astype(np.float32), k, s, p, ceil, cip, div), dt, (shape, k, kind))
            h.update(np.ascontiguousarray(y).tobytes())
            if kind == 0:  # a column slice of a wider input (row pitch > width)
                big = np.zeros(shape[:3] + (shape[3] + 5,), dt)
                big[..., 2:shape[3] + 2] = xd
                yv = pyaclnn.avg_pool2d(big[..., 2:shape[3] + 2], k, s, p, ceil, cip, div)
                assert np.array_equal(np.ascontiguousarray(yv).view(np.uint8), y.view(np.uint8))

BWD = [((12, 56), 3, 2, 1, False), ((9, 61), 3, 2, 1, True), ((8, 44), 2, 2, 0, False), ((8, 45), 2, 2, 0, True),
       ((7, 83), 1, 2, 0, False), ((9, 77), 5, 2, 2, True), ((8, 66), 4, 2, 1, False), ((10, 26), 3, 2, 1, False)]
for (H, W), k, s, p, ceil in BWD:
    OH = (H + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    OW = (W + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    if ceil and (OH - 1) * s >= H + p: OH -= 1
    if ceil and (OW - 1) * s >= W + p: OW -= 1
    for kind in range(4):
        g = values((2, 3, OH, OW), kind)
        if kind == 2:
            g = g / np.float32(16.0)
        for dt in (np.float32, np.float16, pyaclnn.bfloat16):
            gd = g.astype(dt)
            x = np.zeros((2, 3, H, W), dt)
            y = pyaclnn.avg_pool2d_backward(gd, x, k, stride=s, padding=p, ceil_mode=ceil)
            if dt == np.float32:
                if kind < 2:
                    r = ref.avg_pool2d_backward(g.astype(np.float64), x.shape, (k, k), (s, s), (p, p), ceil)
                    assert np.allclose(y, r, rtol=1e-5, atol=1e-6 * np.abs(g).max()), (H, W, k, s, p)
            else:
                y32 = pyaclnn.avg_pool2d_backward(gd.astype(np.float32), x.astype(np.float32), k, stride=s,
                                                  padding=p, ceil_mode=ceil)
                check(y, y32, dt, (H, W, k, kind))
            h.update(np.ascontiguousarray(y).tobytes())
print(h.hexdigest())
"""


def test_avg_pool_half_portable_rows_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (2, 7)}
    assert outs[2] == outs[7] == outs_1(CODE)


def outs_1(code):
    return run_python(code, {"OMP_NUM_THREADS": "1"})
