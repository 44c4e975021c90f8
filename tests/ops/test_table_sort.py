"""Sort, search and count ops (tools/optable/math_sort.py) against PyTorch CPU (literal numpy where PyTorch refuses
the input, e.g. out-of-range bincount/one_hot values): every dtype of each op's A2 list, strided inputs and outputs,
0-d and empty tensors, NaN; the invalid rows in the order the upstream op_api checks them."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from helpers import strided
from table_harness import NP as _NP, compare, expect_status, from_torch, make_scalar, to_torch

FLOATS = ("f16", "bf16", "f32", "f64")
NP = dict(_NP, u16=np.uint16)


def dts(op):
    return OPS[op]["dtypes"]


def mk(rng, shape, dt, lo=-3, hi=3):
    if dt == "bool":
        return np.array(rng.random(shape) < 0.5)
    if dt == "u8":
        return np.array(rng.integers(0, hi + 1, shape).astype(np.uint8))
    if dt in FLOATS:
        return np.array(rng.uniform(lo, hi, shape).astype(NP[dt]))
    return np.array(rng.integers(lo, hi + 1, shape).astype(NP[dt]))


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


def out_like(shape, dt, fill=0):
    if len(shape) == 0:
        return np.full((), fill, NP[dt])
    return strided(np.full(shape, fill, NP[dt]))


def tens(shape, dt="f32"):
    return AclTensor.from_array(np.zeros(shape, NP[dt]))


def S(v, dt=None):
    return make_scalar(v if dt is None else pyaclnn.scalar(v, NP[dt]))


# ---------------------------------------------------------------- sort, argsort
@pytest.mark.parametrize("dt", dts("Sort"))
def test_sort(torch, dt):
    rng = np.random.default_rng(1)
    x = mk(rng, (3, 9, 4), dt, -2, 2)  # many ties: stable order
    if dt in FLOATS:
        x[0, 2, 0] = x[0, 5, 0] = np.nan
        x[1, 3, 1] = -0.0
    x = strided(x)
    for desc in (False, True):
        for dim in (1, -1, 0):
            v, i = torch.sort(T(torch, x), dim=dim, descending=desc, stable=True)
            vo, io = out_like(x.shape, dt), out_like(x.shape, "i64")
            pyaclnn.call("Sort", x, False, dim, desc, vo, io)
            compare(vo, from_torch(v), dt)
            np.testing.assert_array_equal(io, i.numpy())
    if dt in ("i8", "f32"):  # valuesOut in another dtype of its list
        vdt = "i16" if dt == "i8" else "f64"
        vo, io = np.zeros(x.shape, NP[vdt]), np.zeros(x.shape, np.int64)
        pyaclnn.call("Sort", x, True, 1, False, vo, io)
        np.testing.assert_array_equal(vo, from_torch(torch.sort(T(torch, x), dim=1, stable=True)[0]).astype(NP[vdt]))


def test_sort_ranks(torch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 1, 4, 3, 3, 1, 2, 4, 5, 3)).astype(np.float32)  # 10 dims: merged views
    for dim in (4, -1, 0):
        v, i = torch.sort(torch.from_numpy(x), dim=dim, descending=True, stable=True)
        vo, io = np.zeros_like(x), np.zeros(x.shape, np.int64)
        pyaclnn.call("Sort", x, True, dim, True, vo, io)
        np.testing.assert_array_equal(vo, v.numpy())
        np.testing.assert_array_equal(io, i.numpy())
    vo, io = np.zeros((), np.float32), np.full((), 5, np.int64)
    pyaclnn.call("Sort", np.array(1.5, np.float32), False, -1, False, vo, io)
    assert vo == 1.5 and io == 0
    vo = np.full((2, 0), 3, np.float32)
    pyaclnn.call("Sort", np.zeros((2, 0), np.float32), False, 1, False, vo, np.zeros((2, 0), np.int64))


@pytest.mark.parametrize("dt", dts("Argsort"))
def test_argsort(torch, dt):
    rng = np.random.default_rng(3)
    x = mk(rng, (5, 8), dt, -2, 2)
    if dt in FLOATS:
        x[1, 4] = np.nan
    x = strided(x)
    for desc in (False, True):
        for dim in (0, -1):
            o = out_like(x.shape, "i64")
            pyaclnn.call("Argsort", x, dim, desc, o)
            np.testing.assert_array_equal(o, torch.argsort(T(torch, x), dim=dim, descending=desc, stable=True))
    o = np.full((), 4, np.int64)
    pyaclnn.call("Argsort", np.array(x[0, 0]), 0, False, o)
    assert o == 0


# ---------------------------------------------------------------- searchsorted
@pytest.mark.parametrize("dt", dts("SearchSorted"))
def test_searchsorted(torch, dt):
    rng = np.random.default_rng(4)
    seq = np.sort(mk(rng, (3, 7), dt, -5, 5), axis=-1)
    vals = mk(rng, (3, 5), dt, -6, 6)
    if dt in FLOATS:
        seq[2, -1] = np.nan  # sorted: NaN last
        vals[0, 1] = np.nan
    vals = strided(vals)
    for right in (False, True):
        for i32 in (False, True):
            o = out_like(vals.shape, "i32" if i32 else "i64")
            pyaclnn.call("SearchSorted", seq, vals, i32, right, None, o)
            np.testing.assert_array_equal(o, torch.searchsorted(T(torch, seq), T(torch, vals), right=right))
        o = np.zeros((4, 2), np.int64)  # one sequence for every value
        v2 = mk(rng, (4, 2), dt, -6, 6)
        pyaclnn.call("SearchSorted", seq[0], v2, False, right, None, o)
        np.testing.assert_array_equal(o, torch.searchsorted(T(torch, seq[0]), T(torch, v2), right=right))
    # sorter: an unsorted sequence and the permutation that sorts it
    raw = mk(rng, (2, 6), dt, -5, 5)
    srt = np.argsort(raw, axis=-1, kind="stable").astype(np.int64)
    v3 = mk(rng, (2, 4), dt, -6, 6)
    for right in (False, True):
        o = np.zeros((2, 4), np.int64)
        pyaclnn.call("SearchSorted", raw, v3, False, right, srt, o)
        np.testing.assert_array_equal(o, torch.searchsorted(T(torch, raw), T(torch, v3), right=right,
                                                            sorter=torch.from_numpy(srt)))


def test_searchsorted_edges(torch):
    seq = np.array([1, 3, 5, 7], np.int32)
    v = np.array([2.5, 3.0, 7.5], np.float32)  # promoted: compared as float32
    o = np.zeros(3, np.int64)
    pyaclnn.call("SearchSorted", seq, v, False, False, None, o)
    np.testing.assert_array_equal(o, torch.searchsorted(torch.from_numpy(seq).float(), torch.from_numpy(v)))
    o = np.full(3, 9, np.int64)  # an empty sequence: zeros
    pyaclnn.call("SearchSorted", np.zeros(0, np.float32), v, False, False, None, o)
    np.testing.assert_array_equal(o, 0)
    o = np.zeros((), np.int64)  # a 0-d value
    pyaclnn.call("SearchSorted", seq, np.array(4, np.int32), False, True, None, o)
    assert o == 2
    srt = np.array([0, 1, 99, -5], np.int64)  # out-of-range sorter entries are clamped, never read outside
    o = np.zeros(3, np.int64)
    pyaclnn.call("SearchSorted", seq, np.array([0, 4, 9], np.int32), False, False, srt, o)
    assert ((0 <= o) & (o <= 4)).all()


@pytest.mark.parametrize("dt", dts("SearchSorteds"))
def test_searchsorteds(torch, dt):
    rng = np.random.default_rng(5)
    seq = strided(np.sort(mk(rng, (9,), dt, -4, 4)))
    for value in (-1.5, 0, 2.25, 100):
        # the value goes through float32 into sortedSequence's dtype (2.25 -> 2 for integers)
        tv = torch.tensor([value], dtype=torch.float32).to(T(torch, seq).dtype)
        for right in (False, True):
            o = np.zeros((), np.int32)
            pyaclnn.call("SearchSorteds", seq, value, True, right, None, o)
            assert o == torch.searchsorted(T(torch, seq), tv, right=right).item()
    o = np.zeros(1, np.int64)
    pyaclnn.call("SearchSorteds", np.zeros(0, NP[dt]), 1.0, False, False, None, o)
    assert o[0] == 0


# ---------------------------------------------------------------- bincount
@pytest.mark.parametrize("dt", dts("Bincount"))
def test_bincount(dt):
    rng = np.random.default_rng(6)
    x = strided(mk(rng, (40,), dt, 0, 6))
    w_cases = [None, "f32", "f64", "f16", "i32", "bool"]
    for k, wdt in enumerate(w_cases):
        w = None if wdt is None else strided(mk(rng, (40,), wdt, 0, 3) if wdt not in FLOATS else
                                             (np.round(rng.uniform(-2, 2, 40) * 4) / 4).astype(NP[wdt]))
        odt = OPS["Bincount"]["out_dtypes"][k % 4]
        for minlength in (0, 9):
            n = max(int(x.max()) + 1, minlength)
            o = out_like((n,), odt, 5)
            pyaclnn.call("Bincount", x, w, minlength, o)
            e = np.bincount(x.astype(np.int64), None if w is None else w.astype(np.float64), minlength=minlength)
            np.testing.assert_array_equal(o, e.astype(NP[odt]))


def test_bincount_edges():
    x = np.array([0, 2, -1, 7, 2, 4294967297], np.int64)  # cast to int32 first: 2^32 + 1 counts in bin 1
    o = np.full(5, 9, np.int64)
    pyaclnn.call("Bincount", x, None, 0, o)  # -1 and 7 fall outside [0, 5): skipped
    np.testing.assert_array_equal(o, [1, 1, 2, 0, 0])
    o = np.full(4, 9, np.float32)
    pyaclnn.call("Bincount", np.zeros(0, np.int32), None, 4, o)  # empty self, minlength > 0: zeros
    np.testing.assert_array_equal(o, 0)
    o = np.full(4, 9, np.float32)
    pyaclnn.call("Bincount", np.zeros(0, np.int32), None, 0, o)  # minlength 0: untouched
    np.testing.assert_array_equal(o, 9)


# ---------------------------------------------------------------- histc
def histc_int_ref(x, bins, lo, hi, dt):
    """The kernel's integer formula, literally: bounds cast to self's dtype, (x - lo) * bins // (hi - lo) in int32
    (int64 for INT64), the data's range when lo == hi, widened by one when still equal, the last bin closed."""
    x = np.asarray(x).astype(np.int64).ravel()
    lo, hi = (np.array([lo, hi]).astype(np.int64).astype(NP[dt]).astype(np.int64)
              if not (lo == hi) else (x.min(), x.max()))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    out = np.zeros(bins, np.int64)
    for v in x:
        if lo <= v <= hi:
            q = (v - lo) * bins // (hi - lo)
            out[min(q, bins - 1)] += 1
    return out


