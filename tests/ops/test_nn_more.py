"""ops-nn issue 12 leftovers (tools/optable/nn_more.py): UniqueDim (libsrc/ops/index_unique_dim.c) against
torch.unique(dim=...) and numpy.unique(axis=...) for every dtype of the A2 list, strided self, the flat output
buffers of the upstream example, empty self, and the invalid rows in the op_api's order."""
import numpy as np
import pytest

from pyaclnn.lowlevel import AclTensor
from pyaclnn.tensor import int_array
from helpers import last_error, run_executor, same_bytes_for_threads, strided, ws_call
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


# ---------------------------------------------------------------- MaxUnpool2dBackward
def _unpool_case(torch, n, c, h, w, idt):
    """indices from torch's max_pool2d(2) of a random input: the positions max_unpool2d scatters to"""
    rng = np.random.default_rng(41)
    src = torch.from_numpy(rng.standard_normal((n, c, h * 2, w * 2)).astype(np.float32))
    _, idx = torch.nn.functional.max_pool2d(src, 2, return_indices=True)
    return idx.numpy().astype(np.int64 if idt == "i64" else np.int32)


def _ia(vals):
    return int_array(list(vals))


@pytest.mark.parametrize("dt", dts("MaxUnpool2dBackward"))
@pytest.mark.parametrize("idt", ("i64", "i32"))
def test_max_unpool2d_backward(torch, dt, idt):
    rng = np.random.default_rng(42)
    idx = _unpool_case(torch, 2, 3, 3, 4, idt)
    g = mk(rng, (2, 3, 6, 8), dt, -5, 5)
    expect = np.take_along_axis(g.reshape(2, 3, -1), idx.reshape(2, 3, -1).astype(np.int64), 2).reshape(idx.shape)
    out, gt, st, it = tens(idx.shape, dt), AclTensor.from_array(strided(g)), tens(idx.shape, dt), \
        AclTensor.from_array(strided(idx))
    rc, wss, ex, msg = ws_call("MaxUnpool2dBackward", gt, st, it, _ia((6, 8)), out)
    assert rc == 0, msg
    assert run_executor("MaxUnpool2dBackward", ex, wss) == 0, last_error()
    np.testing.assert_array_equal(out.numpy(), expect)
    if dt == "f32":  # the oracle: torch autograd of max_unpool2d
        x = torch.zeros(idx.shape, requires_grad=True)
        y = torch.nn.functional.max_unpool2d(x, torch.from_numpy(idx.astype(np.int64)), 2, output_size=(6, 8))
        (gx,) = torch.autograd.grad(y, x, torch.from_numpy(g))
        np.testing.assert_array_equal(out.numpy(), gx.numpy())


def test_max_unpool2d_backward_3d_cast_and_strided_out(torch):
    idx = _unpool_case(torch, 1, 2, 2, 3, "i64")[0]  # (C, H, W)
    g = np.arange(2 * 4 * 6, dtype=np.float16).reshape(2, 4, 6)
    expect = np.take_along_axis(g.reshape(2, -1), idx.reshape(2, -1), 1).reshape(idx.shape).astype(np.float32)
    out, gt, st, it = tens(idx.shape, "f32"), AclTensor.from_array(g), tens(idx.shape, "f16"), AclTensor.from_array(idx)
    rc, wss, ex, msg = ws_call("MaxUnpool2dBackward", gt, st, it, _ia((4, 6)), out)
    assert rc == 0, msg
    assert run_executor("MaxUnpool2dBackward", ex, wss) == 0, last_error()
    np.testing.assert_array_equal(out.numpy(), expect)
    so = AclTensor.from_array(strided(np.zeros(idx.shape, np.float32)))
    rc, wss, ex, msg = ws_call("MaxUnpool2dBackward", gt, st, it, _ia((4, 6)), so)
    assert rc == 0, msg
    assert run_executor("MaxUnpool2dBackward", ex, wss) == 0, last_error()
    np.testing.assert_array_equal(so.numpy(), expect)


def test_max_unpool2d_backward_empty_and_bad_index():
    rc, _, _, msg = ws_call("MaxUnpool2dBackward", tens((1, 0, 4, 4)), tens((1, 0, 2, 2)), tens((1, 0, 2, 2), "i64"),
                            _ia((4, 4)), tens((1, 0, 2, 2)))
    assert rc == 0, msg
    ts = tens((1, 1, 4, 4)), tens((1, 1, 2, 2)), AclTensor.from_array(np.full((1, 1, 2, 2), 16, np.int64)), \
        tens((1, 1, 2, 2))
    rc, wss, ex, msg = ws_call("MaxUnpool2dBackward", ts[0], ts[1], ts[2], _ia((4, 4)), ts[3])
    assert rc == 0, msg
    assert run_executor("MaxUnpool2dBackward", ex, wss) == 161002


