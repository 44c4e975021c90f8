"""The x2 / x2 nearest backward row for fp16 at the portable level (libsrc/kernels/upsample_nearest_exact.c
upnx_2x2_f16_sse2_: the sums carried out on the halves scaled by 2^-112, widened by a bit placement and narrowed by
rounding the fp32 bits). Checks: equal to (0 + (a + b)) + (c + d) in float32 rounded once to fp16 (numpy) for
normal, subnormal, huge (sums overflowing to Inf), -0 and cancelling gradients, with odd widths (the scalar tail);
the general rows (non-integer scales, 1-D) equal to the fp32 op on the widened gradient rounded once; NaN / Inf
rows; and the same bytes at every SIMD level and for 1/2/7 threads."""
from helpers import run_python

CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
rng = np.random.default_rng(43)
h = hashlib.sha256()

def ref(g):  # (0 + (a + b)) + (c + d) per 2x2 block, in float32, rounded once
    g = g.astype(np.float32)
    a, b, c, d = g[..., 0::2, 0::2], g[..., 0::2, 1::2], g[..., 1::2, 0::2], g[..., 1::2, 1::2]
    return ((np.float32(0) + (a + b)) + (c + d)).astype(np.float16)

def run(op, g, hi, wi, nan_ok=False):
    n, c, ho, wo = g.shape
    gt = pyaclnn.AclTensor.from_array(g, lib.ACL_FORMAT_NCHW)
    yt = pyaclnn.AclTensor.empty((n, c, hi, wi), np.float16, lib.ACL_FORMAT_NCHW)
    if op == "UpsampleNearest2dBackward":
        pyaclnn.launch(op, gt, pyaclnn.int_array([ho, wo]), pyaclnn.int_array([n, c, hi, wi]), 2.0, 2.0, yt)
    else:
        pyaclnn.launch(op, gt, pyaclnn.int_array([ho, wo]), pyaclnn.int_array([n, c, hi, wi]), 0.0, 0.0, yt)
    return yt.numpy()

for op in ("UpsampleNearest2dBackward", "UpsampleNearestExact2dBackward"):
    for (hi, wi) in ((8, 16), (5, 27), (3, 40), (4, 7)):
        g = (rng.standard_normal((2, 3, 2 * hi, 2 * wi)) * rng.choice([1e-6, 1e-3, 1, 1e4], (2, 3, 2 * hi, 2 * wi)))
        g = g.astype(np.float16)
        gb = g.view(np.uint16).reshape(-1)
        gb[1::13] = rng.integers(1, 0x400, gb[1::13].size) | (rng.integers(0, 2, gb[1::13].size) << 15)  # subnormal
        gb[2::17] = 0x7bff                      # 65504: two of them in a block overflow to Inf
        gb[3::19] = 0xfbff
        gb[4::23] = 0x8000                      # -0
        gb[5::29] = 0x0400                      # the smallest normal; with a subnormal: boundary sums
        g2 = g.reshape(-1)
        g2[6::31] = -g2[7::31][:g2[6::31].size]  # cancellations: exact zeros
        y = run(op, g, hi, wi)
        e = ref(g)
        assert np.array_equal(y.view(np.uint16), e.view(np.uint16)), (op, hi, wi)
        h.update(y.tobytes())
    # Inf / NaN gradients (signalling and quiet payloads) in some rows: those rows take the element loop
    g = rng.standard_normal((1, 2, 12, 36)).astype(np.float16)
    gb = g.view(np.uint16)
    gb[0, 0, 3, 5], gb[0, 1, 7, 30], gb[0, 1, 8, 2], gb[0, 0, 10, 11] = 0x7c00, 0x7c01, 0xfe05, 0xfc00
    y = run(op, g, 6, 18)
    e = ref(g)
    fin = np.isfinite(e.astype(np.float32))
    assert np.array_equal(y.view(np.uint16)[fin], e.view(np.uint16)[fin])
    assert np.array_equal(np.isnan(y.astype(np.float32)), np.isnan(e.astype(np.float32)))
    h.update(y.tobytes())
