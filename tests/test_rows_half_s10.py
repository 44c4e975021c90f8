"""Session 10's half-row speedups (issue 15), byte for byte:

- ReduceSum fp16 contiguous runs (libsrc/ops/reduce.c rd_f16_chunk_sse2: halves placed as 2^-1008-scaled doubles by
  pmaddwd + mask): every finite fp16 bit pattern (negative subnormals, -0, +-65504, ...) in rows with odd tails
  against the exact sum (math.fsum) rounded once, Inf / NaN chunks against numpy's IEEE result.
- bf16 softmax / log_softmax forward and CrossEntropyLoss forward straight from the bf16 row (kernels/softmax_rows.inc
  smr_max_bf16: an integer max of the bits with the float pass as fallback for a zero maximum or a positive NaN;
  smr_expsum_bf16 / smr_sub2_hh: widened in the loads, the portable level in an even/odd lane layout): the bytes of
  the fp32 op on the widened input rounded once to bf16 (RNE, NaN quietened) - the fp32 path is the reference the
  fused passes promise to match - with rows whose maximum is +0 / -0 in either order, positive and negative NaN
  payloads, +-inf, all -inf rows, subnormal bf16, widths 1..40 and long rows.
- the same bytes at PYACLNN_SIMD=off / avx2 / avx512 / default and OMP_NUM_THREADS 1 / 2.
"""
from helpers import run_python

