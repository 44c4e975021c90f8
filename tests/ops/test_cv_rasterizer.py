"""aclnnRasterizer (ops-cv image/rasterizer) against the float64 loop reference of its docs
(tests/reference/rasterizer.py): the upstream example, random meshes, depth order and ties, degenerate faces,
strided outputs, the NULL / dtype (161002) / tiling (561002) rows, determinism for OMP_NUM_THREADS 1/2/7."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi
from helpers import expect_invalid, run_executor, same_bytes_for_threads, strided, ws_call
from reference.rasterizer import rasterize_ref

OP = "Rasterizer"
F32, I32 = np.dtype(np.float32), np.dtype(np.int32)
T = pyaclnn.AclTensor.from_array


def raster(v, f, W, H, outs=None, d=None):
    fi, bc = outs if outs is not None else (np.full((H, W), 7, I32), np.full((H, W, 3), 7, F32))
    ts = [T(np.asarray(v, F32)), T(np.asarray(f, I32)), T(d) if d is not None else None, T(fi), T(bc)]
    rc, ws, ex, msg = ws_call(OP, ts[0], ts[1], ts[2] if ts[2] is not None else ffi.NULL, W, H, 0.0, 0, ts[3], ts[4])
    assert rc == 0, msg
    assert run_executor(OP, ex, ws) == 0
    return ts[3].numpy(), ts[4].numpy()


def test_upstream_example():
    v = np.array([6.0, 4.0, 1.0, 6.9, 7.0928106, 0.3491799, 3.0046327, 6.6574745, 7.308903, 7.6934705, 0.1315008,
                  3.9899914], F32).reshape(3, 4)
    fi, bc = raster(v, [[2, 1, 0]], 10, 10, d=np.zeros((10, 10), F32))
    rfi, rbc = rasterize_ref(v, [[2, 1, 0]], 10, 10)
    np.testing.assert_array_equal(fi, rfi)
    assert list(np.nonzero(fi.ravel())[0]) == [69, 79]
    np.testing.assert_allclose(bc, rbc, atol=2e-6)


def _mesh(rng, nv, nf, spread=1.2):
    xyz = rng.uniform(-spread, spread, (nv, 3))
    w = rng.uniform(0.8, 1.5, (nv, 1))
    v = np.concatenate([xyz * w, w], 1).astype(F32)
    f = np.stack([rng.choice(nv, 3, replace=False) for _ in range(nf)]).astype(I32)
    return v, f


@pytest.mark.parametrize("W,H,nv,nf", [(16, 12, 20, 15), (33, 17, 40, 60), (8, 31, 12, 9)])
def test_random_meshes(W, H, nv, nf):
    rng = np.random.default_rng(W * H + nf)
    v, f = _mesh(rng, nv, nf)
    fi, bc = raster(v, f, W, H)
    rfi, rbc = rasterize_ref(v.astype(np.float64), f, W, H)
    # fp32 against float64: a pixel centre on an edge or a depth tie within rounding may go either way
    differ = fi != rfi
    assert differ.mean() < 0.02, f"{differ.sum()} of {fi.size} pixels pick another face"
    same = ~differ & (fi > 0)
    assert same.any()
    np.testing.assert_allclose(bc[same], rbc[same], atol=1e-4, rtol=1e-4)
    assert np.all(bc[fi == 0] == 0)


def test_nearest_face_wins_and_ties_keep_the_smaller_index():
    W = H = 8
    big = np.array([[-2, -2, 0.5, 1], [4, -2, 0.5, 1], [-2, 4, 0.5, 1]], F32)  # covers the screen at z = 0.5
    near = big.copy()
    near[:, 2] = -0.5
    v = np.concatenate([big, near])
    fi, _ = raster(v, [[0, 1, 2], [3, 4, 5]], W, H)
    assert np.all(fi[fi > 0] == 2) and (fi == 2).sum() > 20  # the nearer (second) face
    fi, _ = raster(v, [[3, 4, 5], [0, 1, 2]], W, H)
    assert np.all(fi[fi > 0] == 1)
    fi, bc = raster(np.concatenate([big, big]), [[3, 4, 5], [0, 1, 2]], W, H)  # same depth: face 0 + 1
    assert np.all(fi[fi > 0] == 1)


def test_degenerate_and_invalid_faces_draw_nothing():
    v = np.array([[0, 0, 0, 1], [0.5, 0.5, 0, 1], [1, 1, 0, 1]], F32)  # collinear: zero area
    fi, bc = raster(v, [[0, 1, 2], [0, 1, 7], [-1, 0, 1]], 6, 6)
    assert not fi.any() and not bc.any()


def test_strided_outputs():
    rng = np.random.default_rng(3)
    v, f = _mesh(rng, 10, 6)
    outs = (strided(np.zeros((9, 11), I32), "transpose"), strided(np.zeros((9, 11, 3), F32), "slice"))
    fi, bc = raster(v, f, 11, 9, outs=outs)
    efi, ebc = raster(v, f, 11, 9)
    np.testing.assert_array_equal(fi, efi)
    np.testing.assert_array_equal(bc, ebc)


def test_deterministic_across_threads():
    code = """
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import ffi
sys.path.insert(0, %r)
from helpers import ws_call, run_executor
rng = np.random.default_rng(1)
xyz = rng.uniform(-1.2, 1.2, (300, 3)); w = rng.uniform(0.8, 1.5, (300, 1))
v = np.concatenate([xyz * w, w], 1).astype(np.float32)
f = rng.integers(0, 300, (400, 3)).astype(np.int32)
T = pyaclnn.AclTensor.from_array
a, b = T(v), T(f)
fi, bc = T(np.zeros((97, 131), np.int32)), T(np.zeros((97, 131, 3), np.float32))
rc, ws, ex, msg = ws_call("Rasterizer", a, b, ffi.NULL, 131, 97, 0.0, 0, fi, bc)
assert rc == 0 and run_executor("Rasterizer", ex, ws) == 0
print(hashlib.sha256(fi.numpy().tobytes() + bc.numpy().tobytes()).hexdigest())
"""
    import os
    same_bytes_for_threads(code % os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _t(shape, dtype=F32):
    return T(np.zeros(shape, dtype))


def _args(**kw):
    a = dict(v=_t((3, 4)), f=_t((1, 3), I32), d=None, w=10, h=8, occ=0.0, prior=0, fi=_t((8, 10), I32),
             bc=_t((8, 10, 3)))
    a.update(kw)
    r = [a[k] for k in ("v", "f", "d", "w", "h", "occ", "prior", "fi", "bc")]
    return [ffi.NULL if x is None else x for x in r]


INVALID = [
    (dict(v=None), 161001, "v"),
    (dict(f=None), 161001, "f"),
    (dict(fi=None), 161001, "findicesOut"),
    (dict(bc=None), 161001, "barycentricOut"),
    (dict(v=_t((3, 4), np.float16)), 161002, "v"),
    (dict(f=_t((1, 3), np.int64)), 161002, "f"),
    (dict(d=_t((8, 10), np.float16)), 161002, "dOptional"),
    (dict(fi=_t((8, 10), np.int64)), 161002, "findicesOut"),
    (dict(bc=_t((8, 10, 3), np.float64)), 161002, "barycentricOut"),
    (dict(v=_t((3, 4, 1))), 561002, "v, f and findicesOut"),
    (dict(fi=_t((8, 10, 1), I32)), 561002, "v, f and findicesOut"),
    (dict(bc=_t((8, 30))), 561002, "barycentricOut"),
    (dict(f=_t((1, 4), I32)), 561002, "f dim 1"),
    (dict(bc=_t((8, 10, 2))), 561002, "f dim 1"),
    (dict(v=_t((3, 3))), 561002, "v dim 1"),
    (dict(w=0), 561002, "width"),
    (dict(h=4097), 561002, "width"),
    (dict(w=-1), 561002, "width"),
    (dict(h=9), 561002, "findicesOut"),
    (dict(bc=_t((8, 11, 3))), 561002, "findicesOut"),
    (dict(prior=1), 561002, "useDepthPrior"),
    # order
    (dict(v=_t((3, 4), np.float16), bc=None), 161001, "barycentricOut"),
    (dict(fi=_t((8, 10), np.int64), v=_t((3, 3))), 161002, "findicesOut"),
    (dict(v=_t((3, 3)), w=0), 561002, "v dim 1"),
    (dict(w=0, prior=1), 561002, "width"),
]


@pytest.mark.parametrize("kw,code,word", INVALID, ids=[f"{i}-{r[2]}" for i, r in enumerate(INVALID)])
def test_invalid(kw, code, word):
    expect_invalid(OP, _args(**kw), code, word)
