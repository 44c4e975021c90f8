"""The third batch of the ops-nn index family (tools/optable/nn_index_extra.py): Kthvalue, EmbeddingBag and
RepeatInterleaveGrad against PyTorch CPU for every dtype of the A2 list, strided inputs and outputs, empty and 0-d
tensors, the invalid rows in the order upstream checks them, and the same bytes for OMP_NUM_THREADS 1/2/7."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn._optable import OPS
from helpers import same_bytes_for_threads, strided
from table_harness import NP, compare, expect_status, from_torch, to_torch


def mk(rng, shape, dt, distinct=False):
    if distinct:  # distinct values: the k-th element and its index are unique
        n = int(np.prod(shape))
        v = rng.permutation(n) - n // 2
        if dt == "u8":
            v = v + n // 2
        return np.array(v.reshape(shape).astype(NP[dt]))
    if dt in ("u8", "u16", "u32", "i8", "i16", "i32", "i64"):
        return np.array(rng.integers(0 if dt[0] == "u" else -4, 5, shape).astype(NP[dt]))
    return np.array(rng.uniform(-4, 4, shape).astype(NP[dt]))


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


def tens(shape, dt="f32"):
    return pyaclnn.AclTensor.from_array(np.zeros(shape, NP[dt]))


def check(o, e, dt):
    e = np.asarray(e)
    compare(o, e if dt == "bf16" else e.astype(o.dtype), dt)


# ------------------------------------------------------------------ Kthvalue

@pytest.mark.parametrize("dt", OPS["Kthvalue"]["dtypes"])
def test_kthvalue(torch, dt):
    rng = np.random.default_rng(1)
    x = strided(mk(rng, (3, 7, 4), dt, distinct=True))
    for k, dim, keep in ((1, 1, False), (4, -2, True), (7, 1, False), (2, 0, True), (3, -1, False)):
        ev, ei = torch.kthvalue(T(torch, x).to(torch.float64) if dt in ("f16", "bf16") else T(torch, x), k, dim, keep)
        vo = strided(np.zeros(tuple(ev.shape), NP[dt])) if ev.ndim else np.zeros((), NP[dt])
        io = np.zeros(tuple(ei.shape), np.int64)
        pyaclnn.call("Kthvalue", x, k, dim, keep, vo, io)
        check(vo, from_torch(ev), dt)
        np.testing.assert_array_equal(io, from_torch(ei))


def test_kthvalue_ties_nan_0d_empty():
    x = np.array([[2.0, np.nan, 1.0, 2.0, 1.0]], np.float32)
    vo, io = np.zeros((1,), np.float32), np.zeros((1,), np.int64)
    for k, ev, ei in ((1, 1.0, 2), (2, 1.0, 4), (3, 2.0, 0), (4, 2.0, 3)):
        pyaclnn.call("Kthvalue", x, k, 1, False, vo, io)  # stable: ties give the earliest position
        assert vo[0] == ev and io[0] == ei
    pyaclnn.call("Kthvalue", x, 5, 1, False, vo, io)  # NaN sorts last
    assert np.isnan(vo[0]) and io[0] == 1
    v0, i0 = np.zeros((), np.float32), np.zeros((), np.int64)
    pyaclnn.call("Kthvalue", np.array(3.5, np.float32), 1, -1, False, v0, i0)
    assert v0 == 3.5 and i0 == 0
    pyaclnn.call("Kthvalue", np.zeros((0, 3), np.float32), 2, 1, False, np.zeros((0,), np.float32),
                 np.zeros((0,), np.int64))


def test_kthvalue_invalid():
    X, V, I = tens((3, 4)), tens((3,)), tens((3,), "i64")
    expect_status("Kthvalue", [None, 1, 1, False, V, I], 161001, "self")
    expect_status("Kthvalue", [X, 1, 1, False, None, I], 161001, "valuesOut")
    expect_status("Kthvalue", [X, 1, 1, False, V, None], 161001, "indicesOut")
    expect_status("Kthvalue", [X, 1, 2, False, V, I], 161002, "dim")
    expect_status("Kthvalue", [tens(()), 1, 1, False, tens(()), tens((), "i64")], 161002, "dim")
    expect_status("Kthvalue", [X, 5, 1, False, V, I], 161002, "k")
    expect_status("Kthvalue", [X, 0, 1, False, V, I], 161002, "k")
    expect_status("Kthvalue", [tens((3, 4), "f64"), 1, 1, False, tens((3,), "f64"), I], 161002, "self")
    expect_status("Kthvalue", [X, 1, 1, False, tens((3,), "f16"), I], 161002, "valuesOut")
    expect_status("Kthvalue", [X, 1, 1, False, V, tens((3,), "i32")], 161002, "indicesOut")
    expect_status("Kthvalue", [tens((1,) * 9), 1, 0, False, tens((1,) * 8), tens((1,) * 8, "i64")], 161002,
                  "self")
    expect_status("Kthvalue", [X, 1, 1, True, V, I], 161002, "valuesOut")
    expect_status("Kthvalue", [X, 1, 1, False, V, tens((3, 1), "i64")], 161002, "indicesOut")


# ------------------------------------------------------------------ RepeatInterleaveGrad

def rig_ref(torch, y, reps, axis):
    yt = T(torch, y).to(torch.float64)
    r = torch.as_tensor(np.asarray(reps, np.int64))
    n = yt.shape[axis]
    if r.numel() == 1:
        r = r.reshape(1).expand(n // int(r.reshape(-1)[0]))
    seg = torch.repeat_interleave(torch.arange(r.numel()), r)
    shape = list(yt.shape)
    shape[axis] = r.numel()
    return torch.zeros(shape, dtype=torch.float64).index_add_(axis, seg, yt)


@pytest.mark.parametrize("rdt", ["i32", "i64"])
@pytest.mark.parametrize("dt", OPS["RepeatInterleaveGrad"]["dtypes"])
def test_repeat_interleave_grad(torch, dt, rdt):
    rng = np.random.default_rng(2)
    y = strided(mk(rng, (3, 6, 5), dt))
    for reps, axis in (([1, 2, 0, 3], 1), ([2], -2), (np.array(3), 1), ([3, 3], 0 if False else 1), ([1, 1, 1], 0),
                       ([5], 2), ([4, 1], -1)):
        reps = np.asarray(reps).astype(NP[rdt])
        e = rig_ref(torch, y, reps, axis)
        o = strided(np.zeros(tuple(e.shape), NP[dt]))
        pyaclnn.call("RepeatInterleaveGrad", y, reps, axis, o)
        check(o, from_torch(e), dt)


def test_repeat_interleave_grad_example_and_flat_out():
    y = np.array([3, 4, 5, 3, 4, 5, -3, -4, -5, -3, -4, -5], np.float32).reshape(4, 3)
    o = np.zeros((2, 3), np.float32)
    pyaclnn.call("RepeatInterleaveGrad", y, np.array([2, 2], np.int64), 0, o)
    np.testing.assert_array_equal(o, [[6, 8, 10], [-6, -8, -10]])
    o6 = np.zeros((6,), np.float32)  # out only needs the element count
    pyaclnn.call("RepeatInterleaveGrad", y, np.array([2, 2], np.int64), 0, o6)
    np.testing.assert_array_equal(o6, [6, 8, 10, -6, -8, -10])
    pyaclnn.call("RepeatInterleaveGrad", np.zeros((0, 3), np.float32), np.array([2], np.int64), 1,
                 np.zeros((0, 1), np.float32))


def test_repeat_interleave_grad_invalid():
    Y, R, O = tens((4, 3)), tens((2,), "i64"), tens((2, 3))
    expect_status("RepeatInterleaveGrad", [None, R, 0, O], 161001, "yGrad")
    expect_status("RepeatInterleaveGrad", [Y, None, 0, O], 161001, "repeats")
    expect_status("RepeatInterleaveGrad", [Y, R, 0, None], 161001, "out")
    expect_status("RepeatInterleaveGrad", [tens((4, 3), "f64"), R, 0, tens((2, 3), "f64")], 161002, "yGrad")
    expect_status("RepeatInterleaveGrad", [Y, tens((2,), "i16"), 0, O], 161002, "repeats")
    expect_status("RepeatInterleaveGrad", [Y, R, 0, tens((2, 3), "f16")], 161002, "out")
    expect_status("RepeatInterleaveGrad", [Y, tens((0,), "i64"), 0, O], 561002, "repeats")
    expect_status("RepeatInterleaveGrad", [Y, tens((2, 1), "i64"), 0, O], 561002, "repeats")
    expect_status("RepeatInterleaveGrad", [Y, R, 2, O], 561002, "axis")
    expect_status("RepeatInterleaveGrad", [Y, R, 0, tens((3, 3))], 561002, "out")
    expect_status("RepeatInterleaveGrad", [Y, tens((1,), "i64"), 0, tens((5, 3))], 561002, "out")


# ------------------------------------------------------------------ EmbeddingBag

def eb_call(w, idx, off, mode, psw=None, last=False, pad=-1, idt="i64", odt="i64", o2b_n=None):
    B = off.size - (1 if last else 0)
    D = w.shape[1]
    y = strided(np.zeros((B, D), w.dtype))
    o2b = np.zeros((idx.size if o2b_n is None else o2b_n,), NP[odt])
    bs = np.zeros((B,), NP[odt])
    mi = np.zeros((B, D) if mode == 2 else (B,), NP[odt])
    pyaclnn.call("EmbeddingBag", w, idx.astype(NP[idt]), off.astype(NP[idt]), False, mode, False, psw, last, pad,
                 y, o2b, bs, mi)
    return y, o2b, bs, mi


IDX = np.array([1, 2, 0, 2, 2, 1, 3, 0, 3], np.int64)
OFF = np.array([0, 2, 2, 5, 6], np.int64)
BAGS = np.array([0, 0, 2, 2, 2, 3, 4, 4, 4], np.int64)


@pytest.mark.parametrize("pad", [-1, 2])
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dt", OPS["EmbeddingBag"]["dtypes"])
def test_embedding_bag(torch, dt, mode, pad):
    rng = np.random.default_rng(5)
    w = strided(mk(rng, (4, 5), dt))
    wt = T(torch, w).to(torch.float32)
    y, o2b, bs, mi = eb_call(w, IDX, OFF, mode, pad=pad)
    ey, eo, eb, em = torch._embedding_bag(wt, T(torch, IDX), T(torch, OFF), False, mode, False, None, False, pad)
    check(y, from_torch(ey), dt)
    np.testing.assert_array_equal(o2b, BAGS)
    if mode == 0:  # the A2 kernel leaves bagSize (and maxIndices = bagSize) 0 in mode sum
        assert not bs.any() and not mi.any()
    else:
        np.testing.assert_array_equal(bs, from_torch(eb))
        np.testing.assert_array_equal(mi, from_torch(em))


@pytest.mark.parametrize("dt", OPS["EmbeddingBag"]["dtypes"])
def test_embedding_bag_per_sample_weights_last_offset(torch, dt):
    rng = np.random.default_rng(6)
    w = mk(rng, (4, 3), dt)
    psw = strided(mk(rng, (IDX.size,), dt))
    off = np.append(OFF, IDX.size)
    y, o2b, bs, mi = eb_call(w, IDX, off, 0, psw=psw, last=True, idt="i32", odt="i32")
    ey = torch._embedding_bag(T(torch, w).float(), T(torch, IDX), T(torch, off), False, 0, False,
                              T(torch, psw).float(), True, -1)[0]
    check(y, from_torch(ey), dt)
    np.testing.assert_array_equal(o2b, BAGS)


def test_embedding_bag_example_and_empty():
    w = np.ones((3, 3), np.float32)
    y, o2b, bs, mi = eb_call(w, np.array([1, 2, 0, 2, 2, 1]), np.array([0, 2, 4, 5]), 0,
                             psw=np.ones(6, np.float32), pad=1, idt="i64")
    np.testing.assert_array_equal(y, [[1] * 3, [2] * 3, [1] * 3, [0] * 3])
    np.testing.assert_array_equal(o2b, [0, 0, 1, 1, 2, 3])
    y, o2b, bs, mi = eb_call(w, IDX[:4] % 3, OFF[:2], 1, o2b_n=0)  # offset2bag may be empty: not written
    np.testing.assert_allclose(y, np.ones((2, 3)))
    eb_call(w, np.zeros((0,), np.int64), OFF, 0, o2b_n=0)


def test_embedding_bag_invalid():
    W, I, O = tens((4, 3)), tens((6,), "i64"), tens((3,), "i64")
    Y, O2, BS, MI, MI2 = tens((3, 3)), tens((6,), "i64"), tens((3,), "i64"), tens((3,), "i64"), tens((3, 3), "i64")
    P = tens((6,))

    def a(w=W, i=I, o=O, mode=0, p=None, last=False, y=Y, o2=O2, bs=BS, mi=MI):
        return [w, i, o, False, mode, False, p, last, -1, y, o2, bs, mi]

    for k, name in ((0, "weight"), (1, "indices"), (2, "offsets"), (9, "output"), (10, "offset2bag"),
                    (11, "bagSize"), (12, "maxIndices")):
        args = a()
        args[k] = None
        expect_status("EmbeddingBag", args, 161001, name)
    expect_status("EmbeddingBag", a(w=tens((4, 3), "f64")), 161002, "weight")
    expect_status("EmbeddingBag", a(i=tens((6,), "f32")), 161002, "indices")
    expect_status("EmbeddingBag", a(o=tens((3,), "bool")), 161002, "offsets")
    expect_status("EmbeddingBag", a(i=tens((6,), "i8"), o=tens((3,), "u8")), 161002, "indices")
    expect_status("EmbeddingBag", a(p=tens((6,), "f16")), 161002, "perSampleWeights")
    expect_status("EmbeddingBag", a(y=tens((3, 3), "f16")), 161002, "output")
    expect_status("EmbeddingBag", a(o2=tens((6,), "i16")), 161002, "offset2bag")
    expect_status("EmbeddingBag", a(bs=tens((3,), "f32")), 161002, "bagSize")
    expect_status("EmbeddingBag", a(mi=tens((3,), "u8")), 161002, "maxIndices")
    expect_status("EmbeddingBag", a(w=tens((4, 3, 1)), y=tens((3, 3))), 161002, "weight")
    expect_status("EmbeddingBag", a(i=tens((2, 3), "i64")), 161002, "indices")
    expect_status("EmbeddingBag", a(o=tens((3, 1), "i64")), 161002, "offsets")
    expect_status("EmbeddingBag", a(p=tens((6, 1))), 161002, "perSampleWeights")
    expect_status("EmbeddingBag", a(y=tens((9,))), 161002, "output")
    expect_status("EmbeddingBag", a(mode=2), 161002, "maxIndices")
    expect_status("EmbeddingBag", a(mode=1, p=P), 161002, "perSampleWeights")
    expect_status("EmbeddingBag", a(p=tens((5,))), 161002, "perSampleWeights")
    expect_status("EmbeddingBag", a(y=tens((2, 3))), 161002, "output")
    expect_status("EmbeddingBag", a(o2=tens((5,), "i64")), 161002, "offset2bag")
    expect_status("EmbeddingBag", a(bs=tens((2,), "i64")), 161002, "bagSize")
    expect_status("EmbeddingBag", a(mode=2, mi=tens((3, 2), "i64")), 161002, "maxIndices")
    expect_status("EmbeddingBag", a(mi=tens((4,), "i64")), 161002, "maxIndices")
    expect_status("EmbeddingBag", a(mode=2, mi=MI2), 0)


def test_nn_index_extra_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
x = rng.standard_normal((64, 33, 40)).astype(np.float32)
v, i = np.zeros((64, 40), np.float32), np.zeros((64, 40), np.int64)
pyaclnn.call("Kthvalue", x, 9, 1, False, v, i); h.update(v.tobytes()); h.update(i.tobytes())
o = np.zeros((64, 11, 40), np.float32)
pyaclnn.call("RepeatInterleaveGrad", x, np.array([3], np.int64), 1, o); h.update(o.tobytes())
w = x.reshape(-1, 40)[:500]
idx = rng.integers(0, 500, 3000); off = np.sort(rng.integers(0, 3000, 200)); off[0] = 0
for mode in (0, 1, 2):
    y = np.zeros((200, 40), np.float32); o2 = np.zeros(3000, np.int64); bs = np.zeros(200, np.int64)
    mi = np.zeros((200, 40) if mode == 2 else 200, np.int64)
    pyaclnn.call("EmbeddingBag", w, idx, off, False, mode, False, None, False, 7, y, o2, bs, mi)
    for t in (y, o2, bs, mi): h.update(t.tobytes())
lg = rng.standard_normal((300, 64)).astype(np.float32); o = np.zeros_like(lg)
pyaclnn.call("ApplyTopKTopP", lg, rng.uniform(0.1, 1, 300).astype(np.float32),
             rng.integers(1, 65, 300).astype(np.int32), o); h.update(o.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ------------------------------------------------------------------ ScatterList

def sl_ref(var_list, indice, updates, mask, axis):
    """upstream's golden, literally: rows written at flat offsets of each var tensor"""
    out = [np.array(v) for v in var_list]
    nax = axis if axis >= 0 else updates.ndim + axis
    s2 = updates.shape[nax]
    for i, vt in enumerate(out):
        if mask is not None and mask[i] == 0:
            continue
        if indice.ndim == 2:
            start, n = int(indice[i][0]), min(int(indice[i][1]), s2)
        else:
            start, n = int(indice[i]), s2
        alen = vt.shape[nax - 1]
        lead = int(np.prod(vt.shape[:nax - 1]))
        trail = int(np.prod(vt.shape[nax:]))
        flat = vt.reshape(-1)
        u = np.asarray(updates[i]).reshape(lead, s2, trail)
        for l in range(lead):
            for r in range(max(n, 0)):
                base = (l * alen + start + r) * trail
                if base >= 0 and base + trail <= flat.size:
                    flat[base:base + trail] = u[l, r]
    return out


