"""The elementwise engine's per-op rules that the generated table tests (test_table_elementwise.py) do not reach:
storage-format rules, the early empty return, ops without the rank limit, COMPLEX32 out, op hooks (bounds, modes,
bool ** bool, a 0-d fill value), compute dtypes other than the promoted one (DivMod, Div, Clamp, LogAddExp, AddV3)
and the ops A2 refuses. References are PyTorch CPU or literal numbers."""
import numpy as np
import pytest

from table_harness import expect_status, make_scalar, rand
import pyaclnn
from pyaclnn.lowlevel import AclTensor, DeviceBuffer, ffi, lib

NC1HWC0, NHWC, NCHW, ND, NZ = 3, 1, 0, 2, 29
OK, NULL, INVALID, INNER_NULL = 0, 161001, 161002, 561103


def T(shape, dt=np.float32, fmt=None, strides=None, rng=np.random.default_rng(0)):
    if strides is None:
        return AclTensor.from_array(rand(rng, shape, {np.float32: "f32", np.float16: "f16", np.int32: "i32",
                                                      np.int64: "i64", np.bool_: "bool", np.float64: "f64",
                                                      np.int8: "i8", np.uint8: "u8", np.complex64: "c64"}[dt]), fmt)
    return AclTensor(shape, dt, strides, 0, fmt)


# ---- storage formats ----
@pytest.mark.parametrize("op,args,word", [
    ("Abs", lambda: [T((3, 3, 3), fmt=NC1HWC0), T((3, 3, 3), fmt=NC1HWC0)], "self"),       # private self
    ("Abs", lambda: [T((3, 3, 3), fmt=NHWC), T((3, 3, 3), fmt=NCHW)], "self"),             # self/out differ
    ("Reciprocal", lambda: [T((2, 3), fmt=NZ), T((2, 3))], "self"),
    ("Round", lambda: [T((2, 3)), T((2, 3), fmt=NZ)], "out"),
    ("LeftShift", lambda: [T((2, 2, 2, 2, 2), np.int32), T((2, 2, 2, 2, 2), np.int32),
                           T((2, 2, 2, 2, 2), np.int32, fmt=NC1HWC0)], "out"),
    ("BitwiseAndTensorOut", lambda: [T((2, 3), np.int32, fmt=NHWC), T((2, 3), np.int32), T((2, 3), np.int32)],
     "self"),
    ("Digamma", lambda: [T((3, 3, 3), fmt=NHWC), T((3, 3, 3), fmt=NCHW)], "self"),
])
def test_format_rules(op, args, word):
    a = args()
    expect_status(op, a, INVALID, word)


def test_format_rules_accept_public_formats():
    expect_status("Abs", [T((3, 3, 3), fmt=NHWC), T((3, 3, 3), fmt=NHWC)], OK)
    expect_status("LogicalNot", [T((2, 3), fmt=NC1HWC0), AclTensor.empty((2, 3), np.bool_)], OK)  # no format rule


# ---- the early empty return: before the checks it precedes ----
def test_early_empty_before_out_shape():
    # LeTensor / NeTensor return for empty inputs before checking out's shape
    for op in ("LeTensor", "NeTensor"):
        expect_status(op, [T((2, 0), np.int8), T((2, 0), np.int8), AclTensor.empty((2, 3), np.int8)], OK)
        expect_status(op, [T((2, 1), np.int8), T((2, 1), np.int8), AclTensor.empty((2, 3), np.int8)], INVALID, "out")
    # Complex returns for empty parts before any dtype check
    expect_status("Complex", [T((3, 0)), T((3, 0)), AclTensor.empty((3, 0), np.float32)], OK)
    expect_status("Complex", [T((3, 1)), T((3, 1)), AclTensor.empty((3, 1), np.float32)], INVALID, "out")


