"""The short-formula ops of tools/optable/math_extra.py (distances: test_distance.py) against PyTorch CPU or literal
numpy, for every dtype of each A2 list; strided, broadcast and empty inputs; invalid rows in each op_api source's
order (AmpUpdateScale: its generated wrapper's and its tiling's)."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn.lowlevel import AclTensor
from table_harness import BF16, NP, compare, expect_status, from_torch, rand, to_torch

OPS = pyaclnn._optable.OPS
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.filterwarnings("ignore::RuntimeWarning")]


def f64(a):
    a = np.asarray(a)
    return a.astype(np.float32).astype(np.float64) if a.dtype == BF16 else a.astype(np.float64)


def rounded(e, dt):
    """a float64 reference rounded once to dtype dt (as the op rounds its result)"""
    return np.asarray(e, np.float64).astype(np.float32).astype(NP[dt]) if dt == "bf16" else \
        np.asarray(e, np.float64).astype(NP[dt])


def strided(a):
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def T(shape, dt=np.float32, fmt=None, strides=None):
    return AclTensor(shape, dt, strides=strides, fmt=fmt)


# ---------------------------------------------------------------- KlDiv

@pytest.mark.parametrize("dt", OPS["KlDiv"]["dtypes"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(torch, dt, log_target):
    rng = np.random.default_rng(1)
    x = rand(rng, (4, 1, 3), dt, (-2, 1))                # broadcast against target
    t = rand(rng, (2, 3), dt, (-1, 1) if log_target else (0, 2))
    t[0, 0] = 0                                          # t log t at 0 is 0
    tx, tt = torch.from_numpy(f64(x)), torch.from_numpy(f64(t))
    for red, name in ((0, "none"), (1, "mean"), (2, "sum"), (3, "batchmean")):
        e = torch.nn.functional.kl_div(tx.expand(4, 2, 3), tt.expand(4, 2, 3), reduction=name,
                                       log_target=log_target).numpy()
        o = strided(np.zeros((4, 2, 3), NP[dt])) if red == 0 else np.zeros((), NP[dt])
        pyaclnn.call("KlDiv", strided(x), t, red, log_target, o)
        compare(o, rounded(e, dt), dt)


def test_kl_div_promotion_and_empty():
    x, t = np.array([[-1.0, -2.0]], np.float16), np.array([[0.5, 0.25]], np.float32)
    o = np.zeros((), np.float32)                         # f16 with f32 promotes to f32
    pyaclnn.call("KlDiv", x, t, 2, False, o)
    e = np.sum(t.astype(np.float64) * (np.log(t.astype(np.float64)) - x.astype(np.float64)))
    np.testing.assert_allclose(o, e, rtol=1e-6)
    for red, shape, want in ((1, (0, 3), np.nan), (2, (0, 3), 0.0), (3, (0, 3), np.nan), (3, (2, 0), 0.0)):
        o = np.full((1,), 5, np.float32)                 # an empty input fills the [1] result
        pyaclnn.call("KlDiv", np.zeros(shape, np.float32), np.zeros(shape, np.float32), red, False, o)
        np.testing.assert_array_equal(o, [want])
    o = np.full((0, 3), 5, np.float32)
    pyaclnn.call("KlDiv", np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), 0, False, o)
    o = np.zeros((), np.float32)                         # both 0-d, none: a 0-d out
    pyaclnn.call("KlDiv", np.array(-1.0, np.float32), np.array(2.0, np.float32), 0, False, o)
    np.testing.assert_allclose(o, 2 * (np.log(2) + 1), rtol=1e-6)


def test_kl_div_invalid_rows():
    x, t, o = T((2, 3)), T((2, 3)), T((2, 3))
    expect_status("KlDiv", [None, t, 0, False, o], 161001, "self")
    expect_status("KlDiv", [x, None, 0, False, o], 161001, "target")
    expect_status("KlDiv", [x, t, 0, False, None], 161001, "out")
    expect_status("KlDiv", [T((2, 3), np.float64), t, 0, False, o], 161002, "self")
    expect_status("KlDiv", [x, T((2, 3), np.int32), 0, False, o], 161002, "target")
    expect_status("KlDiv", [x, t, 0, False, T((2, 3), np.float64)], 161002, "out")
    expect_status("KlDiv", [x, t, 0, False, T((2, 3), np.float16)], 0)             # f32 -> f16 can cast
    expect_status("KlDiv", [T((1,) * 9), T((1,) * 9), 0, False, T((1,) * 9)], 161002, "self")
    expect_status("KlDiv", [x, t, 4, False, o], 161002, "reduction")
    expect_status("KlDiv", [x, T((3, 3)), 0, False, o], 161002, "broadcast")
    expect_status("KlDiv", [x, t, 0, False, T((3, 2))], 161002, "out")
    expect_status("KlDiv", [x, t, 1, False, T((2,))], 161002, "out")
    expect_status("KlDiv", [T((0, 3)), t, 1, False, T((2,))], 561103, "out")      # the [1] fill cannot be copied


# ---------------------------------------------------------------- BatchNormStats

@pytest.mark.parametrize("dt", OPS["BatchNormStats"]["dtypes"])
def test_batch_norm_stats(torch, dt):
    rng = np.random.default_rng(2)
    a = rand(rng, (3, 4, 5, 2), dt)
    m, s = np.zeros(4, np.float32), strided(np.zeros(4, np.float32))
    pyaclnn.call("BatchNormStats", np.swapaxes(np.ascontiguousarray(np.swapaxes(a, 2, 3)), 2, 3), 1e-5, m, s)
    ta = torch.from_numpy(f64(a))                        # batch_norm_stats has no CPU kernel: its formula
    em = ta.mean((0, 2, 3)).numpy()
    es = (1 / torch.sqrt(ta.var((0, 2, 3), unbiased=False) + np.float32(1e-5))).numpy()
    compare(m, em.astype(np.float32), "f32")
    compare(s, es.astype(np.float32), "f32")
    m, s = np.full(4, 7, np.float32), np.full(4, 7, np.float32)
    pyaclnn.call("BatchNormStats", np.zeros((0, 4, 3), NP[dt]), 1e-5, m, s)        # empty: 0 and NaN
    assert (m == 0).all() and np.isnan(s).all()


def test_batch_norm_stats_invalid_rows():
    x, m, s = T((2, 3)), T((3,)), T((3,))
    expect_status("BatchNormStats", [None, 1e-5, m, s], 161001, "input")
    expect_status("BatchNormStats", [x, 1e-5, None, s], 161001, "mean")
    expect_status("BatchNormStats", [x, 1e-5, m, None], 161001, "invstd")
    expect_status("BatchNormStats", [T((2, 3), BF16), 1e-5, m, s], 161002, "input")
    expect_status("BatchNormStats", [x, 1e-5, T((3,), np.float16), s], 161002, "mean")
    expect_status("BatchNormStats", [x, 1e-5, m, T((3,), np.float64)], 161002, "invstd")
    expect_status("BatchNormStats", [T((2, 3), fmt=lib.ACL_FORMAT_NC1HWC0), 1e-5, m, s], 161002, "input")
    expect_status("BatchNormStats", [x, 1e-5, T((3,), fmt=lib.ACL_FORMAT_FRACTAL_NZ), s], 161002, "mean")
    expect_status("BatchNormStats", [T((2, 3), fmt=lib.ACL_FORMAT_NHWC), 1e-5, m, s], 0)
    expect_status("BatchNormStats", [T((1,) * 9), 1e-5, T((1,)), T((1,))], 161002, "input")
    expect_status("BatchNormStats", [T((3,)), 1e-5, m, s], 161002, "input")
    expect_status("BatchNormStats", [x, 1e-5, T((1, 3)), s], 161002, "mean")
    expect_status("BatchNormStats", [T((2, 0)), 1e-5, T((0,)), T((0,))], 161002, "Channel")
    expect_status("BatchNormStats", [x, 1e-5, m, T((4,))], 161002, "invstd")


# ---------------------------------------------------------------- AffineGrid

@pytest.mark.parametrize("dt", OPS["AffineGrid"]["dtypes"])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid(torch, dt, align):
    rng = np.random.default_rng(3)
    for size in ([2, 1, 4, 5], [2, 3, 1, 3], [1, 2, 3, 4, 2], [2, 1, 2, 1, 3]):
        d3 = len(size) == 5
        theta = rand(rng, (size[0], 3 if d3 else 2, 4 if d3 else 3), dt)
        e = torch.nn.functional.affine_grid(torch.from_numpy(f64(theta)), size, align_corners=align).numpy()
        o = np.zeros(e.shape, NP[dt])
        pyaclnn.call("AffineGrid", strided(theta), size, align, o)
        compare(o, rounded(e, dt), dt)
    o = np.zeros((1, 0, 3, 2), np.float32)               # an empty grid
    pyaclnn.call("AffineGrid", np.zeros((1, 2, 3), np.float32), [1, 1, 0, 3], False, o)


def test_affine_grid_invalid_rows():
    th, o = T((2, 2, 3)), T((2, 4, 5, 2))
    size = [2, 1, 4, 5]
    expect_status("AffineGrid", [None, pyaclnn.tensor.int_array(size), False, o], 161001, "theta")
    expect_status("AffineGrid", [th, None, False, o], 161001, "size")
    expect_status("AffineGrid", [th, pyaclnn.tensor.int_array(size), False, None], 161001, "out")
    for args, word in (
            ([T((2, 2, 3), np.float64), size, T((2, 4, 5, 2), np.float64)], "theta"),
            ([th, size, T((2, 4, 5, 2), np.float16)], "out"),
            ([T((0, 2, 3)), [0, 1, 4, 5], T((0, 4, 5, 2))], "theta"),
            ([th, [2, 1, 4], o], "size"),
            ([th, [3, 1, 4, 5], o], "theta"),
            ([T((2, 3, 4)), size, o], "theta"),
            ([th, size, T((2, 5, 4, 2))], "out")):
        expect_status("AffineGrid", [args[0], pyaclnn.tensor.int_array(args[1]), False, args[2]], 161002, word)


# ---------------------------------------------------------------- SignBitsPack / SignBitsUnpack

def pack_ref(x, size):
    bits = ~(x.astype(np.float64) < 0)                   # not negative: +-0 and NaN give 1
    return np.packbits(bits, bitorder="little").reshape(size, -1)


@pytest.mark.parametrize("dt", OPS["SignBitsPack"]["dtypes"])
def test_sign_bits_pack(dt):
    rng = np.random.default_rng(4)
    x = rand(rng, (37,), dt)
    x[:4] = [0.0, -0.0, np.nan, -np.inf]
    for size in (1, 5):
        o = strided(np.zeros((size, 5 // size), np.uint8))
        pyaclnn.call("SignBitsPack", x[::1], size, o)
        np.testing.assert_array_equal(o, pack_ref(x, size))
    o = np.zeros((1, 3), np.uint8)
    pyaclnn.call("SignBitsPack", strided(x[:20]), 1, o)
    np.testing.assert_array_equal(o, pack_ref(x[:20], 1))
    a = np.array([5, 4, 3, 2, 0, -1, -2, 4, 3, 2, 1, 0, -1, -2], NP[dt])   # the documented example
    o = np.zeros((2, 1), np.uint8)
    pyaclnn.call("SignBitsPack", a, 2, o)
    np.testing.assert_array_equal(o.ravel(), [159, 15])


@pytest.mark.parametrize("dt", OPS["SignBitsUnpack"]["out_dtypes"])
def test_sign_bits_unpack(dt):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 256, 6).astype(np.uint8)
    for size in (1, 3, 16):
        o = strided(np.zeros((size, 48 // size), NP[dt]))
        pyaclnn.call("SignBitsUnpack", strided(x), size, pyaclnn.tensor.acl_dtype(NP[dt]), o)
        e = np.where(np.unpackbits(x, bitorder="little") == 1, 1.0, -1.0).reshape(size, -1)
        np.testing.assert_array_equal(o, e)


def test_sign_bits_invalid_rows():
    x, o = T((16,)), T((2, 1), np.uint8)
    expect_status("SignBitsPack", [None, 2, o], 161001, "self")
    expect_status("SignBitsPack", [x, 2, None], 161001, "out")
    expect_status("SignBitsPack", [T((16,), BF16), 2, o], 161002, "self")
    expect_status("SignBitsPack", [x, 2, T((2, 1), np.int8)], 161002, "out")
    expect_status("SignBitsPack", [T((16,), fmt=lib.ACL_FORMAT_NCHW), 2, o], 161002, "self")
    expect_status("SignBitsPack", [x, 2, T((2, 1), np.uint8, lib.ACL_FORMAT_NHWC)], 161002, "out")
    expect_status("SignBitsPack", [x, 0, o], 161002, "size")
    expect_status("SignBitsPack", [x, 3, o], 161002, "size")
    expect_status("SignBitsPack", [x, 1, o], 161002, "size")                      # out dim 0 != size
    expect_status("SignBitsPack", [T((4, 4)), 1, T((1, 2), np.uint8)], 161002, "self")
    expect_status("SignBitsPack", [x, 2, T((2, 1, 1), np.uint8)], 161002, "out")
    expect_status("SignBitsPack", [x, 2, T((2, 3), np.uint8)], 561103, "out")     # the result copy refuses it
    u, uo = T((2,), np.uint8), T((2, 8))
    f32 = pyaclnn.tensor.acl_dtype(np.float32)
    expect_status("SignBitsUnpack", [None, 2, f32, uo], 161001, "self")
    expect_status("SignBitsUnpack", [u, 2, f32, None], 161001, "out")
    expect_status("SignBitsUnpack", [T((2,), np.int8), 2, f32, uo], 161002, "self")
    expect_status("SignBitsUnpack", [u, 2, f32, T((2, 8), np.float64)], 161002, "out")
    expect_status("SignBitsUnpack", [u, 2, pyaclnn.tensor.acl_dtype(np.float16), uo], 161002, "dtype")
    expect_status("SignBitsUnpack", [u, -1, f32, uo], 161002, "size")
    expect_status("SignBitsUnpack", [u, 3, f32, uo], 161002, "size")
    expect_status("SignBitsUnpack", [u, 1, f32, uo], 161002, "size")
    expect_status("SignBitsUnpack", [u, 2, f32, T((2, 8, 1))], 161002, "out")
    expect_status("SignBitsUnpack", [u, 2, f32, T((2, 9))], 561103, "out")


# ---------------------------------------------------------------- AmpUpdateScale

def amp_ref(scale, tracker, found, gf, bf, interval):
    s, f = np.float32(scale), np.float32(found)
    if f != 0 or np.isnan(f):
        return s * np.float32(bf), 0
    if tracker + 1 == interval:
        ns = s * np.float32(gf)
        return (ns if np.isfinite(ns) else s), 0
    return s, tracker + 1


@pytest.mark.parametrize("dt", OPS["AmpUpdateScale"]["dtypes"])
def test_amp_update_scale(dt):
    cases = ((4.0, 3, 1.0, 2), (4.0, 1, 0.0, 2), (4.0, 0, 0.0, 2), (3e38, 0, 0.0, 1), (60000.0, 4, 0.0, 5),
             (8.0, 2, np.nan, 3), (65536.0, 900, 0.0, 1000))
    for scale, tracker, found, interval in cases:
        s = np.array([scale], np.float64).astype(np.float32).astype(NP[dt])
        us, ug = np.zeros(1, NP[dt]), np.zeros(1, np.int32)
        pyaclnn.call("AmpUpdateScale", s, np.array([tracker], np.int32), np.array([found], NP[dt]), 2.0, 0.5,
                     interval, us, ug)
        es, eg = amp_ref(f64(s)[0], tracker, found, 2.0, 0.5, interval)
        np.testing.assert_array_equal(f64(us), f64(rounded([es], dt)))
        assert ug[0] == eg


def test_amp_update_scale_torch(torch):
    for tracker, found in ((3, 0.0), (1, 0.0), (0, 1.0)):
        s, g, f = torch.tensor([4.0]), torch.tensor([tracker], dtype=torch.int32), torch.tensor([found])
        us, ug = np.zeros(1, np.float32), np.zeros(1, np.int32)
        pyaclnn.call("AmpUpdateScale", s.numpy(), g.numpy(), f.numpy(), 2.0, 0.5, 2, us, ug)
        torch._amp_update_scale_(s, g, f, 2.0, 0.5, 2)
        assert (us[0], ug[0]) == (s.item(), g.item())


def test_amp_update_scale_invalid_rows():
    s, g, f, us, ug = T((1,)), T((1,), np.int32), T((1,)), T((1,)), T((1,), np.int32)
    names = ["currentScale", "growthTracker", "foundInf", "updatedScale", "updatedGrowthTracker"]
    base = [s, g, f, 2.0, 0.5, 10, us, ug]
    for i, k in enumerate((0, 1, 2, 6, 7)):
        args = list(base)
        args[k] = None
        expect_status("AmpUpdateScale", args, 161001, names[i])
    for k, t, code, word in ((0, T((1,), np.float64), 161002, "currentScale"),
                             (1, T((1,), np.int64), 161002, "growthTracker"),
                             (2, T((1,), np.float16), 161002, "foundInf"), (6, T((1,), BF16), 161002, "updatedScale"),
                             (7, T((1,), np.float32), 161002, "updatedGrowthTracker"),
                             (5, 0, 561002, "growthInterval"), (5, 2 ** 31, 561002, "growthInterval"),  # the tiling's
                             (0, T((2,)), 561002, "currentScale"), (1, T((1, 1), np.int32), 561002, "growthTracker")):
        args = list(base)
        args[k] = t
        expect_status("AmpUpdateScale", args, code, word)
    expect_status("AmpUpdateScale", [T(()), g, f, 2.0, 0.5, 10, us, ug], 0)      # 0-d counts as [1]


# ---------------------------------------------------------------- ConfusionTranspose

@pytest.mark.parametrize("dt", OPS["ConfusionTranspose"]["dtypes"])
def test_confusion_transpose(dt):
    rng = np.random.default_rng(6)
    x = (rng.integers(0, 100, (2, 3, 4)) if dt not in ("f16", "f32", "bf16") else rng.standard_normal((2, 3, 4)))
    x = x.astype({"u16": np.uint16, "u32": np.uint32, "u64": np.uint64}.get(dt, NP.get(dt)))
    e = np.transpose(x, (1, 0, 2)).reshape(6, 4)         # transpose, then reshape
    o = strided(np.zeros((6, 4), x.dtype))
    pyaclnn.call("ConfusionTranspose", strided(x), [1, 0, 2], [6, 4], True, o)
    np.testing.assert_array_equal(o, e)
    e = np.transpose(x.reshape(4, 6), (1, 0))            # reshape, then transpose
    o = np.zeros((6, 4), x.dtype)
    pyaclnn.call("ConfusionTranspose", x, [-1, 0], [4, 6], False, o)
    np.testing.assert_array_equal(o, e)


def test_confusion_transpose_invalid_rows():
    x, o = T((2, 3)), T((3, 2))
    ia = pyaclnn.tensor.int_array
    expect_status("ConfusionTranspose", [None, ia([1, 0]), ia([3, 2]), True, o], 161001, "x")
    expect_status("ConfusionTranspose", [x, None, ia([3, 2]), True, o], 161001, "perm")
    expect_status("ConfusionTranspose", [x, ia([1, 0]), None, True, o], 161001, "shape")
    expect_status("ConfusionTranspose", [x, ia([1, 0]), ia([3, 2]), True, None], 161001, "out")
    expect_status("ConfusionTranspose", [T((2, 3), np.float64), ia([1, 0]), ia([3, 2]), True, o], 161002, "x")
    expect_status("ConfusionTranspose", [x, ia([1, 0]), ia([3, 2]), True, T((3, 2), np.float16)], 161002, "out")
    expect_status("ConfusionTranspose", [T((0, 3)), ia([7]), ia([5]), True, T((9,))], 0)   # empty: no more checks
    # what the kernel launch refuses: ACLNN_ERR_INNER_NULLPTR
    expect_status("ConfusionTranspose", [x, ia([0, 0]), ia([3, 2]), True, o], 561103, "perm")
    expect_status("ConfusionTranspose", [x, ia([1, 0]), ia([4, 2]), True, o], 561103, "shape")
    expect_status("ConfusionTranspose", [x, ia([1, 0]), ia([3, 2]), True, T((2, 3))], 561103, "out")


# ---------------------------------------------------------------- Scale

@pytest.mark.parametrize("dt", OPS["Scale"]["dtypes"])
def test_scale(dt):
    rng = np.random.default_rng(7)
    x = rand(rng, (2, 3, 4, 5), dt)
    for axis, num, blob, sshape, bias in ((1, 2, True, (3, 4), True), (-3, -1, True, (3, 4, 5), True),
                                          (0, 0, True, (1,), False), (2, 0, False, (4, 5), True),
                                          (1, 0, False, (), True), (3, 0, False, (1,), False)):
        s = rand(rng, sshape, dt)
        b = rand(rng, sshape, dt) if bias else None
        ax = axis % 4
        n = len(sshape) if sshape and np.prod(sshape) > 1 else 0
        shape = [1] * 4
        shape[ax:ax + n] = sshape[:n] if n else []
        shape = shape[:4] if n else [1, 1, 1, 1]
        sb = f64(s).reshape(shape) if n else f64(s).reshape(())
        e = f64(x) * sb + (f64(b).reshape(sb.shape) if bias else 0)
        y = strided(np.zeros(x.shape, NP[dt]))
        pyaclnn.call("Scale", strided(x), s, b, axis, num, blob, y)
        compare(y, rounded(e, dt), dt)


def test_scale_invalid_rows():
    x, s, y = T((2, 3, 4)), T((3,)), T((2, 3, 4))
    expect_status("Scale", [None, s, None, 1, 1, True, y], 161001, "x")
    expect_status("Scale", [x, None, None, 1, 1, True, y], 161001, "scale")
    expect_status("Scale", [x, s, None, 1, 1, True, None], 161001, "y")
    expect_status("Scale", [T((2, 3, 4), np.float64), s, None, 1, 1, True, y], 161002, "x")
    expect_status("Scale", [x, s, T((3,), np.float16), 1, 1, True, y], 161002, "bias")     # bias vs scale first
    expect_status("Scale", [x, T((3,), np.float16), None, 1, 1, True, y], 161002, "scale")
    expect_status("Scale", [x, s, None, 1, 1, True, T((2, 3, 4), np.float16)], 161002, "y")
    expect_status("Scale", [x, s, None, 1, 1, True, T((2, 3))], 161002, "y")
    expect_status("Scale", [x, s, T((4,)), 1, 1, True, y], 161002, "bias")
    expect_status("Scale", [x, s, None, 3, 1, True, y], 161002, "axis")
    expect_status("Scale", [x, s, None, 1, -2, True, y], 161002, "numAxes")
    expect_status("Scale", [x, s, None, 1, 0, True, y], 161002, "numAxes")
    expect_status("Scale", [x, s, None, 2, 2, True, y], 161002, "numAxes")
    expect_status("Scale", [x, T((4,)), None, 1, 1, True, y], 161002, "scale")
    expect_status("Scale", [x, T((3, 4, 1)), None, 1, 1, False, y], 161002, "rank")
    expect_status("Scale", [x, T((4,)), None, 1, 1, False, y], 161002, "scale")
    expect_status("Scale", [x, T((1,)), None, 1, 7, False, y], 0)                 # a single value broadcasts


# ---------------------------------------------------------------- Im2col

@pytest.mark.parametrize("dt", OPS["Im2col"]["dtypes"])
def test_im2col(torch, dt):
    rng = np.random.default_rng(8)
    for shape in ((2, 3, 6, 7), (3, 5, 7)):
        img = rand(rng, shape, dt)
        t = to_torch(torch, img)
        e = from_torch(torch.nn.functional.unfold(t if len(shape) == 4 else t[None], (2, 3), dilation=(1, 2),
                                                  padding=(1, 0), stride=(2, 1)))
        e = e if len(shape) == 4 else e[0]
        o = strided(np.zeros(e.shape, NP[dt]))
        pyaclnn.call("Im2col", strided(img), [2, 3], [1, 2], [1, 0], [2, 1], o)
        np.testing.assert_array_equal(f64(o), f64(e))
    o = np.zeros(e.shape, np.float64)                   # out may have another dtype: the result is cast
    pyaclnn.call("Im2col", img, [2, 3], [1, 2], [1, 0], [2, 1], o)
    np.testing.assert_array_equal(o, f64(e))
    pyaclnn.call("Im2col", np.zeros((0, 3, 4, 4), NP[dt]), [2, 2], [1, 1], [0, 0], [1, 1],
                 np.zeros((0, 12, 9), NP[dt]))


def test_im2col_invalid_rows():
    ia = pyaclnn.tensor.int_array
    x, o = T((1, 2, 4, 4)), T((1, 8, 9))
    k, d, p, s = ia([2, 2]), ia([1, 1]), ia([0, 0]), ia([1, 1])
    base = [x, k, d, p, s, o]
    names = ["self", "kernelSize", "dilation", "padding", "stride", "out"]
    for i in range(6):
        args = list(base)
        args[i] = None
        expect_status("Im2col", args, 161001, names[i])
    for i, v, word in ((0, T((1, 2, 4, 4), np.float64), "self"), (0, T((2, 4, 4, 1, 1)), "self"),
                       (0, T((1, 0, 4, 4)), "self"), (1, ia([2]), "kernelSize"), (4, ia([1, 1, 1]), "stride"),
                       (1, ia([0, 2]), "kernelSize"), (4, ia([1, 0]), "stride"), (2, ia([-1, 1]), "dilation"),
                       (3, ia([0, -1]), "padding"), (1, ia([5, 5]), "output"), (5, T((1, 8, 8)), "out")):
        args = list(base)
        args[i] = v
        expect_status("Im2col", args, 161002, word)


def test_empty_inputs_leave_outputs():
    y = np.full((2, 0, 3), 5, np.float32)
    pyaclnn.call("Scale", np.zeros((2, 0, 3), np.float32), np.zeros((0,), np.float32), None, 1, 1, True, y)
    o = np.full((3, 0), 5, np.uint8)
    pyaclnn.call("SignBitsPack", np.zeros((0,), np.float32), 3, o)
    o = np.full((2, 0), 5, np.float16)
    pyaclnn.call("SignBitsUnpack", np.zeros((0,), np.uint8), 2, pyaclnn.tensor.acl_dtype(np.float16), o)
    o = np.full((0, 2), 5, np.int8)
    pyaclnn.call("ConfusionTranspose", np.zeros((2, 0), np.int8), [1, 0], [0, 2], True, o)