@pytest.mark.parametrize("dt", OPS["ScatterList"]["dtypes"])
def test_scatter_list(dt):
    rng = np.random.default_rng(7)
    for vshape, ushape, axis, ind, mask in (
            ((5, 3, 4), (3, 5, 2, 4), -2, np.array([0, 1, 2]), None),
            ((5, 3, 4), (3, 5, 2, 4), 2, np.array([[1, 1], [0, 5], [2, 0]]), np.array([1, 0, 1], np.uint8)),
            ((4, 6), (3, 4, 3), -1, np.array([3, 5, -2]), None),      # past the axis: flat offsets
            ((2, 6, 3), (3, 2, 6, 3), 2, np.array([0, 0, 0]), np.array([0, 1, 1], np.uint8))):
        for idt in ("i32", "i64"):
            var = [strided(mk(rng, vshape, dt)) for _ in range(3)]
            upd = strided(mk(rng, ushape, dt))
            e = sl_ref(var, ind, upd, mask, axis)
            pyaclnn.call("ScatterList", var, ind.astype(NP[idt]), upd, mask, "update", axis)
            for a, b in zip(var, e):
                np.testing.assert_array_equal(np.ascontiguousarray(a).view(np.uint8),
                                              np.ascontiguousarray(b).view(np.uint8))