# ---- ops without the rank limit ----
def test_rank_nine(torch):
    x = rand(np.random.default_rng(1), (1, 2, 1, 1, 2, 1, 1, 1, 2), "f32")
    out = np.empty_like(x)
    pyaclnn.call("Sign", x, out)
    np.testing.assert_array_equal(out, torch.sign(torch.from_numpy(x)).numpy())
    z = np.ones((2, 1, 2, 1, 2, 1, 2, 1, 2), np.float32)
    pyaclnn.call("InplaceZero", z)
    assert not z.any()
    # LogicalNot: more than 8 dims only when every tensor is contiguous
    expect_status("LogicalNot", [T((1,) * 8 + (2,)), AclTensor.empty((1,) * 8 + (2,), np.bool_)], OK)
    big = AclTensor((2,) * 9, np.float32, tuple(2 ** (9 - k) for k in range(9)), 0)  # every other element
    expect_status("LogicalNot", [big, AclTensor.empty((2,) * 9, np.bool_)], INVALID, "self")
    expect_status("Abs", [T((1,) * 8 + (2,)), T((1,) * 8 + (2,))], INVALID, "self")


# ---- COMPLEX32 out of aclnnComplex(fp16, fp16) ----
def test_complex32_out(torch):
    re = np.array([[1.5, -2.25, 65504.0], [np.inf, np.nan, 0.1]], np.float16)
    im = np.array([[0.5, 3.0, -1.0], [-0.0, 2.0, 1e-4]], np.float16)
    buf = DeviceBuffer(re.size * 4)
    dims = ffi.new("int64_t[]", [2, 3])
    st = ffi.new("int64_t[]", [3, 1])
    out = ffi.gc(lib.aclCreateTensor(dims, 2, lib.ACL_COMPLEX32, st, 0, ND, dims, 2, buf.ptr), lib.aclDestroyTensor)
    a, b = AclTensor.from_array(re), AclTensor.from_array(im)
    pyaclnn.lowlevel.launch("Complex", a, b, out)
    got = np.empty(re.size * 2, np.float16)
    buf.download(got.view(np.uint8))
    ref = torch.complex(torch.from_numpy(re), torch.from_numpy(im)).view(torch.float16).reshape(-1).numpy()
    np.testing.assert_array_equal(got.view(np.uint16), ref.view(np.uint16))
    expect_status("Complex", [AclTensor.from_array(re), AclTensor.from_array(im),
                              AclTensor.empty((2, 3), np.complex64)], INVALID, "out")


# ---- op hooks ----
def test_hooks():
    x = T((2, 3))
    expect_status("Hardtanh", [x, make_scalar(3.5), make_scalar(2.5), T((2, 3))], INVALID, "min")
    expect_status("Hardtanh", [x, make_scalar(True), make_scalar(2.5), T((2, 3))], INVALID, "clipValueMin")
    expect_status("Clamp", [x, None, None, T((2, 3))], NULL, "clipValueMin")
    expect_status("Clamp", [x, None, make_scalar(1.0), T((2, 3))], OK)
    expect_status("PowTensorTensor", [T((2, 3), np.bool_), T((2, 3), np.bool_), T((2, 3))], INVALID, "exponent")
    expect_status("InplaceMaskedFillTensor", [T((2, 3), np.int32), T((2, 3), np.bool_), T((1,))], INVALID, "value")
    expect_status("InplaceMaskedFillTensor", [T((2, 3), np.int32), T((2, 3), np.uint8), T(())], INVALID, "mask")
    expect_status("Square", [T((2, 3)), T((2, 3))], INVALID, "Square")     # A2: "not implemented"
    expect_status("Square", [None, T((2, 3))], NULL, "self")
    expect_status("MaskedScale", [T((2, 3)), T((2, 3), np.uint8), 1.0, T((2, 3))], INVALID, "MaskedScale")
    expect_status("InplaceTan", [T((2, 3), np.int32)], INVALID, "selfRef")  # the float result can't go back to int
    expect_status("BitwiseNot", [None, T((2, 3), np.int32)], INNER_NULL, "self")
    expect_status("DivMod", [T((2, 3)), T((2, 3)), 3, T((2, 3))], INVALID, "mode")
    expect_status("DivMod", [T((2, 3), np.complex64), T((2, 3), np.complex64), 1,
                             AclTensor.empty((2, 3), np.complex64)], INVALID, "COMPLEX")


def test_masked_fill_tensor_values():
    self_ = np.arange(12, dtype=np.int32).reshape(3, 4)
    mask = (np.arange(4) % 2 == 0)
    pyaclnn.call("InplaceMaskedFillTensor", self_, mask, np.array(-7.9, np.float32))
    ref = np.arange(12, dtype=np.int32).reshape(3, 4)
    ref[:, mask] = -7  # the value converted to self's dtype
    np.testing.assert_array_equal(self_, ref)


