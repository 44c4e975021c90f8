"""GridSampler2D few-channel paths of session 15: the one-pass bilinear backward (C <= 3, one work item per batch
item: taps per chunk in a thread-local table, grid-gradient terms, the owner's in-order input-gradient scatter and
the chunk's grid gradient in one loop), the one-pass forward (C = 1) and the AVX-512 copies of the bilinear tap
loop, the scatter products and the grid-gradient finish. C = 4 and 5 (the lane path) are the boundary.

Bytes, not tolerances:
- against a literal float32 loop in the kernel's order (bilinear and nearest, all three paddings, both
  alignCorners): forward top = v00*ex + v01*wx, bot = v10*ex + v11*wx, out = top*ey + bot*wy; input gradient
  acc += (g*ey)*ex ... per point in order from +0; grid gradient per channel tx = (v01 - v00)*ey + (v11 - v10)*wy,
  ty = (v10 - v00)*ex + (v11 - v01)*wx, times g, summed as the 8-lane tree ((b0+b1)+(b2+b3))+((b4+b5)+(b6+b7))
  with +0 lanes past C, added to 0, times the multiplier; fp16 / bf16 the same in fp32, rounded once;
- against the 8-channel lane path (the same channels zero-padded to C = 8, which main uses for C >= 3 and
  this session leaves unchanged): bilinear, nearest and bicubic, NaN / Inf / -0 inputs included;
- one digest identical for PYACLNN_SIMD = off / avx2 / avx512 / default and OMP_NUM_THREADS = 1 / 2 / 7 (the larger
  cases fork; N = 3 under 7 threads takes the old planar path, so the digest also ties the two paths)."""
import math
import os

import numpy as np
import pytest

import pyaclnn
from helpers import run_python, same_bytes_for_threads_and_levels, strided

T = pyaclnn.AclTensor.from_array
f32 = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": pyaclnn.bfloat16}


def _clip(c, size):
    hi = f32(size - 1)
    if c <= f32(0):
        return f32(0), f32(0)
    if c >= hi:
        return hi, f32(0)
    return c, f32(1)


def _reflect(c, tlo, thi):
    if tlo == thi or math.isinf(c):
        return f32(0), f32(0)
    if math.isnan(c):
        return c, f32(1)
    lo, span, s = tlo * f32(0.5), (thi - tlo) * f32(0.5), f32(1)
    c = c - lo
    if c < f32(0):
        s, c = f32(-1), -c
    extra = np.fmod(c, span)
    flips = np.floor(c / span)
    if np.fmod(flips, f32(2)) == f32(0):
        return extra + lo, s
    return span - extra + lo, -s


def _source(x, size, padding, align):
    """the padded source coordinate and its gradient multiplier, float32 as the kernel computes them"""
    if align:
        m = f32(size - 1) * f32(0.5)
        c = ((x + f32(1)) * f32(0.5)) * f32(size - 1)
    else:
        m = f32(size) * f32(0.5)
        c = ((x + f32(1)) * f32(size) - f32(1)) * f32(0.5)
    g = f32(1)
    if padding == 1:
        c, g = _clip(c, size)
    elif padding == 2:
        if align:
            c, g1 = _reflect(c, f32(0), f32(2 * (size - 1)))
        else:
            c, g1 = _reflect(c, f32(-1), f32(2 * size - 1))
        if g1 == f32(0) and c == f32(0):
            c, g = f32(0), f32(0)
        else:
            c, g2 = _clip(c, size)
            g = g1 * g2
    m = m * g
    if math.isnan(c) or abs(c) > f32(2147483648.0):
        c = f32(-100)
    return c, m


def _bil(pt, H, W, padding, align):
    ix, mx = _source(pt[0], W, padding, align)
    iy, my = _source(pt[1], H, padding, align)
    x0, y0 = np.floor(ix), np.floor(iy)
    ex, wx, ey, wy = x0 + f32(1) - ix, ix - x0, y0 + f32(1) - iy, iy - y0
    xi, yi = int(x0), int(y0)
    offs = []
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yy, xx = yi + dy, xi + dx
        offs.append(yy * W + xx if 0 <= yy < H and 0 <= xx < W else -1)
    return offs, (ex, wx, ey, wy), (mx, my)


