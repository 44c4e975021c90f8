"""aclnnAdaptiveAvgPool3d(+Backward), aclnnAdaptiveMaxPool3d(+Backward) (ops-nn pooling/adaptive_*_pool3d*) vs a
float64 numpy loop (tests/reference/adaptive_pool3d.py) and PyTorch (adaptive_avg/max_pool3d, autograd) for every
A2 dtype, strided views, invalid rows (order and codes), determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from helpers import DTYPES, DTYPE_IDS, assert_close, rounded, strided, same_bytes_for_threads, expect_invalid, \
    ws_call, run_executor
from reference import adaptive_pool3d as ref
from reference.max_pool import max_pool_backward

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
I32, I64 = np.dtype(np.int32), np.dtype(np.int64)
A = pyaclnn.int_array
FMT = {4: "NCHW", 5: "NCDHW"}


def T(shape, dtype=F32, fmt=None):
    return pyaclnn.AclTensor(shape, dtype, fmt=getattr(lib, "ACL_FORMAT_" + (fmt or FMT[len(shape)])))


def tensor(a):
    return pyaclnn.AclTensor.from_array(a, getattr(lib, "ACL_FORMAT_" + FMT[a.ndim]))


def run(op, *args):
    rc, ws, ex, msg = ws_call(op, *args)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0


def make_input(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32).astype(dtype)


CASES = {
    "n2c3_5x7x6_to_2x3x4": ((2, 3, 5, 7, 6), (2, 3, 4)),
    "c2_4x4x9_to_4x1x5": ((2, 4, 4, 9), (4, 1, 5)),
    "n1c2_3x5x4_to_5x7x3_upsample": ((1, 2, 3, 5, 4), (5, 7, 3)),
}


def planes(x):
    return x.reshape((-1,) + x.shape[-3:])


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(CASES))
def test_adaptive_avg_pool3d_fwd_bwd(cid, dtype, torch):
    shape, osz = CASES[cid]
    x = make_input(shape, dtype)
    oshape = tuple(shape[:-3]) + osz
    out = tensor(np.full(oshape, 7, dtype))
    run("AdaptiveAvgPool3d", tensor(x), A(list(osz)), out)
    ey = ref.adaptive_avg_pool3d(planes(x), osz).reshape(oshape)
    assert_close(out.numpy(), rounded(ey, dtype), dtype, what=cid)
    xt = torch.from_numpy(x.astype(np.float32)).requires_grad_(True)
    ty = torch.nn.functional.adaptive_avg_pool3d(xt, osz)
    assert_close(out.numpy(), rounded(ty.detach().numpy(), dtype), dtype, what=cid)
    gy = make_input(oshape, dtype, seed=1)
    gx = tensor(np.full(shape, 7, dtype))
    run("AdaptiveAvgPool3dBackward", tensor(gy), tensor(x), gx)
    exp = ref.adaptive_avg_pool3d_backward(planes(gy), shape[-3:]).reshape(shape)
    assert_close(gx.numpy(), rounded(exp, dtype), dtype, what=cid)
    ty.backward(torch.from_numpy(gy.astype(np.float32)))
    assert_close(gx.numpy(), rounded(xt.grad.numpy(), dtype), dtype, what=cid)


def test_adaptive_avg_pool3d_backward_double_all_one(torch):
    x = make_input((2, 3, 4, 5, 6), np.float64)
    gy = make_input((2, 3, 1, 1, 1), np.float64, seed=2)
    gx = tensor(np.zeros(x.shape))
    run("AdaptiveAvgPool3dBackward", tensor(gy), tensor(x), gx)
    assert_close(gx.numpy(), np.broadcast_to(gy / 120.0, x.shape), np.float64)
    rc, _, _, msg = ws_call("AdaptiveAvgPool3dBackward", T((2, 3, 2, 1, 1), np.float64), tensor(x), gx)
    assert rc == 161002 and "gradOutput" in msg


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(CASES))
def test_adaptive_max_pool3d_fwd_bwd(cid, dtype, torch):
    shape, osz = CASES[cid]
    x = make_input(shape, dtype, seed=3)
    oshape = tuple(shape[:-3]) + osz
    out, ind = tensor(np.full(oshape, 7, dtype)), tensor(np.full(oshape, -1, I32))
    run("AdaptiveMaxPool3d", tensor(x), A(list(osz)), out, ind)
    ey, ei = ref.adaptive_max_pool3d(planes(x), osz)
    assert_close(out.numpy(), rounded(ey.reshape(oshape), dtype), dtype, rtol=0, atol=0)
    np.testing.assert_array_equal(ind.numpy(), ei.reshape(oshape))
    xt = torch.from_numpy(x.astype(np.float32)).requires_grad_(True)
    ty, ti = torch.nn.functional.adaptive_max_pool3d(xt, osz, return_indices=True)
    np.testing.assert_array_equal(ind.numpy(), ti.numpy())
    gy = make_input(oshape, dtype, seed=4)
    gx = tensor(np.full(shape, 7, dtype))
    run("AdaptiveMaxPool3dBackward", tensor(gy), tensor(x), ind, gx)
    exp = max_pool_backward(planes(gy), ei, shape[-3:]).reshape(shape)
    assert_close(gx.numpy(), rounded(exp, dtype), dtype)
    ty.backward(torch.from_numpy(gy.astype(np.float32)))
    assert_close(gx.numpy(), rounded(xt.grad.numpy(), dtype), dtype)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_adaptive_pool3d_strided(kind, dtype):
    shape, osz = CASES["n2c3_5x7x6_to_2x3x4"]
    oshape = tuple(shape[:-3]) + osz
    x = make_input(shape, dtype, seed=5)
    out = tensor(strided(np.full(oshape, 7, dtype), kind))
    run("AdaptiveAvgPool3d", tensor(strided(x, kind)), A(list(osz)), out)
    assert_close(out.numpy(), rounded(ref.adaptive_avg_pool3d(planes(x), osz).reshape(oshape), dtype), dtype)
    gy = make_input(oshape, dtype, seed=6)
    gx = tensor(strided(np.full(shape, 7, dtype), kind))
    run("AdaptiveAvgPool3dBackward", tensor(strided(gy, kind)), tensor(x), gx)
    exp = ref.adaptive_avg_pool3d_backward(planes(gy), shape[-3:]).reshape(shape)
    assert_close(gx.numpy(), rounded(exp, dtype), dtype)
    mo, mi = tensor(strided(np.full(oshape, 7, dtype), kind)), tensor(strided(np.full(oshape, -1, I32), kind))
    run("AdaptiveMaxPool3d", tensor(strided(x, kind)), A(list(osz)), mo, mi)
    ey, ei = ref.adaptive_max_pool3d(planes(x), osz)
    np.testing.assert_array_equal(mi.numpy(), ei.reshape(oshape))
    gx2 = tensor(strided(np.full(shape, 7, dtype), kind))
    run("AdaptiveMaxPool3dBackward", tensor(strided(gy, kind)), tensor(x), tensor(strided(ei.reshape(oshape).astype(I32), kind)), gx2)
    assert_close(gx2.numpy(), rounded(max_pool_backward(planes(gy), ei, shape[-3:]).reshape(shape), dtype), dtype)


def aap_args(self=None, osz=None, out=None):
    return (T((2, 3, 4, 4, 4)) if self is None else self, A([2, 2, 2]) if osz is None else osz,
            T((2, 3, 2, 2, 2)) if out is None else out)


AAP_INVALID = [
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_output_size", dict(osz=ffi.NULL), 161001, "outputSize"),
    ("null_out", dict(out=ffi.NULL), 161001, "out"),
    ("self_rank_3", dict(self=T((3, 4, 4), fmt="ND"), out=T((3, 2, 2), fmt="ND")), 161002, "self"),
    ("out_rank_differs", dict(out=T((3, 2, 2, 2), fmt="NCDHW")), 161002, "out"),
    ("self_zero_batch", dict(self=T((0, 3, 4, 4, 4)), out=T((0, 3, 2, 2, 2))), 161002, "self"),
    ("out_channels", dict(out=T((2, 4, 2, 2, 2))), 161002, "out"),
    ("self_f64", dict(self=T((2, 3, 4, 4, 4), np.dtype(np.float64))), 161002, "self"),
    ("out_dtype_differs", dict(out=T((2, 3, 2, 2, 2), F16)), 161002, "out"),
    ("format_mismatch", dict(out=T((2, 3, 2, 2, 2), fmt="ND")), 161002, "format"),
    ("output_size_len_2", dict(osz=A([2, 2])), 161002, "outputSize"),
    ("output_size_mismatch", dict(osz=A([2, 2, 3])), 161002, "outputSize"),
]


@pytest.mark.parametrize("name,kw,code,word", AAP_INVALID, ids=[r[0] for r in AAP_INVALID])
def test_adaptive_avg_pool3d_invalid(name, kw, code, word):
    expect_invalid("AdaptiveAvgPool3d", aap_args(**kw), code, word)


def aapb_args(gy=None, self=None, out=None):
    return (T((2, 3, 2, 2, 2)) if gy is None else gy, T((2, 3, 4, 4, 4)) if self is None else self,
            T((2, 3, 4, 4, 4)) if out is None else out)


AAPB_INVALID = [
    ("null_grad", dict(gy=ffi.NULL), 161001, "gradOutput"),
    ("null_out", dict(out=ffi.NULL), 161001, "out"),
    ("rank_differs", dict(gy=T((3, 2, 2, 2))), 161002, "rank"),
    ("out_dims", dict(out=T((2, 3, 4, 4, 3))), 161002, "out"),
    ("grad_channels", dict(gy=T((2, 2, 2, 2, 2))), 161002, "gradOutput"),
    ("grad_f64_not_all_one", dict(gy=T((2, 3, 2, 2, 2), np.dtype(np.float64))), 161002, "gradOutput"),
    ("dtype_mismatch", dict(self=T((2, 3, 4, 4, 4), F16)), 161002, "self"),
    ("format_mismatch", dict(gy=T((2, 3, 2, 2, 2), fmt="ND")), 161002, "format"),
]


@pytest.mark.parametrize("name,kw,code,word", AAPB_INVALID, ids=[r[0] for r in AAPB_INVALID])
def test_adaptive_avg_pool3d_backward_invalid(name, kw, code, word):
    expect_invalid("AdaptiveAvgPool3dBackward", aapb_args(**kw), code, word)


def amp_args(self=None, osz=None, out=None, ind=None):
    return (T((2, 3, 4, 4, 4)) if self is None else self, A([2, 2, 2]) if osz is None else osz,
            T((2, 3, 2, 2, 2)) if out is None else out, T((2, 3, 2, 2, 2), I32) if ind is None else ind)


AMP_INVALID = [
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_indices", dict(ind=ffi.NULL), 161001, "indicesOut"),
    ("self_rank_3", dict(self=T((3, 4, 4), fmt="ND")), 161002, "self"),
    ("self_f64", dict(self=T((2, 3, 4, 4, 4), np.dtype(np.float64))), 161002, "self"),
    ("indices_int64", dict(ind=T((2, 3, 2, 2, 2), I64)), 161002, "indicesOut"),
    ("format_nd", dict(self=T((2, 3, 4, 4, 4), fmt="ND"), out=T((2, 3, 2, 2, 2), fmt="ND")), 161002, "format"),
    ("output_size_len_1", dict(osz=A([2])), 161002, "outputSize"),
    ("out_shape", dict(out=T((2, 3, 2, 2, 1))), 161002, "outputOut"),
    ("out_dtype_differs", dict(out=T((2, 3, 2, 2, 2), F16)), 161002, "outputOut"),
    ("output_size_zero", dict(osz=A([0, 2, 2]), out=T((2, 3, 0, 2, 2)), ind=T((2, 3, 0, 2, 2), I32)), 161002,
     "outputSize"),
]


@pytest.mark.parametrize("name,kw,code,word", AMP_INVALID, ids=[r[0] for r in AMP_INVALID])
def test_adaptive_max_pool3d_invalid(name, kw, code, word):
    expect_invalid("AdaptiveMaxPool3d", amp_args(**kw), code, word)


def ampb_args(gy=None, self=None, ind=None, gx=None):
    return (T((2, 3, 2, 2, 2)) if gy is None else gy, T((2, 3, 4, 4, 4)) if self is None else self,
            T((2, 3, 2, 2, 2), I32) if ind is None else ind, T((2, 3, 4, 4, 4)) if gx is None else gx)


AMPB_INVALID = [
    ("null_grad", dict(gy=ffi.NULL), 161001, "gradOutput"),
    ("null_grad_input", dict(gx=ffi.NULL), 161001, "gradInput"),
    ("grad_dtype_differs", dict(gy=T((2, 3, 2, 2, 2), F16)), 161002, "gradOutput"),
    ("self_f64", dict(self=T((2, 3, 4, 4, 4), np.dtype(np.float64)), gy=T((2, 3, 2, 2, 2), np.dtype(np.float64)),
                      gx=T((2, 3, 4, 4, 4), np.dtype(np.float64))), 161002, "self"),
    ("indices_int16", dict(ind=T((2, 3, 2, 2, 2), np.dtype(np.int16))), 161002, "indices"),
    ("indices_int64_not_on_a2", dict(ind=T((2, 3, 2, 2, 2), I64)), 161002, "indices"),
    ("indices_shape", dict(ind=T((2, 3, 2, 2, 1), I32)), 161002, "indices"),
    ("grad_input_shape", dict(gx=T((2, 3, 4, 4, 3))), 161002, "gradInput"),
    ("format_mismatch", dict(gx=T((2, 3, 4, 4, 4), fmt="ND")), 161002, "format"),
    ("grad_channels", dict(gy=T((2, 2, 2, 2, 2)), ind=T((2, 2, 2, 2, 2), I32)), 161002, "gradOutput"),
]


@pytest.mark.parametrize("name,kw,code,word", AMPB_INVALID, ids=[r[0] for r in AMPB_INVALID])
def test_adaptive_max_pool3d_backward_invalid(name, kw, code, word):
    expect_invalid("AdaptiveMaxPool3dBackward", ampb_args(**kw), code, word)


def test_adaptive_pool3d_deterministic():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
rng = np.random.default_rng(1)
f = lib.ACL_FORMAT_NCDHW
T = lambda a: pyaclnn.AclTensor.from_array(a, f)
x = rng.integers(-3, 3, (3, 5, 9, 10, 11)).astype(np.float32)
gy = rng.uniform(-1, 1, (3, 5, 4, 7, 5)).astype(np.float32)
y, i, ya = T(np.zeros(gy.shape, np.float32)), T(np.zeros(gy.shape, np.int32)), T(np.zeros(gy.shape, np.float32))
g1, g2 = T(np.zeros(x.shape, np.float32)), T(np.zeros(x.shape, np.float32))
xt, gt = T(x), T(gy)
ws = pyaclnn.ffi.new("uint64_t *"); ex = pyaclnn.ffi.new("aclOpExecutor **")
pyaclnn.ensure_device()
N = pyaclnn.ffi.NULL
o = pyaclnn.int_array([4, 7, 5])
assert lib.aclnnAdaptiveMaxPool3dGetWorkspaceSize(xt.handle, o, y.handle, i.handle, ws, ex) == 0
assert lib.aclnnAdaptiveMaxPool3d(N, 0, ex[0], N) == 0
assert lib.aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gt.handle, xt.handle, i.handle, g1.handle, ws, ex) == 0
assert lib.aclnnAdaptiveMaxPool3dBackward(N, 0, ex[0], N) == 0
assert lib.aclnnAdaptiveAvgPool3dGetWorkspaceSize(xt.handle, o, ya.handle, ws, ex) == 0
assert lib.aclnnAdaptiveAvgPool3d(N, 0, ex[0], N) == 0
assert lib.aclnnAdaptiveAvgPool3dBackwardGetWorkspaceSize(gt.handle, xt.handle, g2.handle, ws, ex) == 0
assert lib.aclnnAdaptiveAvgPool3dBackward(N, 0, ex[0], N) == 0
print(hashlib.sha256(b"".join(t.numpy().tobytes() for t in (y, i, ya, g1, g2))).hexdigest())
"""
    same_bytes_for_threads(code)
