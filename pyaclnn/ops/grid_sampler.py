"""2-D grid sampling: aclnnGridSampler2D (forward) and aclnnGridSampler2DBackward."""
import numpy as np

from ..tensor import bool_array
from ._common import FLOAT_DTYPES, OpCall, launch

__all__ = ["grid_sampler2d", "grid_sampler2d_backward"]

GRID_DTYPES = FLOAT_DTYPES + (np.dtype(np.float64),)
_INTERP = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


def _mode(value, table, name):
    """A mode name (case-insensitive) or an integer code; integers pass through unchecked (the op validates)."""
    if isinstance(value, str):
        try:
            return table[value.lower()]
        except KeyError:
            raise ValueError(f"{name} must be one of {sorted(table)} or an integer code, not {value!r}") from None
    return int(value)


def grid_sampler2d(input, grid, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False, *,
                   out=None, stream=None):
    """Sample ``input`` at the normalised locations of ``grid`` (``torch.nn.functional.grid_sample``).

    input: (N, C, H_in, W_in); grid: (N, H_out, W_out, 2) with grid[..., 0] = x (width) and grid[..., 1] = y
    (height) in [-1, 1]; returns (N, C, H_out, W_out). dtypes float32, float16, bfloat16, float64 (all the
    same; float64 does not support bicubic). interpolation_mode: "bilinear" | "nearest" | "bicubic" or
    0/1/2; padding_mode: "zeros" | "border" | "reflection" or 0/1/2; align_corners: -1 and 1 are the centres
    (True) or the outer edges (False) of the corner pixels. NaN grid coordinates sample nothing (zero).
    out: an array or tensor of the result's shape and dtype, written in place and returned. stream: optional.
    """
    with OpCall() as call:
        x = call.array(input, "input", GRID_DTYPES)
        g = call.array(grid, "grid", GRID_DTYPES)
        im = _mode(interpolation_mode, _INTERP, "interpolation_mode")
        pm = _mode(padding_mode, _PADDING, "padding_mode")
        shape = (x.shape[0], x.shape[1], g.shape[1], g.shape[2]) if x.ndim == 4 and g.ndim == 4 else (0, 0, 0, 0)
        y, yt = call.output(out, shape, x.dtype)
        launch("GridSampler2D", call.input(x), call.input(g), im, pm, bool(align_corners), yt, stream=stream)
    return y


def grid_sampler2d_backward(grad_output, input, grid, interpolation_mode="bilinear", padding_mode="zeros",
                            align_corners=False, output_mask=(True, True), *, out=None, stream=None):
    """Gradients of grid_sampler2d (``torch.ops.aten.grid_sampler_2d_backward``).

    grad_output: (N, C, H_out, W_out); input: (N, C, H_in, W_in); grid: (N, H_out, W_out, 2); all one dtype
    (float32, float16, bfloat16, float64). interpolation_mode, padding_mode, align_corners as in
    :func:`grid_sampler2d`. Returns (input_grad, grid_grad) shaped like input and grid; an output whose
    ``output_mask`` entry is False is not computed and returned as None (nearest mode: grid_grad is zero).
    out: optional (input_grad, grid_grad) arrays or tensors to write into (either may be None). stream: optional.
    """
    with OpCall() as call:
        go = call.array(grad_output, "grad_output", GRID_DTYPES)
        x = call.array(input, "input", GRID_DTYPES)
        g = call.array(grid, "grid", GRID_DTYPES)
        im = _mode(interpolation_mode, _INTERP, "interpolation_mode")
        pm = _mode(padding_mode, _PADDING, "padding_mode")
        mask = [bool(m) for m in output_mask]
        outs = tuple(out) if out is not None else (None, None)
        if len(outs) != 2:
            raise ValueError("out must be a pair (input_grad, grid_grad)")
        # empty inputs leave the outputs untouched at the C level; fresh outputs then start as zeros (like PyTorch)
        empty = go.size == 0 or x.size == 0 or g.size == 0
        gi, gi_t = call.output(outs[0], x.shape, x.dtype, name="out[0]", zeros=empty)
        gg, gg_t = call.output(outs[1], g.shape, x.dtype, name="out[1]", zeros=empty)
        launch("GridSampler2DBackward", call.input(go), call.input(x), call.input(g), im, pm, bool(align_corners),
               bool_array(mask), gi_t, gg_t, stream=stream)
    return (gi if mask[0] else None), (gg if len(mask) > 1 and mask[1] else None)
