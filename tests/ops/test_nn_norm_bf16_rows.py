"""The BF16 row kernels of the norm family (libsrc/kernels/norm_f32.inc: fwd_row_bf16, bwd_block_bf16,
gfwd_row_bf16, gbwd_row_bf16): BF16 rows read and rounded in registers, widened as even/odd lanes at SSE2 / AVX2.

- bytes: the same at PYACLNN_SIMD=off / avx2 / avx512 x OMP_NUM_THREADS=1 / 2 / 7 (row lengths with lane tails,
  exact 16-element steps, several 1024-element chunks; every weight/bias combination; NaN / Inf / tie inputs);
- exactness: a BF16 result is the FLOAT result of the widened inputs rounded once (the same sums in the same lanes
  and the same per-element operations), and the values agree with a float64 numpy reference."""
import numpy as np
import pytest

import pyaclnn
from helpers import run_python

BF = pyaclnn.bfloat16

CODE = r"""
import hashlib, numpy as np, pyaclnn
BF = pyaclnn.bfloat16
rng = np.random.default_rng(21)
h = hashlib.sha256()
def E(a): return np.empty_like(a)
def add(*arrs):
    for a in arrs: h.update(np.ascontiguousarray(a).tobytes())
for M, N in ((3, 5), (4, 16), (3, 48), (5, 1000), (2, 2048), (3, 2071)):
    x = (rng.standard_normal((M, N)) * 3 + 1).astype(np.float32)
    if N >= 48:
        x[0, 3] = np.nan if N == 48 else x[0, 3]
        x[1, 17] = np.inf if N == 1000 else x[1, 17]
        x[-1, 20:36] = 1 + 2.0 ** -8  # bf16 ties
    x = x.astype(BF)
    dy = rng.standard_normal((M, N)).astype(BF)
    for wdt in (BF, np.float32):
        w = rng.standard_normal(N).astype(wdt)
        b = rng.standard_normal(N).astype(wdt)
        for wb in ((w, b), (w, None), (None, b), (None, None)):
            o, m, r = E(x), np.empty((M, 1), np.float32), np.empty((M, 1), np.float32)
            pyaclnn.call("LayerNorm", x, [N], wb[0], wb[1], 1e-5, o, m, r)
            for mask in ([True, True, True], [True, False, False], [False, True, True]):
                gi, gw, gb = E(x), np.zeros(N, wdt), np.zeros(N, wdt)
                pyaclnn.call("LayerNormBackward", dy, x, [N], m, r, wb[0], wb[1], mask, gi if mask[0] else None,
                             gw if mask[1] else None, gb if mask[2] else None)
                add(gi if mask[0] else b"", gw, gb)
            add(o, m, r)
        y, rs = E(x), np.empty((M, 1), np.float32)
        pyaclnn.call("RmsNorm", x, w, 1e-6, y, rs)
        dx, dg = E(x), np.empty(N, np.float32)
        pyaclnn.call("RmsNormGrad", dy, x, rs[:, 0].copy(), w, dx, dg)
        xi = x.copy()
        pyaclnn.call("LayerNorm", xi, [N], w, b, 1e-5, xi, None, None)  # in place
        add(y, rs, dx, dg, xi)
for (Nb, C, S, G) in ((2, 6, 7, 3), (3, 8, 300, 2), (2, 4, 1040, 4), (1, 4, 64, 2)):
    x = (rng.standard_normal((Nb, C, S)) * 2 - 1).astype(np.float32)
    if S == 300: x[0, 1, 5] = np.nan
    x = x.astype(BF)
    dy = rng.standard_normal((Nb, C, S)).astype(BF)
    g = rng.standard_normal(C).astype(BF)
    be = rng.standard_normal(C).astype(BF)
    for gb in ((g, be), (None, None)):
        o, m, r = E(x), np.empty((Nb, G), BF), np.empty((Nb, G), BF)
        pyaclnn.call("GroupNorm", x, gb[0], gb[1], Nb, C, S, G, 1e-5, o, m, r)
        q1, q2, q3 = E(x), np.empty(C, BF), np.empty(C, BF)
        pyaclnn.call("GroupNormBackward", dy, x, m, r, gb[0], Nb, C, S, G, [True, True, True], q1, q2, q3)
        add(o, m, r, q1, q2, q3)
print(h.hexdigest())
"""


def test_bf16_norm_rows_same_bytes_at_every_level_and_thread_count():
    outs = {(cap, t): run_python(CODE, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": str(t)})
            for cap in ("off", "avx2", "avx512") for t in (1, 2, 7)}
    first = outs[("off", 1)]
    for k, v in outs.items():
        assert v == first, f"{k} gives different bytes than off x 1 thread"


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint16)


