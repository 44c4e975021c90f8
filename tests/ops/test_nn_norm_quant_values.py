"""A second, independent set of value tests for the quantised RMS norms (written separately from
test_nn_norm_quant.py): torch float64 RMS norm, then the docs' quantisation written out here (round half to even,
saturate, NaN -> 0); every A2 dtype combination incl. AddRmsNormQuant's per-tensor scales ([1], the A2 tiling's
per-tensor mode), strided views, the int4 packing of RmsNormQuant's INT32 y."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from pyaclnn.tensor import bool_array
from helpers import same_bytes_for_threads
from table_harness import NP, expect_status, from_torch

HALF = ["f16", "bf16"]


def T(shape, dt):
    return AclTensor.empty(shape, NP[dt])


def rnd(rng, shape, dt, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(NP[dt])


def f64(torch, a):
    return torch.from_numpy(np.asarray(a).astype(np.float64))


def strided(a):
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def quant(torch, v, lo, hi):
    """round half to even, saturate to [lo, hi], NaN -> 0 (the docs' formula and constraint)"""
    q = torch.clamp(torch.round(v), lo, hi)
    return torch.where(torch.isnan(v), torch.zeros_like(v), q)


def assert_quant(actual, pre, torch, lo=-128, hi=127):
    """actual (integers) equals quant(pre); elements whose pre-rounding value sits within 1e-6 of a .5 tie are
    allowed either neighbour (float64 summation order)"""
    e = quant(torch, pre, lo, hi).numpy()
    a = np.asarray(actual).astype(np.float64)
    frac = np.abs(pre.numpy() - np.floor(pre.numpy()) - 0.5)
    tie = frac < 1e-6
    assert np.array_equal(a[~tie], e[~tie]), np.argwhere(a != e)[:5]
    assert np.all(np.abs(a[tie] - e[tie]) <= 1)


def rms(torch, x, g, eps):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * g


# ------------------------------------------------------------------ RmsNormQuant


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("shape,gdims", [((3, 5), 2), ((2, 3, 16), 1), ((7,), 1), ((4, 70), 1)])
def test_rms_norm_quant(torch, dt, shape, gdims):
    rng = np.random.default_rng(shape[-1])
    n = shape[-1]
    gshape = (1, n) if gdims == 2 else (n,)
    x, g, b = rnd(rng, shape, dt), rnd(rng, gshape, dt, 0.5, 1.5), rnd(rng, gshape, dt)
    scale, offset = np.array([0.01], NP[dt]), np.array([3], np.int8)
    y = np.zeros(shape, np.int8)
    pyaclnn.call("RmsNormQuant", strided(x), g, b, scale, offset, 1e-6, y)
    v = rms(torch, f64(torch, x), f64(torch, g).reshape(-1), 1e-6) + f64(torch, b).reshape(-1)
    pre = v / float(scale.astype(np.float64)[0]) + 3.0
    assert_quant(y, pre, torch)
    assert (np.abs(y.astype(int)) >= 127).any()  # the saturation is exercised


@pytest.mark.parametrize("dt", HALF)
def test_rms_norm_quant_int4_packed(torch, dt):
    rng = np.random.default_rng(4)
    x, g, b = rnd(rng, (3, 16), dt), rnd(rng, (16,), dt, 0.5, 1.5), rnd(rng, (16,), dt)
    scale, offset = np.array([0.25], NP[dt]), np.array([-1], np.int8)
    y = np.zeros((3, 2), np.int32)
    pyaclnn.call("RmsNormQuant", x, g, b, scale, offset, 1e-6, y)
    v = rms(torch, f64(torch, x), f64(torch, g), 1e-6) + f64(torch, b)
    e = quant(torch, v / float(scale.astype(np.float64)[0]) - 1.0, -8, 7).numpy().astype(np.int64)
    nib = (e & 0xF).reshape(3, 2, 8)
    packed = (nib << (4 * np.arange(8))).sum(-1).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(y, packed)


def test_rms_norm_quant_strided_out_and_nan(torch):
    x = np.array([[1.0, 2.0, np.nan, 4.0], [1.0, -1.0, 0.5, 2.0]], np.float16)
    g, b = np.ones(4, np.float16), np.zeros(4, np.float16)
    big = np.full((2, 9), 99, np.int8)
    y = big[:, 1::2]
    pyaclnn.call("RmsNormQuant", x, g, b, np.array([0.01], np.float16), np.array([0], np.int8), 1e-6, y)
    assert (y[0] == 0).all()  # a NaN row quantises to 0
    v = rms(torch, f64(torch, x[1]), 1.0, 1e-6) / float(np.float16(0.01))
    assert_quant(y[1], v, torch)
    assert (big[:, 0::2] == 99).all()


COMBOS = {"f16": ("f32", "i32"), "bf16": ("bf16", "bf16")}  # the docs' A2 table: x dtype -> scales, zero points


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("div", [True, False])
@pytest.mark.parametrize("dual,per_col,zp", [(True, True, True), (False, False, False), (True, False, True),
                                             (False, True, False)])
def test_add_rms_norm_quant(torch, dt, div, dual, per_col, zp):
    rng = np.random.default_rng(int(div) * 7 + int(dual) * 3 + int(per_col))
    sdt, zdt = COMBOS[dt]
    shape, n = (2, 3, 24), 24
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (n,), dt, 0.5, 1.5)
    k = n if per_col else 1
    sv = rng.uniform(0.01, 0.03, k) if div else rng.uniform(40, 80, k)
    s1, s2 = sv.astype(NP[sdt]), (sv * 1.5).astype(NP[sdt])
    z1 = rng.integers(-5, 5, k).astype(NP[zdt]) if zp else None
    z2 = rng.integers(-5, 5, k).astype(NP[zdt]) if zp else None
    y1, y2, xo = np.zeros(shape, np.int8), np.full(shape, 55, np.int8), np.zeros(shape, NP[dt])
    pyaclnn.call("AddRmsNormQuant", strided(x1), x2, g, s1, s2 if dual else None, z1, z2 if dual else None, -1, 1e-6,
                 div, y1, y2, xo)
    xs = f64(torch, x1) + f64(torch, x2)
    v = rms(torch, xs, f64(torch, g), 1e-6)
    for y, s, z in ((y1, s1, z1), (y2, s2, z2)):
        if y is y2 and not dual:
            assert (y2 == 55).all()  # y2Out is not written without scales2Optional
            continue
        st = f64(torch, s)
        pre = (v / st if div else v * st) + (f64(torch, z) if z is not None else 0.0)
        assert_quant(y, pre, torch)
    np.testing.assert_array_equal(xo, from_torch(xs.to(getattr(torch, {"f16": "float16", "bf16": "bfloat16"}[dt]))))


