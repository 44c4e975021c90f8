"""aclnnUpsampleNearestExact2d (forward): bit-exact gather against numpy and PyTorch, views, NHWC, invalid inputs,
determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from helpers import BF16, same_bytes_for_threads, strided, expect_invalid, ws_call
from reference.upsample import upsample_forward

OP = "UpsampleNearestExact2d"
RNG = np.random.default_rng(4)
FWD_DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16, np.dtype(np.uint8)]
FWD_IDS = ["f32", "f16", "bf16", "u8"]

# (N, C, Hi, Wi, Ho, Wo, scales_h, scales_w)
CASES = [
    (2, 3, 4, 4, 8, 8, 0.0, 0.0),        # x2 derived
    (2, 3, 4, 4, 8, 8, 2.0, 2.0),        # x2 given
    (1, 2, 4, 6, 6, 9, 0.0, 0.0),        # x1.5
    (1, 2, 4, 6, 6, 9, 1.5, 1.5),
    (1, 2, 5, 7, 13, 11, 0.0, 0.0),      # non-integer up
    (1, 2, 9, 8, 4, 3, 0.0, 0.0),        # down
    (1, 2, 9, 8, 4, 4, 0.5, 0.5),        # down, given
    (1, 1, 1, 1, 1, 1, 0.0, 0.0),        # sizes 1
    (1, 2, 1, 1, 5, 3, 0.0, 0.0),        # from 1
    (1, 2, 6, 5, 1, 1, 0.0, 0.0),        # to 1
    (2, 2, 5, 5, 5, 5, 0.0, 0.0),        # identity
    (1, 1, 3, 3, 10, 13, 3.4, 4.5),      # given scales, floor(in * scale) sizes
    (1, 1, 3, 3, 7, 5, 3.0, 1.0),        # inconsistent sizes: scales and sizes disagree
]


def _data(shape, dtype):
    if dtype == np.uint8:
        return RNG.integers(0, 256, shape).astype(np.uint8)
    return RNG.standard_normal(shape).astype(dtype)


def _ids(cases):
    return ["x".join(str(v) for v in c) for c in cases]


@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_numpy_reference_bit_exact(case, dtype):
    n, c, hi, wi, ho, wo, sh, sw = case
    x = _data((n, c, hi, wi), dtype)
    got = pyaclnn.upsample_nearest_exact2d(x, (ho, wo), (sh, sw))
    assert got.dtype == dtype and got.shape == (n, c, ho, wo)
    np.testing.assert_array_equal(got.view(np.uint8), upsample_forward(x, (ho, wo), (sh, sw)).view(np.uint8))


@pytest.mark.parametrize("case", CASES[:-1], ids=_ids(CASES[:-1]))
def test_numpy_torch_rule(case):
    n, c, hi, wi, ho, wo, sh, sw = case
    x = _data((n, c, hi, wi), np.float32)
    got = pyaclnn.upsample_nearest_exact2d(x, (ho, wo), (sh, sw))
    np.testing.assert_array_equal(got, upsample_forward(x, (ho, wo), (sh, sw), rule="torch"))


@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_torch(case, dtype, torch):
    n, c, hi, wi, ho, wo, sh, sw = case
    x = _data((n, c, hi, wi), dtype)
    got = pyaclnn.upsample_nearest_exact2d(x, (ho, wo), (sh, sw))
    tx = torch.from_numpy(x.astype(np.float32) if dtype == BF16 else x)
    if dtype == BF16:
        tx = tx.to(torch.bfloat16)
    ref = torch.ops.aten._upsample_nearest_exact2d(tx, [ho, wo], sh or None, sw or None)
    ref = ref.float().numpy().astype(dtype) if dtype == BF16 else ref.numpy()
    np.testing.assert_array_equal(got.view(np.uint8), ref.view(np.uint8))


@pytest.mark.parametrize("scale", [2.0, 1.5, 3.0, 0.5, 1.25])
def test_torch_interpolate_scale_factor(scale, torch):
    x = RNG.standard_normal((2, 3, 6, 8)).astype(np.float32)
    ref = torch.nn.functional.interpolate(torch.from_numpy(x), scale_factor=scale, mode="nearest-exact").numpy()
    got = pyaclnn.upsample_nearest_exact2d(x, ref.shape[2:], (scale, scale))
    np.testing.assert_array_equal(got, ref)
    ref = torch.nn.functional.interpolate(torch.from_numpy(x), size=(7, 13), mode="nearest-exact").numpy()
    np.testing.assert_array_equal(pyaclnn.upsample_nearest_exact2d(x, (7, 13)), ref)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
def test_strided_views(kind, dtype):
    for n, c, hi, wi, ho, wo in [(2, 3, 4, 4, 8, 8), (2, 2, 5, 6, 7, 9), (1, 2, 5, 5, 5, 5)]:
        x = _data((n, c, hi, wi), dtype)
        out = strided(np.zeros((n, c, ho, wo), dtype), kind)
        got = pyaclnn.upsample_nearest_exact2d(strided(x, kind), (ho, wo), out=out)
        assert got is out
        np.testing.assert_array_equal(out.view(np.uint8) if out.flags.c_contiguous else np.ascontiguousarray(out).view(np.uint8),
                                      upsample_forward(x, (ho, wo)).view(np.uint8))


def test_output_rows_with_gaps():
    x = _data((2, 3, 4, 4), np.float32)
    big = np.full((2, 3, 9, 11), -1.0, np.float32)
    out = big[:, :, 1:, 1:9]
    pyaclnn.upsample_nearest_exact2d(x, (8, 8), out=out)
    np.testing.assert_array_equal(out, upsample_forward(x, (8, 8)))
    assert (big[:, :, 0] == -1).all() and (big[:, :, :, 0] == -1).all() and (big[:, :, :, 9:] == -1).all()


@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
def test_nhwc(dtype):
    n, c, hi, wi, ho, wo = 2, 3, 4, 5, 7, 9
    x = _data((n, c, hi, wi), dtype)
    xh = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    xt = pyaclnn.AclTensor.from_array(xh, lib.ACL_FORMAT_NHWC)
    yt = pyaclnn.AclTensor.empty((n, ho, wo, c), dtype, lib.ACL_FORMAT_NHWC)
    pyaclnn.launch(OP, xt, pyaclnn.int_array([ho, wo]), 0.0, 0.0, yt)
    want = upsample_forward(x, (ho, wo)).transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(yt.numpy().view(np.uint8), np.ascontiguousarray(want).view(np.uint8))


def test_special_values_bit_exact():
    bits = np.array([0x7fc00001, 0xffc12345, 0x7f800000, 0xff800000, 0x80000000, 0x00000001], np.uint32)
    x = bits.view(np.float32).reshape(1, 1, 2, 3)
    got = pyaclnn.upsample_nearest_exact2d(x, (4, 6))
    np.testing.assert_array_equal(got.view(np.uint32), upsample_forward(x, (4, 6)).view(np.uint32))


def test_upstream_example():
    x = np.arange(8, dtype=np.float32).reshape(1, 1, 4, 2)
    want = [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3, 4, 4, 5, 5, 4, 4, 5, 5, 6, 6, 7, 7, 6, 6, 7, 7]
    np.testing.assert_array_equal(pyaclnn.upsample_nearest_exact2d(x, (8, 4)).ravel(), want)


def test_negative_scales_treated_as_absent():
    x = _data((1, 2, 4, 6), np.float32)
    got = pyaclnn.upsample_nearest_exact2d(x, (6, 9), (-2.0, -1.0))
    np.testing.assert_array_equal(got, upsample_forward(x, (6, 9)))


# ---- invalid inputs ----

def _t(shape, dtype=np.float32, fmt=None):
    return pyaclnn.AclTensor.from_array(np.zeros(shape, dtype), lib.ACL_FORMAT_NCHW if fmt is None else fmt)


def _args(**kw):
    a = dict(x=_t((1, 2, 4, 4)), osz=pyaclnn.int_array([8, 8]), sh=0.0, sw=0.0, out=_t((1, 2, 8, 8)))
    a.update(kw)
    return a


def _c_args(a):
    """The C argument list (before workspaceSize/executor) of an _args() dict."""
    return [a["x"], a["osz"], a["sh"], a["sw"], a["out"]]


def _call(a):
    return ws_call(OP, *_c_args(a))


NHWC = lib.ACL_FORMAT_NHWC
INVALID = [
    ("self NULL", dict(x=None), 161001, "self"),
    ("outputSize NULL", dict(osz=None), 161001, "outputSize"),
    ("out NULL", dict(out=None), 161001, "out"),
    ("dtype int32", dict(x=_t((1, 2, 4, 4), np.int32), out=_t((1, 2, 8, 8), np.int32)), 161002, "self"),
    ("dtype int8", dict(x=_t((1, 2, 4, 4), np.int8), out=_t((1, 2, 8, 8), np.int8)), 161002, "self"),
    ("dtype mismatch", dict(out=_t((1, 2, 8, 8), np.float16)), 161002, "out"),
    ("self rank 3", dict(x=_t((2, 4, 4))), 161002, "self"),
    ("outputSize length 1", dict(osz=pyaclnn.int_array([8])), 161002, "outputSize"),
    ("out rank 3 (N read off dim 0)", dict(out=_t((2, 8, 8))), 161002, "out N"),
    ("outputSize 0", dict(osz=pyaclnn.int_array([0, 8])), 161002, "outputSize"),
    ("outputSize negative", dict(osz=pyaclnn.int_array([8, -1])), 161002, "outputSize"),
    ("N mismatch", dict(out=_t((2, 2, 8, 8))), 161002, "out"),
    ("C mismatch", dict(out=_t((1, 3, 8, 8))), 161002, "out"),
    ("NHWC C mismatch", dict(x=_t((1, 4, 4, 2), fmt=NHWC), out=_t((1, 8, 8, 3), fmt=NHWC)), 161002, "out"),
    ("format NC1HWC0", dict(x=_t((1, 2, 4, 4), fmt=lib.ACL_FORMAT_NC1HWC0),
                            out=_t((1, 2, 8, 8), fmt=lib.ACL_FORMAT_NC1HWC0)), 161002, "self"),
    ("format mismatch", dict(out=_t((1, 2, 8, 8), fmt=lib.ACL_FORMAT_ND)), 161002, "out"),
    ("NHWC out rank 3 (C past the rank)", dict(x=_t((1, 4, 4, 2), fmt=NHWC), out=_t((1, 8, 8), fmt=NHWC)), 161002,
     "out C"),
    # [HW] the result is copied into out at the end of phase 1: any other shape fails there (561103)
    ("out H != outputSize", dict(out=_t((1, 2, 7, 8))), 561103, "out"),
    ("out W != outputSize", dict(out=_t((1, 2, 8, 9))), 561103, "out"),
    ("NHWC out H != outputSize", dict(x=_t((1, 4, 4, 2), fmt=NHWC), out=_t((1, 7, 8, 2), fmt=NHWC)), 561103, "out"),
    ("out rank 2 with N, C", dict(out=_t((1, 2))), 561103, "out"),
    ("out rank 5", dict(out=_t((1, 2, 8, 8, 1))), 561103, "out"),
    ("format before the copy", dict(out=_t((1, 2, 7, 8), fmt=lib.ACL_FORMAT_ND)), 161002, "format"),
]


@pytest.mark.parametrize("name,kw,code,word", INVALID, ids=[r[0] for r in INVALID])
def test_invalid(name, kw, code, word):
    expect_invalid(OP, _c_args(_args(**kw)), code, word)


def test_valid_variants_pass():
    for kw in [dict(sh=-5.0, sw=1e9), dict(x=_t((1, 2, 4, 4), np.uint8), out=_t((1, 2, 8, 8), np.uint8)),
               dict(x=_t((1, 4, 4, 2), fmt=NHWC), out=_t((1, 8, 8, 2), fmt=NHWC)),
               dict(x=_t((1, 2, 4, 4), fmt=lib.ACL_FORMAT_ND), out=_t((1, 2, 8, 8), fmt=lib.ACL_FORMAT_ND))]:
        rc, _, ex, msg = _call(_args(**kw))
        assert rc == 0, msg
        lib.aclDestroyAclOpExecutor(ex)


def test_null_workspace_size_or_executor():
    a = _args()
    pyaclnn.ensure_device()
    fn = lib.aclnnUpsampleNearestExact2dGetWorkspaceSize
    assert fn(ffi.NULL, a["osz"], 0.0, 0.0, a["out"].handle, ffi.NULL, ffi.new("aclOpExecutor **")) == 161001
    assert fn(a["x"].handle, a["osz"], 0.0, 0.0, a["out"].handle, ffi.new("uint64_t *"), ffi.NULL) == 161001


def test_order():
    # NULL before empty; empty before dtype/rank; dtype before rank; rank before sizes; sizes before format
    rc, _, _, msg = _call(_args(x=_t((1, 2, 0, 4)), out=None))
    assert rc == 161001 and "out" in msg
    for kw in [dict(x=_t((1, 0, 4), np.int32)), dict(out=_t((0, 8), np.int64)), dict(x=_t((0, 2, 4, 4)),
                                                                                        osz=pyaclnn.int_array([1]))]:
        rc, ws, ex, msg = _call(_args(**kw))
        assert rc == 0 and ws == 0, msg
        assert lib.aclnnUpsampleNearestExact2d(ffi.NULL, 0, ex, ffi.NULL) == 0
    rc, _, _, msg = _call(_args(x=_t((2, 4, 4), np.int32), out=_t((1, 2, 8, 8), np.int32)))
    assert rc == 161002 and "dtype" in msg
    rc, _, _, msg = _call(_args(x=_t((1, 2, 4, 4), fmt=lib.ACL_FORMAT_NC1HWC0), osz=pyaclnn.int_array([0, 8])))
    assert rc == 161002 and "outputSize" in msg
    out = np.full((1, 2, 0, 8), 5, np.uint8)
    pyaclnn.upsample_nearest_exact2d(np.zeros((1, 2, 4, 4), np.uint8), (0, 8), out=out)


def test_threads_bitwise_identical():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
for (hi, wi, ho, wo, s) in [(32, 32, 64, 64, 0.0), (32, 32, 48, 40, 0.0), (11, 13, 37, 29, 0.0), (40, 40, 20, 20, 0.5)]:
    for dt in (np.float32, np.float16, pyaclnn.bfloat16, np.uint8):
        x = rng.standard_normal((3, 5, hi, wi)).astype(dt)
        h.update(pyaclnn.upsample_nearest_exact2d(x, (ho, wo), (s, s)).tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---- the AVX-512 path: rows of 64-byte blocks, each a two-vector permute of a source window ----

# (N, C, Hi, Wi, Ho, Wo, scales_h, scales_w): several blocks per row, partial tails, windows of up to 2 vectors
SIMD_CASES = [
    (2, 3, 64, 64, 96, 96, 0.0, 0.0),     # x1.5 (the bench shape, smaller N, C)
    (1, 2, 22, 67, 33, 100, 1.5, 1.5),    # x1.5 given, odd W, tails
    (1, 2, 17, 70, 34, 140, 0.0, 0.0),    # x2
    (1, 2, 13, 150, 5, 97, 0.0, 0.0),     # down-sampling by < 2 (two-vector windows)
    (1, 1, 9, 200, 5, 40, 0.0, 0.0),      # down-sampling by 5 (too wide for the windows: scalar rows)
    (1, 1, 3, 77, 3, 77, 0.0, 0.0),       # identity
]


def _padded(arr, lead=3, pad=7):
    """A view with unit W stride inside wider rows and an offset."""
    big = np.zeros(arr.shape[:-1] + (arr.shape[-1] + pad,), arr.dtype)
    view = big[..., lead:lead + arr.shape[-1]]
    view[...] = arr
    return view


@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
@pytest.mark.parametrize("case", SIMD_CASES, ids=_ids(SIMD_CASES))
def test_simd_cases_bit_exact(case, dtype):
    n, c, hi, wi, ho, wo, sh, sw = case
    x = _data((n, c, hi, wi), dtype)
    want = upsample_forward(x, (ho, wo), (sh, sw)).view(np.uint8)
    np.testing.assert_array_equal(pyaclnn.upsample_nearest_exact2d(x, (ho, wo), (sh, sw)).view(np.uint8), want)
    out = _padded(np.full((n, c, ho, wo), 3, dtype), lead=1, pad=5)
    pyaclnn.upsample_nearest_exact2d(_padded(x), (ho, wo), (sh, sw), out=out)
    np.testing.assert_array_equal(np.ascontiguousarray(out).view(np.uint8), want)
    out = strided(np.full((n, c, ho, wo), 3, dtype), "slice")  # W stride 2: the scalar rows
    pyaclnn.upsample_nearest_exact2d(_padded(x), (ho, wo), (sh, sw), out=out)
    np.testing.assert_array_equal(np.ascontiguousarray(out).view(np.uint8), want)


def test_simd_path_bitwise_equals_scalar_path():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(6)
h = hashlib.sha256()
for (hi, wi, ho, wo, s) in [(64, 64, 96, 96, 0.0), (22, 67, 33, 100, 1.5), (17, 70, 34, 140, 0.0),
                            (13, 150, 5, 97, 0.0), (9, 200, 5, 40, 0.0), (5, 33, 7, 31, 0.0)]:
    for dt in (np.float32, np.float16, pyaclnn.bfloat16, np.uint8):
        x = (rng.standard_normal((2, 3, hi, wi)) * 50).astype(dt)
        h.update(pyaclnn.upsample_nearest_exact2d(x, (ho, wo), (s, s)).tobytes())
print(h.hexdigest())
"""
    from helpers import run_python
    assert run_python(code) == run_python(code, {"PYACLNN_SIMD": "avx2"})


