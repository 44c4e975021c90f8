"""TopKTopPSampleV2 (tools/optable/nn_topk_v2.py, libsrc/ops/index_top_k_top_p_sample_v2.c): the four outputs of
every mode (greedy, q sample, the sample-result intermediates; isNeedLogits, inputIsLogits) and every stage (top-k
with ksMax's rounding, top-p with and without top-k, min-p below and above 1) for float16, bfloat16 and float32,
against a literal per-row Python reference written from the kernel's description (op_kernel/
top_k_top_p_sample_v2.h) and against PyTorch for the parts PyTorch can say (topk, softmax, cumsum, argmax);
strided views; untouched outputs; the invalid rows with their exact codes; the same bytes for 1, 2 and 7 threads."""
import os
import zlib

import numpy as np
import pytest

from pyaclnn.lowlevel import AclTensor
from helpers import last_error, run_executor, same_bytes_for_threads, strided, ws_call
from table_harness import expect_status, to_torch
from test_nn_index import NPX, tens

OP = "TopKTopPSampleV2"
F32 = np.float32
FMIN = F32(-3.40282e38)
DTS = ("f16", "bf16", "f32")


# ------------------------------------------------------------------ the reference
def _softmax(vals, shift, chunk=None):
    """fp32 exp(v - shift) / sum, the sum sequential (in 8192-element chunks added up when chunk is set)"""
    e = [F32(np.exp(F32(v - shift))) for v in vals]
    if chunk:
        s = F32(0)
        for c in range(0, len(e), chunk):
            part = F32(0)
            for v in e[c:c + chunk]:
                part = F32(part + v)
            s = F32(s + part)
    else:
        s = F32(0)
        for v in e:
            s = F32(s + v)
    return [F32(v / s) for v in e]


def _reach(vals, p):
    """(the first j + 1 whose running fp32 sum is >= p, True) or (len, False)"""
    cum = F32(0)
    for j, v in enumerate(vals):
        cum = F32(cum + v)
        if cum >= p:
            return j + 1, True
    return len(vals), False


def _first_max(vals, start):
    best, m = start, None
    for j, v in enumerate(vals):
        if v > best:
            best, m = v, j
    return m


def ref_row(x, k, p, minp, q, eps, ksmax, guess, is_logits, need_sample):
    """one row: (select index or None, kept vocabulary indices, their values for logitsSortMasked, kept logits
    (index -> value) or "all")"""
    V = len(x)
    order = sorted(range(V), key=lambda j: (-float(x[j]), j))
    do_k = 0 < k <= min(V, ksmax)
    do_p = 0 < p < 1
    has_m = minp is not None and minp > 0
    none = not do_k and not do_p and not has_m
    local = False
    if do_k or p <= 0:
        ids = order[:1 if p <= 0 else k]
        raw = [x[j] for j in ids]
        pr = _softmax(raw, raw[0]) if is_logits else list(raw)
        n = len(ids)
        if do_k and do_p:
            n, _ = _reach(pr, p)
        local = True
        orimax = raw[0]
    elif do_p:
        ids = order
        full = _softmax(x, max(x), 8192) if is_logits else list(x)
        pr = [full[j] for j in ids]
        n, found = _reach(pr, p)
        local = found and n <= guess
        raw = [x[j] for j in ids]
        orimax = max(x)
    else:
        ids = list(range(V))
        pr = _softmax(x, max(x), 8192) if is_logits else list(x)
        n = V if p >= 1 else 0
        orimax = max(x)
        if none and q is not None and is_logits:
            m = _first_max([F32(pr[j] / F32(abs(q[j]) + eps)) for j in range(V)], FMIN)
            return (0 if m is None else m), None, None, "all"
        raw = list(x)
    mpos = 0 if (do_k or p <= 0 or do_p) else _first_max(pr, FMIN)
    maxi, maxv = ids[mpos], pr[mpos]
    ids, pr, raw = list(ids[:n]), list(pr[:n]), list(raw[:n])
    if has_m:
        thd = F32(F32(minp) * maxv)
        if minp >= 1:
            ids, pr, raw, n, local = [maxi], [maxv], [orimax], 1, True
        elif local:
            last = [j for j in range(n) if pr[j] >= thd]
            if last:
                n = last[-1] + 1
            ids, pr, raw = ids[:n], pr[:n], raw[:n]
        else:
            keep = [j for j in range(n) if pr[j] >= thd]
            ids, pr, raw = [ids[j] for j in keep], [pr[j] for j in keep], [raw[j] for j in keep]
            n = len(ids)
    kept = "all" if none and (not local) else {j: (raw[i] if local and n * 100 < V * 70 else x[j])
                                                 for i, j in enumerate(ids)}
    if need_sample:
        return None, ids, pr, kept
    if q is None:
        return maxi, ids, pr, kept
    v = [F32(pr[j] / F32(abs(q[j]) + eps)) for j in range(n)]
    if local:
        return ids[int(np.argmax(v))], ids, pr, kept
    m = _first_max(v, FMIN)
    return ids[m] if m is not None else maxi, ids, pr, kept


