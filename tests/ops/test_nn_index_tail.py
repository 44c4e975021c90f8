"""ops-nn index/ tail (tools/optable/nn_index_tail.py): MaxUnpool2d / MaxUnpool3d (libsrc/ops/index_max_unpool.c)
against torch.nn.functional.max_unpool2d/3d and a literal numpy loop for every dtype of the A2 list, strided
views, duplicates, empty selves and the invalid rows in the op_api order; InplaceScatterUpdate
(libsrc/ops/index_scatter_update.c) against a literal numpy loop; ScatterMax/Min/Mul/Div (not on the A2: NULL
checks, then 161002); InplaceQuantScatterV2 (not on the A2: 161002 first)."""
import os

import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from pyaclnn.tensor import int_array
from helpers import last_error, run_executor, same_bytes_for_threads, strided, ws_call
from table_harness import expect_status, to_torch
from test_nn_index import NPX, dts, mk, tens


def _ia(vals):
    return int_array(list(vals))


def _run(op, *args):
    rc, wss, ex, msg = ws_call(op, *args)
    assert rc == 0, msg
    assert run_executor(op, ex, wss) == 0, last_error()


def unpool_ref(x, idx, nsp, osz):
    """literal loop: zeros, then out[plane, idx[plane, i]] = x[plane, i] in row-major order"""
    lead = x.shape[:x.ndim - nsp]
    planes = int(np.prod(lead)) if lead else 1
    xs, ix = x.reshape(planes, -1), idx.reshape(planes, -1).astype(np.int64)
    out = np.zeros((planes, int(np.prod(osz))), x.dtype)
    for p in range(planes):
        for i in range(xs.shape[1]):
            out[p, ix[p, i]] = xs[p, i]
    return out.reshape(lead + tuple(osz))


def _tx(torch, x, dt):
    """the torch input: PyTorch CPU unpools floating dtypes only, so integers go through float64 (exact here)"""
    return to_torch(torch, x) if dt in ("f16", "f32", "f64") else torch.from_numpy(x.astype(np.float64))


def _pool_idx(torch, shape, k, seed):
    rng = np.random.default_rng(seed)
    src = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    f = torch.nn.functional.max_pool2d if len(shape) == 4 else torch.nn.functional.max_pool3d
    _, idx = f(src, k, return_indices=True)
    return idx.numpy()


# ---------------------------------------------------------------- MaxUnpool2d
@pytest.mark.parametrize("dt", dts("MaxUnpool2d"))
@pytest.mark.parametrize("idt", ("i32", "i64"))
def test_max_unpool2d(torch, dt, idt):
    rng = np.random.default_rng(5)
    idx = _pool_idx(torch, (2, 3, 6, 8), 2, 6).astype(NPX[idt])  # (2, 3, 3, 4) into 6 x 8
    x = mk(rng, idx.shape, dt, -9, 9)
    expect = unpool_ref(x, idx, 2, (6, 8))
    out = AclTensor.from_array(np.full((2, 3, 6, 8), 7, NPX[dt]))  # every element rewritten
    _run("MaxUnpool2d", AclTensor.from_array(strided(x)), AclTensor.from_array(strided(idx, "transpose")),
         _ia((6, 8)), out)
    np.testing.assert_array_equal(out.numpy(), expect)
    y = torch.nn.functional.max_unpool2d(_tx(torch, x, dt), torch.from_numpy(idx.astype(np.int64)), 2,
                                         output_size=(6, 8))
    np.testing.assert_array_equal(out.numpy(), y.numpy().astype(NPX[dt]))


def test_max_unpool2d_3d_self_strided_out_and_flat_out(torch):
    rng = np.random.default_rng(7)
    idx = _pool_idx(torch, (1, 2, 4, 6), 2, 8)[0]  # (C, H, W) = (2, 2, 3) into 4 x 6
    x = mk(rng, idx.shape, "f32")
    expect = unpool_ref(x, idx, 2, (4, 6))
    so = AclTensor.from_array(strided(np.ones((2, 4, 6), np.float32)))
    _run("MaxUnpool2d", AclTensor.from_array(x), AclTensor.from_array(idx), _ia((4, 6)), so)
    np.testing.assert_array_equal(so.numpy(), expect)
    y = torch.nn.functional.max_unpool2d(torch.from_numpy(x)[None], torch.from_numpy(idx)[None], 2,
                                         output_size=(4, 6))[0]
    np.testing.assert_array_equal(so.numpy(), y.numpy())
    flat = AclTensor.from_array(np.ones(48, np.float32))  # upstream reshapes outRef: any shape of that size
    _run("MaxUnpool2d", AclTensor.from_array(x), AclTensor.from_array(idx), _ia((4, 6)), flat)
    np.testing.assert_array_equal(flat.numpy(), expect.reshape(-1))


