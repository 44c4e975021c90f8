"""aclnnFusedInferAttentionScoreV2 (tools/optable/nn_llama.py, libsrc/ops/fused_infer_attention_score.c) against
torch's scaled_dot_product_attention in float64, rounded once: f16 and bf16 (its non-quantised A2 list), layouts
BSND (llama.cpp's), BNSD, BSH, grouped-query heads, pseShift (llama.cpp's broadcast mask, head stride 0),
attenMask with sparse modes 0/1/2/3, strided query; the invalid rows (NULL 161001, dtype 161002, tiling 561002)."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from helpers import strided
from table_harness import NP, compare, expect_status, from_torch, to_torch

OP = "FusedInferAttentionScoreV2"
_KEEP = []


def args(q, k, v, out, pse=None, mask=None, heads=1, scale=1.0, pre=65535, nxt=65535, layout="BSND", nkv=0,
         sparse=0, lse_flag=False, lse=None):
    return [q, k, v, pse, mask] + [None] * 19 + [heads, scale, pre, nxt, layout, nkv, sparse, 0, 0, 0, lse_flag,
                                                  0, 0, out, lse]


def ref(torch, q, k, v, pse, keep, scale, dt):
    """q [B,N,S,D], k/v [B,Nkv,Skv,D] float64; keep: bool [.., S, Skv] (True = attend) or None."""
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    s = q @ k.transpose(-1, -2) * scale
    if pse is not None:
        s = s + pse
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return (p @ v).to({"f16": torch.float16, "bf16": torch.bfloat16}[dt])


def rnd(rng, shape, dt):
    return rng.uniform(-1, 1, shape).astype(np.float32).astype(NP[dt])


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a)).double()


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_fia_bsnd_gqa_pse_llama(torch, dt):
    """llama.cpp's call: BSND, numKeyValueHeads < numHeads, pseShift [B, N, S, Skv] with head stride 0."""
    rng = np.random.default_rng(1)
    B, S, SKV, N, NKV, D = 2, 3, 7, 4, 2, 16
    q, k, v = rnd(rng, (B, S, N, D), dt), rnd(rng, (B, SKV, NKV, D), dt), rnd(rng, (B, SKV, NKV, D), dt)
    m = rng.uniform(-2, 2, (B, 1, S, SKV)).astype(np.float16)
    m[0, 0, 1, 2:] = -np.inf
    pse = np.ascontiguousarray(np.broadcast_to(m, (B, N, S, SKV)))  # llama.cpp: a head stride 0 view of m
    out = np.full((B, S, N, D), 9, NP[dt])
    scale = 1 / np.sqrt(D)
    pyaclnn.call(OP, *args(q, [k], [v], out, pse=pse, heads=N, scale=scale, nkv=NKV))
    e = ref(torch, T(torch, q).permute(0, 2, 1, 3), T(torch, k).permute(0, 2, 1, 3), T(torch, v).permute(0, 2, 1, 3),
            T(torch, m), None, scale, dt).permute(0, 2, 1, 3)
    compare(out, from_torch(e.contiguous()), dt)


