"""The Atlas-inference-only objdetect ops under PYACLNN_SOC_NAME=Ascend310P3 (libsrc/ops/cv_objdetect_310p.c):
aclnnBackgroundReplace, aclnnBlendImagesCustom, aclnnMrgbaCustom (generated aclnn of ascend310p OpDefs) and
aclnnNonMaxSuppression (op_api path of NpuArch DAV_2002). Values against literal numpy loops of the documented
formulas with the kernels' rounding steps (and a torch greedy NMS for one class), every dtype of the 310P lists,
non-contiguous views, the invalid-input tables with the 310P codes, the same bytes at OMP_NUM_THREADS=1/2/3, and
the A2 refusals unchanged when the SoC is not a 310P."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
import os

from helpers import REPO, run_executor, run_python, same_bytes_for_threads, strided, ws_call

F32, F16, U8 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.uint8)
I32, I64 = np.dtype(np.int32), np.dtype(np.int64)
NULL_CODE, INVALID, RUNTIME, INNER_NULLPTR = 161001, 161002, 361001, 561103
ND, NCHW = lib.ACL_FORMAT_ND, lib.ACL_FORMAT_NCHW
SOC = "Ascend310P3"


@pytest.fixture(autouse=True)
def soc_310p(monkeypatch):
    monkeypatch.setenv("PYACLNN_SOC_NAME", SOC)


def T(a, fmt=None):
    return pyaclnn.AclTensor.from_array(a, fmt=fmt)


def E(shape, dtype=F32, fmt=ND):
    return pyaclnn.AclTensor(shape, dtype, fmt=fmt)


def run(op, args):
    rc, ws, ex, msg = ws_call(op, *args)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0


def expect(op, args, code, word):
    rc, _, ex, msg = ws_call(op, *args)
    assert rc == code, msg
    assert word in msg, msg
    assert ex == ffi.NULL


# ---------------------------------------------------------------- references (literal loops)
def h(x):
    """float64 -> half, RNE, back to float64 (numpy converts double to half directly: one rounding)"""
    return np.float64(np.float16(x))


def h_to_u8(x, floor=False):
    if np.isnan(x):
        return 0
    r = np.floor(x) if floor else np.rint(x)
    return int(min(max(r, 0.0), 255.0))


RATIO = h(0.003921568627451)


def ref_background_replace(bkg, src, mask):
    b, s, m = bkg.reshape(-1), src.reshape(-1), mask.reshape(-1)
    C = b.size // m.size if m.size else 1
    out = np.empty(b.size, bkg.dtype)
    for i in range(b.size):
        if bkg.dtype == U8:
            bk, sr, mk = float(b[i]), float(s[i]), float(m[i // C])
            t1, t2 = h(sr * mk), h(bk * mk)
            out[i] = h_to_u8(h(h(bk - t2) + t1))
        else:
            bk, sr, mk = np.float32(b[i]), np.float32(s[i]), np.float32(m[i // C])
            with np.errstate(all="ignore"):
                out[i] = np.float16((bk - bk * mk) + sr * mk)
    return out.reshape(bkg.shape)


def ref_blend(rgb, alpha, frame):
    r, a_, f = rgb.reshape(-1), alpha.reshape(-1), frame.reshape(-1)
    out = np.empty(r.size, U8)
    for i in range(r.size):
        a = h(float(a_[i // 3]) * RATIO)
        fa, ra = h(float(f[i]) * a), h(float(r[i]) * a)
        out[i] = h_to_u8(h(h(float(f[i]) - fa) + ra))
    return out.reshape(frame.shape)


def ref_mrgba(rgb, alpha):
    r, a_ = rgb.reshape(-1), alpha.reshape(-1)
    out = np.empty(r.size, U8)
    for i in range(r.size):
        a = h(float(a_[i // 3]) * RATIO)
        out[i] = h_to_u8(h(float(r[i]) * a), floor=True)
    return out.reshape(rgb.shape)


def same_f16(got, want):
    g, w = got.reshape(-1), want.reshape(-1)
    assert np.array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    assert np.array_equal(g[ok].view(np.uint16), w[ok].view(np.uint16))


# ---------------------------------------------------------------- BackgroundReplace
def br_data(rng, shape, mshape, dt, special=False):
    if dt == U8:
        b = rng.integers(0, 256, shape).astype(U8)
        s = rng.integers(0, 256, shape).astype(U8)
        b.reshape(-1)[:4] = [0, 255, 255, 0]
        s.reshape(-1)[:4] = [255, 0, 255, 0]
    else:
        b = rng.uniform(-20, 20, shape).astype(F16)
        s = rng.uniform(-20, 20, shape).astype(F16)
        if special:
            f = b.reshape(-1)
            f[::13] = np.inf
            f[3::17] = -np.inf
            f[5::19] = np.nan
            f[7::11] = np.float16(6e-8)  # subnormal halves
            s.reshape(-1)[2::7] = np.float16(-3e-6)
    m = rng.uniform(0, 1, mshape).astype(F16)
    m.reshape(-1)[:3] = [0.0, 1.0, 0.5]
    if special and dt == F16:
        m.reshape(-1)[9::23] = np.nan
    return b, s, m


@pytest.mark.parametrize("dt", [F16, U8], ids=["f16", "u8"])
@pytest.mark.parametrize("c", [1, 3])
def test_background_replace_values(dt, c):
    rng = np.random.default_rng(1 + c)
    shape, mshape = (7, 9, c), (7, 9, 1)
    b, s, m = br_data(rng, shape, mshape, dt, special=True)
    o = E(shape, dt)
    run("BackgroundReplace", [T(b), T(s), T(m), o])
    want = ref_background_replace(b, s, m)
    if dt == F16:
        same_f16(o.numpy(), want)
    else:
        assert np.array_equal(o.numpy(), want)


@pytest.mark.parametrize("dt", [F16, U8], ids=["f16", "u8"])
def test_background_replace_strided_and_example_shape(dt):
    rng = np.random.default_rng(5)
    b, s, m = br_data(rng, (5, 6, 3), (5, 6, 1), dt)
    out_base = np.zeros((5, 6, 7), dt)
    o = T(out_base)
    ov = pyaclnn.AclTensor((5, 6, 3), dt, strides=(42, 7, 2), offset=1, buffer=o.buffer)
    run("BackgroundReplace", [T(strided(b)), T(strided(s, "transpose")), T(strided(m)), ov])
    want = ref_background_replace(b, s, m)
    got = ov.numpy()
    if dt == F16:
        same_f16(got, want)
    else:
        assert np.array_equal(got, want)
    # the untouched gaps of the strided output stay zero
    raw = o.numpy()
    foot = np.zeros(raw.size, bool)
    idx = 1 + np.add.outer(np.add.outer(np.arange(5) * 42, np.arange(6) * 7), np.arange(3) * 2).reshape(-1)
    foot[idx] = True
    assert not raw.reshape(-1)[~foot].view(np.uint8 if dt == U8 else np.uint16).any()
    # the doc's C = 1 case: every element its own mask value (shape [4, 2])
    b2, s2, m2 = br_data(rng, (4, 2), (4, 2), dt)
    o2 = E((4, 2), dt)
    run("BackgroundReplace", [T(b2), T(s2), T(m2), o2])
    w2 = ref_background_replace(b2, s2, m2)
    if dt == F16:
        same_f16(o2.numpy(), w2)
    else:
        assert np.array_equal(o2.numpy(), w2)


def test_background_replace_example_values():
    """The upstream example: mask all ones -> out = src."""
    b = np.arange(8, dtype=U8).reshape(4, 2)
    s = (np.arange(8) + 1).astype(U8).reshape(4, 2)
    m = np.ones((4, 2), F16)
    o = E((4, 2), U8)
    run("BackgroundReplace", [T(b), T(s), T(m), o])
    assert o.numpy().reshape(-1).tolist() == [1, 2, 3, 4, 5, 6, 7, 8]


def test_background_replace_empty():
    o = E((0, 4, 3), U8)
    run("BackgroundReplace", [E((0, 4, 3), U8), E((0, 4, 3), U8), E((0, 4, 1), F16), o])


def br_args(bkg=None, src=None, mask=None, out=None):
    return [E((2, 3, 3), U8) if bkg is None else bkg, E((2, 3, 3), U8) if src is None else src,
            E((2, 3, 1), F16) if mask is None else mask, E((2, 3, 3), U8) if out is None else out]


BR_ROWS = [
    ("bkg_null", dict(bkg=ffi.NULL, src=E((1,), np.float64)), NULL_CODE, "bkg"),
    ("src_null", dict(src=ffi.NULL, mask=E((1,), np.float64)), NULL_CODE, "src"),
    ("mask_null", dict(mask=ffi.NULL, out=E((1,), np.float64)), NULL_CODE, "mask"),
    ("out_null", dict(out=ffi.NULL, bkg=E((1,), np.float64)), NULL_CODE, "out"),
    ("bkg_f32", dict(bkg=E((2, 3, 3), F32), src=E((2, 3, 3), F32), out=E((2, 3, 3), F32)), INVALID, "bkg"),
    ("src_mixed", dict(src=E((2, 3, 3), F16)), INVALID, "src"),
    ("mask_u8", dict(mask=E((2, 3, 1), U8)), INVALID, "mask"),
    ("mask_f32", dict(mask=E((2, 3, 1), F32), bkg=E((2, 3, 3), F16), src=E((2, 3, 3), F16),
                      out=E((2, 3, 3), F16)), INVALID, "mask"),
    ("out_f16", dict(out=E((2, 3, 3), F16), mask=E((5,), F16)), INVALID, "out"),
    ("fmt", dict(mask=E((2, 3, 1), F16, NCHW), src=E((9,), U8)), INVALID, "mask format"),
    ("src_shape", dict(src=E((2, 3, 2), U8)), INVALID, "src shape"),
    ("out_shape", dict(out=E((2, 9), U8)), INVALID, "out shape"),
    ("mask_shape", dict(mask=E((2, 2, 1), F16)), INVALID, "mask"),
    ("c2", dict(bkg=E((2, 3, 2), U8), src=E((2, 3, 2), U8), out=E((2, 3, 2), U8)), INVALID, "C = 3"),
]


@pytest.mark.parametrize("kw,code,word", [r[1:] for r in BR_ROWS], ids=[r[0] for r in BR_ROWS])
def test_background_replace_invalid(kw, code, word):
    expect("BackgroundReplace", br_args(**kw), code, word)


# ---------------------------------------------------------------- BlendImagesCustom, MrgbaCustom
def u8(rng, shape):
    a = rng.integers(0, 256, shape).astype(U8)
    a.reshape(-1)[:4] = [0, 255, 1, 254]
    return a


@pytest.mark.parametrize("view", ["contig", "strided"])
def test_blend_values(view):
    rng = np.random.default_rng(11)
    rgb, al, fr = u8(rng, (6, 13, 3)), u8(rng, (6, 13, 1)), u8(rng, (6, 13, 3))
    al.reshape(-1)[4:8] = [255, 0, 128, 127]
    o = E((6, 13, 3), U8)
    args = [T(rgb), T(al), T(fr)] if view == "contig" else [T(strided(rgb)), T(strided(al, "transpose")),
                                                            T(strided(fr))]
    run("BlendImagesCustom", args + [o])
    assert np.array_equal(o.numpy(), ref_blend(rgb, al, fr))
    # every (rgb, frame, alpha) corner: alpha 255 gives rgb, alpha 0 gives frame
    full = np.arange(256, dtype=U8)
    r2 = np.stack([full, full[::-1], full], -1).reshape(256, 1, 3)
    a255 = np.full((256, 1, 1), 255, U8)
    o2 = E((256, 1, 3), U8)
    run("BlendImagesCustom", [T(r2), T(a255), T(r2[::-1].copy()), o2])
    assert np.array_equal(o2.numpy(), r2)
    run("BlendImagesCustom", [T(r2), T(np.zeros_like(a255)), T(r2[::-1].copy()), o2])
    assert np.array_equal(o2.numpy(), r2[::-1])


@pytest.mark.parametrize("view", ["contig", "strided"])
def test_mrgba_values(view):
    rng = np.random.default_rng(12)
    rgb, al = u8(rng, (5, 11, 3)), u8(rng, (5, 11, 1))
    o = E((5, 11, 3), U8)
    args = [T(rgb), T(al)] if view == "contig" else [T(strided(rgb, "transpose")), T(strided(al))]
    run("MrgbaCustom", args + [o])
    assert np.array_equal(o.numpy(), ref_mrgba(rgb, al))
    # all 256 x 256 (rgb, alpha) pairs
    rr, aa = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    rgb2 = np.repeat(rr.reshape(-1, 1), 3, 1).astype(U8)
    al2 = aa.reshape(-1, 1).astype(U8)
    o2 = E(rgb2.shape, U8)
    run("MrgbaCustom", [T(rgb2), T(al2), o2])
    assert np.array_equal(o2.numpy(), ref_mrgba(rgb2, al2))
    # the upstream example: alpha 255 keeps rgb
    o3 = E((4, 3), U8)
    run("MrgbaCustom", [T(np.arange(10, 130, 10, dtype=U8).reshape(4, 3)), T(np.full((4, 1), 255, U8)), o3])
    assert o3.numpy().reshape(-1).tolist() == list(range(10, 130, 10))


def test_blend_all_frame_alpha_pairs():
    """Every (frame, alpha) pair with random rgb, against the same formula vectorised (float64 -> half per step)."""
    rng = np.random.default_rng(13)
    ff, aa = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    fr = np.repeat(ff.reshape(-1, 1), 3, 1).astype(U8)
    al = aa.reshape(-1, 1).astype(U8)
    rgb = rng.integers(0, 256, fr.shape).astype(U8)
    o = E(fr.shape, U8)
    run("BlendImagesCustom", [T(rgb), T(al), T(fr), o])
    hv = lambda x: np.asarray(x, np.float64).astype(np.float16).astype(np.float64)
    a = hv(al.astype(np.float64) * RATIO)
    f, r = fr.astype(np.float64), rgb.astype(np.float64)
    want = np.clip(np.rint(hv(hv(f - hv(f * a)) + hv(r * a))), 0, 255).astype(U8)
    assert np.array_equal(o.numpy(), want)


def blend_args(rgb=None, alpha=None, frame=None, out=None):
    return [E((4, 4, 3), U8) if rgb is None else rgb, E((4, 4, 1), U8) if alpha is None else alpha,
            E((4, 4, 3), U8) if frame is None else frame, E((4, 4, 3), U8) if out is None else out]


BLEND_ROWS = [
    ("rgb_null", dict(rgb=ffi.NULL, alpha=E((1,), F32)), NULL_CODE, "rgb"),
    ("alpha_null", dict(alpha=ffi.NULL, frame=E((1,), F32)), NULL_CODE, "alpha"),
    ("frame_null", dict(frame=ffi.NULL, out=E((1,), F32)), NULL_CODE, "frame"),
    ("out_null", dict(out=ffi.NULL, rgb=E((1,), F32)), NULL_CODE, "out"),
    ("rgb_f16", dict(rgb=E((4, 4, 3), F16)), INVALID, "rgb"),
    ("alpha_f16", dict(alpha=E((4, 4, 1), F16)), INVALID, "alpha"),
    ("frame_i32", dict(frame=E((4, 4, 3), I32)), INVALID, "frame"),
    ("out_f32", dict(out=E((4, 4, 3), F32), alpha=E((3,), U8)), INVALID, "out"),
    ("fmt", dict(rgb=E((4, 4, 3), U8, NCHW), alpha=E((3,), U8)), INVALID, "rgb format"),
    ("alpha_shape", dict(alpha=E((4, 3, 1), U8)), INVALID, "HWC"),
    ("frame_shape", dict(frame=E((4, 3, 4), U8)), INVALID, "frame"),
    ("out_shape", dict(out=E((4, 12), U8)), INVALID, "out shape"),
]


@pytest.mark.parametrize("kw,code,word", [r[1:] for r in BLEND_ROWS], ids=[r[0] for r in BLEND_ROWS])
def test_blend_invalid(kw, code, word):
    expect("BlendImagesCustom", blend_args(**kw), code, word)


MRGBA_ROWS = [
    ("rgb_null", [ffi.NULL, E((1,), F32), E((1,), F32)], NULL_CODE, "rgb"),
    ("alpha_null", [E((4, 4, 3), U8), ffi.NULL, E((1,), F32)], NULL_CODE, "alpha"),
    ("out_null", [E((4, 4, 3), U8), E((4, 4, 1), U8), ffi.NULL], NULL_CODE, "out"),
    ("rgb_f16", [E((4, 4, 3), F16), E((4, 4, 1), U8), E((4, 4, 3), U8)], INVALID, "rgb"),
    ("alpha_i8", [E((4, 4, 3), U8), E((4, 4, 1), np.int8), E((4, 4, 3), U8)], INVALID, "alpha"),
    ("out_f16", [E((4, 4, 3), U8), E((4, 4, 1), U8), E((4, 4, 3), F16)], INVALID, "out"),
    ("fmt", [E((4, 4, 3), U8), E((4, 4, 1), U8, NCHW), E((4, 4, 3), U8)], INVALID, "alpha format"),
    ("c4", [E((4, 4, 4), U8), E((4, 4, 1), U8), E((4, 4, 4), U8)], INVALID, "HWC"),
    ("out_shape", [E((4, 4, 3), U8), E((4, 4, 1), U8), E((4, 4, 4), U8)], INVALID, "out shape"),
]


@pytest.mark.parametrize("args,code,word", [r[1:] for r in MRGBA_ROWS], ids=[r[0] for r in MRGBA_ROWS])
def test_mrgba_invalid(args, code, word):
    expect("MrgbaCustom", args, code, word)


# ---------------------------------------------------------------- NonMaxSuppression
def farr(values):
    return lib.aclCreateFloatArray(ffi.new("float[]", list(values) or [0.0]), len(values))


def nms_call(boxes, scores, maxout, iou, sthr, cpb, rows=None, sel=None):
    B, C = scores.shape[0], scores.shape[1]
    if sel is None:
        sel = E((rows if rows is not None else B * C * maxout, 3), I32)
    s = farr([sthr]) if sthr is not None else ffi.NULL
    args = [boxes if isinstance(boxes, pyaclnn.AclTensor) else T(boxes),
            scores if isinstance(scores, pyaclnn.AclTensor) else T(scores),
            pyaclnn.int_array([maxout]), farr([iou]), s, cpb, sel]
    run("NonMaxSuppression", args)
    return sel.numpy()


def ref_nms(boxes, scores, maxout, iou, sthr, cpb, rows=None):
    """The doc's algorithm, literal, in fp32: per (batch, class) block of maxout rows, greedy by descending score
    (lower index first on ties), suppression when inter > (areaA + areaB) * iou / (1 + iou); kept boxes with score
    <= sthr and unused rows are -1."""
    bx = boxes.astype(np.float32)
    sc = scores.astype(np.float32)
    B, C, N = sc.shape
    out = np.full((B * C * maxout, 3), -1, np.int32)
    t = np.float32(iou) / (np.float32(1) + np.float32(iou))
    for b in range(B):
        g = []
        for i in range(N):
            q = bx[b, i]
            if cpb == 0:
                y1, y2 = min(q[0], q[2]), max(q[0], q[2])
                x1, x2 = min(q[1], q[3]), max(q[1], q[3])
            else:
                hw, hh = q[2] / np.float32(2), q[3] / np.float32(2)
                x1, x2, y1, y2 = q[0] - hw, q[0] + hw, q[1] - hh, q[1] + hh
            g.append((y1, x1, y2, x2, np.float32((y2 - y1) * (x2 - x1))))
        for c in range(C):
            order = sorted([i for i in range(N) if not np.isnan(sc[b, c, i])], key=lambda i: (-sc[b, c, i], i))
            kept = []
            for i in order:
                if len(kept) == maxout:
                    break
                ok = True
                for k in kept:
                    ih = np.float32(min(g[i][2], g[k][2]) - max(g[i][0], g[k][0]))
                    iw = np.float32(min(g[i][3], g[k][3]) - max(g[i][1], g[k][1]))
                    inter = np.float32(ih * iw) if ih > 0 and iw > 0 else np.float32(0)
                    if inter > np.float32(np.float32(g[i][4] + g[k][4]) * t):
                        ok = False
                        break
                if ok:
                    r = (b * C + c) * maxout + len(kept)
                    if sc[b, c, i] > np.float32(sthr):
                        out[r] = (b, c, i)
                    kept.append(i)
    flat = out.reshape(-1)
    n = (rows if rows is not None else B * C * maxout) * 3
    res = np.full(n, -1, np.int32)
    res[: min(n, flat.size)] = flat[: min(n, flat.size)]
    return res.reshape(-1, 3)


def nms_data(rng, B, C, N, dt, cpb):
    if cpb == 0:
        p = rng.uniform(0, 50, (B, N, 2))
        wh = rng.uniform(1, 15, (B, N, 2))
        boxes = np.concatenate([p, p + wh], -1)
        sw = rng.random((B, N)) < 0.3  # some boxes given by the other diagonal
        boxes[sw] = boxes[sw][:, [2, 3, 0, 1]]
    else:
        boxes = np.concatenate([rng.uniform(0, 50, (B, N, 2)), rng.uniform(1, 15, (B, N, 2))], -1)
    scores = rng.random((B, C, N))
    scores[..., ::7] = 0.25  # ties
    return boxes.astype(dt), scores.astype(dt)


def test_nms_example():
    boxes = np.array([49.1, 32.4, 51.0, 35.9, 49.3, 32.9, 51.0, 35.3, 49.2, 31.8, 51.0, 35.4, 35.1, 11.5, 39.1,
                      15.7, 35.6, 11.8, 39.3, 14.2, 35.3, 11.5, 39.9, 14.5, 35.2, 11.7, 39.7, 15.7],
                     F32).reshape(1, 7, 4)
    scores = np.array([0.9, 0.9, 0.5, 0.5, 0.5, 0.4, 0.3], F32).reshape(1, 1, 7)
    got = nms_call(boxes, scores, 3, 0.6, 0.0, 0)
    assert got.tolist() == [[0, 0, 0], [0, 0, 3], [0, 0, 4]]


@pytest.mark.parametrize("dt", [F32, F16], ids=["f32", "f16"])
@pytest.mark.parametrize("cpb", [0, 1])
def test_nms_values(dt, cpb):
    rng = np.random.default_rng(20 + cpb)
    boxes, scores = nms_data(rng, 2, 3, 40, dt, cpb)
    for maxout, iou, sthr in [(5, 0.3, 0.2), (40, 0.5, 0.0), (1, 0.0, 0.9), (700, 1.0, 0.5), (7, 0.1, None)]:
        got = nms_call(boxes, scores, maxout, iou, sthr, cpb)
        want = ref_nms(boxes, scores, maxout, iou, 0.0 if sthr is None else sthr, cpb)
        assert np.array_equal(got, want), (maxout, iou, sthr)


def test_nms_rows_and_views():
    rng = np.random.default_rng(31)
    boxes, scores = nms_data(rng, 1, 2, 30, F32, 0)
    # fewer rows than maxBoxesSize: the first rows; more: the extra rows are -1
    for rows in (4, 25):
        got = nms_call(boxes, scores, 10, 0.4, 0.1, 0, rows=rows)
        assert np.array_equal(got, ref_nms(boxes, scores, 10, 0.4, 0.1, 0, rows=rows))
    # non-contiguous boxes, scores and selectedIndices
    base = T(np.zeros((20, 7), I32))
    sel = pyaclnn.AclTensor((20, 3), I32, strides=(7, 2), offset=1, buffer=base.buffer)
    got = nms_call(T(strided(boxes, "transpose")), T(strided(scores)), 10, 0.4, 0.1, 0, sel=sel)
    assert np.array_equal(got, ref_nms(boxes, scores, 10, 0.4, 0.1, 0))
    raw = base.numpy()
    assert not raw[:, 0].any() and not raw[:, 2].any() and not raw[:, 4].any()


def test_nms_edges():
    # NaN scores are never selected; NaN / Inf coordinates never suppress; maxout 0 and empty boxes give -1 rows
    boxes = np.array([[[0, 0, 10, 10], [0, 0, 10, 10], [np.nan, 0, 10, 10], [0, 0, np.inf, 10],
                       [1, 1, 9, 9]]], F32)
    scores = np.array([[[0.5, np.nan, 0.9, 0.8, 0.4]]], F32)
    got = nms_call(boxes, scores, 5, 0.5, 0.0, 0)
    assert np.array_equal(got, ref_nms(boxes, scores, 5, 0.5, 0.0, 0))
    assert np.array_equal(nms_call(boxes, scores, 0, 0.5, 0.0, 0, rows=2), np.full((2, 3), -1, np.int32))
    e = nms_call(np.zeros((2, 0, 4), F32), np.zeros((2, 3, 0), F32), 2, 0.5, 0.0, 1)
    assert np.array_equal(e, np.full((12, 3), -1, np.int32))
    # identical boxes: iou 1 > iouThreshold 0.99 suppresses, 1.0 keeps (strict >)
    bx = np.tile(np.array([0, 0, 4, 4], F32), (1, 3, 1))
    sc = np.array([[[0.3, 0.2, 0.1]]], F32)
    assert nms_call(bx, sc, 3, 0.99, 0.0, 0)[:, 2].tolist() == [0, -1, -1]
    assert nms_call(bx, sc, 3, 1.0, 0.0, 0)[:, 2].tolist() == [0, 1, 2]
    # a score equal to scoreThreshold is removed (<=)
    assert nms_call(bx, sc, 3, 1.0, 0.2, 0)[:, 2].tolist() == [0, -1, -1]


def test_nms_torch_oracle_one_class():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(41)
    boxes, scores = nms_data(rng, 1, 1, 60, F32, 0)
    boxes = np.sort(boxes.reshape(60, 2, 2), axis=1).reshape(1, 60, 4)  # ordered corners for the oracle
    bt, st = torch.from_numpy(boxes[0].copy()), torch.from_numpy(scores[0, 0].copy())
    order = torch.sort(-st, stable=True).indices
    area = (bt[:, 2] - bt[:, 0]) * (bt[:, 3] - bt[:, 1])
    keep = []
    for i in order.tolist():
        if keep:
            k = torch.tensor(keep)
            ih = (torch.minimum(bt[k, 2], bt[i, 2]) - torch.maximum(bt[k, 0], bt[i, 0])).clamp(min=0)
            iw = (torch.minimum(bt[k, 3], bt[i, 3]) - torch.maximum(bt[k, 1], bt[i, 1])).clamp(min=0)
            inter = ih * iw
            if bool(((inter / (area[k] + area[i] - inter)) > 0.45).any()):
                continue
        keep.append(i)
    got = nms_call(boxes, scores, 60, 0.45, 0.0, 0)
    assert got[: len(keep), 2].tolist() == keep
    assert (got[len(keep):] == -1).all()


def nms_args(boxes=None, scores=None, maxout=(3,), iou=(0.5,), score=(0.0,), center=0, sel=None):
    boxes = E((1, 6, 4)) if boxes is None else boxes
    scores = E((1, 1, 6)) if scores is None else scores
    sel = E((3, 3), I32) if sel is None else sel
    m = pyaclnn.int_array(list(maxout)) if maxout is not None else None
    i = farr(iou) if iou is not None else None
    s = farr(score) if score is not None else None
    return [boxes, scores, m, i, s, center, sel]


NMS_ROWS = [
    # the op_api's order as on A2 (maxOutputBoxesPerClass, NULLs, dtypes, iouThreshold, formats, shapes,
    # centerPointBox), then on DAV_2002 the l0 launch: an int64 selectedIndices has no kernel (561103)
    ("maxout_701", dict(maxout=(701,), boxes=E((2,), I64)), INVALID, "maxOutputBoxesPerClass"),
    ("boxes_null", dict(boxes=ffi.NULL), NULL_CODE, "boxes"),
    ("iou_empty", dict(iou=(), boxes=E((2,), I64)), NULL_CODE, "iouThreshold"),
    ("sel_null", dict(sel=ffi.NULL, boxes=E((2,), I64)), NULL_CODE, "selectedIndices"),
    ("mixed", dict(boxes=E((1, 6, 4), F16)), INVALID, "scores"),
    ("iou_gt1", dict(iou=(1.5,)), INVALID, "iouThreshold"),
    ("fmt", dict(boxes=E((1, 6, 4), F32, NCHW), scores=E((1, 1), F32)), INVALID, "ND"),
    ("nboxes", dict(scores=E((1, 1, 5))), INVALID, "scores dim 2"),
    ("center", dict(center=2), INVALID, "centerPointBox"),
    ("sel_i64", dict(sel=E((3, 3), I64)), INNER_NULLPTR, "int32"),
    ("sel_i64_after_center", dict(sel=E((3, 3), I64), center=3), INVALID, "centerPointBox"),
]


@pytest.mark.parametrize("kw,code,word", [r[1:] for r in NMS_ROWS], ids=[r[0] for r in NMS_ROWS])
def test_nms_invalid(kw, code, word):
    expect("NonMaxSuppression", nms_args(**kw), code, word)


# ---------------------------------------------------------------- other SoCs keep the refusals
@pytest.mark.parametrize("soc", ["Ascend910B4", "Ascend910_9391", "Ascend950PR_9589", "SomethingElse"])
def test_other_socs_refuse(monkeypatch, soc):
    monkeypatch.setenv("PYACLNN_SOC_NAME", soc)
    expect("NonMaxSuppression", nms_args(), RUNTIME, "not supported")
    expect("BackgroundReplace", br_args(), INVALID, "ascend310p")
    expect("BlendImagesCustom", blend_args(), INVALID, "ascend310p")
    expect("MrgbaCustom", [E((4, 4, 3), U8), E((4, 4, 1), U8), E((4, 4, 3), U8)], INVALID, "ascend310p")


# ---------------------------------------------------------------- the same bytes at every thread count
THREADS_CODE = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import ffi, lib
import sys; sys.path.insert(0, 'tests')
from helpers import ws_call, run_executor
rng = np.random.default_rng(7)
T = pyaclnn.AclTensor.from_array
hs = hashlib.sha256()
def run(op, args, o):
    rc, ws, ex, msg = ws_call(op, *args); assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0
    hs.update(o.numpy().tobytes())
for dt in (np.float16, np.uint8):
    if dt == np.uint8:
        b = rng.integers(0, 256, (64, 301, 3)).astype(dt); s = rng.integers(0, 256, (64, 301, 3)).astype(dt)
    else:
        b = rng.uniform(-9, 9, (64, 301, 3)).astype(dt); s = rng.uniform(-9, 9, (64, 301, 3)).astype(dt)
        b.reshape(-1)[::97] = np.nan
    m = rng.uniform(0, 1, (64, 301, 1)).astype(np.float16)
    o = pyaclnn.AclTensor((64, 301, 3), dt); run("BackgroundReplace", [T(b), T(s), T(m), o], o)
rgb = rng.integers(0, 256, (64, 301, 3)).astype(np.uint8); al = rng.integers(0, 256, (64, 301, 1)).astype(np.uint8)
fr = rng.integers(0, 256, (64, 301, 3)).astype(np.uint8)
o = pyaclnn.AclTensor(rgb.shape, np.uint8); run("BlendImagesCustom", [T(rgb), T(al), T(fr), o], o)
o = pyaclnn.AclTensor(rgb.shape, np.uint8); run("MrgbaCustom", [T(rgb), T(al), o], o)
for dt in (np.float32, np.float16):
    p = rng.uniform(0, 60, (3, 500, 2)); bx = np.concatenate([p, p + rng.uniform(1, 9, (3, 500, 2))], -1).astype(dt)
    sc = rng.random((3, 4, 500)).astype(dt)
    sel = pyaclnn.AclTensor((3 * 4 * 50, 3), np.int32)
    args = [T(bx), T(sc), pyaclnn.int_array([50]), lib.aclCreateFloatArray(ffi.new("float[]", [0.4]), 1),
            lib.aclCreateFloatArray(ffi.new("float[]", [0.1]), 1), 0, sel]
    run("NonMaxSuppression", args, sel)
print(hs.hexdigest())
"""


