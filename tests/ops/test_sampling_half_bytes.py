"""The half (fp16 / bf16) paths of the sampling kernels changed for issue 15's "half no slower than fp32" row:
the 3-D grid sampler's channels-last forward (fixed 4-lane channel blocks, tail channels one at a time) and its
dense-view conversions in one run. Each case writes the same bytes at PYACLNN_SIMD=off / avx2 / avx512 and
OMP_NUM_THREADS=1 / 2 / 7 (inputs with Inf, NaN, -0 and subnormals; channel counts covering the 8- and 4-lane
blocks and the tails; a strided input view), and the values match the float64 loop reference."""
import numpy as np
import pytest

import pyaclnn
from gs_cases import cast, check
from helpers import BF16, SPECIAL_DATA, run_python
from reference.grid_sampler3d import grid_sample3d_backward_ref, grid_sample3d_ref

GS3_CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import launch
T, E = pyaclnn.AclTensor.from_array, pyaclnn.AclTensor.empty
rng = np.random.default_rng(7)
h = hashlib.sha256()
""" + SPECIAL_DATA + r"""def grid(shape, dt):
    g = rng.uniform(-1.2, 1.2, shape).astype(np.float32)
    f = g.reshape(-1)
    f[3::97] = np.nan; f[10::89] = np.inf; f[20::83] = -1.0; f[30::79] = 1.0
    return g.astype(dt)
for dt in (np.float16, pyaclnn.bfloat16):
    for (n, c, D, H, W) in ((2, 1, 3, 5, 7), (1, 4, 5, 6, 9), (2, 9, 4, 5, 6), (3, 16, 3, 4, 5), (1, 13, 2, 3, 4)):
        x = data((n, c, D, H, W), dt)
        xs = data((n, c, D, H, 2 * W), dt)[..., ::2]
        g = grid((n, 3, 4, 5, 3), dt)
        go = data((n, c, 3, 4, 5), dt)
        for im in (0, 1):
            for pm in (0, 2):
                for xx in (x, xs):
                    o = E((n, c, 3, 4, 5), dt)
                    launch("GridSampler3D", T(xx), T(g), im, pm, False, o)
                    h.update(o.numpy().tobytes())
                    gi, gg = E(x.shape, dt), E(g.shape, dt)
                    launch("GridSampler3DBackward", T(go), T(xx), T(g), im, pm, True,
                           pyaclnn.bool_array([True, True]), gi, gg)
                    h.update(gi.numpy().tobytes()); h.update(gg.numpy().tobytes())
print(h.hexdigest())
"""


def _same_bytes_levels_threads(code):
    outs = {}
    for lvl in ("off", "avx2", "avx512"):
        for t in (1, 2, 7):
            outs[(lvl, t)] = run_python(code, {"PYACLNN_SIMD": lvl, "OMP_NUM_THREADS": str(t)})
    first = outs[("off", 1)]
    for k, v in outs.items():
        assert v == first, f"PYACLNN_SIMD={k[0]} OMP_NUM_THREADS={k[1]} gives different bytes"


def test_grid_sampler3d_half_same_bytes_every_level_and_thread_count():
    _same_bytes_levels_threads(GS3_CODE)


def _run(op, outs, *args):
    pyaclnn.launch(op, *args)
    return [o.numpy() for o in outs]


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("C", [1, 4, 5, 8, 12, 19])
@pytest.mark.parametrize("im", [0, 1])
def test_grid_sampler3d_half_lane_blocks_vs_reference(dtype, C, im):
    rng = np.random.default_rng(100 + C + 7 * im)
    N, D, H, W = 2, 4, 5, 6
    x = cast(rng.standard_normal((N, C, D, H, W)), dtype)
    g = cast(rng.uniform(-1.2, 1.2, (N, 3, 4, 2, 3)), dtype)
    go = cast(rng.standard_normal((N, C, 3, 4, 2)), dtype)
    E, T = pyaclnn.AclTensor.empty, pyaclnn.AclTensor.from_array
    o = E(go.shape, dtype)
    (y,) = _run("GridSampler3D", [o], T(x), T(g), im, 0, False, o)
    check(y, grid_sample3d_ref(x, g, im, 0, False), dtype, "out vs numpy")
    gi, gg = E(x.shape, dtype), E(g.shape, dtype)
    rgi, rgg = grid_sample3d_backward_ref(go, x, g, im, 0, False)
    agi, agg = _run("GridSampler3DBackward", [gi, gg], T(go), T(x), T(g), im, 0, False,
                    pyaclnn.bool_array([True, True]), gi, gg)
    check(agi, rgi, dtype, "inputGrad vs numpy")
    check(agg, rgg, dtype, "gridGrad vs numpy")


# ---- RoiAlign forward fp16: F16C sample widening at the AVX2 / AVX-512 levels (the table at the portable one),
# each (box, channel) pair's bins stored as one converted row when the output's bins are dense ----
ROI_CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import ffi, lib, launch
T = pyaclnn.AclTensor.from_array
NCHW, ND = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_ND
rng = np.random.default_rng(3)
h = hashlib.sha256()
n, c, H, W, k = 2, 5, 17, 23, 30
x = rng.standard_normal((n, c, H, W)).astype(np.float16)
f = x.reshape(-1).view(np.uint16)
f[::41] = 0x7c01; f[3::43] = 0x7e00; f[5::47] = 0x7c00; f[7::53] = 0xfc00; f[9::59] = 0x8000; f[11::61] = 0x0003
b = np.zeros((k, 5), np.float32)
b[:, 0] = rng.integers(0, n, k)
b[:, 1:3] = rng.uniform(-3, 18, (k, 2))
b[:, 3:5] = b[:, 1:3] + rng.uniform(0.5, 15, (k, 2))
b = b.astype(np.float16)
for ph, pw, sr in ((7, 7, 0), (3, 5, 2), (1, 4, 1)):
    for aligned in (False, True):
        o = np.zeros((k, c, ph, pw), np.float16)
        ot = T(o, NCHW)
        launch("RoiAlignV2", T(x, NCHW), T(b, ND), ph, pw, 0.5, sr, aligned, ot)
        h.update(ot.numpy().tobytes())
        os_ = np.zeros((k, c, ph, 2 * pw), np.float16)[..., ::2]   # bins not dense: the element stores
        ost = T(os_, NCHW)
        launch("RoiAlignV2", T(x, NCHW), T(b, ND), ph, pw, 0.5, sr, aligned, ost)
        h.update(ost.numpy().tobytes())
    for mode in (b"avg", b"max"):
        mt = T(np.zeros((k, c, ph, pw), np.float16), NCHW)
        rt, it = T(np.ascontiguousarray(b[:, 1:]), ND), T(b[:, 0].astype(np.int32), ND)
        launch("RoiAlign", T(x, NCHW), rt, it, ffi.new("char[]", mode), ph, pw, sr, 0.5, mt)
        h.update(mt.numpy().tobytes())
print(h.hexdigest())
"""


