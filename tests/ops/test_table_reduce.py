"""The reductions of tools/optable/math_reduce.py against PyTorch CPU: every dtype of each op's A2 list (strided input
and output views), keepdim both ways, negative and repeated dims, NaN/inf, empty and 0-d inputs and the values
upstream fills them with, the compute-dtype casts (ReduceSum/Mean `dtype`, Prod's out dtype), determinism across
thread counts, and invalid rows in each op_api source's order."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import _optable
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads
from table_harness import BF16, NP, TORCH, compare, expect_status, from_torch, rand, to_torch

INTS = ("i8", "i16", "i32", "i64", "u8")
HALF = ("f16", "bf16")


def dtypes(op):
    return _optable.OPS[op]["dtypes"]


def strided(a):
    """the same values as a view with a step-2 last dim and a 1-element offset"""
    if a.ndim == 0 or a.shape[-1] == 0:
        return a
    big = np.zeros(a.shape[:-1] + (a.shape[-1] * 2 + 1,), a.dtype)
    big[..., 1::2] = a
    return big[..., 1::2]


def out_view(shape, dt):
    """a strided output of this shape, filled with garbage"""
    a = np.full(shape, 7, NP[dt] if isinstance(dt, str) else dt)
    return strided(a)


def tdt(torch, dt):
    return getattr(torch, TORCH[dt])


def check(actual, expected, dt, loose=False):
    """loose: reductions that round once (we) vs partial sums rounded to the half type (PyTorch)"""
    actual = np.array(actual)  # contiguous, 0-d kept
    if loose and np.dtype(actual.dtype) in (np.dtype(np.float16), np.dtype(BF16)):
        assert actual.shape == expected.shape
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=2e-2, atol=3e-2,
                                   equal_nan=True)
    elif loose and actual.dtype == np.float32:
        assert actual.shape == expected.shape
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5, equal_nan=True)
    else:
        compare(actual, expected, dt)


def run(op, args, outs):
    pyaclnn.call(op, *args, *outs)
    return outs


def trunc_mean(x, axes, keep):
    """integer mean as upstream's kernel: the sum in the dtype's width, divided truncating toward zero"""
    s = x.astype(np.int64).sum(axis=axes, keepdims=keep).astype(x.dtype).astype(np.int64)
    n = np.prod([x.shape[a] for a in axes])
    return (np.sign(s) * (np.abs(s) // n)).astype(x.dtype)


# ---- every dtype of every A2 list, strided in and out ----

SHAPE = (3, 4, 5)


def case(torch, op, dt, rng):
    """(args before the outputs, [expected arrays], loose) for op at dtype dt"""
    x = rand(rng, SHAPE, dt)
    t = to_torch(torch, x)
    xs = strided(x)
    T = tdt(torch, dt)
    if op == "ReduceSum":
        e = torch.any(t, 0, keepdim=True).any(2, keepdim=True) if dt == "bool" else torch.sum(t, (0, 2), True, dtype=T)
        return [xs, [0, -1], True, NP[dt]], [from_torch(e)], True
    if op == "ReduceNansum":
        if dt in ("f32", "f16", "bf16"):
            x.reshape(-1)[::7] = np.nan
            t, xs = to_torch(torch, x), strided(x)
        e = torch.any(t, 1) if dt == "bool" else torch.nansum(t, 1).to(T)
        return [xs, [1], False, NP[dt]], [from_torch(e)], True
    if op in ("Mean", "MeanV2"):
        dims, keep = ([1], False) if op == "Mean" else ([0, 2], True)
        if dt in INTS:
            e = trunc_mean(x, tuple(dims), keep)
        else:
            e = from_torch(torch.mean(t, dims, keep))
        return ([xs, dims, keep, NP[dt]] if op == "Mean" else [xs, dims, keep, False]), [e], True
    if op in ("Prod", "ProdDim"):
        x = rand(rng, (3, 4), dt, (-2, 2))
        t, xs = to_torch(torch, x), strided(x)
        if dt == "bool":
            e = torch.all(t) if op == "Prod" else torch.all(t, -1, keepdim=True)
        elif op == "Prod":
            e = torch.prod(t.to(torch.float32) if dt in HALF else t).to(T)
        else:
            e = torch.prod(t.to(torch.float32) if dt in HALF else t, -1, keepdim=True).to(T)
        if op == "Prod":
            return [xs, NP[dt]], [from_torch(e).reshape(1)], True
        return [xs, -1, True, NP[dt]], [from_torch(e)], True
    if op in ("Amax", "Amin"):
        f = torch.amax if op == "Amax" else torch.amin
        return [xs, [0, 2], False], [from_torch(f(t, (0, 2)))], False
    if op in ("Max", "Min"):
        f = torch.max if op == "Max" else torch.min
        return [xs], [from_torch(f(t)).reshape(1)], False
    if op == "MaxV2":
        return [xs, [-1], True, False], [from_torch(torch.amax(t, -1, keepdim=True))], False
    if op in ("MaxDim", "MinDim"):
        f = torch.max if op == "MaxDim" else torch.min
        v, i = f(t, 1)
        return [xs, 1, False], [from_torch(v), i.numpy()], False
    if op in ("ArgMax", "ArgMin"):
        f = torch.argmax if op == "ArgMax" else torch.argmin
        return [xs, 0, True], [f(t, 0, keepdim=True).numpy()], False
    if op in ("All", "Any"):
        f = torch.all if op == "All" else torch.any
        return [xs, [1], True], [f(t, 1, keepdim=True).numpy()], False
    if op in ("Std", "Var", "VarCorrection", "VarMean", "StdMeanCorrection"):
        tt = t.to(torch.float64)
        var = torch.var(tt, (0, 2), correction=1, keepdim=True)
        mean = torch.mean(tt, (0, 2), keepdim=True)
        to = lambda a: from_torch(a.to(T))  # noqa: E731
        if op == "Std":
            return [xs, [0, 2], 1, True], [to(var.sqrt())], True
        if op == "Var":
            return [xs, [0, 2], True, True], [to(var)], True
        if op == "VarCorrection":
            v2 = torch.var(tt, (0, 2), correction=2, keepdim=True)
            return [xs, [0, 2], 2, True], [to(v2)], True
        if op == "VarMean":
            return [xs, [0, 2], 1, True], [to(var), to(mean)], True
        return [xs, [0, 2], 1, True], [to(var.sqrt()), to(mean)], True
    if op == "LogSumExp":
        od = dt if dt in ("f32", "f16", "bf16") else "f32"
        e = torch.logsumexp(t.to(torch.float64), (0, -1)).to(tdt(torch, od))
        return [xs, [0, -1], False], [from_torch(e)], True
    if op == "ReduceLogSum":
        x = rand(rng, SHAPE, dt, (0.5, 3))
        t, xs = to_torch(torch, x), strided(x)
        return [xs, [1], False, False], [from_torch(torch.log(t.double().sum(1)).to(T))], True
    if op in ("Aminmax", "AminmaxDim", "AminmaxAll"):
        if op == "AminmaxAll":
            return [xs], [from_torch(torch.amin(t)), from_torch(torch.amax(t))], False
        e = [from_torch(torch.amin(t, 1, keepdim=True)), from_torch(torch.amax(t, 1, keepdim=True))]
        return [xs, [1] if op == "Aminmax" else 1, True], e, False
    if op in ("GlobalMaxPool", "GlobalAveragePool"):
        x = rand(rng, (2, 3, 4, 5), dt)
        t, xs = to_torch(torch, x), strided(x)
        f = torch.amax if op == "GlobalMaxPool" else torch.mean
        return [xs], [from_torch(f(t, (2, 3), keepdim=True))], True
    raise KeyError(op)


OPS = sorted(op for op, v in _optable.OPS.items() if v["table"] == "math_reduce")


@pytest.mark.parametrize("op,dt", [(op, dt) for op in OPS for dt in dtypes(op)])
def test_every_dtype(torch, op, dt):
    rng = np.random.default_rng(abs(hash((op, dt))) % 2**32)
    args, expected, loose = case(torch, op, dt, rng)
    outs = [out_view(e.shape, e.dtype) for e in expected]
    run(op, args, outs)  # (ties of MaxDim/ArgMax & co: PyTorch and we both give the first index)
    for a, e in zip(outs, expected):
        check(a, e, dt, loose)


def test_dtype_lists_are_the_a2_lists():
    # spot checks of the upstream ASCEND910B lists (the tests above run every listed dtype)
    assert set(dtypes("VarMean")) == {"f32", "f16"}
    assert set(dtypes("MaxDim")) == {"f32", "f16", "i64", "bool", "bf16"}
    assert "f64" not in dtypes("ReduceNansum") and "c64" in dtypes("ReduceSum") and "c128" in dtypes("Mean")
    assert set(dtypes("ReduceLogSum")) == {"f16", "f32"} and "bf16" not in dtypes("GlobalMaxPool")
    assert _optable.OPS["ArgMin"]["out_dtypes"] == ["i32", "i64"]


# ---- keepdim, dims, views ----

@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("dims", [[1], [-1, 0], [2, 0, 1], []])
def test_dims_and_keepdim(torch, keep, dims):
    rng = np.random.default_rng(2)
    x = rand(rng, (3, 4, 5), "f32")
    t = to_torch(torch, x)
    td = tuple(dims) if dims else (0, 1, 2)
    for op, args, e in (
            ("ReduceSum", [strided(x), dims, keep, np.float32], torch.sum(t, td, keep)),
            ("Mean", [strided(x), dims, keep, np.float32], torch.mean(t, td, keep)),
            ("Amax", [strided(x), dims, keep], torch.amax(t, td, keep)),
            ("LogSumExp", [strided(x), dims, keep], torch.logsumexp(t, td, keep)),
            ("Std", [strided(x), dims, 0, keep], torch.std(t, td, correction=0, keepdim=keep)),
            ("All", [strided(x), dims, keep], torch.all(t != 0.5, td[0], keep) if len(td) == 1 else None)):
        if e is None:
            continue
        e = from_torch(e)
        o = out_view(e.shape, e.dtype)
        pyaclnn.call(op, *args, o)
        check(o, e, "f32", loose=True)


def test_transposed_input_and_strided_outputs(torch):
    rng = np.random.default_rng(3)
    x = rand(rng, (6, 5, 4), "f32").transpose(2, 0, 1)  # non-contiguous, non-row-major view
    t = to_torch(torch, x)
    v, i = torch.max(t, 1, keepdim=True)
    vo, io = out_view((4, 1, 5), np.float32), out_view((4, 1, 5), np.int32)
    pyaclnn.call("MaxDim", x, 1, True, vo, io)
    compare(np.array(vo), from_torch(v), "f32")
    np.testing.assert_array_equal(io, i.numpy())
    var, mean = out_view((4, 5), np.float32), out_view((4, 5), np.float32)
    pyaclnn.call("VarMean", x, [1], 1, False, var, mean)
    ev, em = torch.var_mean(t, 1, correction=1)
    check(var, ev.numpy(), "f32", True)
    check(mean, em.numpy(), "f32", True)


def test_duplicate_dims_any_only():
    x = np.array([[0, 1], [0, 0]], np.int32)
    o = np.zeros(2, np.bool_)
    pyaclnn.call("Any", x, [1, 1, -1], False, o)  # Any range-checks only: a repeated dim is reduced once
    np.testing.assert_array_equal(o, [True, False])
    xt = AclTensor.from_array(x)
    ot = AclTensor.empty((2,), np.bool_)
    ia = pyaclnn.int_array
    for op, args in (("All", [xt, ia([1, 1]), False, ot]), ("ReduceSum", [xt, ia([1, -1]), False, 3, None]),
                     ("Amax", [xt, ia([0, -2]), False, None])):
        if op == "ReduceSum":
            args[-1] = AclTensor.empty((2,), np.int32)
        if op == "Amax":
            args[-1] = AclTensor.empty((2,), np.int32)
        expect_status(op, args, 161002, "multiple")


# ---- NaN, inf, semantics ----

def test_nan_propagation(torch):
    x = np.array([[1.0, np.nan, 3.0, 7.0], [4.0, 5.0, np.nan, -np.inf], [2.0, 9.0, 1.0, 0.0]], np.float32)
    t = torch.from_numpy(x)
    for op, f in (("Amax", torch.amax), ("Amin", torch.amin)):
        o = np.zeros(3, np.float32)
        pyaclnn.call(op, x, [1], False, o)
        np.testing.assert_array_equal(o, f(t, 1).numpy())
    for op, f in (("MaxDim", torch.max), ("MinDim", torch.min)):
        v, i = np.zeros(3, np.float32), np.zeros(3, np.int64)
        pyaclnn.call(op, x, 1, False, v, i)
        ev, ei = f(t, 1)
        np.testing.assert_array_equal(v, ev.numpy())
        np.testing.assert_array_equal(i, ei.numpy())
    for op, f in (("ArgMax", torch.argmax), ("ArgMin", torch.argmin)):
        o = np.zeros(3, np.int64)
        pyaclnn.call(op, x, 1, False, o)
        np.testing.assert_array_equal(o, f(t, 1).numpy())
    o = np.zeros(3, np.float32)
    pyaclnn.call("ReduceNansum", x, [1], False, np.float32, o)
    np.testing.assert_array_equal(o, torch.nansum(t, 1).numpy())
    o = np.zeros((), np.float32)
    pyaclnn.call("Max", x, o)
    assert np.isnan(o)
    mn, mx = np.zeros(3, np.float32), np.zeros(3, np.float32)
    pyaclnn.call("AminmaxDim", x, 1, False, mn, mx)
    np.testing.assert_array_equal(mx, torch.amax(t, 1).numpy())
    np.testing.assert_array_equal(mn, torch.amin(t, 1).numpy())


def test_logsumexp_infinities(torch):
    x = np.array([[np.inf, 1.0], [-np.inf, -np.inf], [np.nan, 1.0], [1000.0, 1000.0]], np.float32)
    o = np.zeros(4, np.float32)
    pyaclnn.call("LogSumExp", x, [1], False, o)
    np.testing.assert_allclose(o, torch.logsumexp(torch.from_numpy(x), 1).numpy(), rtol=1e-6)


def test_compute_dtype_casts(torch):
    x = np.array([[1.7, -2.7], [3.9, 0.5]], np.float32)
    o = np.zeros(2, np.int32)
    pyaclnn.call("ReduceSum", x, [1], False, np.int32, o)  # cast to int32 first (truncation), then summed
    np.testing.assert_array_equal(o, [-1, 3])
    o = np.zeros(2, np.float16)
    pyaclnn.call("ReduceSum", x, [1], False, np.float16, o)
    np.testing.assert_array_equal(o, torch.sum(torch.from_numpy(x), 1, dtype=torch.float16).numpy())
    b = np.array([[True, False, True], [True, True, True]])
    o = np.zeros(2, np.int64)
    pyaclnn.call("ReduceSum", b, [1], False, np.int64, o)
    np.testing.assert_array_equal(o, [2, 3])
    o = np.zeros(2, np.bool_)
    pyaclnn.call("ReduceSum", np.array([[0, 0], [0, 2]], np.int32), [1], False, np.bool_, o)  # a bool sum: any
    np.testing.assert_array_equal(o, [False, True])
    i8 = np.array([[100, 100, 100], [-100, -100, 7]], np.int8)
    o = np.zeros(2, np.int8)
    pyaclnn.call("ReduceSum", i8, [1], False, np.int8, o)  # wraps at 8 bits
    np.testing.assert_array_equal(o, torch.sum(torch.from_numpy(i8), 1, dtype=torch.int8).numpy())
    o = np.zeros(2, np.int8)
    pyaclnn.call("Mean", i8, [1], False, np.int8, o)  # the wrapped sum divided, truncating
    np.testing.assert_array_equal(o, trunc_mean(i8, (1,), False))
    o = np.zeros(2, np.float32)
    pyaclnn.call("Mean", np.array([[1, 2], [3, 6]], np.int32), [1], False, np.int32, o)  # int mean, then cast
    np.testing.assert_array_equal(o, [1.0, 4.0])
    o = np.zeros(2, np.float64)
    pyaclnn.call("Mean", x, [1], False, np.float16, o)  # cast to float16, the mean rounded to float16, then float64
    np.testing.assert_array_equal(o, x.astype(np.float16).astype(np.float64).mean(1).astype(np.float16))
    o = np.zeros(2, np.bool_)
    pyaclnn.call("ProdDim", np.array([[1e-30, 1e-30], [2.0, 0.0]], np.float32), 1, False, np.bool_, o)
    np.testing.assert_array_equal(o, [False, False])  # the float32 product underflows to 0 before the cast to bool
    o = np.zeros((), np.float64)
    pyaclnn.call("Max", np.array([1, 5, 3], np.int32), o)  # Max casts to out's dtype
    assert o == 5.0
    o = np.zeros((1, 1), np.int32)
    pyaclnn.call("ArgMax", np.array([[1.0, 9.0]], np.float32), 1, True, o)
    assert o[0, 0] == 1
    o = np.zeros(2, np.float32)
    pyaclnn.call("LogSumExp", np.array([[1, 2], [3, 3]], np.int64), [1], False, o)
    np.testing.assert_allclose(o, torch.logsumexp(torch.tensor([[1.0, 2], [3, 3]]), 1).numpy(), rtol=1e-6)


def test_complex(torch):
    rng = np.random.default_rng(9)
    for dt in ("c64", "c128"):
        x = rand(rng, (3, 4), dt)
        t = to_torch(torch, x)
        for op, args, e in (("ReduceSum", [strided(x), [1], False, NP[dt]], torch.sum(t, 1)),
                            ("Mean", [strided(x), [0], True, NP[dt]], torch.mean(t, 0, True)),
                            ("ProdDim", [strided(x), 1, False, NP[dt]], torch.prod(t, 1)),
                            ("Prod", [x, NP[dt]], torch.prod(t))):
            e = e.numpy()
            o = out_view(e.shape, e.dtype)
            pyaclnn.call(op, *args, o)
            compare(np.array(o), e, dt)


def test_large_few_outputs(torch):
    # more than one fixed block per output (blocked partials) vs float64
    x = np.random.default_rng(4).standard_normal((2, 70001)).astype(np.float32)
    t = torch.from_numpy(x).double()
    for op, args, e in (("ReduceSum", [x, [1], False, np.float32], t.sum(1)),
                        ("Std", [x, [1], 1, False], t.std(1)),
                        ("LogSumExp", [x, [1], False], t.logsumexp(1)),
                        ("ReduceNansum", [x, [1], False, np.float32], t.nansum(1))):
        o = np.zeros(2, np.float32)
        pyaclnn.call(op, *args, o)
        np.testing.assert_allclose(o, e.numpy(), rtol=1e-5, atol=1e-4)
    o, i = np.zeros(2, np.float32), np.zeros(2, np.int64)
    pyaclnn.call("MaxDim", x, 1, False, o, i)
    np.testing.assert_array_equal(i, np.argmax(x, 1))


# ---- empty inputs, 0-d inputs and the degenerate var/std cases: what upstream returns ----

def test_empty_inputs():
    e = np.zeros((2, 0), np.float32)
    cases = [("ReduceSum", [e, [1], False, np.float32], (2,), np.float32, 0.0),
             ("ReduceSum", [e, [0], False, np.int32], (5,), np.int32, 0),  # out's shape is not checked then
             ("ReduceNansum", [e, [1], False, np.float32], (2,), np.float32, 0.0),
             ("Mean", [e, [1], False, np.float32], (2,), np.float32, np.nan),
             ("MeanV2", [e, [1], False, False], (2,), np.float32, np.nan),
             ("Prod", [e, np.float32], (), np.float32, 1.0),
             ("ProdDim", [e, 1, False, np.int64], (2,), np.int64, 1),
             ("All", [e, [1], False], (2,), np.bool_, True),
             ("Any", [e, [1], False], (2,), np.bool_, False),
             ("Std", [e, [1], 1, False], (2,), np.float32, np.nan),
             ("Var", [e, [1], True, False], (2,), np.float32, np.nan),
             ("VarCorrection", [e, [1], 1, False], (2,), np.float32, np.nan),
             ("LogSumExp", [e, [1], False], (2,), np.float32, -np.inf),
             ("ReduceLogSum", [e, [1], False, False], (2,), np.float32, 0.0)]
    for op, args, shape, dt, val in cases:
        o = out_view(shape, dt)
        pyaclnn.call(op, *args, o)
        np.testing.assert_array_equal(o, np.full(shape, val, dt), err_msg=op)
    v, m = np.full(2, 7, np.float32), np.full(2, 7, np.float32)
    pyaclnn.call("VarMean", e, [1], 1, False, v, m)
    assert np.isnan(v).all() and np.isnan(m).all()
    pyaclnn.call("StdMeanCorrection", e, [1], 1, False, v, m)
    assert np.isnan(v).all() and np.isnan(m).all()
    # nothing to write: success, outputs untouched
    for op, args, outs in (("Max", [e], [np.full((), 7, np.float32)]),
                           ("AminmaxAll", [e], [np.full((), 7, np.float32), np.full((), 7, np.float32)]),
                           ("Amax", [np.zeros((0, 3), np.float32), [1], False], [np.full((0,), 7, np.float32)]),
                           ("ArgMax", [np.zeros((0, 3), np.float32), 0, False], [np.full((3,), 7, np.int64)]),
                           ("MaxDim", [e, 1, False], [np.full(2, 7, np.float32), np.full(2, 7, np.int64)])):
        pyaclnn.call(op, *args, *outs)
        for o in outs:
            assert (o == 7).all(), op
    o = np.full((1, 3, 1, 1), 7, np.float32)
    pyaclnn.call("GlobalAveragePool", np.zeros((1, 3, 0, 2), np.float32), o)  # the mean of nothing
    assert np.isnan(o).all()


def test_zero_dim_inputs():
    s = np.array(2.5, np.float32)
    o = np.zeros((), np.int32)
    pyaclnn.call("ReduceSum", s, [], False, np.int32, o)
    assert o == 2
    for op, args in (("Amax", [[0], True]), ("MaxV2", [[-1], False, False]), ("Mean", [[], False, np.float32]),
                     ("LogSumExp", [[0], False]), ("ReduceNansum", [[], False, np.float32])):
        o = np.zeros((), np.float32)
        pyaclnn.call(op, s, *args, o)
        assert o == 2.5, op
    o = np.zeros((1,), np.int64)
    pyaclnn.call("ArgMax", s, 0, True, o)
    assert o[0] == 0
    o = np.full((), 9, np.int64)
    pyaclnn.call("ArgMin", s, -1, False, o)
    assert o == 0
    mn, mx = np.zeros((), np.float32), np.zeros((), np.float32)
    pyaclnn.call("Aminmax", s, [0], False, mn, mx)
    assert mn == 2.5 and mx == 2.5
    o = np.zeros((), np.float32)
    pyaclnn.call("Std", s, [0], 0, False, o)
    assert o == 0
    pyaclnn.call("Std", s, [0], 1, False, o)
    assert np.isnan(o)


def test_degenerate_corrections(torch):
    x = np.array([[1.0, 3.0], [2.0, 2.0]], np.float32)
    o = np.zeros(2, np.float32)
    pyaclnn.call("Std", x, [1], 2, False, o)  # N <= correction > 1: +inf
    assert np.isinf(o).all()
    pyaclnn.call("VarCorrection", x, [1], 5, False, o)
    assert np.isinf(o).all()
    pyaclnn.call("Var", x[:, :1], [1], True, False, o)  # N = 1 unbiased: 0/0
    assert np.isnan(o).all()
    v, m = np.zeros(2, np.float32), np.zeros(2, np.float32)
    pyaclnn.call("VarMean", x[:, :1], [1], 1, False, v, m)  # var NaN, the mean computed
    assert np.isnan(v).all()
    np.testing.assert_array_equal(m, [1.0, 2.0])
    pyaclnn.call("StdMeanCorrection", x, [1], 3, False, v, m)
    assert np.isinf(v).all()
    np.testing.assert_array_equal(m, [2.0, 2.0])
    pyaclnn.call("VarMean", x, [1], -1, False, v, m)  # a negative correction divides by N + 1
    ev, em = torch.var_mean(torch.from_numpy(x), 1, correction=-1)
    check(v, ev.numpy(), "f32", True)


def test_noop_with_empty_axes():
    x = np.array([[1.0, 5.0], [3.0, -2.0]], np.float32)
    o = np.zeros((2, 2), np.float32)
    pyaclnn.call("MeanV2", strided(x), [], True, True, o)
    np.testing.assert_array_equal(o, x)
    o = np.zeros((2, 2), np.float32)
    pyaclnn.call("MaxV2", x, [], False, True, o)
    np.testing.assert_array_equal(o, x)
    o = np.zeros((2, 2), np.float32)
    pyaclnn.call("ReduceLogSum", np.abs(x), [], False, True, o)  # copied, no log
    np.testing.assert_array_equal(o, np.abs(x))
    o = np.zeros((1, 1), np.float32)
    pyaclnn.call("MaxV2", x, [], True, False, o)
    assert o[0, 0] == 5.0
    mn, mx = np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32)
    pyaclnn.call("Aminmax", x, [], False, mn, mx)  # no dims: every element kept
    np.testing.assert_array_equal(mn, x)
    np.testing.assert_array_equal(mx, x)


def test_deterministic_for_threads():
    same_bytes_for_threads(r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(1)
x = rng.standard_normal((3, 70001)).astype(np.float32)
y = rng.standard_normal((300, 257)).astype(np.float16)
c = (rng.standard_normal((2, 30001)) + 1j * rng.standard_normal((2, 30001))).astype(np.complex64)
h = hashlib.sha256()
for dims in ([1], [0, 1], [0]):
    shape = [d for k, d in enumerate(x.shape) if k not in dims]
    for op, extra in (("ReduceSum", [np.float32]), ("Mean", [np.float32]), ("ReduceNansum", [np.float32])):
        o = np.zeros(shape, np.float32); pyaclnn.call(op, x, dims, False, *extra, o); h.update(o.tobytes())
    for op in ("Std", "VarCorrection"):
        o = np.zeros(shape, np.float32); pyaclnn.call(op, x, dims, 1, False, o); h.update(o.tobytes())
    o = np.zeros(shape, np.float32); pyaclnn.call("LogSumExp", x, dims, False, o); h.update(o.tobytes())
for dims in ([1], [0]):
    shape = [d for k, d in enumerate(y.shape) if k not in dims]
    o = np.zeros(shape, np.float16); pyaclnn.call("ReduceSum", y, dims, False, np.float16, o); h.update(o.tobytes())
    v = np.zeros(shape, np.float16); m = np.zeros(shape, np.float16)
    pyaclnn.call("VarMean", y, dims, 1, False, v, m); h.update(v.tobytes() + m.tobytes())
o = np.zeros(2, np.complex64); pyaclnn.call("ReduceSum", c, [1], False, np.complex64, o); h.update(o.tobytes())
o = np.zeros(2, np.complex64); pyaclnn.call("ProdDim", c[:, :50], 1, False, np.complex64, o); h.update(o.tobytes())
print(h.hexdigest())
""")