def test_same_bytes_for_threads_and_levels():
    code = THREADS_CODE.replace("'tests'", repr(os.path.join(REPO, "tests")))
    same_bytes_for_threads(code, threads=(1, 2, 3))
    outs = {lv: run_python(code, {"PYACLNN_SIMD": lv, "OMP_NUM_THREADS": "2"}) for lv in ("off", "avx2", "avx512")}
    assert len(set(outs.values())) == 1, outs


def test_background_replace_f16_nan_payloads():
    """The library's NaN rule in the written order (bkg - bkg * mask) + src * mask: bkg's payload first, then
    mask's, then src's, quietened."""
    q = lambda bits: np.uint16(bits | 0x0200)
    pb, pm, ps = 0x7c11, 0xfd22, 0x7d33  # signalling / quiet payloads
    rows = [(pb, 0x3c00, 0x3800, q(pb)), (0x4000, pm, 0x3800, q(pm)), (0x4000, 0x3c00, ps, q(ps)),
            (pb, pm, ps, q(pb)), (0x4000, pm, ps, q(pm)), (pb, 0x3c00, ps, q(pb))]
    b = np.array([r[0] for r in rows], np.uint16).view(F16).reshape(-1, 1, 1)
    m = np.array([r[1] for r in rows], np.uint16).view(F16).reshape(-1, 1, 1)
    s_ = np.array([r[2] for r in rows], np.uint16).view(F16).reshape(-1, 1, 1)
    o = E(b.shape, F16)
    run("BackgroundReplace", [T(b), T(s_), T(m), o])
    assert o.numpy().view(np.uint16).reshape(-1).tolist() == [int(r[3]) for r in rows]
