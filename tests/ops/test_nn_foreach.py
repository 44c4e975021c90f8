"""The foreach family (tools/optable/nn_foreach.py, libsrc/ops/foreach.c) against torch._foreach_*: every op with
an oracle x every dtype of its A2 list, on a list of differently shaped tensors (one empty, one 0-d, one strided
input and one strided output); then the shared validation's invalid rows with exact codes, scalar-dtype rules,
in-place and aliasing, and the ASCEND950-only interfaces refused on A2."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.lowlevel import AclTensor
from pyaclnn.ops.table import make_scalar
from helpers import strided
from table_harness import BF16, NP, TORCH, compare, expect_status, from_torch, optable, to_torch

FE = [op for op in optable.load("nn_foreach")]
BY = {op.name: op for op in FE}
SHAPES = [(3, 4), (5,), (0, 2), (), (2, 1, 3)]
DOMAIN = {"ForeachAcos": (-0.9, 0.9), "ForeachAsin": (-0.9, 0.9), "ForeachLog": (0.1, 3), "ForeachLog2": (0.1, 3),
          "ForeachLog10": (0.1, 3), "ForeachLog1p": (0.1, 3), "ForeachSqrt": (0.1, 3), "ForeachTan": (-1.2, 1.2),
          "ForeachReciprocal": (0.5, 3)}
INF_ = float("inf")
FTOL = {"f32": (2e-6, 2e-6), "f16": (2e-3, 2e-3), "bf16": (1.6e-2, 1.6e-2)}


def rnd(rng, shape, dt, lo=-3, hi=3):
    if dt in ("f32", "f16", "bf16", "f64"):
        return rng.uniform(lo, hi, shape).astype(NP[dt])
    if dt == "bool":
        return rng.random(shape) < 0.5
    lo_i = 0 if dt.startswith("u") else max(int(lo), -5)
    return rng.integers(lo_i, max(int(hi), 1) + 1, shape).astype(NP[dt])


def roles(op):
    lists = [a for a in op.args if a.kind in ("tensorlist", "outlist") and a.name != "out"]
    out = next((a for a in op.args if a.name == "out"), None)
    sc = next((a for a in op.args if a.kind in ("tensor", "scalar", "scalarlist")), None)
    return lists, out, sc


def lists_for(op, dt, rng):
    name = op.name
    lo, hi = DOMAIN.get(name, (-3, 3))
    if "Pow" in name:
        lo, hi = (0.5, 2) if dt in ("f32", "f16", "bf16") else (0, 3)
    if name in ("ForeachExp", "ForeachExpm1") and dt not in ("f32", "f16", "bf16"):
        lo, hi = 0, 2
    if name.startswith("ForeachDiv") or "Addcdiv" in name:
        lo, hi = 0.5, 3
    lists, _, _ = roles(op)
    return [[rnd(rng, s, dt, lo, hi) for s in SHAPES] for _ in lists]


def scalar_value(op, dt, k=0):
    if "Pow" in op.name:
        return [2.0, 0.5, 3.0][k % 3] if dt in ("f32", "f16", "bf16") else [2, 0, 3][k % 3]
    if dt in ("f32", "f16", "bf16"):
        return [1.25, -0.5, 2.0, 0.75, -1.5][k % 5]
    return [3, -2, 1, 4, -1][k % 5]


def torch_ref(torch, op, dt, ins, svals):
    name = op.name
    T = [[to_torch(torch, a) for a in L] for L in ins]
    fdt = dt in ("f32", "f16", "bf16")
    base = name[len("Foreach"):]
    s = svals[0]
    if base in ("AddScalar", "AddScalarV2", "SubScalar", "SubScalarV2", "MulScalar", "MulScalarV2", "DivScalar",
                "DivScalarV2", "MaximumScalar", "MaximumScalarV2", "MinimumScalar", "MinimumScalarV2",
                "PowScalar", "PowScalarV2"):
        fn = getattr(torch, "_foreach_" + base.replace("ScalarV2", "").replace("Scalar", "").lower())
        return fn(T[0], s)
    if base.endswith("ScalarList") and not base.startswith("Addc"):
        fn = getattr(torch, "_foreach_" + base[:-len("ScalarList")].lower())
        return fn(T[0], svals)
    if base == "PowScalarAndTensor":
        return torch._foreach_pow(s, T[0])
    if base in ("AddList", "AddListV2", "SubList", "SubListV2"):
        fn = torch._foreach_add if base.startswith("Add") else torch._foreach_sub
        return fn(T[0], T[1], alpha=s)
    if base in ("MulList", "DivList", "MaximumList", "MinimumList", "PowList"):
        return getattr(torch, "_foreach_" + base[:-4].lower())(T[0], T[1])
    if base.startswith("Addcmul") or base.startswith("Addcdiv"):
        fn = torch._foreach_addcmul if base.startswith("Addcmul") else torch._foreach_addcdiv
        if base.endswith("List"):
            return fn(T[0], T[1], T[2], svals)
        return fn(T[0], T[1], T[2], s)
    if base == "LerpScalar":
        return torch._foreach_lerp(T[0], T[1], s)
    if base == "LerpList":
        return torch._foreach_lerp(T[0], T[1], T[2])
    if base == "ZeroInplace":
        return [torch.zeros_like(t) for t in T[0]]
    fn = getattr(torch, "_foreach_" + base.lower())
    if not fdt and base in ("Exp", "Expm1"):  # an integer list computed in float, truncated back
        return [r.to(getattr(torch, TORCH[dt])) for r in fn([t.float() for t in T[0]])]
    return fn(T[0])


def c_scalar_arg(op, sc, dt, svals, n):
    combo = next(c for c in op.fe["combos"] if c[0] == dt)
    if sc.kind == "scalarlist":
        return svals
    if sc.kind == "scalar":  # a double (any float list of a V2 op takes it) or an int64
        return np.float64(svals[0]) if isinstance(svals[0], float) else np.int64(svals[0])
    sdt = combo[1]
    if sc.name == "scalars":
        return np.array(svals, NP[sdt])
    return np.array([svals[0]], NP[sdt])


SPECIAL = ("ForeachCopy", "ForeachNorm", "ForeachNonFiniteCheckAndUnscale")
CASES = [(op.name, dt) for op in FE if op.torch and not op.fe["not_on_a2"] and op.name not in SPECIAL
         for dt in op.dtypes]


@pytest.mark.parametrize("name,dt", CASES)
def test_foreach_vs_torch(torch, name, dt):
    op = BY[name]
    rng = np.random.default_rng(abs(hash((name, dt))) % 2 ** 32)
    lists, out, sc = roles(op)
    ins = lists_for(op, dt, rng)
    n = len(SHAPES)
    svals = [scalar_value(op, dt, k) for k in range(n)]
    if sc is not None and sc.name in ("scalar", "alpha", "weight") and sc.kind != "scalarlist":
        svals = [svals[0]] * n
    exp = [from_torch(t) for t in torch_ref(torch, op, dt, ins, svals)]
    args = []
    outs = [strided(np.zeros(s, NP[dt])) if k == 0 else np.zeros(s, NP[dt]) for k, s in enumerate(SHAPES)]
    call_ins = [[strided(a, "transpose") if (k == 4 and a.ndim) else a for k, a in enumerate(L)] for L in ins]
    for a in op.args:
        if a in lists:
            args.append(call_ins[lists.index(a)])
        elif a is out:
            args.append(outs)
        else:
            args.append(c_scalar_arg(op, sc, dt, svals, n))
    pyaclnn.call(name, *args)
    got = outs if out is not None else call_ins[0]
    for g, e in zip(got, exp):
        g = np.asarray(g)
        if dt in FTOL:
            rtol, atol = FTOL[dt]
            np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=rtol * 2, atol=atol * 2,
                                       equal_nan=True)
        else:
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("combo", BY["ForeachCopy"].fe["combos"])
def test_foreach_copy(torch, combo):
    x, _, y = combo
    rng = np.random.default_rng(7)
    ins = [rnd(rng, s, x) for s in SHAPES]
    outs = [np.zeros(s, NP[y]) for s in SHAPES]
    outs[1] = strided(outs[1])
    pyaclnn.call("ForeachCopy", ins, outs)
    for i, o in zip(ins, outs):
        e = from_torch(to_torch(torch, i).to(getattr(torch, TORCH[y])))
        compare(np.asarray(o), e, y) if y in ("f32", "f16", "bf16", "f64") else np.testing.assert_array_equal(o, e)


def test_foreach_inplace_alias_and_scalar_rounding(torch):
    xs = [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones(4, np.float32)]
    pyaclnn.call("ForeachMulScalarV2", xs, 2.0, xs)          # out aliasing x
    np.testing.assert_array_equal(xs[0], np.arange(6).reshape(2, 3) * 2)
    np.testing.assert_array_equal(xs[1], 2)
    h = [np.ones(3, np.float16)]
    o = [np.zeros(3, np.float16)]
    pyaclnn.call("ForeachMulScalarV2", h, np.float64(1.0001), o)   # V2: a double scalar converted to float16 first
    np.testing.assert_array_equal(o[0], np.float16(1.0001))
    i = [np.array([5, -7], np.int32)]
    o = [np.zeros(2, np.int32)]
    pyaclnn.call("ForeachMulScalarV2", i, 3, o)
    np.testing.assert_array_equal(o[0], [15, -21])
    pyaclnn.call("ForeachMulScalar", [], np.array([2.0], np.float32), [])   # an empty list: nothing to do
    big = [np.full(3, 2 ** 30, np.int32)]
    o = [np.zeros(3, np.int32)]
    pyaclnn.call("ForeachAddScalarV2", big, 2 ** 30, o)      # int32 wraps
    np.testing.assert_array_equal(o[0], np.int32(-2 ** 31))


@pytest.mark.parametrize("dt", BY["ForeachNorm"].dtypes)
def test_foreach_norm(torch, dt):
    rng = np.random.default_rng(8)
    xs = [rnd(rng, s, dt) for s in SHAPES]
    xs[4] = strided(xs[4], "transpose")
    for p, ref_ord in ((2.0, 2), (1.0, 1), (np.int64(1), 1), (3.0, 2), (1.7, 1), (np.float64(INF_), 2)):
        outs = [np.zeros((1,), NP[dt]) for _ in SHAPES]
        pyaclnn.call("ForeachNorm", xs, p, outs)              # A2 kernel: int(p) == 1 -> L1, anything else -> L2
        exp = torch._foreach_norm([to_torch(torch, x).float() for x in xs], ref_ord)
        for o, e in zip(outs, exp):
            rtol, atol = FTOL[dt]
            np.testing.assert_allclose(o.astype(np.float64)[0], float(e), rtol=rtol * 2, atol=atol * 2)
    k, x = tl(t())
    ko, o = tl(t((2, 3)))
    expect_status("ForeachNorm", [x, make_scalar(2.0), o], 161002, "out[0]")      # one element each
    expect_status("ForeachNorm", [x, make_scalar(pyaclnn.scalar(2, np.int32)), x], 161002, "scalar")


@pytest.mark.parametrize("dt", BY["ForeachNonFiniteCheckAndUnscale"].dtypes)
def test_foreach_non_finite_check_and_unscale(torch, dt):
    rng = np.random.default_rng(9)
    for poison in (None, np.inf, np.nan):
        xs = [rnd(rng, s, dt) for s in SHAPES]
        if poison is not None:
            xs[4][0, 0, 1] = poison
        found = np.array([-1.0], np.float32)
        inv = np.array([0.25], np.float32)
        tx = [to_torch(torch, x) for x in xs]
        tf = torch.tensor([-1.0])
        torch._amp_foreach_non_finite_check_and_unscale_(tx, tf, torch.tensor([0.25]))
        pyaclnn.call("ForeachNonFiniteCheckAndUnscale", xs, found, inv)
        for x, e in zip(xs, tx):
            np.testing.assert_array_equal(x.astype(np.float64), from_torch(e).astype(np.float64))
        assert found[0] == tf.item()
    k, x = tl(t())
    f32 = AclTensor.from_array(np.zeros(1, np.float32))
    expect_status("ForeachNonFiniteCheckAndUnscale", [None, f32, f32], 161001, "scaledGrads")
    expect_status("ForeachNonFiniteCheckAndUnscale", [x, None, f32], 161001, "foundInf")
    expect_status("ForeachNonFiniteCheckAndUnscale", [x, f32, None], 161001, "invScale")
    f16 = AclTensor.from_array(np.zeros(1, np.float16))
    expect_status("ForeachNonFiniteCheckAndUnscale", [x, f16, f32], 161002, "foundInf")
    two = AclTensor.from_array(np.zeros(2, np.float32))
    expect_status("ForeachNonFiniteCheckAndUnscale", [x, f32, two], 161002, "invScale")
    kb, xb = tl(t(dt="f64"))
    expect_status("ForeachNonFiniteCheckAndUnscale", [xb, f32, f32], 161002, "scaledGrads")


def round_ref(x, mode):
    x = x.astype(np.float64)
    return {1: np.rint(x), 2: np.floor(x), 3: np.ceil(x), 4: np.sign(x) * np.floor(np.abs(x) + 0.5),
            5: np.trunc(x), 7: x - np.trunc(x)}.get(mode, x)


@pytest.mark.parametrize("dt", BY["ForeachRoundOffNumberV2"].dtypes)
def test_foreach_round_off_number(dt):
    rng = np.random.default_rng(10)
    xs = [rnd(rng, s, dt, -4, 4) for s in SHAPES]
    if dt in ("f32", "f16", "bf16"):
        xs[0][0, :3] = np.array([2.5, -2.5, 0.5]).astype(NP[dt])     # ties
    for mode in range(9):
        outs = [np.zeros(s, NP[dt]) for s in SHAPES]
        if dt != "i32":
            pyaclnn.call("ForeachRoundOffNumber", xs, np.array([mode], np.int8), outs)
            for x, o in zip(xs, outs):
                np.testing.assert_array_equal(o.astype(np.float64),
                                              round_ref(x, mode).astype(NP[dt]).astype(np.float64))
        outs = [np.zeros(s, NP[dt]) for s in SHAPES]
        pyaclnn.call("ForeachRoundOffNumberV2", xs, pyaclnn.scalar(mode, np.int64), outs)
        for x, o in zip(xs, outs):
            np.testing.assert_array_equal(o.astype(np.float64), round_ref(x, mode).astype(NP[dt]).astype(np.float64))
    k, x = tl(t())
    expect_status("ForeachRoundOffNumberV2", [x, make_scalar(pyaclnn.scalar(1, np.int32)), x], 161002, "roundMode")
    expect_status("ForeachRoundOffNumber", [x, AclTensor.from_array(np.zeros(1, np.int32)), x], 161002, "roundMode")


# ---------------------------------------------------------------- invalid rows (the shared validation)

def tl(*arrays):
    ts = [AclTensor.from_array(a) for a in arrays]
    h = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [t.handle for t in ts] or [ffi.NULL]), len(ts))
    return ts, ffi.gc(h, lib.aclDestroyTensorList)


def t(shape=(2, 3), dt="f32"):
    return np.zeros(shape, NP[dt])


def test_foreach_invalid_mul_scalar():
    kx, x = tl(t(), t((4,)))
    ko, o = tl(t(), t((4,)))
    s = AclTensor.from_array(np.array([2.0], np.float32))
    expect_status("ForeachMulScalar", [None, s, o], 161001, "x")
    expect_status("ForeachMulScalar", [x, None, o], 161001, "scalar")
    expect_status("ForeachMulScalar", [x, s, None], 161001, "out")
    kb, xb = tl(t(dt="f64"), t((4,), "f64"))
    expect_status("ForeachMulScalar", [xb, s, xb], 161002, "x")            # f64 not in the A2 combinations
    km, xm = tl(t(), t((4,), "f16"))
    expect_status("ForeachMulScalar", [xm, s, o], 161002, "x[1]")          # mixed dtypes in a list
    ko16, o16 = tl(t(dt="f16"), t((4,), "f16"))
    expect_status("ForeachMulScalar", [x, s, o16], 161002, "out")          # out's dtype
    s16 = AclTensor.from_array(np.array([2.0], np.float16))
    expect_status("ForeachMulScalar", [x, s16, o], 161002, "scalar")       # f32 list with an f16 scalar
    ko1, o1 = tl(t())
    expect_status("ForeachMulScalar", [x, s, o1], 161002, "out")           # list lengths
    kos, os_ = tl(t((3, 2)), t((4,)))
    expect_status("ForeachMulScalar", [x, s, os_], 161002, "out[0]")       # shapes
    k9, x9 = tl(t((1,) * 9))
    expect_status("ForeachMulScalar", [x9, s, x9], 161002, "x[0]")        # rank <= 8
    expect_status("ForeachMulScalar", [x, s, o], 0)


def test_foreach_invalid_v2_scalar_rules():
    kx, x = tl(t(), t((4,)))
    for dt, ok in (("f32", True), ("f64", True), ("f16", False), ("i32", False)):
        s = make_scalar(pyaclnn.scalar(2, NP[dt]))
        expect_status("ForeachMulScalarV2", [x, s, x], 0 if ok else 161002, None if ok else "scalar")
    kh, h = tl(t(dt="f16"))
    for dt, ok in (("f16", True), ("f64", True), ("f32", False)):
        s = make_scalar(pyaclnn.scalar(2, NP[dt]))
        expect_status("ForeachMulScalarV2", [h, s, h], 0 if ok else 161002, None if ok else "scalar")
    ki, i = tl(t(dt="i32"))
    for dt, ok in (("i32", True), ("i64", True), ("f32", False)):
        s = make_scalar(pyaclnn.scalar(2, NP[dt]))
        expect_status("ForeachMulScalarV2", [i, s, i], 0 if ok else 161002, None if ok else "scalar")


def test_foreach_invalid_lists_and_scalar_lists():
    k1, a = tl(t(), t((4,)))
    k2, b = tl(t())
    expect_status("ForeachMulList", [a, b, a], 161002, "x2")               # x2 shorter than x1
    k3, c = tl(t(), t((5,)))
    expect_status("ForeachMulList", [a, c, a], 161002, "x2[1]")            # shapes differ
    sl = [make_scalar(1.0)]
    h = lib.aclCreateScalarList(ffi.new("aclScalar *[]", sl), 1)
    expect_status("ForeachAddScalarList", [a, h, a], 161002, "scalars")    # one scalar for two tensors
    lib.aclDestroyScalarList(h)
    sc = AclTensor.from_array(np.array([1.0], np.float32))
    expect_status("ForeachAddcmulScalarList", [a, a, a, sc, a], 161002, "scalars")   # needs one per tensor
    expect_status("ForeachAddcdivList", [a, a, None, sc, a], 161001, "x3")
    expect_status("ForeachPowScalarAndTensor", [None, a, a], 161001, "scalar")       # the scalar comes first


@pytest.mark.parametrize("op", [op for op in FE if op.fe["not_on_a2"]], ids=lambda op: op.name)
def test_foreach_ascend950_only_refused(op):
    k, x = tl(t())
    args = []
    for a in op.args:
        if a.kind in ("tensorlist", "outlist"):
            args.append(x)
        else:
            args.append(AclTensor.from_array(np.array([1.0], np.float32)))
    expect_status(op.name, args, 161002, "A2")
    args[0] = None
    expect_status(op.name, args, 161001, op.args[0].name)


def test_foreach_handwritten_op_api_rules():
    """The ops with a hand-written op_api: its NULL order (out first) and its scalar rule (the V2 one)"""
    k, x = tl(t())
    s = AclTensor.from_array(np.array([2.0], np.float32))
    expect_status("ForeachDivScalar", [None, None, None], 161001, "out")
    expect_status("ForeachAddList", [None, x, None, None], 161001, "out")
    expect_status("ForeachAddList", [None, x, s, x], 161001, "x1")
    expect_status("ForeachAddcdivScalar", [x, x, x, None, None], 161001, "out")
    expect_status("ForeachLerpList", [x, x, x, None], 161001, "out")
    expect_status("ForeachDivList", [x, x, None], 161001, "out")
    s64 = AclTensor.from_array(np.array([2.0], np.float64))
    expect_status("ForeachDivScalar", [x, s64, x], 0)                       # f64 scalar tensor: the V2 rule
    expect_status("ForeachMulScalar", [x, s64, x], 161002, "scalar")        # generated interface: its binaries
    ki, xi = tl(t(dt="i16"))
    expect_status("ForeachAddList", [xi, xi, AclTensor.from_array(np.array([1], np.int32)), xi], 161002, "x1")
    expect_status("ForeachLerpScalar", [x, x, make_scalar(pyaclnn.scalar(1, np.int32)), x], 161002, "weight")
    expect_status("ForeachLerpScalar", [x, x, make_scalar(np.float64(0.5)), x], 0)


def test_foreach_copy_invalid():
    k, x = tl(t(), t((4,)))
    ko, o = tl(t(dt="f16"), t((4,), "f32"))
    expect_status("ForeachCopy", [x, o], 161002, "out[1]")                  # outputs of one dtype
    ki, xi = tl(t(dt="i32"))
    kf, of = tl(t(dt="f32"))
    expect_status("ForeachCopy", [xi, of], 161002, "out")                   # i32 -> f32 is not a mapping
    ku, xu = tl(t(dt="u64"))
    expect_status("ForeachCopy", [xu, xu], 161002, "x")
    k2, o2 = tl(t(dt="f16"), t((4,), "f16"))
    expect_status("ForeachCopy", [x, o2], 0)


@pytest.mark.parametrize("name", ["ForeachSign", "ForeachAbs", "ForeachSqrt", "ForeachReciprocal", "ForeachLog",
                                  "ForeachExp", "ForeachSigmoid", "ForeachTanh", "ForeachNeg", "ForeachErf"])
def test_foreach_special_values(torch, name):
    x = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, -1.0, 1e-30, 88.0], np.float32)
    o = np.zeros_like(x)
    pyaclnn.call(name, [x], [o])
    e = getattr(torch, "_foreach_" + name[len("Foreach"):].lower())([torch.from_numpy(x)])[0].numpy()
    np.testing.assert_allclose(o, e, rtol=2e-6, atol=0, equal_nan=True)


def test_foreach_binary_special_values(torch):
    a = np.array([np.nan, 1.0, np.inf, -np.inf, 0.0], np.float32)
    b = np.array([1.0, np.nan, 1.0, np.inf, 0.0], np.float32)
    for name in ("ForeachMaximumList", "ForeachMinimumList", "ForeachDivList", "ForeachPowList", "ForeachMulList"):
        o = np.zeros_like(a)
        pyaclnn.call(name, [a], [b], [o])
        fn = getattr(torch, "_foreach_" + name[len("Foreach"):-len("List")].lower())
        e = fn([torch.from_numpy(a)], [torch.from_numpy(b)])[0].numpy()
        np.testing.assert_allclose(o, e, rtol=2e-6, atol=0, equal_nan=True, err_msg=name)
