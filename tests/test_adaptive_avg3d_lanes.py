"""AdaptiveAvgPool3d forward: each output cell sums its window in eight lanes (a term's position in its window row,
modulo 8; window rows in (d, h) order) joined as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) in double, then
divides by the window size and rounds once (through fp32, as the kernel stores). The reference below is that tree
written out in float64 numpy with the library's NaN rule (a op b keeps a's payload, quietened, when a is NaN, else
b's). The library's bytes must equal it at every SIMD level (AVX-512 / AVX2 register lanes, the portable loop) and
thread count: windows shorter than, equal to and longer than 8 (with tails), overlapping windows, fp32 / fp16 / bf16,
a strided input, and inputs with +-Inf and NaNs of different payloads."""
import ml_dtypes
import numpy as np
import pytest

from helpers import run_python
from reference.half import bf16_bits

CASES = r"""
import numpy as np
def cases():
    rng = np.random.default_rng(11)
    out = []
    for dt in ("f32", "f16", "bf16"):
        for shape, osz, special in [((2, 3, 5, 13, 17), (2, 5, 4), False),   # overlapping, W windows 5-6
                                    ((1, 2, 4, 8, 56), (2, 2, 7), False),    # W windows of 8
                                    ((1, 2, 3, 5, 40), (1, 2, 3), True),     # W windows of 14 (a tail of 6)
                                    ((1, 3, 2, 3, 9), (2, 3, 9), True),      # W windows of 1
                                    ((2, 1, 3, 4, 23), (3, 1, 2), True)]:    # W windows of 12, one H window
            x = (rng.standard_normal(shape) * 4).astype(np.float32)
            if special:
                r = rng.random(shape)
                x[r < 0.02] = np.inf
                x[(r >= 0.02) & (r < 0.04)] = -np.inf
                bits = x.view(np.uint32)
                nan = (r >= 0.04) & (r < 0.07)
                # NaNs with distinct payloads (quiet and signalling), both signs
                bits[nan] = (0x7f800000 | rng.integers(1, 1 << 22, nan.sum()) | (rng.integers(0, 2, nan.sum()) << 31)
                             ).astype(np.uint32)
            out.append((dt, x, osz, bool(special) and dt == "f32" and shape[4] % 2 == 0))
    return out
"""

CHILD = CASES + r"""
import hashlib, sys, pyaclnn
DT = {"f32": np.float32, "f16": np.float16, "bf16": pyaclnn.bfloat16}
res = []
for k, (dt, x, osz, strided) in enumerate(cases()):
    xa = x.astype(DT[dt])
    if strided:                    # the same values through a view whose W stride is 2
        wide = np.zeros(xa.shape[:-1] + (2 * xa.shape[-1],), xa.dtype)
        wide[..., ::2] = xa
        xa = wide[..., ::2]
    y = np.zeros(x.shape[:2] + tuple(osz), DT[dt])
    pyaclnn.call("AdaptiveAvgPool3d", xa, list(osz), y)
    res.append(y.view(np.uint16 if dt != "f32" else np.uint32).tobytes().hex())
print("\n".join(res))
"""


def _quiet(v):
    b = np.array([v], np.float64).view(np.uint64)
    b |= np.uint64(0x0008000000000000)
    return b.view(np.float64)[0]


def _add(a, b):
    if np.isnan(a):
        return _quiet(a)
    if np.isnan(b):
        return _quiet(b)
    with np.errstate(invalid="ignore"):
        return a + b


def _join(l):
    return _add(_add(_add(l[0], l[1]), _add(l[2], l[3])), _add(_add(l[4], l[5]), _add(l[6], l[7])))


def _win(o, n_in, n_out):
    return (o * n_in) // n_out, -((-(o + 1) * n_in) // n_out)


def reference(x, osz):
    """x: float32 values (N, C, D, H, W) exactly as the kernel reads them; float64 cell values"""
    N, C, D, H, W = x.shape
    with np.errstate(invalid="ignore"):
        x64 = x.astype(np.float64)
    y = np.zeros((N, C) + tuple(osz))
    for n in range(N):
        for c in range(C):
            for a in range(osz[0]):
                d0, d1 = _win(a, D, osz[0])
                for b in range(osz[1]):
                    h0, h1 = _win(b, H, osz[1])
                    for e in range(osz[2]):
                        w0, w1 = _win(e, W, osz[2])
                        lanes = [0.0] * 8
                        for d in range(d0, d1):
                            for h in range(h0, h1):
                                for m in range(w1 - w0):
                                    lanes[m % 8] = _add(lanes[m % 8], x64[n, c, d, h, w0 + m])
                        y[n, c, a, b, e] = _join(lanes) / ((d1 - d0) * (h1 - h0) * (w1 - w0))
    return y


def _expected_bytes(y64, dt):
    y32 = y64.astype(np.float32)            # the kernel's store: double -> fp32 (hardware, payload kept), then dt
    if dt == "f32":
        return y32.view(np.uint32)
    if dt == "f16":
        return y32.astype(np.float16).view(np.uint16)
    return bf16_bits(y32)


@pytest.fixture(scope="module")
def outputs():
    runs = {}
    for lv in ("", "avx512", "avx2", "off"):
        for th in ("1", "2"):
            env = {"OMP_NUM_THREADS": th}
            if lv:
                env["PYACLNN_SIMD"] = lv
            runs[(lv or "default", th)] = run_python(CHILD, env).decode().split()
    return runs


def test_levels_and_threads_agree(outputs):
    first = outputs[("default", "1")]
    for key, out in outputs.items():
        assert out == first, f"level/threads {key} differ from the default at 1 thread"


def test_bytes_equal_the_lane_tree(outputs):
    ns = {}
    exec(CASES, ns)
    got = outputs[("default", "1")]
    for k, (dt, x, osz, _) in enumerate(ns["cases"]()):
        # the kernel reads the dtype's values: round the generated fp32 values first
        if dt == "f16":
            xv = x.astype(np.float16).astype(np.float32)
        elif dt == "bf16":                  # as the child converts (ml_dtypes), then widened exactly
            xv = (x.astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            xv = x
        want = _expected_bytes(reference(xv, osz), dt)
        have = np.frombuffer(bytes.fromhex(got[k]), want.dtype).reshape(want.shape)
        bad = np.flatnonzero(have.reshape(-1) != want.reshape(-1))
        assert bad.size == 0, (k, dt, x.shape, osz, bad[:5], have.reshape(-1)[bad[:5]], want.reshape(-1)[bad[:5]])