def _nearest_off(pt, H, W, padding, align):
    ix, _ = _source(pt[0], W, padding, align)
    iy, _ = _source(pt[1], H, padding, align)
    xn, yn = np.rint(ix), np.rint(iy)
    return int(yn) * W + int(xn) if 0 <= xn < W and 0 <= yn < H else -1


def ref(x, g, go, interp, padding, align):
    """(out, gradInput, gridGrad) in float32, the kernel's order (see the module docstring)"""
    N, C, H, W = x.shape
    pts = g.reshape(N, -1, 2)
    P = pts.shape[1]
    xf, gof = x.reshape(N, C, H * W), go.reshape(N, C, P)
    out = np.zeros((N, C, P), f32)
    gi = np.zeros((N, C, H * W), f32)
    gg = np.zeros((N, P, 2), f32)
    z = f32(0)
    for n in range(N):
        for r in range(P):
            if interp == 1:
                o = _nearest_off(pts[n, r], H, W, padding, align)
                for c in range(C):
                    out[n, c, r] = xf[n, c, o] if o >= 0 else z
                    if o >= 0:
                        gi[n, c, o] = gi[n, c, o] + gof[n, c, r]
                continue
            offs, (ex, wx, ey, wy), (mx, my) = _bil(pts[n, r], H, W, padding, align)
            bx, by = [z] * 8, [z] * 8
            for c in range(C):
                v00, v01, v10, v11 = (xf[n, c, o] if o >= 0 else z for o in offs)
                out[n, c, r] = (v00 * ex + v01 * wx) * ey + (v10 * ex + v11 * wx) * wy
                gv = gof[n, c, r]
                bx[c] = gv * ((v01 - v00) * ey + (v11 - v10) * wy)
                by[c] = gv * ((v10 - v00) * ex + (v11 - v01) * wx)
                gt, gb = gv * ey, gv * wy
                for o, q in zip(offs, (gt * ex, gt * wx, gb * ex, gb * wx)):
                    if o >= 0:
                        gi[n, c, o] = gi[n, c, o] + q
            tree = lambda b: z + (((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7])))  # noqa: E731
            gg[n, r] = (mx * tree(bx), my * tree(by))
    return out.reshape(go.shape), gi.reshape(x.shape), gg.reshape(g.shape)


def _case(seed, C, N=2, H=5, W=6, Ho=4, Wo=7):
    """finite inputs (-0 and subnormals included); grid points out of range, on the edges, NaN and +-Inf"""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, C, H, W)).astype(f32)
    x.flat[::13] = f32(-0.0)
    x.flat[::17] = f32(1e-41)
    g = rng.uniform(-1.4, 1.4, (N, Ho, Wo, 2)).astype(f32)
    pts = g.reshape(-1, 2)
    pts[::7] = (1.0, -1.0)
    pts[3] = (np.nan, 0.25)
    pts[5] = (0.5, np.inf)
    pts[9] = (-np.inf, -0.3)
    pts[11] = (1e30, -1e30)
    pts[12] = (-0.0, 0.0)
    go = rng.standard_normal((N, C, Ho, Wo)).astype(f32)
    go.flat[::11] = f32(-0.0)
    return x, g, go


def _run(x, g, go, interp, padding, align, gview=lambda a: a, ggview=lambda a: a):
    N, C = x.shape[:2]
    y = T(np.full((N, C) + g.shape[1:3], 7, x.dtype))
    pyaclnn.launch("GridSampler2D", T(x), T(gview(g)), interp, padding, align, y)
    gi, gg = T(np.full(x.shape, 7, x.dtype)), T(ggview(np.full(g.shape, 7, x.dtype)))
    pyaclnn.launch("GridSampler2DBackward", T(go), T(x), T(gview(g)), interp, padding, align,
                   pyaclnn.bool_array([True, True]), gi, gg)
    return y.numpy(), gi.numpy(), np.ascontiguousarray(gg.numpy())


