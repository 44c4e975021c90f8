"""Convolutions: aclnnConvolution (1-d / 2-d / 3-d, transposed), aclnnConvolutionBackward, aclnnConvDepthwise2d,
aclnnConvTbc and aclnnConvTbcBackward as numpy functions."""
import numpy as np

from .._ffi import lib
from ..tensor import bool_array, int_array
from ._common import FLOAT_DTYPES, OpCall, launch

__all__ = ["convolution", "convolution_output_size", "convolution_backward", "conv_depthwise2d", "conv_tbc",
           "conv_tbc_backward"]

_FMT = {3: lib.ACL_FORMAT_NCL, 4: lib.ACL_FORMAT_NCHW, 5: lib.ACL_FORMAT_NCDHW}


def _fmt(arr, name):
    if arr.ndim not in _FMT:
        raise ValueError(f"{name} must be 3-d (N, C, L), 4-d (N, C, H, W) or 5-d (N, C, D, H, W), got {arr.shape}")
    return _FMT[arr.ndim]


def _seq(v, n, name):
    v = [int(v)] * n if np.isscalar(v) else [int(e) for e in v]
    if not v and n:
        raise ValueError(f"{name} must not be empty")
    return v


def convolution_output_size(input_shape, weight_shape, stride=1, padding=0, dilation=1, transposed=False,
                            output_padding=0, groups=1):
    """The output shape aclnnConvolution requires (padding of 2 * spatial values: per side, conv1d/conv2d)."""
    nd = len(input_shape) - 2
    s, d = _seq(stride, nd, "stride"), _seq(dilation, nd, "dilation")
    p = _seq(padding, nd, "padding")
    op = _seq(output_padding, nd, "output_padding")
    sums = [p[2 * i] + p[2 * i + 1] for i in range(nd)] if len(p) == 2 * nd and nd < 3 else [2 * v for v in p]
    sp = []
    for i in range(nd):
        k = weight_shape[2 + i]
        if transposed:
            sp.append((input_shape[2 + i] - 1) * s[i] - sums[i] + d[i] * (k - 1) + op[i] + 1)
        else:
            sp.append(int((input_shape[2 + i] + sums[i] - d[i] * (k - 1) - 1) / s[i]) + 1)
    cout = weight_shape[1] * groups if transposed else weight_shape[0]
    return (input_shape[0], cout) + tuple(sp)


def convolution(input, weight, bias=None, stride=1, padding=0, dilation=1, transposed=False, output_padding=0,
                groups=1, cube_math_type=0, out_dtype=None, *, out=None, stream=None):
    """N-d convolution or transposed convolution (aclnnConvolution), PyTorch conv{1,2,3}d / conv_transpose{1,2,3}d.

    input: (N, C_in, L) / (N, C_in, H, W) / (N, C_in, D, H, W); weight: (C_out, C_in / groups, k...) or, transposed,
    (C_in, C_out / groups, k...); bias: None or (C_out,). float32 / float16 / bfloat16 in any mix (computed in
    float32, rounded once). stride, dilation: int or one value per spatial axis; padding: int, one value per axis,
    or [left, right] (conv1d) / [top, bottom, left, right] (conv2d, also transposed); output_padding (transposed
    only): int or per axis; groups >= 1; cube_math_type: validated only (0..4). Returns the
    :func:`convolution_output_size` result in out_dtype (default: input's dtype). out / stream: as elsewhere.
    """
    with OpCall() as call:
        x = call.array(input, "input", FLOAT_DTYPES)
        w = call.array(weight, "weight", FLOAT_DTYPES)
        b = None if bias is None else call.array(bias, "bias", FLOAT_DTYPES)
        fmt = _fmt(x, "input")
        nd = x.ndim - 2
        shape = convolution_output_size(x.shape, w.shape, stride, padding, dilation, transposed, output_padding,
                                        groups)
        y, yt = call.output(out, shape, np.dtype(out_dtype) if out_dtype is not None else x.dtype, fmt)
        launch("Convolution", call.input(x, fmt), call.input(w, _fmt(w, "weight")),
               None if b is None else call.input(b, lib.ACL_FORMAT_ND), int_array(_seq(stride, nd, "stride")),
               int_array(_seq(padding, nd, "padding")), int_array(_seq(dilation, nd, "dilation")), bool(transposed),
               int_array(_seq(output_padding, nd, "output_padding")), int(groups), yt, int(cube_math_type),
               stream=stream)
    return y


