"""PYACLNN_SIMD (libsrc/common/cpu.h) caps the hand-vectorised kernel variants; each variant performs the same IEEE
operations in the same order, so every level must give the same bytes. MSDA and upsample have their own variant
tests (tests/ops); this covers the grid sampler (F16C plane conversions, AVX2 lane transposes) and avg_pool's F16C
row stores, in every dtype they vectorise."""
from helpers import run_python

CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(11)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16, np.float64):  # f64: the lane kernels' 2-lane baseline form
    for C in (1, 2, 3, 8, 19):  # 1, 2: the narrow planar path
        x = rng.standard_normal((2, C, 13, 17)).astype(dt)
        x.flat[::29] = np.inf
        g = rng.uniform(-1.2, 1.2, (2, 9, 11, 2)).astype(dt)
        go = rng.standard_normal((2, C, 9, 11)).astype(dt)
        for mode in ("bilinear", "nearest") + (("bicubic",) if dt != np.float64 else ()):  # (no f64 bicubic)
            h.update(pyaclnn.grid_sampler2d(x, g, interpolation_mode=mode).tobytes())
            for r in pyaclnn.grid_sampler2d_backward(go, x, g, interpolation_mode=mode):
                h.update(r.tobytes())
        if dt != np.float64:
            h.update(pyaclnn.avg_pool2d(x, 3, stride=2, padding=1).tobytes())
print(h.hexdigest())
"""


def test_grid_sampler_and_avg_pool_identical_bytes_at_every_simd_level():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


CALIBRATE_CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(12)
h = hashlib.sha256()
for dt in (np.float32, np.float16):
    g = rng.standard_normal((4, 32, 128, 96)).astype(dt)  # > 4 MiB moved: the first call calibrates
    g.flat[::31] = np.inf
    g.flat[::37] = -np.inf
    for _ in range(2):  # the first call runs every candidate level, the second the level kept
        h.update(pyaclnn.upsample_nearest_exact2d_backward(g, (128, 96), (4, 32, 64, 64), (0.0, 0.0)).tobytes())
    x = rng.standard_normal((4, 32, 64, 64)).astype(dt)
    for _ in range(2):
        h.update(pyaclnn.upsample_nearest_exact2d(x, (96, 96)).tobytes())
print(h.hexdigest())
"""


def test_calibrated_families_give_the_bytes_of_every_fixed_level():
    """The per-family calibration (common/cpu.h) runs a large first call once per candidate level and keeps the
    fastest; whatever it keeps, the bytes equal those of a fixed level."""
    import os
    import subprocess
    import sys

    from helpers import REPO

    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""), PYACLNN_SIMD_REPORT="1")
    res = subprocess.run([sys.executable, "-c", CALIBRATE_CODE], env=env, capture_output=True, timeout=300)
    assert res.returncode == 0, res.stderr.decode()
    report = res.stderr.decode()
    cpu_has_avx512 = "avx512bw" in open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else False
    if cpu_has_avx512 and os.environ.get("PYACLNN_SIMD", "") == "":
        for fam in ("upsample_nearest_bwd", "upsample_nearest_fwd"):
            assert f"pyaclnn simd: {fam} -> avx" in report, report
    assert res.stdout == run_python(CALIBRATE_CODE, {"PYACLNN_SIMD_CALIBRATE": "off"})
    assert res.stdout == run_python(CALIBRATE_CODE, {"PYACLNN_SIMD": "avx2"})
    assert res.stdout == run_python(CALIBRATE_CODE, {"PYACLNN_SIMD": "off"})


LEVEL_FN_CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
rng = np.random.default_rng(13)
h = hashlib.sha256()
NCHW, NCDHW, ND = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_NCDHW, lib.ACL_FORMAT_ND

def upsample(op, x, outs, fmt, nscale, align):
    xt = pyaclnn.AclTensor.from_array(x, fmt)
    yt = pyaclnn.AclTensor.empty(x.shape[:2] + tuple(outs), x.dtype, fmt)
    scales = [-1.0] if op == "UpsampleLinear1d" else [0.0] * nscale
    pyaclnn.launch(op, xt, pyaclnn.int_array(list(outs)), align, *scales, yt)
    return yt.numpy()

def upsample_bwd(op, g, ins, fmt, nscale, align):
    gt = pyaclnn.AclTensor.from_array(g, fmt)
    yt = pyaclnn.AclTensor.empty(g.shape[:2] + tuple(ins), g.dtype, fmt)
    pyaclnn.launch(op, gt, pyaclnn.int_array(list(g.shape[2:])), pyaclnn.int_array(list(g.shape[:2]) + list(ins)),
                   align, *([0.0] * nscale), yt)
    return yt.numpy()