CODE = r"""
import hashlib, math, numpy as np, pyaclnn
np.seterr(over="ignore")
BF = pyaclnn.bfloat16
rng = np.random.default_rng(1510)
h = hashlib.sha256()

def f32_to_bf16_bits(a):  # round to nearest even, NaN quietened (common/dtype.h)
    b = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    nan = (b & 0x7fffffff) > 0x7f800000
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16) & 0xffff
    q = ((b | 0x00400000) >> 16) & 0xffff
    return np.where(nan, q, r).astype(np.uint16)

def widen(xb):
    return (xb.astype(np.uint32) << 16).view(np.float32)

# ---- ReduceSum fp16: every finite pattern, shuffled into rows with tails
pat = np.array([p for p in range(65536) if (p & 0x7c00) != 0x7c00], np.uint16)
rng.shuffle(pat)
for C in (512, 1023, 4096 + 77, 61):
    n = (pat.size // C) * C
    xb = pat[:n].reshape(-1, C)
    x = xb.view(np.float16)
    out = np.zeros(x.shape[0], np.float16)
    pyaclnn.call("ReduceSum", x, [1], False, 1, out)
    exp = np.array([math.fsum(r) for r in x.astype(np.float64)]).astype(np.float16)
    assert np.array_equal(out.view(np.uint16), exp.view(np.uint16)), C
    h.update(out.tobytes())
# rows of only large negatives / negative subnormals / -0 (the sign bits through the mask)
for v in (0xfbff, 0x8001, 0x83ff, 0x8000, 0x7bff, 0x0001):
    x = np.full((3, 1536 + 5), v, np.uint16).view(np.float16)
    out = np.zeros(3, np.float16)
    pyaclnn.call("ReduceSum", x, [1], False, 1, out)
    exp = np.array([math.fsum(r) for r in x.astype(np.float64)]).astype(np.float16)
    assert np.array_equal(out.view(np.uint16), exp.view(np.uint16)), hex(v)
    h.update(out.tobytes())
# Inf / NaN in some chunks
x = rng.standard_normal((5, 3000)).astype(np.float16)
xb = x.view(np.uint16)
xb[0, 600] = 0x7c00; xb[1, 9] = 0xfc00; xb[2, 1500] = 0x7e01; xb[3, 1] = 0x7c00; xb[3, 2999] = 0xfc00
out = np.zeros(5, np.float16)
pyaclnn.call("ReduceSum", x, [1], False, 1, out)
o = out.astype(np.float64)
assert o[0] == np.inf and o[1] == -np.inf and np.isnan(o[2]) and np.isnan(o[3]) and np.isfinite(o[4])
h.update(out.tobytes())

# ---- bf16 softmax / log_softmax / cross entropy forward
def rows_for(C):
    x = (rng.standard_normal((24, C)) * rng.choice([0.01, 1, 30], (24, 1))).astype(np.float32)
    xb = f32_to_bf16_bits(x)
    xb[0] = 0x8000 if C < 2 else np.where(np.arange(C) % 2, 0x8000, 0x0000)  # max +0 / -0 in both orders
    xb[1, :] = np.where(rng.random(C) < 0.5, 0x8000, 0xbf80); xb[1, -1] = 0x0000
    xb[2, :] = 0xff80                                                  # all -inf
    xb[3, C // 2] = 0x7f80                                             # +inf
    xb[4, C - 1] = 0x7fc1                                              # positive NaN payload
    xb[5, 0] = 0xffa3                                                  # negative NaN (sorts below -inf)
    xb[6, :] = rng.integers(1, 0x80, C) | (rng.integers(0, 2, C) << 15)  # subnormal bf16
    xb[7, :] = np.where(rng.random(C) < 0.5, 0xff80, 0xff81); xb[7, 0] = 0xff80  # -inf and negative NaN only
    xb[8, :] = 0x0000
    xb[9, :] = np.where(rng.random(C) < 0.3, 0x8000, 0xc2c8); xb[9, C // 3] = 0x8000
    return xb

for C in list(range(1, 41)) + [1000, 4099, 32000 + 3]:
    xb = rows_for(C)
    x = xb.view(BF)
    xf = widen(xb)
    for op in ("Softmax", "LogSoftmax"):
        o = np.zeros_like(x)
        pyaclnn.call(op, x, 1, o)
        of = np.zeros_like(xf)
        pyaclnn.call(op, xf, 1, of)
        assert np.array_equal(o.view(np.uint16), f32_to_bf16_bits(of)), (op, C)
        o2 = x.copy()
        pyaclnn.call(op, o2, 1, o2)  # in place
        assert np.array_equal(o2.view(np.uint16), o.view(np.uint16)), (op, C)
        h.update(o.tobytes())
    N = xb.shape[0]
    t = rng.integers(0, C, N).astype(np.int64)
    t[::5] = -100
    for red in (b"none", b"sum"):
        lo = np.zeros((N,) if red == b"none" else (1,), BF)
        lp = np.zeros((N, C), BF)
        pyaclnn.call("CrossEntropyLoss", x, t, None, red, -100, 0.0, 0.0, False, lo, lp, np.zeros((1,), BF),
                     np.zeros((N,), BF))
        lof = np.zeros(lo.shape, np.float32)
        lpf = np.zeros((N, C), np.float32)
        pyaclnn.call("CrossEntropyLoss", xf, t, None, red, -100, 0.0, 0.0, False, lof, lpf, np.zeros((1,), np.float32),
                     np.zeros((N,), np.float32))
        assert np.array_equal(lp.view(np.uint16), f32_to_bf16_bits(lpf)), (C, red)
        if red == b"none":  # the double loss rounded to bf16 directly or through f32: at most one bf16 ulp apart
            a = lo.view(np.uint16).astype(np.int32); b = f32_to_bf16_bits(lof).astype(np.int32)
            fin = np.isfinite(lof)
            assert (np.abs(a - b)[fin] <= 1).all() and np.array_equal(np.isnan(widen(lo.view(np.uint16))), np.isnan(lof)), C
        h.update(lo.tobytes() + lp.tobytes())
print(h.hexdigest())
"""


def test_rows_half_s10_levels():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": "1"}, timeout=900)
            for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]


def test_rows_half_s10_threads():
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}, timeout=900) for t in (1, 2)}
    assert outs[1] == outs[2]
