"""The fixed-lane fp32 row kernels of the softmax family, cross entropy and SoftmaxCrossEntropyWithLogits (libsrc/kernels/vexp_rows.h,
softmax_rows.inc): the same bytes at every PYACLNN_SIMD level and for 1/2/7 threads (row lengths around the
16-lane width and its tails, dims other than the last, strided views, f32/f16/bf16, -inf/large values), and the
accuracy of the exp polynomial and of long rows against PyTorch / float64."""
import numpy as np
import pytest

import pyaclnn
from helpers import run_python, same_bytes_for_threads

CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(21)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for shape, dim in (((3, 1), 1), ((5, 7), 1), ((4, 16), 1), ((3, 17), -1), ((2, 33), 1), ((70, 1000), 1),
                       ((6, 40, 9), 1), ((3, 5, 300), 0)):
        x = (rng.standard_normal(shape) * 6).astype(dt)
        x.flat[::13] = -np.inf
        x.flat[::29] = 80
        g = rng.standard_normal(shape).astype(dt)
        for op in ("Softmax", "LogSoftmax"):
            o = np.zeros(shape, dt)
            pyaclnn.call(op, x, dim, o)
            h.update(o.tobytes())
            y = o.copy()
            y[~np.isfinite(y.astype(np.float32))] = 0
            b = np.zeros(shape, dt)
            pyaclnn.call(op.replace("Softmax", "SoftmaxBackward"), g, y, dim, b)
            h.update(b.tobytes())
        xt = x.T
        o = np.zeros(xt.shape, dt)
        pyaclnn.call("Softmax", xt, 0, o)
        h.update(o.tobytes())
    N, C = 300, 517
    x = (rng.standard_normal((N, C)) * 4).astype(dt)
    t = rng.integers(0, C, N).astype(np.int64)
    t[::7] = -100
    w = rng.uniform(0.5, 2, C).astype(np.float32)
    for red in (b"mean", b"sum", b"none"):
        for wt, eps in ((None, 0.0), (w, 0.1)):
            lo = np.zeros((N,) if red == b"none" else (1,), dt)
            lp = np.zeros((N, C), dt)
            pyaclnn.call("CrossEntropyLoss", x, t, wt, red, -100, eps, 0.0, False, lo, lp, np.zeros((1,), dt),
                         np.zeros((N,), dt))
            h.update(lo.tobytes())
            h.update(lp.tobytes())
            gl = (rng.standard_normal((N,)) if red == b"none" else np.array(1.3)).astype(dt)
            go = np.zeros((N, C), dt)
            pyaclnn.call("CrossEntropyLossGrad", gl, lp, t, wt, None, None, red, -100, eps, 0.0, go)
            h.update(go.tobytes())
    lab = rng.uniform(0, 1, (N, C)).astype(dt)
    lo, bp = np.zeros((N,), dt), np.zeros((N, C), dt)
    pyaclnn.call("SoftmaxCrossEntropyWithLogits", x, lab, lo, bp)
    h.update(lo.tobytes())
    h.update(bp.tobytes())
print(h.hexdigest())
"""


def test_identical_bytes_at_every_simd_level():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


def test_identical_bytes_for_any_thread_count():
    same_bytes_for_threads(CODE)


def test_exp_polynomial_accuracy():
    """LogSoftmaxBackward with g = e_0 gives -exp(y) for every other element: the polynomial against float64 exp
    over the whole range, subnormal results and the overflow edge included (within 2 ulp)."""
    y = np.concatenate([np.linspace(-104, 89, 200001), [-np.inf, np.inf, -87.5, -88.7, -100, -103.9, 88.72, 88.73,
                                                        0.0, -0.0, 1e-8, -1e-8]]).astype(np.float32)
    y = np.concatenate([[0.0], y]).astype(np.float32)[None]
    g = np.zeros_like(y)
    g[0, 0] = 1
    o = np.zeros_like(y)
    pyaclnn.call("LogSoftmaxBackward", g, y, 1, o)
    got = -o[0, 1:].astype(np.float64)
    ref = np.exp(y[0, 1:].astype(np.float64))
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32).astype(np.float64)
    fin = np.isfinite(ref32)
    assert np.array_equal(np.isinf(got), ~fin)
    ulp = np.spacing(np.abs(ref32[fin]).astype(np.float32)).astype(np.float64)
    err = np.abs(got[fin] - ref[fin]) / ulp
    assert err.max() <= 2.0, (err.max(), y[0, 1:][fin][err.argmax()])


@pytest.mark.parametrize("dt", ["f32", "bf16"])
def test_long_rows_vs_torch(torch, dt):
    """The bench's row length (4096) and a non-multiple of 16, forward and backward, against PyTorch."""
    tdt = {"f32": torch.float32, "bf16": torch.bfloat16}[dt]
    tol = {"f32": (1e-5, 1e-7), "bf16": (1.6e-2, 1e-5)}[dt]
    rng = np.random.default_rng(22)
    for C in (4096, 4111):
        xs = torch.from_numpy((rng.standard_normal((8, C)) * 3).astype(np.float32)).to(tdt)
        gs = torch.from_numpy(rng.standard_normal((8, C)).astype(np.float32)).to(tdt)
        for op, f in (("Softmax", torch.softmax), ("LogSoftmax", torch.log_softmax)):
            x = xs.float().numpy().astype(pyaclnn.bfloat16 if dt == "bf16" else np.float32)
            o = np.zeros_like(x)
            pyaclnn.call(op, x, 1, o)
            ref = f(xs.float(), 1).to(tdt).float().numpy()
            np.testing.assert_allclose(o.astype(np.float32), ref, *tol)
            y = f(xs, 1)
            bop = op.replace("Softmax", "SoftmaxBackward")
            b = np.zeros_like(x)
            yn = y.float().numpy().astype(x.dtype)
            pyaclnn.call(bop, gs.float().numpy().astype(x.dtype), yn, 1, b)
            bw = torch._softmax_backward_data if op == "Softmax" else torch._log_softmax_backward_data
            ref = bw(gs.float(), y.float(), 1, torch.float32).to(tdt).float().numpy()
            np.testing.assert_allclose(b.astype(np.float32), ref, *tol)


