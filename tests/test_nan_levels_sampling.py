"""NaN bytes identical at every SIMD level (the sampling / resampling kernels, convolution): tools/nan_audit.py's cases for the
families whose NaN results are recomputed in the reference order (common/nan_order.h), and the nearest-backward family
(one C loop at every level since session 13), give the same bytes at
PYACLNN_SIMD=off / avx2 / avx512 x OMP_NUM_THREADS 1 / 2 - inputs with NaNs of many payloads (signalling, quiet,
sign set) in every float input, Inf and 0 so Inf*0 / Inf-Inf meet them. Plus values: the NaN positions and the
other values of those inputs against the float64 references, a NaN-free run against them too, and the rule
itself (a op b keeps a's payload, quietened, if a is NaN, else b's) on hand-made single-point cases."""
import os
import sys

import numpy as np
import pytest

import pyaclnn
from helpers import TOL

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import nan_audit  # noqa: E402

from reference.msda import msda_backward as msda_ref_bwd  # noqa: E402
from reference.msda import msda_forward as msda_ref_fwd  # noqa: E402
from reference.grid_sampler import grid_sample_backward_ref, grid_sample_ref  # noqa: E402

FIXED = ["msda ", "grid2d ", "grid3d ", "conv2d ", "matmul ", "UpsampleNearest"]


@pytest.mark.parametrize("family", FIXED)
def test_nan_payloads_same_bytes_every_level_and_thread_count(family):
    cases = [c for c in nan_audit.CASES if c[0].startswith(family)]
    assert cases
    res = nan_audit.run(cases)
    bad = nan_audit.differing(res)
    assert not bad, f"digests differ between levels / thread counts: {bad}"


# ---- values ----

def _bits32(a):
    return np.asarray(a, np.float32).view(np.uint32)


def _close_where_finite(act, exp, dt, what):
    act = np.asarray(act).astype(np.float64)
    assert np.array_equal(np.isnan(act), np.isnan(exp)), what + ": NaN positions"
    m = ~np.isnan(exp)
    rtol, atol = TOL[np.dtype(dt)]
    e, a = exp[m], act[m]
    fin = np.isfinite(e)
    assert np.array_equal(a[~fin], e[~fin]), what + ": infinities"
    scale = float(np.max(np.abs(e[fin]))) if fin.any() else 0.0
    np.testing.assert_allclose(a[fin], e[fin], rtol=rtol, atol=max(atol, 2 * rtol * scale), err_msg=what)


def _msda_inputs(dt, nan):
    g = {}
    exec(nan_audit.PRELUDE, g)  # its spec(): NaNs of distinct payloads, Inf, 0
    rng, spec = np.random.default_rng(3), g["spec"]
    shapes = np.array([[5, 6], [3, 3]], np.int32)
    start = np.array([0, 30], np.int32)
    K, C = 39, 8
    v = rng.standard_normal((1, K, 2, C)).astype(np.float32).astype(dt)
    loc = rng.uniform(-0.1, 1.1, (1, 32, 2, 2, 3, 2)).astype(np.float32).astype(dt)
    a = rng.uniform(0, 1, (1, 32, 2, 2, 3)).astype(np.float32).astype(dt)
    go = rng.standard_normal((1, 32, 2 * C)).astype(np.float32).astype(dt)
    if nan:
        v, a, go = spec(v, 5, 1), spec(a, 9, 2), spec(go, 6, 3)
        # an infinite weight multiplies the point's corner sum here but each corner's term in the reference:
        # Inf * (x1 - x2) against Inf*x1 - Inf*x2, a different NaN set (not a payload question)
        a[np.isinf(a)] = 0.5
    return v, shapes, start, loc, a, go


