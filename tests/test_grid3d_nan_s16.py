"""GridSampler3D / GridSampler3DBackward NaN results by the library's rule (common/nan_order.h: a op b keeps a's
payload, quietened, if a is NaN, else b's), in the written order documented in kernels/grid_sampler3d_core.inc:
forward ((0 + v_0*w_0) + v_1*w_1) + ... over the in-volume taps (tnw tne tsw tse bnw bne bsw bse); gradInput
per voxel ((0 + w*g) + ...) points in order, taps in order (nearest: + g); gradGrid per in-volume tap
t_k = (0 + v_c0*g_c0) + ... over channels in order, s = (0 + t_0*d_0) + ..., then s*m.

A literal scalar implementation of that rule (below, numpy scalars of the compute type) against the library:
NaN of distinct payloads in input, grid and gradOutput (several taps of one point NaN, NaN grid coordinates),
trilinear and nearest, the three paddings, alignCorners both, fp32/fp16/bf16/fp64, C = 1, 3, 4, 5, 16, N = 1, 2.
NaN entries byte for byte; forward and gradInput entirely byte for byte (same sum order); the grid gradient's
other entries to a tolerance (its fast path sums channels in fixed lanes for C >= 2). And the same bytes at
OMP_NUM_THREADS 1/2/3 and every PYACLNN_SIMD level (tools/nan_audit.py's "grid3d " cases are in
tests/test_nan_levels_sampling.py's FIXED list too)."""
import numpy as np
import pytest

import pyaclnn
from helpers import same_bytes_for_threads_and_levels

T = pyaclnn.AclTensor.from_array
BF = pyaclnn.bfloat16
DTS = {"f32": np.float32, "f16": np.float16, "bf16": BF, "f64": np.float64}


def _q(F, a):
    if F is np.float64:
        u = np.array([a], np.float64).view(np.uint64) | np.uint64(0x0008000000000000)
        return u.view(np.float64)[0]
    u = np.array([a], np.float32).view(np.uint32) | np.uint32(0x00400000)
    return u.view(np.float32)[0]


def _add(F, a, b):
    if np.isnan(a): return _q(F, a)
    if np.isnan(b): return _q(F, b)
    return F(a + b)


def _mul(F, a, b):
    if np.isnan(a): return _q(F, a)
    if np.isnan(b): return _q(F, b)
    return F(a * b)


def _clip(F, c, size):
    hi = F(size - 1)
    if c <= F(0): return F(0), F(0)
    if c >= hi: return hi, F(0)
    return c, F(1)


def _reflect(F, c, tlo, thi):
    if tlo == thi or np.isinf(c): return F(0), F(0)
    if np.isnan(c): return c, F(1)
    lo, span, s = tlo * F(0.5), (thi - tlo) * F(0.5), F(1)
    c = F(c - lo)
    if c < F(0): s, c = F(-1), -c
    extra = np.fmod(c, span)
    flips = np.floor(c / span)
    if np.fmod(flips, F(2)) == F(0): return F(extra + lo), s
    return F(span - extra + lo), -s


def _source(F, x, size, pad, align):
    if align:
        m = F(size - 1) * F(0.5)
        c = ((x + F(1)) * F(0.5)) * F(size - 1)
    else:
        m = F(size) * F(0.5)
        c = ((x + F(1)) * F(size) - F(1)) * F(0.5)
    g = F(1)
    if pad == 1:
        c, g = _clip(F, c, size)
    elif pad == 2:
        c, g1 = _reflect(F, c, F(0), F(2 * (size - 1))) if align else _reflect(F, c, F(-1), F(2 * size - 1))
        if g1 == F(0) and c == F(0):
            c, g = F(0), F(0)
        else:
            c, g2 = _clip(F, c, size)
            g = g1 * g2
    m = m * g
    if np.isnan(c) or abs(c) > F(2147483648.0):
        c = F(-100)
    return c, m


def _taps(F, g, D, H, W, im, pad, align):
    (ix, mx), (iy, my), (iz, mz) = (_source(F, g[0], W, pad, align), _source(F, g[1], H, pad, align),
                                    _source(F, g[2], D, pad, align))
    if im == 1:
        xn, yn, zn = int(np.rint(ix)), int(np.rint(iy)), int(np.rint(iz))
        ok = 0 <= xn < W and 0 <= yn < H and 0 <= zn < D
        return [((zn * H + yn) * W + xn if ok else -1, F(1), F(0), F(0), F(0))], (F(0), F(0), F(0))
    x0, y0, z0 = np.floor(ix), np.floor(iy), np.floor(iz)
    ex, wx, ey, wy, ez, wz = x0 + F(1) - ix, ix - x0, y0 + F(1) - iy, iy - y0, z0 + F(1) - iz, iz - z0
    taps = []
    for k in range(8):
        a, b, c = k & 1, (k >> 1) & 1, k >> 2
        xx, yy, zz = int(x0) + a, int(y0) + b, int(z0) + c
        ok = 0 <= xx < W and 0 <= yy < H and 0 <= zz < D
        fx, fy, fz = (wx if a else ex), (wy if b else ey), (wz if c else ez)
        sx, sy, sz = (F(1) if a else F(-1)), (F(1) if b else F(-1)), (F(1) if c else F(-1))
        taps.append(((zz * H + yy) * W + xx if ok else -1, fx * fy * fz, sx * fy * fz, sy * fx * fz, sz * fx * fy))
    return taps, (mx, my, mz)


