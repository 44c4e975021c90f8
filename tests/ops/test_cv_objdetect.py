"""ops-cv objdetect/: aclnnRoiAlign (avg/max, int32 batch indices), aclnnRoiAlignV2 (aligned or not) and
aclnnRoiAlignV2Backward vs a float64 numpy loop (tests/reference/roi_align.py) and a PyTorch-written RoI Align
(torchvision is not installed; its autograd gives the backward oracle), for every A2 dtype, strided views, empty
inputs, the op_api's invalid rows (order and codes), determinism across OMP_NUM_THREADS."""
import math

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.tensor import acl_dtype
from helpers import assert_close, rounded, strided, same_bytes_for_threads, expect_invalid, ws_call, run_executor
from reference import roi_align as ref

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
FWD_DTYPES, FWD_IDS = [F32, F16], ["f32", "f16"]
NULL_CODE, INVALID = 161001, 161002
NCHW, ND = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_ND


def T(arr, fmt):
    return pyaclnn.AclTensor.from_array(arr, fmt)


def E(shape, dtype=F32, fmt=ND):
    return pyaclnn.AclTensor(shape, dtype, fmt=fmt)


def mode_str(mode):
    return ffi.new("char[]", mode.encode()) if mode is not None else ffi.NULL


def make_case(n, c, h, w, k, dtype, seed=0, scale=1.0, outside=False):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, (n, c, h, w)).astype(np.float32).astype(dtype)
    lo = -3.0 if outside else 0.0
    x1 = rng.uniform(lo, w / scale * 0.7, k)
    y1 = rng.uniform(lo, h / scale * 0.7, k)
    x2 = x1 + rng.uniform(0.2, w / scale * 0.8, k)
    y2 = y1 + rng.uniform(0.2, h / scale * 0.8, k)
    boxes = np.stack([x1, y1, x2, y2], 1).astype(np.float32).astype(dtype)
    batch = rng.integers(0, n, k).astype(np.int32)
    return x, boxes, batch


# ---------------------------------------------------------------- the PyTorch-written oracle

def torch_roi_align(torch, x, boxes, batch, ph, pw, sr, scale, aligned=False, mode="avg"):
    """RoI Align in torch ops (float64); x may require grad (the backward oracle is its autograd)."""
    n, c, h, w = x.shape
    outs = []
    for k in range(boxes.shape[0]):
        b = int(batch[k])
        off = 0.5 if aligned else 0.0
        x1, y1, x2, y2 = [float(v) * scale - off for v in boxes[k]]
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sr if sr > 0 else max(math.ceil(rh / ph), 0)
        gw = sr if sr > 0 else max(math.ceil(rw / pw), 0)
        if not 0 <= b < n or gh == 0 or gw == 0:
            outs.append(torch.zeros((c, ph, pw), dtype=x.dtype))
            continue
        iy = torch.arange(ph, dtype=torch.float64)[:, None] * (rh / ph) + \
            (torch.arange(gh, dtype=torch.float64)[None, :] + 0.5) * (rh / ph / gh) + y1
        ix = torch.arange(pw, dtype=torch.float64)[:, None] * (rw / pw) + \
            (torch.arange(gw, dtype=torch.float64)[None, :] + 0.5) * (rw / pw / gw) + x1

        def axis(v, size):
            valid = (v >= -1.0) & (v <= size)
            v = v.clamp(min=0.0)
            lo = v.floor().long()
            top = lo >= size - 1
            lo = torch.where(top, torch.full_like(lo, size - 1), lo)
            hi = torch.where(top, lo, lo + 1)
            v = torch.where(top, lo.double(), v)
            l = v - lo.double()
            return lo, hi, 1.0 - l, l, valid

        ylo, yhi, yhw, ylw, yv = axis(iy.reshape(-1), h)
        xlo, xhi, xhw, xlw, xv = axis(ix.reshape(-1), w)
        img = x[b]                                            # (C, H, W)
        mask = (yv[:, None] & xv[None, :]).double()           # (ph*gh, pw*gw)
        terms = [img[:, ya][:, :, xa] * (wy[:, None] * wx[None, :] * mask)
                 for ya, wy in ((ylo, yhw), (yhi, ylw)) for xa, wx in ((xlo, xhw), (xhi, xlw))]
        t = torch.stack(terms, 0).reshape(4, c, ph, gh, pw, gw)
        if mode == "avg":
            outs.append(t.sum(0).sum((2, 4)) / max(gh * gw, 1))
        else:
            outs.append(t.amax(0).amax(4).amax(2))
    return torch.stack(outs, 0) if outs else torch.zeros((0, c, ph, pw), dtype=x.dtype)


