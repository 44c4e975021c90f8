"""Multi-scale deformable attention (Deformable-DETR): forward and backward.

Shapes (bs batch, K keys = sum of H*W over levels, nh heads, C channels per head, nl levels, nq queries,
np points per level):

* ``value``               (bs, K, nh, C)            float32 / float16 / bfloat16
* ``spatial_shapes``      (nl, 2) = (H, W) per level int32 or int64
* ``level_start_index``   (nl,) first key of each level (normally the exclusive prefix sum of H*W)
* ``sampling_locations``  (bs, nq, nh, nl, np, 2)   normalised to [0, 1]; [..., 0] = x (times W), [..., 1] = y
* ``attention_weights``   (bs, nq, nh, nl, np)
* output / ``grad_output`` (bs, nq, nh*C)  (grad_output may also be given as (bs, nq, nh, C))

A point samples pixel (y*H - 0.5, x*W - 0.5) of its level bilinearly with zero padding; corners outside the
level, or whose key index falls outside [0, K), read as zero and receive no gradient.
"""
import numpy as np

from .._ffi import lib
from ._common import FLOAT_DTYPES, OpCall, launch

__all__ = ["multi_scale_deformable_attn", "multi_scale_deformable_attn_backward"]

_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _index(call, arr):
    return call.input(arr, lib.ACL_FORMAT_ND)


def _inputs(call, value, spatial_shapes, level_start_index, sampling_locations, attention_weights):
    """The five inputs both directions share, as arrays checked against their dtype tables."""
    return (call.array(value, "value", FLOAT_DTYPES),
            call.array(spatial_shapes, "spatial_shapes", _INDEX_DTYPES),
            call.array(level_start_index, "level_start_index", _INDEX_DTYPES),
            call.array(sampling_locations, "sampling_locations", FLOAT_DTYPES),
            call.array(attention_weights, "attention_weights", FLOAT_DTYPES))


def multi_scale_deformable_attn(value, spatial_shapes, level_start_index, sampling_locations, attention_weights,
                                *, out=None, stream=None):
    """Forward (aclnnMultiScaleDeformableAttnFunction): returns (bs, nq, nh*C) in value's dtype.

    value (bs, K, nh, C); spatial_shapes (nl, 2) int32/int64 (H, W); level_start_index (nl,) int32/int64;
    sampling_locations (bs, nq, nh, nl, np, 2) with (x, y) in [0, 1]; attention_weights (bs, nq, nh, nl, np).
    value, locations, weights and the output share one dtype (float32 / float16 / bfloat16); nq >= 32,
    C % 8 == 0, C <= 256. out: an array or tensor of the result's shape and dtype, written in place and
    returned. stream: optional.
    """
    with OpCall() as call:
        v, ss, ls, loc, attn = _inputs(call, value, spatial_shapes, level_start_index, sampling_locations,
                                       attention_weights)
        bs, _, nh, c = v.shape if v.ndim == 4 else (0, 0, 0, 0)
        nq = loc.shape[1] if loc.ndim == 6 else 0
        y, yt = call.output(out, (bs, nq, nh * c), v.dtype)
        launch("MultiScaleDeformableAttnFunction", call.input(v), _index(call, ss), _index(call, ls),
               call.input(loc), call.input(attn), yt, stream=stream)
    return y


def multi_scale_deformable_attn_backward(value, spatial_shapes, level_start_index, sampling_locations,
                                         attention_weights, grad_output, *, out=None, stream=None):
    """Backward (aclnnMultiScaleDeformableAttentionGrad): returns (grad_value, grad_location, grad_attn_weight).

    value, spatial_shapes, level_start_index, sampling_locations, attention_weights: as for
    :func:`multi_scale_deformable_attn`; grad_output: (bs, nq, nh*C) or (bs, nq, nh, C), float32 / float16 /
    bfloat16.
    Each gradient has the shape and dtype of its input (value, sampling_locations, attention_weights);
    the float inputs may have different dtypes. grad_value is fully written (zero where nothing samples).
    out: optional (grad_value, grad_location, grad_attn_weight) arrays or tensors (any may be None), written in
    place and returned. stream: optional.
    """
    with OpCall() as call:
        v, ss, ls, loc, attn = _inputs(call, value, spatial_shapes, level_start_index, sampling_locations,
                                       attention_weights)
        go = call.array(grad_output, "grad_output", FLOAT_DTYPES)
        outs = tuple(out) if out is not None else (None, None, None)
        if len(outs) != 3:
            raise ValueError("out must be a triple (grad_value, grad_location, grad_attn_weight)")
        gv, gv_t = call.output(outs[0], v.shape, v.dtype, name="out[0]")
        gl, gl_t = call.output(outs[1], loc.shape, loc.dtype, name="out[1]")
        ga, ga_t = call.output(outs[2], attn.shape, attn.dtype, name="out[2]")
        launch("MultiScaleDeformableAttentionGrad", call.input(v), _index(call, ss), _index(call, ls),
               call.input(loc), call.input(attn), call.input(go), gv_t, gl_t, ga_t, stream=stream)
    return gv, gl, ga
