"""The fp32 row kernels of the norm family (libsrc/kernels/norm_f32.c: LayerNorm / LayerNormBackward, the RmsNorm
family / RmsNormGrad, GroupNorm (+Silu / Swish) / GroupNormBackward): the same bytes at every PYACLNN_SIMD level
and every OMP_NUM_THREADS, for every dtype, for row lengths that exercise the lane tail and the 1024-element
chunks; and a strided view gives the bytes of its contiguous copy (the copy path is exact). Values against
PyTorch are in test_nn_norm.py."""
import numpy as np

import pyaclnn
from helpers import run_python, same_bytes_for_threads

CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(5)
h = hashlib.sha256()
def E(a): return np.empty_like(a)
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for M, N in ((3, 5), (37, 1000), (9, 2071)):  # tails only, tail + full lanes, two chunks + tail
        x = (rng.standard_normal((M, N)) * 3 + 1).astype(dt)
        dy = rng.standard_normal((M, N)).astype(dt)
        w = rng.standard_normal(N).astype(dt)
        b = rng.standard_normal(N).astype(dt)
        o, m, r = E(x), np.empty((M, 1), np.float32), np.empty((M, 1), np.float32)
        pyaclnn.call("LayerNorm", x, [N], w, b, 1e-5, o, m, r)
        gi, gw, gb = E(x), np.empty(N, dt), np.empty(N, dt)
        pyaclnn.call("LayerNormBackward", dy, x, [N], m, r, w, b, [True, True, True], gi, gw, gb)
        y, rs = E(x), np.empty((M, 1), np.float32)
        pyaclnn.call("RmsNorm", x, w, 1e-6, y, rs)
        dx, dg = E(x), np.empty(N, np.float32)
        pyaclnn.call("RmsNormGrad", dy, x, rs[:, 0].copy(), w, dx, dg)
        ya, ra, xa = E(x), np.empty((M, 1), np.float32), E(x)
        pyaclnn.call("AddRmsNorm", x, dy, w, 1e-6, ya, ra, xa)
        for a in (o, m, r, gi, gw, gb, y, rs, dx, dg, ya, ra, xa): h.update(a.tobytes())
    for (Nb, C, S, G) in ((2, 6, 7, 3), (3, 8, 300, 2), (2, 4, 1500, 4)):
        x = (rng.standard_normal((Nb, C, S)) * 2 - 1).astype(dt)
        dy = rng.standard_normal((Nb, C, S)).astype(dt)
        g = rng.standard_normal(C).astype(dt)
        be = rng.standard_normal(C).astype(dt)
        o, m, r = E(x), np.empty((Nb, G), dt), np.empty((Nb, G), dt)
        pyaclnn.call("GroupNorm", x, g, be, Nb, C, S, G, 1e-5, o, m, r)
        q1, q2, q3 = E(x), np.empty(C, dt), np.empty(C, dt)
        pyaclnn.call("GroupNormBackward", dy, x, m, r, g, Nb, C, S, G, [True, True, True], q1, q2, q3)
        os_, ms, rs = E(x), np.empty((Nb, G), dt), np.empty((Nb, G), dt)
        pyaclnn.call("GroupNormSilu", x, g, be, G, 1e-5, os_, ms, rs)
        for a in (o, m, r, q1, q2, q3, os_, ms, rs): h.update(a.tobytes())
print(h.hexdigest())
"""


def test_norm_rows_same_bytes_at_every_simd_level():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": "2"}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


def test_norm_rows_same_bytes_for_threads():
    same_bytes_for_threads(CODE, threads=(1, 2, 7))


def strided(a):
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def test_strided_views_give_the_contiguous_bytes():
    rng = np.random.default_rng(9)
    for dt in (np.float32, np.float16, pyaclnn.bfloat16):
        M, N = 5, 1100
        x = rng.standard_normal((M, N)).astype(dt)
        dy = rng.standard_normal((M, N)).astype(dt)
        w = rng.standard_normal(N).astype(dt)
        res = []
        for xv, dyv, ov, dxv in ((x, dy, np.empty_like(x), np.empty_like(x)),
                                 (strided(x), strided(dy), strided(np.zeros_like(x)), strided(np.zeros_like(x)))):
            m, r = np.empty((M, 1), np.float32), np.empty((M, 1), np.float32)
            pyaclnn.call("LayerNorm", xv, [N], w, None, 1e-5, ov, m, r)
            gw, gb = np.empty(N, dt), np.empty(N, dt)
            pyaclnn.call("LayerNormBackward", dyv, xv, [N], m, r, w, None, [True, True, True], dxv, gw, gb)
            res.append([np.ascontiguousarray(a).tobytes() for a in (ov, m, r, dxv, gw, gb)])
        assert res[0] == res[1], dt


def test_in_place_layer_norm_and_inplace_add_rms_norm():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 333)).astype(np.float32)
    w = rng.standard_normal(333).astype(np.float32)
    ref, m, r = np.empty_like(x), np.empty((6, 1), np.float32), np.empty((6, 1), np.float32)
    pyaclnn.call("LayerNorm", x, [333], w, None, 1e-5, ref, m, r)
    xi = x.copy()
    pyaclnn.call("LayerNorm", xi, [333], w, None, 1e-5, xi, m, r)  # out is the input
    assert xi.tobytes() == ref.tobytes()
    x1, x2 = x.astype(np.float16), rng.standard_normal((6, 333)).astype(np.float16)
    y, rs, xs = np.empty_like(x1), np.empty((6, 1), np.float32), np.empty_like(x1)
    g = w.astype(np.float16)
    pyaclnn.call("AddRmsNorm", x1, x2, g, 1e-6, y, rs, xs)
    a, b = x1.copy(), x2.copy()
    pyaclnn.call("InplaceAddRmsNorm", a, b, g, 1e-6, np.empty((6, 1), np.float32))
    assert a.tobytes() == y.tobytes() and b.tobytes() == xs.tobytes()


def test_group_norm_strided_views_give_the_contiguous_bytes():
    """a strided view goes through an fp32 copy (the FLOAT row code); contiguous BF16 rows are read in place by
    their own backward row function: both must give the same bytes"""
    rng = np.random.default_rng(4)
    Nb, C, S, G = 2, 4, 1037, 2
    for dt in (np.float32, np.float16, pyaclnn.bfloat16):
        x = rng.standard_normal((Nb, C, S)).astype(dt)
        dy = rng.standard_normal((Nb, C, S)).astype(dt)
        g, be = rng.standard_normal(C).astype(dt), rng.standard_normal(C).astype(dt)
        res = []
        for xv, dyv, ov, dxv in ((x, dy, np.empty_like(x), np.empty_like(x)),
                                 (strided(x), strided(dy), strided(np.zeros_like(x)), strided(np.zeros_like(x)))):
            m, r = np.empty((Nb, G), dt), np.empty((Nb, G), dt)
            pyaclnn.call("GroupNorm", xv, g, be, Nb, C, S, G, 1e-5, ov, m, r)
            q2, q3 = np.empty(C, dt), np.empty(C, dt)
            pyaclnn.call("GroupNormBackward", dyv, xv, m, r, g, Nb, C, S, G, [True, True, True], dxv, q2, q3)
            res.append([np.ascontiguousarray(a).tobytes() for a in (ov, m, r, dxv, q2, q3)])
        assert res[0] == res[1], dt