def test_max_unpool2d_duplicates_last_wins():
    x = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
    idx = np.array([[[[0, 5, 0], [5, 2, 0]]]], np.int64)
    out = tens((1, 1, 3, 3))
    _run("MaxUnpool2d", AclTensor.from_array(x), AclTensor.from_array(idx), _ia((3, 3)), out)
    np.testing.assert_array_equal(out.numpy(), unpool_ref(x, idx, 2, (3, 3)))
    # (PyTorch CPU is no oracle here: it splits a plane's rows over threads, so its duplicates resolve by timing)
    np.testing.assert_array_equal(out.numpy(), [[[[6, 0, 5], [0, 0, 4], [0, 0, 0]]]])


def test_max_unpool2d_example():
    """the upstream example: self (1, 1, 2, 2) [1, 2, 3, 4], indices [3, 8, 11, 13], outputSize (4, 4)"""
    x = np.array([1, 2, 3, 4], np.float32).reshape(1, 1, 2, 2)
    idx = np.array([3, 8, 11, 13], np.int64).reshape(1, 1, 2, 2)
    out = tens((1, 1, 4, 4))
    _run("MaxUnpool2d", AclTensor.from_array(x), AclTensor.from_array(idx), _ia((4, 4)), out)
    e = np.zeros(16, np.float32)
    e[[3, 8, 11, 13]] = [1, 2, 3, 4]
    np.testing.assert_array_equal(out.numpy().reshape(-1), e)


def test_max_unpool2d_empty_and_bad_index():
    rc, _, _, msg = ws_call("MaxUnpool2d", tens((0, 2, 2, 2)), tens((0, 2, 2, 2), "i64"), _ia((4, 4)),
                            tens((0, 2, 4, 4)))
    assert rc == 0, msg
    for bad in (16, -1):
        idx = np.zeros((1, 1, 2, 2), np.int64)
        idx[0, 0, 1, 1] = bad
        o = np.full((1, 1, 4, 4), 3, np.float32)
        ot, xt, it = AclTensor.from_array(o), tens((1, 1, 2, 2)), AclTensor.from_array(idx)
        rc, wss, ex, msg = ws_call("MaxUnpool2d", xt, it, _ia((4, 4)), ot)
        assert rc == 0, msg
        assert run_executor("MaxUnpool2d", ex, wss) == 161002
        assert "indices" in last_error()
        assert (ot.numpy() == 3).all()  # nothing written


def test_max_unpool2d_invalid():
    S, I, O, sz = tens((1, 2, 2, 2)), tens((1, 2, 2, 2), "i64"), tens((1, 2, 4, 4)), _ia((4, 4))
    op = "MaxUnpool2d"
    expect_status(op, [None, I, sz, O], 161001, "self")
    expect_status(op, [S, None, sz, O], 161001, "indices")
    expect_status(op, [S, I, None, O], 161001, "outputSize")
    expect_status(op, [S, I, sz, None], 161001, "out")
    expect_status(op, [tens((1, 2, 2, 2), "bf16"), I, sz, tens((1, 2, 4, 4), "bf16")], 161002, "self")
    expect_status(op, [tens((1, 2, 2, 2), "bool"), I, sz, tens((1, 2, 4, 4), "bool")], 161002, "self")
    expect_status(op, [S, I, sz, tens((1, 2, 4, 4), "f16")], 161002, "out")
    expect_status(op, [tens((1, 2, 2, 2), "f16"), I, sz, O], 161002, "out")
    expect_status(op, [S, tens((1, 2, 2, 2), "i16"), sz, O], 161002, "indices")
    expect_status(op, [S, tens((1, 2, 2, 2), "f32"), sz, O], 161002, "indices")
    expect_status(op, [tens((2, 2)), tens((2, 2), "i64"), sz, O], 161002, "self")
    expect_status(op, [tens((1, 1, 2, 2, 2)), tens((1, 1, 2, 2, 2), "i64"), sz, O], 161002, "self")
    expect_status(op, [S, tens((2, 2, 2), "i64"), sz, O], 161002, "indices")
    expect_status(op, [S, tens((1, 2, 2, 3), "i64"), sz, O], 161002, "indices")
    expect_status(op, [tens((1, 0, 2, 2)), tens((1, 0, 2, 2), "i64"), sz, O], 161002, "self")
    expect_status(op, [tens((1, 2, 0, 2)), tens((1, 2, 0, 2), "i64"), sz, O], 161002, "self")
    expect_status(op, [S, I, _ia((4, 4, 1)), O], 161002, "outputSize")
    expect_status(op, [S, I, _ia((4,)), O], 161002, "outputSize")
    expect_status(op, [S, I, _ia((0, 4)), O], 161002, "outputSize")
    expect_status(op, [S, I, _ia((4, -1)), O], 161002, "outputSize")
    expect_status(op, [S, I, _ia((1, 3)), O], 161002, "outputSize")
    expect_status(op, [S, I, sz, tens((1, 2, 4, 5))], 561103, "out")


