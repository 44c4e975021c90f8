"""Literal float64 loop reference of grid_sampler_2d forward and backward (SPEC section 2.3/2.4).

Independent of pyaclnn. Modes: interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border,
2 reflection. Rules beyond PyTorch (SPEC [HW]/[EMU]):
  * bilinear/nearest: after the padding step a coordinate that is NaN or beyond +-2^31 becomes -100 (dropped);
    reflection of +-inf gives coordinate 0 with a zero gradient multiplier.
  * nearest rounds half to even, and its grid gradient is zero.
  * bicubic: a NaN coordinate drops the point; +-inf drops it (zeros), sits on the matching edge (border) or at
    coordinate 0 (reflection), with a zero gradient multiplier; taps are padded one by one like PyTorch.
"""
import math

import numpy as np

A = -0.75
BIG = 2.0 ** 31


def unnormalize(x, size, align):
    if align:
        return (x + 1) / 2 * (size - 1), (size - 1) / 2
    return ((x + 1) * size - 1) / 2, size / 2


def clip(c, size):
    """(coordinate, gradient factor) of the border clip; NaN passes through unchanged."""
    if c <= 0:
        return 0.0, 0.0
    if c >= size - 1:
        return float(size - 1), 0.0
    return c, 1.0


def reflect(c, twice_lo, twice_hi):
    if twice_lo == twice_hi:
        return 0.0, 0.0
    if math.isinf(c):
        return 0.0, 0.0
    if math.isnan(c):
        return c, 1.0
    lo = twice_lo / 2
    span = (twice_hi - twice_lo) / 2
    c = c - lo
    sign = 1.0
    if c < 0:
        sign, c = -1.0, -c
    extra = math.fmod(c, span)
    flips = math.floor(c / span)
    if flips % 2 == 0:
        return extra + lo, sign
    return span - extra + lo, -sign


def pad(c, size, padding, align):
    """Padding of an unnormalised coordinate: (coordinate, gradient factor)."""
    if padding == 1:
        return clip(c, size)
    if padding == 2:
        if align:
            c, g1 = reflect(c, 0, 2 * (size - 1))
        else:
            c, g1 = reflect(c, -1, 2 * size - 1)
        if g1 == 0.0 and c == 0.0:
            return 0.0, 0.0
        c, g2 = clip(c, size)
        return c, g1 * g2
    return c, 1.0


def source_index(x, size, padding, align):
    c, m = unnormalize(x, size, align)
    c, g = pad(c, size, padding, align)
    if math.isnan(c) or abs(c) > BIG:
        c = -100.0
    return c, m * g


def cc1(x):
    return ((A + 2) * x - (A + 3)) * x * x + 1


def cc2(x):
    return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A


def dcc1(x):
    return 3 * (A + 2) * x * x - 2 * (A + 3) * x


def dcc2(x):
    return 3 * A * x * x - 10 * A * x + 8 * A


def cubic_coeffs(t):
    return [cc2(t + 1), cc1(t), cc1(1 - t), cc2(2 - t)]


def cubic_dcoeffs(t):
    return [dcc2(t + 1), dcc1(t), -dcc1(1 - t), -dcc2(2 - t)]


def _taps(x, y, H, W, interp, padding, align):
    """[(yy, xx, weight, dweight/dix, dweight/diy)] for the in-range taps of one grid point, and (mx, my)."""
    taps = []
    if interp in (0, 1):
        ix, mx = source_index(x, W, padding, align)
        iy, my = source_index(y, H, padding, align)
        if interp == 1:
            xn, yn = int(np.rint(ix)), int(np.rint(iy))
            if 0 <= xn < W and 0 <= yn < H:
                taps.append((yn, xn, 1.0, 0.0, 0.0))
            return taps, 0.0, 0.0
        x0, y0 = math.floor(ix), math.floor(iy)
        ex, wx = x0 + 1 - ix, ix - x0
        ey, wy = y0 + 1 - iy, iy - y0
        for dy, dx, w, gx, gy in ((0, 0, ex * ey, -ey, -ex), (0, 1, wx * ey, ey, -wx),
                                  (1, 0, ex * wy, -wy, ex), (1, 1, wx * wy, wy, wx)):
            xx, yy = int(x0) + dx, int(y0) + dy
            if 0 <= xx < W and 0 <= yy < H:
                taps.append((yy, xx, w, gx, gy))
        return taps, mx, my
    ix, mx = unnormalize(x, W, align)
    iy, my = unnormalize(y, H, align)
    if math.isnan(ix) or math.isnan(iy):
        return [], 0.0, 0.0
    for c, size, is_x in ((ix, W, True), (iy, H, False)):
        if math.isinf(c):
            if padding == 0:
                return [], 0.0, 0.0
            v = (0.0 if c < 0 else float(size - 1)) if padding == 1 else 0.0
            if is_x:
                ix, mx = v, 0.0
            else:
                iy, my = v, 0.0
    x0, y0 = math.floor(ix), math.floor(iy)
    tx, ty = ix - x0, iy - y0
    cx, cy = cubic_coeffs(tx), cubic_coeffs(ty)
    dx, dy = cubic_dcoeffs(tx), cubic_dcoeffs(ty)
    for j in range(4):
        for i in range(4):
            px, _ = pad(float(x0 - 1 + i), W, padding, align)
            py, _ = pad(float(y0 - 1 + j), H, padding, align)
            if math.isnan(px) or math.isnan(py) or abs(px) > BIG or abs(py) > BIG:
                continue
            xx, yy = int(px), int(py)
            if 0 <= xx < W and 0 <= yy < H:
                taps.append((yy, xx, cx[i] * cy[j], dx[i] * cy[j], cx[i] * dy[j]))
    return taps, mx, my


def grid_sample_ref(inp, grid, interp=0, padding=0, align=False):
    """out[n, c, h, w] (float64)."""
    inp = np.asarray(inp, np.float64)
    grid = np.asarray(grid, np.float64)
    N, C, H, W = inp.shape
    _, Ho, Wo, _ = grid.shape
    out = np.zeros((N, C, Ho, Wo))
    for n in range(N):
        for h in range(Ho):
            for w in range(Wo):
                taps, _, _ = _taps(grid[n, h, w, 0], grid[n, h, w, 1], H, W, interp, padding, align)
                for c in range(C):
                    s = 0.0
                    for yy, xx, wt, _, _ in taps:
                        s += wt * inp[n, c, yy, xx]
                    out[n, c, h, w] = s
    return out


def grid_sample_backward_ref(grad_out, inp, grid, interp=0, padding=0, align=False):
    """(input_grad, grid_grad) in float64."""
    go = np.asarray(grad_out, np.float64)
    inp = np.asarray(inp, np.float64)
    grid = np.asarray(grid, np.float64)
    N, C, H, W = inp.shape
    _, Ho, Wo, _ = grid.shape
    gin = np.zeros(inp.shape)
    ggrid = np.zeros(grid.shape)
    for n in range(N):
        for h in range(Ho):
            for w in range(Wo):
                taps, mx, my = _taps(grid[n, h, w, 0], grid[n, h, w, 1], H, W, interp, padding, align)
                gx = gy = 0.0
                for c in range(C):
                    g = go[n, c, h, w]
                    for yy, xx, wt, dwx, dwy in taps:
                        gin[n, c, yy, xx] += wt * g
                        v = inp[n, c, yy, xx]
                        gx += v * dwx * g
                        gy += v * dwy * g
                if interp != 1:
                    ggrid[n, h, w, 0] = mx * gx
                    ggrid[n, h, w, 1] = my * gy
    return gin, ggrid
