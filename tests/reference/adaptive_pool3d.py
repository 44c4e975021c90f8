"""Literal float64 references for adaptive 3-D average / max pooling and their gradients. Never imports pyaclnn."""
import math

import numpy as np


def rng_(o, n_in, n_out):
    return (o * n_in) // n_out, -((-(o + 1) * n_in) // n_out)


def _windows(in_shape, out_shape):
    for a in range(out_shape[0]):
        d0, d1 = rng_(a, in_shape[0], out_shape[0])
        for b in range(out_shape[1]):
            h0, h1 = rng_(b, in_shape[1], out_shape[1])
            for c in range(out_shape[2]):
                w0, w1 = rng_(c, in_shape[2], out_shape[2])
                yield (a, b, c), (d0, d1, h0, h1, w0, w1)


def adaptive_avg_pool3d(x, osz):
    """x: (P, D, H, W) -> (P,) + osz"""
    x = np.asarray(x, np.float64)
    y = np.zeros((x.shape[0],) + tuple(osz))
    for o, (d0, d1, h0, h1, w0, w1) in _windows(x.shape[1:], osz):
        for pl in range(x.shape[0]):
            tot = 0.0
            for i in range(d0, d1):
                for j in range(h0, h1):
                    for t in range(w0, w1):
                        tot += x[pl, i, j, t]
            y[(pl,) + o] = tot / ((d1 - d0) * (h1 - h0) * (w1 - w0))
    return y


def adaptive_avg_pool3d_backward(gy, in_shape):
    gy = np.asarray(gy, np.float64)
    gx = np.zeros((gy.shape[0],) + tuple(in_shape))
    for o, (d0, d1, h0, h1, w0, w1) in _windows(in_shape, gy.shape[1:]):
        n = (d1 - d0) * (h1 - h0) * (w1 - w0)
        for pl in range(gy.shape[0]):
            gx[pl, d0:d1, h0:h1, w0:w1] += gy[(pl,) + o] / n
    return gx


def adaptive_max_pool3d(x, osz):
    """-> (values, int64 argmax d*H*W + h*W + w): the first maximum, a NaN wins (the last NaN)."""
    x = np.asarray(x, np.float64)
    P, D, H, W = x.shape
    y = np.zeros((P,) + tuple(osz))
    idx = np.zeros((P,) + tuple(osz), np.int64)
    for o, (d0, d1, h0, h1, w0, w1) in _windows((D, H, W), osz):
        for pl in range(P):
            m, best = -math.inf, (d0 * H + h0) * W + w0
            for i in range(d0, d1):
                for j in range(h0, h1):
                    for t in range(w0, w1):
                        v = x[pl, i, j, t]
                        if v > m or math.isnan(v):
                            m, best = v, (i * H + j) * W + t
            y[(pl,) + o] = x[pl].reshape(-1)[best]
            idx[(pl,) + o] = best
    return y, idx
