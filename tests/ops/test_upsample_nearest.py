"""The nearest / nearest-exact family beyond the seed pair: aclnnUpsampleNearest1d / 2d, aclnnUpsampleNearestExact1d
and the backward ops aclnnUpsampleNearest1dBackward / 2dBackward / aclnnUpsampleNearestExact1dBackward.
Values against the numpy loop reference (tests/reference/upsample_nearest.py) and PyTorch for every A2 dtype,
strided views, NHWC, invalid inputs with exact codes, determinism across thread counts."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn.ops import launch
from helpers import BF16, assert_close, expect_invalid, rounded, same_bytes_for_threads, strided
from reference import upsample_nearest as ref

RNG = np.random.default_rng(11)
NCL, NCHW, NHWC, ND = lib.ACL_FORMAT_NCL, lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_NHWC, lib.ACL_FORMAT_ND
DT = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": BF16, "f64": np.dtype(np.float64),
      "u8": np.dtype(np.uint8)}
IA = pyaclnn.int_array


def _data(shape, dt):
    if dt == np.uint8:
        return RNG.integers(0, 256, shape).astype(np.uint8)
    return RNG.standard_normal(shape).astype(dt)


def _t(a, fmt=ND):
    return pyaclnn.AclTensor.from_array(a, fmt)


def _run(op, args, out_shape, dt, fmt=ND, out_view=False):
    """Both phases; returns out's values. out_view: out is a strided view."""
    if out_view:
        out = _t(strided(np.zeros(out_shape, dt)), fmt)
    else:
        out = pyaclnn.AclTensor.empty(out_shape, dt, fmt)
    launch(op, *args, out)
    return out.numpy()


def _torch_in(torch, x):
    t = torch.from_numpy(x.astype(np.float32) if x.dtype == BF16 else x)
    return t.to(torch.bfloat16) if x.dtype == BF16 else t


def _from_torch(t, dt):
    return t.float().numpy().astype(dt) if dt == BF16 else t.numpy()


# ---------------------------------------------------------------- forward

FWD1 = [(2, 3, 5, 9), (1, 2, 8, 4), (1, 2, 6, 6), (1, 1, 1, 7), (2, 2, 7, 1), (1, 3, 3, 10), (1, 2, 4, 8)]
FWD2 = [(2, 3, 4, 4, 8, 8), (1, 2, 4, 6, 6, 9), (1, 2, 5, 7, 13, 11), (1, 2, 9, 8, 4, 3), (1, 1, 1, 1, 3, 2),
        (2, 2, 5, 5, 5, 5), (1, 2, 6, 5, 1, 1)]
FWD_DTS = ["f16", "f32", "f64", "u8", "bf16"]


@pytest.mark.parametrize("dt", FWD_DTS)
@pytest.mark.parametrize("case", FWD1, ids=str)
def test_nearest1d(case, dt, torch):
    n, c, li, lo = case
    x = _data((n, c, li), DT[dt])
    got = _run("UpsampleNearest1d", [_t(x, NCL), IA([lo])], (n, c, lo), DT[dt], NCL)
    want = ref.forward(x, (lo,), (ref.fwd_ratio(li, lo),), False)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    tr = torch.nn.functional.interpolate(_torch_in(torch, x), size=lo, mode="nearest")
    np.testing.assert_array_equal(got.view(np.uint8), _from_torch(tr, DT[dt]).view(np.uint8))


@pytest.mark.parametrize("dt", FWD_DTS)
@pytest.mark.parametrize("case", FWD2, ids=str)
def test_nearest2d(case, dt, torch):
    n, c, hi, wi, ho, wo = case
    x = _data((n, c, hi, wi), DT[dt])
    got = _run("UpsampleNearest2d", [_t(x, NCHW), IA([ho, wo])], (n, c, ho, wo), DT[dt], NCHW)
    want = ref.forward(x, (ho, wo), (ref.fwd_ratio(hi, ho), ref.fwd_ratio(wi, wo)), False)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    tr = torch.nn.functional.interpolate(_torch_in(torch, x), size=(ho, wo), mode="nearest")
    np.testing.assert_array_equal(got.view(np.uint8), _from_torch(tr, DT[dt]).view(np.uint8))


@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_nearest2d_views_and_nhwc(kind):
    x = _data((2, 3, 5, 7), np.float32)
    want = ref.forward(x, (9, 4), (ref.fwd_ratio(5, 9), ref.fwd_ratio(7, 4)), False)
    got = _run("UpsampleNearest2d", [_t(strided(x, kind), NCHW), IA([9, 4])], (2, 3, 9, 4), np.float32, NCHW,
               out_view=True)
    np.testing.assert_array_equal(got, want)
    xh = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    got = _run("UpsampleNearest2d", [_t(strided(xh, kind), NHWC), IA([9, 4])], (2, 9, 4, 3), np.float32, NHWC,
               out_view=True)
    np.testing.assert_array_equal(got, want.transpose(0, 2, 3, 1))


def test_nearest1d_view():
    x = _data((2, 3, 7), np.float64)
    got = _run("UpsampleNearest1d", [_t(strided(x, "transpose"), NCL), IA([12])], (2, 3, 12), np.float64, NCL,
               out_view=True)
    np.testing.assert_array_equal(got, ref.forward(x, (12,), (ref.fwd_ratio(7, 12),), False))


EX1 = [(2, 3, 5, 9, 0.0), (1, 2, 4, 8, 2.0), (1, 2, 6, 9, 1.5), (1, 2, 9, 4, 0.0), (1, 1, 3, 10, 3.4),
       (1, 2, 5, 5, 0.0), (1, 1, 3, 7, 3.0)]


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "u8"])
@pytest.mark.parametrize("case", EX1, ids=str)
def test_nearest_exact1d(case, dt, torch):
    n, c, li, lo, sc = case
    x = _data((n, c, li), DT[dt])
    got = _run("UpsampleNearestExact1d", [_t(x, NCL), IA([lo]), sc], (n, c, lo), DT[dt], NCL)
    want = ref.forward(x, (lo,), (ref.fwd_ratio(li, lo, sc),), True)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    tr = torch.ops.aten._upsample_nearest_exact1d(_torch_in(torch, x), [lo], sc or None)
    np.testing.assert_array_equal(got.view(np.uint8), _from_torch(tr, DT[dt]).view(np.uint8))