# ---------------------------------------------------------------- MaxUnpool3d
@pytest.mark.parametrize("dt", dts("MaxUnpool3d"))
@pytest.mark.parametrize("idt", ("i32", "i64"))
def test_max_unpool3d(torch, dt, idt):
    rng = np.random.default_rng(9)
    idx = _pool_idx(torch, (2, 2, 4, 4, 6), 2, 10).astype(NPX[idt])  # (2, 2, 2, 2, 3) into 4 x 4 x 6
    x = mk(rng, idx.shape, dt, -9, 9)
    expect = unpool_ref(x, idx, 3, (4, 4, 6))
    out = AclTensor.from_array(np.full((2, 2, 4, 4, 6), 7, NPX[dt]))
    _run("MaxUnpool3d", AclTensor.from_array(strided(x)), AclTensor.from_array(strided(idx)), _ia((4, 4, 6)),
         _ia((2, 2, 2)), _ia((0, 0, 0)), out)
    np.testing.assert_array_equal(out.numpy(), expect)
    y = torch.nn.functional.max_unpool3d(_tx(torch, x, dt), torch.from_numpy(idx.astype(np.int64)), 2,
                                         output_size=(4, 4, 6))
    np.testing.assert_array_equal(out.numpy(), y.numpy().astype(NPX[dt]))
    # 4-D (C, D, H, W)
    o4 = AclTensor.from_array(np.ones((2, 4, 4, 6), NPX[dt]))
    _run("MaxUnpool3d", AclTensor.from_array(x[1]), AclTensor.from_array(idx[1]), _ia((4, 4, 6)), _ia((2, 2, 2)),
         _ia((0, 0, 0)), o4)
    np.testing.assert_array_equal(o4.numpy(), expect[1])


def test_max_unpool3d_empty_and_bad_index():
    rc, _, _, msg = ws_call("MaxUnpool3d", tens((0, 1, 2, 2, 2)), tens((0, 1, 2, 2, 2), "i64"), _ia((4, 4, 4)),
                            _ia((2, 2, 2)), _ia((0, 0, 0)), tens((0, 1, 4, 4, 4)))
    assert rc == 0, msg
    idx = np.full((1, 2, 2, 2), 64, np.int32)
    xt, it, ot = tens((1, 2, 2, 2)), AclTensor.from_array(idx), tens((1, 4, 4, 4))
    rc, wss, ex, msg = ws_call("MaxUnpool3d", xt, it, _ia((4, 4, 4)), _ia((2, 2, 2)), _ia((0, 0, 0)), ot)
    assert rc == 0, msg
    assert run_executor("MaxUnpool3d", ex, wss) == 161002


