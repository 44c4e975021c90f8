"""Session 10's 3-d pooling half rows (libsrc/kernels/pool3d.c).

AvgPool3d forward through AVG_FWD_ROWS_BODY, whose input depth slices are now converted to fp32 in one pass
(fp16 / bf16; with stride 2 in W and W even split into even / odd cells) and whose per-slice W sums are kept for
the next output depth of the plane (the slot cache): values
against a literal numpy loop of the reference rule (per window row an fp32 sum from +0 in ascending w, the rows
added in double, divided in double, rounded once), for contiguous inputs, an H-strided view (rows not contiguous:
the per-row conversion), a permuted plane view, several output depths per plane (the cache hit and miss paths)
and kernels 1 / 2 / 3 in depth; with subnormal halves, +-Inf and NaN (NaN compared by position, the payloads by
the cross-level digest). MaxPool3dWithArgmax forward through fwd_columns' slice cache (each depth's padded fp32
rows once per plane) and its fp16 / bf16 output rows rounded by the row converters: values and the int32 argmax
against a literal numpy scan (the first maximum in (d, h, w) order, a NaN wins - the last NaN - with its own bits,
padding never wins), with ties, -Inf-only windows, subnormal halves, NaN payloads and strided views.
The same bytes at every SIMD level and for 1 / 2 threads."""
from helpers import run_python

AVG = r"""
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, "tests")
from pool3d_case import ref, run
rng = np.random.default_rng(15)
h = hashlib.sha256()

def views(x):
    yield "contiguous", x
    big = np.repeat(x, 2, axis=3)  # every other row: H stride 2W, rows still unit-stride
    yield "h-strided", big[:, :, :, ::2, :]
    t = np.ascontiguousarray(x.transpose(1, 0, 2, 3, 4)).transpose(1, 0, 2, 3, 4)  # planes C-major
    yield "planes-permuted", t

CASES = (((2, 3, 9, 7, 19), [3, 3, 3], [2, 2, 2], [1, 1, 1], True, 0),
         ((1, 2, 7, 6, 33), [2, 3, 3], [1, 2, 2], [1, 1, 0], False, 0),
         ((1, 3, 6, 5, 17), [3, 2, 2], [1, 2, 1], [0, 1, 1], True, 7),
         ((2, 1, 5, 4, 16), [1, 3, 3], [2, 1, 2], [0, 1, 1], False, 0),
         # stride 2 in W, W even: the even / odd split rows (p3_deint, avg_wpass_dei), k 3 and the other kernels
         ((1, 2, 5, 5, 20), [3, 3, 3], [2, 2, 2], [1, 1, 1], True, 0),
         ((1, 2, 4, 5, 18), [2, 2, 4], [2, 2, 2], [1, 1, 2], False, 0),
         ((1, 2, 4, 3, 14), [2, 3, 3], [1, 2, 2], [0, 1, 0], True, 0),
         ((1, 1, 3, 3, 70), [3, 3, 2], [2, 2, 2], [1, 1, 1], True, 0))
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    bits_t = np.uint32 if dt == np.float32 else np.uint16
    for shape, k, s, p, cip, div in CASES:
        x = (rng.standard_normal(shape) * rng.choice([1e-3, 1, 100], shape)).astype(np.float32).astype(dt)
        xb = x.view(bits_t).reshape(-1)
        if dt == np.float16:
            xb[1::29] = rng.integers(1, 0x400, xb[1::29].size) | (rng.integers(0, 2, xb[1::29].size) << 15)
        elif dt != np.float32:
            xb[1::29] = rng.integers(1, 0x80, xb[1::29].size) | (rng.integers(0, 2, xb[1::29].size) << 15)
        for name, v in views(x):
            y = run(v, k, s, p, cip, div)
            e = ref(v, k, s, p, cip, div)
            assert np.array_equal(y.view(bits_t), e.view(bits_t)), (dt, shape, k, s, p, name)
            h.update(y.tobytes())
        xf = x.reshape(-1)
        xf[3::37] = np.inf
        xf[5::41] = -np.inf
        xf[7::43] = np.nan
        if dt == np.float16:
            xb[9::53], xb[10::53] = 0x7e12, 0xfd34  # a quiet and a signalling payload in one window
        elif dt != np.float32:
            xb[9::53], xb[10::53] = 0x7fc1, 0xff82
        for name, v in views(x):
            y = run(v, k, s, p, cip, div)
            e = ref(v, k, s, p, cip, div)
            yf, ef = y.astype(np.float32), e.astype(np.float32)
            assert np.array_equal(np.isnan(yf), np.isnan(ef)), (dt, shape, name)
            fin = ~np.isnan(ef)
            assert np.array_equal(yf[fin], ef[fin]), (dt, shape, name)
            h.update(y.tobytes())
print(h.hexdigest())
"""


MAX = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
rng = np.random.default_rng(13)
h = hashlib.sha256()
A = pyaclnn.int_array

def osize(n, k, s, p, dl):
    return (n + 2 * p - dl * (k - 1) - 1) // s + 1

