"""Grid sampler with few channels (C = 1..7): C <= 2 takes the narrow planar path (plain planes, no 8-channel lane
blocks; libsrc/kernels/grid_sampler.inc), 3..7 one partial lane block. Every dtype and mode against the float64
reference, both outputMask entries, and bit-equality of the narrow path with the lane path's arithmetic."""
import numpy as np
import pytest

import pyaclnn
from gs_cases import ALL_DTYPES, ALL_IDS, MODES, cast, check, make_grid
from helpers import same_bytes_for_threads
from reference.grid_sampler import grid_sample_backward_ref, grid_sample_ref


def _case(rng, dtype, N, C, H, W, Ho, Wo, align, pm):
    x = cast(rng.standard_normal((N, C, H, W)), dtype)
    g = cast(make_grid(rng, N, Ho, Wo, H, W, align), dtype)
    if pm == 2 and dtype != np.float64:  # huge reflected coordinates are not comparable across precisions
        g[np.abs(g.astype(np.float64)) > 1e6] = 0.75
    go = cast(rng.standard_normal((N, C, Ho, Wo)), dtype)
    return go, x, g


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("C", [1, 2, 3, 4, 5, 6, 7])
def test_few_channels_every_mode_against_reference(C, dtype):
    # P = 5 * 11 = 55 points: full 8-point groups and a tail; H, W powers of two so that make_grid's points on
    # pixel edges (1/W, -1/H) are exact in every dtype (an inexact edge point flips floor() across precisions)
    for k, (im, pm, ac) in enumerate(MODES):
        rng = np.random.default_rng(1000 * C + k)
        go, x, g = _case(rng, dtype, 2, C, 8, 16, 5, 11, ac, pm)
        what = f"C={C} im={im} pm={pm} ac={ac}"
        if not (im == 2 and dtype == np.float64):  # the forward rejects double bicubic (SPEC)
            out = pyaclnn.grid_sampler2d(x, g, im, pm, ac)
            check(out, grid_sample_ref(x, g, im, pm, ac), dtype, "output " + what)
        gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac)
        rgi, rgg = grid_sample_backward_ref(go, x, g, im, pm, ac)
        check(gi, rgi, dtype, "inputGrad " + what)
        check(gg, rgg, dtype, "gridGrad " + what)
        gi1, gg1 = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac, (True, False))
        gi2, gg2 = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac, (False, True))
        assert gg1 is None and gi2 is None
        np.testing.assert_array_equal(gi1, gi, err_msg=what)
        np.testing.assert_array_equal(gg2, gg, err_msg=what)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("C", [1, 2])
def test_narrow_path_matches_lane_arithmetic(C, dtype):
    # The same channels padded with zero channels to C = 8 go through one full lane block; per channel the narrow
    # path performs the same operations in the same order, so values are bit-equal (zero channels add exact zeros
    # to the grid gradient's fixed-order channel sum)
    for k, (im, pm, ac) in enumerate(MODES):
        rng = np.random.default_rng(77 + k)
        go, x, g = _case(rng, dtype, 2, C, 9, 10, 7, 6, ac, pm)
        g = np.where(np.isfinite(g.astype(np.float64)), g, np.zeros_like(g))
        xw = np.zeros((2, 8, 9, 10), dtype)
        gow = np.zeros((2, 8, 7, 6), dtype)
        xw[:, :C], gow[:, :C] = x, go
        what = f"C={C} im={im} pm={pm} ac={ac}"
        if not (im == 2 and dtype == np.float64):
            np.testing.assert_array_equal(pyaclnn.grid_sampler2d(x, g, im, pm, ac),
                                          pyaclnn.grid_sampler2d(xw, g, im, pm, ac)[:, :C], err_msg=what)
        gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac)
        giw, ggw = pyaclnn.grid_sampler2d_backward(gow, xw, g, im, pm, ac)
        np.testing.assert_array_equal(gi, giw[:, :C], err_msg=what)
        np.testing.assert_array_equal(gg, ggw, err_msg=what)


def test_narrow_path_deterministic_across_thread_counts():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(5)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16, np.float64):
    for C in (1, 2):
        for im in (0, 1, 2):
            x = rng.standard_normal((3, C, 37, 41)).astype(dt)
            g = (rng.uniform(-1, 1, (3, 33, 35, 2)) * 0.3).astype(dt)  # many points hit the same pixels
            go = rng.standard_normal((3, C, 33, 35)).astype(dt)
            for r in pyaclnn.grid_sampler2d_backward(go, x, g, im, 0, True):
                h.update(r.tobytes())
            if not (im == 2 and dt == np.float64):
                h.update(pyaclnn.grid_sampler2d(x, g, im, 1, False).tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
