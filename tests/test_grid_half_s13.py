"""Session 13, issue 15 (grid sampler 2-D, fp16 / bf16 no slower than fp32): the lane transposes of the planar path
for the 16-bit dtypes changed - at AVX-512 the 8 x 8 blocks are transposed as 16-bit values (vpermt2w) on the narrow
side of the conversion, and the portable fp16 store narrows each point's 8 lanes first and transposes 16-bit values
(SSE2). Speed only: the forward output equals a literal numpy float32 loop in the kernel's operation order, rounded
once (non-NaN elements byte for byte, NaN where it is NaN), and every case gives the same bytes at PYACLNN_SIMD=off /
avx2 / avx512 and OMP_NUM_THREADS=1 / 2 / 7 (NaN payloads included: fp16 signalling / quiet NaNs, +-Inf, -0,
subnormal halves, odd widths and point counts with tails, channel counts with partial 8-lane blocks, strided views,
forward and backward). The one-channel forward (taps computed per chunk where they are used) is covered the same
way, in fp32 too."""
import numpy as np
import pytest

import pyaclnn
from helpers import BF16, run_python


def _half_data(rng, shape, dtype):
    x = rng.standard_normal(shape).astype(np.float32)
    f = x.reshape(-1)
    f[::37] = np.inf
    f[5::41] = -np.inf
    f[11::29] = -0.0
    f[13::31] *= np.float32(1e-6)  # fp16 subnormals (bf16: small normals)
    f[17::43] *= np.float32(3e4)  # near / past the fp16 range after interpolation
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
    if np.dtype(dtype) == np.float16:
        b = x.reshape(-1).view(np.uint16)
        b[19::47] = 0x0003  # subnormal
        b[23::53] = 0x8001  # negative subnormal
    return x


def _grid(rng, shape, dtype, special=True):
    g = rng.uniform(-1.2, 1.2, shape).astype(np.float32)
    f = g.reshape(-1)
    f[4::23] = 1.0
    f[6::29] = -1.0
    if special:
        f[3::97] = np.nan
        f[10::89] = np.inf
        f[12::83] = -np.inf
    return g.astype(dtype)


def _ref_fwd_bilinear_zeros(x, g, align):
    """The planar lane kernel's arithmetic in numpy float32 (gsp_bil1's taps, then top = v00*ex + v01*wx,
    bot = v10*ex + v11*wx, out = top*ey + bot*wy), rounded once to x's dtype."""
    N, C, H, W = x.shape
    f32 = np.float32
    one, half = f32(1), f32(0.5)
    xf, gf = x.astype(np.float32), g.astype(np.float32)
    gx, gy = gf[..., 0], gf[..., 1]
    with np.errstate(all="ignore"):
        if align:
            ix, iy = ((gx + one) * half) * f32(W - 1), ((gy + one) * half) * f32(H - 1)
        else:
            ix, iy = ((gx + one) * f32(W) - one) * half, ((gy + one) * f32(H) - one) * half
        ix = np.where(np.isnan(ix) | (np.abs(ix) > f32(2147483648.0)), f32(-100), ix).astype(np.float32)
        iy = np.where(np.isnan(iy) | (np.abs(iy) > f32(2147483648.0)), f32(-100), iy).astype(np.float32)
        x0, y0 = np.floor(ix), np.floor(iy)
        ex, wx, ey, wy = (x0 + one) - ix, ix - x0, (y0 + one) - iy, iy - y0
        inb = (x0 >= -1) & (x0 <= W - 1) & (y0 >= -1) & (y0 <= H - 1)
        pad = np.zeros((N, C, H + 3, W + 2), np.float32)  # zero border; rows H+1, H+2: the dead taps
        pad[:, :, 1:H + 1, 1:W + 1] = xf
        xi = np.where(inb, x0 + 1, 0).astype(np.int64)
        yi = np.where(inb, y0 + 1, H + 1).astype(np.int64)
        n = np.arange(N)[:, None, None]
        p = pad.transpose(0, 2, 3, 1)  # [N][H+3][W+2][C]
        v00, v01, v10, v11 = p[n, yi, xi], p[n, yi, xi + 1], p[n, yi + 1, xi], p[n, yi + 1, xi + 1]
        e, w, f, v = (a[..., None] for a in (ex, wx, ey, wy))
        top = v00 * e + v01 * w
        bot = v10 * e + v11 * w
        out = top * f + bot * v
        return out.transpose(0, 3, 1, 2).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("C", [2, 3, 8, 13, 19])
