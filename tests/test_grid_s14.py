"""Grid sampler paths of session 14: GridSampler3D's fp32 trilinear forward through the channels-last copy (C >= 4)
and its backward's grid gradient for C <= 4 channels (its own lane tree); GridSampler2D's narrow fp32 bilinear
gathers (C <= 2: the two horizontal neighbours of a tap gathered as one 8-byte pair, 8 points at AVX2, 16 at
AVX-512).

Bytes, not tolerances: a literal float32 loop in the kernel's documented order (taps tnw..bse, the point's weight
products left to right, channel lanes then the fixed tree), the same bytes for OMP_NUM_THREADS 1/2/7 and every
PYACLNN_SIMD level, and the forward of C channels equal to C one-channel calls (which read the input in place)."""
import os

import numpy as np
import pytest

import pyaclnn
from helpers import same_bytes_for_threads_and_levels, strided
from test_grid3d_nan_s16 import _source, _taps as _taps_any

T = pyaclnn.AclTensor.from_array
f32 = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))


def _unnorm(x, size, align):
    """zeros padding: the source coordinate and its multiplier in x's precision, as the kernel computes them"""
    return _source(type(x), x, size, 0, align)


def _taps(g, D, H, W, align):
    """(offset or -1, weight, d/dx, d/dy, d/dz) per tap in the order tnw tne tsw tse bnw bne bsw bse, and the
    multipliers (zeros padding, trilinear, float32)"""
    return _taps_any(f32, g, D, H, W, 0, 0, align)


def nearest_ref(x, g, align):
    """nearest: 0 + 1 * x at the rounded (half to even) source point, 0 outside"""
    N, C, D, H, W = x.shape
    F = x.dtype.type
    pts = g.reshape(N, -1, 3)
    out = np.zeros((N, C, pts.shape[1]), x.dtype)
    for n in range(N):
        for r in range(pts.shape[1]):
            (ix, _), (iy, _), (iz, _) = (_unnorm(pts[n, r, 0], W, align), _unnorm(pts[n, r, 1], H, align),
                                         _unnorm(pts[n, r, 2], D, align))
            xn, yn, zn = int(np.rint(ix)), int(np.rint(iy)), int(np.rint(iz))
            if 0 <= xn < W and 0 <= yn < H and 0 <= zn < D:
                out[n, :, r] = F(0) + F(1) * x[n, :, zn, yn, xn]
    return out.reshape((N, C) + g.shape[1:4])


def forward_ref(x, g, align):
    N, C, D, H, W = x.shape
    pts = g.reshape(N, -1, 3)
    F = x.dtype.type
    out = np.zeros((N, C, pts.shape[1]), x.dtype)
    xf = x.reshape(N, C, -1)
    for n in range(N):
        for r in range(pts.shape[1]):
            taps, _ = _taps(pts[n, r], D, H, W, align)
            for c in range(C):
                s = F(0)
                for o, w, *_ in taps:
                    if o >= 0:
                        s = s + w * xf[n, c, o]
                out[n, c, r] = s
    return out.reshape((N, C) + g.shape[1:4])


def backward_ref(go, x, g, align):
    """input gradient (points in order, taps in order) and grid gradient (the C <= 4 lane tree)"""
    N, C, D, H, W = x.shape
    pts = g.reshape(N, -1, 3)
    P = pts.shape[1]
    xf, gof = x.reshape(N, C, -1), go.reshape(N, C, P)
    gi = np.zeros((N, C, D * H * W), f32)
    gg = np.zeros((N, P, 3), f32)
    for n in range(N):
        for r in range(P):
            taps, (mx, my, mz) = _taps(pts[n, r], D, H, W, align)
            sx = sy = sz = f32(0)
            for o, w, kx, ky, kz in taps:
                if o < 0:
                    continue
                a = [f32(0)] * 4
                for ch in range(C):
                    a[ch] = a[ch] + xf[n, ch, o] * gof[n, ch, r]
                t = ((a[0] + a[1]) + (a[2] + a[3])) + f32(0)
                sx, sy, sz = sx + t * kx, sy + t * ky, sz + t * kz
                for ch in range(C):
                    gi[n, ch, o] = gi[n, ch, o] + w * gof[n, ch, r]
            gg[n, r] = (sx * mx, sy * my, sz * mz)
    return gi.reshape(x.shape), gg.reshape(g.shape)


