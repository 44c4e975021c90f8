"""The portable (PYACLNN_SIMD=off) half rows of session 15 (libsrc/kernels/upsample_linear.{c,inc}):
- the two-tap D pass (UpsampleTrilinear3d forward) and the two-tap H pass (UpsampleBilinear2d forward) of a half
  output with unit W stride: each output (0 + w0 * a) + w1 * b (w1 * b where that product is a NaN) summed and
  narrowed 8 at a time in registers (upl_lerp_strow_f16 / _bf16; the fp16 one first narrows p0 + p1, which equals
  the exact sum except for zero and NaN sums, and takes the exact sums for any block that is not 8 normal halves);
- the two-tap H pass of every dtype in one pass (UPL_LERP2_ROW, also the fp32 / double outputs);
- the bf16 antialiased backward's last H pass narrowed from the registers 16 at a time (upl_nar16_bf16).
Checks: the forwards' bytes against a literal numpy float32 loop (the same W, H, D passes and taps: W p0 + p1, H and
D (0 + p0) + p1) rounded once (fp32 outputs: equal to the loop itself), for normal values, rounding ties, fp16 /
bf16 subnormals, -0, +-Inf, sums beyond fp16's range and NaNs (NaN positions; the payloads by the digest), odd widths
and plane sizes (tails of the 8-lane steps), align_corners both ways, strided input and output views (rows inside a
wider buffer: the row-by-row store; a W stride: the scratch path); the bf16 antialiased backward against the fp32
op's output rounded once (its sums are exactly the fp32 op's: the same taps and order); and one digest (NaN payloads
included) identical at PYACLNN_SIMD=off / avx2 / avx512 / default and for OMP_NUM_THREADS 1 / 2 / 7."""
import os

from helpers import run_python

HERE = os.path.dirname(os.path.abspath(__file__))

CODE = f"import sys; sys.path.insert(0, {HERE!r})\n" + r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
f32 = np.float32
np.seterr(all="ignore")
rng = np.random.default_rng(1515)
h = hashlib.sha256()

from upsample_half import to_bf16, edge_values, separable_linear_ref as ref

def values(shape, kind):
    if kind == 6:  # integers 1024..2047 (ulp 1 in fp16, 2^-7 relative in bf16): the lerps hit rounding ties
        return rng.integers(1024, 2048, shape).astype(f32) * f32(rng.choice([1.0, -1.0]))
    return edge_values(rng, shape, kind)

def launch(op, xd, outs, align, yv):
    fmt = lib.ACL_FORMAT_NCDHW if len(outs) == 3 else lib.ACL_FORMAT_NCHW
    yt = pyaclnn.AclTensor.from_array(yv, fmt)
    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(xd, fmt), pyaclnn.int_array(list(outs)), align,
                   *([0.0] * len(outs)), yt)
    return np.ascontiguousarray(yt.numpy())

def expect(r32, dt):
    if dt == np.float16:
        return r32.astype(np.float16).view(np.uint16)
    if dt == f32:
        return r32.view(np.uint32)
    return to_bf16(r32)

def same_views(a, b, dt, kind):
    # a strided call against the contiguous one: the same bytes; for fp32 with NaN inputs the NaN positions and the
    # other bytes (the fp32 rows leave a NaN + NaN to the compiler, whose operand order can differ between the
    # contiguous and the strided loop in the sanitizer build's -O1; the half rows choose the payload explicitly)
    if dt == f32 and kind in (3, 5):
        an, bn = np.isnan(a), np.isnan(b)
        return np.array_equal(an, bn) and np.array_equal(a[~an].tobytes(), b[~bn].tobytes())
    return np.array_equal(a.tobytes(), b.tobytes())

def check(y, r32, dt, kind, what):
    got = y.view(np.uint16 if dt != f32 else np.uint32)
    exp = expect(r32, dt)
    if kind in (3, 5):  # NaNs: the NaN positions; the other elements' bytes
        yn = np.isnan(y.astype(f32))
        assert np.array_equal(yn, np.isnan(r32)), what
        assert np.array_equal(got[~yn], exp[~yn]), what
    else:
        assert np.array_equal(got, exp), what