def rule_ref(x, g, go, im, pad, align):
    """forward, gradInput, gradGrid in the compute type F by the rule, literal loops"""
    F = np.float64 if x.dtype == np.float64 else np.float32
    x, g, go = x.astype(F), g.astype(F), go.astype(F)
    N, C, D, H, W = x.shape
    V = D * H * W
    pts = g.reshape(N, -1, 3)
    P = pts.shape[1]
    xf, gof = x.reshape(N, C, V), go.reshape(N, C, P)
    out = np.zeros((N, C, P), F)
    gin = np.zeros((N, C, V), F)
    gg = np.zeros((N, P, 3), F)
    for n in range(N):
        for r in range(P):
            taps, m = _taps(F, pts[n, r], D, H, W, im, pad, align)
            for c in range(C):
                s = F(0)
                for o, w, *_ in taps:
                    if o >= 0:
                        s = _add(F, s, _mul(F, xf[n, c, o], w))
                        gin[n, c, o] = _add(F, gin[n, c, o], gof[n, c, r] if im == 1 else _mul(F, w, gof[n, c, r]))
                out[n, c, r] = s
            if im == 1:
                continue
            sx = sy = sz = F(0)
            for o, w, kx, ky, kz in taps:
                if o < 0:
                    continue
                t = F(0)
                for c in range(C):
                    t = _add(F, t, _mul(F, xf[n, c, o], gof[n, c, r]))
                sx, sy, sz = _add(F, sx, _mul(F, t, kx)), _add(F, sy, _mul(F, t, ky)), _add(F, sz, _mul(F, t, kz))
            gg[n, r] = [_mul(F, sx, m[0]), _mul(F, sy, m[1]), _mul(F, sz, m[2])]
    return out.reshape(go.shape), gin.reshape(x.shape), gg.reshape(g.shape)


def _nan_fill(a, every, seed, dt):
    """NaNs of distinct payloads (signalling and quiet, both signs; payload bits that survive fp16 / bf16)"""
    F = np.float64 if dt is np.float64 else np.float32
    a = a.astype(F)
    flat = a.reshape(-1)
    idx = np.arange(seed % every, flat.size, every)
    if F is np.float64:
        u = flat.view(np.uint64)
        u[idx] = (np.uint64(0x7FF0000000000000) | ((np.arange(idx.size, dtype=np.uint64) % 63 + 1) << np.uint64(45))
                  | ((np.arange(idx.size, dtype=np.uint64) & 1) << np.uint64(63)))
    else:
        u = flat.view(np.uint32)
        u[idx] = (np.uint32(0x7F800000) | ((np.arange(idx.size, dtype=np.uint32) % 63 + 1) << np.uint32(16))
                  | ((np.arange(idx.size, dtype=np.uint32) & 1) << np.uint32(31)))
    return a.astype(dt)


def _inputs(dt, C, N, seed=5):
    rng = np.random.default_rng(seed + C + 10 * N)
    x = _nan_fill(rng.standard_normal((N, C, 3, 4, 5)), 3, seed, dt)
    go = _nan_fill(rng.standard_normal((N, C, 2, 3, 4)), 4, seed + 1, dt)
    g = rng.uniform(-1.2, 1.2, (N, 2, 3, 4, 3))
    g.reshape(-1, 3)[5] = np.nan                       # a NaN coordinate
    g.reshape(-1, 3)[11, 1] = np.nan
    g.reshape(-1, 3)[7] = [0.0, 0.0, 0.0]              # interior point: eight in-volume taps, several NaN
    g = _nan_fill(g, 29, seed + 2, dt)
    return x, g, go


