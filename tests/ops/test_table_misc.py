"""Scans, tensor-list sums and small products (tools/optable/math_misc.py) against PyTorch CPU; invalid rows."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from table_harness import compare, expect_status, from_torch, rand, to_torch

DTS = ["f32", "f16", "bf16", "f64", "i32", "i64"]


def z(e):
    return np.zeros(e.shape, e.dtype)


@pytest.mark.parametrize("dt", DTS)
def test_scans(torch, dt):
    rng = np.random.default_rng(1)
    x = rand(rng, (3, 5, 4), dt, (-2, 2))
    t = to_torch(torch, x)
    e = from_torch(torch.cumsum(t, 1).to(t.dtype))
    o = z(e)
    pyaclnn.call("Cumsum", x, 1, pyaclnn.tensor.acl_dtype(o.dtype), o)
    compare(o, e, dt)
    e = from_torch(torch.flip(torch.cumsum(torch.flip(t, [2]), 2), [2]).to(t.dtype) - t)  # exclusive + reverse
    o = z(e)
    pyaclnn.call("CumsumV2", x, -1, True, True, o)
    compare(o, e, dt)
    e = from_torch(torch.cumprod(t, 0).to(t.dtype))
    o = z(e)
    pyaclnn.call("Cumprod", x, 0, pyaclnn.tensor.acl_dtype(o.dtype), o)
    compare(o, e, dt)
    for op, f in (("Cummax", torch.cummax), ("Cummin", torch.cummin)):
        v, i = f(t, 1)
        vo, io = z(from_torch(v)), np.zeros(x.shape, np.int64)
        pyaclnn.call(op, x, 1, vo, io)
        compare(vo, from_torch(v), dt)
        np.testing.assert_array_equal(io, i.numpy())


@pytest.mark.parametrize("dt", DTS)
def test_lists_and_products(torch, dt):
    rng = np.random.default_rng(2)
    a, b, c = rand(rng, (3, 4), dt), rand(rng, (4,), dt), rand(rng, (3, 1), dt)
    ta, tb, tc = (to_torch(torch, v) for v in (a, b, c))
    for op, e in (("AddN", ta + tb + tc), ("Sum", ta + tb + tc), ("MaxN", torch.maximum(torch.maximum(ta, tb), tc)),
                  ("MinN", torch.minimum(torch.minimum(ta, tb), tc))):
        e = from_torch(e.to(ta.dtype))
        o = z(e)
        pyaclnn.call(op, [a, b, c], o)
        if dt in ("f16", "bf16"):
            np.testing.assert_allclose(o.astype(np.float64), e.astype(np.float64), rtol=1e-2, atol=2e-2)
        else:
            compare(o, e, dt)
    v1, v2 = rand(rng, (5,), dt), rand(rng, (5,), dt)
    e = from_torch(torch.dot(to_torch(torch, v1).double(), to_torch(torch, v2).double()).to(ta.dtype))
    o = z(e)
    pyaclnn.call("Dot", v1, v2, o)
    compare(o, e, dt)
    e = from_torch(torch.outer(tb, to_torch(torch, v1)))
    o = z(e)
    pyaclnn.call("Ger", b, v1, o)
    compare(o, e, dt)
    m = rand(rng, (4, 5), dt)
    if dt not in ("i32", "i64"):
        e = from_torch(torch.addr(to_torch(torch, m), tb, to_torch(torch, v1), beta=0.5, alpha=2.0))
        o = z(e)
        pyaclnn.call("Addr", m, b, v1, 0.5, 2.0, o)
        compare(o, e, dt)
    e = from_torch(torch.trace(to_torch(torch, m).double()).to(ta.dtype))
    o = z(e)
    pyaclnn.call("Trace", m, o)
    compare(o, e, dt)
    o = np.zeros((), np.bool_)
    pyaclnn.call("Equal", m, m.copy(), o)
    assert o
    m2 = m.copy()
    m2[1, 1] = m2[1, 1] + 1 if dt != "bool" else not m2[1, 1]
    pyaclnn.call("Equal", m, m2, o)
    assert not o
    x, y = rand(rng, (2, 3, 4), dt), rand(rng, (2, 3, 4), dt)
    e = from_torch(torch.linalg.cross(to_torch(torch, x), to_torch(torch, y), dim=1))
    o = z(e)
    pyaclnn.call("LinalgCross", x, y, 1, o)
    compare(o, e, dt)


def test_invalid_rows():
    x = AclTensor.from_array(np.zeros((2, 3), np.float32))
    expect_status("Cumsum", [None, 0, 0, x], 161001, "self")
    expect_status("Cumsum", [x, 2, 0, x], 161002, "dim")
    expect_status("Dot", [x, x, AclTensor.empty((), np.float32)], 161002, "self")
    expect_status("LinalgCross", [x, x, 0, x], 161002, "dim")
    expect_status("Trace", [AclTensor.from_array(np.zeros(3, np.float32)), AclTensor.empty((), np.float32)], 161002,
                  "self")
