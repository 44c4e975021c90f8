"""Literal float64 references for 2-D average pooling (SPEC 5.3/5.4, PyTorch avg_pool2d semantics).

Never imports pyaclnn. Arrays are (N, C, H, W) or one (C, H, W) image; attributes are already expanded to
(kh, kw), (sh, sw), (ph, pw).
"""
import numpy as np


def out_size(n, k, s, p, ceil_mode):
    """Output extent of one axis: C++ truncating division, then the ceil-mode correction."""
    num = n + 2 * p - k + (s - 1 if ceil_mode else 0)
    o = int(num / s) + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def _window(o, n, k, s, p):
    """(clipped start, clipped end, padded extent) of window o along an axis of length n."""
    start = o * s - p
    end = min(start + k, n + p)
    pool = end - start
    return max(start, 0), min(end, n), pool


def _divisor(ph, pw, vh, vw, count_include_pad, divisor_override):
    if divisor_override:
        return divisor_override
    return ph * pw if count_include_pad else vh * vw


def _as4(a):
    a = np.asarray(a, dtype=np.float64)
    return (a[None], True) if a.ndim == 3 else (a, False)


def avg_pool2d(x, k, s, p, ceil_mode=False, count_include_pad=True, divisor_override=0):
    x4, squeeze = _as4(x)
    N, C, H, W = x4.shape
    OH = out_size(H, k[0], s[0], p[0], ceil_mode)
    OW = out_size(W, k[1], s[1], p[1], ceil_mode)
    y = np.zeros((N, C, OH, OW))
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                h0, h1, ph = _window(oh, H, k[0], s[0], p[0])
                for ow in range(OW):
                    w0, w1, pw = _window(ow, W, k[1], s[1], p[1])
                    total = 0.0
                    for ih in range(h0, h1):
                        for iw in range(w0, w1):
                            total += x4[n, c, ih, iw]
                    d = _divisor(ph, pw, h1 - h0, w1 - w0, count_include_pad, divisor_override)
                    y[n, c, oh, ow] = total / d
    return y[0] if squeeze else y


def avg_pool2d_backward(grad_out, in_shape, k, s, p, ceil_mode=False, count_include_pad=True, divisor_override=0):
    """Scatter form: every gradOutput position (whatever gradOutput's H/W) adds g/divisor to its clipped window."""
    g4, squeeze = _as4(grad_out)
    shape4 = tuple(in_shape) if len(in_shape) == 4 else (1,) + tuple(in_shape)
    N, C, H, W = shape4
    gi = np.zeros(shape4)
    OH, OW = g4.shape[2], g4.shape[3]
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                h0, h1, ph = _window(oh, H, k[0], s[0], p[0])
                for ow in range(OW):
                    w0, w1, pw = _window(ow, W, k[1], s[1], p[1])
                    if h1 <= h0 or w1 <= w0:
                        continue
                    d = _divisor(ph, pw, h1 - h0, w1 - w0, count_include_pad, divisor_override)
                    for ih in range(h0, h1):
                        for iw in range(w0, w1):
                            gi[n, c, ih, iw] += g4[n, c, oh, ow] / d
    return gi[0] if squeeze else gi


def avg_pool2d_backward_global(grad_out, in_shape, k):
    """The A2 global path (SPEC 5.3): a 1x1 gradOutput broadcast to every H x W position, divided by kH*kW."""
    g4, squeeze = _as4(grad_out)
    shape4 = tuple(in_shape) if len(in_shape) == 4 else (1,) + tuple(in_shape)
    gi = np.zeros(shape4)
    for n in range(shape4[0]):
        for c in range(shape4[1]):
            for ih in range(shape4[2]):
                for iw in range(shape4[3]):
                    gi[n, c, ih, iw] = g4[n, c, 0, 0] / (k[0] * k[1])
    return gi[0] if squeeze else gi


def is_backward_global(in_shape, grad_shape, k, divisor_override):
    H, W = in_shape[-2], in_shape[-1]
    return (divisor_override == 0 and k[0] == H and k[1] == W and H >= 10 and W >= 10
            and grad_shape[-2] == 1 and grad_shape[-1] == 1)
