"""NLLLoss forward: the picked-element loop and its fixed four-lane sum tree, bytes against a literal float64 loop.

The forward adds element i's loss -w[c] * x[i, c] (and its weight w[c]) into lane i % 4 of its block of 1024
elements, adds the blocks' lanes lane by lane in block order and joins the lanes as (l0 + l1) + (l2 + l3) in double, then rounds once to the compute dtype (fp32 for fp32 / fp16 self, bf16 for bf16)
and casts that to the output's dtype. The reference below is that loop written out in numpy float64, so the
library's bytes must equal it exactly: every N mod 4, ignored and out-of-range targets, int64 targets read in place
and the other target dtypes / strided targets converted, a transposed (non-row-major) self, reduction none / mean /
sum."""
import ml_dtypes
import numpy as np
import pytest

import pyaclnn

BF16 = ml_dtypes.bfloat16
DTS = {"f32": np.float32, "f16": np.float16, "bf16": BF16}


BLOCK = 1024


def _reference(x, t, w, reduction, ignore):
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    N, C = x.shape
    s, ws, per = [0.0] * 4, [0.0] * 4, np.zeros(N)
    for b0 in range(0, N, BLOCK):              # each block's lanes, then added lane by lane in block order
        bs, bw = [0.0] * 4, [0.0] * 4
        for i in range(b0, min(N, b0 + BLOCK)):
            c = int(t[i])
            if c == ignore or not 0 <= c < C:
                continue
            v = -w64[c] * x64[i, c]
            per[i] = v
            bs[i % 4] += v
            bw[i % 4] += w64[c]
        for k in range(4):
            s[k] += bs[k]
            ws[k] += bw[k]
    total, wsum = (s[0] + s[1]) + (s[2] + s[3]), (ws[0] + ws[1]) + (ws[2] + ws[3])
    if reduction == 0:
        return per, None
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.float64(total / wsum if reduction == 1 else total), np.float64(wsum)


def _round(v, dt):
    # the compute dtype first (fp32, or bf16 for a bf16 self: through fp32 as the library's double->bf16), then out's
    return np.asarray(v, np.float64).astype(np.float32).astype(DTS[dt])


def _bytes(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


@pytest.mark.parametrize("dt", list(DTS))
@pytest.mark.parametrize("N", [1, 2, 3, 4, 5, 7, 64, 1027, 4099])
def test_nll_lanes_exact(dt, N):
    rng = np.random.default_rng(N)
    C = 37
    x = (rng.standard_normal((N, C)) * 3).astype(DTS[dt])
    w = rng.uniform(0.25, 2.0, C).astype(DTS[dt])
    t = rng.integers(0, C, N).astype(np.int64)
    ignore = 5
    t[rng.random(N) < 0.2] = ignore
    for r in (0, 1, 2):
        want, wsum = _reference(x, t, w, r, ignore)
        o = np.zeros((N,) if r == 0 else (), DTS[dt])
        tw = np.zeros((1,), DTS[dt])
        pyaclnn.call("NLLLoss", x, t, w, r, ignore, o, tw)
        assert _bytes(o) == _bytes(_round(want, dt)), (dt, N, r)
        if r:
            assert _bytes(tw) == _bytes(_round([wsum], dt)), (dt, N, r)


@pytest.mark.parametrize("dt", list(DTS))
def test_nll_views_and_target_dtypes(dt):
    """the in-place int64 target and the converted ones (int32, uint8, a strided int64 view) give the same bytes;
    a transposed self is read through its strides"""
    rng = np.random.default_rng(3)
    N, C = 203, 11
    xt = (rng.standard_normal((C, N)) * 2).astype(DTS[dt])
    x = xt.T                                        # (N, C), column-major
    w = rng.uniform(0.5, 1.5, C).astype(DTS[dt])
    t = rng.integers(0, C, N).astype(np.int64)
    t_wide = np.zeros(2 * N, np.int64)
    t_wide[::2] = t
    for r in (0, 1, 2):
        want, wsum = _reference(np.ascontiguousarray(x), t, w, r, -100)
        for tv in (t, t.astype(np.int32), t.astype(np.uint8), t_wide[::2]):
            o = np.zeros((N,) if r == 0 else (), DTS[dt])
            tw = np.zeros((1,), DTS[dt])
            pyaclnn.call("NLLLoss", x, tv, w, r, -100, o, tw)
            assert _bytes(o) == _bytes(_round(want, dt)), (dt, r, tv.dtype, tv.strides)
            if r:
                assert _bytes(tw) == _bytes(_round([wsum], dt))


def test_nll_out_of_range_and_special_values():
    """targets outside [0, C) contribute nothing (nothing is read there); Inf / NaN losses follow the lanes"""
    x = np.array([[-1.0, np.inf], [-2.0, -3.0], [np.nan, -4.0], [-5.0, -6.0], [-7.0, -8.0]], np.float32)
    w = np.array([1.0, 0.5], np.float32)
    for t in (np.array([0, 7, 1, -3, 0], np.int64), np.array([1, 0, 1, 1, 0], np.int64),
              np.array([0, 0, 0, 1, 1], np.int64)):
        for r in (0, 1, 2):
            want, wsum = _reference(x, t, w, r, -100)
            o = np.zeros((5,) if r == 0 else (), np.float32)
            tw = np.zeros((1,), np.float32)
            pyaclnn.call("NLLLoss", x, t, w, r, -100, o, tw)
            assert _bytes(o) == _bytes(_round(want, "f32")), (t, r)
            if r:
                assert _bytes(tw) == _bytes(_round([wsum], "f32"))


def test_nll_1d_self():
    x = np.array([-0.5, -1.25, -2.0], np.float32)
    w = np.array([2.0, 3.0, 4.0], np.float32)
    for r in (0, 1, 2):
        o, tw = np.zeros((), np.float32), np.zeros((1,), np.float32)
        pyaclnn.call("NLLLoss", x, np.array(1, np.int64), w, r, -100, o, tw)
        want = 3.0 * 1.25 / (3.0 if r == 1 else 1.0)
        assert o == np.float32(want)
        if r:
            assert tw[0] == 3.0