@pytest.mark.parametrize("dt", [np.float32, np.float16, pyaclnn.bfloat16])
def test_same_bytes_for_any_layout(dt):
    """A line gives the same bytes whether it is contiguous (the row converters, direct f32 rows) or strided (the
    generic conversions): f32/f16/bf16, rows with -inf, +inf and NaN, forward and backward."""
    rng = np.random.default_rng(23)
    x = (rng.standard_normal((9, 83)) * 5).astype(dt)
    x[1, 5] = np.nan
    x[2, ::3] = -np.inf
    x[3, 7] = np.inf
    x[4] = -np.inf
    g = rng.standard_normal((9, 83)).astype(dt)
    for op in ("Softmax", "LogSoftmax"):
        a = np.zeros_like(x)
        pyaclnn.call(op, x, 1, a)
        xs = np.zeros((83, 9), dt).T  # the same values, column-major
        xs[...] = x
        bs = np.zeros((83, 9), dt).T
        pyaclnn.call(op, xs, 1, bs)
        assert np.ascontiguousarray(bs).tobytes() == a.tobytes()
        y = np.where(np.isfinite(a.astype(np.float32)), a, 0).astype(dt)
        bop = op.replace("Softmax", "SoftmaxBackward")
        b1 = np.zeros_like(x)
        pyaclnn.call(bop, g, y, 1, b1)
        gs, ys, b2 = (np.zeros((83, 9), dt).T for _ in range(3))
        gs[...], ys[...] = g, y
        pyaclnn.call(bop, gs, ys, 1, b2)
        assert np.ascontiguousarray(b2).tobytes() == b1.tobytes()


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_column_tiles_vs_torch(torch, dt):
    """A dim other than the last with >= 16 contiguous positions after it (the 16-line column tiles, a partial last
    tile), forward and backward, against PyTorch; NaN/inf lines; the same bytes at 1 and 2 threads is covered by
    the thread test (shape (3, 5, 300), dim 0)."""
    from table_harness import NP, compare

    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]
    rng = np.random.default_rng(24)
    for shape, dim in (((4, 50, 37), 1), ((2, 3, 7, 5), 1), ((70, 19), 0)):
        src = (rng.standard_normal(shape) * 3).astype(np.float32)
        src.flat[5] = np.nan
        src.flat[40] = np.inf
        x = src.astype(NP[dt])
        g = rng.standard_normal(shape).astype(NP[dt])
        tx, tg = torch.from_numpy(x.astype(np.float32)).to(tdt), torch.from_numpy(g.astype(np.float32)).to(tdt)
        for op, f in (("Softmax", torch.softmax), ("LogSoftmax", torch.log_softmax)):
            o = np.zeros(shape, NP[dt])
            pyaclnn.call(op, x, dim, o)
            compare(o, f(tx.float(), dim).to(tdt).float().numpy().astype(NP[dt]), dt)
            y = f(tx.float(), dim)
            y = torch.where(torch.isfinite(y), y, torch.zeros_like(y)).to(tdt)
            b = np.zeros(shape, NP[dt])
            bop = op.replace("Softmax", "SoftmaxBackward")
            pyaclnn.call(bop, g, y.float().numpy().astype(NP[dt]), dim, b)
            bw = torch._softmax_backward_data if op == "Softmax" else torch._log_softmax_backward_data
            compare(b, bw(tg.float(), y.float(), dim, torch.float32).to(tdt).float().numpy().astype(NP[dt]), dt)