def _case(seed, C, N=2, D=4, H=5, W=6, Do=3, Ho=4, Wo=5):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, C, D, H, W)).astype(f32)
    x.flat[::13] = f32(-0.0)
    x.flat[::17] = f32(1e-41)  # subnormal
    g = rng.uniform(-1.3, 1.3, (N, Do, Ho, Wo, 3)).astype(f32)
    g.reshape(-1, 3)[::7] = (1.0, -1.0, 0.0)
    go = rng.standard_normal((N, C, Do, Ho, Wo)).astype(f32)
    return go, x, g


def _fwd(x, g, align, view=lambda a: a):
    y = T(view(np.full((x.shape[0], x.shape[1]) + g.shape[1:4], 7, f32)))
    pyaclnn.launch("GridSampler3D", T(view(x)), T(view(g)), 0, 0, align, y)
    return y.numpy()


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("C", [4, 5, 8, 9, 19])
def test_fp32_trilinear_forward_bytes(C, align):
    _, x, g = _case(C, C)
    ref = forward_ref(x, g, align)
    got = _fwd(x, g, align)
    assert got.tobytes() == ref.tobytes()
    assert _fwd(x, g, align, strided).tobytes() == ref.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("C", [1, 3, 16])
def test_nearest_forward_bytes(C, dtype):
    """the in-place (planar) forward walks a tile's points channel by channel: nearest, fp32 and fp64"""
    _, x, g = _case(20 + C, C)
    x, g = x.astype(dtype), g.astype(dtype)
    for align in (False, True):
        ref = nearest_ref(x, g, align)
        for view in (lambda a: a, strided):
            y = T(view(np.full((x.shape[0], C) + g.shape[1:4], 7, dtype)))
            pyaclnn.launch("GridSampler3D", T(view(x)), T(view(g)), 1, 0, align, y)
            assert y.numpy().tobytes() == ref.tobytes()


def test_float64_trilinear_forward_bytes():
    _, x, g = _case(30, 5)
    x, g = x.astype(np.float64), g.astype(np.float64)
    y = T(np.zeros((2, 5) + g.shape[1:4]))
    pyaclnn.launch("GridSampler3D", T(x), T(g), 0, 0, False, y)
    assert y.numpy().tobytes() == forward_ref(x, g, False).tobytes()


def test_fp32_trilinear_forward_equals_one_channel_calls():
    """C channels at once (channels-last copy) and C calls of one channel (the input read in place): the same
    bytes, infinities, -0 and NaN grid points included. (Not NaN inputs: which payload survives a NaN + NaN is the
    compiler's operand order in each path - equal in the -O3 build, not in the sanitizer build's -O1; the NaN bytes
    are checked per build across levels and thread counts below.)"""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 9, 4, 5, 6)).astype(f32)
    x.flat[::11] = -0.0
    x.flat[::23] = np.inf
    x.flat[::29] = -np.inf
    g = rng.uniform(-1.2, 1.2, (2, 3, 4, 5, 3)).astype(f32)
    g.flat[::31] = np.nan
    for pm in (0, 1, 2):
        for align in (False, True):
            y = T(np.zeros((2, 9, 3, 4, 5), f32))
            pyaclnn.launch("GridSampler3D", T(x), T(g), 0, pm, align, y)
            for c in range(9):
                y1 = T(np.zeros((2, 1, 3, 4, 5), f32))
                pyaclnn.launch("GridSampler3D", T(np.ascontiguousarray(x[:, c:c + 1])), T(g), 0, pm, align, y1)
                assert y.numpy()[:, c:c + 1].tobytes() == y1.numpy().tobytes(), (pm, align, c)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("C", [2, 3, 4])
def test_fp32_backward_few_channels_bytes(C, align):
    go, x, g = _case(10 + C, C)
    gi_ref, gg_ref = backward_ref(go, x, g, align)
    for view in (lambda a: a, strided):
        gi, gg = T(view(np.full(x.shape, 7, f32))), T(view(np.full(g.shape, 7, f32)))
        pyaclnn.launch("GridSampler3DBackward", T(view(go)), T(view(x)), T(view(g)), 0, 0, align,
                       pyaclnn.bool_array([True, True]), gi, gg)
        assert gi.numpy().tobytes() == gi_ref.tobytes()
        assert gg.numpy().tobytes() == gg_ref.tobytes()


