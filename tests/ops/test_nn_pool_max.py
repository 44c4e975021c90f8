"""Windowed max pools with argmax (ops-nn pooling/max_pool3d_with_argmax_v2, max_pool3d_grad_with_argmax):
aclnnMaxPool2dWithIndices, aclnnMaxPool2dWithMask, aclnnMaxPool3dWithArgmax and their backwards vs a float64 numpy
loop (tests/reference/max_pool.py) and PyTorch (max_pool2d/3d with return_indices, autograd) for every A2 dtype,
ceil mode and padding, strided views, empty batches, the op_api's invalid rows (order and codes), determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.tensor import acl_dtype
from helpers import DTYPES, DTYPE_IDS, assert_close, rounded, strided, same_bytes_for_threads, expect_invalid, \
    ws_call, run_executor
from reference import max_pool as ref

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
I32, I64, I8 = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.int8)
A = pyaclnn.int_array
FMT = {3: "NCL", 4: "NCHW", 5: "NCDHW"}


def T(shape, dtype=F32, fmt=None):
    f = getattr(lib, "ACL_FORMAT_" + (fmt or FMT.get(len(shape), "ND")))
    if all(d >= 0 for d in shape):
        return pyaclnn.AclTensor(shape, dtype, fmt=f)
    dims = ffi.new("int64_t[]", list(shape))
    h = lib.aclCreateTensor(dims, len(shape), acl_dtype(dtype), ffi.NULL, 0, f, dims, len(shape), ffi.NULL)
    return ffi.gc(h, lib.aclDestroyTensor)


def tensor(a, fmt=None):
    return pyaclnn.AclTensor.from_array(a, getattr(lib, "ACL_FORMAT_" + (fmt or FMT[a.ndim])))


def run(op, *args):
    rc, ws, ex, msg = ws_call(op, *args)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0


def make_input(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32).astype(dtype)


def full3(v):
    return tuple(v) if len(v) == 3 else (v[0],) * 3


# (input shape, kernel, stride, padding, ceil)
CASES2D = {
    "n2c3_9x7_k3x2_s2x1_p1_floor": ((2, 3, 9, 7), (3, 2), (2, 1), (1, 1), False),
    "n2c3_9x7_k3x3_s2_p1_ceil": ((2, 3, 9, 7), (3, 3), (2, 2), (1, 1), True),
    "c4_8x8_k2_default_stride": ((4, 8, 8), (2,), (), (0,), False),
    "n1c2_6x11_k4x3_s3x2_p2x1_ceil": ((1, 2, 6, 11), (4, 3), (3, 2), (2, 1), True),
}
CASES3D = {
    "n2c2_5x6x7_k3x2x3_s2x2x1_p1_floor": ((2, 2, 5, 6, 7), (3, 2, 3), (2, 2, 1), (1, 1, 1), False),
    "c3_5x5x5_k2_ceil": ((3, 5, 5, 5), (2,), (2,), (0,), True),
    "n1c2_4x7x6_k3_s2_p1_ceil": ((1, 2, 4, 7, 6), (3,), (2,), (1,), True),
}


def expand2(v, dflt):
    v = tuple(v) or tuple(dflt)
    return v if len(v) == 2 else (v[0], v[0])


def ref2d(x, k, s, p, ceil):
    k2, s2, p2 = expand2(k, k), expand2(s, expand2(k, k)), expand2(p, p)
    planes = x.reshape((-1, 1) + x.shape[-2:]).astype(np.float64)
    y, idx = ref.max_pool3d(planes, (1,) + k2, (1,) + s2, (0,) + p2, ceil=ceil)
    shp = x.shape[:-2] + y.shape[-2:]
    return y.reshape(shp), idx.reshape(shp), (k2, s2, p2)


def ref3d(x, k, s, p, ceil, d=(1,)):
    k3, s3, p3, d3 = full3(k), full3(s) if s else full3(k), full3(p), full3(d)
    planes = x.reshape((-1,) + x.shape[-3:]).astype(np.float64)
    y, idx = ref.max_pool3d(planes, k3, s3, p3, d3, ceil)
    shp = x.shape[:-3] + y.shape[-3:]
    return y.reshape(shp), idx.reshape(shp), (k3, s3, p3)


def torch_pool(torch, x, k, s, p, ceil, nd):
    f = torch.nn.functional.max_pool2d if nd == 2 else torch.nn.functional.max_pool3d
    xt = torch.from_numpy(x.astype(np.float32)).requires_grad_(True)
    y, i = f(xt, k, s, p, ceil_mode=ceil, return_indices=True)
    return xt, y, i


# ---------------------------------------------------------------- forwards

@pytest.mark.parametrize("idt", [I32, I64], ids=["i32", "i64"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(CASES2D))
def test_max_pool2d_with_indices(cid, dtype, idt, torch):
    shape, k, s, p, ceil = CASES2D[cid]
    x = make_input(shape, dtype)
    ey, ei, (k2, s2, p2) = ref2d(x, k, s, p, ceil)
    out, ind = tensor(np.full(ey.shape, 7, dtype)), tensor(np.full(ey.shape, -1, idt))
    run("MaxPool2dWithIndices", tensor(x), A(list(k)), A(list(s)), A(list(p)), A([1, 1]), ceil, out, ind)
    assert_close(out.numpy(), rounded(ey, dtype), dtype, rtol=0, atol=0, what=cid)
    np.testing.assert_array_equal(ind.numpy(), ei)
    _, ty, ti = torch_pool(torch, x, k2, s2, p2, ceil, 2)
    assert_close(out.numpy(), rounded(ty.detach().numpy(), dtype), dtype, rtol=0, atol=0, what=cid)
    np.testing.assert_array_equal(ind.numpy(), ti.numpy())


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(CASES3D))
def test_max_pool3d_with_argmax(cid, dtype, torch):
    shape, k, s, p, ceil = CASES3D[cid]
    x = make_input(shape, dtype, seed=1)
    ey, ei, (k3, s3, p3) = ref3d(x, k, s, p, ceil)
    out, ind = tensor(np.full(ey.shape, 7, dtype)), tensor(np.full(ey.shape, -1, I32))
    run("MaxPool3dWithArgmax", tensor(x), A(list(k)), A(list(s)), A(list(p)), A([1]), ceil, out, ind)
    assert_close(out.numpy(), rounded(ey, dtype), dtype, rtol=0, atol=0, what=cid)
    np.testing.assert_array_equal(ind.numpy(), ei)
    _, ty, ti = torch_pool(torch, x, k3, s3, p3, ceil, 3)
    assert_close(out.numpy(), rounded(ty.detach().numpy(), dtype), dtype, rtol=0, atol=0, what=cid)
    np.testing.assert_array_equal(ind.numpy(), ti.numpy())


def mask_shape(shape, k2, oh, ow):
    mw = ((oh * ow + 15) // 16 + 1) * 32
    return tuple(shape[:-2]) + (k2[0] * k2[1], mw)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", ["n2c3_9x7_k3x3_s2_p1_ceil", "c4_8x8_k2_default_stride"])
def test_max_pool2d_with_mask_stores_int32_argmax(cid, dtype, torch):
    shape, k, s, p, ceil = CASES2D[cid]
    x = make_input(shape, dtype, seed=3)
    ey, ei, (k2, s2, p2) = ref2d(x, k, s, p, ceil)
    mask = tensor(np.zeros(mask_shape(shape, k2, *ey.shape[-2:]), I8))
    out = tensor(np.full(ey.shape, 7, dtype))
    run("MaxPool2dWithMask", tensor(x), A(list(k)), A(list(s)), A(list(p)), A([1]), ceil, out, mask)
    assert_close(out.numpy(), rounded(ey, dtype), dtype, rtol=0, atol=0)
    raw = np.ascontiguousarray(mask.numpy()).view(np.int32).reshape(-1)[:ei.size]
    np.testing.assert_array_equal(raw, ei.reshape(-1))
    # and the mask backward reads it back: the gradient of max_pool2d
    gy = make_input(ey.shape, dtype, seed=4)
    gx = tensor(np.full(shape, 7, dtype))
    run("MaxPool2dWithMaskBackward", tensor(gy), tensor(x), mask, A(list(k)), A(list(s)), A(list(p)), A([1]), ceil,
        gx)
    xt, ty, _ = torch_pool(torch, x, k2, s2, p2, ceil, 2)
    ty.backward(torch.from_numpy(gy.astype(np.float32)))
    exp = ref.max_pool_backward(gy.reshape((-1,) + ey.shape[-2:]), ei.reshape((-1,) + ey.shape[-2:]),
                                shape[-2:]).reshape(shape)
    assert_close(gx.numpy(), rounded(exp, dtype), dtype)
    assert_close(gx.numpy(), rounded(xt.grad.numpy(), dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_max_pool2d_with_mask_kernel_1x1(dtype, torch):
    shape = (2, 3, 5, 4)
    x = make_input(shape, dtype, seed=5)
    out = tensor(np.full((2, 3, 3, 2), 7, dtype))
    mask = tensor(np.full(mask_shape(shape, (1, 1), 3, 2), 5, I8))
    run("MaxPool2dWithMask", tensor(x), A([1]), A([2]), A([0]), A([1]), False, out, mask)
    np.testing.assert_array_equal(out.numpy(), x[..., ::2, ::2])
    gy = make_input((2, 3, 3, 2), dtype, seed=6)
    gx = tensor(np.full(shape, 7, dtype))
    run("MaxPool2dWithMaskBackward", tensor(gy), tensor(x), mask, A([1, 1]), A([2, 2]), A([0]), A([1]), False, gx)
    xt, ty, _ = torch_pool(torch, x, 1, 2, 0, False, 2)
    ty.backward(torch.from_numpy(gy.astype(np.float32)))
    assert_close(gx.numpy(), rounded(xt.grad.numpy(), dtype), dtype, rtol=0, atol=0)


def test_max_pool_nan_and_padding_never_wins():
    x = np.full((1, 1, 4, 4), -np.inf, np.float32)
    x[0, 0, 1, 2] = np.nan
    x[0, 0, 3, 3] = -5
    out, ind = tensor(np.zeros((1, 1, 3, 3), F32)), tensor(np.zeros((1, 1, 3, 3), I64))
    run("MaxPool2dWithIndices", tensor(x), A([2]), A([2]), A([1]), A([1]), True, out, ind)
    ey, ei, _ = ref2d(x, (2,), (2,), (1,), True)
    np.testing.assert_array_equal(ind.numpy(), ei)
    assert_close(out.numpy(), ey, F32, rtol=0, atol=0)


# ---------------------------------------------------------------- backwards

@pytest.mark.parametrize("cid", list(CASES2D))
def test_max_pool2d_with_indices_backward(cid, torch):
    shape, k, s, p, ceil = CASES2D[cid]
    x = make_input(shape, F32, seed=7)
    ey, ei, (k2, s2, p2) = ref2d(x, k, s, p, ceil)
    gy = make_input(ey.shape, F32, seed=8)
    gx = tensor(np.full(shape, 7, F32))
    run("MaxPool2dWithIndicesBackward", tensor(gy), tensor(x), tensor(ei.astype(I32)), A(list(k)), A(list(s)),
        A(list(p)), A([1, 1]), ceil, gx)
    exp = ref.max_pool_backward(gy.reshape((-1,) + ey.shape[-2:]), ei.reshape((-1,) + ey.shape[-2:]),
                                shape[-2:]).reshape(shape)
    assert_close(gx.numpy(), exp, F32)
    xt, ty, _ = torch_pool(torch, x, k2, s2, p2, ceil, 2)
    ty.backward(torch.from_numpy(gy))
    assert_close(gx.numpy(), xt.grad.numpy(), F32)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(CASES3D))
def test_max_pool3d_with_argmax_backward(cid, dtype, torch):
    shape, k, s, p, ceil = CASES3D[cid]
    x = make_input(shape, dtype, seed=9)
    ey, ei, (k3, s3, p3) = ref3d(x, k, s, p, ceil)
    gy = make_input(ey.shape, dtype, seed=10)
    gx = tensor(np.full(shape, 7, dtype))
    run("MaxPool3dWithArgmaxBackward", tensor(gy), tensor(x), tensor(ei.astype(I32)), A(list(k)), A(list(s)),
        A(list(p)), A([1]), ceil, gx)
    exp = ref.max_pool_backward(gy.reshape((-1,) + ey.shape[-3:]), ei.reshape((-1,) + ey.shape[-3:]),
                                shape[-3:]).reshape(shape)
    assert_close(gx.numpy(), rounded(exp, dtype), dtype)
    xt, ty, _ = torch_pool(torch, x, k3, s3, p3, ceil, 3)
    ty.backward(torch.from_numpy(gy.astype(np.float32)))
    assert_close(gx.numpy(), rounded(xt.grad.numpy(), dtype), dtype)


# ---------------------------------------------------------------- views, empty

@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_max_pool3d_strided(kind, dtype):
    shape, k, s, p, ceil = CASES3D["n2c2_5x6x7_k3x2x3_s2x2x1_p1_floor"]
    x = make_input(shape, dtype, seed=11)
    ey, ei, _ = ref3d(x, k, s, p, ceil)
    out, ind = strided(np.full(ey.shape, 7, dtype), kind), strided(np.full(ey.shape, -1, I32), kind)
    ot, it = tensor(out), tensor(ind)
    run("MaxPool3dWithArgmax", tensor(strided(x, kind)), A(list(k)), A(list(s)), A(list(p)), A([1]), ceil, ot, it)
    assert_close(ot.numpy(), rounded(ey, dtype), dtype, rtol=0, atol=0)
    np.testing.assert_array_equal(it.numpy(), ei)
    gy = make_input(ey.shape, dtype, seed=12)
    gx = tensor(strided(np.full(shape, 7, dtype), kind))
    run("MaxPool3dWithArgmaxBackward", tensor(strided(gy, kind)), tensor(x), tensor(strided(ei.astype(I32), kind)),
        A(list(k)), A(list(s)), A(list(p)), A([1]), ceil, gx)
    exp = ref.max_pool_backward(gy.reshape((-1,) + ey.shape[-3:]), ei.reshape((-1,) + ey.shape[-3:]),
                                shape[-3:]).reshape(shape)
    assert_close(gx.numpy(), rounded(exp, dtype), dtype)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_max_pool2d_with_indices_strided(kind):
    shape, k, s, p, ceil = CASES2D["n2c3_9x7_k3x2_s2x1_p1_floor"]
    x = make_input(shape, F32, seed=13)
    ey, ei, _ = ref2d(x, k, s, p, ceil)
    ot, it = tensor(strided(np.full(ey.shape, 7, F32), kind)), tensor(strided(np.full(ey.shape, -1, I64), kind))
    run("MaxPool2dWithIndices", tensor(strided(x, kind)), A(list(k)), A(list(s)), A(list(p)), A([1]), ceil, ot, it)
    assert_close(ot.numpy(), ey, F32, rtol=0, atol=0)
    np.testing.assert_array_equal(it.numpy(), ei)
    gy = make_input(ey.shape, F32, seed=14)
    gx = tensor(strided(np.full(shape, 7, F32), kind))
    run("MaxPool2dWithIndicesBackward", tensor(strided(gy, kind)), tensor(x), tensor(strided(ei.astype(I32), kind)),
        A(list(k)), A(list(s)), A(list(p)), A([1]), ceil, gx)
    exp = ref.max_pool_backward(gy.reshape((-1,) + ey.shape[-2:]), ei.reshape((-1,) + ey.shape[-2:]),
                                shape[-2:]).reshape(shape)
    assert_close(gx.numpy(), exp, F32)


def test_empty_batches():
    run("MaxPool2dWithIndices", T((0, 3, 4, 4)), A([2]), A([2]), A([0]), A([1]), False, T((0, 3, 2, 2)),
        T((0, 3, 2, 2), I32))
    run("MaxPool3dWithArgmax", T((0, 2, 4, 4, 4)), A([2]), A([2]), A([0]), A([1]), False, T((0, 2, 2, 2, 2)),
        T((0, 2, 2, 2, 2), I32))
    run("MaxPool3dWithArgmaxBackward", T((0, 2, 2, 2, 2)), T((0, 2, 4, 4, 4)), T((0, 2, 2, 2, 2), I32), A([2]),
        A([2]), A([0]), A([1]), False, T((0, 2, 4, 4, 4)))


# ---------------------------------------------------------------- invalid rows

def mp2_args(self=None, k=None, s=None, p=None, d=None, out=None, ind=None):
    return (T((2, 3, 6, 6)) if self is None else self, A([2, 2]) if k is None else k, A([2, 2]) if s is None else s,
            A([0, 0]) if p is None else p, A([1, 1]) if d is None else d, False,
            T((2, 3, 3, 3)) if out is None else out, T((2, 3, 3, 3), I32) if ind is None else ind)


MP2_INVALID = [
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_kernel", dict(k=ffi.NULL), 161001, "kernelSize"),
    ("null_stride", dict(s=ffi.NULL), 161001, "stride"),
    ("null_dilation", dict(d=ffi.NULL), 161001, "dilation"),
    ("null_indices", dict(ind=ffi.NULL), 161001, "indices"),
    ("self_f64", dict(self=T((2, 3, 6, 6), np.dtype(np.float64))), 161002, "self"),
    ("out_dtype_differs", dict(out=T((2, 3, 3, 3), F16)), 161002, "out"),
    ("indices_int8", dict(ind=T((2, 3, 3, 3), I8)), 161002, "indices"),
    ("format_mismatch", dict(out=T((2, 3, 3, 3), fmt="ND")), 161002, "format"),
    ("self_rank_5", dict(self=T((1, 2, 3, 6, 6))), 161002, "self"),
    ("kernel_len_3", dict(k=A([2, 2, 2])), 161002, "kernelSize"),
    ("stride_len_3", dict(s=A([2, 2, 2])), 161002, "stride"),
    ("kernel_zero", dict(k=A([0, 2])), 161002, "kernelSize"),
    ("stride_zero", dict(s=A([2, 0])), 161002, "stride"),
    ("padding_over_half", dict(p=A([2, 0])), 161002, "padding"),
    ("padding_negative", dict(p=A([-1])), 161002, "padding"),
    ("dilation_2", dict(d=A([2, 2])), 161002, "dilation"),
    ("out_shape", dict(out=T((2, 3, 3, 2))), 161002, "out"),
    ("indices_shape", dict(ind=T((2, 3, 3, 2), I32)), 161002, "indices"),
    ("pooled_empty", dict(self=T((2, 3, 1, 6)), k=A([2])), 161002, "self"),
]


@pytest.mark.parametrize("name,kw,code,word", MP2_INVALID, ids=[r[0] for r in MP2_INVALID])
def test_max_pool2d_with_indices_invalid(name, kw, code, word):
    expect_invalid("MaxPool2dWithIndices", mp2_args(**kw), code, word)


MASK_INVALID = [
    ("null_kernel_first", dict(k=ffi.NULL, self=ffi.NULL), 161001, "kernelSize"),
    ("kernel_len_3_before_nulls", dict(k=A([2, 2, 2]), ind=ffi.NULL), 161002, "kernelSize"),
    ("indices_int32", dict(ind=T((2, 3, 4, 64), I32)), 161002, "indices"),
    ("mask_shape", dict(ind=T((2, 3, 4, 32), I8)), 161002, "indices"),
]


@pytest.mark.parametrize("name,kw,code,word", MASK_INVALID, ids=[r[0] for r in MASK_INVALID])
def test_max_pool2d_with_mask_invalid(name, kw, code, word):
    kw.setdefault("ind", T((2, 3, 4, 64), I8))
    expect_invalid("MaxPool2dWithMask", mp2_args(**kw), code, word)


def mp3_args(self=None, k=None, s=None, p=None, d=None, out=None, ind=None):
    return (T((2, 3, 4, 4, 4)) if self is None else self, A([2]) if k is None else k, A([2]) if s is None else s,
            A([0]) if p is None else p, A([1]) if d is None else d, False,
            T((2, 3, 2, 2, 2)) if out is None else out, T((2, 3, 2, 2, 2), I32) if ind is None else ind)


MP3_INVALID = [
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_padding", dict(p=ffi.NULL), 161001, "padding"),
    ("null_out", dict(out=ffi.NULL), 161001, "out"),
    ("self_f64", dict(self=T((2, 3, 4, 4, 4), np.dtype(np.float64))), 161002, "self"),
    ("indices_int64", dict(ind=T((2, 3, 2, 2, 2), I64)), 161002, "indices"),
    ("out_dtype_differs", dict(out=T((2, 3, 2, 2, 2), F16)), 161002, "out"),
    ("indices_format", dict(ind=T((2, 3, 2, 2, 2), I32, fmt="ND")), 161002, "indices"),
    ("self_rank_3", dict(self=T((3, 4, 4)), out=T((3, 2, 2)), ind=T((3, 2, 2), I32)), 161002, "self"),
    ("kernel_len_2", dict(k=A([2, 2])), 161002, "kernelSize"),
    ("stride_len_2", dict(s=A([2, 2])), 161002, "stride"),
    ("padding_negative", dict(p=A([-1])), 161002, "padding"),
    ("padding_over_half", dict(p=A([0, 2, 0])), 161002, "padding"),
    ("dilation_2", dict(d=A([2])), 161002, "dilation"),
    ("out_shape", dict(out=T((2, 3, 2, 2, 3))), 161002, "out"),
    ("indices_shape", dict(ind=T((2, 3, 2, 2, 3), I32)), 161002, "indices"),
]


@pytest.mark.parametrize("name,kw,code,word", MP3_INVALID, ids=[r[0] for r in MP3_INVALID])
def test_max_pool3d_with_argmax_invalid(name, kw, code, word):
    expect_invalid("MaxPool3dWithArgmax", mp3_args(**kw), code, word)


def mp3b_args(gy=None, self=None, ind=None, k=None, d=None, gx=None):
    return (T((2, 3, 2, 2, 2)) if gy is None else gy, T((2, 3, 4, 4, 4)) if self is None else self,
            T((2, 3, 2, 2, 2), I32) if ind is None else ind, A([2]) if k is None else k, A([2]), A([0]),
            A([1]) if d is None else d, False, T((2, 3, 4, 4, 4)) if gx is None else gx)


MP3B_INVALID = [
    ("null_grad", dict(gy=ffi.NULL), 161001, "gradOutput"),
    ("null_indices", dict(ind=ffi.NULL), 161001, "indices"),
    ("null_grad_input", dict(gx=ffi.NULL), 161001, "gradInput"),
    ("self_f64", dict(self=T((2, 3, 4, 4, 4), np.dtype(np.float64))), 161002, "self"),
    ("indices_int64", dict(ind=T((2, 3, 2, 2, 2), I64)), 161002, "indices"),
    ("grad_dtype_differs", dict(gy=T((2, 3, 2, 2, 2), F16)), 161002, "gradOutput"),
    ("grad_input_dtype_differs", dict(gx=T((2, 3, 4, 4, 4), F16)), 161002, "gradInput"),
    ("format_mismatch", dict(gy=T((2, 3, 2, 2, 2), fmt="ND")), 161002, "format"),
    ("grad_rank_3", dict(gy=T((3, 2, 2))), 161002, "gradOutput"),
    ("kernel_zero", dict(k=A([0])), 161002, "kernelSize"),
    ("dilation_zero", dict(d=A([0])), 161002, "dilation"),
    ("indices_shape", dict(ind=T((2, 3, 2, 2, 1), I32)), 161002, "indices"),
    ("grad_input_shape", dict(gx=T((2, 3, 4, 4, 3))), 161002, "gradInput"),
    ("grad_channels", dict(gy=T((2, 2, 2, 2, 2)), ind=T((2, 2, 2, 2, 2), I32)), 161002, "gradOutput"),
]


@pytest.mark.parametrize("name,kw,code,word", MP3B_INVALID, ids=[r[0] for r in MP3B_INVALID])
def test_max_pool3d_with_argmax_backward_invalid(name, kw, code, word):
    expect_invalid("MaxPool3dWithArgmaxBackward", mp3b_args(**kw), code, word)


def mp2b_args(gy=None, self=None, ind=None, k=None, gx=None, d=None):
    return (T((2, 3, 3, 3)) if gy is None else gy, T((2, 3, 6, 6)) if self is None else self,
            T((2, 3, 3, 3), I32) if ind is None else ind, A([2]) if k is None else k, A([2]), A([0]),
            A([1]) if d is None else d, False, T((2, 3, 6, 6)) if gx is None else gx)


MP2B_INVALID = [
    ("null_grad", dict(gy=ffi.NULL), 161001, "gradOutput"),
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("self_f16_not_on_a2", dict(self=T((2, 3, 6, 6), F16)), 161002, "self"),
    ("grad_dtype_differs", dict(gy=T((2, 3, 3, 3), F16)), 161002, "gradOutput"),
    ("indices_int64", dict(ind=T((2, 3, 3, 3), I64)), 161002, "indices"),
    ("format_mismatch", dict(gx=T((2, 3, 6, 6), fmt="ND")), 161002, "format"),
    ("kernel_len_3", dict(k=A([2, 2, 2])), 161002, "kernelSize"),
    ("dilation_2", dict(d=A([2])), 161002, "dilation"),
    ("grad_input_shape", dict(gx=T((2, 3, 6, 5))), 161002, "gradInput"),
    ("grad_shape", dict(gy=T((2, 3, 3, 2))), 161002, "gradOutput"),
    ("indices_shape", dict(ind=T((2, 3, 3, 2), I32)), 161002, "indices"),
]


@pytest.mark.parametrize("name,kw,code,word", MP2B_INVALID, ids=[r[0] for r in MP2B_INVALID])
def test_max_pool2d_with_indices_backward_invalid(name, kw, code, word):
    expect_invalid("MaxPool2dWithIndicesBackward", mp2b_args(**kw), code, word)


MASKB_INVALID = [
    ("null_kernel_first", dict(k=ffi.NULL, gy=ffi.NULL), 161001, "kernelSize"),
    ("kernel_len_3_is_nullptr_code", dict(k=A([2, 2, 2])), 161001, "kernelSize"),
    ("indices_int32", dict(ind=T((2, 3, 4, 64), I32)), 161002, "indices"),
    ("mask_too_small", dict(ind=T((2, 3, 1, 8), I8)), 161002, "indices"),
]


@pytest.mark.parametrize("name,kw,code,word", MASKB_INVALID, ids=[r[0] for r in MASKB_INVALID])
def test_max_pool2d_with_mask_backward_invalid(name, kw, code, word):
    kw.setdefault("ind", T((2, 3, 4, 64), I8))
    expect_invalid("MaxPool2dWithMaskBackward", mp2b_args(**kw), code, word)


# ---------------------------------------------------------------- determinism

def test_max_pool3d_backward_deterministic():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
rng = np.random.default_rng(1)
x = rng.integers(-3, 3, (3, 5, 9, 10, 11)).astype(np.float32)
gy = rng.uniform(-1, 1, (3, 5, 5, 6, 6)).astype(np.float32)
f = lib.ACL_FORMAT_NCDHW
A = pyaclnn.int_array
xt = pyaclnn.AclTensor.from_array(x, f)
yt = pyaclnn.AclTensor.from_array(np.zeros(gy.shape, np.float32), f)
it = pyaclnn.AclTensor.from_array(np.zeros(gy.shape, np.int32), f)
gt = pyaclnn.AclTensor.from_array(gy, f)
gx = pyaclnn.AclTensor.from_array(np.zeros(x.shape, np.float32), f)
ws = pyaclnn.ffi.new("uint64_t *"); ex = pyaclnn.ffi.new("aclOpExecutor **")
pyaclnn.ensure_device()
args = (A([3]), A([2]), A([1]), A([1]), True)
assert lib.aclnnMaxPool3dWithArgmaxGetWorkspaceSize(xt.handle, *args, yt.handle, it.handle, ws, ex) == 0
assert lib.aclnnMaxPool3dWithArgmax(pyaclnn.ffi.NULL, 0, ex[0], pyaclnn.ffi.NULL) == 0
assert lib.aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gt.handle, xt.handle, it.handle, *args, gx.handle,
                                                             ws, ex) == 0
assert lib.aclnnMaxPool3dWithArgmaxBackward(pyaclnn.ffi.NULL, 0, ex[0], pyaclnn.ffi.NULL) == 0
print(hashlib.sha256(yt.numpy().tobytes() + it.numpy().tobytes() + gx.numpy().tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- aclnnMaxPool (no indices, ONNX-style pads)

# shape, kernel, strides, pads, ceil
MP_CASES = {
    "n2c3_9x7_k3_s2_p1_floor": ((2, 3, 9, 7), (3,), (2,), (1,), 0),
    "n2c3_9x7_k3x2_s2x1_pads4_ceil": ((2, 3, 9, 7), (3, 2), (2, 1), (1, 0, 2, 1), 1),
    "c4_8x8_k2_default_stride_no_pads": ((4, 8, 8), (2,), (), (), 0),
    "n1c2_6x6_k2_s2_pads_end_2_wide": ((1, 2, 6, 6), (2,), (2,), (0, 0, 2, 2), 0),
}


def pads4(p):
    if len(p) == 0:
        return (0, 0, 0, 0)
    if len(p) == 1:
        return (p[0],) * 4
    if len(p) == 2:
        return (p[0], p[1], p[0], p[1])
    return tuple(p)


@pytest.mark.parametrize("dtype", [F32, F16], ids=["f32", "f16"])
@pytest.mark.parametrize("cid", list(MP_CASES))
def test_max_pool(cid, dtype, torch):
    shape, k, s, pads, ceil = MP_CASES[cid]
    x = make_input(shape, dtype, seed=21)
    k2 = (k[0], k[-1])
    s2 = (s[0], s[-1]) if s else (1, 1)
    p4 = pads4(pads)
    ey = ref.max_pool2d_pads(x.reshape((-1,) + x.shape[-2:]), k2, s2, p4, bool(ceil))
    ey = ey.reshape(x.shape[:-2] + ey.shape[-2:])
    out = tensor(np.full(ey.shape, 7, dtype))
    run("MaxPool", tensor(x), A(list(k)), A(list(s)), 0, A(list(pads)), A([1, 1]), ceil, out)
    assert_close(out.numpy(), rounded(ey, dtype), dtype, rtol=0, atol=0, what=cid)
    if p4[0] == p4[2] and p4[1] == p4[3] and p4[0] <= k2[0] // 2 and p4[1] <= k2[1] // 2:
        ty = torch.nn.functional.max_pool2d(torch.from_numpy(x.astype(np.float32)), k2, s2, p4[:2],
                                            ceil_mode=bool(ceil))
        assert_close(out.numpy(), rounded(ty.numpy(), dtype), dtype, rtol=0, atol=0, what=cid)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_max_pool_strided(kind):
    shape, k, s, pads, ceil = MP_CASES["n2c3_9x7_k3x2_s2x1_pads4_ceil"]
    x = make_input(shape, F32, seed=22)
    ey = ref.max_pool2d_pads(x.reshape((-1,) + x.shape[-2:]), (3, 2), (2, 1), pads, True)
    ey = ey.reshape(x.shape[:-2] + ey.shape[-2:])
    out = tensor(strided(np.full(ey.shape, 7, F32), kind))
    run("MaxPool", tensor(strided(x, kind)), A(list(k)), A(list(s)), 0, A(list(pads)), A([1]), ceil, out)
    assert_close(out.numpy(), ey, F32, rtol=0, atol=0)


def mpv3_args(self=None, k=None, s=None, auto=0, p=None, d=None, ceil=0, out=None):
    return (T((2, 3, 6, 6)) if self is None else self, A([2, 2]) if k is None else k, A([2, 2]) if s is None else s,
            auto, A([0, 0]) if p is None else p, A([1, 1]) if d is None else d, ceil,
            T((2, 3, 3, 3)) if out is None else out)


MPV3_INVALID = [
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_kernel", dict(k=ffi.NULL), 161001, "kernelShape"),
    ("null_pads", dict(p=ffi.NULL), 161001, "pads"),
    ("null_out", dict(out=ffi.NULL), 161001, "out"),
    ("self_bf16_not_on_a2", dict(self=T((2, 3, 6, 6), pyaclnn.bfloat16)), 161002, "self"),
    ("out_dtype_differs", dict(out=T((2, 3, 3, 3), F16)), 161002, "out"),
    ("format_mismatch", dict(out=T((2, 3, 3, 3), fmt="ND")), 161002, "format"),
    ("self_rank_5", dict(self=T((1, 2, 3, 6, 6))), 161002, "self"),
    ("kernel_len_3", dict(k=A([2, 2, 2])), 161002, "kernelShape"),
    ("strides_len_3", dict(s=A([2, 2, 2])), 161002, "strides"),
    ("pads_len_3", dict(p=A([0, 0, 0])), 161002, "pads"),
    ("dilations_len_3", dict(d=A([1, 1, 1])), 161002, "dilations"),
    ("auto_pad_same", dict(auto=1), 161002, "autoPad"),
    ("dilation_2", dict(d=A([2])), 161002, "dilations"),
    ("kernel_zero", dict(k=A([0])), 161002, "kernelShape"),
    ("stride_zero", dict(s=A([0])), 161002, "strides"),
    ("pads_over_kernel", dict(p=A([1, 0, 2, 0])), 161002, "pads"),
    ("out_shape", dict(out=T((2, 3, 3, 2))), 161002, "out"),
]


@pytest.mark.parametrize("name,kw,code,word", MPV3_INVALID, ids=[r[0] for r in MPV3_INVALID])
def test_max_pool_invalid(name, kw, code, word):
    expect_invalid("MaxPool", mpv3_args(**kw), code, word)