def ref(x, k, s, p, dl):
    xc = np.ascontiguousarray(x)
    xf = xc.astype(np.float32)
    N, C, D, H, W = x.shape
    outs = [osize(x.shape[2 + a], k[a], s[a], p[a], dl[a]) for a in range(3)]
    y = np.zeros((N, C) + tuple(outs), x.dtype)
    idx = np.zeros((N, C) + tuple(outs), np.int64)
    for n in range(N):
        for c in range(C):
            for od in range(outs[0]):
                for oh in range(outs[1]):
                    for ow in range(outs[2]):
                        cells = [(d, hh, w)
                                 for d in range(od * s[0] - p[0], od * s[0] - p[0] + k[0] * dl[0], dl[0]) if 0 <= d < D
                                 for hh in range(oh * s[1] - p[1], oh * s[1] - p[1] + k[1] * dl[1], dl[1]) if 0 <= hh < H
                                 for w in range(ow * s[2] - p[2], ow * s[2] - p[2] + k[2] * dl[2], dl[2]) if 0 <= w < W]
                        m, best = -np.inf, cells[0]
                        for cell in cells:
                            v = xf[(n, c) + cell]
                            if v > m or np.isnan(v):
                                m, best = v, cell
                        y[n, c, od, oh, ow] = xc[(n, c) + best]
                        idx[n, c, od, oh, ow] = (best[0] * H + best[1]) * W + best[2]
    return y, idx

def run(x, k, s, p, dl, ity):
    outs = tuple(osize(x.shape[2 + a], k[a], s[a], p[a], dl[a]) for a in range(3))
    xt = pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCDHW)
    yt = pyaclnn.AclTensor.empty(x.shape[:2] + outs, x.dtype, lib.ACL_FORMAT_NCDHW)
    it = pyaclnn.AclTensor.empty(x.shape[:2] + outs, np.dtype(ity), lib.ACL_FORMAT_NCDHW)
    pyaclnn.launch("MaxPool3dWithArgmax", xt, A(k), A(s), A(p), A(dl), False, yt, it)
    return yt.numpy(), it.numpy()

def views(x):
    yield "contiguous", x
    yield "h-strided", np.repeat(x, 2, axis=3)[:, :, :, ::2, :]
    yield "planes-permuted", np.ascontiguousarray(x.transpose(1, 0, 2, 3, 4)).transpose(1, 0, 2, 3, 4)

CASES = (((2, 2, 9, 7, 19), [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1]),
         ((1, 3, 6, 6, 33), [2, 3, 3], [1, 2, 2], [1, 1, 1], [1, 1, 1]),
         ((1, 2, 7, 8, 17), [3, 2, 3], [2, 2, 1], [0, 1, 1], [1, 1, 1]),
         ((1, 2, 8, 6, 13), [1, 3, 3], [2, 2, 2], [0, 1, 1], [1, 1, 1]),  # D stride > kernel: no slice cache
         ((1, 2, 5, 9, 12), [2, 1, 3], [1, 2, 2], [1, 0, 1], [1, 1, 1]))  # H stride > kernel: no slice cache
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    bits_t = np.uint32 if dt == np.float32 else np.uint16
    for ci, (shape, k, s, p, dl) in enumerate(CASES):
        for trial in range(2):
            x = rng.integers(-6, 6, shape).astype(np.float32).astype(dt)  # ties
            if trial:
                x = (rng.standard_normal(shape) * 100).astype(np.float32).astype(dt)
            xb = x.view(bits_t).reshape(-1)
            if dt == np.float16:
                xb[1::23] = rng.integers(1, 0x400, xb[1::23].size) | (rng.integers(0, 2, xb[1::23].size) << 15)
            elif dt != np.float32:
                xb[1::23] = rng.integers(1, 0x80, xb[1::23].size) | (rng.integers(0, 2, xb[1::23].size) << 15)
            xf = x.reshape(-1)
            xf[2::31] = -np.inf
            xf[4::59] = np.inf
            if trial:
                xf[: xf.size // 3] = -np.inf  # windows of -Inf only
                n = xb[5::47].size
                if dt == np.float32:
                    xb[5::47] = (0x7f800001 + rng.integers(0, 1 << 22, n)) | (rng.integers(0, 2, n) << 31)
                else:
                    e, mx = (0x7c00, 0x3ff) if dt == np.float16 else (0x7f80, 0x7f)
                    xb[5::47] = (e + 1 + rng.integers(0, mx - 1, n)) | (rng.integers(0, 2, n) << 15)
            ey, ei = ref(x, k, s, p, dl)
            for name, v in views(x):
                for ity in (np.int32,):
                    y, i = run(v, k, s, p, dl, ity)
                    assert np.array_equal(i, ei), (dt, ci, trial, name)
                    assert y.view(bits_t).tobytes() == ey.view(bits_t).tobytes(), (dt, ci, trial, name)
                    h.update(y.tobytes())
                    h.update(i.tobytes())
print(h.hexdigest())
"""


def _same_everywhere(code):
    outs = {cap: run_python(code, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": "1"}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    assert run_python(code, {"OMP_NUM_THREADS": "2"}) == outs[""]


def test_avg_pool3d_forward_half_slices():
    _same_everywhere(AVG)


def test_max_pool3d_with_argmax_forward_half_slices():
    _same_everywhere(MAX)