# ---------------------------------------------------------------- calls

def roi_align(x, boxes, batch, mode, ph, pw, sr, scale, out=None):
    out = np.full((boxes.shape[0], x.shape[1], ph, pw), 7, x.dtype) if out is None else out
    ot = T(out, NCHW)
    keep = [T(x, NCHW), T(boxes, ND), T(batch, ND), mode_str(mode)]
    rc, ws, ex, msg = ws_call("RoiAlign", *keep, ph, pw, sr, scale, ot)
    assert rc == 0, msg
    assert run_executor("RoiAlign", ex, ws) == 0
    return ot.numpy()


def boxes5(boxes, batch):
    return np.concatenate([batch[:, None].astype(boxes.dtype), boxes], 1)


def roi_align_v2(x, b5, ph, pw, scale, sr, aligned, out=None):
    out = np.full((b5.shape[0], x.shape[1], ph, pw), 7, x.dtype) if out is None else out
    ot = T(out, NCHW)
    keep = [T(x, NCHW), T(b5, ND)]
    rc, ws, ex, msg = ws_call("RoiAlignV2", *keep, ph, pw, scale, sr, aligned, ot)
    assert rc == 0, msg
    assert run_executor("RoiAlignV2", ex, ws) == 0
    return ot.numpy()


def roi_align_v2_backward(gy, b5, shape, scale, sr, aligned, out=None):
    out = np.full(shape, 7, gy.dtype) if out is None else out
    ot = T(out, NCHW)
    keep = [T(gy, NCHW), T(b5, ND), pyaclnn.int_array(list(shape))]
    rc, ws, ex, msg = ws_call("RoiAlignV2Backward", *keep, gy.shape[2], gy.shape[3], scale, sr, aligned, ot)
    assert rc == 0, msg
    assert run_executor("RoiAlignV2Backward", ex, ws) == 0
    return ot.numpy()


# (N, C, H, W, K, pooled H, pooled W, samplingRatio, spatialScale, boxes partly outside the map)
CASES = {
    "n2c3_10x12_k5_3x3_sr0": (2, 3, 10, 12, 5, 3, 3, 0, 1.0, False),
    "n1c4_8x8_k4_2x4_sr2": (1, 4, 8, 8, 4, 2, 4, 2, 1.0, False),
    "n3c2_9x7_k6_4x3_sr0_scale_half": (3, 2, 9, 7, 6, 4, 3, 0, 0.5, False),
    "n2c2_6x6_k5_2x2_outside": (2, 2, 6, 6, 5, 2, 2, 0, 1.0, True),
    "n1c1_5x9_k3_7x7_sr3": (1, 1, 5, 9, 3, 7, 7, 3, 1.0, True),
}
TOLF = {F32: dict(rtol=1e-5, atol=1e-5), F16: dict(rtol=2e-3, atol=2e-3)}


def _oracle(torch, x, boxes, batch, ph, pw, sr, scale, aligned, mode):
    xt = torch.from_numpy(x.astype(np.float64))
    return torch_roi_align(torch, xt, boxes.astype(np.float64), batch, ph, pw, sr, scale, aligned, mode).numpy()


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
@pytest.mark.parametrize("cid", list(CASES))
def test_roi_align_numpy_and_torch(cid, dtype, mode, torch):
    n, c, h, w, k, ph, pw, sr, scale, outside = CASES[cid]
    x, boxes, batch = make_case(n, c, h, w, k, dtype, seed=1, scale=scale, outside=outside)
    y = roi_align(x, boxes, batch, mode, ph, pw, sr, scale)
    exp = ref.roi_align(x, boxes.astype(np.float64), batch, ph, pw, sr, scale, False, mode)
    assert_close(y, rounded(exp, dtype), dtype, what=cid, **TOLF[dtype])
    texp = _oracle(torch, x, boxes, batch, ph, pw, sr, scale, False, mode)
    assert_close(y, rounded(texp, dtype), dtype, what=cid, **TOLF[dtype])


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
@pytest.mark.parametrize("cid", list(CASES))
def test_roi_align_v2_numpy_and_torch(cid, dtype, aligned, torch):
    n, c, h, w, k, ph, pw, sr, scale, outside = CASES[cid]
    x, boxes, batch = make_case(n, c, h, w, k, dtype, seed=2, scale=scale, outside=outside)
    y = roi_align_v2(x, boxes5(boxes, batch), ph, pw, scale, sr, aligned)
    exp = ref.roi_align(x, boxes.astype(np.float64), batch, ph, pw, sr, scale, aligned)
    assert_close(y, rounded(exp, dtype), dtype, what=cid, **TOLF[dtype])
    texp = _oracle(torch, x, boxes, batch, ph, pw, sr, scale, aligned, "avg")
    assert_close(y, rounded(texp, dtype), dtype, what=cid, **TOLF[dtype])


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("cid", list(CASES))
def test_roi_align_v2_backward_numpy_and_torch(cid, aligned, torch):
    n, c, h, w, k, ph, pw, sr, scale, outside = CASES[cid]
    x, boxes, batch = make_case(n, c, h, w, k, F32, seed=3, scale=scale, outside=outside)
    gy = np.random.default_rng(4).uniform(-1, 1, (k, c, ph, pw)).astype(np.float32)
    gx = roi_align_v2_backward(gy, boxes5(boxes, batch), x.shape, scale, sr, aligned)
    exp = ref.roi_align_backward(gy, boxes.astype(np.float64), batch, x.shape, sr, scale, aligned)
    assert_close(gx, exp, F32, what=cid, rtol=1e-5, atol=1e-5)
    xt = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
    yt = torch_roi_align(torch, xt, boxes.astype(np.float64), batch, ph, pw, sr, scale, aligned)
    yt.backward(torch.from_numpy(gy.astype(np.float64)))
    assert_close(gx, xt.grad.numpy(), F32, what=cid, rtol=1e-5, atol=1e-5)


