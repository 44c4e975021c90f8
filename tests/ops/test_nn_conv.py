"""aclnnConvolution: PyTorch oracle (conv1d/2d/3d, conv_transpose1d/2d/3d) over a compact case table for every A2
dtype, mixed dtypes, per-side padding, NDHWC, strided views, empty tensors, the op_api's invalid rows (order and
codes), determinism across thread counts."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.tensor import acl_dtype
from helpers import DTYPES, DTYPE_IDS, BF16, assert_close, rounded, strided, same_bytes_for_threads, expect_invalid, \
    ws_call, run_executor

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
FMT = {3: "NCL", 4: "NCHW", 5: "NCDHW"}

# (id, nd, transposed, N, Cin, Cout, spatial, kernel, stride, padding, dilation, outputPadding, groups, bias)
CASES = [
    ("c1_basic", 1, False, 2, 3, 4, (9,), 3, 1, 0, 1, 0, 1, True),
    ("c1_s2p1d2_g3", 1, False, 2, 6, 9, (11,), 3, 2, 1, 2, 0, 3, True),
    ("c1_k1_nobias", 1, False, 1, 4, 5, (7,), 1, 1, 0, 1, 0, 1, False),
    ("c2_resnet_3x3", 2, False, 2, 8, 8, (9, 9), 3, 1, 1, 1, 0, 1, True),
    ("c2_s2_p0", 2, False, 1, 3, 5, (10, 7), 3, 2, 0, 1, 0, 1, True),
    ("c2_dil2_g2", 2, False, 2, 4, 6, (9, 8), (3, 2), (1, 2), (2, 1), (2, 1), 0, 2, True),
    ("c2_depthwise", 2, False, 1, 6, 6, (8, 8), 3, 1, 1, 1, 0, 6, False),
    ("c2_k1_pointwise", 2, False, 2, 16, 10, (5, 6), 1, 1, 0, 1, 0, 1, True),
    ("c2_big_k_strided", 2, False, 1, 3, 4, (12, 13), 5, 3, 2, 1, 0, 1, True),
    ("c2_wide_cin", 2, False, 1, 40, 7, (6, 6), 3, 1, 1, 1, 0, 1, True),
    ("c3_basic", 3, False, 1, 2, 3, (5, 6, 7), 3, 1, 1, 1, 0, 1, True),
    ("c3_s2_g2", 3, False, 2, 4, 4, (6, 7, 5), (2, 3, 2), (2, 1, 2), (0, 1, 1), (1, 1, 2), 0, 2, False),
    ("t1_s2_op1", 1, True, 2, 4, 3, (6,), 3, 2, 1, 1, 1, 1, True),
    ("t1_s3_d2_g2", 1, True, 1, 4, 6, (5,), 3, 3, 1, 2, 1, 2, True),
    ("t2_s2_p1_op1", 2, True, 2, 4, 5, (5, 4), 3, 2, 1, 1, 1, 1, True),
    ("t2_s1_nobias", 2, True, 1, 3, 2, (6, 5), 2, 1, 0, 1, 0, 1, False),
    ("t2_g2_d2", 2, True, 1, 4, 4, (4, 5), 3, (1, 2), (1, 0), (2, 1), (0, 1), 2, True),
    ("t3_s2", 3, True, 1, 2, 3, (3, 4, 3), 3, 2, 1, 1, (1, 0, 1), 1, True),
    ("t3_k2_g2", 3, True, 2, 4, 2, (3, 3, 2), 2, 1, 0, 1, 0, 2, False),
    ("t2_s3_k2_phase_without_taps", 2, True, 1, 3, 4, (4, 5), (2, 1), (3, 2), 0, 1, (2, 1), 1, True),
    ("t1_s4_k3_d2", 1, True, 2, 2, 3, (5,), 3, 4, 2, 2, 3, 1, False),
]
IDS = [c[0] for c in CASES]


def tup(v, nd):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd


def T(shape, dtype=F32, fmt="NCHW", data=True):
    """A tensor argument: a device-backed AclTensor, or (data=False / negative dims) a raw aclTensor handle."""
    f = getattr(lib, "ACL_FORMAT_" + fmt)
    if data and all(d >= 0 for d in shape):
        return pyaclnn.AclTensor(shape, dtype, fmt=f)
    dims = ffi.new("int64_t[]", list(shape))
    h = lib.aclCreateTensor(dims, len(shape), acl_dtype(dtype), ffi.NULL, 0, f, dims, len(shape), ffi.NULL)
    return ffi.gc(h, lib.aclDestroyTensor)


A = pyaclnn.int_array


def conv(x, w, b, stride, padding, dilation, transposed, output_padding, groups, out, cube=0, fmt=None):
    """Runs aclnnConvolution on numpy arrays (strided views stay strided); `out` is an array written in place."""
    f = getattr(lib, "ACL_FORMAT_" + (fmt or FMT[x.ndim]))
    xt = pyaclnn.AclTensor.from_array(x, f)
    wt = pyaclnn.AclTensor.from_array(w, f)
    bt = None if b is None else pyaclnn.AclTensor.from_array(b, lib.ACL_FORMAT_ND)
    yt = pyaclnn.AclTensor.from_array(out, f)
    rc, ws, ex, msg = ws_call("Convolution", xt, wt, bt, A(list(stride)), A(list(padding)), A(list(dilation)),
                              bool(transposed), A(list(output_padding)), groups, yt, cube)
    assert rc == 0, msg
    assert run_executor("Convolution", ex, ws) == 0
    return yt.numpy()


def make(case, dtype, seed=0, wdtype=None, bdtype=None):
    _, nd, tr, n, ci, co, sp, k, s, p, d, op, g, has_b = case
    rng = np.random.default_rng(seed)
    k = tup(k, nd)
    x = rng.uniform(-1, 1, (n, ci) + tuple(sp)).astype(np.float32).astype(dtype)
    wshape = ((ci, co // g) if tr else (co, ci // g)) + k
    w = rng.uniform(-1, 1, wshape).astype(np.float32).astype(wdtype or dtype)
    b = rng.uniform(-1, 1, co).astype(np.float32).astype(bdtype or dtype) if has_b else None
    return x, w, b


def torch_ref(torch, case, x, w, b):
    _, nd, tr, n, ci, co, sp, k, s, p, d, op, g, has_b = case
    F = torch.nn.functional
    X = torch.from_numpy(x.astype(np.float64))
    W = torch.from_numpy(w.astype(np.float64))
    B = None if b is None else torch.from_numpy(b.astype(np.float64))
    s, p, d, op = tup(s, nd), tup(p, nd), tup(d, nd), tup(op, nd)
    if tr:
        return getattr(F, f"conv_transpose{nd}d")(X, W, B, s, p, op, g, d).numpy()
    return getattr(F, f"conv{nd}d")(X, W, B, s, p, d, g).numpy()


def run_case(case, x, w, b, out_dtype, out=None, fmt=None):
    _, nd, tr, n, ci, co, sp, k, s, p, d, op, g, has_b = case
    if out is None:
        out = np.full(out_shape(case), 7, out_dtype)
    return conv(x, w, b, tup(s, nd), tup(p, nd), tup(d, nd), tr, tup(op, nd) if tr else (), g, out, fmt=fmt)


def out_shape(case):
    _, nd, tr, n, ci, co, sp, k, s, p, d, op, g, has_b = case
    k, s, p, d, op = tup(k, nd), tup(s, nd), tup(p, nd), tup(d, nd), tup(op, nd)
    if tr:
        o = [(sp[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(nd)]
    else:
        o = [(sp[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    return (n, co) + tuple(o)


def check(y, ref, dtype):
    dtype = np.dtype(dtype)
    if dtype == F32:  # fp32 sums in another order than PyTorch's
        assert_close(y, ref, dtype, rtol=2e-5, atol=2e-5)
    else:  # exact fp32 sums, rounded once: within one rounding of the exact result
        assert_close(y, rounded(ref, dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", IDS)
def test_against_torch(cid, dtype, torch):
    case = CASES[IDS.index(cid)]
    x, w, b = make(case, dtype)
    y = run_case(case, x, w, b, dtype)
    assert y.dtype == np.dtype(dtype)
    check(y, torch_ref(torch, case, x, w, b), dtype)


@pytest.mark.parametrize("dts", [(F16, F32, F32, BF16), (BF16, F16, BF16, F32), (F32, BF16, F16, F16)],
                         ids=["x16_w32_b32_ybf16", "xbf16_w16_bbf16_y32", "x32_wbf16_b16_y16"])
@pytest.mark.parametrize("cid", ["c2_dil2_g2", "t2_s2_p1_op1", "c1_s2p1d2_g3"])
def test_mixed_dtypes(cid, dts, torch):
    """x, weight, bias and y each take any dtype of the list; all are read exactly, y rounded once."""
    case = CASES[IDS.index(cid)]
    xd, wd, bd, yd = dts
    x, w, b = make(case, xd, seed=2, wdtype=wd, bdtype=bd)
    y = run_case(case, x, w, b, yd)
    check(y, torch_ref(torch, case, x, w, b), yd)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("cid", ["c2_dil2_g2", "t2_g2_d2", "c3_s2_g2", "t1_s2_op1"])
def test_strided_views(cid, kind, torch):
    case = CASES[IDS.index(cid)]
    x, w, b = make(case, F32, seed=3)
    ref = torch_ref(torch, case, x, w, b)
    out = strided(np.full(ref.shape, 7, np.float32), kind)
    xs, ws = strided(x, kind), strided(w, kind)
    bs = None if b is None else strided(b, "slice")
    assert not xs.flags.c_contiguous and not out.flags.c_contiguous
    y = run_case(case, xs, ws, bs, F32, out=out)
    check(y, ref, F32)


def test_ndhwc(torch):
    """3-d input, weight and output in NDHWC (channels last) give the NCDHW results."""
    case = CASES[IDS.index("c3_s2_g2")]
    x, w, b = make(case, F32, seed=4)
    ref = torch_ref(torch, case, x, w, b)
    cl = (0, 2, 3, 4, 1)
    out = np.full(ref.transpose(cl).shape, 7, np.float32)
    y = run_case(case, np.ascontiguousarray(x.transpose(cl)), np.ascontiguousarray(w.transpose(cl)), b, F32,
                 out=out, fmt="NDHWC")
    check(y.transpose(0, 4, 1, 2, 3), ref, F32)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_per_side_padding(dtype, torch):
    """conv1d with [left, right], conv2d with [top, bottom, left, right], conv_transpose2d with 4 values."""
    F = torch.nn.functional
    rng = np.random.default_rng(5)
    x1 = rng.uniform(-1, 1, (2, 3, 10)).astype(np.float32).astype(dtype)
    w1 = rng.uniform(-1, 1, (4, 3, 3)).astype(np.float32).astype(dtype)
    ref = F.conv1d(F.pad(torch.from_numpy(x1.astype(np.float64)), (2, 1)), torch.from_numpy(w1.astype(np.float64)),
                   None, 2).numpy()
    y = conv(x1, w1, None, [2], [2, 1], [1], False, [], 1, np.zeros(ref.shape, dtype))
    check(y, ref, dtype)
    x2 = rng.uniform(-1, 1, (1, 2, 7, 8)).astype(np.float32).astype(dtype)
    w2 = rng.uniform(-1, 1, (3, 2, 3, 2)).astype(np.float32).astype(dtype)
    ref = F.conv2d(F.pad(torch.from_numpy(x2.astype(np.float64)), (3, 0, 1, 2)),
                   torch.from_numpy(w2.astype(np.float64)), None, 1, 0, (1, 2)).numpy()
    y = conv(x2, w2, None, [1, 1], [1, 2, 3, 0], [1, 2], False, [], 1, np.zeros(ref.shape, dtype))
    check(y, ref, dtype)
    wt = rng.uniform(-1, 1, (2, 3, 3, 3)).astype(np.float32).astype(dtype)
    full = F.conv_transpose2d(torch.from_numpy(x2.astype(np.float64)), torch.from_numpy(wt.astype(np.float64)),
                              None, 2).numpy()
    ref = full[:, :, 1:full.shape[2] - 2, 0:full.shape[3] - 1]  # crop top 1, bottom 2, left 0, right 1
    y = conv(x2, wt, None, [2, 2], [1, 2, 0, 1], [1, 1], True, [0, 0], 1, np.zeros(ref.shape, dtype))
    check(y, ref, dtype)


@pytest.mark.parametrize("cube", [0, 1, 2, 3, 4])
def test_cube_math_types_accepted(cube, torch):
    case = CASES[IDS.index("c2_s2_p0")]
    x, w, b = make(case, F32)
    out = np.zeros(out_shape(case), np.float32)
    y = conv(x, w, b, (2, 2), (0, 0), (1, 1), False, (), 1, out, cube=cube)
    check(y, torch_ref(torch, case, x, w, b), F32)


@pytest.mark.parametrize("tr", [False, True])
def test_empty_batch_is_a_noop(tr):
    w = T((4, 3, 3, 3))
    oshape = (0, 4, 6, 6) if not tr else (0, 3, 8, 8)
    out = T(oshape)
    xin = T((0, 3, 8, 8)) if not tr else T((0, 4, 6, 6))
    rc, ws, ex, msg = ws_call("Convolution", xin, w, None, A([1, 1]), A([0, 0]), A([1, 1]), tr, A([0, 0]), 1, out, 0)
    assert rc == 0 and ws == 0, msg
    assert run_executor("Convolution", ex, ws) == 0


def test_zero_out_channels_is_a_noop():
    rc, ws, ex, msg = ws_call("Convolution", T((2, 3, 8, 8)), T((0, 3, 3, 3)), None, A([1, 1]), A([0, 0]),
                              A([1, 1]), False, A([]), 1, T((2, 0, 6, 6)), 0)
    assert rc == 0, msg
    assert run_executor("Convolution", ex, ws) == 0


def test_executor_reuse(torch):
    case = CASES[IDS.index("c2_resnet_3x3")]
    x, w, b = make(case, F32, seed=6)
    ref = torch_ref(torch, case, x, w, b)
    xt = pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCHW)
    wt = pyaclnn.AclTensor.from_array(w, lib.ACL_FORMAT_NCHW)
    bt = pyaclnn.AclTensor.from_array(b, lib.ACL_FORMAT_ND)
    yt = T(ref.shape)
    rc, ws, ex, msg = ws_call("Convolution", xt, wt, bt, A([1, 1]), A([1, 1]), A([1, 1]), False, A([]), 1, yt, 0)
    assert rc == 0, msg
    assert lib.aclSetAclOpExecutorRepeatable(ex) == 0
    for _ in range(2):
        assert run_executor("Convolution", ex, ws) == 0
        check(yt.numpy(), ref, F32)


def test_same_bytes_for_any_thread_count():
    code = """
