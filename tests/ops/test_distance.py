"""Cdist, CdistBackward, Pdist and PdistForward (tools/optable/math_extra.py, libsrc/ops/distance.c) against PyTorch
CPU for every dtype of each A2 list: p = 0, 1, 2, inf and general p, broadcast batches, strided views, empty inputs;
the gradient against torch autograd and torch's own _cdist_backward (given a cdist tensor); invalid rows in each
op_api source's order."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from table_harness import BF16, NP, compare, expect_status, rand

OPS = pyaclnn._optable.OPS
PS = [0.0, 1.0, 2.0, 0.5, 3.5, float("inf")]


def f64(a):
    a = np.asarray(a)
    return a.astype(np.float32).astype(np.float64) if a.dtype == BF16 else a.astype(np.float64)


def rounded(e, dt):
    e = np.asarray(e, np.float64)
    return e.astype(np.float32).astype(NP[dt]) if dt == "bf16" else e.astype(NP[dt])


def strided(a):
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def T(shape, dt=np.float32):
    return AclTensor.empty(shape, dt)


# ---------------------------------------------------------------- Cdist

@pytest.mark.parametrize("dt", OPS["Cdist"]["dtypes"])
@pytest.mark.parametrize("p", PS)
def test_cdist(torch, dt, p):
    rng = np.random.default_rng(1)
    for s1, s2 in (((4, 3), (5, 3)), ((2, 1, 4, 3), (3, 5, 3)), ((3, 4, 2), (5, 2))):
        x1, x2 = rand(rng, s1, dt), rand(rng, s2, dt)
        x2[..., 0, :] = x1.reshape(-1, s1[-1])[0]       # a zero distance
        e = torch.cdist(torch.from_numpy(f64(x1)), torch.from_numpy(f64(x2)), p=p,
                        compute_mode="donot_use_mm_for_euclid_dist").numpy()
        o = strided(np.zeros(e.shape, NP[dt]))
        pyaclnn.call("Cdist", strided(x1), x2, p, 2, o)
        compare(o, rounded(e, dt), dt)


def test_cdist_empty_and_zero_width():
    o = np.full((2, 3), 7, np.float32)                  # M == 0: all distances 0
    pyaclnn.call("Cdist", np.zeros((2, 0), np.float32), np.zeros((3, 0), np.float32), 1.0, 0, o)
    assert (o == 0).all()
    o = np.full((0, 3), 7, np.float32)                  # a zero batch / row dim: nothing
    pyaclnn.call("Cdist", np.zeros((0, 4), np.float32), np.zeros((3, 4), np.float32), 1.0, 0, o)


def test_cdist_invalid_rows():
    a, b, o = T((3, 2)), T((4, 2)), T((3, 4))
    expect_status("Cdist", [None, b, 2.0, 2, o], 161001, "x1")
    expect_status("Cdist", [a, None, 2.0, 2, o], 161001, "x2")
    expect_status("Cdist", [a, b, 2.0, 2, None], 161001, "out")
    expect_status("Cdist", [T((3, 2), np.float64), b, 2.0, 2, o], 161002, "x1")
    expect_status("Cdist", [a, T((4, 2), np.int32), 2.0, 2, o], 161002, "x2")
    expect_status("Cdist", [a, b, 2.0, 2, T((3, 4), np.float16)], 161002, "out")
    expect_status("Cdist", [a, T((4, 2), np.float16), 2.0, 2, T((3, 4), np.float16)], 161002, "x1")
    expect_status("Cdist", [T((1,) * 9), b, 2.0, 2, o], 161002, "x1")
    expect_status("Cdist", [a, b, 2.0, 2, T((1,) * 9)], 161002, "out")
    expect_status("Cdist", [T((2,)), b, 2.0, 2, o], 161002, "x1")
    expect_status("Cdist", [a, T((4, 3)), 2.0, 2, o], 161002, "last dims")
    expect_status("Cdist", [a, b, -1.0, 2, o], 161002, "non-negative")
    expect_status("Cdist", [a, b, float("nan"), 2, o], 161002, "non-negative")
    expect_status("Cdist", [a, b, 2.0, 0, o], 161002, "compute_mode")
    expect_status("Cdist", [a, b, 1.0, 0, o], 0)
    expect_status("Cdist", [T((2, 3, 2)), T((3, 4, 2)), 1.0, 0, T((2, 3, 4))], 161002, "broadcast")
    expect_status("Cdist", [a, b, 2.0, 2, T((3, 5))], 561103, "out")     # the result copy refuses out's shape
    expect_status("Cdist", [T((2, 0)), T((2, 0)), 2.0, 2, T((2, 0))], 561103, "out")


# ---------------------------------------------------------------- CdistBackward

@pytest.mark.parametrize("dt", OPS["CdistBackward"]["dtypes"])
@pytest.mark.parametrize("p", PS + [1.5])
def test_cdist_backward(torch, dt, p):
    rng = np.random.default_rng(2)
    for s1, s2 in (((2, 4, 3), (2, 5, 3)), ((2, 3, 4, 2), (1, 1, 5, 2))):
        x1, x2 = rand(rng, s1, dt), rand(rng, s2, dt)
        x2[..., 0, :] = x1.reshape(-1, s1[-1])[0]       # zero distances (their gradient terms are 0)
        t1 = torch.from_numpy(f64(x1).astype(np.float32)).requires_grad_()
        t2 = torch.from_numpy(f64(x2).astype(np.float32))
        d = torch.cdist(t1, t2, p=p, compute_mode="donot_use_mm_for_euclid_dist")
        g = torch.from_numpy(f64(rand(rng, tuple(d.shape), dt)).astype(np.float32))
        cd = rounded(d.detach().numpy(), dt)             # the forward result as the op would have given it
        o = strided(np.zeros(s1, NP[dt]))
        pyaclnn.call("CdistBackward", g.numpy().astype(NP[dt]) if dt != "bf16" else rounded(g.numpy(), dt),
                     strided(x1), x2, cd, p, o)
        e = torch.ops.aten._cdist_backward(g, t1.detach(), t2.expand(*s1[:-2], *s2[-2:]).contiguous(), p,
                                           torch.from_numpy(f64(cd).astype(np.float32))).numpy()
        compare(o, rounded(e, dt), dt)
        if dt == "f32":                                  # and against autograd itself
            d.backward(g)
            np.testing.assert_allclose(o, t1.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_cdist_backward_synthetic_cdist(torch):
    """the upstream example: a cdist tensor that is not the distance of x1 and x2 (p = 0.5)"""
    B, P, Q, M = 5, 7, 9, 11
    o = np.zeros((B, P, M), np.float32)
    pyaclnn.call("CdistBackward", np.ones((B, P, Q), np.float32), np.full((B, P, M), 2, np.float32),
                 np.full((B, Q, M), 4, np.float32), np.full((B, P, Q), 0.5, np.float32), 0.5, o)
    e = torch.ops.aten._cdist_backward(torch.ones(B, P, Q), torch.full((B, P, M), 2.0), torch.full((B, Q, M), 4.0),
                                       0.5, torch.full((B, P, Q), 0.5))
    np.testing.assert_allclose(o, e.numpy(), rtol=1e-6)
    o = np.full((0, 3, 2), 5, np.float32)                # empty
    pyaclnn.call("CdistBackward", np.zeros((0, 3, 4), np.float32), np.zeros((0, 3, 2), np.float32),
                 np.zeros((0, 4, 2), np.float32), np.zeros((0, 3, 4), np.float32), 2.0, o)


def test_cdist_backward_invalid_rows():
    g, a, b, c, o = T((2, 3, 4)), T((2, 3, 5)), T((2, 4, 5)), T((2, 3, 4)), T((2, 3, 5))
    base = [g, a, b, c, 2.0, o]
    names = ["grad", "x1", "x2", "cdist", None, "out"]
    for k in (0, 1, 2, 3, 5):
        args = list(base)
        args[k] = None
        expect_status("CdistBackward", args, 161001, names[k])
    for k in (0, 1, 2, 3, 5):
        args = list(base)
        args[k] = T(tuple(base[k].shape), np.float64)
        expect_status("CdistBackward", args, 161002, names[k])
    args = list(base)
    args[2] = T((2, 4, 5), np.float16)
    expect_status("CdistBackward", args, 161002, "x2")                    # all share grad's dtype
    expect_status("CdistBackward", [T((1,) * 8), T((1,) * 8), T((1,) * 8), T((1,) * 8), 2.0, T((1,) * 8)], 161002,
                  "grad")
    expect_status("CdistBackward", [T((3,)), T((3,)), T((3,)), T((3,)), 2.0, T((3,))], 161002, "grad")
    expect_status("CdistBackward", [g, T((1, 2, 3, 5)), b, c, 2.0, o], 161002, "x1")
    expect_status("CdistBackward", [g, a, T((3, 4, 5)), c, 2.0, o], 161002, "broadcast")
    expect_status("CdistBackward", [g, a, T((2, 4, 6)), c, 2.0, o], 161002, "broadcast")
    expect_status("CdistBackward", [T((2, 3, 5)), a, b, T((2, 3, 5)), 2.0, o], 161002, "cdist")
    expect_status("CdistBackward", [T((2, 3, 3)), a, b, c, 2.0, o], 161002, "grad")
    expect_status("CdistBackward", [g, a, b, c, 2.0, T((2, 3, 6))], 161002, "out")
    expect_status("CdistBackward", [g, a, b, c, -0.5, o], 161002, "non-negative")
    expect_status("CdistBackward", [g, a, b, c, -1.0, o], 0)                  # -1 is accepted
    expect_status("CdistBackward", [T((3, 3, 4)), T((1, 3, 5)), T((3, 4, 5)), T((3, 3, 4)), 2.0, T((1, 3, 5))],
                  561103, "out")                                              # x1's batch broadcast: no copy


# ---------------------------------------------------------------- Pdist / PdistForward

@pytest.mark.parametrize("dt", OPS["Pdist"]["dtypes"])
@pytest.mark.parametrize("p", PS)
def test_pdist(torch, dt, p):
    rng = np.random.default_rng(3)
    x = rand(rng, (6, 4), dt)
    x[3] = x[1]
    e = torch.pdist(torch.from_numpy(f64(x)), p=p).numpy()
    o = strided(np.zeros(e.shape, NP[dt]))
    pyaclnn.call("Pdist", strided(x), p, o)
    compare(o, rounded(e, dt), dt)
    for ps in (p, np.float64(p), pyaclnn.scalar(p, NP[dt])) + ((int(p),) if p in (0.0, 1.0, 2.0) else ()):
        o2 = np.zeros(e.shape, NP[dt])
        pyaclnn.call("PdistForward", x, ps, o2)
        compare(o2, rounded(e, dt), dt)


def test_pdist_small_and_empty():
    o = np.zeros((0,), np.float32)
    pyaclnn.call("Pdist", np.ones((1, 3), np.float32), 2.0, o)            # one row: no pairs
    pyaclnn.call("PdistForward", np.ones((1, 3), np.float32), 2.0, o)
    pyaclnn.call("PdistForward", np.ones((0, 3), np.float32), 2.0, o)
    for op in ("Pdist", "PdistForward"):
        o = np.full((6,), 7, np.float16)                # no columns: zeros
        pyaclnn.call(op, np.zeros((4, 0), np.float16), 2.0, o)
        assert (o == 0).all()


def test_pdist_invalid_rows():
    x, o = T((4, 3)), T((6,))
    expect_status("Pdist", [None, 2.0, o], 161001, "self")
    expect_status("Pdist", [x, 2.0, None], 161001, "out")
    expect_status("Pdist", [T((4, 3), BF16), 2.0, T((6,), BF16)], 161002, "self")
    expect_status("Pdist", [x, 2.0, T((6,), np.float64)], 161002, "out")
    expect_status("Pdist", [x, 2.0, T((6,), np.float16)], 161002, "out")
    expect_status("Pdist", [T((2, 4, 3)), 2.0, o], 161002, "self")
    expect_status("Pdist", [x, 2.0, T((6, 1))], 161002, "out")
    expect_status("Pdist", [x, 2.0, T((5,))], 161002, "out")
    expect_status("Pdist", [x, -1.0, o], 161002, "non-negative")
    expect_status("Pdist", [x, float("nan"), o], 161002, "non-negative")
    from pyaclnn.ops.table import make_scalar
    p = make_scalar(2.0)
    expect_status("PdistForward", [None, p, o], 561103, "self")             # ACLNN_ERR_INNER_NULLPTR
    expect_status("PdistForward", [x, None, o], 561103, "pScalar")
    expect_status("PdistForward", [x, p, None], 561103, "out")
    expect_status("PdistForward", [T((4, 3), np.float64), p, o], 161002, "self")
    expect_status("PdistForward", [x, p, T((6,), np.int32)], 161002, "out")
    expect_status("PdistForward", [x, p, T((6,), np.float16)], 161002, "self")
    expect_status("PdistForward", [T((12,)), p, o], 161002, "self")
    expect_status("PdistForward", [x, p, T((7,))], 161002, "out")
    expect_status("PdistForward", [x, make_scalar(-2.0), o], 161002, "pScalar")
    expect_status("PdistForward", [x, make_scalar(float("nan")), o], 0)      # NaN passes (p < 0 is false)


DET = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(9)
h = hashlib.sha256()
x1, x2 = rng.standard_normal((4, 40, 30)).astype(np.float32), rng.standard_normal((4, 50, 30)).astype(np.float32)
g = rng.standard_normal((4, 40, 50)).astype(np.float32)
for p in (1.0, 2.0, 1.5, 3.0):
    d = np.zeros((4, 40, 50), np.float32)
    pyaclnn.call("Cdist", x1, x2, p, 2, d)
    o = np.zeros_like(x1)
    pyaclnn.call("CdistBackward", g, x1, x2, d, p, o)
    q = np.zeros(60 * 59 // 2, np.float32)
    pyaclnn.call("Pdist", rng.standard_normal((60, 30)).astype(np.float32), p, q)
    h.update(d.tobytes() + o.tobytes() + q.tobytes())
a = rng.standard_normal((16, 12, 12))
s, u, v = np.zeros((16, 12)), np.zeros((16, 12, 12)), np.zeros((16, 12, 12))
pyaclnn.call("Svd", a, False, True, s, u, v)
qq, r = np.zeros((16, 12, 12)), np.zeros((16, 12, 12))
pyaclnn.call("Qr", a, True, qq, r)
sg, la = np.zeros(16), np.zeros(16)
pyaclnn.call("Slogdet", a, sg, la)
h.update(s.tobytes() + u.tobytes() + v.tobytes() + qq.tobytes() + r.tobytes() + sg.tobytes() + la.tobytes())
print(h.hexdigest())
"""


def test_same_bytes_for_threads():
    from helpers import same_bytes_for_threads
    same_bytes_for_threads(DET)