def test_nearest_exact1d_view_nd():
    x = _data((2, 3, 6), np.float16)
    got = _run("UpsampleNearestExact1d", [_t(strided(x), ND), IA([11]), 0.0], (2, 3, 11), np.float16, ND,
               out_view=True)
    np.testing.assert_array_equal(got, ref.forward(x, (11,), (ref.fwd_ratio(6, 11),), True))


# ---------------------------------------------------------------- backward

def _check_bwd(got, want, dt):
    if dt == np.float64:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    else:
        assert_close(got, rounded(want, dt), dt)


# (N, C, Li, Lo, scales): consistent sizes, so the device rule equals PyTorch's
BW1 = [(2, 3, 5, 10, 0.0), (2, 3, 5, 10, 2.0), (1, 2, 4, 6, 1.5), (1, 2, 9, 4, 0.0), (1, 2, 8, 4, 0.5),
       (1, 1, 3, 10, 0.0), (1, 2, 7, 7, 0.0), (1, 1, 3, 10, 3.4),
       # whole rows: x2, x1.5 (the pair tables), x4.5 (longer ranges)
       (2, 3, 64, 128, 2.0), (1, 2, 40, 60, 0.0), (1, 2, 20, 90, 0.0)]


def _rule1d(dt, li, lo, sc):
    chk = int(li * sc) == lo if sc > 0 else True
    if dt != np.float64 and sc > 0 and chk:
        return ("ranges", np.float32(sc), False)
    if dt == np.float64 and sc > 0 and chk:
        return ("map", np.float32(1.0 / sc))
    return ("map", np.float32(li) / np.float32(lo))


@pytest.mark.parametrize("dt", ["f16", "f32", "f64", "bf16"])
@pytest.mark.parametrize("case", BW1, ids=str)
def test_nearest1d_backward(case, dt, torch):
    n, c, li, lo, sc = case
    g = _data((n, c, lo), DT[dt])
    got = _run("UpsampleNearest1dBackward", [_t(g), IA([lo]), IA([n, c, li]), sc], (n, c, li), DT[dt])
    _check_bwd(got, ref.backward(g, (li,), [_rule1d(DT[dt], li, lo, sc)]), DT[dt])
    tg = _torch_in(torch, g).float() if dt in ("f16", "bf16") else _torch_in(torch, g)
    tr = torch.ops.aten.upsample_nearest1d_backward(tg, [lo], [n, c, li], sc or None)
    assert_close(got, _from_torch(tr.to(_torch_in(torch, g).dtype), DT[dt]).astype(np.float64), DT[dt])


BW2 = [(2, 3, 4, 4, 8, 8, 0.0, 0.0), (2, 3, 4, 4, 8, 8, 2.0, 2.0), (1, 2, 4, 6, 6, 9, 1.5, 1.5),
       (1, 2, 9, 8, 4, 3, 0.0, 0.0), (1, 2, 5, 7, 13, 11, 0.0, 0.0), (1, 2, 8, 16, 16, 32, 2.0, 2.0),
       (1, 2, 5, 5, 5, 5, 0.0, 0.0), (1, 2, 4, 6, 8, 9, 2.0, 0.0)]


def _rules2d(hi, wi, ho, wo, sh, sw):
    if sh > 0 or sw > 0:
        s = [np.float32(sh) if sh > 0 else np.float32(ho) / np.float32(hi),
             np.float32(sw) if sw > 0 else np.float32(wo) / np.float32(wi)]
        aicore = sh > 0 and sw > 0 and hi >= 8 and ho >= 8 and wi >= 16 and wo >= 16 and int(hi * sh) == ho and \
            int(wi * sw) == wo
        if not aicore and ho == hi and wo == wi:
            s = [np.float32(1), np.float32(1)]
        return [("ranges", s[0], False), ("ranges", s[1], False)]
    return [("map", np.float32(hi) / np.float32(ho)), ("map", np.float32(wi) / np.float32(wo))]


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("case", BW2, ids=str)
def test_nearest2d_backward(case, dt, torch):
    n, c, hi, wi, ho, wo, sh, sw = case
    g = _data((n, c, ho, wo), DT[dt])
    got = _run("UpsampleNearest2dBackward", [_t(g, NCHW), IA([ho, wo]), IA([n, c, hi, wi]), sh, sw], (n, c, hi, wi),
               DT[dt], NCHW)
    _check_bwd(got, ref.backward(g, (hi, wi), _rules2d(hi, wi, ho, wo, sh, sw)), DT[dt])
    tg = _torch_in(torch, g)
    tr = torch.ops.aten.upsample_nearest2d_backward(tg.float(), [ho, wo], [n, c, hi, wi], sh or None, sw or None)
    assert_close(got, _from_torch(tr.to(tg.dtype), DT[dt]).astype(np.float64), DT[dt])


@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_nearest2d_backward_views_nhwc(kind):
    g = _data((2, 3, 10, 14), np.float32)
    want = ref.backward(g, (5, 7), _rules2d(5, 7, 10, 14, 0.0, 0.0))
    got = _run("UpsampleNearest2dBackward", [_t(strided(g, kind), NCHW), IA([10, 14]), IA([2, 3, 5, 7]), 0.0, 0.0],
               (2, 3, 5, 7), np.float32, NCHW, out_view=True)
    assert_close(got, want)
    gh = np.ascontiguousarray(g.transpose(0, 2, 3, 1))
    got = _run("UpsampleNearest2dBackward", [_t(strided(gh, kind), NHWC), IA([10, 14]), IA([2, 5, 7, 3]), 2.0, 2.0],
               (2, 5, 7, 3), np.float32, NHWC, out_view=True)
    assert_close(got, want.transpose(0, 2, 3, 1))