import sys, hashlib, numpy as np
sys.path.insert(0, 'tests'); sys.path.insert(0, 'tests/ops')
from test_nn_conv import conv
rng = np.random.default_rng(1)
h = hashlib.sha256()
for tr in (False, True):
    x = rng.uniform(-1, 1, (3, 16, 19, 17)).astype(np.float32)
    w = rng.uniform(-1, 1, (16, 12, 3, 3)).astype(np.float32)
    shape = (3, 12, 37, 33) if tr else (3, 16, 17, 15)
    wt = w if tr else rng.uniform(-1, 1, (16, 16, 3, 3)).astype(np.float32)
    y = conv(x, wt, None, (2, 2) if tr else (1, 1), (1, 1) if tr else (0, 0), (1, 1), tr, (0, 0) if tr else (),
             1, np.zeros(shape, np.float32))
    h.update(y.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---- invalid inputs: the op_api's checkers in order (NULL, dtype, dims, formats, values, inferred shape, cube) ----

def fwd_args(**kw):
    """Valid defaults: conv2d input (2,3,8,8), weight (4,3,3,3), bias (4), stride 1, padding 1 -> (2,4,8,8)."""
    a = dict(input=T((2, 3, 8, 8)), weight=T((4, 3, 3, 3)), bias=T((4,), fmt="ND"), stride=A([1, 1]),
             padding=A([1, 1]), dilation=A([1, 1]), transposed=False, outputPadding=A([0, 0]), groups=1,
             output=T((2, 4, 8, 8)), cube=0)
    a.update(kw)
    return [a["input"], a["weight"], a["bias"], a["stride"], a["padding"], a["dilation"], a["transposed"],
            a["outputPadding"], a["groups"], a["output"], a["cube"]]


def tr_args(**kw):
    """Valid transposed defaults: input (2,4,5,5), weight (4,3,3,3), stride 2, padding 1, outputPadding 1 ->
    (2,3,10,10)."""
    a = dict(input=T((2, 4, 5, 5)), weight=T((4, 3, 3, 3)), bias=T((3,), fmt="ND"), stride=A([2, 2]),
             padding=A([1, 1]), dilation=A([1, 1]), transposed=True, outputPadding=A([1, 1]), groups=1,
             output=T((2, 3, 10, 10)))
    a.update(kw)
    return fwd_args(**a)


INVALID = [
    ("null_input", fwd_args, dict(input=None), 161001, "input"),
    ("null_weight", fwd_args, dict(weight=None), 161001, "weight"),
    ("null_stride", fwd_args, dict(stride=None), 161001, "stride"),
    ("null_padding", fwd_args, dict(padding=None), 161001, "padding"),
    ("null_dilation", fwd_args, dict(dilation=None), 161001, "dilation"),
    ("null_output", fwd_args, dict(output=None), 161001, "output"),
    ("null_output_padding_transposed", tr_args, dict(outputPadding=None), 161001, "outputPadding"),
    ("dtype_bias", fwd_args, dict(bias=T((4,), np.float64, "ND")), 161002, "bias"),
    ("dtype_input", fwd_args, dict(input=T((2, 3, 8, 8), np.int32)), 161002, "input"),
    ("dtype_input_double", fwd_args, dict(input=T((2, 3, 8, 8), np.float64)), 161002, "input"),
    ("dtype_weight", fwd_args, dict(weight=T((4, 3, 3, 3), np.int8)), 161002, "weight"),
    ("dtype_output", fwd_args, dict(output=T((2, 4, 8, 8), np.int32)), 161002, "output"),
    ("rank_input_2", fwd_args, dict(input=T((3, 8), fmt="ND")), 161002, "input"),
    ("rank_weight_6", fwd_args, dict(weight=T((4, 3, 3, 3, 1, 1), fmt="ND")), 161002, "weight"),
    ("rank_weight_mismatch", fwd_args, dict(weight=T((4, 3, 3), fmt="NCL")), 161002, "weight"),
    ("rank_output_mismatch", fwd_args, dict(output=T((2, 4, 8), fmt="NCL")), 161002, "output"),
    ("bias_rank2", fwd_args, dict(bias=T((4, 1), fmt="ND")), 161002, "bias"),
    ("bias_size", fwd_args, dict(bias=T((5,), fmt="ND")), 161002, "bias"),
    ("bias_size_transposed", tr_args, dict(bias=T((4,), fmt="ND")), 161002, "bias"),
    ("stride_len", fwd_args, dict(stride=A([1])), 161002, "stride"),
    ("dilation_len", fwd_args, dict(dilation=A([1, 1, 1])), 161002, "dilation"),
    ("padding_len3", fwd_args, dict(padding=A([1, 1, 1])), 161002, "padding"),
    ("padding_len2_conv3d", fwd_args, dict(input=T((1, 3, 4, 4, 4), fmt="NCDHW"), weight=T((4, 3, 3, 3, 3), fmt="NCDHW"),
                                            output=T((1, 4, 4, 4, 4), fmt="NCDHW"), stride=A([1] * 3),
                                            dilation=A([1] * 3)), 161002, "padding"),
    ("padding_len2_transposed_conv1d", fwd_args, dict(input=T((1, 4, 5), fmt="NCL"), weight=T((4, 3, 3), fmt="NCL"),
                                                      output=T((1, 3, 7), fmt="NCL"), stride=A([1]), dilation=A([1]),
                                                      padding=A([0, 0]), transposed=True, outputPadding=A([0]),
                                                      bias=None),
     161002, "padding"),
    ("output_padding_len", tr_args, dict(outputPadding=A([1])), 161002, "outputPadding"),
    ("format_input_output_differ", fwd_args, dict(output=T((2, 4, 8, 8), fmt="ND")), 161002, "format"),
    ("format_bias_nhwc", fwd_args, dict(bias=T((4,), fmt="NHWC")), 161002, "bias"),
    ("format_conv1d_weight", fwd_args, dict(input=T((2, 3, 8), fmt="NCL"), weight=T((4, 3, 3), fmt="ND"),
                                            output=T((2, 4, 8), fmt="NCL"), stride=A([1]), padding=A([1]),
                                            dilation=A([1])), 161002, "weight"),
    ("format_weight_nhwc", fwd_args, dict(weight=T((4, 3, 3, 3), fmt="NHWC")), 161002, "weight"),
    ("format_input_nd_both", fwd_args, dict(input=T((2, 3, 8, 8), fmt="ND"), output=T((2, 4, 8, 8), fmt="ND")),
     161002, "input"),
    ("format_weight_fractal_z", fwd_args, dict(weight=T((4, 3, 3, 3), fmt="FRACTAL_Z")), 161002, "weight"),
    ("format_conv3d_ncdhw", fwd_args, dict(input=T((1, 3, 4, 4, 4), fmt="NCDHW"), weight=T((4, 3, 3, 3, 3), fmt="NCHW"),
                                           output=T((1, 4, 4, 4, 4), fmt="NCDHW"), stride=A([1] * 3),
                                           padding=A([1] * 3), dilation=A([1] * 3)), 161002, "weight"),
    ("neg_n_input", fwd_args, dict(input=T((-2, 3, 8, 8))), 161002, "input"),
    ("neg_spatial_input", fwd_args, dict(input=T((2, 3, -8, 8))), 161002, "input"),
    ("zero_kernel", fwd_args, dict(weight=T((4, 3, 0, 3))), 161002, "weight"),
    ("stride_zero", fwd_args, dict(stride=A([1, 0])), 161002, "stride"),
    ("dilation_neg", fwd_args, dict(dilation=A([-1, 1])), 161002, "dilation"),
    ("input_smaller_than_kernel", fwd_args, dict(input=T((2, 3, 2, 8)), padding=A([0, 1])), 161002, "input"),
    ("groups_zero", fwd_args, dict(groups=0), 161002, "groups"),
    ("groups_channels", fwd_args, dict(groups=2, weight=T((4, 2, 3, 3))), 161002, "groups"),
    ("weight_n_not_divisible", fwd_args, dict(input=T((2, 4, 8, 8)), weight=T((3, 2, 3, 3)), bias=None,
                                              output=T((2, 3, 8, 8)), groups=2), 161002, "divisible"),
    ("transposed_weight_n", tr_args, dict(weight=T((3, 3, 3, 3))), 161002, "weight"),
    ("output_padding_too_big", tr_args, dict(outputPadding=A([2, 1])), 161002, "outputPadding"),
    ("output_padding_negative", tr_args, dict(outputPadding=A([-1, 0])), 161002, "outputPadding"),
    ("transposed_pad_limit", tr_args, dict(weight=T((4, 3, 3, 3)), dilation=A([200, 1]), padding=A([0, 1]),
                                           outputPadding=A([1, 1]), output=T((2, 3, 410, 10))), 161002, "dilation"),
    ("transposed_3d_pad_over_kernel", fwd_args, dict(input=T((1, 2, 3, 3, 3), fmt="NCDHW"),
                                                     weight=T((2, 2, 1, 1, 1), fmt="NCDHW"), bias=None,
                                                     output=T((1, 2, 1, 1, 1), fmt="NCDHW"), stride=A([1] * 3),
                                                     padding=A([1] * 3), dilation=A([1] * 3), transposed=True,
                                                     outputPadding=A([0] * 3)), 161002, "padding"),
    ("output_shape", fwd_args, dict(output=T((2, 4, 8, 7))), 161002, "output"),
    ("output_channels", fwd_args, dict(output=T((2, 5, 8, 8))), 161002, "output"),
    ("output_shape_transposed", tr_args, dict(output=T((2, 3, 9, 10))), 161002, "output"),
    ("empty_input_nonempty_output", fwd_args, dict(input=T((2, 3, 0, 8)), padding=A([3, 1]),
                                                   output=T((2, 4, 4, 8))), 161002, "empty"),
    ("cube_5", fwd_args, dict(cube=5), 161002, "cubeMathType"),
    ("cube_neg", fwd_args, dict(cube=-1), 161002, "cubeMathType"),
    # order: the earlier checker wins
    ("order_null_before_dtype", fwd_args, dict(input=T((2, 3, 8, 8), np.int32), output=None), 161001, "output"),
    ("order_bias_dtype_first", fwd_args, dict(bias=T((4,), np.int32, "ND"), input=T((2, 3, 8, 8), np.int32)),
     161002, "bias"),
    ("order_dtype_before_dims", fwd_args, dict(input=T((3, 8), np.int32, "ND")), 161002, "dtype"),
    ("order_dims_before_format", fwd_args, dict(weight=T((4, 3, 3), fmt="ND")), 161002, "dims"),
    ("order_format_before_values", fwd_args, dict(weight=T((4, 3, 3, 3), fmt="NHWC"), stride=A([0, 1])),
     161002, "format"),
    ("order_values_before_shape", fwd_args, dict(stride=A([0, 1]), output=T((2, 4, 1, 1))), 161002, "stride"),
    ("order_shape_before_cube", fwd_args, dict(output=T((2, 4, 1, 1)), cube=9), 161002, "output"),
]


@pytest.mark.parametrize("row", INVALID, ids=[r[0] for r in INVALID])
def test_invalid(row):
    _, make_args, over, code, word = row
    expect_invalid("Convolution", make_args(**over), code, word)


VALID = [
    ("defaults", fwd_args, {}),
    ("bias_none", fwd_args, dict(bias=None)),
    ("bias_nchw_format", fwd_args, dict(bias=T((4,), fmt="NCHW"))),
    ("transposed_defaults", tr_args, {}),
    ("output_padding_ignored_when_not_transposed", fwd_args, dict(outputPadding=None)),
    ("output_padding_below_dilation", tr_args, dict(stride=A([1, 1]), dilation=A([3, 3]), padding=A([1, 1]),
                                                    outputPadding=A([2, 0]), output=T((2, 3, 11, 9)))),
    ("negative_padding_accepted", fwd_args, dict(input=T((2, 3, 9, 9)), padding=A([-1, 0]),
                                                 output=T((2, 4, 5, 7)))),
    ("conv3d_ndhwc", fwd_args, dict(input=T((1, 4, 4, 4, 3), fmt="NDHWC"), weight=T((4, 3, 3, 3, 3), fmt="NCDHW"),
                                    bias=None, output=T((1, 4, 4, 4, 4), fmt="NDHWC"), stride=A([1] * 3),
                                    padding=A([1] * 3), dilation=A([1] * 3))),
]


@pytest.mark.parametrize("row", VALID, ids=[r[0] for r in VALID])
def test_valid_phase1(row):
    _, make_args, over = row
    args = make_args(**over)
    rc, ws, ex, msg = ws_call("Convolution", *args)
    assert rc == 0, msg
    assert run_executor("Convolution", ex, ws) == 0


# ---- aclnnConvDepthwise2d: groups = self's C, weight (C_out, 1, kH, kW), one dtype for all tensors ----

def depthwise(x, w, b, k, s, p, d, out, cube=0):
    f = lib.ACL_FORMAT_NCHW
    xt, wt, yt = (pyaclnn.AclTensor.from_array(a, f) for a in (x, w, out))
    bt = None if b is None else pyaclnn.AclTensor.from_array(b, lib.ACL_FORMAT_ND)
    rc, ws, ex, msg = ws_call("ConvDepthwise2d", xt, wt, A(list(k)), bt, A(list(s)), A(list(p)), A(list(d)), yt, cube)
    assert rc == 0, msg
    assert run_executor("ConvDepthwise2d", ex, ws) == 0
    return yt.numpy()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("mult,k,s,p,d,bias", [(1, (3, 3), (1, 1), (1, 1), (1, 1), True),
                                              (2, (3, 2), (2, 1), (0, 1), (1, 2), False),
                                              (3, (5, 5), (2, 2), (2, 2), (1, 1), True)])
def test_depthwise_against_torch(dtype, mult, k, s, p, d, bias, torch):
    rng = np.random.default_rng(7)
    c = 4
    x = rng.uniform(-1, 1, (2, c, 9, 10)).astype(np.float32).astype(dtype)
    w = rng.uniform(-1, 1, (c * mult, 1) + k).astype(np.float32).astype(dtype)
    b = rng.uniform(-1, 1, c * mult).astype(np.float32).astype(dtype) if bias else None
    ref = torch.nn.functional.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)),
                                     None if b is None else torch.from_numpy(b.astype(np.float64)), s, p, d, c).numpy()
    xs = strided(x, "slice") if mult == 2 else x
    y = depthwise(xs, w, b, k, s, p, d, np.zeros(ref.shape, dtype))
    check(y, ref, dtype)


