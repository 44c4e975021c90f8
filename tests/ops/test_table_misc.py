"""Scans, tensor-list reductions and small products (tools/optable/math_misc.py) against PyTorch CPU (or literal
numpy where PyTorch has no kernel for a dtype): every dtype of each op's A2 list, strided inputs and outputs, 0-d and
empty tensors, NaN; the invalid rows in the order the upstream op_api checks them."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from helpers import strided
from table_harness import NP, compare, expect_status, from_torch, make_scalar, to_torch

NPX = dict(NP, u16=np.uint16, u32=np.uint32, u64=np.uint64)
INTS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "bool")
FLOATS = ("f16", "bf16", "f32", "f64")


def dts(op):
    return OPS[op]["dtypes"]


def mk(rng, shape, dt, lo=-3, hi=3):
    if dt == "bool":
        return np.array(rng.random(shape) < 0.5)
    if dt in ("u8", "u16", "u32", "u64"):
        return np.array(rng.integers(0, hi + 1, shape).astype(NPX[dt]))
    if dt in INTS:
        return np.array(rng.integers(lo, hi + 1, shape).astype(NPX[dt]))
    x = rng.uniform(lo, hi, shape)
    if dt in ("c64", "c128"):
        x = x + 1j * rng.uniform(lo, hi, shape)
    return np.array(x.astype(NPX[dt]))


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


def same(actual, expected, dt):
    if dt in ("c64", "c128"):
        np.testing.assert_allclose(actual, expected, rtol=1e-5 if dt == "c64" else 1e-12, atol=1e-5)
    else:
        compare(actual, np.asarray(expected).astype(actual.dtype) if actual.dtype != np.dtype(NPX["bf16"])
                else np.asarray(expected), dt)


def tdt(torch, dt):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
            "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
            "bool": torch.bool, "c64": torch.complex64, "c128": torch.complex128}[dt]


def out_like(shape, dt, fill=0):
    """A strided output pre-filled with `fill` (so an untouched output is visible)."""
    if len(shape) == 0:
        return np.full((), fill, NPX[dt])
    return strided(np.full(shape, fill, NPX[dt]))


# ---------------------------------------------------------------- scans
@pytest.mark.parametrize("dt", dts("Cumsum"))
def test_cumsum(torch, dt):
    rng = np.random.default_rng(1)
    x = strided(mk(rng, (3, 4, 5), dt))
    for dim in (1, -1, 0):
        o = out_like(x.shape, dt)
        pyaclnn.call("Cumsum", x, dim, pyaclnn.tensor.acl_dtype(NPX[dt]), o)
        same(o, from_torch(torch.cumsum(T(torch, x), dim, dtype=tdt(torch, dt))), dt)
    # self is cast to out's dtype first (any self dtype): f32 -> int truncates, bool counts
    if dt in ("i32", "f64"):
        for src in (mk(rng, (6,), "f32"), mk(rng, (6,), "bool")):
            o = np.zeros(6, NPX[dt])
            pyaclnn.call("Cumsum", src, 0, pyaclnn.tensor.acl_dtype(NPX[dt]), o)
            same(o, from_torch(torch.cumsum(T(torch, src).to(tdt(torch, dt)), 0)), dt)
    o = np.zeros((), NPX[dt])  # 0-d: dim 0 and -1
    x0 = mk(rng, (), dt)
    pyaclnn.call("Cumsum", x0, -1, pyaclnn.tensor.acl_dtype(NPX[dt]), o)
    same(o, x0, dt)
    e = np.full((2, 0, 3), 7, NPX[dt])
    pyaclnn.call("Cumsum", np.zeros((2, 0, 3), NPX[dt]), 1, pyaclnn.tensor.acl_dtype(NPX[dt]), e)


@pytest.mark.parametrize("dt", dts("CumsumV2"))
def test_cumsum_v2(torch, dt):
    rng = np.random.default_rng(2)
    x = strided(mk(rng, (3, 6), dt))
    t = T(torch, x)
    for excl in (False, True):
        for rev in (False, True):
            for dim in (0, 1):
                s = torch.flip(t, [dim]) if rev else t
                c = torch.cumsum(s, dim, dtype=tdt(torch, dt))
                if excl:  # the running sum before each element (the same additions, shifted by one)
                    z = torch.zeros_like(c.narrow(dim, 0, 1))
                    c = torch.cat([z, c.narrow(dim, 0, c.shape[dim] - 1)], dim)
                e = from_torch(torch.flip(c, [dim]) if rev else c)
                o = out_like(x.shape, dt)
                pyaclnn.call("CumsumV2", x, dim, excl, rev, o)
                same(o, e, dt)


def np_cumprod(x, dim, dt):
    """Literal wrapping product for integers (numpy's modular integer arithmetic)."""
    a = np.asarray(x).astype(np.uint64 if dt.startswith("u") else np.int64)
    return np.cumprod(a, axis=dim).astype(NPX[dt])


@pytest.mark.parametrize("dt", dts("Cumprod"))
def test_cumprod(torch, dt):
    rng = np.random.default_rng(3)
    x = strided(mk(rng, (3, 7), dt, -3, 3))
    for dim in (1, -2):
        o = out_like(x.shape, dt)
        pyaclnn.call("Cumprod", x, pyaclnn.scalar(dim, np.int32 if dim > 0 else np.int64),
                     pyaclnn.tensor.acl_dtype(NPX[dt]), o)
        if dt in FLOATS:
            same(o, from_torch(torch.cumprod(T(torch, x), dim)), dt)
        else:
            np.testing.assert_array_equal(o, np_cumprod(x, dim, dt))
    y = np.array(x)  # in place, on a strided view
    pyaclnn.call("InplaceCumprod", y, pyaclnn.scalar(1, np.int64))
    if dt in FLOATS:
        same(y, from_torch(torch.cumprod(T(torch, x), 1)), dt)
    else:
        np.testing.assert_array_equal(y, np_cumprod(x, 1, dt))
    o = np.zeros((), NPX[dt])
    pyaclnn.call("Cumprod", np.array(x[0, 0]), 0, -1, o)  # dtype ACL_DT_UNDEFINED: out's dtype
    np.testing.assert_array_equal(o, x[0, 0])


@pytest.mark.parametrize("op", ["Cummax", "Cummin"])
@pytest.mark.parametrize("dt", dts("Cummax"))
def test_cummax_cummin(torch, op, dt):
    rng = np.random.default_rng(4)
    x = mk(rng, (4, 9), dt, -2, 2)  # small range: many ties (the index moves to the later one)
    if dt in FLOATS:
        x[1, 3] = np.nan
        x[1, 6] = np.nan
        x[2, 0] = np.nan
    x = strided(x)
    f = getattr(torch, op.lower())
    for dim in (1, 0):
        v, i = f(T(torch, x), dim)
        for idt in ("i64", "i32"):
            vo, io = out_like(x.shape, dt), out_like(x.shape, idt)
            pyaclnn.call(op, x, dim, vo, io)
            same(vo, from_torch(v), dt)
            np.testing.assert_array_equal(io, i.numpy().astype(NPX[idt]))
    if dt == "f32":  # values in another dtype of the list
        vo, io = np.zeros(x.shape, np.float64), np.zeros(x.shape, np.int64)
        pyaclnn.call(op, x, 1, vo, io)
        np.testing.assert_array_equal(vo, from_torch(f(T(torch, x), 1)[0]).astype(np.float64))
    vo, io = np.full((0, 3), 5, NPX[dt]), np.full((0, 3), 5, np.int64)
    pyaclnn.call(op, np.zeros((0, 3), NPX[dt]), 1, vo, io)


def test_cummin_0d():
    vo, io = np.zeros((), np.float32), np.full((), 9, np.int64)
    pyaclnn.call("Cummin", np.array(2.5, np.float32), -1, vo, io)
    assert vo == 2.5 and io == 0


# ---------------------------------------------------------------- tensor lists
def sum_ref(arrs, dt, shape, group=True):
    """aclnnSum literally: f16 promoted to f32; the last 16 tensors summed (in order) and replaced by their sum
    while 16 or more remain; then the rest in order, one f32 rounding per addition; integers wrap."""
    if dt not in FLOATS:
        return np.sum([np.broadcast_to(a, shape).astype(np.int64) for a in arrs], axis=0).astype(NPX[dt])
    items = [np.broadcast_to(a, shape).astype(np.float32) for a in arrs]

    def seq(xs):
        acc = xs[0].copy()
        for x in xs[1:]:
            acc = (acc + x).astype(np.float32)
        return acc
    while group and len(items) >= 16:
        items = items[:-16] + [seq(items[-16:])]
    return seq(items).astype(NPX[dt])


@pytest.mark.parametrize("dt", dts("Sum"))
def test_sum(dt):
    rng = np.random.default_rng(5)
    arrs = [strided(mk(rng, (3, 4), dt)), mk(rng, (4,), dt), mk(rng, (3, 1), dt)]
    o = out_like((3, 4), dt)
    pyaclnn.call("Sum", arrs, o)
    same(o, sum_ref(arrs, dt, (3, 4)), dt)
    many = [mk(rng, (5,), dt, -100, 100) * (10.0 ** (i % (7 if dt == "f32" else 2)) if dt in FLOATS else 1)
            for i in range(37)]
    many = [np.array(m.astype(NPX[dt])) for m in many]
    o = np.zeros(5, NPX[dt])
    pyaclnn.call("Sum", many, o)
    np.testing.assert_array_equal(o, sum_ref(many, dt, (5,)))
    o = np.zeros((), NPX[dt])
    pyaclnn.call("Sum", [np.array(1, NPX[dt]), np.array(1, NPX[dt])], o)
    assert o == 2


@pytest.mark.parametrize("dt", dts("AddN"))
def test_addn(dt):
    rng = np.random.default_rng(6)
    arrs = [strided(mk(rng, (2, 3, 4), dt)) for _ in range(4)]
    o = out_like((2, 3, 4), dt)
    pyaclnn.call("AddN", arrs, o)
    same(o, sum_ref(arrs, dt, (2, 3, 4), group=False), dt)
    o = np.full((2, 0), 3, NPX[dt])
    pyaclnn.call("AddN", [np.zeros((2, 0), NPX[dt])] * 2, o)


@pytest.mark.parametrize("op", ["MaxN", "MinN"])
@pytest.mark.parametrize("dt", dts("MaxN"))
def test_maxn_minn(torch, op, dt):
    rng = np.random.default_rng(7)
    arrs = [strided(mk(rng, (3, 4), dt)), mk(rng, (4,), dt), mk(rng, (1, 4), dt)]
    if dt in FLOATS:
        arrs[1][2] = np.nan  # propagates
    f = torch.maximum if op == "MaxN" else torch.minimum
    e = T(torch, arrs[0])
    for a in arrs[1:]:
        e = f(e, T(torch, a))
    o = out_like((3, 4), dt)
    pyaclnn.call(op, arrs, o)
    same(o, from_torch(e), dt)


# ---------------------------------------------------------------- products
@pytest.mark.parametrize("dt", dts("Dot"))
def test_dot(torch, dt):
    rng = np.random.default_rng(8)
    a, b = strided(mk(rng, (37,), dt)), strided(mk(rng, (37,), dt))
    o = np.zeros((), NPX[dt])
    pyaclnn.call("Dot", a, b, o)
    if dt in FLOATS:
        e = np.dot(a.astype(np.float64), b.astype(np.float64))
        same(o, from_torch(torch.tensor(e, dtype=torch.float64).to(tdt(torch, dt))), dt)
    else:  # wraps in the dtype
        np.testing.assert_array_equal(o, np.array(np.dot(a.astype(np.int64), b.astype(np.int64))).astype(NPX[dt]))
    o = np.full((), 7, NPX[dt])
    pyaclnn.call("Dot", np.zeros(0, NPX[dt]), np.zeros(0, NPX[dt]), o)
    assert o == 0  # empty vectors: out is filled with 0


@pytest.mark.parametrize("dt", dts("Ger"))
def test_ger(torch, dt):
    rng = np.random.default_rng(9)
    a, b = strided(mk(rng, (4,), dt)), mk(rng, (5,), dt)
    o = out_like((4, 5), dt)
    pyaclnn.call("Ger", a, b, o)
    same(o, from_torch(torch.outer(T(torch, a), T(torch, b))), dt)
    if dt == "i32":  # promoted (i32, f32 -> f32), cast to out (f64)
        b2 = mk(rng, (5,), "f32")
        o = np.zeros((4, 5), np.float64)
        pyaclnn.call("Ger", a, b2, o)
        np.testing.assert_array_equal(o, from_torch(torch.outer(T(torch, a).float(), T(torch, b2))).astype(np.float64))
    o = np.full((0, 5), 3, NPX[dt])
    pyaclnn.call("Ger", np.zeros(0, NPX[dt]), b, o)


def addr_scalars(dt):
    if dt == "bool":
        return [(None, None), (True, True), (False, True)]
    if dt in FLOATS:
        return [(None, None), (0.5, 2.0), (0.0, 1.0), (1.0, -1.5)]
    return [(None, None), (2, 3), (0, 1), (1, -2)]


@pytest.mark.parametrize("dt", dts("Addr"))
def test_addr(torch, dt):
    rng = np.random.default_rng(10)
    v1, v2 = strided(mk(rng, (4,), dt)), mk(rng, (5,), dt)
    for shape in ((4, 5), (5,), (4, 1), ()):
        m = mk(rng, shape, dt)
        if dt in FLOATS and shape == (4, 5):
            m[0, 0] = np.nan  # beta == 0 ignores self
        for beta, alpha in addr_scalars(dt):
            kw = {} if beta is None else {"beta": beta, "alpha": alpha}
            e = torch.addr(T(torch, m), T(torch, v1), T(torch, v2), **kw)
            o = out_like((4, 5), dt)
            pyaclnn.call("Addr", m, v1, v2, beta, alpha, o)
            same(o, from_torch(e), dt)
    m = strided(mk(rng, (4, 5), dt))
    e = torch.addr(T(torch, m), T(torch, v1), T(torch, v2))
    pyaclnn.call("InplaceAddr", m, v1, v2, None, None)
    same(m, from_torch(e), dt)
    o = np.full((0, 5), 3, NPX[dt])
    pyaclnn.call("Addr", np.zeros((0, 5), NPX[dt]), np.zeros(0, NPX[dt]), v2, None, None, o)


@pytest.mark.parametrize("dt", dts("Trace"))
def test_trace(torch, dt):
    rng = np.random.default_rng(11)
    m = strided(mk(rng, (5, 3), dt))
    odt = "i64" if dt in INTS else dt
    o = np.zeros((), NPX[odt])
    pyaclnn.call("Trace", m, o)
    if dt == "bool":
        assert o == np.trace(m.astype(np.int64))
    elif dt in FLOATS:
        e = np.trace(m.astype(np.float64))
        same(o, from_torch(torch.tensor(e).to(tdt(torch, dt))), dt)
    else:
        same(o, from_torch(torch.trace(T(torch, m))), odt)
    o = np.full((), 3, NPX[odt])
    pyaclnn.call("Trace", np.zeros((0, 4), NPX[dt]), o)
    assert o == 0


@pytest.mark.parametrize("dt", dts("Equal"))
def test_equal(dt):
    rng = np.random.default_rng(12)
    a = strided(mk(rng, (3, 4), dt, 0, 3))
    o = np.zeros(1, np.bool_)
    pyaclnn.call("Equal", a, np.array(a), o)
    assert o[0]
    b = np.array(a)
    b[2, 3] = 1 if a[2, 3] != 1 else 2
    pyaclnn.call("Equal", a, b, o)
    assert not o[0]
    pyaclnn.call("Equal", a, np.array(a[:2]), o)  # shapes differ
    assert not o[0]
    o[0] = False
    pyaclnn.call("Equal", np.zeros((0, 2), NPX[dt]), np.zeros((0, 2), NPX[dt]), o)
    assert o[0]
    if dt in FLOATS:
        c = np.array(a)
        c[0, 0] = np.nan
        pyaclnn.call("Equal", c, np.array(c), o)
        assert not o[0]  # NaN != NaN


def test_equal_promoted():
    # int32 vs float16 compare in float16: 2049 rounds to 2048
    o = np.zeros(1, np.bool_)
    pyaclnn.call("Equal", np.array([2049], np.int32), np.array([2048], np.float16), o)
    assert o[0]


@pytest.mark.parametrize("dt", dts("LinalgCross"))
def test_linalg_cross(torch, dt):
    rng = np.random.default_rng(13)
    a, b = strided(mk(rng, (2, 3, 4), dt)), mk(rng, (2, 3, 4), dt)
    for dim in (1, -2):
        o = out_like((2, 3, 4), dt)
        pyaclnn.call("LinalgCross", a, b, dim, o)
        same(o, from_torch(torch.linalg.cross(T(torch, a), T(torch, b), dim=dim)), dt)
    # broadcast, other with more dims: a non-negative dim counts from self's first dim
    s, t = mk(rng, (3,), dt), mk(rng, (2, 3), dt)
    o = np.zeros((2, 3), NPX[dt])
    pyaclnn.call("LinalgCross", s, t, 0, o)
    ts, tt_ = torch.broadcast_tensors(T(torch, s), T(torch, t))
    same(o, from_torch(torch.linalg.cross(ts, tt_, dim=1)), dt)


# ---------------------------------------------------------------- invalid rows, upstream order
def tens(shape, dt="f32", fmt=None):
    return AclTensor.from_array(np.zeros(shape, NPX[dt]))


_KEEP = []


def tlist(*specs):
    """A new aclTensorList of new tensors ((shape, dtype) or shape); the list owns (destroys) its elements."""
    ts = [tens(*(s if isinstance(s, tuple) and len(s) == 2 and isinstance(s[1], str) else (s,))) for s in specs]
    _KEEP.append(ts)
    h = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [t.handle for t in ts] or [ffi.NULL]), len(ts))
    return ffi.gc(h, lib.aclDestroyTensorList)