for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    x = rng.standard_normal((2, 5, 19, 23)).astype(dt)
    x.flat[::41] = np.inf
    w = rng.standard_normal((7, 5, 3, 3)).astype(dt)
    go = rng.standard_normal((2, 7, 19, 23)).astype(dt)
    h.update(pyaclnn.convolution(x, w, padding=1).tobytes())  # conv_block
    for r in pyaclnn.convolution_backward(go, x, w, padding=1):  # grad_rows
        h.update(np.asarray(r).tobytes())
    gp = rng.standard_normal((2, 5, 10, 12)).astype(dt)
    h.update(pyaclnn.avg_pool2d_backward(gp, x, 3, stride=2, padding=1).tobytes())  # avgpool2d_bwd_plane
    for align in (False, True):
        h.update(upsample("UpsampleBilinear2d", x, (37, 29), NCHW, 2, align).tobytes())  # upl_plane
        h.update(upsample("UpsampleBicubic2d", x, (13, 41), NCHW, 2, align).tobytes())
        if dt is not pyaclnn.bfloat16:  # the A2 backward takes FLOAT16 and FLOAT
            h.update(upsample_bwd("UpsampleBilinear2dBackward", go, (11, 17), NCHW, 2, align).tobytes())
        h.update(upsample_bwd("UpsampleBicubic2dBackward", go, (11, 17), NCHW, 2, align).tobytes())
    x3 = rng.standard_normal((2, 3, 5, 7, 9)).astype(dt)
    h.update(upsample("UpsampleTrilinear3d", x3, (9, 13, 17), NCDHW, 3, False).tobytes())
    h.update(upsample("UpsampleLinear1d", x[:, :, 0], (47,), ND, 1, False).tobytes())
