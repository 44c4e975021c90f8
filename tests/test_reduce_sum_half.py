"""ReduceSum / Mean of contiguous fp16 / bf16 runs (libsrc/ops/reduce.c direct_run): fp16 chunks are summed in
registers in any order (exact: every partial sum of at most 512 finite halves is exact in double), chunks holding an
Inf / NaN take the fixed lane tree, bf16 goes through the tree with several chunks side by side. Checks: finite fp16
sums equal the exact sum (math.fsum) rounded once, bf16 / special values against a float64 loop over the same
chunks and lanes, and the same bytes at every SIMD level and for 1/2/7 threads."""
from helpers import run_python

CODE = r"""
import hashlib, math, numpy as np, pyaclnn
rng = np.random.default_rng(41)
h = hashlib.sha256()

def tree_sum(row):  # the engine's order: chunks of 512, 8 lanes each, pairwise; partials in chunk order
    acc = 0.0
    for c0 in range(0, len(row), 512):
        l = [0.0] * 8
        for k, v in enumerate(row[c0:c0 + 512]):
            l[k % 8] += float(v)
        acc += ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
    return acc

def to_bf16(a32):  # round to nearest even on the bits (no NaN here)
    b = a32.view(np.uint32).astype(np.uint64)
    return ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)

def rsum(x, dims, dt):
    oshape = tuple(n for i, n in enumerate(x.shape) if i not in dims)
    out = np.zeros(oshape, x.dtype)
    pyaclnn.call("ReduceSum", x, list(dims), False, dt, out)
    return out

for dt in (np.float16, pyaclnn.bfloat16):
    for shape in ((7, 4096), (3, 1536), (5, 1000), (2, 513), (4, 2048 + 511), (1, 70000), (6, 3, 1030)):
        x32 = (rng.standard_normal(shape) * rng.choice([1e-3, 1, 300], shape)).astype(np.float32)
        x = x32.astype(dt)
        xb = x.view(np.uint16).reshape(-1)
        if dt == np.float16:  # subnormals, the largest finite, -0
            xb[5::97] = rng.integers(1, 0x400, xb[5::97].size) | (rng.integers(0, 2, xb[5::97].size) << 15)
            xb[7::501] = 0x7bff
            xb[11::503] = 0xfbff
            xb[13::89] = 0x8000
        y = rsum(x, (len(shape) - 1,), dt)
        rows = x.astype(np.float64).reshape(-1, shape[-1])
        if dt == np.float16:
            exp = np.array([math.fsum(r) for r in rows]).astype(np.float16)
            assert np.array_equal(y.reshape(-1).view(np.uint16), exp.view(np.uint16)), shape
        else:
            exp = to_bf16(np.array([tree_sum(r) for r in rows]).astype(np.float32))
            ok = y.reshape(-1).view(np.uint16) == exp
            # (double -> bf16 may round once where double -> f32 -> bf16 rounds twice: at most one ulp)
            assert (np.abs(y.reshape(-1).view(np.uint16).astype(np.int32) - exp.astype(np.int32)) <= 1).all(), shape
        h.update(y.tobytes())
        # all dims (few outputs: blocked partials across threads), Mean, a middle dim (not a direct run)
        h.update(rsum(x, tuple(range(len(shape))), dt).tobytes())
        m = np.zeros(shape[:-1], x.dtype)
        pyaclnn.call("Mean", x, [len(shape) - 1], False, dt, m)
        h.update(m.tobytes())
        if len(shape) == 3:
            h.update(rsum(x, (1,), dt).tobytes())
    # specials: Inf, -Inf, Inf - Inf, NaN payloads (signalling, quiet, signed) in some chunks only
    x = rng.standard_normal((6, 3000)).astype(dt)
    xb = x.view(np.uint16)
    inf, ninf, snan, qnan = ((0x7c00, 0xfc00, 0x7c01, 0xfe05) if dt == np.float16 else (0x7f80, 0xff80, 0x7f81, 0xffc5))
    xb[0, 700] = inf
    xb[1, 10], xb[1, 2000] = inf, ninf
    xb[2, 1100] = snan
    xb[3, 5], xb[3, 2900] = qnan, snan
    xb[4, 1030] = ninf
    y = rsum(x, (1,), dt)
    yv = y.astype(np.float64)
    assert yv[0] == np.inf and np.isnan(yv[1]) and np.isnan(yv[2]) and np.isnan(yv[3]) and yv[4] == -np.inf
    assert np.isfinite(yv[5])
    h.update(y.tobytes())
    h.update(rsum(x, (0, 1), dt).tobytes())
print(h.hexdigest())
"""


def test_reduce_sum_half_rows_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (1, 2, 7)}
    assert outs[1] == outs[2] == outs[7]