def test_roi_align_upstream_example_values():
    """The upstream example: 1x1x6x6 ramp, box (-2, -2, 22, 22), 3x3 bins, samplingRatio 0, scale 1."""
    x = np.arange(1, 37, dtype=np.float32).reshape(1, 1, 6, 6)
    boxes = np.array([[-2.0, -2.0, 22.0, 22.0]], np.float32)
    y = roi_align(x, boxes, np.zeros(1, np.int32), "avg", 3, 3, 0, 1.0)
    exp = ref.roi_align(x, boxes.astype(np.float64), [0], 3, 3, 0, 1.0)
    assert_close(y, exp, F32)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
def test_roi_align_strided(kind, dtype):
    n, c, h, w, k, ph, pw, sr, scale, _ = CASES["n2c3_10x12_k5_3x3_sr0"]
    x, boxes, batch = make_case(n, c, h, w, k, dtype, seed=5)
    exp = ref.roi_align(x, boxes.astype(np.float64), batch, ph, pw, sr, scale)
    out = strided(np.full((k, c, ph, pw), 7, dtype), kind)
    y = roi_align(strided(x, kind), strided(boxes, kind), batch[::-1].copy()[::-1], "avg", ph, pw, sr, scale, out)
    assert_close(y, rounded(exp, dtype), dtype, **TOLF[dtype])
    b5 = boxes5(boxes, batch)
    out = strided(np.full((k, c, ph, pw), 7, dtype), kind)
    y = roi_align_v2(strided(x, kind), strided(b5, kind), ph, pw, scale, sr, True, out)
    exp = ref.roi_align(x, boxes.astype(np.float64), batch, ph, pw, sr, scale, True)
    assert_close(y, rounded(exp, dtype), dtype, **TOLF[dtype])


@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_roi_align_v2_backward_strided(kind):
    n, c, h, w, k, ph, pw, sr, scale, _ = CASES["n3c2_9x7_k6_4x3_sr0_scale_half"]
    x, boxes, batch = make_case(n, c, h, w, k, F32, seed=6, scale=scale)
    gy = np.random.default_rng(7).uniform(-1, 1, (k, c, ph, pw)).astype(np.float32)
    exp = ref.roi_align_backward(gy, boxes.astype(np.float64), batch, x.shape, sr, scale, False)
    out = strided(np.full(x.shape, 7, F32), kind)
    gx = roi_align_v2_backward(strided(gy, kind), strided(boxes5(boxes, batch), kind), x.shape, scale, sr, False,
                               out)
    assert_close(gx, exp, F32, rtol=1e-5, atol=1e-5)


def test_roi_align_bad_batch_index_gives_zeros():
    x, boxes, batch = make_case(2, 2, 6, 6, 3, F32, seed=8)
    batch = np.array([0, 5, -1], np.int32)
    y = roi_align(x, boxes, batch, "avg", 2, 2, 0, 1.0)
    assert np.all(y[1:] == 0)
    exp = ref.roi_align(x, boxes.astype(np.float64), batch, 2, 2, 0, 1.0)
    assert_close(y, exp, F32)
    gy = np.ones((3, 2, 2, 2), np.float32)
    b5 = boxes5(boxes, np.array([0, 7, -3], np.int32))
    gx = roi_align_v2_backward(gy, b5, x.shape, 1.0, 0, False)
    assert_close(gx, ref.roi_align_backward(gy, boxes.astype(np.float64), [0, 7, -3], x.shape, 0, 1.0), F32)


