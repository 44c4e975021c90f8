"""aclnnFlip, aclnnNorm, aclnnInverse (tools/optable/nn_misc.py) against PyTorch: every dtype of each A2 list,
strided inputs and outputs, 0-d and empty tensors, and the invalid rows in each op_api source's order."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from pyaclnn.ops.table import make_scalar
from pyaclnn.tensor import int_array
from helpers import strided
from table_harness import BF16, NP, compare, expect_status, from_torch, rand, to_torch

OPS = pyaclnn._optable.OPS
INF = float("inf")


def tens(shape, dt="f32"):
    return AclTensor.from_array(np.zeros(shape, NP[dt]))


# ---------------------------------------------------------------- Flip

@pytest.mark.parametrize("dt", OPS["Flip"]["dtypes"])
def test_flip_dtypes(torch, dt):
    rng = np.random.default_rng(0)
    x = rand(rng, (2, 3, 4), dt)
    for dims in ([0], [-1], [0, 2], [], [2, 1, 0]):
        o = np.zeros_like(x)
        pyaclnn.call("Flip", x, dims, o)
        e = from_torch(torch.flip(to_torch(torch, x), dims))
        assert o.tobytes() == np.ascontiguousarray(e).tobytes(), dims


def test_flip_strided_0d_empty(torch):
    rng = np.random.default_rng(1)
    x = rand(rng, (3, 5), "f32")
    o = strided(np.zeros((3, 5), np.float32))
    pyaclnn.call("Flip", strided(x, "transpose"), [1], o)
    np.testing.assert_array_equal(o, np.flip(x, 1))
    pyaclnn.call("Flip", strided(x), [0, 1], o)              # a strided input with an offset
    np.testing.assert_array_equal(o, np.flip(x, (0, 1)))
    s = np.array(2.5, np.float32)
    os_ = np.zeros((), np.float32)
    pyaclnn.call("Flip", s, [0], os_)                       # 0-d: dims in [-1, 0]
    assert os_ == 2.5
    e = np.zeros((0, 3), np.float32)
    pyaclnn.call("Flip", e, [1], np.zeros_like(e))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    pyaclnn.call("Flip", x, [1], x)                         # out aliasing self
    np.testing.assert_array_equal(x, [[2, 1, 0], [5, 4, 3]])


def test_flip_invalid():
    x, d = tens((2, 3)), int_array([0])
    expect_status("Flip", [None, d, x], 161001, "self")
    expect_status("Flip", [x, None, x], 161001, "dims")
    expect_status("Flip", [x, d, None], 161001, "out")
    expect_status("Flip", [x, d, tens((2, 3), "f16")], 161002, "out")       # dtypes differ (checked first)
    expect_status("Flip", [tens((2, 3), "u16"), d, tens((2, 3), "u16")], 161002, "self")
    expect_status("Flip", [x, d, tens((3, 2))], 161002, "out")
    big = tens((1,) * 9)
    expect_status("Flip", [big, d, big], 161002, "self")
    expect_status("Flip", [x, int_array([2]), x], 161002, "dims")
    expect_status("Flip", [x, int_array([-3]), x], 161002, "dims")
    expect_status("Flip", [x, int_array([1, -1]), x], 161002, "dims")
    expect_status("Flip", [tens(()), int_array([1]), tens(())], 161002, "dims")
    expect_status("Flip", [tens((0, 3)), int_array([5]), tens((0, 3))], 161002, "dims")   # before the empty return


# ---------------------------------------------------------------- Norm

NTOL = {"f32": (2e-6, 1e-6), "f16": (1e-3, 1e-3), "bf16": (8e-3, 8e-3)}


def norm_ref(torch, x, p, dims, keep, odt):
    t = torch.from_numpy(np.asarray(x, np.float32))
    r = torch.linalg.vector_norm(t, ord=p, dim=dims if dims else None, keepdim=keep)
    return r.numpy().astype(np.float64)


@pytest.mark.parametrize("dt", OPS["Norm"]["dtypes"])
@pytest.mark.parametrize("p", [0, 1, 2, 3, INF, -INF, 0.5, -1.5])
def test_norm_dtypes(torch, dt, p):
    rng = np.random.default_rng(2)
    x = rand(rng, (3, 4, 5), dt)
    x[0, 0, 0] = 0
    for dims, keep in (([1], False), ([0, -1], True), ([], False)):
        shape = tuple(1 if (k in [d % 3 for d in dims] or not dims) else s for k, s in enumerate(x.shape)
                      if keep or not (k in [d % 3 for d in dims] or not dims))
        o = np.zeros(shape, NP[dt])
        pyaclnn.call("Norm", x, p, dims, keep, o)
        e = norm_ref(torch, x.astype(np.float32), p, dims, keep, dt)
        rtol, atol = NTOL[dt]
        np.testing.assert_allclose(o.astype(np.float64), e, rtol=rtol * 4, atol=atol * 4, err_msg=str((dims, keep)))


def test_norm_mixed_dtypes_strided_empty(torch):
    rng = np.random.default_rng(3)
    x = rand(rng, (4, 6), "f16")
    o = np.zeros(6, np.float32)                              # f16 -> f32 out: the kernel writes f32
    pyaclnn.call("Norm", x, 2.0, [0], False, o)
    np.testing.assert_allclose(o, norm_ref(torch, x.astype(np.float32), 2, [0], False, "f32"), rtol=1e-6)
    xi = rng.integers(-5, 5, (3, 4)).astype(np.int32)        # no dtype list on A2: through float32
    o = np.zeros(3, np.float32)
    pyaclnn.call("Norm", xi, 1.0, [1], False, o)
    np.testing.assert_allclose(o, np.abs(xi).sum(1), rtol=1e-6)
    xs = strided(rand(rng, (3, 5), "f32"), "transpose")
    os_ = strided(np.zeros((3, 1), np.float32))
    pyaclnn.call("Norm", xs, 3.0, [1], True, os_)
    np.testing.assert_allclose(os_, norm_ref(torch, xs, 3, [1], True, "f32"), rtol=1e-5)
    e = np.zeros((0, 3), np.float32)
    o = np.full(3, 7, np.float32)
    pyaclnn.call("Norm", e, 2.0, [0], False, o)              # empty self: out filled with 0
    np.testing.assert_array_equal(o, 0)
    s = np.array(-3.0, np.float32)
    o = np.zeros((), np.float32)
    pyaclnn.call("Norm", s, 2.0, [], False, o)
    assert o == 3.0
    n = np.array([1.0, np.nan, 2.0], np.float32)
    for p in (2.0, INF, -INF):
        o = np.zeros((), np.float32)
        pyaclnn.call("Norm", n, p, [0], False, o)
        assert np.isnan(o)


def test_norm_invalid():
    x, d, p = tens((2, 3)), int_array([1]), make_scalar(2.0)
    o = tens((2,))
    expect_status("Norm", [None, p, d, False, o], 161001, "self")
    expect_status("Norm", [x, None, d, False, o], 161001, "pScalar")
    expect_status("Norm", [x, p, None, False, o], 161001, "dim")
    expect_status("Norm", [x, p, d, False, None], 161001, "out")
    expect_status("Norm", [x, p, d, False, tens((2,), "u16")], 161002, "out")   # no promotion f32 / uint16
    expect_status("Norm", [x, p, int_array([2]), False, o], 161002, "dim")
    expect_status("Norm", [x, p, int_array([1, -1]), False, o], 161002, "dim")
    expect_status("Norm", [x, p, d, True, o], 161002, "out")                    # keepdim: [2, 1]
    expect_status("Norm", [x, p, d, False, tens((3,))], 161002, "out")
    big = tens((1,) * 9)
    expect_status("Norm", [big, p, d, False, tens((1,) * 8)], 161002, "self")


# ---------------------------------------------------------------- Inverse

ITOL = {"f32": 2e-5, "f16": 4e-3, "f64": 1e-11, "c64": 2e-5, "c128": 1e-11}


def well_conditioned(rng, shape, dt):
    a = rng.standard_normal(shape)
    if dt in ("c64", "c128"):
        a = a + 1j * rng.standard_normal(shape)
    a = a + shape[-1] * np.eye(shape[-1])
    return a.astype(NP[dt])


@pytest.mark.parametrize("dt", OPS["Inverse"]["dtypes"])
def test_inverse_dtypes(torch, dt):
    rng = np.random.default_rng(4)
    a = well_conditioned(rng, (2, 3, 4, 4), dt)
    o = strided(np.zeros_like(a))
    pyaclnn.call("Inverse", strided(a, "transpose"), o)
    ref = a.astype(np.complex128 if dt.startswith("c") else np.float64)
    e = torch.linalg.inv(torch.from_numpy(ref)).numpy()
    np.testing.assert_allclose(o.astype(e.dtype), e, rtol=ITOL[dt], atol=ITOL[dt])


def test_inverse_cast_empty_singular(torch):
    rng = np.random.default_rng(5)
    a = well_conditioned(rng, (5, 5), "f32")
    o = np.zeros((5, 5), np.float64)                        # f32 -> f64 out: the f32 result cast
    pyaclnn.call("Inverse", a, o)
    np.testing.assert_allclose(o, np.linalg.inv(a.astype(np.float64)), rtol=2e-5, atol=2e-6)
    for shape in ((0, 3, 3), (2, 0, 0)):
        e = np.zeros(shape, np.float32)
        pyaclnn.call("Inverse", e, np.zeros_like(e))
    # singular: the kernel's full-pivot LU does not check invertibility; past the rank the solution is 0. For
    # [[1, 2], [2, 4]] (read column-major, pivot 4, rank 1) that is [[0, 0], [0, 1/4]] (worked by hand)
    s = np.array([[1, 2], [2, 4]], np.float32)
    o = np.full_like(s, 9)
    pyaclnn.call("Inverse", s, o)
    np.testing.assert_array_equal(o, [[0, 0], [0, 0.25]])
    z = np.zeros((2, 3, 3))
    o = np.full_like(z, 9)
    pyaclnn.call("Inverse", z, o)                           # rank 0: zeros
    np.testing.assert_array_equal(o, 0)
    with pytest.raises(Exception):                          # (PyTorch raises instead)
        torch.linalg.inv(torch.from_numpy(s))


def test_inverse_invalid():
    x = tens((3, 3))
    expect_status("Inverse", [None, x], 161001, "self")
    expect_status("Inverse", [x, None], 161001, "out")
    expect_status("Inverse", [tens((3, 3), "bf16"), tens((3, 3), "bf16")], 161002, "self")
    expect_status("Inverse", [tens((3, 3), "c64"), x], 161002, "out")         # complex -> float cannot cast
    expect_status("Inverse", [x, tens((3, 4))], 161002, "out")
    expect_status("Inverse", [tens((3, 4)), tens((3, 4))], 161002, "self")
    expect_status("Inverse", [tens((3,)), tens((3,))], 161002, "self")
    big = tens((1,) * 9)
    expect_status("Inverse", [big, big], 161002, "self")
    expect_status("Inverse", [tens((0, 3, 4)), tens((0, 3, 4))], 0)          # empty: success before the square check


# ---------------------------------------------------------------- LinalgVectorNorm (the Norm engine)

@pytest.mark.parametrize("dt", OPS["LinalgVectorNorm"]["dtypes"])
def test_linalg_vector_norm(torch, dt):
    from pyaclnn.tensor import acl_dtype
    rng = np.random.default_rng(6)
    x = rand(rng, (3, 4, 5), dt)
    for p in (0, 1, 2, 3, INF, -INF):
        o = strided(np.zeros((3, 1, 5), NP[dt]))
        pyaclnn.call("LinalgVectorNorm", strided(x, "transpose"), p, [1], True, acl_dtype(NP[dt]), o)
        e = norm_ref(torch, x.astype(np.float32), p, [1], True, dt)
        rtol, atol = NTOL[dt]
        np.testing.assert_allclose(o.astype(np.float64), e, rtol=rtol * 4, atol=atol * 4)
    e = np.zeros((0, 3), np.float32)
    o = np.full(3, 7, np.float32)
    pyaclnn.call("LinalgVectorNorm", e, 2.0, [0], False, acl_dtype(np.float32), o)   # zeros into a non-empty out
    np.testing.assert_array_equal(o, 0)


def test_linalg_vector_norm_invalid():
    from pyaclnn.tensor import acl_dtype
    F32, F16 = acl_dtype(np.float32), acl_dtype(np.float16)
    x, d, p = tens((2, 3)), int_array([1]), make_scalar(2.0)
    o = tens((2,))
    expect_status("LinalgVectorNorm", [None, p, d, False, F32, o], 161001, "self")
    expect_status("LinalgVectorNorm", [x, None, d, False, F32, o], 161001, "ord")
    expect_status("LinalgVectorNorm", [x, p, None, False, F32, o], 161001, "dims")
    expect_status("LinalgVectorNorm", [x, p, d, False, F32, None], 161001, "out")
    expect_status("LinalgVectorNorm", [x, p, d, False, F16, o], 161002, "out")       # out dtype != dtype
    c = tens((2, 3), "c64")
    expect_status("LinalgVectorNorm", [c, p, d, False, F32, o], 161002, "complex")
    expect_status("LinalgVectorNorm", [x, p, int_array([-3]), False, F32, o], 161002, "dims")
    expect_status("LinalgVectorNorm", [x, p, d, False, F32, tens((3,))], 161002, "out")


def test_norm_foreach_same_bytes_for_any_thread_count():
    from helpers import same_bytes_for_threads
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
x = rng.standard_normal((3, 70000)).astype(np.float32)
o = np.zeros(3, np.float32); pyaclnn.call("Norm", x, 3.0, [1], False, o)
a = np.zeros((), np.float32); pyaclnn.call("Norm", x, 2.0, [], False, a)
xs = [x[0], x[1].reshape(7, 10000)]; outs = [np.zeros((1,), np.float32) for _ in xs]
pyaclnn.call("ForeachNorm", xs, 2.0, outs)
ys = [np.zeros_like(t) for t in xs]; pyaclnn.call("ForeachAddcmulScalarV2", xs, xs, xs, 0.5, ys)
m = rng.standard_normal((8, 12, 12)); im = np.zeros_like(m); pyaclnn.call("Inverse", m, im)
print(hashlib.sha256(o.tobytes() + a.tobytes() + b"".join(t.tobytes() for t in outs + ys) + im.tobytes()).hexdigest())
"""
    same_bytes_for_threads(code, threads=(1, 2, 3))