def test_max_unpool2d_backward_invalid():
    G, S, I, O, sz = tens((1, 2, 4, 4)), tens((1, 2, 2, 2)), tens((1, 2, 2, 2), "i64"), tens((1, 2, 2, 2)), _ia((4, 4))
    op = "MaxUnpool2dBackward"
    expect_status(op, [None, S, I, sz, O], 161001, "gradOutput")
    expect_status(op, [G, None, I, sz, O], 161001, "self")
    expect_status(op, [G, S, None, sz, O], 161001, "indices")
    expect_status(op, [G, S, I, None, O], 161001, "outputSize")
    expect_status(op, [G, S, I, sz, None], 161001, "out")
    expect_status(op, [tens((1, 2, 4, 4), "f64"), S, I, sz, O], 161002, "gradOutput")
    expect_status(op, [G, tens((1, 2, 2, 2), "f64"), I, sz, O], 161002, "self")
    expect_status(op, [G, S, I, sz, tens((1, 2, 2, 2), "f64")], 161002, "out")
    expect_status(op, [G, S, I, sz, tens((1, 2, 2, 2), "i32")], 161002, "out")
    expect_status(op, [G, tens((1, 2, 2, 2), "f16"), I, sz, O], 161002, "self")
    expect_status(op, [G, S, tens((1, 2, 2, 2), "i16"), sz, O], 161002, "indices")
    expect_status(op, [tens((2, 4, 4)), tens((2, 2)), tens((2, 2), "i64"), sz, tens((2, 2))], 161002, "self")
    expect_status(op, [tens((2, 4, 4)), S, I, sz, O], 161002, "gradOutput")
    expect_status(op, [tens((1, 3, 4, 4)), S, I, sz, O], 161002, "gradOutput")
    expect_status(op, [G, S, tens((1, 2, 2, 3), "i64"), sz, O], 161002, "indices")
    expect_status(op, [G, S, I, sz, tens((1, 2, 2, 3))], 161002, "out")
    expect_status(op, [G, S, I, _ia((4, 4, 1)), O], 161002, "outputSize")
    expect_status(op, [G, S, I, _ia((4, 5)), O], 161002, "outputSize")
    expect_status(op, [tens((1, 2, 0, 4)), S, I, _ia((0, 4)), O], 161002, "gradOutput")


# ---------------------------------------------------------------- MaxUnpool3dBackward
@pytest.mark.parametrize("dt", dts("MaxUnpool3dBackward"))
def test_max_unpool3d_backward(torch, dt):
    rng = np.random.default_rng(43)
    src = torch.from_numpy(rng.standard_normal((2, 2, 4, 4, 6)).astype(np.float32))
    _, idx_t = torch.nn.functional.max_pool3d(src, 2, return_indices=True)
    idx = idx_t.numpy()  # (2, 2, 2, 2, 3) into 4 x 4 x 6
    g = mk(rng, (2, 2, 4, 4, 6), dt, -5, 5)
    expect = np.take_along_axis(g.reshape(2, 2, -1), idx.reshape(2, 2, -1), 2).reshape(idx.shape)
    out, gt, st, it = tens(idx.shape, dt), AclTensor.from_array(strided(g)), tens(idx.shape, dt), \
        AclTensor.from_array(strided(idx))
    rc, wss, ex, msg = ws_call("MaxUnpool3dBackward", gt, st, it, _ia((4, 4, 6)), _ia((2, 2, 2)), _ia((0, 0, 0)), out)
    assert rc == 0, msg
    assert run_executor("MaxUnpool3dBackward", ex, wss) == 0, last_error()
    np.testing.assert_array_equal(out.numpy(), expect)
    if dt in ("f32", "f64"):  # the oracle: torch autograd of max_unpool3d
        x = torch.zeros(idx.shape, dtype=torch.float64 if dt == "f64" else torch.float32, requires_grad=True)
        y = torch.nn.functional.max_unpool3d(x, idx_t, 2, output_size=(4, 4, 6))
        (gx,) = torch.autograd.grad(y, x, torch.from_numpy(g))
        np.testing.assert_array_equal(out.numpy(), gx.numpy())
    # 4-D (C, D, H, W)
    out4, g4, s4, i4 = tens(idx.shape[1:], dt), AclTensor.from_array(g[0]), tens(idx.shape[1:], dt), \
        AclTensor.from_array(idx[0])
    rc, wss, ex, msg = ws_call("MaxUnpool3dBackward", g4, s4, i4, _ia((4, 4, 6)), _ia((2, 2, 2)), _ia((0, 0, 0)), out4)
    assert rc == 0, msg
    assert run_executor("MaxUnpool3dBackward", ex, wss) == 0, last_error()
    np.testing.assert_array_equal(out4.numpy(), expect[0])