@pytest.mark.parametrize("nan", [False, True], ids=["finite", "nan"])
@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.float16), pyaclnn.bfloat16], ids=["f32", "f16", "bf16"])
def test_msda_values_against_float64_reference(dt, nan):
    v, shapes, start, loc, a, go = _msda_inputs(dt, nan)
    f64 = [np.asarray(t).astype(np.float64) for t in (v, loc, a, go)]
    out = pyaclnn.multi_scale_deformable_attn(v, shapes, start, loc, a)
    with np.errstate(invalid="ignore", over="ignore"):
        _close_where_finite(out, msda_ref_fwd(f64[0], shapes, start, loc, f64[2]), dt, "forward")
        gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(v, shapes, start, loc, a, go)
        rv, rl, ra = msda_ref_bwd(f64[0], shapes, start, loc, f64[2], f64[3])
    _close_where_finite(gv, rv, dt, "gradValue")
    _close_where_finite(ga, ra, dt, "gradAttnWeight")
    _close_where_finite(gl, rl, dt, "gradLocation")


def _one_point(level):
    """value (1, 4, 1, 8): one 2x2 level, 32 queries (the op's minimum) of one point strictly inside (every corner
    weight non-zero)"""
    v = np.arange(1, 33, dtype=np.float32).reshape(1, 4, 1, 8) / 8
    shapes, start = np.array([[2, 2]], np.int32), np.array([0], np.int32)
    loc = np.tile(np.array([0.4, 0.6], np.float32).reshape(1, 1, 1, 1, 1, 2), (1, 32, 1, 1, 1, 1))
    a = np.full((1, 32, 1, 1, 1), 0.75, np.float32)
    return v, shapes, start, loc, a


MSDA_RULE_CODE = r"""
import numpy as np, pyaclnn, sys
sys.path.insert(0, %r)
from test_nan_levels_sampling import _one_point
v, shapes, start, loc, a = _one_point(0)
u = v.view(np.uint32)
u[0, 0, 0, 0] = 0x7f800011   # corner 1 (w1*x1 is the first term): signalling, payload 0x11
u[0, 3, 0, 0] = 0xffc00022   # corner 4: quiet, sign set
u[0, 1, 0, 1] = 0x7fc00033   # channel 1: corners 2 and 3
u[0, 2, 0, 1] = 0x7f800044
u[0, 2, 0, 2] = 0x7f800055   # channel 2: only corner 3, attn NaN below in the second run
out1 = pyaclnn.multi_scale_deformable_attn(v, shapes, start, loc, a).reshape(-1)
a2 = a.copy(); a2.view(np.uint32)[...] = 0xff800066
out2 = pyaclnn.multi_scale_deformable_attn(v, shapes, start, loc, a2).reshape(-1)
go = np.ones((1, 32, 8), np.float32); go.view(np.uint32)[0, :, 3] = 0x7f800077
gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(v, shapes, start, loc, a, go)
print(" ".join("%%08x" %% x for x in np.concatenate([out1[:3].view(np.uint32), out2[:3].view(np.uint32),
      gl.reshape(-1)[:2].view(np.uint32), ga.reshape(-1)[:1].view(np.uint32), gv[0, :, 0, 3].view(np.uint32)])))
"""


def test_msda_nan_rule_on_hand_made_points():
    """acc += a*(((w1*x1 + w2*x2) + w3*x3) + w4*x4): corner 1's payload wins over corner 4's, corner 2's over
    corner 3's, attn's over the value's (a * (...)); the backward keeps gradOutput's (quietened) where it is the
    first NaN of the written order. The same words at every level."""
    from helpers import run_python
    code = MSDA_RULE_CODE % os.path.dirname(os.path.abspath(__file__))
    outs = {lvl: run_python(code, {"PYACLNN_SIMD": lvl}).decode().split() for lvl in ("off", "avx2", "avx512")}
    w = outs["off"]
    assert outs["avx2"] == w and outs["avx512"] == w
    assert w[0] == "7fc00011" and w[1] == "7fc00033" and w[2] == "7fc00055"
    assert w[3] == w[4] == w[5] == "ffc00066"
    # gradLocation (x, y) = sums over channels of t*(hh*(v2 - v1) + ...), gradAttnWeight = sum of go*val: channel
    # 0's term (v1's payload) is partial sum 0, the first of the fixed tree
    assert w[6] == w[7] == w[8] == "7fc00011"
    # gradValue channel 3: w_k*(a*go[3]) -> go's payload, quietened, in every corner row
    assert w[9:13] == ["7fc00077"] * 4


def _prelude():
    g = {}
    exec(nan_audit.PRELUDE, g)
    return g