def test_roi_align_empty_inputs_fill_zeros():
    # empty self (N = 0): the op_api fills out with zeros
    x = np.zeros((0, 3, 4, 4), np.float32)
    boxes = np.array([[0, 0, 2, 2]], np.float32)
    y = roi_align(x, boxes, np.zeros(1, np.int32), "avg", 2, 2, 0, 1.0)
    assert y.shape == (1, 3, 2, 2) and np.all(y == 0)
    # empty boxes: empty out
    x = np.ones((1, 3, 4, 4), np.float32)
    y = roi_align_v2(x, np.zeros((0, 5), np.float32), 2, 2, 1.0, 0, False)
    assert y.shape == (0, 3, 2, 2)
    gx = roi_align_v2_backward(np.zeros((0, 3, 2, 2), np.float32), np.zeros((0, 5), np.float32), (1, 3, 4, 4),
                               1.0, 0, False)
    assert np.all(gx == 0)


# ---------------------------------------------------------------- invalid rows (op_api order and codes)

def ra_args(**kw):
    a = dict(self=E((1, 2, 6, 6), F32, NCHW), rois=E((3, 4)), batchIndices=E((3,), np.int32), mode=mode_str("avg"),
             oh=2, ow=2, sr=0, scale=1.0, out=E((3, 2, 2, 2), F32, NCHW))
    a.update(kw)
    return [a["self"], a["rois"], a["batchIndices"], a["mode"], a["oh"], a["ow"], a["sr"], a["scale"], a["out"]]


RA_INVALID = [
    ("self_null", dict(self=None), NULL_CODE, "self"),
    ("rois_null", dict(rois=None), NULL_CODE, "rois"),
    ("bidx_null", dict(batchIndices=None), NULL_CODE, "batchIndices"),
    ("out_null", dict(out=None), NULL_CODE, "out"),
    ("self_bf16", dict(self=E((1, 2, 6, 6), pyaclnn.bfloat16, NCHW)), INVALID, "self"),
    ("self_f64", dict(self=E((1, 2, 6, 6), np.float64, NCHW)), INVALID, "self"),
    ("bidx_i64", dict(batchIndices=E((3,), np.int64)), INVALID, "batchIndices"),
    ("rois_f16", dict(rois=E((3, 4), F16)), INVALID, "rois"),
    ("out_f16", dict(out=E((3, 2, 2, 2), F16, NCHW)), INVALID, "out"),
    ("self_nd", dict(self=E((1, 2, 6, 6), F32, ND)), INVALID, "self"),
    ("rois_nchw", dict(rois=E((3, 4), F32, NCHW)), INVALID, "rois"),
    ("out_nhwc", dict(out=E((3, 2, 2, 2), F32, lib.ACL_FORMAT_NHWC)), INVALID, "out"),
    ("self_3d", dict(self=E((2, 6, 6), F32, NCHW)), INVALID, "self"),
    ("rois_3d", dict(rois=E((3, 4, 1))), INVALID, "rois"),
    ("bidx_2d", dict(batchIndices=E((3, 1), np.int32)), INVALID, "batchIndices"),
    ("out_3d", dict(out=E((3, 2, 2), F32, NCHW)), INVALID, "out"),
    ("rois_k_vs_bidx", dict(batchIndices=E((2,), np.int32)), INVALID, "batchIndices"),
    ("rois_dim1_5", dict(rois=E((3, 5))), INVALID, "rois"),
    ("out_k", dict(out=E((2, 2, 2, 2), F32, NCHW)), INVALID, "out"),
    ("out_c", dict(out=E((3, 3, 2, 2), F32, NCHW)), INVALID, "self"),
    ("out_h", dict(oh=3), INVALID, "outputHeight"),
    ("out_w", dict(ow=3), INVALID, "outputWidth"),
    ("mode_null", dict(mode=ffi.NULL), INVALID, "mode"),
    ("mode_bad", dict(mode=mode_str("sum")), INVALID, "mode"),
    ("sr_neg", dict(sr=-1), INVALID, "samplingRatio"),
    ("scale_zero", dict(scale=0.0), INVALID, "spatialScale"),
    ("scale_neg", dict(scale=-1.0), INVALID, "spatialScale"),
    # order: a dtype error is reported before a format or shape error
    ("dtype_before_format", dict(self=E((1, 2, 6), F64 := np.float64, ND)), INVALID, "self dtype"),
    ("format_before_shape", dict(rois=E((3, 5), F32, NCHW)), INVALID, "format"),
    ("shape_before_attr", dict(oh=5, sr=-1), INVALID, "outputHeight"),
]


