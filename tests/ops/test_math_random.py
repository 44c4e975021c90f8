"""Random ops of ops-math random/ (tools/optable/math_random.py, libsrc/ops/random.c).

The device's bits cannot be reproduced; the library's values are a documented pure function of (seed, offset,
element index) through Philox4x32-10 (libsrc/common/philox.h). These tests check
  - the generator literally: a numpy Philox4x32-10 (below, written from the published algorithm) reproduces the
    uniform values bit for bit, and the normal/bernoulli values through the documented element -> counter mapping;
  - the distributions statistically on large samples (mean, variance, range, a Kolmogorov-Smirnov distance);
  - the exact rules (bernoulli p = 0/1, multinomial never picks a zero-probability class, distinct indices without
    replacement), every dtype of each A2 list, strided outputs, empty tensors;
  - determinism across OMP_NUM_THREADS 1/2/7 and repeated calls, and that the Tensor variants read seed/offset
    from device memory at the second phase;
  - the invalid rows in the order the op_api sources check them (status and the argument named)."""
import math

import numpy as np
import pytest

import pyaclnn
from pyaclnn.ops.table import make_scalar
from helpers import expect_invalid, same_bytes_for_threads, strided, ws_call

BF16 = pyaclnn.bfloat16
NP = {"f32": np.float32, "f16": np.float16, "bf16": BF16, "f64": np.float64, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_, "c64": np.complex64,
      "c128": np.complex128}
FLOATS = ("f32", "f16", "bf16", "f64")
P_PARAM, P_NULL, P_INNER_NULL = 161002, 161001, 561103


# ---------------------------------------------------------------- numpy Philox4x32-10 reference
def philox(seed, offset, blocks):
    """Philox4x32-10 of counters (block, offset) under key seed: an (n, 4) uint32 array."""
    blocks = np.asarray(blocks, np.uint64)
    M = np.uint64(0xFFFFFFFF)
    c0 = blocks & M
    c1 = blocks >> np.uint64(32)
    c2 = np.full_like(c0, np.uint64(offset) & M)
    c3 = np.full_like(c0, np.uint64(offset) >> np.uint64(32))
    k0, k1 = np.uint64(seed) & M, np.uint64(seed) >> np.uint64(32)
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        n0 = (p1 >> np.uint64(32)) ^ c1 ^ k0
        n2 = (p0 >> np.uint64(32)) ^ c3 ^ k1
        c1, c3, c0, c2 = p1 & M, p0 & M, n0, n2
        k0 = (k0 + np.uint64(0x9E3779B9)) & M
        k1 = (k1 + np.uint64(0xBB67AE85)) & M
    return np.stack([c0, c1, c2, c3], 1).astype(np.uint32)