def test_max_unpool3d_invalid():
    S, I, O = tens((1, 2, 2, 2, 2)), tens((1, 2, 2, 2, 2), "i64"), tens((1, 2, 4, 4, 4))
    sz, st, pd = _ia((4, 4, 4)), _ia((2, 2, 2)), _ia((0, 0, 0))
    op = "MaxUnpool3d"
    expect_status(op, [None, I, sz, st, pd, O], 161001, "self")
    expect_status(op, [S, None, sz, st, pd, O], 161001, "indices")
    expect_status(op, [S, I, None, st, pd, O], 161001, "outputSize")
    expect_status(op, [S, I, sz, None, pd, O], 161001, "stride")
    expect_status(op, [S, I, sz, st, None, O], 161001, "padding")
    expect_status(op, [S, I, sz, st, pd, None], 161001, "outRef")
    nc = AclTensor.from_array(strided(np.zeros((1, 2, 4, 4, 4), np.float32)))
    expect_status(op, [tens((1, 2, 2, 2, 2), "bf16"), I, sz, st, pd, nc], 161002, "outRef")  # contiguity first
    expect_status(op, [tens((1, 2, 2, 2, 2), "bf16"), I, sz, st, pd, tens((1, 2, 4, 4, 4), "bf16")], 161002,
                  "self")
    expect_status(op, [S, I, sz, st, pd, tens((1, 2, 4, 4, 4), "f64")], 161002, "outRef")
    expect_status(op, [S, tens((1, 2, 2, 2, 2), "u8"), sz, st, pd, O], 161002, "indices")
    expect_status(op, [tens((2, 2, 2)), tens((2, 2, 2), "i64"), sz, st, pd, O], 161002, "self")
    expect_status(op, [S, tens((2, 2, 2, 2), "i64"), sz, st, pd, O], 161002, "indices")
    expect_status(op, [S, tens((1, 2, 2, 2, 3), "i64"), sz, st, pd, O], 161002, "indices")
    expect_status(op, [tens((1, 2, 2, 0, 2)), tens((1, 2, 2, 0, 2), "i64"), sz, st, pd, O], 161002, "self")
    expect_status(op, [S, I, _ia((4, 4)), st, pd, O], 161002, "outputSize")
    expect_status(op, [S, I, sz, _ia((2, 2)), pd, O], 161002, "stride")
    expect_status(op, [S, I, sz, st, _ia((0, 0, 0, 0)), O], 161002, "padding")
    expect_status(op, [S, I, sz, _ia((2, 0, 2)), pd, O], 161002, "stride")
    expect_status(op, [S, I, _ia((4, 0, 4)), st, pd, O], 161002, "outputSize")
    expect_status(op, [S, I, _ia((1, 2, 3)), st, pd, tens((1, 2, 1, 2, 3))], 161002, "outputSize")
    expect_status(op, [S, I, sz, st, pd, tens((2, 4, 4, 4))], 161002, "outRef")
    expect_status(op, [S, I, sz, st, pd, tens((1, 3, 4, 4, 4))], 161002, "outRef")
    expect_status(op, [S, I, sz, st, pd, tens((1, 2, 4, 4, 5))], 161002, "outRef")


def test_max_unpool_same_bytes_for_threads():
    code = f"import sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})" + """
import hashlib, numpy as np, pyaclnn
from pyaclnn.lowlevel import AclTensor
from pyaclnn.tensor import int_array
from helpers import run_executor, ws_call
rng = np.random.default_rng(0)
h = hashlib.sha256()
x = rng.standard_normal((8, 16, 20, 20)).astype(np.float32)
idx = rng.integers(0, 30 * 30, x.shape)  # many duplicates per plane
for op, args in (("MaxUnpool2d", (int_array([30, 30]),)),
                 ("MaxUnpool3d", (int_array([2, 15, 30]), int_array([1, 1, 1]), int_array([0, 0, 0])))):
    xs = x if op == "MaxUnpool2d" else x.reshape(8, 16, 1, 20, 20)
    o = AclTensor.from_array(np.zeros(xs.shape[:-2 if op == "MaxUnpool2d" else -3] + ((30, 30) if op == "MaxUnpool2d" else (2, 15, 30)), np.float32))
    xt, it = AclTensor.from_array(xs), AclTensor.from_array(idx.reshape(xs.shape))
    rc, wss, ex, msg = ws_call(op, xt, it, *args, o)
    assert rc == 0, msg
    assert run_executor(op, ex, wss) == 0
    h.update(o.numpy().tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- ScatterMax/Min/Mul/Div: not on the A2
@pytest.mark.parametrize("op", ("ScatterMax", "ScatterMin", "ScatterMul", "ScatterDiv"))
def test_tf_scatter_refused_on_a2(op):
    v = np.arange(6, dtype=np.float32).reshape(3, 2)
    V, I, U = AclTensor.from_array(v), AclTensor.from_array(np.array([0, 2], np.int32)), tens((2, 2))
    expect_status(op, [None, I, U, False], 161001, "varRef")
    expect_status(op, [V, None, U, False], 161001, "indices")
    expect_status(op, [V, I, None, False], 161001, "updates")
    rc, _, _, msg = ws_call(op, V, I, U, False)
    assert rc == 161002 and "ascend950" in msg and "A2" in msg, msg
    assert (V.numpy() == v).all()


# ---------------------------------------------------------------- InplaceScatterUpdate
def scatter_update_ref(data, idx, upd, axis):
    """literal loop over the doc's formula: data[b, ..., off + k, ...] = updates[i, ..., k, ...]"""
    out = data.copy()
    a = axis % data.ndim
    idx = np.asarray(idx).astype(np.int64)
    for i in range(upd.shape[0]):
        if idx.ndim == 2:
            b, off = idx[i]
        else:
            b, off = i, (idx[i] if idx.ndim == 1 else idx[()])
        for k in range(upd.shape[a]):
            dst = [b] + [slice(None)] * (data.ndim - 1)
            src = [i] + [slice(None)] * (data.ndim - 1)
            dst[a], src[a] = off + k, k
            out[tuple(dst)] = upd[tuple(src)]
    return out


