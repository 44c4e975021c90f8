"""2-D grid sampling: aclnnGridSampler2D (forward) and aclnnGridSampler2DBackward."""
import numpy as np

from ..tensor import bool_array
from ._common import FLOAT_DTYPES, as_tensor, check_dtype, finish_output, launch, output_tensor

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


def _inputs(arrays, names):
    arrs = [np.asarray(a) for a in arrays]
    for a, n in zip(arrs, names):
        check_dtype(a, GRID_DTYPES, n)
    return arrs


def _out(out, shape, dtype, zeros):
    if out is None and zeros:
        return as_tensor(np.zeros(shape, dtype))
    return output_tensor(out, shape, dtype)


def grid_sampler2d(input, grid, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False, *,
                   out=None):
    """Sample ``input`` at the normalised locations of ``grid`` (``torch.nn.functional.grid_sample``).

    input: (N, C, H_in, W_in); grid: (N, H_out, W_out, 2) with grid[..., 0] = x (width) and grid[..., 1] = y
    (height) in [-1, 1]; returns (N, C, H_out, W_out). dtypes float32, float16, bfloat16, float64 (all the
    same; float64 does not support bicubic). interpolation_mode: "bilinear" | "nearest" | "bicubic" or
    0/1/2; padding_mode: "zeros" | "border" | "reflection" or 0/1/2.
    """
    input, grid = _inputs((input, grid), ("input", "grid"))
    im = _mode(interpolation_mode, _INTERP, "interpolation_mode")
    pm = _mode(padding_mode, _PADDING, "padding_mode")
    shape = (input.shape[0], input.shape[1], grid.shape[1], grid.shape[2]) if input.ndim == 4 and grid.ndim == 4 \
        else (0, 0, 0, 0)
    it, gt = as_tensor(input), as_tensor(grid)
    ot = output_tensor(out, shape, input.dtype)
    launch("GridSampler2D", it, gt, im, pm, bool(align_corners), ot)
    return finish_output(ot, out)


def grid_sampler2d_backward(grad_output, input, grid, interpolation_mode="bilinear", padding_mode="zeros",
                            align_corners=False, output_mask=(True, True), *, out=None):
    """Gradients of grid_sampler2d (``torch.ops.aten.grid_sampler_2d_backward``).

    grad_output: (N, C, H_out, W_out); input: (N, C, H_in, W_in); grid: (N, H_out, W_out, 2); all one dtype
    (float32, float16, bfloat16, float64). Returns (input_grad, grid_grad) shaped like input and grid; an output
    whose ``output_mask`` entry is False is not computed and returned as None (nearest mode: grid_grad is zero).
    ``out``: optional (input_grad, grid_grad) arrays to write into (either may be None).
    """
    grad_output, input, grid = _inputs((grad_output, input, grid), ("grad_output", "input", "grid"))
    im = _mode(interpolation_mode, _INTERP, "interpolation_mode")
    pm = _mode(padding_mode, _PADDING, "padding_mode")
    mask = [bool(m) for m in output_mask]
    outs = tuple(out) if out is not None else (None, None)
    # empty inputs leave the outputs untouched at the C level; fresh outputs then start as zeros (like PyTorch)
    empty = grad_output.size == 0 or input.size == 0 or grid.size == 0
    gt_in = _out(outs[0], input.shape, input.dtype, empty)
    gt_grid = _out(outs[1], grid.shape, input.dtype, empty)
    launch("GridSampler2DBackward", as_tensor(grad_output), as_tensor(input), as_tensor(grid), im, pm,
           bool(align_corners), bool_array(mask), gt_in, gt_grid)
    res_in = finish_output(gt_in, outs[0]) if mask[0] else None
    res_grid = finish_output(gt_grid, outs[1]) if len(mask) > 1 and mask[1] else None
    return res_in, res_grid