def test_scatter_list_example():
    var = np.zeros((5, 3, 4), np.float32)
    pyaclnn.call("ScatterList", [var], np.array([[0, 1]], np.int64), np.full((1, 5, 3, 4), 10, np.float32), None,
                 "update", -2)
    e = np.zeros((5, 3, 4), np.float32)
    e[:, 0, :] = 10
    np.testing.assert_array_equal(var, e)


def test_scatter_list_invalid():
    from pyaclnn import ffi
    from shape_util import tlist
    V = [tens((5, 3, 4)), tens((5, 3, 4))]
    I, U = tens((2,), "i64"), tens((2, 5, 2, 4))

    def run(v=V, i=I, u=U, m=None, red=b"update", axis=-2, code=0, word=None):
        lst = tlist(v) if v is not None else None
        cred = ffi.new("char[]", red) if red is not None else None
        expect_status("ScatterList", [lst, i, u, m, cred, axis], code, word)

    run(v=None, code=161001, word="varRef")
    run(i=None, code=161001, word="indice")
    run(u=None, code=161001, word="updates")
    run(v=[tens((5, 3, 4), "f64")] * 2, u=tens((2, 5, 2, 4), "f64"), code=161002, word="varRef")
    run(i=tens((2,), "f32"), code=161002, word="indice")
    run(u=tens((2, 5, 2, 4), "f16"), code=161002, word="updates")
    run(m=tens((2,), "i8"), code=161002, word="maskOptional")
    run(v=[], code=561002, word="varRef")
    run(v=[tens((5, 3, 4)), tens((5, 3, 5))], code=561002, word="varRef")
    run(u=tens((5,)), code=561002, word="updates")
    run(u=tens((3, 5, 2, 4)), code=561002, word="updates")
    run(axis=0, code=561002, word="axis")
    run(axis=4, code=561002, word="axis")
    run(u=tens((2, 5, 0, 4)), code=561002, word="updates")
    run(u=tens((2, 4, 2, 4)), code=561002, word="before axis")
    run(u=tens((2, 5, 2, 3)), code=561002, word="after axis")
    run(u=tens((2, 5, 4, 4)), code=561002, word="axis length")
    run(i=tens((2, 2, 1), "i64"), code=561002, word="indice")
    run(i=tens((3,), "i64"), code=561002, word="indice")
    run(i=tens((2, 3), "i64"), code=561002, word="indice")
    run(m=tens((2, 1), "u8"), code=561002, word="maskOptional")
    run(m=tens((3,), "u8"), code=561002, word="maskOptional")
    run(red=b"add", code=561002, word="reduce")
    run(m=tens((2,), "u8"))