@pytest.mark.parametrize("interp", [0, 1])
@pytest.mark.parametrize("C", [1, 2, 3, 4, 5])
def test_fp32_bytes_literal_loop(C, interp):
    x, g, go = _case(C + 10 * interp, C)
    for padding in (0, 1, 2):
        for align in (False, True):
            want = ref(x, g, go, interp, padding, align)
            got = _run(x, g, go, interp, padding, align)
            for a, b, what in zip(got, want, ("out", "gradInput", "gridGrad")):
                assert a.tobytes() == b.tobytes(), (what, C, padding, align)


@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("C", [1, 3, 4])
def test_half_bytes_literal_loop(C, dt):
    """fp16 / bf16: the widened values through the fp32 loop, each result rounded once"""
    dtype = DTYPES[dt]
    x, g, go = _case(40 + C, C)
    with np.errstate(over="ignore"):  # the 1e30 grid point becomes an infinity in fp16
        x, g, go = x.astype(dtype), g.astype(dtype), go.astype(dtype)
    for padding in (0, 1, 2):
        align = padding == 1
        want = ref(x.astype(f32), g.astype(f32), go.astype(f32), 0, padding, align)
        got = _run(x, g, go, 0, padding, align)
        for a, b, what in zip(got, want, ("out", "gradInput", "gridGrad")):
            assert a.tobytes() == b.astype(dtype).tobytes(), (what, C, padding)


@pytest.mark.parametrize("C", [1, 2, 4])
def test_strided_grid_and_grid_grad_views(C):
    """a strided grid and a strided gridGrad output (a strided input or gradOutput leaves the planar paths for the
    channel-last one, which this session does not touch)"""
    x, g, go = _case(60 + C, C, N=3)
    for padding in (0, 2):
        want = ref(x, g, go, 0, padding, False)
        got = _run(x, g, go, 0, padding, False, gview=strided, ggview=strided)
        for a, b in zip(got, want):
            assert a.tobytes() == b.tobytes()


def test_output_mask_single_outputs():
    """only gradInput / only gridGrad: the same bytes as the pair"""
    x, g, go = _case(70, 3)
    _, gi_ref, gg_ref = ref(x, g, go, 0, 0, True)
    gi = T(np.full(x.shape, 7, f32))
    pyaclnn.launch("GridSampler2DBackward", T(go), T(x), T(g), 0, 0, True, pyaclnn.bool_array([True, False]),
                   gi, T(np.zeros(g.shape, f32)))
    assert gi.numpy().tobytes() == gi_ref.tobytes()
    gg = T(np.full(g.shape, 7, f32))
    pyaclnn.launch("GridSampler2DBackward", T(go), T(x), T(g), 0, 0, True, pyaclnn.bool_array([False, True]),
                   T(np.zeros(x.shape, f32)), gg)
    assert gg.numpy().tobytes() == gg_ref.tobytes()