BWX1 = [(2, 3, 5, 10, 0.0), (2, 3, 5, 10, 2.0), (1, 2, 4, 6, 1.5), (1, 2, 9, 4, 0.0), (1, 2, 5, 13, 0.0),
        (1, 1, 3, 10, 3.4), (1, 2, 7, 7, 0.0)]


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("case", BWX1, ids=str)
def test_nearest_exact1d_backward(case, dt, torch):
    n, c, li, lo, sc = case
    g = _data((n, c, lo), DT[dt])
    got = _run("UpsampleNearestExact1dBackward", [_t(g), IA([lo]), IA([n, c, li]), sc], (n, c, li), DT[dt])
    s = np.float32(sc) if sc > 0 else np.float32(lo) / np.float32(li)
    _check_bwd(got, ref.backward(g, (li,), [("ranges", s, True)]), DT[dt])
    tg = _torch_in(torch, g)
    tr = torch.ops.aten._upsample_nearest_exact1d_backward(tg.float(), [lo], [n, c, li], sc or None)
    assert_close(got, _from_torch(tr.to(tg.dtype), DT[dt]).astype(np.float64), DT[dt])


def test_backward_1d_views():
    g = _data((2, 3, 12), np.float64)
    got = _run("UpsampleNearest1dBackward", [_t(strided(g, "transpose")), IA([12]), IA([2, 3, 5]), 0.0], (2, 3, 5),
               np.float64, out_view=True)
    _check_bwd(got, ref.backward(g, (5,), [("map", np.float32(5) / np.float32(12))]), np.float64)
    g = _data((2, 3, 60), np.float64)   # float64 x1.5 rows through the pair tables, strided in and out
    got = _run("UpsampleNearest1dBackward", [_t(strided(g, "transpose")), IA([60]), IA([2, 3, 40]), 0.0],
               (2, 3, 40), np.float64, out_view=True)
    _check_bwd(got, ref.backward(g, (40,), [("map", np.float32(40) / np.float32(60))]), np.float64)
    g = _data((2, 3, 12), np.float32)
    got = _run("UpsampleNearestExact1dBackward", [_t(strided(g)), IA([12]), IA([2, 3, 5]), 0.0], (2, 3, 5),
               np.float32, out_view=True)
    _check_bwd(got, ref.backward(g, (5,), [("ranges", np.float32(12) / np.float32(5), True)]), np.float32)


def test_empty_outputs_succeed():
    x = np.zeros((0, 2, 3, 3), np.float32)
    got = _run("UpsampleNearest2d", [_t(x, NCHW), IA([4, 4])], (0, 2, 4, 4), np.float32, NCHW)
    assert got.shape == (0, 2, 4, 4)
    g = np.zeros((0, 2, 6), np.float32)
    got = _run("UpsampleNearest1dBackward", [_t(g), IA([6]), IA([0, 2, 3]), 0.0], (0, 2, 3), np.float32)
    assert got.shape == (0, 2, 3)


# ---------------------------------------------------------------- invalid inputs

def _z(shape, dt=np.float32, fmt=ND):
    return _t(np.zeros(shape, dt), fmt)


def _case(op, base, **kw):
    a = dict(base)
    a.update(kw)
    return op, list(a.values())


