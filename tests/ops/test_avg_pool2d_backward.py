"""aclnnAvgPool2dBackward: numpy reference (scatter form), PyTorch oracle, the A2 global path, gradOutput of any
H/W, invalid inputs (SPEC 5.2 order and codes), empty tensors, determinism, executor reuse."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.tensor import acl_dtype
from helpers import DTYPES, DTYPE_IDS, assert_close, rounded, strided, same_bytes_for_threads, expect_invalid, ws_call, run_executor
from reference import avg_pool as ref
from _avg_pool_cases import CASES, expand, make_input, torch_args

IDS = list(CASES)


def _grad_shape(shape, k, s, p, ceil):
    kk, ss, pp = expand(k, s, p)
    oh = ref.out_size(shape[-2], kk[0], ss[0], pp[0], ceil)
    ow = ref.out_size(shape[-1], kk[1], ss[1], pp[1], ceil)
    return shape[:-2] + (oh, ow)


def _ref(g, shape, k, s, p, ceil, cip, div):
    kk, ss, pp = expand(k, s, p)
    if ref.is_backward_global(shape, g.shape, kk, div):
        return ref.avg_pool2d_backward_global(g.astype(np.float64), shape, kk)
    return ref.avg_pool2d_backward(g.astype(np.float64), shape, kk, ss, pp, ceil, cip, div)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", IDS)
def test_against_numpy(cid, dtype):
    shape, k, s, p, ceil, cip, div = CASES[cid]
    g = make_input(_grad_shape(shape, k, s, p, ceil), dtype, seed=1)
    x = np.zeros(shape, dtype)
    gi = pyaclnn.avg_pool2d_backward(g, x, k, s, p, ceil, cip, div)
    assert gi.shape == shape and gi.dtype == g.dtype
    assert_close(gi, rounded(_ref(g, shape, k, s, p, ceil, cip, div), dtype), dtype, what=cid)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", IDS)
def test_against_torch(cid, dtype, torch):
    shape, k, s, p, ceil, cip, div = CASES[cid]
    g = make_input(_grad_shape(shape, k, s, p, ceil), dtype, seed=2)
    x = make_input(shape, dtype, seed=4)
    kk, ss, pp, dv = torch_args(k, s, p, div)
    exp = torch.ops.aten.avg_pool2d_backward(torch.from_numpy(g.astype(np.float32)),
                                             torch.from_numpy(x.astype(np.float32)), kk, ss, pp, ceil, cip, dv)
    gi = pyaclnn.avg_pool2d_backward(g, x, k, s, p, ceil, cip, div)
    assert_close(gi, rounded(exp.numpy(), dtype), dtype, what=cid)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", ["n2c3_h7w9_k3s2p1_ceil_nopad", "c3_h7w9_k3s2p1_ncl", "n1c3_h6w10_k3s2p1_divm3",
                                 "n2c2_h9w7_kh3kw2_sh1sw2_ph1pw1"])
def test_non_contiguous(cid, dtype, kind):
    shape, k, s, p, ceil, cip, div = CASES[cid]
    g = make_input(_grad_shape(shape, k, s, p, ceil), dtype, seed=6)
    exp = rounded(_ref(g, shape, k, s, p, ceil, cip, div), dtype)
    out = strided(np.full(shape, 7, dtype), kind)
    assert not out.flags.c_contiguous
    gi = pyaclnn.avg_pool2d_backward(strided(g, kind), strided(np.zeros(shape, dtype), kind), k, s, p, ceil, cip,
                                     div, out=out)
    assert gi is out
    assert_close(out, exp, dtype, what=cid)


GLOBAL = {
    # id: (input shape, kernel, padding, count_include_pad)
    "n2c3_h10w12_k10x12_global": ((2, 3, 10, 12), [10, 12], [0], True),
    "n2c3_h10w12_k10x12p3x2_global_pad": ((2, 3, 10, 12), [10, 12], [3, 2], False),
    "c4_h11w10_k11x10p5_global_ncl": ((4, 11, 10), [11, 10], [5], True),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(GLOBAL))
def test_global_path_broadcasts(cid, dtype):
    """A2 global path: gradOutput / (kH*kW) reaches every position, padding and countIncludePad ignored."""
    shape, k, p, cip = GLOBAL[cid]
    g = make_input(shape[:-2] + (1, 1), dtype, seed=7)
    gi = pyaclnn.avg_pool2d_backward(g, np.zeros(shape, dtype), k, None, p, False, cip, 0)
    exp = ref.avg_pool2d_backward_global(g.astype(np.float64), shape, k)
    assert_close(gi, rounded(exp, dtype), dtype, what=cid)


def test_global_path_matches_torch_without_padding(torch):
    g = make_input((2, 3, 1, 1), np.float32, seed=8)
    exp = torch.ops.aten.avg_pool2d_backward(torch.from_numpy(g), torch.zeros(2, 3, 10, 12), [10, 12], [10, 12],
                                             [0, 0], False, True, None).numpy()
    assert_close(pyaclnn.avg_pool2d_backward(g, np.zeros((2, 3, 10, 12), np.float32), [10, 12]), exp)


@pytest.mark.parametrize("cid,shape,gshape,k,s,p,div", [
    # not the global path: a divisor override, a too-small plane, a gradOutput larger than 1x1
    ("n1c2_h10w10_k10_div7_not_global", (1, 2, 10, 10), (1, 2, 1, 1), [10], None, [2], 7),
    ("n1c2_h9w12_k9x12p2_not_global", (1, 2, 9, 12), (1, 2, 1, 1), [9, 12], None, [2], 0),
])
def test_near_global_uses_the_formula(cid, shape, gshape, k, s, p, div):
    g = make_input(gshape, np.float32, seed=9)
    gi = pyaclnn.avg_pool2d_backward(g, np.zeros(shape, np.float32), k, s, p, False, True, div)
    kk, ss, pp = expand(k, s, p)
    assert_close(gi, ref.avg_pool2d_backward(g.astype(np.float64), shape, kk, ss, pp, False, True, div), what=cid)


@pytest.mark.parametrize("gh,gw", [(1, 1), (2, 7), (6, 3), (9, 12), (3, 30)])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_grad_output_of_any_size(gh, gw, dtype):
    """gradOutput's H/W are not validated (SPEC 5.2 step 9): windows that exist are applied, nothing else read."""
    shape = (2, 3, 7, 9)
    g = make_input((2, 3, gh, gw), dtype, seed=10)
    gi = pyaclnn.avg_pool2d_backward(g, np.zeros(shape, dtype), 3, 2, 1, False, False, 0)
    exp = ref.avg_pool2d_backward(g.astype(np.float64), shape, (3, 3), (2, 2), (1, 1), False, False, 0)
    assert_close(gi, rounded(exp, dtype), dtype)