def test_roi_align_f16_same_bytes_every_level_and_thread_count():
    _same_bytes_levels_threads(ROI_CODE)


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "strided"])
@pytest.mark.parametrize("aligned", [False, True])
def test_roi_align_f16_rows_vs_reference(dense, aligned):
    from reference.roi_align import roi_align as ref
    lib = pyaclnn.lib
    rng = np.random.default_rng(9 + aligned)
    n, c, H, W, k, ph, pw = 2, 3, 15, 19, 12, 7, 7
    x = rng.standard_normal((n, c, H, W)).astype(np.float16)
    b5 = np.zeros((k, 5), np.float32)
    b5[:, 0] = rng.integers(0, n, k)
    b5[:, 1:3] = rng.uniform(-2, 12, (k, 2))
    b5[:, 3:5] = b5[:, 1:3] + rng.uniform(1, 10, (k, 2))
    b5 = b5.astype(np.float16)
    out = np.zeros((k, c, ph, pw), np.float16) if dense else np.zeros((k, c, ph, 2 * pw), np.float16)[..., ::2]
    ot = pyaclnn.AclTensor.from_array(out, lib.ACL_FORMAT_NCHW)
    pyaclnn.launch("RoiAlignV2", pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCHW),
                   pyaclnn.AclTensor.from_array(b5, lib.ACL_FORMAT_ND), ph, pw, 0.5, 2, aligned, ot)
    exp = ref(x.astype(np.float64), b5[:, 1:].astype(np.float64), b5[:, 0].astype(np.int64), ph, pw, 2, 0.5,
              aligned)
    check(ot.numpy(), exp, np.float16, "RoiAlignV2 fp16 vs numpy")


# ---- MSDA fp16 / bf16: the dense row conversions (value staging, locations / weights / gradOutput rows, the
# output / gradient rows) through common/half_rows.h's row converters. Inf, -0, subnormal and NaN inputs (NaNs of
# several payloads, signalling ones and sign set included): the owner loops recompute a NaN result in the
# reference order (common/nan_order.h), so its payload is the same at every level. ----
MSDA_CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(11)
h = hashlib.sha256()
def special(a):
    f = a.reshape(-1).view(np.uint16)
    inf = 0x7c00 if a.dtype == np.float16 else 0x7f80
    f[::97] = inf; f[3::41] = f[3::41] | 0x8000; f[5::43] = 0; f[7::47] = 0x8000; f[9::53] = 0x0005
    nan = [0x7e01, 0x7c03, 0xfe05, 0xfd00] if a.dtype == np.float16 else [0x7fc1, 0x7f83, 0xffc5, 0xffa0]
    for j, pl in enumerate(nan):
        f[11 + 2 * j::61] = pl
    return a
shapes = np.array([[9, 11], [5, 6], [3, 3]], np.int32)
start = np.array([0, 99, 129], np.int32)
K = 138
for C in (32, 24, 8):
    for dt in (np.float16, pyaclnn.bfloat16):
        v = special(rng.standard_normal((2, K, 3, C)).astype(dt))
        loc = rng.uniform(-0.2, 1.2, (2, 60, 3, 3, 4, 2)).astype(dt)
        a = special(rng.uniform(0, 1, (2, 60, 3, 3, 4)).astype(dt))
        go = special(rng.standard_normal((2, 60, 3 * C)).astype(dt))
        for r in pyaclnn.multi_scale_deformable_attn_backward(v, shapes, start, loc, a, go):
            h.update(np.ascontiguousarray(r).tobytes())
        h.update(pyaclnn.multi_scale_deformable_attn(v, shapes, start, loc, a).tobytes())
print(h.hexdigest())
"""


def test_msda_half_same_bytes_every_level_and_thread_count():
    _same_bytes_levels_threads(MSDA_CODE)
