"""GridSampler3D / GridSampler3DBackward nearest mode: the source index is the coordinate rounded half to even by an
inline rounding (kernels/grid_sampler_coord.inc gs_rint; before: libm nearbyint). Grid points whose source
coordinates are exact ties (k + 1/2, for sizes where the unnormalisation is exact: powers of two without
alignCorners, 2^k + 1 with it), ties just outside the volume (-1/2 -> 0 is inside, size - 1/2 rounds to the even
neighbour), huge coordinates (2^22 + 1/2, beyond 2^23, near and beyond 2^31, +-Inf), in fp32 / fp64 / fp16 / bf16,
the three paddings; forward and gradInput byte for byte against the literal scalar implementation of
test_grid3d_nan_s16 (numpy's rint), and the same bytes at every SIMD level and thread count."""
import numpy as np
import pytest

from helpers import same_bytes_for_threads_and_levels
from test_grid3d_nan_s16 import DTS, _check

SHAPES = {False: (2, 4, 8), True: (3, 5, 9)}  # (D, H, W): exact ties either way


def _coord_to_grid(c, size, align):
    """the normalised coordinate whose source coordinate is c (exact for these sizes)"""
    return 2.0 * c / (size - 1) - 1.0 if align else (2.0 * c + 1.0) / size - 1.0


def _tie_grid(align, n_pts=96, seed=0):
    D, H, W = SHAPES[align]
    rng = np.random.default_rng(seed)
    cols = []
    for size in (W, H, D):
        ties = np.arange(-2, size + 2) + 0.5  # -1.5 .. size + 1.5
        cols.append(_coord_to_grid(rng.choice(ties, n_pts), size, align))
    g = np.stack(cols, -1)
    big = [_coord_to_grid(c, W, align) for c in (2.0 ** 22 + 0.5, -(2.0 ** 22) - 0.5, 2.0 ** 23 + 3, 3e9, -3e9)]
    g[: len(big), 0] = big
    g[5, 1], g[6, 2] = np.inf, -np.inf
    return g.reshape(1, 2, 4, n_pts // 8, 3), (D, H, W)


@pytest.mark.parametrize("dtn", ["f32", "f64", "f16", "bf16"])
@pytest.mark.parametrize("pad", [0, 1, 2])
@pytest.mark.parametrize("align", [False, True])
def test_nearest_ties_round_half_even(dtn, pad, align):
    dt = DTS[dtn]
    g, (D, H, W) = _tie_grid(align)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 3, D, H, W)).astype(dt)
    go = rng.standard_normal((1, 3) + g.shape[1:4]).astype(dt)
    _check(x, g.astype(dt), go, 1, pad, align, f"{dtn} pad {pad} align {align}")


CODE = """
import hashlib, sys, numpy as np
sys.path.insert(0, "tests")
from test_grid3d_rint_s16 import _tie_grid, DTS
from test_grid3d_nan_s16 import _run
h = hashlib.sha256()
for dtn in ("f32", "f64", "f16"):
    for align in (False, True):
        g, (D, H, W) = _tie_grid(align, 192, 3)
        rng = np.random.default_rng(2)
        x = rng.standard_normal((1, 4, D, H, W)).astype(DTS[dtn])
        go = rng.standard_normal((1, 4) + g.shape[1:4]).astype(DTS[dtn])
        for pad in (0, 1, 2):
            for a in _run(x, g.astype(DTS[dtn]), go, 1, pad, align):
                h.update(np.ascontiguousarray(a).tobytes())
print(h.hexdigest())
"""


def test_same_bytes_every_thread_count_and_level():
    same_bytes_for_threads_and_levels(CODE, threads=(1, 2, 3))