@pytest.mark.parametrize("cid,kw,code,word", RA_INVALID, ids=[r[0] for r in RA_INVALID])
def test_roi_align_invalid(cid, kw, code, word):
    expect_invalid("RoiAlign", ra_args(**kw), code, word)


def v2_args(**kw):
    a = dict(self=E((1, 2, 6, 6), F32, NCHW), boxes=E((3, 5)), ph=2, pw=2, scale=1.0, sr=0, aligned=False,
             out=E((3, 2, 2, 2), F32, NCHW))
    a.update(kw)
    return [a["self"], a["boxes"], a["ph"], a["pw"], a["scale"], a["sr"], a["aligned"], a["out"]]


V2_INVALID = [
    ("self_null", dict(self=None), NULL_CODE, "self"),
    ("boxes_null", dict(boxes=None), NULL_CODE, "boxes"),
    ("out_null", dict(out=None), NULL_CODE, "out"),
    ("self_bf16", dict(self=E((1, 2, 6, 6), pyaclnn.bfloat16, NCHW)), INVALID, "self"),
    ("boxes_f16", dict(boxes=E((3, 5), F16)), INVALID, "boxes"),
    ("out_f16", dict(out=E((3, 2, 2, 2), F16, NCHW)), INVALID, "out"),
    ("self_nhwc", dict(self=E((1, 2, 6, 6), F32, lib.ACL_FORMAT_NHWC)), INVALID, "self"),
    ("boxes_nchw", dict(boxes=E((3, 5), F32, NCHW)), INVALID, "boxes"),
    ("out_nd", dict(out=E((3, 2, 2, 2), F32, ND)), INVALID, "out"),
    ("self_5d", dict(self=E((1, 2, 6, 6, 1), F32, NCHW)), INVALID, "self"),
    ("boxes_1d", dict(boxes=E((5,))), INVALID, "boxes"),
    ("out_2d", dict(out=E((3, 8), F32, NCHW)), INVALID, "out"),
    ("self_n0", dict(self=E((0, 2, 6, 6), F32, NCHW)), INVALID, "self"),
    ("self_h0", dict(self=E((1, 2, 0, 6), F32, NCHW)), INVALID, "self"),
    ("boxes_dim1_4", dict(boxes=E((3, 4))), INVALID, "boxes"),
    ("out_k", dict(out=E((4, 2, 2, 2), F32, NCHW)), INVALID, "boxes"),
    ("out_c", dict(out=E((3, 1, 2, 2), F32, NCHW)), INVALID, "self"),
    ("out_h", dict(ph=1), INVALID, "pooledHeight"),
    ("out_w", dict(pw=4), INVALID, "pooledWidth"),
    ("sr_neg", dict(sr=-2), INVALID, "samplingRatio"),
    ("scale_zero", dict(scale=0.0), INVALID, "spatialScale"),
    ("scale_denormal", dict(scale=1e-39), INVALID, "spatialScale"),
]


@pytest.mark.parametrize("cid,kw,code,word", V2_INVALID, ids=[r[0] for r in V2_INVALID])
def test_roi_align_v2_invalid(cid, kw, code, word):
    expect_invalid("RoiAlignV2", v2_args(**kw), code, word)


def bw_args(**kw):
    a = dict(gy=E((3, 2, 2, 2), F32, NCHW), boxes=E((3, 5)), shape=pyaclnn.int_array([1, 2, 6, 6]), ph=2, pw=2,
             scale=1.0, sr=0, aligned=True, gx=E((1, 2, 6, 6), F32, NCHW))
    a.update(kw)
    return [a["gy"], a["boxes"], a["shape"], a["ph"], a["pw"], a["scale"], a["sr"], a["aligned"], a["gx"]]


