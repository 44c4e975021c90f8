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
from ._common import FLOAT_DTYPES, as_tensor, check_dtype, finish_output, launch, output_tensor

__all__ = ["multi_scale_deformable_attn", "multi_scale_deformable_attn_backward"]

_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _index(arr, name):
    arr = np.asarray(arr)
    check_dtype(arr, _INDEX_DTYPES, name)
    return as_tensor(arr, lib.ACL_FORMAT_ND)


def _float(arr, name):
    arr = np.asarray(arr)
    check_dtype(arr, FLOAT_DTYPES, name)
    return arr


def multi_scale_deformable_attn(value, spatial_shapes, level_start_index, sampling_locations, attention_weights,
                                *, out=None):
    """Forward: returns (bs, nq, nh*C) in value's dtype (``out`` if given).

    value (bs, K, nh, C); spatial_shapes (nl, 2) int32/int64 (H, W); level_start_index (nl,);
    sampling_locations (bs, nq, nh, nl, np, 2) with (x, y) in [0, 1]; attention_weights (bs, nq, nh, nl, np).
    location, attention weights and output share value's dtype; nq >= 32, C % 8 == 0, C <= 256.
    """
    value = _float(value, "value")
    loc = _float(sampling_locations, "sampling_locations")
    attn = _float(attention_weights, "attention_weights")
    bs, _, nh, c = value.shape if value.ndim == 4 else (0, 0, 0, 0)
    nq = loc.shape[1] if loc.ndim == 6 else 0
    ot = output_tensor(out, (bs, nq, nh * c), value.dtype)
    launch("MultiScaleDeformableAttnFunction", as_tensor(value), _index(spatial_shapes, "spatial_shapes"),
           _index(level_start_index, "level_start_index"), as_tensor(loc), as_tensor(attn), ot)
    return finish_output(ot, out)


def multi_scale_deformable_attn_backward(value, spatial_shapes, level_start_index, sampling_locations,
                                         attention_weights, grad_output):
    """Backward: returns (grad_value, grad_location, grad_attn_weight).

    Inputs as for :func:`multi_scale_deformable_attn`, plus grad_output (bs, nq, nh*C) or (bs, nq, nh, C).
    Each gradient has the shape and dtype of its input (value, sampling_locations, attention_weights);
    the float inputs may have different dtypes. gradValue is fully written (zero where nothing samples).
    """
    value = _float(value, "value")
    loc = _float(sampling_locations, "sampling_locations")
    attn = _float(attention_weights, "attention_weights")
    go = _float(grad_output, "grad_output")
    gv = output_tensor(None, value.shape, value.dtype)
    gl = output_tensor(None, loc.shape, loc.dtype)
    ga = output_tensor(None, attn.shape, attn.dtype)
    launch("MultiScaleDeformableAttentionGrad", as_tensor(value), _index(spatial_shapes, "spatial_shapes"),
           _index(level_start_index, "level_start_index"), as_tensor(loc), as_tensor(attn), as_tensor(go),
           gv, gl, ga)
    return gv.numpy(), gl.numpy(), ga.numpy()