F2 = dict(x=None, osz=None, out=None)
INVALID = [
    # aclnnUpsampleNearest2d
    ("UpsampleNearest2d", dict(x=None), 161001, "self"),
    ("UpsampleNearest2d", dict(osz=None), 161001, "outputSize"),
    ("UpsampleNearest2d", dict(out=None), 161001, "out"),
    ("UpsampleNearest2d", dict(x=_z((1, 2, 4, 4), np.int32, NCHW), out=_z((1, 2, 8, 8), np.int32, NCHW)), 161002,
     "self"),
    ("UpsampleNearest2d", dict(out=_z((1, 2, 8, 8), np.float16, NCHW)), 161002, "out"),
    ("UpsampleNearest2d", dict(osz=IA([8])), 161002, "outputSize"),
    ("UpsampleNearest2d", dict(x=_z((2, 4, 4), fmt=NCHW)), 161002, "self"),
    ("UpsampleNearest2d", dict(osz=IA([0, 8])), 161002, "outputSize"),
    ("UpsampleNearest2d", dict(x=_z((1, 0, 4, 4), fmt=NCHW)), 161002, "self"),
    ("UpsampleNearest2d", dict(x=_z((1, 2, 4, 4), fmt=ND), out=_z((1, 2, 8, 8), fmt=ND)), 161002, "self"),
    ("UpsampleNearest2d", dict(out=_z((1, 2, 8, 8), fmt=NHWC)), 161002, "out format"),
    ("UpsampleNearest2d", dict(out=_z((1, 3, 8, 8), fmt=NCHW)), 161002, "out N, C"),
    ("UpsampleNearest2d", dict(out=_z((1, 2, 8, 7), fmt=NCHW)), 161002, "outputSize"),
    # aclnnUpsampleNearest1d
    ("UpsampleNearest1d", dict(x=None), 161001, "self"),
    ("UpsampleNearest1d", dict(x=_z((1, 2, 4), np.int8, NCL), out=_z((1, 2, 8), np.int8, NCL)), 161002, "self"),
    ("UpsampleNearest1d", dict(out=_z((1, 2, 8), np.float64, NCL)), 161002, "out"),
    ("UpsampleNearest1d", dict(osz=IA([])), 161002, "outputSize"),
    ("UpsampleNearest1d", dict(x=_z((1, 2, 4, 1), fmt=NCL)), 161002, "self"),
    ("UpsampleNearest1d", dict(x=_z((1, 2, 0), fmt=NCL)), 161002, "self"),
    ("UpsampleNearest1d", dict(osz=IA([0])), 161002, "outputSize"),
    ("UpsampleNearest1d", dict(out=_z((1, 2, 8), fmt=ND)), 161002, "out format"),
    ("UpsampleNearest1d", dict(x=_z((1, 2, 4), fmt=ND), out=_z((1, 2, 8), fmt=ND)), 161002, "self format"),
    ("UpsampleNearest1d", dict(out=_z((1, 2, 9), fmt=NCL)), 561103, "out"),
    # aclnnUpsampleNearestExact1d
    ("UpsampleNearestExact1d", dict(out=None), 161001, "out"),
    ("UpsampleNearestExact1d", dict(x=_z((1, 2, 4), np.float64), out=_z((1, 2, 8), np.float64)), 161002, "self"),
    ("UpsampleNearestExact1d", dict(osz=IA([0])), 161002, "outputSize"),
    ("UpsampleNearestExact1d", dict(x=_z((1, 2, 4, 4))), 161002, "self"),
    ("UpsampleNearestExact1d", dict(osz=IA([8, 8])), 161002, "outputSize"),
    ("UpsampleNearestExact1d", dict(out=_z((1, 2, 7))), 561103, "out"),
    # aclnnUpsampleNearest2dBackward
    ("UpsampleNearest2dBackward", dict(isz=None), 161001, "inputSize"),
    ("UpsampleNearest2dBackward", dict(g=_z((1, 2, 8, 8), np.float64, NCHW), out=_z((1, 2, 4, 4), np.float64, NCHW)),
     161002, "gradOut"),
    ("UpsampleNearest2dBackward", dict(out=_z((1, 2, 4, 4), np.float16, NCHW)), 161002, "gradInput"),
    ("UpsampleNearest2dBackward", dict(g=_z((2, 8, 8), fmt=NCHW)), 161002, "gradOut"),
    ("UpsampleNearest2dBackward", dict(osz=IA([8])), 161002, "outputSize"),
    ("UpsampleNearest2dBackward", dict(isz=IA([1, 2, 4])), 161002, "inputSize"),
    ("UpsampleNearest2dBackward", dict(out=_z((1, 2, 4, 4), fmt=ND)), 161002, "gradInput"),
    ("UpsampleNearest2dBackward", dict(out=_z((1, 3, 4, 4), fmt=NCHW)), 161002, "gradInput N, C"),
    ("UpsampleNearest2dBackward", dict(isz=IA([1, 2, 0, 4])), 161002, "inputSize"),
    ("UpsampleNearest2dBackward", dict(g=_z((1, 2, 8, 7), fmt=NCHW)), 161002, "gradOut dim 3"),
    ("UpsampleNearest2dBackward", dict(out=_z((1, 2, 4, 5), fmt=NCHW)), 161002, "gradInput"),
    ("UpsampleNearest2dBackward", dict(out=_z((1, 2, 4, 5), fmt=NCHW), sh=2.0), 561103, "gradInput"),
    # aclnnUpsampleNearest1dBackward
    ("UpsampleNearest1dBackward", dict(g=None), 161001, "gradOut"),
    ("UpsampleNearest1dBackward", dict(g=_z((1, 2, 8, 1))), 161002, "gradOut"),
    ("UpsampleNearest1dBackward", dict(osz=IA([8, 8])), 161002, "outputSize"),
    ("UpsampleNearest1dBackward", dict(isz=IA([1, 2])), 161002, "inputSize"),
    ("UpsampleNearest1dBackward", dict(g=_z((1, 2, 8), np.uint8), out=_z((1, 2, 4), np.uint8)), 161002, "gradOut"),
    ("UpsampleNearest1dBackward", dict(isz=IA([1, 2, 0])), 161002, "inputSize"),
    ("UpsampleNearest1dBackward", dict(isz=IA([1, 3, 4])), 161002, "gradOut dim 1"),
    ("UpsampleNearest1dBackward", dict(out=_z((2, 2, 4))), 161002, "out N, C"),
    ("UpsampleNearest1dBackward", dict(out=_z((1, 2, 5))), 161002, "out"),
    ("UpsampleNearest1dBackward", dict(out=_z((1, 2, 5)), sc=2.0), 561103, "out"),
    # aclnnUpsampleNearestExact1dBackward
    ("UpsampleNearestExact1dBackward", dict(isz=None), 161001, "inputSize"),
    ("UpsampleNearestExact1dBackward", dict(osz=None), 161001, "outputSize"),
    ("UpsampleNearestExact1dBackward", dict(g=_z((1, 2, 8), np.float64), out=_z((1, 2, 4), np.float64)), 161002,
     "gradOutput"),
    ("UpsampleNearestExact1dBackward", dict(out=_z((1, 2, 4), fmt=NCL)), 161002, "out format"),
    ("UpsampleNearestExact1dBackward", dict(out=_z((1, 2, 4, 1))), 161002, "out"),
    ("UpsampleNearestExact1dBackward", dict(isz=IA([1, 2])), 161002, "inputSize"),
    ("UpsampleNearestExact1dBackward", dict(out=_z((1, 3, 4))), 161002, "out N, C"),
    ("UpsampleNearestExact1dBackward", dict(sc=-1.0), 161002, "scales"),
    ("UpsampleNearestExact1dBackward", dict(sc=100.0), 161002, "scales"),
    ("UpsampleNearestExact1dBackward", dict(isz=IA([1, 2, 0])), 161002, "scales"),
    ("UpsampleNearestExact1dBackward", dict(out=_z((1, 2, 5))), 561103, "out"),
]


