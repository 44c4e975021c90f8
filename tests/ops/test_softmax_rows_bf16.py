"""The fused bf16 row passes of kernels/softmax_rows.inc (widening in the loads, rounding in the store, exp of a bf16
element from the 65536-entry table smr_exp_bf16_table): SoftmaxBackward / LogSoftmaxBackward on contiguous bf16 rows,
CrossEntropyLoss / CrossEntropyLossGrad on bf16 without label smoothing. The same bytes at every PYACLNN_SIMD level
and for 1/2/7 threads (row tails, in-place outputs, NaN/inf inputs and gradients, every bf16 bit pattern through the
table), and the values against a float64 numpy reference."""
import numpy as np

import pyaclnn
from helpers import run_python, same_bytes_for_threads

BF = pyaclnn.bfloat16

CODE = r"""
import hashlib, numpy as np, pyaclnn
BF = pyaclnn.bfloat16
rng = np.random.default_rng(8)
h = hashlib.sha256()
for shape in ((3, 1), (4, 16), (3, 17), (2, 33), (9, 1000), (5, 4111)):
    for scale in (1, 8, 40):
        y = (rng.standard_normal(shape) * scale).astype(BF)
        g = (rng.standard_normal(shape) * scale).astype(BF)
        if scale == 40:
            y.flat[3::41] = np.nan; y.flat[5::43] = np.inf; y.flat[6::37] = -np.inf
            g.flat[7::47] = np.nan; g.flat[2::53] = np.inf
        for op in ("SoftmaxBackward", "LogSoftmaxBackward"):
            # NaN / inf y for both forms: a NaN y meets the NaN sum, inf * 0 or inf - inf in the sum makes a
            # second NaN payload - NaN results follow common/nan_order.h's rule at every level
            yy = y
            b = np.zeros(shape, BF)
            pyaclnn.call(op, g, yy, 1, b)
            b2 = g.copy()
            pyaclnn.call(op, b2, yy, 1, b2)  # in place on the gradient
            h.update(b.tobytes() + b2.tobytes())
for N, C in ((40, 517), (6, 15), (3, 32000)):
    x = (rng.standard_normal((N, C)) * 4).astype(BF)
    x.flat[::53] = -np.inf
    x[0, 5] = np.nan
    x[1:4, 2] = np.nan  # NaN rows whose incoming gradients (below) are NaN / infinite: NaN meets NaN
    t = rng.integers(0, C, N).astype(np.int64)
    t[::7] = -100
    w = rng.uniform(0.5, 2, C).astype(np.float32)
    for red in (b"mean", b"sum", b"none"):
        for wt in (None, w):
            lo = np.zeros((N,) if red == b"none" else (1,), BF)
            lp = np.zeros((N, C), BF)
            pyaclnn.call("CrossEntropyLoss", x, t, wt, red, -100, 0.0, 0.0, False, lo, lp, np.zeros((1,), BF),
                         np.zeros((N,), BF))
            gl = (rng.standard_normal((N,)) if red == b"none" else np.array(1.3)).astype(BF)
            if red == b"none" and N > 4:
                gl[1:4] = (np.inf, np.nan, -np.inf)
            go = np.zeros((N, C), BF)
            pyaclnn.call("CrossEntropyLossGrad", gl, lp, t, wt, None, None, red, -100, 0.0, 0.0, go)
            h.update(lo.tobytes() + lp.tobytes() + go.tobytes())
# every bf16 pattern through the exp table: g = e_0 gives -exp(y) elsewhere
y = np.concatenate([[0], np.arange(65536)]).astype(np.uint16).view(BF)[None]
g = np.zeros_like(y)
g[0, 0] = 1
o = np.zeros_like(y)
pyaclnn.call("LogSoftmaxBackward", g, y, 1, o)
lp = np.ascontiguousarray(np.tile(y[:, 1:], (2, 1)))
go = np.zeros_like(lp)
pyaclnn.call("CrossEntropyLossGrad", np.array([1.0, 2.5]).astype(BF), lp, np.array([3, 4464]), None, None, None,
             b"none", -100, 0.0, 0.0, go)
h.update(o.tobytes() + go.tobytes())
print(h.hexdigest())
"""


def test_fused_bf16_rows_identical_bytes_at_every_simd_level():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


