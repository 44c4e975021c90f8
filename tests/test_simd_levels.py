"""PYACLNN_SIMD (libsrc/common/cpu.h) caps the hand-vectorised kernel variants; each variant performs the same IEEE
operations in the same order, so every level must give the same bytes. MSDA and upsample have their own variant
tests (tests/ops); this covers the grid sampler (F16C plane conversions, AVX2 lane transposes) and avg_pool's F16C
row stores, in every dtype they vectorise."""
from helpers import run_python

CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(11)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for C in (1, 2, 3, 8, 19):  # 1, 2: the narrow planar path
        x = rng.standard_normal((2, C, 13, 17)).astype(dt)
        x.flat[::29] = np.inf
        g = rng.uniform(-1.2, 1.2, (2, 9, 11, 2)).astype(dt)
        go = rng.standard_normal((2, C, 9, 11)).astype(dt)
        for mode in ("bilinear", "nearest", "bicubic"):
            h.update(pyaclnn.grid_sampler2d(x, g, interpolation_mode=mode).tobytes())
            for r in pyaclnn.grid_sampler2d_backward(go, x, g, interpolation_mode=mode):
                h.update(r.tobytes())
        h.update(pyaclnn.avg_pool2d(x, 3, stride=2, padding=1).tobytes())
print(h.hexdigest())
"""


def test_grid_sampler_and_avg_pool_identical_bytes_at_every_simd_level():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
