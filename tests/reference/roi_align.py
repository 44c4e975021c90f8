"""Literal float64 loops for RoI Align (ops-cv objdetect/roi_align, roi_align_grad), written from the docs'
definition (bilinear samples on a regular grid per bin; torchvision's boundary rules; the ONNX "max" mode takes
the largest weighted corner term over the samples). Never imports pyaclnn."""
import math

import numpy as np


def _bilinear(h, w, y, x):
    """[(row, col, weight)] of the sample point (y, x), or [] when it lies outside [-1, size]."""
    if not (-1.0 <= y <= h and -1.0 <= x <= w):
        return []
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yl = yh = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xl = xh = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    hy, hx = 1.0 - ly, 1.0 - lx
    return [(yl, xl, hy * hx), (yl, xh, hy * lx), (yh, xl, ly * hx), (yh, xh, ly * lx)]


def _samples(box, ph, pw, sr, scale, aligned, h, w):
    """For each bin (i, j): the list of sample point corner lists, and the divisor."""
    off = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = [float(v) * scale - off for v in box]
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = max(rw, 1.0), max(rh, 1.0)
    bh, bw = rh / ph, rw / pw
    gh = sr if sr > 0 else max(int(math.ceil(rh / ph)), 0)
    gw = sr if sr > 0 else max(int(math.ceil(rw / pw)), 0)
    count = max(gh * gw, 1)
    bins = {}
    for i in range(ph):
        for j in range(pw):
            pts = []
            for iy in range(gh):
                y = y1 + i * bh + (iy + 0.5) * bh / gh
                for ix in range(gw):
                    x = x1 + j * bw + (ix + 0.5) * bw / gw
                    pts.append(_bilinear(h, w, y, x))
            bins[i, j] = pts
    return bins, count


def roi_align(x, boxes, batch, ph, pw, sr, scale, aligned=False, mode="avg"):
    """x (N, C, H, W); boxes (K, 4) x1 y1 x2 y2; batch (K,) ints. Returns (K, C, ph, pw) float64."""
    x = np.asarray(x, np.float64)
    n, c, h, w = x.shape
    out = np.zeros((len(boxes), c, ph, pw))
    for k, (box, b) in enumerate(zip(boxes, batch)):
        if not 0 <= b < n:
            continue
        bins, count = _samples(box, ph, pw, sr, scale, aligned, h, w)
        for (i, j), pts in bins.items():
            for ch in range(c):
                if mode == "avg":
                    out[k, ch, i, j] = sum(wt * x[b, ch, r, q] for p in pts for r, q, wt in p) / count
                else:
                    vals = [max(wt * x[b, ch, r, q] for r, q, wt in p) if p else 0.0 for p in pts]
                    out[k, ch, i, j] = max(vals) if vals else 0.0
    return out


def roi_align_backward(gy, boxes, batch, shape, sr, scale, aligned=False):
    """The gradient of the "avg" roi_align with respect to x of `shape`, by scattering each bin's share."""
    gy = np.asarray(gy, np.float64)
    n, c, h, w = shape
    ph, pw = gy.shape[2:]
    gx = np.zeros(shape)
    for k, (box, b) in enumerate(zip(boxes, batch)):
        if not 0 <= b < n:
            continue
        bins, count = _samples(box, ph, pw, sr, scale, aligned, h, w)
        for (i, j), pts in bins.items():
            for p in pts:
                for r, q, wt in p:
                    gx[b, :, r, q] += gy[k, :, i, j] * wt / count
    return gx
