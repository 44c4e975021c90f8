"""The ops-nn norm family (tools/optable/nn_norm.py) against PyTorch: F.layer_norm / native_batch_norm /
native_group_norm / instance_norm and their autograd or aten backwards, the docs' formulas for the RMS and fused
add variants; every A2 dtype, strided views, empty tensors, invalid rows with the op_api's codes, determinism
across thread counts."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from pyaclnn.tensor import bool_array, int_array
from helpers import same_bytes_for_threads
from table_harness import BF16, NP, TOL, compare, expect_status, from_torch

FLT = ["f32", "f16", "bf16"]


def T(shape, dt, fmt=None):
    return AclTensor.empty(shape, NP[dt] if isinstance(dt, str) else dt, fmt)


def rnd(rng, shape, dt, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(NP[dt])


def f64(torch, a):
    """a numpy array (any float dtype) as a float64 torch tensor of the same values"""
    return torch.from_numpy(np.asarray(a).astype(np.float64))


def rounded(torch, t, dt):
    """a float64 torch result rounded once to dt, as numpy"""
    return from_torch(t.detach().to(getattr(torch, {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[dt])))


def strided(a):
    """the same values as a non-contiguous view (every other element of the last dim, leading offset)"""
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def zeros(shape, dt):
    return np.zeros(shape, NP[dt])


def check(actual, expected_t, torch, dt, scale=1.0):
    """actual (numpy, dtype dt) against a float64 torch reference rounded once to dt"""
    e = rounded(torch, expected_t, dt)
    rtol, atol = TOL[dt]
    np.testing.assert_allclose(np.asarray(actual).astype(np.float64), e.astype(np.float64), rtol=rtol,
                               atol=atol * scale, equal_nan=True)


# ------------------------------------------------------------------ LayerNorm


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape,k", [((2, 3, 8), 1), ((2, 3, 4, 5), 2), ((7,), 1), ((3, 130), 1)])
@pytest.mark.parametrize("affine", ["wb", "w", "none", "f32wb"])
def test_layer_norm(torch, dt, shape, k, affine):
    rng = np.random.default_rng(len(shape) * 10 + k)
    x = rnd(rng, shape, dt)
    ns = list(shape[-k:])
    wdt = "f32" if affine == "f32wb" else dt
    w = rnd(rng, ns, wdt, 0.5, 1.5) if affine != "none" else None
    b = rnd(rng, ns, wdt) if affine in ("wb", "f32wb") else None
    lead = shape[:-k]
    mean, rstd, out = zeros(lead + (1,) * k, "f32"), zeros(lead + (1,) * k, "f32"), zeros(shape, dt)
    pyaclnn.call("LayerNorm", x, ns, w, b, 1e-5, out, mean, rstd)
    xt = f64(torch, x)
    e = torch.nn.functional.layer_norm(xt, ns, None if w is None else f64(torch, w), None if b is None else f64(torch, b), 1e-5)
    check(out, e, torch, dt, 4)
    dims = tuple(range(len(shape) - k, len(shape)))
    em = xt.mean(dims, keepdim=True)
    ev = ((xt - em) ** 2).mean(dims, keepdim=True)
    check(mean, em, torch, "f32")
    check(rstd, 1 / torch.sqrt(ev + 1e-5), torch, "f32")
    # strided input, output and statistics in the input dtype
    out2 = strided(zeros(shape, dt))
    mean2 = strided(zeros(lead + (1,) * k, dt))
    pyaclnn.call("LayerNorm", strided(x), ns, w, b, 1e-5, out2, mean2, None)
    check(out2, e, torch, dt, 4)
    check(mean2, em, torch, dt)


@pytest.mark.parametrize("mode,dt", [(0, "f32"), (1, "bf16"), (2, "f16")])
def test_layer_norm_impl_mode(torch, mode, dt):
    rng = np.random.default_rng(mode)
    x, w, b = rnd(rng, (4, 16), dt), rnd(rng, (16,), dt), rnd(rng, (16,), dt)
    out = zeros((4, 16), dt)
    pyaclnn.call("LayerNormWithImplMode", x, [16], w, b, 1e-6, out, None, None, mode)
    e = torch.nn.functional.layer_norm(f64(torch, x), [16], f64(torch, w), f64(torch, b), 1e-6)
    check(out, e, torch, dt, 4)


def test_layer_norm_empty():
    # M == 0: nothing; N == 0: mean 0 and rstd NaN
    pyaclnn.call("LayerNorm", np.zeros((0, 4), np.float32), [4], None, None, 1e-5, np.zeros((0, 4), np.float32),
                 None, None)
    mean, rstd = np.full((3, 1), 7, np.float32), np.full((3, 1), 7, np.float32)
    pyaclnn.call("LayerNorm", np.zeros((3, 0), np.float32), [0], None, None, 1e-5, np.zeros((3, 0), np.float32),
                 mean, rstd)
    assert (mean == 0).all() and np.isnan(rstd).all()


def test_layer_norm_invalid():
    x, o, ns = T((2, 8), "f32"), T((2, 8), "f32"), int_array([8])
    m = T((2, 1), "f32")
    expect_status("LayerNorm", [None, ns, None, None, 1e-5, o, None, None], 161001, "input")
    expect_status("LayerNorm", [x, None, None, None, 1e-5, o, None, None], 161001, "normalizedShape")
    expect_status("LayerNorm", [x, ns, None, None, 1e-5, None, None, None], 161001, "out")
    expect_status("LayerNorm", [T((2, 8), "f64"), ns, None, None, 1e-5, o, None, None], 161002, "input")
    expect_status("LayerNorm", [T((2, 8), "f16"), ns, T((8,), "bf16"), None, 1e-5, o, None, None], 161002,
                  "weightOptional")
    expect_status("LayerNorm", [x, ns, T((8,), "f32"), T((8,), "f16"), 1e-5, o, None, None], 161002, "biasOptional")
    expect_status("LayerNorm", [x, ns, None, None, 1e-5, T((2, 8), "i32"), None, None], 161002, "out")
    expect_status("LayerNorm", [x, ns, None, None, 1e-5, o, T((2, 1), "f64"), None], 161002, "meanOutOptional")
    expect_status("LayerNorm", [x, int_array([]), None, None, 1e-5, o, None, None], 161002, "normalizedShape")
    expect_status("LayerNorm", [x, int_array([1] * 9), None, None, 1e-5, o, None, None], 161002, "normalizedShape")
    expect_status("LayerNorm", [x, int_array([2, 8, 1]), None, None, 1e-5, o, None, None], 161002, "input")
    expect_status("LayerNorm", [x, int_array([4]), None, None, 1e-5, o, None, None], 161002, "normalizedShape")
    expect_status("LayerNorm", [x, ns, T((8, 1), "f32"), None, 1e-5, o, None, None], 161002, "weightOptional")
    expect_status("LayerNorm", [x, ns, T((7,), "f32"), None, 1e-5, o, None, None], 161002, "weightOptional")
    expect_status("LayerNorm", [x, ns, None, None, 1e-5, T((2, 7), "f32"), None, None], 161002, "out")
    expect_status("LayerNorm", [x, ns, None, None, 1e-5, o, T((3, 1), "f32"), None], 161002, "meanOutOptional")
    expect_status("LayerNorm", [x, ns, None, None, 1e-5, o, m, m], 0)
    expect_status("LayerNormWithImplMode", [x, ns, None, None, 1e-5, o, None, None, 3], 161002, "implMode")
    expect_status("LayerNormWithImplMode", [x, ns, None, None, 1e-5, o, None, None, 2], 161002, "KEEP_FP16")


# ------------------------------------------------------------------ LayerNormBackward


def ln_stats(torch, x, k, eps=1e-5):
    xt = f64(torch, x)
    dims = tuple(range(x.ndim - k, x.ndim))
    m = xt.mean(dims, keepdim=True)
    r = 1 / torch.sqrt(((xt - m) ** 2).mean(dims, keepdim=True) + eps)
    return m, r


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape,k", [((3, 10), 1), ((2, 3, 4, 5), 2), ((200, 3), 1)])
@pytest.mark.parametrize("wdt", ["same", "f32", "none"])
def test_layer_norm_backward(torch, dt, shape, k, wdt):
    rng = np.random.default_rng(shape[0] * 7 + k)
    x, dy = rnd(rng, shape, dt), rnd(rng, shape, dt)
    ns = list(shape[-k:])
    w = None if wdt == "none" else rnd(rng, ns, dt if wdt == "same" else "f32", 0.5, 1.5)
    m, r = ln_stats(torch, x, k)
    mean, rstd = rounded(torch, m, "f32"), rounded(torch, r, "f32")
    # gradInput: autograd of torch's layer norm (the op's formula with the statistics of x)
    xt2 = f64(torch, x).requires_grad_()
    y2 = torch.nn.functional.layer_norm(xt2, ns, None if w is None else f64(torch, w), None, 1e-5)
    y2.backward(f64(torch, dy))
    gi = zeros(shape, dt)
    gw, gb = zeros(ns, dt if wdt == "same" else "f32"), zeros(ns, "f32")
    pyaclnn.call("LayerNormBackward", dy, x, ns, mean, rstd, w, None, [True, True, True], gi, gw, gb)
    check(gi, xt2.grad, torch, dt, 8)
    gwdt = dt if wdt == "same" else "f32"
    dytt = f64(torch, dy)
    mt, rt = f64(torch, mean), f64(torch, rstd)
    check(gw, (dytt * (f64(torch, x) - mt) * rt).sum(tuple(range(len(shape) - k))), torch, gwdt, 8)
    check(gb, dytt.sum(tuple(range(len(shape) - k))), torch, "f32", 8)
    # masks and strided views
    gi2 = strided(zeros(shape, dt))
    pyaclnn.call("LayerNormBackward", strided(dy), strided(x), ns, mean, rstd, w, None, [True, False, False], gi2,
                 None, None)
    check(gi2, xt2.grad, torch, dt, 8)


def test_layer_norm_backward_invalid():
    dy, x, ns, m = T((2, 8), "f32"), T((2, 8), "f32"), int_array([8]), T((2, 1), "f32")
    gi, gw, gb = T((2, 8), "f32"), T((8,), "f32"), T((8,), "f32")
    mask = bool_array([True, True, True])
    args = [dy, x, ns, m, m, None, None, mask, gi, gw, gb]

    def row(i, v, code, word):
        a = list(args)
        a[i] = v
        expect_status("LayerNormBackward", a, code, word)

    row(0, None, 161001, "gradOut")
    row(3, None, 161001, "mean")
    row(7, None, 161001, "outputMask")
    row(7, bool_array([True, True]), 161002, "outputMask")
    row(8, None, 161001, "gradInputOut")
    row(10, None, 161001, "gradBiasOut")
    row(0, T((2, 8), "f16"), 161002, "gradOut")
    row(3, T((2, 1), "i32"), 161002, "mean")
    row(5, T((8,), "f16"), 161002, "weightOptional")
    row(9, T((8,), "f64"), 161002, "gradWeightOut")
    row(3, T((3, 1), "f32"), 161002, "mean")
    row(9, T((7,), "f32"), 161002, "gradWeightOut")
    row(8, T((2, 7), "f32"), 161002, "gradInputOut")
    row(2, int_array([]), 161002, "normalizedShape")
    expect_status("LayerNormBackward", [dy, x, ns, m, m, None, None, bool_array([False] * 3), None, None, None], 0)


# ------------------------------------------------------------------ RmsNorm / RmsNormGrad / AddRmsNorm


def rms_ref(torch, x, g, k, eps):
    xt = f64(torch, x)
    dims = tuple(range(x.ndim - k, x.ndim))
    r = 1 / torch.sqrt((xt * xt).mean(dims, keepdim=True) + eps)
    return xt * r * f64(torch, g), r


RMS_COMBOS = [("f16", "f32"), ("bf16", "f32"), ("f16", "f16"), ("bf16", "bf16"), ("f32", "f32")]


@pytest.mark.parametrize("dt,gdt", RMS_COMBOS)
@pytest.mark.parametrize("shape,k", [((2, 3, 16), 1), ((2, 3, 4, 8), 2), ((5,), 1)])
def test_rms_norm(torch, dt, gdt, shape, k):
    rng = np.random.default_rng(k)
    x, g = rnd(rng, shape, dt), rnd(rng, shape[-k:], gdt, 0.5, 1.5)
    y, r = zeros(shape, dt), zeros(shape[:-k] + (1,) * k, "f32")
    pyaclnn.call("RmsNorm", x, g, 1e-6, y, r)
    ey, er = rms_ref(torch, x, g, k, 1e-6)
    check(y, ey, torch, dt, 4)
    check(r, er, torch, "f32")
    y2 = strided(zeros(shape, dt))
    pyaclnn.call("RmsNorm", strided(x), g, 1e-6, y2, r)
    check(y2, ey, torch, dt, 4)


def test_rms_norm_invalid():
    x, g, y, r = T((2, 8), "f16"), T((8,), "f32"), T((2, 8), "f16"), T((2, 1), "f32")
    expect_status("RmsNorm", [None, g, 1e-6, y, r], 161001, "x")
    expect_status("RmsNorm", [x, g, 1e-6, y, None], 161001, "rstdOut")
    expect_status("RmsNorm", [x, T((8,), "bf16"), 1e-6, y, r], 161002, "gamma")
    expect_status("RmsNorm", [x, g, 1e-6, T((2, 8), "f32"), r], 161002, "yOut")
    expect_status("RmsNorm", [x, g, 1e-6, y, T((2, 1), "f16")], 161002, "rstdOut")
    expect_status("RmsNorm", [x, T((4,), "f32"), 1e-6, y, r], 561002, "gamma")
    expect_status("RmsNorm", [x, g, 1e-6, T((2, 4), "f16"), r], 561002, "yOut")
    expect_status("RmsNorm", [x, g, 1e-6, y, T((3, 1), "f32")], 561002, "rstdOut")
    expect_status("RmsNorm", [T((0, 8), "f16"), g, 1e-6, T((0, 8), "f16"), T((0, 1), "f32")], 0)


RMSG_COMBOS = [("f16", "f32"), ("bf16", "f32"), ("f16", "f16"), ("f32", "f32"), ("bf16", "bf16")]


@pytest.mark.parametrize("dt,gdt", RMSG_COMBOS)
@pytest.mark.parametrize("shape,k", [((3, 16), 1), ((2, 3, 4, 6), 2), ((300, 4), 1)])
def test_rms_norm_grad(torch, dt, gdt, shape, k):
    rng = np.random.default_rng(shape[0] + k)
    x, dy, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, shape[-k:], gdt, 0.5, 1.5)
    _, er = rms_ref(torch, x, g, k, 1e-6)
    rstd = rounded(torch, er, "f32").reshape(shape[:-k])
    xt, gt = f64(torch, x).requires_grad_(), f64(torch, g).requires_grad_()
    dims = tuple(range(len(shape) - k, len(shape)))
    y = xt * (1 / torch.sqrt((xt * xt).mean(dims, keepdim=True) + 1e-6)) * gt
    y.backward(f64(torch, dy))
    dx, dg = zeros(shape, dt), zeros(shape[-k:], "f32")
    pyaclnn.call("RmsNormGrad", dy, x, rstd, g, dx, dg)
    check(dx, xt.grad, torch, dt, 8)
    # dgamma with the given rstd (the doc's dg = rstd * x * dy)
    rt = f64(torch, rstd).reshape(shape[:-k] + (1,) * k)
    edg = (f64(torch, dy) * f64(torch, x) * rt).sum(tuple(range(len(shape) - k)))
    check(dg, edg, torch, "f32", 8)
    dx2 = strided(zeros(shape, dt))
    pyaclnn.call("RmsNormGrad", strided(dy), strided(x), rstd, g, dx2, dg)
    check(dx2, xt.grad, torch, dt, 8)


def test_rms_norm_grad_invalid():
    a = [T((2, 8), "f32"), T((2, 8), "f32"), T((2,), "f32"), T((8,), "f32"), T((2, 8), "f32"), T((8,), "f32")]
    names = ["dy", "x", "rstd", "gamma", "dxOut", "dgammaOut"]
    for i, n in enumerate(names):
        b = list(a)
        b[i] = None
        expect_status("RmsNormGrad", b, 161001, n)
    b = list(a)
    b[2] = T((2,), "f16")
    expect_status("RmsNormGrad", b, 161002, "rstd")
    b = list(a)
    b[5] = T((8,), "f16")
    expect_status("RmsNormGrad", b, 161002, "dgammaOut")
    b = list(a)
    b[0], b[1], b[4] = T((8,), "f32"), T((8,), "f32"), T((8,), "f32")
    expect_status("RmsNormGrad", b, 561002, "dy")
    b = list(a)
    b[2] = T((3,), "f32")
    expect_status("RmsNormGrad", b, 561002, "rstd")
    b = list(a)
    b[3], b[5] = T((4,), "f32"), T((4,), "f32")
    expect_status("RmsNormGrad", b, 561002, "gamma")


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("mode", ["add", "pre", "post"])
def test_add_rms_norm(torch, dt, mode):
    if mode != "add" and dt == "f32":
        pytest.skip("the pre/post modes take FLOAT16 / BFLOAT16 only")
    rng = np.random.default_rng(3)
    shape = (2, 3, 16)
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (16,), dt, 0.5, 1.5)
    y = zeros(shape, dt)
    r = zeros((2, 3, 1), "f32") if mode == "add" else None
    xo = zeros(shape, dt) if mode in ("add", "pre") else None
    pyaclnn.call("AddRmsNorm", strided(x1), x2, g, 1e-6, y, r, xo)
    xs = f64(torch, x1) + f64(torch, x2)
    er = 1 / torch.sqrt((xs * xs).mean(-1, keepdim=True) + 1e-6)
    check(y, xs * er * f64(torch, g), torch, dt, 4)
    if r is not None:
        check(r, er, torch, "f32")
    if xo is not None:
        check(xo, xs, torch, dt)


def test_add_rms_norm_invalid():
    x, g, r = T((2, 8), "f16"), T((8,), "f16"), T((2, 1), "f32")
    expect_status("AddRmsNorm", [None, x, g, 1e-6, x, r, x], 161001, "x1")
    expect_status("AddRmsNorm", [x, x, g, 1e-6, x, r, None], 161001, "xOut")
    expect_status("AddRmsNorm", [x, T((2, 8), "bf16"), g, 1e-6, x, r, x], 161002, "x2")
    expect_status("AddRmsNorm", [x, x, T((8,), "f32"), 1e-6, x, r, x], 161002, "gamma")
    expect_status("AddRmsNorm", [x, x, g, 1e-6, x, T((2, 1), "f16"), x], 161002, "rstdOut")
    expect_status("AddRmsNorm", [T((2, 8), "f32"), T((2, 8), "f32"), T((8,), "f32"), 1e-6, T((2, 8), "f32"), None,
                                 None], 161002, "x1")
    expect_status("AddRmsNorm", [x, T((2, 4), "f16"), g, 1e-6, x, r, x], 161002, "x2")
    expect_status("AddRmsNorm", [x, x, T((1, 2, 8), "f16"), 1e-6, x, None, x], 161002, "gamma")
    expect_status("AddRmsNorm", [x, x, T((4,), "f16"), 1e-6, x, r, x], 561002, "gamma")


# ------------------------------------------------------------------ AddLayerNorm


ALN = [("f32", "f16", "f32", "f32", "f32"), ("bf16", "f32", "f32", "f32", "f32"), ("f16", "f16", "f32", "f16", "f16"),
       ("bf16", "bf16", "f32", "bf16", "bf16"), ("f16", "f16", "f16", "f16", "f16"),
       ("bf16", "bf16", "bf16", "bf16", "bf16"), ("f32", "f32", "f32", "f32", "f32")]


@pytest.mark.parametrize("x1dt,x2dt,gdt,bdt,ydt", ALN)
@pytest.mark.parametrize("bias", [None, "gamma", "full"])
def test_add_layer_norm(torch, x1dt, x2dt, gdt, bdt, ydt, bias):
    rng = np.random.default_rng(9)
    shape = (2, 3, 24)
    x1, x2 = rnd(rng, shape, x1dt), rnd(rng, shape, x2dt)
    g, b = rnd(rng, (24,), gdt, 0.5, 1.5), rnd(rng, (24,), gdt)
    bi = None if bias is None else rnd(rng, (24,) if bias == "gamma" else shape, bdt)
    y, m, r, xo = zeros(shape, ydt), zeros((2, 3, 1), "f32"), zeros((2, 3, 1), "f32"), zeros(shape, ydt)
    pyaclnn.call("AddLayerNorm", x1, strided(x2), g, b, bi, 1e-5, True, y, m, r, xo)
    xs = f64(torch, x1) + f64(torch, x2) + (0 if bi is None else f64(torch, bi))
    e = torch.nn.functional.layer_norm(xs, [24], f64(torch, g), f64(torch, b), 1e-5)
    check(y, e, torch, ydt, 4)
    check(xo, xs, torch, ydt)
    check(m, xs.mean(-1, keepdim=True), torch, "f32")
    check(r, 1 / torch.sqrt(xs.var(-1, unbiased=False, keepdim=True) + 1e-5), torch, "f32")
    # additionalOutput false: xOut untouched
    xo2 = np.full(shape, 5, NP[ydt])
    pyaclnn.call("AddLayerNorm", x1, x2, g, b, bi, 1e-5, False, y, m, r, xo2)
    assert (xo2.astype(np.float64) == 5).all()


def test_add_layer_norm_invalid():
    x, g, s = T((2, 8), "f32"), T((8,), "f32"), T((2, 1), "f32")
    a = [x, x, g, g, None, 1e-5, True, x, s, s, x]
    for i, n in [(0, "x1"), (3, "beta"), (7, "yOut"), (10, "xOut")]:
        b = list(a)
        b[i] = None
        expect_status("AddLayerNorm", b, 161001, n)
    b = list(a)
    b[8] = T((2, 1), "f16")
    expect_status("AddLayerNorm", b, 161002, "meanOut")
    b = list(a)
    b[2] = T((4,), "f32")
    expect_status("AddLayerNorm", b, 561002, "gamma")
    b = list(a)
    b[4] = T((3,), "f32")
    expect_status("AddLayerNorm", b, 561002, "biasOptional")


# ------------------------------------------------------------------ BatchNorm / BatchNormBackward


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 4, 3, 3), (3, 2, 70)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(torch, dt, shape, training):
    rng = np.random.default_rng(len(shape))
    C = shape[1]
    x = rnd(rng, shape, dt)
    w, b = rnd(rng, (C,), dt, 0.5, 1.5), rnd(rng, (C,), dt)
    rm, rv = rnd(rng, (C,), "f32"), rnd(rng, (C,), "f32", 0.5, 2)
    out, sm, si = zeros(shape, dt), zeros((C,), "f32"), zeros((C,), "f32")
    rm2, rv2 = rm.copy(), rv.copy()
    pyaclnn.call("BatchNorm", strided(x), w, b, rm2, rv2, training, 0.1, 1e-5, out, sm, si)
    trm, trv = f64(torch, rm), f64(torch, rv)
    eo, esm, esi = torch.native_batch_norm(f64(torch, x), f64(torch, w), f64(torch, b), trm, trv, training, 0.1, 1e-5)
    check(out, eo, torch, dt, 4)
    check(rm2, trm, torch, "f32")
    check(rv2, trv, torch, "f32")
    if training:
        check(sm, esm, torch, "f32")
        check(si, esi, torch, "f32")
    # without the optional tensors (weight 1, bias 0, running stats 0 / 1)
    out2 = strided(zeros(shape, dt))
    pyaclnn.call("BatchNorm", x, None, None, None, None, training, 0.1, 1e-5, out2, sm, si)
    eo2 = torch.native_batch_norm(f64(torch, x), None, None, torch.zeros(C, dtype=torch.float64),
                                  torch.ones(C, dtype=torch.float64), training, 0.1, 1e-5)[0]
    check(out2, eo2, torch, dt, 4)


def test_batch_norm_empty():
    sm, si = np.full(3, 7, np.float32), np.full(3, 7, np.float32)
    pyaclnn.call("BatchNorm", np.zeros((0, 3), np.float32), None, None, None, None, True, 0.1, 1e-5,
                 np.zeros((0, 3), np.float32), sm, si)
    assert (sm == 0).all() and np.isnan(si).all()


def test_batch_norm_invalid():
    x, c = T((2, 3, 4), "f32"), T((3,), "f32")
    a = [x, c, c, c, c, True, 0.1, 1e-5, x, c, c]

    def row(i, v, code, word, training=True):
        b = list(a)
        b[i] = v
        b[5] = training
        expect_status("BatchNorm", b, code, word)

    row(0, None, 161001, "input")
    row(8, None, 161001, "output")
    row(9, None, 161001, "saveMean")
    row(9, None, 0, None, training=False)
    row(0, T((2, 3, 4), "f64"), 161002, "input")
    row(10, T((3,), "i32"), 161002, "saveInvstd")
    row(1, T((3,), "f64"), 161002, "weight")
    row(8, T((2, 3, 4), "f32", lib.ACL_FORMAT_NCHW), 161002, "format")
    row(0, T((2,), "f32"), 161002, "input")
    row(8, T((2, 3, 5), "f32"), 161002, "output")
    row(3, T((4,), "f32"), 161002, "runningMean")
    row(9, T((3, 1), "f32"), 161002, "saveMean")
    b = list(a)
    b[0], b[8] = T((1, 3, 2, 2, 2), "f32"), T((1, 3, 2, 2, 2), "f32")
    expect_status("BatchNorm", b, 161002, "NCDHW")
    b[0], b[8] = T((1, 3, 2, 2, 2), "f32", lib.ACL_FORMAT_NCDHW), T((1, 3, 2, 2, 2), "f32", lib.ACL_FORMAT_NCDHW)
    expect_status("BatchNorm", b, 0)


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape", [(4, 3), (2, 4, 3, 3), (3, 2, 70)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_backward(torch, dt, shape, training):
    rng = np.random.default_rng(len(shape) + 5)
    C = shape[1]
    x, dy = rnd(rng, shape, dt), rnd(rng, shape, dt)
    w = rnd(rng, (C,), dt, 0.5, 1.5)
    rm, rv = rnd(rng, (C,), "f32"), rnd(rng, (C,), "f32", 0.5, 2)
    _, esm, esi = torch.native_batch_norm(f64(torch, x), f64(torch, w), None, None, None, True, 0.1, 1e-5)
    sm, si = rounded(torch, esm, "f32"), rounded(torch, esi, "f32")
    gi, gw, gb = zeros(shape, dt), zeros((C,), "f32"), zeros((C,), "f32")
    pyaclnn.call("BatchNormBackward", strided(dy), x, w, rm, rv, sm, si, training, 1e-5, [True, True, True], gi, gw,
                 gb)
    egi, egw, egb = torch.ops.aten.native_batch_norm_backward(
        f64(torch, dy), f64(torch, x), f64(torch, w), f64(torch, rm), f64(torch, rv), f64(torch, sm), f64(torch, si),
        training, 1e-5, [True, True, True])
    check(gi, egi, torch, dt, 8)
    check(gw, egw, torch, "f32", 8)
    check(gb, egb, torch, "f32", 8)
    gi2 = strided(zeros(shape, dt))
    pyaclnn.call("BatchNormBackward", dy, x, w, rm, rv, sm, si, training, 1e-5, [True, False, False], gi2, None, None)
    check(gi2, egi, torch, dt, 8)


def test_batch_norm_backward_invalid():
    x, c = T((2, 3, 4), "f32"), T((3,), "f32")
    m = bool_array([True, True, True])
    a = [x, x, c, c, c, c, c, True, 1e-5, m, x, c, c]

    def row(i, v, code, word):
        b = list(a)
        b[i] = v
        expect_status("BatchNormBackward", b, code, word)

    row(0, None, 161001, "gradOut")
    row(9, None, 161001, "outputMask")
    row(9, bool_array([]), 161001, "outputMask")
    row(10, None, 161001, "gradInput")
    row(12, None, 161001, "gradBias")
    row(0, T((2, 3, 4), "f16"), 161002, "input")
    row(11, T((3,), "i32"), 161002, "gradWeight")
    row(5, T((3,), "f64"), 161002, "saveMean")
    row(1, T((2, 3, 5), "f32"), 161002, "gradOut")
    row(2, T((4,), "f32"), 161002, "weight")
    row(11, T((4,), "f32"), 161002, "gradWeight")
    row(1, T((0, 3, 4), "f32"), 0, None)


# ------------------------------------------------------------------ GroupNorm / GroupNormBackward


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape,G", [((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((3, 4), 4), ((1, 8, 40), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(torch, dt, shape, G, affine):
    rng = np.random.default_rng(G)
    N, C = shape[:2]
    HxW = int(np.prod(shape[2:]))
    x = rnd(rng, shape, dt)
    g = rnd(rng, (C,), dt, 0.5, 1.5) if affine else None
    b = rnd(rng, (C,), dt) if affine else None
    out, mean, rstd = zeros(shape, dt), zeros((N, G), dt), zeros((N, G), dt)
    pyaclnn.call("GroupNorm", strided(x), g, b, N, C, HxW, G, 1e-5, out, mean, rstd)
    eo, em, er = torch.ops.aten.native_group_norm(f64(torch, x), None if g is None else f64(torch, g),
                                                  None if b is None else f64(torch, b), N, C, HxW, G, 1e-5)
    check(out, eo, torch, dt, 4)
    check(mean, em, torch, dt)
    check(rstd, er, torch, dt)
    out2 = strided(zeros(shape, dt))
    pyaclnn.call("GroupNorm", x, g, b, N, C, HxW, G, 1e-5, out2, mean, rstd)
    check(out2, eo, torch, dt, 4)


def test_group_norm_empty():
    mean, rstd = np.full((2, 2), 7, np.float32), np.full((2, 2), 7, np.float32)
    pyaclnn.call("GroupNorm", np.zeros((2, 4, 0), np.float32), None, None, 2, 4, 0, 2, 1e-5,
                 np.zeros((2, 4, 0), np.float32), mean, rstd)
    assert (mean == 0).all() and np.isnan(rstd).all()


def test_group_norm_invalid():
    x, c, mv = T((2, 4, 3), "f32"), T((4,), "f32"), T((2, 2), "f32")
    a = [x, c, c, 2, 4, 3, 2, 1e-5, x, mv, mv]

    def row(i, v, code, word):
        b = list(a)
        b[i] = v
        expect_status("GroupNorm", b, code, word)

    row(0, None, 161001, "self")
    row(10, None, 161001, "rstdOut")
    row(0, T((2, 4, 3), "f64"), 161002, "self")
    row(1, T((4,), "f16"), 161002, "gamma")
    row(9, T((2, 2), "f16"), 161002, "meanOut")
    row(6, 0, 161002, "group")
    row(6, 3, 161002, "group")
    row(7, 0.0, 161002, "eps")
    row(0, T((8,), "f32"), 161002, "self")
    row(8, T((2, 4, 4), "f32"), 161002, "out")
    row(9, T((2, 3), "f32"), 161002, "meanOut")
    row(3, 3, 161002, "N")
    row(5, 4, 161002, "HxW")
    row(2, T((3,), "f32"), 161002, "beta")
    row(8, T((2, 4, 3), "f32", lib.ACL_FORMAT_NCHW), 161002, "format")


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape,G", [((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((1, 8, 40), 1)])
def test_group_norm_backward(torch, dt, shape, G):
    rng = np.random.default_rng(G + 11)
    N, C = shape[:2]
    HxW = int(np.prod(shape[2:]))
    x, dy, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (C,), dt, 0.5, 1.5)
    _, em, er = torch.ops.aten.native_group_norm(f64(torch, x), None, None, N, C, HxW, G, 1e-5)
    mean, rstd = rounded(torch, em, dt), rounded(torch, er, dt)
    gi, gg, gb = zeros(shape, dt), zeros((C,), dt), zeros((C,), dt)
    pyaclnn.call("GroupNormBackward", strided(dy), x, mean, rstd, g, N, C, HxW, G, [True, True, True], gi, gg, gb)
    egi, egg, egb = torch.ops.aten.native_group_norm_backward(
        f64(torch, dy), f64(torch, x), f64(torch, mean), f64(torch, rstd), f64(torch, g), N, C, HxW, G,
        [True, True, True])
    check(gi, egi, torch, dt, 16)
    check(gg, egg, torch, dt, 8)
    check(gb, egb, torch, dt, 8)
    gi2 = strided(zeros(shape, dt))
    pyaclnn.call("GroupNormBackward", dy, x, mean, rstd, None, N, C, HxW, G, [True, False, False], gi2, None, None)
    egi2 = torch.ops.aten.native_group_norm_backward(
        f64(torch, dy), f64(torch, x), f64(torch, mean), f64(torch, rstd), None, N, C, HxW, G, [True, False, False])[0]
    check(gi2, egi2, torch, dt, 16)


def test_group_norm_backward_invalid():
    x, c, mv = T((2, 4, 3), "f32"), T((4,), "f32"), T((2, 2), "f32")
    m = bool_array([True, True, True])
    a = [x, x, mv, mv, c, 2, 4, 3, 2, m, x, c, c]

    def row(i, v, code, word):
        b = list(a)
        b[i] = v
        expect_status("GroupNormBackward", b, code, word)

    row(0, None, 161001, "gradOut")
    row(3, None, 161001, "rstd")
    row(9, None, 161002, "outputMask")
    row(9, bool_array([True]), 161002, "outputMask")
    row(10, None, 161002, "gradInput")
    row(0, T((2, 4, 3), "i32"), 161002, "gradOut")
    row(2, T((2, 2), "f16"), 161002, "mean")
    row(12, T((4,), "f16"), 161002, "gradBetaOut")
    row(8, 3, 161002, "group")
    row(6, 240004, 161002, "C")
    row(1, T((2, 4, 4), "f32"), 161002, "input")
    row(2, T((2, 3), "f32"), 161002, "mean")
    row(4, T((5,), "f32"), 161002, "gamma")
    row(11, T((5,), "f32"), 161002, "gradGammaOut")


# ------------------------------------------------------------------ InstanceNorm


@pytest.mark.parametrize("dt", ["f32", "f16"])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_instance_norm_refused_on_a2(dt, fmt):
    """The op_api serves Ascend310P only: a call that passes its parameter checks is 161002 on an Atlas A2 (the doc marks
    A2 unsupported), with nothing written."""
    x = T((2, 3, 4, 5) if fmt == "NCHW" else (2, 4, 5, 3), dt)
    c, s = T((3,), dt), T((2, 3, 1, 1) if fmt == "NCHW" else (2, 1, 1, 3), dt)
    expect_status("InstanceNorm", [x, c, c, ffi.new("char[]", fmt.encode()), 1e-5, x, s, s], 161002, "Ascend310P")


def test_instance_norm_invalid():
    x, c, s = T((2, 3, 4, 5), "f32"), T((3,), "f32"), T((2, 3, 1, 1), "f32")
    fmt = ffi.new("char[]", b"NCHW")
    expect_status("InstanceNorm", [None, c, c, fmt, 1e-5, x, s, s], 161001, "x")
    expect_status("InstanceNorm", [x, c, c, ffi.NULL, 1e-5, x, s, s], 161001, "dataFormat")
    expect_status("InstanceNorm", [x, c, c, ffi.new("char[]", b"ND"), 1e-5, x, s, s], 161002, "dataFormat")
    expect_status("InstanceNorm", [T((2, 3, 4, 5), "bf16"), c, c, fmt, 1e-5, x, s, s], 161002, "x")
    expect_status("InstanceNorm", [x, c, c, fmt, 1e-5, x, s, T((2, 3, 1, 1), "f16")], 161002, "variance")
    expect_status("InstanceNorm", [T((2, 3, 4, 5, 1, 1, 1, 1, 1), "f32"), c, c, fmt, 1e-5, x, s, s], 161002, "x")
    # the shape checks come after the platform's: on A2 a 3-D x or a mismatched gamma is the platform error
    expect_status("InstanceNorm", [T((2, 3, 4), "f32"), c, c, fmt, 1e-5, T((2, 3, 4), "f32"), s, s], 161002,
                  "Ascend310P")
    expect_status("InstanceNorm", [x, T((4,), "f32"), c, fmt, 1e-5, x, s, s], 161002, "Ascend310P")


# ------------------------------------------------------------------ determinism


def test_norm_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
x = rng.standard_normal((64, 4096)).astype(np.float32)
dy = rng.standard_normal((64, 4096)).astype(np.float32)
w = rng.standard_normal(4096).astype(np.float32)
o, m, r = np.empty_like(x), np.empty((64, 1), np.float32), np.empty((64, 1), np.float32)
pyaclnn.call("LayerNorm", x, [4096], w, None, 1e-5, o, m, r)
gi, gw, gb = np.empty_like(x), np.empty(4096, np.float32), np.empty(4096, np.float32)
pyaclnn.call("LayerNormBackward", dy, x, [4096], m, r, w, None, [True, True, True], gi, gw, gb)
for a in (o, m, r, gi, gw, gb): h.update(a.tobytes())
xb = rng.standard_normal((16, 8, 2048)).astype(np.float16)
db = rng.standard_normal((16, 8, 2048)).astype(np.float16)
ob, sm, si = np.empty_like(xb), np.empty(8, np.float32), np.empty(8, np.float32)
rm, rv = np.zeros(8, np.float32), np.ones(8, np.float32)
pyaclnn.call("BatchNorm", xb, None, None, rm, rv, True, 0.1, 1e-5, ob, sm, si)
g1, g2, g3 = np.empty_like(xb), np.empty(8, np.float32), np.empty(8, np.float32)
pyaclnn.call("BatchNormBackward", db, xb, None, None, None, sm, si, True, 1e-5, [True, True, True], g1, g2, g3)
gm, gr = np.empty((16, 4), np.float16), np.empty((16, 4), np.float16)
go = np.empty_like(xb)
pyaclnn.call("GroupNorm", xb, None, None, 16, 8, 2048, 4, 1e-5, go, gm, gr)
q1, q2, q3 = np.empty_like(xb), np.empty(8, np.float16), np.empty(8, np.float16)
pyaclnn.call("GroupNormBackward", db, xb, gm, gr, None, 16, 8, 2048, 4, [True, True, True], q1, q2, q3)
y, rs = np.empty_like(x), np.empty((64, 1), np.float32)
pyaclnn.call("RmsNorm", x, w, 1e-6, y, rs)
dx, dg = np.empty_like(x), np.empty(4096, np.float32)
pyaclnn.call("RmsNormGrad", dy, x, rs[:, 0].copy(), w, dx, dg)
for a in (ob, sm, si, rm, rv, g1, g2, g3, go, gm, gr, q1, q2, q3, y, rs, dx, dg): h.update(a.tobytes())
bf, bd = rng.standard_normal((8, 2, 4096)).astype(np.float32), rng.standard_normal((8, 2, 4096)).astype(np.float32)
s1, s2 = np.empty(2, np.float32), np.empty(2, np.float32)
pyaclnn.call("BatchNormReduceBackward", bd, bf, np.zeros(2, np.float32), np.ones(2, np.float32), None, True, False,
             False, s1, s2, None, None)
x1, x2 = rng.standard_normal((32, 8192)).astype(np.float16), rng.standard_normal((32, 8192)).astype(np.float16)
ga, be = rng.standard_normal(8192).astype(np.float16), rng.standard_normal(8192).astype(np.float16)
ya, ma, ra, xa = np.empty_like(x1), np.empty((32, 1), np.float32), np.empty((32, 1), np.float32), np.empty_like(x1)
pyaclnn.call("AddLayerNorm", x1, x2, ga, be, None, 1e-5, True, ya, ma, ra, xa)
d1, d2, d3 = np.empty_like(x1), np.empty(8192, np.float32), np.empty(8192, np.float32)
pyaclnn.call("AddLayerNormGrad", x2, x1, x2, ra, ma, ga, None, d1, d2, d3)
for a in (s1, s2, ya, ma, ra, xa, d1, d2, d3): h.update(a.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code, threads=(1, 2, 3))


def test_dtype_lists():
    assert OPS["LayerNorm"]["dtypes"] and OPS["BatchNorm"]["dtypes"]


# ------------------------------------------------------------------ GemmaRmsNorm / DeepNorm / DeepNormGrad


@pytest.mark.parametrize("dt", FLT)
def test_gemma_rms_norm(torch, dt):
    rng = np.random.default_rng(21)
    x, g = rnd(rng, (2, 3, 32), dt), rnd(rng, (32,), dt, -0.5, 0.5)
    y, r = strided(zeros((2, 3, 32), dt)), zeros((2, 3, 1), "f32")
    pyaclnn.call("GemmaRmsNorm", strided(x), g, 1e-6, y, r)
    xt = f64(torch, x)
    er = 1 / torch.sqrt((xt * xt).mean(-1, keepdim=True) + 1e-6)
    check(y, xt * er * (1 + f64(torch, g)), torch, dt, 4)
    check(r, er, torch, "f32")
    expect_status("GemmaRmsNorm", [T((2, 8), "f16"), T((8,), "f32"), 1e-6, T((2, 8), "f16"), T((2, 1), "f32")],
                  161002, "gamma")
    expect_status("GemmaRmsNorm", [T((2, 8), "f16"), T((8,), "f16"), 1e-6, None, T((2, 1), "f32")], 161001, "yOut")


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape,k", [((3, 24), 1), ((2, 3, 4, 5), 2)])
def test_deep_norm_and_grad(torch, dt, shape, k):
    rng = np.random.default_rng(31)
    ns = shape[-k:]
    lead = shape[:-k] + (1,) * k
    x, gx, dy = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, shape, dt)
    g, b = rnd(rng, ns, dt, 0.5, 1.5), rnd(rng, ns, dt)
    alpha = 0.7
    m, r, y = zeros(lead, "f32"), zeros(lead, "f32"), zeros(shape, dt)
    pyaclnn.call("DeepNorm", strided(x), gx, b, g, alpha, 1e-6, m, r, y)
    xt = (alpha * f64(torch, x) + f64(torch, gx)).requires_grad_()
    dims = tuple(range(len(shape) - k, len(shape)))
    em = xt.mean(dims, keepdim=True)
    er = 1 / torch.sqrt(((xt - em) ** 2).mean(dims, keepdim=True) + 1e-6)
    ey = (xt - em) * er * f64(torch, g) + f64(torch, b)
    check(y, ey, torch, dt, 4)
    check(m, em, torch, "f32")
    check(r, er, torch, "f32")
    # backward with the forward's (rounded) statistics
    ey.backward(f64(torch, dy))
    dx, dgx = zeros(shape, dt), zeros(shape, dt)
    db, dg = zeros(ns, "f32"), zeros(ns, "f32")
    pyaclnn.call("DeepNormGrad", dy, x, strided(gx), g, m, r, alpha, dx, dgx, db, dg)
    check(dgx, xt.grad, torch, dt, 8)
    check(dx, alpha * xt.grad, torch, dt, 8)
    red = tuple(range(len(shape) - k))
    xs = alpha * f64(torch, x) + f64(torch, gx)
    check(db, f64(torch, dy).sum(red), torch, "f32", 8)
    check(dg, (f64(torch, dy) * (xs - f64(torch, m)) * f64(torch, r)).sum(red), torch, "f32", 8)


def test_deep_norm_invalid():
    x, g, s = T((2, 8), "f32"), T((8,), "f32"), T((2, 1), "f32")
    expect_status("DeepNorm", [x, None, g, g, 0.5, 1e-6, s, s, x], 161001, "gx")
    expect_status("DeepNorm", [x, T((2, 8), "f16"), g, g, 0.5, 1e-6, s, s, x], 161002, "gx")
    expect_status("DeepNorm", [x, x, g, g, 0.5, 1e-6, T((2, 1), "f16"), s, x], 161002, "meanOut")
    expect_status("DeepNorm", [x, x, g, T((4,), "f32"), 0.5, 1e-6, s, s, x], 561002, "gamma")
    expect_status("DeepNorm", [x, x, g, g, 0.5, 1e-6, T((3, 1), "f32"), s, x], 561002, "meanOut")
    a = [x, x, x, g, s, s, 0.5, x, x, g, g]
    b = list(a)
    b[4] = T((2, 1), "f16")
    expect_status("DeepNormGrad", b, 161002, "mean")
    b = list(a)
    b[10] = None
    expect_status("DeepNormGrad", b, 161001, "dgammaOut")
    b = list(a)
    b[9] = T((4,), "f32")
    expect_status("DeepNormGrad", b, 561002, "dbetaOut")


# ------------------------------------------------------------------ GroupNormSilu / Swish / SwishGrad


def gn_ref(torch, x, g, b, G, eps=1e-5):
    N, C = x.shape[:2]
    return torch.ops.aten.native_group_norm(f64(torch, x), None if g is None else f64(torch, g),
                                            None if b is None else f64(torch, b), N, C,
                                            int(np.prod(x.shape[2:])), G, eps)


@pytest.mark.parametrize("dt,gdt", [("f32", "f32"), ("f16", "f16"), ("bf16", "bf16"), ("f16", "f32"),
                                    ("bf16", "f32")])
@pytest.mark.parametrize("v2", [None, True, False])
def test_group_norm_silu(torch, dt, gdt, v2):
    rng = np.random.default_rng(41)
    shape, G = (2, 6, 3, 4), 3
    x, g, b = rnd(rng, shape, dt), rnd(rng, (6,), gdt, 0.5, 1.5), rnd(rng, (6,), gdt)
    out, m, r = zeros(shape, dt), zeros((2, G), dt), zeros((2, G), dt)
    if v2 is None:
        pyaclnn.call("GroupNormSilu", strided(x), g, b, G, 1e-5, out, m, r)
    else:
        pyaclnn.call("GroupNormSiluV2", strided(x), g, b, G, 1e-5, v2, out, m, r)
    eo, em, er = gn_ref(torch, x, g, b, G)
    if v2 is not False:
        eo = torch.nn.functional.silu(eo)
    check(out, eo, torch, dt, 4)
    check(m, em, torch, dt)
    check(r, er, torch, dt)


def test_group_norm_silu_invalid():
    x, c, mv = T((2, 4, 3), "f32"), T((4,), "f32"), T((2, 2), "f32")
    a = [x, c, c, 2, 1e-5, x, mv, mv]

    def row(i, v, code, word):
        b = list(a)
        b[i] = v
        expect_status("GroupNormSilu", b, code, word)

    row(0, None, 161001, "self")
    row(7, None, 161001, "rstdOut")
    row(1, T((4,), "f16"), 161002, "gamma")
    row(6, T((2, 2), "f16"), 161002, "meanOut")
    row(3, 3, 161002, "meanOut")
    row(1, T((5,), "f32"), 161002, "gamma")
    # the shapes are checked before the attributes: group 0 needs (N, 0) statistics to reach its own check
    expect_status("GroupNormSilu", [x, c, c, 0, 1e-5, x, T((2, 0), "f32"), T((2, 0), "f32")], 161002, "group")
    row(4, -1.0, 161002, "eps")
    expect_status("GroupNormSilu", [T((2, 4, 3), "f16"), T((4,), "f32"), T((4,), "f32"), 2, 1e-5,
                                    T((2, 4, 3), "f16"), T((2, 2), "f16"), T((2, 2), "f16")], 0)


@pytest.mark.parametrize("dt,gdt", [("f32", "f32"), ("f16", "f16"), ("bf16", "bf16"), ("bf16", "f32")])
@pytest.mark.parametrize("act", [True, False])
def test_group_norm_swish(torch, dt, gdt, act):
    rng = np.random.default_rng(51)
    shape, G, scale = (2, 8, 5), 4, 1.7
    x, g, b = rnd(rng, shape, dt), rnd(rng, (8,), gdt, 0.5, 1.5), rnd(rng, (8,), gdt)
    y, m, r = zeros(shape, dt), zeros((2, G), gdt), zeros((2, G), gdt)
    pyaclnn.call("GroupNormSwish", strided(x), g, b, G, "NCHW", 1e-5, act, scale, y, m, r)
    eo, em, er = gn_ref(torch, x, g, b, G)
    if act:
        eo = eo * torch.sigmoid(scale * eo)
    check(y, eo, torch, dt, 4)
    check(m, em, torch, gdt)
    check(r, er, torch, gdt)


@pytest.mark.parametrize("dt", FLT)
def test_group_norm_swish_grad(torch, dt):
    rng = np.random.default_rng(61)
    shape, G, scale = (2, 8, 5), 4, 1.3
    N, C = shape[:2]
    x, dy = rnd(rng, shape, dt), rnd(rng, shape, dt)
    g, b = rnd(rng, (C,), dt, 0.5, 1.5), rnd(rng, (C,), dt)
    _, em, er = gn_ref(torch, x, None, None, G)
    m, r = rounded(torch, em, dt), rounded(torch, er, dt)
    # autograd through the swish of the group norm with the given mean / rstd treated as those of x
    xt, gt, bt = f64(torch, x).requires_grad_(), f64(torch, g).requires_grad_(), f64(torch, b).requires_grad_()
    z = torch.nn.functional.group_norm(xt, G, gt, bt, 1e-5)
    (z * torch.sigmoid(scale * z)).backward(f64(torch, dy))
    dx, dg, db = zeros(shape, dt), zeros((C,), dt), zeros((C,), dt)
    pyaclnn.call("GroupNormSwishGrad", strided(dy), m, r, x, g, b, G, "NCHW", scale, True, True, dx, dg, db)
    check(dx, xt.grad, torch, dt, 16)
    check(dg, gt.grad, torch, dt, 8)
    check(db, bt.grad, torch, dt, 8)
    expect_status("GroupNormSwishGrad", [T(shape, dt), T((2, G), dt), T((2, G), dt), T(shape, dt), T((C,), dt),
                                         T((C,), "f64"), G, ffi.NULL, scale, True, True, T(shape, dt), T((C,), dt),
                                         T((C,), dt)], 161002, "beta")
    expect_status("GroupNormSwishGrad", [T(shape, dt), T((2, G), dt), T((2, G), dt), T(shape, dt), T((C,), dt),
                                         T((C,), dt), 3, ffi.NULL, scale, True, True, T(shape, dt), T((C,), dt),
                                         T((C,), dt)], 561002, "numGroups")


# ------------------------------------------------------------------ FastLayerNorm / FastBatchNormBackward


@pytest.mark.parametrize("dt", FLT)
def test_fast_layer_norm(torch, dt):
    rng = np.random.default_rng(71)
    x, w, b = rnd(rng, (3, 4, 20), dt), rnd(rng, (20,), "f32"), rnd(rng, (20,), "f32")
    out, m, r = strided(zeros((3, 4, 20), dt)), zeros((3, 4, 1), "f32"), zeros((3, 4, 1), "f32")
    pyaclnn.call("FastLayerNorm", strided(x), [20], w, b, 1e-5, out, m, r)
    xt = f64(torch, x)
    check(out, torch.nn.functional.layer_norm(xt, [20], f64(torch, w), f64(torch, b), 1e-5), torch, dt, 4)
    check(m, xt.mean(-1, keepdim=True), torch, "f32")
    # upstream's order: weight / bias pairing is checked before bias's own support list
    expect_status("FastLayerNorm", [T((2, 8), "f16"), int_array([8]), T((8,), "f32"), T((8,), "f16"), 1e-5,
                                    T((2, 8), "f16"), None, None], 161002, "biasOptional")
    expect_status("FastLayerNorm", [T((2, 8), "f32"), int_array([]), None, None, 1e-5, T((2, 8), "f32"), None, None],
                  161002, "normalizedShape")
    mean, rstd = np.full((3, 1), 7, np.float32), np.full((3, 1), 7, np.float32)
    pyaclnn.call("FastLayerNorm", np.zeros((3, 0), np.float32), [0], None, None, 1e-5, np.zeros((3, 0), np.float32),
                 mean, rstd)
    assert (mean == 0).all() and np.isnan(rstd).all()


@pytest.mark.parametrize("dt", FLT)
def test_fast_batch_norm_backward(torch, dt):
    rng = np.random.default_rng(72)
    shape, C = (3, 4, 6), 4
    x, dy, w = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (C,), dt)
    _, esm, esi = torch.native_batch_norm(f64(torch, x), None, None, None, None, True, 0.1, 1e-5)
    sm, si = rounded(torch, esm, "f32"), rounded(torch, esi, "f32")
    gi, gw, gb = zeros(shape, dt), zeros((C,), "f32"), zeros((C,), "f32")
    pyaclnn.call("FastBatchNormBackward", dy, x, w, None, None, sm, si, True, 1e-5, [True, True, True], 1, gi, gw, gb)
    egi, egw, egb = torch.ops.aten.native_batch_norm_backward(
        f64(torch, dy), f64(torch, x), f64(torch, w), None, None, f64(torch, sm), f64(torch, si), True, 1e-5,
        [True, True, True])
    check(gi, egi, torch, dt, 8)
    check(gw, egw, torch, "f32", 8)
    check(gb, egb, torch, "f32", 8)


# ------------------------------------------------------------------ the split (sync) batch norm steps


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_batch_norm_reduce(torch, dt, fmt):
    rng = np.random.default_rng(81)
    x = rnd(rng, (2, 3, 4, 5), dt)
    cax = 1 if fmt == "NCHW" else 3
    C = x.shape[cax]
    s, q = zeros((C,), "f32"), zeros((C,), "f32")
    f = lib.ACL_FORMAT_NCHW if fmt == "NCHW" else lib.ACL_FORMAT_NHWC
    from pyaclnn.ops._common import OpCall, launch
    with OpCall() as c:
        xt = c.input(c.array(x, "x"), f)
        st, qt = c.output(s, s.shape, s.dtype)[1], c.output(q, q.shape, q.dtype)[1]
        launch("BatchNormReduce", xt, st, qt)
    red = tuple(i for i in range(4) if i != cax)
    check(s, f64(torch, x).sum(red), torch, "f32", 8)
    check(q, (f64(torch, x) ** 2).sum(red), torch, "f32", 8)
    expect_status("BatchNormReduce", [T((2, 3, 4, 5), dt), T((3,), "f32"), T((3,), "f32")], 161002, "format")
    expect_status("BatchNormReduce", [T((2, 3, 4, 5), dt, lib.ACL_FORMAT_NCHW), T((3,), "f16"), T((3,), "f32")],
                  161002, "sum")
    expect_status("BatchNormReduce", [T((2, 3, 4, 5), dt, lib.ACL_FORMAT_NCHW), T((4,), "f32"), T((3,), "f32")],
                  161002, "sum")
    expect_status("BatchNormReduce", [None, T((3,), "f32"), T((3,), "f32")], 161001, "x")


@pytest.mark.parametrize("dt,cdt", [("f32", "f32"), ("f16", "f16"), ("f32", "i32")])
def test_sync_batch_norm_gather_stats(torch, dt, cdt):
    rng = np.random.default_rng(82)
    W, C = 3, 5
    parts = [rnd(rng, (4 + w, C), "f32") for w in range(W)]
    ts = np.stack([p.sum(0) for p in parts]).astype(NP[dt])
    tq = np.stack([(p.astype(np.float64) ** 2).sum(0) for p in parts]).astype(NP[dt])
    cnt = np.array([4 + w for w in range(W)]).astype(NP[cdt])
    rm, rv = rnd(rng, (C,), dt), rnd(rng, (C,), dt, 0.5, 2)
    rm0, rv0 = rm.astype(np.float64), rv.astype(np.float64)
    bm, bi = zeros((C,), dt), zeros((C,), dt)
    pyaclnn.call("SyncBatchNormGatherStats", ts, tq, cnt, rm, rv, 0.1, 1e-5, bm, bi)
    n = cnt.astype(np.float64).sum()
    em = ts.astype(np.float64).sum(0) / n
    ev = tq.astype(np.float64).sum(0) / n - em ** 2
    check(bm, torch.from_numpy(em), torch, dt, 4)
    check(bi, torch.from_numpy(1 / np.sqrt(ev + 1e-5)), torch, dt, 4)
    check(rm, torch.from_numpy(rm0 * 0.9 + 0.1 * em), torch, dt, 4)
    check(rv, torch.from_numpy(rv0 * 0.9 + 0.1 * ev * n / (n - 1)), torch, dt, 4)
    a = [T((W, C), dt), T((W, C), dt), T((W,), cdt), T((C,), dt), T((C,), dt), 0.1, 1e-5, T((C,), dt), T((C,), dt)]
    b = list(a)
    b[0] = T((W, C), "bf16")
    expect_status("SyncBatchNormGatherStats", b, 161002, "totalSum")
    b = list(a)
    b[2] = T((W,), "i64")
    expect_status("SyncBatchNormGatherStats", b, 161002, "sampleCount")
    b = list(a)
    b[3] = T((C + 1,), dt)
    expect_status("SyncBatchNormGatherStats", b, 161002, "mean")
    b = list(a)
    b[8] = None
    expect_status("SyncBatchNormGatherStats", b, 161001, "batchInvstd")


@pytest.mark.parametrize("dt", FLT)
def test_batch_norm_gather_stats_with_counts(torch, dt):
    rng = np.random.default_rng(83)
    W, C = 3, 4
    inp = rnd(rng, (2, C, 3), dt)
    mean, invstd = rnd(rng, (W, C), dt), rnd(rng, (W, C), dt, 0.5, 2)
    counts = np.array([5, 7, 9]).astype(NP[dt])
    rm, rv = rnd(rng, (C,), dt), rnd(rng, (C,), dt, 0.5, 2)
    trm, trv = f64(torch, rm), f64(torch, rv)
    ma, ia = zeros((C,), dt), zeros((C,), dt)
    pyaclnn.call("BatchNormGatherStatsWithCounts", inp, mean, invstd, rm, rv, 0.1, 1e-5, counts, ma, ia)
    # PyTorch's batch_norm_gather_stats_with_counts is CUDA-only: its merge of the per-worker statistics, literally
    cn, mn, iv = f64(torch, counts)[:, None], f64(torch, mean), f64(torch, invstd)
    n = cn.sum()
    em = (cn * mn).sum(0) / n
    ev = (cn * (1 / iv ** 2 - 1e-5 + (mn - em) ** 2)).sum(0) / n
    ei = 1 / torch.sqrt(ev + 1e-5)
    trm, trv = trm * 0.9 + 0.1 * em, trv * 0.9 + 0.1 * ev * n / (n - 1)
    check(ma, em, torch, dt, 4)
    check(ia, ei, torch, dt, 4)
    check(rm, trm, torch, dt, 4)
    check(rv, trv, torch, dt, 4)
    expect_status("BatchNormGatherStatsWithCounts", [T((2, C, 3), dt), T((W, C + 1), dt), T((W, C), dt), None, None,
                                                     0.1, 1e-5, T((W,), dt), T((C,), dt), T((C,), dt)], 161002, "mean")
    expect_status("BatchNormGatherStatsWithCounts", [T((2, C, 3), dt), T((W, C), dt), T((W, C), dt), None, None,
                                                     0.1, 1e-5, T((W,), "i32"), T((C,), dt), T((C,), dt)], 161002,
                  "counts")
    ma2, ia2 = np.full(C, 7, NP[dt]), np.full(C, 7, NP[dt])
    pyaclnn.call("BatchNormGatherStatsWithCounts", inp, zeros((0, C), dt), zeros((0, C), dt), None, None, 0.1, 1e-5,
                 zeros((0,), dt), ma2, ia2)
    assert (ma2.astype(np.float64) == 0).all() and np.isnan(ia2.astype(np.float64)).all()


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_elemt(torch, dt, affine):
    rng = np.random.default_rng(84)
    shape, C = (2, 3, 4, 5), 3
    x = rnd(rng, shape, dt)
    w, b = (rnd(rng, (C,), dt), rnd(rng, (C,), dt)) if affine else (None, None)
    m, iv = rnd(rng, (C,), "f32"), rnd(rng, (C,), "f32", 0.5, 2)
    out = strided(zeros(shape, dt))
    pyaclnn.call("BatchNormElemt", strided(x), w, b, m, iv, 1e-5, out)
    # PyTorch's batch_norm_elemt is CUDA-only: (x - mean) * invstd * weight + bias, literally
    sh = (1, C, 1, 1)
    e = (f64(torch, x) - f64(torch, m).reshape(sh)) * f64(torch, iv).reshape(sh)
    if affine:
        e = e * f64(torch, w).reshape(sh) + f64(torch, b).reshape(sh)
    check(out, e, torch, dt, 4)
    c = T((C,), "f32")
    expect_status("BatchNormElemt", [T(shape, dt), None, None, None, c, 1e-5, T(shape, dt)], 161002, "mean")
    expect_status("BatchNormElemt", [T(shape, dt), T((C,), "f64"), None, c, c, 1e-5, T(shape, dt)], 161002, "weight")
    expect_status("BatchNormElemt", [T(shape, dt), None, None, T((C + 1,), "f32"), c, 1e-5, T(shape, dt)], 161002,
                  "mean")


@pytest.mark.parametrize("dt", FLT)
def test_batch_norm_reduce_and_elemt_backward(torch, dt):
    rng = np.random.default_rng(85)
    shape, C = (3, 4, 7), 4
    x, dy, w = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (C,), dt)
    m, iv = rnd(rng, (C,), "f32"), rnd(rng, (C,), "f32", 0.5, 2)
    sdy, sdx, gw, gb = zeros((C,), "f32"), zeros((C,), "f32"), zeros((C,), "f32"), zeros((C,), "f32")
    pyaclnn.call("BatchNormReduceBackward", strided(dy), x, m, iv, w, True, True, True, sdy, sdx, gw, gb)
    # PyTorch's batch_norm_backward_reduce / _elemt are CUDA-only: their formulas, literally
    sh = (1, C, 1)
    dyt, xt, mt, ivt, wt = (f64(torch, a) for a in (dy, x, m, iv, w))
    xmu = xt - mt.reshape(sh)
    e = (dyt.sum((0, 2)), (dyt * xmu).sum((0, 2)), (dyt * xmu).sum((0, 2)) * ivt, dyt.sum((0, 2)))
    for a, b in zip((sdy, sdx, gw, gb), e):
        check(a, b, torch, "f32", 8)
    cnt = np.array([10, 11], np.int32)
    gi = zeros(shape, dt)
    pyaclnn.call("BatchNormElemtBackward", dy, strided(x), m, iv, w, sdy, sdx, cnt, gi)
    n = float(cnt.sum())
    sdyt, sdxt = f64(torch, sdy).reshape(sh), f64(torch, sdx).reshape(sh)
    egi = (dyt - sdyt / n - xmu * ivt.reshape(sh) ** 2 * sdxt / n) * ivt.reshape(sh) * wt.reshape(sh)
    check(gi, egi, torch, dt, 8)
    # masks: only gradBias
    gb2 = zeros((C,), "f32")
    pyaclnn.call("BatchNormReduceBackward", dy, x, m, iv, None, False, False, True, None, None, None, gb2)
    check(gb2, e[3], torch, "f32", 8)
    c = T((C,), "f32")
    expect_status("BatchNormReduceBackward", [T(shape, dt), T(shape, dt), c, c, None, True, False, False, None, c,
                                              None, None], 161001, "sumDy")
    expect_status("BatchNormReduceBackward", [T(shape, "f32"), T(shape, "f16"), c, c, None, False, False, True, None,
                                              None, None, c], 161002, "gradOut")
    expect_status("BatchNormReduceBackward", [T(shape, dt), T(shape, dt), c, c, None, False, False, True, None, None,
                                              None, T((C + 1,), "f32")], 161002, "gradBias")
    a = [T(shape, dt), T(shape, dt), c, c, None, c, c, T((2,), "i32"), T(shape, dt)]
    b = list(a)
    b[7] = T((2,), "i64")
    expect_status("BatchNormElemtBackward", b, 161002, "counter")
    b = list(a)
    b[5] = T((C + 1,), "f32")
    expect_status("BatchNormElemtBackward", b, 161002, "sumDy")
    b = list(a)
    b[8] = None
    expect_status("BatchNormElemtBackward", b, 161001, "gradInput")


# ------------------------------------------------------------------ Renorm / InplaceRenorm / EmbeddingRenorm


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("p,dim,maxnorm", [(2.0, 1, 1.5), (1.0, 0, 3.0), (3.0, -1, 2.0), (float("inf"), 2, 1.0),
                                           (2.0, 1, 100.0)])
def test_renorm(torch, dt, p, dim, maxnorm):
    rng = np.random.default_rng(91)
    x = rnd(rng, (3, 4, 5), dt)
    e = torch.renorm(f64(torch, x), p, dim, maxnorm)
    o = strided(zeros(x.shape, dt))
    pyaclnn.call("Renorm", strided(x), p, dim, maxnorm, o)
    check(o, e, torch, dt, 4)
    y = x.copy()
    pyaclnn.call("InplaceRenorm", y, p, dim, maxnorm)
    check(y, e, torch, dt, 4)


def test_renorm_invalid():
    from pyaclnn.ops.table import make_scalar
    x, p2, m = T((3, 4), "f32"), make_scalar(2.0), make_scalar(1.0)
    expect_status("Renorm", [None, p2, 0, m, x], 161001, "self")
    expect_status("Renorm", [x, None, 0, m, x], 161001, "p")
    expect_status("Renorm", [T((3, 4), "f64"), p2, 0, m, T((3, 4), "f64")], 161002, "self")
    expect_status("Renorm", [x, p2, 0, m, T((3, 4), "f16")], 161002, "self")
    expect_status("Renorm", [T((4,), "f32"), p2, 0, m, T((4,), "f32")], 161002, "self")
    expect_status("Renorm", [x, make_scalar(-1.0), 0, m, x], 161002, "p")
    expect_status("Renorm", [x, p2, 2, m, x], 161002, "dim")
    expect_status("Renorm", [x, p2, 0, make_scalar(-1.0), x], 161002, "maxNorm")
    expect_status("Renorm", [x, p2, -2, m, x], 0)


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("idt", ["i32", "i64"])
def test_embedding_renorm(torch, dt, idt):
    rng = np.random.default_rng(92)
    w = rnd(rng, (10, 6), dt)
    idx = np.array([[1, 3], [3, 7]]).astype(NP[idt])
    e = f64(torch, w)
    torch.embedding_renorm_(e, torch.from_numpy(idx.astype(np.int64)), 1.0, 2.0)
    w2 = w.copy()
    pyaclnn.call("EmbeddingRenorm", w2, idx, 1.0, 2.0)
    check(w2, e, torch, dt, 4)
    expect_status("EmbeddingRenorm", [T((10, 6), dt), T((3,), "f32"), 1.0, 2.0], 161002, "indices")
    expect_status("EmbeddingRenorm", [T((10, 6, 1), dt), T((3,), "i32"), 1.0, 2.0], 161002, "selfRef")
    expect_status("EmbeddingRenorm", [None, T((3,), "i32"), 1.0, 2.0], 161001, "selfRef")
    # index values are not validated (as upstream): one out of range is skipped, nothing else changes
    w3 = w.copy()
    pyaclnn.call("EmbeddingRenorm", w3, np.array([10, -1], NP[idt]), 1.0, 2.0)
    assert w3.tobytes() == w.tobytes()


# ------------------------------------------------------------------ AdaLayerNorm / V2


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("ss", ["keep", "flat"])
@pytest.mark.parametrize("wdt", [None, "same", "f32"])
def test_ada_layer_norm(torch, dt, ss, wdt):
    rng = np.random.default_rng(101)
    B, S, H = 2, 3, 16
    x = rnd(rng, (B, S, H), dt)
    ssh = (B, 1, H) if ss == "keep" else (B, H)
    sc, sh = rnd(rng, ssh, dt, -0.5, 0.5), rnd(rng, ssh, dt)
    wd = dt if wdt in (None, "same") else "f32"
    w, b = (rnd(rng, (H,), wd, 0.5, 1.5), rnd(rng, (H,), wd)) if wdt else (None, None)
    xt = f64(torch, x)
    z = torch.nn.functional.layer_norm(xt, [H], None if w is None else f64(torch, w),
                                       None if b is None else f64(torch, b), 1e-5)
    e = z * (1 + f64(torch, sc).reshape(B, 1, H)) + f64(torch, sh).reshape(B, 1, H)
    if wdt != "f32":
        out = strided(zeros((B, S, H), dt))
        pyaclnn.call("AdaLayerNorm", strided(x), sc, sh, w, b, 1e-5, out)
        check(out, e, torch, dt, 4)
    out, m, r = zeros((B, S, H), dt), zeros((B, S, 1), dt), zeros((B, S, 1), dt)
    pyaclnn.call("AdaLayerNormV2", x, sc, strided(sh), w, b, 1e-5, out, m, r)
    check(out, e, torch, dt, 4)
    check(m, xt.mean(-1, keepdim=True), torch, dt)
    check(r, 1 / torch.sqrt(xt.var(-1, unbiased=False, keepdim=True) + 1e-5), torch, dt)


def test_ada_layer_norm_invalid():
    x, s = T((2, 3, 8), "f16"), T((2, 1, 8), "f16")
    expect_status("AdaLayerNorm", [x, None, s, None, None, 1e-5, x], 161001, "scale")
    expect_status("AdaLayerNorm", [x, T((2, 1, 8), "f32"), s, None, None, 1e-5, x], 161002, "scale")
    expect_status("AdaLayerNorm", [x, s, s, T((8,), "f32"), None, 1e-5, x], 161002, "weightOptional")
    expect_status("AdaLayerNormV2", [x, s, s, T((8,), "f32"), None, 1e-5, x, None, None], 0)
    expect_status("AdaLayerNorm", [x, T((2, 2, 8), "f16"), s, None, None, 1e-5, x], 161002, "scale")
    expect_status("AdaLayerNorm", [T((8,), "f16"), s, s, None, None, 1e-5, T((8,), "f16")], 161002, "x")
    expect_status("AdaLayerNormV2", [x, s, s, None, None, 1e-5, x, T((2, 3, 8), "f16"), None], 161002,
                  "meanOutOptional")


# ------------------------------------------------------------------ InplaceAddRmsNorm / AddRmsNormCast / AddLayerNormGrad


@pytest.mark.parametrize("dt", FLT)
def test_inplace_add_rms_norm(torch, dt):
    rng = np.random.default_rng(111)
    x1, x2, g = rnd(rng, (2, 3, 16), dt), rnd(rng, (2, 3, 16), dt), rnd(rng, (16,), dt, 0.5, 1.5)
    xs = f64(torch, x1) + f64(torch, x2)
    er = 1 / torch.sqrt((xs * xs).mean(-1, keepdim=True) + 1e-6)
    r = zeros((2, 3, 1), "f32")
    a1, a2 = strided(x1), x2.copy()
    pyaclnn.call("InplaceAddRmsNorm", a1, a2, g, 1e-6, r)
    check(a1, xs * er * f64(torch, g), torch, dt, 4)
    check(a2, xs, torch, dt)
    check(r, er, torch, "f32")
    expect_status("InplaceAddRmsNorm", [T((2, 8), dt), T((2, 8), dt), T((8,), dt), 1e-6, T((2, 1), "f16")], 161002,
                  "rstdOut")
    expect_status("InplaceAddRmsNorm", [T((2, 8), dt), T((2, 8), dt), T((4,), dt), 1e-6, T((2, 1), "f32")], 561002,
                  "gamma")


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_add_rms_norm_cast(torch, dt):
    rng = np.random.default_rng(112)
    x1, x2, g = rnd(rng, (3, 32), dt), rnd(rng, (3, 32), dt), rnd(rng, (32,), dt, 0.5, 1.5)
    y1, y2, r, xo = zeros((3, 32), "f32"), zeros((3, 32), dt), zeros((3, 1), "f32"), zeros((3, 32), dt)
    pyaclnn.call("AddRmsNormCast", x1, strided(x2), g, 1e-6, y1, y2, r, xo)
    xs = f64(torch, x1) + f64(torch, x2)
    er = 1 / torch.sqrt((xs * xs).mean(-1, keepdim=True) + 1e-6)
    ey = xs * er * f64(torch, g)
    check(y1, ey, torch, "f32", 4)
    check(y2, ey, torch, dt, 4)
    check(r, er, torch, "f32")
    check(xo, xs, torch, dt)
    expect_status("AddRmsNormCast", [T((3, 8), "f32"), T((3, 8), "f32"), T((8,), "f32"), 1e-6, T((3, 8), "f32"),
                                     T((3, 8), "f32"), T((3, 1), "f32"), T((3, 8), "f32")], 161002, "x1")
    expect_status("AddRmsNormCast", [T((3, 8), dt), T((3, 8), dt), T((8,), dt), 1e-6, T((3, 8), dt),
                                     T((3, 8), dt), T((3, 1), "f32"), T((3, 8), dt)], 161002, "y1Out")


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("dsum", [False, True])
def test_add_layer_norm_grad(torch, dt, dsum):
    rng = np.random.default_rng(113)
    shape = (2, 3, 20)
    x1, x2, dy = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, shape, dt)
    g = rnd(rng, (20,), dt, 0.5, 1.5)
    ds = rnd(rng, shape, dt) if dsum else None
    xs = (f64(torch, x1) + f64(torch, x2)).requires_grad_()
    em = xs.mean(-1, keepdim=True)
    er = 1 / torch.sqrt(((xs - em) ** 2).mean(-1, keepdim=True) + 1e-5)
    m, r = rounded(torch, em, "f32"), rounded(torch, er, "f32")
    gt = f64(torch, g).requires_grad_()
    bt = torch.zeros(20, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.layer_norm(xs, [20], gt, bt, 1e-5).backward(f64(torch, dy))
    dx, dg, db = zeros(shape, dt), zeros((20,), "f32"), zeros((20,), "f32")
    pyaclnn.call("AddLayerNormGrad", strided(dy), x1, x2, r, m, g, ds, dx, dg, db)
    edx = xs.grad + (0 if ds is None else f64(torch, ds))
    check(dx, edx, torch, dt, 8)
    xh = (f64(torch, x1) + f64(torch, x2) - f64(torch, m)) * f64(torch, r)
    check(dg, (f64(torch, dy) * xh).sum((0, 1)), torch, "f32", 8)
    check(db, bt.grad, torch, "f32", 8)
    expect_status("AddLayerNormGrad", [T(shape, dt), T(shape, dt), T(shape, dt), T((2, 3, 1), "f16"),
                                       T((2, 3, 1), "f32"), T((20,), dt), None, T(shape, dt), T((20,), "f32"),
                                       T((20,), "f32")], 161002, "rstd")
    expect_status("AddLayerNormGrad", [T(shape, dt), T(shape, dt), T(shape, dt), T((2, 3, 1), "f32"),
                                       T((2, 4, 1), "f32"), T((20,), dt), None, T(shape, dt), T((20,), "f32"),
                                       T((20,), "f32")], 561002, "mean")


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("ss", ["keep", "flat"])
@pytest.mark.parametrize("affine", [True, False])
def test_ada_layer_norm_backward(torch, dt, ss, affine):
    rng = np.random.default_rng(121)
    B, S, H = 2, 3, 16
    x, dy = rnd(rng, (B, S, H), dt), rnd(rng, (B, S, H), dt)
    ssh = (B, 1, H) if ss == "keep" else (B, H)
    sc, sh = rnd(rng, ssh, dt, -0.5, 0.5), rnd(rng, ssh, dt)
    w, b = (rnd(rng, (H,), dt, 0.5, 1.5), rnd(rng, (H,), dt)) if affine else (None, None)
    xt = f64(torch, x).requires_grad_()
    em = xt.mean(-1, keepdim=True)
    er = 1 / torch.sqrt(((xt - em) ** 2).mean(-1, keepdim=True) + 1e-5)
    m, r = rounded(torch, em, dt), rounded(torch, er, dt)
    wt = (f64(torch, w) if affine else torch.ones(H, dtype=torch.float64)).requires_grad_()
    bt = (f64(torch, b) if affine else torch.zeros(H, dtype=torch.float64)).requires_grad_()
    sct, sht = f64(torch, sc).requires_grad_(), f64(torch, sh).requires_grad_()
    z = torch.nn.functional.layer_norm(xt, [H], wt, bt, 1e-5)
    out = z * (1 + sct.reshape(B, 1, H)) + sht.reshape(B, 1, H)
    out.backward(f64(torch, dy))
    gi, gs, gh = zeros((B, S, H), dt), zeros(ssh, dt), zeros(ssh, dt)
    gw, gb = zeros((H,), dt), zeros((H,), dt)
    pyaclnn.call("AdaLayerNormBackward", strided(dy), x, [H], r, m, sc, sh, w, b, gi, gs, gh, gw, gb)
    check(gi, xt.grad, torch, dt, 16)
    check(gs, sct.grad, torch, dt, 8)
    check(gh, sht.grad, torch, dt, 8)
    check(gw, wt.grad, torch, dt, 8)
    check(gb, bt.grad, torch, dt, 8)
    a = [T((B, S, H), dt), T((B, S, H), dt), int_array([H]), T((B, S, 1), dt), T((B, S, 1), dt), T(ssh, dt),
         T(ssh, dt), None, None, T((B, S, H), dt), None, None, None, None]
    expect_status("AdaLayerNormBackward", a, 0)
    c = list(a)
    c[3] = T((B, S, 1), "f32" if dt != "f32" else "f16")
    expect_status("AdaLayerNormBackward", c, 161002, "rstd")
    c = list(a)
    c[2] = int_array([H, 1])
    expect_status("AdaLayerNormBackward", c, 161002, "normalizedShape")
    c = list(a)
    c[4] = T((B, S, 2), dt)
    expect_status("AdaLayerNormBackward", c, 161002, "mean")
    c = list(a)
    c[5] = None
    expect_status("AdaLayerNormBackward", c, 161001, "scale")


# ------------------------------------------------------------------ MaskedSoftmaxWithRelPosBias


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("rank,mask_rank", [(4, 3), (4, 4), (5, 5), (5, None), (4, None)])
def test_masked_softmax_with_rel_pos_bias(torch, dt, rank, mask_rank):
    rng = np.random.default_rng(131)
    B, W, N, S1, S2 = 2, 3, 2, 4, 6
    xs = (B * W, N, S1, S2) if rank == 4 else (B, W, N, S1, S2)
    x = rnd(rng, xs, dt)
    mshape = {3: (W, S1, S2), 4: (W, 1, S1, S2), 5: (1, W, 1, S1, S2), None: None}[mask_rank]
    m = rnd(rng, mshape, dt) if mshape else None
    bias = rnd(rng, (1, N, S1, S2), dt)
    out = strided(zeros(xs, dt))
    pyaclnn.call("MaskedSoftmaxWithRelPosBias", strided(x), m, bias, 0.7, 0, out)
    t = 0.7 * f64(torch, x).reshape(B, W, N, S1, S2) + f64(torch, bias).reshape(1, 1, N, S1, S2)
    if m is not None:
        t = t + f64(torch, m).reshape(1, W, 1, S1, S2)
    e = torch.softmax(t, -1).reshape(xs)
    check(out, e, torch, dt, 2)
    expect_status("MaskedSoftmaxWithRelPosBias", [T(xs, dt), None, T((N, S1, S2), "f64"), 1.0, 0, T(xs, dt)], 161002,
                  "relativePosBias")
    expect_status("MaskedSoftmaxWithRelPosBias", [T(xs, dt), None, T((N + 1, S1, S2), dt), 1.0, 0, T(xs, dt)], 561002,
                  "relativePosBias")
    expect_status("MaskedSoftmaxWithRelPosBias", [None, None, T((N, S1, S2), dt), 1.0, 0, T(xs, dt)], 161001, "x")
