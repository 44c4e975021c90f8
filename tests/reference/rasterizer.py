"""Literal float64 loop reference of aclnnRasterizer as its docs define it. Never imports pyaclnn.

Vertices (x, y, z, w) go to screen coordinates xs = (x/w*0.5+0.5)*(W-1)+0.5, ys = (0.5+0.5*y/w)*(H-1)+0.5,
zs = z/w*0.49999+0.5. Every face with non-zero signed area covers the pixels (x, y) of its clipped bounding box
whose centre (x+0.5, y+0.5) has barycentric coordinates in [0, 1]; the pixel keeps the face of least depth
alpha*z0+beta*z1+gamma*z2 (ties: the smaller face index; the device compares depths quantised to 2^-18, `quant`).
Outputs: findices = face + 1 (0 where no face), barycentric = the perspective-corrected (l_i/w_i)/sum(l_j/w_j) of
the kept face at the pixel centre (0 where no face).
"""
import math

import numpy as np


def _screen(v, W, H):
    x, y, z, w = (float(t) for t in v)
    return (x / w * 0.5 + 0.5) * (W - 1) + 0.5, (0.5 + 0.5 * y / w) * (H - 1) + 0.5, z / w * 0.49999 + 0.5


def _bary(px, py, s):
    (x0, y0), (x1, y1), (x2, y2) = [(t[0], t[1]) for t in s]
    area = (x2 - x0) * (y1 - y0) - (x1 - x0) * (y2 - y0)
    if area == 0:
        return -1.0, -1.0, -1.0, area
    beta = ((py - y0) * (x2 - x0) - (px - x0) * (y2 - y0)) / area
    gamma = ((px - x0) * (y1 - y0) - (py - y0) * (x1 - x0)) / area
    return 1 - beta - gamma, beta, gamma, area


def rasterize_ref(v, f, W, H, quant=True):
    v = np.asarray(v, np.float64)
    f = np.asarray(f)
    zbuf = np.full((H, W), np.inf)
    fid = np.zeros((H, W), np.int64)
    for j, face in enumerate(f):
        s = [_screen(v[i], W, H) for i in face]
        xs = [t[0] for t in s]
        ys = [t[1] for t in s]
        if (xs[2] - xs[0]) * (ys[1] - ys[0]) - (xs[1] - xs[0]) * (ys[2] - ys[0]) == 0:
            continue
        x0, x1 = max(min(xs), 0.0), min(max(xs), W - 1.0)
        y0, y1 = max(min(ys), 0.0), min(max(ys), H - 1.0)
        if x0 > x1 or y0 > y1:
            continue
        for py in range(int(y0), int(y1) + 1):
            for px in range(int(x0), int(x1) + 1):
                a, b, g, _ = _bary(px + 0.5, py + 0.5, s)
                if not (0 <= a <= 1 and 0 <= b <= 1 and 0 <= g <= 1):
                    continue
                d = a * s[0][2] + b * s[1][2] + g * s[2][2]
                if quant:
                    d = math.trunc(d * 262144.0)
                if d < zbuf[py, px]:
                    zbuf[py, px] = d
                    fid[py, px] = j + 1
    bary = np.zeros((H, W, 3))
    for py in range(H):
        for px in range(W):
            if fid[py, px] == 0:
                continue
            face = f[fid[py, px] - 1]
            s = [_screen(v[i], W, H) for i in face]
            lam = _bary(px + 0.5, py + 0.5, s)[:3]
            q = [lam[k] / v[face[k], 3] for k in range(3)]
            t = sum(q)
            bary[py, px] = [qk / t for qk in q]
    return fid.astype(np.int32), bary
