"""The quantised norms (tools/optable/nn_norm_quant.py, libsrc/ops/norm_*quant.c): values against a float64 torch
norm followed by the documented quantisation written out literally (round half to even, saturate, NaN -> 0);
invalid-input rows with the exact status and the argument named."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads
from table_harness import NP, expect_status

HALF = ["f16", "bf16"]


def T(shape, dt):
    return AclTensor.empty(shape, NP[dt] if isinstance(dt, str) else dt)


def rnd(rng, shape, dt, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(NP[dt])


def f64(torch, a):
    return torch.from_numpy(np.asarray(a).astype(np.float64))


def strided(a):
    """the same values as a non-contiguous view (every other element of the last dim, leading offset)"""
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def quant(v, lo=-128, hi=127):
    """the documented quantisation of float64 values: round half to even, saturate; NaN -> 0"""
    v = np.asarray(v, np.float64)
    q = np.clip(np.rint(np.nan_to_num(v, nan=0.0)), lo, hi)
    return q


def assert_quant(actual, v, lo=-128, hi=127):
    """actual integers vs quant(v); a value within 1e-6 of a .5 boundary may round either way"""
    e = quant(v, lo, hi)
    a = np.asarray(actual).astype(np.float64)
    frac = np.abs(np.abs(np.asarray(v, np.float64) - np.floor(v)) - 0.5)
    slack = np.where(np.nan_to_num(frac, nan=1.0) < 1e-6, 1.0, 0.0)
    assert np.all(np.abs(a - e) <= slack), (a, e)


def rms(torch, x, g, ndim_g=1, eps=1e-6):
    xs = f64(torch, x)
    dims = tuple(range(-ndim_g, 0))
    r = 1 / torch.sqrt((xs * xs).mean(dim=dims, keepdim=True) + eps)
    return xs * r * f64(torch, g)


# ------------------------------------------------------------------ RmsNormQuant


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("ydt", ["i8", "i32"])
def test_rms_norm_quant(torch, dt, ydt):
    rng = np.random.default_rng(1)
    shape = (3, 2, 16)
    x, g, b = rnd(rng, shape, dt), rnd(rng, (16,), dt, 0.5, 1.5), rnd(rng, (1, 16), dt, -0.5, 0.5)
    s, o = np.array([0.01], NP[dt]), np.array([3], np.int8)
    y = np.zeros(shape if ydt == "i8" else (3, 2, 2), NP[ydt])
    pyaclnn.call("RmsNormQuant", strided(x), g, b, s, o, 1e-6, y)
    v = ((rms(torch, x, g) + f64(torch, b)) / float(s[0]) + 3.0).numpy()
    if ydt == "i8":
        assert_quant(y, v)
        assert np.any(y == 127) and np.any(y == -128)  # saturation exercised
    else:  # eight int4 per INT32, the first in the low nibble
        u = y.view(np.uint32)
        nib = np.stack([(u >> (4 * k)) & 0xF for k in range(8)], -1).reshape(shape).astype(np.int64)
        nib = np.where(nib > 7, nib - 16, nib)
        assert_quant(nib, v, -8, 7)


def test_rms_norm_quant_nan_and_strided_out(torch):
    x = np.array([[1.0, np.nan, 2.0, 3.0], [1.0, -1.0, 0.5, 0.25]], np.float16)
    g, b = np.ones(4, np.float16), np.zeros(4, np.float16)
    big = np.full((2, 9), 55, np.int8)
    y = big[:, 1::2]
    pyaclnn.call("RmsNormQuant", x, g, b, np.array([0.01], np.float16), np.array([0], np.int8), 1e-6, y)
    assert np.all(y[0] == 0)  # a NaN row quantises to 0
    assert_quant(y[1], (rms(torch, x[1:], g)[0] / float(np.float16(0.01))).numpy())
    assert np.all(big[:, 0::2] == 55)  # outside the view untouched


def test_norm_quant_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
x, x2 = rng.uniform(-2, 2, (64, 256)).astype(np.float16), rng.uniform(-2, 2, (64, 256)).astype(np.float16)
g = rng.uniform(0.5, 1.5, 256).astype(np.float16)
y = np.zeros((64, 256), np.int8)
pyaclnn.call("RmsNormQuant", x, g, g, np.array([0.05], np.float16), np.array([1], np.int8), 1e-6, y)
h.update(y.tobytes())
y1, y2, xo = np.zeros_like(y), np.zeros_like(y), np.zeros_like(x)
s = np.full(256, 0.03, np.float32)
pyaclnn.call("AddRmsNormQuant", x, x2, g, s, s, None, None, -1, 1e-6, True, y1, y2, xo)
h.update(y1.tobytes() + y2.tobytes() + xo.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code, threads=(1, 2, 3))


def test_rms_norm_quant_invalid():
    x, g, s, o, y = T((2, 8), "f16"), T((8,), "f16"), T((1,), "f16"), T((1,), "i8"), T((2, 8), "i8")
    ok = [x, g, g, s, o, 1e-6, y]
    expect_status("RmsNormQuant", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("RmsNormQuant", a, code, word)

    row(0, None, 161001, "x")
    row(2, None, 161001, "beta")
    row(4, None, 161001, "offset")
    row(6, None, 161001, "y")
    row(0, T((2, 8), "f32"), 161002, "x")
    row(1, T((8,), "bf16"), 161002, "gamma")
    row(2, T((8,), "f32"), 161002, "beta")
    row(6, T((2, 8), "f16"), 161002, "y")
    row(3, T((1,), "f32"), 161002, "scale")
    row(4, T((1,), "i32"), 161002, "offset")
    row(1, T((1, 1, 8), "f16"), 161002, "gamma")
    row(1, T((4,), "f16"), 161002, "gamma")
    row(6, T((2, 4), "i8"), 161002, "y")
    row(6, T((2, 2), "i32"), 161002, "y")
    row(4, T((2,), "i8"), 161002, "offset")
    row(1, T((2, 8), "f16"), 561103, "gamma")
    row(6, T((3, 8), "i8"), 561002, "y")


def test_rms_norm_quant_empty():
    expect_status("RmsNormQuant", [T((0, 8), "f16"), T((8,), "f16"), T((8,), "f16"), T((1,), "f16"),
                                   T((1,), "i8"), 1e-6, T((0, 8), "i8")], 0)


# ------------------------------------------------------------------ AddRmsNormQuant

ARQ_DT = [("f16", "f32", "i32"), ("bf16", "bf16", "bf16"), ("f32", "f32", "f32")]


@pytest.mark.parametrize("dt,sdt,zdt", ARQ_DT)
@pytest.mark.parametrize("div", [True, False])
@pytest.mark.parametrize("dual", [True, False])
def test_add_rms_norm_quant(torch, dt, sdt, zdt, div, dual):
    rng = np.random.default_rng(4)
    shape = (2, 3, 16)
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (16,), dt, 0.5, 1.5)
    s1, s2 = rnd(rng, (16,), sdt, 0.01, 0.03), rnd(rng, (16,), sdt, 0.02, 0.05)
    if not div:
        s1, s2 = (1 / s1.astype(np.float64)).astype(NP[sdt]), (1 / s2.astype(np.float64)).astype(NP[sdt])
    z1, z2 = rng.integers(-5, 5, 16).astype(NP[zdt]), rng.integers(-5, 5, 16).astype(NP[zdt])
    y1, y2 = np.zeros(shape, np.int8), np.full(shape, 7, np.int8)
    xo = np.zeros(shape, NP[dt])
    pyaclnn.call("AddRmsNormQuant", strided(x1), x2, g, s1, s2 if dual else None, z1, z2 if dual else None, -1,
                 1e-6, div, y1, y2, xo)
    xs = f64(torch, x1) + f64(torch, x2)
    r = 1 / torch.sqrt((xs * xs).mean(-1, keepdim=True) + 1e-6)
    y = (xs * r * f64(torch, g)).numpy()
    q = (lambda s, z: (y / s.astype(np.float64) if div else y * s.astype(np.float64)) + z.astype(np.float64))
    assert_quant(y1, q(s1, z1))
    if dual:
        assert_quant(y2, q(s2, z2))
    else:
        assert np.all(y2 == 7)  # y2Out is written only with scales2Optional
    np.testing.assert_array_equal(xo, xs.numpy().astype(NP[dt]))


def test_add_rms_norm_quant_invalid():
    x, g, s, y = T((2, 8), "f16"), T((8,), "f16"), T((8,), "f32"), T((2, 8), "i8")
    ok = [x, x, g, s, None, None, None, -1, 1e-6, True, y, y, x]
    expect_status("AddRmsNormQuant", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("AddRmsNormQuant", a, code, word)

    row(0, None, 161001, "x1")
    row(3, None, 161001, "scales1")
    row(11, None, 161001, "y2Out")
    row(12, None, 161001, "xOut")
    row(0, T((2, 8), "f64"), 161002, "x1")
    row(3, T((8,), "i32"), 161002, "scales1")
    row(5, T((8,), "i8"), 161002, "zeroPoints1Optional")
    row(10, T((2, 8), "i32"), 161002, "y1Out")
    row(11, T((2, 8), "f16"), 161002, "y2Out")
    row(12, T((2, 8), "i8"), 161002, "xOut")
    row(2, T((1,) * 9, "f16"), 161002, "gamma")
    row(2, T((4,), "f16"), 561002, "gamma")
    row(1, T((2, 4), "f16"), 561002, "x2")
    row(3, T((4,), "f32"), 561002, "scales1")
    expect_status("AddRmsNormQuant", [T((0, 8), "f16"), T((0, 8), "f16"), g, s, None, None, None, -1, 1e-6, True,
                                      T((0, 8), "i8"), T((0, 8), "i8"), T((0, 8), "f16")], 0)


# ------------------------------------------------------------------ RmsNormDynamicQuant


def dyn_ref(y, smooth=None):
    """the documented dynamic quantisation of float64 rows: v = y * smooth, scale = max|v| / 127, v / scale"""
    v = y * smooth if smooth is not None else y
    s = np.abs(v).max(-1, keepdims=True) / 127.0
    return v / s, s[..., 0]


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("smooth,beta", [(False, False), (True, True), (True, False)])
def test_rms_norm_dynamic_quant(torch, dt, smooth, beta):
    rng = np.random.default_rng(5)
    shape = (2, 3, 32)
    x, g = rnd(rng, shape, dt), rnd(rng, (32,), dt, 0.5, 1.5)
    sm = rnd(rng, (32,), dt, 0.5, 2.0) if smooth else None
    b = rnd(rng, (32,), dt, -0.5, 0.5) if beta else None
    y, s = np.zeros(shape, np.int8), np.zeros((2, 3), np.float32)
    pyaclnn.call("RmsNormDynamicQuant", strided(x), g, sm, b, 1e-6, 2, y, s)
    ref = rms(torch, x, g).numpy() + (b.astype(np.float64) if beta else 0.0)
    v, es = dyn_ref(ref, sm.astype(np.float64) if smooth else None)
    assert_quant(y, v)
    np.testing.assert_allclose(s, es.astype(np.float32), rtol=1.3e-6)
    assert np.all(np.abs(y).max(-1) == 127)


def test_rms_norm_dynamic_quant_zero_row():
    x = np.zeros((2, 8), np.float16)
    x[1] = 1
    y, s = np.full((2, 8), 9, np.int8), np.zeros(2, np.float32)
    pyaclnn.call("RmsNormDynamicQuant", x, np.ones(8, np.float16), None, None, 1e-6, 2, y, s)
    assert np.all(y[0] == 0) and s[0] == 0  # 0 / 0 -> NaN -> 0
    assert np.all(y[1] == 127)


def test_rms_norm_dynamic_quant_invalid():
    x, g, y, s = T((2, 8), "f16"), T((8,), "f16"), T((2, 8), "i8"), T((2,), "f32")
    ok = [x, g, None, None, 1e-6, 2, y, s]
    expect_status("RmsNormDynamicQuant", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("RmsNormDynamicQuant", a, code, word)

    row(0, None, 161001, "x")
    row(1, None, 161001, "gamma")
    row(6, None, 161001, "yOut")
    row(7, None, 161001, "scaleOut")
    row(0, T((2, 8), "f32"), 161002, "x")
    row(1, T((8,), "bf16"), 161002, "gamma")
    row(2, T((8,), "f32"), 161002, "smoothScalesOptional")
    row(3, T((8,), "bf16"), 161002, "betaOptional")
    row(6, T((2, 8), "i32"), 161002, "yOut")
    row(7, T((2,), "f16"), 161002, "scaleOut")
    row(4, 0.0, 561002, "epsilon")
    row(0, T((0, 8), "f16"), 561002, "x")
    row(1, T((1, 8), "f16"), 561002, "gamma")
    row(1, T((4,), "f16"), 561002, "gamma")
    row(2, T((4,), "f16"), 561002, "smoothScalesOptional")
    row(3, T((4,), "f16"), 561002, "betaOptional")
    row(6, T((2, 4), "i8"), 561002, "yOut")
    row(7, T((2, 1), "f32"), 561002, "scaleOut")


# ------------------------------------------------------------------ AddRmsNormDynamicQuant (+V2)


def add_rms_ref(torch, x1, x2, g, b=None, eps=1e-6):
    xs = f64(torch, x1) + f64(torch, x2)
    r = 1 / torch.sqrt((xs * xs).mean(-1, keepdim=True) + eps)
    y = (xs * r * f64(torch, g)).numpy()
    return xs.numpy(), y + (b.astype(np.float64) if b is not None else 0.0)


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("nsmooth", [0, 1, 2])
def test_add_rms_norm_dynamic_quant(torch, dt, nsmooth):
    rng = np.random.default_rng(6)
    shape = (3, 2, 32)
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (32,), dt, 0.5, 1.5)
    sm = [rnd(rng, (32,), dt, 0.5, 2.0) for _ in range(nsmooth)] + [None] * (2 - nsmooth)
    y1, y2 = np.zeros(shape, np.int8), np.full(shape, 9, np.int8)
    xo, s1, s2 = np.zeros(shape, NP[dt]), np.zeros((3, 2), np.float32), np.full((3, 2), -1, np.float32)
    pyaclnn.call("AddRmsNormDynamicQuant", strided(x1), x2, g, sm[0], sm[1], 1e-6, y1, y2, xo, s1, s2)
    xs, y = add_rms_ref(torch, x1, x2, g)
    np.testing.assert_array_equal(xo, xs.astype(NP[dt]))
    v, es = dyn_ref(y, sm[0].astype(np.float64) if nsmooth else None)
    assert_quant(y1, v)
    np.testing.assert_allclose(s1, es.astype(np.float32), rtol=1.3e-6)
    if nsmooth == 2:
        v, es = dyn_ref(y, sm[1].astype(np.float64))
        assert_quant(y2, v)
        np.testing.assert_allclose(s2, es.astype(np.float32), rtol=1.3e-6)
    else:  # y2Out/scale2Out carry no result: left untouched
        assert np.all(y2 == 9) and np.all(s2 == -1)


def test_add_rms_norm_dynamic_quant_invalid():
    x, g, y, s = T((2, 8), "f16"), T((8,), "f16"), T((2, 8), "i8"), T((2,), "f32")
    ok = [x, x, g, None, None, 1e-6, y, y, x, s, s]
    expect_status("AddRmsNormDynamicQuant", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("AddRmsNormDynamicQuant", a, code, word)

    row(0, None, 161001, "x1")
    row(7, None, 161001, "y2Out")
    row(10, None, 161001, "scale2Out")
    row(0, T((2, 8), "f32"), 161002, "x1")
    row(3, T((8,), "f32"), 161002, "smoothScale1Optional")
    row(6, T((2, 8), "i32"), 161002, "y1Out")
    row(8, T((2, 8), "f32"), 161002, "xOut")
    row(9, T((2,), "f16"), 161002, "scale1Out")
    row(1, T((2, 4), "f16"), 561002, "x2")
    row(2, T((1, 8), "f16"), 561002, "gamma")
    row(2, T((4,), "f16"), 561002, "gamma")
    row(4, T((4,), "f16"), 561002, "smoothScale2Optional")
    row(6, T((2, 4), "i8"), 561002, "y1Out")
    row(9, T((3,), "f32"), 561002, "scale1Out")


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("mask,nsmooth,ydt", [(None, 2, "i8"), (None, 0, "i8"), ((True, True), 0, "i8"),
                                              ((False, True), 0, "i8"), ((True, False), 1, "i32")])
def test_add_rms_norm_dynamic_quant_v2(torch, dt, mask, nsmooth, ydt):
    rng = np.random.default_rng(7)
    shape = (2, 3, 16)
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (16,), dt, 0.5, 1.5)
    b = rnd(rng, (16,), dt, -0.5, 0.5)
    sm = [rnd(rng, (16,), dt, 0.5, 2.0) for _ in range(nsmooth)] + [None] * (2 - nsmooth)
    yshape = shape if ydt == "i8" else (2, 3, 2)
    y1, y2 = np.full(yshape, 9, NP[ydt]), np.full(yshape, 9, NP[ydt])
    xo, s1, s2 = np.zeros(shape, NP[dt]), np.full((2, 3), -1, np.float32), np.full((2, 3), -1, np.float32)
    m = list(mask) if mask is not None else None
    pyaclnn.call("AddRmsNormDynamicQuantV2", x1, strided(x2), g, sm[0], sm[1], b, 1e-6, m, y1, y2, xo, s1, s2)
    xs, y = add_rms_ref(torch, x1, x2, g, b)
    np.testing.assert_array_equal(xo, xs.astype(NP[dt]))
    out = [mask[0], mask[1]] if mask is not None else [True, nsmooth == 2]
    qmax, lo, hi = (127.0, -128, 127) if ydt == "i8" else (7.0, -8, 7)
    for k, (yk, sk) in enumerate(((y1, s1), (y2, s2))):
        if not out[k]:
            assert np.all(yk == 9) and np.all(sk == -1)
            continue
        v = y * (sm[k].astype(np.float64) if sm[k] is not None else 1.0)
        es = np.abs(v).max(-1, keepdims=True) / qmax
        np.testing.assert_allclose(sk, es[..., 0].astype(np.float32), rtol=1.3e-6)
        if ydt == "i8":
            assert_quant(yk, v / es)
        else:
            u = yk.view(np.uint32)
            nib = np.stack([(u >> (4 * j)) & 0xF for j in range(8)], -1).reshape(shape).astype(np.int64)
            assert_quant(np.where(nib > 7, nib - 16, nib), v / es, lo, hi)


def test_add_rms_norm_dynamic_quant_v2_invalid():
    x, g, y, s = T((2, 8), "f16"), T((8,), "f16"), T((2, 8), "i8"), T((2,), "f32")
    ba = pyaclnn.tensor.bool_array
    ok = [x, x, g, None, None, None, 1e-6, None, y, y, x, s, s]
    expect_status("AddRmsNormDynamicQuantV2", ok, 0)

    def row(i, v, code, word, base=ok):
        a = list(base)
        a[i] = v
        expect_status("AddRmsNormDynamicQuantV2", a, code, word)

    row(7, ba([True]), 161002, "outputMask")
    row(7, ba([False, False]), 161002, "outputMask")
    row(3, g, 161002, "smoothScale1Optional", ok[:7] + [ba([False, True])] + ok[8:])
    row(4, g, 161002, "smoothScale2Optional")
    row(0, None, 161001, "x1")
    row(10, None, 161001, "xOut")
    row(8, None, 161001, "y1Out")
    row(9, None, 161001, "y2Out", ok[:7] + [ba([True, True])] + ok[8:])
    row(9, T((2, 8), "i32"), 161002, "y2Out", ok[:7] + [ba([True, True])] + ok[8:])
    row(8, T((2, 2), "i32"), 161002, "y1Out")
    row(8, T((2, 4), "i8"), 161002, "y1Out")
    row(0, T((2, 8), "f32"), 161002, "x1")
    row(5, T((8,), "bf16"), 161002, "betaOptional")
    row(11, T((2,), "f16"), 161002, "scale1Out")
    row(8, T((2, 8), "f16"), 161002, "y1Out")
    row(1, T((2, 4), "f16"), 561002, "x2")
    row(5, T((4,), "f16"), 561002, "betaOptional")
    row(11, T((3,), "f32"), 561002, "scale1Out")
    # no outputMask and no smooth scales: y2Out/scale2Out unused, NULL allowed
    expect_status("AddRmsNormDynamicQuantV2", ok[:9] + [None, x, s, None], 0)


# ------------------------------------------------------------------ the MX quant ops: no kernel on the A2


def test_dynamic_mx_quant_not_on_a2():
    x, g, y, sc, r = T((2, 32), "bf16"), T((32,), "bf16"), T((2, 32), "i8"), T((2, 1), "i8"), T((2,), "f32")
    rm = pyaclnn.ffi.new("char[]", b"rint")
    expect_status("RmsNormDynamicMxQuant", [None, g, None, 1e-6, 0, rm, 35, True, y, sc, r], 161001, "x")
    expect_status("RmsNormDynamicMxQuant", [x, g, None, 1e-6, 0, rm, 35, True, y, sc, None], 161001, "rstdOut")
    expect_status("RmsNormDynamicMxQuant", [x, g, None, 1e-6, 0, rm, 35, False, y, sc, None], 561103,
                  "RmsNormDynamicMxQuant")
    expect_status("RmsNormDynamicMxQuant", [T((0, 32), "bf16"), g, None, 1e-6, 0, rm, 35, False, y, sc, None], 0)
    a = [x, x, g, None, 1e-6, 0, rm, 35, True, y, x, sc, r]
    expect_status("AddRmsNormDynamicMxQuant", a[:10] + [None] + a[11:], 161001, "xOut")
    expect_status("AddRmsNormDynamicMxQuant", a, 561103, "AddRmsNormDynamicMxQuant")
    expect_status("AddRmsNormDynamicMxQuant", [T((0, 32), "bf16")] * 2 + a[2:], 0)


# ------------------------------------------------------------------ LayerNormQuant


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("gshape", [(16,), (1, 16)])
def test_layer_norm_quant(torch, dt, gshape):
    rng = np.random.default_rng(8)
    shape = (2, 3, 16)
    x, g, b = rnd(rng, shape, dt), rnd(rng, gshape, dt, 0.5, 1.5), rnd(rng, gshape, dt, -0.5, 0.5)
    s, z = np.array([0.01], NP[dt]), np.array([-2], np.int8)
    res = np.zeros(shape, np.int8)
    pyaclnn.call("LayerNormQuant", strided(x), g, b, s, z, 0, 1e-5, res, np.zeros((2, 3), np.float32))
    xs = f64(torch, x)
    m = xs.mean(-1, keepdim=True)
    v = ((xs - m) ** 2).mean(-1, keepdim=True)
    y = ((xs - m) / torch.sqrt(v + 1e-5) * f64(torch, g).reshape(-1) + f64(torch, b).reshape(-1)).numpy()
    assert_quant(res, y / float(s[0]) - 2.0)
    assert np.any(res == 127) and np.any(res == -128)


def test_layer_norm_quant_invalid():
    x, g, s, z, r, so = T((2, 8), "f16"), T((8,), "f16"), T((1,), "f16"), T((1,), "i8"), T((2, 8), "i8"), \
        T((2,), "f32")
    ok = [x, g, g, s, z, 0, 1e-5, r, so]
    expect_status("LayerNormQuant", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("LayerNormQuant", a, code, word)

    row(0, None, 161001, "x")
    row(3, None, 161001, "scale")
    row(4, None, 161001, "zeroPointsOptional")
    row(7, None, 161001, "res")
    row(0, T((2, 8), "f32"), 161002, "x")
    row(1, T((8,), "bf16"), 161002, "gamma")
    row(3, T((1,), "f32"), 161002, "scale")
    row(4, T((1,), "i32"), 161002, "zeroPointsOptional")
    row(7, T((2, 8), "i32"), 161002, "res")
    row(1, T((1, 1, 8), "f16"), 161002, "gamma")
    row(5, 1, 161002, "quantMode")
    row(1, T((4,), "f16"), 161002, "gamma")
    row(2, T((1, 8), "f16"), 161002, "beta")
    row(3, T((2,), "f16"), 161002, "scale")
    row(7, T((2, 4), "i8"), 161002, "res")
    expect_status("LayerNormQuant", [T((0, 8), "f16")] + ok[1:7] + [T((0, 8), "i8"), so], 0)


# ------------------------------------------------------------------ ClippedSwigluV2 (the A2 ignores clampMode)


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("clamp_mode", [0, 1])
def test_clipped_swiglu_v2(torch, dt, clamp_mode):
    rng = np.random.default_rng(9)
    x = rnd(rng, (3, 8), dt, -4, 4)
    out = np.zeros((3, 4), NP[dt])
    pyaclnn.call("ClippedSwigluV2", strided(x), None, -1, 1.702, 2.0, 1.0, False, clamp_mode, out)
    xs = x.astype(np.float64)
    a, b = np.minimum(xs[:, :4], 2.0), np.clip(xs[:, 4:], -2.0, 2.0)
    y = a / (1 + np.exp(-1.702 * a)) * (b + 1.0)  # the clamp-before-silu formula, what the A2 kernel computes
    e = torch.from_numpy(y).to(getattr(torch, {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[dt]))
    tol = {"f32": 1e-5, "f16": 2e-3, "bf16": 1.6e-2}[dt]
    np.testing.assert_allclose(out.astype(np.float64), e.double().numpy(), rtol=tol, atol=tol)


def test_clipped_swiglu_v2_invalid():
    x, o = T((2, 8), "f16"), T((2, 4), "f16")
    expect_status("ClippedSwigluV2", [x, None, -1, 1.0, 7.0, 1.0, False, 0, o], 0)
    expect_status("ClippedSwigluV2", [None, None, -1, 1.0, 7.0, 1.0, False, 0, o], 161001, "x")
    expect_status("ClippedSwigluV2", [x, None, -1, 1.0, 7.0, 1.0, False, 0, T((2, 4), "f32")], 561002, "out")
    expect_status("ClippedSwigluV2", [T((2, 8), "i32"), None, -1, 1.0, 7.0, 1.0, False, 0, o], 161002, "x")
    expect_status("ClippedSwigluV2", [x, None, 2, 1.0, 7.0, 1.0, False, 0, o], 561002, "dim")
