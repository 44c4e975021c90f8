"""The ops-nn index family (tools/optable/nn_index.py, libsrc/ops/index_*.c) against PyTorch CPU: every dtype of
each op's A2 list, duplicate and negative indices, strided inputs and outputs, empty tensors, the invalid rows in
the order the upstream op_api checks them, and the same bytes for OMP_NUM_THREADS 1/2/7."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from helpers import run_executor, same_bytes_for_threads, strided, ws_call
from table_harness import NP, compare, expect_status, from_torch, make_scalar, to_torch, rand_in

NPX = dict(NP, u16=np.uint16, u32=np.uint32, u64=np.uint64)
FLOATS = ("f16", "bf16", "f32", "f64")


def dts(op, arg=None):
    return OPS[op]["dtypes"] if arg is None else OPS[op]["arg_dtypes"][arg]


mk = rand_in  # table_harness


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


def same(actual, expected, dt):
    expected = np.asarray(expected)
    if dt in ("c64", "c128"):
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    elif dt in ("u16", "u32", "u64"):
        np.testing.assert_array_equal(actual, expected.astype(actual.dtype))
    else:
        compare(actual, expected if dt == "bf16" else expected.astype(actual.dtype), dt)


def torch_ok(dt):
    """dtypes PyTorch CPU moves (uint16/32/64 only through numpy here)"""
    return dt not in ("u16", "u32", "u64")


def tens(shape, dt="f32"):
    return AclTensor.from_array(np.zeros(shape, NPX[dt]))


def tlist(*arrays):
    ts = [AclTensor.from_array(np.ascontiguousarray(a)) for a in arrays]
    _KEEP.append(ts)
    h = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [t.handle for t in ts] or [ffi.NULL]), len(ts))
    return ffi.gc(h, lib.aclDestroyTensorList)


_KEEP = []


def S(v, dt="f32"):
    return make_scalar(pyaclnn.scalar(v, NPX[dt]))


def out_like(shape, dt, fill=0):
    if len(shape) == 0:
        return np.full((), fill, NPX[dt])
    return strided(np.full(shape, fill, NPX[dt]))


# ================================================================ gathers
@pytest.mark.parametrize("dt", dts("Gather"))
@pytest.mark.parametrize("it", ("i32", "i64"))
def test_gather(torch, dt, it):
    rng = np.random.default_rng(1)
    x = strided(mk(rng, (4, 5, 3), dt))
    for dim in (0, 1, -1):
        n = x.shape[dim]
        idx = strided(rng.integers(0, n, (3, 4, 2)).astype(NPX[it]))
        o = out_like(idx.shape, dt)
        pyaclnn.call("Gather", x, dim, idx, o)
        if torch_ok(dt):
            same(o, from_torch(torch.gather(T(torch, x), dim, T(torch, idx).long())), dt)
        else:  # literal reference
            e = np.zeros(idx.shape, NPX[dt])
            for pos in np.ndindex(*idx.shape):
                src = list(pos)
                src[dim] = idx[pos]
                e[pos] = np.asarray(x)[tuple(src)]
            same(o, e, dt)


def test_gather_empty_and_invalid():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    pyaclnn.call("Gather", x, 0, np.zeros((0, 3), np.int64), np.zeros((0, 3), np.float32))
    X, I, O = tens((2, 3)), tens((2, 3), "i64"), tens((2, 3))
    expect_status("Gather", [None, 0, I, O], 161001, "self")
    expect_status("Gather", [X, 0, None, O], 161001, "index")
    expect_status("Gather", [X, 0, I, None], 161001, "out")
    expect_status("Gather", [tens((2, 3), "c64"), 0, I, tens((2, 3), "c64")], 161002, "self")
    expect_status("Gather", [X, 0, tens((2, 3), "f32"), O], 161002, "index")
    expect_status("Gather", [X, 0, I, tens((2, 3), "f16")], 161002, "out")
    expect_status("Gather", [X, 0, tens((2, 3, 1), "i64"), O], 161002, "dimensions")
    expect_status("Gather", [X, 0, I, tens((3, 2))], 161002, "out")
    expect_status("Gather", [X, 2, I, O], 161002, "dim")
    expect_status("Gather", [X, 0, tens((2, 4), "i64"), tens((2, 4))], 161002, "index")


@pytest.mark.parametrize("dt", dts("GatherV2"))
def test_gather_v2(torch, dt):
    rng = np.random.default_rng(2)
    x = strided(mk(rng, (4, 5), dt))
    for dim in (0, -1):
        idx = rng.integers(0, x.shape[dim], (2, 3)).astype(np.int32)
        idx[0, 0] = idx[1, 2]  # duplicates
        shape = (2, 3, 5) if dim == 0 else (4, 2, 3)
        o = out_like(shape, dt)
        pyaclnn.call("GatherV2", x, dim, idx, o)
        e = torch.index_select(T(torch, x), dim, T(torch, idx.ravel()).long()).reshape(shape)
        same(o, from_torch(e), dt)
    # 0-d index: the dim stays with length 1
    o = np.zeros((4, 1), NPX[dt])
    pyaclnn.call("GatherV2", x, 1, np.array(3, np.int64), o)
    same(o, np.asarray(x)[:, 3:4], dt)


def test_gather_v2_invalid():
    X, I = tens((2, 3)), tens((2,), "i64")
    expect_status("GatherV2", [X, 0, I, tens((2, 3), "f16")], 161002, "out")
    expect_status("GatherV2", [tens((2, 3), "u16"), 0, I, tens((2, 3), "u16")], 161002, "self")
    expect_status("GatherV2", [X, 0, tens((2,), "i8"), tens((2, 3))], 161002, "index")
    expect_status("GatherV2", [X, 2, I, tens((2, 3))], 161002, "dim")
    expect_status("GatherV2", [X, 0, I, tens((3, 3))], 161002, "out")


@pytest.mark.parametrize("dt", dts("IndexSelect"))
def test_index_select(torch, dt):
    rng = np.random.default_rng(3)
    x = strided(mk(rng, (4, 6), dt))
    idx = np.array([5, 0, 5, 2], np.int64)
    for dim in (1, -2):
        d = dim % 2
        ii = idx % x.shape[d]
        shape = list(x.shape)
        shape[d] = len(ii)
        o = out_like(tuple(shape), dt)
        pyaclnn.call("IndexSelect", x, dim, ii.astype(np.int32), o)
        same(o, np.take(np.asarray(x), ii, axis=d), dt)
    if torch_ok(dt):
        o = out_like((4, 4), dt)
        pyaclnn.call("IndexSelect", x, 1, idx, o)
        same(o, from_torch(torch.index_select(T(torch, x), 1, T(torch, idx))), dt)


def test_index_select_invalid():
    X, I = tens((2, 3)), tens((2,), "i64")
    expect_status("IndexSelect", [tens((2, 3), "c32") if False else tens((2, 3), "i64"), 0, I, X], 161002, "out")
    expect_status("IndexSelect", [X, 0, tens((2,), "f32"), tens((2, 3))], 161002, "index")
    expect_status("IndexSelect", [X, 2, I, tens((2, 3))], 161002, "dim")
    expect_status("IndexSelect", [X, 0, tens((2, 1), "i64"), tens((2, 3))], 161002, "index")
    expect_status("IndexSelect", [X, 1, I, tens((2, 3))], 161002, "out")
    nc = lib.ACL_FORMAT_NC1HWC0  # a private format: refused right after the dtype checks (before the shapes)
    expect_status("IndexSelect", [AclTensor.empty((2, 2, 2), np.float32, fmt=nc), 1, tens((1,), "i32"),
                                  tens((5,))], 161002, "self")
    expect_status("IndexSelect", [tens((2, 2, 2)), 1, tens((1,), "i32"),
                                  AclTensor.empty((2, 1, 2), np.float32, fmt=nc)], 161002, "out")


@pytest.mark.parametrize("dt", dts("Take"))
def test_take(torch, dt):
    rng = np.random.default_rng(4)
    x = strided(mk(rng, (3, 4), dt))
    idx = np.array([[0, -1, 5], [11, -12, 5]], np.int64)
    o = out_like(idx.shape, dt)
    pyaclnn.call("Take", x, idx.astype(np.int32), o)
    same(o, np.asarray(x).ravel()[idx], dt)
    if torch_ok(dt):
        same(o, from_torch(torch.take(T(torch, x), T(torch, idx))), dt)


def test_take_invalid():
    X, I = tens((2, 3)), tens((2,), "i64")
    expect_status("Take", [X, I, tens((2,), "f16")], 161002, "out")
    expect_status("Take", [X, tens((2,), "i16"), tens((2,))], 161002, "index")
    expect_status("Take", [X, I, tens((3,))], 161002, "out")
    expect_status("Take", [tens((0, 3)), I, tens((2,))], 161002, "self")
    nc = lib.ACL_FORMAT_NC1HWC0  # private formats: refused after the shape checks, self first
    expect_status("Take", [AclTensor.empty((1, 16, 1, 1, 16), np.float16, fmt=nc), I, tens((2,), "f16")], 161002,
                  "self")
    expect_status("Take", [X, AclTensor.empty((2,), np.int64, fmt=nc), tens((2,))], 161002, "index")
    expect_status("Take", [X, I, AclTensor.empty((2,), np.float32, fmt=nc)], 161002, "out")
    expect_status("Take", [X, AclTensor.empty((3,), np.int64, fmt=nc), tens((2,))], 161002, "out")  # shape first


@pytest.mark.parametrize("dt", dts("GatherNd"))
def test_gather_nd(torch, dt):
    rng = np.random.default_rng(5)
    x = strided(mk(rng, (3, 4, 2), dt))
    idx = np.array([[2, 1], [0, 3], [2, 1]], np.int64)
    o = out_like((3, 2), dt)
    pyaclnn.call("GatherNd", x, idx, False, o)
    same(o, np.asarray(x)[idx[:, 0], idx[:, 1]], dt)
    o = out_like((3, 2), dt)
    pyaclnn.call("GatherNd", x, (idx - np.array([3, 4])).astype(np.int32), True, o)
    same(o, np.asarray(x)[idx[:, 0], idx[:, 1]], dt)
    o = out_like((2,), dt)
    pyaclnn.call("GatherNd", x, np.array([[1, 2, 1], [0, 0, 0]]), False, o)
    same(o, np.asarray(x)[[1, 0], [2, 0], [1, 0]], dt)


def test_gather_nd_invalid():
    X = tens((3, 4))
    expect_status("GatherNd", [X, tens((2, 2), "i64"), False, tens((2,), "f16")], 161002, "out")
    expect_status("GatherNd", [X, tens((2, 2), "f32"), False, tens((2,))], 161002, "indices")
    expect_status("GatherNd", [X, tens((2, 3), "i64"), False, tens((2,))], 161002, "indices")
    expect_status("GatherNd", [X, tens((2, 1), "i64"), False, tens((2,))], 161002, "out")


@pytest.mark.parametrize("dt", dts("Embedding"))
def test_embedding(torch, dt):
    rng = np.random.default_rng(6)
    w = strided(mk(rng, (6, 3), dt))
    idx = np.array([[5, 0], [5, 2]], np.int32)
    o = out_like((2, 2, 3), dt)
    pyaclnn.call("Embedding", w, idx, o)
    same(o, np.asarray(w)[idx], dt)
    if dt in FLOATS:
        same(o, from_torch(torch.nn.functional.embedding(T(torch, idx).long(), T(torch, w))), dt)


def test_embedding_invalid():
    W, I = tens((4, 3)), tens((2,), "i64")
    expect_status("Embedding", [tens((4, 3), "u16"), I, tens((2, 3), "u16")], 161002, "weight")
    expect_status("Embedding", [W, I, tens((2, 3), "f16")], 161002, "out")
    expect_status("Embedding", [W, tens((2,), "f32"), tens((2, 3))], 161002, "indices")
    expect_status("Embedding", [W, I, tens((2, 3, 1))], 161002, "out")
    expect_status("Embedding", [W, I, tens((3, 3))], 161002, "out")


def test_gathers_out_of_range_zero():
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    o = np.full((2, 3), 9, np.float32)
    pyaclnn.call("IndexSelect", x, 0, np.array([1, 7]), o)
    np.testing.assert_array_equal(o, [[4, 5, 6], [0, 0, 0]])
    o = np.full((2,), 9, np.float32)
    pyaclnn.call("Take", x, np.array([6, -7]), o)
    np.testing.assert_array_equal(o, [0, 0])


@pytest.mark.parametrize("dt", ("f32", "f16", "bf16"))
def test_embedding_dense_backward(torch, dt):
    rng = np.random.default_rng(7)
    g = strided(mk(rng, (2, 5, 3), dt))
    idx = np.array([[1, 3, 1, 0, 3], [3, 3, 2, 1, 7]], np.int64)
    idx_t = T(torch, np.where(idx < 4, idx, 0))
    gt = T(torch, g).double()
    if True:  # index 7 is out of range: the device skips it; PyTorch would fault, so drop its row from the oracle
        gt[1, 4] = 0
    for pad, scale in ((3, False), (2 ** 64 - 1, True), (1, True)):
        for odt in ("f32", dt):
            o = out_like((4, 3), odt, 7)
            pyaclnn.call("EmbeddingDenseBackward", g, idx, 4, pad, scale, o)
            e = torch.ops.aten.embedding_dense_backward(gt, idx_t, 4, -1 if pad >= 4 else pad, scale)
            if scale:  # PyTorch's counts include the out-of-range index 7 mapped to 0 above: recount
                cnt = np.bincount(idx[idx < 4].ravel(), minlength=4).astype(np.float64)
                e = torch.zeros(4, 3, dtype=torch.float64)
                gg = T(torch, g).double().reshape(-1, 3)
                for i, k in enumerate(idx.ravel()):
                    if k < 4 and k != pad:
                        e[k] += gg[i] / cnt[k]
            np.testing.assert_allclose(np.asarray(o, np.float64), e.numpy(),
                                       rtol=1e-2 if dt != "f32" or odt != "f32" else 1e-5, atol=1e-2)
    o = np.full((4, 3), 7, np.float32)  # empty indices: zeros
    pyaclnn.call("EmbeddingDenseBackward", np.zeros((0, 3), np.float32), np.zeros((0,), np.int64), 4, 0, False, o)
    np.testing.assert_array_equal(o, 0)


def test_embedding_dense_backward_invalid():
    G, I = tens((5, 3)), tens((5,), "i64")
    expect_status("EmbeddingDenseBackward", [None, I, 4, 0, False, tens((4, 3))], 161001, "grad")
    expect_status("EmbeddingDenseBackward", [tens((5, 3), "f64"), I, 4, 0, False, tens((4, 3))], 161002, "grad")
    expect_status("EmbeddingDenseBackward", [G, tens((5,), "c64"), 4, 0, False, tens((4, 3))], 161002, "indices")
    expect_status("EmbeddingDenseBackward", [G, I, 4, 0, False, tens((4, 3), "f64")], 161002, "out")
    expect_status("EmbeddingDenseBackward", [G, tens((4,), "i64"), 4, 0, False, tens((4, 3))], 161002, "grad")
    expect_status("EmbeddingDenseBackward", [G, I, 5, 0, False, tens((4, 3))], 161002, "out")


# ================================================================ scatters
@pytest.mark.parametrize("dt", dts("Scatter"))
def test_scatter(torch, dt):
    rng = np.random.default_rng(8)
    x = strided(mk(rng, (4, 3), dt))
    src = strided(mk(rng, (3, 3), dt))
    idx = np.array([[0, 1, 3], [0, 1, 3], [2, 1, 0]], np.int64)  # duplicates in every column
    for reduce, name in ((0, None), (1, "add"), (2, "multiply")):
        if reduce and dt == "bool":
            continue
        o = out_like(x.shape, dt)
        pyaclnn.call("Scatter", x, 0, idx.astype(np.int32), src, reduce, o)
        t = T(torch, x)
        e = t.scatter(0, T(torch, idx), T(torch, src)) if name is None else \
            t.scatter(0, T(torch, idx), T(torch, src), reduce=name)
        same(o, from_torch(e), dt)
        s = np.array(x)
        pyaclnn.call("InplaceScatter", s, 0, idx, src, reduce)
        same(s, from_torch(e), dt)
    o = out_like(x.shape, dt)
    pyaclnn.call("ScatterAdd", x, 1, idx[:2, :2], src, o)
    if dt != "bool":
        same(o, from_torch(T(torch, x).scatter_add(1, T(torch, idx[:2, :2]), T(torch, src)[:2, :2])), dt)


@pytest.mark.parametrize("dt", dts("ScatterValue"))
def test_scatter_value(torch, dt):
    rng = np.random.default_rng(9)
    x = strided(mk(rng, (3, 4), dt))
    idx = np.array([[1, 1, 0, 2], [1, 0, 0, 1]], np.int64)
    v = True if dt == "bool" else (1.5 + 2j if dt in ("c64", "c128") else 3)
    vdt = "bool" if dt == "bool" else ("c64" if dt in ("c64", "c128") else "i64")
    o = out_like(x.shape, dt)
    pyaclnn.call("ScatterValue", x, 0, idx, pyaclnn.scalar(v, NPX[vdt]), 0, o)
    e = T(torch, x).scatter(0, T(torch, idx), v)
    same(o, from_torch(e), dt)
    s = np.array(x)
    pyaclnn.call("InplaceScatterValue", s, 0, idx, pyaclnn.scalar(v, NPX[vdt]), 0)
    same(s, from_torch(e), dt)
    if dt not in ("bool",):
        o = out_like(x.shape, dt)
        pyaclnn.call("ScatterValue", x, 0, idx, pyaclnn.scalar(v, NPX[vdt]), 1, o)
        same(o, from_torch(T(torch, x).scatter(0, T(torch, idx), v, reduce="add")), dt)


def test_scatter_empty_index_copies_self():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    o = np.zeros((2, 3), np.float32)
    pyaclnn.call("Scatter", x, 0, np.zeros((0, 3), np.int64), x, 0, o)
    np.testing.assert_array_equal(o, x)


def test_scatter_invalid():
    X, I = tens((3, 4)), tens((2, 4), "i64")
    expect_status("Scatter", [None, 0, I, X, 0, X], 161001, "self")
    expect_status("Scatter", [X, 0, I, None, 0, X], 161001, "src")
    expect_status("Scatter", [tens((3, 4), "u16"), 0, I, X, 0, X], 161002, "self")
    expect_status("Scatter", [X, 0, I, tens((3, 4), "f16"), 0, X], 161002, "src")
    expect_status("Scatter", [X, 0, I, X, 0, tens((3, 4), "f16")], 161002, "out")
    expect_status("Scatter", [X, 0, tens((2, 4), "f32"), X, 0, X], 161002, "index")
    expect_status("Scatter", [X, 0, tens((2, 4, 1), "i64"), X, 0, X], 161002, "dimensions")
    expect_status("Scatter", [X, 0, I, X, 0, tens((4, 3))], 161002, "out")
    expect_status("Scatter", [X, 0, tens((4, 4), "i64"), tens((3, 4)), 0, X], 161002, "src")
    expect_status("Scatter", [X, 0, tens((2, 5), "i64"), tens((3, 5)), 0, X], 161002, "self")
    expect_status("Scatter", [X, 2, I, X, 0, X], 161002, "dim")
    expect_status("ScatterValue", [X, 0, I, None, 0, X], 161001, "value")
    expect_status("ScatterValue", [X, 0, I, make_scalar(pyaclnn.scalar(1j, np.complex64)), 0, X], 161002, "COMPLEX")


@pytest.mark.parametrize("dt", dts("IndexAdd"))
def test_index_add(torch, dt):
    rng = np.random.default_rng(10)
    x = strided(mk(rng, (4, 3), dt))
    src = strided(mk(rng, (4, 5), dt))
    idx = np.array([2, 0, 2, 2, 1], np.int64)
    alpha = True if dt == "bool" else 2
    adt = "bool" if dt == "bool" else "i64"
    o = out_like(x.shape, dt)
    pyaclnn.call("IndexAdd", x, 1, idx.astype(np.int32), src, pyaclnn.scalar(alpha, NPX[adt]), o)
    if dt == "bool":
        e = np.array(x) | np.zeros_like(np.asarray(x))
        for j, k in enumerate(idx):
            e[:, k] |= np.asarray(src)[:, j]
        same(o, e, dt)
    else:
        same(o, from_torch(T(torch, x).index_add(1, T(torch, idx), T(torch, src), alpha=alpha)), dt)


def test_index_add_invalid():
    X, I, S_ = tens((4, 3)), tens((5,), "i64"), tens((4, 5))
    A = S(1.0)
    expect_status("IndexAdd", [X, 1, I, S_, None, X], 161001, "alpha")
    expect_status("IndexAdd", [tens((4, 3), "c64"), 1, I, tens((4, 5), "c64"), A, tens((4, 3), "c64")], 161002, "elf")
    expect_status("IndexAdd", [X, 1, tens((5,), "f32"), S_, A, X], 161002, "index")
    expect_status("IndexAdd", [X, 1, I, tens((4, 5), "f16"), A, X], 161002, "source")
    expect_status("IndexAdd", [X, 2, I, S_, A, X], 161002, "dim")
    expect_status("IndexAdd", [X, 1, I, tens((3, 5)), A, X], 161002, "source")
    expect_status("IndexAdd", [X, 1, tens((4,), "i64"), S_, A, X], 161002, "index")
    expect_status("IndexAdd", [X, 1, I, S_, A, tens((3, 4))], 161002, "out")


@pytest.mark.parametrize("dt", dts("IndexCopy"))
def test_index_copy(torch, dt):
    rng = np.random.default_rng(11)
    x = strided(mk(rng, (5, 3), dt))
    src = strided(mk(rng, (4, 3), dt))
    idx = np.array([4, 0, 4, 1], np.int64)  # duplicate 4: the later row wins
    o = out_like(x.shape, dt)
    pyaclnn.call("IndexCopy", np.array(x), 0, idx, src, o)
    e = np.array(x)
    for j, k in enumerate(idx):
        e[k] = np.asarray(src)[j]
    same(o, e, dt)
    if dt not in ("c64", "c128"):
        same(o, from_torch(T(torch, x).index_copy(0, T(torch, idx), T(torch, src))), dt)
    s = np.array(x)
    pyaclnn.call("InplaceIndexCopy", s, 0, idx.astype(np.int32), src)
    same(s, e, dt)


def test_index_copy_invalid():
    X, I, S_ = tens((5, 3)), tens((4,), "i64"), tens((4, 3))
    expect_status("IndexCopy", [X, 0, I, S_, None], 161001, "outRef")
    expect_status("IndexCopy", [tens((5, 3), "u16"), 0, I, tens((4, 3), "u16"), tens((5, 3), "u16")], 161002, "selfRef")
    expect_status("IndexCopy", [X, 0, tens((4,), "f32"), S_, X], 161002, "index")
    expect_status("IndexCopy", [X, 0, I, tens((4, 3), "f16"), X], 161002, "source")
    expect_status("IndexCopy", [X, 0, tens((2, 2), "i64"), S_, X], 161002, "index")
    expect_status("IndexCopy", [X, 0, I, S_, tens((3, 5))], 161002, "outRef")
    expect_status("IndexCopy", [X, 2, I, S_, X], 161002, "dim")
    expect_status("IndexCopy", [X, 0, I, tens((4, 2)), X], 161002, "source")
    expect_status("IndexCopy", [X, 0, tens((3,), "i64"), S_, X], 161002, "index")


@pytest.mark.parametrize("dt", dts("IndexFill"))
def test_index_fill(torch, dt):
    rng = np.random.default_rng(12)
    x = strided(mk(rng, (3, 5), dt))
    v, vdt = (True, "bool") if dt == "bool" else (2.5 if dt in FLOATS else 7, "f32" if dt in FLOATS else "i64")
    idx = np.array([4, -1, 0], np.int64)
    e = T(torch, x).index_fill(1, T(torch, idx), v)
    o = out_like(x.shape, dt)
    pyaclnn.call("IndexFill", x, 1, idx.astype(np.int32), pyaclnn.scalar(v, NPX[vdt]), o)
    same(o, from_torch(e), dt)
    s = np.array(x)
    pyaclnn.call("InplaceIndexFill", s, -1, idx, pyaclnn.scalar(v, NPX[vdt]))
    same(s, from_torch(e), dt)
    o = out_like(x.shape, dt)
    pyaclnn.call("IndexFillTensor", x, 1, [4, -1, 0], pyaclnn.scalar(v, NPX[vdt]), o)
    same(o, from_torch(e), dt)
    s = np.array(x)
    pyaclnn.call("InplaceIndexFillTensor", s, 1, [4, -1, 0], pyaclnn.scalar(v, NPX[vdt]))
    same(s, from_torch(e), dt)


def test_index_fill_invalid():
    X, I = tens((3, 5)), tens((2,), "i64")
    expect_status("IndexFill", [X, 1, I, None, X], 161001, "value")
    expect_status("IndexFill", [tens((3, 5), "f64"), 1, I, S(1.0), tens((3, 5), "f64")], 161002, "self")
    expect_status("IndexFill", [X, 1, I, S(1.0), tens((3, 5), "f16")], 161002, "out")
    expect_status("IndexFill", [X, 1, tens((2,), "f32"), S(1.0), X], 161002, "index")
    expect_status("IndexFill", [X, 1, I, S(1.0), tens((5, 3))], 161002, "out")
    expect_status("IndexFill", [X, 2, I, S(1.0), X], 161002, "dim")
    expect_status("IndexFill", [X, -3, I, S(1.0), X], 161002, "dim")
    arr = pyaclnn.tensor.int_array([5])
    expect_status("IndexFillTensor", [X, 1, arr, S(1.0), X], 161002, "index")
    expect_status("IndexFillTensor", [X, 1, pyaclnn.tensor.int_array([1]), make_scalar(pyaclnn.scalar(1j, np.complex64)), X],
                  161002, "value")


# ================================================================ index / index_put
@pytest.mark.parametrize("dt", dts("Index"))
def test_index(torch, dt):
    rng = np.random.default_rng(13)
    x = strided(mk(rng, (3, 4, 5), dt))
    t = T(torch, x)
    E = np.zeros((0,), np.int64)
    i0, i2 = np.array([2, -1, 0, 2]), np.array([[4], [0]], np.int32)
    cases = [([i0], t[T(torch, i0)]),
             ([E, np.array([3, 0, 3])], t[:, [3, 0, 3]]),
             ([i0, E, i2], t[T(torch, i0), :, T(torch, i2).long()]),
             ([E, np.array([1, 2]), np.array([0, 4])], t[:, [1, 2], [0, 4]])]
    m = np.array([[True, False, True, False], [False, False, True, True], [True, False, False, False]])
    cases.append(([m], t[T(torch, m)]))
    for idx, e in cases:
        o = out_like(tuple(e.shape), dt)
        pyaclnn.call("Index", x, list(idx), o)
        same(o, from_torch(e), dt)


def test_index_invalid():
    X = tens((3, 4))
    expect_status("Index", [None, tlist(np.array([1])), X], 161001, "self")
    expect_status("Index", [X, None, X], 161001, "indices")
    expect_status("Index", [X, tlist(np.array([1])), tens((1, 4), "f16")], 161002, "out")
    expect_status("Index", [tens((3, 4), "c64"), tlist(np.array([1])), tens((1, 4), "c64")], 161002, "self")
    expect_status("Index", [X, tlist(np.array([1.0], np.float32)), tens((1, 4))], 161002, "indices")
    expect_status("Index", [X, tlist(np.array([1])), tens((2, 4))], 161002, "out")  # the result has 4 elements
    expect_status("Index", [X, tlist(np.array([True, False, True])), tens((3, 4))], 161002, "out")  # mask: 2 rows


@pytest.mark.parametrize("dt", dts("IndexPutImpl"))
def test_index_put(torch, dt):
    rng = np.random.default_rng(14)
    x = mk(rng, (4, 5), dt)
    i0, i1 = np.array([1, 3, 1, -4, 1]), np.array([0, 2, 0, 0, 0], np.int32)  # (1, 0) four times
    vals = mk(rng, (5,), dt)
    for acc in (False, True):
        s = strided(np.array(x))
        pyaclnn.call("IndexPutImpl", s, [i0, i1], vals, acc, False)
        t = T(torch, x)
        t.index_put_((T(torch, i0), T(torch, i1).long()), T(torch, vals), accumulate=acc)
        same(s, from_torch(t), dt)
    # a row index with broadcast values, and a bool mask
    s = np.array(x)
    v1 = mk(rng, (5,), dt)
    pyaclnn.call("IndexPutImpl", s, [np.array([2, 0, 2])], v1, False, False)
    t = T(torch, x)
    t[[2, 0, 2]] = T(torch, v1)
    same(s, from_torch(t), dt)
    m = np.array([True, False, True, True])
    s = np.array(x)
    pyaclnn.call("IndexPutImpl", s, [m], v1, True, False)
    t = T(torch, x)
    t.index_put_((T(torch, m),), T(torch, v1), accumulate=True)
    same(s, from_torch(t), dt)


def test_index_put_invalid():
    X, V = tens((4, 5)), tens((2,))
    expect_status("IndexPutImpl", [None, tlist(np.array([1])), V, False, False], 161001, "selfRef")
    expect_status("IndexPutImpl", [X, tlist(np.array([1])), None, False, False], 161001, "values")
    expect_status("IndexPutImpl", [tens((4, 5), "c64"), tlist(np.array([1])), tens((2,), "c64"), False, False],
                  161002, "selfRef")
    expect_status("IndexPutImpl", [X, tlist(np.array([1])), tens((2,), "f16"), False, False], 161002, "values")
    expect_status("IndexPutImpl", [X, tlist(np.array([1.0], np.float32)), V, False, False], 161002, "indices")
    expect_status("IndexPutImpl", [X, tlist(np.array([1]), np.array([1]), np.array([1])), V, False, False],
                  161002, "indices")
    expect_status("IndexPutImpl", [X, tlist(np.array([True, False])), V, False, False], 161002, "indices")
    expect_status("IndexPutImpl", [X, tlist(np.array([1, 2])), tens((3,)), False, False], 161002, "values")


# ================================================================ determinism
def test_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import ffi, lib
rng = np.random.default_rng(0)
h = hashlib.sha256()
x = rng.standard_normal((300, 200)).astype(np.float32)
idx = rng.integers(0, 300, (400, 200))
src = rng.standard_normal((400, 200)).astype(np.float32)
o = np.zeros_like(x); pyaclnn.call("ScatterAdd", x, 0, idx, src, o); h.update(o.tobytes())
o = np.zeros_like(x); pyaclnn.call("Scatter", x, 0, idx, src, 0, o); h.update(o.tobytes())
ii = rng.integers(0, 300, 5000)
o = np.zeros((5000, 200), np.float32); pyaclnn.call("IndexSelect", x, 0, ii, o); h.update(o.tobytes())
g = rng.standard_normal((5000, 200)).astype(np.float16)
o = np.zeros((300, 200), np.float16); pyaclnn.call("EmbeddingDenseBackward", g, ii, 300, 7, False, o); h.update(o.tobytes())
s = x.copy(); v = rng.standard_normal((5000, 200)).astype(np.float32)
pyaclnn.call("IndexPutImpl", s, [ii], v, True, False); h.update(s.tobytes())
o = np.zeros((300, 5000), np.float32)
xs = x.copy(); pyaclnn.call("IndexAdd", xs, 0, ii[:400] % 300, src, pyaclnn.scalar(1.0, np.float32), xs); h.update(xs.tobytes())
m = rng.standard_normal((400, 300)).astype(np.float32)
v, i = np.zeros(300, np.float32), np.zeros(300, np.int64); pyaclnn.call("MedianDim", m, 0, False, v, i); h.update(v.tobytes() + i.tobytes())
o = np.zeros((5000, 200), np.float32); pyaclnn.call("Index", x, [ii], o); h.update(o.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ================================================================ repeat_interleave
@pytest.mark.parametrize("dt", dts("RepeatInterleave"))
def test_repeat_interleave(torch, dt):
    rng = np.random.default_rng(15)
    x = strided(mk(rng, (2, 3), dt))
    t = T(torch, x)
    r = np.array([1, 0, 3, 2, 1, 2], np.int64)
    e = torch.repeat_interleave(t, T(torch, r))
    o = out_like((9,), dt)
    pyaclnn.call("RepeatInterleave", x, r.astype(np.int32), 9, o)
    same(o, from_torch(e), dt)
    r2 = np.array([2, 1], np.int64)
    o = out_like((3, 3), dt)
    pyaclnn.call("RepeatInterleaveWithDim", x, r2, 0, 3, o)
    same(o, from_torch(torch.repeat_interleave(t, T(torch, r2), dim=0)), dt)
    o = out_like((2, 6), dt)
    pyaclnn.call("RepeatInterleaveWithDim", x, np.array([2]), -1, 6, o)
    same(o, from_torch(torch.repeat_interleave(t, 2, dim=-1)), dt)
    o = out_like((12,), dt)
    pyaclnn.call("RepeatInterleaveInt", x, 2, 12, o)
    same(o, from_torch(torch.repeat_interleave(t, 2)), dt)
    o = out_like((2, 9), dt)
    pyaclnn.call("RepeatInterleaveIntWithDim", x, 3, 1, 9, o)
    same(o, from_torch(torch.repeat_interleave(t, 3, dim=1)), dt)


@pytest.mark.parametrize("dt", ("i32", "i64"))
def test_repeat_interleave_tensor(torch, dt):
    r = strided(np.array([1, 0, 3, 2], NPX[dt]))
    o = out_like((6,), dt)
    pyaclnn.call("RepeatInterleaveTensor", r, 6, o)
    same(o, from_torch(torch.repeat_interleave(T(torch, r))), dt)


def test_repeat_interleave_output_size_mismatch():
    x = np.arange(3, dtype=np.float32)
    o = np.full((5,), 9, np.float32)  # repeats sum to 3 < 5: the rest is zero
    pyaclnn.call("RepeatInterleave", x, np.array([1]), 5, o)
    np.testing.assert_array_equal(o, [0, 1, 2, 0, 0])
    o = np.full((2,), 9, np.float32)  # 6 > 2: cut
    pyaclnn.call("RepeatInterleaveInt", x, 2, 2, o)
    np.testing.assert_array_equal(o, [0, 0])


def test_repeat_interleave_invalid():
    X, R = tens((2, 3)), tens((6,), "i64")
    expect_status("RepeatInterleave", [None, R, 6, tens((6,))], 161001, "self")
    expect_status("RepeatInterleave", [tens((2, 3), "f64"), R, 6, tens((6,), "f64")], 161002, "self")
    expect_status("RepeatInterleave", [X, tens((6,), "f32"), 6, tens((6,))], 161002, "repeats")
    expect_status("RepeatInterleave", [X, R, 6, tens((6,), "f16")], 161002, "out")
    expect_status("RepeatInterleave", [X, tens((2, 3), "i64"), 6, tens((6,))], 161002, "repeats")
    expect_status("RepeatInterleave", [X, tens((4,), "i64"), 6, tens((6,))], 161002, "repeats")
    expect_status("RepeatInterleave", [X, R, 7, tens((6,))], 161002, "out")
    expect_status("RepeatInterleaveWithDim", [X, tens((2,), "i64"), 2, 3, tens((3, 3))], 161002, "dim")
    expect_status("RepeatInterleaveWithDim", [tens((), "f32"), tens((1,), "i64"), 0, 3, tens((3,))], 161002, "dim")
    expect_status("RepeatInterleaveWithDim", [X, tens((3,), "i64"), 0, 3, tens((3, 3))], 161002, "repeats")
    expect_status("RepeatInterleaveInt", [X, -1, 6, tens((6,))], 161002, "repeats")
    expect_status("RepeatInterleaveTensor", [tens((2, 2), "i64"), 4, tens((4,), "i64")], 161002, "repeats")
    expect_status("RepeatInterleaveTensor", [tens((2,), "i64"), 4, tens((4,), "i32")], 161002, "out")


# ================================================================ masked_scatter
@pytest.mark.parametrize("dt", dts("InplaceMaskedScatter"))
def test_inplace_masked_scatter(torch, dt):
    rng = np.random.default_rng(16)
    x = mk(rng, (3, 4), dt)
    src = strided(mk(rng, (4, 4), dt))
    for m in (rng.random((3, 4)) < 0.5, np.array([True, False, True, True]), (rng.random((3, 1)) < 0.7)):
        for mdt in ("bool", "u8"):
            s = strided(np.array(x))
            pyaclnn.call("InplaceMaskedScatter", s, m.astype(NPX[mdt]), src)
            e = T(torch, x).masked_scatter(T(torch, m), T(torch, src))
            same(s, from_torch(e), dt)


def test_inplace_masked_scatter_invalid():
    X, M, Sr = tens((3, 4)), tens((3, 4), "bool"), tens((12,))
    expect_status("InplaceMaskedScatter", [None, M, Sr], 161001, "selfRef")
    expect_status("InplaceMaskedScatter", [X, None, Sr], 161001, "mask")
    expect_status("InplaceMaskedScatter", [tens((3, 4), "c64"), M, tens((12,), "c64")], 161002, "self")
    expect_status("InplaceMaskedScatter", [X, tens((3, 4), "i32"), Sr], 161002, "mask")
    expect_status("InplaceMaskedScatter", [X, M, tens((12,), "f16")], 161002, "source")
    expect_status("InplaceMaskedScatter", [X, tens((2, 4), "bool"), Sr], 161002, "mask")
    expect_status("InplaceMaskedScatter", [X, tens((2, 3, 4), "bool"), Sr], 161002, "mask")


# ================================================================ nonzero
@pytest.mark.parametrize("dt", dts("NonzeroV2"))
def test_nonzero(torch, dt):
    rng = np.random.default_rng(17)
    x = strided(mk(rng, (3, 4, 2), dt, -1, 1))
    e = np.stack(np.nonzero(np.asarray(x)), axis=1).astype(np.int64)
    n = e.shape[0]
    if dt in dts("Nonzero"):
        o = AclTensor.from_array(np.full((24, 3), -9, np.int64))
        xt = AclTensor.from_array(np.ascontiguousarray(x))
        rc, wss, ex, msg = ws_call("Nonzero", xt, o)
        assert rc == 0, msg
        assert run_executor("Nonzero", ex, wss) == 0
        dims = ffi.new("int64_t **")
        cnt = ffi.new("uint64_t *")
        assert lib.aclGetViewShape(o.handle, dims, cnt) == 0
        assert [dims[0][k] for k in range(cnt[0])] == [n, 3]
        np.testing.assert_array_equal(o.numpy()[:n], e)
        if torch_ok(dt):
            np.testing.assert_array_equal(e, torch.nonzero(T(torch, x)).numpy())
    o2 = np.full((3, 24), -9, np.int64)
    pyaclnn.call("NonzeroV2", x, o2)
    # the device's [D, N] result is compact: rows N apart in out's memory (torch_npu reads it so)
    np.testing.assert_array_equal(o2.reshape(-1)[:3 * n].reshape(3, n), e.T)


def test_nonzero_invalid():
    X = tens((2, 3))
    expect_status("Nonzero", [None, tens((6, 2), "i64")], 161001, "self")
    expect_status("Nonzero", [tens((2, 3), "c64"), tens((6, 2), "i64")], 161002, "self")
    expect_status("Nonzero", [X, tens((6, 2), "i32")], 161002, "out")
    expect_status("Nonzero", [X, tens((6, 3), "i64")], 161002, "out")
    expect_status("NonzeroV2", [X, tens((6, 2), "i64")], 161002, "out")
    # V2: phase 1 checks ranks only (as its A2 op_api); an out short of the nonzero count is refused when it runs
    x = AclTensor.from_array(np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    o = AclTensor.from_array(np.full((2, 3), -9, np.int64))
    rc, wss, ex, msg = ws_call("NonzeroV2", x, o)
    assert rc == 0, msg
    assert run_executor("NonzeroV2", ex, wss) == 161002
    assert "out" in pyaclnn.recent_error_message()
    np.testing.assert_array_equal(o.numpy(), np.full((2, 3), -9))  # nothing written


# ================================================================ scatter_nd / put
def np_scatter_nd(data, idx, upd, add=False):
    out = np.array(data).copy()
    q = idx.shape[-1]
    rows = idx.reshape(-1, q)
    u = np.asarray(upd).reshape((rows.shape[0],) + out.shape[q:])
    for b, r in enumerate(rows):
        if add:
            out[tuple(r)] = out[tuple(r)] + u[b]
        else:
            out[tuple(r)] = u[b]
    return out


@pytest.mark.parametrize("dt", dts("ScatterNd"))
def test_scatter_nd(torch, dt):
    rng = np.random.default_rng(18)
    x = strided(mk(rng, (4, 3, 2), dt))
    idx = np.array([[1, 2], [3, 0], [1, 2]], np.int64)  # duplicate row: the later one wins
    upd = strided(mk(rng, (3, 2), dt))
    o = out_like(x.shape, dt)
    pyaclnn.call("ScatterNd", x, idx.astype(np.int32), upd, o)
    same(o, np_scatter_nd(x, idx, upd), dt)
    t = T(torch, x).clone()
    t[T(torch, idx[:, 0]), T(torch, idx[:, 1])] = T(torch, upd)
    same(o, from_torch(t), dt)


@pytest.mark.parametrize("dt", dts("ScatterNdUpdate"))
def test_scatter_nd_update(torch, dt):
    rng = np.random.default_rng(19)
    x = mk(rng, (5, 3), dt)
    idx = np.array([[4], [0], [4]], np.int64)
    upd = mk(rng, (3, 3), dt)
    s = strided(np.array(x))
    pyaclnn.call("ScatterNdUpdate", s, idx, upd)
    same(s, np_scatter_nd(x, idx, upd), dt)


@pytest.mark.parametrize("dt", dts("InplacePut"))
def test_inplace_put(torch, dt):
    rng = np.random.default_rng(20)
    x = mk(rng, (3, 4), dt)
    idx = np.array([[0, -1], [5, 0]], np.int64)
    src = mk(rng, (4,), dt)
    for acc in (False, True):
        if acc and dt in ("bf16", "bool"):
            continue
        s = strided(np.array(x))
        pyaclnn.call("InplacePut", s, idx.astype(np.int32), src, acc)
        t = T(torch, x).clone()
        t.put_(T(torch, idx), T(torch, src), accumulate=acc)
        same(s, from_torch(t), dt)


def test_scatter_nd_put_invalid():
    D, I, U = tens((4, 3)), tens((2, 1), "i64"), tens((2, 3))
    expect_status("ScatterNd", [None, I, U, D], 161001, "data")
    expect_status("ScatterNd", [tens((4, 3), "i32"), I, tens((2, 3), "i32"), tens((4, 3), "i32")], 161002, "data")
    expect_status("ScatterNd", [D, tens((2, 1), "f32"), U, D], 161002, "indices")
    expect_status("ScatterNd", [D, I, tens((2, 3), "f16"), D], 161002, "updates")
    expect_status("ScatterNd", [D, I, U, tens((3, 4))], 161002, "out")
    expect_status("ScatterNd", [D, I, tens((2, 4)), D], 161002, "updates")
    expect_status("ScatterNdUpdate", [tens((4, 3), "f64"), I, tens((2, 3), "f64")], 161002, "varRef")
    expect_status("ScatterNdUpdate", [D, I, tens((3, 3))], 161002, "updates")
    expect_status("InplacePut", [D, tens((2,), "i64"), tens((3,)), False], 161002, "source")
    expect_status("InplacePut", [tens((4, 3), "bf16"), tens((2,), "i64"), tens((2,), "bf16"), True], 161002, "BF16")
    expect_status("InplacePut", [tens((0, 3)), tens((2,), "i64"), tens((2,)), False], 161002, "empty")


def test_scatter_reduce(torch):
    rng = np.random.default_rng(21)
    x = strided(mk(rng, (4, 3), "f32"))
    src = strided(mk(rng, (3, 3), "f32"))
    idx = np.array([[0, 1, 3], [0, 1, 3], [2, 1, 0]], np.int64)
    e = from_torch(T(torch, x).scatter_reduce(0, T(torch, idx), T(torch, src), "sum", include_self=True))
    o = out_like(x.shape, "f32")
    pyaclnn.call("ScatterReduce", x, 0, idx, src, 1, True, o)
    same(o, e, "f32")
    s = np.array(x)
    pyaclnn.call("InplaceScatterReduce", s, 0, idx.astype(np.int32), src, 1, True)
    same(s, e, "f32")
    X, I = tens((4, 3)), tens((3, 3), "i64")
    expect_status("ScatterReduce", [tens((4, 3), "f16"), 0, None, tens((3, 3), "f16"), 1, True, tens((4, 3), "f16")],
                  161002, "float32")
    expect_status("ScatterReduce", [X, 0, I, X, 2, True, X], 161002, "reduce")
    expect_status("InplaceScatterReduce", [X, 0, I, X, 1, False], 161002, "include_self")
    expect_status("ScatterReduce", [X, 0, None, X, 1, True, X], 161001, "index")


# ================================================================ unique
def _view_len(t):
    dims = ffi.new("int64_t **")
    cnt = ffi.new("uint64_t *")
    assert lib.aclGetViewShape(t.handle, dims, cnt) == 0
    return [dims[0][k] for k in range(cnt[0])]


@pytest.mark.parametrize("dt", dts("Unique2"))
def test_unique(torch, dt):
    rng = np.random.default_rng(22)
    x = strided(mk(rng, (3, 5), dt, -3, 3))
    vals, inv, cnt = np.unique(np.asarray(x).astype(np.float64) if dt == "bf16" else np.asarray(x),
                               return_inverse=True, return_counts=True)
    u = len(vals)
    xt = AclTensor.from_array(np.ascontiguousarray(x))
    vo = AclTensor.from_array(np.zeros(15, NPX[dt]))
    io = AclTensor.from_array(np.zeros((3, 5), np.int64))
    co = AclTensor.from_array(np.zeros(15, np.int64))
    rc, wss, ex, msg = ws_call("Unique2", xt, True, True, True, vo, io, co)
    assert rc == 0, msg
    assert run_executor("Unique2", ex, wss) == 0
    assert _view_len(vo) == [u] and _view_len(co) == [u]
    same(vo.numpy()[:u], vals.astype(np.float32) if dt == "bf16" else vals, dt if dt != "bf16" else "f32")
    np.testing.assert_array_equal(io.numpy(), inv.reshape(3, 5))
    np.testing.assert_array_equal(co.numpy()[:u], cnt)
    if torch_ok(dt):
        tv, ti, tc = torch.unique(T(torch, x), sorted=True, return_inverse=True, return_counts=True)
        np.testing.assert_array_equal(ti.numpy(), inv.reshape(3, 5))
        np.testing.assert_array_equal(tc.numpy(), cnt)
    vo = AclTensor.from_array(np.zeros(15, NPX[dt]))
    io = AclTensor.from_array(np.zeros((3, 5), np.int64))
    rc, wss, ex, msg = ws_call("Unique", xt, False, True, vo, io)
    assert rc == 0, msg
    assert run_executor("Unique", ex, wss) == 0
    assert _view_len(vo) == [u]
    np.testing.assert_array_equal(io.numpy(), inv.reshape(3, 5))


def test_unique_invalid():
    X = tens((2, 3))
    expect_status("Unique", [None, True, True, tens((6,)), tens((2, 3), "i64")], 161001, "self")
    expect_status("Unique", [tens((2, 3), "c64"), True, True, tens((6,), "c64"), tens((2, 3), "i64")], 161002, "self")
    expect_status("Unique", [X, True, True, tens((6,)), tens((2, 3), "i32")], 161002, "inverseOut")
    expect_status("Unique", [X, True, True, tens((6,)), tens((3, 2), "i64")], 161002, "inverseOut")
    expect_status("Unique2", [X, True, True, True, tens((6,)), tens((2, 3), "i64"), tens((5,), "i64")], 161002,
                  "countsOut")
    expect_status("Unique2", [X, True, False, False, tens((6,)), tens((2, 3), "i64"), tens((6,), "f32")], 161002,
                  "countsOut")


@pytest.mark.parametrize("dt", dts("GatherV3"))
def test_gather_v3(torch, dt):
    rng = np.random.default_rng(23)
    x = strided(mk(rng, (5, 3), dt))
    idx = np.array([[4, 0], [4, 2]], np.int64)
    o = out_like((2, 2, 3), dt)
    pyaclnn.call("GatherV3", x, 0, idx, 0, 1, o)
    same(o, from_torch(T(torch, x)[T(torch, idx)]), dt)


def test_gather_v3_invalid_and_bucketize():
    X, I = tens((5, 3)), tens((2,), "i64")
    expect_status("GatherV3", [X, 1, I, 0, 1, tens((5, 2))], 161002, "dim")
    expect_status("GatherV3", [X, -2, I, 0, 1, tens((2, 3))], 161002, "dim")
    expect_status("GatherV3", [X, 0, I, 0, 0, tens((2, 3))], 161002, "mode")
    expect_status("GatherV3", [X, 0, I, 0, 1, tens((3, 3))], 161002, "out")
    expect_status("Bucketize", [X, tens((4,)), False, False, tens((5, 3), "i64")], 561000, "Bucketize")


@pytest.mark.parametrize("dt", dts("UniqueConsecutive"))
def test_unique_consecutive(torch, dt):
    rng = np.random.default_rng(24)
    base = mk(rng, (4, 3), dt, -1, 1)
    base[1] = base[0]
    x = strided(np.repeat(base, 2, axis=0))  # (8, 3), consecutive duplicate rows
    xt = AclTensor.from_array(np.ascontiguousarray(x))
    tt = T(torch, x) if torch_ok(dt) and dt not in ("c64", "c128") else None
    for dim in (1000, 0, -1):
        if dim == 1000:
            vals, inv, cnt = (torch.unique_consecutive(tt, return_inverse=True, return_counts=True) if tt is not None
                              else (None, None, None))
            vo = AclTensor.from_array(np.zeros(24, NPX[dt]))
        else:
            vals, inv, cnt = (torch.unique_consecutive(tt, return_inverse=True, return_counts=True, dim=dim)
                              if tt is not None else (None, None, None))
            vo = AclTensor.from_array(np.zeros((8, 3), NPX[dt]))
        n_inv = 24 if dim == 1000 else x.shape[dim]
        io = AclTensor.from_array(np.zeros((8, 3) if dim == 1000 else (n_inv,), np.int64))
        co = AclTensor.from_array(np.zeros(24, np.int64))
        rc, wss, ex, msg = ws_call("UniqueConsecutive", xt, True, True, dim, vo, io, co)
        assert rc == 0, msg
        assert run_executor("UniqueConsecutive", ex, wss) == 0
        if tt is None:  # literal reference: consecutive equal slices
            a = np.moveaxis(np.asarray(x).reshape(-1) if dim == 1000 else np.asarray(x), 0 if dim == 1000 else dim, 0)
            keep = [0] + [j for j in range(1, a.shape[0]) if not np.array_equal(a[j], a[j - 1])]
            ev = np.moveaxis(a[keep], 0, 0 if dim == 1000 else dim)
            got = vo.numpy()
            got = got.reshape(-1)[:ev.size].reshape(ev.shape) if dim == 1000 else \
                (got[:ev.shape[0]] if dim == 0 else got[:, :ev.shape[1]])
            same(got, ev, dt)
            continue
        shape = _view_len(vo)
        assert shape == list(vals.shape)
        got = vo.numpy()
        got = got.reshape(-1)[:vals.numel()] if dim == 1000 else (got[:shape[0]] if dim == 0 else got[:, :shape[1]])
        same(got.reshape(vals.shape), from_torch(vals), dt)
        np.testing.assert_array_equal(io.numpy().reshape(-1), inv.numpy().reshape(-1))
        assert _view_len(co) == [cnt.numel()]
        np.testing.assert_array_equal(co.numpy()[:cnt.numel()], cnt.numpy())


def test_unique_consecutive_invalid():
    X, V, I, C = tens((2, 3)), tens((6,)), tens((2, 3), "i64"), tens((6,), "i64")
    expect_status("UniqueConsecutive", [None, True, True, 1000, V, I, C], 161001, "self")
    expect_status("UniqueConsecutive", [X, True, True, 1000, V, I, None], 161001, "countsOut")
    expect_status("UniqueConsecutive", [X, True, True, 1000, V, tens((2, 3), "i32"), C], 161002, "inverseOut")
    expect_status("UniqueConsecutive", [X, True, True, 1000, V, I, tens((6,), "f32")], 161002, "countsOut")
    expect_status("UniqueConsecutive", [X, True, True, 1000, tens((6,), "f16"), I, C], 161002, "valueOut")
    expect_status("UniqueConsecutive", [X, True, True, 2, V, I, C], 161002, "dim")


@pytest.mark.parametrize("dt", dts("TfScatterAdd"))
def test_tf_scatter_add(torch, dt):
    rng = np.random.default_rng(25)
    x = mk(rng, (5, 3), dt, 0, 4)
    idx = np.array([[4, 0], [4, 4]], np.int64)  # row 4 three times: summed in index order
    upd = mk(rng, (2, 2, 3), dt, 0, 4)
    s = strided(np.array(x))
    pyaclnn.call("TfScatterAdd", s, idx.astype(np.int32), upd)
    t = T(torch, x).clone().double() if dt in FLOATS else T(torch, x).clone().long()
    u = T(torch, upd).double() if dt in FLOATS else T(torch, upd).long()
    t.index_add_(0, T(torch, idx.ravel()), u.reshape(4, 3))
    same(s, from_torch(t.to(T(torch, x).dtype)), dt)
    # the scatter_nd_add form: indices [2, 2] pick elements of a (5, 3) var
    s = np.array(x)
    idx2 = np.array([[4, 1], [4, 1]], np.int64)
    u2 = mk(rng, (2,), dt, 0, 4)
    pyaclnn.call("TfScatterAdd", s, idx2, u2)
    e = np.array(x).astype(np.float64)
    e[4, 1] += np.asarray(u2).astype(np.float64).sum()
    same(s, e.astype(np.asarray(x).dtype) if dt != "bf16" else e, dt)


def test_tf_scatter_add_invalid():
    V, I, U = tens((5, 3)), tens((2,), "i64"), tens((2, 3))
    expect_status("TfScatterAdd", [None, I, U], 161001, "varRef")
    expect_status("TfScatterAdd", [tens((5, 3), "f64"), I, tens((2, 3), "f64")], 161002, "varRef")
    expect_status("TfScatterAdd", [V, tens((2,), "f32"), U], 161002, "indices")
    expect_status("TfScatterAdd", [V, I, tens((2, 3), "f16")], 161002, "updates")
    expect_status("TfScatterAdd", [V, I, tens((2, 4))], 161002, "updates")
    expect_status("TfScatterAdd", [tens((0, 3)), I, U], 161002, "indices")


# ================================================================ median along a dim
@pytest.mark.parametrize("dt", dts("MedianDim"))
@pytest.mark.parametrize("op", ("MedianDim", "NanMedianDim"))
def test_median_dim(torch, dt, op):
    rng = np.random.default_rng(26)
    base = rng.permutation(60).reshape(3, 4, 5) - 30  # distinct values: the index is unique
    x = strided(base.astype(NPX[dt]) if dt not in FLOATS else (base / 4).astype(NPX[dt]))
    if dt in ("u8",):
        x = strided((base + 30).astype(np.uint8))
    fn = torch.median if op == "MedianDim" else torch.nanmedian
    for dim, keep in ((1, False), (-1, True), (0, False)):
        tv, ti = fn(T(torch, x), dim=dim, keepdim=keep)
        vo, io = out_like(tuple(tv.shape), dt), out_like(tuple(ti.shape), "i64")
        pyaclnn.call(op, x, dim, keep, vo, io)
        same(vo, from_torch(tv), dt)
        np.testing.assert_array_equal(io, ti.numpy())
    if dt in FLOATS:  # NaN: median propagates it (first NaN's index), nanmedian skips it
        y = np.array(x)
        y[0, 1, 2] = np.nan
        y[0, 3, 2] = np.nan
        tv, ti = fn(T(torch, y), dim=1)
        vo, io = np.zeros((3, 5), NPX[dt]), np.zeros((3, 5), np.int64)
        pyaclnn.call(op, y, 1, False, vo, io)
        same(vo, from_torch(tv), dt)
        np.testing.assert_array_equal(io, ti.numpy())


def test_median_dim_invalid():
    X = tens((3, 4))
    expect_status("MedianDim", [None, 0, False, tens((4,)), tens((4,), "i64")], 161001, "self")
    expect_status("MedianDim", [X, 0, False, tens((4,)), None], 161001, "indicesOut")
    expect_status("MedianDim", [tens((3, 4), "f64"), 0, False, tens((4,), "f64"), tens((4,), "i64")], 161002, "self")
    expect_status("MedianDim", [X, 0, False, tens((4,), "f16"), tens((4,), "i64")], 161002, "valuesOut")
    expect_status("MedianDim", [X, 0, False, tens((4,)), tens((4,), "i32")], 161002, "indicesOut")
    expect_status("MedianDim", [X, 2, False, tens((4,)), tens((4,), "i64")], 161002, "dim")
    expect_status("MedianDim", [X, 0, True, tens((4,)), tens((4,), "i64")], 161002, "valuesOut")
    expect_status("MedianDim", [tens((3, 1), "bf16"), 1, False, tens((3,), "bf16"), tens((3,), "i64")], 161002,
                  "BF16")
    expect_status("NanMedianDim", [tens((0, 4)), 0, False, tens((4,)), tens((4,), "i64")], 161002, "non-zero")


@pytest.mark.parametrize("dt", dts("Median"))
@pytest.mark.parametrize("op", ("Median", "NanMedian"))
def test_median_all(torch, dt, op):
    rng = np.random.default_rng(27)
    base = rng.permutation(24).reshape(4, 6)
    x = strided(base.astype(NPX[dt]) if dt not in FLOATS else (base / 4 - 2).astype(NPX[dt]))
    fn = torch.median if op == "Median" else torch.nanmedian
    o = np.zeros((), NPX[dt])
    pyaclnn.call(op, x, o)
    same(o, from_torch(fn(T(torch, x))), dt)
    if dt in FLOATS:
        y = np.array(x)
        y[1, 1] = np.nan
        o = np.zeros((), NPX[dt])
        pyaclnn.call(op, y, o)
        same(o, from_torch(fn(T(torch, y))), dt)
    o = np.full((), 7, NPX[dt])  # empty self: the op_api's fill value
    pyaclnn.call(op, np.zeros((0, 3), NPX[dt]), o)
    if dt in FLOATS:
        assert np.isnan(np.float32(o))
    elif op == "Median" and dt in ("i32", "i64"):
        assert int(o) == np.iinfo(NPX[dt]).min
    else:
        assert int(o) == 0


def test_median_all_invalid():
    expect_status("Median", [None, tens(())], 161001, "self")
    expect_status("Median", [tens((3,), "f64"), tens((), "f64")], 161002, "self")
    expect_status("Median", [tens((3,)), tens((), "f16")], 161002, "valuesOut")
    expect_status("NanMedian", [tens((3, 1), "bf16"), tens((), "bf16")], 161002, "BF16")


def test_unique_consecutive_flat_value_buffer(torch):
    x = np.array([[0, 1], [0, 1], [3, 3], [0, 1]], np.float32)
    xt = AclTensor.from_array(x)
    vo = AclTensor.from_array(np.zeros(8, np.float32))
    io, co = AclTensor.from_array(np.zeros(4, np.int64)), AclTensor.from_array(np.zeros(8, np.int64))
    rc, wss, ex, msg = ws_call("UniqueConsecutive", xt, True, True, 0, vo, io, co)
    assert rc == 0, msg
    assert run_executor("UniqueConsecutive", ex, wss) == 0
    assert _view_len(vo) == [3, 2]
    v, i, c = torch.unique_consecutive(torch.tensor(x), return_inverse=True, return_counts=True, dim=0)
    np.testing.assert_array_equal(vo.numpy().reshape(-1)[:6].reshape(3, 2), v.numpy())
    np.testing.assert_array_equal(io.numpy(), i.numpy())
    np.testing.assert_array_equal(co.numpy()[:3], c.numpy())
