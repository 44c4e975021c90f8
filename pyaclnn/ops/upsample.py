"""Nearest-exact 2-D upsampling: aclnnUpsampleNearestExact2d and aclnnUpsampleNearestExact2dBackward."""
import numpy as np

from .._ffi import lib
from ..tensor import int_array
from ._common import FLOAT_DTYPES, OpCall, launch

__all__ = ["upsample_nearest_exact2d", "upsample_nearest_exact2d_backward"]

_FWD_DTYPES = FLOAT_DTYPES + (np.dtype(np.uint8),)


def _scales(scales):
    sh, sw = scales
    return float(sh or 0.0), float(sw or 0.0)


def _pair(v, name):
    v = [int(d) for d in v]
    if len(v) != 2:
        raise ValueError(f"{name} must have 2 values, got {v}")
    return v


def upsample_nearest_exact2d(input, output_size, scales=(0.0, 0.0), *, out=None, stream=None):
    """Nearest-exact 2-D upsampling (PyTorch ``interpolate(mode="nearest-exact")``) of an NCHW array.

    input: (N, C, H, W) float32, float16, bfloat16 or uint8. output_size: (Ho, Wo).
    scales: (scales_h, scales_w), the forward factors output/input; 0 or None means "derive from the sizes".
    Along each axis out[d] = x[min(floor(fp32(d + 0.5) * r), In - 1)] with r = 1 when In == Out, else
    fp32(1 / scale) when scale > 0, else In / Out in fp32 — a pure gather, bit-exact for every dtype.
    Returns (N, C, Ho, Wo) in input's dtype. out: an array or tensor of that shape and dtype, written in place
    and returned. stream: optional.
    """
    with OpCall() as call:
        x = call.array(input, "input", _FWD_DTYPES)
        ho, wo = _pair(output_size, "output_size")
        sh, sw = _scales(scales)
        shape = (x.shape[0], x.shape[1], ho, wo) if x.ndim == 4 else (ho, wo)
        y, yt = call.output(out, shape, x.dtype, lib.ACL_FORMAT_NCHW)
        launch("UpsampleNearestExact2d", call.input(x, lib.ACL_FORMAT_NCHW), int_array([ho, wo]), sh, sw, yt,
               stream=stream)
    return y


def upsample_nearest_exact2d_backward(grad_output, output_size, input_size, scales=(0.0, 0.0), *, out=None,
                                      stream=None):
    """Gradient of :func:`upsample_nearest_exact2d` with respect to its input.

    grad_output: (N, C, Ho, Wo) float32, float16 or bfloat16. output_size: (Ho, Wo) (only its length is used).
    input_size: (N, C, Hi, Wi), the forward input shape. scales: (scales_h, scales_w), the forward factors
    (output/input); 0 or None means Ho/Hi (Wo/Wi) in fp32.
    Input-gradient index i sums grad_output over [ceil(fp32(i*s) - 0.5), ceil(fp32((i+1)*s) - 0.5)) clipped to
    Ho (as the Ascend kernel does: positions past the last range are dropped, not clamped), in fp32 and rounded
    once. Returns (N, C, Hi, Wi) in grad_output's dtype. out / stream as in :func:`upsample_nearest_exact2d`.
    """
    with OpCall() as call:
        g = call.array(grad_output, "grad_output", FLOAT_DTYPES)
        osz = _pair(output_size, "output_size")
        isz = [int(d) for d in input_size]
        if len(isz) != 4:
            raise ValueError(f"input_size must have 4 values, got {isz}")
        sh, sw = _scales(scales)
        shape = (g.shape[0], g.shape[1], isz[2], isz[3]) if g.ndim == 4 else tuple(isz)
        y, yt = call.output(out, shape, g.dtype, lib.ACL_FORMAT_NCHW)
        launch("UpsampleNearestExact2dBackward", call.input(g, lib.ACL_FORMAT_NCHW), int_array(osz),
               int_array(isz), sh, sw, yt, stream=stream)
    return y