# the general rows (non-integer scales, 1-D, sizes): equal to the fp32 op on the widened gradient, rounded once
def run_any(op, g, isz, scales):
    gt = pyaclnn.AclTensor.from_array(g, lib.ACL_FORMAT_NCHW if g.ndim == 4 else lib.ACL_FORMAT_NCL)
    yt = pyaclnn.AclTensor.empty(tuple(isz), g.dtype, lib.ACL_FORMAT_NCHW if g.ndim == 4 else lib.ACL_FORMAT_NCL)
    pyaclnn.launch(op, gt, pyaclnn.int_array(list(g.shape[2:])), pyaclnn.int_array(list(isz)), *scales, yt)
    return yt.numpy()

for op, gshape, isz, scales in (("UpsampleNearest2dBackward", (2, 3, 15, 21), (2, 3, 10, 14), (0.0, 0.0)),
                                ("UpsampleNearestExact2dBackward", (2, 3, 15, 21), (2, 3, 10, 14), (0.0, 0.0)),
                                ("UpsampleNearest2dBackward", (1, 2, 7, 45), (1, 2, 5, 17), (0.0, 0.0)),
                                ("UpsampleNearestExact2dBackward", (1, 2, 9, 10), (1, 2, 4, 33), (0.0, 0.0)),
                                ("UpsampleNearest1dBackward", (2, 5, 60), (2, 5, 30), (2.0,)),
                                ("UpsampleNearestExact1dBackward", (2, 5, 45), (2, 5, 30), (0.0,)),
                                ("UpsampleNearestExact1dBackward", (2, 3, 11), (2, 3, 29), (0.0,))):
    g = (rng.standard_normal(gshape) * rng.choice([1e-6, 1e-3, 1, 1e4], gshape)).astype(np.float16)
    gb = g.view(np.uint16).reshape(-1)
    gb[1::13] = rng.integers(1, 0x400, gb[1::13].size)
    gb[2::17] = 0x7bff
    gb[4::23] = 0x8000
    y = run_any(op, g, isz, scales)
    y32 = run_any(op, g.astype(np.float32), isz, scales)
    assert np.array_equal(y.view(np.uint16), y32.astype(np.float16).view(np.uint16)), (op, gshape, isz)
    h.update(y.tobytes())
    gb[3::41] = (0x7c00, 0xfe05, 0x7c01, 0xfc00) * (gb[3::41].size // 4) + (0x7c00, 0xfe05, 0x7c01)[:gb[3::41].size % 4]
    h.update(run_any(op, g, isz, scales).tobytes())
# 3-D: the depth sums widen the fp16 / bf16 rows in the addition (SSE2), the result rounded by the level's rows
def to_bf16(a32):  # round to nearest even on the bits (no NaN here)
    b = a32.view(np.uint32).astype(np.uint64)
    return ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)

def run3(op, g, isz, scales):
    gt = pyaclnn.AclTensor.from_array(g, lib.ACL_FORMAT_NCDHW)
    yt = pyaclnn.AclTensor.empty(tuple(isz), g.dtype, lib.ACL_FORMAT_NCDHW)
    pyaclnn.launch(op, gt, pyaclnn.int_array(list(g.shape[2:])), pyaclnn.int_array(list(isz)), *scales, yt)
    return yt.numpy()

for op, gshape, isz, scales in (("UpsampleNearest3dBackward", (1, 3, 8, 6, 22), (1, 3, 4, 3, 11), (2.0, 2.0, 2.0)),
                                ("UpsampleNearestExact3dBackward", (1, 2, 9, 6, 27), (1, 2, 6, 4, 18), (0.0, 0.0, 0.0))):
    for dt in (np.float16, pyaclnn.bfloat16):
        g = (rng.standard_normal(gshape) * rng.choice([1e-3, 1, 1e3], gshape)).astype(dt)
        y = run3(op, g, isz, scales)
        y32 = run3(op, g.astype(np.float32), isz, scales)
        e = y32.astype(np.float16).view(np.uint16) if dt == np.float16 else to_bf16(y32)
        assert np.array_equal(y.view(np.uint16), e), (op, dt)
        h.update(y.tobytes())
        gb = g.view(np.uint16).reshape(-1)
        nan = (0x7c00, 0xfe05, 0x7c01, 0xfc00) if dt == np.float16 else (0x7f80, 0xffc5, 0x7f81, 0xff80)
        for k, b in enumerate(nan):
            gb[5 + 7 * k::97] = b
        h.update(run3(op, g, isz, scales).tobytes())
print(h.hexdigest())
"""


def test_nearest_x2_backward_fp16_rows_exact_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t), "PYACLNN_SIMD": "off"}) for t in (1, 2, 7)}
    assert outs[1] == outs[2] == outs[7]