def test_cube_math_types_compute_exactly():
    """cubeMathType 0..3 are validated only: every value gives the exact reference (SPEC Decision 3)."""
    g = make_input((1, 2, 8, 8), np.float32, seed=11)
    exp = ref.avg_pool2d_backward(g.astype(np.float64), (1, 2, 8, 8), (3, 3), (1, 1), (1, 1))
    for cube in range(4):
        assert_close(pyaclnn.avg_pool2d_backward(g, np.zeros((1, 2, 8, 8), np.float32), 3, 1, 1,
                                                 cube_math_type=cube), exp)


def test_seed_004_values():
    """The seed sample: ones (1,16,1,1), self (1,16,4,4), k 4, s 1, p 0, cubeMathType 1 -> 0.0625 everywhere."""
    gi = pyaclnn.avg_pool2d_backward(np.ones((1, 16, 1, 1), np.float32), np.zeros((1, 16, 4, 4), np.float32),
                                     [4, 4], [1, 1], [0, 0], False, True, 0, 1)
    assert np.all(gi == np.float32(0.0625))


# ---- invalid inputs (SPEC 5.2, in order) ----

F32, F16 = np.float32, np.float16


def T(shape, dtype=F32, fmt="NCHW"):
    f = getattr(lib, "ACL_FORMAT_" + fmt)
    if all(d >= 0 for d in shape):
        return pyaclnn.AclTensor(shape, dtype, fmt=f)
    dims = ffi.new("int64_t[]", list(shape))
    h = lib.aclCreateTensor(dims, len(shape), acl_dtype(dtype), ffi.NULL, 0, f, dims, len(shape), ffi.NULL)
    return ffi.gc(h, lib.aclDestroyTensor)


def A(v):
    return pyaclnn.int_array(v)


