"""The serial paths below the parallel grain (ACL_FOR, the Softmax lines, the GEMM small-M work) and kernels run with
OpenMP nesting enabled (importing PyTorch raises max-active-levels; OMP_MAX_ACTIVE_LEVELS does the same here): values
against numpy float64 references, and the same bytes for OMP_NUM_THREADS 1 / 2 / 3 with nesting off and on."""
import numpy as np

from helpers import run_python

CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import AclTensor
rng = np.random.default_rng(5)
out = {}
def T(a): return AclTensor.from_array(np.ascontiguousarray(a))
# UpsampleNearest3dBackward x2 (big enough for the outer region over (n, c, depth) units)
g = rng.standard_normal((2, 8, 16, 32, 32)).astype(np.float32)
y = AclTensor.empty((2, 8, 8, 16, 16), np.float32)
pyaclnn.launch("UpsampleNearest3dBackward", T(g), pyaclnn.int_array([16, 32, 32]), pyaclnn.int_array([2, 8, 8, 16, 16]),
               2.0, 2.0, 2.0, y)
out["n3b"] = y.numpy()
# UpsampleNearest3d forward x2
x = rng.standard_normal((2, 8, 8, 16, 16)).astype(np.float32)
z = AclTensor.empty((2, 8, 16, 32, 32), np.float32)
pyaclnn.launch("UpsampleNearest3d", T(x), pyaclnn.int_array([16, 32, 32]), 2.0, 2.0, 2.0, z)
out["n3f"] = z.numpy()
# tiny and large RmsNorm rows, Softmax lines, a small-M Matmul, ReduceSum
for rows in (1, 300):
    a = rng.standard_normal((rows, 512)).astype(np.float32)
    w = rng.standard_normal(512).astype(np.float32)
    o, r = AclTensor.empty((rows, 512), np.float32), AclTensor.empty((rows, 1), np.float32)
    pyaclnn.launch("RmsNorm", T(a), T(w), 1e-6, o, r)
    out["rms%d" % rows] = o.numpy()
    s = AclTensor.empty((rows, 512), np.float32)
    pyaclnn.launch("Softmax", T(a), 1, s)
    out["sm%d" % rows] = s.numpy()
    m = AclTensor.empty((rows,), np.float32)
    pyaclnn.launch("ReduceSum", T(a), pyaclnn.int_array([1]), False, 0, m)
    out["sum%d" % rows] = m.numpy()
for M, K, N in ((4, 16, 8), (8, 300, 200)):
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    C = AclTensor.empty((M, N), np.float32)
    pyaclnn.launch("Matmul", T(A), T(B), C, 0)
    out["mm%d" % K] = C.numpy()
np.savez(__import__("sys").stdout.buffer, **out)
"""


def _run(threads, nested):
    env = {"OMP_NUM_THREADS": str(threads)}
    if nested:
        env["OMP_MAX_ACTIVE_LEVELS"] = "4"
    import io
    return dict(np.load(io.BytesIO(run_python(CODE, env))))


def test_values_and_bytes_nesting_off_and_on():
    ref = _run(1, False)
    rng = np.random.default_rng(5)
    g = rng.standard_normal((2, 8, 16, 32, 32)).astype(np.float32)
    want = g.astype(np.float64).reshape(2, 8, 8, 2, 16, 2, 16, 2).sum(axis=(3, 5, 7))
    np.testing.assert_allclose(ref["n3b"], want, rtol=1e-5, atol=1e-5)
    x = rng.standard_normal((2, 8, 8, 16, 16)).astype(np.float32)
    np.testing.assert_array_equal(ref["n3f"], x.repeat(2, 2).repeat(2, 3).repeat(2, 4))
    for rows in (1, 300):
        a = rng.standard_normal((rows, 512)).astype(np.float32).astype(np.float64)
        w = rng.standard_normal(512).astype(np.float32).astype(np.float64)
        rms = a / np.sqrt((a * a).mean(axis=1, keepdims=True) + 1e-6) * w
        np.testing.assert_allclose(ref["rms%d" % rows], rms, rtol=1e-4, atol=1e-5)
        e = np.exp(a - a.max(axis=1, keepdims=True))
        np.testing.assert_allclose(ref["sm%d" % rows], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(ref["sum%d" % rows], a.sum(axis=1), rtol=1e-5, atol=1e-4)
    for M, K, N in ((4, 16, 8), (8, 300, 200)):
        A = rng.standard_normal((M, K)).astype(np.float32).astype(np.float64)
        B = rng.standard_normal((K, N)).astype(np.float32).astype(np.float64)
        np.testing.assert_allclose(ref["mm%d" % K], A @ B, rtol=1e-4, atol=1e-4)
    for threads in (1, 2, 3):
        for nested in (False, True):
            if threads == 1 and not nested:
                continue
            got = _run(threads, nested)
            for k, v in ref.items():
                assert got[k].tobytes() == v.tobytes(), (k, threads, nested)
