"""aclnnCIoU, aclnnRoiPoolingWithArgMax and aclnnRoiPoolingGradWithArgMax under PYACLNN_SOC_NAME=Ascend950PR_9599
(libsrc/ops/cv_objdetect_950.c): the op_api's checks for a regbase SoC in their order with their codes, then the
arch35 kernels' values -- against literal numpy float32 loops of the documented formulas (same bytes) and PyTorch
written in torch ops (close) -- for every dtype of the lists, strided views, NaN/Inf/subnormal inputs, and the same
bytes at OMP_NUM_THREADS 1/2/3 and PYACLNN_SIMD=off. The A2 / A3 / unknown-SoC refusals stay as they were."""
import hashlib

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from helpers import REPO, run_executor, run_python, ws_call

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), pyaclnn.bfloat16
I32, I64 = np.dtype(np.int32), np.dtype(np.int64)
NULL_CODE, INVALID, RUNTIME, INNER_NULLPTR = 161001, 161002, 361001, 561103
ND, NCHW = lib.ACL_FORMAT_ND, lib.ACL_FORMAT_NCHW
SOC950 = "Ascend950PR_9599"
f = np.float32


@pytest.fixture(autouse=True)
def soc950(monkeypatch):
    monkeypatch.setenv("PYACLNN_SOC_NAME", SOC950)


def E(shape, dtype=F32, fmt=ND):
    return pyaclnn.AclTensor(shape, dtype, fmt=fmt)


def T(arr):
    return pyaclnn.AclTensor.from_array(arr)


def cstr(s):
    return ffi.new("char[]", s.encode()) if s is not None else ffi.NULL


def expect(op, args, code, word):
    rc, _, ex, msg = ws_call(op, *args)
    assert rc == code, msg
    assert word in msg, msg
    if code:
        assert ex == ffi.NULL, "a failed first phase wrote *executor"
    return ex


def run(op, *args):
    rc, ws, ex, msg = ws_call(op, *args)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0, pyaclnn.recent_error_message()


def strided_out(shape, dt):
    """An output view over every other element of a larger buffer (non-contiguous)."""
    st, acc = [], 2
    for d in reversed(shape):
        st.append(acc)
        acc *= max(d, 1)
    return pyaclnn.AclTensor(shape, dt, strides=tuple(reversed(st)), offset=1)


def same_bits(a, r):
    """float arrays: equal bits where both are numbers, NaN at the same places."""
    a, r = np.asarray(a), np.asarray(r)
    assert a.shape == r.shape and a.dtype == r.dtype
    u = np.dtype(f"u{a.dtype.itemsize}")
    na, nr = np.isnan(a), np.isnan(r)
    assert (na == nr).all(), f"NaN positions differ: {np.argwhere(na != nr)[:5]}"
    bad = (a.view(u) != r.view(u)) & ~na
    assert not bad.any(), f"{bad.sum()} differ, e.g. at {np.argwhere(bad)[:5].tolist()}: {a[bad][:5]} vs {r[bad][:5]}"


# ================================================================ the A2 / A3 / unknown SoC behaviour stays
@pytest.mark.parametrize("soc", ["Ascend910B4", "Ascend910_9391", "SomeOtherSoc"])
def test_other_socs_keep_the_a2_refusal(monkeypatch, soc):
    monkeypatch.setenv("PYACLNN_SOC_NAME", soc)
    expect("CIoU", [E((4, 1024)), E((4, 1024)), False, False, cstr("iou"), E((1, 1024)), E((1, 1024))], RUNTIME,
           "not implemented")
    expect("RoiPoolingWithArgMax", [E((1, 2, 4, 4)), E((3, 5)), 2, 2, 1.0, 1.0, E((3, 2, 2, 2)),
                                    E((3, 2, 2, 2), I32)], RUNTIME, "not implemented")
    expect("RoiPoolingGradWithArgMax", [E((3, 4, 2, 2)), E((1, 4, 8, 8)), E((3, 5)), E((3, 4, 2, 2), I32), 2, 2,
                                        1.0], INNER_NULLPTR, "ascend950")


# ================================================================ CIoU
def mx(a, b):
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a > b, a, b)))


def mn(a, b):
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a < b, a, b)))