def bwd_args(**kw):
    """Valid defaults: gradOutput (2,3,4,4), self/gradInput (2,3,8,8), NCHW fp32, kernel 3, stride 2, padding 1."""
    a = dict(grad=T((2, 3, 4, 4)), self=T((2, 3, 8, 8)), kernel=A([3]), stride=A([2]), padding=A([1]), ceil=False,
             cip=True, div=0, cube=0, gin=T((2, 3, 8, 8)))
    a.update(kw)
    return [a["grad"], a["self"], a["kernel"], a["stride"], a["padding"], a["ceil"], a["cip"], a["div"], a["cube"],
            a["gin"]]


INVALID = [
    # (id, overrides (lazy), code, word the message must contain)
    ("null_gradOutput", lambda: dict(grad=None), 161001, "gradOutput"),
    ("null_self", lambda: dict(self=None), 161001, "self"),
    ("null_kernel", lambda: dict(kernel=None), 161001, "kernelSize"),
    ("null_padding", lambda: dict(padding=None), 161001, "padding"),
    ("null_gradInput", lambda: dict(gin=None), 161001, "gradInput"),
    ("dtype_gradOutput", lambda: dict(grad=T((2, 3, 4, 4), np.int32)), 161002, "gradOutput"),
    ("dtype_self", lambda: dict(self=T((2, 3, 8, 8), np.float64)), 161002, "self"),
    ("dtype_gradInput", lambda: dict(gin=T((2, 3, 8, 8), np.int32)), 161002, "gradInput"),
    ("dtype_mismatch", lambda: dict(gin=T((2, 3, 8, 8), F16)), 161002, "gradInput"),
    ("format_gradOutput_nd", lambda: dict(grad=T((2, 3, 4, 4), fmt="ND")), 161002, "gradOutput"),
    ("format_self_nd", lambda: dict(self=T((2, 3, 8, 8), fmt="ND")), 161002, "self"),
    ("format_gradInput_nhwc", lambda: dict(gin=T((2, 3, 8, 8), fmt="NHWC")), 161002, "gradInput"),
    ("format_rank4_gradOutput_ncl", lambda: dict(grad=T((2, 3, 4, 4), fmt="NCL")), 161002, "gradOutput"),
    ("format_rank4_gradInput_ncl", lambda: dict(gin=T((2, 3, 8, 8), fmt="NCL")), 161002, "gradInput"),
    ("rank_mismatch", lambda: dict(grad=T((3, 4, 4), fmt="NCL")), 161002, "gradOutput"),
    ("rank5", lambda: dict(grad=T((1, 2, 3, 4, 4)), gin=T((1, 2, 3, 8, 8))), 161002, "gradInput"),
    ("neg_dim_gradOutput", lambda: dict(grad=T((2, 3, -4, 4))), 161002, "gradOutput"),
    ("neg_dim_self", lambda: dict(self=T((2, -3, 8, 8))), 161002, "self"),
    ("neg_dim_gradInput", lambda: dict(gin=T((2, 3, 8, -8))), 161002, "gradInput"),
    ("kernel_empty", lambda: dict(kernel=A([])), 161002, "kernelSize"),
    ("kernel_len3", lambda: dict(kernel=A([3, 3, 3])), 161002, "kernelSize"),
    ("kernel_zero", lambda: dict(kernel=A([3, 0])), 161002, "kernelSize"),
    ("stride_len3", lambda: dict(stride=A([2, 2, 2])), 161002, "stride"),
    ("stride_negative", lambda: dict(stride=A([2, -1])), 161002, "stride"),
    ("padding_len3", lambda: dict(padding=A([1, 1, 1])), 161002, "padding"),
    ("padding_empty", lambda: dict(padding=A([])), 161002, "padding"),
    ("padding_over_half", lambda: dict(padding=A([2])), 161002, "padding"),
    ("padding_w_over_half", lambda: dict(kernel=A([3, 2]), padding=A([1, 2])), 161002, "padding"),
    ("cube_4", lambda: dict(cube=4), 161002, "cubeMathType"),
    ("cube_neg", lambda: dict(cube=-1), 161002, "cubeMathType"),
    ("self_shape", lambda: dict(self=T((2, 3, 8, 9))), 161002, "self"),
    ("gradInput_shape", lambda: dict(gin=T((2, 3, 9, 8))), 161002, "gradInput"),
    # after the empty-tensor early return, the path's rules. Cube / 3-D paths (161002): a negative padding (the
    # 3-D path's own check; the convolution takes no negative pads) and [EMU] gradOutput's planes not gradInput's
    ("padding_negative", lambda: dict(padding=A([-1])), 161002, "padding"),
    ("padding_negative_3d_path", lambda: dict(padding=A([1, -1]), ceil=True), 161002, "padding"),
    ("gradOutput_batch", lambda: dict(grad=T((3, 3, 4, 4))), 161002, "gradOutput"),
    ("gradOutput_channels", lambda: dict(grad=T((2, 4, 4, 4))), 161002, "gradOutput"),
    # global path (kernel = self's H x W >= 10, gradOutput 1 x 1): its broadcast result is copied into gradInput,
    # so other planes fail that copy (561103)
    ("global_gradOutput_batch", lambda: dict(grad=T((3, 3, 1, 1)), self=T((2, 3, 10, 10)), gin=T((2, 3, 10, 10)),
                                             kernel=A([10]), padding=A([0])), 561103, "gradOutput"),
    ("global_gradOutput_channels", lambda: dict(grad=T((2, 1, 1, 1)), self=T((2, 3, 10, 10)),
                                                gin=T((2, 3, 10, 10)), kernel=A([10]), padding=A([0])), 561103,
     "gradOutput"),
    # order: the earlier rule wins
    ("order_null_before_dtype", lambda: dict(grad=T((2, 3, 4, 4), np.int32), gin=None), 161001, "gradInput"),
    ("order_dtype_before_format", lambda: dict(self=T((2, 3, 8, 8), np.int32, fmt="ND")), 161002, "dtype"),
    ("order_format_before_dims", lambda: dict(gin=T((2, 3, 8, 8), fmt="ND"), kernel=A([0])), 161002, "format"),
    ("order_dims_before_padding", lambda: dict(kernel=A([0]), padding=A([5])), 161002, "kernelSize"),
    ("order_padding_before_cube", lambda: dict(padding=A([2]), cube=7), 161002, "padding"),
    ("order_cube_before_shape", lambda: dict(cube=7, gin=T((2, 3, 9, 9)), self=T((2, 3, 9, 9))), 161002,
     "cubeMathType"),
    ("order_cube_before_shape2", lambda: dict(cube=4, self=T((2, 3, 8, 9))), 161002, "cubeMathType"),
    ("order_cube_before_negative_padding", lambda: dict(cube=7, padding=A([-1])), 161002, "cubeMathType"),
    ("order_shape_before_negative_padding", lambda: dict(self=T((2, 3, 8, 9)), padding=A([-1])), 161002, "self"),
]