@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("sparse", [0, 1, 2, 3])
def test_fia_bnsd_mask_sparse(torch, dt, sparse):
    rng = np.random.default_rng(2 + sparse)
    B, S, SKV, N, D = 2, 4, 6, 2, 8
    q = strided(rnd(rng, (B, N, S, D), dt))
    k, v = rnd(rng, (B, N, SKV, D), dt), rnd(rng, (B, N, SKV, D), dt)
    mask = rng.random((B, 1, S, SKV)) < 0.3
    mask[1, 0, 2, :] = True  # a fully masked row (sparse 0/1): zeros
    out = strided(np.zeros((B, N, S, D), NP[dt]))
    pyaclnn.call(OP, *args(q, [k], [v], out, mask=mask, heads=N, scale=0.5, layout="BNSD", sparse=sparse))
    i, j = np.arange(S)[:, None], np.arange(SKV)[None, :]
    keep = {0: ~mask, 1: ~mask, 2: np.broadcast_to(j <= i, mask.shape),
            3: np.broadcast_to(j <= i + SKV - S, mask.shape)}[sparse]
    e = ref(torch, T(torch, q), T(torch, k), T(torch, v), None, torch.from_numpy(np.ascontiguousarray(keep)), 0.5, dt)
    compare(out, from_torch(e), dt)


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_fia_bsh_band_lse(torch, dt):
    rng = np.random.default_rng(5)
    B, S, SKV, N, D = 1, 5, 5, 2, 4
    q, k, v = rnd(rng, (B, S, N * D), dt), rnd(rng, (B, SKV, N * D), dt), rnd(rng, (B, SKV, N * D), dt)
    out = np.zeros((B, S, N * D), NP[dt])
    lse = np.zeros((B, N, S, 1), np.float32)
    pyaclnn.call(OP, *args(q, [k], [v], out, heads=N, scale=0.7, pre=1, nxt=0, layout="BSH", lse_flag=True, lse=lse))
    i, j = np.arange(S)[:, None], np.arange(SKV)[None, :]
    keep = torch.from_numpy((j - i <= 0) & (i - j <= 1))
    qq = T(torch, q).reshape(B, S, N, D).permute(0, 2, 1, 3)
    kk = T(torch, k).reshape(B, SKV, N, D).permute(0, 2, 1, 3)
    vv = T(torch, v).reshape(B, SKV, N, D).permute(0, 2, 1, 3)
    e = ref(torch, qq, kk, vv, None, keep, 0.7, dt).permute(0, 2, 1, 3).reshape(B, S, N * D)
    compare(out, from_torch(e.contiguous()), dt)
    s = (qq @ kk.transpose(-1, -2) * 0.7).masked_fill(~keep, float("-inf"))
    np.testing.assert_allclose(lse[..., 0], torch.logsumexp(s, -1).float().numpy(), rtol=1e-5, atol=1e-5)


def test_fia_empty_query():
    q = np.zeros((1, 0, 2, 8), np.float16)
    k = np.zeros((1, 3, 2, 8), np.float16)
    pyaclnn.call(OP, *args(q, [k], [k], np.zeros_like(q), heads=2))


def tens(shape, dt="f16"):
    t = AclTensor.from_array(np.zeros(shape, NP[dt]))
    _KEEP.append(t)
    return t


def tlist(*ts):
    from pyaclnn.lowlevel import ffi, lib
    arr = ffi.new("aclTensor *[]", [t.handle for t in ts])
    _KEEP.append(arr)
    return lib.aclCreateTensorList(arr, len(ts))


def cstr(s):
    from pyaclnn.lowlevel import ffi
    b = ffi.new("char[]", s.encode())
    _KEEP.append(b)
    return b


