"""Sort, search and count ops (tools/optable/math_sort.py) against PyTorch CPU; invalid rows."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from table_harness import compare, expect_status, from_torch, rand, to_torch

DTS = ["f32", "f16", "bf16", "f64", "i32", "i64", "i8", "u8"]


@pytest.mark.parametrize("dt", DTS)
def test_sort_argsort(torch, dt):
    rng = np.random.default_rng(4)
    x = rand(rng, (3, 7, 2), dt, (-4, 4))
    if dt in ("f32", "f64"):
        x[0, 2, 0] = np.nan
    t = to_torch(torch, x)
    for desc in (False, True):
        v, i = torch.sort(t, dim=1, descending=desc, stable=True)
        vo, io = np.zeros(x.shape, x.dtype), np.zeros(x.shape, np.int64)
        pyaclnn.call("Sort", x, True, 1, desc, vo, io)
        compare(vo, from_torch(v), dt)
        np.testing.assert_array_equal(io, i.numpy())
        o = np.zeros(x.shape, np.int64)
        pyaclnn.call("Argsort", x, -2, desc, o)
        np.testing.assert_array_equal(o, torch.argsort(t, dim=-2, descending=desc, stable=True).numpy())


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted(torch, right):
    seq = np.array([[1, 3, 5, 7, 9], [2, 2, 4, 4, 8]], np.float32)
    v = np.array([[0, 3, 9, 10], [2, 4, 5, 9]], np.float32)
    o = np.zeros(v.shape, np.int64)
    pyaclnn.call("SearchSorted", seq, v, False, right, None, o)
    np.testing.assert_array_equal(o, torch.searchsorted(torch.from_numpy(seq), torch.from_numpy(v), right=right))
    o32 = np.zeros((), np.int32)
    pyaclnn.call("SearchSorteds", seq[0], 4.0, True, right, None, o32)
    assert o32 == torch.searchsorted(torch.from_numpy(seq[0]), 4.0, right=right).item()


def test_counts(torch):
    x = np.array([0, 3, 1, 3, 5], np.int32)
    w = np.array([0.5, 1.0, 2.0, 3.0, 1.5], np.float32)
    o = np.zeros(7, np.float32)
    pyaclnn.call("Bincount", x, w, 7, o)
    np.testing.assert_allclose(o, torch.bincount(torch.from_numpy(x), torch.from_numpy(w), 7).numpy())
    o = np.zeros(6, np.int64)
    pyaclnn.call("Bincount", x, None, 0, o)
    np.testing.assert_array_equal(o, torch.bincount(torch.from_numpy(x)).numpy())
    y = np.random.default_rng(0).standard_normal(100).astype(np.float32)
    o = np.zeros(10, np.float32)
    pyaclnn.call("Histc", y, 10, -1.0, 1.0, o)
    np.testing.assert_array_equal(o, torch.histc(torch.from_numpy(y), 10, -1, 1).numpy())
    pyaclnn.call("Histc", y, 10, 0.0, 0.0, o)
    np.testing.assert_array_equal(o, torch.histc(torch.from_numpy(y), 10).numpy())
    s = np.array([[0, 2], [1, 3]], np.int64)
    o = np.zeros((2, 2, 4), np.float32)
    pyaclnn.call("OneHot", s, 4, np.array([5.0], np.float32), np.array([-1.0], np.float32), -1, o)
    np.testing.assert_array_equal(o, torch.nn.functional.one_hot(torch.from_numpy(s), 4).numpy() * 6.0 - 1)
    m = np.array([[True, False], [False, True]])
    v = np.arange(4, dtype=np.float32).reshape(2, 2)
    o = np.full(4, 9, np.float32)
    pyaclnn.call("MaskedSelect", v, m, o)
    np.testing.assert_array_equal(o[:2], torch.masked_select(torch.from_numpy(v), torch.from_numpy(m)).numpy())
    a = np.zeros((5, 3), np.float32)
    pyaclnn.call("InplaceFillDiagonal", a, 2.0, True)
    np.testing.assert_array_equal(a, torch.zeros(5, 3).fill_diagonal_(2.0, wrap=True).numpy())
    o = np.zeros((), np.bool_)
    pyaclnn.call("IsInScalarTensor", 3, np.array([1, 3], np.int32), False, False, o)
    assert o


def test_invalid_rows():
    x = AclTensor.from_array(np.zeros((2, 3), np.float32))
    i = AclTensor.empty((2, 3), np.int64)
    expect_status("Sort", [None, True, 0, False, x, i], 161001, "self")
    expect_status("Sort", [x, True, 2, False, x, i], 161002, "dim")
    expect_status("Sort", [x, True, 0, False, x, AclTensor.empty((2, 3), np.float32)], 161002, "indicesOut")
    expect_status("Histc", [x, 0, None, None, x], 161001, "min")
    expect_status("SearchSorted", [x, x, False, False, None, AclTensor.empty((2, 3), np.int32)], 161002, "out")