@pytest.mark.parametrize("nan", [False, True], ids=["finite", "nan"])
@pytest.mark.parametrize("im,pm", [(0, 0), (0, 1), (1, 2), (2, 0), (2, 2)])
@pytest.mark.parametrize("C", [1, 5, 16])
def test_grid2d_values_against_float64_reference(C, im, pm, nan):
    """fp32: the NaN positions and every other value against the float64 loop reference (NaNs in input and
    gradOutput, finite grid: a NaN grid coordinate drops the point in both)"""
    g = _prelude()
    rng = np.random.default_rng(40 + C + 3 * im + pm)
    x = rng.standard_normal((2, C, 7, 9)).astype(np.float32)
    go = rng.standard_normal((2, C, 6, 5)).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (2, 6, 5, 2)).astype(np.float32)
    if nan:
        x, go = g["spec"](x, 5, 1), g["spec"](go, 6, 2)
        x[np.isinf(x)] = 2.0   # Inf * 0 weights: where the reference and the planes' zero taps part ways
    ac = bool(pm & 1)
    E, T = pyaclnn.AclTensor.empty, pyaclnn.AclTensor.from_array
    o = E(go.shape, np.float32)
    pyaclnn.launch("GridSampler2D", T(x), T(grid), im, pm, ac, o)
    gi, gg = E(x.shape, np.float32), E(grid.shape, np.float32)
    pyaclnn.launch("GridSampler2DBackward", T(go), T(x), T(grid), im, pm, ac, pyaclnn.bool_array([True, True]), gi, gg)
    with np.errstate(invalid="ignore", over="ignore"):
        ro = grid_sample_ref(x.astype(np.float64), grid.astype(np.float64), im, pm, ac)
        rgi, rgg = grid_sample_backward_ref(go.astype(np.float64), x.astype(np.float64), grid.astype(np.float64),
                                            im, pm, ac)
    _close_where_finite(o.numpy(), ro, np.float32, "out")
    _close_where_finite(gi.numpy(), rgi, np.float32, "inputGrad")
    if im != 1 and not nan:
        _close_where_finite(gg.numpy(), rgg, np.float32, "gridGrad")
    elif im != 1:
        # the kernel and the reference form the grid gradient's terms differently (a tap outside the image is a
        # zero value times gradOutput here and skipped there; a zero multiplier scales the sum here, each term
        # there), so their NaN sets differ; the values where both are numbers agree
        a, e = gg.numpy().astype(np.float64), rgg
        m = ~np.isnan(a) & ~np.isnan(e)
        _close_where_finite(a[m], e[m], np.float32, "gridGrad")


@pytest.mark.parametrize("nan", [False, True], ids=["finite", "nan"])
def test_conv2d_values_against_float64_reference(nan):
    """fp32 Convolution (3x3, stride 1, padding 1, bias): NaN positions and values against a float64 sum"""
    g = _prelude()
    rng = np.random.default_rng(77)
    x = rng.standard_normal((2, 6, 9, 11)).astype(np.float32)
    w = rng.standard_normal((8, 6, 3, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    if nan:
        x, w, b = g["spec"](x, 7, 1), g["spec"](w, 9, 2), g["spec"](b, 5, 3)
    T, lib = pyaclnn.AclTensor.from_array, pyaclnn.lib
    o = T(np.zeros((2, 8, 9, 11), np.float32), lib.ACL_FORMAT_NCHW)
    IA = pyaclnn.int_array
    pyaclnn.launch("Convolution", T(x, lib.ACL_FORMAT_NCHW), T(w, lib.ACL_FORMAT_NCHW), T(b), IA([1, 1]), IA([1, 1]),
                   IA([1, 1]), False, IA([0, 0]), 1, o, 1)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((2, 8, 9, 11))
    with np.errstate(invalid="ignore", over="ignore"):
        for kh in range(3):
            for kw in range(3):
                ref += np.einsum("nchw,oc->nohw", xp[:, :, kh:kh + 9, kw:kw + 11], w[:, :, kh, kw].astype(np.float64))
        ref += b.astype(np.float64)[None, :, None, None]
    _close_where_finite(o.numpy(), ref, np.float32, "conv2d out")