# ------------------------------------------------------------------ ApplyTopKTopP

def atp_ref(torch, logits, p, k):
    """the doc's formula in PyTorch, fp32"""
    x = T(torch, logits).float()
    sv, si = torch.sort(x, dim=-1, descending=False, stable=True)
    V = x.shape[1]
    if V == 1:
        return x
    if k is not None:
        kt = torch.as_tensor(np.asarray(k, np.int64))
        thr = sv.gather(1, (V - kt).unsqueeze(1))
        sv = sv.masked_fill(sv < thr, -float("inf"))
    if p is not None:
        probs = sv.softmax(dim=-1)
        cs = probs.cumsum(dim=-1)
        m = cs <= 1 - T(torch, p).float().unsqueeze(1)
        m[:, -1] = False
        sv = sv.masked_fill(m, -float("inf"))
    return torch.empty_like(sv).scatter_(1, si, sv)


@pytest.mark.parametrize("dt", OPS["ApplyTopKTopP"]["dtypes"])
def test_apply_top_k_top_p(torch, dt):
    rng = np.random.default_rng(8)
    x = strided(mk(rng, (5, 40), dt, distinct=True) / 4 if dt != "bf16" else mk(rng, (5, 40), dt, distinct=True))
    p = strided(np.array([0.3, 0.9, 0.05, 1.0, 0.6]).astype(NP[dt]))
    k = np.array([1, 7, 40, 20, 3], np.int32)
    for pp, kk in ((p, k), (p, None), (None, k)):
        o = strided(np.zeros(x.shape, NP[dt]))
        pyaclnn.call("ApplyTopKTopP", x, pp, kk, o)
        check(o, from_torch(atp_ref(torch, x, pp, kk)), dt)