@pytest.mark.parametrize("dtype", FWD_DTYPES, ids=FWD_IDS)
def test_large_streaming_stores(dtype):
    """At least 16 MiB moved: whole aligned output vectors are written with non-temporal stores (and duplicated
    rows recomputed instead of copied); padded output rows make some blocks unaligned."""
    from reference.upsample import kernel_src_index
    nc = {1: 1280, 2: 640, 4: 320}[dtype.itemsize]
    n, c, hi, wi, ho, wo = 2, nc // 2, 64, 64, 96, 96
    x = _data((n, c, hi, wi), dtype)
    hs = [kernel_src_index(d, hi, ho, 0.0) for d in range(ho)]
    ws = [kernel_src_index(d, wi, wo, 0.0) for d in range(wo)]
    want = np.ascontiguousarray(x[:, :, hs][:, :, :, ws])
    np.testing.assert_array_equal(pyaclnn.upsample_nearest_exact2d(x, (ho, wo)).view(np.uint8), want.view(np.uint8))
    out = _padded(np.zeros((n, c, ho, wo), dtype), lead=2, pad=4)
    pyaclnn.upsample_nearest_exact2d(x, (ho, wo), out=out)
    np.testing.assert_array_equal(np.ascontiguousarray(out).view(np.uint8), want.view(np.uint8))
