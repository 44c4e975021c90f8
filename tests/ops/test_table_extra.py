"""The short-formula ops of tools/optable/math_extra.py against PyTorch CPU (or their documented formula)."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from table_harness import expect_status


@pytest.mark.parametrize("dt,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_values(torch, dt, tol):
    rng = np.random.default_rng(8)
    T = torch.from_numpy
    x1, x2 = rng.standard_normal((2, 4, 3)).astype(dt), rng.standard_normal((2, 5, 3)).astype(dt)
    for p in (2.0, 1.0, 0.0, float("inf"), 3.0):
        o = np.zeros((2, 4, 5), dt)
        pyaclnn.call("Cdist", x1, x2, p, 0, o)
        np.testing.assert_allclose(o, torch.cdist(T(x1), T(x2), p=p).numpy(), rtol=tol * 10, atol=tol * 10)
    inp = np.log(rng.uniform(0.1, 1, (4, 3))).astype(dt)
    tgt = rng.uniform(0.1, 1, (4, 3)).astype(dt)
    for red, name in ((0, "none"), (1, "mean"), (2, "sum"), (3, "batchmean")):
        o = np.zeros((4, 3) if red == 0 else (), dt)
        pyaclnn.call("KlDiv", inp, tgt, red, False, o)
        np.testing.assert_allclose(o, torch.nn.functional.kl_div(T(inp), T(tgt), reduction=name).numpy(),
                                   rtol=tol * 10, atol=tol * 10)
    a = rng.standard_normal((3, 4, 5)).astype(dt)
    m, s = np.zeros(4, dt), np.zeros(4, dt)
    pyaclnn.call("BatchNormStats", a, 1e-5, m, s)
    tm = T(a).double().mean((0, 2))
    ts = 1 / torch.sqrt(T(a).double().var((0, 2), unbiased=False) + 1e-5)  # batch_norm_stats has no CPU kernel
    np.testing.assert_allclose(m, tm.numpy(), rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(s, ts.numpy(), rtol=1e-4, atol=1e-4)
    theta = rng.standard_normal((2, 2, 3)).astype(dt)
    for align in (False, True):
        o = np.zeros((2, 4, 5, 2), dt)
        pyaclnn.call("AffineGrid", theta, [2, 1, 4, 5], align, o)
        np.testing.assert_allclose(o, torch.nn.functional.affine_grid(T(theta), [2, 1, 4, 5], align_corners=align)
                                   .numpy(), rtol=tol * 10, atol=tol * 10)
    img = rng.standard_normal((2, 3, 6, 7)).astype(dt)
    e = torch.nn.functional.unfold(T(img), (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1)).numpy()
    o = np.zeros(e.shape, dt)
    pyaclnn.call("Im2col", img, [2, 3], [1, 2], [1, 0], [2, 1], o)
    np.testing.assert_array_equal(o, e)
    xt = rng.standard_normal((2, 3, 4)).astype(dt)
    for first in (True, False):
        if first:
            e = T(xt).permute(1, 0, 2).reshape(6, 4).numpy()
        else:
            e = T(xt).reshape(4, 6).permute(1, 0).numpy()
        o = np.zeros(e.shape, dt)
        pyaclnn.call("ConfusionTranspose", xt, [1, 0, 2] if first else [1, 0], [6, 4] if first else [4, 6], first, o)
        np.testing.assert_array_equal(o, e)


def test_scale():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    s, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    y = np.zeros_like(x)
    pyaclnn.call("Scale", x, s, b, 1, 2, True, y)
    np.testing.assert_allclose(y, x * s[None, :, :, None] + b[None, :, :, None], rtol=1e-6)
    pyaclnn.call("Scale", x, s, None, -3, -1, False, y)
    np.testing.assert_allclose(y, x * s[None, :, :, None], rtol=1e-6)


def test_sign_bits_and_amp():
    a = np.array([5, 4, 3, 2, 0, -1, -2, 4, 3, 2, 1, 0, -1, -2], np.float32)  # documented example of the packing
    o = np.zeros((2, 1), np.uint8)
    pyaclnn.call("SignBitsPack", a, 2, o)
    np.testing.assert_array_equal(o.ravel(), [159, 15])
    u = np.zeros((1, 16), np.float32)
    pyaclnn.call("SignBitsUnpack", np.array([159, 15], np.uint8), 1, pyaclnn.tensor.acl_dtype(np.float32), u)
    bits = [(v >> i) & 1 for v in (159, 15) for i in range(8)]
    np.testing.assert_array_equal(u.ravel(), np.where(np.array(bits) == 1, 1.0, -1.0))
    for found, tracker, exp in ((1.0, 3, (0.5 * 4.0, 0)), (0.0, 1, (4.0 * 2.0, 0)), (0.0, 0, (4.0, 1))):
        s, g = np.zeros(1, np.float32), np.zeros(1, np.int32)
        pyaclnn.call("AmpUpdateScale", np.array([4.0], np.float32), np.array([tracker], np.int32),
                     np.array([found], np.float32), 2.0, 0.5, 2, s, g)
        assert (s[0], g[0]) == exp


def test_invalid_rows():
    x = AclTensor.from_array(np.zeros((2, 3), np.float32))
    expect_status("Cdist", [None, x, 2.0, 0, x], 161001, "x1")
    expect_status("KlDiv", [x, x, 7, False, x], 161002, "reduction")
    expect_status("SignBitsPack", [x, 1, x], 161002, "out")