def _su(data, idx, upd, axis):
    """run in place on AclTensors made from the given arrays (views kept); returns data's values"""
    dt, it, ut = AclTensor.from_array(data), AclTensor.from_array(idx), AclTensor.from_array(upd)
    _run("InplaceScatterUpdate", dt, it, ut, axis)
    return dt.numpy()


@pytest.mark.parametrize("dt", dts("InplaceScatterUpdate"))
@pytest.mark.parametrize("idt", ("i32", "i64"))
def test_scatter_update(dt, idt):
    rng = np.random.default_rng(11)
    data = mk(rng, (4, 3, 6, 5), dt, -9, 9)
    # 1-d indices, axis -2 and 2 (window of 2 rows), axis -1 / 3 (window of 1 column); strided views
    for axis, ushape, idx in ((-2, (3, 3, 2, 5), [4, 0, 2]), (2, (4, 3, 1, 5), [5, 1, 0, 3]),
                              (-1, (2, 3, 6, 1), [4, 0]), (3, (4, 3, 6, 3), [2, 0, 1, 2]), (1, (3, 2, 6, 5), [1, 0, 1])):
        upd = mk(rng, ushape, dt, -9, 9)
        ix = np.array(idx, NPX[idt])
        expect = scatter_update_ref(data, ix, upd, axis)
        d = strided(data)
        got = _su(d, strided(ix), strided(upd, "transpose"), axis)
        np.testing.assert_array_equal(got, expect)
        d = strided(data)  # in place in the caller's strided view (pyaclnn.call registers it, no copy)
        pyaclnn.call("InplaceScatterUpdate", d, strided(ix), upd, axis)
        np.testing.assert_array_equal(d, expect)
        assert not d.base[..., 0::2].any()  # the gaps of the view untouched
    # 2-d indices (batch, offset) with a repeated batch row; 0-d indices
    upd = mk(rng, (3, 3, 2, 5), dt, -9, 9)
    ix = np.array([[3, 1], [0, 4], [3, 2]], NPX[idt])
    np.testing.assert_array_equal(_su(data.copy(), ix, upd, -2), scatter_update_ref(data, ix, upd, -2))
    upd = mk(rng, (1, 3, 6, 2), dt, -9, 9)
    ix = np.array(3, NPX[idt])
    np.testing.assert_array_equal(_su(data.copy(), ix, upd, -1), scatter_update_ref(data, ix, upd, -1))


def test_scatter_update_duplicates_and_example():
    data = np.zeros((3, 1, 4, 1), np.float32)
    upd = np.array([1, 2, 3, 4, 5, 6], np.float32).reshape(3, 1, 2, 1)
    ix = np.array([[1, 0], [1, 1], [0, 2]], np.int64)
    got = _su(data, ix, upd, -2)  # rows (1, 0..1), then (1, 1..2): the later window wins at (1, 1)
    np.testing.assert_array_equal(got.reshape(3, 4), [[0, 0, 5, 6], [1, 3, 4, 0], [0, 0, 0, 0]])
    # the upstream example's shapes: data (2, 2, 4) / updates (2, 2, 1) / indices (2,) along axis -1 ... in 4-d
    data = np.arange(16, dtype=np.float32).reshape(2, 2, 4)
    upd = np.array([-1, -2, -3, -4], np.float32).reshape(2, 2, 1)
    got = _su(data.copy(), np.array([1, 3], np.int64), upd, -1)
    e = data.copy()
    e[0, :, 1], e[1, :, 3] = [-1, -2], [-3, -4]
    np.testing.assert_array_equal(got, e)
    # more index rows than update rows: the first ones are used
    got = _su(data.copy(), np.array([1, 3, 0, 0], np.int64), upd, -1)
    np.testing.assert_array_equal(got, e)


def test_scatter_update_bad_index():
    for ix, word in ((np.array([3, 0], np.int64), "window"), (np.array([-1, 0], np.int32), "window"),
                     (np.array([[2, 0], [0, 0]], np.int64), "batch"), (np.array([[0, 0], [-1, 0]], np.int64), "batch")):
        data = np.full((2, 1, 4, 1), 9, np.float32)
        dt, it, ut = AclTensor.from_array(data), AclTensor.from_array(ix), tens((2, 1, 2, 1))
        rc, wss, ex, msg = ws_call("InplaceScatterUpdate", dt, it, ut, -2)
        assert rc == 0, msg
        assert run_executor("InplaceScatterUpdate", ex, wss) == 161002
        err = last_error()
        assert "indices" in err and word in err, err
        assert (dt.numpy() == 9).all()  # nothing written


