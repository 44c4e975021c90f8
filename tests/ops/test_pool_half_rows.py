"""The fp16 rows of the pooling kernels (session 8 speed work, issue 15: fp16 no slower than fp32):
AdaptiveAvgPool2d fp16 (kernels/pool.c: column sums widened in registers - F16C / AVX-512, or at the portable level
summed in the exactly scaled domain of the halves' bits) against a numpy fp32 reference of the op's order (bit for
bit), and its bytes at every SIMD level and thread count; the dense and strided views give the same bytes."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from helpers import run_python

A = pyaclnn.int_array


def _t(a):
    return pyaclnn.AclTensor.from_array(a, lib.ACL_FORMAT_NCHW if a.ndim == 4 else lib.ACL_FORMAT_NCL)


def _values(rng, shape, kind):
    if kind == "normal":
        return rng.standard_normal(shape).astype(np.float16)
    if kind == "wide":  # every finite magnitude from subnormal to near the top, both signs, signed zeros
        b = rng.integers(0, 0x7c00, shape).astype(np.uint16) | (rng.integers(0, 2, shape).astype(np.uint16) << 15)
        return b.view(np.float16)
    b = rng.integers(0, 0x0800, shape).astype(np.uint16) | (rng.integers(0, 2, shape).astype(np.uint16) << 15)
    return b.view(np.float16)  # tiny: subnormals and the smallest normals (the scaled sums' subnormal range)


@np.errstate(invalid="ignore")
def _reference(x, osz):
    """fp32 in the op's order: per output row, column sums 0 + x[a] + ... + x[b-1]; per output, 0 + the window's
    column sums left to right, divided by the cell count; rounded once to fp16 (numpy: IEEE fp32, RNE casts)."""
    ih, iw = x.shape[-2:]
    oh, ow = osz
    xf = x.astype(np.float32)
    out = np.zeros(x.shape[:-2] + (oh, ow), np.float32)
    for o in range(oh):
        a, b = o * ih // oh, -(-(o + 1) * ih // oh)
        t = np.zeros(x.shape[:-2] + (iw,), np.float32)
        for h in range(a, b):
            t = t + xf[..., h, :]
        for q in range(ow):
            lo, hi = q * iw // ow, -(-(q + 1) * iw // ow)
            acc = np.zeros(x.shape[:-2], np.float32)
            for k in range(lo, hi):
                acc = acc + t[..., k]
            out[..., o, q] = acc / np.float32((b - a) * (hi - lo))
    return out.astype(np.float16)


CASES = [((2, 3, 13, 17), (5, 4)), ((1, 4, 56, 56), (7, 7)), ((2, 2, 56, 56), (9, 9)), ((1, 2, 9, 40), (4, 9)),
         ((3, 5, 7), (2, 3)), ((1, 1, 5, 1), (2, 1)), ((2, 70, 6, 9), (3, 4)), ((1, 2, 8, 123), (3, 31)),
         ((1, 1, 3, 2100), (2, 5)), ((65, 2, 4, 24), (4, 24))]


@pytest.mark.parametrize("kind", ["normal", "wide", "tiny"])
def test_adaptive_avg_pool2d_f16_bit_exact_vs_fp32_reference(kind):
    rng = np.random.default_rng(3)
    for shape, osz in CASES:
        x = _values(rng, shape, kind)
        want = _reference(x, osz)
        y = _t(np.zeros(shape[:-2] + osz, np.float16))
        pyaclnn.launch("AdaptiveAvgPool2d", _t(x), A(list(osz)), y)
        assert y.numpy().view(np.uint16).tolist() == want.view(np.uint16).tolist(), (kind, shape, osz)
        # strided input and output views: the same bytes
        xb = np.zeros(shape[:-1] + (shape[-1] * 2,), np.float16)
        xb[..., ::2] = x
        yb = np.zeros(shape[:-2] + (osz[0], osz[1] * 3), np.float16)
        ys = _t(yb[..., ::3])
        pyaclnn.launch("AdaptiveAvgPool2d", _t(xb[..., ::2]), A(list(osz)), ys)
        assert ys.numpy().tobytes() == y.numpy().tobytes(), (kind, shape, osz)


def test_adaptive_avg_pool2d_f16_inf_nan_rows():
    """Rows holding an Inf or NaN go through the exact reference code at every level: NaN where the fp32
    reference is NaN, the reference's bits elsewhere (+-Inf included)."""
    rng = np.random.default_rng(4)
    for shape, osz in CASES[:8]:
        v = rng.integers(-3, 4, shape).astype(np.float16)
        r = rng.random(shape)
        v[r < 0.01] = np.nan
        v[(r >= 0.01) & (r < 0.02)] = -np.inf
        v[(r >= 0.02) & (r < 0.03)] = np.inf
        v[(r >= 0.03) & (r < 0.06)] = -0.0
        want = _reference(v, osz)
        y = _t(np.zeros(shape[:-2] + osz, np.float16))
        pyaclnn.launch("AdaptiveAvgPool2d", _t(v), A(list(osz)), y)
        got = y.numpy()
        wn = np.isnan(want.astype(np.float32))
        assert (np.isnan(got.astype(np.float32)) == wn).all(), (shape, osz)
        assert got.view(np.uint16)[~wn].tolist() == want.view(np.uint16)[~wn].tolist(), (shape, osz)


