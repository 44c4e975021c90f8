"""Literal float64 references for windowed max pooling with argmax (MaxPool2dWithIndices, MaxPool3dWithArgmax and
their backwards). Never imports pyaclnn."""
import math

import numpy as np


def out_size(n, k, s, p, d, ceil):
    """PyTorch's pooled length: floor/ceil((n + 2p - d(k-1) - 1) / s) + 1, the last window starting in range."""
    num = n + 2 * p - d * (k - 1) - 1
    o = (math.ceil(num / s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def max_pool3d(x, k, s, p, d=(1, 1, 1), ceil=False):
    """x: (P, D, H, W) float64 planes -> (values, int64 argmax d*H*W + h*W + w). The first maximum of the window
    in (d, h, w) row-major order wins; a NaN wins over everything (the last NaN)."""
    x = np.asarray(x, np.float64)
    P, D, H, W = x.shape
    od, oh, ow = (out_size(n, k[i], s[i], p[i], d[i], ceil) for i, n in enumerate((D, H, W)))
    y = np.zeros((P, od, oh, ow))
    idx = np.zeros((P, od, oh, ow), np.int64)
    for pl in range(P):
        for a in range(od):
            for b in range(oh):
                for c in range(ow):
                    best, m = None, -math.inf
                    for i in range(k[0]):
                        zd = a * s[0] - p[0] + i * d[0]
                        if not 0 <= zd < D:
                            continue
                        for j in range(k[1]):
                            zh = b * s[1] - p[1] + j * d[1]
                            if not 0 <= zh < H:
                                continue
                            for t in range(k[2]):
                                zw = c * s[2] - p[2] + t * d[2]
                                if not 0 <= zw < W:
                                    continue
                                v = x[pl, zd, zh, zw]
                                if best is None:
                                    best = (zd * H + zh) * W + zw
                                if v > m or math.isnan(v):
                                    m, best = v, (zd * H + zh) * W + zw
                    y[pl, a, b, c] = x[pl].reshape(-1)[best]
                    idx[pl, a, b, c] = best
    return y, idx


def max_pool_backward(gy, idx, in_shape):
    """gy, idx: (P, ...) -> gradInput (P,) + in_shape: each gy cell added at its argmax."""
    gy = np.asarray(gy, np.float64)
    P = gy.shape[0]
    gx = np.zeros((P, int(np.prod(in_shape))))
    for pl in range(P):
        for v, i in zip(gy[pl].reshape(-1), idx[pl].reshape(-1)):
            gx[pl, i] += v
    return gx.reshape((P,) + tuple(in_shape))


def max_pool2d_pads(x, k, s, pads, ceil):
    """aclnnMaxPool's ONNX-style pooling: x (P, H, W), pads (hBegin, wBegin, hEnd, wEnd); the output size
    floor/ceil((n + begin + end - k) / s) + 1 (the last ceil window starting before n + begin); windows wholly in
    the padding give -inf."""
    x = np.asarray(x, np.float64)
    P, H, W = x.shape
    outs = []
    for n, kk, ss, b, e in ((H, k[0], s[0], pads[0], pads[2]), (W, k[1], s[1], pads[1], pads[3])):
        num = n + b + e - kk
        o = (-(-num // ss) if ceil else num // ss) + 1
        if ceil and (o - 1) * ss >= n + b:
            o -= 1
        outs.append(o)
    y = np.full((P, outs[0], outs[1]), -np.inf)
    for i in range(outs[0]):
        for j in range(outs[1]):
            for a in range(k[0]):
                hh = i * s[0] - pads[0] + a
                if not 0 <= hh < H:
                    continue
                for c in range(k[1]):
                    ww = j * s[1] - pads[1] + c
                    if 0 <= ww < W:
                        y[:, i, j] = np.maximum(y[:, i, j], x[:, hh, ww])
    return y
