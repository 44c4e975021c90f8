"""avg_pool2d backward's plane path (libsrc/kernels/avg_pool2d.inc) at every SIMD level: at AVX-512 dense planes
take P and the column sums E by permutes from the partials a 16-column block reads (every dtype) and fp16/bf16
rows summed and narrowed in registers; at AVX2 / off the index-list loops and the row converters
(common/half_rows.h). Geometries beyond the bench's: kernels wider than 3 taps (the permute's generic slot loop),
strides above the kernel (columns no window covers: zero slots only), a block spanning more than 32 partials (no
permute table), ceil mode, adaptive pooling; NaN / Inf gradients (the plane redone by the kernel's own loop).
Checks: fp32 against a float64 loop, fp16/bf16 equal to the fp32 result rounded once, and the same bytes at
every level and for 1/2/7 threads."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib
sys.path.insert(0, "tests")
from helpers import ws_call, run_executor
rng = np.random.default_rng(23)
h = hashlib.sha256()

def ref_bwd(g, H, W, k, s, p, ceil):
    N, C, OH, OW = g.shape
    gx = np.zeros((N, C, H, W))
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s - p, ow * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            div = (h1 - h0) * (w1 - w0)
            a, b, c, d = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
            if a < b and c < d:
                gx[:, :, a:b, c:d] += g[:, :, oh:oh + 1, ow:ow + 1].astype(np.float64) / div
    return gx

def to_bf16(a32):  # round to nearest even on the bits (a NaN: quietened, as the library does)
    b = a32.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(a32), (b >> 16).astype(np.uint16) | 0x40, r)

def out_size(n, k, s, p, ceil):
    o = (n + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o

CASES = [((56, 56), (3, 2, 1), False), ((13, 70), (5, 1, 2), False), ((40, 33), (7, 3, 3), False),
         ((21, 37), (2, 4, 0), False), ((40, 45), (20, 1, 10), False), ((17, 50), (4, 3, 2), True),
         ((9, 8), (1, 1, 0), False)]
for (H, W), (k, s, p), ceil in CASES:
    OH, OW = out_size(H, k, s, p, ceil), out_size(W, k, s, p, ceil)
    g32 = rng.standard_normal((2, 3, OH, OW)).astype(np.float32)
    for special in (False, True):
        g = g32.copy()
        if special:  # a NaN in one plane, +Inf / -Inf in another (Inf - Inf: the default NaN)
            g[0, 1, OH // 2, OW // 2] = np.nan
            g[1, 2, 0, 0], g[1, 2, 0, min(1, OW - 1)] = np.inf, -np.inf
        want = None
        for dt in (np.float32, np.float16, pyaclnn.bfloat16):
            gd = g.astype(dt)
            x = np.zeros((2, 3, H, W), dt)
            y = pyaclnn.avg_pool2d_backward(gd, x, k, stride=s, padding=p, ceil_mode=ceil)
            y32 = np.ascontiguousarray(pyaclnn.avg_pool2d_backward(gd.astype(np.float32), x.astype(np.float32), k,
                                                                   stride=s, padding=p, ceil_mode=ceil))
            if dt == np.float32:
                if not special:
                    r = ref_bwd(g, H, W, k, s, p, ceil)
                    assert np.allclose(y, r, rtol=1e-5, atol=1e-6), (H, W, k, s, p)
            elif dt == np.float16:
                assert np.array_equal(y.view(np.uint16), y32.astype(np.float16).view(np.uint16)), (H, W, k, s, p)
            else:
                assert np.array_equal(y.view(np.uint16), to_bf16(y32)), (H, W, k, s, p)
            h.update(y.tobytes())

# adaptive pooling backward: the same plane kernel with the adaptive windows
for shape, osz in (((2, 3, 56, 56), (28, 28)), ((1, 4, 33, 70), (10, 20)), ((1, 2, 20, 40), (7, 13))):
    for dt in (np.float32, np.float16, pyaclnn.bfloat16):
        x = np.zeros(shape, dt)
        gy = rng.standard_normal(shape[:2] + osz).astype(np.float32).astype(dt)
        f = lib.ACL_FORMAT_NCHW
        gt, xt = pyaclnn.AclTensor.from_array(gy, f), pyaclnn.AclTensor.from_array(x, f)
        ot = pyaclnn.AclTensor.from_array(np.zeros(shape, dt), f)
        rc, ws, ex, msg = ws_call("AdaptiveAvgPool2dBackward", gt, xt, ot)
        assert rc == 0, msg
        assert run_executor("AdaptiveAvgPool2dBackward", ex, ws) == 0
        h.update(ot.numpy().tobytes())
print(h.hexdigest())
"""


def test_avg_pool_backward_planes_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (2, 7)}
    assert outs[2] == outs[7] == run_python(CODE, {"OMP_NUM_THREADS": "1"})