@pytest.mark.parametrize("dt", dts("Histc"))
def test_histc(torch, dt):
    rng = np.random.default_rng(7)
    x = mk(rng, (6, 50), dt, -4, 4)
    if dt in FLOATS:
        x[0, :3] = [np.nan, -2.0, 2.0]  # NaN is never counted; the bounds are inside
    x = strided(x)
    odt = "f32" if dt in FLOATS else ("i32" if dt != "i64" else "i64")  # out's dtype must cast to self's
    for bins, lo, hi in ((8, -2.0, 2.0), (5, -3.0, 1.0), (7, 0.0, 0.0)):
        o = out_like((bins,), odt, 9)
        pyaclnn.call("Histc", x, bins, lo, hi, o)
        if dt not in FLOATS:
            e = histc_int_ref(x, bins, int(lo), int(hi), dt)
        elif lo == hi:
            e = np.zeros(bins)  # NaN in the data: its range is NaN, nothing is counted
        else:
            e = torch.histc(T(torch, x).float(), bins, lo, hi).numpy()
        np.testing.assert_array_equal(o, e.astype(NP[odt]))
    o = np.full(3, 9, NP[odt])
    pyaclnn.call("Histc", np.zeros((0, 2), NP[dt]), 3, 0.0, 1.0, o)  # empty self: zeros
    np.testing.assert_array_equal(o, 0)