DIGEST = open(__file__.replace("test_pool_half_rows.py", "_pool_half_rows_digest.py")).read()


def test_adaptive_avg_pool2d_f16_same_bytes_every_level_and_thread_count():
    """fp16 inputs of every kind (normal, subnormal to near-max, tiny, Inf / NaN / signalling NaN / -0), widths
    with and without 8- and 16-column tails, rank 3 and 4, strided views: the same bytes at PYACLNN_SIMD=off /
    avx2 / default and at 1 / 2 / 7 threads (default level)."""
    outs = {lv: run_python(DIGEST, {"PYACLNN_SIMD": lv, "OMP_NUM_THREADS": "1"}) for lv in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    for th in ("2", "7"):
        assert run_python(DIGEST, {"OMP_NUM_THREADS": th}) == outs[""]


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_max_pool_forward_row_blocks_same_bytes_as_per_cell(dt):
    """The max-pool forwards that convert a window's rows of one depth in one call (dense input rows: fwd_columns
    for even windows, amax_columns for overlapping adaptive ones) against the per-cell loops a strided input takes:
    values and argmax, inputs full of ties, signed zeros, infinities and NaNs."""
    npdt = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": pyaclnn.bfloat16}[dt]
    rng = np.random.default_rng(11)

    def special(shape):
        v = rng.integers(-3, 4, shape).astype(np.float32)
        r = rng.random(shape)
        v[r < 0.04] = np.nan
        v[(r >= 0.04) & (r < 0.07)] = -np.inf
        v[(r >= 0.07) & (r < 0.1)] = -0.0
        v[(r >= 0.1) & (r < 0.12)] = np.inf
        return v.astype(npdt)

    def fmt(nd):
        return lib.ACL_FORMAT_NCHW if nd == 4 else lib.ACL_FORMAT_NCDHW

    def run(op, x, osz, xs_view):
        oshape = x.shape[:2] + tuple(osz)
        y = pyaclnn.AclTensor(oshape, npdt, fmt=fmt(x.ndim))
        it = pyaclnn.AclTensor(oshape, np.dtype(np.int64 if op == "AdaptiveMaxPool2d" else np.int32), fmt=fmt(x.ndim))
        if op == "MaxPool3dWithArgmax":
            pyaclnn.launch(op, xs_view, A([2]), A([2]), A([0]), A([1]), False, y, it)
        else:
            pyaclnn.launch(op, xs_view, A(list(osz)), y, it)
        return y.numpy().tobytes() + it.numpy().tobytes()

    for op, shape, osz in [("AdaptiveMaxPool2d", (1, 4, 56, 56), (7, 7)), ("AdaptiveMaxPool2d", (2, 3, 13, 17), (5, 4)),
                           ("AdaptiveMaxPool2d", (2, 2, 56, 56), (9, 9)), ("AdaptiveMaxPool3d", (1, 2, 8, 24, 24), (4, 3, 3)),
                           ("AdaptiveMaxPool3d", (1, 2, 5, 13, 17), (2, 5, 4)), ("MaxPool3dWithArgmax", (1, 2, 4, 8, 10), (2, 4, 5))]:
        x = special(shape)
        dense = run(op, x, osz, pyaclnn.AclTensor.from_array(x, fmt(x.ndim)))
        xb = np.zeros(shape[:-1] + (shape[-1] * 2,), npdt)
        xb[..., ::2] = x
        strided = run(op, x, osz, pyaclnn.AclTensor.from_array(xb[..., ::2], fmt(x.ndim)))
        assert dense == strided, (op, shape, osz)