def ciou_ref(b, g, trans, iof):
    """The arch35 kernel's steps in float32, one operation at a time (numpy float32 ops round once each)."""
    b, g = np.asarray(b, f), np.asarray(g, f)
    eps, floor, zero, half, one = f(1e-7), f(1e-4), f(0), f(0.5), f(1)
    with np.errstate(all="ignore"):
        if trans:
            w1, h1, w2, h2 = mx(b[2], zero), mx(b[3], zero), mx(g[2], zero), mx(g[3], zero)
            x1a, x2a, y1a, y2a = b[0] - w1 * half, b[0] + w1 * half, b[1] - h1 * half, b[1] + h1 * half
            x1b, x2b, y1b, y2b = g[0] - w2 * half, g[0] + w2 * half, g[1] - h2 * half, g[1] + h2 * half
        else:
            x1a, y1a, x2a, y2a = b
            x1b, y1b, x2b, y2b = g
            w1, h1, w2, h2 = mx(x2a - x1a, zero), mx(y2a - y1a, zero), mx(x2b - x1b, zero), mx(y2b - y1b, zero)
        inter = mx(mn(x2a, x2b) - mx(x1a, x1b), zero) * mx(mn(y2a, y2b) - mx(y1a, y1b), zero)
        area2 = w2 * h2
        den = area2 + eps if iof else ((w1 * h1 + area2) - inter) + eps
        o = inter / mx(den, floor)
        r1 = w1 / mx(h1 + eps, floor)
        r2 = w2 / mx(h2 + eps, floor)
        atan_sub = np.arctan(r1.astype(np.float64)).astype(f) - np.arctan(r2.astype(np.float64)).astype(f)
        if not iof:
            v = (atan_sub * atan_sub) * f(0.4052847345693511)
            o = o - (v / mx((v + one) - o, floor)) * v
        dx = ((x1a + x2a) - (x1b + x2b)) * half
        dy = ((y1a + y2a) - (y1b + y2b)) * half
        cw, ch = mx(x2a, x2b) - mn(x1a, x1b), mx(y2a, y2b) - mn(y1a, y1b)
        o = o - (dx * dx + dy * dy) / mx((cw * cw + ch * ch) + eps, floor)
    return o.reshape(1, -1), atan_sub.reshape(1, -1)


def ciou_torch(b, g):
    """torchvision's complete_box_iou for aligned (x0, y0, x1, y1) pairs, written in torch ops (float64)."""
    import torch
    b = torch.from_numpy(np.asarray(b, np.float64)).T
    g = torch.from_numpy(np.asarray(g, np.float64)).T
    eps = 1e-7
    lt, rb = torch.max(b[:, :2], g[:, :2]), torch.min(b[:, 2:], g[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, 0] * wh[:, 1]
    a1 = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    a2 = (g[:, 2] - g[:, 0]) * (g[:, 3] - g[:, 1])
    iou = inter / (a1 + a2 - inter)
    c_lt, c_rb = torch.min(b[:, :2], g[:, :2]), torch.max(b[:, 2:], g[:, 2:])
    diag = ((c_rb - c_lt) ** 2).sum(dim=1) + eps
    cb, cg = (b[:, :2] + b[:, 2:]) / 2, (g[:, :2] + g[:, 2:]) / 2
    dist = ((cb - cg) ** 2).sum(dim=1)
    atan_sub = torch.atan((b[:, 2] - b[:, 0]) / (b[:, 3] - b[:, 1])) - torch.atan((g[:, 2] - g[:, 0]) /
                                                                              (g[:, 3] - g[:, 1]))
    v = (4 / torch.pi ** 2) * atan_sub ** 2
    alpha = v / (1 - iou + v + eps)
    return (iou - dist / diag - alpha * v).numpy(), atan_sub.numpy()


def boxes(rng, n, trans, special=False):
    xy = rng.uniform(-5, 20, (2, n))
    wh = rng.uniform(0.1, 8, (2, n))
    b = np.concatenate([xy, wh]) if trans else np.concatenate([xy, xy + wh])
    b = b.astype(f)
    if special:
        b[0, 3::97] = np.nan
        b[2, 5::89] = np.inf
        b[1, 7::83] = -np.inf
        b[2, 9::79] = b[0, 9::79]             # zero width
        b[3, 11::73] = b[1, 11::73] - 1.0     # negative height (xyxy) / negative h (xywh)
        b[:, 13::71] = 3e-8                   # subnormal in f16
        b[:, 15::67] = 6e4                    # near f16 max
    return b


@pytest.mark.parametrize("dt", [F32, F16], ids=["f32", "f16"])
@pytest.mark.parametrize("trans", [False, True], ids=["xyxy", "xywh"])
@pytest.mark.parametrize("mode", ["iou", "iof"])
@pytest.mark.parametrize("special", [False, True], ids=["normal", "edges"])
def test_ciou_values(dt, trans, mode, special):
    rng = np.random.default_rng(7 + trans + 2 * special)
    n = 2048
    b = boxes(rng, n, trans, special).astype(dt)
    g = boxes(rng, n, trans, special).astype(dt)
    bt, gt = T(b), T(g)
    o, a = E((1, n), dt), E((1, n), dt)
    run("CIoU", bt, gt, trans, False, cstr(mode), o, a)
    ro, ra = ciou_ref(b.astype(f), g.astype(f), trans, mode == "iof")
    same_bits(o.numpy(), ro.astype(dt))
    same_bits(a.numpy(), ra.astype(dt))


def test_ciou_strided_views():
    rng = np.random.default_rng(3)
    n = 1024
    for dt in (F32, F16):
        b = boxes(rng, n, False, True).astype(dt)
        g = boxes(rng, n, False, True).astype(dt)
        bv = np.zeros((4, 2 * n + 1), dt)[:, 1::2]
        bv[...] = b
        gv = np.ascontiguousarray(g.T).T  # (4, n) through a transpose
        o, a = strided_out((1, n), dt), strided_out((1, n), dt)
        run("CIoU", T(bv), T(gv), False, False, cstr("iou"), o, a)
        ro, ra = ciou_ref(b.astype(f), g.astype(f), False, False)
        same_bits(o.numpy(), ro.astype(dt))
        same_bits(a.numpy(), ra.astype(dt))


def test_ciou_upstream_example_values():
    """The upstream example: bBoxes all 1, gtBoxes all 2, xyxy, iou -> overlap -1, atanSub 0."""
    o, a = E((1, 1024)), E((1, 1024))
    run("CIoU", T(np.ones((4, 1024), f)), T(np.full((4, 1024), 2, f)), False, False, cstr("iou"), o, a)
    assert (o.numpy() == -1).all() and (a.numpy() == 0).all()


def test_ciou_against_torch():
    pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    b, g = boxes(rng, 3072, False), boxes(rng, 3072, False)
    o, a = E((1, 3072)), E((1, 3072))
    run("CIoU", T(b), T(g), False, False, cstr("iou"), o, a)
    to, ta = ciou_torch(b, g)
    np.testing.assert_allclose(o.numpy()[0], to, rtol=0, atol=2e-5)
    np.testing.assert_allclose(a.numpy()[0], ta, rtol=0, atol=2e-6)
    # trans=True: the same boxes as (cx, cy, w, h)
    bc = np.stack([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0], b[3] - b[1]]).astype(f)
    gc = np.stack([(g[0] + g[2]) / 2, (g[1] + g[3]) / 2, g[2] - g[0], g[3] - g[1]]).astype(f)
    run("CIoU", T(bc), T(gc), True, False, cstr("iou"), o, a)
    np.testing.assert_allclose(o.numpy()[0], to, rtol=0, atol=1e-4)