def test_histc_data_range(torch):
    x = np.random.default_rng(8).standard_normal(200).astype(np.float32)
    o = np.zeros(10, np.float32)
    pyaclnn.call("Histc", x, 10, 1.0, 1.0, o)
    np.testing.assert_array_equal(o, torch.histc(torch.from_numpy(x), 10, 1.0, 1.0).numpy())
    o = np.zeros(4, np.float32)
    pyaclnn.call("Histc", np.full(6, 3.0, np.float32), 4, 0.0, 0.0, o)  # one value: range [2, 4]
    np.testing.assert_array_equal(o, torch.histc(torch.full((6,), 3.0), 4, 0, 0).numpy())


# ---------------------------------------------------------------- one_hot
@pytest.mark.parametrize("odt", OPS["OneHot"]["out_dtypes"])
@pytest.mark.parametrize("dt", dts("OneHot"))
def test_one_hot(dt, odt):
    rng = np.random.default_rng(9)
    x = strided(rng.integers(-1, 6, (3, 4)).astype(NP[dt]))  # -1 and 5 are outside [0, 5): all off
    on, off = np.array([7], NP[odt]), np.array([-2], NP[odt])
    C = 5
    for axis in (-1, 0, 1, 2):
        ax = 2 if axis == -1 else axis
        hot = np.moveaxis(x[..., None] == np.arange(C), -1, ax)
        o = out_like(hot.shape, odt, 3)
        pyaclnn.call("OneHot", x, C, on, off, axis, o)
        np.testing.assert_array_equal(o, np.where(hot, on[0], off[0]).astype(NP[odt]))
    o = np.full((3, 4, 0), 3, NP[odt])
    pyaclnn.call("OneHot", x, 0, on, off, -1, o)


