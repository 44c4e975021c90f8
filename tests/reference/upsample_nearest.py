"""Literal numpy loop references for the nearest / nearest-exact resampling family, 1-D and 2-D (never imports
pyaclnn). Layout (N, C, *spatial) with one or two spatial axes.

Forward, per axis: out[d] = x[min(floor(fp32(pos) * r), In - 1)], pos = d + 0.5 (nearest-exact) or d (nearest),
r an fp32 ratio In/Out (fwd_ratio). Backward, per axis, one of two rules:
* "ranges" (the Ascend kernel): input index i sums output positions [ceil(fp32(i*s) [- 0.5]),
  ceil(fp32((i+1)*s) [- 0.5])) clipped to Out, s an fp32 scale Out/In;
* "map": every output position r goes to min(floor(fp32(r) * ratio), In - 1) (the forward map transposed).
Sums are in float64, in the kernels' order (per output row ascending, a left fold along the last axis).
"""
import itertools
import math

import numpy as np

f32 = np.float32


def fwd_ratio(in_len, out_len, scales=0.0):
    if in_len == out_len:
        return f32(1.0)
    if scales and scales > 0:
        return f32(1.0 / scales)
    return f32(in_len) / f32(out_len)


def src_index(d, in_len, ratio, exact):
    pos = f32(f32(d) + f32(0.5)) if exact else f32(d)
    v = math.floor(float(f32(pos * f32(ratio))))
    return min(max(v, 0), in_len - 1)


def forward(x, out_sizes, ratios, exact):
    """x (N, C, *In) -> (N, C, *out_sizes) by gathering (1 to 3 spatial axes); dtype kept."""
    x = np.asarray(x)
    ins = x.shape[2:]
    idx = [[src_index(d, ins[k], ratios[k], exact) for d in range(out_sizes[k])] for k in range(len(ins))]
    y = np.zeros(x.shape[:2] + tuple(out_sizes), x.dtype)
    for a in range(x.shape[0]):
        for b in range(x.shape[1]):
            for pos in itertools.product(*[range(o) for o in out_sizes]):
                y[(a, b) + pos] = x[(a, b) + tuple(idx[k][p] for k, p in enumerate(pos))]
    return y


def axis_ranges(in_len, out_len, rule):
    """[(lo, hi)] per input index. rule: ("ranges", s, exact) or ("map", ratio)."""
    if rule[0] == "ranges":
        s, exact = f32(rule[1]), rule[2]
        off = f32(0.5) if exact else f32(0.0)
        res = []
        for i in range(in_len):
            lo = math.ceil(float(f32(f32(f32(i) * s) - off)))
            hi = math.ceil(float(f32(f32(f32(i + 1) * s) - off)))
            res.append((min(max(lo, 0), out_len), min(max(hi, 0), out_len)))
        return res
    src = [src_index(r, in_len, rule[1], False) for r in range(out_len)]
    return [(sum(1 for v in src if v < i), sum(1 for v in src if v <= i)) for i in range(in_len)]


def backward(g, in_sizes, rules):
    """g (N, C, *Out) -> float64 (N, C, *in_sizes)."""
    g = np.asarray(g).astype(np.float64)
    outs = g.shape[2:]
    rng = [axis_ranges(in_sizes[k], outs[k], rules[k]) for k in range(len(outs))]
    y = np.zeros(g.shape[:2] + tuple(in_sizes))
    for a in range(g.shape[0]):
        for b in range(g.shape[1]):
            if len(outs) == 1:
                for j in range(in_sizes[0]):
                    lo, hi = rng[0][j]
                    s = 0.0
                    for t in range(lo, hi):
                        s += g[a, b, t]
                    y[a, b, j] = s
            else:
                for i in range(in_sizes[0]):
                    for j in range(in_sizes[1]):
                        acc = 0.0
                        for r in range(*rng[0][i]):
                            lo, hi = rng[1][j]
                            if lo >= hi:
                                continue
                            s = g[a, b, r, lo]
                            for t in range(lo + 1, hi):
                                s += g[a, b, r, t]
                            acc += s
                        y[a, b, i, j] = acc
    return y


def backward3(g, in_sizes, rules):
    """g (N, C, Do, Ho, Wo) -> float64 (N, C, *in_sizes): for each input element, the sum over its D, H and W
    ranges."""
    g = np.asarray(g).astype(np.float64)
    outs = g.shape[2:]
    rng = [axis_ranges(in_sizes[k], outs[k], rules[k]) for k in range(3)]
    y = np.zeros(g.shape[:2] + tuple(in_sizes))
    for a in range(g.shape[0]):
        for b in range(g.shape[1]):
            for i in range(in_sizes[0]):
                for j in range(in_sizes[1]):
                    for k in range(in_sizes[2]):
                        s = 0.0
                        for d in range(*rng[0][i]):
                            for r in range(*rng[1][j]):
                                for t in range(*rng[2][k]):
                                    s += g[a, b, d, r, t]
                        y[a, b, i, j, k] = s
    return y