BW_INVALID = [
    ("gy_null", dict(gy=None), NULL_CODE, "gradOutput"),
    ("boxes_null", dict(boxes=None), NULL_CODE, "boxes"),
    ("shape_null", dict(shape=None), NULL_CODE, "inputShape"),
    ("gx_null", dict(gx=None), NULL_CODE, "gradInput"),
    ("gy_f16", dict(gy=E((3, 2, 2, 2), F16, NCHW)), INVALID, "gradOutput"),
    ("boxes_f16", dict(boxes=E((3, 5), F16)), INVALID, "boxes"),
    ("gx_f16", dict(gx=E((1, 2, 6, 6), F16, NCHW)), INVALID, "gradInput"),
    ("gy_nd", dict(gy=E((3, 2, 2, 2), F32, ND)), INVALID, "gradOutput"),
    ("boxes_nchw", dict(boxes=E((3, 5), F32, NCHW)), INVALID, "boxes"),
    ("gx_nd", dict(gx=E((1, 2, 6, 6), F32, ND)), INVALID, "gradInput"),
    ("gy_3d", dict(gy=E((3, 2, 2), F32, NCHW)), INVALID, "gradOutput"),
    ("boxes_3d", dict(boxes=E((3, 5, 1))), INVALID, "boxes"),
    ("boxes_dim1_4", dict(boxes=E((3, 4))), INVALID, "boxes"),
    ("shape_len3", dict(shape=pyaclnn.int_array([1, 2, 6])), INVALID, "inputShape"),
    ("boxes_k", dict(boxes=E((2, 5))), INVALID, "boxes"),
    ("gy_h", dict(ph=3), INVALID, "pooledHeight"),
    ("gy_w", dict(pw=1), INVALID, "pooledWidth"),
    ("gx_3d", dict(gx=E((2, 6, 6), F32, NCHW)), INVALID, "gradInput"),
    ("gx_c", dict(gx=E((1, 3, 6, 6), F32, NCHW), shape=pyaclnn.int_array([1, 3, 6, 6])), INVALID, "gradInput"),
    ("gx_vs_shape", dict(shape=pyaclnn.int_array([1, 2, 6, 7])), INVALID, "inputShape"),
    ("sr_neg", dict(sr=-1), INVALID, "samplingRatio"),
    ("scale_neg", dict(scale=-0.5), INVALID, "spatialScale"),
    ("shape_before_attr", dict(shape=pyaclnn.int_array([2, 2, 6, 6]), sr=-1), INVALID, "inputShape"),
]


@pytest.mark.parametrize("cid,kw,code,word", BW_INVALID, ids=[r[0] for r in BW_INVALID])
def test_roi_align_v2_backward_invalid(cid, kw, code, word):
    expect_invalid("RoiAlignV2Backward", bw_args(**kw), code, word)