def ref(x, ks, ps, q, mps, eps=1e-8, need_logits=True, guess=32, ksmax=1024, is_logits=True, need_sample=False,
        lidx0=None):
    ps = np.asarray(ps).astype(x.dtype).astype(F32)  # topP and minPs come in logits' dtype
    mps = None if mps is None else np.asarray(mps).astype(x.dtype).astype(F32)
    x = np.asarray(x).astype(F32)
    B, V = x.shape
    u = ksmax & 0xFFFFFFFF  # the tiling reads both attributes as 32 bits
    ksm = min(((u + 7) // 8 * 8) & 0xFFFFFFFF, 1024)
    g = min(guess & 0xFFFFFFFF, 1024)
    eps = F32(eps)
    idx = np.zeros(B, np.int64)
    sel = np.full((B, V), -np.inf if is_logits else 0, F32)
    lidx = np.zeros((B, V), np.int64) if lidx0 is None else lidx0.copy()
    lsm = np.zeros((B, V), F32)
    for b in range(B):
        row = [F32(v) for v in x[b]]
        mp = None if mps is None else mps[b]
        qi = None if q is None else [F32(v) for v in q[b]]
        i, ids, pr, kept = ref_row(row, int(ks[b]), ps[b], mp, qi, eps, ksm, g,
                                   is_logits, need_sample)
        if i is not None:
            idx[b] = i
        if kept == "all":
            sel[b] = x[b]
        else:
            for j, v in kept.items():
                sel[b, j] = v
        if need_sample:
            lidx[b, :len(ids)] = ids
            lsm[b, :len(pr)] = pr
    return idx, sel, lidx, lsm


# ------------------------------------------------------------------ the call
def call(x, ks, ps, q, mps, eps=1e-8, need_logits=True, guess=32, ksmax=1024, is_logits=True, need_sample=False,
         views=False, fill=7):
    B, V = x.shape
    dt = x.dtype
    v = (lambda a: strided(a)) if views else (lambda a: a)
    tx, tk, tp = AclTensor.from_array(v(x)), AclTensor.from_array(v(ks)), AclTensor.from_array(v(ps.astype(dt)))
    tq = None if q is None else AclTensor.from_array(strided(q, "transpose") if views else q)
    tm = None if mps is None else AclTensor.from_array(v(mps.astype(dt)))
    it = AclTensor.from_array(v(np.full(B, fill, np.int64)))
    st = AclTensor.from_array(v(np.full((B, V), fill, F32)))
    li = AclTensor.from_array(strided(np.full((B, V), fill, np.int64), "transpose") if views else
                              np.full((B, V), fill, np.int64))
    sm = AclTensor.from_array(v(np.full((B, V), fill, F32)))
    rc, wss, ex, msg = ws_call(OP, tx, tk, tp, tq, tm, eps, need_logits, guess, ksmax, is_logits, need_sample,
                               it, st, li, sm)
    assert rc == 0, msg
    assert run_executor(OP, ex, wss) == 0, last_error()
    return it.numpy(), st.numpy(), li.numpy(), sm.numpy()


def check(x, ks, ps, q, mps, **kw):
    got = call(x, ks, ps, q, mps, **kw)
    B, V = x.shape
    fill = kw.get("fill", 7)
    rkw = {k: v for k, v in kw.items() if k not in ("views", "fill")}
    eidx, esel, elidx, elsm = ref(x, ks, ps, q, mps, lidx0=np.full((B, V), fill, np.int64), **rkw)
    idx, sel, lidx, lsm = got
    if kw.get("need_sample"):
        assert (idx == fill).all()  # logitsSelectIdx untouched
        np.testing.assert_array_equal(lidx, elidx)
        np.testing.assert_allclose(lsm, elsm, rtol=2e-6, atol=1e-30)
    else:
        np.testing.assert_array_equal(idx, eidx)
        assert (lidx == fill).all() and (lsm == fill).all()  # untouched
    if kw.get("need_logits", True):
        np.testing.assert_array_equal(sel, esel)
    else:
        assert (sel == fill).all()
    return got


def _logits(rng, B, V, dt, is_logits):
    """distinct values (no ties after rounding to dt); probabilities summing to ~1 per row when not logits"""
    x = np.stack([rng.permutation(V) for _ in range(B)]).astype(np.float64)
    if is_logits:
        return (x * (6.0 / V) - 3.0 + rng.uniform(0, 0.5 / V, (B, V))).astype(NPX[dt])
    e = np.exp(x * (5.0 / V))
    return (e / e.sum(-1, keepdims=True)).astype(NPX[dt])


ROWS_K = np.array([5, 0, 40, 1024, 3, -1, 7, 1, 12, 2, 40, 6], np.int32)
ROWS_P = np.array([0.5, 0.9, 0.95, 0.3, 1.0, 0.0, 0.2, 0.7, 2.0, -0.5, 1.0, 0.6])
ROWS_M = np.array([0.0, 0.4, 0.3, 1.5, 0.2, 0.5, -1.0, 0.1, 0.0, 0.9, 1.0, 0.05])


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("is_logits", (True, False))
@pytest.mark.parametrize("with_q", (False, True))
@pytest.mark.parametrize("with_minp", (False, True))
def test_modes(dt, is_logits, with_q, with_minp):
    rng = np.random.default_rng(zlib.crc32(repr((dt, is_logits, with_q, with_minp)).encode()))
    B, V = len(ROWS_K), 40
    x = _logits(rng, B, V, dt, is_logits)
    q = rng.exponential(1.0, (B, V)).astype(F32) if with_q else None
    mps = ROWS_M if with_minp else None
    for need in (True, False):
        check(x, ROWS_K, ROWS_P, q, mps, need_logits=need, is_logits=is_logits)
    if not with_q:
        check(x, ROWS_K, ROWS_P, None, mps, need_logits=True, is_logits=is_logits, need_sample=True)


@pytest.mark.parametrize("dt", DTS)
def test_ksmax_and_guess(dt):
    rng = np.random.default_rng(5)
    B, V = 6, 64
    x = _logits(rng, B, V, dt, True)
    ks = np.array([7, 8, 9, 16, 17, 3], np.int32)
    ps = np.array([1.0, 0.8, 1.0, 0.9, 1.0, 0.99])
    q = rng.exponential(1.0, (B, V)).astype(F32)
    # ksMax 5 -> 8 (k 9 and 17 skip the top-k), 9 -> 16, -1 -> 2^32 -> 0 (no row does top-k), 2000 -> 1024
    for ksmax in (5, 9, 16, -1, 2000, 0):
        check(x, ks, ps, q, None, ksmax=ksmax)
        check(x, ks, ps, None, None, ksmax=ksmax, need_sample=True)
    # topKGuess only decides which way the kernel finds the top-p prefix; 0, small, the default, -1 (-> 1024)
    for guess in (0, 1, 2, 32, -1, 5000):
        check(x, np.zeros(B, np.int32), ps, q, np.full(B, 0.3), guess=guess)


@pytest.mark.parametrize("dt", DTS)
def test_views(dt):
    rng = np.random.default_rng(6)
    x = _logits(rng, 5, 30, dt, True)
    ks, ps = np.array([4, 0, 9, 0, 2], np.int32), np.array([0.6, 0.7, 1.0, 1.0, -1.0])
    q = rng.exponential(1.0, (5, 30)).astype(F32)
    check(x, ks, ps, q, np.array([0.2, 0.1, 0.0, 0.5, 0.0]), views=True)
    check(x, ks, ps, None, np.array([0.2, 0.1, 0.0, 0.5, 2.0]), views=True, need_sample=True)


def test_long_rows_cross_the_chunks():
    """V past the kernel's 8192-element chunks: the full-row softmax, the q sample over the vocabulary"""
    rng = np.random.default_rng(7)
    B, V = 4, 20000
    x = _logits(rng, B, V, "f32", True)
    ks, ps = np.array([0, 0, 50, 0], np.int32), np.array([1.0, 0.002, 0.5, 1.0])
    q = rng.exponential(1.0, (B, V)).astype(F32)
    check(x, ks, ps, q, None)
    check(x, ks, ps, q, np.array([0.0, 0.0, 0.0, 0.99]))
    check(x, ks, ps, None, np.array([0.5, 0.9, 0.0, 0.999]), need_sample=True)


def test_vs_torch(torch):
    """what PyTorch can say: the top-k set, the softmax over it, the top-p prefix, min-p, the q-sample argmax"""
    rng = np.random.default_rng(8)
    B, V = 4, 300
    x = _logits(rng, B, V, "f32", True)
    xt = torch.from_numpy(x.astype(F32))
    ks = np.array([20, 0, 20, 0], np.int32)
    ps = np.array([1.0, 0.6, 0.7, 1.0])
    q = rng.exponential(1.0, (B, V)).astype(F32)
    _, sel, lidx, lsm = call(x, ks, ps, None, None, need_sample=True)
    # row 0: top-20 sorted, softmax over those 20
    tv, ti = torch.topk(xt[0], 20)
    np.testing.assert_array_equal(lidx[0, :20], ti.numpy())
    np.testing.assert_allclose(lsm[0, :20], torch.softmax(tv, -1).numpy(), rtol=1e-5)
    assert (lsm[0, 20:] == 0).all()
    # row 1: top-p over the full softmax: the smallest sorted prefix whose sum reaches 0.6
    sp, si = torch.sort(torch.softmax(xt[1], -1), descending=True, stable=True)
    n = int((torch.cumsum(sp, -1) < 0.6).sum()) + 1
    np.testing.assert_array_equal(lidx[1, :n], si[:n].numpy())
    np.testing.assert_allclose(lsm[1, :n], sp[:n].numpy(), rtol=1e-5)
    assert (lsm[1, n:] == 0).all()
    keep = set(si[:n].tolist())
    assert keep == set(np.nonzero(np.isfinite(sel[1]))[0].tolist())
    # row 2: top-k then top-p over the top-k softmax
    pk = torch.softmax(torch.topk(xt[2], 20).values, -1)
    n2 = int((torch.cumsum(pk, -1) < 0.7).sum()) + 1
    assert (lsm[2, :n2] > 0).all() and (lsm[2, n2:] == 0).all()
    # row 3: nothing active: the softmax of the row in vocabulary order
    np.testing.assert_allclose(lsm[3], torch.softmax(xt[3], -1).numpy(), rtol=1e-5)
    np.testing.assert_array_equal(lidx[3], np.arange(V))
    np.testing.assert_array_equal(sel[3], x[3])
    # q sample: argmax of prob / (|q| + eps) over the kept (top-k) or the whole row
    idx, _, _, _ = call(x, ks, ps, q, None)
    qt = torch.from_numpy(q)
    j = int(torch.argmax(torch.softmax(tv, -1) / (qt[0, :20].abs() + 1e-8)))
    assert idx[0] == int(ti[j])
    assert idx[3] == int(torch.argmax(torch.softmax(xt[3], -1) / (qt[3].abs() + 1e-8)))
    # greedy: the argmax
    idx, _, _, _ = call(x, ks, ps, None, None)
    assert (idx == torch.argmax(xt, -1).numpy()).all()
    # min-p over the sorted top-k softmax: keep p >= minP * max
    mps = np.array([0.3, 0.0, 0.0, 0.0])
    _, _, lidx, lsm = call(x, ks, ps, None, mps, need_sample=True)
    pr = torch.softmax(tv, -1)
    m = int((pr >= 0.3 * pr[0]).sum())
    np.testing.assert_array_equal(lidx[0, :m], ti[:m].numpy())
    assert (lsm[0, m:] == 0).all()


@pytest.mark.parametrize("is_logits", (True, False))
def test_ties_and_signed_zeros(torch, is_logits):
    """equal values rank by index (the heap for a small k, the radix sort for a large k and for top-p alone);
    -0.0 ties with +0.0"""
    rng = np.random.default_rng(9)
    B, V = 4, 64
    x = rng.choice(np.array([-1.0, -0.0, 0.0, 0.5, 1.0]) * (1 if is_logits else 0.01), (B, V)).astype(F32)
    ks = np.array([3, 40, 0, 0], np.int32)
    ps = np.array([1.0, 1.0, 0.9, 0.999])
    _, _, lidx, _ = check(x, ks, ps, None, None, need_sample=True, is_logits=is_logits)
    si = torch.sort(torch.from_numpy(x), dim=-1, descending=True, stable=True).indices.numpy()
    np.testing.assert_array_equal(lidx[0, :3], si[0, :3])
    np.testing.assert_array_equal(lidx[1, :40], si[1, :40])
    check(x, ks, ps, rng.exponential(1.0, (B, V)).astype(F32), np.array([0.0, 0.5, 0.2, 1.0]), is_logits=is_logits)


def test_doc_example_values():
    """the upstream example's data: bf16 logits and top-p / min-p of bit pattern 1 (tiny positives), k 128, q 1:
    every row picks index 0"""
    B, V = 3, 2000
    x = np.ones((B, V), np.uint16).view(NPX["bf16"])
    ps = np.ones(B, np.uint16).view(NPX["bf16"])
    q = np.ones((B, V), F32)
    idx, _, _, _ = check(x, np.full(B, 128, np.int32), ps, q, ps, need_logits=False)
    assert (idx == 0).all()


# ------------------------------------------------------------------ invalid rows
def test_invalid():
    L, K, P, Q, M = tens((2, 8), "f16"), tens((2,), "i32"), tens((2,), "f16"), tens((2, 8)), tens((2,), "f16")
    I, S, LI, SM = tens((2,), "i64"), tens((2, 8)), tens((2, 8), "i64"), tens((2, 8))

    def a(**o):
        d = dict(logits=L, topK=K, topP=P, q=Q, minPs=M, eps=1e-8, need=True, guess=32, ksmax=1024, isl=True,
                 samp=False, i=I, s=S, li=LI, sm=SM)
        d.update(o)
        return list(d.values())

    expect_status(OP, a(), 0)
    expect_status(OP, a(q=None, minPs=None), 0)
    for name, key in (("logits", "logits"), ("topK", "topK"), ("topP", "topP"), ("logitsSelectIdx", "i"),
                      ("logitsTopKPSelect", "s"), ("logitsIdx", "li"), ("logitsSortMasked", "sm")):
        expect_status(OP, a(**{key: None}), 161001, name)
    expect_status(OP, a(logits=tens((2, 8), "f64"), topP=tens((2,), "f64"), minPs=None), 161002, "logits")
    expect_status(OP, a(logits=tens((2, 8)), minPs=None), 161002, "topP")  # f32 logits, f16 topP
    expect_status(OP, a(topK=tens((2,), "i64")), 161002, "topK")
    expect_status(OP, a(topP=tens((2,), "bf16")), 161002, "topP")
    expect_status(OP, a(q=tens((2, 8), "f16")), 161002, "q")
    expect_status(OP, a(minPs=tens((2,), "f32")), 161002, "minPs")
    expect_status(OP, a(i=tens((2,), "i32")), 161002, "logitsSelectIdx")
    expect_status(OP, a(s=tens((2, 8), "f16")), 161002, "logitsTopKPSelect")
    expect_status(OP, a(li=tens((2, 8), "i32")), 161002, "logitsIdx")
    expect_status(OP, a(sm=tens((2, 8), "f16")), 161002, "logitsSortMasked")
    # the tiling (561002)
    expect_status(OP, a(logits=tens((16,), "f16"), q=None), 561002, "logits")
    expect_status(OP, a(logits=tens((1, 1048577), "f16"), q=None, s=tens((1, 1048577)), topK=tens((1,), "i32"),
                        topP=tens((1,), "f16"), minPs=None, i=tens((1,), "i64")), 561002, "1048576")
    expect_status(OP, a(topK=tens((2, 1), "i32")), 561002, "topK")
    expect_status(OP, a(topK=tens((3,), "i32")), 561002, "topK")
    expect_status(OP, a(topP=tens((2, 1), "f16")), 561002, "topP")
    expect_status(OP, a(topP=tens((1,), "f16")), 561002, "topP")
    expect_status(OP, a(samp=True), 561002, "isNeedSampleResult")  # q with the sample result
    expect_status(OP, a(q=tens((2, 9))), 561002, "q")
    expect_status(OP, a(minPs=tens((3,), "f16")), 561002, "minPs")
    expect_status(OP, a(minPs=tens((2, 1), "f16")), 561002, "minPs")
    expect_status(OP, a(s=tens((2, 9))), 561002, "logitsTopKPSelect")
    expect_status(OP, a(s=tens((2, 9)), need=False), 0)  # only checked when isNeedLogits
    expect_status(OP, a(i=tens((3,), "i64")), 561002, "logitsSelectIdx")
    expect_status(OP, a(q=None, li=tens((2, 9), "i64"), samp=True), 561002, "logitsIdx")
    expect_status(OP, a(q=None, sm=tens((2, 7)), samp=True), 561002, "logitsSortMasked")
    expect_status(OP, a(q=None, i=tens((3,), "i64"), samp=True), 0)  # logitsSelectIdx unused then
    expect_status(OP, a(li=tens((2, 9), "i64"), sm=tens((1,))), 0)  # both unused without the sample result
    expect_status(OP, a(logits=tens((2, 0), "f16"), q=None, s=tens((2, 0))), 561002, "empty")


def test_same_bytes_for_threads():
    code = f"import sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})" + """
import hashlib, numpy as np, pyaclnn
from pyaclnn.lowlevel import AclTensor
from helpers import run_executor, ws_call
rng = np.random.default_rng(0)
h = hashlib.sha256()
B, V = 48, 3000
x = rng.standard_normal((B, V)).astype(np.float16)
ks = rng.integers(-5, 1500, B).astype(np.int32)
ps = rng.uniform(-0.2, 1.2, B).astype(np.float16)
mp = rng.uniform(-0.5, 1.2, B).astype(np.float16)
q = rng.exponential(1.0, (B, V)).astype(np.float32)
for qq, samp in ((None, False), (q, False), (None, True)):
    ts = [AclTensor.from_array(a) for a in (x, ks, ps)] + [None if qq is None else AclTensor.from_array(qq),
                                                           AclTensor.from_array(mp)]
    outs = [AclTensor.from_array(np.zeros(B, np.int64)), AclTensor.from_array(np.zeros((B, V), np.float32)),
            AclTensor.from_array(np.zeros((B, V), np.int64)), AclTensor.from_array(np.zeros((B, V), np.float32))]
    rc, wss, ex, msg = ws_call("TopKTopPSampleV2", *ts, 1e-8, True, 32, 1024, True, samp, *outs)
    assert rc == 0, msg
    assert run_executor("TopKTopPSampleV2", ex, wss) == 0
    for o in outs:
        h.update(o.numpy().tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