def test_max_unpool3d_backward_invalid():
    G, S, I, O = tens((1, 2, 4, 4, 4)), tens((1, 2, 2, 2, 2)), tens((1, 2, 2, 2, 2), "i64"), tens((1, 2, 2, 2, 2))
    sz, st, pd = _ia((4, 4, 4)), _ia((2, 2, 2)), _ia((0, 0, 0))
    op = "MaxUnpool3dBackward"
    expect_status(op, [None, S, I, sz, st, pd, O], 161001, "gradOutput")
    expect_status(op, [G, S, I, None, st, pd, O], 161001, "outputSize")
    expect_status(op, [G, S, I, sz, None, pd, O], 161001, "stride")
    expect_status(op, [G, S, I, sz, st, None, O], 161001, "padding")
    expect_status(op, [G, S, I, sz, st, pd, None], 161001, "out")
    so = AclTensor.from_array(strided(np.zeros((1, 2, 2, 2, 2), np.float32)))
    expect_status(op, [G, S, I, sz, st, pd, so], 161002, "out")
    expect_status(op, [tens((1, 2, 4, 4, 4), "bool"), S, I, sz, st, pd, O], 161002, "gradOutput")
    expect_status(op, [G, tens((1, 2, 2, 2, 2), "f16"), I, sz, st, pd, O], 161002, "self")
    expect_status(op, [G, S, I, sz, st, pd, tens((1, 2, 2, 2, 2), "f64")], 161002, "out")
    expect_status(op, [G, S, tens((1, 2, 2, 2, 2), "i32"), sz, st, pd, O], 161002, "indices")
    expect_status(op, [G, tens((2, 2, 2)), tens((2, 2, 2), "i64"), sz, st, pd, tens((2, 2, 2))], 161002, "self")
    expect_status(op, [G, S, tens((2, 2, 2, 2), "i64"), sz, st, pd, O], 161002, "indices")
    expect_status(op, [G, S, tens((1, 2, 2, 2, 3), "i64"), sz, st, pd, O], 161002, "indices")
    expect_status(op, [G, tens((1, 0, 2, 2, 2)), tens((1, 0, 2, 2, 2), "i64"), sz, st, pd, tens((1, 0, 2, 2, 2))],
                  161002, "self")
    expect_status(op, [G, S, I, _ia((4, 4)), st, pd, O], 161002, "outputSize")
    expect_status(op, [G, S, I, sz, _ia((2, 2)), pd, O], 161002, "stride")
    expect_status(op, [G, S, I, sz, st, _ia((0,)), O], 161002, "padding")
    expect_status(op, [G, S, I, sz, _ia((2, 0, 2)), pd, O], 161002, "stride")
    expect_status(op, [G, S, I, _ia((4, 0, 4)), st, pd, O], 161002, "outputSize")
    expect_status(op, [G, S, I, _ia((1, 1, 1)), st, pd, O], 161002, "outputSize")
    expect_status(op, [tens((2, 4, 4, 4)), S, I, sz, st, pd, O], 161002, "gradOutput")
    expect_status(op, [G, S, I, _ia((4, 4, 5)), st, pd, O], 161002, "outputSize")
    expect_status(op, [tens((1, 3, 4, 4, 4)), S, I, sz, st, pd, O], 161002, "gradOutput")
    rc, _, _, msg = ws_call(op, tens((0, 2, 4, 4, 4)), tens((0, 2, 2, 2, 2)), tens((0, 2, 2, 2, 2), "i64"), sz, st, pd,
                            tens((0, 2, 2, 2, 2)))
    assert rc == 0, msg


def test_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
g = rng.standard_normal((4, 8, 64, 64)).astype(np.float32)
idx = rng.integers(0, 64 * 64, (4, 8, 32, 32))
o = np.zeros((4, 8, 32, 32), np.float32); pyaclnn.call("MaxUnpool2dBackward", g, o, idx, [64, 64], o); h.update(o.tobytes())
x = rng.integers(0, 2, (300, 4)).astype(np.float32)
v = np.zeros((300, 4), np.float32); i = np.zeros(300, np.int64); c = np.zeros(300, np.int64)
pyaclnn.call("UniqueDim", x, True, True, 0, v, i, c); h.update(v.tobytes() + i.tobytes() + c.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
