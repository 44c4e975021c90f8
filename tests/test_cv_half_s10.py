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


MSDA = r"""
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, "tests")
from helpers import strided
rng = np.random.default_rng(1511)
h = hashlib.sha256()

def bits(a):
    return np.ascontiguousarray(a).view(np.uint16)

def case(C, npt, kind):
    shapes = np.array([[9, 11], [5, 6], [3, 3]], np.int32)
    start = np.array([0, 99, 129], np.int32)
    K, nq, nh, nl = 138, 40, 2, 3
    v = rng.standard_normal((2, K, nh, C)).astype(np.float32)
    loc = rng.uniform(-0.2, 1.2, (2, nq, nh, nl, npt, 2)).astype(np.float32)
    loc[:, ::7] = np.round(loc[:, ::7])
    a = rng.uniform(0, 1, (2, nq, nh, nl, npt)).astype(np.float32)
    go = rng.standard_normal((2, nq, nh * C)).astype(np.float32)
    if kind == 1:  # fp16 subnormal values, weights and gradients, -0
        v *= np.float32(2.0 ** -15); a *= np.float32(2.0 ** -14); go *= np.float32(2.0 ** -12)
        v.reshape(-1)[::9] = -0.0
    if kind == 2:  # large values: fp16 overflow in the results
        v *= np.float32(30000.0); go *= np.float32(2000.0)
    v, loc, a, go = (x.astype(np.float16) for x in (v, loc, a, go))
    if kind == 3:  # Inf / NaN payloads (quiet and signalling) in value, locations, weights, gradients
        for x, st in ((v, 97), (loc, 31), (a, 23), (go, 41)):
            u = x.view(np.uint16).reshape(-1)
            u[::st] = 0x7c00; u[5::st] = 0xfc00; u[7::st] = 0x7e01; u[11::st] = 0x7c05; u[13::st] = 0xfd33
    return v, shapes, start, loc, a, go

for C, npt in ((32, 4), (24, 3), (8, 3), (32, 1)):
    for kind in range(4):
        v, shapes, start, loc, a, go = case(C, npt, kind)
        w = [x.astype(np.float32) for x in (v, loc, a, go)]
        with np.errstate(over="ignore", invalid="ignore"):
            out = pyaclnn.multi_scale_deformable_attn(v, shapes, start, loc, a)
            out32 = pyaclnn.multi_scale_deformable_attn(w[0], shapes, start, w[1], w[2])
            grads = pyaclnn.multi_scale_deformable_attn_backward(v, shapes, start, loc, a, go)
            grads32 = pyaclnn.multi_scale_deformable_attn_backward(w[0], shapes, start, w[1], w[2], w[3])
            pairs = [(out, out32)] + list(zip(grads, grads32))
            for got, ref32 in pairs:  # fp32 computation of the widened inputs, rounded once
                ref = ref32.astype(np.float16)
                nan = np.isnan(ref)
                assert np.array_equal(np.isnan(got), nan), (C, npt, kind)
                assert np.array_equal(bits(got)[~nan], bits(ref)[~nan]), (C, npt, kind)
        sv = tuple(strided(x) for x in (v, shapes, start, loc, a, go))
        assert np.array_equal(bits(pyaclnn.multi_scale_deformable_attn(*sv[:5])), bits(out)), (C, npt, kind)
        for got, ref in zip(pyaclnn.multi_scale_deformable_attn_backward(*sv), grads):
            assert np.array_equal(bits(got), bits(ref)), (C, npt, kind)
        for r in (out,) + tuple(grads):
            h.update(np.ascontiguousarray(r).tobytes())
print(h.hexdigest())
"""


def test_msda_f16_rows_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(MSDA, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": "1"}) for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]
    assert run_python(MSDA, {"OMP_NUM_THREADS": "2"}) == outs[""]