def test_apply_top_k_top_p_edges():
    x = np.array([[3.0], [1.0]], np.float32)
    o = np.zeros_like(x)
    pyaclnn.call("ApplyTopKTopP", x, np.array([0.5, 0.5], np.float32), None, o)
    np.testing.assert_array_equal(o, x)
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    o = np.zeros_like(x)
    pyaclnn.call("ApplyTopKTopP", x, None, None, o)  # upstream only logs p and k both NULL
    np.testing.assert_array_equal(o, x)
    pyaclnn.call("ApplyTopKTopP", np.zeros((0, 3), np.float32), None, np.zeros((0,), np.int32),
                 np.zeros((0, 3), np.float32))


def test_apply_top_k_top_p_invalid():
    X, P, K, O = tens((2, 5)), tens((2,)), tens((2,), "i32"), tens((2, 5))
    expect_status("ApplyTopKTopP", [None, P, K, O], 161001, "logits")
    expect_status("ApplyTopKTopP", [X, P, K, None], 161001, "out")
    expect_status("ApplyTopKTopP", [tens((2, 5), "f64"), P, K, O], 161002, "logits")
    expect_status("ApplyTopKTopP", [X, tens((2,), "f64"), K, O], 161002, "p")
    expect_status("ApplyTopKTopP", [X, P, tens((2,), "i64"), O], 161002, "k")
    expect_status("ApplyTopKTopP", [X, P, K, tens((2, 5), "i32")], 161002, "out")
    expect_status("ApplyTopKTopP", [X, tens((2,), "f16"), K, O], 161002, "p")
    expect_status("ApplyTopKTopP", [X, P, K, tens((2, 5), "f16")], 161002, "out")
    expect_status("ApplyTopKTopP", [tens((2, 5, 1)), P, K, tens((2, 5, 1))], 161002, "logits")
    expect_status("ApplyTopKTopP", [X, P, K, tens((2, 4))], 161002, "out")
    expect_status("ApplyTopKTopP", [X, tens((2, 1)), K, O], 161002, "p")
    expect_status("ApplyTopKTopP", [X, P, tens((2, 1), "i32"), O], 161002, "k")
    expect_status("ApplyTopKTopP", [X, tens((3,)), K, O], 161002, "p")
    expect_status("ApplyTopKTopP", [X, P, tens((3,), "i32"), O], 161002, "k")


