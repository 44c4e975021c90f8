"""aclnnAvgPool2d and aclnnAvgPool2dBackward on numpy arrays.

Layout: a rank-4 array is (N, C, H, W) (format NCHW); a rank-3 array is one (C, H, W) image (format NCL) —
2-D pooling either way. dtypes: float32, float16, bfloat16 (``pyaclnn.bfloat16``).
"""
import numpy as np

from .._ffi import lib
from ..tensor import int_array
from ._common import FLOAT_DTYPES, as_tensor, check_dtype, finish_output, launch, output_tensor

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


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0, cube_math_type=0, *, out=None):
    """2-D average pooling (aclnnAvgPool2d), PyTorch ``avg_pool2d`` semantics.

    x: (N, C, H, W) or (C, H, W); kernel_size/stride/padding: int or sequence of 1 or 2 ints (stride None or
    empty = kernel_size). divisor_override 0 or None = no override. Returns (N, C, Ho, Wo) / (C, Ho, Wo) in
    x's dtype, Ho = (H + 2*pH - kH [+ sH - 1 if ceil_mode]) // sH + 1 (ceil_mode: minus 1 if the last window
    would start at or past H + pH). ``out``: an array of that shape and dtype (may be a strided view).
    """
    x = np.asarray(x)
    check_dtype(x, FLOAT_DTYPES, "x")
    fmt = _fmt(x)
    k = _pair(kernel_size, "kernel_size")
    s = _pair(stride, "stride", allow_empty=True)
    p = _pair(padding, "padding")
    ho, wo = avg_pool2d_output_size(x.shape[-2:], k, s, p, ceil_mode)
    shape = x.shape[:-2] + (ho, wo)
    xt = as_tensor(x, fmt)
    yt = output_tensor(out, shape, x.dtype, fmt)
    launch("AvgPool2d", xt, int_array(k), int_array(s), int_array(p), bool(ceil_mode), bool(count_include_pad),
           int(divisor_override or 0), int(cube_math_type), yt)
    return finish_output(yt, out)


def avg_pool2d_backward(grad_output, input, kernel_size, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=0, cube_math_type=0, *, out=None):
    """Gradient of 2-D average pooling (aclnnAvgPool2dBackward).

    grad_output: (N, C, Ho, Wo) or (C, Ho, Wo); input: the forward input ``self`` (N, C, H, W) / (C, H, W),
    used for its shape and dtype only. Returns grad_input with input's shape in grad_output's dtype.
    kernel_size/stride/padding as in :func:`avg_pool2d` (stride None = kernel_size; an empty sequence passes an
    empty array). On the A2 global path (no divisor override, kernel == (H, W), H, W >= 10, 1x1 grad_output)
    every position receives grad_output / (kH*kW).
    """
    g = np.asarray(grad_output)
    x = np.asarray(input)
    check_dtype(g, FLOAT_DTYPES, "grad_output")
    check_dtype(x, FLOAT_DTYPES, "input")
    gt = as_tensor(g, _fmt(g))
    st = as_tensor(x, _fmt(x))
    k = _pair(kernel_size, "kernel_size")
    p = _pair(padding, "padding")
    s = None if stride is None else int_array(_pair(stride, "stride", allow_empty=True))
    yt = output_tensor(out, x.shape, g.dtype, _fmt(x))
    launch("AvgPool2dBackward", gt, st, int_array(k), s, int_array(p), bool(ceil_mode), bool(count_include_pad),
           int(divisor_override or 0), int(cube_math_type), yt)
    return finish_output(yt, out)
