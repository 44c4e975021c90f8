"""Pooling family (ops-nn pooling/): aclnnAdaptiveAvgPool2d vs a float64 numpy loop and PyTorch for every A2
dtype, strided views, empty batches, the op_api's invalid rows (order and codes), determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.tensor import acl_dtype
from helpers import DTYPES, DTYPE_IDS, assert_close, rounded, strided, same_bytes_for_threads, expect_invalid, \
    ws_call, run_executor
from reference import pool as ref

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
A = pyaclnn.int_array
FMT = {3: "NCL", 4: "NCHW"}

# (input shape, output size)
AAP_CASES = {
    "n2c3_7x9_to_3x4": ((2, 3, 7, 9), (3, 4)),
    "n1c2_5x5_to_5x5": ((1, 2, 5, 5), (5, 5)),
    "n1c1_4x6_to_7x9_upsample": ((1, 1, 4, 6), (7, 9)),
    "c3_10x3_to_1x1_ncl": ((3, 10, 3), (1, 1)),
    "n2c4_13x11_to_4x2": ((2, 4, 13, 11), (4, 2)),
}


def T(shape, dtype=F32, fmt=None):
    f = getattr(lib, "ACL_FORMAT_" + (fmt or FMT.get(len(shape), "ND")))
    if all(d >= 0 for d in shape):
        return pyaclnn.AclTensor(shape, dtype, fmt=f)
    dims = ffi.new("int64_t[]", list(shape))
    h = lib.aclCreateTensor(dims, len(shape), acl_dtype(dtype), ffi.NULL, 0, f, dims, len(shape), ffi.NULL)
    return ffi.gc(h, lib.aclDestroyTensor)


def adaptive_avg_pool2d(x, osz, out):
    f = getattr(lib, "ACL_FORMAT_" + FMT[x.ndim])
    xt = pyaclnn.AclTensor.from_array(x, f)
    yt = pyaclnn.AclTensor.from_array(out, f)
    rc, ws, ex, msg = ws_call("AdaptiveAvgPool2d", xt, A(list(osz)), yt)
    assert rc == 0, msg
    assert run_executor("AdaptiveAvgPool2d", ex, ws) == 0
    return yt.numpy()


def make_input(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32).astype(dtype)


def out_like(shape, osz, dtype):
    return np.full(tuple(shape[:-2]) + tuple(osz), 7, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(AAP_CASES))
def test_adaptive_avg_pool2d_numpy_and_torch(cid, dtype, torch):
    shape, osz = AAP_CASES[cid]
    x = make_input(shape, dtype)
    y = adaptive_avg_pool2d(x, osz, out_like(shape, osz, dtype))
    assert_close(y, rounded(ref.adaptive_avg_pool2d(x.astype(np.float64), *osz), dtype), dtype, what=cid)
    exp = torch.nn.functional.adaptive_avg_pool2d(torch.from_numpy(x.astype(np.float32)), osz).numpy()
    assert_close(y, rounded(exp, dtype), dtype, what=cid)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_adaptive_avg_pool2d_strided(kind, dtype):
    shape, osz = AAP_CASES["n2c3_7x9_to_3x4"]
    x = make_input(shape, dtype, seed=2)
    exp = rounded(ref.adaptive_avg_pool2d(x.astype(np.float64), *osz), dtype)
    out = strided(out_like(shape, osz, dtype), kind)
    assert not out.flags.c_contiguous
    y = adaptive_avg_pool2d(strided(x, kind), osz, out)
    assert_close(y, exp, dtype)


def test_adaptive_avg_pool2d_empty_batch():
    rc, ws, ex, msg = ws_call("AdaptiveAvgPool2d", T((0, 3, 4, 4)), A([2, 2]), T((0, 3, 2, 2)))
    assert rc == 0, msg
    assert run_executor("AdaptiveAvgPool2d", ex, ws) == 0


def aap_args(self=None, osz=None, out=None):
    return (T((2, 3, 6, 6)) if self is None else self, A([3, 3]) if osz is None else osz,
            T((2, 3, 3, 3)) if out is None else out)


AAP_INVALID = [
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_output_size", dict(osz=ffi.NULL), 161001, "outputSize"),
    ("null_out", dict(out=ffi.NULL), 161001, "out"),
    ("self_rank_5", dict(self=T((1, 2, 3, 6, 6), fmt="ND")), 161002, "self"),
    ("out_rank_differs", dict(out=T((3, 3, 3))), 161002, "out"),
    ("out_channels_differ", dict(out=T((2, 4, 3, 3))), 161002, "out"),
    ("self_int32", dict(self=T((2, 3, 6, 6), np.dtype(np.int32))), 161002, "self"),
    ("self_f64", dict(self=T((2, 3, 6, 6), np.dtype(np.float64))), 161002, "self"),
    ("out_dtype_differs", dict(out=T((2, 3, 3, 3), F16)), 161002, "out"),
    ("format_nd", dict(self=T((2, 3, 6, 6), fmt="ND"), out=T((2, 3, 3, 3), fmt="ND")), 161002, "self"),
    ("format_mismatch", dict(out=T((2, 3, 3, 3), fmt="ND")), 161002, "format"),
    ("output_size_len_1", dict(osz=A([3])), 161002, "outputSize"),
    ("output_size_zero", dict(osz=A([0, 3]), out=T((2, 3, 0, 3))), 161002, "outputSize"),
    ("output_size_mismatch", dict(osz=A([3, 2])), 161002, "outputSize"),
]


@pytest.mark.parametrize("name,kw,code,word", AAP_INVALID, ids=[r[0] for r in AAP_INVALID])
def test_adaptive_avg_pool2d_invalid(name, kw, code, word):
    expect_invalid("AdaptiveAvgPool2d", aap_args(**kw), code, word)


def test_adaptive_avg_pool2d_deterministic():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
x = np.random.default_rng(1).uniform(-1, 1, (3, 8, 37, 29)).astype(np.float32)
xt = pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCHW)
y = np.zeros((3, 8, 5, 7), np.float32)
yt = pyaclnn.AclTensor.from_array(y, lib.ACL_FORMAT_NCHW)
ws = pyaclnn.ffi.new("uint64_t *"); ex = pyaclnn.ffi.new("aclOpExecutor **")
pyaclnn.ensure_device()
assert lib.aclnnAdaptiveAvgPool2dGetWorkspaceSize(xt.handle, pyaclnn.int_array([5, 7]), yt.handle, ws, ex) == 0
assert lib.aclnnAdaptiveAvgPool2d(pyaclnn.ffi.NULL, 0, ex[0], pyaclnn.ffi.NULL) == 0
print(hashlib.sha256(yt.numpy().tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- aclnnAdaptiveAvgPool2dBackward

def adaptive_avg_pool2d_backward(gy, x, out):
    f = getattr(lib, "ACL_FORMAT_" + FMT[x.ndim])
    gt = pyaclnn.AclTensor.from_array(gy, f)
    xt = pyaclnn.AclTensor.from_array(x, f)
    ot = pyaclnn.AclTensor.from_array(out, f)
    rc, ws, ex, msg = ws_call("AdaptiveAvgPool2dBackward", gt, xt, ot)
    assert rc == 0, msg
    assert run_executor("AdaptiveAvgPool2dBackward", ex, ws) == 0
    return ot.numpy()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(AAP_CASES))
def test_adaptive_avg_pool2d_backward_numpy_and_torch(cid, dtype, torch):
    shape, osz = AAP_CASES[cid]
    x = make_input(shape, dtype)
    gy = make_input(tuple(shape[:-2]) + tuple(osz), dtype, seed=5)
    gx = adaptive_avg_pool2d_backward(gy, x, np.full(shape, 7, dtype))
    exp = ref.adaptive_avg_pool2d_backward(gy.astype(np.float64), *shape[-2:])
    assert_close(gx, rounded(exp, dtype), dtype, what=cid)
    xt = torch.from_numpy(x.astype(np.float32)).requires_grad_(True)
    torch.nn.functional.adaptive_avg_pool2d(xt, osz).backward(torch.from_numpy(gy.astype(np.float32)))
    assert_close(gx, rounded(xt.grad.numpy(), dtype), dtype, what=cid)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_adaptive_avg_pool2d_backward_strided(kind, dtype):
    shape, osz = AAP_CASES["n1c1_4x6_to_7x9_upsample"]
    x = make_input(shape, dtype)
    gy = make_input(tuple(shape[:-2]) + tuple(osz), dtype, seed=6)
    exp = rounded(ref.adaptive_avg_pool2d_backward(gy.astype(np.float64), *shape[-2:]), dtype)
    out = strided(np.full(shape, 7, dtype), kind)
    gx = adaptive_avg_pool2d_backward(strided(gy, kind), strided(x, kind), out)
    assert_close(gx, exp, dtype)


def test_adaptive_avg_pool2d_backward_empty_leaves_out():
    out = pyaclnn.AclTensor.from_array(np.full((2, 3, 4, 4), 7, np.float32), lib.ACL_FORMAT_NCHW)
    rc, ws, ex, msg = ws_call("AdaptiveAvgPool2dBackward", T((2, 3, 0, 2)), T((2, 3, 4, 4)), out)
    assert rc == 0, msg
    assert run_executor("AdaptiveAvgPool2dBackward", ex, ws) == 0
    assert (out.numpy() == 7).all()


def aapb_args(gy=None, self=None, out=None):
    return (T((2, 3, 3, 3)) if gy is None else gy, T((2, 3, 6, 6)) if self is None else self,
            T((2, 3, 6, 6)) if out is None else out)


AAPB_INVALID = [
    ("null_grad", dict(gy=ffi.NULL), 161001, "gradOutput"),
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_out", dict(out=ffi.NULL), 161001, "out"),
    ("grad_rank_differs", dict(gy=T((3, 3, 3))), 161002, "gradOutput"),
    ("out_rank_5", dict(gy=T((1, 2, 3, 3, 3), fmt="ND"), self=T((1, 2, 3, 6, 6), fmt="ND"),
                        out=T((1, 2, 3, 6, 6), fmt="ND")), 161002, "out"),
    ("out_batch_differs", dict(out=T((1, 3, 6, 6))), 161002, "out"),
    ("grad_channels_differ", dict(gy=T((2, 4, 3, 3))), 161002, "gradOutput"),
    ("grad_int32", dict(gy=T((2, 3, 3, 3), np.dtype(np.int32))), 161002, "gradOutput"),
    ("self_f64", dict(self=T((2, 3, 6, 6), np.dtype(np.float64))), 161002, "self"),
    ("dtype_mismatch", dict(self=T((2, 3, 6, 6), F16)), 161002, "self"),
    ("format_mismatch", dict(gy=T((2, 3, 3, 3), fmt="ND")), 161002, "format"),
    ("out_hw_differs", dict(out=T((2, 3, 5, 6))), 161002, "out"),
    ("out_dtype_differs", dict(out=T((2, 3, 6, 6), F16)), 161002, "out"),
]


@pytest.mark.parametrize("name,kw,code,word", AAPB_INVALID, ids=[r[0] for r in AAPB_INVALID])
def test_adaptive_avg_pool2d_backward_invalid(name, kw, code, word):
    expect_invalid("AdaptiveAvgPool2dBackward", aapb_args(**kw), code, word)


def test_adaptive_avg_pool2d_backward_deterministic():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib, ffi
g = np.random.default_rng(1).uniform(-1, 1, (3, 8, 5, 7)).astype(np.float32)
x = np.zeros((3, 8, 37, 29), np.float32)
gt = pyaclnn.AclTensor.from_array(g, lib.ACL_FORMAT_NCHW)
xt = pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCHW)
ot = pyaclnn.AclTensor.from_array(x.copy(), lib.ACL_FORMAT_NCHW)
ws = ffi.new("uint64_t *"); ex = ffi.new("aclOpExecutor **")
pyaclnn.ensure_device()
assert lib.aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize(gt.handle, xt.handle, ot.handle, ws, ex) == 0
assert lib.aclnnAdaptiveAvgPool2dBackward(ffi.NULL, 0, ex[0], ffi.NULL) == 0
print(hashlib.sha256(ot.numpy().tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- aclnnAdaptiveMaxPool2d

AMP_DTYPES = DTYPES + [np.dtype(np.float64)]
AMP_IDS = DTYPE_IDS + ["f64"]


def adaptive_max_pool2d(x, osz, out, ind, fmt=None):
    f = getattr(lib, "ACL_FORMAT_" + (fmt or FMT[x.ndim]))
    xt = pyaclnn.AclTensor.from_array(x, f)
    yt = pyaclnn.AclTensor.from_array(out, f)
    it = pyaclnn.AclTensor.from_array(ind, f)
    rc, ws, ex, msg = ws_call("AdaptiveMaxPool2d", xt, A(list(osz)), yt, it)
    assert rc == 0, msg
    assert run_executor("AdaptiveMaxPool2d", ex, ws) == 0
    return yt.numpy(), it.numpy()


def with_nans_and_ties(x):
    x = x.copy()
    flat = x.reshape(-1)
    flat[::11] = np.nan
    flat[3::7] = flat[4::7][:len(flat[3::7])] if len(flat[4::7]) >= len(flat[3::7]) else flat[3::7]
    return x


@pytest.mark.parametrize("dtype", AMP_DTYPES, ids=AMP_IDS)
@pytest.mark.parametrize("cid", list(AAP_CASES))
def test_adaptive_max_pool2d_numpy_and_torch(cid, dtype, torch):
    shape, osz = AAP_CASES[cid]
    x = with_nans_and_ties(make_input(shape, dtype))
    y, ind = adaptive_max_pool2d(x, osz, out_like(shape, osz, dtype), np.full(shape[:-2] + tuple(osz), -1, np.int64))
    ry, ri = ref.adaptive_max_pool2d(x.astype(np.float64), *osz)
    assert_close(y, ry, dtype, rtol=0, atol=0, what=cid)
    np.testing.assert_array_equal(ind, ri)
    ty, ti = torch.nn.functional.adaptive_max_pool2d(torch.from_numpy(x.astype(np.float64)), osz, return_indices=True)
    assert_close(y, ty.numpy(), dtype, rtol=0, atol=0, what=cid)
    np.testing.assert_array_equal(ind, ti.numpy())


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", AMP_DTYPES, ids=AMP_IDS)
def test_adaptive_max_pool2d_strided(kind, dtype):
    shape, osz = AAP_CASES["n2c4_13x11_to_4x2"]
    x = make_input(shape, dtype, seed=4)
    ry, ri = ref.adaptive_max_pool2d(x.astype(np.float64), *osz)
    y = strided(out_like(shape, osz, dtype), kind)
    ind = strided(np.full(shape[:-2] + tuple(osz), -1, np.int64), kind)
    gy, gi = adaptive_max_pool2d(strided(x, kind), osz, y, ind)
    assert_close(gy, ry, dtype, rtol=0, atol=0)
    np.testing.assert_array_equal(gi, ri)


def test_adaptive_max_pool2d_nhwc_pools_axes_1_2():
    x = make_input((2, 7, 9, 3), F32, seed=8)
    y, ind = adaptive_max_pool2d(x, (3, 4), np.zeros((2, 3, 4, 3), F32), np.zeros((2, 3, 4, 3), np.int64), fmt="NHWC")
    ry, ri = ref.adaptive_max_pool2d(x.transpose(0, 3, 1, 2).astype(np.float64), 3, 4)
    assert_close(y, ry.transpose(0, 2, 3, 1), F32, rtol=0, atol=0)
    np.testing.assert_array_equal(ind, ri.transpose(0, 2, 3, 1))


def test_adaptive_max_pool2d_empty_batch():
    rc, ws, ex, msg = ws_call("AdaptiveMaxPool2d", T((0, 3, 4, 4)), A([2, 2]), T((0, 3, 2, 2)),
                              T((0, 3, 2, 2), np.dtype(np.int64)))
    assert rc == 0, msg
    assert run_executor("AdaptiveMaxPool2d", ex, ws) == 0


I64 = np.dtype(np.int64)


def amp_args(self=None, osz=None, out=None, ind=None):
    return (T((2, 3, 6, 6)) if self is None else self, A([3, 3]) if osz is None else osz,
            T((2, 3, 3, 3)) if out is None else out, T((2, 3, 3, 3), I64) if ind is None else ind)


AMP_INVALID = [
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_output_size", dict(osz=ffi.NULL), 161001, "outputSize"),
    ("null_out", dict(out=ffi.NULL), 161001, "outputOut"),
    ("null_indices", dict(ind=ffi.NULL), 161001, "indicesOut"),
    ("self_int32", dict(self=T((2, 3, 6, 6), np.dtype(np.int32))), 161002, "self"),
    ("out_dtype_differs", dict(out=T((2, 3, 3, 3), F16)), 161002, "outputOut"),
    ("indices_int32", dict(ind=T((2, 3, 3, 3), np.dtype(np.int32))), 161002, "indicesOut"),
    ("self_rank_5", dict(self=T((1, 2, 3, 6, 6), fmt="ND")), 161002, "self"),
    ("indices_shape_differs", dict(ind=T((2, 3, 3, 2), I64)), 161002, "indicesOut"),
    ("self_empty_spatial", dict(self=T((2, 3, 0, 6))), 161002, "self"),
    ("output_size_len_3", dict(osz=A([3, 3, 3])), 161002, "outputSize"),
    ("output_size_zero", dict(osz=A([0, 3])), 161002, "outputSize"),
    ("self_format_nd", dict(self=T((2, 3, 6, 6), fmt="ND")), 161002, "format"),
    ("out_shape_mismatch", dict(out=T((2, 3, 3, 2)), ind=T((2, 3, 3, 2), I64)), 161002, "outputOut"),
]


@pytest.mark.parametrize("name,kw,code,word", AMP_INVALID, ids=[r[0] for r in AMP_INVALID])
def test_adaptive_max_pool2d_invalid(name, kw, code, word):
    expect_invalid("AdaptiveMaxPool2d", amp_args(**kw), code, word)


# ---------------------------------------------------------------- aclnnAdaptiveMaxPool2dBackward

def adaptive_max_pool2d_backward(gy, x, ind, out):
    f = getattr(lib, "ACL_FORMAT_" + FMT[x.ndim])
    ts = [pyaclnn.AclTensor.from_array(a, f) for a in (gy, x, ind, out)]
    rc, ws, ex, msg = ws_call("AdaptiveMaxPool2dBackward", *ts)
    assert rc == 0, msg
    assert run_executor("AdaptiveMaxPool2dBackward", ex, ws) == 0
    return ts[3].numpy()


def scatter_ref(gy, ind, shape):
    h, w = shape[-2:]
    g = gy.astype(np.float64).reshape(-1, gy.shape[-2] * gy.shape[-1])
    i = ind.reshape(g.shape)
    gx = np.zeros((g.shape[0], h * w))
    for p in range(g.shape[0]):
        for k in range(g.shape[1]):
            gx[p, i[p, k]] += g[p, k]
    return gx.reshape(shape)


@pytest.mark.parametrize("idt", [np.int64, np.int32], ids=["i64", "i32"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(AAP_CASES))
def test_adaptive_max_pool2d_backward_numpy_and_torch(cid, dtype, idt, torch):
    shape, osz = AAP_CASES[cid]
    x = make_input(shape, dtype)
    gy = make_input(tuple(shape[:-2]) + tuple(osz), dtype, seed=9)
    _, ri = ref.adaptive_max_pool2d(x.astype(np.float64), *osz)
    gx = adaptive_max_pool2d_backward(gy, x, ri.astype(idt), np.full(shape, 7, dtype))
    assert_close(gx, rounded(scatter_ref(gy, ri, shape), dtype), dtype, what=cid)
    xt = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
    torch.nn.functional.adaptive_max_pool2d(xt, osz).backward(torch.from_numpy(gy.astype(np.float64)))
    assert_close(gx, rounded(xt.grad.numpy(), dtype), dtype, what=cid)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_adaptive_max_pool2d_backward_strided(kind, dtype):
    shape, osz = AAP_CASES["n1c1_4x6_to_7x9_upsample"]
    x = make_input(shape, dtype, seed=1)
    gy = make_input(tuple(shape[:-2]) + tuple(osz), dtype, seed=2)
    _, ri = ref.adaptive_max_pool2d(x.astype(np.float64), *osz)
    out = strided(np.full(shape, 7, dtype), kind)
    gx = adaptive_max_pool2d_backward(strided(gy, kind), strided(x, kind), strided(ri, kind), out)
    assert_close(gx, rounded(scatter_ref(gy, ri, shape), dtype), dtype)


def ampb_args(gy=None, self=None, ind=None, gx=None):
    return (T((2, 3, 3, 3)) if gy is None else gy, T((2, 3, 6, 6)) if self is None else self,
            T((2, 3, 3, 3), I64) if ind is None else ind, T((2, 3, 6, 6)) if gx is None else gx)


AMPB_INVALID = [
    ("null_grad", dict(gy=ffi.NULL), 161001, "gradOutput"),
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_indices", dict(ind=ffi.NULL), 161001, "indices"),
    ("null_grad_input", dict(gx=ffi.NULL), 161001, "gradInput"),
    ("grad_dtype_differs", dict(gy=T((2, 3, 3, 3), F16)), 161002, "gradOutput"),
    ("self_f64", dict(gy=T((2, 3, 3, 3), np.dtype(np.float64)), self=T((2, 3, 6, 6), np.dtype(np.float64)),
                      gx=T((2, 3, 6, 6), np.dtype(np.float64))), 161002, "self"),
    ("indices_f32", dict(ind=T((2, 3, 3, 3))), 161002, "indices"),
    ("rank_differs", dict(ind=T((3, 3, 3), I64)), 161002, "rank"),
    ("indices_shape_differs", dict(ind=T((2, 3, 3, 2), I64)), 161002, "indices"),
    ("grad_input_shape_differs", dict(gx=T((2, 3, 6, 5))), 161002, "gradInput"),
    ("format_differs", dict(ind=T((2, 3, 3, 3), I64, fmt="ND")), 161002, "format"),
]


@pytest.mark.parametrize("name,kw,code,word", AMPB_INVALID, ids=[r[0] for r in AMPB_INVALID])
def test_adaptive_max_pool2d_backward_invalid(name, kw, code, word):
    expect_invalid("AdaptiveMaxPool2dBackward", ampb_args(**kw), code, word)


def test_adaptive_max_pool2d_backward_deterministic():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib, ffi
rng = np.random.default_rng(1)
g = rng.uniform(-1, 1, (3, 8, 9, 9)).astype(np.float32)
ind = rng.integers(0, 4, (3, 8, 9, 9)).astype(np.int64)
x = np.zeros((3, 8, 5, 5), np.float32)
f = lib.ACL_FORMAT_NCHW
ts = [pyaclnn.AclTensor.from_array(a, f) for a in (g, x, ind, x.copy())]
ws = ffi.new("uint64_t *"); ex = ffi.new("aclOpExecutor **")
pyaclnn.ensure_device()
assert lib.aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(*[t.handle for t in ts], ws, ex) == 0
assert lib.aclnnAdaptiveMaxPool2dBackward(ffi.NULL, 0, ex[0], ffi.NULL) == 0
print(hashlib.sha256(ts[3].numpy().tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)