def _base(op):
    if op == "UpsampleNearest2d":
        return dict(x=_z((1, 2, 4, 4), fmt=NCHW), osz=IA([8, 8]), out=_z((1, 2, 8, 8), fmt=NCHW))
    if op == "UpsampleNearest1d":
        return dict(x=_z((1, 2, 4), fmt=NCL), osz=IA([8]), out=_z((1, 2, 8), fmt=NCL))
    if op == "UpsampleNearestExact1d":
        return dict(x=_z((1, 2, 4)), osz=IA([8]), sc=0.0, out=_z((1, 2, 8)))
    if op == "UpsampleNearest2dBackward":
        return dict(g=_z((1, 2, 8, 8), fmt=NCHW), osz=IA([8, 8]), isz=IA([1, 2, 4, 4]), sh=0.0, sw=0.0,
                    out=_z((1, 2, 4, 4), fmt=NCHW))
    return dict(g=_z((1, 2, 8)), osz=IA([8]), isz=IA([1, 2, 4]), sc=0.0, out=_z((1, 2, 4)))


@pytest.mark.parametrize("row", INVALID, ids=[f"{r[0]}-{i}" for i, r in enumerate(INVALID)])
def test_invalid(row):
    op, kw, code, word = row
    a = _base(op)
    a.update(kw)
    expect_invalid(op, list(a.values()), code, word)


def test_workspace_and_executor_null():
    from pyaclnn import ffi
    a = list(_base("UpsampleNearest2d").values())
    fn = lib.aclnnUpsampleNearest2dGetWorkspaceSize
    assert fn(*[v.handle if hasattr(v, "handle") else v for v in a], ffi.NULL, ffi.new("aclOpExecutor **")) == 161001


V2_2D = [(2, 3, 4, 4, 8, 8, 2.0, 2.0), (1, 2, 4, 6, 6, 9, 1.5, 1.5), (1, 2, 5, 7, 13, 11, 0.0, 0.0),
         (1, 2, 9, 8, 4, 3, 0.45, 0.4), (1, 2, 5, 5, 5, 5, 1.0, 1.0), (1, 2, 4, 5, 10, 11, 2.5, 2.2)]


def _v2_ratio(i, o, o2, s, dt):
    if dt in ("f64", "u8") or s <= 0:
        return np.float32(i) / np.float32(o)
    if i == o:
        return np.float32(1)
    if 2 * i == o and o + o2 <= 128:
        return np.float32(0.5)
    return np.float32(1.0 / float(np.float32(s)))


@pytest.mark.parametrize("dt", FWD_DTS)
@pytest.mark.parametrize("case", V2_2D, ids=str)
def test_nearest2d_v2(case, dt, torch):
    n, c, hi, wi, ho, wo, sh, sw = case
    x = _data((n, c, hi, wi), DT[dt])
    got = _run("UpsampleNearest2dV2", [_t(x, NCHW), IA([ho, wo]), sh, sw], (n, c, ho, wo), DT[dt], NCHW)
    both = sh > 0 and sw > 0
    r = (_v2_ratio(hi, ho, wo, sh if both else 0, dt), _v2_ratio(wi, wo, ho, sw if both else 0, dt))
    want = ref.forward(x, (ho, wo), r, False)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    if dt not in ("f64", "u8") and both:
        tr = torch.ops.aten.upsample_nearest2d(_torch_in(torch, x), [ho, wo], sh, sw)
        np.testing.assert_array_equal(got.view(np.uint8), _from_torch(tr, DT[dt]).view(np.uint8))


V2_1D = [(2, 3, 5, 10, 2.0), (1, 2, 4, 6, 1.5), (1, 2, 9, 4, 0.0), (1, 1, 3, 10, 3.4), (1, 2, 6, 6, 0.0)]


@pytest.mark.parametrize("dt", FWD_DTS)
@pytest.mark.parametrize("case", V2_1D, ids=str)
def test_nearest1d_v2(case, dt, torch):
    n, c, li, lo, sc = case
    x = _data((n, c, li), DT[dt])
    got = _run("UpsampleNearest1dV2", [_t(x, NCL), IA([lo]), sc], (n, c, lo), DT[dt], NCL)
    aicore = dt not in ("f64", "u8") and sc > 0
    r = np.float32(1.0 / float(np.float32(sc))) if aicore else np.float32(li) / np.float32(lo)
    np.testing.assert_array_equal(got.view(np.uint8), ref.forward(x, (lo,), (r,), False).view(np.uint8))
    tr = torch.ops.aten.upsample_nearest1d(_torch_in(torch, x), [lo], sc if aicore else None)
    np.testing.assert_array_equal(got.view(np.uint8), _from_torch(tr, DT[dt]).view(np.uint8))


def test_v2_views_nhwc():
    x = _data((2, 3, 5, 7), np.float32)
    xh = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    got = _run("UpsampleNearest2dV2", [_t(strided(xh, "transpose"), NHWC), IA([10, 14]), 2.0, 2.0], (2, 10, 14, 3),
               np.float32, NHWC, out_view=True)
    want = ref.forward(x, (10, 14), (np.float32(0.5), np.float32(0.5)), False)
    np.testing.assert_array_equal(got, want.transpose(0, 2, 3, 1))


