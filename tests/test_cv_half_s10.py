"""AdaptiveAvgPool2dBackward fp16 at the portable level (kernels/pool.c, pool_adaptive_avg2d_backward_f16: the sums
once per run of equal covers, the plane filled from the narrowed grid). Checks: every result equal, byte for byte,
to a literal numpy float32 loop in the avg_pool2d kernels' order (gradInput = 0 + the covering rows' (0 + the
covering columns' gradOutput * (1 / count)), rounded once to fp16); NaN results at the same positions (their
payloads by the levels' comparison); strided gradOutput / out views give the contiguous result's bytes; and the
same bytes at every SIMD level (the F16C / AVX-512 levels run the avg_pool2d plane kernel) and thread count.
Geometries: 56 -> 9 and 56 -> 7 (the bench rows), upsampling (out > in, covers of 2-3 outputs), 1x1, odd widths
(tails of the 8-half stores, rows narrower than 8), runs longer than 8 columns, rank 3. Values: normal, fp16
subnormal results and -0, sums beyond fp16's range (Inf), Inf / -Inf / NaN payloads (signalling and quiet)."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, "tests")
from pyaclnn import lib
from helpers import ws_call, run_executor, strided
rng = np.random.default_rng(1510)
h = hashlib.sha256()

def cover(i, n_in, n_out):
    return [o for o in range(n_out) if (o * n_in) // n_out <= i < -((-(o + 1) * n_in) // n_out)]

def count(o, n_in, n_out):
    return -((-(o + 1) * n_in) // n_out) - (o * n_in) // n_out

def ref(g, IH, IW):  # g: fp16 (..., OH, OW); the literal loop, float32, rounded once
    OH, OW = g.shape[-2:]
    rcp = np.array([[np.float32(1.0) / np.float32(count(o, IH, OH) * count(q, IW, OW)) for q in range(OW)]
                    for o in range(OH)], np.float32)
    P = g.astype(np.float32) * rcp
    out = np.zeros(g.shape[:-2] + (IH, IW), np.float32)
    ch = [cover(i, IH, OH) for i in range(IH)]
    cw = [cover(j, IW, OW) for j in range(IW)]
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(IH):
            for j in range(IW):
                acc = np.zeros(g.shape[:-2], np.float32)
                for o in ch[i]:
                    row = np.zeros(g.shape[:-2], np.float32)
                    for q in cw[j]:
                        row = row + P[..., o, q]
                    acc = acc + row
                out[..., i, j] = acc
        return out.astype(np.float16)

def data(shape, kind):
    g = rng.standard_normal(shape).astype(np.float32)
    if kind == 1:  # subnormal results, -0
        g = g * np.float32(2.0 ** -13)
        g.reshape(-1)[::5] = -0.0
    if kind == 2:  # the largest halves: Inf sums
        g = np.where(g > 0, np.float32(65504.0), np.float32(-65504.0))
    g = g.astype(np.float16)
    if kind == 3:  # Inf, -Inf, NaN payloads (signalling 0x7c05 / 0xfd33, quiet 0x7e01)
        u = g.view(np.uint16).reshape(-1)
        u[::7] = 0x7c00; u[3::11] = 0xfc00; u[1::13] = 0x7e01; u[2::17] = 0x7c05; u[5::19] = 0xfd33
    return g

def run(g, xshape, gview=None, oview=None):
    f = lib.ACL_FORMAT_NCHW if len(xshape) == 4 else lib.ACL_FORMAT_NCL
    gt = pyaclnn.AclTensor.from_array(g if gview is None else gview, f)
    xt = pyaclnn.AclTensor.from_array(np.zeros(xshape, np.float16), f)
    ot = pyaclnn.AclTensor.from_array(np.full(xshape, 7, np.float16) if oview is None else oview, f)
    rc, ws, ex, msg = ws_call("AdaptiveAvgPool2dBackward", gt, xt, ot)
    assert rc == 0, msg
    assert run_executor("AdaptiveAvgPool2dBackward", ex, ws) == 0
    return ot.numpy()

CASES = [((2, 3, 56, 56), (9, 9)), ((1, 2, 56, 56), (7, 7)), ((1, 3, 33, 70), (10, 20)), ((1, 1, 4, 6), (7, 9)),
         ((2, 5, 7, 3), (1, 1)), ((3, 17, 19), (5, 4)), ((1, 2, 9, 61), (9, 61)), ((1, 2, 5, 43), (3, 2)),
         ((2, 2, 13, 11), (13, 1)), ((1, 1, 3, 3), (8, 8)), ((1, 2, 20, 29), (19, 28))]
for xshape, osz in CASES:
    IH, IW = xshape[-2:]
    for kind in range(4):
        g = data(tuple(xshape[:-2]) + osz, kind)
        y = run(g, xshape)
        r = ref(g, IH, IW)
        nan = np.isnan(r)
        assert np.array_equal(np.isnan(y), nan), (xshape, osz, kind)
        assert np.array_equal(y.view(np.uint16)[~nan], r.view(np.uint16)[~nan]), (xshape, osz, kind)
        for v in (run(g, xshape, gview=strided(g, "slice")), run(g, xshape, gview=strided(g, "transpose")),
                  run(g, xshape, oview=strided(np.full(xshape, 7, np.float16), "slice")),
                  run(g, xshape, oview=strided(np.full(xshape, 7, np.float16), "transpose"))):
            assert np.array_equal(v.view(np.uint16), y.view(np.uint16)), (xshape, osz, kind)
        h.update(y.tobytes())
print(h.hexdigest())
"""


def test_adaptive_avg_pool2d_backward_f16_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": "1"}) for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]
    assert run_python(CODE, {"PYACLNN_SIMD": "off", "OMP_NUM_THREADS": "2"}) == outs["off"]
    assert run_python(CODE, {"OMP_NUM_THREADS": "2"}) == outs[""]