# ---------------------------------------------------------------- masked_select
@pytest.mark.parametrize("dt", dts("MaskedSelect"))
def test_masked_select(torch, dt):
    rng = np.random.default_rng(10)
    x = strided(mk(rng, (1, 4), dt))
    for mdt in ("bool", "u8"):
        m = (rng.random((3, 4)) < 0.5).astype(NP[mdt])  # broadcast: self (1, 4) with mask (3, 4)
        o = strided(np.full(12, 9, NP[dt]))
        pyaclnn.call("MaskedSelect", x, m, o)
        e = from_torch(torch.masked_select(T(torch, x), T(torch, m).bool()))
        compare(o[:e.size], e, dt)
        np.testing.assert_array_equal(o[e.size:], np.full(12 - e.size, 9, NP[dt]))  # the rest: untouched
    if dt == "f32":  # self is cast to out's dtype
        o = np.zeros(4, np.float64)
        pyaclnn.call("MaskedSelect", x, np.array([True, False, True, True]), o)
        np.testing.assert_array_equal(o[:3], x[0, [0, 2, 3]].astype(np.float64))


# ---------------------------------------------------------------- fill_diagonal
FILL = {"bool": True, "u8": 200, "i8": -100, "i16": 3000, "i32": -70000, "i64": 2 ** 40 + 1}


@pytest.mark.parametrize("dt", dts("InplaceFillDiagonal"))
def test_fill_diagonal(torch, dt):
    rng = np.random.default_rng(11)
    v = FILL.get(dt, 2.5)
    for shape in ((7, 3), (3, 5), (4, 4, 4), (2, 2)):
        for wrap in (False, True):
            x = mk(rng, shape, dt)
            e = T(torch, x).clone()  # the device fills a contiguous copy: PyTorch on a contiguous tensor
            e.fill_diagonal_(v, wrap=wrap)
            y = strided(x)
            pyaclnn.call("InplaceFillDiagonal", y, v, wrap)
            compare(y, from_torch(e), dt)


# ---------------------------------------------------------------- isin(scalar, tensor)
@pytest.mark.parametrize("dt", dts("IsInScalarTensor"))
def test_isin_scalar_tensor(dt):
    rng = np.random.default_rng(12)
    t = strided(mk(rng, (2, 3), dt, -3, 3))
    present = t.flat[4].item()
    for elem in (present, 55):
        for inv in (False, True):
            o = np.zeros((), np.bool_)
            pyaclnn.call("IsInScalarTensor", pyaclnn.scalar(elem, NP[dt]), t, False, inv, o)
            assert bool(o) == ((np.asarray(t).astype(np.float64) == float(pyaclnn.scalar(elem, NP[dt]).value)).any()
                               != inv)
    o = np.zeros((), np.bool_)
    pyaclnn.call("IsInScalarTensor", 1, np.zeros(0, NP[dt]), False, True, o)  # empty: out = invert
    assert o