@pytest.mark.parametrize("align", [False, True])
def test_grid2d_half_forward_bytes_vs_float32_loop(dtype, C, align):
    rng = np.random.default_rng(1300 + C + 50 * align)
    N, H, W, Ho, Wo = 2, 9, 21, 5, 7  # W = 2*8 + 5 (lane-load tail), P = 35 = 4*8 + 3 (lane-store tail)
    x = _half_data(rng, (N, C, H, W), dtype)
    g = _grid(rng, (N, Ho, Wo, 2), dtype)
    y = pyaclnn.grid_sampler2d(x, g, interpolation_mode="bilinear", padding_mode="zeros", align_corners=align)
    ref = _ref_fwd_bilinear_zeros(x, g, align)
    a, r = np.asarray(y).astype(np.float32), ref.astype(np.float32)
    assert a.shape == r.shape
    assert np.array_equal(np.isnan(a), np.isnan(r))
    keep = ~np.isnan(r)
    assert np.array_equal(np.asarray(y).view(np.uint16)[keep], ref.view(np.uint16)[keep])


CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(1313)
h = hashlib.sha256()
def data(shape, dt):
    x = rng.standard_normal(shape).astype(np.float32)
    f = x.reshape(-1)
    f[::37] = np.inf; f[5::41] = -np.inf; f[7::53] = np.nan; f[11::29] = -0.0; f[13::31] *= 1e-6
    f[17::43] *= 3e4
    x = x.astype(dt)
    if dt == np.float16:
        b = x.reshape(-1).view(np.uint16)
        b[19::47] = 0x0003; b[23::53] = 0x8001; b[29::59] = 0x7c01; b[31::61] = 0xfe00; b[37::67] = 0x7d55
    else:
        b = x.reshape(-1).view(np.uint16)
        b[29::59] = 0x7f81; b[31::61] = 0xffc0; b[37::67] = 0x0001
    return x
def grid(shape, dt):
    g = rng.uniform(-1.2, 1.2, shape).astype(np.float32)
    f = g.reshape(-1)
    f[3::97] = np.nan; f[10::89] = np.inf; f[20::83] = -1.0; f[30::79] = 1.0
    return g.astype(dt)
for dt in (np.float16, pyaclnn.bfloat16, np.float32):
    for (n, c, H, W, Ho, Wo) in ((3, 1, 7, 13, 9, 31), (2, 2, 7, 13, 5, 7), (1, 3, 9, 21, 6, 11), (2, 8, 8, 16, 8, 8),
                                 (1, 13, 5, 19, 7, 9), (2, 19, 6, 11, 3, 13), (1, 64, 16, 16, 16, 16)):
        x = data((n, c, H, W), dt)
        xs = data((n, c, H, 2 * W), dt)[..., ::2]
        g = grid((n, Ho, Wo, 2), dt)
        go = data((n, c, Ho, Wo), dt)
        for mode in ("bilinear", "nearest", "bicubic"):
            for pad in ("zeros", "border"):
                for align in (False, True):
                    for xx in (x, xs):
                        kw = dict(interpolation_mode=mode, padding_mode=pad, align_corners=align)
                        h.update(np.asarray(pyaclnn.grid_sampler2d(xx, g, **kw)).tobytes())
                        for r in pyaclnn.grid_sampler2d_backward(go, xx, g, **kw):
                            h.update(np.asarray(r).tobytes())
print(h.hexdigest())
"""


def test_grid2d_half_same_bytes_every_level_and_thread_count():
    outs = {}
    for lvl in ("off", "avx2", "avx512", ""):
        for t in (1, 2, 7):
            outs[(lvl, t)] = run_python(CODE, {"PYACLNN_SIMD": lvl, "OMP_NUM_THREADS": str(t)})
    first = outs[("off", 1)]
    for k, v in outs.items():
        assert v == first, f"PYACLNN_SIMD={k[0]!r} OMP_NUM_THREADS={k[1]} gives different bytes"