def test_scatter_update_invalid():
    D, I, U = tens((4, 3, 6, 5)), tens((3,), "i64"), tens((3, 3, 2, 5))
    op = "InplaceScatterUpdate"
    expect_status(op, [None, I, U, -2], 161001, "data")
    expect_status(op, [D, None, U, -2], 161001, "indices")
    expect_status(op, [D, I, None, -2], 161001, "updates")
    expect_status(op, [tens((4, 3, 6, 5), "f64"), I, tens((3, 3, 2, 5), "f64"), -2], 161002, "data")
    expect_status(op, [tens((4, 3, 6, 5), "u8"), I, tens((3, 3, 2, 5), "u8"), -2], 161002, "data")
    expect_status(op, [D, tens((3,), "i16"), U, -2], 161002, "indices")
    expect_status(op, [D, I, tens((3, 3, 2, 5), "f16"), -2], 161002, "updates")
    expect_status(op, [tens((0, 3, 6, 5)), I, U, -2], 161002, "empty")
    expect_status(op, [D, tens((0,), "i64"), U, -2], 161002, "empty")
    expect_status(op, [D, I, tens((3, 3, 0, 5)), -2], 161002, "empty")
    expect_status(op, [D, I, tens((3, 3, 10)), -2], 161002, "rank")
    expect_status(op, [D, tens((), "i64"), U, -2], 161002, "dim 0")
    expect_status(op, [D, tens((3, 2, 1), "i64"), U, -2], 161002, "indices")
    expect_status(op, [D, I, U, 0], 561002, "axis")
    expect_status(op, [D, I, U, 4], 561002, "axis")
    expect_status(op, [D, I, U, -4], 561002, "axis")
    expect_status(op, [D, tens((3, 3), "i64"), U, -2], 561002, "indices")
    expect_status(op, [D, tens((2,), "i64"), U, -2], 561002, "indices")
    expect_status(op, [D, tens((2, 2), "i64"), U, -2], 561002, "indices")
    expect_status(op, [tens((2, 3, 6, 5)), I, U, -2], 561002, "data")
    expect_status(op, [D, I, tens((3, 2, 2, 5)), -2], 561002, "axis")
    expect_status(op, [D, I, tens((3, 3, 2, 4)), -2], 561002, "axis")


