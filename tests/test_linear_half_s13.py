"""UpsampleTrilinear3d / UpsampleLinear1d fp16 / bf16 forwards (libsrc/kernels/upsample_linear.inc): the D pass
of a half (or strided) output goes through one reused scratch plane (its two-tap sums 0 + w0 * a + w1 * b in one
pass), stored a plane at a time when the output planes are contiguous, else row by row; fp16 rows converted 16 lanes
a step at AVX-512. Checks: the bytes of a literal numpy float32 loop (the same passes W, H, D and the same taps)
rounded once, for normal, fp16-subnormal, -0, +-Inf and beyond-fp16-range values, odd widths / tails, align_corners
both ways, strided input and output views; and (NaN inputs and the backward passes included) the same bytes at
every PYACLNN_SIMD level and for 1 / 2 / 7 threads."""
import os

from helpers import run_python

HERE = os.path.dirname(os.path.abspath(__file__))

CODE = f"import sys; sys.path.insert(0, {HERE!r})\n" + r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
f32 = np.float32
rng = np.random.default_rng(1513)
h = hashlib.sha256()

from upsample_half import to_bf16, edge_values, separable_linear_ref as ref

def values(shape, kind):
    return edge_values(rng, shape, kind)

def launch(op, xd, outs, align, yv):
    nsp = len(outs)
    fmt = lib.ACL_FORMAT_ND if nsp == 1 else lib.ACL_FORMAT_NCDHW
    sc = [-1.0] if nsp == 1 else [0.0] * nsp
    yt = pyaclnn.AclTensor.from_array(yv, fmt)
    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(xd, fmt), pyaclnn.int_array(list(outs)), align, *sc, yt)
    return np.ascontiguousarray(yt.numpy())

def check(y, r32, dt, what):
    if dt == np.float16:
        exp = r32.astype(np.float16).view(np.uint16)
    else:
        exp = to_bf16(r32)
    assert np.array_equal(y.view(np.uint16), exp), what

CASES = [("UpsampleTrilinear3d", (2, 3, 5, 6, 17), (9, 11, 33)), ("UpsampleTrilinear3d", (1, 2, 4, 8, 8), (8, 16, 16)),
         ("UpsampleTrilinear3d", (1, 3, 7, 5, 9), (3, 5, 13)), ("UpsampleTrilinear3d", (2, 1, 1, 3, 5), (4, 3, 7)),
         ("UpsampleLinear1d", (3, 7, 37), (55,)), ("UpsampleLinear1d", (2, 4, 100), (150,)),
         ("UpsampleLinear1d", (1, 5, 9), (4,))]
for op, shape, outs in CASES:
    for align in (False, True):
        for kind in range(4):
            x = values(shape, kind)
            for dt in (np.float16, pyaclnn.bfloat16):
                xd = x.astype(dt)
                oshape = shape[:2] + tuple(outs)
                y = launch(op, xd, outs, align, np.zeros(oshape, dt))
                if kind < 3:
                    check(y, ref(xd.astype(f32), outs, align), dt, (op, shape, outs, align, kind, dt))
                h.update(y.tobytes())
                # strided views: input every other element, output rows inside a wider buffer
                xs = np.zeros(shape[:-1] + (2 * shape[-1] + 1,), dt); xs[..., 1::2] = xd
                ys = np.zeros(oshape[:-1] + (oshape[-1] + 3,), dt)
                yv = launch(op, xs[..., 1::2], outs, align, ys[..., 2:oshape[-1] + 2])
                assert np.array_equal(yv.view(np.uint16), y.view(np.uint16)), (op, shape, "strided")
                yw = launch(op, xd, outs, align, np.zeros(oshape[:-1] + (2 * oshape[-1],), dt)[..., ::2])
                assert np.array_equal(yw.view(np.uint16), y.view(np.uint16)), (op, shape, "output stride")
                # the backward pass of the same geometry (bytes only)
                g = values(oshape, kind).astype(dt)
                bop = op + "Backward"
                fmt = lib.ACL_FORMAT_ND if len(outs) == 1 else lib.ACL_FORMAT_NCDHW
                gi = pyaclnn.AclTensor.empty(shape, dt, fmt)
                pyaclnn.launch(bop, pyaclnn.AclTensor.from_array(g, fmt), pyaclnn.int_array(list(outs)),
                               pyaclnn.int_array(list(shape)), align, *([0.0] * len(outs)), gi)
                h.update(np.ascontiguousarray(gi.numpy()).tobytes())
print(h.hexdigest())
"""


def test_linear_half_forward_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (1, 2, 7)}
    assert outs[1] == outs[2] == outs[7] == outs_default(CODE)


def outs_default(code):
    return run_python(code, {"PYACLNN_SIMD": ""})