def dw_args(**kw):
    a = dict(self=T((2, 4, 8, 8)), weight=T((8, 1, 3, 3)), k=A([3, 3]), bias=T((8,), fmt="ND"), stride=A([1, 1]),
             padding=A([1, 1]), dilation=A([1, 1]), out=T((2, 8, 8, 8)), cube=0)
    a.update(kw)
    return [a["self"], a["weight"], a["k"], a["bias"], a["stride"], a["padding"], a["dilation"], a["out"], a["cube"]]


DW_INVALID = [
    ("null_self", dict(self=None), 161001, "self"),
    ("null_weight", dict(weight=None), 161001, "weight"),
    ("null_out", dict(out=None), 161001, "out"),
    ("null_kernel_size_last", dict(k=None), 161001, "kernelSize"),
    ("bias_dtype_list", dict(bias=T((8,), np.float64, "ND")), 161002, "bias"),
    ("bias_dtype_differs", dict(bias=T((8,), F16, "ND")), 161002, "bias"),
    ("self_dtype", dict(self=T((2, 4, 8, 8), np.int32), bias=None), 161002, "self"),
    ("weight_dtype_differs", dict(weight=T((8, 1, 3, 3), F16)), 161002, "weight"),
    ("out_dtype_differs", dict(out=T((2, 8, 8, 8), F16)), 161002, "out"),
    ("rank_self", dict(self=T((2, 4, 8), fmt="NCL")), 161002, "self"),
    ("bias_rank", dict(bias=T((8, 1), fmt="ND")), 161002, "bias"),
    ("stride_len", dict(stride=A([1])), 161002, "stride"),
    ("padding_len4", dict(padding=A([1, 1, 1, 1])), 161002, "padding"),
    ("format_weight", dict(weight=T((8, 1, 3, 3), fmt="ND")), 161002, "weight"),
    ("weight_c_2", dict(weight=T((8, 2, 3, 3))), 161002, "weight"),
    ("weight_n_not_multiple", dict(weight=T((6, 1, 3, 3)), bias=T((6,), fmt="ND"), out=T((2, 6, 8, 8))), 161002,
     "divisible"),
    ("bias_size", dict(bias=T((4,), fmt="ND")), 161002, "bias"),
    ("stride_zero", dict(stride=A([0, 1])), 161002, "stride"),
    ("out_shape", dict(out=T((2, 8, 7, 8))), 161002, "out"),
    ("cube_7", dict(cube=7), 161002, "cubeMathType"),
    ("kernel_size_h", dict(k=A([2, 3])), 161002, "kernelSize"),
    ("kernel_size_w", dict(k=A([3, 5])), 161002, "kernelSize"),
    ("order_shape_before_kernel_size", dict(out=T((2, 8, 7, 8)), k=A([1, 1])), 161002, "out"),
]


