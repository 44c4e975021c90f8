"""AvgPool3dBackward through the per-plane gather (libsrc/kernels/pool3d.c avg_bwd_gather_plane: each gradInput
cell's sum of gy / divisor over the outputs holding it, in the outputs' row-major order, from expanded W rows) and
through the scatter it falls back to (a plane with a NaN gradient, windows overlapping more than 64 ways). Bytes
against the literal float64 loop of tests/reference/avg_pool3d.py (the same additions in the same order), rounded to
fp32 and then to the dtype as the library rounds; NaN / Inf compared by position; the same bytes for 1 / 2
threads and at every SIMD level."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib
sys.path.insert(0, "tests")
from reference.avg_pool3d import avg_pool3d_backward
from reference.half import bf16_bits
A = pyaclnn.int_array
rng = np.random.default_rng(33)
h = hashlib.sha256()
F = lib.ACL_FORMAT_NCDHW
CASES = (((2, 3, 9, 12, 14), (3, 3, 3), (2, 2, 2), (1, 1, 1), True, 0),
         ((1, 2, 8, 8, 16), (2, 2, 2), (2, 2, 2), (0, 0, 0), True, 0),
         ((1, 2, 6, 7, 19), (3, 3, 3), (1, 1, 1), (1, 1, 1), False, 0),
         ((1, 2, 7, 9, 21), (5, 3, 5), (2, 2, 2), (2, 1, 2), False, 0),
         ((1, 1, 6, 6, 23), (4, 4, 4), (1, 1, 1), (0, 0, 0), True, 7),
         ((1, 2, 7, 7, 9), (5, 5, 5), (1, 1, 1), (2, 2, 2), True, 0))   # 125-way overlap: the scatter
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for shape, k, s, p, cip, div in CASES:
        outs = tuple((shape[2 + a] + 2 * p[a] - k[a]) // s[a] + 1 for a in range(3))
        for vals in ("normal", "edge"):
            gy32 = rng.standard_normal(shape[:2] + outs).astype(np.float32)
            if vals == "edge":
                gy32.flat[rng.integers(0, gy32.size, 3)] = np.inf
                gy32.flat[rng.integers(0, gy32.size, 2)] = np.nan   # its planes take the scatter
                gy32.flat[rng.integers(0, gy32.size, 4)] = 3e-39    # subnormal in fp32, 0 / tiny in the halves
            gy = gy32.astype(dt) if dt != pyaclnn.bfloat16 else bf16_bits(gy32).view(pyaclnn.bfloat16)
            e64 = avg_pool3d_backward(gy.astype(np.float64).reshape((-1,) + outs), shape[2:], k, s, p, cip, div)
            e32 = e64.reshape(shape).astype(np.float32)
            exp = e32 if dt == np.float32 else (e32.astype(np.float16) if dt == np.float16
                                                else bf16_bits(e32).view(pyaclnn.bfloat16))
            for view in ("contiguous", "strided"):
                x = np.zeros(shape, dt)
                if view == "contiguous":
                    gxa = np.full(shape, 7, dt)
                else:
                    big = np.full(shape[:4] + (2 * shape[4],), 7, dt)
                    gxa = big[..., ::2]
                gx = pyaclnn.AclTensor.from_array(gxa, F)
                pyaclnn.launch("AvgPool3dBackward", pyaclnn.AclTensor.from_array(gy, F),
                               pyaclnn.AclTensor.from_array(x, F), A(list(k)), A(list(s)), A(list(p)), False, cip,
                               div, gx)
                got = gx.numpy()
                gf, ef = got.astype(np.float64), exp.astype(np.float64)
                nan = np.isnan(ef)
                assert np.array_equal(np.isnan(gf), nan), (shape, k, vals, view, dt)
                assert np.array_equal(np.ascontiguousarray(got)[~nan].view(np.uint8),
                                      np.ascontiguousarray(exp)[~nan].view(np.uint8)), (shape, k, vals, view, str(dt))
                h.update(np.ascontiguousarray(got).tobytes())
print(h.hexdigest())
"""


def test_avg_pool3d_backward_gather_bytes_and_levels():
    first = run_python(CODE, {"OMP_NUM_THREADS": "1"})
    assert run_python(CODE, {"OMP_NUM_THREADS": "2"}) == first
    for lv in ("off", "avx2"):
        assert run_python(CODE, {"OMP_NUM_THREADS": "1", "PYACLNN_SIMD": lv}) == first, lv