def acl(dt):
    return pyaclnn.tensor.acl_dtype(NPX[dt])


def S(v, dt=None):
    return make_scalar(v if dt is None else pyaclnn.scalar(v, NPX[dt]))


def test_invalid_scans():
    x, i64 = tens((2, 3)), tens((2, 3), "i64")
    F = acl("f32")
    expect_status("Cumsum", [None, 0, F, x], 161001, "self")
    expect_status("Cumsum", [x, 0, F, None], 161001, "out")
    expect_status("Cumsum", [x, 0, acl("bool"), tens((2, 3), "bool")], 161002, "out")
    expect_status("Cumsum", [x, 0, acl("f64"), x], 161002, "dtype")
    expect_status("Cumsum", [x, 0, F, tens((3, 2))], 161002, "out")
    expect_status("Cumsum", [tens((1,) * 9), 0, F, tens((1,) * 9)], 161002, "self")
    expect_status("Cumsum", [x, 2, F, x], 161002, "dim")
    expect_status("Cumsum", [tens(()), 1, F, tens(())], 161002, "dim")
    expect_status("Cumsum", [tens((2, 3), "bool"), 1, acl("i64"), i64], 0)
    expect_status("CumsumV2", [tens((2, 3), "bool"), 0, False, False, tens((2, 3), "bool")], 161002, "self")
    expect_status("CumsumV2", [x, 0, False, False, tens((2, 3), "f64")], 161002, "out")
    expect_status("CumsumV2", [x, -3, False, False, x], 161002, "dim")
    expect_status("Cumprod", [None, S(0), F, x], 161001, "input")
    expect_status("Cumprod", [x, None, F, x], 161001, "dim")
    expect_status("Cumprod", [tens((2, 3), "bool"), S(0), F, x], 161002, "input")
    expect_status("Cumprod", [x, S(0), F, None], 161001, "out")
    expect_status("Cumprod", [x, S(0.0), F, x], 161002, "dim")
    expect_status("Cumprod", [x, S(2, "i32"), F, x], 161002, "dim")
    expect_status("Cumprod", [tens(()), S(1), F, tens(())], 161002, "dim")
    expect_status("Cumprod", [x, S(0), F, tens((3, 2))], 161002, "out")
    expect_status("Cumprod", [x, S(0), acl("f64"), x], 0)  # mismatch: logged, 0 returned, nothing computed
    expect_status("InplaceCumprod", [None, S(0)], 161001, "input")
    expect_status("InplaceCumprod", [x, S(-3)], 161002, "dim")
    for op in ("Cummax", "Cummin"):
        expect_status(op, [None, 0, x, i64], 161001, "self")
        expect_status(op, [x, 0, None, i64], 161001, "valuesOut")
        expect_status(op, [x, 0, x, None], 161001, "indicesOut")
        expect_status(op, [x, 2, x, i64], 161002, "dim")
        expect_status(op, [tens((2, 3), "c64"), 0, x, i64], 161002, "self")
        expect_status(op, [x, 0, tens((2, 3), "c64"), i64], 161002, "valuesOut")
        expect_status(op, [x, 0, x, x], 161002, "indicesOut")
        expect_status(op, [x, 0, tens((3, 2)), i64], 161002, "valuesOut")
        expect_status(op, [x, 0, x, tens((2, 2), "i64")], 161002, "indicesOut")
    expect_status("Cummax", [tens(()), 0, tens(()), tens((), "i64")], 161002, "dim")
    expect_status("Cummin", [tens(()), 0, tens(()), tens((), "i64")], 0)
    expect_status("Cummin", [tens(()), 1, tens(()), tens((), "i64")], 161002, "dim")


