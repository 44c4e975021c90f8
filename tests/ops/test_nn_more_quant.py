"""Issue 12's remaining ops-nn quantised norms / activations / losses (tools/optable/nn_more_quant.py): values against
a float64 reference written out literally (the norm by torch in float64, the documented quantisation by numpy) or
PyTorch autograd; invalid-input rows with the exact status and the argument named; the A2 refusals."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads
from table_harness import NP, expect_status, make_scalar

HALF = ["f16", "bf16"]


def T(shape, dt):
    return AclTensor.empty(shape, NP[dt] if isinstance(dt, str) else dt)


def rnd(rng, shape, dt, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(NP[dt])


def strided(a):
    """the same values as a non-contiguous view (every other element of the last dim, leading offset)"""
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def f64(a):
    return np.asarray(a).astype(np.float64)


def assert_quant(actual, v, lo=-128, hi=127, half_even=True):
    """actual integers vs the documented rounding of float64 values v (saturated, NaN -> 0); a value within 1e-6 of
    a .5 boundary may round either way"""
    v = np.asarray(v, np.float64)
    vv = np.nan_to_num(v, nan=0.0)
    e = np.rint(vv) if half_even else np.sign(vv) * np.floor(np.abs(vv) + 0.5)
    e = np.clip(e, lo, hi)
    a = np.asarray(actual).astype(np.float64)
    frac = np.abs(np.abs(vv - np.floor(vv)) - 0.5)
    slack = np.where(frac < 1e-6, 1.0, 0.0)
    assert np.all(np.abs(a - e) <= slack), (a, e)


def add_rms(torch, x1, x2, g, eps=1e-6):
    """x = x1 + x2 and x * rstd * g in float64 (torch)"""
    xs = torch.from_numpy(f64(x1)) + torch.from_numpy(f64(x2))
    r = 1 / torch.sqrt((xs * xs).mean(-1, keepdim=True) + eps)
    return xs.numpy(), (xs * r * torch.from_numpy(f64(g).reshape(-1))).numpy()


# ------------------------------------------------------------------ AddRmsNormQuantV2

# the A2 dtype rows of the doc: (x/gamma/beta, scales, zero points)
V2_DT = [("f16", "f32", "i32"), ("bf16", "bf16", "bf16")]


@pytest.mark.parametrize("dt,sdt,zdt", V2_DT)
@pytest.mark.parametrize("div", [True, False])
@pytest.mark.parametrize("dual", [True, False])
@pytest.mark.parametrize("beta", [True, False])
def test_add_rms_norm_quant_v2_v1_path(torch, dt, sdt, zdt, div, dual, beta):
    """scales of gamma's shape: the AddRmsNormQuant kernel's path (beta added before the quantisation)"""
    rng = np.random.default_rng(11)
    shape = (2, 3, 16)
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (16,), dt, 0.5, 1.5)
    b = rnd(rng, (16,), dt, -0.5, 0.5) if beta else None
    s1, s2 = rnd(rng, (16,), sdt, 0.01, 0.03), rnd(rng, (16,), sdt, 0.02, 0.05)
    if not div:
        s1, s2 = (1 / f64(s1)).astype(NP[sdt]), (1 / f64(s2)).astype(NP[sdt])
    z1, z2 = rng.integers(-5, 5, 16).astype(NP[zdt]), rng.integers(-5, 5, 16).astype(NP[zdt])
    y1, y2 = np.zeros(shape, np.int8), np.full(shape, 7, np.int8)
    xo = strided(np.zeros(shape, NP[dt]))
    pyaclnn.call("AddRmsNormQuantV2", strided(x1), x2, g, s1, s2 if dual else None, z1, z2 if dual else None, b, -1,
                 1e-6, div, y1, y2, xo, None)
    xs, y = add_rms(torch, x1, x2, g)
    if beta:
        y = y + f64(b)
    q = (lambda s, z: (y / f64(s) if div else y * f64(s)) + f64(z))
    assert_quant(y1, q(s1, z1))
    if dual:
        assert_quant(y2, q(s2, z2))
    else:
        assert np.all(y2 == 7)  # y2Out is written only with scales2Optional
    np.testing.assert_array_equal(xo, xs.astype(NP[dt]))


@pytest.mark.parametrize("dt,sdt,zdt", V2_DT + [("f16", "f16", "i8")])
@pytest.mark.parametrize("gshape", ["1d", "2d"])
def test_add_rms_norm_quant_v2_kernel_post(torch, dt, sdt, zdt, gshape):
    """scales1/zeroPoints1 of shape [1], rmsNormOut without beta and xOut: the V2 kernel (a FLOAT16 scales1 is cast
    to FLOAT, an INT8 zeroPoints1 to INT32 first)"""
    rng = np.random.default_rng(12)
    shape = (5, 32)
    x1, x2 = rnd(rng, shape, dt), rnd(rng, shape, dt)
    g = rnd(rng, (32,), dt, 0.5, 1.5)
    s1, z1 = np.array([0.015], NP[sdt]), np.array([-3], NP[zdt])
    y1, y2 = np.zeros(shape, np.int8), np.full(shape, 9, np.int8)
    res = strided(np.zeros(shape, NP[dt]))
    pyaclnn.call("AddRmsNormQuantV2", x1, strided(x2), g if gshape == "1d" else g.reshape(1, 32), s1, None, z1, None,
                 None, -1, 1e-6, True, y1, y2, None, res)
    _, y = add_rms(torch, x1, x2, g)
    assert_quant(y1, y / f64(s1)[0] + f64(z1)[0])
    assert np.all(y2 == 9)
    tol = 1e-2 if dt == "bf16" else 2e-3
    np.testing.assert_allclose(f64(res), y, rtol=tol, atol=tol)
    np.testing.assert_array_equal(res, y.astype(NP[dt]))  # rounded once from float64


@pytest.mark.parametrize("dt,sdt,zdt", V2_DT)
def test_add_rms_norm_quant_v2_kernel_pre(torch, dt, sdt, zdt):
    """scales1/zeroPoints1 of shape [1], beta and xOut without rmsNormOut: the V2 kernel with the bias"""
    rng = np.random.default_rng(13)
    shape = (3, 4, 24)
    x1, x2, g, b = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (24,), dt, 0.5, 1.5), rnd(rng, (24,), dt)
    s1, z1 = np.array([0.02], NP[sdt]), np.array([4], NP[zdt])
    y1, y2, xo = np.zeros(shape, np.int8), np.full(shape, 5, np.int8), np.zeros(shape, NP[dt])
    pyaclnn.call("AddRmsNormQuantV2", x1, x2, g, s1, None, z1, None, b, -1, 1e-5, True, y1, y2, xo, None)
    xs, y = add_rms(torch, x1, x2, g, eps=1e-5)
    assert_quant(y1, (y + f64(b)) / f64(s1)[0] + f64(z1)[0])
    np.testing.assert_array_equal(xo, xs.astype(NP[dt]))
    assert np.all(y2 == 5)


def test_add_rms_norm_quant_v2_saturates_and_example_values(torch):
    """the example's call shape (scales1 of gamma's shape, beta, zero point 100): large values saturate to 127"""
    x1 = np.full((4, 32), 1.0, np.float16)
    g, b = np.full(32, 2.0, np.float16), np.zeros(32, np.float16)
    s, z = np.ones(32, np.float32), np.full(32, 100, np.int32)
    y1, y2, xo = np.zeros((4, 32), np.int8), np.zeros((4, 32), np.int8), np.zeros((4, 32), np.float16)
    pyaclnn.call("AddRmsNormQuantV2", x1, x1, g, s, None, z, None, b, -1, 1e-6, True, y1, y2, xo, None)
    assert np.all(y1 == 102)  # 2 * rstd(2) * 2 = 2 -> 2 + 100
    pyaclnn.call("AddRmsNormQuantV2", x1, x1, g, np.full(32, 0.01, np.float32), None, z, None, b, -1, 1e-6, True, y1,
                 y2, xo, None)
    assert np.all(y1 == 127)
    np.testing.assert_array_equal(xo, np.full((4, 32), 2.0, np.float16))


def test_add_rms_norm_quant_v2_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
x, x2 = rng.uniform(-2, 2, (64, 256)).astype(np.float16), rng.uniform(-2, 2, (64, 256)).astype(np.float16)
g = rng.uniform(0.5, 1.5, 256).astype(np.float16)
y1, y2, xo = np.zeros((64, 256), np.int8), np.zeros((64, 256), np.int8), np.zeros_like(x)
s = np.full(256, 0.03, np.float32)
pyaclnn.call("AddRmsNormQuantV2", x, x2, g, s, s, None, None, g, -1, 1e-6, True, y1, y2, xo, None)
h.update(y1.tobytes() + y2.tobytes() + xo.tobytes())
res = np.zeros_like(x)
pyaclnn.call("AddRmsNormQuantV2", x, x2, g, s[:1], None, np.array([1], np.int32), None, None, -1, 1e-6, True, y1, y2,
             None, res)
h.update(y1.tobytes() + res.tobytes())
x = rng.integers(-128, 128, (2, 8, 4, 4)).astype(np.int8)
m, v = rng.uniform(-1, 1, 8).astype(np.float32), rng.uniform(0.5, 2, 8).astype(np.float32)
o = np.zeros_like(x)
pyaclnn.call("QuantizedBatchNorm", x, m, v, pyaclnn.scalar(0.1, np.float32), pyaclnn.scalar(3, np.int32),
             pyaclnn.scalar(0.05, np.float32), pyaclnn.scalar(-2, np.int32), None, None, 1e-5, o)
h.update(o.tobytes())
xs = rng.uniform(-3, 3, (64, 300)).astype(np.float32)
gt = np.zeros_like(xs)
pyaclnn.call("BinaryCrossEntropyWithLogitsTargetBackward", xs, xs, xs, None, xs[0], 0, gt)
h.update(gt.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code, threads=(1, 2, 7))


def test_add_rms_norm_quant_v2_invalid():
    x, g, s, z, y = T((2, 8), "f16"), T((8,), "f16"), T((8,), "f32"), T((8,), "i32"), T((2, 8), "i8")
    ok = [x, x, g, s, None, z, None, g, -1, 1e-6, True, y, y, x, None]
    expect_status("AddRmsNormQuantV2", ok, 0)

    def row(i, v, code, word, base=ok):
        a = list(base)
        a[i] = v
        expect_status("AddRmsNormQuantV2", a, code, word)

    for i, name in [(0, "x1"), (1, "x2"), (2, "gamma"), (3, "scales1"), (11, "y1Out"), (12, "y2Out")]:
        row(i, None, 161001, name)
    row(13, None, 161001, "xOut")  # not the V2 kernel's call shape: xOut is required
    row(14, T((2, 8), "f16"), 161001, "rmsNormOut")  # AddRmsNormQuant's path takes no rmsNormOut
    row(0, T((1,) * 9, "f16"), 161002, "x1")
    row(5, T((1,) * 9, "i32"), 161002, "zeroPoints1Optional")
    row(12, T((1,) * 9, "i8"), 161002, "y2Out")
    row(3, T((8,), "f64"), 161002, "scales1")
    row(4, T((8,), "f16"), 161002, "scales2Optional")  # only scales1 gets the FLOAT16 -> FLOAT cast
    row(5, T((8,), "f32"), 161002, "zeroPoints1Optional")
    row(2, T((8,), "f32"), 161002, "gamma")
    row(0, T((2, 8), "f32"), 161002, "x1")
    row(7, T((8,), "f32"), 161002, "betaOptional")
    row(13, T((2, 8), "f32"), 161002, "xOut")
    row(12, T((2, 8), "i32"), 161002, "y2Out")
    row(11, T((2, 8), "f16"), 161002, "y1Out")
    row(1, T((2, 4), "f16"), 161002, "x2")
    row(12, T((2, 4), "i8"), 161002, "y2Out")
    row(3, T((4,), "f32"), 161002, "scales1")
    row(7, T((4,), "f16"), 161002, "betaOptional")
    row(2, T((4,), "f16"), 161002, "gamma")  # gamma (and scales of its shape) not x1's trailing dims
    # the V2 kernel's path: its checks
    post = [x, x, g, T((1,), "f32"), None, T((1,), "i32"), None, None, -1, 1e-6, True, y, y, None, x]
    expect_status("AddRmsNormQuantV2", post, 0)
    row(3, T((1,), "f64"), 161002, "scales1", post)
    row(5, T((1,), "f32"), 161002, "zeroPoints1Optional", post)
    row(1, T((2, 8), "bf16"), 161002, "x2", post)
    row(14, T((2, 8), "f32"), 161002, "rmsNormOut", post)
    row(14, T((2, 4), "f16"), 161002, "rmsNormOut", post)
    row(12, T((3, 8), "i8"), 161002, "y2Out", post)
    row(1, T((1, 16), "f16"), 561002, "x2", post)
    row(10, False, 161001, "xOut", post)  # divMode false: not the V2 kernel, and xOut is NULL
    row(5, None, 161001, "xOut", post)  # no zeroPoints1: not the V2 kernel either
    # empty tensors: nothing to do (before the dtype checks)
    expect_status("AddRmsNormQuantV2", [T((0, 8), "f16"), T((0, 8), "f16"), g, T((8,), "f64"), None, None, None,
                                        None, -1, 1e-6, True, T((0, 8), "i8"), T((0, 8), "i8"), None, None], 0)


# ------------------------------------------------------------------ QuantizedBatchNorm

QBN_RANGE = {"i8": (-128, 127), "u8": (0, 255), "i32": (-2 ** 31, 2 ** 31 - 1)}


@pytest.mark.parametrize("dt", ["i8", "u8", "i32"])
@pytest.mark.parametrize("affine", [True, False])
def test_quantized_batch_norm(dt, affine):
    rng = np.random.default_rng(21)
    lo, hi = QBN_RANGE[dt]
    shape = (2, 3, 4, 5)
    x = rng.integers(max(lo, -100), min(hi, 200), shape).astype(NP[dt])
    m, v = rng.uniform(-1, 1, 3).astype(np.float32), rng.uniform(0.2, 3, 3).astype(np.float32)
    w, b = (rng.uniform(0.5, 2, 3).astype(np.float32), rng.uniform(-1, 1, 3).astype(np.float32)) if affine else \
        (None, None)
    isc, izp, osc, ozp = 0.02, 5 if dt != "u8" else 100, 0.01, -7 if dt != "u8" else 120
    out = strided(np.zeros(shape, NP[dt]))
    pyaclnn.call("QuantizedBatchNorm", strided(x), m, v, pyaclnn.scalar(isc, np.float32),
                 pyaclnn.scalar(izp, np.int32), pyaclnn.scalar(osc, np.float32), pyaclnn.scalar(ozp, np.int32),
                 w, b, 1e-5, out)
    xd = (f64(x) - izp) * f64(np.float32(isc))
    y = (xd - f64(m)[:, None, None]) / np.sqrt(f64(v)[:, None, None] + f64(np.float32(1e-5)))
    if affine:
        y = y * f64(w)[:, None, None] + f64(b)[:, None, None]
    assert_quant(out, y / f64(np.float32(osc)) + ozp, lo, hi, half_even=False)


def test_quantized_batch_norm_example():
    """the example of norm/quantized_batch_norm: INT32 0..7, mean 0, var 1, scales 1 / zero points 0 -> x"""
    x = np.arange(8, dtype=np.int32).reshape(1, 2, 1, 4)
    out = np.zeros_like(x)
    pyaclnn.call("QuantizedBatchNorm", x, np.zeros(2, np.float32), np.ones(2, np.float32),
                 pyaclnn.scalar(1.0, np.float32), pyaclnn.scalar(0, np.int32), pyaclnn.scalar(1.0, np.float32),
                 pyaclnn.scalar(0, np.int32), np.ones(2, np.float32), np.zeros(2, np.float32), 1e-5, out)
    np.testing.assert_array_equal(out, x)  # x / sqrt(1 + 1e-5) rounds back to x


def test_quantized_batch_norm_rounding_and_saturation():
    x = np.array([0, 1, 2, 3, 100, -100], np.int8).reshape(1, 1, 1, 6)
    out = np.zeros_like(x)
    # y = x * 0.5 exactly (var + eps = 1 with eps 0): halves round away from zero, large values saturate
    pyaclnn.call("QuantizedBatchNorm", x, np.zeros(1, np.float32), np.ones(1, np.float32),
                 pyaclnn.scalar(0.5, np.float32), pyaclnn.scalar(0, np.int32), pyaclnn.scalar(1.0, np.float32),
                 pyaclnn.scalar(0, np.int32), None, None, 0.0, out)
    np.testing.assert_array_equal(out.ravel(), [0, 1, 1, 2, 50, -50])
    pyaclnn.call("QuantizedBatchNorm", x, np.zeros(1, np.float32), np.ones(1, np.float32),
                 pyaclnn.scalar(4.0, np.float32), pyaclnn.scalar(0, np.int32), pyaclnn.scalar(1.0, np.float32),
                 pyaclnn.scalar(-3, np.int32), None, None, 0.0, out)
    np.testing.assert_array_equal(out.ravel(), [-3, 1, 5, 9, 127, -128])


def test_quantized_batch_norm_invalid():
    x, c = T((2, 3, 4, 4), "i8"), T((3,), "f32")
    fs, iz = make_scalar(pyaclnn.scalar(0.1, np.float32)), make_scalar(pyaclnn.scalar(1, np.int32))
    ok = [x, c, c, fs, iz, fs, iz, c, c, 1e-5, x]
    expect_status("QuantizedBatchNorm", ok, 0)
    expect_status("QuantizedBatchNorm", ok[:7] + [None, None] + ok[9:], 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("QuantizedBatchNorm", a, code, word)

    for i, name in [(0, "input"), (10, "output"), (1, "mean"), (2, "var"), (3, "inputScale"),
                    (4, "inputZeroPoint"), (5, "outputScale"), (6, "outputZeroPoint")]:
        row(i, None, 161001, name)
    row(0, T((0, 3, 4, 4), "i8"), 161002, "input")  # empty tensors are refused
    row(2, T((0,), "f32"), 161002, "var")
    row(7, T((0,), "f32"), 161002, "weight")
    row(0, T((2, 3, 4, 4), "f16"), 161002, "input")
    row(10, T((2, 3, 4, 4), "i16"), 161002, "output")
    row(10, T((2, 3, 4, 5), "i8"), 161002, "output")
    row(7, T((3,), "f16"), 161002, "weight")
    row(1, T((3,), "f64"), 161002, "mean")
    row(8, T((4,), "f32"), 161002, "bias")
    row(2, T((1, 3), "f32"), 161002, "var")
    row(3, iz, 161002, "inputScale")
    row(6, fs, 161002, "outputZeroPoint")
    a = list(ok)
    a[0], a[10] = T((2, 3, 4), "i8"), T((2, 3, 4), "i8")
    expect_status("QuantizedBatchNorm", a, 161002, "input")


# ------------------------------------------------------------------ BinaryCrossEntropyWithLogitsTargetBackward

BCE_DT = ["f32", "f16", "bf16"]


@pytest.mark.parametrize("dt", BCE_DT)
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("weights", ["none", "w", "pw", "both"])
def test_bce_with_logits_target_backward(torch, dt, reduction, weights):
    rng = np.random.default_rng(31)
    shape = (3, 5, 7)
    x, t = rnd(rng, shape, dt, -4, 4), rnd(rng, shape, dt, 0, 1)
    w = rnd(rng, (5, 1), dt, 0.5, 2) if weights in ("w", "both") else None
    pw = rnd(rng, (7,), dt, 0.5, 3) if weights in ("pw", "both") else None
    go = rnd(rng, shape if reduction == 0 else (), dt, 0.5, 1.5)
    gt = strided(np.zeros(shape, NP[dt]))
    pyaclnn.call("BinaryCrossEntropyWithLogitsTargetBackward", go, strided(x), t, w, pw, reduction, gt)
    tt = lambda a: None if a is None else torch.from_numpy(f64(a))  # noqa: E731
    tx, tgt = tt(x), tt(t).requires_grad_(True)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(tx, tgt, weight=tt(w), pos_weight=tt(pw),
                                                                reduction=["none", "mean", "sum"][reduction])
    loss.backward(tt(go))
    e = tgt.grad.numpy()
    tol = {"f32": (1e-6, 1e-6), "f16": (1e-3, 1e-4), "bf16": (8e-3, 1e-3)}[dt]
    np.testing.assert_allclose(f64(gt), e, rtol=tol[0], atol=tol[1])
    np.testing.assert_array_equal(gt, e.astype(NP[dt]) if dt == "f32" else gt)


def test_bce_with_logits_target_backward_mixed_and_empty(torch):
    rng = np.random.default_rng(32)
    x, t = rnd(rng, (4, 6), "f16", -3, 3), rnd(rng, (4, 6), "f32", 0, 1)
    go = np.array(0.7, np.float32)
    gt = np.zeros((4, 6), np.float32)
    pyaclnn.call("BinaryCrossEntropyWithLogitsTargetBackward", go, x, t, None, None, 1, gt)
    xs = torch.from_numpy(f64(x))
    e = 0.7 * (torch.nn.functional.logsigmoid(-xs) - torch.nn.functional.logsigmoid(xs)) / 24
    np.testing.assert_allclose(gt, e.numpy(), rtol=1e-6, atol=1e-7)
    e0 = T((0, 6), "f32")
    expect_status("BinaryCrossEntropyWithLogitsTargetBackward", [T((), "f32"), e0, e0, None, None, 1, e0], 0)


def test_bce_with_logits_target_backward_invalid():
    x = T((4, 6), "f32")
    ok = [x, x, x, T((6,), "f32"), T((1, 6), "f32"), 0, x]
    expect_status("BinaryCrossEntropyWithLogitsTargetBackward", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("BinaryCrossEntropyWithLogitsTargetBackward", a, code, word)

    for i, name in [(0, "gradOutput"), (1, "self"), (2, "target"), (6, "gradTarget")]:
        row(i, None, 161001, name)
    row(6, T((1,) * 9, "f32"), 161002, "gradTarget")
    row(0, T((4, 6), "f64"), 161002, "gradOutput")
    row(1, T((4, 6), "i32"), 161002, "self")
    row(3, T((6,), "f64"), 161002, "weightOptional")
    row(4, T((6,), "i8"), 161002, "posWeightOptional")
    row(6, T((4, 6), "f16"), 161002, "gradTarget")  # must be target's dtype
    row(2, T((4, 5), "f32"), 161002, "target")
    row(6, T((6, 4), "f32"), 161002, "gradTarget")
    row(0, T((2, 4, 6), "f32"), 161002, "gradOutput")
    row(3, T((4,), "f32"), 161002, "weightOptional")
    row(4, T((3, 6), "f32"), 161002, "posWeightOptional")
    row(5, 3, 161002, "reduction")
    row(5, -1, 161002, "reduction")


# ------------------------------------------------------------------ the ops without an A2 path


def test_gelu_quant_not_on_a2():
    x, s, y = T((4, 8), "f16"), T((8,), "f16"), T((4, 8), "i8")
    expect_status("GeluQuant", [x, s, None, b"none", b"static", b"rint", 2, y, None], 361001, "regbase")
    expect_status("GeluQuant", [None, None, None, None, None, None, 2, None, None], 361001, "ascend950")


def test_rms_norm_quant_v3_not_on_a2():
    x, g, s, y, r = T((2, 16), "f16"), T((16,), "f16"), T((1,), "f32"), T((2, 16), "i8"), T((2, 1), "f32")
    ok = [x, g, s, None, None, 1e-6, True, False, y, None]
    expect_status("RmsNormQuantV3", ok, 561103, "ascend950")
    expect_status("RmsNormQuantV3", [x, g, s, None, g, 1e-6, True, True, y, r], 561103, "ascend950")

    def row(i, v, code, word, base=ok):
        a = list(base)
        a[i] = v
        expect_status("RmsNormQuantV3", a, code, word)

    for i, name in [(0, "x"), (1, "gamma"), (2, "scale"), (8, "y")]:
        row(i, None, 161001, name)
    a = list(ok)
    a[7] = True
    expect_status("RmsNormQuantV3", a, 161001, "rstd")
    row(1, T((1, 1, 16), "f16"), 161002, "gamma")
    row(2, T((1, 1), "f32"), 161002, "scale")
    row(0, T((2, 12), "f16"), 161002, "multiple of 8", [x, g, s, None, None, 1e-6, True, False, T((2, 2), "i32"),
                                                        None])
    row(8, T((2, 4), "i32"), 161002, "1/8")
    row(8, T((2, 2), "i32"), 561103, "ascend950")


@pytest.mark.parametrize("op,args", [
    ("SwigluGroup", lambda: [T((4, 16), "f16"), None, None, 7.0, T((4, 8), "f16")]),
    ("SwigluGroupQuant", lambda: [T((4, 16), "f16"), None, None, None, 2, 0, 0, False, 7.0, 127.0, False,
                                  T((4, 8), "i8"), T((4,), "f32"), None]),
    ("SwigluGroupQuantGrad", lambda: [T((4, 8), "f16"), T((4, 16), "f16"), None, None, None, 7.0,
                                      T((4, 16), "f16"), None]),
    ("CrossEntropySumExpAndIndexLogit", lambda: [T((4, 32), "f32"), T((4,), "i32"), T((4,), "f32"), 0, 32,
                                                 T((4,), "f32"), T((4,), "f32"), T((4, 32), "f32"), T((4,), "i32"),
                                                 T((4,), "bool")]),
])
def test_ascend950_only_generated_ops_not_on_a2(op, args):
    expect_status(op, args(), 161002, "ascend950")