@pytest.mark.parametrize("row", DW_INVALID, ids=[r[0] for r in DW_INVALID])
def test_depthwise_invalid(row):
    _, over, code, word = row
    expect_invalid("ConvDepthwise2d", dw_args(**over), code, word)


def test_depthwise_empty_batch():
    rc, ws, ex, msg = ws_call("ConvDepthwise2d", *dw_args(self=T((0, 4, 8, 8)), out=T((0, 8, 8, 8))))
    assert rc == 0, msg
    assert run_executor("ConvDepthwise2d", ex, ws) == 0


# ---- aclnnConvolutionBackward ----

def backward(gy, x, w, case, mask=(True, True, True), dts=None, views=None, cube=0):
    """Runs aclnnConvolutionBackward for `case`; returns (gradInput, gradWeight, gradBias) arrays (None if masked)."""
    _, nd, tr, n, ci, co, sp, k, s, p, d, op, g, has_b = case
    f = getattr(lib, "ACL_FORMAT_" + FMT[x.ndim])
    dts = dts or (x.dtype, w.dtype, gy.dtype)
    ts = [pyaclnn.AclTensor.from_array(a, f) for a in (gy, x, w)]
    outs = []
    shapes = (x.shape, w.shape, (co,))
    for i in range(3):
        if not mask[i]:
            outs.append(None)
            continue
        arr = np.full(shapes[i], 7, dts[i]) if views is None else views[i]
        outs.append(pyaclnn.AclTensor.from_array(arr, f if i < 2 else lib.ACL_FORMAT_ND))
    rc, ws, ex, msg = ws_call("ConvolutionBackward", *ts, A([co]), A(list(tup(s, nd))), A(list(tup(p, nd))),
                              A(list(tup(d, nd))), tr, A(list(tup(op, nd)) if tr else [0] * nd), g,
                              pyaclnn.bool_array(list(mask)), cube, *outs)
    assert rc == 0, msg
    assert run_executor("ConvolutionBackward", ex, ws) == 0
    return [None if o is None else o.numpy() for o in outs]


def torch_grads(torch, case, x, w, gy):
    _, nd, tr, n, ci, co, sp, k, s, p, d, op, g, has_b = case
    F = torch.nn.functional
    X = torch.tensor(x.astype(np.float64), requires_grad=True)
    W = torch.tensor(w.astype(np.float64), requires_grad=True)
    B = torch.zeros(co, dtype=torch.float64, requires_grad=True)
    s, p, d, op = tup(s, nd), tup(p, nd), tup(d, nd), tup(op, nd)
    y = getattr(F, f"conv_transpose{nd}d")(X, W, B, s, p, op, g, d) if tr else getattr(F, f"conv{nd}d")(X, W, B, s, p, d, g)
    y.backward(torch.from_numpy(gy.astype(np.float64)))
    return X.grad.numpy(), W.grad.numpy(), B.grad.numpy()


def check_bw(got, ref, dtype, scale=1.0):
    dtype = np.dtype(dtype)
    if dtype == F32:
        assert_close(got, ref, dtype, rtol=2e-5, atol=2e-5 * scale)
    else:
        assert_close(got, rounded(ref, dtype), dtype, atol=TOL_BW[dtype] * scale)


TOL_BW = {F16: 2e-3, BF16: 1e-2}
BW_IDS = ["c1_s2p1d2_g3", "c2_resnet_3x3", "c2_dil2_g2", "c2_depthwise", "c3_s2_g2", "t1_s3_d2_g2", "t2_s2_p1_op1",
          "t2_g2_d2", "t3_s2"]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", BW_IDS)
