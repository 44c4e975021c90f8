"""aclnnIou after session 17's speed change (every-pair calls without NaN boxes take a vectorised row path over
float columns of gtBoxes; rows or gtBoxes holding a NaN keep the element-by-element path): the bytes against a
literal numpy float32 evaluation of the kernel's expression (fmin / fmax, eps added as written, rounded once to the
storage type), for every dtype and mode, odd widths (vector tails), +-Inf, subnormal halves, zero-width boxes,
strided inputs and outputs; NaN boxes at the same places; and the same bytes at OMP_NUM_THREADS 1/2/3 and every
PYACLNN_SIMD level."""
import os

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi
from helpers import REPO, run_executor, same_bytes_for_threads_and_levels, ws_call

f = np.float32
DTYPES, IDS = [np.dtype(np.float32), np.dtype(np.float16), pyaclnn.bfloat16], ["f32", "f16", "bf16"]


def ref(b, g, mode, eps, aligned, dt):
    """The kernel's expression in float32 (numpy float32 ops round once each), then one rounding to dt."""
    b, g = np.asarray(b).astype(f), np.asarray(g).astype(f)
    eps = f(eps)
    if aligned:
        bb, gg = b, g
    else:
        bb, gg = b[:, None, :], g[None, :, :]
    with np.errstate(all="ignore"):
        iw = (np.fmin(bb[..., 2], gg[..., 2]) + eps) - np.fmax(bb[..., 0], gg[..., 0])
        ih = (np.fmin(bb[..., 3], gg[..., 3]) + eps) - np.fmax(bb[..., 1], gg[..., 1])
        iw = np.where(iw > 0, iw, f(0))
        ih = np.where(ih > 0, ih, f(0))
        inter = iw * ih
        a1 = (bb[..., 2] - bb[..., 0] + eps) * (bb[..., 3] - bb[..., 1] + eps)
        a2 = (gg[..., 2] - gg[..., 0] + eps) * (gg[..., 3] - gg[..., 1] + eps)
        r = inter / a2 if mode == "iof" else inter / ((a1 + a2) - inter)
    r = r[:, None] if aligned else r
    return r.astype(f).astype(dt)


def boxes(rng, k, dt, special=False, nan=False):
    xy = rng.uniform(-10, 60, (k, 2))
    b = np.concatenate([xy, xy + rng.uniform(0.5, 25, (k, 2))], 1).astype(f)
    if special:
        b[3::11, 2] = np.inf
        b[5::13, 0] = -np.inf
        b[7::9, 2] = b[7::9, 0]  # zero width
        b[2::7] = rng.uniform(0, 1, (len(b[2::7]), 4)).astype(f) * f(4e-7)  # subnormal halves
        b[4::17, 1] = 0.0
        b[4::17, 3] = -0.0
    if nan:
        b[6::23, 1] = np.nan
    return b.astype(dt)


def call(bt, gt, mode, eps, aligned, ot):
    rc, ws, ex, msg = ws_call("Iou", bt, gt, ffi.new("char[]", mode.encode()), eps, aligned, ot)
    assert rc == 0, msg
    assert run_executor("Iou", ex, ws) == 0
    return ot.numpy()


def same_bits(a, r):
    a, r = np.ascontiguousarray(a), np.ascontiguousarray(r)
    assert a.shape == r.shape and a.dtype == r.dtype
    u = np.dtype(f"u{a.dtype.itemsize}")
    na, nr = np.isnan(a.astype(f)), np.isnan(r.astype(f))
    assert (na == nr).all(), f"NaN positions differ at {np.argwhere(na != nr)[:4].tolist()}"
    bad = (a.view(u) != r.view(u)) & ~na
    assert not bad.any(), f"{bad.sum()} differ, e.g. {np.argwhere(bad)[:4].tolist()}: {a[bad][:4]} vs {r[bad][:4]}"


T = pyaclnn.AclTensor.from_array


@pytest.mark.parametrize("special", [False, True], ids=["plain", "edges"])
@pytest.mark.parametrize("mode,eps", [("iou", 0.0), ("iof", 0.0), ("iou", 0.5), ("iof", 1e-3)])
@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_every_pair_bits(dt, mode, eps, special):
    rng = np.random.default_rng(17)
    for m, n in ((37, 1003), (5, 13), (9, 8), (4, 7)):
        b, g = boxes(rng, m, dt, special), boxes(rng, n, dt, special)
        y = call(T(b), T(g), mode, eps, False, pyaclnn.AclTensor((m, n), dt))
        same_bits(y, ref(b, g, mode, eps, False, dt))


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_nan_boxes_and_aligned(dt):
    rng = np.random.default_rng(18)
    b, g = boxes(rng, 29, dt, True, nan=True), boxes(rng, 131, dt, True)
    same_bits(call(T(b), T(g), "iou", 0.0, False, pyaclnn.AclTensor((29, 131), dt)), ref(b, g, "iou", 0.0, False, dt))
    g2 = boxes(rng, 131, dt, True, nan=True)  # a NaN gtBox: every row the element-by-element way
    same_bits(call(T(b), T(g2), "iof", 0.0, False, pyaclnn.AclTensor((29, 131), dt)), ref(b, g2, "iof", 0.0, False, dt))
    a = boxes(rng, 29, dt, True)
    same_bits(call(T(b), T(a), "iou", 0.0, True, pyaclnn.AclTensor((29, 1), dt)), ref(b, a, "iou", 0.0, True, dt))


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_strided_views(dt):
    rng = np.random.default_rng(19)
    b, g = boxes(rng, 21, dt, True), boxes(rng, 45, dt, True)
    bv = np.ascontiguousarray(b.T).T  # column-major storage
    gv = np.zeros((45, 9), dt)[:, 1::2]
    gv[...] = g
    ot = pyaclnn.AclTensor((21, 45), dt, strides=(1, 21))  # transposed output
    same_bits(call(T(bv), T(gv), "iou", 0.25, False, ot), ref(b, g, "iou", 0.25, False, dt))
    ot2 = pyaclnn.AclTensor((21, 45), dt, strides=(91, 2), offset=1)
    same_bits(call(T(bv), T(gv), "iof", 0.0, False, ot2), ref(b, g, "iof", 0.0, False, dt))


BYTES_CODE = """
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, %(tests)r)
from test_iou_s17 import boxes, call, DTYPES
T = pyaclnn.AclTensor.from_array
h = hashlib.sha256()
rng = np.random.default_rng(3)
for dt in DTYPES:
    for special, nan in ((False, False), (True, False), (True, True)):
        b, g = boxes(rng, 301, dt, special, nan), boxes(rng, 517, dt, special)
        for mode, eps in (("iou", 0.0), ("iof", 0.5)):
            h.update(call(T(b), T(g), mode, eps, False, pyaclnn.AclTensor((301, 517), dt)).tobytes())
print(h.hexdigest())
"""


def test_same_bytes_threads_and_levels():
    same_bytes_for_threads_and_levels(BYTES_CODE % {"tests": os.path.join(REPO, "tests")}, threads=(1, 2, 3))
