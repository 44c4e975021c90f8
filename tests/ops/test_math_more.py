"""ExpSegsum / ExpSegsumBackward, GroupedBiasAddGrad / V2 and Sinkhorn (tools/optable/math_more.py) against PyTorch
references written from the docs' formulas; strided views, empty tensors, invalid rows in the upstream order."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from table_harness import BF16, NP, TOL, compare, expect_status, from_torch, rand, to_torch

FLT = list(OPS["ExpSegsum"]["dtypes"])


def T(shape, dt, fmt=None):
    return AclTensor.empty(shape, NP[dt] if isinstance(dt, str) else dt, fmt)


def strided(a, axis=-1):
    """a as a view with every other element of `axis` (plus a leading offset): same values, non-contiguous."""
    shape = list(a.shape)
    shape[axis] = 2 * shape[axis] + 1
    big = np.zeros(shape, a.dtype)
    sl = [slice(None)] * a.ndim
    sl[axis] = slice(1, None, 2)
    v = big[tuple(sl)]
    v[...] = a
    return v


def rounded(torch, t, dt):
    """a float64 torch reference rounded once to dt, as numpy"""
    return from_torch(t.to(getattr(torch, {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[dt])))


# ------------------------------------------------------------------ ExpSegsum (forward and backward)

def segsum_ref(torch, x):
    """the doc's steps in float64: broadcast the last dim, zero the upper triangle with the diagonal, cumsum over
    dim -2, -inf above the diagonal, exp"""
    x = x.double()
    n = x.shape[-1]
    e = x.unsqueeze(-1).expand(*x.shape, n)
    m = torch.where(torch.tril(torch.ones(n, n, dtype=torch.bool), -1), e, torch.zeros((), dtype=torch.float64))
    s = torch.cumsum(m, -2)
    s = torch.where(torch.tril(torch.ones(n, n, dtype=torch.bool)), s, torch.full((), -np.inf, dtype=torch.float64))
    return torch.exp(s)


def segsum_grad_ref(torch, g, s):
    g, s = g.double(), s.double()
    n = g.shape[-1]
    y = torch.where(torch.tril(torch.ones(n, n, dtype=torch.bool)), g * s, torch.zeros((), dtype=torch.float64))
    y = torch.flip(torch.cumsum(torch.flip(y, [-2]), -2), [-2])
    y = torch.where(torch.tril(torch.ones(n, n, dtype=torch.bool), -1), y, torch.zeros((), dtype=torch.float64))
    return y.sum(-1)


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape", [(2, 3, 5), (1, 2, 3, 7), (2, 1, 1, 1)])
def test_exp_segsum_values(torch, dt, shape):
    rng = np.random.default_rng(3)
    x = rand(rng, shape, dt, (-1.5, 1.5))
    e = rounded(torch, segsum_ref(torch, to_torch(torch, x)), dt)
    o = np.zeros(e.shape, e.dtype)
    pyaclnn.call("ExpSegsum", x, o)
    compare(o, e, dt)
    # strided input and output
    o2 = strided(np.zeros(e.shape, e.dtype), -2)
    pyaclnn.call("ExpSegsum", strided(x), o2)
    compare(np.ascontiguousarray(o2), e, dt)


def test_exp_segsum_nonfinite(torch):
    x = np.array([[[0.5, np.inf, -np.inf, 1.0, np.nan, 2.0]]], np.float32)
    e = rounded(torch, segsum_ref(torch, torch.from_numpy(x)), "f32")
    o = np.zeros(e.shape, np.float32)
    pyaclnn.call("ExpSegsum", x, o)
    np.testing.assert_allclose(o, e, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape", [(2, 3, 5, 5), (1, 2, 2, 4, 4), (3, 1, 1, 1)])
def test_exp_segsum_backward_values(torch, dt, shape):
    rng = np.random.default_rng(4)
    g, s = rand(rng, shape, dt, (-2, 2)), rand(rng, shape, dt, (0, 3))
    e = rounded(torch, segsum_grad_ref(torch, to_torch(torch, g), to_torch(torch, s)), dt)
    o = np.zeros(e.shape, e.dtype)
    pyaclnn.call("ExpSegsumBackward", g, s, o)
    rtol, atol = TOL[dt]
    np.testing.assert_allclose(o.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol * shape[-1])
    o2 = strided(np.zeros(e.shape, e.dtype))
    pyaclnn.call("ExpSegsumBackward", strided(g, -2), strided(s), o2)
    np.testing.assert_allclose(np.ascontiguousarray(o2).astype(np.float64), e.astype(np.float64), rtol=rtol,
                               atol=atol * shape[-1])


def test_exp_segsum_backward_mixed_dtypes(torch):
    """gradSelf's dtype is checked against the list only, not against gradOutput's"""
    rng = np.random.default_rng(5)
    g, s = rand(rng, (1, 2, 4, 4), "f32"), rand(rng, (1, 2, 4, 4), "f16")
    e = rounded(torch, segsum_grad_ref(torch, to_torch(torch, g), to_torch(torch, s)), "f32")
    o = np.zeros(e.shape, np.float32)
    pyaclnn.call("ExpSegsumBackward", g, s, o)
    np.testing.assert_allclose(o, e, rtol=1e-6, atol=1e-5)


def test_exp_segsum_empty():
    out = np.full((2, 0, 3, 3), 7, np.float32)
    pyaclnn.call("ExpSegsum", np.zeros((2, 0, 3), np.float32), out)
    # upstream returns before its checks when self is empty: out may be anything, even NULL
    expect_status("ExpSegsum", [T((2, 0, 3), "f32"), None], 0)
    expect_status("ExpSegsum", [T((0, 3), "f64"), T((5,), "f32")], 0)
    expect_status("ExpSegsumBackward", [T((1, 0, 2, 2), "f32"), None, None], 0)
    expect_status("ExpSegsumBackward", [T((1, 1, 2, 2), "f32"), T((0,), "f64"), None], 0)


def test_exp_segsum_invalid():
    x, o = T((1, 2, 3), "f32"), T((1, 2, 3, 3), "f32")
    expect_status("ExpSegsum", [None, o], 161001, "self")
    expect_status("ExpSegsum", [x, None], 161001, "out")
    expect_status("ExpSegsum", [T((1, 2, 3), "f64"), T((1, 2, 3, 3), "f64")], 161002, "self")
    expect_status("ExpSegsum", [x, T((1, 2, 3, 3), "f16")], 161002, "out")
    expect_status("ExpSegsum", [T((2, 3), "f32"), T((2, 3, 3), "f32")], 161002, "self")
    expect_status("ExpSegsum", [T((1, 1, 2, 2, 2), "f32"), T((1, 1, 2, 2, 2, 2), "f32")], 161002, "self")
    expect_status("ExpSegsum", [x, T((1, 2, 3), "f32")], 161002, "out")
    expect_status("ExpSegsum", [x, T((1, 3, 3, 3), "f32")], 161002, "out")
    expect_status("ExpSegsum", [x, T((1, 2, 3, 4), "f32")], 161002, "out")
    expect_status("ExpSegsum", [x, T((1, 2, 3, 3), "f32", lib.ACL_FORMAT_NCHW)], 161002, "format")
    expect_status("ExpSegsum", [T((1, 2, 3), "f32", lib.ACL_FORMAT_NCHW), T((1, 2, 3, 3), "f32", lib.ACL_FORMAT_NCHW)],
                  161002, "self")
    expect_status("ExpSegsum", [x, o], 0)


def test_exp_segsum_backward_invalid():
    g, s, i = T((1, 2, 3, 3), "f32"), T((1, 2, 3, 3), "f32"), T((1, 2, 3), "f32")
    expect_status("ExpSegsumBackward", [None, s, i], 161001, "gradOutput")
    expect_status("ExpSegsumBackward", [g, None, i], 161001, "gradSelf")
    expect_status("ExpSegsumBackward", [g, s, None], 161001, "gradInput")
    expect_status("ExpSegsumBackward", [T((1, 2, 3, 3), "i32"), s, i], 161002, "gradOutput")
    expect_status("ExpSegsumBackward", [g, T((1, 2, 3, 3), "f64"), i], 161002, "gradSelf")
    expect_status("ExpSegsumBackward", [g, s, T((1, 2, 3), "bf16")], 161002, "gradInput")
    expect_status("ExpSegsumBackward", [T((2, 3, 3), "f32"), T((2, 3, 3), "f32"), T((2, 3), "f32")], 161002,
                  "gradOutput")
    expect_status("ExpSegsumBackward", [g, T((1, 2, 1, 3, 3), "f32"), i], 161002, "gradSelf")
    expect_status("ExpSegsumBackward", [g, s, T((1, 2, 3, 1), "f32")], 161002, "gradInput")
    expect_status("ExpSegsumBackward", [T((1, 2, 3, 4), "f32"), T((1, 2, 3, 4), "f32"), i], 161002, "gradOutput")
    expect_status("ExpSegsumBackward", [g, T((1, 3, 3, 3), "f32"), i], 161002, "gradSelf")
    expect_status("ExpSegsumBackward", [g, s, T((1, 2, 4), "f32")], 161002, "gradInput")
    expect_status("ExpSegsumBackward", [T((1, 2, 3, 3), "f32", lib.ACL_FORMAT_NCHW),
                                        T((1, 2, 3, 3), "f32", lib.ACL_FORMAT_NCHW), i], 161002, "gradOutput")
    expect_status("ExpSegsumBackward", [g, T((1, 2, 3, 3), "f32", lib.ACL_FORMAT_NCHW), i], 161002, "gradSelf")
    expect_status("ExpSegsumBackward", [g, s, T((1, 2, 3), "f32", lib.ACL_FORMAT_NCHW)], 161002, "gradInput")
    expect_status("ExpSegsumBackward", [g, s, i], 0)


# ------------------------------------------------------------------ GroupedBiasAddGrad / V2

def grouped_ref(torch, gy, idx, typ):
    gy = gy.double()
    if idx is None:
        return gy.sum(1)
    ends = np.cumsum(idx) if typ == 1 else np.asarray(idx)
    starts = np.concatenate([[0], ends[:-1]])
    return torch.stack([gy[int(s):int(e)].sum(0) for s, e in zip(starts, ends)])


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("v2,typ,idt", [(False, 0, "i32"), (True, 0, "i64"), (True, 1, "i32"), (True, 1, "i64")])
def test_grouped_bias_add_grad_values(torch, dt, v2, typ, idt):
    rng = np.random.default_rng(6)
    gy = rand(rng, (23, 7), dt)
    idx = np.array([5, 5, 11, 23], NP[idt]) if typ == 0 else np.array([5, 0, 6, 12], NP[idt])
    e = rounded(torch, grouped_ref(torch, to_torch(torch, gy), idx, typ), dt)
    op, args = ("GroupedBiasAddGradV2", (typ,)) if v2 else ("GroupedBiasAddGrad", ())
    o = np.zeros(e.shape, e.dtype)
    pyaclnn.call(op, gy, idx, *args, o)
    compare(o, e, dt)
    o2 = strided(np.zeros(e.shape, e.dtype), 0)
    pyaclnn.call(op, strided(gy, 0), strided(idx), *args, o2)
    compare(np.ascontiguousarray(o2), e, dt)


@pytest.mark.parametrize("dt", FLT)
def test_grouped_bias_add_grad_no_index(torch, dt):
    rng = np.random.default_rng(7)
    gy = rand(rng, (3, 300, 5), dt)
    e = rounded(torch, grouped_ref(torch, to_torch(torch, gy), None, 0), dt)
    for op, args in (("GroupedBiasAddGrad", ()), ("GroupedBiasAddGradV2", (1,))):
        o = np.zeros(e.shape, e.dtype)
        pyaclnn.call(op, gy, None, *args, o)
        compare(o, e, dt)
        o2 = strided(np.zeros(e.shape, e.dtype))
        pyaclnn.call(op, np.swapaxes(np.swapaxes(gy, 0, 1).copy(), 0, 1), None, *args, o2)
        compare(np.ascontiguousarray(o2), e, dt)


def test_grouped_bias_add_grad_hostile_indices():
    """indices the doc forbids (decreasing, negative, beyond the rows): each group's range is clamped to the rows and
    an empty or inverted range sums nothing (the device reads whatever the indices name)"""
    gy = np.arange(12, dtype=np.float32).reshape(6, 2)
    o = np.full((4, 2), -1, np.float32)
    pyaclnn.call("GroupedBiasAddGradV2", gy, np.array([4, 2, 100, -3], np.int64), 0, o)
    np.testing.assert_array_equal(o, [gy[0:4].sum(0), [0, 0], gy[2:6].sum(0), [0, 0]])
    pyaclnn.call("GroupedBiasAddGradV2", gy, np.array([2, -1, 9, 3], np.int32), 1, o)
    np.testing.assert_array_equal(o, [gy[0:2].sum(0), [0, 0], gy[1:6].sum(0), [0, 0]])


def test_grouped_bias_add_grad_empty():
    o = np.full((3, 4), 5, np.float32)
    pyaclnn.call("GroupedBiasAddGradV2", np.zeros((0, 4), np.float32), np.zeros(3, np.int32), 0, o)
    np.testing.assert_array_equal(o, 5)  # an empty gradY: nothing is launched, out untouched
    o = np.zeros((0, 4), np.float32)
    pyaclnn.call("GroupedBiasAddGrad", np.ones((2, 4), np.float32), np.zeros(0, np.int64), o)


@pytest.mark.parametrize("op", ["GroupedBiasAddGrad", "GroupedBiasAddGradV2"])
def test_grouped_bias_add_grad_invalid(op):
    v2 = op.endswith("V2")

    def args(gy, idx, out, typ=0):
        return [gy, idx, typ, out] if v2 else [gy, idx, out]

    gy, idx, out = T((6, 4), "f32"), T((2,), "i32"), T((2, 4), "f32")
    expect_status(op, args(None, idx, out), 161001, "gradY")
    expect_status(op, args(gy, idx, None), 161001, "out")
    expect_status(op, args(T((6, 4), "f64"), idx, T((2, 4), "f64")), 161002, "gradY")
    expect_status(op, args(gy, idx, T((2, 4), "i32")), 161002, "out")
    expect_status(op, args(gy, idx, T((2, 4), "f16")), 161002, "out")
    expect_status(op, args(gy, T((2,), "f32"), out), 161002, "groupIdxOptional")
    expect_status(op, args(gy, None, out), 161002, "gradY")                     # 3-D without groupIdx
    expect_status(op, args(T((2, 6, 4), "f32"), idx, out), 161002, "gradY")    # 2-D with groupIdx
    expect_status(op, args(gy, T((2, 1), "i32"), out), 161002, "groupIdxOptional")
    expect_status(op, args(T((6, 4), "f32"), T((2049,), "i32"), T((2049, 4), "f32")), 161002, "groups")
    expect_status(op, args(gy, idx, T((2, 4, 1), "f32")), 161002, "out")
    expect_status(op, args(gy, idx, T((3, 4), "f32")), 161002, "out")
    expect_status(op, args(T((2, 6, 4), "f32"), None, T((2, 6), "f32")), 161002, "out")
    if v2:
        expect_status(op, args(gy, idx, out, 2), 161002, "groupIdxType")
        expect_status(op, args(gy, idx, out, -1), 161002, "groupIdxType")
        expect_status(op, args(T((0, 4), "f32"), idx, out, 5), 161002, "groupIdxType")  # before the empty check
    expect_status(op, args(T((0, 4), "f32"), idx, out), 0)
    expect_status(op, args(T((2049, 1, 4), "f32"), None, T((2049, 4), "f32")), 0)  # the 2048 limit is groupIdx's
    expect_status(op, args(gy, idx, out), 0)


# ------------------------------------------------------------------ Sinkhorn

def sinkhorn_ref(torch, cost, tol):
    """the doc's loop in float32, as the device computes it (ops-math's ATK reference with float32 tensors)"""
    cost = torch.exp(cost.float())
    d0, d1 = torch.ones(cost.shape[0]), torch.ones(cost.shape[1])
    old, err = d1, 1e9
    while err > tol:
        d0 = (1 / cost.shape[0]) / (torch.sum(d1 * cost, 1) + 1e-8)
        d1 = (1 / cost.shape[1]) / (torch.sum(d0.unsqueeze(1) * cost, 0) + 1e-8)
        err = torch.mean(torch.abs(old - d1))
        old = d1
    return (d1 * cost * d0.unsqueeze(1)).double()


@pytest.mark.parametrize("dt", FLT)
@pytest.mark.parametrize("shape,tol", [((6, 4), 1e-4), ((33, 70), 1e-6), ((1, 5), None)])
def test_sinkhorn_values(torch, dt, shape, tol):
    rng = np.random.default_rng(8)
    cost = rand(rng, shape, dt, (0, 1))
    e = rounded(torch, sinkhorn_ref(torch, to_torch(torch, cost), 1e-4 if tol is None else tol), dt)
    p = np.zeros(e.shape, e.dtype)
    pyaclnn.call("Sinkhorn", cost, None if tol is None else tol, p)
    rtol = {"f32": 1e-4, "f16": 2e-3, "bf16": 1.6e-2}[dt]
    np.testing.assert_allclose(p.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=1e-6)
    p2 = strided(np.zeros(e.shape, e.dtype), 0)
    pyaclnn.call("Sinkhorn", np.asfortranarray(cost), None if tol is None else tol, p2)
    np.testing.assert_array_equal(np.ascontiguousarray(p2).view(np.uint8), p.view(np.uint8))


def test_sinkhorn_mixed_output_dtype(torch):
    """p's dtype is checked against the list only: the float32 result is cast to it"""
    cost = np.random.default_rng(9).uniform(0, 1, (5, 3)).astype(np.float16)
    e = rounded(torch, sinkhorn_ref(torch, torch.from_numpy(cost), 1e-4), "f32")
    p = np.zeros((5, 3), np.float32)
    pyaclnn.call("Sinkhorn", cost, 1e-4, p)
    np.testing.assert_allclose(p, e, rtol=1e-4)