def test_ciou_empty_succeeds_untouched():
    o, a = T(np.full((1, 0), 5, f)), T(np.full((1, 0), 5, f))
    ex = expect("CIoU", [E((4, 0)), E((4, 0)), False, False, cstr("iof"), o, a], 0, "")
    assert run_executor("CIoU", ex) == 0


def ciou_args(b=None, g=None, trans=False, cross=False, mode="iou", o=None, a=None):
    return [E((4, 1024)) if b is None else b, E((4, 1024)) if g is None else g, trans, cross,
            cstr(mode), E((1, 1024)) if o is None else o, E((1, 1024)) if a is None else a]


CIOU_ROWS = [
    # the op_api's order: NULL, dtype match with bBoxes, dtype list, formats, mode NULL, isCross, mode, shapes
    ("b_null", dict(b=ffi.NULL, mode=None), NULL_CODE, "bBoxes"),
    ("g_null", dict(g=ffi.NULL, mode=None), NULL_CODE, "gtBoxes"),
    ("o_null", dict(o=ffi.NULL, g=E((4, 1024), F16)), NULL_CODE, "overlap"),
    ("a_null", dict(a=ffi.NULL, g=E((4, 1024), F16)), NULL_CODE, "atanSub"),
    ("g_f16", dict(g=E((4, 1024), F16), mode=None), INVALID, "gtBoxes"),
    ("o_f16", dict(o=E((1, 1024), F16), mode=None), INVALID, "overlap"),
    ("a_f16", dict(a=E((1, 1024), F16), mode=None), INVALID, "atanSub"),
    ("all_bf16", dict(b=E((4, 1024), BF16), g=E((4, 1024), BF16), o=E((1, 1024), BF16), a=E((1, 1024), BF16),
                      mode=None), INVALID, "bBoxes"),
    ("fmt_nchw", dict(o=E((1, 1024), F32, NCHW), mode=None), INVALID, "format ND"),
    ("mode_null", dict(mode=None, b=E((4, 3))), INVALID, "mode is null"),
    ("cross", dict(cross=True, mode="giou", b=E((4, 3))), INVALID, "isCross"),
    ("mode_giou", dict(mode="giou", b=E((4, 3))), INVALID, "giou"),
    ("b_3d", dict(b=E((4, 1024, 1))), INVALID, "2-D"),
    ("a_1d", dict(a=E((1024,))), INVALID, "2-D"),
    ("b_dim0", dict(b=E((5, 1024))), INVALID, "should be 4"),
    ("g_dim0", dict(g=E((1024, 4))), INVALID, "should be 4"),
    ("n_1000", dict(b=E((4, 1000)), g=E((4, 1000)), o=E((1, 1000)), a=E((1, 1000))), INVALID, "multiple of 1024"),
    ("n_differ", dict(g=E((4, 2048))), INVALID, "should be equal"),
    ("o_n", dict(o=E((1, 2048))), INVALID, "should be equal"),
    ("o_dim0", dict(o=E((2, 1024))), INVALID, "first dim of overlap"),
    ("a_dim0", dict(a=E((4, 1024))), INVALID, "first dim of overlap"),
]


@pytest.mark.parametrize("kw,code,word", [r[1:] for r in CIOU_ROWS], ids=[r[0] for r in CIOU_ROWS])
def test_ciou_invalid(kw, code, word):
    expect("CIoU", ciou_args(**kw), code, word)


# ================================================================ RoiPoolingWithArgMax
def f2i(v):
    v = f(v)
    if np.isnan(v):
        return 0
    return int(max(min(float(v), 9.2e18), -9.2e18))


