"""aclnnCIoU (Ascend950 path) after session 17's speed change: blocks of 256 boxes without a NaN input run plain
float operations in the kernel's order as vector loops, with a fast double atan whose float rounding is used only
when a relative 2^-36 margin around it rounds to one float (else libm; tools/ciou_atan_check.c compares the fast
path with libm over every non-negative float); blocks with a NaN input keep the element path. Checked here: the bits
against a literal numpy float32 evaluation (atan in float64 rounded once), for both layouts and modes, f32 / f16,
NaN blocks next to plain ones, +-Inf, zero / negative sizes, subnormal halves, ratios whose atan falls in the libm
margin, strided views; and the same bytes at OMP_NUM_THREADS 1/2/3 and every PYACLNN_SIMD level."""
import os

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi
from helpers import REPO, run_executor, run_python, ws_call

f = np.float32
SOC950 = "Ascend950PR_9599"
EPS, FLOOR = f(1e-7), f(1e-4)


@pytest.fixture(autouse=True)
def soc950(monkeypatch):
    monkeypatch.setenv("PYACLNN_SOC_NAME", SOC950)


def mx(a, b):
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a > b, a, b)))


def mn(a, b):
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a < b, a, b)))


def ratio(w, h):
    with np.errstate(all="ignore"):
        return w / mx(h + EPS, FLOOR)


def atanf(r):
    return np.arctan(r.astype(np.float64)).astype(f)


def ref(b, g, trans, iof, dt):
    b, g = np.asarray(b).astype(f), np.asarray(g).astype(f)
    zero, half, one = f(0), f(0.5), f(1)
    with np.errstate(all="ignore"):
        if trans:
            w1, h1, w2, h2 = mx(b[2], zero), mx(b[3], zero), mx(g[2], zero), mx(g[3], zero)
            x1a, x2a, y1a, y2a = b[0] - w1 * half, b[0] + w1 * half, b[1] - h1 * half, b[1] + h1 * half
            x1b, x2b, y1b, y2b = g[0] - w2 * half, g[0] + w2 * half, g[1] - h2 * half, g[1] + h2 * half
        else:
            x1a, y1a, x2a, y2a = b
            x1b, y1b, x2b, y2b = g
            w1, h1, w2, h2 = mx(x2a - x1a, zero), mx(y2a - y1a, zero), mx(x2b - x1b, zero), mx(y2b - y1b, zero)
        inter = mx(mn(x2a, x2b) - mx(x1a, x1b), zero) * mx(mn(y2a, y2b) - mx(y1a, y1b), zero)
        area2 = w2 * h2
        den = area2 + EPS if iof else ((w1 * h1 + area2) - inter) + EPS
        o = inter / mx(den, FLOOR)
        a = atanf(ratio(w1, h1)) - atanf(ratio(w2, h2))
        if not iof:
            v = (a * a) * f(0.4052847345693511)
            o = o - (v / mx((v + one) - o, FLOOR)) * v
        dx = ((x1a + x2a) - (x1b + x2b)) * half
        dy = ((y1a + y2a) - (y1b + y2b)) * half
        cw, ch = mx(x2a, x2b) - mn(x1a, x1b), mx(y2a, y2b) - mn(y1a, y1b)
        o = o - (dx * dx + dy * dy) / mx((cw * cw + ch * ch) + EPS, FLOOR)
    return o.reshape(1, -1).astype(dt), a.reshape(1, -1).astype(dt)


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


def same_bits(a, r):
    a, r = np.ascontiguousarray(a), np.ascontiguousarray(r)
    assert a.shape == r.shape and a.dtype == r.dtype
    u = np.dtype(f"u{a.dtype.itemsize}")
    na, nr = np.isnan(a), np.isnan(r)
    assert (na == nr).all(), f"NaN positions differ at {np.argwhere(na != nr)[:4].tolist()}"
    bad = (a.view(u) != r.view(u)) & ~na
    assert not bad.any(), f"{bad.sum()} differ, e.g. {np.argwhere(bad)[:4].tolist()}: {a[bad][:4]} vs {r[bad][:4]}"


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
    code = BYTES_CODE % {"tests": os.path.join(REPO, "tests")}
    outs = {}
    for env in ({"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "2"}, {"OMP_NUM_THREADS": "3"},
                {"OMP_NUM_THREADS": "2", "PYACLNN_SIMD": "off"}, {"OMP_NUM_THREADS": "2", "PYACLNN_SIMD": "avx2"},
                {"OMP_NUM_THREADS": "2", "PYACLNN_SIMD": "avx512"}):
        outs[tuple(env.items())] = run_python(code, dict(env, PYACLNN_SOC_NAME=SOC950))
    assert len(set(outs.values())) == 1, outs