def convolution_backward(grad_output, input, weight, stride=1, padding=0, dilation=1, transposed=False,
                         output_padding=0, groups=1, cube_math_type=0, output_mask=(True, True, True), *, out=None,
                         stream=None):
    """Gradients of :func:`convolution` (aclnnConvolutionBackward): (grad_input, grad_weight, grad_bias).

    grad_output has the forward output's shape (float32 / float16 / bfloat16); input, weight, stride, padding,
    dilation, transposed, output_padding, groups as in :func:`convolution`. output_mask selects the gradients
    (None for the others); grad_input has input's dtype, grad_weight weight's, grad_bias (C_out,) grad_output's.
    cube_math_type: 0..3. out: None or a 3-tuple of arrays (None entries allocated) written in place.
    stream: as elsewhere.
    """
    with OpCall() as call:
        g = call.array(grad_output, "grad_output", FLOAT_DTYPES)
        x = call.array(input, "input", FLOAT_DTYPES)
        w = call.array(weight, "weight", FLOAT_DTYPES)
        fmt = _fmt(x, "input")
        nd = x.ndim - 2
        cout = g.shape[1]
        mask = [bool(m) for m in output_mask]
        outs = tuple(out) if out is not None else (None, None, None)
        res = [None, None, None]
        handles = [None, None, None]
        if mask[0]:
            res[0], handles[0] = call.output(outs[0], x.shape, x.dtype, fmt, name="grad_input")
        if mask[1]:
            res[1], handles[1] = call.output(outs[1], w.shape, w.dtype, fmt, name="grad_weight")
        if mask[2]:
            res[2], handles[2] = call.output(outs[2], (cout,), g.dtype, lib.ACL_FORMAT_ND, name="grad_bias")
        op = _seq(output_padding, nd, "output_padding") if transposed else [0] * nd
        launch("ConvolutionBackward", call.input(g, fmt), call.input(x, fmt), call.input(w, fmt), int_array([cout]),
               int_array(_seq(stride, nd, "stride")), int_array(_seq(padding, nd, "padding")),
               int_array(_seq(dilation, nd, "dilation")), bool(transposed), int_array(op), int(groups),
               bool_array(mask), int(cube_math_type), *handles, stream=stream)
    return tuple(res)


def conv_depthwise2d(input, weight, bias=None, stride=1, padding=0, dilation=1, cube_math_type=0, *, out=None,
                     stream=None):
    """Depthwise 2-d convolution (aclnnConvDepthwise2d): input (N, C, H, W), weight (C * m, 1, kH, kW), bias None
    or (C * m,), all one dtype (float32 / float16 / bfloat16); groups = C. stride, padding, dilation: int or 2
    values. Returns (N, C * m, Ho, Wo). out / stream: as elsewhere."""
    with OpCall() as call:
        x = call.array(input, "input", FLOAT_DTYPES)
        w = call.array(weight, "weight", FLOAT_DTYPES)
        b = None if bias is None else call.array(bias, "bias", FLOAT_DTYPES)
        shape = convolution_output_size(x.shape, w.shape, stride, padding, dilation)
        y, yt = call.output(out, shape, x.dtype, lib.ACL_FORMAT_NCHW)
        launch("ConvDepthwise2d", call.input(x, lib.ACL_FORMAT_NCHW), call.input(w, lib.ACL_FORMAT_NCHW),
               int_array(list(w.shape[2:])), None if b is None else call.input(b, lib.ACL_FORMAT_ND),
               int_array(_seq(stride, 2, "stride")), int_array(_seq(padding, 2, "padding")),
               int_array(_seq(dilation, 2, "dilation")), yt, int(cube_math_type), stream=stream)
    return y


def conv_tbc(input, weight, bias, pad=0, cube_math_type=0, *, out=None, stream=None):
    """Time-batch-channel 1-d convolution (aclnnConvTbc), PyTorch ``conv_tbc``: input (T, B, C_in), weight
    (K, C_in, C_out), bias (C_out,), one dtype (float32 / float16 / bfloat16); pad: zeros before and after T;
    cube_math_type: validated only (0..4). Returns (T + 2 * pad - K + 1, B, C_out). out / stream: as elsewhere."""
    with OpCall() as call:
        x = call.array(input, "input", FLOAT_DTYPES)
        w = call.array(weight, "weight", FLOAT_DTYPES)
        b = call.array(bias, "bias", FLOAT_DTYPES)
        shape = (x.shape[0] + 2 * int(pad) - w.shape[0] + 1, x.shape[1], w.shape[2])
        y, yt = call.output(out, shape, x.dtype, lib.ACL_FORMAT_ND)
        launch("ConvTbc", call.input(x, lib.ACL_FORMAT_ND), call.input(w, lib.ACL_FORMAT_ND),
               call.input(b, lib.ACL_FORMAT_ND), int(pad), yt, int(cube_math_type), stream=stream)
    return y


def conv_tbc_backward(grad_output, input, weight, bias, pad=0, cube_math_type=0, *, out=None, stream=None):
    """Gradients of :func:`conv_tbc` (aclnnConvTbcBackward): grad_output (T_out, B, C_out), input, weight, bias and
    pad as in :func:`conv_tbc` (float32 / float16 / bfloat16); returns (grad_input, grad_weight, grad_bias) in the
    dtypes of input, weight and bias. cube_math_type: 0..3. out: None or a 3-tuple of arrays written in place.
    stream: as elsewhere."""
    with OpCall() as call:
        g = call.array(grad_output, "grad_output", FLOAT_DTYPES)
        x = call.array(input, "input", FLOAT_DTYPES)
        w = call.array(weight, "weight", FLOAT_DTYPES)
        b = call.array(bias, "bias", FLOAT_DTYPES)
        nd = lib.ACL_FORMAT_ND
        outs = tuple(out) if out is not None else (None, None, None)
        gx, gxt = call.output(outs[0], x.shape, x.dtype, nd, name="grad_input")
        gw, gwt = call.output(outs[1], w.shape, w.dtype, nd, name="grad_weight")
        gb, gbt = call.output(outs[2], b.shape, b.dtype, nd, name="grad_bias")
        launch("ConvTbcBackward", call.input(g, nd), call.input(x, nd), call.input(w, nd), call.input(b, nd),
               int(pad), int(cube_math_type), gxt, gwt, gbt, stream=stream)
    return gx, gw, gb