# ---- invalid rows, each op_api source's order ----

def T(shape, dt=np.float32, fmt=None):
    return AclTensor.empty(shape, dt, fmt=fmt) if fmt is not None else AclTensor.empty(shape, dt)


def test_invalid_rows():
    ia = pyaclnn.int_array
    x = AclTensor.from_array(np.zeros((2, 3), np.float32))
    o2, o3 = T((2,)), T((3,))
    rows = [
        # ReduceSum: self, dims, out NULL; self/out/dtype lists; out == dtype; rank; dims; the result shape
        ("ReduceSum", [None, ia([1]), False, 0, o2], 161001, "self"),
        ("ReduceSum", [x, None, False, 0, o2], 161001, "dims"),
        ("ReduceSum", [x, ia([1]), False, 0, None], 161001, "out"),
        ("ReduceSum", [T((2, 3), np.uint32), ia([1]), False, 0, o2], 161002, "self"),
        ("ReduceSum", [x, ia([1]), False, 8, o2], 161002, "dtype"),  # ACL_UINT32
        ("ReduceSum", [x, ia([1]), False, 3, o2], 161002, "out"),  # dtype int32, out float
        ("ReduceSum", [x, ia([2]), False, 0, o2], 161002, "dims"),
        ("ReduceSum", [x, ia([1, -1]), False, 0, o2], 161002, "multiple"),
        ("ReduceSum", [x, ia([0]), False, 0, o2], 161002, "out"),
        ("ReduceSum", [T((2, 3), np.complex64), ia([]), False, 16, T((), np.complex64)], 0, None),
        # ReduceNansum: double is not in its list; self must cast to out
        ("ReduceNansum", [T((2, 3), np.float64), ia([1]), False, 11, T((2,), np.float64)], 161002, "self"),
        ("ReduceNansum", [x, ia([1]), False, 3, T((2,), np.int32)], 161002, "cast"),
        # Mean: casts self -> dtype -> out
        ("Mean", [x, ia([1]), False, 3, T((2,), np.int32)], 161002, "cast"),
        ("Mean", [x, ia([1]), False, 0, T((2,), np.bool_)], 161002, "out"),
        ("MeanV2", [x, None, False, False, o2], 161001, "dim"),
        ("MeanV2", [x, ia([1]), False, False, T((2,), np.float16)], 161002, "out"),
        # Prod: out must be dtype; an empty self with a complex out has no fill
        ("ProdDim", [x, 0, False, 0, T((3,), np.float64)], 161002, "out"),
        ("ProdDim", [x, 2, False, 0, o2], 161002, "dim"),
        ("Prod", [T((0, 3)), 16, T((), np.complex64)], 161002, "out"),
        # Amax: out dtype == self first, then the list, dims (an empty reduced dim refused), exact shape
        ("Amax", [T((2, 3), np.uint32), ia([1]), False, T((2,), np.int32)], 161002, "out"),
        ("Amax", [T((0, 3)), ia([0]), False, o3], 161002, "non-zero"),
        ("Amax", [x, ia([1]), False, T((2, 1))], 161002, "out"),
        ("MaxV2", [x, None, False, False, o2], 161001, "dims"),
        ("Max", [x, T((), np.uint32)], 161002, "out"),
        ("Max", [x, T((2,))], 161002, "out"),
        ("Max", [T((9,) + (1,) * 8), T(())], 161002, "self"),
        # MaxDim: the A2 list is f32/f16/i64/bool/bf16; out has self's dtype
        ("MaxDim", [T((2, 3), np.float64), 1, False, T((2,), np.float64), T((2,), np.int64)], 161002, "self"),
        ("MaxDim", [x, 1, False, T((2,), np.float16), T((2,), np.int64)], 161002, "out"),
        ("MinDim", [x, 1, False, o2, None], 161001, "indices"),
        ("MinDim", [x, -3, False, o2, T((2,), np.int64)], 161002, "dim"),
        ("MinDim", [x, 1, False, o2, T((3,), np.int64)], 161002, "indices"),
        # ArgMax: bool refused, out's dtype free; ArgMin: dim before dtype, out int32/int64, private format
        ("ArgMax", [T((2, 3), np.bool_), 1, False, T((2,), np.int64)], 161002, "self"),
        ("ArgMax", [x, 1, False, T((2,), np.float32)], 0, None),
        ("ArgMin", [T((2, 3), np.bool_), 5, False, T((2,), np.float32)], 161002, "dim"),
        ("ArgMin", [x, 1, False, T((2,), np.float32)], 161002, "out"),
        ("ArgMin", [AclTensor.empty((2, 3), np.float32, fmt=pyaclnn.lib.ACL_FORMAT_FRACTAL_NZ), 1, False,
                    T((2,), np.int64)], 161002, "format"),
        ("ArgMin", [T((2, 0)), 1, False, T((2,), np.int64)], 161002, "non-zero"),
        # All/Any: out bool/uint8; All checks the exact shape and repeated dims, Any neither
        ("All", [x, ia([1]), False, T((2,), np.int32)], 161002, "out"),
        ("All", [x, ia([1]), False, T((1, 2), np.bool_)], 161002, "out"),
        ("Any", [x, ia([3]), False, T((2,), np.bool_)], 161002, "dim"),
        # Std/Var: dim may be NULL; VarMean is f32/f16 and checks meanOut before varOut
        ("Std", [x, None, 1, False, T(())], 0, None),
        ("Std", [x, ia([1]), 1, False, T((2,), np.float64)], 161002, "out"),
        ("Std", [x, ia([1]), 1, True, o2], 161002, "out"),
        ("Var", [x, ia([0, 0]), True, False, o3], 161002, "multiple"),
        ("VarCorrection", [None, ia([0]), 1, False, o3], 161001, "self"),
        ("VarCorrection", [x, ia([0]), 1, True, o3], 161002, "out"),
        ("VarMean", [x, ia([1]), 1, False, None, None], 161001, "meanOut"),
        ("VarMean", [T((2, 3), BF16), ia([1]), 1, False, T((2,), BF16), T((2,), BF16)], 161002, "self"),
        ("VarMean", [x, ia([1]), 1, False, T((3,)), T((3,))], 161002, "meanOut"),
        ("StdMeanCorrection", [x, ia([1]), 1, False, o2, T((2,), np.float16)], 161002, "meanOut"),
        # LogSumExp: out f32/f16/bf16, exact shape; ReduceLogSum: f16/f32 only
        ("LogSumExp", [T((2, 3), np.int64), ia([0]), True, T((1, 3), np.int64)], 161002, "out"),
        ("LogSumExp", [T((2, 3), np.float64), ia([0]), True, T((1, 3))], 161002, "self"),
        ("LogSumExp", [x, ia([]), False, T((1,))], 161002, "out"),
        ("ReduceLogSum", [T((2, 3), BF16), ia([0]), False, False, T((3,), BF16)], 161002, "data"),
        ("ReduceLogSum", [x, ia([0, 0]), False, False, o3], 161002, "axes"),
        # Aminmax: a dim out of range among several fails the kernels' shape inference (NULLPTR upstream)
        ("Aminmax", [x, ia([2]), False, o2, o2], 161002, "dim"),
        ("Aminmax", [x, ia([0, 5]), False, o2, o2], 161001, "dim"),
        ("Aminmax", [T((0, 3)), ia([]), False, T(()), T(())], 161002, "empty"),
        ("Aminmax", [x, ia([1]), False, o2, T((2,), np.float16)], 161002, "maxOut"),
        ("AminmaxDim", [T((2, 0)), 1, False, o2, o2], 161002, "non-zero"),
        ("AminmaxDim", [T((2, 0)), -1, False, o2, o2], 0, None),  # upstream reads the size at the dim as given
        ("AminmaxAll", [x, T((2,)), T(())], 161002, "minOut"),
        # global pools: 4..8 dims, same format (ND/NCHW/NCDHW), same dtype; GlobalMaxPool has no bf16
        ("GlobalAveragePool", [T((1, 2, 3)), T((1, 2, 1))], 161002, "4"),
        ("GlobalAveragePool", [AclTensor.empty((1, 2, 3, 5), np.float32, fmt=pyaclnn.lib.ACL_FORMAT_NHWC),
                               AclTensor.empty((1, 2, 1, 1), np.float32, fmt=pyaclnn.lib.ACL_FORMAT_NHWC)], 161002,
         "format"),
        ("GlobalMaxPool", [T((1, 2, 3, 5), BF16), T((1, 2, 1, 1), BF16)], 161002, "self"),
        ("GlobalMaxPool", [T((1, 2, 3, 5)), T((1, 2, 1, 2))], 161002, "out"),
    ]
    for op, args, code, word in rows:
        expect_status(op, args, code, word)
