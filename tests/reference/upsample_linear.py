"""Literal numpy float64 loop references for linear / cubic resampling (never imports pyaclnn).

PyTorch's rules (ATen UpSample.h), per spatial axis from In to Out:
* ratio r = (In - 1) / (Out - 1) with align_corners (0 when Out == 1), else 1 / scale when a scale > 0 is given,
  else In / Out;
* linear: source x = r * d (align_corners) or max(r * (d + 0.5) - 0.5, 0); i0 = min(floor(x), In - 1),
  i1 = min(i0 + 1, In - 1), weights (1 - l, l) with l = x - i0;
* cubic: x = r * d or r * (d + 0.5) - 0.5 (no clamp); taps floor(x) - 1 .. floor(x) + 2 clamped to [0, In - 1],
  weights of the cubic convolution with A = -0.75 at t = x - floor(x);
* In == Out is the identity (as the Ascend kernels treat it).
The forward sums the product of the axes' taps; the backward scatters every gradOutput element back through the
same taps. Everything in float64.
"""
import itertools
import math

import numpy as np


def _cubic(t, a=-0.75):
    def c1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def c2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


def axis_taps(in_len, out_len, mode, align, scale):
    """[(index, weight), ...] for every output position d of one axis."""
    if in_len == out_len:
        return [[(d, 1.0)] for d in range(out_len)]
    if align:
        r = (in_len - 1) / (out_len - 1) if out_len > 1 else 0.0
    else:
        r = 1.0 / scale if scale and scale > 0 else in_len / out_len
    taps = []
    for d in range(out_len):
        x = r * d if align else r * (d + 0.5) - 0.5
        if mode == "linear":
            x = max(x, 0.0)
            i0 = min(int(math.floor(x)), in_len - 1)
            i1 = min(i0 + 1, in_len - 1)
            lam = min(max(x - i0, 0.0), 1.0)
            taps.append([(i0, 1.0 - lam), (i1, lam)])
        else:
            f = math.floor(x)
            w = _cubic(x - f)
            taps.append([(min(max(int(f) - 1 + k, 0), in_len - 1), w[k]) for k in range(4)])
    return taps


def resample(x, out_sizes, mode, align, scales):
    """x: (N, C, *spatial) -> (N, C, *out_sizes) in float64."""
    x = np.asarray(x, np.float64)
    sp = x.shape[2:]
    taps = [axis_taps(sp[k], out_sizes[k], mode, align, scales[k]) for k in range(len(sp))]
    y = np.zeros(x.shape[:2] + tuple(out_sizes))
    for o in itertools.product(*[range(n) for n in out_sizes]):
        acc = np.zeros(x.shape[:2])
        for combo in itertools.product(*[taps[k][o[k]] for k in range(len(sp))]):
            w = 1.0
            for _, wk in combo:
                w *= wk
            acc += w * x[(slice(None), slice(None)) + tuple(i for i, _ in combo)]
        y[(slice(None), slice(None)) + o] = acc
    return y


def resample_backward(g, in_sizes, mode, align, scales):
    """g: (N, C, *out spatial) -> the gradient (N, C, *in_sizes) in float64."""
    g = np.asarray(g, np.float64)
    out_sizes = g.shape[2:]
    nsp = len(in_sizes)
    taps = [axis_taps(in_sizes[k], out_sizes[k], mode, align, scales[k]) for k in range(nsp)]
    gi = np.zeros(g.shape[:2] + tuple(in_sizes))
    for o in itertools.product(*[range(n) for n in out_sizes]):
        for combo in itertools.product(*[taps[k][o[k]] for k in range(nsp)]):
            w = 1.0
            for _, wk in combo:
                w *= wk
            gi[(slice(None), slice(None)) + tuple(i for i, _ in combo)] += w * g[(slice(None), slice(None)) + o]
    return gi


def _aa_filter(x, cubic):
    x = abs(x)
    if not cubic:
        return 1.0 - x if x < 1.0 else 0.0
    a = -0.5
    if x < 1.0:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2.0:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def axis_taps_aa(in_len, out_len, cubic, align, scale):
    """PyTorch's antialiasing taps: the filter (support 1 triangle / 2 Keys cubic a=-0.5) stretched by the ratio when
    shrinking, evaluated at the source centres inside [center - support, center + support), normalised."""
    if in_len == out_len:
        return [[(d, 1.0)] for d in range(out_len)]
    if align:
        r = (in_len - 1) / (out_len - 1) if out_len > 1 else 0.0
    else:
        r = 1.0 / scale if scale and scale > 0 else in_len / out_len
    half = 2.0 if cubic else 1.0
    support = half * r if r >= 1.0 else half
    inv = 1.0 / r if r >= 1.0 else 1.0
    taps = []
    for d in range(out_len):
        center = r * (d + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_len)
        ws = [_aa_filter((j - center + 0.5) * inv, cubic) for j in range(lo, hi)]
        tot = sum(ws)
        if tot != 0:
            ws = [w / tot for w in ws]
        taps.append(list(zip(range(lo, hi), ws)))
    return taps


def resample_aa(x, out_sizes, cubic, align, scales, backward_in=None):
    """Antialiased 2-D forward (x: (N, C, H, W)); with backward_in=(Hi, Wi), x is gradOutput and the gradient of the
    forward input is returned instead."""
    x = np.asarray(x, np.float64)
    if backward_in is None:
        ins, outs = x.shape[2:], tuple(out_sizes)
    else:
        ins, outs = tuple(backward_in), x.shape[2:]
    th = axis_taps_aa(ins[0], outs[0], cubic, align, scales[0])
    tw = axis_taps_aa(ins[1], outs[1], cubic, align, scales[1])
    res = np.zeros(x.shape[:2] + (tuple(outs) if backward_in is None else tuple(ins)))
    for i in range(outs[0]):
        for j in range(outs[1]):
            for hi, wh in th[i]:
                for wi, ww in tw[j]:
                    if backward_in is None:
                        res[:, :, i, j] += wh * ww * x[:, :, hi, wi]
                    else:
                        res[:, :, hi, wi] += wh * ww * x[:, :, i, j]
    return res