INVALID_V2 = [
    ("UpsampleNearest2dV2", dict(x=None), 161001, "self"),
    ("UpsampleNearest2dV2", dict(out=None), 161001, "out"),
    ("UpsampleNearest2dV2", dict(osz=None), 161001, "outputSize"),
    ("UpsampleNearest2dV2", dict(x=_z((1, 2, 4, 4), np.int32, NCHW), out=_z((1, 2, 8, 8), np.int32, NCHW)), 161002,
     "self"),
    ("UpsampleNearest2dV2", dict(out=_z((1, 2, 8, 8), np.float16, NCHW)), 161002, "out"),
    ("UpsampleNearest2dV2", dict(osz=IA([8])), 161002, "outputSize"),
    ("UpsampleNearest2dV2", dict(x=_z((2, 4, 4), fmt=NCHW)), 161002, "self"),
    ("UpsampleNearest2dV2", dict(osz=IA([0, 8])), 161002, "outputSize"),
    ("UpsampleNearest2dV2", dict(x=_z((1, 2, 4, 4), fmt=ND)), 161002, "self format"),
    ("UpsampleNearest2dV2", dict(out=_z((1, 3, 8, 8), fmt=NCHW)), 161002, "out N, C"),
    ("UpsampleNearest2dV2", dict(out=_z((1, 2, 8, 8), fmt=ND)), 161002, "out format"),
    ("UpsampleNearest2dV2", dict(out=_z((1, 2, 8, 7), fmt=NCHW)), 161002, "outputSize"),
    ("UpsampleNearest1dV2", dict(osz=None), 161001, "outputSize"),
    ("UpsampleNearest1dV2", dict(x=_z((1, 2, 4), np.int8, NCL), out=_z((1, 2, 8), np.int8, NCL)), 161002, "self"),
    ("UpsampleNearest1dV2", dict(osz=IA([])), 161002, "outputSize"),
    ("UpsampleNearest1dV2", dict(x=_z((1, 2, 4, 1), fmt=NCL)), 161002, "self"),
    ("UpsampleNearest1dV2", dict(x=_z((1, 0, 4), fmt=NCL)), 161002, "self"),
    ("UpsampleNearest1dV2", dict(osz=IA([9])), 161002, "outputSize"),
    ("UpsampleNearest1dV2", dict(osz=IA([0]), out=_z((1, 2, 0), fmt=NCL)), 161002, "outputSize"),
    ("UpsampleNearest1dV2", dict(out=_z((1, 2, 8), fmt=ND)), 161002, "out format"),
    ("UpsampleNearest1dV2", dict(out=_z((1, 3, 8), fmt=NCL)), 561103, "out"),
]


def _base_v2(op):
    if op == "UpsampleNearest2dV2":
        return dict(x=_z((1, 2, 4, 4), fmt=NCHW), osz=IA([8, 8]), sh=2.0, sw=2.0, out=_z((1, 2, 8, 8), fmt=NCHW))
    return dict(x=_z((1, 2, 4), fmt=NCL), osz=IA([8]), sc=2.0, out=_z((1, 2, 8), fmt=NCL))


@pytest.mark.parametrize("row", INVALID_V2, ids=[f"{r[0]}-{i}" for i, r in enumerate(INVALID_V2)])
def test_invalid_v2(row):
    op, kw, code, word = row
    a = _base_v2(op)
    a.update(kw)
    expect_invalid(op, list(a.values()), code, word)


# ---------------------------------------------------------------- 3-D forward

NCDHW, NDHWC = lib.ACL_FORMAT_NCDHW, lib.ACL_FORMAT_NDHWC
F3 = [((1, 2, 2, 3, 4), (4, 6, 8), (2.0, 2.0, 2.0)), ((2, 2, 3, 4, 5), (5, 7, 9), (0.0, 0.0, 0.0)),
      ((1, 2, 4, 6, 5), (2, 3, 3), (0.0, 0.0, 0.0)), ((1, 1, 2, 4, 4), (3, 6, 6), (1.5, 1.5, 1.5)),
      ((1, 2, 3, 3, 3), (3, 3, 3), (0.0, 0.0, 0.0)), ((1, 1, 2, 3, 4), (5, 7, 9), (2.5, 0.0, 2.3))]


def _ratios3(shape, osz, sc, dt):
    allpos = all(s > 0 for s in sc)
    out = []
    for k in range(3):
        use = sc[k] > 0 if dt == "f64" else allpos
        out.append(np.float32(1.0 / sc[k]) if use else np.float32(shape[2 + k]) / np.float32(osz[k]))
    return out


@pytest.mark.parametrize("dt", ["f32", "f16", "f64", "bf16"])
@pytest.mark.parametrize("case", F3, ids=str)
def test_nearest3d(case, dt, torch):
    shape, osz, sc = case
    x = _data(shape, DT[dt])
    got = _run("UpsampleNearest3d", [_t(x), IA(list(osz)), *sc], shape[:2] + osz, DT[dt])
    np.testing.assert_array_equal(got.view(np.uint8),
                                  ref.forward(x, osz, _ratios3(shape, osz, sc, dt), False).view(np.uint8))
    if all(s > 0 for s in sc) or not any(s > 0 for s in sc):
        tr = torch.ops.aten.upsample_nearest3d(_torch_in(torch, x), list(osz), *[s or None for s in sc])
        np.testing.assert_array_equal(got.view(np.uint8), _from_torch(tr, DT[dt]).view(np.uint8))


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("case", [c for c in F3 if c[2] != (2.5, 0.0, 2.3)], ids=str)
def test_nearest_exact3d(case, dt, torch):
    shape, osz, sc = case
    x = _data(shape, DT[dt])
    got = _run("UpsampleNearestExact3d", [_t(x), IA(list(osz)), *sc], shape[:2] + osz, DT[dt])
    np.testing.assert_array_equal(got.view(np.uint8),
                                  ref.forward(x, osz, _ratios3(shape, osz, sc, dt), True).view(np.uint8))
    tr = torch.ops.aten._upsample_nearest_exact3d(_torch_in(torch, x), list(osz), *[s or None for s in sc])
    np.testing.assert_array_equal(got.view(np.uint8), _from_torch(tr, DT[dt]).view(np.uint8))


@pytest.mark.parametrize("op,exact", [("UpsampleNearest3d", False), ("UpsampleNearestExact3d", True)])
def test_3d_views_ndhwc(op, exact):
    x = _data((2, 3, 3, 4, 5), np.float32)
    want = ref.forward(x, (5, 7, 9), [np.float32(a) / np.float32(b) for a, b in zip((3, 4, 5), (5, 7, 9))], exact)
    got = _run(op, [_t(strided(x, "transpose"), NCDHW), IA([5, 7, 9]), 0.0, 0.0, 0.0], (2, 3, 5, 7, 9), np.float32,
               NCDHW, out_view=True)
    np.testing.assert_array_equal(got, want)
    xh = np.ascontiguousarray(x.transpose(0, 2, 3, 4, 1))
    got = _run(op, [_t(strided(xh), NDHWC), IA([5, 7, 9]), 0.0, 0.0, 0.0], (2, 5, 7, 9, 3), np.float32, NDHWC,
               out_view=True)
    np.testing.assert_array_equal(got, want.transpose(0, 2, 3, 4, 1))


