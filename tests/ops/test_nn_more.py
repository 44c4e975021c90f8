"""ops-nn issue 12 leftovers (tools/optable/nn_more.py): UniqueDim (libsrc/ops/index_unique_dim.c) against
torch.unique(dim=...) and numpy.unique(axis=...) for every dtype of the A2 list, strided self, the flat output
buffers of the upstream example, empty self, and the invalid rows in the op_api's order."""
import numpy as np
import pytest

from pyaclnn.lowlevel import AclTensor
from helpers import run_executor, strided, ws_call
from table_harness import expect_status, to_torch
from test_nn_index import NPX, _view_len, dts, mk, same, tens, torch_ok


def _ud(x, dt, dim, vo, io, co, inverse=True):
    xt = AclTensor.from_array(x)
    rc, wss, ex, msg = ws_call("UniqueDim", xt, True, inverse, dim, vo, io, co)
    assert rc == 0, msg
    assert run_executor("UniqueDim", ex, wss) == 0


@pytest.mark.parametrize("dt", dts("UniqueDim"))
def test_unique_dim(torch, dt):
    rng = np.random.default_rng(31)
    base = mk(rng, (4, 3, 2), dt, 0, 1)
    x = np.concatenate([base, base[::-1], base[:2]], axis=0)  # (10, 3, 2): duplicates along every axis likely
    x = np.ascontiguousarray(x)
    ref = x.astype(np.float64) if dt == "bf16" else x
    for dim in (0, 1, -1):
        d = dim % 3
        ev, ei, ec = np.unique(ref, axis=d, return_inverse=True, return_counts=True)
        u = ev.shape[d]
        room = list(x.shape)
        vo = AclTensor.from_array(np.zeros(room, NPX[dt]))
        io = AclTensor.from_array(np.zeros(x.shape[d], np.int64))
        co = AclTensor.from_array(np.zeros(x.shape[d], np.int64))
        xs = strided(x)
        _ud(xs, dt, dim, vo, io, co)
        shape = _view_len(vo)
        assert shape == list(ev.shape) and _view_len(co) == [u]
        got = np.take(vo.numpy(), range(u), axis=d)
        same(got, ev.astype(np.float32) if dt == "bf16" else ev, dt if dt != "bf16" else "f32")
        np.testing.assert_array_equal(io.numpy(), ei.reshape(-1))
        np.testing.assert_array_equal(co.numpy()[:u], ec)
        if torch_ok(dt):
            tv, ti, tc = torch.unique(to_torch(torch, x), sorted=True, return_inverse=True, return_counts=True,
                                      dim=dim)
            assert list(tv.shape) == shape
            np.testing.assert_array_equal(io.numpy(), ti.numpy())
            np.testing.assert_array_equal(co.numpy()[:u], tc.numpy())


def test_unique_dim_example_buffers(torch):
    """the upstream example: valueOut [3, 2] for self [4, 2], inverseOut [4, 2], countsOut [3]"""
    x = np.array([0, 1, 1, 3, 3, 1, 1, 3], np.float32).reshape(4, 2)
    vo, io, co = tens((3, 2)), tens((4, 2), "i64"), tens((3,), "i64")
    _ud(x, "f32", 0, vo, io, co)
    tv, ti, tc = torch.unique(torch.from_numpy(x), return_inverse=True, return_counts=True, dim=0)
    np.testing.assert_array_equal(vo.numpy(), tv.numpy())
    np.testing.assert_array_equal(io.numpy().reshape(-1)[:4], ti.numpy())
    np.testing.assert_array_equal(co.numpy(), tc.numpy())
    vo, co = tens((8,)), tens((4,), "i64")  # flat buffers get the result's shape
    _ud(x, "f32", -2, vo, tens((4,), "i64"), co, inverse=False)
    assert _view_len(vo) == [3, 2] and _view_len(co) == [3]
    np.testing.assert_array_equal(vo.numpy().reshape(-1)[:6].reshape(3, 2), tv.numpy())


def test_unique_dim_empty():
    rc, _, _, msg = ws_call("UniqueDim", tens((0, 3)), True, True, 0, tens((0, 3)), tens((0,), "i64"),
                            tens((0,), "i64"))
    assert rc == 0, msg


def test_unique_dim_invalid():
    X, V, I, C = tens((4, 3)), tens((4, 3)), tens((4,), "i64"), tens((4,), "i64")
    expect_status("UniqueDim", [None, True, True, 0, V, I, C], 161001, "self")
    expect_status("UniqueDim", [X, True, True, 0, None, I, C], 161001, "valueOut")
    expect_status("UniqueDim", [X, True, True, 0, V, None, C], 161001, "inverseOut")
    expect_status("UniqueDim", [X, True, True, 0, V, I, None], 161001, "countsOut")
    expect_status("UniqueDim", [tens((4, 3), "c64"), True, True, 0, tens((4, 3), "c64"), I, C], 161002, "self")
    expect_status("UniqueDim", [X, True, True, 0, V, tens((4,), "i32"), C], 161002, "inverseOut")
    expect_status("UniqueDim", [X, True, True, 0, V, I, tens((4,), "f32")], 161002, "countsOut")
    expect_status("UniqueDim", [X, True, True, 0, tens((4, 3), "f16"), I, C], 161002, "valueOut")
    expect_status("UniqueDim", [tens((1,) * 9), True, True, 0, tens((1,) * 9), tens((1,), "i64"), tens((1,), "i64")],
                  161002, "self")
    expect_status("UniqueDim", [X, True, True, 2, V, I, C], 161002, "dim")
    expect_status("UniqueDim", [X, True, True, -3, V, I, C], 161002, "dim")
    expect_status("UniqueDim", [X, True, True, 0, tens((4, 2)), I, C], 161002, "valueOut")
    expect_status("UniqueDim", [X, True, True, 0, V, I, tens((0,), "i64")], 161002, "countsOut")