def roipool_ref(x, rois, PH, PW, ssh, ssw):
    """The documented formula, one roi / bin at a time in float32; first strictly greatest wins, NaN never."""
    x, rois = np.asarray(x, f), np.asarray(rois, f)
    N, C, H, W = x.shape
    R = rois.shape[0]
    ssh, ssw = f(ssh), f(ssw)
    y = np.zeros((R, C, PH, PW), f)
    am = np.full((R, C, PH, PW), -1, np.int32)
    with np.errstate(all="ignore"):
        for n in range(R):
            rb, rx1, ry1, rx2, ry2 = rois[n]
            b = f2i(rb)
            rw, rh = (rx2 - rx1 + f(1)) * ssw, (ry2 - ry1 + f(1)) * ssh
            if rw <= 0 or rh <= 0 or not 0 <= b < N:
                continue
            x1, y1, x2, y2 = rx1 * ssw, ry1 * ssh, (rx2 + f(1)) * ssw, (ry2 + f(1)) * ssh
            bw, bh = (x2 - x1) / f(PW), (y2 - y1) / f(PH)
            for ph in range(PH):
                for pw in range(PW):
                    wa = min(max(f2i(np.floor(f(pw) * bw + x1)), 0), W)
                    ha = min(max(f2i(np.floor(f(ph) * bh + y1)), 0), H)
                    wb = min(max(f2i(np.ceil(f(pw + 1) * bw + x1)), 0), W)
                    hb = min(max(f2i(np.ceil(f(ph + 1) * bh + y1)), 0), H)
                    if hb <= ha or wb <= wa:
                        continue
                    reg = x[b, :, ha:hb, wa:wb].reshape(C, -1)
                    reg = np.where(np.isnan(reg), -np.inf, reg)
                    m = reg.max(axis=1)
                    k = reg.argmax(axis=1)
                    y[n, :, ph, pw] = m
                    am[n, :, ph, pw] = np.where(m == -np.inf, -1, (ha + k // (wb - wa)) * W + wa + k % (wb - wa))
    return y, am


def roi_data(rng, N=2, C=3, H=9, W=11, R=12, special=False):
    x = rng.standard_normal((N, C, H, W)).astype(f)
    x[..., 2, 3] = x[..., 2, 4]  # ties: the first one wins
    if special:
        xf = x.reshape(-1)
        xf[::17] = np.nan
        xf[5::23] = np.inf
        xf[7::29] = -np.inf
        xf[11::31] = 3e-8
        x[1, 2, :, :] = np.nan      # a plane of NaN: y = -inf, argmax = -1
        x[0, 1, 0:3, 0:3] = -np.inf
    rois = np.zeros((R, 5), f)
    rois[:, 0] = rng.integers(0, N, R)
    x1 = rng.uniform(-3, W, R)
    y1 = rng.uniform(-3, H, R)
    rois[:, 1], rois[:, 2] = x1, y1
    rois[:, 3], rois[:, 4] = x1 + rng.uniform(-2, W, R), y1 + rng.uniform(-2, H, R)
    rois[0] = [1, 0, 0, W - 1, H - 1]         # the whole map
    rois[1] = [0, 4, 4, 2, 2]                 # inverted: y 0, argmax -1
    rois[2] = [0, 2.5, 1.5, 2.5, 1.5]         # one pixel wide after the +1
    rois[3] = [0.9, 1, 1, 30, 30]             # batch 0.9 -> 0, beyond the map
    if special:
        rois[4] = [0, np.nan, 1, 3, 3]
    return x, rois


@pytest.mark.parametrize("dt", [F32, F16], ids=["f32", "f16"])
@pytest.mark.parametrize("pooled,scales", [((2, 2), (1.0, 1.0)), ((3, 2), (0.5, 0.25)), ((1, 4), (1.3, 0.7)),
                                           ((5, 7), (1.0, 1.0))], ids=["p2s1", "p32s05", "p14s13", "p57s1"])
@pytest.mark.parametrize("special", [False, True], ids=["normal", "edges"])
def test_roi_pooling_values(dt, pooled, scales, special):
    rng = np.random.default_rng(sum(pooled) + 5 * special)
    x, rois = roi_data(rng, special=special)
    x, rois = x.astype(dt), rois.astype(dt)
    PH, PW = pooled
    R, C = rois.shape[0], x.shape[1]
    y, am = E((R, C, PH, PW), dt), E((R, C, PH, PW), I32)
    run("RoiPoolingWithArgMax", T(x), T(rois), PH, PW, scales[0], scales[1], y, am)
    ry, ram = roipool_ref(x.astype(f), rois.astype(f), PH, PW, scales[0], scales[1])
    same_bits(y.numpy(), ry.astype(dt))
    assert (am.numpy() == ram).all()


def test_roi_pooling_upstream_example_values():
    y, am = E((2, 2, 2, 2)), E((2, 2, 2, 2), I32)
    rois = np.array([[0, 0, 0, 7, 5], [1, 0, 0, 7, 5]], f)
    run("RoiPoolingWithArgMax", T(np.ones((2, 2, 6, 8), f)), T(rois), 2, 2, 1.0, 1.0, y, am)
    assert (y.numpy() == 1).all()
    assert am.numpy().reshape(-1).tolist() == [0, 4, 24, 28] * 4


def test_roi_pooling_strided_views():
    rng = np.random.default_rng(5)
    for dt in (F32, F16):
        x, rois = roi_data(rng, special=True)
        x, rois = x.astype(dt), rois.astype(dt)
        xv = np.zeros(x.shape[:-1] + (2 * x.shape[-1] + 1,), dt)[..., 1::2]
        xv[...] = x
        rv = np.ascontiguousarray(rois.T).T
        R, C = rois.shape[0], x.shape[1]
        y, am = strided_out((R, C, 3, 4), dt), strided_out((R, C, 3, 4), I32)
        run("RoiPoolingWithArgMax", T(xv), T(rv), 3, 4, 0.8, 1.1, y, am)
        ry, ram = roipool_ref(x.astype(f), rois.astype(f), 3, 4, 0.8, 1.1)
        same_bits(y.numpy(), ry.astype(dt))
        assert (am.numpy() == ram).all()


def test_roi_pooling_against_torch():
    """torchvision's roi_pool semantics written in torch ops: with integer rois and scale 1 the rounding of its
    corners is the identity and its bins are the documented ones."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    N, C, H, W, R, PH, PW = 2, 4, 10, 13, 9, 3, 4
    x = rng.standard_normal((N, C, H, W)).astype(f)
    rois = np.zeros((R, 5), f)
    rois[:, 0] = rng.integers(0, N, R)
    rois[:, 1], rois[:, 2] = rng.integers(0, W - 2, R), rng.integers(0, H - 2, R)
    rois[:, 3], rois[:, 4] = rois[:, 1] + rng.integers(0, W, R), rois[:, 2] + rng.integers(0, H, R)
    y, am = E((R, C, PH, PW)), E((R, C, PH, PW), I32)
    run("RoiPoolingWithArgMax", T(x), T(rois), PH, PW, 1.0, 1.0, y, am)
    xt = torch.from_numpy(x)
    out = torch.zeros((R, C, PH, PW))
    for n in range(R):
        b, sw, sh, ew, eh = (int(round(float(v))) for v in rois[n])
        rw, rh = max(ew - sw + 1, 1), max(eh - sh + 1, 1)
        for ph in range(PH):
            for pw in range(PW):
                hs = min(max(int(np.floor(ph * rh / PH)) + sh, 0), H)
                he = min(max(int(np.ceil((ph + 1) * rh / PH)) + sh, 0), H)
                ws = min(max(int(np.floor(pw * rw / PW)) + sw, 0), W)
                we = min(max(int(np.ceil((pw + 1) * rw / PW)) + sw, 0), W)
                if he > hs and we > ws:
                    out[n, :, ph, pw] = torch.amax(xt[b, :, hs:he, ws:we], dim=(1, 2))
    np.testing.assert_array_equal(y.numpy(), out.numpy())
    # argmax points at the maximum
    g = x.reshape(N, C, H * W)
    a = am.numpy()
    vals = np.take_along_axis(g[rois[:, 0].astype(int)], np.maximum(a, 0).reshape(R, C, -1), axis=2)
    np.testing.assert_array_equal(np.where(a >= 0, vals.reshape(a.shape), 0), y.numpy())
    assert (a >= 0).any() and (a < 0).any()


def test_roi_pooling_empty_x_succeeds_untouched():
    y = T(np.full((3, 0, 2, 2), 5, f))
    ex = expect("RoiPoolingWithArgMax", [E((1, 0, 4, 4)), E((3, 5)), 2, 2, 1.0, 1.0, y, E((3, 0, 2, 2), I32)], 0,
                "")
    assert run_executor("RoiPoolingWithArgMax", ex) == 0


def rp_args(x=None, rois=None, ph=2, pw=2, sh=1.0, sw=1.0, y=None, am=None):
    return [E((1, 2, 4, 4)) if x is None else x, E((3, 5)) if rois is None else rois, ph, pw, sh, sw,
            E((3, 2, 2, 2)) if y is None else y, E((3, 2, 2, 2), I32) if am is None else am]


RP_ROWS = [
    # the op_api's order: NULL, dtype lists (x, rois, y), x == rois, x == y, argmax int32, formats ND, ranks,
    # rois dim 1, y / argmax shapes, pooled sizes, spatial scales
    ("x_null", dict(x=ffi.NULL, ph=0), NULL_CODE, "x"),
    ("rois_null", dict(rois=ffi.NULL, x=E((2,), I64)), NULL_CODE, "rois"),
    ("y_null", dict(y=ffi.NULL, x=E((2,), I64)), NULL_CODE, "y"),
    ("am_null", dict(am=ffi.NULL, x=E((2,), I64)), NULL_CODE, "argmax"),
    ("x_bf16", dict(x=E((1, 2, 4, 4), BF16), rois=E((3, 5), I32)), INVALID, "x"),
    ("rois_i32", dict(rois=E((3, 5), I32), y=E((3, 2, 2, 2), I64)), INVALID, "rois"),
    ("y_f64", dict(y=E((3, 2, 2, 2), np.float64), rois=E((3, 5), F16)), INVALID, "y"),
    ("rois_f16", dict(rois=E((3, 5), F16), am=E((3, 2, 2, 2), I64)), INVALID, "rois"),
    ("y_f16", dict(y=E((3, 2, 2, 2), F16), am=E((3, 2, 2, 2), I64)), INVALID, "y"),
    ("am_i64", dict(am=E((3, 2, 2, 2), I64), x=E((1, 2, 4), F32, NCHW)), INVALID, "argmax"),
    ("x_nchw", dict(x=E((1, 2, 4, 4), F32, NCHW), rois=E((3,))), INVALID, "x format"),
    ("am_nchw", dict(am=E((3, 2, 2, 2), I32, NCHW), rois=E((3,))), INVALID, "argmax format"),
    ("x_3d", dict(x=E((2, 4, 4)), rois=E((3,))), INVALID, "x should be 4"),
    ("rois_1d", dict(rois=E((15,)), y=E((3, 2, 2))), INVALID, "rois should be 2"),
    ("rois_6", dict(rois=E((3, 6)), y=E((3, 2, 2))), INVALID, "dim1 must be 5"),
    ("y_3d", dict(y=E((3, 2, 2)), am=E((3, 2, 2), I32)), INVALID, "y should be 4"),
    ("am_3d", dict(am=E((3, 2, 2), I32), ph=0), INVALID, "argmax should be 4"),
    ("y_rois", dict(y=E((4, 2, 2, 2)), ph=0), INVALID, "y shape must be"),
    ("y_c", dict(y=E((3, 3, 2, 2)), ph=0), INVALID, "y shape must be"),
    ("y_ph", dict(y=E((3, 2, 3, 2))), INVALID, "y shape must be"),
    ("am_pw", dict(am=E((3, 2, 2, 3), I32), sh=0.0), INVALID, "argmax shape must be"),
    ("pooled_zero", dict(ph=0, y=E((3, 2, 0, 2)), am=E((3, 2, 0, 2), I32), sh=0.0), INVALID, "pooled_h"),
    ("pooled_neg", dict(pw=-1, y=E((3, 2, 2, 0)), am=E((3, 2, 2, 0), I32)), INVALID, "y shape must be"),
    ("scale_zero", dict(sh=0.0), INVALID, "spatial_scale"),
    ("scale_neg", dict(sw=-1.0), INVALID, "spatial_scale"),
]


@pytest.mark.parametrize("kw,code,word", [r[1:] for r in RP_ROWS], ids=[r[0] for r in RP_ROWS])
def test_roi_pooling_invalid(kw, code, word):
    expect("RoiPoolingWithArgMax", rp_args(**kw), code, word)


# ================================================================ RoiPoolingGradWithArgMax
def grad_ref(go, am, rois, gi_shape, PH, PW):
    """gradInput = 0, then every gradOutput element added at its argmax, in ascending flat index (float32)."""
    go, rois = np.asarray(go, f), np.asarray(rois, f)
    N, C, H, W = gi_shape
    gi = np.zeros((N, C, H * W), f)
    Cg, P, R = go.shape[1], PH * PW, rois.shape[0]
    fg, fa = go.reshape(-1), np.asarray(am).reshape(-1)
    with np.errstate(all="ignore"):
        for i in range(fg.size):
            n, c = i // (P * Cg), (i // P) % Cg
            if n >= R:
                continue
            bv = rois[n, 0]
            if np.isnan(bv) or not -2.0 ** 31 <= float(bv) < 2.0 ** 31:
                continue
            b, a = int(bv), int(fa[i])
            if 0 <= b < N and 0 <= a < H * W:
                gi[b, c, a] = gi[b, c, a] + fg[i]
    return gi.reshape(gi_shape)


def grad_case(rng, dt, special=False, N=3, C=4, H=7, W=9, R=10, PH=3, PW=2):
    go = rng.standard_normal((R, C, PH, PW)).astype(f)
    am = rng.integers(-1, H * W, (R, C, PH, PW)).astype(np.int32)
    am[..., 0, 0] = 5  # collisions: several rois add into one cell
    rois = np.zeros((R, 5), f)
    rois[:, 0] = rng.integers(0, N, R)
    rois[:, 0][::3] = 1
    if special:
        gf = go.reshape(-1)
        gf[::13] = np.nan
        gf[3::17] = np.inf
        gf[5::19] = -np.inf
        gf[7::11] = 3e-8
        rois[2, 0] = 1.7   # truncated to 1
    return go.astype(dt), am, rois.astype(dt), (N, C, H, W)


@pytest.mark.parametrize("dt", [F32, F16], ids=["f32", "f16"])
@pytest.mark.parametrize("special", [False, True], ids=["normal", "edges"])
def test_roi_pooling_grad_values(dt, special):
    rng = np.random.default_rng(21 + special)
    go, am, rois, gis = grad_case(rng, dt, special)
    gi = T(np.full(gis, 7, dt))  # overwritten, not accumulated into
    run("RoiPoolingGradWithArgMax", T(go), gi, T(rois), T(am), 3, 2, 1.0)
    ref = grad_ref(go.astype(f), am, rois.astype(f), gis, 3, 2)
    same_bits(gi.numpy(), ref.astype(dt))


def test_roi_pooling_grad_strided_and_pooled_attr():
    rng = np.random.default_rng(4)
    for dt in (F32, F16):
        go, am, rois, gis = grad_case(rng, dt, True)
        gov = np.zeros(go.shape[:-1] + (2 * go.shape[-1] + 1,), dt)[..., 1::2]
        gov[...] = go
        amv = np.ascontiguousarray(am.transpose(3, 2, 1, 0)).transpose(3, 2, 1, 0)
        gi = strided_out(gis, dt)
        run("RoiPoolingGradWithArgMax", T(gov), gi, T(rois), T(amv), 3, 2, 0.5)
        same_bits(gi.numpy(), grad_ref(go.astype(f), am, rois.astype(f), gis, 3, 2).astype(dt))
        # one pooled attribute off (the op_api lets it through): the kernel decomposes the flat index with the
        # attributes, pooledH * pooledW = 3 * 5 here
        gi2 = E(gis, dt)
        run("RoiPoolingGradWithArgMax", T(go), gi2, T(rois), T(am), 3, 5, 1.0)
        same_bits(gi2.numpy(), grad_ref(go.astype(f), am, rois.astype(f), gis, 3, 5).astype(dt))


def test_roi_pooling_grad_of_forward_against_torch():
    """Forward then backward; the gradient is torch's index_add of gradOutput at the argmax (float64, close)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    x, rois = roi_data(rng, N=2, C=3, H=9, W=11, R=12)
    R, C, (N, _, H, W) = rois.shape[0], x.shape[1], x.shape
    y, am = E((R, C, 3, 3)), E((R, C, 3, 3), I32)
    run("RoiPoolingWithArgMax", T(x), T(rois), 3, 3, 1.0, 1.0, y, am)
    go = rng.standard_normal((R, C, 3, 3)).astype(f)
    gi = E(x.shape)
    run("RoiPoolingGradWithArgMax", T(go), gi, T(rois), am, 3, 3, 1.0)
    a = torch.from_numpy(am.numpy().astype(np.int64))
    b = torch.from_numpy(rois[:, 0].astype(np.int64))
    plane = (b[:, None, None, None] * C + torch.arange(C)[None, :, None, None]).expand_as(a)
    flat = (plane * H * W + a)[a >= 0]
    ref = torch.zeros(N * C * H * W, dtype=torch.float64)
    ref.index_add_(0, flat, torch.from_numpy(go.astype(np.float64))[a >= 0])
    np.testing.assert_allclose(gi.numpy().reshape(-1), ref.numpy(), rtol=1e-6, atol=1e-6)


def test_roi_pooling_grad_upstream_example_values():
    gi = T(np.ones((4, 32, 3, 3), f))
    run("RoiPoolingGradWithArgMax", T(np.ones((1, 32, 2, 2), f)), gi, T(np.array([[0, 0, 1, 0, 1]], f)),
        T(np.full((1, 32, 2, 2), 3, np.int32)), 2, 2, 1.0)
    exp = np.zeros((4, 32, 9), f)
    exp[0, :, 3] = 4
    np.testing.assert_array_equal(gi.numpy().reshape(4, 32, 9), exp)


def test_roi_pooling_grad_empty_succeeds():
    ex = expect("RoiPoolingGradWithArgMax", [E((0, 4, 2, 2)), E((1, 4, 8, 8)), E((0, 5)), E((0, 4, 2, 2), I32), 2,
                                             2, 1.0], 0, "")
    assert run_executor("RoiPoolingGradWithArgMax", ex) == 0


def rpg_args(go=None, gi=None, rois=None, am=None, ph=2, pw=2, scale=1.0):
    return [E((3, 4, 2, 2)) if go is None else go, E((1, 4, 8, 8)) if gi is None else gi,
            E((3, 5)) if rois is None else rois, E((3, 4, 2, 2), I32) if am is None else am, ph, pw, scale]


RPG_ROWS = [
    # op_api: NULL, dtype lists, formats (regbase: no private format, one format for all), shapes, pooled sizes;
    # then the l0 op: one dtype for grad / x / rois (OpDef), tiling sizes -> 561103
    ("go_null", dict(go=ffi.NULL), NULL_CODE, "gradOutput"),
    ("gi_null", dict(gi=ffi.NULL, go=E((3, 4, 2, 2), I64)), NULL_CODE, "gradInputRef"),
    ("go_bf16", dict(go=E((3, 4, 2, 2), BF16), rois=E((3,), I32)), INVALID, "gradOutput"),
    ("am_i64", dict(am=E((3, 4, 2, 2), I64), gi=E((3,), I32)), INVALID, "argmax"),
    ("gi_nc1hwc0", dict(gi=E((1, 4, 8, 8), F32, lib.ACL_FORMAT_NC1HWC0), go=E((3, 4, 2))), INVALID, "private"),
    ("gi_nchw", dict(gi=E((1, 4, 8, 8), F32, NCHW), go=E((3, 4, 2))), INVALID, "Format of input and output"),
    ("all_nchw", dict(go=E((3, 4, 2, 2), F32, NCHW), gi=E((1, 4, 8, 8), F32, NCHW), rois=E((3, 5), F32, NCHW),
                      am=E((3, 4, 2, 2), I32, NCHW), ph=0), INVALID, "pooledH"),
    ("go_3d", dict(go=E((3, 4, 2)), rois=E((3,))), INVALID, "gradOutput"),
    ("rois_n", dict(rois=E((4, 5)), ph=0), INVALID, "rois dim 0"),
    ("rois_1025", dict(go=E((1025, 4, 1, 1)), rois=E((1025, 5)), am=E((1025, 4, 1, 1), I32), ph=1, pw=1),
     INVALID, "1024"),
    ("am_shape", dict(am=E((3, 4, 2, 3), I32), ph=0), INVALID, "argmax"),
    ("pooled_both", dict(ph=3, pw=3), INVALID, "pooledH"),
    ("am_c", dict(gi=E((1, 5, 8, 8)), ph=0), INVALID, "gradInputRef dim 1"),
    ("pooled_zero", dict(go=E((3, 4, 0, 2)), am=E((3, 4, 0, 2), I32), ph=0, pw=2), INVALID, "pooledH"),
    ("mixed_f16_f32", dict(go=E((3, 4, 2, 2), F16), rois=E((3, 5), F16)), INNER_NULLPTR, "one dtype"),
    ("rois_f16", dict(rois=E((3, 5), F16)), INNER_NULLPTR, "one dtype"),
    ("gi_empty", dict(gi=E((0, 4, 8, 8))), INNER_NULLPTR, "tiling"),
]


@pytest.mark.parametrize("kw,code,word", [r[1:] for r in RPG_ROWS], ids=[r[0] for r in RPG_ROWS])
def test_roi_pooling_grad_invalid(kw, code, word):
    expect("RoiPoolingGradWithArgMax", rpg_args(**kw), code, word)


# ================================================================ the same bytes for every thread count / level
BYTES_CODE = """
import hashlib, sys
sys.path.insert(0, %(tests)r)
import numpy as np, pyaclnn
from pyaclnn import ffi
from helpers import ws_call, run_executor
f = np.float32
rng = np.random.default_rng(1)
h = hashlib.sha256()
def run(op, *a):
    rc, ws, ex, msg = ws_call(op, *a)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0
T = pyaclnn.AclTensor.from_array
for dt in (np.float32, np.float16):
    n = 8192
    b = rng.uniform(0, 9, (4, n)).astype(f); b[2:] += b[:2]
    b.reshape(-1).view(np.uint32)[::97] = 0x7fc00001
    b.reshape(-1).view(np.uint32)[5::89] = 0xff812345  # NaNs of other payloads (signalling, sign set)
    g = rng.uniform(0, 9, (4, n)).astype(f); g[2:] += g[:2]
    for trans in (False, True):
        for mode in (b"iou", b"iof"):
            o = pyaclnn.AclTensor((1, n), dt); a = pyaclnn.AclTensor((1, n), dt)
            run("CIoU", T(b.astype(dt)), T(g.astype(dt)), trans, False, ffi.new("char[]", mode), o, a)
            h.update(o.numpy().tobytes()); h.update(a.numpy().tobytes())
    x = rng.standard_normal((3, 24, 20, 24)).astype(f); x.reshape(-1)[::31] = np.nan
    R = 64
    rois = np.zeros((R, 5), f); rois[:, 0] = rng.integers(0, 3, R)
    rois[:, 1:3] = rng.uniform(-2, 18, (R, 2)); rois[:, 3:5] = rois[:, 1:3] + rng.uniform(-1, 12, (R, 2))
    y = pyaclnn.AclTensor((R, 24, 4, 5), dt); am = pyaclnn.AclTensor((R, 24, 4, 5), np.int32)
    run("RoiPoolingWithArgMax", T(x.astype(dt)), T(rois.astype(dt)), 4, 5, 0.75, 1.0, y, am)
    h.update(y.numpy().tobytes()); h.update(am.numpy().tobytes())
    go = rng.standard_normal((R, 24, 4, 5)).astype(f)
    go.reshape(-1).view(np.uint32)[::53] = 0x7fc0abcd
    go.reshape(-1).view(np.uint32)[7::61] = 0xff800001
    go = go.astype(dt)
    gi = pyaclnn.AclTensor((3, 24, 20, 24), dt)
    run("RoiPoolingGradWithArgMax", T(go), gi, T(rois.astype(dt)), am, 4, 5, 1.0)
    h.update(gi.numpy().tobytes())
print(h.hexdigest())
"""


def test_same_bytes_threads_and_levels():
    import os
    code = BYTES_CODE % {"tests": os.path.join(REPO, "tests")}
    outs = {}
    for env in ({"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "2"}, {"OMP_NUM_THREADS": "3"},
                {"OMP_NUM_THREADS": "2", "PYACLNN_SIMD": "off"}, {"OMP_NUM_THREADS": "2", "PYACLNN_SIMD": "avx2"}):
        outs[tuple(env.items())] = run_python(code, dict(env, PYACLNN_SOC_NAME=SOC950))
    assert len(set(outs.values())) == 1, outs