def test_invalid_lists():
    a, b = tens((2, 3)), tens((3,))
    A, B = (2, 3), (3,)
    expect_status("Sum", [None, a], 161001, "tensors")
    expect_status("Sum", [tlist(A, B), None], 161001, "out")
    expect_status("Sum", [tlist(A, (A, "f64")), a], 161002, "tensors")
    expect_status("Sum", [tlist(A, B), tens((2, 3), "i64")], 161002, "out")
    expect_status("Sum", [tlist((1,) * 9, A), a], 161002, "tensors")
    expect_status("Sum", [tlist(A, (4,)), a], 161002, "tensors")
    expect_status("Sum", [tlist(A, B), tens((3,))], 161002, "out")
    expect_status("Sum", [tlist(A, B), a], 0)
    expect_status("AddN", [None, a], 161001, "tensors")
    expect_status("AddN", [tlist(A, A), None], 161001, "out")
    expect_status("AddN", [tlist(A, A), tens((2, 3), "i32")], 161002, "out")
    expect_status("AddN", [tlist(A, (A, "f64")), a], 161002, "tensors")
    expect_status("AddN", [tlist(A, (1, 3)), a], 161002, "tensors")
    expect_status("AddN", [tlist(A, A), tens((3, 2))], 161002, "out")
    expect_status("AddN", [tlist(), a], 0)
    for op in ("MaxN", "MinN"):
        expect_status(op, [None, a], 161001, "tensors")
        expect_status(op, [tlist(A, B), None], 161001, "out")
        expect_status(op, [tlist(A, (A, "f64")), a], 161002, "tensors")
        expect_status(op, [tlist(A, (A, "i32")), a], 161002, "tensors")
        expect_status(op, [tlist((A, "u8")), tens((2, 3), "u8")], 161002, "out" if op == "MaxN" else "tensors")
        expect_status(op, [tlist(), a], 161002, "tensors")
        expect_status(op, [tlist(A, (4,)), a], 161002, "tensors")
        expect_status(op, [tlist(A, B), tens((1, 2, 3))], 161002, "out")