def test_backward_against_torch(cid, dtype, torch):
    case = CASES[IDS.index(cid)]
    x, w, _ = make(case, dtype, seed=11)
    gy = np.random.default_rng(12).uniform(-1, 1, out_shape(case)).astype(np.float32).astype(dtype)
    gx, gw, gb = backward(gy, x, w, case)
    rx, rw, rb = torch_grads(torch, case, x, w, gy)
    check_bw(gx, rx, dtype)
    check_bw(gw, rw, dtype)
    check_bw(gb, rb, dtype)


@pytest.mark.parametrize("mask", [(True, False, False), (False, True, False), (False, False, True),
                                  (False, True, True)])
def test_backward_output_mask(mask, torch):
    """Only the masked gradients are computed; the others may be NULL."""
    case = CASES[IDS.index("c2_dil2_g2")]
    x, w, _ = make(case, F32, seed=13)
    gy = np.random.default_rng(14).uniform(-1, 1, out_shape(case)).astype(np.float32)
    got = backward(gy, x, w, case, mask=mask)
    ref = torch_grads(torch, case, x, w, gy)
    for i in range(3):
        if mask[i]:
            check_bw(got[i], ref[i], F32)
        else:
            assert got[i] is None


@pytest.mark.parametrize("cid", ["c2_dil2_g2", "t2_g2_d2"])
def test_backward_mixed_dtypes_and_strided(cid, torch):
    case = CASES[IDS.index(cid)]
    x, w, _ = make(case, F16, seed=15, wdtype=BF16)
    gy = np.random.default_rng(16).uniform(-1, 1, out_shape(case)).astype(np.float32)
    views = [strided(np.full(x.shape, 7, F32), "transpose"), strided(np.full(w.shape, 7, F16), "slice"),
             strided(np.full((case[5],), 7, BF16), "slice")]
    got = backward(strided(gy, "slice"), strided(x, "transpose"), w, case, dts=(F32, F16, BF16), views=views)
    ref = torch_grads(torch, case, x, w, gy)
    check_bw(got[0], ref[0], F32)
    check_bw(got[1], ref[1], F16)
    check_bw(got[2], ref[2], BF16)