_LEVELS_CODE = r"""
import hashlib, numpy as np, pyaclnn
from helpers import strided
T = pyaclnn.AclTensor.from_array
rng = np.random.default_rng(8)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for C in (1, 2, 3, 4, 5, 8, 17):
        x = rng.standard_normal((2, C, 4, 5, 6)).astype(np.float32)
        u = x.reshape(-1).view(np.uint32)
        u[::19] = 0x7FC00000 | (np.arange(u[::19].size, dtype=np.uint32) * 131 & 0x3FFFFF)
        x.flat[::23] = np.inf
        x.flat[::29] = -0.0
        g = rng.uniform(-1.3, 1.3, (2, 3, 4, 5, 3)).astype(np.float32)
        go = rng.standard_normal((2, C, 3, 4, 5)).astype(np.float32)
        go.flat[::37] = np.nan
        for pm in (0, 1, 2):
            for v in (lambda a: a, strided):
                y = T(v(np.zeros((2, C, 3, 4, 5), dt)))
                pyaclnn.launch("GridSampler3D", T(v(x.astype(dt))), T(v(g.astype(dt))), 0, pm, pm == 1, y)
                gi, gg = T(v(np.zeros(x.shape, dt))), T(v(np.zeros(g.shape, dt)))
                pyaclnn.launch("GridSampler3DBackward", T(v(go.astype(dt))), T(v(x.astype(dt))),
                               T(v(g.astype(dt))), 0, pm, pm == 2, pyaclnn.bool_array([True, True]), gi, gg)
                for t in (y, gi, gg):
                    h.update(t.numpy().tobytes())
print(h.hexdigest())
"""


def test_same_bytes_for_threads_and_simd_levels():
    code = f"import sys; sys.path.insert(0, {HERE!r})\n" + _LEVELS_CODE
    same_bytes_for_threads_and_levels(code)


_NARROW_CODE = r"""
import hashlib, numpy as np, pyaclnn
T = pyaclnn.AclTensor.from_array
rng = np.random.default_rng(12)
h = hashlib.sha256()
bad = []
for C in (1, 2):
    for (H, W, Ho, Wo) in ((9, 10, 7, 6), (16, 16, 17, 19), (3, 2, 1, 37)):
        x = rng.standard_normal((2, C, H, W)).astype(np.float32)
        u = x.reshape(-1).view(np.uint32)
        u[::7] = 0x7FC00000 | ((np.arange(u[::7].size, dtype=np.uint32) * 977) & 0x3FFFFF)
        x.flat[::11] = np.inf
        x.flat[::13] = -0.0
        g = rng.uniform(-1.2, 1.2, (2, Ho, Wo, 2)).astype(np.float32)
        go = rng.standard_normal((2, C, Ho, Wo)).astype(np.float32)
        xw = np.zeros((2, 8, H, W), np.float32)
        gow = np.zeros((2, 8, Ho, Wo), np.float32)
        xw[:, :C], gow[:, :C] = x, go
        for pm in (0, 1, 2):
            for ac in (False, True):
                outs = []
                for xx, gg_ in ((x, go), (xw, gow)):  # narrow path, then one full lane block
                    y = T(np.zeros((2, xx.shape[1], Ho, Wo), np.float32))
                    pyaclnn.launch("GridSampler2D", T(xx), T(g), 0, pm, ac, y)
                    gi, gr = T(np.zeros(xx.shape, np.float32)), T(np.zeros(g.shape, np.float32))
                    pyaclnn.launch("GridSampler2DBackward", T(gg_), T(xx), T(g), 0, pm, ac,
                                   pyaclnn.bool_array([True, True]), gi, gr)
                    outs.append((y.numpy()[:, :C], gi.numpy()[:, :C], gr.numpy()))
                for a, b in zip(*outs):
                    if a.tobytes() != b.tobytes():
                        bad.append((C, H, pm, ac))
                    h.update(a.tobytes())
print(bad, h.hexdigest())
"""


def test_narrow_gathers_equal_lane_path_and_same_bytes_for_levels():
    """fp32 bilinear, C = 1 and 2 (narrow gathers) against the same channels in one 8-channel lane block: the same
    bytes (NaN payloads, infinities, -0 included) at every level and thread count"""
    code = f"import sys; sys.path.insert(0, {HERE!r})\n" + _NARROW_CODE
    ref = same_bytes_for_threads_and_levels(code, threads=(1, 2))
    assert ref.startswith(b"[] "), ref
