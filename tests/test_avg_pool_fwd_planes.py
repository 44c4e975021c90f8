"""avg_pool2d forward rows (libsrc/kernels/avg_pool2d.inc) at every SIMD level: at AVX-512 dense fp16/bf16 rows
take the column sums widened in registers, the window sums by permutes from a table built with the plan, and the
outputs narrowed in registers; rows with a NaN output (NaN / Inf inputs, Inf - Inf, an empty window) are redone by
the kernel's own loop. Geometries: k3s2p1, k2s2, ceil mode, count_include_pad off, divisor_override, odd sizes,
wide kernels, strides above the kernel, blocks spanning more partials than the table holds, adaptive pooling,
strided views of input and output, NaN payloads / +-Inf / -0. Checks: fp32 against a float64 loop, fp16/bf16 equal
to the fp32 result of the same (widened) input rounded once, and the same bytes at every level and for 1/2/7
threads."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib
sys.path.insert(0, "tests")
from helpers import ws_call, run_executor
from reference import avg_pool as ref
rng = np.random.default_rng(31)
h = hashlib.sha256()

def to_bf16(a32):  # round to nearest even on the bits
    b = a32.view(np.uint32).astype(np.uint64)
    return ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)

CASES = [((2, 3, 56, 56), 3, 2, 1, False, True, None), ((2, 3, 56, 56), 2, 2, 0, False, True, None),
         ((1, 4, 57, 55), 3, 2, 1, True, False, None), ((1, 2, 33, 71), 3, 2, 1, True, True, 5),
         ((1, 2, 19, 45), 5, 1, 2, False, False, None), ((1, 2, 21, 70), 7, 3, 3, True, True, None),
         ((1, 2, 20, 37), 2, 4, 0, False, True, None), ((1, 2, 12, 90), 4, 3, 2, True, False, -3),
         ((1, 1, 9, 8), 1, 1, 0, False, True, None), ((1, 2, 10, 150), 3, 2, 1, False, True, None),
         ((1, 2, 15, 61), 5, 2, 2, True, False, None), ((1, 2, 9, 40), 9, 1, 4, False, True, None),
         ((3, 5, 7), 3, 2, 1, False, False, None)]
for shape, k, s, p, ceil, cip, div in CASES:
    x32 = rng.standard_normal(shape).astype(np.float32) * 8
    for special in (0, 1, 2):
        x = x32.copy()
        if special == 1:  # a NaN in one plane, +Inf / -Inf in another (Inf - Inf: the default NaN), -0 rows
            x.reshape(-1, *shape[-2:])[0, shape[-2] // 2, 3] = np.nan
            x.reshape(-1, *shape[-2:])[-1, 0, 0:2] = (np.inf, -np.inf)
            x.reshape(-1, *shape[-2:])[-1, 1, :] = -0.0
        if special == 2:  # signalling / quiet NaN payloads, one Inf
            xv = x.reshape(-1, *shape[-2:])
            xv[0, 1, 1] = np.inf
            xv[0, 2, 4] = np.float32(np.nan)
            xv[-1, 3, 5] = np.float32(np.nan)
        for dt in (np.float32, np.float16, pyaclnn.bfloat16):
            xd = x.astype(dt)
            if special == 2 and dt != np.float32:  # NaN payloads: a signalling and a quiet one, sign set
                xv = xd.reshape(-1, *shape[-2:]).view(np.uint16)
                xv[0, 2, 4] = 0x7d01 if dt == np.float16 else 0x7f81
                xv[-1, 3, 5] = 0xfe02 if dt == np.float16 else 0xffc2
            y = pyaclnn.avg_pool2d(xd, k, s, p, ceil, cip, div)
            y32 = pyaclnn.avg_pool2d(xd.astype(np.float32), k, s, p, ceil, cip, div)
            if special == 0:
                if dt == np.float32:
                    kk = (k, k)
                    r = ref.avg_pool2d(x.astype(np.float64), kk, (s, s), (p, p), ceil, cip, div)
                    assert np.allclose(y, r, rtol=1e-5, atol=1e-5), (shape, k, s, p)
                elif dt == np.float16:
                    assert np.array_equal(y.view(np.uint16), y32.astype(np.float16).view(np.uint16)), (shape, k, s, p)
                else:
                    assert np.array_equal(y.view(np.uint16), to_bf16(y32)), (shape, k, s, p)
            h.update(y.tobytes())
            if len(shape) == 4 and special != 2:  # views: a column slice of a wider input; a strided output
                big = np.zeros(shape[:3] + (shape[3] + 3,), dt)
                big[..., 1:shape[3] + 1] = xd
                yv = pyaclnn.avg_pool2d(big[..., 1:shape[3] + 1], k, s, p, ceil, cip, div)
                assert np.array_equal(np.ascontiguousarray(yv).view(np.uint8), y.view(np.uint8))
                out = np.full(y.shape[:3] + (2 * y.shape[3],), 7, dt)[..., ::2]
                pyaclnn.avg_pool2d(xd, k, s, p, ceil, cip, div, out=out)
                assert np.array_equal(np.ascontiguousarray(out).view(np.uint8), y.view(np.uint8))
                ys = pyaclnn.avg_pool2d(np.ascontiguousarray(np.swapaxes(xd, 2, 3)).swapaxes(2, 3), k, s, p, ceil,
                                        cip, div)
                assert np.array_equal(np.ascontiguousarray(ys).view(np.uint8), y.view(np.uint8))

# adaptive pooling forward: the same row kernel with the adaptive windows
for shape, osz in (((2, 3, 56, 56), (28, 28)), ((1, 4, 33, 70), (10, 20)), ((1, 2, 20, 40), (7, 13)),
                   ((1, 2, 14, 64), (7, 7))):
    x32 = rng.standard_normal(shape).astype(np.float32)
    for dt in (np.float32, np.float16, pyaclnn.bfloat16):
        x = x32.astype(dt)
        f = lib.ACL_FORMAT_NCHW
        xt = pyaclnn.AclTensor.from_array(x, f)
        ot = pyaclnn.AclTensor.from_array(np.zeros(shape[:2] + osz, dt), f)
        osa = pyaclnn.int_array(list(osz))
        rc, ws, ex, msg = ws_call("AdaptiveAvgPool2d", xt, osa, ot)
        assert rc == 0, msg
        assert run_executor("AdaptiveAvgPool2d", ex, ws) == 0
        h.update(ot.numpy().tobytes())
print(h.hexdigest())
"""


def test_avg_pool_forward_rows_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (2, 7)}
    assert outs[2] == outs[7] == run_python(CODE, {"OMP_NUM_THREADS": "1"})
