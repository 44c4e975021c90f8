"""AvgPool3d forward through the per-unit W sums (libsrc/kernels/pool3d.c AVG_FWD_ROWS_BODY: each input row's fp32
window sums computed once per (plane, output depth), then added per output cell in (d, h) order in double). Values
against a numpy reference of that rule (per window row an fp32 sum from +0 in ascending w, the rows added in double,
divided in double, rounded once through fp32) for fp32 / fp16 / bf16, with padding, count_include_pad off, a divisor
override and stride 1 / 2 / 3; NaN / Inf inputs compared by position. The same bytes at every SIMD level and for
1/2/7 threads."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, "tests")
from pool3d_case import ref, run
rng = np.random.default_rng(9)
h = hashlib.sha256()

CASES = (((2, 3, 7, 9, 11), [3, 3, 3], [2, 2, 2], [1, 1, 1], True, 0),
         ((1, 2, 6, 8, 13), [3, 2, 3], [2, 1, 2], [1, 0, 1], False, 0),
         ((1, 3, 5, 7, 20), [2, 3, 4], [1, 2, 3], [0, 1, 2], True, 5),
         ((2, 2, 4, 5, 9), [1, 1, 1], [1, 1, 1], [0, 0, 0], True, 0))
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for shape, k, s, p, cip, div in CASES:
        x = (rng.standard_normal(shape) * rng.choice([1e-3, 1, 100], shape)).astype(np.float32).astype(dt)
        y = run(x, k, s, p, cip, div)
        e = ref(x, k, s, p, cip, div)
        bits = np.uint32 if dt == np.float32 else np.uint16
        assert np.array_equal(y.view(bits), e.view(bits)), (dt, shape, k, s, p)
        h.update(y.tobytes())
        xf = x.reshape(-1)
        xf[3::37] = np.inf
        xf[5::41] = -np.inf
        xf[7::43] = np.nan
        xb = x.view(np.uint32 if dt == np.float32 else np.uint16).reshape(-1)  # NaN pairs in one W window
        if dt == np.float32:
            xb[9::53], xb[10::53] = 0x7fc00123, 0xffc00456
        elif dt == np.float16:
            xb[9::53], xb[10::53] = 0x7e12, 0xfe34
        else:
            xb[9::53], xb[10::53] = 0x7fc1, 0xffc2
        y = run(x, k, s, p, cip, div)
        e = ref(x, k, s, p, cip, div)
        yf, ef = y.astype(np.float32), e.astype(np.float32)
        assert np.array_equal(np.isnan(yf), np.isnan(ef)), (dt, shape)
        fin = ~np.isnan(ef)
        assert np.array_equal(yf[fin], ef[fin]), (dt, shape)
        h.update(y.tobytes())
print(h.hexdigest())
"""


def test_avg_pool3d_forward_rows_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (1, 2, 7)}
    assert outs[1] == outs[2] == outs[7]
