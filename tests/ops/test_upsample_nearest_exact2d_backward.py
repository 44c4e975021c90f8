"""aclnnUpsampleNearestExact2dBackward: numpy references, PyTorch CPU, hardware-only cases, invalid inputs,
determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from helpers import DTYPES, DTYPE_IDS, assert_close, rounded, same_bytes_for_threads, strided, expect_invalid, ws_call
from reference.upsample import upsample_backward

OP = "UpsampleNearestExact2dBackward"
RNG = np.random.default_rng(3)

# (N, C, Ho, Wo, Hi, Wi, scales_h, scales_w): consistent sizes (PyTorch agrees with the kernel)
CONSISTENT = [
    (2, 3, 8, 8, 4, 4, 0.0, 0.0),        # integer scale 2, derived
    (2, 3, 8, 8, 4, 4, 2.0, 2.0),        # integer scale 2, given
    (1, 2, 9, 12, 3, 4, 3.0, 3.0),       # integer scale 3
    (2, 2, 6, 6, 4, 4, 0.0, 0.0),        # 1.5, derived
    (2, 2, 6, 6, 4, 4, 1.5, 1.5),        # 1.5, given
    (1, 3, 7, 5, 5, 4, 0.0, 0.0),        # non-integer up-sampling
    (1, 2, 3, 4, 7, 9, 0.0, 0.0),        # down-sampling (forward shrank)
    (1, 2, 2, 3, 5, 7, 0.5, 0.5),        # down-sampling, scales given
    (1, 1, 1, 1, 1, 1, 0.0, 0.0),        # sizes 1
    (2, 1, 1, 5, 1, 5, 0.0, 0.0),        # H = 1 identity
    (1, 2, 5, 1, 1, 1, 0.0, 0.0),        # from size 1 (x5 / x1)
    (1, 1, 1, 1, 4, 3, 0.0, 0.0),        # to size 1
    (1, 2, 5, 5, 5, 5, 0.0, 0.0),        # identity
    (1, 1, 10, 13, 4, 5, 2.5, 2.6),      # non-integer, given
    (1, 1, 50, 3, 1, 3, 0.0, 0.0),       # the 50x limit
    (3, 2, 17, 11, 6, 4, 0.0, 0.0),      # odd sizes
]


def _ids(cases):
    return ["x".join(str(v) for v in c) for c in cases]


def _scales(sh, sw):
    return (sh, sw)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", CONSISTENT, ids=_ids(CONSISTENT))
def test_numpy_reference(case, dtype):
    n, c, ho, wo, hi, wi, sh, sw = case
    g = RNG.standard_normal((n, c, ho, wo)).astype(dtype)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (n, c, hi, wi), (sh, sw))
    assert got.dtype == dtype and got.shape == (n, c, hi, wi)
    ref = upsample_backward(g, (hi, wi), (sh, sw))
    assert_close(got, rounded(ref, dtype), dtype)
    # the PyTorch scatter rule gives the same sums for consistent sizes
    assert_close(got, rounded(upsample_backward(g, (hi, wi), (sh, sw), rule="torch"), dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", CONSISTENT, ids=_ids(CONSISTENT))
def test_torch(case, dtype, torch):
    n, c, ho, wo, hi, wi, sh, sw = case
    g = RNG.standard_normal((n, c, ho, wo)).astype(dtype)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (n, c, hi, wi), (sh, sw))
    tg = torch.from_numpy(g.astype(np.float32))
    ref = torch.ops.aten._upsample_nearest_exact2d_backward(tg, [ho, wo], [n, c, hi, wi], sh or None, sw or None)
    assert_close(got, rounded(ref.double().numpy(), dtype), dtype)


@pytest.mark.parametrize("scale", [2.0, 1.5, 3.0, 0.5])
def test_torch_autograd_scale_factor(scale, torch):
    """ST golden: autograd of F.interpolate(scale_factor=s); scalesH/W are that forward factor."""
    x = torch.randn(2, 3, 6, 8, dtype=torch.float32, requires_grad=True)
    y = torch.nn.functional.interpolate(x, scale_factor=scale, mode="nearest-exact")
    gy = torch.randn_like(y)
    y.backward(gy)
    got = pyaclnn.upsample_nearest_exact2d_backward(gy.numpy(), tuple(y.shape[2:]), tuple(x.shape), (scale, scale))
    assert_close(got, x.grad.double().numpy(), np.float32)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_strided_views(kind, dtype):
    for n, c, ho, wo, hi, wi, sh, sw in [(2, 3, 8, 8, 4, 4, 0.0, 0.0), (2, 2, 9, 6, 6, 4, 0.0, 0.0)]:
        g = RNG.standard_normal((n, c, ho, wo)).astype(dtype)
        out = strided(np.full((n, c, hi, wi), 7, dtype), kind)
        got = pyaclnn.upsample_nearest_exact2d_backward(strided(g, kind), (ho, wo), (n, c, hi, wi), (sh, sw),
                                                        out=out)
        assert got is out
        assert_close(out, rounded(upsample_backward(g, (hi, wi), (sh, sw)), dtype), dtype)


def test_strided_output_only_inner_padding():
    """Output view with a gap between rows (row stride > W) and a view offset."""
    g = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    big = np.full((2, 3, 5, 9), -1.0, np.float32)
    out = big[:, :, 1:, 2:6]
    pyaclnn.upsample_nearest_exact2d_backward(g, (8, 8), (2, 3, 4, 4), out=out)
    assert_close(out, upsample_backward(g, (4, 4)), np.float32)
    assert (big[:, :, 0] == -1).all() and (big[:, :, :, :2] == -1).all() and (big[:, :, :, 6:] == -1).all()


# ---- hardware-only behaviour for inconsistent sizes (SPEC 4.3: positions past the last range are dropped) ----

def test_seed_003():
    g = np.arange(8, dtype=np.float32).reshape(1, 1, 4, 2)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (4, 2), (1, 1, 8, 4), (2.0, 2.0))
    want = np.zeros(32)
    want[0], want[4] = 6.0, 22.0  # rows {0,1} x cols {0,1} -> [0][0]; rows {2,3} x cols {0,1} -> [1][0]
    np.testing.assert_array_equal(got.ravel(), want)


def test_seed_003_scales_zero_and_half():
    g = np.arange(8, dtype=np.float32).reshape(1, 1, 4, 2)
    want = np.zeros((8, 4))
    want[1::2, 1::2] = np.arange(8).reshape(4, 2)  # rows 1,3,5,7 / cols 1,3 one-to-one
    for s in (0.0, 0.5):
        got = pyaclnn.upsample_nearest_exact2d_backward(g, (4, 2), (1, 1, 8, 4), (s, s))
        np.testing.assert_array_equal(got[0, 0], want)


def test_inconsistent_dropped_not_clamped(torch):
    # s = 1 on H with Ho = 6 > Hi = 2: row 0 <- {0}, row 1 <- {1}; rows 2..5 are dropped (PyTorch clamps them).
    g = np.arange(6, dtype=np.float32).reshape(1, 1, 6, 1) + 1
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (6, 1), (1, 1, 2, 1), (1.0, 0.0))
    np.testing.assert_array_equal(got.ravel(), [1.0, 2.0])
    tor = torch.ops.aten._upsample_nearest_exact2d_backward(torch.from_numpy(g), [6, 1], [1, 1, 2, 1], 1.0, None)
    np.testing.assert_array_equal(tor.numpy().ravel(), [1.0, 2.0 + 3 + 4 + 5 + 6])


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_inconsistent_scale2_fast_path(dtype):
    # gradOutput 5x5 -> input 2x2 with scales 2: blocks [2i, 2i+2); row 4 and column 4 are dropped.
    g = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5).astype(dtype)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (5, 5), (1, 1, 2, 2), (2.0, 2.0))
    np.testing.assert_array_equal(got.astype(np.float64).ravel(), [0 + 1 + 5 + 6, 2 + 3 + 7 + 8,
                                                                    10 + 11 + 15 + 16, 12 + 13 + 17 + 18])


@pytest.mark.parametrize("case", [(1, 2, 4, 2, 8, 4, 2.0, 2.0), (1, 1, 7, 9, 5, 5, 1.0, 3.0),
                                  (2, 1, 6, 6, 4, 4, 1.2, 0.7), (1, 1, 3, 3, 9, 9, 1.1, 0.2)],
                         ids=lambda c: "x".join(map(str, c)))
def test_inconsistent_numpy_kernel_rule(case):
    n, c, ho, wo, hi, wi, sh, sw = case
    g = RNG.standard_normal((n, c, ho, wo)).astype(np.float32)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (n, c, hi, wi), (sh, sw))
    assert_close(got, upsample_backward(g, (hi, wi), (sh, sw)), np.float32)


def test_large_fast_and_general_paths_match_reference():
    for ho, hi, s in [(64, 32, 0.0), (48, 32, 0.0), (40, 32, 0.0)]:
        g = RNG.standard_normal((2, 3, ho, ho)).astype(np.float32)
        got = pyaclnn.upsample_nearest_exact2d_backward(g, (ho, ho), (2, 3, hi, hi), (s, s))
        assert_close(got, upsample_backward(g, (hi, hi), (s, s)), np.float32)


def test_exact_fp32_sum_order():
    """fp32 accumulation, W sums first then H: (0 + (a + b)) + (c + d), rounded once."""
    a, b, c, d = 1.0, 2.0 ** -24, 2.0 ** -24, 2.0 ** -24
    g = np.array([[a, b], [c, d]], np.float32).reshape(1, 1, 2, 2)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (2, 2), (1, 1, 1, 1))
    f = np.float32
    want = f(f(0) + f(f(a) + f(b))) + f(f(c) + f(d))
    assert got.ravel()[0] == want


# ---- invalid inputs ----

def _t(shape, dtype=np.float32, fmt=None):
    return pyaclnn.AclTensor.from_array(np.zeros(shape, dtype), lib.ACL_FORMAT_NCHW if fmt is None else fmt)


def _args(**kw):
    a = dict(g=_t((1, 2, 8, 8)), osz=pyaclnn.int_array([8, 8]), isz=pyaclnn.int_array([1, 2, 4, 4]), sh=0.0, sw=0.0,
             out=_t((1, 2, 4, 4)))
    a.update(kw)
    return a


def _c_args(a):
    """The C argument list (before workspaceSize/executor) of an _args() dict."""
    return [a["g"], a["osz"], a["isz"], a["sh"], a["sw"], a["out"]]


def _call(a):
    return ws_call(OP, *_c_args(a))


NHWC = lib.ACL_FORMAT_NHWC
INVALID = [
    ("gradOutput NULL", dict(g=None), 161001, "gradOutput"),
    ("inputSize NULL", dict(isz=None), 161001, "inputSize"),
    ("out NULL", dict(out=None), 161001, "out"),
    ("dtype int32", dict(g=_t((1, 2, 8, 8), np.int32), out=_t((1, 2, 4, 4), np.int32)), 161002, "gradOutput"),
    ("dtype double", dict(g=_t((1, 2, 8, 8), np.float64), out=_t((1, 2, 4, 4), np.float64)), 161002, "gradOutput"),
    ("dtype mismatch", dict(out=_t((1, 2, 4, 4), np.float16)), 161002, "out"),
    ("format mismatch", dict(out=_t((1, 2, 4, 4), fmt=lib.ACL_FORMAT_ND)), 161002, "out"),
    # [EMU] the host code reads outputSize's length right after the format check, unchecked (a crash there)
    ("outputSize NULL", dict(osz=None), 161001, "outputSize"),
    ("format before outputSize NULL", dict(osz=None, out=_t((1, 2, 4, 4), fmt=lib.ACL_FORMAT_ND)), 161002, "format"),
    ("gradOutput rank 3", dict(g=_t((2, 8, 8))), 161002, "gradOutput"),
    ("out rank 5", dict(out=_t((1, 1, 2, 4, 4))), 161002, "out"),
    ("inputSize length 3", dict(isz=pyaclnn.int_array([2, 4, 4])), 161002, "inputSize"),
    ("outputSize length 3", dict(osz=pyaclnn.int_array([8, 8, 1])), 161002, "outputSize"),
    ("NHWC", dict(g=_t((1, 2, 8, 8), fmt=NHWC), out=_t((1, 2, 4, 4), fmt=NHWC)), 161002, "NHWC"),
    ("N mismatch", dict(out=_t((2, 2, 4, 4))), 161002, "out"),
    ("C mismatch", dict(out=_t((1, 3, 4, 4))), 161002, "out"),
    ("scalesH negative", dict(sh=-1.0), 161002, "scalesH"),
    ("scalesW negative", dict(sw=-0.5), 161002, "scalesW"),
    ("scalesH over 50x", dict(sh=50.5), 161002, "scalesH"),
    ("scalesW over 50x", dict(sw=51.0), 161002, "scalesW"),
    ("derived H over 50x", dict(g=_t((1, 2, 51, 8)), isz=pyaclnn.int_array([1, 2, 1, 4]),
                                out=_t((1, 2, 1, 4))), 161002, "scalesH"),
    ("inputSize H 0", dict(sh=2.0, isz=pyaclnn.int_array([1, 2, 0, 4])), 161002, "inputSize"),
    ("inputSize W negative", dict(sw=2.0, isz=pyaclnn.int_array([1, 2, 4, -4])), 161002, "inputSize"),
    # [HW] the result (N, C, inputSize[2], inputSize[3]) is copied into out at the end of phase 1 (561103)
    ("out H != inputSize[2]", dict(out=_t((1, 2, 5, 4))), 561103, "out"),
    ("out W != inputSize[3]", dict(out=_t((1, 2, 4, 3))), 561103, "out"),
    ("sizes before the copy", dict(out=_t((1, 2, 5, 4)), isz=pyaclnn.int_array([1, 2, 0, 4])), 161002,
     "inputSize"),
]


@pytest.mark.parametrize("name,kw,code,word", INVALID, ids=[r[0] for r in INVALID])
def test_invalid(name, kw, code, word):
    expect_invalid(OP, _c_args(_args(**kw)), code, word)


def test_valid_limits_pass():
    # exactly 50x, the ratio 0.02 is allowed; outputSize values are never read; inputSize N, C not checked
    for kw in [dict(sh=50.0, sw=50.0), dict(osz=pyaclnn.int_array([-3, 0])), dict(isz=pyaclnn.int_array([9, 9, 4, 4])),
               dict(g=_t((1, 2, 50, 8)), isz=pyaclnn.int_array([1, 2, 1, 4]), out=_t((1, 2, 1, 4)))]:
        rc, _, ex, msg = _call(_args(**kw))
        assert rc == 0, msg
        lib.aclDestroyAclOpExecutor(ex)


def test_null_workspace_size_or_executor():
    a = _args()
    pyaclnn.ensure_device()
    fn = lib.aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    # checked first: even a NULL gradOutput reports the workspaceSize/executor problem
    assert fn(ffi.NULL, a["osz"], a["isz"], 0.0, 0.0, a["out"].handle, ffi.NULL, ex) == 161001
    assert fn(a["g"].handle, a["osz"], a["isz"], 0.0, 0.0, a["out"].handle, ws, ffi.NULL) == 161001


def test_order_empty_before_everything():
    # empty gradOutput or out: success before dtype/shape checks; out untouched
    for kw in [dict(g=_t((1, 2, 0, 8), np.int32)), dict(out=_t((0, 5, 4), np.int64)),
               dict(g=_t((0, 2, 8, 8)), osz=pyaclnn.int_array([1]), sh=-1.0)]:
        rc, ws, ex, msg = _call(_args(**kw))
        assert rc == 0 and ws == 0, msg
        assert lib.aclnnUpsampleNearestExact2dBackward(ffi.NULL, 0, ex, ffi.NULL) == 0
    out = np.full((1, 2, 0, 4), 3.0, np.float32)
    pyaclnn.upsample_nearest_exact2d_backward(np.zeros((1, 2, 8, 8), np.float32), (8, 8), (1, 2, 0, 4), out=out)
    out = np.full((1, 2, 4, 4), 3.0, np.float32)
    pyaclnn.upsample_nearest_exact2d_backward(np.zeros((1, 2, 0, 8), np.float32), (0, 8), (1, 2, 4, 4), out=out)
    assert (out == 3.0).all()


def test_order_of_checks():
    # NULL checks before the empty early return; gradOutput named before out
    rc, _, _, msg = _call(_args(g=None, out=None))
    assert rc == 161001 and "gradOutput" in msg
    rc, _, _, msg = _call(_args(g=_t((1, 2, 0, 8)), isz=None))
    assert rc == 161001 and "inputSize" in msg
    # outputSize is not NULL-checked before the empty early return (HEAD): an empty gradOutput succeeds
    rc, ws, ex, msg = _call(_args(g=_t((1, 2, 0, 8)), osz=None))
    assert rc == 0 and ws == 0, msg
    assert lib.aclnnUpsampleNearestExact2dBackward(ffi.NULL, 0, ex, ffi.NULL) == 0
    # dtype before rank, rank before NHWC, NHWC before N/C, N/C before scales, scales before 50x/sizes
    rc, _, _, msg = _call(_args(g=_t((2, 8, 8), np.int32), out=_t((1, 2, 4, 4), np.int32)))
    assert rc == 161002 and "dtype" in msg
    rc, _, _, msg = _call(_args(g=_t((1, 2, 8), fmt=NHWC), out=_t((1, 2, 4, 4), fmt=NHWC)))
    assert rc == 161002 and "dimensional" in msg
    rc, _, _, msg = _call(_args(g=_t((1, 2, 8, 8), fmt=NHWC), out=_t((3, 2, 4, 4), fmt=NHWC)))
    assert rc == 161002 and "NHWC" in msg
    rc, _, _, msg = _call(_args(out=_t((3, 2, 4, 4)), sh=-1.0))
    assert rc == 161002 and "N" in msg and "scalesH" not in msg
    rc, _, _, msg = _call(_args(sh=-1.0, isz=pyaclnn.int_array([1, 2, 0, 4])))
    assert rc == 161002 and "scalesH" in msg


# ---- determinism ----

def test_threads_bitwise_identical():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
for (ho, wo, hi, wi, s) in [(64, 64, 32, 32, 0.0), (48, 40, 32, 32, 0.0), (37, 29, 11, 13, 0.0), (64, 64, 32, 32, 1.7)]:
    for dt in (np.float32, np.float16, pyaclnn.bfloat16):
        g = rng.standard_normal((3, 5, ho, wo)).astype(dt)
        h.update(pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (3, 5, hi, wi), (s, s)).tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(4, 8, 2, 4), (3, 6, 2, 4), (2, 3, 2, 3)], ids=["x2", "x1.5", "x1"])
def test_special_values_rounded_once(dtype, shape):
    """inf, NaN, overflow of the sum, half/bf16 subnormals and ties: one RNE rounding of the fp32 sum."""
    ho, wo, hi, wi = shape
    vals = np.array([np.inf, -np.inf, np.nan, 65504.0, 65504.0, 6e-8, 3e-8, 1.0 + 2 ** -11, 2 ** -11, -0.0,
                     3.0e38, 3.0e38, 1e-40, -2.5, 1.00390625, 0.5], np.float64)
    with np.errstate(over="ignore"):
        g = np.resize(vals, ho * wo).reshape(1, 1, ho, wo).astype(dtype)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (1, 1, hi, wi))
    # the fp32 sum recomputed with float32 arithmetic in the documented order (W fold, then H), rounded once
    f = np.float32
    g32 = g.astype(np.float32)[0, 0]
    from reference.upsample import kernel_range
    want = np.zeros((hi, wi), np.float32)
    with np.errstate(all="ignore"):
        for i in range(hi):
            rlo, rhi = kernel_range(i, hi, ho, 0.0)
            for j in range(wi):
                clo, chi = kernel_range(j, wi, wo, 0.0)
                acc = f(0.0)
                for r in range(rlo, rhi):
                    s = g32[r, clo]
                    for t in range(clo + 1, chi):
                        s = f(s + g32[r, t])
                    acc = f(acc + s)
                want[i, j] = acc
    with np.errstate(over="ignore"):
        want = want.astype(dtype)
    assert np.array_equal(np.isnan(got[0, 0].astype(np.float32)), np.isnan(want.astype(np.float32)))
    ok = ~np.isnan(want.astype(np.float32))
    np.testing.assert_array_equal(got[0, 0][ok].view(np.uint16 if dtype.itemsize == 2 else np.uint32),
                                  want[ok].view(np.uint16 if dtype.itemsize == 2 else np.uint32))


# ---- the AVX-512 path (W ranges of at most 2 columns: scales in [1, 2], down-sampling) and its scalar twin ----

# (N, C, Ho, Wo, Hi, Wi, scales_h, scales_w); Wi spans several 16-column blocks with partial tails
SIMD_CASES = [
    (2, 3, 96, 96, 64, 64, 0.0, 0.0),     # x1.5, derived (the bench shape, smaller N, C)
    (1, 2, 96, 99, 64, 66, 1.5, 1.5),     # x1.5, given
    (2, 2, 27, 51, 18, 34, 0.0, 0.0),     # x1.5, derived, odd sizes, W tail of 2
    (1, 3, 40, 34, 20, 17, 2.0, 2.0),     # x2, W tail of 1
    (1, 2, 31, 45, 17, 31, 0.0, 0.0),     # odd non-integer up-sampling (ranges of 1 and 2)
    (2, 1, 13, 23, 29, 47, 0.0, 0.0),     # down-sampling: empty ranges
    (1, 2, 9, 20, 19, 40, 0.5, 0.5),      # down-sampling, scales given
    (1, 1, 5, 33, 3, 33, 0.0, 0.0),       # identity on W
]


def _row_strided(arr, pad=5):
    """A view with unit W stride but padded rows and an offset (keeps the SIMD path)."""
    big = np.zeros(arr.shape[:-1] + (arr.shape[-1] + pad,), arr.dtype)
    view = big[..., 2:2 + arr.shape[-1]]
    view[...] = arr
    return view


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", SIMD_CASES, ids=_ids(SIMD_CASES))
def test_simd_cases_numpy(case, dtype):
    n, c, ho, wo, hi, wi, sh, sw = case
    g = RNG.standard_normal((n, c, ho, wo)).astype(dtype)
    ref = rounded(upsample_backward(g, (hi, wi), (sh, sw)), dtype)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (n, c, hi, wi), (sh, sw))
    assert_close(got, ref, dtype)
    # gradOutput and out with padded rows (unit W stride), and a transposed out (fp32 buffer + scalar store)
    out = _row_strided(np.full((n, c, hi, wi), 9, dtype))
    pyaclnn.upsample_nearest_exact2d_backward(_row_strided(g), (ho, wo), (n, c, hi, wi), (sh, sw), out=out)
    np.testing.assert_array_equal(np.ascontiguousarray(out), got)
    out = strided(np.full((n, c, hi, wi), 9, dtype), "transpose")
    pyaclnn.upsample_nearest_exact2d_backward(_row_strided(g), (ho, wo), (n, c, hi, wi), (sh, sw), out=out)
    np.testing.assert_array_equal(np.ascontiguousarray(out), got)


@pytest.mark.parametrize("case", SIMD_CASES[:3] + SIMD_CASES[5:7], ids=_ids(SIMD_CASES[:3] + SIMD_CASES[5:7]))
def test_simd_torch(case, torch):
    n, c, ho, wo, hi, wi, sh, sw = case
    for dtype in DTYPES:
        g = RNG.standard_normal((n, c, ho, wo)).astype(dtype)
        got = pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (n, c, hi, wi), (sh, sw))
        tg = torch.from_numpy(g.astype(np.float32))
        ref = torch.ops.aten._upsample_nearest_exact2d_backward(tg, [ho, wo], [n, c, hi, wi], sh or None, sw or None)
        assert_close(got, rounded(ref.double().numpy(), dtype), dtype)


def test_simd_path_bitwise_equals_scalar_path():
    """PYACLNN_SIMD=avx2 selects the non-AVX-512 kernels, off the portable ones (x86: the fused SSE2 x2 rows of
    fp16 / bf16); every level must give the same bytes (special values included)."""
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(5)
h = hashlib.sha256()
vals = np.array([np.inf, -np.inf, np.nan, 65504.0, 65504.0, 6e-8, 3e-8, 1.0 + 2 ** -11, 2 ** -11, -0.0, -0.0,
                 3.0e38, 3.0e38, 1e-40, -2.5, 1.00390625, 0.5, 7.0])
cases = [(96, 96, 64, 64, 0.0), (96, 99, 64, 66, 1.5), (27, 51, 18, 34, 0.0), (40, 34, 20, 17, 2.0),
         (31, 45, 17, 31, 0.0), (13, 23, 29, 47, 0.0), (9, 20, 19, 40, 0.5), (5, 33, 3, 33, 0.0),
         (16, 118, 8, 59, 0.0)]
for ho, wo, hi, wi, s in cases:
    for dt in (np.float32, np.float16, pyaclnn.bfloat16):
        for special in (False, True):
            with np.errstate(all="ignore"):
                g = (rng.choice(vals, (2, 3, ho, wo)) if special else rng.standard_normal((2, 3, ho, wo))).astype(dt)
            h.update(pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (2, 3, hi, wi), (s, s)).tobytes())
            big = np.zeros((2, 3, wi, hi), dt)
            out = big.transpose(0, 1, 3, 2)
            pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (2, 3, hi, wi), (s, s), out=out)
            h.update(big.tobytes())
print(h.hexdigest())
"""
    from helpers import run_python
    fast = run_python(code)
    assert fast == run_python(code, {"PYACLNN_SIMD": "avx2"})
    assert fast == run_python(code, {"PYACLNN_SIMD": "off"})
    assert fast == run_python(code, {"OMP_NUM_THREADS": "3"})


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_large_streaming_stores(dtype):
    """At least UPNX_NT_BYTES (16 MiB) moved: whole aligned output vectors are written with non-temporal stores;
    padded output rows make some blocks unaligned (regular stores), and the results must not change."""
    nc = 320 if dtype.itemsize == 4 else 640
    n, c, ho, wo, hi, wi = 2, nc // 2, 96, 96, 64, 64
    g = RNG.standard_normal((n, c, ho, wo)).astype(dtype)
    ref = rounded(upsample_backward(g, (hi, wi)), dtype)
    got = pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (n, c, hi, wi))
    assert_close(got, ref, dtype)
    out = _row_strided(np.zeros((n, c, hi, wi), dtype), pad=3)
    pyaclnn.upsample_nearest_exact2d_backward(g, (ho, wo), (n, c, hi, wi), out=out)
    np.testing.assert_array_equal(np.ascontiguousarray(out), got)
    code = f"""
import hashlib, numpy as np, pyaclnn
g = np.random.default_rng(1).standard_normal(({n}, {c}, {ho}, {wo})).astype(np.dtype("{dtype.name}") if "{dtype.name}" != "bfloat16" else pyaclnn.bfloat16)
print(hashlib.sha256(pyaclnn.upsample_nearest_exact2d_backward(g, ({ho}, {wo}), ({n}, {c}, {hi}, {wi})).tobytes()).hexdigest())
"""
    from helpers import run_python
    assert run_python(code) == run_python(code, {"PYACLNN_SIMD": "avx2"})
