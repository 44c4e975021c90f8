"""Session 12 half rows: AvgPool3dBackward's gather with fp16 / bf16 gradInput rows (libsrc/kernels/pool3d_avg_bwd.c):
bf16 narrowed by vcvtneps2bf16 16 cells a step at AVX-512 (when the CPU has AVX512_BF16; a block with a subnormal or
a NaN by the integer rule), 16 cells a step for fp16 at AVX-512, the NaN-free bf16 rounding at AVX2, and the fp16 rows
narrowed in registers at the portable level. Bytes against the literal float64 loop of tests/reference/avg_pool3d.py
(the same additions in the same order) rounded to fp32 once and then to the dtype once (numpy's fp16 cast, the
bf16 rule of tests/reference/half.py); widths covering 16-cell pairs, single chunks and tails; subnormal sums, +-Inf,
the largest sums and inf + -inf = NaN; contiguous and strided gradInput views; the same bytes at every SIMD level and
for 1 / 2 threads."""
import pytest

from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib
sys.path.insert(0, "tests")
from reference.avg_pool3d import avg_pool3d_backward
from reference.half import bf16_bits
A = pyaclnn.int_array
rng = np.random.default_rng(1212)
h = hashlib.sha256()
F = lib.ACL_FORMAT_NCDHW
K, S, P = (3, 3, 3), (2, 2, 2), (1, 1, 1)
WIDTHS = (7, 8, 15, 16, 17, 24, 31, 33, 40, 56)
checked = 0
for dt in (np.float16, pyaclnn.bfloat16, np.float32):
    for W in WIDTHS:
        shape = (1, 2, 5, 6, W)
        outs = tuple((shape[2 + a] + 2 * P[a] - K[a]) // S[a] + 1 for a in range(3))
        for vals in ("normal", "tiny", "edge"):
            gy32 = rng.standard_normal(shape[:2] + outs).astype(np.float32)
            if vals == "tiny":   # sums subnormal in fp32 (bf16: the integer rounding's blocks) or tiny halves
                gy32 *= np.float32(1e-37) if dt != np.float16 else np.float32(1e-6)
            if vals == "edge":
                big = np.float32(3.3e38) if dt != np.float16 else np.float32(6.0e4)
                gy32.flat[rng.integers(0, gy32.size, 6)] = big          # the largest finite sums
                gy32[0, 1, 0, 0, 0] = np.inf
                gy32[0, 0, 1, 1, 1], gy32[0, 0, 1, 1, 2] = np.inf, -np.inf  # windows sharing w = 3: NaN cells
            gy = gy32.astype(dt) if dt != pyaclnn.bfloat16 else bf16_bits(gy32).view(pyaclnn.bfloat16)
            e64 = avg_pool3d_backward(gy.astype(np.float64).reshape((-1,) + outs), shape[2:], K, S, P, True, 0)
            with np.errstate(over="ignore", invalid="ignore"):
                e32 = e64.reshape(shape).astype(np.float32)
                exp = e32 if dt == np.float32 else (e32.astype(np.float16) if dt == np.float16
                                                    else bf16_bits(e32).view(pyaclnn.bfloat16))
            for view in ("contiguous", "strided"):
                x = np.zeros(shape, dt)
                if view == "contiguous":
                    gxa = np.full(shape, 7, dt)
                else:
                    gxa = np.full(shape[:4] + (2 * W + 1,), 7, dt)[..., 1::2]
                gx = pyaclnn.AclTensor.from_array(gxa, F)
                pyaclnn.launch("AvgPool3dBackward", pyaclnn.AclTensor.from_array(gy, F),
                               pyaclnn.AclTensor.from_array(x, F), A(list(K)), A(list(S)), A(list(P)), False, True,
                               0, gx)
                got = gx.numpy()
                gf, ef = got.astype(np.float64), exp.astype(np.float64)
                nan = np.isnan(ef)
                assert np.array_equal(np.isnan(gf), nan), (W, vals, view, str(dt))
                assert np.array_equal(np.ascontiguousarray(got)[~nan].view(np.uint8),
                                      np.ascontiguousarray(exp)[~nan].view(np.uint8)), (W, vals, view, str(dt))
                if vals == "edge":
                    assert np.isinf(ef).any() and nan.any(), (W, str(dt))
                if vals == "tiny" and dt != np.float16:
                    assert (np.abs(e32[e32 != 0]) < np.float32(1.1754944e-38)).any(), (W, str(dt))
                checked += 1
                h.update(np.ascontiguousarray(got).tobytes())
assert checked == 3 * len(WIDTHS) * 3 * 2
print(h.hexdigest())
"""


def test_avg_pool3d_backward_half_rows_bytes_levels_threads():
    first = run_python(CODE, {"OMP_NUM_THREADS": "1"})
    assert run_python(CODE, {"OMP_NUM_THREADS": "2"}) == first
    for lv in ("avx512", "avx2", "off"):
        assert run_python(CODE, {"OMP_NUM_THREADS": "1", "PYACLNN_SIMD": lv}) == first, lv


def test_avg_pool3d_backward_bf16_avx512bf16_path_is_taken():
    # the vcvtneps2bf16 rows run only where the CPU has AVX512_BF16; say so rather than pass silently elsewhere
    flags = open("/proc/cpuinfo").read() if __import__("os").path.exists("/proc/cpuinfo") else ""
    if "avx512_bf16" not in flags:
        pytest.skip("no AVX512_BF16 on this CPU: the integer rows (tested above) run instead")