def test_isin_scalar_tensor_compare_dtype():
    o = np.zeros((), np.bool_)
    t = np.array([0.1, 0.2], np.float16)  # fewer than 10 elements: compared in float16 (0.1 rounds to it)
    pyaclnn.call("IsInScalarTensor", 0.1, t, False, False, o)
    assert o
    t10 = np.full(10, 0.1, np.float16)  # 10 or more: the promoted dtype (float32 here): 0.1f != f16(0.1)
    pyaclnn.call("IsInScalarTensor", 0.1, t10, False, False, o)
    assert not o
    pyaclnn.call("IsInScalarTensor", pyaclnn.scalar(300, np.int64), np.array([44], np.int8), False, False, o)
    assert o  # compared in int8: 300 wraps to 44
    pyaclnn.call("IsInScalarTensor", float("nan"), np.array([np.nan], np.float32), False, False, o)
    assert not o


# ---------------------------------------------------------------- invalid rows, upstream order
def test_invalid_sort():
    x, i = tens((2, 3)), tens((2, 3), "i64")
    expect_status("Sort", [None, True, 0, False, x, i], 161001, "self")
    expect_status("Sort", [x, True, 0, False, None, i], 161001, "valuesOut")
    expect_status("Sort", [x, True, 0, False, x, None], 161001, "indicesOut")
    expect_status("Sort", [tens((2, 3), "f64"), True, 0, False, x, i], 161002, "self")
    expect_status("Sort", [x, True, 0, False, tens((2, 3), "c64"), i], 161002, "valuesOut")
    expect_status("Sort", [x, True, 0, False, x, tens((2, 3), "i32")], 161002, "indicesOut")
    expect_status("Sort", [x, True, 2, False, x, i], 161002, "dim")
    expect_status("Sort", [tens(()), True, 1, False, tens(()), tens((), "i64")], 161002, "dim")
    expect_status("Sort", [x, True, 0, False, tens((3, 2)), i], 161002, "valuesOut")
    expect_status("Sort", [x, True, 0, False, x, tens((2, 2), "i64")], 161002, "indicesOut")
    expect_status("Sort", [tens((2, 3), "i8"), True, 0, False, tens((2, 3), "i16"), i], 0)
    o = tens((2, 3), "i64")
    expect_status("Argsort", [None, 0, False, o], 161001, "self")
    expect_status("Argsort", [x, 0, False, None], 161001, "out")
    expect_status("Argsort", [x, -3, False, o], 161002, "dim")
    expect_status("Argsort", [tens((2, 1), "bf16"), 1, False, tens((2, 1), "i64")], 161002, "dim")
    expect_status("Argsort", [tens((2, 3), "bool"), 0, False, o], 161002, "self")
    expect_status("Argsort", [x, 0, False, x], 161002, "out")
    expect_status("Argsort", [tens((1,) * 9), 0, False, tens((1,) * 9, "i64")], 161002, "self")
    expect_status("Argsort", [x, 0, False, tens((3, 2), "i64")], 161002, "out")