# ------------------------------------------------------------------ ExpandIntoJaggedPermute

def ej_ref(perm, io, oo, n):
    out = np.zeros(n, np.int32)
    for i, t in enumerate(perm):
        s, e = oo[i], oo[i + 1]
        out[s:e] = np.arange(io[t], io[t] + (e - s))
    return out


def test_expand_into_jagged_permute():
    rng = np.random.default_rng(9)
    for T_ in (1, 4, 37):
        lens = rng.integers(1, 6, T_)
        perm = rng.permutation(T_).astype(np.int32)
        io = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        oo = np.concatenate([[0], np.cumsum(lens[perm])]).astype(np.int32)
        n = int(oo[-1])
        o = strided(np.zeros(n, np.int32))
        pyaclnn.call("ExpandIntoJaggedPermute", strided(perm), strided(io), oo, n, o)
        np.testing.assert_array_equal(o, ej_ref(perm, io, oo, n))
    # the upstream example's shape: 3 tables
    perm, io, oo = np.array([1, 0, 2], np.int32), np.array([0, 3, 5, 8], np.int32), np.array([0, 2, 5, 8], np.int32)
    o = np.zeros(8, np.int32)
    pyaclnn.call("ExpandIntoJaggedPermute", perm, io, oo, 8, o)
    np.testing.assert_array_equal(o, [3, 4, 0, 1, 2, 5, 6, 7])
    pyaclnn.call("ExpandIntoJaggedPermute", np.zeros(0, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32), 0,
                 np.zeros(0, np.int32))


