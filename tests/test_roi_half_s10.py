"""RoiAlign / RoiAlignV2 fp16 forward (libsrc/kernels/roi_align.c): each (box, channel) converts the input window its
sample points read to fp32 once (F16C 8 at a time at AVX2 and above, a block holding a NaN through the table; the
table at the portable level and for column-strided inputs; the old per-corner table path when the window is larger
than the corner loads). Checks: fp16 equal to the fp32 op on the widened inputs rounded once (finite cases), and the
same bytes at every level and for 1 and 2 threads (a digest over cases with quiet and signalling NaN payloads, +-Inf,
subnormal halves, maps narrower than 8 and of odd widths, row-pitched and column-strided views, boxes partly outside,
big boxes with a small grid (the table path), avg and max, aligned or not). The digest is not pinned to a value: a
NaN's payload where two NaNs meet follows the compiled operand order, which the ASan build (-O1) lays out otherwise
(the session's check against main's -O3 build: the same digest)."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import ffi, lib
sys.path.insert(0, "tests")
from helpers import ws_call, run_executor
NCHW, ND = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_ND
T = pyaclnn.AclTensor.from_array
rng = np.random.default_rng(15)
h = hashlib.sha256()

def ra(x, boxes, batch, mode, ph, pw, sr, scale):
    ot = T(np.full((boxes.shape[0], x.shape[1], ph, pw), 7, x.dtype), NCHW)
    keep = [T(x, NCHW), T(boxes, ND), T(batch, ND), ffi.new("char[]", mode.encode())]
    rc, ws, ex, msg = ws_call("RoiAlign", *keep, ph, pw, sr, scale, ot)
    assert rc == 0, msg
    assert run_executor("RoiAlign", ex, ws) == 0
    return ot.numpy()

def ra2(x, b5, ph, pw, scale, sr, aligned):
    ot = T(np.full((b5.shape[0], x.shape[1], ph, pw), 7, x.dtype), NCHW)
    keep = [T(x, NCHW), T(b5, ND)]
    rc, ws, ex, msg = ws_call("RoiAlignV2", *keep, ph, pw, scale, sr, aligned, ot)
    assert rc == 0, msg
    assert run_executor("RoiAlignV2", ex, ws) == 0
    return ot.numpy()

def values(shape, kind):
    x = rng.standard_normal(shape).astype(np.float16)
    u = x.reshape(-1).view(np.uint16)
    if kind == 1:  # subnormal halves, -0
        u[::3] = rng.integers(1, 0x400, u[::3].size) | (rng.integers(0, 2, u[::3].size) << 15)
        u[1::11] = 0x8000
    if kind == 2:  # +-Inf, quiet and signalling NaNs with payloads, both signs
        idx = rng.choice(u.size, max(4, u.size // 40), replace=False)
        pick = np.array([0x7c00, 0xfc00, 0x7e00, 0x7e01, 0x7d55, 0x7c01, 0xfe3f, 0xfd00, 0x7fff], np.uint16)
        u[idx] = pick[rng.integers(0, pick.size, idx.size)]
    return x

def boxes_for(h_, w_, k, big=False):
    x1 = rng.uniform(-3, w_ * 0.8, k); y1 = rng.uniform(-3, h_ * 0.8, k)
    s = (w_ * 0.9, h_ * 0.9) if big else (min(16, w_ * 0.6), min(16, h_ * 0.6))
    x2 = x1 + rng.uniform(0.3, s[0], k); y2 = y1 + rng.uniform(0.3, s[1], k)
    return np.stack([x1, y1, x2, y2], 1).astype(np.float32)

def views(x):
    yield x
    big = np.zeros(x.shape[:3] + (x.shape[3] + 5,), x.dtype)  # row pitch > width
    big[..., 2:x.shape[3] + 2] = x
    yield big[..., 2:x.shape[3] + 2]
    big = np.zeros(x.shape[:3] + (2 * x.shape[3] + 1,), x.dtype)  # column stride 2
    big[..., 1::2] = x
    yield big[..., 1::2]

SHAPES = [(2, 3, 19, 37), (1, 2, 6, 5), (1, 3, 24, 8), (2, 2, 33, 64), (1, 2, 9, 15)]
for (n, c, H, W) in SHAPES:
    for kind in range(3):
        x = values((n, c, H, W), kind)
        for big, sr in ((False, 2), (False, 0), (True, 1), (True, 0)):
            bx = boxes_for(H, W, 9, big)
            batch = rng.integers(0, n, 9).astype(np.int32)
            b5 = np.concatenate([batch[:, None].astype(np.float32), bx], 1)
            for xv in views(x):
                for aligned in (False, True):
                    y = ra2(xv, b5.astype(np.float16), 3, 4, 1.0, sr, aligned)
                    h.update(y.tobytes())
                    y32 = ra2(xv.astype(np.float32), b5.astype(np.float16).astype(np.float32), 3, 4, 1.0, sr, aligned)
                    if kind < 2:
                        assert np.array_equal(y.view(np.uint16), y32.astype(np.float16).view(np.uint16)), (n, c, H, W, kind, big, sr)
                for mode in ("avg", "max"):
                    y = ra(xv, bx.astype(np.float16), batch, mode, 2, 3, sr, 0.75)
                    h.update(y.tobytes())
                    if kind < 2:
                        y32 = ra(xv.astype(np.float32), bx.astype(np.float16).astype(np.float32), batch, mode, 2, 3, sr, 0.75)
                        assert np.array_equal(y.view(np.uint16), y32.astype(np.float16).view(np.uint16)), (mode, kind)
print(h.hexdigest())
"""

def test_roi_align_f16_window_same_bytes_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": "1"}) for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]
    assert run_python(CODE, {"OMP_NUM_THREADS": "2"}) == outs[""]