INVALID_3D = [
    ("UpsampleNearest3d", dict(x=None), 161001, "self"),
    ("UpsampleNearest3d", dict(out=None), 161001, "out"),
    ("UpsampleNearest3d", dict(osz=None), 161001, "outputSize"),
    ("UpsampleNearest3d", dict(x=_z((1, 2, 2, 2, 2), np.uint8), out=_z((1, 2, 4, 4, 4), np.uint8)), 161002, "self"),
    ("UpsampleNearest3d", dict(out=_z((1, 2, 4, 4, 4), np.float16)), 161002, "out"),
    ("UpsampleNearest3d", dict(osz=IA([4, 0, 4])), 161002, "outputSize"),
    ("UpsampleNearest3d", dict(x=_z((1, 0, 2, 2, 2))), 161002, "self"),
    ("UpsampleNearest3d", dict(x=_z((1, 2, 2, 2, 2, 1))), 161002, "self"),
    ("UpsampleNearest3d", dict(out=_z((1, 2, 4, 4, 4, 1))), 161002, "out"),
    ("UpsampleNearest3d", dict(osz=IA([4, 4, 4, 4])), 161002, "outputSize"),
    ("UpsampleNearest3d", dict(out=_z((1, 2, 4, 4, 5))), 161002, "out"),
    ("UpsampleNearestExact3d", dict(osz=None), 161001, "outputSize"),
    ("UpsampleNearestExact3d", dict(x=_z((1, 2, 2, 2, 2), np.float64), out=_z((1, 2, 4, 4, 4), np.float64)), 161002,
     "self"),
    ("UpsampleNearestExact3d", dict(sc=(2.0, 2.0, 3.0)), 161002, "scalesW"),
    ("UpsampleNearestExact3d", dict(out=_z((1, 2, 4, 4, 5))), 161002, "out"),
]


def _base3(op):
    return dict(x=_z((1, 2, 2, 2, 2)), osz=IA([4, 4, 4]), sc=(2.0, 2.0, 2.0), out=_z((1, 2, 4, 4, 4)))


@pytest.mark.parametrize("row", INVALID_3D, ids=[f"{r[0]}-{i}" for i, r in enumerate(INVALID_3D)])
def test_invalid_3d(row):
    op, kw, code, word = row
    a = _base3(op)
    a.update(kw)
    args = [a["x"], a["osz"], *a["sc"], a["out"]]
    expect_invalid(op, args, code, word)


# ---------------------------------------------------------------- 3-D backward

B3 = [((1, 2, 2, 3, 4), (4, 6, 8), (2.0, 2.0, 2.0)), ((2, 2, 3, 4, 5), (5, 7, 9), (0.0, 0.0, 0.0)),
      ((1, 2, 4, 6, 5), (2, 3, 3), (0.0, 0.0, 0.0)), ((1, 1, 2, 4, 4), (3, 6, 6), (1.5, 1.5, 1.5)),
      ((1, 2, 3, 3, 3), (3, 3, 3), (0.0, 0.0, 0.0)),
      # rows wide enough for the vector loops: x2, x1.5 (ranges of 1 or 2), ranges of 4-5, a downscale (empty ones)
      ((1, 2, 3, 4, 40), (6, 8, 80), (2.0, 2.0, 2.0)), ((1, 2, 4, 4, 40), (6, 6, 60), (0.0, 0.0, 0.0)),
      ((1, 1, 2, 3, 7), (5, 7, 31), (0.0, 0.0, 0.0)), ((1, 2, 6, 6, 50), (3, 4, 21), (0.0, 0.0, 0.0))]


def _rules3(ins, osz, sc, exact, dt):
    allpos = all(s > 0 for s in sc)
    if dt == "f64" and not exact:
        return [("map", np.float32(1.0 / sc[k]) if allpos else np.float32(ins[k]) / np.float32(osz[k]))
                for k in range(3)]
    return [("ranges", np.float32(sc[k]) if allpos else np.float32(osz[k]) / np.float32(ins[k]), exact)
            for k in range(3)]


@pytest.mark.parametrize("op,exact,dts", [("UpsampleNearest3dBackward", False, ["f32", "f16", "f64", "bf16"]),
                                          ("UpsampleNearestExact3dBackward", True, ["f32", "f16", "bf16"])])
@pytest.mark.parametrize("case", B3, ids=str)
def test_3d_backward(op, exact, dts, case, torch):
    shape, osz, sc = case
    for dt in dts:
        g = _data(shape[:2] + osz, DT[dt])
        got = _run(op, [_t(g), IA(list(osz)), IA(list(shape)), *sc], shape, DT[dt])
        _check_bwd(got, ref.backward3(g, shape[2:], _rules3(shape[2:], osz, sc, exact, dt)), DT[dt])
        tg = _torch_in(torch, g)
        f = torch.ops.aten._upsample_nearest_exact3d_backward if exact else torch.ops.aten.upsample_nearest3d_backward
        tr = f(tg.float() if dt != "f64" else tg, list(osz), list(shape), *[s or None for s in sc])
        assert_close(got, _from_torch(tr.to(tg.dtype), DT[dt]).astype(np.float64), DT[dt])


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64"])
@pytest.mark.parametrize("op,exact", [("UpsampleNearest3dBackward", False), ("UpsampleNearestExact3dBackward", True)])
def test_3d_backward_views_ndhwc(op, exact, dt):
    if exact and dt == "f64":
        pytest.skip("float64 is not in the exact op's A2 list")
    g = _data((2, 3, 5, 7, 19), DT[dt])
    want = ref.backward3(g, (3, 4, 9), _rules3((3, 4, 9), (5, 7, 19), (0, 0, 0), exact, dt))
    got = _run(op, [_t(strided(g, "transpose")), IA([5, 7, 19]), IA([2, 3, 3, 4, 9]), 0.0, 0.0, 0.0], (2, 3, 3, 4, 9),
               DT[dt], out_view=True)
    _check_bwd(got, want, DT[dt])
    gh = np.ascontiguousarray(g.transpose(0, 2, 3, 4, 1))
    got = _run(op, [_t(strided(gh), NDHWC), IA([5, 7, 19]), IA([2, 3, 3, 4, 9]), 0.0, 0.0, 0.0], (2, 3, 4, 9, 3),
               DT[dt], NDHWC, out_view=True)
    _check_bwd(got, want.transpose(0, 2, 3, 4, 1), DT[dt])