def test_roi_align_deterministic_across_threads():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import ffi, lib
from helpers import ws_call, run_executor
pyaclnn.ensure_device()
rng = np.random.default_rng(0)
n, c, h, w, k = 2, 8, 24, 20, 40
x = rng.uniform(-1, 1, (n, c, h, w)).astype(np.float32)
b = np.zeros((k, 5), np.float32)
b[:, 0] = rng.integers(0, n, k)
b[:, 1:3] = rng.uniform(-2, 12, (k, 2))
b[:, 3:5] = b[:, 1:3] + rng.uniform(1, 14, (k, 2))
gy = rng.uniform(-1, 1, (k, c, 7, 7)).astype(np.float32)
T = pyaclnn.AclTensor.from_array
ot = T(np.zeros((k, c, 7, 7), np.float32), lib.ACL_FORMAT_NCHW)
xt, bt, gyt = T(x, lib.ACL_FORMAT_NCHW), T(b, lib.ACL_FORMAT_ND), T(gy, lib.ACL_FORMAT_NCHW)
rc, ws, ex, msg = ws_call("RoiAlignV2", xt, bt, 7, 7, 1.0, 0, True, ot)
assert rc == 0 and run_executor("RoiAlignV2", ex, ws) == 0
gt = T(np.zeros(x.shape, np.float32), lib.ACL_FORMAT_NCHW)
rc, ws, ex, msg = ws_call("RoiAlignV2Backward", gyt, bt, pyaclnn.int_array(list(x.shape)), 7, 7, 1.0, 0, True, gt)
assert rc == 0 and run_executor("RoiAlignV2Backward", ex, ws) == 0
mt = T(np.zeros((k, c, 7, 7), np.float32), lib.ACL_FORMAT_NCHW)
rt, it = T(np.ascontiguousarray(b[:, 1:]), lib.ACL_FORMAT_ND), T(b[:, 0].astype(np.int32), lib.ACL_FORMAT_ND)
rc, ws, ex, msg = ws_call("RoiAlign", xt, rt, it, ffi.new("char[]", b"max"), 7, 7, 0, 1.0, mt)
assert rc == 0 and run_executor("RoiAlign", ex, ws) == 0
print(hashlib.sha256(ot.numpy().tobytes() + gt.numpy().tobytes() + mt.numpy().tobytes()).hexdigest())
"""
    same_bytes_for_threads("import sys; sys.path.insert(0, 'tests')\n" + code)


# ---------------------------------------------------------------- aclnnIou

from reference import iou as iou_ref  # noqa: E402

IOU_DTYPES, IOU_IDS = [F32, F16, pyaclnn.bfloat16], ["f32", "f16", "bf16"]


def make_boxes(k, dtype, seed):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 20, (k, 2))
    wh = rng.uniform(1, 12, (k, 2))
    return np.concatenate([xy, xy + wh], 1).astype(np.float32).astype(dtype)


def iou_call(b, g, mode, eps, aligned, out=None):
    if out is None:
        out = np.full((b.shape[0], 1 if aligned else g.shape[0]), 7, b.dtype)
    ot = T(out, ND)
    keep = [T(b, ND), T(g, ND), mode_str(mode)]
    rc, ws, ex, msg = ws_call("Iou", *keep, eps, aligned, ot)
    assert rc == 0, msg
    assert run_executor("Iou", ex, ws) == 0
    return ot.numpy()


def torch_iou(torch, b, g, mode, eps, aligned):
    b = torch.from_numpy(np.asarray(b, np.float64))
    g = torch.from_numpy(np.asarray(g, np.float64))
    if aligned:
        bb, gg = b, g
    else:
        bb, gg = b[:, None, :], g[None, :, :]
    iw = (torch.minimum(bb[..., 2], gg[..., 2]) + eps - torch.maximum(bb[..., 0], gg[..., 0])).clamp(min=0)
    ih = (torch.minimum(bb[..., 3], gg[..., 3]) + eps - torch.maximum(bb[..., 1], gg[..., 1])).clamp(min=0)
    inter = iw * ih
    a1 = (bb[..., 2] - bb[..., 0] + eps) * (bb[..., 3] - bb[..., 1] + eps)
    a2 = (gg[..., 2] - gg[..., 0] + eps) * (gg[..., 3] - gg[..., 1] + eps)
    r = inter / a2 if mode == "iof" else inter / (a1 + a2 - inter)
    return (r[:, None] if aligned else r).numpy()


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("mode,eps", [("iou", 0.0), ("iof", 0.0), ("iou", 1.0), ("iof", 0.25)])
@pytest.mark.parametrize("dtype", IOU_DTYPES, ids=IOU_IDS)
def test_iou_numpy_and_torch(dtype, mode, eps, aligned, torch):
    b = make_boxes(13, dtype, 1)
    g = make_boxes(13 if aligned else 9, dtype, 2)
    y = iou_call(b, g, mode, eps, aligned)
    assert_close(y, rounded(iou_ref.iou(b, g, mode, eps, aligned), dtype), dtype)
    assert_close(y, rounded(torch_iou(torch, b, g, mode, eps, aligned), dtype), dtype)


def test_iou_upstream_example_values():
    b = np.array([[1, 1, 5, 3], [1, 1, 5, 3]], np.float32)
    g = np.array([[4, 2, 9, 5], [4, 2, 9, 5]], np.float32)
    y = iou_call(b, g, "iou", 0.0, True)
    assert_close(y, np.full((2, 1), 1.0 / 22.0), F32)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", IOU_DTYPES, ids=IOU_IDS)
def test_iou_strided(kind, dtype):
    b, g = make_boxes(7, dtype, 3), make_boxes(5, dtype, 4)
    out = strided(np.full((7, 5), 7, dtype), kind)
    y = iou_call(strided(b, kind), strided(g, kind), "iou", 0.5, False, out)
    assert_close(y, rounded(iou_ref.iou(b, g, "iou", 0.5), dtype), dtype)


def test_iou_empty_leaves_overlap():
    y = iou_call(np.zeros((0, 4), np.float32), make_boxes(3, F32, 5), "iou", 0.0, False,
                 np.full((0, 3), 7, np.float32))
    assert y.shape == (0, 3)


def iou_args(**kw):
    a = dict(b=E((3, 4)), g=E((2, 4)), mode=mode_str("iou"), eps=0.0, aligned=False, out=E((3, 2)))
    a.update(kw)
    return [a["b"], a["g"], a["mode"], a["eps"], a["aligned"], a["out"]]


IOU_INVALID = [
    ("b_null", dict(b=None), NULL_CODE, "bBoxes"),
    ("g_null", dict(g=None), NULL_CODE, "gtBoxes"),
    ("out_null", dict(out=None), NULL_CODE, "overlap"),
    ("g_f16", dict(g=E((2, 4), F16)), INVALID, "gtBoxes"),
    ("out_f16", dict(out=E((3, 2), F16)), INVALID, "overlap"),
    ("all_f64", dict(b=E((3, 4), np.float64), g=E((2, 4), np.float64), out=E((3, 2), np.float64)), INVALID,
     "bBoxes"),
    ("b_nchw", dict(b=E((3, 4), F32, NCHW)), INVALID, "bBoxes"),
    ("out_nchw", dict(out=E((3, 2), F32, NCHW)), INVALID, "overlap"),
    ("mode_null", dict(mode=ffi.NULL), INVALID, "mode"),
    ("mode_bad", dict(mode=mode_str("giou")), INVALID, "mode"),
    ("eps_neg", dict(eps=-0.5), INVALID, "eps"),
    ("b_3d", dict(b=E((3, 4, 1))), INVALID, "2-D"),
    ("out_1d", dict(out=E((6,))), INVALID, "2-D"),
    ("b_dim1_5", dict(b=E((3, 5))), INVALID, "dim1"),
    ("aligned_rows", dict(aligned=True, out=E((3, 1))), INVALID, "gtBoxes dim0"),
    ("aligned_out_dim1", dict(aligned=True, g=E((3, 4)), out=E((3, 2))), INVALID, "overlap"),
    ("out_shape_copy", dict(out=E((2, 3))), 561103, "overlap"),
    # order: dtype before attribute before shape
    ("dtype_before_attr", dict(g=E((2, 4), F16), eps=-1.0), INVALID, "gtBoxes"),
    ("attr_before_shape", dict(b=E((3, 5)), eps=-1.0), INVALID, "eps"),
]


@pytest.mark.parametrize("cid,kw,code,word", IOU_INVALID, ids=[r[0] for r in IOU_INVALID])
def test_iou_invalid(cid, kw, code, word):
    expect_invalid("Iou", iou_args(**kw), code, word)


def test_iou_deterministic_across_threads():
    code = """