def test_invalid_search():
    s, v, o = tens((5,)), tens((3,)), tens((3,), "i64")
    expect_status("SearchSorted", [None, v, False, False, None, o], 161001, "sortedSequence")
    expect_status("SearchSorted", [s, None, False, False, None, o], 161001, "self")
    expect_status("SearchSorted", [s, v, False, False, None, None], 161001, "out")
    expect_status("SearchSorted", [tens((5,), "bf16"), v, False, False, None, o], 161002, "sortedSequence")
    expect_status("SearchSorted", [s, tens((3,), "bool"), False, False, None, o], 161002, "self")
    expect_status("SearchSorted", [s, v, True, False, None, o], 161002, "out")
    expect_status("SearchSorted", [s, v, False, False, tens((5,), "i32"), o], 161002, "sorter")
    expect_status("SearchSorted", [tens((1,) * 9), tens((1,) * 9), False, False, None, tens((1,) * 9, "i64")],
                  161002, "sortedSequence")
    expect_status("SearchSorted", [s, v, False, False, None, tens((4,), "i64")], 161002, "out")
    expect_status("SearchSorted", [s, v, False, False, tens((4,), "i64"), o], 161002, "sorter")
    expect_status("SearchSorted", [tens((2, 5)), tens((1,)), False, False, None, tens((1,), "i64")], 161002, "self")
    expect_status("SearchSorted", [tens((2, 5)), tens((3, 4)), False, False, None, tens((3, 4), "i64")], 161002,
                  "sortedSequence")
    expect_status("SearchSorted", [tens((2, 5)), tens((2, 4)), False, False, None, tens((2, 4), "i64")], 0)
    expect_status("SearchSorteds", [None, S(1.0), False, False, None, o], 161001, "sortedSequence")
    expect_status("SearchSorteds", [s, None, False, False, None, o], 161001, "self")
    expect_status("SearchSorteds", [s, S(1.0), False, False, None, None], 161001, "out")
    expect_status("SearchSorteds", [s, S(1.0), False, False, None, tens((0,), "i64")], 161002, "out")
    expect_status("SearchSorteds", [tens((5,), "bool"), S(1.0), False, False, None, tens((1,), "i64")], 161002,
                  "sortedSequence")
    expect_status("SearchSorteds", [tens((2, 5)), S(1.0), False, False, None, tens((1,), "i64")], 161002, "self")
    expect_status("SearchSorteds", [s, S(1.0), False, False, None, tens((2, 2), "i64")], 0)  # out becomes [1]