# (op, input shape, output spatial sizes): odd widths and plane sizes (tails of the 8-lane steps), whole
# multiples, a plane of one row, the bench's x2 shape reduced
CASES = [("UpsampleTrilinear3d", (2, 3, 5, 6, 17), (9, 11, 33)), ("UpsampleTrilinear3d", (1, 2, 4, 8, 8), (8, 16, 16)),
         ("UpsampleTrilinear3d", (1, 3, 7, 5, 9), (3, 5, 13)), ("UpsampleTrilinear3d", (1, 2, 3, 1, 6), (6, 1, 10)),
         ("UpsampleTrilinear3d", (1, 2, 4, 8, 8), (8, 16, 19)),
         ("UpsampleBilinear2d", (2, 3, 6, 17), (11, 33)), ("UpsampleBilinear2d", (1, 2, 8, 8), (16, 16)),
         ("UpsampleBilinear2d", (1, 3, 5, 9), (7, 13)), ("UpsampleBilinear2d", (1, 2, 8, 24), (16, 40))]
for op, shape, outs in CASES:
    for align in (False, True):
        for kind in (0, 1, 2, 3, 4, 5, 6):
            x = values(shape, kind)
            for dt in (np.float16, pyaclnn.bfloat16, f32):
                xd = x.astype(dt)
                oshape = shape[:2] + tuple(outs)
                y = launch(op, xd, outs, align, np.zeros(oshape, dt))
                check(y, ref(xd.astype(f32), outs, align), dt, kind, (op, shape, outs, align, kind, dt))
                h.update(y.tobytes())
                # strided views: input every other element; output rows inside a wider buffer; a W stride of 2
                xs = np.zeros(shape[:-1] + (2 * shape[-1] + 1,), dt); xs[..., 1::2] = xd
                ys = np.zeros(oshape[:-1] + (oshape[-1] + 3,), dt)
                yv = launch(op, xs[..., 1::2], outs, align, ys[..., 2:oshape[-1] + 2])
                assert same_views(yv, y, dt, kind), (op, shape, "row stride")
                yw = launch(op, xd, outs, align, np.zeros(oshape[:-1] + (2 * oshape[-1],), dt)[..., ::2])
                assert same_views(yw, y, dt, kind), (op, shape, "W stride")
            # double (Trilinear3d; UpsampleBilinear2d takes double only in NHWC): the same bytes at every level
            if op == "UpsampleTrilinear3d":
                h.update(launch(op, x.astype(np.float64), outs, align, np.zeros(shape[:2] + tuple(outs))).tobytes())

# the bf16 antialiased backward (its last H pass narrowed from the registers): the fp32 op's bytes rounded once
NCHW = lib.ACL_FORMAT_NCHW
def aa(op, g, ishape, align, dt, yv=None):
    gi = pyaclnn.AclTensor.from_array(np.zeros(ishape, dt) if yv is None else yv, NCHW)
    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(g, NCHW), pyaclnn.int_array(list(g.shape[2:])),
                   pyaclnn.int_array(list(ishape)), align, 0.0, 0.0, gi)
    return np.ascontiguousarray(gi.numpy())

AA = [((2, 3, 40, 37), (15, 14)), ((1, 2, 17, 131), (7, 50)), ((1, 3, 24, 80), (24, 31)), ((1, 2, 12, 16), (30, 40)),
      ((1, 2, 20, 47), (9, 19))]
for op in ("UpsampleBilinear2dAABackward", "UpsampleBicubic2dAAGrad"):
    for ishape, outs in AA:
        for align in (False, True):
            for kind in (0, 1, 2, 3, 4, 5):
                g32 = values(ishape[:2] + outs, kind)
                for dt in (pyaclnn.bfloat16, np.float16):
                    gd = g32.astype(dt)
                    y = aa(op, gd, ishape, align, dt)
                    r32 = aa(op, gd.astype(f32), ishape, align, f32)
                    check(y, r32, dt, kind, (op, ishape, outs, align, kind, dt))
                    h.update(y.tobytes())
                    gi = np.zeros(ishape[:-1] + (2 * ishape[-1],), dt)[..., ::2]
                    yw = aa(op, gd, ishape, align, dt, gi)
                    assert np.array_equal(yw.tobytes(), y.tobytes()), (op, ishape, "output stride")
print(h.hexdigest())
"""


def test_half_portable_s15_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]
    outs_t = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t), "PYACLNN_SIMD": "off"}) for t in (1, 2, 7)}
    assert outs_t[1] == outs_t[2] == outs_t[7] == outs["off"]
    outs_d = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (2, 7)}
    assert outs_d[2] == outs_d[7] == outs[""]