def test_backward_same_bytes_for_any_thread_count():
    code = """
import sys, hashlib, numpy as np
sys.path.insert(0, 'tests'); sys.path.insert(0, 'tests/ops')
from test_nn_conv import backward, CASES, IDS, make, out_shape
h = hashlib.sha256()
for cid in ("c2_resnet_3x3", "t2_s2_p1_op1"):
    case = CASES[IDS.index(cid)]
    x, w, _ = make(case, np.float32, seed=17)
    gy = np.random.default_rng(18).uniform(-1, 1, out_shape(case)).astype(np.float32)
    for a in backward(gy, x, w, case):
        h.update(a.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


def test_backward_empty_batch_zeroes_grad_weight_and_bias():
    """N = 0: gradWeight and gradBias are zero-filled, gradInput (empty) untouched."""
    gw = pyaclnn.AclTensor.from_array(np.full((4, 3, 3, 3), 7, np.float32), lib.ACL_FORMAT_NCHW)
    gb = pyaclnn.AclTensor.from_array(np.full((4,), 7, np.float32), lib.ACL_FORMAT_ND)
    rc, ws, ex, msg = ws_call("ConvolutionBackward", *bw_args(gradOutput=T((0, 4, 8, 8)), input=T((0, 3, 8, 8)),
                                                              gradInput=T((0, 3, 8, 8)), gradWeight=gw, gradBias=gb))
    assert rc == 0, msg
    assert run_executor("ConvolutionBackward", ex, ws) == 0
    assert not gw.numpy().any() and not gb.numpy().any()


def bw_args(**kw):
    """Valid defaults: conv2d input (2,3,8,8), weight (4,3,3,3), stride 1, padding 1 -> gradOutput (2,4,8,8)."""
    a = dict(gradOutput=T((2, 4, 8, 8)), input=T((2, 3, 8, 8)), weight=T((4, 3, 3, 3)), biasSizes=A([4]),
             stride=A([1, 1]), padding=A([1, 1]), dilation=A([1, 1]), transposed=False, outputPadding=A([0, 0]),
             groups=1, mask=pyaclnn.bool_array([True, True, True]), cube=0, gradInput=T((2, 3, 8, 8)),
             gradWeight=T((4, 3, 3, 3)), gradBias=T((4,), fmt="ND"))
    a.update(kw)
    return [a[k] for k in ("gradOutput", "input", "weight", "biasSizes", "stride", "padding", "dilation",
                           "transposed", "outputPadding", "groups", "mask", "cube", "gradInput", "gradWeight",
                           "gradBias")]


B = pyaclnn.bool_array
BW_INVALID = [
    ("null_grad_output", dict(gradOutput=None), 161001, "gradOutput"),
    ("null_input", dict(input=None), 161001, "input"),
    ("null_weight", dict(weight=None), 161001, "weight"),
    ("null_stride", dict(stride=None), 161001, "stride"),
    ("null_output_padding", dict(outputPadding=None), 161001, "outputPadding"),
    ("null_mask", dict(mask=None), 161001, "outputMask"),
    ("mask_len2", dict(mask=B([True, True])), 161001, "outputMask"),
    ("null_grad_input_masked", dict(gradInput=None), 161001, "gradInput"),
    ("null_grad_bias_masked", dict(gradBias=None), 161001, "gradBias"),
    ("dtype_grad_output", dict(gradOutput=T((2, 4, 8, 8), np.float64)), 161002, "gradOutput"),
    ("dtype_weight", dict(weight=T((4, 3, 3, 3), np.int32)), 161002, "weight"),
    ("dtype_grad_weight_unmasked_still_checked", dict(mask=B([True, False, True]), gradWeight=T((4, 3, 3, 3), np.int8)),
     161002, "gradWeight"),
    ("format_input", dict(input=T((2, 3, 8, 8), fmt="NHWC")), 161002, "input"),
    ("format_rank6", dict(weight=T((4, 3, 3, 3, 1, 1), fmt="ND")), 161002, "weight"),
    ("format_grad_bias", dict(gradBias=T((4,), fmt="NCHW")), 161002, "gradBias"),
    ("stride_zero", dict(stride=A([0, 1])), 161002, "stride"),
    ("padding_negative", dict(padding=A([-1, 1])), 161002, "padding"),
    ("dilation_zero", dict(dilation=A([1, 0])), 161002, "dilation"),
    ("output_padding_nonzero_not_transposed", dict(outputPadding=A([1, 0])), 161002, "outputPadding"),
    ("groups_zero", dict(groups=0), 161002, "groups"),
    ("cube_4", dict(cube=4), 161002, "cubeMathType"),
    ("rank_grad_output", dict(gradOutput=T((2, 4, 8), fmt="NCL")), 161002, "gradOutput"),
    ("grad_output_empty", dict(gradOutput=T((2, 4, 0, 8))), 161002, "gradOutput"),
    ("grad_input_shape", dict(gradInput=T((2, 3, 8, 7))), 161002, "gradInput"),
    ("grad_weight_shape", dict(gradWeight=T((4, 3, 3, 2))), 161002, "gradWeight"),
    ("grad_bias_size", dict(gradBias=T((5,), fmt="ND")), 161002, "gradBias"),
    ("stride_len", dict(stride=A([1])), 161002, "stride"),
    ("padding_len3", dict(padding=A([1, 1, 1])), 161002, "padding"),
    ("channels_weight_n", dict(weight=T((5, 3, 3, 3)), gradWeight=T((5, 3, 3, 3))), 161002, "weight"),
    ("channels_groups", dict(groups=3), 161002, "groups"),
    ("spatial_grad_output", dict(gradOutput=T((2, 4, 7, 8))), 161002, "gradOutput"),
    ("empty_bias_sizes_null", dict(input=T((0, 3, 8, 8)), gradOutput=T((0, 4, 8, 8)), gradInput=T((0, 3, 8, 8)),
                                   biasSizes=None), 161001, "biasSizes"),
    ("empty_bias_sizes_value", dict(input=T((0, 3, 8, 8)), gradOutput=T((0, 4, 8, 8)), gradInput=T((0, 3, 8, 8)),
                                    biasSizes=A([3])), 161002, "biasSizes"),
    ("empty_spatial_input", dict(input=T((2, 3, 0, 8)), gradInput=T((2, 3, 0, 8))), 161002, "input"),
    ("order_null_before_dtype", dict(input=T((2, 3, 8, 8), np.int32), weight=None), 161001, "weight"),
    ("order_dtype_before_format", dict(input=T((2, 3, 8, 8), np.int32, "ND")), 161002, "dtype"),
    ("order_format_before_values", dict(input=T((2, 3, 8, 8), fmt="ND"), stride=A([0, 1])), 161002, "format"),
    ("order_values_before_cube", dict(stride=A([0, 1]), cube=9), 161002, "stride"),
    ("order_cube_before_shapes", dict(cube=9, gradInput=T((2, 3, 8, 7))), 161002, "cubeMathType"),
]


@pytest.mark.parametrize("row", BW_INVALID, ids=[r[0] for r in BW_INVALID])
def test_backward_invalid(row):
    _, over, code, word = row
    expect_invalid("ConvolutionBackward", bw_args(**over), code, word)


# ---- aclnnConvTbc: self (T, B, C_in), weight (K, C_in, C_out), bias (C_out) -> (T + 2 pad - K + 1, B, C_out) ----

def conv_tbc(x, w, b, pad, out, fmt="ND", cube=0):
    f = getattr(lib, "ACL_FORMAT_" + fmt)
    xt, wt, yt = (pyaclnn.AclTensor.from_array(a, f) for a in (x, w, out))
    bt = pyaclnn.AclTensor.from_array(b, lib.ACL_FORMAT_ND)
    rc, ws, ex, msg = ws_call("ConvTbc", xt, wt, bt, pad, yt, cube)
    assert rc == 0, msg
    assert run_executor("ConvTbc", ex, ws) == 0
    return yt.numpy()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("t,bsz,ci,co,k,pad", [(9, 2, 3, 4, 3, 1), (6, 3, 5, 2, 1, 0), (5, 1, 4, 6, 4, 2)])
def test_tbc_against_torch(dtype, t, bsz, ci, co, k, pad, torch):
    rng = np.random.default_rng(21)
    x = rng.uniform(-1, 1, (t, bsz, ci)).astype(np.float32).astype(dtype)
    w = rng.uniform(-1, 1, (k, ci, co)).astype(np.float32).astype(dtype)
    b = rng.uniform(-1, 1, co).astype(np.float32).astype(dtype)
    ref = torch.conv_tbc(*(torch.from_numpy(a.astype(np.float64)) for a in (x, w, b)), pad).numpy()
    xs = strided(x, "transpose") if k == 3 else x
    y = conv_tbc(xs, w, b, pad, np.zeros(ref.shape, dtype), fmt="NCL" if k == 1 else "ND")
    check(y, ref, dtype)


def test_tbc_empty_channels_gives_bias():
    """C_in = 0 (self and weight empty): output is the bias broadcast over T and B."""
    b = np.arange(3, dtype=np.float32)
    y = conv_tbc(np.zeros((4, 2, 0), np.float32), np.zeros((3, 0, 3), np.float32), b, 1, np.zeros((4, 2, 3), np.float32))
    assert (y == np.broadcast_to(b, (4, 2, 3))).all()


def tbc_args(**kw):
    a = dict(self=T((9, 2, 3), fmt="ND"), weight=T((3, 3, 4), fmt="ND"), bias=T((4,), fmt="ND"), pad=1,
             output=T((9, 2, 4), fmt="ND"), cube=0)
    a.update(kw)
    return [a[k] for k in ("self", "weight", "bias", "pad", "output", "cube")]


TBC_INVALID = [
    ("null_self", dict(self=None), 161001, "self"),
    ("null_bias", dict(bias=None), 161001, "bias"),
    ("null_output", dict(output=None), 161001, "output"),
    ("rank_self", dict(self=T((9, 2, 3, 1), fmt="ND")), 161002, "self"),
    ("dtype_bias", dict(bias=T((4,), np.float64, "ND")), 161002, "bias"),
    ("dtype_self", dict(self=T((9, 2, 3), np.int32, "ND")), 161002, "self"),
    ("dtype_weight_differs", dict(weight=T((3, 3, 4), F16, "ND")), 161002, "weight"),
    ("dtype_output_differs", dict(output=T((9, 2, 4), F16, "ND")), 161002, "output"),
    ("bias_rank", dict(bias=T((4, 1), fmt="ND")), 161002, "bias"),
    ("format_self", dict(self=T((9, 2, 3), fmt="NCHW")), 161002, "self"),
    ("bias_size", dict(bias=T((5,), fmt="ND")), 161002, "bias"),
    ("kernel_zero", dict(weight=T((0, 3, 4), fmt="ND")), 161002, "kernel"),
    ("too_short", dict(self=T((1, 2, 3), fmt="ND"), pad=1, output=T((1, 2, 4), fmt="ND")), 161002, "self"),
    ("channels", dict(weight=T((3, 2, 4), fmt="ND")), 161002, "weight"),
    ("output_shape", dict(output=T((8, 2, 4), fmt="ND")), 161002, "output"),
    ("cube_5", dict(cube=5), 161002, "cubeMathType"),
]


@pytest.mark.parametrize("row", TBC_INVALID, ids=[r[0] for r in TBC_INVALID])
def test_tbc_invalid(row):
    _, over, code, word = row
    expect_invalid("ConvTbc", tbc_args(**over), code, word)


# ---- aclnnConvTbcBackward ----

def tbc_backward(gy, x, w, b, pad, dts=None):
    f = lib.ACL_FORMAT_ND
    ts = [pyaclnn.AclTensor.from_array(a, f) for a in (gy, x, w, b)]
    dts = dts or (x.dtype, w.dtype, b.dtype)
    outs = [pyaclnn.AclTensor.from_array(np.full(a.shape, 7, dt), f) for a, dt in zip((x, w, b), dts)]
    rc, ws, ex, msg = ws_call("ConvTbcBackward", *ts, pad, 0, *outs)
    assert rc == 0, msg
    assert run_executor("ConvTbcBackward", ex, ws) == 0
    return [o.numpy() for o in outs]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("t,bsz,ci,co,k,pad", [(9, 2, 3, 4, 3, 1), (5, 3, 4, 6, 4, 2)])
def test_tbc_backward_against_torch(dtype, t, bsz, ci, co, k, pad, torch):
    rng = np.random.default_rng(31)
    x = rng.uniform(-1, 1, (t, bsz, ci)).astype(np.float32).astype(dtype)
    w = rng.uniform(-1, 1, (k, ci, co)).astype(np.float32).astype(dtype)
    b = rng.uniform(-1, 1, co).astype(np.float32).astype(dtype)
    X, W, Bt = (torch.tensor(a.astype(np.float64), requires_grad=True) for a in (x, w, b))
    y = torch.conv_tbc(X, W, Bt, pad)
    gy = rng.uniform(-1, 1, tuple(y.shape)).astype(np.float32).astype(dtype)
    y.backward(torch.from_numpy(gy.astype(np.float64)))
    got = tbc_backward(gy, x, w, b, pad)
    for g, r in zip(got, (X.grad, W.grad, Bt.grad)):
        check_bw(g, r.numpy(), dtype)


def test_tbc_backward_empty_channels_fills_bias_grad():
    """C_in = 0 (the op_api's empty path): gradInput/gradWeight stay empty, gradBias = B * T_out."""
    got = tbc_backward(np.ones((5, 2, 3), np.float32), np.zeros((4, 2, 0), np.float32), np.zeros((2, 0, 3), np.float32),
                       np.zeros(3, np.float32), 1)
    assert (got[2] == 2 * 5).all()


def tbcbw_args(**kw):
    a = dict(self=T((9, 2, 4), fmt="ND"), input=T((9, 2, 3), fmt="ND"), weight=T((3, 3, 4), fmt="ND"),
             bias=T((4,), fmt="ND"), pad=1, cube=0, gradInput=T((9, 2, 3), fmt="ND"),
             gradWeight=T((3, 3, 4), fmt="ND"), gradBias=T((4,), fmt="ND"))
    a.update(kw)
    return [a[k] for k in ("self", "input", "weight", "bias", "pad", "cube", "gradInput", "gradWeight", "gradBias")]


TBCBW_INVALID = [
    ("null_self", dict(self=None), 161001, "self"),
    ("null_bias", dict(bias=None), 161001, "bias"),
    ("null_grad_bias", dict(gradBias=None), 161001, "gradBias"),
    ("dtype_input", dict(input=T((9, 2, 3), np.float64, "ND")), 161002, "input"),
    ("dtype_grad_weight", dict(gradWeight=T((3, 3, 4), np.int32, "ND")), 161002, "gradWeight"),
    ("format_weight", dict(weight=T((3, 3, 4), fmt="NCHW")), 161002, "weight"),
    ("format_bias_ncl", dict(bias=T((4,), fmt="NCL")), 161002, "bias"),
    ("self_empty", dict(self=T((9, 0, 4), fmt="ND")), 161002, "self"),
    ("rank_input", dict(input=T((9, 2, 3, 1), fmt="ND")), 161002, "input"),
    ("channels", dict(weight=T((3, 2, 4), fmt="ND")), 161002, "weight"),
    ("bias_size", dict(bias=T((5,), fmt="ND")), 161002, "bias"),
    ("pad_negative", dict(pad=-1), 161002, "pad"),
    ("self_shape", dict(self=T((8, 2, 4), fmt="ND")), 161002, "self"),
    ("grad_input_shape", dict(gradInput=T((9, 2, 4), fmt="ND")), 161002, "gradInput"),
    ("cube_4", dict(cube=4), 161002, "cubeMathType"),
]


@pytest.mark.parametrize("row", TBCBW_INVALID, ids=[r[0] for r in TBCBW_INVALID])
def test_tbc_backward_invalid(row):
    _, over, code, word = row
    expect_invalid("ConvTbcBackward", tbcbw_args(**over), code, word)


# ---- the Python functions ----

def test_python_convolution_and_backward(torch):
    rng = np.random.default_rng(41)
    x = rng.uniform(-1, 1, (2, 4, 9, 8)).astype(np.float32)
    w = rng.uniform(-1, 1, (6, 2, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, 6).astype(np.float32)
    F = torch.nn.functional
    X, W, Bt = (torch.tensor(a.astype(np.float64), requires_grad=True) for a in (x, w, b))
    ref = F.conv2d(X, W, Bt, 2, (1, 0), 1, 2)
    y = pyaclnn.convolution(x, w, b, stride=2, padding=[1, 0], groups=2)
    check(y, ref.detach().numpy(), F32)
    y16 = pyaclnn.convolution(x, w, b, stride=2, padding=[1, 0], groups=2, out_dtype=F16)
    check(y16, ref.detach().numpy(), F16)
    gy = rng.uniform(-1, 1, y.shape).astype(np.float32)
    ref.backward(torch.from_numpy(gy.astype(np.float64)))
    gx, gw, gb = pyaclnn.convolution_backward(gy, x, w, stride=2, padding=[1, 0], groups=2)
    for g, r in zip((gx, gw, gb), (X.grad, W.grad, Bt.grad)):
        check_bw(g, r.numpy(), F32)
    none, gw2, none2 = pyaclnn.convolution_backward(gy, x, w, 2, [1, 0], groups=2, output_mask=(False, True, False))
    assert none is None and none2 is None and (gw2 == gw).all()
    # transposed, 1-d
    wt = rng.uniform(-1, 1, (4, 3, 3)).astype(np.float32)
    x1 = x[:, :, 0, :]
    r1 = F.conv_transpose1d(torch.from_numpy(x1), torch.from_numpy(wt), None, 2, 1, 1).numpy()
    check(pyaclnn.convolution(x1, wt, None, 2, 1, 1, True, 1), r1, F32)


def test_python_depthwise_and_tbc(torch):
    rng = np.random.default_rng(42)
    x = rng.uniform(-1, 1, (1, 3, 7, 7)).astype(np.float32)
    w = rng.uniform(-1, 1, (6, 1, 3, 3)).astype(np.float32)
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), None, 1, 1, 1, 3).numpy()
    check(pyaclnn.conv_depthwise2d(x, w, None, 1, 1), ref, F32)
    xt = rng.uniform(-1, 1, (6, 2, 3)).astype(np.float32)
    wt = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    bt = rng.uniform(-1, 1, 4).astype(np.float32)
    X, W, Bt = (torch.tensor(a.astype(np.float64), requires_grad=True) for a in (xt, wt, bt))
    r = torch.conv_tbc(X, W, Bt, 1)
    check(pyaclnn.conv_tbc(xt, wt, bt, 1), r.detach().numpy(), F32)
    gy = rng.uniform(-1, 1, tuple(r.shape)).astype(np.float32)
    r.backward(torch.from_numpy(gy.astype(np.float64)))
    for g, rr in zip(pyaclnn.conv_tbc_backward(gy, xt, wt, bt, 1), (X.grad, W.grad, Bt.grad)):
        check_bw(g, rr.numpy(), F32)