def test_invalid_fia():
    q, k = tens((1, 2, 4, 8)), tens((1, 3, 2, 8))
    K = tlist(k)
    L = cstr("BSND")

    def a(**kw):
        d = dict(q=q, k=K, v=K, out=q, pse=None, mask=None, heads=4, scale=1.0, pre=65535, nxt=65535, layout=L,
                 nkv=2, sparse=0)
        d.update(kw)
        return args(d["q"], d["k"], d["v"], d["out"], d["pse"], d["mask"], d["heads"], d["scale"], d["pre"],
                    d["nxt"], d["layout"], d["nkv"], d["sparse"])
    expect_status(OP, a(), 0)
    expect_status(OP, a(q=None), 161001, "query")
    expect_status(OP, a(k=None), 161001, "key")
    expect_status(OP, a(v=None), 161001, "value")
    expect_status(OP, a(out=None), 161001, "attentionOut")
    expect_status(OP, a(q=tens((1, 2, 4, 8), "f64"), out=tens((1, 2, 4, 8), "f64")), 161002, "query")
    expect_status(OP, a(k=tlist(tens((1, 3, 2, 8), "f32"))), 161002, "key")
    expect_status(OP, a(out=tens((1, 2, 4, 8), "f32")), 161002, "attentionOut")
    expect_status(OP, a(pse=tens((1, 4, 2, 3), "f32")), 161002, "pseShiftOptional")
    expect_status(OP, a(mask=tens((2, 3), "f32")), 161002, "attenMaskOptional")
    expect_status(OP, a(layout=cstr("TND")), 561002, "inputLayout")
    expect_status(OP, a(nkv=3), 561002, "numKeyValueHeads")
    expect_status(OP, a(heads=2), 561002, "numHeads")
    expect_status(OP, a(sparse=4), 561002, "sparseMode")
    expect_status(OP, a(sparse=1), 561002, "attenMaskOptional")
    expect_status(OP, a(k=tlist(tens((1, 3, 2, 4)))), 561002, "D")
    expect_status(OP, a(out=tens((1, 2, 4, 4))), 561002, "attentionOut")
    expect_status(OP, a(pse=tens((1, 4, 2, 4))), 561002, "pseShiftOptional")
    expect_status(OP, a(mask=tens((2, 4), "bool")), 561002, "attenMaskOptional")
    expect_status(OP, a(k=tlist(k, k), v=tlist(k, k)), 561002, "key")
    c = a()
    c[9] = tens((4,), "f32")  # deqScale2Optional
    expect_status(OP, c, 561002, "deqScale2Optional")


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_fia_llama_pse_stride0_view(torch, dt):
    """llama.cpp's exact call (ggml_cann_flash_attn_ext with max_bias 0): the pseShift tensor is the f16 KQ mask seen
    as [B, N, S, Skv] with head stride 0 (one [S, Skv] plane per batch, shared by every head), BSND, GQA, scale
    1/sqrt(D), preTokens = nextTokens = 65535, sparseMode 0, innerPrecise 2. The stride-0 dim is read once (no
    buffer of N planes), and a successful call leaves no error message behind."""
    rng = np.random.default_rng(11)
    B, S, SKV, N, NKV, D = 2, 5, 9, 8, 2, 32
    q, k, v = rnd(rng, (B, S, N, D), dt), rnd(rng, (B, SKV, NKV, D), dt), rnd(rng, (B, SKV, NKV, D), dt)
    m = rng.uniform(-1, 1, (B, 1, S, SKV)).astype(np.float16)
    m[:, 0, :, 7:] = -np.inf  # llama's causal/padding mask: -inf columns
    mt = AclTensor.from_array(m)  # the storage holds B planes; the view (as ggml_cann_create_tensor makes it):
    pse = AclTensor((B, N, S, SKV), np.float16, (S * SKV, 0, SKV, 1), 0, None, mt.buffer, storage_shape=[B * S * SKV])
    out = AclTensor.from_array(np.full((B, S, N, D), 7, NP[dt]))
    scale = 1 / np.sqrt(D)
    qt, kt, vt = (AclTensor.from_array(a) for a in (q, k, v))
    c = args(qt, tlist(kt), tlist(vt), out, pse=pse, heads=N, scale=scale, layout=cstr("BSND"), nkv=NKV)
    c[31] = 2  # innerPrecise (llama.cpp: 2 when S > 1)
    from pyaclnn.lowlevel import ffi, lib
    pyaclnn.recent_error_message()  # drain
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    c = [a.handle if isinstance(a, AclTensor) else (ffi.NULL if a is None else a) for a in c]
    assert lib.aclnnFusedInferAttentionScoreV2GetWorkspaceSize(*c, ws, ex) == 0, pyaclnn.recent_error_message()
    assert ws[0] == 0
    assert lib.aclnnFusedInferAttentionScoreV2(ffi.NULL, 0, ex[0], ffi.NULL) == 0, pyaclnn.recent_error_message()
    assert lib.aclrtSynchronizeDevice() == 0
    assert pyaclnn.recent_error_message() == ""
    e = ref(torch, T(torch, q).permute(0, 2, 1, 3), T(torch, k).permute(0, 2, 1, 3), T(torch, v).permute(0, 2, 1, 3),
            T(torch, m), None, scale, dt).permute(0, 2, 1, 3)
    compare(out.numpy(), from_torch(e.contiguous()), dt)
