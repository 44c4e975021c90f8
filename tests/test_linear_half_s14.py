"""UpsampleLinear1d fp16 / bf16 forward and backward row blocks (libsrc/kernels/upsample_linear.inc upl_rows):
contiguous half rows are converted UPL_CH (128) columns at a time for the 8 rows of a block and interleaved /
de-interleaved by 4x4 transposes; bf16 rows take the AVX2 / AVX-512 converters of kernels/f16_rows.h at those
levels. Checks: the bytes of a literal numpy float32 loop rounded once (forward: w0 * a + w1 * b; backward: the
scatter gi[i0] += w0 * g, gi[i1] += w1 * g in ascending output order) for normal, fp16- and bf16-subnormal, -0, +-Inf and
beyond-fp16-range values; widths with 128-column chunk tails and n % 4 tails; (N, C) counts with and without a
remainder of 8 rows; align_corners both ways; views strided in C and in W (input and output); and, NaN payloads
included, the same bytes at every PYACLNN_SIMD level and for 1 / 2 / 3 threads."""
import os

from helpers import run_python

HERE = os.path.dirname(os.path.abspath(__file__))

CODE = f"import sys; sys.path.insert(0, {HERE!r})\n" + r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
f32 = np.float32
rng = np.random.default_rng(1514)
h = hashlib.sha256()

from upsample_half import to_bf16, linear_taps as taps, edge_values

def values(shape, kind):
    return edge_values(rng, shape, kind)

def ref_fwd(x, n_out, align):
    i0, i1, w0, w1 = taps(x.shape[-1], n_out, align)
    return (w0 * x[..., i0] + w1 * x[..., i1]).astype(f32)

def ref_bwd(g, n_in, align):
    i0, i1, w0, w1 = taps(n_in, g.shape[-1], align)
    gi = np.zeros(g.shape[:-1] + (n_in,), f32)
    for d in range(g.shape[-1]):
        gi[..., i0[d]] += w0[d] * g[..., d]
        gi[..., i1[d]] += w1[d] * g[..., d]
    return gi

def fwd(xd, n_out, align, yv):
    yt = pyaclnn.AclTensor.from_array(yv, lib.ACL_FORMAT_ND)
    pyaclnn.launch("UpsampleLinear1d", pyaclnn.AclTensor.from_array(xd, lib.ACL_FORMAT_ND),
                   pyaclnn.int_array([n_out]), align, -1.0, yt)
    return np.ascontiguousarray(yt.numpy())

def bwd(gd, n_out, shape, align, yv):
    gi = pyaclnn.AclTensor.from_array(yv, lib.ACL_FORMAT_ND)
    pyaclnn.launch("UpsampleLinear1dBackward", pyaclnn.AclTensor.from_array(gd, lib.ACL_FORMAT_ND),
                   pyaclnn.int_array([n_out]), pyaclnn.int_array(list(shape)), align, 0.0, gi)
    return np.ascontiguousarray(gi.numpy())

def check(y, r32, dt, what):
    exp = r32.astype(np.float16).view(np.uint16) if dt == np.float16 else to_bf16(r32)
    assert np.array_equal(y.view(np.uint16), exp), what

# (N, C, W_in) -> W_out: 128-column chunks with tails, n % 4 tails, N * C % 8 remainders
CASES = [((2, 8, 301), 450), ((3, 5, 130), 259), ((1, 16, 7), 13), ((2, 9, 257), 129), ((1, 8, 5), 3),
         ((4, 4, 1), 6), ((2, 12, 64), 64 + 3)]
for shape, n_out in CASES:
    for align in (False, True):
        for kind in range(5):
            for dt in (np.float16, pyaclnn.bfloat16):
                x = values(shape, kind).astype(dt)
                oshape = shape[:2] + (n_out,)
                y = fwd(x, n_out, align, np.zeros(oshape, dt))
                if kind != 3:
                    check(y, ref_fwd(x.astype(f32), n_out, align), dt, ("fwd", shape, n_out, align, kind, dt))
                h.update(y.tobytes())
                # views: C sliced out of a wider tensor (rows contiguous, planes apart), W strided in / out
                xc = np.zeros((shape[0], shape[1] + 3, shape[2]), dt); xc[:, 2:-1] = x
                yc = np.zeros((oshape[0], oshape[1] + 2, oshape[2]), dt)
                yv = fwd(xc[:, 2:-1], n_out, align, yc[:, 1:-1])
                assert np.array_equal(yv.view(np.uint16), y.view(np.uint16)), ("fwd C view", shape)
                xs = np.zeros(shape[:-1] + (2 * shape[-1] + 1,), dt); xs[..., 1::2] = x
                yv = fwd(xs[..., 1::2], n_out, align, np.zeros(oshape, dt))
                assert np.array_equal(yv.view(np.uint16), y.view(np.uint16)), ("fwd W in", shape)
                yv = fwd(x, n_out, align, np.zeros(oshape[:-1] + (2 * n_out,), dt)[..., ::2])
                assert np.array_equal(yv.view(np.uint16), y.view(np.uint16)), ("fwd W out", shape)
                # backward: grad_out (N, C, n_out) -> grad_in (N, C, W_in)
                g = values(oshape, kind).astype(dt)
                gi = bwd(g, n_out, shape, align, np.zeros(shape, dt))
                if kind != 3:
                    check(gi, ref_bwd(g.astype(f32), shape[2], align), dt, ("bwd", shape, n_out, align, kind, dt))
                h.update(gi.tobytes())
                gc = np.zeros((oshape[0], oshape[1] + 3, oshape[2]), dt); gc[:, 1:-2] = g
                gic = np.zeros((shape[0], shape[1] + 2, shape[2]), dt)
                gv = bwd(gc[:, 1:-2], n_out, shape, align, gic[:, 2:])
                assert np.array_equal(gv.view(np.uint16), gi.view(np.uint16)), ("bwd C view", shape)
                gs = np.zeros(oshape[:-1] + (2 * n_out,), dt); gs[..., ::2] = g
                gv = bwd(gs[..., ::2], n_out, shape, align, np.zeros(shape[:-1] + (2 * shape[2],), dt)[..., 1::2])
                assert np.array_equal(gv.view(np.uint16), gi.view(np.uint16)), ("bwd W strided", shape)
print(h.hexdigest())
"""


def test_linear1d_half_rows_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]
    threads = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t), "PYACLNN_SIMD": ""}) for t in (1, 2, 3)}
    assert threads[1] == threads[2] == threads[3] == outs[""]
