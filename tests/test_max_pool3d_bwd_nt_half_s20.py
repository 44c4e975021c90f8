"""MaxPool3dWithArgmaxBackward fp16 / bf16 with a gradInput past the non-temporal threshold (8 MiB) and dense planes
(k3 s2: one argmax per 8 cells): at the AVX-512 level the fp32 sums are rounded straight into the gradInput plane,
whole 64-byte lines by streaming stores, the head / tail cells and a line with an fp16 NaN sum by plain stores
(libsrc/kernels/pool3d.c p3_round_clear_nt_avx512). Odd-sized planes put every plane's start at a different offset
in its cache line. Values against a numpy reference (0 + the gradients naming a cell in gradOutput's row-major
order, in float32, rounded once; NaN compared by position), the same bytes at every SIMD level and for 1/2/7
threads."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib
sys.path.insert(0, "tests")
from reference.half import bf16_bits
rng = np.random.default_rng(20)
h = hashlib.sha256()
A = pyaclnn.int_array
F = lib.ACL_FORMAT_NCDHW
shape = (1, 80, 15, 63, 61)  # 4.6 M cells: 9.2 MB of fp16 / bf16
osz = tuple((n + 2 - 3) // 2 + 1 for n in shape[2:])
planes, isz = shape[0] * shape[1], int(np.prod(shape[2:]))
x32 = rng.standard_normal(shape).astype(np.float32)
x32[..., ::3] = np.round(x32[..., ::3])  # ties: cells named by several windows
for dt in (np.float16, pyaclnn.bfloat16):
    f16 = dt == np.float16
    x = x32.astype(dt)
    xt = pyaclnn.AclTensor.from_array(x, F)
    yt = pyaclnn.AclTensor.empty(shape[:2] + osz, dt, F)
    it = pyaclnn.AclTensor.empty(shape[:2] + osz, np.dtype(np.int32), F)
    pyaclnn.launch("MaxPool3dWithArgmax", xt, A([3]), A([2]), A([1]), A([1]), False, yt, it)
    ii = it.numpy().reshape(planes, -1).astype(np.int64)
    for nan in (False, True):
        g = (rng.standard_normal(shape[:2] + osz) * rng.choice([1e-6, 1, 1e3], shape[:2] + osz)).astype(np.float32)
        g = g.astype(dt)
        gb = g.view(np.uint16).reshape(-1)
        gb[1::11] = rng.integers(1, 0x400 if f16 else 0x80, gb[1::11].size)  # subnormal
        gb[2::13] = 0x7bff if f16 else 0x7f7f  # the largest finite: sums overflow to Inf
        gb[4::17] = 0x8000
        if nan:
            gb[5::2029] = 0x7c00 if f16 else 0x7f80
            gb[6::3031] = 0xfe05 if f16 else 0xffc5
        gt = pyaclnn.AclTensor.from_array(g, F)
        gx = pyaclnn.AclTensor.empty(shape, dt, F)
        pyaclnn.launch("MaxPool3dWithArgmaxBackward", gt, xt, it, A([3]), A([2]), A([1]), A([1]), False, gx)
        y = gx.numpy()
        e32 = np.zeros(planes * isz, np.float32)
        with np.errstate(over="ignore"):
            np.add.at(e32, (ii + np.arange(planes)[:, None] * isz).reshape(-1), g.astype(np.float32).reshape(-1))
        e32 = e32.reshape(shape)
        with np.errstate(over="ignore"):
            e = e32.astype(np.float16) if f16 else bf16_bits(e32).view(pyaclnn.bfloat16)
        fin = ~np.isnan(e32)
        assert np.array_equal(y.view(np.uint16)[fin], e.view(np.uint16)[fin]), (dt, nan)
        assert np.array_equal(np.isnan(y.astype(np.float32)), ~fin), (dt, nan)
        h.update(y.tobytes())
print(h.hexdigest())
"""


def test_max_pool3d_backward_half_streamed_planes_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t)}) for t in (1, 2, 7)}
    assert outs[1] == outs[2] == outs[7]