@pytest.mark.parametrize("row", INVALID, ids=[r[0] for r in INVALID])
def test_invalid(row):
    _, over, code, word = row
    expect_invalid("AvgPool2dBackward", bwd_args(**over()), code, word)


VALID = [
    ("defaults", lambda: {}),
    ("stride_null", lambda: dict(stride=None, grad=T((2, 3, 3, 3)))),
    ("stride_empty", lambda: dict(stride=A([]), grad=T((2, 3, 3, 3)))),
    ("self_dtype_differs", lambda: dict(self=T((2, 3, 8, 8), F16))),
    ("self_format_ncl", lambda: dict(self=T((2, 3, 8, 8), fmt="NCL"))),
    ("rank3_nchw_formats", lambda: dict(grad=T((3, 4, 4)), self=T((3, 8, 8)), gin=T((3, 8, 8)))),
    ("rank3_ncl", lambda: dict(grad=T((3, 4, 4), fmt="NCL"), self=T((3, 8, 8), fmt="NCL"),
                               gin=T((3, 8, 8), fmt="NCL"))),
    ("grad_size_not_checked", lambda: dict(grad=T((2, 3, 11, 2)))),
    ("big_divisor", lambda: dict(div=100000)),
    ("cube_3", lambda: dict(cube=3)),
    # a negative padding passes the host code's checks; an empty tensor returns first
    ("padding_negative_empty", lambda: dict(padding=A([-1]), grad=T((0, 3, 4, 4)))),
]


@pytest.mark.parametrize("row", VALID, ids=[r[0] for r in VALID])
def test_valid_phase1(row):
    args = bwd_args(**row[1]())  # kept alive until the run: the executor holds the tensors' addresses
    rc, ws, ex, msg = ws_call("AvgPool2dBackward", *args)
    assert rc == 0, msg
    assert run_executor("AvgPool2dBackward", ex, ws) == 0


