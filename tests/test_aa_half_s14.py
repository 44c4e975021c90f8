"""UpsampleBilinear2dAA / UpsampleBicubic2dAA backward in fp16 / bf16 (libsrc/kernels/upsample_linear.inc): the
last (H) pass of a half output sums each run of an output row over its taps in registers (s = 0, then s += w * x in
tap order), writes it once into the scratch row and narrows the row; a row whose sums meet a NaN is redone by the
general loop. Checks: the bytes of the fp32 op on the widened input (a separate path: its H pass accumulates in the
output itself) rounded once to nearest even, for normal, fp16-subnormal, -0, +-Inf and beyond-fp16-range values,
odd widths / tails (widths not a multiple of the 16 / 32-lane runs), strided input and output views; and (NaN
payloads included) the same bytes at every PYACLNN_SIMD level and for 1 / 2 / 7 threads."""
import os

from helpers import run_python

HERE = os.path.dirname(os.path.abspath(__file__))

CODE = f"import sys; sys.path.insert(0, {HERE!r})\n" + r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
f32 = np.float32
rng = np.random.default_rng(1414)
h = hashlib.sha256()
NCHW = lib.ACL_FORMAT_NCHW

from upsample_half import to_bf16, edge_values

def values(shape, kind):
    return edge_values(rng, shape, kind)

def run(op, g, ishape, align, dt, yv=None):
    gi = pyaclnn.AclTensor.from_array(np.zeros(ishape, dt) if yv is None else yv, NCHW)
    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(g, NCHW), pyaclnn.int_array(list(g.shape[2:])),
                   pyaclnn.int_array(list(ishape)), align, 0.0, 0.0, gi)
    return np.ascontiguousarray(gi.numpy())

OPS = ("UpsampleBilinear2dAABackward", "UpsampleBicubic2dAAGrad")
# (N, C, H, W) of the forward input (the backward's output), the forward output (H, W) (the backward's input)
CASES = [((2, 3, 40, 37), (15, 14)), ((1, 4, 33, 64), (12, 24)), ((1, 2, 17, 131), (7, 50)),
         ((2, 2, 9, 5), (4, 3)), ((1, 3, 24, 80), (24, 31)), ((1, 2, 12, 16), (30, 40))]
for op in OPS:
    for ishape, outs in CASES:
        for align in (False, True):
            for kind in (0, 1, 2, 3, 5):
                oshape = ishape[:2] + outs
                g32 = values(oshape, kind)
                for dt in (np.float16, pyaclnn.bfloat16):
                    gd = g32.astype(dt)
                    y = run(op, gd, ishape, align, dt)
                    if kind < 3:
                        r32 = run(op, gd.astype(f32), ishape, align, f32)
                        exp = r32.astype(np.float16).view(np.uint16) if dt == np.float16 else to_bf16(r32)
                        assert np.array_equal(y.view(np.uint16), exp), (op, ishape, outs, align, kind, dt)
                    h.update(y.tobytes())
                    # strided input view and strided output view: the same bytes
                    gs = np.zeros(oshape[:-1] + (2 * oshape[-1] + 1,), dt); gs[..., 1::2] = gd
                    yv = run(op, gs[..., 1::2], ishape, align, dt)
                    assert np.array_equal(yv.view(np.uint16), y.view(np.uint16)), (op, ishape, "input stride")
                    gi = pyaclnn.AclTensor.from_array(np.zeros(ishape[:-1] + (2 * ishape[-1],), dt)[..., ::2], NCHW)
                    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(gd, NCHW), pyaclnn.int_array(list(outs)),
                                   pyaclnn.int_array(list(ishape)), align, 0.0, 0.0, gi)
                    yw = np.ascontiguousarray(gi.numpy())
                    assert np.array_equal(yw.view(np.uint16), y.view(np.uint16)), (op, ishape, "output stride")
print(h.hexdigest())
"""


def test_aa_half_backward_exact_and_identical_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]
    outs_t = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (1, 2, 7)}
    assert outs_t[1] == outs_t[2] == outs_t[7] == outs[""]
