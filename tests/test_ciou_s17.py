"""aclnnCIoU (Ascend950 path) after session 17's speed change: blocks of 256 boxes without a NaN input run plain
float operations in the kernel's order as vector loops, with a fast double atan whose float rounding is used only
when a relative 2^-36 margin around it rounds to one float (else libm; tools/ciou_atan_check.c compares the fast
path with libm over every non-negative float); blocks with a NaN input keep the element path. Checked here: the bits
against a literal numpy float32 evaluation (atan in float64 rounded once), for both layouts and modes, f32 / f16,
NaN blocks next to plain ones, +-Inf, zero / negative sizes, subnormal halves, ratios whose atan falls in the libm
margin, strided views; and the same bytes at OMP_NUM_THREADS 1/2/3 and every PYACLNN_SIMD level."""
import importlib.util
import os

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi
from helpers import REPO, run_executor, same_bytes_for_threads_and_levels, ws_call

_spec = importlib.util.spec_from_file_location("cv950", os.path.join(REPO, "tests", "ops", "test_cv_950_soc.py"))
cv950 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cv950)

f = np.float32
SOC950 = "Ascend950PR_9599"
EPS, FLOOR = f(1e-7), f(1e-4)


@pytest.fixture(autouse=True)
def soc950(monkeypatch):
    monkeypatch.setenv("PYACLNN_SOC_NAME", SOC950)


mx, mn = cv950.mx, cv950.mn  # NaN-propagating max / min (the kernel's)


def ratio(w, h):
    with np.errstate(all="ignore"):
        return w / mx(h + EPS, FLOOR)


def ref(b, g, trans, iof, dt):
    """tests/ops/test_cv_950_soc.py's float32 step-by-step CIoU (overlap, atan difference), in dt"""
    o, a = cv950.ciou_ref(b, g, trans, iof)
    return o.astype(dt), a.astype(dt)


def boxes(rng, n, trans, special=False):
    xy = rng.uniform(-5, 20, (2, n))
    wh = rng.uniform(0.1, 8, (2, n))
    b = (np.concatenate([xy, wh]) if trans else np.concatenate([xy, xy + wh])).astype(f)
    if special:  # edge values in every block; NaNs only in blocks 1 and 3 (of 256 boxes)
        b[2, 5::89] = np.inf
        b[1, 7::83] = -np.inf
        b[2, 9::79] = b[0, 9::79]
        b[3, 11::73] = b[1, 11::73] - 1.0
        b[:, 13::71] = 3e-8
        b[:, 15::67] = 6e4
        b[0, 256 + 3] = np.nan
        b[3, 768 + 200] = np.nan
    return b


def margin_boxes(rng, n):
    """(x, y, w, h) boxes whose w / (h + eps) ratios have an atan within the fast path's margin of a float
    rounding boundary (so libm decides), mixed with plain ones."""
    w = rng.uniform(0.01, 50, 400000).astype(f)
    h = rng.uniform(0.01, 50, 400000).astype(f)
    y = np.arctan(ratio(w, h).astype(np.float64))
    hit = (y * (1 - 2.0 ** -36)).astype(f) != (y * (1 + 2.0 ** -36)).astype(f)
    assert hit.sum() >= 4
    b = np.concatenate([rng.uniform(0, 9, (2, n)), rng.uniform(0.1, 8, (2, n))]).astype(f)
    k = min(int(hit.sum()), n // 8)
    b[2, ::8][:k], b[3, ::8][:k] = w[hit][:k], h[hit][:k]
    return b


def call(bt, gt, trans, mode, ot, at):
    rc, ws, ex, msg = ws_call("CIoU", bt, gt, trans, False, ffi.new("char[]", mode.encode()), ot, at)
    assert rc == 0, msg
    assert run_executor("CIoU", ex, ws) == 0
    return ot.numpy(), at.numpy()


same_bits = cv950.same_bits  # equal bits where numbers, NaN at the same places


T = pyaclnn.AclTensor.from_array


@pytest.mark.parametrize("special", [False, True], ids=["plain", "edges"])
@pytest.mark.parametrize("mode", ["iou", "iof"])
@pytest.mark.parametrize("trans", [False, True], ids=["xyxy", "xywh"])
@pytest.mark.parametrize("dt", [np.float32, np.float16], ids=["f32", "f16"])
def test_bits(dt, trans, mode, special):
    rng = np.random.default_rng(31)
    n = 2048
    b, g = boxes(rng, n, trans, special), boxes(rng, n, trans, special)
    b, g = b.astype(dt), g.astype(dt)
    o, a = call(T(b), T(g), trans, mode, pyaclnn.AclTensor((1, n), np.dtype(dt)), pyaclnn.AclTensor((1, n), np.dtype(dt)))
    ro, ra = ref(b, g, trans, mode == "iof", dt)
    same_bits(o, ro)
    same_bits(a, ra)


@pytest.mark.parametrize("mode", ["iou", "iof"])
def test_atan_margin_values_take_libm(mode):
    rng = np.random.default_rng(32)
    n = 4096
    b, g = margin_boxes(rng, n), margin_boxes(rng, n)
    o, a = call(T(b), T(g), True, mode, pyaclnn.AclTensor((1, n), np.dtype(f)), pyaclnn.AclTensor((1, n), np.dtype(f)))
    ro, ra = ref(b, g, True, mode == "iof", f)
    same_bits(o, ro)
    same_bits(a, ra)


@pytest.mark.parametrize("dt", [np.float32, np.float16], ids=["f32", "f16"])
def test_strided_views(dt):
    rng = np.random.default_rng(33)
    n = 1024
    b, g = boxes(rng, n, False, True).astype(dt), boxes(rng, n, False, True).astype(dt)
    bv = np.zeros((4, 2 * n), dt)[:, ::2]
    bv[...] = b
    gv = np.ascontiguousarray(g.T).T
    ot = pyaclnn.AclTensor((1, n), np.dtype(dt), strides=(1, 3), offset=2)
    at = pyaclnn.AclTensor((1, n), np.dtype(dt), strides=(1, 2))
    o, a = call(T(bv), T(gv), False, "iou", ot, at)
    ro, ra = ref(b, g, False, False, dt)
    same_bits(o, ro)
    same_bits(a, ra)


BYTES_CODE = """
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, %(tests)r)
from test_ciou_s17 import boxes, margin_boxes, call
T = pyaclnn.AclTensor.from_array
h = hashlib.sha256()
rng = np.random.default_rng(5)
n = 4096
for dt in (np.float32, np.float16):
    for trans in (False, True):
        for mode in ("iou", "iof"):
            for special in (False, True):
                b, g = boxes(rng, n, trans, special).astype(dt), boxes(rng, n, trans, special).astype(dt)
                for out in call(T(b), T(g), trans, mode, pyaclnn.AclTensor((1, n), np.dtype(dt)),
                                pyaclnn.AclTensor((1, n), np.dtype(dt))):
                    h.update(out.tobytes())
    b, g = margin_boxes(rng, n).astype(dt), margin_boxes(rng, n).astype(dt)
    for out in call(T(b), T(g), True, "iou", pyaclnn.AclTensor((1, n), np.dtype(dt)),
                    pyaclnn.AclTensor((1, n), np.dtype(dt))):
        h.update(out.tobytes())
print(h.hexdigest())
"""


def test_same_bytes_threads_and_levels():
    same_bytes_for_threads_and_levels(BYTES_CODE % {"tests": os.path.join(REPO, "tests")}, threads=(1, 2, 3), env={"PYACLNN_SOC_NAME": SOC950})