def ref_uniform_f(seed, offset, n):
    w = philox(seed, offset, np.arange((n + 3) // 4)).reshape(-1)[:n]
    return (w >> 8).astype(np.float32) * np.float32(2.0 ** -24)


def ref_uniform_d(seed, offset, n):
    w = philox(seed, offset, np.arange((n + 1) // 2)).reshape(-1, 2).astype(np.uint64)[:n]
    return ((w[:, 0] << np.uint64(32) | w[:, 1]) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def ref_normal_f(seed, offset, n):
    w = philox(seed, offset, np.arange((n + 3) // 4)).reshape(-1, 2)
    u1 = ((w[:, 0] >> 8).astype(np.float64) + 1) * 2.0 ** -24
    u2 = (w[:, 1] >> 8).astype(np.float64) * 2.0 ** -24
    r, t = np.sqrt(-2 * np.log(u1)), 2 * np.pi * u2
    return np.stack([r * np.cos(t), r * np.sin(t)], 1).reshape(-1)[:n]


def ref_normal_d(seed, offset, n):
    w = philox(seed, offset, np.arange((n + 1) // 2)).astype(np.uint64)
    u1 = (((w[:, 0] << np.uint64(32) | w[:, 1]) >> np.uint64(11)).astype(np.float64) + 1) * 2.0 ** -53
    u2 = ((w[:, 2] << np.uint64(32) | w[:, 3]) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    r, t = np.sqrt(-2 * np.log(u1)), 2 * np.pi * u2
    return np.stack([r * np.cos(t), r * np.sin(t)], 1).reshape(-1)[:n]


def test_philox_known_answer():
    # Random123's published known-answer vectors for philox4x32-10 (counter words, key words -> output words)
    def kat(ctr, key):
        blocks = np.array([ctr[0] | (ctr[1] << 32)], np.uint64)
        return philox(key[0] | (key[1] << 32), ctr[2] | (ctr[3] << 32), blocks)[0].tolist()
    assert kat([0, 0, 0, 0], [0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    assert kat([0xffffffff] * 4, [0xffffffff] * 2) == [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
    assert kat([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]) == \
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


def ks_uniform(x):
    """Kolmogorov-Smirnov distance of x against U[0, 1)."""
    s = np.sort(np.asarray(x, np.float64))
    n = len(s)
    return max(np.max(np.arange(1, n + 1) / n - s), np.max(s - np.arange(n) / n))


def ks_normal(x):
    s = np.sort(np.asarray(x, np.float64))
    cdf = 0.5 * (1 + np.vectorize(math.erf)(s / math.sqrt(2)))
    n = len(s)
    return max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))


def out_like(shape, dt, fill=7):
    return strided(np.full(shape, fill, NP[dt]))


# ---------------------------------------------------------------- InplaceUniform
UNIFORM = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16")


@pytest.mark.parametrize("dt", UNIFORM)
def test_inplace_uniform(dt):
    n = 6000
    x = np.zeros(n, NP[dt])
    lo, hi = (-2.0, 3.0) if dt in FLOATS else (0.0, 100.0)
    pyaclnn.call("InplaceUniform", x, lo, hi, 1234, 5, )
    if dt == "f64":
        exp = lo + (hi - lo) * ref_uniform_d(1234, 5, n)
    else:
        u = ref_uniform_f(1234, 5, n)
        exp = (np.float32(lo) + (np.float32(hi) - np.float32(lo)) * u).astype(np.float32)
    if dt in FLOATS:
        np.testing.assert_array_equal(x.astype(np.float64), exp.astype(NP[dt]).astype(np.float64))
        assert lo <= x.astype(np.float64).min() and x.astype(np.float64).max() <= hi
    else:
        np.testing.assert_array_equal(x, np.trunc(exp).astype(NP[dt]))
    # statistics: mean (b-a)/2 + a, variance (b-a)^2/12, KS distance
    v = (x.astype(np.float64) - lo) / (hi - lo)
    if dt in FLOATS:
        assert abs(v.mean() - 0.5) < 0.02 and abs(v.var() - 1 / 12) < 0.01
        assert ks_uniform(v) < 0.03
    # a strided view gets the same values in row-major order
    y = out_like((40, 30), dt)
    pyaclnn.call("InplaceUniform", y, lo, hi, 1234, 5)
    np.testing.assert_array_equal(y.reshape(-1), x[:1200])


def test_uniform_large_sample_f32():
    x = np.zeros(200000, np.float32)
    pyaclnn.call("InplaceUniform", x, 0.0, 1.0, 42, 0)
    assert 0 <= x.min() and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.003 and abs(x.var() - 1 / 12) < 0.001
    assert ks_uniform(x) < 0.005
    # different offsets give different, uncorrelated streams; the same (seed, offset) the same bytes
    y, z = np.zeros_like(x), np.zeros_like(x)
    pyaclnn.call("InplaceUniform", y, 0.0, 1.0, 42, 1)
    pyaclnn.call("InplaceUniform", z, 0.0, 1.0, 42, 0)
    assert np.array_equal(x, z) and not np.array_equal(x, y)
    assert abs(np.corrcoef(x, y)[0, 1]) < 0.01


def test_uniform_tensor_reads_seed_at_run():
    seed = np.array([99], np.int64)
    off = np.array([3], np.int64)
    x = np.zeros(1000, np.float32)
    pyaclnn.call("InplaceUniformTensor", x, 0.0, 1.0, seed, off, 4)
    np.testing.assert_array_equal(x, ref_uniform_f(99, 7, 1000))  # stream offset = *offsetTensor + offset
    x2 = np.zeros(1000, np.float32)
    pyaclnn.call("InplaceUniform", x2, 0.0, 1.0, 99, 7)
    np.testing.assert_array_equal(x, x2)
    u64 = np.zeros(10, np.float32)
    pyaclnn.call("InplaceUniformTensor", u64, 0.0, 1.0, seed.astype(np.uint64), off.astype(np.uint64), 4)
    np.testing.assert_array_equal(u64, x[:10])


def test_uniform_invalid():
    x = np.zeros(4, np.float32)
    expect_invalid("InplaceUniform", (None, 0.0, 1.0, 0, 0), P_NULL, "selfRef")
    expect_invalid("InplaceUniform", (pyaclnn.AclTensor.from_array(np.zeros(4, np.bool_)), 0.0, 1.0, 0, 0),
                   P_PARAM, "selfRef")
    expect_invalid("InplaceUniform", (pyaclnn.AclTensor.from_array(np.zeros((1,) * 9, np.float32)), 0.0, 1.0, 0, 0),
                   P_PARAM, "selfRef")
    expect_invalid("InplaceUniform", (pyaclnn.AclTensor.from_array(x), 2.0, 1.0, 0, 0), P_PARAM, "from")
    t = pyaclnn.AclTensor.from_array(x)
    expect_invalid("InplaceUniformTensor", (t, 0.0, 1.0, None, pyaclnn.AclTensor.from_array(np.zeros(1, np.int64)),
                                            0), P_NULL, "seedTensor")
    expect_invalid("InplaceUniformTensor", (t, 0.0, 1.0, pyaclnn.AclTensor.from_array(np.zeros(1, np.int32)),
                                            pyaclnn.AclTensor.from_array(np.zeros(1, np.int64)), 0), P_PARAM,
                   "seedTensor")
    # empty: a no-op after the checks
    pyaclnn.call("InplaceUniform", np.zeros((0, 3), np.float32), 0.0, 1.0, 0, 0)


# ---------------------------------------------------------------- InplaceNormal / Normal*
NORMAL = ("f16", "f32", "f64", "i16", "i32", "i64", "i8", "u8", "bool", "bf16")


def ref_normal(mean, std, seed, offset, n, dbl):
    if dbl:
        return mean + std * ref_normal_d(seed, offset, n)
    z = ref_normal_f(seed, offset, n).astype(np.float32)
    return (np.float32(mean) + np.float32(std) * z).astype(np.float32)


@pytest.mark.parametrize("dt", NORMAL)
def test_inplace_normal(dt):
    n = 4000
    x = np.zeros(n, NP[dt])
    pyaclnn.call("InplaceNormal", x, 1.5, 2.0, 77, 2)
    exp = ref_normal(1.5, 2.0, 77, 2, n, dt == "f64")
    if dt in FLOATS:
        tol = {"f32": 1e-6, "f64": 1e-13, "f16": 2e-3, "bf16": 1e-2}[dt]
        np.testing.assert_allclose(x.astype(np.float64), exp.astype(np.float64), rtol=tol, atol=tol)
        assert abs(x.astype(np.float64).mean() - 1.5) < 0.1 and abs(x.astype(np.float64).std() - 2.0) < 0.1
    else:  # computed in float, converted as the device's Cast does (truncation; != 0 for bool)
        np.testing.assert_array_equal(x, exp.astype(NP[dt]) if dt != "bool" else exp != 0)
    y = out_like((20, 30), dt)
    pyaclnn.call("InplaceNormal", y, 1.5, 2.0, 77, 2)
    np.testing.assert_array_equal(y.reshape(-1), x[:600])


def test_normal_large_sample():
    x = np.zeros(200000, np.float32)
    pyaclnn.call("InplaceNormal", x, 0.0, 1.0, 6, 0)
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01
    assert ks_normal(x) < 1.95 / math.sqrt(len(x))  # the KS critical value at alpha = 0.001
    assert abs(((x - x.mean()) ** 3).mean()) < 0.03  # symmetric
    d = np.zeros(200000, np.float64)
    pyaclnn.call("InplaceNormal", d, 0.0, 1.0, 6, 0)
    assert ks_normal(d) < 1.95 / math.sqrt(len(d))
    z = np.zeros(1000, np.float32)
    pyaclnn.call("InplaceNormal", z, 3.0, 0.0, 5, 0)  # std 0: the mean exactly
    assert (z == 3.0).all()


def test_normal_tensor_seed_offset():
    x, y = np.zeros(500, np.float32), np.zeros(500, np.float32)
    pyaclnn.call("InplaceNormalTensor", x, 0.0, 1.0, np.array([8], np.int64), np.array([1], np.int64), 2)
    pyaclnn.call("InplaceNormal", y, 0.0, 1.0, 8, 3)
    np.testing.assert_array_equal(x, y)


def test_normal_invalid():
    t = pyaclnn.AclTensor.from_array(np.zeros(4, np.float32))
    s1 = pyaclnn.AclTensor.from_array(np.zeros(1, np.int64))
    expect_invalid("InplaceNormal", (None, 0.0, 1.0, 0, 0), P_NULL, "selfRef")
    expect_invalid("InplaceNormal", (t, 0.0, -1.0, 0, 0), P_PARAM, "std")
    expect_invalid("InplaceNormal", (pyaclnn.AclTensor.from_array(np.zeros(4, np.complex64)), 0.0, 1.0, 0, 0),
                   P_PARAM, "selfRef")
    expect_invalid("InplaceNormal", (pyaclnn.AclTensor.from_array(np.zeros((1,) * 9, np.float32)), 0.0, 1.0, 0, 0),
                   P_PARAM, "selfRef")
    # the Tensor variant checks seedTensor/offsetTensor first: NULL, dtype int64, shape [1]
    expect_invalid("InplaceNormalTensor", (t, 0.0, 1.0, None, s1, 0), P_NULL, "seedTensor")
    expect_invalid("InplaceNormalTensor", (None, 0.0, -1.0, s1, None, 0), P_NULL, "offsetTensor")
    expect_invalid("InplaceNormalTensor", (t, 0.0, 1.0, s1, pyaclnn.AclTensor.from_array(np.zeros(1, np.uint64)), 0),
                   P_PARAM, "offsetTensor")
    expect_invalid("InplaceNormalTensor", (t, 0.0, 1.0, pyaclnn.AclTensor.from_array(np.zeros(2, np.int64)), s1, 0),
                   P_PARAM, "seedTensor")
    expect_invalid("InplaceNormalTensor", (None, 0.0, 1.0, s1, s1, 0), P_NULL, "selfRef")
    expect_invalid("InplaceNormalTensor", (t, 0.0, -1.0, s1, s1, 0), P_PARAM, "std")


NORMAL_OUT = ("bf16", "f16", "f32", "f64")


@pytest.mark.parametrize("dt", NORMAL_OUT)
def test_normal_out_variants(dt):
    dbl = dt == "f64"
    rng = np.random.default_rng(0)
    shape = (30, 40)
    n = 1200
    mean = rng.uniform(-3, 3, shape).astype(NP[dt])
    std = rng.uniform(0.5, 2, shape).astype(NP[dt])
    tol = {"f32": 1e-5, "f64": 1e-12, "f16": 2e-3, "bf16": 1e-2}[dt]

    def check(o, m, s):
        exp = ref_normal(0.0, 1.0, 11, 1, n, dbl).reshape(shape) * np.asarray(s, np.float64) + \
            np.asarray(m, np.float64)
        np.testing.assert_allclose(o.astype(np.float64), exp, rtol=tol, atol=tol * 4)

    o = out_like(shape, dt)
    pyaclnn.call("NormalFloatFloat", 0.5, 2.0, 11, 1, o)
    check(o, 0.5, 2.0)
    o = out_like(shape, dt)
    pyaclnn.call("NormalTensorFloat", strided(mean), 2.0, 11, 1, o)
    check(o, mean.astype(np.float64), 2.0)
    o = out_like(shape, dt)
    pyaclnn.call("NormalFloatTensor", 0.5, std, 11, 1, o)
    check(o, 0.5, std.astype(np.float64))
    o = out_like(shape, dt)
    pyaclnn.call("NormalTensorTensor", mean, strided(std), 11, 1, o)
    check(o, mean.astype(np.float64), std.astype(np.float64))
    # TensorTensor draws z in mean's shape: a broadcast mean shares z along the broadcast dim
    o = out_like(shape, dt)
    pyaclnn.call("NormalTensorTensor", np.zeros((30, 1), NP[dt]), std, 11, 1, o)
    z = ref_normal(0.0, 1.0, 11, 1, 30, dbl).reshape(30, 1)
    np.testing.assert_allclose(o.astype(np.float64), z * std.astype(np.float64), rtol=tol, atol=tol * 4)
    # promotion: f32 mean with f64 std into f64 out computes in double
    if dt == "f64":
        o = np.zeros(shape)
        pyaclnn.call("NormalTensorTensor", mean.astype(np.float32), std, 11, 1, o)
        check(o, mean.astype(np.float32).astype(np.float64), std)


def test_normal_out_statistics():
    o = np.zeros(100000, np.float32)
    pyaclnn.call("NormalFloatFloat", 2.0, 3.0, 1, 0, o)
    assert abs(o.mean() - 2) < 0.03 and abs(o.std() - 3) < 0.03
    assert ks_normal((o - 2) / 3) < 0.006


def test_normal_out_invalid():
    f = lambda *s: pyaclnn.AclTensor.from_array(np.zeros(s, np.float32))
    expect_invalid("NormalFloatFloat", (0.0, 1.0, 0, 0, None), P_NULL, "out")
    expect_invalid("NormalFloatFloat", (0.0, 1.0, 0, 0, pyaclnn.AclTensor.from_array(np.zeros(3, np.int32))),
                   P_PARAM, "out")
    expect_invalid("NormalFloatFloat", (0.0, 1.0, 0, 0, f(*(1,) * 9)), P_PARAM, "out")
    expect_invalid("NormalTensorTensor", (None, f(3), 0, 0, f(3)), P_NULL, "mean")
    expect_invalid("NormalTensorTensor", (f(3), f(3), 0, 0, None), P_NULL, "out")
    expect_invalid("NormalTensorTensor", (f(3), f(4), 0, 0, f(4)), P_PARAM, "broadcast")
    expect_invalid("NormalTensorTensor", (f(3), f(2, 3), 0, 0, f(3)), P_PARAM, "out")
    expect_invalid("NormalTensorTensor", (pyaclnn.AclTensor.from_array(np.zeros(3, np.int32)), f(3), 0, 0, f(3)),
                   P_PARAM, "mean")
    expect_invalid("NormalTensorFloat", (f(4), 1.0, 0, 0, f(3)), P_PARAM, "out")
    expect_invalid("NormalTensorFloat", (f(2, 3), 1.0, 0, 0, f(3)), P_PARAM, "out")
    expect_invalid("NormalFloatTensor", (0.0, f(0), 0, 0, f(0)), P_PARAM, "std")
    expect_invalid("NormalFloatTensor", (0.0, f(1, 3), 0, 0, f(3)), P_PARAM, "std")
    expect_invalid("NormalFloatTensor", (0.0, pyaclnn.AclTensor.from_array(np.zeros(3, np.int64)), 0, 0, f(3)),
                   P_PARAM, "std")
    # empties: no-ops
    pyaclnn.call("NormalFloatTensor", 0.0, np.ones(1, np.float32), 0, 0, np.zeros(0, np.float32))
    pyaclnn.call("NormalTensorTensor", np.zeros(0, np.float32), np.ones(1, np.float32), 0, 0, np.zeros(0, np.float32))


# ---------------------------------------------------------------- Bernoulli
BERN = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16")
BERN_P = ("f32", "f16", "f64", "bf16")


@pytest.mark.parametrize("dt", BERN)
def test_bernoulli(dt):
    n = 5000
    self_ = np.zeros(n, NP[dt])
    o = np.full(n, 3, NP[dt])
    pyaclnn.call("Bernoulli", self_, pyaclnn.scalar(0.3, np.float32), 21, 4, o)
    exp = (ref_uniform_f(21, 4, n).astype(np.float64) < np.float64(np.float32(0.3)))
    np.testing.assert_array_equal(o, exp.astype(NP[dt]))
    assert abs(o.astype(np.float64).mean() - 0.3) < 0.03
    for p, v in ((0.0, 0), (1.0, 1)):  # exact rules
        o = out_like((30, 20), dt)
        pyaclnn.call("Bernoulli", np.zeros((30, 20), NP[dt]), pyaclnn.scalar(p, np.float64), 1, 0, o)
        assert (o.astype(np.float64) == v).all()
    x = out_like((30, 20), dt)
    pyaclnn.call("InplaceBernoulli", x, pyaclnn.scalar(0.3, np.float32), 21, 4)
    np.testing.assert_array_equal(x.reshape(-1), exp[:600].astype(NP[dt]))


@pytest.mark.parametrize("pdt", BERN_P)
def test_bernoulli_tensor(pdt):
    rng = np.random.default_rng(1)
    prob = rng.uniform(0, 1, (40, 50)).astype(NP[pdt])
    prob[0, :] = 0
    prob[1, :] = 1
    o = out_like((40, 50), "f32")
    pyaclnn.call("BernoulliTensor", np.zeros((40, 50), np.float32), strided(prob), 3, 9, o)
    exp = ref_uniform_f(3, 9, 2000).reshape(40, 50).astype(np.float64) < prob.astype(np.float64)
    np.testing.assert_array_equal(o, exp.astype(np.float32))
    assert (o[0] == 0).all() and (o[1] == 1).all()
    # prob broadcast over self
    o = np.zeros((40, 50), np.int64)
    pyaclnn.call("BernoulliTensor", np.zeros((40, 50), np.int64), np.array([0.25], NP[pdt]), 3, 9, o)
    assert abs(o.mean() - 0.25) < 0.03
    x = np.zeros((40, 50), np.float32)
    pyaclnn.call("InplaceBernoulliTensor", x, prob, 3, 9)
    np.testing.assert_array_equal(x, exp.astype(np.float32))


def test_bernoulli_large_sample():
    o = np.zeros(200000, np.uint8)
    pyaclnn.call("Bernoulli", o, pyaclnn.scalar(0.7, np.float64), 8, 8, o)
    assert abs(o.mean() - 0.7) < 0.004


def test_bernoulli_invalid():
    f = lambda *s, dt=np.float32: pyaclnn.AclTensor.from_array(np.zeros(s, dt))
    sc = make_scalar(pyaclnn.scalar(0.5, np.float32))
    expect_invalid("Bernoulli", (None, sc, 0, 0, f(3)), P_NULL, "self")
    expect_invalid("Bernoulli", (f(3), None, 0, 0, f(3)), P_NULL, "prob")
    expect_invalid("Bernoulli", (f(3), sc, 0, 0, None), P_NULL, "out")
    expect_invalid("Bernoulli", (f(3, dt=np.complex64), sc, 0, 0, f(3, dt=np.complex64)), P_PARAM, "self")
    expect_invalid("Bernoulli", (f(3), make_scalar(pyaclnn.scalar(1, np.int32)), 0, 0, f(3)), P_PARAM, "prob")
    expect_invalid("Bernoulli", (f(3), sc, 0, 0, f(3, dt=np.float16)), P_PARAM, "out")
    expect_invalid("Bernoulli", (f(3), make_scalar(pyaclnn.scalar(1.5, np.float32)), 0, 0, f(3)), P_PARAM, "prob")
    expect_invalid("Bernoulli", (f(3), make_scalar(pyaclnn.scalar(-0.1, np.float64)), 0, 0, f(3)), P_PARAM, "prob")
    expect_invalid("Bernoulli", (f(*(1,) * 9), sc, 0, 0, f(*(1,) * 9)), P_PARAM, "self")
    expect_invalid("Bernoulli", (f(3), sc, 0, 0, f(4)), P_PARAM, "out")
    expect_invalid("BernoulliTensor", (f(3), None, 0, 0, f(3)), P_NULL, "prob")
    expect_invalid("BernoulliTensor", (f(3), f(3, dt=np.int32), 0, 0, f(3)), P_PARAM, "prob")
    expect_invalid("BernoulliTensor", (f(3), f(*(1,) * 9), 0, 0, f(3)), P_PARAM, "prob")
    expect_invalid("BernoulliTensor", (f(3), f(2), 0, 0, f(3)), P_PARAM, "prob")
    expect_invalid("InplaceBernoulli", (None, sc, 0, 0), P_NULL, "selfRef")
    pyaclnn.call("Bernoulli", np.zeros(0, np.float32), pyaclnn.scalar(0.5, np.float32), 0, 0, np.zeros(0, np.float32))


# ---------------------------------------------------------------- Multinomial
MULTI = ("f32", "f16", "f64", "bf16")


@pytest.mark.parametrize("dt", MULTI)
def test_multinomial(dt):
    probs = np.array([[0, 10, 3, 0, 7], [1, 1, 1, 1, 0]], NP[dt])
    o = out_like((2, 4), "i64")
    pyaclnn.call("Multinomial", probs, 4, False, 1234, 0, o)
    for r in range(2):
        assert len(set(o[r].tolist())) == 4  # distinct without replacement
    # the positive classes come before any zero-probability class
    assert set(o[0].tolist()[:3]) == {1, 2, 4} and o[0, 3] in (0, 3) and set(o[1].tolist()) == {0, 1, 2, 3}
    # with replacement: zero-probability classes never appear, frequencies follow the probabilities
    big = np.zeros((2, 20000), np.int64)
    pyaclnn.call("Multinomial", probs, 20000, True, 7, 0, big)
    assert not np.isin(big[0], [0, 3]).any() and not (big[1] == 4).any()
    freq = np.bincount(big[0], minlength=5) / 20000
    np.testing.assert_allclose(freq, np.array([0, 10, 3, 0, 7]) / 20, atol=0.015)
    # literal: sample s of row r uses philox_uniform_d(r * numsamples + s) and the normalised cumsum
    o = np.zeros((2, 6), np.int64)
    pyaclnn.call("Multinomial", probs, 6, True, 5, 2, o)
    u = ref_uniform_d(5, 2, 12).reshape(2, 6)
    p = probs.astype(np.float64)
    cdf = np.cumsum(p, 1) / p.sum(1, keepdims=True)
    exp = np.array([[np.searchsorted(cdf[r], u[r, s], side="right") for s in range(6)] for r in range(2)])
    np.testing.assert_array_equal(o, exp)


def test_multinomial_without_replacement_distribution():
    # first draw of the exponential race follows the probabilities
    probs = np.array([0.5, 0.3, 0.2, 0.0], np.float32)
    firsts = []
    for s in range(3000):
        o = np.zeros(3, np.int64)
        pyaclnn.call("Multinomial", probs, 3, False, s, 0, o)
        assert sorted(o.tolist()) == [0, 1, 2]
        firsts.append(o[0])
    freq = np.bincount(firsts, minlength=4) / 3000
    np.testing.assert_allclose(freq, [0.5, 0.3, 0.2, 0], atol=0.03)


def test_multinomial_tensor_and_1d():
    probs = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    a, b = np.zeros(8, np.int64), np.zeros(8, np.int64)
    pyaclnn.call("MultinomialTensor", probs, 8, True, np.array([4], np.int64), np.array([1], np.int64), 2, a)
    pyaclnn.call("Multinomial", probs, 8, True, 4, 3, b)
    np.testing.assert_array_equal(a, b)


def test_multinomial_invalid():
    f = lambda *s, dt=np.float32: pyaclnn.AclTensor.from_array(np.ones(s, dt))
    i = lambda *s: pyaclnn.AclTensor.from_array(np.zeros(s, np.int64))
    expect_invalid("Multinomial", (None, 2, True, 0, 0, i(2)), P_NULL, "self")
    expect_invalid("Multinomial", (f(4), 2, True, 0, 0, None), P_NULL, "out")
    expect_invalid("Multinomial", (f(4, dt=np.int32), 2, True, 0, 0, i(2)), P_PARAM, "self")
    expect_invalid("Multinomial", (f(4), 2, True, 0, 0, pyaclnn.AclTensor.from_array(np.zeros(2, np.int32))),
                   P_PARAM, "out")
    expect_invalid("Multinomial", (f(2, 2, 2), 2, True, 0, 0, i(2, 2, 2)), P_PARAM, "self")
    expect_invalid("Multinomial", (f(4), 2, True, 0, 0, i(1, 2)), P_PARAM, "out")
    expect_invalid("Multinomial", (f(4), 2, True, 0, 0, i(3)), P_PARAM, "numsamples")
    expect_invalid("Multinomial", (f(3, 4), 2, True, 0, 0, i(2, 2)), P_PARAM, "first dim")
    expect_invalid("Multinomial", (f(4), 0, True, 0, 0, i(0)), P_PARAM, "numsamples")
    expect_invalid("Multinomial", (f(4), 5, False, 0, 0, i(5)), P_PARAM, "numsamples")
    expect_invalid("MultinomialTensor", (f(4), 2, True, None, i(1), 0, i(2)), P_NULL, "seedTensor")
    expect_invalid("MultinomialTensor", (f(4), 2, True, pyaclnn.AclTensor.from_array(np.zeros(1, np.int32)), i(1), 0,
                                         i(2)), P_PARAM, "seedTensor")


# ---------------------------------------------------------------- determinism
def test_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
h = hashlib.sha256()
for dt in (np.float32, np.float16, np.float64, np.int32):
    x = np.zeros((300, 257), dt); pyaclnn.call("InplaceNormal", x, 0.0, 1.0, 3, 4); h.update(x.tobytes())
    y = np.zeros((300, 257), dt); pyaclnn.call("InplaceUniform", y, -1.0, 1.0, 3, 4); h.update(y.tobytes())
b = np.zeros((300, 257), np.float32); pyaclnn.call("Bernoulli", b, pyaclnn.scalar(0.4, np.float32), 1, 2, b)
h.update(b.tobytes())
m = np.zeros((64, 100), np.int64)
pyaclnn.call("Multinomial", np.random.default_rng(0).random((64, 500)).astype(np.float32), 100, False, 1, 1, m)
h.update(m.tobytes())
pyaclnn.call("Multinomial", np.random.default_rng(0).random((64, 500)).astype(np.float32), 100, True, 1, 1, m)
h.update(m.tobytes())
o = np.zeros((300, 257), np.float32)
pyaclnn.call("NormalTensorTensor", np.zeros((300, 1), np.float32), np.ones((300, 257), np.float32), 5, 6, o)
h.update(o.tobytes())
r = np.zeros(70000, np.int64); pyaclnn.call("Randperm", 70000, 2, 3, r); h.update(r.tobytes())
q = np.zeros((300, 257), np.int16); pyaclnn.call("InplaceRandom", q, -9, 99, 2, 3); h.update(q.tobytes())
e = np.zeros((300, 257), np.float16); pyaclnn.call("SimThreadExponential", e, e.size, 1.5, 2, 3); h.update(e.tobytes())
x = np.ones((300, 257), np.float32); d = np.zeros_like(x); mk = np.zeros((300 * 257 + 127) // 128 * 16, np.uint8)
pyaclnn.call("Dropout", x, 0.2, True, 4, 5, d, mk); h.update(d.tobytes()); h.update(mk.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- InplaceRandom
RANDOM = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "bool", "f64", "bf16", "c64", "c128")


@pytest.mark.parametrize("dt", RANDOM)
def test_inplace_random(dt):
    lo, hi = (0, 2) if dt == "bool" else (3, 13) if dt == "u8" else (-5, 5)
    n = 6000
    x = np.zeros(n, NP[dt])
    pyaclnn.call("InplaceRandom", x, lo, hi, 17, 3)
    exp = lo + np.floor(ref_uniform_d(17, 3, n) * (hi - lo)).astype(np.int64)
    np.testing.assert_array_equal(x, exp.astype(NP[dt]))
    v = np.real(x).astype(np.int64)
    assert v.min() == lo and v.max() == hi - 1  # both ends of [from, to) are reached
    counts = np.bincount(v - lo, minlength=hi - lo) / n
    np.testing.assert_allclose(counts, 1 / (hi - lo), atol=0.02)
    y = out_like((30, 20), dt, 0)
    pyaclnn.call("InplaceRandom", y, lo, hi, 17, 3)
    np.testing.assert_array_equal(y.reshape(-1), x[:600])


def test_inplace_random_tensor_and_defaults():
    a, b = np.zeros(100, np.int32), np.zeros(100, np.int32)
    pyaclnn.call("InplaceRandomTensor", a, 0, 1000, np.array([5], np.int64), np.array([2], np.int64), 1)
    pyaclnn.call("InplaceRandom", b, 0, 1000, 5, 3)
    np.testing.assert_array_equal(a, b)
    for dt, top in (("u8", 255), ("i8", 127), ("f16", 2048), ("bf16", 256), ("bool", 1)):
        x = np.zeros(20000, NP[dt])
        pyaclnn.call("InplaceRandomWithoutFromTo", x, 1, 2)
        v = x.astype(np.float64)
        assert v.min() >= 0 and v.max() <= top and v.max() > top * 0.9
    c, d = np.zeros(50, np.int64), np.zeros(50, np.int64)
    pyaclnn.call("InplaceRandomWithoutFromToTensor", c, np.array([1], np.int64), np.array([0], np.int64), 2)
    pyaclnn.call("InplaceRandomWithoutFromTo", d, 1, 2)
    np.testing.assert_array_equal(c, d)


def test_inplace_random_invalid():
    t = pyaclnn.AclTensor.from_array(np.zeros(4, np.int32))
    s1 = pyaclnn.AclTensor.from_array(np.zeros(1, np.int64))
    expect_invalid("InplaceRandom", (None, 0, 5, 0, 0), P_NULL, "selfRef")
    expect_invalid("InplaceRandom", (pyaclnn.AclTensor.from_array(np.zeros(4, np.uint16)), 0, 5, 0, 0), P_PARAM,
                   "selfRef")
    expect_invalid("InplaceRandom", (pyaclnn.AclTensor.from_array(np.zeros((1,) * 9, np.int32)), 0, 5, 0, 0), P_PARAM,
                   "selfRef")
    expect_invalid("InplaceRandom", (t, 5, 5, 0, 0), P_PARAM, "from")
    expect_invalid("InplaceRandomTensor", (t, 0, 5, None, s1, 0), P_NULL, "seedTensor")
    expect_invalid("InplaceRandomTensor", (t, 0, 5, s1, pyaclnn.AclTensor.from_array(np.zeros(1, np.int32)), 0),
                   P_PARAM, "offsetTensor")
    expect_invalid("InplaceRandomWithoutFromToTensor", (t, pyaclnn.AclTensor.from_array(np.zeros(1, np.float32)), s1,
                                                        0), P_PARAM, "seedTensor")


# ---------------------------------------------------------------- Randperm
RANDPERM = ("f32", "f16", "i32", "f64", "i64", "i8", "u8", "i16", "bf16")


@pytest.mark.parametrize("dt", RANDPERM)
def test_randperm(dt):
    n = 100
    o = out_like((n,), dt, 0)
    pyaclnn.call("Randperm", n, 9, 1, o)
    assert sorted(o.astype(np.int64).tolist()) == list(range(n))
    # literal: indices sorted by their 64-bit Philox keys
    w = philox(9, 1, np.arange(n // 2)).reshape(-1, 2).astype(np.uint64)
    keys = w[:, 0] << np.uint64(32) | w[:, 1]
    np.testing.assert_array_equal(o.astype(np.int64), np.argsort(keys, kind="stable"))
    o2 = np.zeros(n, NP[dt])
    pyaclnn.call("Randperm", n, 10, 1, o2)
    assert not np.array_equal(o, o2)


def test_randperm_large_and_invalid():
    o = np.zeros(100000, np.int64)
    pyaclnn.call("Randperm", 100000, 1, 0, o)
    assert np.array_equal(np.sort(o), np.arange(100000))
    assert abs(np.corrcoef(o, np.arange(100000))[0, 1]) < 0.01
    pyaclnn.call("Randperm", 0, 1, 0, np.zeros(0, np.int64))
    expect_invalid("Randperm", (3, 0, 0, None), P_INNER_NULL, "out")
    expect_invalid("Randperm", (3, 0, 0, pyaclnn.AclTensor.from_array(np.zeros(3, np.bool_))), P_PARAM, "out")
    expect_invalid("Randperm", (3, 0, 0, pyaclnn.AclTensor.from_array(np.zeros(4, np.int64))), P_PARAM, "out")
    expect_invalid("Randperm", (3, 0, 0, pyaclnn.AclTensor.from_array(np.zeros((3, 1), np.int64))), P_PARAM, "out")


# ---------------------------------------------------------------- SimThreadExponential
@pytest.mark.parametrize("dt", ("bf16", "f16", "f32"))
def test_sim_thread_exponential(dt):
    n = 20000
    x = np.zeros(n, NP[dt])
    pyaclnn.call("SimThreadExponential", x, n, 2.0, 4, 8)
    w = philox(4, 8, np.arange(n // 4)).reshape(-1)
    u = ((w >> 8).astype(np.float32) + np.float32(0.5)) * np.float32(2.0 ** -24)
    exp = (-np.log(u.astype(np.float64)) / 2.0).astype(np.float32)
    np.testing.assert_allclose(x.astype(np.float64), exp.astype(NP[dt]).astype(np.float64), rtol=2e-6 if dt == "f32"
                               else 1e-2, atol=1e-7)
    v = x.astype(np.float64)
    assert (v > 0).all() and np.isfinite(v).all()
    assert abs(v.mean() - 0.5) < 0.02
    assert ks_uniform(1 - np.exp(-2 * v)) < 1.95 / math.sqrt(n) + (0.01 if dt == "bf16" else 0.002)


def test_sim_thread_exponential_invalid():
    t = pyaclnn.AclTensor.from_array(np.zeros(4, np.float32))
    expect_invalid("SimThreadExponential", (None, 4, 1.0, 0, 0), P_NULL, "selfRef")
    expect_invalid("SimThreadExponential", (pyaclnn.AclTensor.from_array(np.zeros(4, np.float64)), 4, 1.0, 0, 0),
                   P_PARAM, "selfRef")
    expect_invalid("SimThreadExponential", (t, 4, 0.0, 0, 0), P_PARAM, "lambda")
    expect_invalid("SimThreadExponential", (t, 3, 1.0, 0, 0), P_PARAM, "count")


# ---------------------------------------------------------------- dropout family
def ref_mask(seed, offset, n, prob):
    nb = (n + 127) // 128 * 16
    bits = (ref_uniform_f(seed, offset, nb * 8).astype(np.float64) >= prob).astype(np.uint8)
    return np.packbits(bits, bitorder="little")


def ia(v):
    return pyaclnn.ops.table.int_array(v) if hasattr(pyaclnn.ops.table, "int_array") else v


def test_dropout_gen_mask():
    for prob in (0.3, 0.0, 1.0):
        o = np.full(16 * 4, 9, np.uint8)
        pyaclnn.call("DropoutGenMask", [5, 100], prob, 6, 2, o)
        np.testing.assert_array_equal(o, ref_mask(6, 2, 500, prob))
    assert (o == 0).all()
    o = np.zeros(160 * 16, np.uint8)
    pyaclnn.call("DropoutGenMaskV2", [20480], 0.25, 3, 0, pyaclnn.tensor.acl_dtype(np.float16), o)
    keep = np.unpackbits(o, bitorder="little").mean()
    assert abs(keep - 0.75) < 0.01
    t = np.zeros(160 * 16, np.uint8)
    pyaclnn.call("DropoutGenMaskV2Tensor", [20480], 0.25, np.array([3], np.int64), np.array([-1], np.int64), 1,
                 pyaclnn.tensor.acl_dtype(np.float32), t)
    np.testing.assert_array_equal(t, o)


def test_dropout_gen_mask_invalid():
    from pyaclnn.ops.table import int_array
    o = pyaclnn.AclTensor.from_array(np.zeros(16, np.uint8))
    sh = int_array([10])
    f16 = pyaclnn.tensor.acl_dtype(np.float16)
    expect_invalid("DropoutGenMask", (None, 0.5, 0, 0, o), P_NULL, "shape")
    expect_invalid("DropoutGenMask", (sh, 0.5, 0, 0, None), P_NULL, "out")
    expect_invalid("DropoutGenMask", (sh, 0.5, 0, 0, pyaclnn.AclTensor.from_array(np.zeros(16, np.int8))), P_PARAM,
                   "out")
    expect_invalid("DropoutGenMask", (sh, 1.5, 0, 0, o), P_PARAM, "prob")
    expect_invalid("DropoutGenMask", (sh, 0.5, 0, 0, pyaclnn.AclTensor.from_array(np.zeros(8, np.uint8))), P_PARAM,
                   "out")
    expect_invalid("DropoutGenMaskV2", (sh, 0.5, 0, 0, pyaclnn.tensor.acl_dtype(np.float64), o), P_INNER_NULL,
                   "probDataType")
    expect_invalid("DropoutGenMaskV2Tensor", (sh, 0.5, None, pyaclnn.AclTensor.from_array(np.zeros(1, np.int64)), 0,
                                              f16, o), P_NULL, "seedTensor")


@pytest.mark.parametrize("dt", ("f32", "f16", "bf16"))
def test_dropout_do_mask_and_backward(dt):
    rng = np.random.default_rng(2)
    x = rng.uniform(-3, 3, (20, 30)).astype(NP[dt])
    mask = ref_mask(1, 1, 600, 0.4)
    bits = np.unpackbits(mask, bitorder="little")[:600].reshape(20, 30)
    for prob in (0.4, 0.0, 1.0):
        o = out_like((20, 30), dt, 5)
        pyaclnn.call("DropoutDoMask", strided(x), mask, prob, o)
        keep = np.float64(np.array(1 - prob, np.float32).astype(NP[dt]))
        exp = np.where(bits == 1, x.astype(np.float32) / np.float32(keep), 0) if 0 < prob < 1 else \
            (x if prob == 0 else np.zeros_like(x))
        np.testing.assert_array_equal(o.astype(np.float64), np.asarray(exp, np.float32).astype(NP[dt])
                                      .astype(np.float64))
    # backward with scale = 1 / (1 - p): kept gradients times scale
    o = np.zeros((20, 30), NP[dt])
    pyaclnn.call("DropoutBackward", x, mask, 2.0, o)
    np.testing.assert_array_equal(o.astype(np.float64), np.where(bits == 1, x.astype(np.float64) * 2, 0))


@pytest.mark.parametrize("op", ("Dropout", "DropoutV3"))
@pytest.mark.parametrize("dt", ("f32", "f16", "bf16"))
def test_dropout(op, dt):
    rng = np.random.default_rng(3)
    x = rng.uniform(1, 2, (40, 50)).astype(NP[dt])
    p = 0.3

    def call(prob, o, m, train=True):
        if op == "Dropout":
            pyaclnn.call(op, x, prob, train, 12, 4, o, m)
        else:
            pyaclnn.call(op, x, None, prob, 12, 4, o, m)
    o, m = np.zeros_like(x), np.zeros(128 * 2, np.uint8)
    call(p, o, m)
    np.testing.assert_array_equal(m, ref_mask(12, 4, 2000, p))
    bits = np.unpackbits(m, bitorder="little")[:2000].reshape(40, 50)
    scale = np.float32(np.array(1 - p, np.float32).astype(NP[dt]))
    np.testing.assert_array_equal(o.astype(np.float64), np.where(bits == 1, (x.astype(np.float32) / scale)
                                                                 .astype(NP[dt]).astype(np.float64), 0))
    assert abs((o == 0).mean() - p) < 0.03  # dropped fraction; kept values scaled by 1/(1-p)
    o, m = np.zeros_like(x), np.full(256, 7, np.uint8)
    call(0.0, o, m)
    np.testing.assert_array_equal(o, x)
    assert (m == (255 if op == "DropoutV3" else 7)).all()
    o, m = np.ones_like(x), np.full(256, 7, np.uint8)
    call(1.0, o, m)
    assert (o.astype(np.float64) == 0).all() and (m == (0 if op == "DropoutV3" else 7)).all()
    if op == "Dropout":
        o = np.zeros_like(x)
        call(p, o, m, train=False)
        np.testing.assert_array_equal(o, x)


def test_dropout_invalid():
    f = lambda *s, dt=np.float32: pyaclnn.AclTensor.from_array(np.zeros(s, dt))
    m = f(16, dt=np.uint8)
    expect_invalid("DropoutDoMask", (None, m, 0.5, f(8)), P_NULL, "self")
    expect_invalid("DropoutDoMask", (f(8), m, 0.5, f(8, dt=np.int32)), P_PARAM, "out")
    expect_invalid("DropoutDoMask", (f(8, dt=np.float64), m, 0.5, f(8, dt=np.float64)), P_PARAM, "self")
    expect_invalid("DropoutDoMask", (f(8), f(16, dt=np.int8), 0.5, f(8)), P_PARAM, "mask")
    expect_invalid("DropoutDoMask", (f(8), m, 1.5, f(8)), P_PARAM, "prob")
    expect_invalid("DropoutDoMask", (f(8), m, 0.5, f(9)), P_PARAM, "out")
    expect_invalid("DropoutDoMask", (f(8), f(8, dt=np.uint8), 0.5, f(8)), P_PARAM, "mask")
    expect_invalid("DropoutBackward", (f(8), m, 0.5, f(8)), P_PARAM, "scale")
    expect_invalid("DropoutBackward", (f(8), f(32, dt=np.uint8), 2.0, f(8)), P_PARAM, "mask")
    expect_invalid("Dropout", (f(8), 0.5, True, 0, 0, f(8), None), P_NULL, "maskOut")
    expect_invalid("Dropout", (f(8), 0.5, True, 0, 0, f(8), f(8, dt=np.uint8)), P_PARAM, "maskOut")
    expect_invalid("Dropout", (f(8), -0.5, True, 0, 0, f(8), m), P_PARAM, "p")
    expect_invalid("DropoutV3", (f(8), f(1), 0.5, 0, 0, f(8), m), P_PARAM, "optionalNoiseShape")
    expect_invalid("DropoutV3Grad", (f(8), m, 2.0, f(8)), P_PARAM, "socversion")


def test_set_pytorch_random():
    from pyaclnn import lib
    assert lib.aclnnGetPytorchRandom() == 0
    assert lib.aclnnSetPytorchRandom(1) == 0 and lib.aclnnGetPytorchRandom() == 1
    assert lib.aclnnSetPytorchRandom(2) == P_PARAM and "pytorchRandom" in pyaclnn.recent_error_message()
    assert lib.aclnnGetPytorchRandom() == 1
    assert lib.aclnnSetPytorchRandom(0) == 0 and lib.aclnnGetPytorchRandom() == 0