@pytest.mark.parametrize("rank", [3, 4])
def test_global_path_ignores_a_negative_padding(rank):
    """The A2 global path (divisorOverride 0, kernel = self's H x W, both >= 10, gradOutput 1 x 1) broadcasts
    gradOutput / (kH * kW) and never uses the padding: the host code accepts a negative one there (a former
    [EMU] rejection). Literal numpy reference."""
    lead = (2, 3) if rank == 4 else (3,)
    fmt = "NCHW" if rank == 4 else "NCL"
    g = make_input(lead + (1, 1), np.float32, seed=31)
    gin = pyaclnn.AclTensor.from_array(np.full(lead + (10, 12), 9.0, np.float32), getattr(lib, "ACL_FORMAT_" + fmt))
    args = bwd_args(grad=pyaclnn.AclTensor.from_array(g, getattr(lib, "ACL_FORMAT_" + fmt)),
                    self=T(lead + (10, 12), fmt=fmt), gin=gin, kernel=A([10, 12]), stride=A([1]),
                    padding=A([-3, -1]))
    rc, ws, ex, msg = ws_call("AvgPool2dBackward", *args)
    assert rc == 0, msg
    assert run_executor("AvgPool2dBackward", ex, ws) == 0
    np.testing.assert_allclose(gin.numpy(), np.broadcast_to(g * np.float32(1 / 120), lead + (10, 12)), rtol=1e-6)


@pytest.mark.parametrize("what", ["gradOutput_n0", "gradOutput_h0", "all_n0"])
def test_empty_is_a_noop_output_untouched(what):
    sentinel = np.full((2, 3, 8, 8), 5.5, np.float32)
    gin = pyaclnn.AclTensor.from_array(sentinel, lib.ACL_FORMAT_NCHW)
    if what == "gradOutput_n0":  # planes differ, but the empty check comes first
        args = bwd_args(grad=T((0, 3, 4, 4)), gin=gin)
    elif what == "gradOutput_h0":
        args = bwd_args(grad=T((2, 3, 0, 4)), gin=gin)
    else:
        gin = pyaclnn.AclTensor((0, 3, 8, 8), F32, fmt=lib.ACL_FORMAT_NCHW)
        args = bwd_args(grad=T((0, 3, 4, 4)), self=T((0, 3, 8, 8)), gin=gin)
    rc, ws, ex, msg = ws_call("AvgPool2dBackward", *args)
    assert rc == 0 and ws == 0, msg
    assert run_executor("AvgPool2dBackward", ex, ws) == 0
    if what != "all_n0":
        assert np.array_equal(gin.numpy(), sentinel)


def test_executor_reuse_and_consumed():
    g = make_input((2, 3, 4, 4), np.float32, seed=12)
    gt = pyaclnn.AclTensor.from_array(g, lib.ACL_FORMAT_NCHW)
    gin = pyaclnn.AclTensor((2, 3, 8, 8), F32, fmt=lib.ACL_FORMAT_NCHW)
    exp = ref.avg_pool2d_backward(g.astype(np.float64), (2, 3, 8, 8), (3, 3), (2, 2), (1, 1))
    rc, ws, ex, msg = ws_call("AvgPool2dBackward", *bwd_args(grad=gt, gin=gin))
    assert rc == 0, msg
    assert lib.aclSetAclOpExecutorRepeatable(ex) == 0
    for _ in range(2):
        assert run_executor("AvgPool2dBackward", ex, ws) == 0
        assert_close(gin.numpy(), exp, F32)
    assert lib.aclDestroyAclOpExecutor(ex) == 0
    rc, ws, ex, msg = ws_call("AvgPool2dBackward", *bwd_args(grad=gt, gin=gin))
    assert run_executor("AvgPool2dBackward", ex, ws) == 0
    assert run_executor("AvgPool2dBackward", ex, ws) == 161002


def test_deterministic_across_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(1)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    x = np.zeros((4, 16, 40, 36), dt)
    for gshape, args in (((4, 16, 20, 18), (3, 2, 1, False, True, 0)), ((4, 16, 40, 36), (3, 1, 1, True, False, 0)),
                         ((4, 16, 20, 18), (2, None, 0, False, True, 3)), ((4, 16, 13, 40), (5, 3, 2, True, False, 0))):
        g = (rng.random(gshape) * 4 - 2).astype(np.float32).astype(dt)
        h.update(pyaclnn.avg_pool2d_backward(g, x, *args).tobytes())
    # planes too large for the plane path: the generic element-wise path
    g = (rng.random((2, 4, 100, 100)) * 4 - 2).astype(np.float32).astype(dt)
    h.update(pyaclnn.avg_pool2d_backward(g, np.zeros((2, 4, 100, 100), dt), 3, 1, 1, False, False, 0).tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