def test_invalid_counts():
    x, o = tens((4,), "i32"), tens((5,), "i64")
    expect_status("Bincount", [None, None, 0, o], 161001, "self")
    expect_status("Bincount", [x, None, 0, None], 161001, "out")
    expect_status("Bincount", [tens((4,)), None, 0, o], 161002, "self")
    expect_status("Bincount", [x, None, 0, tens((5,), "f16")], 161002, "out")
    expect_status("Bincount", [x, tens((4,), "bf16"), 0, o], 161002, "weights")
    expect_status("Bincount", [tens((2, 2), "i32"), None, 0, o], 161002, "self")
    expect_status("Bincount", [x, tens((3,)), 0, o], 161002, "weights")
    expect_status("Bincount", [x, None, 2 ** 31, o], 161002, "minlength")
    expect_status("Bincount", [x, None, -4, o], 0)
    h, ho = tens((3, 3)), tens((3,))
    expect_status("Histc", [None, 3, S(0.0), S(1.0), ho], 161001, "self")
    expect_status("Histc", [h, 3, S(0.0), S(1.0), None], 161001, "out")
    expect_status("Histc", [h, 3, None, None, ho], 161001, "max")
    expect_status("Histc", [h, 3, None, S(1.0), ho], 161001, "min")
    expect_status("Histc", [tens((3, 3), "f64"), 3, S(0.0), S(1.0), ho], 161002, "self")
    expect_status("Histc", [h, 3, S(0.0), S(1.0), tens((3,), "f64")], 161002, "out")
    expect_status("Histc", [h, 3, S(0.0), S(float("inf")), ho], 161002, "max")
    expect_status("Histc", [h, 3, S(float("inf")), S(float("inf")), ho], 0)
    expect_status("Histc", [h, 0, S(0.0), S(1.0), tens((0,))], 161002, "bins")
    expect_status("Histc", [h, 3, S(2.0), S(1.0), ho], 161002, "max")
    expect_status("Histc", [tens((3,), "i32"), 3, S(2.7), S(2.2), tens((3,), "i32")], 0)  # ToInt32: 2 <= 2
    expect_status("Histc", [tens((3,), "i32"), 3, S(0.0), S(1.0), ho], 161002, "out")  # f32 -> i32: no cast
    expect_status("Histc", [h, 3, S(0.0), S(1.0), tens((1, 3))], 161002, "out")
    expect_status("Histc", [tens((1,) * 9), 3, S(0.0), S(1.0), ho], 161002, "self")
    expect_status("Histc", [h, 4, S(0.0), S(1.0), ho], 161002, "bins")
    s = tens((2, 2), "i64")
    on, off, oo = tens((1,)), tens((1,)), tens((2, 2, 3))
    expect_status("OneHot", [None, 3, on, off, -1, oo], 161001, "self")
    expect_status("OneHot", [s, 3, None, off, -1, oo], 161001, "onValue")
    expect_status("OneHot", [s, 3, on, off, -1, None], 161001, "out")
    expect_status("OneHot", [tens((2, 2), "u8"), 3, on, off, -1, oo], 161002, "self")
    expect_status("OneHot", [s, 3, on, off, -1, tens((2, 2, 3), "f64")], 161002, "out")
    expect_status("OneHot", [s, 3, tens((1,), "bool"), off, -1, oo], 161002, "onValue")
    expect_status("OneHot", [s, 3, on, tens((1,), "i32"), -1, oo], 161002, "offValue")
    expect_status("OneHot", [s, -1, on, off, -1, oo], 161002, "numClasses")
    expect_status("OneHot", [tens((0, 2), "i64"), 0, on, off, -1, tens((0, 2, 0))], 161002, "numClasses")
    expect_status("OneHot", [s, 3, on, off, -2, oo], 161002, "axis")
    expect_status("OneHot", [s, 3, on, off, 3, oo], 161002, "axis")
    expect_status("OneHot", [s, 3, on, off, -1, tens((2, 2))], 161002, "out")
    expect_status("OneHot", [s, 3, on, off, 0, oo], 161002, "out")
    expect_status("OneHot", [s, 3, on, off, 0, tens((3, 2, 2))], 0)
    m = AclTensor.from_array(np.zeros((3, 4), np.bool_))
    expect_status("MaskedSelect", [None, m, tens((12,))], 161001, "self")
    expect_status("MaskedSelect", [tens((3, 4), "u16"), m, tens((12,))], 161002, "self")
    expect_status("MaskedSelect", [tens((3, 4)), tens((3, 4), "i8"), tens((12,))], 161002, "mask")
    expect_status("MaskedSelect", [tens((3, 4)), m, tens((12,), "c64")], 161002, "out")
    expect_status("MaskedSelect", [tens((2, 4)), m, tens((12,))], 161002, "mask")
    expect_status("MaskedSelect", [tens((1, 4)), m, tens((3, 4))], 161002, "out")
    expect_status("MaskedSelect", [tens((1, 4)), m, tens((4,))], 161002, "out")
    expect_status("MaskedSelect", [tens((1, 4)), m, tens((12,), "i64")], 0)  # out's own dtype
    d = tens((3, 3))
    expect_status("InplaceFillDiagonal", [None, S(1.0), False], 161001, "selfRef")
    expect_status("InplaceFillDiagonal", [d, None, False], 161001, "fillValue")
    expect_status("InplaceFillDiagonal", [tens((3, 3), "c64"), S(1.0), False], 161002, "selfRef")
    expect_status("InplaceFillDiagonal", [tens((3,)), S(1.0), False], 161002, "selfRef")
    expect_status("InplaceFillDiagonal", [tens((3, 3, 2)), S(1.0), False], 161002, "selfRef")
    expect_status("InplaceFillDiagonal", [d, S(1j), False], 161002, "fillValue")
    expect_status("InplaceFillDiagonal", [tens((3, 3), "i8"), S(200), False], 161002, "fillValue")
    expect_status("InplaceFillDiagonal", [tens((3, 3), "u8"), S(-1), False], 0)  # wraps (c10::overflows)
    expect_status("InplaceFillDiagonal", [tens((3, 3), "f16"), S(1e6), False], 161002, "fillValue")
    expect_status("InplaceFillDiagonal", [tens((3, 3), "f16"), S(float("inf")), False], 0)
    t, ob = tens((4,)), AclTensor.from_array(np.zeros((), np.bool_))
    expect_status("IsInScalarTensor", [None, t, False, False, ob], 161001, "element")
    expect_status("IsInScalarTensor", [S(1.0), None, False, False, ob], 161001, "testElements")
    expect_status("IsInScalarTensor", [S(1.0), t, False, False, None], 161001, "out")
    expect_status("IsInScalarTensor", [S(True), t, False, False, ob], 161002, "element")
    expect_status("IsInScalarTensor", [S(1.0), tens((4,), "bool"), False, False, ob], 161002, "testElements")
    expect_status("IsInScalarTensor", [S(1.0), t, False, False, tens(())], 161002, "out")
    expect_status("IsInScalarTensor", [S(1.0), tens((1,) * 9), False, False, ob], 161002, "testElements")
    expect_status("IsInScalarTensor", [S(1.0), t, False, False, AclTensor.from_array(np.zeros(1, np.bool_))], 161002,
                  "out")