def test_scatter_update_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
data = rng.standard_normal((64, 32, 40, 16)).astype(np.float32)
upd = rng.standard_normal((64, 32, 8, 16)).astype(np.float32)
for ix in (rng.integers(0, 33, 64), np.stack([rng.integers(0, 8, 64), rng.integers(0, 33, 64)], 1)):
    d = data.copy()
    pyaclnn.call("InplaceScatterUpdate", d, ix, upd, -2)
    h.update(d.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


def test_inplace_quant_scatter_v2_refused_on_a2():
    """the op_api's platform check comes before its NULL checks: 161002 for any call on the A2"""
    s = np.zeros((1, 4, 8), np.int8)
    S, I, U, Q = AclTensor.from_array(s), tens((1,), "i32"), tens((1, 1, 8), "bf16"), tens((8,), "bf16")
    for args in ([S, I, U, Q, None, 1, -1, 0, b"rint"], [None, None, None, None, None, 1, -1, 0, b"rint"]):
        rc, _, _, msg = ws_call("InplaceQuantScatterV2",
                                *[pyaclnn.ffi.new("char[]", a) if isinstance(a, bytes) else a for a in args])
        assert rc == 161002 and "Ascend910B" in msg, msg
    assert (S.numpy() == 0).all()


# ---------------------------------------------------------------- TopKTopPSample
F32 = np.float32


def _softmax32(v):
    """fp32 softmax with a sequential sum, v[0] or the max as the shift (as the kernel computes it)"""
    e = [F32(np.exp(F32(x) - F32(max(v)))) for x in v]
    s = F32(0)
    for x in e:
        s = F32(s + x)
    return [F32(x / s) for x in e]


def _order(vals):
    """indices sorted by value descending, index ascending"""
    return sorted(range(len(vals)), key=lambda j: (-float(vals[j]), j))


def _first_p(probs, p):
    cum = F32(0)
    for j, x in enumerate(probs):
        cum = F32(cum + x)
        if cum > p:
            return j + 1
    return len(probs)


def tkp_ref(x, ks, ps, q, eps, need):
    """literal per-row loop over the kernel's three paths (see libsrc/ops/index_top_k_top_p_sample.c)"""
    B, V = x.shape
    idx = np.zeros(B, np.int64)
    sel = np.full((B, V), -np.inf, F32)
    eps = F32(eps)
    for b in range(B):
        row = [F32(v) for v in x[b]]
        k, p = int(np.uint32(np.int32(ks[b]))), F32(ps[b])
        if 1 <= k <= min(V, 1024):
            o = _order(row)[:k]
            vals = [row[j] for j in o]
            probs = _softmax32(vals)
            n = k
            if 0 < p < 1:
                n = _first_p(probs, p)
                probs = _softmax32(vals[:n])
            if q is not None:
                probs = [F32(probs[j] / F32(abs(F32(q[b, j])) + eps)) for j in range(n)]
            idx[b] = o[int(np.argmax(probs[:n]))]
            kept = o[:n]
        elif p <= 0 or p >= 1:
            if q is not None:
                probs = _softmax32(row)
                v = [F32(probs[j] / F32(abs(F32(q[b, j])) + eps)) for j in range(V)]
                best, bi = F32(0), 0
                for j in range(V):
                    if v[j] > best:
                        best, bi = v[j], j
                idx[b] = bi
            else:
                idx[b] = _order(row)[0]
            kept = []
        else:
            probs = _softmax32(row)
            o = _order(probs)
            sp = [probs[j] for j in o]
            n = _first_p(sp, p)
            m = 0
            if q is not None:
                s = _softmax32(sp[:n])
                m = int(np.argmax([F32(s[j] / F32(abs(F32(q[b, j])) + eps)) for j in range(n)]))
            idx[b] = o[m]
            kept = o[:n]
        for j in kept:
            sel[b, j] = row[j]
    return idx, sel


def _tkp(x, ks, ps, q, eps, need, guess=32, sel0=None, idx_view=False):
    dt = "bf16" if x.dtype != np.float16 else "f16"
    B, V = x.shape
    it = AclTensor.from_array(np.zeros(B, np.int64)) if not idx_view else AclTensor.from_array(strided(np.zeros(B, np.int64)))
    st = AclTensor.from_array(np.full((B, V), 5, F32) if sel0 is None else sel0)
    xt, kt, pt = AclTensor.from_array(strided(x)), AclTensor.from_array(ks), AclTensor.from_array(ps.astype(x.dtype))
    qt = None if q is None else AclTensor.from_array(strided(q, "transpose"))
    _run("TopKTopPSample", xt, kt, pt, qt, eps, need, guess, it, st)
    return it.numpy(), st.numpy()


@pytest.mark.parametrize("dt", ("f16", "bf16"))
@pytest.mark.parametrize("with_q", (False, True))
def test_top_k_top_p_sample(torch, dt, with_q):
    rng = np.random.default_rng(21)
    B, V = 8, 40
    x = mk(rng, (B, V), dt, -3, 3)
    x[1, 5] = x[1, 9] = x[1].max() + 1  # a tie at the top: the lower index
    ks = np.array([5, 0, 40, 1024, 3, -1, 7, 1], np.int32)  # valid, 0 (skip), V, > V (skip), ..., negative (skip)
    ps = np.array([0.5, 0.9, 0.95, 0.3, 1.0, 0.0, 0.2, 0.7], NPX[dt])
    q = rng.exponential(1.0, (B, V)).astype(F32) if with_q else None
    for need in (True, False):
        idx, sel = _tkp(x, ks, ps, q, 1e-8, need)
        eidx, esel = tkp_ref(x, ks, ps, q, 1e-8, need)
        np.testing.assert_array_equal(idx, eidx)
        if need:
            np.testing.assert_array_equal(sel, esel)
        else:
            assert (sel == 5).all()  # untouched
    if not with_q:  # the oracle for the greedy rows: the chosen index is torch's argmax of the filtered logits
        xt = to_torch(torch, x).float()
        assert idx[0] == int(torch.topk(xt[0], 5).indices[0]) == int(torch.argmax(xt[0]))
        assert idx[5] == int(torch.argmax(xt[5]))


def test_top_k_top_p_sample_top_p_set_vs_torch(torch):
    """the kept set of a top-p row is the smallest prefix of the sorted softmax whose sum exceeds p"""
    rng = np.random.default_rng(22)
    x = rng.standard_normal((4, 64)).astype(np.float16)
    ks, ps = np.full(4, 2000, np.int32), np.array([0.3, 0.6, 0.8, 0.95], np.float16)
    _, sel = _tkp(x, ks, ps, None, 1e-8, True)
    probs = torch.softmax(torch.from_numpy(x).float(), -1)
    sp, si = torch.sort(probs, stable=True, dim=-1, descending=True)
    cum = torch.cumsum(sp, -1)
    for b in range(4):
        n = int((cum[b] <= float(ps[b])).sum()) + 1
        kept = set(si[b, :n].tolist())
        assert kept == set(np.nonzero(np.isfinite(sel[b]))[0].tolist())
        np.testing.assert_array_equal(sel[b, list(kept)], x[b, list(kept)].astype(F32))


def test_top_k_top_p_sample_example_shapes():
    """the upstream example (all logits equal, k 128, tiny p, q 1) in a smaller vocabulary: index 0 per row"""
    x = np.full((3, 300), 1.0, np.float16)
    idx, _ = _tkp(x, np.full(3, 128, np.int32), np.full(3, 1e-3, np.float16), np.ones((3, 300), F32), 1e-8, False,
                  idx_view=True)
    np.testing.assert_array_equal(idx, [0, 0, 0])


def test_top_k_top_p_sample_invalid():
    L, K, P, Q, I, S = tens((2, 8), "f16"), tens((2,), "i32"), tens((2,), "f16"), tens((2, 8)), tens((2,), "i64"), \
        tens((2, 8))
    op = "TopKTopPSample"
    expect_status(op, [None, K, P, Q, 1e-8, False, 32, I, S], 161001, "logits")
    expect_status(op, [L, None, P, Q, 1e-8, False, 32, I, S], 161001, "topK")
    expect_status(op, [L, K, None, Q, 1e-8, False, 32, I, S], 161001, "topP")
    expect_status(op, [L, K, P, Q, 1e-8, False, 32, None, S], 161001, "logitsSelectIdx")
    expect_status(op, [L, K, P, Q, 1e-8, False, 32, I, None], 161001, "logitsTopKPSelect")
    expect_status(op, [tens((2, 8)), K, tens((2,)), Q, 1e-8, False, 32, I, S], 161002, "logits")
    expect_status(op, [L, tens((2,), "i64"), P, Q, 1e-8, False, 32, I, S], 161002, "topK")
    expect_status(op, [L, K, tens((2,), "bf16"), Q, 1e-8, False, 32, I, S], 161002, "topP")
    expect_status(op, [L, K, P, tens((2, 8), "f16"), 1e-8, False, 32, I, S], 161002, "q")
    expect_status(op, [L, K, P, Q, 1e-8, False, 32, tens((2,), "i32"), S], 161002, "logitsSelectIdx")
    expect_status(op, [L, K, P, Q, 1e-8, False, 32, I, tens((2, 8), "f16")], 161002, "logitsTopKPSelect")
    expect_status(op, [tens((16,), "f16"), K, P, None, 1e-8, False, 32, I, S], 561002, "logits")
    expect_status(op, [L, tens((2, 1), "i32"), P, Q, 1e-8, False, 32, I, S], 561002, "topK")
    expect_status(op, [L, K, tens((2, 1), "f16"), Q, 1e-8, False, 32, I, S], 561002, "topP")
    expect_status(op, [L, tens((3,), "i32"), P, Q, 1e-8, False, 32, I, S], 561002, "topK")
    expect_status(op, [L, K, P, tens((2, 9)), 1e-8, False, 32, I, S], 561002, "q")
    expect_status(op, [L, K, P, Q, 1e-8, False, 32, I, tens((2, 9))], 561002, "logitsTopKPSelect")
    expect_status(op, [L, K, P, Q, 1e-8, False, 32, tens((3,), "i64"), S], 561002, "logitsSelectIdx")
    expect_status(op, [tens((2, 0), "f16"), K, P, None, 1e-8, False, 32, I, tens((2, 0))], 561002, "empty")


def test_top_k_top_p_sample_same_bytes_for_threads():
    code = f"import sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})" + """
import hashlib, numpy as np, pyaclnn
from pyaclnn.lowlevel import AclTensor
from helpers import run_executor, ws_call
rng = np.random.default_rng(0)
h = hashlib.sha256()
B, V = 64, 3000
x = rng.standard_normal((B, V)).astype(np.float16)
ks = rng.integers(-5, 1500, B).astype(np.int32)
ps = rng.uniform(-0.2, 1.2, B).astype(np.float16)
q = rng.exponential(1.0, (B, V)).astype(np.float32)
for qq in (None, q):
    ts = [AclTensor.from_array(a) for a in (x, ks, ps)] + [None if qq is None else AclTensor.from_array(qq)]
    it, st = AclTensor.from_array(np.zeros(B, np.int64)), AclTensor.from_array(np.zeros((B, V), np.float32))
    rc, wss, ex, msg = ws_call("TopKTopPSample", *ts, 1e-8, True, 32, it, st)
    assert rc == 0, msg
    assert run_executor("TopKTopPSample", ex, wss) == 0
    h.update(it.numpy().tobytes()); h.update(st.numpy().tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
