"""aclnnAvgPool2d and aclnnAvgPool2dBackward on numpy arrays (or PyTorch CPU tensors / DLPack objects).

Layout: a rank-4 array is (N, C, H, W) (format NCHW); a rank-3 array is one (C, H, W) image (format NCL) —
2-D pooling either way. dtypes: float32, float16, bfloat16 (``pyaclnn.bfloat16``); float64 is not supported by
the op (SPEC 5). Arrays are passed without a copy (see :mod:`pyaclnn.tensor`).
"""
import numpy as np

from .._ffi import lib
from ..tensor import int_array
from ._common import FLOAT_DTYPES, OpCall, launch

__all__ = ["avg_pool2d", "avg_pool2d_backward", "avg_pool2d_output_size"]


def _pair(v, name, allow_empty=False):
    if v is None:
        return []
    if np.ndim(v) == 0:
        return [int(v)]
    v = [int(x) for x in v]
    if not v and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    return v


def _fmt(arr):
    if arr.ndim == 4:
        return lib.ACL_FORMAT_NCHW
    if arr.ndim == 3:
        return lib.ACL_FORMAT_NCL
    raise ValueError(f"expected a 3-D (C, H, W) or 4-D (N, C, H, W) array, got shape {arr.shape}")


def _axis_out(n, k, s, p, ceil_mode):
    num = n + 2 * p - k + (s - 1 if ceil_mode else 0)
    o = int(num / s) + 1  # truncating division, as the library computes it
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def avg_pool2d_output_size(hw, kernel_size, stride=None, padding=0, ceil_mode=False):
    """(Ho, Wo) of pooling an (H, W) plane, with the library's rule (SPEC 5.4)."""
    k = _pair(kernel_size, "kernel_size")
    s = _pair(stride, "stride", allow_empty=True) or k
    p = _pair(padding, "padding")
    kh, kw = k[0], (k[1] if len(k) > 1 else k[0])
    sh, sw = s[0], (s[1] if len(s) > 1 else s[0])
    ph, pw = p[0], (p[1] if len(p) > 1 else p[0])
    return _axis_out(hw[0], kh, sh, ph, ceil_mode), _axis_out(hw[1], kw, sw, pw, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0, cube_math_type=0, *, out=None, stream=None):
    """2-D average pooling (aclnnAvgPool2d), PyTorch ``avg_pool2d`` semantics.

    input: (N, C, H, W) or (C, H, W), float32 / float16 / bfloat16. kernel_size, stride, padding: int or a
    sequence of 1 or 2 ints (stride None or empty = kernel_size; padding <= kernel/2). ceil_mode: ceil instead of
    floor for the output size. count_include_pad: padded positions count in the divisor. divisor_override: 0 or
    None = no override, else the divisor of every window. cube_math_type: validated only (0..3).
    Returns (N, C, Ho, Wo) / (C, Ho, Wo) in input's dtype, Ho = (H + 2*pH - kH [+ sH - 1 if ceil_mode]) // sH + 1
    (ceil_mode: minus 1 if the last window would start at or past H + pH); :func:`avg_pool2d_output_size`.
    out: an array or tensor of that shape and dtype (may be a strided view), written in place and returned.
    stream: a :class:`pyaclnn.Stream` (ops run synchronously; optional).
    """
    with OpCall() as call:
        x = call.array(input, "input", FLOAT_DTYPES)
        fmt = _fmt(x)
        k = _pair(kernel_size, "kernel_size")
        s = _pair(stride, "stride", allow_empty=True)
        p = _pair(padding, "padding")
        ho, wo = avg_pool2d_output_size(x.shape[-2:], k, s, p, ceil_mode)
        y, yt = call.output(out, x.shape[:-2] + (ho, wo), x.dtype, fmt)
        launch("AvgPool2d", call.input(x, fmt), int_array(k), int_array(s), int_array(p), bool(ceil_mode),
               bool(count_include_pad), int(divisor_override or 0), int(cube_math_type), yt, stream=stream)
    return y


def avg_pool2d_backward(grad_output, input, kernel_size, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=0, cube_math_type=0, *, out=None, stream=None):
    """Gradient of 2-D average pooling (aclnnAvgPool2dBackward).

    grad_output: (N, C, Ho, Wo) or (C, Ho, Wo); input: the forward input (N, C, H, W) / (C, H, W), used for its
    shape and dtype only (its data is never read). Both float32 / float16 / bfloat16. Returns grad_input with
    input's shape in grad_output's dtype. kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override, cube_math_type as in :func:`avg_pool2d` (stride None = kernel_size; an empty sequence passes
    an empty array). On the A2 global path (no divisor override, kernel == (H, W), H, W >= 10, 1x1 grad_output)
    every position receives grad_output / (kH*kW). out / stream as in :func:`avg_pool2d`.
    """
    with OpCall() as call:
        g = call.array(grad_output, "grad_output", FLOAT_DTYPES)
        x = call.array(input, "input", FLOAT_DTYPES)
        k = _pair(kernel_size, "kernel_size")
        p = _pair(padding, "padding")
        s = None if stride is None else int_array(_pair(stride, "stride", allow_empty=True))
        y, yt = call.output(out, x.shape, g.dtype, _fmt(x))
        launch("AvgPool2dBackward", call.input(g, _fmt(g)), call.input(x, _fmt(x)), int_array(k), s, int_array(p),
               bool(ceil_mode), bool(count_include_pad), int(divisor_override or 0), int(cube_math_type), yt,
               stream=stream)
    return y