def test_expand_into_jagged_permute_invalid():
    P, IO, O = tens((3,), "i32"), tens((4,), "i32"), tens((8,), "i32")
    op = "ExpandIntoJaggedPermute"
    expect_status(op, [None, IO, IO, 8, O], 161001, "permute")
    expect_status(op, [P, None, IO, 8, O], 161001, "inputOffset")
    expect_status(op, [P, IO, None, 8, O], 161001, "outputOffset")
    expect_status(op, [P, IO, IO, 8, None], 161001, "outputPermuteOut")
    expect_status(op, [tens((3,), "i64"), IO, IO, 8, O], 161002, "permute")
    expect_status(op, [P, tens((4,), "i64"), IO, 8, O], 161002, "inputOffset")
    expect_status(op, [P, IO, tens((4,), "f32"), 8, O], 161002, "outputOffset")
    expect_status(op, [P, IO, IO, 8, tens((8,), "i64")], 161002, "outputPermuteOut")
    expect_status(op, [tens((3, 1), "i32"), IO, IO, 8, O], 561002, "permute")
    expect_status(op, [P, tens((4, 1), "i32"), IO, 8, O], 561002, "inputOffset")
    expect_status(op, [P, IO, tens((2, 2), "i32"), 8, O], 561002, "outputOffset")
    expect_status(op, [P, IO, IO, 9, O], 561002, "outputPermuteOut")


# ------------------------------------------------------------------ InplaceQuantScatter

def qs_ref(var, ind, upd, sc, zp, axis):
    """upstream's golden (quantise, then scatter along axis), literal numpy in float32"""
    out = np.array(var)
    r = out.ndim
    a = axis % r
    q = np.asarray(upd).astype(np.float32) / np.asarray(sc).astype(np.float32).reshape(-1)
    if zp is not None:
        q = q + np.asarray(zp).astype(np.float32).reshape(-1)
    q = np.clip(np.rint(q), -128, 127).astype(np.int8)
    for i in range(q.shape[0]):
        b, st = (ind[i][0], ind[i][1]) if ind.ndim == 2 else (i, ind[i])
        sl = [slice(None)] * r
        sl[0] = b
        sl[a] = slice(st, st + q.shape[a])
        out[tuple(sl)] = q[i]
    return out


