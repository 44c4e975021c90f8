"""aclnnAvgPool3d / aclnnAvgPool3dBackward (ops-nn pooling/avg_pool3_d, avg_pool3_d_grad) vs a float64 numpy loop
(tests/reference/avg_pool3d.py) and PyTorch (avg_pool3d and autograd) for every A2 dtype, ceil mode, padding,
countIncludePad, divisorOverride; strided views, empty batches, invalid rows (order and codes), determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.tensor import acl_dtype
from helpers import DTYPES, DTYPE_IDS, assert_close, rounded, strided, same_bytes_for_threads, expect_invalid, \
    ws_call, run_executor
from reference import avg_pool3d as ref

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
A = pyaclnn.int_array
FMT = {4: "ND", 5: "NCDHW"}


def T(shape, dtype=F32, fmt=None):
    f = getattr(lib, "ACL_FORMAT_" + (fmt or FMT.get(len(shape), "ND")))
    return pyaclnn.AclTensor(shape, dtype, fmt=f)


def tensor(a):
    return pyaclnn.AclTensor.from_array(a, getattr(lib, "ACL_FORMAT_" + FMT[a.ndim]))


def run(op, *args):
    rc, ws, ex, msg = ws_call(op, *args)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0


def make_input(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32).astype(dtype)


def full3(v, dflt=None):
    v = tuple(v) or tuple(dflt)
    return v if len(v) == 3 else (v[0],) * 3


# shape, kernel, stride, padding, ceil, countIncludePad, divisorOverride
CASES = {
    "n2c3_6x7x8_k3_s2_p1_cip": ((2, 3, 6, 7, 8), (3,), (2,), (1,), False, True, 0),
    "n2c3_6x7x8_k3_s2_p1_nocip_ceil": ((2, 3, 6, 7, 8), (3,), (2,), (1,), True, False, 0),
    "c4_5x6x7_k2x3x2_s1x2x2_p1x1x0_ceil_cip": ((4, 5, 6, 7), (2, 3, 2), (1, 2, 2), (1, 1, 0), True, True, 0),
    "n1c2_4x5x6_k2_default_stride_div3": ((1, 2, 4, 5, 6), (2,), (), (0,), False, True, 3),
    "n1c2_7x5x5_k3x2x3_s2x1x2_p1x1x1_div_neg": ((1, 2, 7, 5, 5), (3, 2, 3), (2, 1, 2), (1, 1, 1), True, False, -2),
}


def refs(x, k, s, p, ceil, cip, div):
    k3 = full3(k)
    s3, p3 = full3(s, k3), full3(p)
    planes = x.reshape((-1,) + x.shape[-3:]).astype(np.float64)
    y = ref.avg_pool3d(planes, k3, s3, p3, ceil, cip, div)
    return y.reshape(x.shape[:-3] + y.shape[-3:]), (k3, s3, p3)


def torch_avg(torch, x, k3, s3, p3, ceil, cip, div):
    xt = torch.from_numpy(x.astype(np.float32)).requires_grad_(True)
    y = torch.nn.functional.avg_pool3d(xt, k3, s3, p3, ceil_mode=ceil, count_include_pad=cip,
                                       divisor_override=div or None)
    return xt, y


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(CASES))
def test_avg_pool3d(cid, dtype, torch):
    shape, k, s, p, ceil, cip, div = CASES[cid]
    x = make_input(shape, dtype)
    ey, (k3, s3, p3) = refs(x, k, s, p, ceil, cip, div)
    out = tensor(np.full(ey.shape, 7, dtype))
    run("AvgPool3d", tensor(x), A(list(k)), A(list(s)), A(list(p)), ceil, cip, div, out)
    assert_close(out.numpy(), rounded(ey, dtype), dtype, what=cid)
    if div >= 0:  # torch refuses a negative divisor_override
        _, ty = torch_avg(torch, x, k3, s3, p3, ceil, cip, div)
        assert_close(out.numpy(), rounded(ty.detach().numpy(), dtype), dtype, what=cid)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(CASES))
def test_avg_pool3d_backward(cid, dtype, torch):
    shape, k, s, p, ceil, cip, div = CASES[cid]
    x = make_input(shape, dtype)
    ey, (k3, s3, p3) = refs(x, k, s, p, ceil, cip, div)
    gy = make_input(ey.shape, dtype, seed=3)
    gx = tensor(np.full(shape, 7, dtype))
    run("AvgPool3dBackward", tensor(gy), tensor(x), A(list(k)), A(list(s)), A(list(p)), ceil, cip, div, gx)
    exp = ref.avg_pool3d_backward(gy.reshape((-1,) + ey.shape[-3:]), shape[-3:], k3, s3, p3, cip, div)
    assert_close(gx.numpy(), rounded(exp.reshape(shape), dtype), dtype, what=cid)
    if div >= 0:
        xt, ty = torch_avg(torch, x, k3, s3, p3, ceil, cip, div)
        ty.backward(torch.from_numpy(gy.astype(np.float32)))
        assert_close(gx.numpy(), rounded(xt.grad.numpy(), dtype), dtype, what=cid)


def test_avg_pool3d_backward_mixed_dtypes():
    """the op_api checks each dtype against the list but not that they agree"""
    shape, k, s, p, ceil, cip, div = CASES["n2c3_6x7x8_k3_s2_p1_cip"]
    x = make_input(shape, F32)
    ey, (k3, s3, p3) = refs(x, k, s, p, ceil, cip, div)
    gy = make_input(ey.shape, F16, seed=4)
    gx = tensor(np.zeros(shape, F32))
    run("AvgPool3dBackward", tensor(gy), tensor(x), A(list(k)), A(list(s)), A(list(p)), ceil, cip, div, gx)
    exp = ref.avg_pool3d_backward(gy.astype(np.float64).reshape((-1,) + ey.shape[-3:]), shape[-3:], k3, s3, p3,
                                  cip, div)
    assert_close(gx.numpy(), exp.reshape(shape), F32)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_avg_pool3d_strided(kind, dtype):
    shape, k, s, p, ceil, cip, div = CASES["n2c3_6x7x8_k3_s2_p1_nocip_ceil"]
    x = make_input(shape, dtype, seed=5)
    ey, (k3, s3, p3) = refs(x, k, s, p, ceil, cip, div)
    out = tensor(strided(np.full(ey.shape, 7, dtype), kind))
    run("AvgPool3d", tensor(strided(x, kind)), A(list(k)), A(list(s)), A(list(p)), ceil, cip, div, out)
    assert_close(out.numpy(), rounded(ey, dtype), dtype)
    gy = make_input(ey.shape, dtype, seed=6)
    gx = tensor(strided(np.full(shape, 7, dtype), kind))
    run("AvgPool3dBackward", tensor(strided(gy, kind)), tensor(x), A(list(k)), A(list(s)), A(list(p)), ceil, cip,
        div, gx)
    exp = ref.avg_pool3d_backward(gy.reshape((-1,) + ey.shape[-3:]), shape[-3:], k3, s3, p3, cip, div)
    assert_close(gx.numpy(), rounded(exp.reshape(shape), dtype), dtype)


def test_avg_pool3d_empty_batch():
    run("AvgPool3d", T((0, 2, 4, 4, 4)), A([2]), A([2]), A([0]), False, True, 0, T((0, 2, 2, 2, 2)))
    run("AvgPool3dBackward", T((0, 2, 2, 2, 2)), T((0, 2, 4, 4, 4)), A([2]), A([2]), A([0]), False, True, 0,
        T((0, 2, 4, 4, 4)))


def fwd_args(self=None, k=None, s=None, p=None, out=None):
    return (T((2, 3, 4, 4, 4)) if self is None else self, A([2]) if k is None else k, A([2]) if s is None else s,
            A([0]) if p is None else p, False, True, 0, T((2, 3, 2, 2, 2)) if out is None else out)


FWD_INVALID = [
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_kernel", dict(k=ffi.NULL), 161001, "kernelSize"),
    ("null_stride", dict(s=ffi.NULL), 161001, "stride"),
    ("null_out", dict(out=ffi.NULL), 161001, "out"),
    ("self_f64", dict(self=T((2, 3, 4, 4, 4), np.dtype(np.float64))), 161002, "self"),
    ("self_int32", dict(self=T((2, 3, 4, 4, 4), np.dtype(np.int32))), 161002, "self"),
    ("out_dtype_differs", dict(out=T((2, 3, 2, 2, 2), F16)), 161002, "out"),
    ("format_mismatch", dict(out=T((2, 3, 2, 2, 2), fmt="ND")), 161002, "format"),
    ("self_rank_3", dict(self=T((3, 4, 4)), out=T((3, 2, 2))), 161002, "dims"),
    ("out_rank_differs", dict(out=T((3, 2, 2, 2), fmt="NCDHW")), 161002, "dims"),
    ("kernel_len_2", dict(k=A([2, 2])), 161002, "kernelSize"),
    ("padding_len_2", dict(p=A([0, 0])), 161002, "padding"),
    ("stride_len_2", dict(s=A([2, 2])), 161002, "stride"),
    ("kernel_zero", dict(k=A([0])), 161002, "kernelSize"),
    ("kernel_over_input", dict(k=A([2, 5, 2])), 161002, "kernelSize"),
    ("stride_zero", dict(s=A([2, 0, 2])), 161002, "stride"),
    ("padding_over_half", dict(p=A([0, 0, 2])), 161002, "padding"),
    ("padding_negative", dict(p=A([-1])), 161002, "padding"),
    ("out_shape", dict(out=T((2, 3, 2, 2, 3))), 161002, "out"),
]


@pytest.mark.parametrize("name,kw,code,word", FWD_INVALID, ids=[r[0] for r in FWD_INVALID])
def test_avg_pool3d_invalid(name, kw, code, word):
    expect_invalid("AvgPool3d", fwd_args(**kw), code, word)


def bwd_args(gy=None, self=None, k=None, s=None, p=None, out=None):
    return (T((2, 3, 2, 2, 2)) if gy is None else gy, T((2, 3, 4, 4, 4)) if self is None else self,
            A([2]) if k is None else k, A([2]) if s is None else s, A([0]) if p is None else p, False, True, 0,
            T((2, 3, 4, 4, 4)) if out is None else out)


BWD_INVALID = [
    ("null_grad", dict(gy=ffi.NULL), 161001, "gradOutput"),
    ("null_self", dict(self=ffi.NULL), 161001, "self"),
    ("null_padding", dict(p=ffi.NULL), 161001, "padding"),
    ("null_output", dict(out=ffi.NULL), 161001, "output"),
    ("grad_f64", dict(gy=T((2, 3, 2, 2, 2), np.dtype(np.float64))), 161002, "gradOutput"),
    ("self_int32", dict(self=T((2, 3, 4, 4, 4), np.dtype(np.int32))), 161002, "self"),
    ("output_f64", dict(out=T((2, 3, 4, 4, 4), np.dtype(np.float64))), 161002, "output"),
    ("grad_rank_3", dict(gy=T((3, 2, 2))), 161002, "gradOutput"),
    ("self_rank_differs", dict(self=T((3, 4, 4, 4))), 161002, "self"),
    ("output_dims_differ", dict(out=T((2, 3, 4, 4, 3))), 161002, "output"),
    ("kernel_len_2", dict(k=A([2, 2])), 161002, "kernelSize"),
    ("stride_len_2", dict(s=A([2, 2])), 161002, "stride"),
    ("format_mismatch", dict(out=T((2, 3, 4, 4, 4), fmt="ND")), 161002, "format"),
    ("kernel_zero", dict(k=A([0])), 161002, "kernelSize"),
    ("stride_negative", dict(s=A([-1])), 161002, "stride"),
    ("padding_over_half", dict(p=A([2])), 161002, "padding"),
    ("grad_shape", dict(gy=T((2, 3, 2, 2, 3))), 161002, "gradOutput"),
]


@pytest.mark.parametrize("name,kw,code,word", BWD_INVALID, ids=[r[0] for r in BWD_INVALID])
def test_avg_pool3d_backward_invalid(name, kw, code, word):
    expect_invalid("AvgPool3dBackward", bwd_args(**kw), code, word)


def test_avg_pool3d_backward_empty_grad_skips_value_checks():
    """the op_api returns early on an empty gradOutput before it looks at the attribute values"""
    rc, _, _, msg = ws_call("AvgPool3dBackward", *bwd_args(gy=T((0, 3, 2, 2, 2)), self=T((0, 3, 4, 4, 4)),
                                                           k=A([0]), out=T((0, 3, 4, 4, 4))))
    assert rc == 0, msg


def test_avg_pool3d_deterministic():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
rng = np.random.default_rng(1)
x = rng.uniform(-1, 1, (3, 5, 9, 10, 11)).astype(np.float32)
f = lib.ACL_FORMAT_NCDHW
A = pyaclnn.int_array
xt = pyaclnn.AclTensor.from_array(x, f)
yt = pyaclnn.AclTensor.from_array(np.zeros((3, 5, 5, 6, 6), np.float32), f)
gt = pyaclnn.AclTensor.from_array(rng.uniform(-1, 1, (3, 5, 5, 6, 6)).astype(np.float32), f)
gx = pyaclnn.AclTensor.from_array(np.zeros(x.shape, np.float32), f)
ws = pyaclnn.ffi.new("uint64_t *"); ex = pyaclnn.ffi.new("aclOpExecutor **")
pyaclnn.ensure_device()
args = (A([3]), A([2]), A([1]), True, False, 0)
assert lib.aclnnAvgPool3dGetWorkspaceSize(xt.handle, *args, yt.handle, ws, ex) == 0
assert lib.aclnnAvgPool3d(pyaclnn.ffi.NULL, 0, ex[0], pyaclnn.ffi.NULL) == 0
assert lib.aclnnAvgPool3dBackwardGetWorkspaceSize(gt.handle, xt.handle, *args, gx.handle, ws, ex) == 0
assert lib.aclnnAvgPool3dBackward(pyaclnn.ffi.NULL, 0, ex[0], pyaclnn.ffi.NULL) == 0
print(hashlib.sha256(yt.numpy().tobytes() + gx.numpy().tobytes()).hexdigest())
"""
    same_bytes_for_threads(code)
