"""The second batch of the ops-nn activation family (tools/optable/nn_activation_more.py,
libsrc/ops/rrelu_with_noise.c) against PyTorch CPU: every dtype of the A2 list, eval mode against
torch.nn.functional.rrelu, training mode against the law (noise 1 where self >= 0, noise in [lower, upper] rounded
to the dtype where self < 0, out = self * noise as torch multiplies it), strided views, empty tensors, the invalid
rows in the order upstream's op_api checks them, and the same bytes for OMP_NUM_THREADS 1/2/7."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads, strided
from table_harness import NP, compare, expect_status, from_torch, make_scalar, to_torch


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


def tens(shape, dt="f32"):
    return pyaclnn.AclTensor.from_array(np.zeros(shape, NP[dt]))


def S(v, dt="f32"):
    return make_scalar(pyaclnn.scalar(v, NP[dt]))


def data(dt, shape=(6, 7), seed=0):
    x = np.random.default_rng(seed).uniform(-3, 3, shape)
    x.flat[::5] = 0.0
    return np.array(x.astype(NP[dt]))


@pytest.mark.parametrize("dt", OPS["RReluWithNoise"]["dtypes"])
def test_rrelu_with_noise_eval(torch, dt):
    x = strided(data(dt))
    noise = np.full((6, 7), 7, NP[dt])
    o = strided(np.zeros((6, 7), NP[dt]))
    pyaclnn.call("RReluWithNoise", x, noise, pyaclnn.scalar(0.1, np.float32), pyaclnn.scalar(0.3, np.float64),
                 False, 1, 2, o)
    e = torch.nn.functional.leaky_relu(T(torch, x).float(), 0.2).to(T(torch, x).dtype)
    compare(o, from_torch(e), dt)
    assert (noise == 7).all()  # eval leaves noise alone


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("dt", OPS["RReluWithNoise"]["dtypes"])
def test_rrelu_with_noise_training(torch, dt, inplace):
    x0 = data(dt, (40, 50), 1)
    x = strided(x0.copy())
    noise = strided(np.zeros((40, 50), NP[dt]))
    lo, hi = 0.125, 0.375
    if inplace:
        pyaclnn.call("InplaceRReluWithNoise", x, noise, pyaclnn.scalar(lo, np.float32),
                     pyaclnn.scalar(hi, np.float32), True, 42, 7)
        o = x
    else:
        o = strided(np.zeros((40, 50), NP[dt]))
        pyaclnn.call("RReluWithNoise", x, noise, pyaclnn.scalar(lo, np.float32), pyaclnn.scalar(hi, np.float32),
                     True, 42, 7, o)
    tx, tn = T(torch, x0), T(torch, noise)
    neg = tx < 0
    assert (tn[~neg] == 1).all()
    assert ((tn[neg] >= lo) & (tn[neg] <= hi)).all()
    assert abs(float(tn[neg].float().mean()) - (lo + hi) / 2) < 0.02
    assert len(np.unique(np.asarray(from_torch(tn[neg].float())))) > 10
    compare(o, from_torch(tx * tn), dt)


def test_rrelu_with_noise_seed_offset_and_larger_noise():
    x = -np.ones((4, 5), np.float32)
    def run(seed, offset, nshape=(4, 5)):
        n = np.full(nshape, 9.0, np.float32)
        o = np.zeros_like(x)
        pyaclnn.call("RReluWithNoise", x, n, pyaclnn.scalar(0.1, np.float32), pyaclnn.scalar(0.9, np.float32),
                     True, seed, offset, o)
        return o, n
    a, _ = run(1, 0)
    b, _ = run(1, 0)
    c, _ = run(2, 0)
    d, _ = run(1, 4)
    assert a.tobytes() == b.tobytes()
    assert not np.array_equal(a, c) and not np.array_equal(a, d)
    o, n = run(1, 0, (30,))  # only the first numel(self) elements of noise are written
    assert (n[20:] == 9.0).all()
    np.testing.assert_array_equal(-n[:20].reshape(4, 5), o)


def test_rrelu_with_noise_empty():
    e = np.zeros((0, 3), np.float32)
    pyaclnn.call("RReluWithNoise", e, np.zeros((5,), np.float32), pyaclnn.scalar(0.1, np.float32),
                 pyaclnn.scalar(0.3, np.float32), True, 0, 0, np.zeros((0, 3), np.float32))


def test_rrelu_with_noise_invalid():
    X, N, L, U = tens((2, 3)), tens((2, 3)), S(0.1), S(0.3)
    op = "RReluWithNoise"
    expect_status(op, [None, N, L, U, True, 0, 0, X], 161001, "self")
    expect_status(op, [X, None, L, U, True, 0, 0, X], 161001, "noise")
    expect_status(op, [X, N, None, U, True, 0, 0, X], 161001, "lower")
    expect_status(op, [X, N, L, None, True, 0, 0, X], 161001, "upper")
    expect_status(op, [X, N, L, U, True, 0, 0, None], 161001, "out")
    expect_status(op, [tens((2, 3), "f64"), N, L, U, True, 0, 0, X], 161002, "self")
    expect_status(op, [X, tens((2, 3), "i32"), L, U, True, 0, 0, X], 161002, "noise")
    expect_status(op, [X, N, S(1, "i32"), U, True, 0, 0, X], 161002, "lower")
    expect_status(op, [X, N, L, S(1, "i64"), True, 0, 0, X], 161002, "upper")
    expect_status(op, [X, N, L, U, True, 0, 0, tens((2, 3), "i8")], 161002, "out")
    expect_status(op, [tens((2, 3), "f16"), N, L, U, True, 0, 0, X], 161002, "self")
    expect_status(op, [X, tens((2, 3), "f16"), L, U, True, 0, 0, X], 161002, "noise")
    expect_status(op, [X, N, L, U, True, 0, 0, tens((3, 2))], 161002, "out")
    expect_status(op, [X, tens((5,)), L, U, True, 0, 0, X], 161002, "noise")
    expect_status(op, [X, tens((5,)), L, U, False, 0, 0, X], 0)
    nchw = lib.ACL_FORMAT_NCHW  # formats: self and noise in out's, checked after the shapes
    expect_status(op, [AclTensor.empty((2, 3), np.float32, fmt=nchw), N, L, U, True, 0, 0, X], 161002, "self")
    expect_status(op, [X, AclTensor.empty((2, 3), np.float32, fmt=nchw), L, U, True, 0, 0, X], 161002, "noise")
    expect_status("InplaceRReluWithNoise", [tens((2, 3), "f64"), N, L, U, True, 0, 0], 161002, "self")
    expect_status("InplaceRReluWithNoise", [X, None, L, U, True, 0, 0], 161001, "noise")


def test_rrelu_with_noise_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
x = np.random.default_rng(0).standard_normal((700, 300)).astype(np.float32)
n = np.zeros_like(x); o = np.zeros_like(x)
pyaclnn.call("RReluWithNoise", x, n, pyaclnn.scalar(0.1, np.float32), pyaclnn.scalar(0.3, np.float32), True, 5, 6, o)
print(hashlib.sha256(o.tobytes() + n.tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)


def clipped_ref(torch, x, dim, alpha, limit, bias, interleaved, rows=None):
    t = T(torch, x).float()
    d = dim % t.dim()
    pre = int(np.prod(t.shape[:d])) if d else 1
    m = t.reshape(pre, -1)
    A, B = (m[:, ::2], m[:, 1::2]) if interleaved else m.chunk(2, dim=1)
    A = A.clamp(max=limit)
    B = B.clamp(min=-limit, max=limit)
    y = A * torch.sigmoid(alpha * A) * (B + bias)
    shape = list(t.shape)
    shape[d] //= 2
    return y, shape


@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize("dt", OPS["ClippedSwiglu"]["dtypes"])
def test_clipped_swiglu(torch, dt, interleaved):
    rng = np.random.default_rng(5)
    x = strided(np.array(rng.uniform(-9, 9, (4, 2, 6)).astype(NP[dt])))
    for dim in (1, -1, 0):
        shape = [4, 2, 6]
        shape[dim] //= 2
        o = strided(np.zeros(shape, NP[dt]))
        pyaclnn.call("ClippedSwiglu", x, None, dim, 1.702, 7.0, 1.0, interleaved, o)
        y, s = clipped_ref(torch, x, dim, 1.702, 7.0, 1.0, interleaved)
        compare(o, from_torch(y.reshape(s).to(T(torch, x).dtype)), dt)


def test_clipped_swiglu_groups(torch):
    rng = np.random.default_rng(6)
    x = rng.uniform(-9, 9, (5, 8)).astype(np.float32)
    for g, rows in (([1, 2], 3), ([4, 9], 5), ([0], 0)):
        o = np.full((5, 4), -123.0, np.float32)
        pyaclnn.call("ClippedSwiglu", x, np.array(g, np.int64), -1, 1.0, 3.0, 0.5, False, o)
        y, _ = clipped_ref(torch, x, -1, 1.0, 3.0, 0.5, False)
        np.testing.assert_allclose(o[:rows], from_torch(y)[:rows], rtol=1e-6, atol=1e-6)
        assert (o[rows:] == -123.0).all()  # rows past the groups are not written
    # 1-d x: one row
    x1 = rng.uniform(-9, 9, (10,)).astype(np.float32)
    o = np.zeros((5,), np.float32)
    pyaclnn.call("ClippedSwiglu", x1, None, 0, 1.702, 7.0, 1.0, True, o)
    y, _ = clipped_ref(torch, x1, 0, 1.702, 7.0, 1.0, True)
    np.testing.assert_allclose(o, from_torch(y).reshape(5), rtol=1e-6, atol=1e-6)


def test_clipped_swiglu_invalid():
    X, O = tens((4, 6)), tens((4, 3))
    op = "ClippedSwiglu"
    expect_status(op, [None, ffi_null(), -1, 1.0, 7.0, 1.0, True, O], 161001, "x")
    expect_status(op, [X, ffi_null(), -1, 1.0, 7.0, 1.0, True, None], 161001, "out")
    expect_status(op, [tens((4, 6), "f64"), ffi_null(), -1, 1.0, 7.0, 1.0, True, O], 161002, "x")
    expect_status(op, [X, tens((2,), "i32"), -1, 1.0, 7.0, 1.0, True, O], 161002, "groupIndexOptional")
    expect_status(op, [X, ffi_null(), -1, 1.0, 7.0, 1.0, True, tens((4, 3), "i8")], 161002, "out")
    expect_status(op, [X, ffi_null(), 2, 1.0, 7.0, 1.0, True, O], 561002, "dim")
    expect_status(op, [tens((4, 5)), ffi_null(), -1, 1.0, 7.0, 1.0, True, O], 561002, "divisible")
    expect_status(op, [X, tens((2, 1), "i64"), -1, 1.0, 7.0, 1.0, True, O], 561002, "groupIndexOptional")
    expect_status(op, [X, ffi_null(), -1, 1.0, 7.0, 1.0, True, tens((12,))], 561002, "rank")
    expect_status(op, [X, ffi_null(), -1, 1.0, 7.0, 1.0, True, tens((4, 6))], 561002, "out[dim]")
    expect_status(op, [X, ffi_null(), -1, 1.0, 7.0, 1.0, True, tens((4, 3), "f16")], 561002, "dtype")
    expect_status(op, [X, ffi_null(), -1, 1.0, 7.0, 1.0, True, tens((5, 3))], 161002, "out")
    expect_status(op, [tens((0, 6)), ffi_null(), -1, 1.0, 7.0, 1.0, True, tens((0, 3))], 0)


def ffi_null():
    return None


def test_clipped_swiglu_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
x = np.random.default_rng(0).uniform(-9, 9, (800, 512)).astype(np.float32)
o = np.zeros((800, 256), np.float32)
pyaclnn.call("ClippedSwiglu", x, None, -1, 1.702, 7.0, 1.0, True, o)
print(hashlib.sha256(o.tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)


def situ_ref(torch, x, dim, beta, lbeta, left):
    t = T(torch, x).float()
    d = dim % t.dim()
    pre = int(np.prod(t.shape[:d])) if d else 1
    a, b = t.reshape(pre, -1).chunk(2, dim=1)
    g, u = (a, b) if left else (b, a)
    if lbeta > 0:
        u = lbeta * torch.tanh(u / lbeta)
    y = beta * torch.tanh(g / beta) * torch.sigmoid(g) * u
    shape = list(t.shape)
    shape[d] //= 2
    return y.reshape(shape).to(T(torch, x).dtype)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("dt", OPS["SituGlu"]["dtypes"])
def test_situ_glu(torch, dt, left):
    rng = np.random.default_rng(7)
    x = strided(np.array(rng.uniform(-5, 5, (4, 2, 6)).astype(NP[dt])))
    for dim, beta, lbeta in ((1, 1.0, 0.0), (-1, 0.5, 2.0), (0, 2.0, -1.0)):
        shape = [4, 2, 6]
        shape[dim] //= 2
        o = strided(np.zeros(shape, NP[dt]))
        pyaclnn.call("SituGlu", x, dim, beta, lbeta, left, o)
        compare(o, from_torch(situ_ref(torch, x, dim, beta, lbeta, left)), dt)


def test_situ_glu_invalid():
    X, O = tens((4, 6)), tens((4, 3))
    op = "SituGlu"
    expect_status(op, [None, -1, 1.0, 0.0, True, O], 161001, "x")
    expect_status(op, [X, -1, 1.0, 0.0, True, None], 161001, "out")
    expect_status(op, [tens((4, 6), "f64"), -1, 1.0, 0.0, True, O], 161002, "x")
    expect_status(op, [X, -1, 1.0, 0.0, True, tens((4, 3), "i8")], 161002, "out")
    expect_status(op, [X, 2, 1.0, 0.0, True, O], 161002, "dim")
    expect_status(op, [tens((4, 5)), -1, 1.0, 0.0, True, O], 161002, "divisible")
    expect_status(op, [X, -1, 1.0, 0.0, True, tens((12,))], 161002, "rank")
    expect_status(op, [X, -1, 1.0, 0.0, True, tens((4, 6))], 161002, "out[dim]")
    expect_status(op, [X, -1, 1.0, 0.0, True, tens((4, 3), "f16")], 161002, "dtype")
    expect_status(op, [X, -1, 1.0, 0.0, True, tens((5, 3))], 161002, "out")
    expect_status(op, [tens((0, 6)), -1, 1.0, 0.0, True, tens((0, 3))], 0)


def test_situ_glu_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
x = np.random.default_rng(0).uniform(-5, 5, (800, 512)).astype(np.float32)
o = np.zeros((800, 256), np.float32)
pyaclnn.call("SituGlu", x, -1, 1.0, 2.0, False, o)
print(hashlib.sha256(o.tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("dt", OPS["SituGluGrad"]["dtypes"])
def test_situ_glu_grad(torch, dt, left):
    rng = np.random.default_rng(8)
    x = strided(np.array(rng.uniform(-3, 3, (4, 2, 6)).astype(NP[dt])))
    for dim, beta, lbeta in ((1, 1.0, 0.0), (-1, 0.5, 2.0), (0, 2.0, -1.0)):
        shape = [4, 2, 6]
        shape[dim] //= 2
        gy = strided(np.array(rng.uniform(-2, 2, shape).astype(NP[dt])))
        o = strided(np.zeros((4, 2, 6), NP[dt]))
        pyaclnn.call("SituGluGrad", gy, x, dim, beta, lbeta, left, o)
        tx = T(torch, x).float().requires_grad_()
        d = dim % 3
        pre = int(np.prod(tx.shape[:d])) if d else 1
        a, b = tx.reshape(pre, -1).chunk(2, dim=1)
        g, u = (a, b) if left else (b, a)
        if lbeta > 0:
            u = lbeta * torch.tanh(u / lbeta)
        y = beta * torch.tanh(g / beta) * torch.sigmoid(g) * u
        y.backward(T(torch, gy).float().reshape(y.shape))
        compare(o, from_torch(tx.grad.to(T(torch, x).dtype)), dt)


def test_situ_glu_grad_invalid():
    G, X = tens((4, 3)), tens((4, 6))
    op = "SituGluGrad"
    expect_status(op, [None, X, -1, 1.0, 0.0, True, X], 161001, "gradY")
    expect_status(op, [G, None, -1, 1.0, 0.0, True, X], 161001, "x")
    expect_status(op, [G, X, -1, 1.0, 0.0, True, None], 161001, "out")
    expect_status(op, [tens((4, 3), "f64"), X, -1, 1.0, 0.0, True, X], 161002, "gradY")
    expect_status(op, [G, tens((4, 6), "i32"), -1, 1.0, 0.0, True, X], 161002, "x")
    expect_status(op, [G, X, -1, 1.0, 0.0, True, tens((4, 6), "i8")], 161002, "out")
    expect_status(op, [G, X, 2, 1.0, 0.0, True, X], 161002, "dim")
    expect_status(op, [G, tens((4, 5)), -1, 1.0, 0.0, True, tens((4, 5))], 161002, "divisible")
    expect_status(op, [tens((12,)), X, -1, 1.0, 0.0, True, X], 161002, "rank")
    expect_status(op, [tens((4, 6)), X, -1, 1.0, 0.0, True, X], 161002, "gradY")
    expect_status(op, [tens((4, 3), "f16"), X, -1, 1.0, 0.0, True, X], 161002, "dtype")
    expect_status(op, [G, X, -1, 1.0, 0.0, True, tens((4, 5))], 161002, "out")
    expect_status(op, [G, X, -1, 1.0, 0.0, True, tens((4, 6), "f16")], 161002, "out")
    expect_status(op, [tens((0, 3)), tens((0, 6)), -1, 1.0, 0.0, True, tens((0, 6))], 0)


def clipped_grad_ref(torch, gy, x, dim, alpha, limit, bias, interleaved):
    tx = T(torch, x).float().requires_grad_()
    d = dim % tx.dim()
    pre = int(np.prod(tx.shape[:d])) if d else 1
    m = tx.reshape(pre, -1)
    A, B = (m[:, ::2], m[:, 1::2]) if interleaved else m.chunk(2, dim=1)
    A = A.clamp(max=limit)
    B = B.clamp(min=-limit, max=limit)
    y = A * torch.sigmoid(alpha * A) * (B + bias)
    y.backward(T(torch, gy).float().reshape(y.shape))
    return tx.grad


@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize("dt", OPS["ClippedSwigluGrad"]["dtypes"])
def test_clipped_swiglu_grad(torch, dt, interleaved):
    rng = np.random.default_rng(9)
    x = strided(np.array(rng.uniform(-9, 9, (4, 2, 6)).astype(NP[dt])))
    for dim in (1, -1, 0):
        shape = [4, 2, 6]
        shape[dim] //= 2
        gy = strided(np.array(rng.uniform(-2, 2, shape).astype(NP[dt])))
        o = strided(np.zeros((4, 2, 6), NP[dt]))
        pyaclnn.call("ClippedSwigluGrad", gy, x, None, dim, 1.702, 7.0, 1.0, interleaved, o)
        e = clipped_grad_ref(torch, gy, x, dim, 1.702, 7.0, 1.0, interleaved)
        compare(o, from_torch(e.to(T(torch, x).dtype)), dt)


def test_clipped_swiglu_grad_groups(torch):
    rng = np.random.default_rng(10)
    x = rng.uniform(-9, 9, (5, 8)).astype(np.float32)
    gy = rng.uniform(-2, 2, (5, 4)).astype(np.float32)
    for g, rows in (([1, 2], 3), ([4, 9], 5), ([0], 0)):
        o = np.full((5, 8), -123.0, np.float32)
        pyaclnn.call("ClippedSwigluGrad", gy, x, np.array(g, np.int64), -1, 1.0, 3.0, 0.5, False, o)
        e = from_torch(clipped_grad_ref(torch, gy, x, -1, 1.0, 3.0, 0.5, False))
        np.testing.assert_allclose(o[:rows], e[:rows], rtol=1e-5, atol=1e-6)
        assert (o[rows:] == 0).all()  # rows past the groups are zeroed


def test_clipped_swiglu_grad_invalid():
    G, X = tens((4, 3)), tens((4, 6))
    op = "ClippedSwigluGrad"
    a = [-1, 1.0, 7.0, 1.0, True]
    expect_status(op, [None, X, None] + a + [X], 161001, "gradY")
    expect_status(op, [G, None, None] + a + [X], 161001, "x")
    expect_status(op, [G, X, None] + a + [None], 161001, "gradXOut")
    expect_status(op, [tens((4, 3), "f64"), X, None] + a + [X], 161002, "gradY")
    expect_status(op, [G, tens((4, 6), "i32"), None] + a + [X], 161002, "x")
    expect_status(op, [G, X, tens((2,), "i32")] + a + [X], 161002, "groupIndexOptional")
    expect_status(op, [G, X, None] + a + [tens((4, 6), "i8")], 161002, "gradXOut")
    expect_status(op, [G, X, None, -1, 1.0, 0.0, 1.0, True, X], 561002, "limit")
    expect_status(op, [G, X, None, 2, 1.0, 7.0, 1.0, True, X], 561002, "dim")
    expect_status(op, [G, tens((4, 5)), None] + a + [tens((4, 5))], 561002, "divisible")
    expect_status(op, [tens((12,)), X, None] + a + [X], 561002, "rank")
    expect_status(op, [tens((4, 6)), X, None] + a + [X], 561002, "gradY")
    expect_status(op, [tens((4, 3), "f16"), X, None] + a + [X], 561002, "dtype")
    expect_status(op, [G, X, tens((2, 1), "i64")] + a + [X], 561002, "groupIndexOptional")
    expect_status(op, [G, X, None] + a + [tens((24,))], 561002, "rank")
    expect_status(op, [G, X, None] + a + [tens((4, 6), "f16")], 561002, "dtype")
    expect_status(op, [G, X, None] + a + [tens((4, 5))], 161002, "gradXOut")
    expect_status(op, [tens((0, 3)), tens((0, 6)), None] + a + [tens((0, 6))], 0)