def dyn_ref(torch, v):
    """the docs' dynamic quantisation of rows v (float64): scale = row max|v| / 127 (stored as FLOAT), q = round(v / s)"""
    s = (v.abs().amax(-1, keepdim=True) / 127).to(torch.float32).to(torch.float64)
    return v / s, s.squeeze(-1)


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("smooth,beta", [(False, False), (True, False), (False, True), (True, True)])
def test_rms_norm_dynamic_quant(torch, dt, smooth, beta):
    rng = np.random.default_rng(int(smooth) * 2 + int(beta))
    shape, n = (2, 3, 40), 40
    x, g = rnd(rng, shape, dt), rnd(rng, (n,), dt, 0.5, 1.5)
    sm = rnd(rng, (n,), dt, 0.5, 2.0) if smooth else None
    b = rnd(rng, (n,), dt) if beta else None
    y, sc = np.zeros(shape, np.int8), np.zeros((2, 3), np.float32)
    pyaclnn.call("RmsNormDynamicQuant", strided(x), g, sm, b, 1e-6, 2, y, sc)
    v = rms(torch, f64(torch, x), f64(torch, g), 1e-6)
    if beta:
        v = v + f64(torch, b)
    if smooth:
        v = v * f64(torch, sm)
    pre, es = dyn_ref(torch, v)
    np.testing.assert_array_equal(sc, es.numpy().astype(np.float32))
    assert_quant(y, pre, torch)
    assert (np.abs(y.astype(int)).max(-1) == 127).all()


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("smooth", [0, 1, 2])
def test_add_rms_norm_dynamic_quant(torch, dt, smooth):
    rng = np.random.default_rng(smooth)
    shape, n = (3, 2, 24), 24
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (n,), dt, 0.5, 1.5)
    s1 = rnd(rng, (n,), dt, 0.5, 2.0) if smooth >= 1 else None
    s2 = rnd(rng, (n,), dt, 0.5, 2.0) if smooth == 2 else None
    y1, y2, xo = np.zeros(shape, np.int8), np.full(shape, 55, np.int8), np.zeros(shape, NP[dt])
    sc1, sc2 = np.zeros((3, 2), np.float32), np.full((3, 2), 7, np.float32)
    pyaclnn.call("AddRmsNormDynamicQuant", x1, strided(x2), g, s1, s2, 1e-6, y1, y2, xo, sc1, sc2)
    xs = f64(torch, x1) + f64(torch, x2)
    v = rms(torch, xs, f64(torch, g), 1e-6)
    pre, es = dyn_ref(torch, v * f64(torch, s1) if s1 is not None else v)
    np.testing.assert_array_equal(sc1, es.numpy().astype(np.float32))
    assert_quant(y1, pre, torch)
    if smooth == 2:
        pre, es = dyn_ref(torch, v * f64(torch, s2))
        np.testing.assert_array_equal(sc2, es.numpy().astype(np.float32))
        assert_quant(y2, pre, torch)
    else:
        assert (y2 == 55).all() and (sc2 == 7).all()
    np.testing.assert_array_equal(xo, from_torch(xs.to(getattr(torch, {"f16": "float16", "bf16": "bfloat16"}[dt]))))