import sys; sys.path.insert(0, 'tests')
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
from helpers import ws_call, run_executor
pyaclnn.ensure_device()
rng = np.random.default_rng(0)
def boxes(k):
    xy = rng.uniform(0, 50, (k, 2)); return np.concatenate([xy, xy + rng.uniform(1, 20, (k, 2))], 1).astype(np.float32)
T = pyaclnn.AclTensor.from_array
bt, gt = T(boxes(300), lib.ACL_FORMAT_ND), T(boxes(200), lib.ACL_FORMAT_ND)
ot = T(np.zeros((300, 200), np.float32), lib.ACL_FORMAT_ND)
rc, ws, ex, msg = ws_call("Iou", bt, gt, pyaclnn.ffi.new("char[]", b"iou"), 0.0, False, ot)
assert rc == 0 and run_executor("Iou", ex, ws) == 0
print(hashlib.sha256(ot.numpy().tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)


def test_roi_align_hostile_boxes_finish_inside_out():
    """NaN / infinite / huge boxes and a huge samplingRatio: the run ends, out holds finite or zero values only."""
    x = np.random.default_rng(9).uniform(-1, 1, (1, 2, 5, 5)).astype(np.float32)
    boxes = np.array([[np.nan, 0, 2, 2], [0, 0, np.inf, np.inf], [-np.inf, 1, 1e30, 1e30], [0, 0, 3e9, 2]],
                     np.float32)
    y = roi_align(x, boxes, np.zeros(4, np.int32), "avg", 2, 2, 0, 1.0)
    assert np.all(np.isfinite(y))
    y = roi_align_v2(x, boxes5(boxes, np.zeros(4, np.int32)), 2, 2, 1.0, 2 ** 40, True)
    assert np.all(np.isfinite(y))
    gx = roi_align_v2_backward(np.ones((4, 2, 2, 2), np.float32), boxes5(boxes, np.zeros(4, np.int32)),
                               x.shape, 1.0, 0, False)
    assert np.all(np.isfinite(gx))


def test_roi_align_v2_fractional_batch_index_truncates():
    """boxes[:, 0] is a float: truncated toward zero (-0.5 -> 0, 1.7 -> 1), out of [0, N) -> zeros."""
    x, boxes, _ = make_case(2, 2, 6, 6, 4, F32, seed=10)
    b5 = boxes5(boxes, np.zeros(4, np.int32))
    b5[:, 0] = [-0.5, 1.7, -1.0, 2.0]
    y = roi_align_v2(x, b5, 2, 2, 1.0, 0, False)
    assert_close(y, ref.roi_align(x, boxes.astype(np.float64), [0, 1, -1, 2], 2, 2, 0, 1.0), F32)
    gy = np.ones((4, 2, 2, 2), np.float32)
    gx = roi_align_v2_backward(gy, b5, x.shape, 1.0, 0, False)
    assert_close(gx, ref.roi_align_backward(gy, boxes.astype(np.float64), [0, 1, -1, 2], x.shape, 0, 1.0), F32)
