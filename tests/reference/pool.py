"""Literal float64 references for the pooling family (adaptive pooling). Never imports pyaclnn."""
import numpy as np


def adaptive_range(o, n_in, n_out):
    """Window [lo, hi) of output cell o along an axis: floor(o*in/out), ceil((o+1)*in/out)."""
    return (o * n_in) // n_out, -((-(o + 1) * n_in) // n_out)


def adaptive_avg_pool2d(x, oh, ow):
    """x: (..., H, W) float64 -> (..., oh, ow), each cell the mean of its adaptive window."""
    x = np.asarray(x, np.float64)
    h, w = x.shape[-2:]
    y = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        h0, h1 = adaptive_range(i, h, oh)
        for j in range(ow):
            w0, w1 = adaptive_range(j, w, ow)
            s = np.zeros(x.shape[:-2])
            for a in range(h0, h1):
                for b in range(w0, w1):
                    s = s + x[..., a, b]
            y[..., i, j] = s / ((h1 - h0) * (w1 - w0))
    return y


def adaptive_avg_pool2d_backward(gy, h, w):
    """gy: (..., oh, ow) float64 -> gradInput (..., h, w): each output cell spreads gy/count over its window."""
    gy = np.asarray(gy, np.float64)
    oh, ow = gy.shape[-2:]
    gx = np.zeros(gy.shape[:-2] + (h, w))
    for i in range(oh):
        h0, h1 = adaptive_range(i, h, oh)
        for j in range(ow):
            w0, w1 = adaptive_range(j, w, ow)
            share = gy[..., i, j] / ((h1 - h0) * (w1 - w0))
            for a in range(h0, h1):
                for b in range(w0, w1):
                    gx[..., a, b] = gx[..., a, b] + share
    return gx


def adaptive_max_pool2d(x, oh, ow):
    """x: (..., H, W) float64 -> (values, int64 indices h*W + w): the first maximum of each adaptive window;
    a NaN wins and the last NaN of the window is taken (PyTorch's CPU rule)."""
    x = np.asarray(x, np.float64)
    h, w = x.shape[-2:]
    lead = x.shape[:-2]
    xf = x.reshape((-1, h, w))
    y = np.zeros((xf.shape[0], oh, ow))
    idx = np.zeros((xf.shape[0], oh, ow), np.int64)
    for p in range(xf.shape[0]):
        for i in range(oh):
            h0, h1 = adaptive_range(i, h, oh)
            for j in range(ow):
                w0, w1 = adaptive_range(j, w, ow)
                m, best = -np.inf, h0 * w + w0
                for a in range(h0, h1):
                    for b in range(w0, w1):
                        v = xf[p, a, b]
                        if v > m or np.isnan(v):
                            m, best = v, a * w + b
                y[p, i, j], idx[p, i, j] = m, best
    return y.reshape(lead + (oh, ow)), idx.reshape(lead + (oh, ow))