_LANE_CODE = r"""
import hashlib, numpy as np, pyaclnn
T = pyaclnn.AclTensor.from_array
rng = np.random.default_rng(21)
h = hashlib.sha256()
bad = []
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for C in (1, 2, 3, 4):
        for (N, H, W, Ho, Wo) in ((2, 9, 10, 7, 6), (3, 16, 16, 17, 19), (2, 3, 2, 1, 37), (1, 1, 1, 3, 3)):
            x = rng.standard_normal((N, C, H, W)).astype(np.float32)
            u = x.reshape(-1).view(np.uint32)
            u[::7] = 0x7FC00000 | ((np.arange(u[::7].size, dtype=np.uint32) * 977) & 0x3FFFFF)
            x.flat[::11] = np.inf
            x.flat[::13] = -0.0
            g = rng.uniform(-1.2, 1.2, (N, Ho, Wo, 2)).astype(np.float32)
            g.flat[::9] = np.nan
            go = rng.standard_normal((N, C, Ho, Wo)).astype(np.float32)
            go.flat[::17] = -np.inf
            xw = np.zeros((N, 8, H, W), np.float32)
            gow = np.zeros((N, 8, Ho, Wo), np.float32)
            xw[:, :C], gow[:, :C] = x, go
            for im in (0, 1, 2):
                for pm in (0, 1, 2):
                    for ac in (False, True):
                        outs = []
                        for xx, gg_ in ((x, go), (xw, gow)):  # the few-channel path, then one full lane block
                            y = T(np.zeros((N, xx.shape[1], Ho, Wo), dt))
                            pyaclnn.launch("GridSampler2D", T(xx.astype(dt)), T(g.astype(dt)), im, pm, ac, y)
                            gi, gr = T(np.zeros(xx.shape, dt)), T(np.zeros(g.shape, dt))
                            pyaclnn.launch("GridSampler2DBackward", T(gg_.astype(dt)), T(xx.astype(dt)),
                                           T(g.astype(dt)), im, pm, ac, pyaclnn.bool_array([True, True]), gi, gr)
                            outs.append((y.numpy()[:, :C], gi.numpy()[:, :C], gr.numpy()))
                        for a, b in zip(*outs):
                            if a.tobytes() != b.tobytes():
                                bad.append((np.dtype(dt).name, C, H, im, pm, ac))
                            h.update(a.tobytes())
print(bad, h.hexdigest())
"""


def test_few_channels_equal_lane_path():
    """C = 1..4 (few-channel paths) against the same channels in one 8-channel lane block: the same bytes for
    bilinear, nearest and bicubic, fp32 / fp16 / bf16, NaN payloads, infinities and -0 included"""
    out = run_python(f"import sys; sys.path.insert(0, {HERE!r})\n" + _LANE_CODE)
    assert out.startswith(b"[] "), out


_LEVELS_CODE = r"""
import hashlib, numpy as np, pyaclnn
from helpers import strided
T = pyaclnn.AclTensor.from_array
rng = np.random.default_rng(33)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for C in (1, 2, 3, 4, 5):
        # small (serial); N = 8 above both fork grains (the forked one-pass paths); N = 3 (7 threads: old path)
        for (N, H, W, Ho, Wo) in ((2, 5, 6, 4, 7), (8, 20, 21, 50, 50), (3, 20, 21, 50, 50)):
            if dt is not np.float32 and N == 3:
                continue
            x = rng.standard_normal((N, C, H, W)).astype(np.float32)
            u = x.reshape(-1).view(np.uint32)
            u[::97] = 0x7FC00000 | (np.arange(u[::97].size, dtype=np.uint32) * 131 & 0x3FFFFF)
            x.flat[::89] = np.inf
            x.flat[::29] = -0.0
            g = rng.uniform(-1.3, 1.3, (N, Ho, Wo, 2)).astype(np.float32)
            g.flat[::53] = np.nan
            g.flat[::59] = -np.inf
            go = rng.standard_normal((N, C, Ho, Wo)).astype(np.float32)
            go.flat[::101] = np.nan
            for im in ((0, 1, 2) if H < 10 else (0,)):
                for pm in (0, 1, 2):
                    v = strided if pm == 1 else (lambda a: a)
                    y = T(np.zeros((N, C, Ho, Wo), dt))
                    pyaclnn.launch("GridSampler2D", T(x.astype(dt)), T(v(g.astype(dt))), im, pm, pm == 2, y)
                    gi, gg = T(np.zeros(x.shape, dt)), T(v(np.zeros(g.shape, dt)))
                    pyaclnn.launch("GridSampler2DBackward", T(go.astype(dt)), T(x.astype(dt)), T(v(g.astype(dt))),
                                   im, pm, pm == 1, pyaclnn.bool_array([True, True]), gi, gg)
                    for t in (y, gi, gg):
                        h.update(np.ascontiguousarray(t.numpy()).tobytes())
print(h.hexdigest())
"""


def test_same_bytes_for_threads_and_simd_levels():
    code = f"import sys; sys.path.insert(0, {HERE!r})\n" + _LEVELS_CODE
    same_bytes_for_threads_and_levels(code)
