"""Literal numpy loop references for nearest-exact 2-D upsampling (never imports pyaclnn).

Two index rules:
* PyTorch (ATen nearest-exact): output position d of an axis reads input min(floor((d + 0.5) * scale), In - 1)
  with scale = 1 / scales when scales > 0, else In / Out. The backward scatters every output position to that
  input index (positions beyond the last input are clamped to In - 1).
* Ascend kernel (SPEC 4.3 / 4.4): the forward uses the same formula in fp32 (r = 1 when In == Out); the
  backward gives input index i the range [ceil(fp32(fp32(i*s) - 0.5)), ceil(fp32(fp32((i+1)*s) - 0.5))) of
  output positions, clipped to Out, with s = fp32(scales) if scales > 0 else fp32(Out) / fp32(In); positions
  in no range are dropped.
Values are accumulated in float64; callers round once to the dtype.
"""
import math

import numpy as np

f32 = np.float32


def torch_src_index(d, in_len, out_len, scales):
    scale = 1.0 / scales if scales and scales > 0 else in_len / out_len
    return min(int(math.floor((d + 0.5) * scale)), in_len - 1)


def kernel_src_index(d, in_len, out_len, scales):
    if in_len == out_len:
        r = f32(1.0)
    elif scales and scales > 0:
        r = f32(1.0 / scales)
    else:
        r = f32(in_len) / f32(out_len)
    v = math.floor(float(f32(f32(d) + f32(0.5)) * r))
    return min(max(v, 0), in_len - 1)


def kernel_range(i, in_len, out_len, scales):
    s = f32(scales) if scales and scales > 0 else f32(out_len) / f32(in_len)
    a = f32(f32(i) * s)
    b = f32(f32(i + 1) * s)
    lo = math.ceil(float(f32(a - f32(0.5))))
    hi = math.ceil(float(f32(b - f32(0.5))))
    return min(max(lo, 0), out_len), min(max(hi, 0), out_len)


def upsample_forward(x, out_hw, scales=(0.0, 0.0), rule="kernel"):
    """x (N, C, Hi, Wi) -> (N, C, Ho, Wo) by gathering; dtype kept (bit-exact)."""
    x = np.asarray(x)
    n, c, hi, wi = x.shape
    ho, wo = out_hw
    idx = kernel_src_index if rule == "kernel" else torch_src_index
    y = np.zeros((n, c, ho, wo), x.dtype)
    for a in range(n):
        for b in range(c):
            for p in range(ho):
                sp = idx(p, hi, ho, scales[0])
                for q in range(wo):
                    y[a, b, p, q] = x[a, b, sp, idx(q, wi, wo, scales[1])]
    return y


def upsample_backward(g, in_hw, scales=(0.0, 0.0), rule="kernel"):
    """grad_output (N, C, Ho, Wo) -> grad_input (N, C, Hi, Wi) in float64."""
    g = np.asarray(g).astype(np.float64)
    n, c, ho, wo = g.shape
    hi, wi = in_hw
    out = np.zeros((n, c, hi, wi))
    if rule == "torch":
        for p in range(ho):
            i = torch_src_index(p, hi, ho, scales[0])
            for q in range(wo):
                j = torch_src_index(q, wi, wo, scales[1])
                out[:, :, i, j] += g[:, :, p, q]
        return out
    for i in range(hi):
        rlo, rhi = kernel_range(i, hi, ho, scales[0])
        for j in range(wi):
            clo, chi = kernel_range(j, wi, wo, scales[1])
            for p in range(rlo, rhi):
                for q in range(clo, chi):
                    out[:, :, i, j] += g[:, :, p, q]
    return out
