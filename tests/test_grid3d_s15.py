"""GridSampler3DBackward with one batch item on several threads (session 15): the input gradient split into slabs
of voxels, one owner thread each, fed by per-thread tap lists in blocks of points (before, the whole input gradient
of a batch item had one owner).

Bytes, not tolerances: the literal float32 loop of test_grid_s14 (points in order, taps tnw..bse in order, the
C <= 4 lane tree for the grid gradient) at 2 and 3 threads; and, for problems too big for a Python loop (several
blocks of points), the same bytes as the one-thread fused pass (checked against the loop in test_grid_s14) for
OMP_NUM_THREADS 2/3/7, every dtype, both modes, the three paddings, NaN payloads, Inf and -0, and masked outputs."""
import hashlib
import os

import numpy as np
import pytest

from helpers import run_python, same_bytes_for_threads
from test_grid_s14 import backward_ref

f32 = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))

_ONE_CODE = r"""
import numpy as np, pyaclnn, hashlib
a = np.load({path!r})
T = pyaclnn.AclTensor.from_array
go, x, g = a["go"], a["x"], a["g"]
gi, gg = T(np.full(x.shape, 7, np.float32)), T(np.full(g.shape, 7, np.float32))
pyaclnn.launch("GridSampler3DBackward", T(go), T(x), T(g), 0, 0, {align}, pyaclnn.bool_array([True, True]), gi, gg)
print(hashlib.sha256(gi.numpy().tobytes() + gg.numpy().tobytes()).hexdigest())
"""


@pytest.mark.parametrize("C,align", [(2, False), (3, True), (4, False)])
def test_batch_of_one_on_threads_equals_float32_loop(C, align, tmp_path):
    """N = 1, 4096 points (enough work for a team): bytes of the float32 loop at 2 and 3 threads"""
    rng = np.random.default_rng(40 + C)
    x = rng.standard_normal((1, C, 5, 6, 7)).astype(f32)
    x.flat[::13] = f32(-0.0)
    x.flat[::17] = f32(1e-41)
    g = rng.uniform(-1.2, 1.2, (1, 8, 16, 32, 3)).astype(f32)
    g.reshape(-1, 3)[::7] = (1.0, -1.0, 0.0)
    go = rng.standard_normal((1, C, 8, 16, 32)).astype(f32)
    gi_ref, gg_ref = backward_ref(go, x, g, align)
    want = hashlib.sha256(gi_ref.tobytes() + gg_ref.tobytes()).hexdigest().encode()
    path = str(tmp_path / "case.npz")
    np.savez(path, go=go, x=x, g=g)
    code = _ONE_CODE.format(path=path, align=align)
    for t in (2, 3):
        assert run_python(code, {"OMP_NUM_THREADS": str(t)}).strip() == want, t


_BIG_CODE = r"""
import hashlib, numpy as np, pyaclnn
T = pyaclnn.AclTensor.from_array
rng = np.random.default_rng(15)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16, np.float64):
    for C, vol, out in ((2, (6, 7, 8), (16, 64, 100)), (4, (5, 3, 9), (8, 32, 50)), (9, (3, 4, 5), (4, 16, 64))):
        x = rng.standard_normal((1, C) + vol).astype(np.float32)
        u = x.reshape(-1).view(np.uint32)
        u[::19] = 0x7FC00000 | (np.arange(u[::19].size, dtype=np.uint32) * 131 & 0x3FFFFF)
        x.flat[::23] = np.inf
        x.flat[::29] = -0.0
        go = rng.standard_normal((1, C) + out).astype(np.float32)
        v = go.reshape(-1).view(np.uint32)
        v[::31] = 0x7FC00000 | (np.arange(v[::31].size, dtype=np.uint32) * 17 & 0x3FFFFF)
        g = rng.uniform(-1.2, 1.2, (1,) + out + (3,)).astype(np.float32)
        for im, pm, ac, mask in ((0, 0, False, (True, True)), (0, 1, True, (True, False)), (0, 2, False, (True, True)),
                                 (1, 0, True, (True, True))):
            gi, gg = T(np.zeros(x.shape, dt)), T(np.zeros(g.shape, dt))
            pyaclnn.launch("GridSampler3DBackward", T(go.astype(dt)), T(x.astype(dt)), T(g.astype(dt)), im, pm, ac,
                           pyaclnn.bool_array(list(mask)), gi, gg)
            h.update(gi.numpy().tobytes())
            if mask[1]:
                h.update(gg.numpy().tobytes())
print(h.hexdigest())
"""


def test_batch_of_one_blocks_same_bytes_for_threads():
    """102 400 points: several blocks of points at 2, 3 and 7 threads; the bytes of the one-thread fused pass"""
    same_bytes_for_threads(_BIG_CODE, threads=(1, 2, 3, 7))


def test_batch_of_one_same_bytes_for_simd_levels():
    code = f"import sys; sys.path.insert(0, {HERE!r})\n" + _BIG_CODE
    ref = run_python(code, {"OMP_NUM_THREADS": "2"})
    for cap in ("off", "avx2", "avx512"):
        assert run_python(code, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": "2"}) == ref, cap


_HALF_FWD_CODE = r"""
import hashlib, numpy as np, pyaclnn
from helpers import strided
T = pyaclnn.AclTensor.from_array
rng = np.random.default_rng(21)
bad, h = [], hashlib.sha256()
for dt in (np.float16, pyaclnn.bfloat16):
    for C in (1, 3, 4, 5, 8, 17):
        x = (rng.standard_normal((2, C, 4, 5, 6)) * 3).astype(np.float32)
        x.flat[::37] = np.nan
        x.flat[::53] = np.inf
        x.flat[::61] = -0.0
        x.flat[::71] = 1e-6  # an fp16 subnormal
        x.flat[::73] = 7e4  # beyond fp16's range (Inf in fp16)
        g = rng.uniform(-1.3, 1.3, (2, 3, 4, 37, 3)).astype(np.float32)
        g.flat[::29] = np.nan
        xh, gh = x.astype(dt), g.astype(dt)
        for im in (0, 1):
            for pm in (0, 1, 2):
                for v in (lambda a: a, strided):
                    y = T(v(np.zeros((2, C, 3, 4, 37), dt)))
                    pyaclnn.launch("GridSampler3D", T(v(xh)), T(v(gh)), im, pm, pm == 1, y)
                    y32 = T(np.zeros((2, C, 3, 4, 37), np.float32))
                    pyaclnn.launch("GridSampler3D", T(xh.astype(np.float32)), T(gh.astype(np.float32)), im, pm,
                                   pm == 1, y32)
                    if y.numpy().tobytes() != y32.numpy().astype(dt).tobytes():
                        bad.append((str(dt), C, im, pm))
                    h.update(y.numpy().tobytes())
print(bad, h.hexdigest())
"""


def test_half_forward_is_fp32_forward_rounded_once_at_every_level():
    """fp16 / bf16 forward rows (now through the level's converters) = the fp32 op on the widened inputs, rounded
    once; the same bytes at every PYACLNN_SIMD level"""
    code = f"import sys; sys.path.insert(0, {HERE!r})\n" + _HALF_FWD_CODE
    ref = run_python(code)
    assert ref.startswith(b"[] "), ref
    for cap in ("off", "avx2", "avx512"):
        assert run_python(code, {"PYACLNN_SIMD": cap}) == ref, cap
