"""Shared inputs of the grid sampler tests: grids with special points, dtype handling, tolerance checks."""
import itertools

import numpy as np

from helpers import BF16, TOL

ALL_DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16, np.dtype(np.float64)]
ALL_IDS = ["f32", "f16", "bf16", "f64"]
MODES = list(itertools.product(range(3), range(3), (False, True)))
MODE_IDS = [f"{'bil nea bic'.split()[i]}-{'zer bor ref'.split()[p]}-{'ac' if a else 'na'}" for i, p, a in MODES]


def make_grid(rng, N, Ho, Wo, H, W, align, special=True, spread=1.4):
    """Random grid in [-spread, spread] plus exact pixel centres/edges and (special) NaN, +-inf, huge values."""
    g = rng.uniform(-spread, spread, (N, Ho, Wo, 2))
    pts = []
    for i in range(min(W, 3)):  # pixel centres
        cx = (2 * i / (W - 1) - 1) if (align and W > 1) else ((2 * i + 1) / W - 1)
        pts.append((cx, -1.0))
    pts += [(-1.0, -1.0), (1.0, 1.0), (0.0, 0.0), (-1.0, 1.0), (1 / W, -1 / H), (0.5, 0.25)]
    if special:
        pts += [(np.nan, 0.0), (0.0, np.nan), (np.inf, 0.25), (-np.inf, 0.5), (0.3, np.inf), (0.1, -np.inf),
                (1e10, 0.0), (-1e10, 0.5), (np.nan, np.inf)]
    flat = g.reshape(-1, 2)
    for k, p in enumerate(pts[: len(flat)]):
        flat[(k * 7) % len(flat)] = p
    return g


def finite_mask(grid):
    """Grid points PyTorch handles the same way as the SPEC (finite, moderate coordinates)."""
    return np.all(np.isfinite(grid) & (np.abs(grid) < 1e6), axis=-1)


def cast(a, dtype):
    with np.errstate(over="ignore"):
        return np.asarray(a, np.float64).astype(np.float32).astype(dtype)


def check(actual, expected, dtype, what, scale_atol=True):
    """actual (in dtype) vs a float64 reference, rounded once to dtype; atol scaled by the reference magnitude."""
    rtol, atol = TOL[np.dtype(dtype)]
    exp = np.asarray(expected, np.float64)
    if np.dtype(dtype) != np.float64:
        exp = exp.astype(np.float32).astype(dtype).astype(np.float64)
    if np.dtype(dtype) == np.float32:
        rtol, atol = 2e-5, 2e-5
    fin = exp[np.isfinite(exp)]
    mag = float(np.max(np.abs(fin))) if fin.size else 1.0
    act = np.asarray(actual).astype(np.float64)
    assert act.shape == exp.shape, what
    np.testing.assert_allclose(act, exp, rtol=rtol, atol=atol * max(1.0, mag) if scale_atol else atol,
                               equal_nan=True, err_msg=what)