# ---- compute dtypes apart from the promoted one ----
@pytest.mark.parametrize("dt", ["f32", "f64", "i32", "i64", "f16"])
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_divmod_modes(torch, dt, mode):
    rng = np.random.default_rng(mode)
    a, b = rand(rng, (4, 5), dt, (-9, 9)), rand(rng, (4, 5), dt, (1, 5))
    rm = [None, "trunc", "floor"][mode]
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    ref = torch.div(ta.double(), tb.double(), rounding_mode=rm) if dt != "f16" else torch.div(ta, tb, rounding_mode=rm)
    out = np.empty((4, 5), np.float64 if dt in ("i32", "i64", "f64") else np.float32)
    pyaclnn.call("DivMod", a, b, mode, out)
    # f64 true/truncating division runs in float32 on A2
    tol = 1e-3 if dt == "f16" else 1e-12 if mode == 2 and dt != "f32" else 1e-6
    np.testing.assert_allclose(out, ref.double().numpy(), rtol=tol, atol=tol)
    s = np.empty((4, 5), out.dtype)
    pyaclnn.call("DivMods", a, 3 if dt[0] == "i" else 2.5, mode, s)
    ref = torch.div(ta.double(), 3 if dt[0] == "i" else 2.5, rounding_mode=rm)
    np.testing.assert_allclose(s, ref.numpy(), rtol=1e-3 if dt == "f16" else 1e-6, atol=1e-3 if dt == "f16" else 1e-6)


def test_div_int_out():
    # aclnnDiv: out must take PromoteType(int32, int32) = INT32; the quotient is the real one, then cast (truncated)
    a, b = np.array([7, -7, 9], np.int32), np.array([2, 2, 4], np.int32)
    out = np.empty(3, np.int32)
    pyaclnn.call("Div", a, b, out)
    np.testing.assert_array_equal(out, [3, -3, 2])


def test_clamp_in_out_dtype():
    # A2: self is cast to out's dtype first, the bounds converted to it, then clamped
    x = np.array([2, -3, 0], np.int32)
    out = np.empty(3, np.float32)
    pyaclnn.call("Clamp", x, -1.5, 1.5, out)
    np.testing.assert_array_equal(out, [1.5, -1.5, 0])
    out = np.empty(3, np.int8)
    pyaclnn.call("ClampMax", np.array([300, -3, 7], np.int32), 5, out)  # int32 300 -> int8 44, then min(44, 5)
    np.testing.assert_array_equal(out, [5, -3, 5])
    expect_status("Clamp", [T((3,)), make_scalar(-1.0), make_scalar(1.0), T((3,), np.int32)], INVALID, "self")
    expect_status("Clamp", [T((3,), np.int32), make_scalar(-1), make_scalar(1), T((3,), np.bool_)], INVALID, "out")


def test_logaddexp_out_dtype(torch):
    a, b = np.array([0.5, -1.0, 30.0]), np.array([1.0, -1.0, 29.5])
    out = np.empty(3, np.float32)
    pyaclnn.call("LogAddExp", a, b, out)
    ref = torch.logaddexp(torch.from_numpy(a).float(), torch.from_numpy(b).float()).numpy()
    np.testing.assert_allclose(out, ref, rtol=1.3e-6, atol=1e-6)
    expect_status("LogAddExp", [T((3,), np.float64), T((3,), np.float64), T((3,), np.float64)], INVALID, "out")


def test_addv3_promotion(torch):
    # a floating other computes in FLOAT: fp16 other + scalar gives fp32 results before the cast to out
    other = np.array([1.0, 2.0, 3.0], np.float16)
    out = np.empty(3, np.float32)
    pyaclnn.call("AddV3", 0.1, other, 1.2, out)
    ref = np.float32(0.1) + np.float32(1.2) * other.astype(np.float32)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    expect_status("AddV3", [make_scalar(1), T((3,), np.int32), make_scalar(1.5), T((3,), np.int32)], INVALID,
                  "alpha")
    expect_status("AddV3", [make_scalar(1.5), T((3,), np.int32), make_scalar(1), T((3,), np.int32)], INVALID,
                  "out")
    expect_status("AddV3", [make_scalar(1.5), T((3,), np.int64), make_scalar(1), T((3,), np.int64)], INVALID,
                  "other")
