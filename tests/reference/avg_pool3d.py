"""Literal float64 reference for 3-D average pooling and its gradient. Never imports pyaclnn."""
import numpy as np

from reference.max_pool import out_size


def _window(o, k, s, p, n):
    st = o * s - p
    en = min(st + k, n + p)
    pool = en - st
    return max(st, 0), min(en, n), pool


def avg_pool3d(x, k, s, p, ceil, cip, divisor):
    """x: (P, D, H, W) float64 -> (P, oD, oH, oW)."""
    x = np.asarray(x, np.float64)
    P, D, H, W = x.shape
    o = [out_size(n, k[i], s[i], p[i], 1, ceil) for i, n in enumerate((D, H, W))]
    y = np.zeros((P,) + tuple(o))
    for a in range(o[0]):
        d0, d1, pd = _window(a, k[0], s[0], p[0], D)
        for b in range(o[1]):
            h0, h1, ph = _window(b, k[1], s[1], p[1], H)
            for c in range(o[2]):
                w0, w1, pw = _window(c, k[2], s[2], p[2], W)
                div = divisor if divisor else (pd * ph * pw if cip else (d1 - d0) * (h1 - h0) * (w1 - w0))
                for pl in range(P):
                    tot = 0.0
                    for i in range(d0, d1):
                        for j in range(h0, h1):
                            for t in range(w0, w1):
                                tot += x[pl, i, j, t]
                    y[pl, a, b, c] = tot / div
    return y


def avg_pool3d_backward(gy, in_shape, k, s, p, cip, divisor):
    """gy: (P, oD, oH, oW) -> (P,) + in_shape: each output's gy/div added to every in-range cell of its window."""
    gy = np.asarray(gy, np.float64)
    P = gy.shape[0]
    D, H, W = in_shape
    gx = np.zeros((P, D, H, W))
    for a in range(gy.shape[1]):
        d0, d1, pd = _window(a, k[0], s[0], p[0], D)
        for b in range(gy.shape[2]):
            h0, h1, ph = _window(b, k[1], s[1], p[1], H)
            for c in range(gy.shape[3]):
                w0, w1, pw = _window(c, k[2], s[2], p[2], W)
                div = divisor if divisor else (pd * ph * pw if cip else (d1 - d0) * (h1 - h0) * (w1 - w0))
                for pl in range(P):
                    gx[pl, d0:d1, h0:h1, w0:w1] += gy[pl, a, b, c] / div
    return gx


def avg_pool3d_rows(x, k, s, p, cip, div):
    """The rows rule of the library's AvgPool3d forward, on an (N, C, D, H, W) array: per window row an fp32 sum
    from +0 in ascending w, the rows added in double in (d, h) order, divided in double; float32 result (the caller
    rounds it once to its dtype)."""
    xf = np.ascontiguousarray(x).astype(np.float32)
    N, C = x.shape[:2]
    ins = x.shape[2:]
    outs = [(ins[a] + 2 * p[a] - k[a]) // s[a] + 1 for a in range(3)]
    tabs = []
    for a in range(3):
        t = []
        for o in range(outs[a]):
            lo, hi, pool = _window(o, k[a], s[a], p[a], ins[a])
            t.append((lo, hi, pool if cip else hi - lo))
        tabs.append(t)
    y = np.zeros((N, C) + tuple(outs), np.float32)
    for od, (d0, d1, cd) in enumerate(tabs[0]):
        for oh, (h0, h1, ch) in enumerate(tabs[1]):
            for ow, (w0, w1, cw) in enumerate(tabs[2]):
                acc = np.zeros((N, C), np.float64)
                for d in range(d0, d1):
                    for hh in range(h0, h1):
                        r = np.zeros((N, C), np.float32)
                        for w in range(w0, w1):
                            r = r + xf[:, :, d, hh, w]
                        acc = acc + r.astype(np.float64)
                dv = float(div) if div else float(cd) * float(ch) * float(cw)
                y[:, :, od, oh, ow] = (acc / dv).astype(np.float32)
    return y