def test_fused_bf16_rows_identical_bytes_for_any_thread_count():
    same_bytes_for_threads(CODE)


def _bf16_to_f64(a):
    with np.errstate(invalid="ignore"):  # signalling NaN patterns
        return (np.ascontiguousarray(a).view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _ulps_ok(got, want, n=1):
    """got (bf16) within n bf16 ulps of the float64 want (finite, normal range)"""
    g = _bf16_to_f64(got)
    ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(want), 1e-38))) - 7)
    return np.abs(g - want) <= n * ulp + 1e-39


def test_exp_table_every_pattern_vs_float64():
    bits = np.arange(65536).astype(np.uint16)
    y = np.concatenate([[0], bits]).astype(np.uint16).view(BF)[None]
    g = np.zeros_like(y)
    g[0, 0] = 1
    o = np.zeros_like(y)
    pyaclnn.call("LogSoftmaxBackward", g, y, 1, o)
    yv = _bf16_to_f64(y[0, 1:])
    got = o[0, 1:]
    with np.errstate(over="ignore", invalid="ignore"):
        want = -np.exp(yv)
    fin = np.isfinite(yv) & (np.abs(want) > 1e-37) & (np.abs(want) < 3e38)
    assert _ulps_ok(got[fin], want[fin]).all()
    gv = _bf16_to_f64(got)
    assert np.isnan(gv[np.isnan(yv)]).all()
    assert (gv[yv == np.inf] == -np.inf).all() and (gv[yv == -np.inf] == 0).all()
    assert (gv[yv > 89] == -np.inf).all() and (gv[yv < -104] == 0).all()


def test_fused_bf16_backward_and_cross_entropy_vs_float64():
    rng = np.random.default_rng(3)
    N, C = 24, 1003
    x = (rng.standard_normal((N, C)) * 3).astype(BF)
    g = rng.standard_normal((N, C)).astype(BF)
    xv, gv = _bf16_to_f64(x), _bf16_to_f64(g)
    sm = np.exp(xv - xv.max(1, keepdims=True))
    sm /= sm.sum(1, keepdims=True)
    lsm = np.log(sm)
    y_sm, y_lsm = sm.astype(np.float32).astype(BF), lsm.astype(np.float32).astype(BF)
    ys, yl = _bf16_to_f64(y_sm), _bf16_to_f64(y_lsm)
    b = np.zeros((N, C), BF)
    pyaclnn.call("SoftmaxBackward", g, y_sm, 1, b)
    want = ys * (gv - (gv * ys).sum(1, keepdims=True))
    np.testing.assert_allclose(_bf16_to_f64(b), want, rtol=1e-2, atol=1e-4)
    pyaclnn.call("LogSoftmaxBackward", g, y_lsm, 1, b)
    want = gv - np.exp(yl) * gv.sum(1, keepdims=True)
    np.testing.assert_allclose(_bf16_to_f64(b), want, rtol=1e-2, atol=2e-2)
    t = rng.integers(0, C, N).astype(np.int64)
    t[::5] = -100
    kept = t != -100
    lo, lp = np.zeros((1,), BF), np.zeros((N, C), BF)
    pyaclnn.call("CrossEntropyLoss", x, t, None, b"mean", -100, 0.0, 0.0, False, lo, lp, np.zeros((1,), BF),
                 np.zeros((N,), BF))
    np.testing.assert_allclose(_bf16_to_f64(lp), lsm, rtol=1e-2, atol=2e-2)
    want = -lsm[np.arange(N)[kept], t[kept]].mean()
    np.testing.assert_allclose(_bf16_to_f64(lo)[0], want, rtol=1e-2)
    go = np.zeros((N, C), BF)
    gl = np.array(1.5).astype(BF)
    pyaclnn.call("CrossEntropyLossGrad", gl, lp, t, None, None, None, b"mean", -100, 0.0, 0.0, go)
    lpv = _bf16_to_f64(lp)
    want = np.exp(lpv) * 1.5 / kept.sum()
    want[np.arange(N)[kept], t[kept]] -= 1.5 / kept.sum()
    want[~kept] = 0
    np.testing.assert_allclose(_bf16_to_f64(go), want, rtol=1e-2, atol=1e-5)
