"""MaxPool3dWithArgmaxBackward for fp16 / bf16 through the sparse planes' output at the portable level
(libsrc/kernels/pool3d.c p3_sparse_out_sse2: the touched sums rounded 8 at a time in registers). Values against a
numpy reference (each gradInput cell 0 + the gradients naming it in gradOutput's row-major order, in float32, rounded
once), with cells named several times, subnormal / huge / -0 gradients and NaN / Inf gradients (NaN compared by
position). The same bytes at every SIMD level and for 1/2/7 threads."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib
sys.path.insert(0, "tests")
from reference.half import bf16_bits
rng = np.random.default_rng(21)
h = hashlib.sha256()
A = pyaclnn.int_array
F = lib.ACL_FORMAT_NCDHW

def to_bf16(a32):
    return bf16_bits(a32).view(pyaclnn.bfloat16)

for dt in (np.float16, pyaclnn.bfloat16):
    f16 = dt == np.float16
    for shape in ((2, 3, 8, 12, 14), (1, 2, 6, 9, 30), (1, 1, 10, 16, 16)):
        x = rng.standard_normal(shape).astype(np.float32)
        x[..., ::3] = np.round(x[..., ::3])  # ties: cells named by several windows
        x = x.astype(dt)
        osz = tuple((n + 2 - 3) // 2 + 1 for n in shape[2:])
        xt = pyaclnn.AclTensor.from_array(x, F)
        yt = pyaclnn.AclTensor.empty(shape[:2] + osz, dt, F)
        it = pyaclnn.AclTensor.empty(shape[:2] + osz, np.dtype(np.int32), F)
        pyaclnn.launch("MaxPool3dWithArgmax", xt, A([3]), A([2]), A([1]), A([1]), False, yt, it)
        idx = it.numpy()
        for nanrow in (False, True):
            g = (rng.standard_normal(shape[:2] + osz) * rng.choice([1e-6, 1, 1e3], shape[:2] + osz)).astype(np.float32)
            g = g.astype(dt)
            gb = g.view(np.uint16).reshape(-1)
            gb[1::11] = rng.integers(1, 0x400 if f16 else 0x80, gb[1::11].size)
            gb[2::13] = 0x7bff if f16 else 0x7f7f
            gb[4::17] = 0x8000
            if nanrow:
                gb[5::29] = 0x7c00 if f16 else 0x7f80
                gb[6::31] = 0xfe05 if f16 else 0xffc5
            gt = pyaclnn.AclTensor.from_array(g, F)
            gx = pyaclnn.AclTensor.empty(shape, dt, F)
            pyaclnn.launch("MaxPool3dWithArgmaxBackward", gt, xt, it, A([3]), A([2]), A([1]), A([1]), False, gx)
            y = gx.numpy()
            gf = g.astype(np.float32).reshape(shape[0] * shape[1], -1)
            ii = idx.reshape(shape[0] * shape[1], -1)
            isz = int(np.prod(shape[2:]))
            e32 = np.zeros((shape[0] * shape[1], isz), np.float32)
            for pl in range(e32.shape[0]):
                for j in range(ii.shape[1]):
                    e32[pl, ii[pl, j]] = e32[pl, ii[pl, j]] + gf[pl, j]
            e32 = e32.reshape(shape)
            e = e32.astype(np.float16) if f16 else to_bf16(e32)
            fin = ~np.isnan(e32)
            assert np.array_equal(y.view(np.uint16)[fin], e.view(np.uint16)[fin]), (dt, shape, nanrow)
            assert np.array_equal(np.isnan(y.astype(np.float32)), ~fin), (dt, shape, nanrow)
            h.update(y.tobytes())
print(h.hexdigest())
"""


def test_max_pool3d_backward_sparse_half_planes_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t), "PYACLNN_SIMD": "off"}) for t in (1, 2, 7)}
    assert outs[1] == outs[2] == outs[7]
