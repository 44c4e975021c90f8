"""aclnnAvgPool2d: numpy reference, PyTorch oracle, invalid inputs (SPEC 5.4 order and codes), empty tensors,
determinism, executor reuse."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.tensor import acl_dtype
from helpers import DTYPES, DTYPE_IDS, assert_close, rounded, strided, same_bytes_for_threads, expect_invalid, ws_call, run_executor
from reference import avg_pool as ref
from _avg_pool_cases import CASES, expand, make_input, torch_args

IDS = list(CASES)


def _ref(x, case):
    shape, k, s, p, ceil, cip, div = case
    kk, ss, pp = expand(k, s, p)
    return ref.avg_pool2d(x.astype(np.float64), kk, ss, pp, ceil, cip, div)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", IDS)
def test_against_numpy(cid, dtype):
    case = CASES[cid]
    shape, k, s, p, ceil, cip, div = case
    x = make_input(shape, dtype)
    y = pyaclnn.avg_pool2d(x, k, s, p, ceil, cip, div)
    assert y.dtype == x.dtype
    assert_close(y, rounded(_ref(x, case), dtype), dtype, what=cid)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", IDS)
def test_against_torch(cid, dtype, torch):
    shape, k, s, p, ceil, cip, div = CASES[cid]
    x = make_input(shape, dtype)
    kk, ss, pp, dv = torch_args(k, s, p, div)
    xt = torch.from_numpy(x.astype(np.float32))
    exp = torch.nn.functional.avg_pool2d(xt, kk, ss, pp, ceil, cip, dv).numpy()
    y = pyaclnn.avg_pool2d(x, k, s, p, ceil, cip, div)
    assert_close(y, rounded(exp, dtype), dtype, what=cid)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", ["n2c3_h7w9_k3s2p1_ceil_nopad", "c3_h7w9_k3s2p1_ncl", "n1c3_h6w10_k3s1p1_div5"])
def test_non_contiguous(cid, dtype, kind):
    case = CASES[cid]
    shape, k, s, p, ceil, cip, div = case
    x = make_input(shape, dtype, seed=3)
    exp = rounded(_ref(x, case), dtype)
    out = strided(np.full(exp.shape, 7, dtype), kind)
    assert not out.flags.c_contiguous
    y = pyaclnn.avg_pool2d(strided(x, kind), k, s, p, ceil, cip, div, out=out)
    assert y is out
    assert_close(out, exp, dtype, what=cid)


def test_cube_math_types_compute_exactly():
    """cubeMathType is validated only: every accepted value gives the exact reference (SPEC Decision 3)."""
    x = make_input((1, 2, 8, 8), np.float16)
    exp = rounded(ref.avg_pool2d(x.astype(np.float64), (3, 3), (1, 1), (1, 1)), np.float16)
    for cube in range(5):
        assert_close(pyaclnn.avg_pool2d(x, 3, 1, 1, cube_math_type=cube), exp, np.float16)
    x32 = x.astype(np.float32)
    exp32 = ref.avg_pool2d(x32.astype(np.float64), (3, 3), (1, 1), (1, 1))
    for cube in (0, 2):
        assert_close(pyaclnn.avg_pool2d(x32, 3, 1, 1, cube_math_type=cube), exp32, np.float32)


# ---- invalid inputs (SPEC 5.4, in order) ----

F32, F16 = np.float32, np.float16


def T(shape, dtype=F32, fmt="NCHW", data=True):
    """A tensor argument: a device-backed AclTensor, or (data=False / negative dims) a raw aclTensor handle."""
    f = getattr(lib, "ACL_FORMAT_" + fmt)
    if data and all(d >= 0 for d in shape):
        return pyaclnn.AclTensor(shape, dtype, fmt=f)
    dims = ffi.new("int64_t[]", list(shape))
    h = lib.aclCreateTensor(dims, len(shape), acl_dtype(dtype), ffi.NULL, 0, f, dims, len(shape), ffi.NULL)
    return ffi.gc(h, lib.aclDestroyTensor)


def A(v):
    return pyaclnn.int_array(v)


def fwd_args(**kw):
    """Valid defaults: self (2,3,8,8) NCHW fp32, kernel 3, stride 2, padding 1 -> out (2,3,4,4); vector path."""
    a = dict(self=T((2, 3, 8, 8)), kernel=A([3]), strides=A([2]), paddings=A([1]), ceil=False, cip=True, div=0,
             cube=0, out=T((2, 3, 4, 4)))
    a.update(kw)
    return [a["self"], a["kernel"], a["strides"], a["paddings"], a["ceil"], a["cip"], a["div"], a["cube"], a["out"]]


INVALID = [
    # (id, overrides, code, word the message must contain)
    ("null_self", lambda: dict(self=None), 161001, "self"),
    ("null_kernel", lambda: dict(kernel=None), 161001, "kernelSize"),
    ("null_strides", lambda: dict(strides=None), 161001, "strides"),
    ("null_paddings", lambda: dict(paddings=None), 161001, "paddings"),
    ("null_out", lambda: dict(out=None), 161001, "out"),
    ("dtype_self", lambda: dict(self=T((2, 3, 8, 8), np.int32)), 161002, "self"),
    ("dtype_out", lambda: dict(out=T((2, 3, 4, 4), np.int32)), 161002, "out"),
    ("dtype_self_double", lambda: dict(self=T((2, 3, 8, 8), np.float64)), 161002, "self"),
    ("dtype_mismatch", lambda: dict(out=T((2, 3, 4, 4), F16)), 161002, "out"),
    ("format_self_nd", lambda: dict(self=T((2, 3, 8, 8), fmt="ND")), 161002, "self"),
    ("format_out_nhwc", lambda: dict(out=T((2, 3, 4, 4), fmt="NHWC")), 161002, "out"),
    ("format_rank4_ncl", lambda: dict(self=T((2, 3, 8, 8), fmt="NCL")), 161002, "self"),
    ("format_rank4_out_ncl", lambda: dict(out=T((2, 3, 4, 4), fmt="NCL")), 161002, "out"),
    ("format_rank3_nchw", lambda: dict(self=T((3, 8, 8)), out=T((3, 4, 4), fmt="NCL")), 161002, "self"),
    ("neg_dim_self", lambda: dict(self=T((2, -3, 8, 8))), 161002, "self"),
    ("neg_dim_out", lambda: dict(out=T((2, 3, -4, 4))), 161002, "out"),
    ("kernel_zero", lambda: dict(kernel=A([3, 0])), 161002, "kernelSize"),
    ("strides_zero", lambda: dict(strides=A([0])), 161002, "strides"),
    ("paddings_negative", lambda: dict(paddings=A([-1])), 161002, "paddings"),
    ("rank_mismatch", lambda: dict(out=T((3, 4, 4), fmt="NCHW")), 161002, "out"),
    ("rank5", lambda: dict(self=T((1, 2, 3, 8, 8)), out=T((1, 2, 3, 4, 4))), 161002, "self"),
    ("c_zero", lambda: dict(self=T((2, 0, 8, 8)), out=T((2, 0, 4, 4))), 161002, "self"),
    ("kernel_empty", lambda: dict(kernel=A([])), 161002, "kernelSize"),
    ("paddings_empty", lambda: dict(paddings=A([])), 161002, "paddings"),
    ("paddings_len3", lambda: dict(paddings=A([1, 1, 1])), 161002, "paddings"),
    ("strides_len3", lambda: dict(strides=A([2, 2, 2])), 161002, "strides"),
    ("padding_over_half", lambda: dict(kernel=A([3]), paddings=A([2])), 161002, "paddings"),
    ("padding_w_over_half", lambda: dict(kernel=A([4, 3]), paddings=A([2, 2])), 161002, "paddings"),
    ("output_too_small", lambda: dict(self=T((2, 3, 2, 8)), kernel=A([3]), strides=A([1]), paddings=A([0]),
                              out=T((2, 3, 0, 6))), 161002, "self"),
    ("out_shape", lambda: dict(out=T((2, 3, 4, 5))), 161002, "out"),
    ("out_channels", lambda: dict(out=T((2, 4, 4, 4))), 161002, "out"),
    ("cube_5", lambda: dict(cube=5), 161002, "cubeMathType"),
    ("cube_neg", lambda: dict(cube=-1), 161002, "cubeMathType"),
    # fp32 with cubeMathType 1/3/4 on the cube path (k3 s1 p1, 8x8, no ceil) and on the global path
    ("fp32_cube1_cube_path", lambda: dict(strides=A([1]), out=T((2, 3, 8, 8)), cube=1), 161002, "cubeMathType"),
    ("fp32_cube3_cube_path", lambda: dict(strides=A([1]), out=T((2, 3, 8, 8)), cube=3), 161002, "cubeMathType"),
    ("fp32_cube4_global", lambda: dict(self=T((2, 3, 5, 5)), kernel=A([5]), strides=A([]), paddings=A([0]),
                               out=T((2, 3, 1, 1)), cube=4), 161002, "cubeMathType"),
    # order: the earlier rule wins
    ("order_null_before_dtype", lambda: dict(self=T((2, 3, 8, 8), np.int32), out=None), 161001, "out"),
    ("order_dtype_before_format", lambda: dict(self=T((2, 3, 8, 8), np.int32, fmt="ND")), 161002, "dtype"),
    ("order_format_before_values", lambda: dict(self=T((2, 3, 8, 8), fmt="ND"), kernel=A([0])), 161002, "format"),
    ("order_values_before_shape", lambda: dict(kernel=A([0]), out=T((2, 3, 5, 5))), 161002, "kernelSize"),
    ("order_shape_before_cube", lambda: dict(out=T((2, 3, 5, 5)), cube=9), 161002, "out"),
]


@pytest.mark.parametrize("row", INVALID, ids=[r[0] for r in INVALID])
def test_invalid(row):
    _, over, code, word = row
    expect_invalid("AvgPool2d", fwd_args(**over()), code, word)


VALID = [
    ("defaults", lambda: {}),
    ("stride_empty", lambda: dict(strides=A([]), out=T((2, 3, 3, 3)))),
    ("fp32_cube1_vector_path_ceil", lambda: dict(ceil=True, out=T((2, 3, 5, 5)), cube=1)),
    ("fp32_cube4_vector_path_long_strip", lambda: dict(self=T((2, 3, 4, 16)), strides=A([1]), out=T((2, 3, 4, 16)), cube=4)),
    ("fp32_cube1_vector_path_big_divisor", lambda: dict(strides=A([1]), out=T((2, 3, 8, 8)), div=300, cube=1)),
    ("fp32_cube2_cube_path", lambda: dict(strides=A([1]), out=T((2, 3, 8, 8)), cube=2)),
    ("fp16_cube1_cube_path", lambda: dict(self=T((2, 3, 8, 8), F16), strides=A([1]), out=T((2, 3, 8, 8), F16), cube=1)),
    ("rank3_ncl", lambda: dict(self=T((3, 8, 8), fmt="NCL"), out=T((3, 4, 4), fmt="NCL"))),
    ("kernel_len3_uses_first_two", lambda: dict(kernel=A([3, 3, 7]))),
    # the path's cubeMathType rule comes after the empty-tensor early success (upstream op_api; its UT
    # test_avgpool2d_out_empty_tensor: fp32, k4 s2 p1, cubeMathType 1, N = 0)
    ("fp32_cube1_cube_path_empty_batch", lambda: dict(self=T((0, 1, 16, 16)), kernel=A([4, 4]), strides=A([2, 2]),
                                                      paddings=A([1, 1]), out=T((0, 1, 8, 8)), cube=1)),
]


@pytest.mark.parametrize("row", VALID, ids=[r[0] for r in VALID])
def test_valid_phase1(row):
    args = fwd_args(**row[1]())  # kept alive until the run: the executor holds the tensors' addresses
    rc, ws, ex, msg = ws_call("AvgPool2d", *args)
    assert rc == 0, msg
    assert run_executor("AvgPool2d", ex, ws) == 0


def test_empty_batch_is_a_noop():
    out = pyaclnn.AclTensor((0, 3, 4, 4), F32, fmt=lib.ACL_FORMAT_NCHW)
    args = fwd_args(self=T((0, 3, 8, 8)), out=out)
    rc, ws, ex, msg = ws_call("AvgPool2d", *args)
    assert rc == 0 and ws == 0, msg
    assert run_executor("AvgPool2d", ex, ws) == 0
    y = pyaclnn.avg_pool2d(np.zeros((0, 3, 8, 8), F32), 3, 2, 1)
    assert y.shape == (0, 3, 4, 4)


def test_executor_reuse_and_consumed():
    x = make_input((2, 3, 8, 8), np.float32, seed=5)
    xt = pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCHW)
    yt = pyaclnn.AclTensor((2, 3, 4, 4), F32, fmt=lib.ACL_FORMAT_NCHW)
    exp = ref.avg_pool2d(x.astype(np.float64), (3, 3), (2, 2), (1, 1))
    rc, ws, ex, msg = ws_call("AvgPool2d", *fwd_args(self=xt, out=yt))
    assert rc == 0, msg
    assert lib.aclSetAclOpExecutorRepeatable(ex) == 0
    for _ in range(2):
        assert run_executor("AvgPool2d", ex, ws) == 0
        assert_close(yt.numpy(), exp, F32)
    assert lib.aclDestroyAclOpExecutor(ex) == 0
    rc, ws, ex, msg = ws_call("AvgPool2d", *fwd_args(self=xt, out=yt))
    assert run_executor("AvgPool2d", ex, ws) == 0
    assert run_executor("AvgPool2d", ex, ws) == 161002


def test_deterministic_across_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(1)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    x = (rng.random((4, 16, 40, 36)) * 4 - 2).astype(np.float32).astype(dt)
    for args in ((3, 2, 1, False, True, 0), (3, 1, 1, True, False, 0), (2, None, 0, False, True, 3)):
        h.update(pyaclnn.avg_pool2d(x, *args).tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