INVALID_B3 = [
    ("UpsampleNearest3dBackward", dict(g=None), 161001, "gradOut"),
    ("UpsampleNearest3dBackward", dict(isz=None), 161001, "inputSize"),
    ("UpsampleNearest3dBackward", dict(g=_z((1, 2, 4, 4, 4), np.uint8), out=_z((1, 2, 2, 2, 2), np.uint8)), 161002,
     "gradOut"),
    ("UpsampleNearest3dBackward", dict(out=_z((1, 2, 2, 2, 2), np.float16)), 161002, "gradInput"),
    ("UpsampleNearest3dBackward", dict(g=_z((1, 2, 4, 4))), 161002, "gradOut"),
    ("UpsampleNearest3dBackward", dict(osz=IA([4, 4])), 161002, "outputSize"),
    ("UpsampleNearest3dBackward", dict(isz=IA([1, 2, 2, 2])), 161002, "inputSize"),
    ("UpsampleNearest3dBackward", dict(isz=IA([1, 2, 0, 2, 2])), 161002, "inputSize"),
    ("UpsampleNearest3dBackward", dict(g=_z((1, 2, 4, 4, 5))), 161002, "gradOut dim 4"),
    ("UpsampleNearest3dBackward", dict(out=_z((1, 2, 2, 2, 3))), 161002, "gradInput"),
    ("UpsampleNearestExact3dBackward", dict(osz=None), 161001, "outputSize"),
    ("UpsampleNearestExact3dBackward", dict(g=_z((1, 2, 4, 4, 4), np.float64), out=_z((1, 2, 2, 2, 2), np.float64)),
     161002, "gradOut"),
    ("UpsampleNearestExact3dBackward", dict(sc=(2.0, 60.0, 2.0)), 161002, "scales"),
    ("UpsampleNearestExact3dBackward", dict(out=_z((1, 2, 2, 3, 2))), 161002, "gradInput"),
]


@pytest.mark.parametrize("row", INVALID_B3, ids=[f"{r[0]}-{i}" for i, r in enumerate(INVALID_B3)])
def test_invalid_3d_backward(row):
    op, kw, code, word = row
    a = dict(g=_z((1, 2, 4, 4, 4)), osz=IA([4, 4, 4]), isz=IA([1, 2, 2, 2, 2]), sc=(2.0, 2.0, 2.0),
             out=_z((1, 2, 2, 2, 2)))
    a.update(kw)
    expect_invalid(op, [a["g"], a["osz"], a["isz"], *a["sc"], a["out"]], code, word)


# ---------------------------------------------------------------- determinism

def test_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
from pyaclnn.ops import launch
r = np.random.default_rng(3)
h = hashlib.sha256()
def run(op, args, shape, dt, fmt):
    out = pyaclnn.AclTensor.empty(shape, dt, fmt)
    launch(op, *args, out)
    h.update(out.numpy().tobytes())
T = pyaclnn.AclTensor.from_array
IA = pyaclnn.int_array
for dt in (np.float32, np.float16, np.float64):
    g = r.standard_normal((4, 8, 96, 130)).astype(dt)
    if dt != np.float64:
        for sh, sw in ((0.0, 0.0), (2.0, 2.0), (1.5, 1.7)):
            run("UpsampleNearest2dBackward", [T(g, lib.ACL_FORMAT_NCHW), IA([96, 130]), IA([4, 8, 48, 77]), sh, sw],
                (4, 8, 48, 77), dt, lib.ACL_FORMAT_NCHW)
        run("UpsampleNearestExact1dBackward", [T(g.reshape(4, 8 * 96, 130)), IA([130]), IA([4, 768, 61]), 0.0],
            (4, 768, 61), dt, lib.ACL_FORMAT_ND)
    run("UpsampleNearest1dBackward", [T(g.reshape(4, 8 * 96, 130)), IA([130]), IA([4, 768, 61]), 0.0],
        (4, 768, 61), dt, lib.ACL_FORMAT_ND)
    run("UpsampleNearest2d", [T(g, lib.ACL_FORMAT_NCHW), IA([131, 200])], (4, 8, 131, 200), dt, lib.ACL_FORMAT_NCHW)
    g3 = g[:, :4].reshape(4, 4, 12, 8, 130)
    run("UpsampleNearest3dBackward", [T(g3), IA([12, 8, 130]), IA([4, 4, 5, 3, 61]), 0.0, 0.0, 0.0], (4, 4, 5, 3, 61),
        dt, lib.ACL_FORMAT_ND)
    if dt != np.float64:
        run("UpsampleNearestExact3dBackward", [T(g3), IA([12, 8, 130]), IA([4, 4, 5, 3, 61]), 0.0, 0.0, 0.0],
            (4, 4, 5, 3, 61), dt, lib.ACL_FORMAT_ND)
    run("UpsampleNearest3d", [T(g[:, :4].reshape(4, 4, 12, 8, 130)), IA([33, 41, 150]), 0.0, 0.0, 0.0], (4, 4, 33, 41, 150), dt,
        lib.ACL_FORMAT_ND)
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