# ---- aclnnDeformableConv2d: literal float64 reference (offset channels: x offsets, y offsets, masks) ----

def deform_ref(x, off, w, b, k, s, p, d, groups, dg):
    x, off, w = (a.astype(np.float64) for a in (x, off, w))
    n, c, h, wd = x.shape
    kh, kw = k
    oh, ow = off.shape[2], off.shape[3]
    K = kh * kw
    dfm = np.zeros((n, c, oh * kh, ow * kw))
    cpg = c // dg
    for b_ in range(n):
        for ch in range(c):
            g = ch // cpg
            for i in range(oh):
                for j in range(ow):
                    for a in range(kh):
                        for e in range(kw):
                            t = g * K + a * kw + e
                            px = j * s[1] - p[2] + e * d[1] + off[b_, t, i, j]
                            py = i * s[0] - p[0] + a * d[0] + off[b_, dg * K + t, i, j]
                            m = off[b_, 2 * dg * K + t, i, j]
                            x0, y0 = int(np.floor(px)), int(np.floor(py))
                            v = 0.0
                            for xx, yy, wt in ((x0, y0, (x0 + 1 - px) * (y0 + 1 - py)), (x0 + 1, y0, (px - x0) * (y0 + 1 - py)),
                                               (x0, y0 + 1, (x0 + 1 - px) * (py - y0)), (x0 + 1, y0 + 1, (px - x0) * (py - y0))):
                                if 0 <= xx < wd and 0 <= yy < h:
                                    v += wt * x[b_, ch, yy, xx]
                            dfm[b_, ch, i * kh + a, j * kw + e] = v * m
    D = dfm.reshape(n, c, oh, kh, ow, kw)
    co = w.shape[0]
    out = np.zeros((n, co, oh, ow))
    cg, og = c // groups, co // groups
    for g in range(groups):
        out[:, g * og:(g + 1) * og] = np.einsum("ocab,ncxayb->noxy", w[g * og:(g + 1) * og], D[:, g * cg:(g + 1) * cg])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out, dfm


def deform_run(x, w, off, b, k, s4, p4, d4, groups, dg, out_shape, dshape, modulated=True):
    f = lib.ACL_FORMAT_NCHW
    xt, wt, ot = (pyaclnn.AclTensor.from_array(a, f) for a in (x, w, off))
    bt = None if b is None else pyaclnn.AclTensor.from_array(b, lib.ACL_FORMAT_ND)
    yt = pyaclnn.AclTensor.from_array(np.full(out_shape, 7, x.dtype), f)
    dt = pyaclnn.AclTensor.from_array(np.full(dshape, 7, x.dtype), f)
    rc, ws, ex, msg = ws_call("DeformableConv2d", xt, wt, ot, bt, A(list(k)), A(s4), A(p4), A(d4), groups, dg,
                              modulated, yt, dt)
    assert rc == 0, msg
    assert run_executor("DeformableConv2d", ex, ws) == 0
    return yt.numpy(), dt.numpy()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cfg", [dict(c=4, co=6, hw=(6, 7), k=(3, 3), s=(1, 1), p=(1, 1, 1, 1), d=(1, 1), g=1, dg=1),
                                 dict(c=4, co=4, hw=(7, 6), k=(2, 3), s=(2, 1), p=(0, 1, 1, 0), d=(1, 2), g=2, dg=2)],
                         ids=["k3_p1", "k2x3_s2_g2_dg2"])