@pytest.mark.parametrize("N", [5, 48, 1000, 2071])
def test_layer_and_rms_norm_bf16_rows_are_the_fp32_rows_rounded(N):
    rng = np.random.default_rng(N)
    M = 4
    x = (rng.standard_normal((M, N)) * 2 + 0.5).astype(BF)
    dy = rng.standard_normal((M, N)).astype(BF)
    w = rng.standard_normal(N).astype(BF)
    b = rng.standard_normal(N).astype(BF)
    xf, dyf, wf, bf = (a.astype(np.float32) for a in (x, dy, w, b))
    res = {}
    for tag, (xx, dd, ww, bb) in (("bf", (x, dy, w, b)), ("f32", (xf, dyf, wf, bf))):
        o, m, r = np.empty_like(xx), np.empty((M, 1), np.float32), np.empty((M, 1), np.float32)
        pyaclnn.call("LayerNorm", xx, [N], ww, bb, 1e-5, o, m, r)
        gi = np.empty_like(xx)
        gw, gb = np.empty(N, np.float32), np.empty(N, np.float32)
        pyaclnn.call("LayerNormBackward", dd, xx, [N], m, r, ww, bb, [True, True, True], gi, gw, gb)
        y, rs = np.empty_like(xx), np.empty((M, 1), np.float32)
        pyaclnn.call("RmsNorm", xx, ww, 1e-6, y, rs)
        dx, dg = np.empty_like(xx), np.empty(N, np.float32)
        pyaclnn.call("RmsNormGrad", dd, xx, rs[:, 0].copy(), ww, dx, dg)
        res[tag] = dict(o=o, m=m, r=r, gi=gi, gw=gw, gb=gb, y=y, rs=rs, dx=dx, dg=dg)
    bfr, f32 = res["bf"], res["f32"]
    for k in ("o", "gi", "y", "dx"):
        assert (_bits(bfr[k]) == _bits(f32[k].astype(BF))).all(), k
    for k in ("m", "r", "rs", "gw", "gb", "dg"):
        assert (bfr[k] == f32[k]).all(), k
    # values against float64
    x64, dy64, w64, b64 = (a.astype(np.float64) for a in (x, dy, w, b))
    mu = x64.mean(1, keepdims=True)
    rstd = 1 / np.sqrt(x64.var(1, keepdims=True) + 1e-5)
    xh = (x64 - mu) * rstd
    np.testing.assert_allclose(bfr["o"].astype(np.float64), xh * w64 + b64, rtol=1e-2, atol=2e-2)
    g = dy64 * w64
    dxr = rstd * (g - g.mean(1, keepdims=True) - xh * (g * xh).mean(1, keepdims=True))
    np.testing.assert_allclose(bfr["gi"].astype(np.float64), dxr, rtol=1e-2, atol=3e-2)
    np.testing.assert_allclose(bfr["gw"], (dy64 * xh).sum(0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bfr["gb"], dy64.sum(0), rtol=1e-4, atol=1e-4)
    rr = 1 / np.sqrt((x64 * x64).mean(1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(bfr["y"].astype(np.float64), x64 * rr * w64, rtol=1e-2, atol=2e-2)


@pytest.mark.parametrize("S", [7, 64, 3136])
def test_group_norm_bf16_rows_are_the_fp32_rows_rounded(S):
    rng = np.random.default_rng(S)
    Nb, C, G = 2, 8, 4
    x = (rng.standard_normal((Nb, C, S)) * 2 - 1).astype(BF)
    dy = rng.standard_normal((Nb, C, S)).astype(BF)
    g = rng.standard_normal(C).astype(BF)
    be = rng.standard_normal(C).astype(BF)
    res = {}
    for tag, dt in (("bf", BF), ("f32", np.float32)):
        xx, dd, gg, bb = (a.astype(dt) for a in (x, dy, g, be))
        o, m, r = np.empty_like(xx), np.empty((Nb, G), dt), np.empty((Nb, G), dt)
        pyaclnn.call("GroupNorm", xx, gg, bb, Nb, C, S, G, 1e-5, o, m, r)
        # the backward from the same (BF16-representable) statistics in both runs
        mb, rb = m.astype(BF).astype(dt), r.astype(BF).astype(dt)
        q1 = np.empty_like(xx)
        q2, q3 = np.empty(C, dt), np.empty(C, dt)
        pyaclnn.call("GroupNormBackward", dd, xx, mb, rb, gg, Nb, C, S, G, [True, True, True], q1, q2, q3)
        res[tag] = (o, m, r, q1)
    for a, bref in zip(res["bf"], res["f32"]):
        assert (_bits(a) == _bits(bref.astype(BF))).all()
    x64 = x.astype(np.float64).reshape(Nb, G, -1)
    ref = ((x64 - x64.mean(2, keepdims=True)) / np.sqrt(x64.var(2, keepdims=True) + 1e-5)).reshape(Nb, C, S)
    ref = ref * g.astype(np.float64)[:, None] + be.astype(np.float64)[:, None]
    np.testing.assert_allclose(res["bf"][0].astype(np.float64), ref, rtol=1e-2, atol=2e-2)
