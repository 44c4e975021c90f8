"""AvgPool3dBackward's AVX2 / AVX-512 gather (libsrc/kernels/pool3d_avg_bwd.c) and the paths around it: bytes
against the literal float64 loop of tests/reference/avg_pool3d.py (the same additions in the same order), rounded
to fp32 and then once to the gradInput dtype as the library rounds; NaN compared by position. Covers W tails (W = 1
.. 8k+7), one output along W, gy and gx views strided along D / H (the gather) and along W (the plain code), mixed
gy / gx dtypes, 4-D tensors, a gradInput over 8 MB (the streamed planes), subnormal halves, sums overflowing fp16,
+-Inf (inf + -inf: a NaN from the gather), ceil mode and NaN gradients (their planes take the scatter). The digest of every
result must be the same at PYACLNN_SIMD=off / avx2 / avx512 / the default and for 1 / 2 threads."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib
sys.path.insert(0, "tests")
from reference.avg_pool3d import avg_pool3d_backward
from reference.half import bf16_bits
from reference.max_pool import out_size
A = pyaclnn.int_array
BF = pyaclnn.bfloat16
rng = np.random.default_rng(1311)
h = hashlib.sha256()


def cast(a32, dt):
    return a32.astype(dt) if dt != BF else bf16_bits(a32).view(BF)


def expect(e64, dt):
    e32 = e64.astype(np.float32)
    return e32.astype(dt) if dt != BF else bf16_bits(e32).view(BF)


# (N, C, D, H, W) or 4-D (C, D, H, W), kernel, stride, padding, countIncludePad, divisorOverride
CASES = [((1, 3, 5, 6, 1), (3, 3, 1), (2, 2, 1), (1, 1, 0), True, 0),
         ((1, 2, 4, 5, 7), (3, 3, 3), (2, 2, 2), (1, 1, 1), True, 0),
         ((2, 2, 5, 6, 9), (3, 3, 3), (2, 2, 2), (1, 1, 1), False, 0),
         ((1, 2, 6, 5, 17), (3, 2, 3), (1, 2, 1), (1, 1, 1), True, 0),
         ((1, 1, 5, 7, 33), (2, 3, 4), (2, 1, 3), (1, 1, 2), False, 0),
         ((1, 2, 4, 4, 31), (2, 2, 7), (2, 2, 1), (0, 0, 3), True, 0),    # 7 outputs per W cell
         ((1, 1, 3, 4, 40), (1, 1, 9), (1, 1, 1), (0, 0, 4), True, 0),    # 9: past the 16-double permute window
         ((1, 2, 6, 6, 23), (3, 3, 2), (3, 3, 5), (1, 1, 1), True, 0),    # stride > kernel: uncovered cells
         ((3, 5, 6, 12), (3, 3, 3), (2, 2, 2), (1, 1, 1), True, 0),       # 4-D
         ((1, 2, 6, 8, 56), (3, 3, 3), (2, 2, 2), (1, 1, 1), True, 1),    # divisor 1: fp16 sums overflow
         ((1, 1, 4, 5, 5), (4, 5, 5), (1, 1, 1), (0, 0, 0), True, 0)]     # one output along W
BIG = ((4, 32, 8, 40, 64), (3, 3, 3), (2, 2, 2), (1, 1, 1), True, 0)     # gradInput >= 8 MB in every dtype
DTS = (np.float32, np.float16, BF)


def run(shape, k, s, p, cip, div, gdt, xdt, vals, views, ceil=False):
    spatial = shape[-3:]
    lead = shape[:-3]
    outs = tuple(out_size(spatial[a], k[a], s[a], p[a], 1, ceil) for a in range(3))
    gshape = lead + outs
    g32 = rng.standard_normal(gshape).astype(np.float32)
    if vals == "edge":
        n = g32.size
        g32.flat[rng.integers(0, n, max(2, n // 40))] = np.inf
        g32.flat[rng.integers(0, n, max(2, n // 40))] = -np.inf
        g32.flat[rng.integers(0, n, max(4, n // 10))] = 3e-6      # sums: subnormal fp16
        g32.flat[rng.integers(0, n, max(2, n // 20))] = 60000.0   # fp16: sums overflow
        g32.flat[rng.integers(0, n, 3)] = 3e-39                  # subnormal fp32
        if n > 40:
            g32.flat[rng.integers(0, n, 1)] = np.nan              # its plane: the scatter
    gy = cast(g32, gdt)
    e64 = avg_pool3d_backward(gy.astype(np.float64).reshape((-1,) + outs), spatial, k, s, p, cip, div)
    exp = expect(e64.reshape(shape), xdt)
    for view in views:
        if view == "gy_h":          # gy strided along H (the gather reads it)
            big = np.zeros(lead + (outs[0], 2 * outs[1], outs[2]), gy.dtype)
            big[..., ::2, :] = gy
            gyv = big[..., ::2, :]
        elif view == "gy_w":        # gy strided along W (the plain code)
            big = np.zeros(lead + (outs[0], outs[1], 2 * outs[2]), gy.dtype)
            big[..., ::2] = gy
            gyv = big[..., ::2]
        else:
            gyv = gy
        if view == "gx_d":          # gx strided along D (the gather writes it, no slab staging)
            big = np.full(lead + (2 * spatial[0],) + spatial[1:], 7, xdt)
            gxa = big[..., ::2, :, :]
        elif view == "gx_w":
            big = np.full(shape[:-1] + (2 * spatial[2],), 7, xdt)
            gxa = big[..., ::2]
        else:
            gxa = np.full(shape, 7, xdt)
        fmt = lib.ACL_FORMAT_NCDHW if len(shape) == 5 else lib.ACL_FORMAT_ND
        x = np.zeros(shape, xdt)
        gx = pyaclnn.AclTensor.from_array(gxa, fmt)
        pyaclnn.launch("AvgPool3dBackward", pyaclnn.AclTensor.from_array(gyv, fmt),
                       pyaclnn.AclTensor.from_array(x, fmt), A(list(k)), A(list(s)), A(list(p)), ceil, cip, div, gx)
        got = np.ascontiguousarray(gx.numpy())
        gf, ef = got.astype(np.float64), exp.astype(np.float64)
        nan = np.isnan(ef)
        tag = (shape, k, s, p, str(gdt), str(xdt), vals, view)
        assert np.array_equal(np.isnan(gf), nan), tag
        assert np.array_equal(got[~nan].view(np.uint8), np.ascontiguousarray(exp)[~nan].view(np.uint8)), tag
        h.update(got.tobytes())


VIEWS = ("contiguous", "gy_h", "gx_d", "gy_w", "gx_w")
for dt in DTS:
    for c in CASES:
        for vals in ("normal", "edge"):
            run(*c, dt, dt, vals, VIEWS)
for gdt, xdt in ((np.float16, np.float32), (np.float32, BF), (BF, np.float16)):
    for c in CASES[1:4]:
        run(*c, gdt, xdt, "edge", ("contiguous",))
for dt in DTS:
    for vals in ("normal", "edge"):
        run((1, 2, 6, 7, 20), (3, 3, 3), (2, 2, 2), (1, 1, 1), False, 0, dt, dt, vals, ("contiguous",), True)
        run((2, 1, 5, 8, 13), (2, 3, 3), (2, 3, 2), (0, 1, 1), True, 0, dt, dt, vals, ("gy_h",), True)
for dt in DTS:
    run(*BIG, dt, dt, "edge", ("contiguous",))
    run(*BIG, dt, dt, "normal", ("gy_h",))
print(h.hexdigest())
"""


def test_avg_pool3d_backward_levels_bytes():
    first = run_python(CODE, {"OMP_NUM_THREADS": "1"})
    assert run_python(CODE, {"OMP_NUM_THREADS": "2"}) == first
    for lv in ("off", "avx2", "avx512"):
        assert run_python(CODE, {"OMP_NUM_THREADS": "1", "PYACLNN_SIMD": lv}) == first, lv
    assert run_python(CODE, {"OMP_NUM_THREADS": "2", "PYACLNN_SIMD": "avx2"}) == first