def test_deformable_against_reference(dtype, cfg):
    rng = np.random.default_rng(51)
    c, co, (h, w_), k, s, p, d, g, dg = (cfg[n] for n in ("c", "co", "hw", "k", "s", "p", "d", "g", "dg"))
    oh = (h + p[0] + p[1] - (k[0] - 1) * d[0] - 1) // s[0] + 1
    ow = (w_ + p[2] + p[3] - (k[1] - 1) * d[1] - 1) // s[1] + 1
    x = rng.uniform(-1, 1, (2, c, h, w_)).astype(np.float32).astype(dtype)
    w = rng.uniform(-1, 1, (co, c // g, k[0], k[1])).astype(np.float32).astype(dtype)
    off = rng.uniform(-2, 2, (2, 3 * dg * k[0] * k[1], oh, ow)).astype(np.float32)
    off[:, 2 * dg * k[0] * k[1]:] = rng.uniform(0, 1, off[:, 2 * dg * k[0] * k[1]:].shape)
    off = off.astype(dtype)
    b = rng.uniform(-1, 1, co).astype(np.float32).astype(dtype)
    ref, dref = deform_ref(x, off, w, b, k, s, p, d, g, dg)
    y, dfm = deform_run(x, w, off, b, k, [1, 1, s[0], s[1]], list(p), [1, 1, d[0], d[1]], g, dg, ref.shape,
                        dref.shape)
    check(dfm, dref, dtype)
    if np.dtype(dtype) == F32:
        assert_close(y, ref, F32, rtol=1e-4, atol=1e-4)
    else:
        assert_close(y, rounded(ref, dtype), dtype, atol=TOL_BW[np.dtype(dtype)] * 2)


def dc_args(**kw):
    a = dict(x=T((1, 4, 6, 6)), weight=T((6, 4, 3, 3)), offset=T((1, 27, 6, 6)), bias=T((6,), fmt="ND"),
             k=A([3, 3]), stride=A([1, 1, 1, 1]), padding=A([1, 1, 1, 1]), dilation=A([1, 1, 1, 1]), groups=1, dg=1,
             modulated=True, out=T((1, 6, 6, 6)), deform=T((1, 4, 18, 18)))
    a.update(kw)
    return [a[k] for k in ("x", "weight", "offset", "bias", "k", "stride", "padding", "dilation", "groups", "dg",
                           "modulated", "out", "deform")]


DC_INVALID = [
    ("null_x", dict(x=None), 161001, "x"),
    ("null_offset", dict(offset=None), 161001, "offset"),
    ("null_out", dict(out=None), 161001, "out"),
    ("null_dilation", dict(dilation=None), 161001, "dilation"),
    ("dtype_x", dict(x=T((1, 4, 6, 6), np.float64)), 161002, "x"),
    ("dtype_bias", dict(bias=T((6,), F16, "ND")), 161002, "biasOptional"),
    ("dtype_deform", dict(deform=T((1, 4, 18, 18), F16)), 161002, "deformOutOptional"),
    ("dtype_weight", dict(weight=T((6, 4, 3, 3), F16)), 161002, "weight"),
    ("format_x", dict(x=T((1, 4, 6, 6), fmt="NHWC")), 161002, "x"),
    ("format_offset", dict(offset=T((1, 27, 6, 6), fmt="ND")), 161002, "offset"),
    ("format_bias", dict(bias=T((6,), fmt="NCHW")), 161002, "biasOptional"),
    ("kernel_len", dict(k=A([3])), 161002, "kernelSize"),
    ("stride_len", dict(stride=A([1, 1])), 161002, "stride"),
    ("kernel_zero", dict(k=A([0, 3])), 161002, "kernelSize"),
    ("kernel_too_big", dict(k=A([64, 64])), 161002, "kernelSize"),
    ("stride_nc", dict(stride=A([2, 1, 1, 1])), 161002, "stride"),
    ("dilation_hw", dict(dilation=A([1, 1, 0, 1])), 161002, "dilation"),
    ("groups_zero", dict(groups=0), 161002, "groups"),
    ("deformable_groups_zero", dict(dg=0), 161002, "deformableGroups"),
    ("not_modulated", dict(modulated=False), 161002, "modulated"),
    ("rank_offset", dict(offset=T((27, 6, 6))), 161002, "offset"),
    ("dg_divides", dict(dg=3), 161002, "deformableGroups"),
    ("groups_divide", dict(groups=3), 161002, "groups"),
    ("weight_shape", dict(weight=T((6, 4, 3, 2))), 161002, "weight"),
    ("offset_shape", dict(offset=T((1, 18, 6, 6))), 161002, "offset"),
    ("bias_shape", dict(bias=T((5,), fmt="ND")), 161002, "biasOptional"),
    ("out_shape", dict(out=T((1, 6, 5, 6))), 161002, "out"),
    ("deform_shape", dict(deform=T((1, 4, 18, 17))), 161002, "deformOutOptional"),
]


@pytest.mark.parametrize("row", DC_INVALID, ids=[r[0] for r in DC_INVALID])
def test_deformable_invalid(row):
    _, over, code, word = row
    expect_invalid("DeformableConv2d", dc_args(**over), code, word)


def test_deformable_empty_batch_and_no_deform_out():
    rc, ws, ex, msg = ws_call("DeformableConv2d", *dc_args(x=T((0, 4, 6, 6)), offset=T((0, 27, 6, 6)),
                                                           out=T((0, 6, 6, 6)), deform=None))
    assert rc == 0, msg
    assert run_executor("DeformableConv2d", ex, ws) == 0
    args = dc_args(deform=None, bias=None)
    rc, ws, ex, msg = ws_call("DeformableConv2d", *args)
    assert rc == 0, msg
    assert run_executor("DeformableConv2d", ex, ws) == 0


# ---- aclnnQuantConvolution (A2: 3-d, int8, FLOAT scale, bias required, FLOAT16 / BFLOAT16 output) ----

def quant_run(x, w, b, sc, s, p, d, out_dtype, groups=1, xfmt="NCDHW"):
    f = getattr(lib, "ACL_FORMAT_" + xfmt)
    xt, wt = pyaclnn.AclTensor.from_array(x, f), pyaclnn.AclTensor.from_array(w, f)
    bt, st = (pyaclnn.AclTensor.from_array(a, lib.ACL_FORMAT_ND) for a in (b, sc))
    shape = (x.shape[0], w.shape[0]) + tuple((x.shape[2 + i] + 2 * p[i] - d[i] * (w.shape[2 + i] - 1) - 1) // s[i] + 1
                                              for i in range(3))
    yt = pyaclnn.AclTensor.from_array(np.full(shape, 7, out_dtype), f)
    rc, ws, ex, msg = ws_call("QuantConvolution", xt, wt, bt, st, None, A(list(s)), A(list(p)), A(list(d)), False,
                              A([0, 0, 0]), groups, 0, ffi.NULL, yt)
    assert rc == 0, msg
    assert run_executor("QuantConvolution", ex, ws) == 0
    return yt.numpy()


@pytest.mark.parametrize("odt,bdt", [(F16, F32), (F16, F16), (BF16, F32), (BF16, BF16)],
                         ids=["y16_b32", "y16_b16", "ybf16_b32", "ybf16_bbf16"])
def test_quant_against_torch(odt, bdt, torch):
    rng = np.random.default_rng(61)
    x = rng.integers(-128, 128, (2, 5, 5, 6, 7), dtype=np.int8)
    w = rng.integers(-128, 128, (3, 5, 3, 2, 3), dtype=np.int8)
    sc = rng.uniform(1e-4, 1e-3, 3).astype(np.float32)
    b = rng.uniform(-1, 1, 3).astype(np.float32).astype(bdt)
    s, p, d = (1, 2, 1), (1, 0, 1), (1, 1, 2)
    acc = torch.nn.functional.conv3d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)),
                                     None, s, p, d).numpy()  # exact integers
    ref = (acc.astype(np.float32) * sc[None, :, None, None, None] + b.astype(np.float32)[None, :, None, None, None])
    y = quant_run(x, w, b, sc, s, p, d, odt)
    assert_close(y, rounded(ref, odt), odt, rtol=0, atol=0)


def q_args(**kw):
    a = dict(input=T((1, 2, 4, 4, 4), np.int8, "NCDHW"), weight=T((3, 2, 3, 3, 3), np.int8, "NCDHW"),
             bias=T((3,), fmt="ND"), scale=T((3,), fmt="ND"), offset=None, stride=A([1, 1, 1]), padding=A([1, 1, 1]),
             dilation=A([1, 1, 1]), transposed=False, op=A([0, 0, 0]), groups=1, offsetx=0, rm=ffi.NULL,
             output=T((1, 3, 4, 4, 4), F16, "NCDHW"))
    a.update(kw)
    return [a[k] for k in ("input", "weight", "bias", "scale", "offset", "stride", "padding", "dilation",
                           "transposed", "op", "groups", "offsetx", "rm", "output")]


Q_INVALID = [
    ("null_bias_first", dict(bias=None, input=None), 161001, "bias"),
    ("null_input", dict(input=None), 161001, "input"),
    ("null_scale", dict(scale=None), 161001, "scale"),
    ("null_padding", dict(padding=None), 161001, "padding"),
    ("null_output", dict(output=None), 161001, "output"),
    ("scale_dtype", dict(scale=T((3,), F16, "ND")), 161002, "scale"),
    ("input_fp16", dict(input=T((1, 2, 4, 4, 4), F16, "NCDHW")), 161002, "dtypes"),
    ("output_fp32", dict(output=T((1, 3, 4, 4, 4), F32, "NCDHW")), 161002, "dtypes"),
    ("bias_bf16_with_fp16_out", dict(bias=T((3,), BF16, "ND")), 161002, "dtypes"),
    ("scale_rank", dict(scale=T((3, 1), fmt="ND")), 161002, "scale"),
    ("conv2d_not_on_a2", dict(input=T((1, 2, 4, 4), np.int8, "NCHW")), 161002, "input"),
    ("stride_len", dict(stride=A([1, 1])), 161002, "stride"),
    ("dilation_null", dict(dilation=None), 161002, "dilation"),
    ("padding_len6", dict(padding=A([1] * 6)), 161002, "padding"),
    ("format_bias", dict(bias=T((3,), fmt="NCHW")), 161002, "bias"),
    ("format_input", dict(input=T((1, 2, 4, 4, 4), np.int8, "NDHWC")), 161002, "input"),
    ("input_zero_dim", dict(input=T((0, 2, 4, 4, 4), np.int8, "NCDHW")), 161002, "input"),
    ("bias_size", dict(bias=T((4,), fmt="ND")), 161002, "bias"),
    ("scale_size", dict(scale=T((2,), fmt="ND")), 161002, "scale"),
    ("stride_zero", dict(stride=A([1, 0, 1])), 161002, "stride"),
    ("padding_negative", dict(padding=A([1, -1, 1])), 161002, "padding"),
    ("groups_2", dict(groups=2), 161002, "groups"),
    ("channels", dict(weight=T((3, 1, 3, 3, 3), np.int8, "NCDHW")), 161002, "weight"),
    ("output_shape", dict(output=T((1, 3, 4, 4, 3), F16, "NCDHW")), 161002, "output"),
]


@pytest.mark.parametrize("row", Q_INVALID, ids=[r[0] for r in Q_INVALID])
def test_quant_invalid(row):
    _, over, code, word = row
    expect_invalid("QuantConvolution", q_args(**over), code, word)