def test_invalid_products():
    v, f, o0 = tens((3,)), tens((3,), "f64"), tens(())
    expect_status("Dot", [None, v, o0], 161001, "self")
    expect_status("Dot", [v, None, o0], 161001, "tensor")
    expect_status("Dot", [v, v, None], 161001, "out")
    expect_status("Dot", [v, tens((3,), "f16"), o0], 161002, "tensor")
    expect_status("Dot", [v, v, tens((), "f16")], 161002, "out")
    expect_status("Dot", [f, f, tens((), "f64")], 161002, "self")
    expect_status("Dot", [tens((1, 3)), v, o0], 161002, "self")
    expect_status("Dot", [v, tens((4,)), o0], 161002, "tensor")
    expect_status("Dot", [v, v, tens((1,))], 161002, "out")
    m = tens((3, 4))
    expect_status("Ger", [None, tens((4,)), m], 161001, "self")
    expect_status("Ger", [v, tens((4,), "bf16"), m], 161002, "vec2")
    expect_status("Ger", [v, tens((4,)), tens((3, 4), "i32")], 161002, "out")
    expect_status("Ger", [tens((1, 3)), tens((4,)), m], 161002, "self")
    expect_status("Ger", [v, tens((4,)), tens((4, 3))], 161002, "out")
    i3, i4, im = tens((3,), "i32"), tens((4,), "i32"), tens((3, 4), "i32")
    expect_status("Addr", [None, v, tens((4,)), None, None, m], 161001, "self")
    expect_status("Addr", [m, v, tens((4,)), None, None, None], 161001, "out")
    expect_status("Addr", [tens((3, 4), "c64"), v, tens((4,)), None, None, m], 161002, "self")
    expect_status("Addr", [m, v, tens((4,)), S(1j), None, m], 161002, "betaOptional")
    expect_status("Addr", [m, v, tens((4,)), S(True), None, m], 161002, "betaOptional")
    expect_status("Addr", [m, v, tens((4,)), None, S(True), m], 161002, "alphaOptional")
    expect_status("Addr", [im, i3, i4, None, S(1.5), im], 161002, "alphaOptional")
    expect_status("Addr", [im, i3, i4, S(2), S(3), im], 0)
    expect_status("Addr", [m, tens((3, 1)), tens((4,)), None, None, m], 161002, "vec1")
    expect_status("Addr", [tens((1, 3, 4)), v, tens((4,)), None, None, m], 161002, "self")
    expect_status("Addr", [tens((2, 4)), v, tens((4,)), None, None, m], 161002, "self")
    expect_status("Addr", [m, v, tens((4,)), None, None, tens((4, 3))], 161002, "out")
    expect_status("Addr", [tens((1, 4)), tens((0,)), tens((4,)), None, None, tens((4, 3))], 0)  # empty: out unchecked
    expect_status("InplaceAddr", [tens((4,)), v, tens((4,)), None, None], 161002, "selfRef")
    expect_status("Trace", [None, o0], 161001, "self")
    expect_status("Trace", [v, o0], 161002, "self")
    expect_status("Trace", [m, tens((1,))], 161002, "out")
    expect_status("Trace", [tens((3, 3), "u16"), tens((), "i64")], 161002, "self")
    expect_status("Trace", [tens((3, 3), "i32"), tens((), "i32")], 161002, "out")
    o1 = AclTensor.from_array(np.zeros(1, np.bool_))
    expect_status("Equal", [None, m, o1], 161001, "self")
    expect_status("Equal", [m, tens((3, 4), "c64"), o1], 161002, "other")
    expect_status("Equal", [m, tens((3, 4), "u16"), o1], 161002, "other")
    expect_status("Equal", [m, m, tens((1,))], 161002, "out")
    expect_status("Equal", [tens((1,) * 9), m, o1], 161002, "self")
    expect_status("Equal", [m, m, AclTensor.from_array(np.zeros((), np.bool_))], 161002, "out")
    expect_status("Equal", [m, tens((2, 2)), o1], 0)
    c = tens((2, 3))
    expect_status("LinalgCross", [None, c, 1, c], 161001, "self")
    expect_status("LinalgCross", [tens((2, 3), "bool"), tens((2, 3), "bool"), 1, tens((2, 3), "bool")], 161002,
                  "self")
    expect_status("LinalgCross", [c, tens((2, 3), "f64"), 1, c], 161002, "other")
    expect_status("LinalgCross", [c, c, 1, tens((2, 3), "f64")], 161002, "out")
    expect_status("LinalgCross", [c, tens((4, 3)), 1, c], 161002, "other")
    expect_status("LinalgCross", [c, c, 1, tens((1, 2, 3))], 161002, "out")
    expect_status("LinalgCross", [c, c, 2, c], 161002, "dim")
    expect_status("LinalgCross", [c, c, 0, c], 161002, "dim")  # size 2, not 3
    expect_status("LinalgCross", [tens((0, 2)), tens((0, 2)), 0, tens((0, 2))], 0)  # empty before the size check
