"""Session 11, half rows at the portable level (issue 15).

RoiAlign / RoiAlignV2 fp16 forward, "avg" mode (libsrc/kernels/roi_align.c): the bins of 16 channels of a box are
sampled together from their windows widened to fp32 and laid out channels last (a channel with a NaN bin goes
through the per-channel loop again). Checked against a literal numpy float32 loop written from the kernel's
formula (geometry in float32 scalars, v += ((w1*v1 + w2*v2) + w3*v3) + w4*v4 over each bin's points, / count,
rounded to fp16 once): every non-NaN output has the reference's bits and the NaNs sit where the reference has them.
Cases: channel counts 8, 16, 19, 21 and 64 (partial blocks), subnormal halves, -0, +-Inf, NaNs with payloads,
maps narrower than 8 and of odd widths, row-pitched, column-strided and channel-strided views, boxes partly or
wholly outside, adaptive and fixed sampling ratios, aligned or not, batch indices outside [0, N); the "max" mode and
small channel counts (the per-channel loops) in the digest too. The same bytes at every PYACLNN_SIMD level and for 1
and 2 threads (a digest, each level in its own process)."""
from helpers import run_python

ROI_CODE = r"""
import hashlib, os, sys, numpy as np, pyaclnn
from pyaclnn import ffi, lib
sys.path.insert(0, "tests")
from helpers import ws_call, run_executor
NCHW, ND = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_ND
T = pyaclnn.AclTensor.from_array
CHECK = os.environ.get("S11_CHECK") == "1"
rng = np.random.default_rng(1115)
h = hashlib.sha256()
f32 = np.float32

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

def axis(start, bin_, bins, g, size):
    pts = []
    for b in range(bins):
        for i in range(g):
            v = (start + f32(b) * bin_) + ((f32(i) + f32(0.5)) * bin_) / f32(g)
            if not (v >= f32(-1.0) and v <= f32(size)):
                pts.append(None)
                continue
            if v <= f32(0.0):
                v = f32(0.0)
            lo = int(v)
            if lo >= size - 1:
                lo = hi = size - 1
                v = f32(lo)
            else:
                hi = lo + 1
            l = v - f32(lo)
            pts.append((lo, hi, f32(1.0) - l, l))
    return pts

def grid(extent, bins, sr):
    if sr > 0:
        return min(sr, 1024)
    g = np.ceil(extent / f32(bins))
    if not g >= 1.0:
        return 0
    return int(min(g, f32(1024)))

def ref(x, boxes, batch, ph, pw, sr, scale, aligned):
    # literal float32 loop over boxes, bins and sample points, vectorised over channels only
    x = np.asarray(x, np.float32)
    N, C, H, W = x.shape
    out = np.zeros((boxes.shape[0], C, ph, pw), np.float32)
    with np.errstate(all="ignore"):
        for k in range(boxes.shape[0]):
            b = batch[k]
            if not (0 <= b < N):
                continue
            off = f32(0.5) if aligned else f32(0.0)
            c = [f32(v) for v in boxes[k]]
            sw_, sh_ = c[0] * f32(scale) - off, c[1] * f32(scale) - off
            ew, eh = c[2] * f32(scale) - off, c[3] * f32(scale) - off
            rw, rh = ew - sw_, eh - sh_
            if not aligned:
                rw, rh = np.fmax(rw, f32(1.0)), np.fmax(rh, f32(1.0))
            bh, bw = rh / f32(ph), rw / f32(pw)
            gh, gw = grid(rh, ph, sr), grid(rw, pw, sr)
            count = f32(max(gh * gw, 1))
            ys, xs = axis(sh_, bh, ph, gh, H), axis(sw_, bw, pw, gw, W)
            zero = np.zeros(C, np.float32)
            for by in range(ph):
                for bx in range(pw):
                    v = np.zeros(C, np.float32)
                    for iy in range(gh):
                        y = ys[by * gh + iy]
                        for ix in range(gw):
                            xp = xs[bx * gw + ix]
                            if y is not None and xp is not None:
                                w1, w2, w3, w4 = y[2] * xp[2], y[2] * xp[3], y[3] * xp[2], y[3] * xp[3]
                                v1, v2 = x[b, :, y[0], xp[0]], x[b, :, y[0], xp[1]]
                                v3, v4 = x[b, :, y[1], xp[0]], x[b, :, y[1], xp[1]]
                            else:
                                w1 = w2 = w3 = w4 = f32(0.0)
                                v1 = v2 = v3 = v4 = zero
                            v = v + (((w1 * v1 + w2 * v2) + w3 * v3) + w4 * v4)
                    out[k, :, by, bx] = v / count
    return out.astype(np.float16)

def same(y, r, what):
    yb, rb = y.view(np.uint16), r.view(np.uint16)
    yn, rn = np.isnan(y), np.isnan(r)
    assert np.array_equal(yn, rn), what
    assert np.array_equal(yb[~yn], rb[~rn]), what

def values(shape, kind):
    x = rng.standard_normal(shape).astype(np.float16)
    u = x.reshape(-1).view(np.uint16)
    if kind == 1:  # subnormal halves, -0
        u[::3] = rng.integers(1, 0x400, u[::3].size) | (rng.integers(0, 2, u[::3].size) << 15)
        u[1::11] = 0x8000
    if kind == 2:  # +-Inf, quiet and signalling NaNs with payloads, both signs
        idx = rng.choice(u.size, max(4, u.size // 60), replace=False)
        pick = np.array([0x7c00, 0xfc00, 0x7e00, 0x7e01, 0x7d55, 0x7c01, 0xfe3f, 0xfd00, 0x7fff], np.uint16)
        u[idx] = pick[rng.integers(0, pick.size, idx.size)]
    return x

def boxes_for(h_, w_, k, big=False):
    x1 = rng.uniform(-4, w_ * 0.85, k); y1 = rng.uniform(-4, h_ * 0.85, k)
    s = (w_ * 0.9, h_ * 0.9) if big else (min(16, w_ * 0.6), min(16, h_ * 0.6))
    x2 = x1 + rng.uniform(0.3, s[0], k); y2 = y1 + rng.uniform(0.3, s[1], k)
    b = np.stack([x1, y1, x2, y2], 1)
    b[0] = (w_ + 3, h_ + 3, w_ + 9, h_ + 7)  # wholly outside
    return b.astype(np.float16)

def views(x):
    yield x
    big = np.zeros(x.shape[:3] + (x.shape[3] + 5,), x.dtype)  # row pitch > width
    big[..., 2:x.shape[3] + 2] = x
    yield big[..., 2:x.shape[3] + 2]
    big = np.zeros(x.shape[:3] + (2 * x.shape[3] + 1,), x.dtype)  # column stride 2
    big[..., 1::2] = x
    yield big[..., 1::2]
    big = np.zeros((x.shape[0], 2 * x.shape[1]) + x.shape[2:], x.dtype)  # channel stride 2 planes
    big[:, 1::2] = x
    yield big[:, 1::2]

SHAPES = [(2, 19, 19, 37), (1, 8, 6, 5), (1, 21, 24, 8), (2, 16, 33, 64), (1, 4, 9, 15), (2, 64, 64, 64)]
for (n, c, H, W) in SHAPES:
    for kind in range(3):
        x = values((n, c, H, W), kind)
        for big, sr in ((False, 2), (False, 0), (True, 1)):
            bx = boxes_for(H, W, 12 if c < 64 else 40, big)
            batch = rng.integers(0, n, bx.shape[0]).astype(np.int32)
            batch[1] = n  # outside [0, N): zeros
            b5 = np.concatenate([batch[:, None].astype(np.float16), bx], 1)
            for vi, xv in enumerate(views(x)):
                if c == 64 and vi:
                    continue
                for aligned in (False, True):
                    y = ra2(xv, b5, 3, 4, 1.0, sr, aligned)
                    h.update(y.tobytes())
                    if CHECK:
                        same(y, ref(xv, bx.astype(np.float32), batch, 3, 4, sr, 1.0, aligned), (n, c, H, W, kind, sr, vi, aligned))
                for mode in ("avg", "max"):
                    y = ra(xv, bx, batch, mode, 2, 3, sr, 0.75)
                    h.update(y.tobytes())
                    if CHECK and mode == "avg":
                        same(y, ref(xv, bx.astype(np.float32), batch, 2, 3, sr, 0.75, False), (n, c, H, W, kind, sr, vi, mode))
print(h.hexdigest())
"""


def test_roi_align_f16_channel_blocks_match_float32_loop_and_levels():
    ref_out = run_python(ROI_CODE, {"PYACLNN_SIMD": "off", "OMP_NUM_THREADS": "1", "S11_CHECK": "1"}, timeout=900)
    outs = {cap: run_python(ROI_CODE, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": "1"}) for cap in ("avx2", "avx512", "")}
    assert outs["avx2"] == outs["avx512"] == outs[""] == ref_out
    assert run_python(ROI_CODE, {"OMP_NUM_THREADS": "2"}) == ref_out
