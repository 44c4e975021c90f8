"""The table engines give the same bytes for any thread count and any SIMD level (the conversion rows have F16C
variants): large broadcast, strided and mixed-dtype elementwise calls hashed in fresh processes."""
from helpers import run_python, same_bytes_for_threads

CODE = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(1)
h = hashlib.sha256()
a = (rng.standard_normal((64, 3, 1000)) * 50).astype(np.float16)
b = rng.standard_normal((3, 1)).astype(np.float32)
specials = np.array([np.nan, np.inf, -np.inf, -0.0, 6e-8, 65504], np.float16)
a.reshape(-1)[:6] = specials
for dt in (np.float16, np.float32, pyaclnn.bfloat16):
    out = np.empty((64, 3, 1000), dt)
    pyaclnn.call("Add", a, b, 1.5, out)
    h.update(out.tobytes())
    big = np.zeros((64, 3, 2001), dt)
    pyaclnn.call("Add", a[..., ::1], b, 0.5, big[..., 1::2])
    h.update(big.tobytes())
print(h.hexdigest())
"""


def test_elementwise_same_bytes_for_threads():
    same_bytes_for_threads(CODE)


def test_elementwise_same_bytes_for_simd_levels():
    outs = {lvl: run_python(CODE, {"PYACLNN_SIMD": lvl, "OMP_NUM_THREADS": "2"}) for lvl in ("off", "avx2", "avx512")}
    assert len(set(outs.values())) == 1, outs
