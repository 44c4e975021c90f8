"""aclnnThreeInterpolateBackward (ops-cv image/three_interpolate_backward): the float64 loop reference and a
PyTorch scatter_add oracle for every A2 dtype (grad_x / weight f32 and f16, idx int32 and int64), 3-D and 4-D
(b, c, n, 1) layouts, strided views, empty tensors, out-of-range indices, invalid rows, determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi
from helpers import assert_close, expect_invalid, rounded, run_executor, same_bytes_for_threads, strided, ws_call
from reference.three_interpolate import three_interpolate_backward_ref

OP = "ThreeInterpolateBackward"
F32, F16, I32, I64 = (np.dtype(t) for t in (np.float32, np.float16, np.int32, np.int64))
T = pyaclnn.AclTensor.from_array


def call(gx, idx, w, m, gy):
    ts = [T(gx), T(idx), T(w)]
    yt = T(gy)
    rc, ws, ex, msg = ws_call(OP, *ts, m, yt)
    assert rc == 0, msg
    assert run_executor(OP, ex, ws) == 0
    return yt.numpy()


def _case(rng, B, C, N, M, fdt, wdt, idt):
    gx = rng.uniform(-2, 2, (B, C, N)).astype(np.float32).astype(fdt)
    idx = rng.integers(0, M, (B, N, 3)).astype(idt)
    w = rng.uniform(-1, 1, (B, N, 3)).astype(np.float32).astype(wdt)
    return gx, idx, w


def _torch(torch, gx, idx, w, M):
    g = torch.from_numpy(gx.astype(np.float64))
    ix = torch.from_numpy(idx.astype(np.int64))
    wt = torch.from_numpy(w.astype(np.float64))
    B, C, N = g.shape
    src = (g[:, :, :, None] * wt[:, None, :, :]).reshape(B, C, N * 3)
    index = ix.reshape(B, 1, N * 3).expand(B, C, N * 3)
    return torch.zeros(B, C, M, dtype=torch.float64).scatter_add(2, index, src).numpy()


@pytest.mark.parametrize("oracle", ["numpy", "torch"])
@pytest.mark.parametrize("idt", [I32, I64], ids=["i32", "i64"])
@pytest.mark.parametrize("fdt,wdt", [(F32, F32), (F16, F16), (F32, F16), (F16, F32)],
                         ids=["f32", "f16", "f32-wf16", "f16-wf32"])
@pytest.mark.parametrize("shape", [(1, 2, 5, 6), (2, 7, 33, 16), (3, 1, 4, 40)], ids=["b1", "b2", "b3"])
def test_values(request, shape, fdt, wdt, idt, oracle):
    B, C, N, M = shape
    rng = np.random.default_rng(sum(shape))
    gx, idx, w = _case(rng, B, C, N, M, fdt, wdt, idt)
    y = call(gx, idx, w, M, np.full((B, C, M), 7, fdt))
    assert y.dtype == fdt
    if oracle == "numpy":
        ref = three_interpolate_backward_ref(gx, idx, w, M)
        assert_close(y, rounded(ref, fdt), fdt, atol=1e-5 if fdt == F32 else None)
        return
    torch = request.getfixturevalue("torch")
    assert_close(y, rounded(_torch(torch, gx, idx, w, M), fdt), fdt, atol=1e-5 if fdt == F32 else None)


@pytest.mark.parametrize("fdt", [F32, F16], ids=["f32", "f16"])
def test_nchw_4d_layout(fdt):
    """The A2 layout of the docs: grad_x (b, c, n, 1), grad_y (b, c, m, 1)."""
    rng = np.random.default_rng(2)
    gx, idx, w = _case(rng, 2, 3, 8, 5, fdt, fdt, I32)
    y = call(gx[..., None], idx, w, 5, np.zeros((2, 3, 5, 1), fdt))
    assert_close(y[..., 0], rounded(three_interpolate_backward_ref(gx, idx, w, 5), fdt), fdt)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_strided(kind):
    rng = np.random.default_rng(4)
    gx, idx, w = _case(rng, 2, 3, 9, 7, F32, F32, I64)
    y = call(strided(gx, kind), strided(idx, kind), strided(w, kind), 7, strided(np.zeros((2, 3, 7), F32), kind))
    assert_close(y, three_interpolate_backward_ref(gx, idx, w, 7), F32)


def test_out_of_range_indices_are_skipped():
    gx = np.ones((1, 1, 2), F32)
    idx = np.array([[[0, 5, -1], [2, 2, 9]]], I32)
    w = np.array([[[1, 2, 4], [8, 16, 32]]], F32)
    y = call(gx, idx, w, 3, np.full((1, 1, 3), 7, F32))
    np.testing.assert_array_equal(y.ravel(), [1, 0, 24])


def test_empty_writes_nothing():
    y = call(np.zeros((2, 3, 0), F32), np.zeros((2, 0, 3), I32), np.zeros((2, 0, 3), F32), 4,
             np.full((2, 3, 4), 7, F32))
    assert np.all(y == 7)


def test_deterministic_across_threads():
    code = """
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, %r)
from helpers import ws_call, run_executor
rng = np.random.default_rng(1)
gx = rng.standard_normal((4, 64, 4096)).astype(np.float32)
idx = rng.integers(0, 512, (4, 4096, 3)).astype(np.int32)
w = rng.standard_normal((4, 4096, 3)).astype(np.float32)
T = pyaclnn.AclTensor.from_array
a, b, c, y = T(gx), T(idx), T(w), T(np.zeros((4, 64, 512), np.float32))
rc, ws, ex, msg = ws_call("ThreeInterpolateBackward", a, b, c, 512, y)
assert rc == 0 and run_executor("ThreeInterpolateBackward", ex, ws) == 0
print(hashlib.sha256(y.numpy().tobytes()).hexdigest())
"""
    import os
    same_bytes_for_threads(code % os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _t(shape, dtype=F32):
    return T(np.zeros(shape, dtype))


def _args(**kw):
    a = dict(gx=_t((2, 3, 5)), idx=_t((2, 5, 3), I32), w=_t((2, 5, 3)), m=6, gy=_t((2, 3, 6)))
    a.update(kw)
    return [a[k] for k in ("gx", "idx", "w", "m", "gy")]


INVALID = [
    (dict(gx=None), 161001, "grad_x"),
    (dict(idx=None), 161001, "idx"),
    (dict(w=None), 161001, "weight"),
    (dict(gy=None), 161001, "grad_y"),
    (dict(gx=_t((2, 3, 5), np.float64)), 161002, "grad_x"),
    (dict(idx=_t((2, 5, 3), F32)), 161002, "idx"),
    (dict(w=_t((2, 5, 3), np.float64)), 161002, "weight"),
    (dict(gy=_t((2, 3, 6), F16)), 161002, "grad_y"),
    (dict(gx=_t((2, 3, 5, 2))), 161002, "grad_x"),
    (dict(idx=_t((2, 5, 2), I32)), 161002, "idx"),
    (dict(w=_t((2, 5))), 161002, "weight"),
    (dict(idx=_t((2, 4, 3), I32)), 161002, "idx"),
    (dict(w=_t((1, 5, 3))), 161002, "weight"),
    (dict(m=-1), 161002, "m"),
    (dict(m=7), 161002, "grad_y"),
    (dict(gy=_t((2, 4, 6))), 161002, "grad_y"),
    (dict(gy=_t((2, 3, 6, 1))), 161002, "grad_y"),
    # order
    (dict(gx=_t((2, 3, 5), np.float64), gy=None), 161001, "grad_y"),
    (dict(idx=_t((2, 5, 3), F32), gx=_t((2, 3, 5, 2))), 161002, "idx"),
    (dict(gx=_t((2, 3, 5), np.int32), w=_t((2, 5, 3), np.int32)), 161002, "grad_x"),
]


@pytest.mark.parametrize("kw,code,word", INVALID, ids=[f"{i}-{r[2]}" for i, r in enumerate(INVALID)])
def test_invalid(kw, code, word):
    expect_invalid(OP, _args(**kw), code, word)