@pytest.mark.parametrize("combo", [("f16", "f32", "i32"), ("bf16", "bf16", "bf16")])
def test_inplace_quant_scatter(combo):
    ud, sd, zd = combo
    rng = np.random.default_rng(10)
    for vshape, ushape, axis, ind in (((3, 2, 6, 8), (2, 2, 3, 8), -2, np.array([1, 3])),
                                      ((3, 2, 6, 8), (2, 2, 6, 5), -1, np.array([0, 2])),
                                      ((4, 5, 8), (3, 2, 8), 1, np.array([[3, 1], [0, 3], [2, 0]])),
                                      ((2, 7, 4), (2, 7, 4), -2, np.array([0, 0]))):
        for with_zp in (True, False):
            for idt in ("i32", "i64"):
                var = strided(rng.integers(-100, 100, vshape).astype(np.int8))
                upd = strided((rng.uniform(-60, 60, ushape)).astype(NP[ud]))
                sc = strided(rng.uniform(0.3, 2, (ushape[-1],)).astype(NP[sd]))
                zp = (rng.integers(-20, 20, (1,)).astype(NP[zd])) if with_zp else None
                e = qs_ref(var, ind, upd, sc, zp, axis)
                pyaclnn.call("InplaceQuantScatter", var, ind.astype(NP[idt]), upd, sc, zp, axis, -1, 0)
                np.testing.assert_array_equal(var, e)


def test_inplace_quant_scatter_invalid():
    V, I, U, S, Z = tens((2, 4, 8), "i8"), tens((2,), "i32"), tens((2, 2, 8), "f16"), tens((8,)), tens((8,), "i32")
    op = "InplaceQuantScatter"
    expect_status(op, [None, I, U, S, Z, -2, -1, 0], 161001, "selfRef")
    expect_status(op, [V, None, U, S, Z, -2, -1, 0], 161001, "indices")
    expect_status(op, [V, I, None, S, Z, -2, -1, 0], 161001, "updates")
    expect_status(op, [V, I, U, None, Z, -2, -1, 0], 161001, "quantScales")
    expect_status(op, [tens((2, 4, 8), "u8"), I, U, S, Z, -2, -1, 0], 161002, "selfRef")
    expect_status(op, [V, tens((2,), "i16"), U, S, Z, -2, -1, 0], 161002, "indices")
    expect_status(op, [V, I, tens((2, 2, 8)), S, Z, -2, -1, 0], 161002, "updates")
    expect_status(op, [V, I, U, tens((8,), "f16"), Z, -2, -1, 0], 161002, "quantScales")
    expect_status(op, [V, I, U, S, tens((8,)), -2, -1, 0], 161002, "quantZeroPoints")
    expect_status(op, [V, I, U, S, tens((8,), "bf16"), -2, -1, 0], 161002, "quantZeroPoints")
    expect_status(op, [V, I, U, tens((8,), "bf16"), None, -2, -1, 0], 161002, "quantScales")
    expect_status(op, [V, I, tens((2, 8), "f16"), S, Z, -2, -1, 0], 161002, "dimension")
    expect_status(op, [V, I, U, S, Z, 0, -1, 0], 561002, "axis")
    expect_status(op, [V, I, U, S, Z, -2, 1, 0], 561002, "quantAxis")
    expect_status(op, [V, tens((3,), "i32"), U, S, Z, -2, -1, 0], 561002, "indices")
    expect_status(op, [V, I, tens((2, 2, 7), "f16"), S, Z, -2, -1, 0], 561002, "updates")
    expect_status(op, [V, I, tens((2, 5, 8), "f16"), S, Z, -2, -1, 0], 561002, "axis length")
    expect_status(op, [V, I, U, tens((4,)), Z, -2, -1, 0], 561002, "quantScales")
    expect_status(op, [V, I, U, S, tens((3,), "i32"), -2, -1, 0], 561002, "quantZeroPoints")
    expect_status(op, [V, I, U, S, Z, -2, -1, 1], 0)  # reduction is not read