def test_sinkhorn_never_converges():
    """the device loops until error <= tol: with a negative tol, or NaN in cost, it never returns. The emulation stops
    where the device's state stops changing (an exact fixed point; NaN) and writes p from it"""
    p = np.zeros((3, 3), np.float32)
    pyaclnn.call("Sinkhorn", np.ones((3, 3), np.float32), -1.0, p)
    np.testing.assert_allclose(p, 1 / 9, rtol=1e-6)
    p = np.zeros((2, 2), np.float32)
    pyaclnn.call("Sinkhorn", np.array([[0.5, np.nan], [0.25, 0.75]], np.float32), 1e-4, p)
    assert np.isnan(p).all()


def test_sinkhorn_invalid():
    c, p = T((3, 4), "f32"), T((3, 4), "f32")
    expect_status("Sinkhorn", [None, None, p], 161001, "cost")
    expect_status("Sinkhorn", [c, None, None], 161001, "p")
    expect_status("Sinkhorn", [T((3, 4), "f64"), None, p], 161002, "cost")
    expect_status("Sinkhorn", [c, None, T((3, 4), "i32")], 161002, "p")
    expect_status("Sinkhorn", [T((3, 4, 1), "f32"), None, T((3, 4, 1), "f32")], 161002, "cost")
    expect_status("Sinkhorn", [T((12,), "f32"), None, T((12,), "f32")], 161002, "cost")
    expect_status("Sinkhorn", [c, None, T((4, 3), "f32")], 161002, "p")
    expect_status("Sinkhorn", [T((1, 4097), "f32"), None, T((1, 4097), "f32")], 161002, "column")
    expect_status("Sinkhorn", [T((0, 4097), "f32"), None, T((0, 4097), "f32")], 161002, "column")  # before empty
    expect_status("Sinkhorn", [T((0, 4), "f32"), None, T((0, 4), "f32")], 0)
    expect_status("Sinkhorn", [T((1, 4096), "bf16"), None, T((1, 4096), "f16")], 0)