def test_invalid_isin_tensor_scalar():
    # an elementwise table op (math_binary.py) whose aclScalar has its own A2 list (arg_dtypes): checked in API order
    e, ob = tens((2, 3)), AclTensor.from_array(np.zeros((2, 3), np.bool_))
    expect_status("IsInTensorScalar", [tens((2, 3), "bool"), S(1.0), False, False, ob], 161002, "element")
    expect_status("IsInTensorScalar", [e, S(False), False, False, ob], 161002, "testElement")
    expect_status("IsInTensorScalar", [e, S(1j), False, False, ob], 161002, "testElement")
    expect_status("IsInTensorScalar", [e, S(2, "i8"), False, False, ob], 0)


DETERMINISM = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(3)
h = hashlib.sha256()
x = rng.standard_normal((64, 700)).astype(np.float32)
x[::5, ::9] = np.nan
x[1::3] = np.round(x[1::3])  # ties
for op, args in (("Sort", (x, False, 1, True)), ("Sort", (x, True, 0, False))):
    v, i = np.zeros_like(x), np.zeros(x.shape, np.int64)
    pyaclnn.call(op, *args, v, i)
    h.update(v.tobytes()); h.update(i.tobytes())
for op in ("Cummax", "Cummin"):
    v, i = np.zeros_like(x), np.zeros(x.shape, np.int64)
    pyaclnn.call(op, x, 1, v, i)
    h.update(v.tobytes()); h.update(i.tobytes())
for dt in (np.float16, np.float32):
    o = np.zeros(x.shape, dt)
    pyaclnn.call("CumsumV2", x.astype(dt), 1, False, True, o)
    h.update(o.tobytes())
seq = np.sort(rng.standard_normal((64, 300)).astype(np.float32), axis=1)
o = np.zeros((64, 700), np.int64)
pyaclnn.call("SearchSorted", seq, x, False, True, None, o)
h.update(o.tobytes())
o = np.zeros((64, 700, 4), np.float32)
pyaclnn.call("OneHot", (np.abs(np.nan_to_num(x)) * 2).astype(np.int64), 4, np.ones(1, np.float32),
             np.zeros(1, np.float32), -1, o)
h.update(o.tobytes())
print(h.hexdigest())
"""


def test_same_bytes_for_threads():
    from helpers import same_bytes_for_threads
    same_bytes_for_threads(DETERMINISM)


def test_masked_select_sets_the_view_shape_to_the_count():
    """As on the device (a dynamic-shape kernel), out's view shape becomes the number of selected elements: the
    length torch_npu reads back after the call. A NULL mask address at phase 1 leaves the shape as given."""
    from helpers import ws_call, run_executor
    x = np.array([[1., -2., 3.], [-4., 5., 6.]], np.float32)
    xt = pyaclnn.AclTensor.from_array(x)
    mt = pyaclnn.AclTensor.from_array(x > 0)
    ot = pyaclnn.AclTensor((6,), np.float32)
    rc, wss, ex, msg = ws_call("MaskedSelect", xt, mt, ot)
    assert rc == 0, msg
    assert run_executor("MaskedSelect", ex, wss) == 0
    dims = pyaclnn.ffi.new("int64_t **")
    cnt = pyaclnn.ffi.new("uint64_t *")
    assert pyaclnn.lib.aclGetViewShape(ot.handle, dims, cnt) == 0
    assert [dims[0][k] for k in range(cnt[0])] == [4]
    np.testing.assert_array_equal(ot.numpy()[:4], x[x > 0])
