"""Literal float64 loop reference of grid_sampler_3d forward and backward (aclnnGridSampler3D[Backward]).

Independent of pyaclnn. The coordinate rules (unnormalise, zeros / border / reflection padding, NaN and huge
coordinates dropped as -100) are the 2-D ones of reference/grid_sampler.py, applied to x (W), y (H) and z (D).
Modes: interpolation 0 trilinear (8 corners), 1 nearest (round half to even, zero grid gradient).
"""
import math

import numpy as np

from .grid_sampler import source_index


def _taps(gx, gy, gz, D, H, W, im, pm, ac):
    """[(z, y, x, weight, dweight/dix, dweight/diy, dweight/diz)] of in-range corners, and the multipliers."""
    ix, mx = source_index(gx, W, pm, ac)
    iy, my = source_index(gy, H, pm, ac)
    iz, mz = source_index(gz, D, pm, ac)
    taps = []
    if im == 1:
        xn, yn, zn = round(ix), round(iy), round(iz)  # Python round: half to even
        if 0 <= xn < W and 0 <= yn < H and 0 <= zn < D:
            taps.append((zn, yn, xn, 1.0, 0.0, 0.0, 0.0))
        return taps, (0.0, 0.0, 0.0)
    x0, y0, z0 = math.floor(ix), math.floor(iy), math.floor(iz)
    fx = (x0 + 1 - ix, ix - x0)
    fy = (y0 + 1 - iy, iy - y0)
    fz = (z0 + 1 - iz, iz - z0)
    for c in (0, 1):
        for b in (0, 1):
            for a in (0, 1):
                xx, yy, zz = x0 + a, y0 + b, z0 + c
                if not (0 <= xx < W and 0 <= yy < H and 0 <= zz < D):
                    continue
                sx, sy, sz = (1.0 if a else -1.0), (1.0 if b else -1.0), (1.0 if c else -1.0)
                taps.append((zz, yy, xx, fx[a] * fy[b] * fz[c], sx * fy[b] * fz[c], sy * fx[a] * fz[c],
                             sz * fx[a] * fy[b]))
    return taps, (mx, my, mz)


def grid_sample3d_ref(x, grid, im, pm, ac):
    """x [N, C, D, H, W], grid [N, Do, Ho, Wo, 3] -> [N, C, Do, Ho, Wo] (float64)."""
    x = np.asarray(x, np.float64)
    grid = np.asarray(grid, np.float64)
    N, C, D, H, W = x.shape
    _, Do, Ho, Wo, _ = grid.shape
    out = np.zeros((N, C, Do, Ho, Wo))
    for n in range(N):
        for d in range(Do):
            for h in range(Ho):
                for w in range(Wo):
                    gx, gy, gz = grid[n, d, h, w]
                    taps, _ = _taps(gx, gy, gz, D, H, W, im, pm, ac)
                    for c in range(C):
                        s = 0.0
                        for zz, yy, xx, wt, *_ in taps:
                            s += wt * x[n, c, zz, yy, xx]
                        out[n, c, d, h, w] = s
    return out


def grid_sample3d_backward_ref(go, x, grid, im, pm, ac):
    """(inputGrad [N, C, D, H, W], gridGrad [N, Do, Ho, Wo, 3]) in float64."""
    go = np.asarray(go, np.float64)
    x = np.asarray(x, np.float64)
    grid = np.asarray(grid, np.float64)
    N, C, D, H, W = x.shape
    _, Do, Ho, Wo, _ = grid.shape
    gi = np.zeros(x.shape)
    gg = np.zeros(grid.shape)
    for n in range(N):
        for d in range(Do):
            for h in range(Ho):
                for w in range(Wo):
                    gx, gy, gz = grid[n, d, h, w]
                    taps, (mx, my, mz) = _taps(gx, gy, gz, D, H, W, im, pm, ac)
                    sx = sy = sz = 0.0
                    for c in range(C):
                        g = go[n, c, d, h, w]
                        for zz, yy, xx, wt, dx, dy, dz in taps:
                            gi[n, c, zz, yy, xx] += wt * g
                            v = x[n, c, zz, yy, xx] * g
                            sx += v * dx
                            sy += v * dy
                            sz += v * dz
                    gg[n, d, h, w] = (sx * mx, sy * my, sz * mz)
    return gi, gg