def pack4(q):
    """int4 values (last dim a multiple of 8) packed eight to an INT32 word, element 0 in the lowest nibble"""
    nib = (q.astype(np.int64) & 0xF).reshape(q.shape[:-1] + (q.shape[-1] // 8, 8))
    return (nib << (4 * np.arange(8))).sum(-1).astype(np.uint32).view(np.int32)


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("mask,smooth,beta,int4", [(None, 2, True, False), (None, 0, False, False),
                                                   ([True, False], 1, True, False), ([False, True], 0, False, False),
                                                   ([True, True], 0, True, True), (None, 2, False, True)])
def test_add_rms_norm_dynamic_quant_v2(torch, dt, mask, smooth, beta, int4):
    rng = np.random.default_rng(smooth * 4 + int(beta) * 2 + int(int4))
    shape, n = (3, 2, 32), 32
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (n,), dt, 0.5, 1.5)
    s1 = rnd(rng, (n,), dt, 0.5, 2.0) if smooth >= 1 else None
    s2 = rnd(rng, (n,), dt, 0.5, 2.0) if smooth == 2 else None
    b = rnd(rng, (n,), dt) if beta else None
    out1 = mask[0] if mask else True
    out2 = mask[1] if mask else (s1 is not None and s2 is not None)
    yshape, ydt = (shape[:-1] + (n // 8,), np.int32) if int4 else (shape, np.int8)
    y1 = np.full(yshape, 55, ydt) if out1 else None
    y2 = np.full(yshape, 55, ydt)
    xo = np.zeros(shape, NP[dt])
    sc1 = np.zeros((3, 2), np.float32) if out1 else None
    sc2 = np.full((3, 2), 7, np.float32)
    pyaclnn.call("AddRmsNormDynamicQuantV2", x1, strided(x2), g, s1, s2, b, 1e-6, mask, y1, y2, xo, sc1, sc2)
    xs = f64(torch, x1) + f64(torch, x2)
    v = rms(torch, xs, f64(torch, g), 1e-6) + (f64(torch, b) if beta else 0.0)
    qmax = 7 if int4 else 127
    for on, y, sc, s in ((out1, y1, sc1, s1), (out2, y2, sc2, s2)):
        if not on:
            if y is not None:
                assert (y == 55).all() and (sc == 7).all()
            continue
        w = v * f64(torch, s) if s is not None else v
        es = (w.abs().amax(-1, keepdim=True) / qmax).to(torch.float32).to(torch.float64)
        np.testing.assert_array_equal(sc, es.squeeze(-1).numpy().astype(np.float32))
        pre = w / es
        if int4:
            np.testing.assert_array_equal(y, pack4(quant(torch, pre, -8, 7).numpy()))
        else:
            assert_quant(y, pre, torch)
    np.testing.assert_array_equal(xo, from_torch(xs.to(getattr(torch, {"f16": "float16", "bf16": "bfloat16"}[dt]))))


