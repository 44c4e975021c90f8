"""Digests of AdaptiveAvgPool2d fp16 over inputs of every kind (run by test_pool_half_rows.py in subprocesses)."""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
A = pyaclnn.int_array
rng = np.random.default_rng(7)
def t(a, fmt=None):
    return pyaclnn.AclTensor.from_array(a, fmt if fmt is not None else (lib.ACL_FORMAT_NCHW if a.ndim == 4 else lib.ACL_FORMAT_NCL))
def special(shape, kind):
    if kind == "normal":
        return rng.standard_normal(shape).astype(np.float16)
    if kind == "wide":  # subnormals .. near-max, signed zeros
        b = rng.integers(0, 0x7c00, shape).astype(np.uint16) | (rng.integers(0, 2, shape).astype(np.uint16) << 15)
        return b.view(np.float16)
    if kind == "tiny":
        b = rng.integers(0, 0x0800, shape).astype(np.uint16) | (rng.integers(0, 2, shape).astype(np.uint16) << 15)
        return b.view(np.float16)
    v = rng.integers(-3, 4, shape).astype(np.float16)
    r = rng.random(shape)
    v[r < 0.02] = np.nan
    v[(r >= 0.02) & (r < 0.04)] = -np.inf
    v[(r >= 0.04) & (r < 0.06)] = np.inf
    v[(r >= 0.06) & (r < 0.1)] = -0.0
    b = v.view(np.uint16)
    m = (r >= 0.1) & (r < 0.11)
    b[m] = 0x7c01 + (rng.integers(0, 0x1ff, m.sum())).astype(np.uint16)  # signalling NaNs
    return b.view(np.float16)
cases = [((2, 3, 13, 17), (5, 4)), ((1, 4, 56, 56), (7, 7)), ((2, 2, 56, 56), (9, 9)), ((1, 2, 9, 40), (4, 9)),
         ((3, 5, 7), (2, 3)), ((1, 1, 5, 1), (2, 1)), ((2, 70, 6, 9), (3, 4)), ((1, 2, 8, 123), (3, 31)),
         ((1, 1, 3, 2100), (2, 5)), ((65, 2, 4, 24), (4, 24)), ((1, 3, 30, 33), (30, 33))]
for kind in ("normal", "wide", "tiny", "special"):
    for shape, osz in cases:
        x = special(shape, kind)
        y = t(np.zeros(shape[:-2] + osz, np.float16))
        pyaclnn.launch("AdaptiveAvgPool2d", t(x), A(list(osz)), y)
        out = y.numpy()
        # strided input and output views
        xb = np.zeros(shape[:-1] + (shape[-1] * 2,), np.float16); xb[..., ::2] = x
        yb = np.zeros(shape[:-2] + (osz[0], osz[1] * 3), np.float16)
        ys = t(yb[..., ::3])
        pyaclnn.launch("AdaptiveAvgPool2d", t(xb[..., ::2]), A(list(osz)), ys)
        assert ys.numpy().tobytes() == out.tobytes(), (kind, shape, "strided differs")
        print(kind, shape, osz, hashlib.sha256(out.tobytes()).hexdigest()[:16])