print(h.hexdigest())
"""


def test_level_fn_families_identical_bytes_at_every_simd_level():
    """The plain-C kernels compiled once per level (common/level_fn.h: conv, avg_pool2d backward planes, the
    linear/cubic upsample planes; the grid sampler's are in CODE above) obey PYACLNN_SIMD and give the same bytes
    at every level."""
    outs = {cap: run_python(LEVEL_FN_CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


NAN_CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(14)
h = hashlib.sha256()
x = rng.standard_normal((2, 3, 21, 29)).astype(np.float16)
bits = x.view(np.uint16)
bits.flat[::13] = 0x7c01  # signalling NaN (F16C would quieten it: the fp32 add/product must give the same bits)
bits.flat[5::17] = 0xfe05
bits.flat[7::19] = 0x7c00
g = rng.standard_normal((2, 3, 11, 15)).astype(np.float16)
gb = g.view(np.uint16)
gb.flat[::7] = 0x7d23
gb.flat[3::11] = 0xfc00
for k, s, p in ((3, 2, 1), (2, 2, 0), (3, 1, 1)):
    h.update(pyaclnn.avg_pool2d(x, k, stride=s, padding=p).tobytes())
h.update(pyaclnn.avg_pool2d_backward(g, x, 3, stride=2, padding=1).tobytes())
print(h.hexdigest())
"""


def test_avg_pool_fp16_nan_payloads_identical_at_every_simd_level():
    """avg_pool's fp16 rows: F16C conversion fused into the addition / product at AVX2, the exact portable
    conversion then the same operation at `off`; NaN payloads (signalling ones included) give the same bytes."""
    outs = {cap: run_python(NAN_CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


PLANE_CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(15)
h = hashlib.sha256()
for dt, nanbits in ((np.float16, (0x7c01, 0xfe05, 0x7c00)), (pyaclnn.bfloat16, (0x7f81, 0xffc5, 0x7f80))):
    for (H, W) in ((21, 29), (56, 56), (9, 8)):
        x = rng.standard_normal((2, 3, H, W)).astype(dt)
        for k, s, p in ((3, 2, 1), (2, 2, 0), (3, 1, 1)):
            oh, ow = (H + 2 * p - k) // s + 1, (W + 2 * p - k) // s + 1
            g = rng.standard_normal((2, 3, oh, 2 * ow)).astype(dt)
            gb = g.view(np.uint16)
            for i, b in enumerate(nanbits):
                gb.flat[i::7 + 4 * i] = b
            gs = g[..., ::2]                     # strided gradOutput: the row paths
            gd = np.ascontiguousarray(gs)        # dense planes: converted whole
            for gg in (gd, gs):
                h.update(pyaclnn.avg_pool2d_backward(gg, x, k, stride=s, padding=p).tobytes())
print(h.hexdigest())
"""


def test_avg_pool_backward_dense_planes_identical_at_every_level_and_thread_count():
    """avg_pool2d backward fp16/bf16: dense planes are converted whole (AVX-512 fp16 rows at the default level,
    F16C at avx2, SSE2 / NEON rows at off), strided ones a row at a time; NaN payloads included, the same bytes
    at every level and for 1/2/7 threads."""
    outs = {cap: run_python(PLANE_CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(PLANE_CODE, {"OMP_NUM_THREADS": str(t)}) for t in (1, 2, 7)}
    assert outs[1] == outs[2] == outs[7]


CONV_F16_CODE = r"""
import sys, hashlib, numpy as np, pyaclnn
sys.path.insert(0, "tests"); sys.path.insert(0, "tests/ops")
from test_nn_conv import conv
rng = np.random.default_rng(16)
x = rng.standard_normal((2, 5, 11, 13)).astype(np.float16)
xb = x.view(np.uint16)
xb.flat[::7] = rng.integers(1, 0x400, xb.flat[::7].size)           # subnormal halves
xb.flat[3::11] = rng.integers(0x7400, 0x7bff, xb.flat[3::11].size)  # large ones
w = (rng.standard_normal((4, 5, 3, 3)) * 0.01).astype(np.float16)
y16 = conv(x, w, None, (1, 1), (1, 1), (1, 1), False, (0, 0), 1, np.zeros((2, 4, 11, 13), np.float16))
y32 = conv(x.astype(np.float32), w.astype(np.float32), None, (1, 1), (1, 1), (1, 1), False, (0, 0), 1,
           np.zeros((2, 4, 11, 13), np.float32))
assert np.array_equal(y16.view(np.uint16), y32.astype(np.float16).view(np.uint16)), "fp16 conv != fp32 conv rounded"
print(hashlib.sha256(y16.tobytes()).hexdigest())
"""


def test_conv_fp16_gather_exact_at_every_level():
    """The fp16 convolution's gather converts through a table of the exact conversion: its result is the fp32
    convolution of the exactly widened operands rounded once (subnormal and large halves included), at every
    SIMD level."""
    outs = {cap: run_python(CONV_F16_CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


BF16_TIES_CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(17)
h = hashlib.sha256()
def to_bf16(a32):  # round to nearest even on the bits (no NaN input here; an Inf - Inf NaN is the default one)
    b = a32.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(a32), (b >> 16).astype(np.uint16) | 0x40, r)
for dt in (pyaclnn.bfloat16, np.float16):
    inf_exp, sub_max = (0x7f80, 0x80) if dt != np.float16 else (0x7c00, 0x400)
    for (H, W) in ((56, 56), (21, 67)):
        x = np.zeros((2, 3, H, W), dt)
        for k, s, p in ((3, 2, 1), (2, 2, 0), (3, 1, 1)):
            oh, ow = (H + 2 * p - k) // s + 1, (W + 2 * p - k) // s + 1
            gb = rng.integers(0, 0x10000, (2, 3, oh, ow)).astype(np.uint16)
            gb[(gb & inf_exp) == inf_exp] &= 0xbfff                       # no Inf / NaN inputs
            gb.flat[::5] = rng.integers(0, sub_max, gb.flat[::5].size)    # subnormal gradients: subnormal sums
            top = inf_exp - (0x0080 if dt != np.float16 else 0x0400)      # the largest finite exponent
            gb.flat[1::9] = (gb.flat[1::9] & (0xffff ^ inf_exp)) | top  # huge ones (the largest finite exponent)
            g = gb.view(dt)
            y = pyaclnn.avg_pool2d_backward(g, x, k, stride=s, padding=p)
            y32 = np.ascontiguousarray(pyaclnn.avg_pool2d_backward(g.astype(np.float32), x.astype(np.float32), k,
                                                                   stride=s, padding=p))
            want = to_bf16(y32) if dt != np.float16 else y32.astype(np.float16).view(np.uint16)
            assert np.array_equal(y.view(np.uint16), want), "half != fp32 rounded once"
            h.update(y.tobytes())
print(h.hexdigest())
"""


def test_avg_pool_backward_half_rows_exact_at_every_level():
    """avg_pool2d backward fp16/bf16 dense planes: at AVX-512 the gradInput rows are summed and narrowed in
    registers (vcvtps2ph; vcvtneps2bf16 where the CPU has AVX512_BF16, which flushes subnormals, so their blocks
    take the integer rounding), the AVX2 / SSE2 / NEON row converters below: subnormal, overflowing and tied sums
    give the fp32 result rounded once, the same bytes at every level."""
    outs = {cap: run_python(BF16_TIES_CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