def _run(x, g, go, im, pad, align, mask=(True, True)):
    dt = x.dtype
    o = T(np.zeros(go.shape, dt))
    pyaclnn.launch("GridSampler3D", T(x), T(g), im, pad, align, o)
    gi, gg = T(np.zeros(x.shape, dt)), T(np.zeros(g.shape, dt))
    pyaclnn.launch("GridSampler3DBackward", T(go), T(x), T(g), im, pad, align, pyaclnn.bool_array(list(mask)), gi, gg)
    return o.numpy(), gi.numpy(), gg.numpy()


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _check(x, g, go, im, pad, align, what):
    """the library's three outputs against rule_ref; returns them"""
    ro, rgi, rgg = (a.astype(x.dtype) for a in rule_ref(x, g, go, im, pad, align))
    o, gi, gg = _run(x, g, go, im, pad, align)
    assert np.array_equal(_bits(o), _bits(ro)), what + ": forward"
    assert np.array_equal(_bits(gi), _bits(rgi)), what + ": gradInput"
    nan = np.isnan(rgg.astype(np.float64))
    assert np.array_equal(np.isnan(gg.astype(np.float64)), nan), what + ": gradGrid NaN positions"
    assert np.array_equal(_bits(gg)[nan], _bits(rgg)[nan]), what + ": gradGrid NaN payloads"
    if x.shape[1] == 1:
        assert np.array_equal(_bits(gg), _bits(rgg)), what + ": gradGrid"
    else:
        np.testing.assert_allclose(gg[~nan].astype(np.float64), rgg[~nan].astype(np.float64),
                                   rtol=1e-2 if x.dtype.itemsize == 2 else 1e-5, atol=1e-2, err_msg=what)
    # output masks: each output alone gives the same bytes
    _, gi1, _ = _run(x, g, go, im, pad, align, (True, False))
    assert np.array_equal(_bits(gi1), _bits(rgi)), what + ": gradInput alone"
    if im == 0:
        gi2, gg2 = T(np.zeros(x.shape, x.dtype)), T(np.zeros(g.shape, x.dtype))
        pyaclnn.launch("GridSampler3DBackward", T(go), T(x), T(g), im, pad, align, pyaclnn.bool_array([False, True]),
                       gi2, gg2)
        assert np.array_equal(_bits(gg2.numpy()), _bits(gg)), what + ": gradGrid alone"
    return o, gi, gg


@pytest.mark.parametrize("dtn", ["f32", "f16", "bf16", "f64"])
@pytest.mark.parametrize("im", [0, 1])
@pytest.mark.parametrize("pad", [0, 1, 2])
@pytest.mark.parametrize("align", [False, True])
def test_nan_results_by_the_rule(dtn, im, pad, align):
    with np.errstate(all="ignore"):
        for C, N in ((1, 1), (3, 2), (4, 1), (5, 2), (16, 1), (1, 2)):
            x, g, go = _inputs(DTS[dtn], C, N)
            _check(x, g, go, im, pad, align, f"{dtn} im{im} pad{pad} align{align} C{C} N{N}")


def test_nan_free_values_against_float32_loop():
    """no NaN: forward / gradInput exactly the rule loop's values (same order), fp32 trilinear + nearest"""
    rng = np.random.default_rng(9)
    for im in (0, 1):
        for C in (1, 4, 5):
            x = rng.standard_normal((2, C, 3, 4, 5)).astype(np.float32)
            go = rng.standard_normal((2, C, 2, 3, 4)).astype(np.float32)
            g = rng.uniform(-1.1, 1.1, (2, 2, 3, 4, 3)).astype(np.float32)
            ro, rgi, _ = rule_ref(x, g, go, im, 0, False)
            o, gi, _ = _run(x, g, go, im, 0, False)
            assert np.array_equal(_bits(o), _bits(ro)) and np.array_equal(_bits(gi), _bits(rgi))


CODE = r"""
import hashlib, sys, numpy as np
sys.path.insert(0, "tests")
from test_grid3d_nan_s16 import _inputs, _run, DTS
h = hashlib.sha256()
for dtn in ("f32", "f16", "bf16", "f64"):
    for C, N in ((1, 1), (4, 1), (5, 2), (16, 1)):
        x, g, go = _inputs(DTS[dtn], C, N)
        for im in (0, 1):
            for pad in (0, 2):
                for a in _run(x, g, go, im, pad, bool(pad)):
                    h.update(np.ascontiguousarray(a).tobytes())
print(h.hexdigest())
"""


def test_same_bytes_every_thread_count_and_level():
    same_bytes_for_threads_and_levels(CODE, threads=(1, 2, 3))


# larger: at 2 / 3 threads the batch-of-one slab backward (N = 1), the two-pass backward (N = 3) and the fused one
CODE_BIG = r"""
import hashlib, sys, numpy as np
sys.path.insert(0, "tests")
from test_grid3d_nan_s16 import _check, _nan_fill, DTS
h = hashlib.sha256()
with np.errstate(all="ignore"):
    for dtn in ("f32", "f16"):
        for C, N in ((8, 1), (1, 1), (5, 3)):
            rng = np.random.default_rng(C + N)
            x = _nan_fill(rng.standard_normal((N, C, 6, 7, 8)), 7, 1, DTS[dtn])
            go = _nan_fill(rng.standard_normal((N, C, 10, 10, 12)), 11, 2, DTS[dtn])
            g = _nan_fill(rng.uniform(-1.1, 1.1, (N, 10, 10, 12, 3)), 97, 3, DTS[dtn])
            for im in (0, 1):
                for a in _check(x, g, go, im, 0, False, f"{dtn} C{C} N{N} im{im}"):
                    h.update(np.ascontiguousarray(a).tobytes())
print(h.hexdigest())
"""


def test_larger_cases_by_the_rule_every_thread_count_and_level():
    same_bytes_for_threads_and_levels(CODE_BIG, threads=(1, 2, 3))
