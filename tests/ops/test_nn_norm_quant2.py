"""The second set of quantised norms (tools/optable/nn_norm_quant2.py): values against a float64 torch norm followed
by the documented quantisation written out literally (test_nn_norm_quant.py's helpers); invalid-input rows with the
exact status and the argument named; the same bytes for any thread count."""
import numpy as np
import pytest

import pyaclnn
from helpers import same_bytes_for_threads
from table_harness import expect_status
from test_nn_norm_quant import HALF, T, assert_quant, dyn_ref, f64, rnd, strided

# ------------------------------------------------------------------ AdaLayerNormQuant


def ada_ref(torch, x, scale, shift, w, b, eps=1e-5):
    """float64: layer norm over H (biased variance), * w + b, * (1 + scale) + shift; scale/shift [B..., H] or
    [B..., 1, H]"""
    xs = f64(torch, x)
    H = x.shape[-1]
    y = torch.nn.functional.layer_norm(xs, (H,), f64(torch, w) if w is not None else None,
                                       f64(torch, b) if b is not None else None, eps=float(np.float32(eps)))
    sc, sh = f64(torch, scale), f64(torch, shift)
    if sc.dim() == xs.dim() - 1:
        sc, sh = sc.unsqueeze(-2), sh.unsqueeze(-2)
    return (y * (1 + sc) + sh).numpy()


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("opt", ["none", "all", "smooth"])
@pytest.mark.parametrize("ss", ["BH", "B1H"])
def test_ada_layer_norm_quant(torch, dt, opt, ss):
    rng = np.random.default_rng(7)
    B, S, H = 2, 3, 32
    x = rnd(rng, (B, S, H), dt)
    sshape = (B, H) if ss == "BH" else (B, 1, H)
    scale, shift = rnd(rng, sshape, dt, -0.5, 0.5), rnd(rng, sshape, dt, -0.5, 0.5)
    w = rnd(rng, (H,), dt, 0.5, 1.5) if opt == "all" else None
    b = rnd(rng, (H,), dt, -0.5, 0.5) if opt == "all" else None
    sm = rnd(rng, (H,), dt, 0.5, 2.0) if opt in ("all", "smooth") else None
    out, qs = np.zeros((B, S, H), np.int8), np.zeros((B, S), np.float32)
    pyaclnn.call("AdaLayerNormQuant", strided(x), scale, strided(shift), w, b, sm, 1e-5, "dynamic", out, qs, None)
    v, es = dyn_ref(ada_ref(torch, x, scale, shift, w, b), sm.astype(np.float64) if sm is not None else None)
    assert_quant(out, v)
    np.testing.assert_allclose(qs, es.astype(np.float32), rtol=1.3e-6)
    assert np.all(np.abs(out).max(-1) == 127)


def test_ada_layer_norm_quant_strided_outputs(torch):
    rng = np.random.default_rng(8)
    x, sc, sh = rnd(rng, (4, 16), "f16"), rnd(rng, (16,), "f16"), rnd(rng, (16,), "f16")
    big, qbig = np.zeros((4, 33), np.int8), np.zeros((9,), np.float32)
    out, qs = big[:, 1::2], qbig[1::2]
    pyaclnn.call("AdaLayerNormQuant", x, sc, sh, None, None, None, 1e-5, None, out, qs, None)
    v, es = dyn_ref(ada_ref(torch, x[None], sc[None], sh[None], None, None)[0])
    assert_quant(out, v)
    np.testing.assert_allclose(qs, es.astype(np.float32), rtol=1.3e-6)
    assert np.all(big[:, 0::2] == 0) and np.all(qbig[0::2] == 0)  # nothing written outside the views


def test_ada_layer_norm_quant_invalid():
    x, s, y, q = T((2, 3, 8), "f16"), T((2, 8), "f16"), T((2, 3, 8), "i8"), T((2, 3), "f32")
    h = T((8,), "f16")
    ok = [x, s, s, h, h, h, 1e-5, b"dynamic", y, q, None]
    expect_status("AdaLayerNormQuant", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("AdaLayerNormQuant", a, code, word)

    for i, name in [(0, "x"), (1, "scale"), (2, "shift"), (8, "out"), (9, "quantScale")]:
        row(i, None, 161001, name)
    row(0, T((2, 3, 8), "f32"), 161002, "x")
    row(1, T((2, 8), "bf16"), 161002, "scale")
    row(2, T((2, 8), "f32"), 161002, "shift")
    row(3, T((8,), "bf16"), 161002, "weightOptional")
    row(4, T((8,), "f32"), 161002, "biasOptional")
    row(5, T((8,), "bf16"), 161002, "smoothScalesOptional")
    row(8, T((2, 3, 8), "i32"), 161002, "out")
    row(9, T((2, 3), "f16"), 161002, "quantScale")
    row(10, T((2, 3), "f32"), 161002, "quantOffsetOptional")
    row(0, T((24,), "f16"), 161002, "x")                  # 1-D
    row(0, T((2, 0, 8), "f16"), 161002, "x")              # a zero size
    row(1, T((2, 2, 8), "f16"), 161002, "scale")
    row(2, T((1, 8), "f16"), 161002, "shift")
    row(3, T((4,), "f16"), 161002, "weightOptional")
    row(5, T((1, 8), "f16"), 161002, "smoothScalesOptional")
    row(8, T((2, 3, 4), "i8"), 161002, "out")
    row(9, T((2,), "f32"), 161002, "quantScale")
    row(7, b"static", 161002, "quantMode")
    # the op_api's order: a dtype error before a shape error
    a = list(ok)
    a[1], a[9] = T((2, 8), "bf16"), T((5,), "f32")
    expect_status("AdaLayerNormQuant", a, 161002, "scale")


def test_ada_layer_norm_quant_threads():
    same_bytes_for_threads("""
import numpy as np, pyaclnn
rng = np.random.default_rng(3)
x = rng.uniform(-2, 2, (4, 64, 96)).astype(np.float16)
s = rng.uniform(-1, 1, (4, 96)).astype(np.float16)
out, q = np.zeros((4, 64, 96), np.int8), np.zeros((4, 64), np.float32)
pyaclnn.call("AdaLayerNormQuant", x, s, s, None, None, s[0], 1e-5, "dynamic", out, q, None)
print(out.tobytes().hex()[:4000], q.tobytes().hex())
""")


# ------------------------------------------------------------------ no A2 path


def test_add_layer_norm_quant_not_on_a2():
    x, g, y, s = T((2, 8), "f16"), T((8,), "f16"), T((2, 8), "i8"), T((2,), "f32")
    a = [x, x, g, g, None, g, None, None, None, b"dynamic", 1e-5, True, False, y, y, T((2, 8), "f16"), s, s]
    expect_status("AddLayerNormQuant", a, 161002, "not implemented")
    a[0] = None  # the arch check comes before the NULL checks
    expect_status("AddLayerNormQuant", a, 161002, "ASCEND910B")


def test_rms_norm_grad_quant_not_on_a2():
    dy, r, g, s = T((2, 8), "f16"), T((2, 1), "f32"), T((8,), "f16"), T((8,), "f32")
    ok = [dy, dy, r, g, s, None, b"static", False, T((2, 8), "i8"), T((8,), "f32")]
    for i, name in [(0, "dy"), (1, "x"), (2, "rstd"), (3, "gamma"), (4, "scalesX"), (8, "dxOut"), (9, "dgammaOut")]:
        a = list(ok)
        a[i] = None
        expect_status("RmsNormGradQuant", a, 161001, name)
    expect_status("RmsNormGradQuant", ok, 561103, "ascend950")
    a = list(ok)
    a[3] = T((0,), "f16")  # an empty gamma: the op_api's early success
    expect_status("RmsNormGradQuant", a, 0)


# ------------------------------------------------------------------ AddLayerNormQuantV2 (A2: static)

ALL = ["f32", "f16", "bf16"]


def aln_ref(torch, x1, x2, g, b, bias, eps=1e-5):
    x = f64(torch, x1) + f64(torch, x2) + (f64(torch, bias) if bias is not None else 0)
    H = x1.shape[-1]
    y = torch.nn.functional.layer_norm(x, (H,), f64(torch, g).reshape(H), f64(torch, b).reshape(H),
                                       eps=float(np.float32(eps)))
    return x.numpy(), y.numpy()


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("mode", ["channel", "tensor"])
@pytest.mark.parametrize("div", [True, False])
def test_add_layer_norm_quant_v2(torch, dt, mode, div):
    rng = np.random.default_rng(11)
    shape, H = (3, 2, 16), 16
    gs = (H,) if mode == "channel" else (1, H)
    x1, x2 = rnd(rng, shape, dt), rnd(rng, shape, dt)
    g, b = rnd(rng, gs, dt, 0.5, 1.5), rnd(rng, gs, dt, -0.5, 0.5)
    bias = rnd(rng, gs if mode == "channel" else shape, dt, -0.5, 0.5)
    sdt = {"f32": "f16", "f16": "f32", "bf16": "bf16"}[dt]  # scales in any of the three dtypes
    ss = (H,) if mode == "channel" else (1,)
    s1 = rnd(rng, ss, sdt, 0.02, 0.05) if div else rnd(rng, ss, sdt, 20, 50)
    s2 = rnd(rng, ss, sdt, 0.01, 0.03) if div else rnd(rng, ss, sdt, 30, 90)
    z1, z2 = rnd(rng, ss, sdt, -3, 3), rnd(rng, ss, sdt, -3, 3)
    y1, y2 = np.zeros(shape, np.int8), np.zeros(shape, np.int8)
    xo, ln = np.zeros(shape, x1.dtype), np.zeros(shape, x1.dtype)
    o1, o2 = np.full((1,), 7, np.float32), np.full((1,), 7, np.float32)
    pyaclnn.call("AddLayerNormQuantV2", strided(x1), x2, g, b, bias, s1, s2, z1, z2, "static", 1e-5, True, div,
                 y1, y2, xo, ln, o1, o2)
    x, y = aln_ref(torch, x1, x2, g, b, bias)
    f = (lambda v, s, z: v / s + z) if div else (lambda v, s, z: v * s + z)
    S = [np.asarray(a, np.float64).reshape(-1) for a in (s1, s2, z1, z2)]
    assert_quant(y1, f(y, S[0], S[2]))
    assert_quant(y2, f(y, S[1], S[3]))
    assert np.any(y1 == 127) or np.any(y1 == -128) or np.any(np.abs(y1) > 20)
    np.testing.assert_array_equal(xo, x.astype(x1.dtype))
    tol = {"f32": 1e-5, "f16": 2e-3, "bf16": 1.6e-2}[dt]
    np.testing.assert_allclose(ln.astype(np.float64), y, rtol=tol, atol=tol)
    assert o1[0] == 7 and o2[0] == 7  # the static mode leaves outScales alone


def test_add_layer_norm_quant_v2_single_and_views(torch):
    rng = np.random.default_rng(12)
    x1, x2, g, b = rnd(rng, (4, 8), "f16"), rnd(rng, (4, 8), "f16"), rnd(rng, (8,), "f16"), rnd(rng, (8,), "f16")
    s1 = rnd(rng, (8,), "f32", 20, 40)
    ybig, y2 = np.zeros((4, 17), np.int8), np.full((4, 8), 5, np.int8)
    y1 = ybig[:, 1::2]
    xo, ln = strided(np.zeros((4, 8), np.float16)), np.zeros((4, 8), np.float16)
    o = np.zeros((1,), np.float32)
    pyaclnn.call("AddLayerNormQuantV2", x1, x2, g, b, None, s1, None, None, None, "static", 1e-5, False, False,
                 y1, y2, xo, ln, o, o)
    x, y = aln_ref(torch, x1, x2, g, b, None)
    assert_quant(y1, y * s1.astype(np.float64))
    assert np.all(ybig[:, 0::2] == 0) and np.all(y2 == 5)  # y2Out untouched without scales2
    np.testing.assert_array_equal(xo, x.astype(np.float16))


def test_add_layer_norm_quant_v2_invalid():
    x, g, y, s, o = T((2, 8), "f16"), T((8,), "f16"), T((2, 8), "i8"), T((8,), "f32"), T((1,), "f32")
    ok = [x, x, g, g, None, s, None, None, None, b"static", 1e-5, True, True, y, y, x, x, o, o]
    expect_status("AddLayerNormQuantV2", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("AddLayerNormQuantV2", a, code, word)

    for i, name in [(0, "x1"), (1, "x2"), (2, "gamma"), (3, "beta"), (13, "y1Out"), (14, "y2Out"), (15, "xOut"),
                    (16, "layernormRes"), (17, "outScales1Out"), (18, "outScales2Out"), (9, "quantMode")]:
        row(i, None, 161001, name)
    row(9, b"dynamic", 161002, "quantMode")
    row(0, T((2, 8), "i32"), 161002, "x1")
    row(1, T((2, 8), "f32"), 161002, "x2")
    row(2, T((8,), "bf16"), 161002, "gamma")
    row(3, T((8,), "f32"), 161002, "beta")
    row(4, T((8,), "f32"), 161002, "biasOptional")
    row(13, T((2, 8), "u8"), 161002, "y1Out")
    row(14, T((2, 8), "f16"), 161002, "y2Out")
    row(15, T((2, 8), "f32"), 161002, "xOut")
    row(16, T((2, 8), "bf16"), 161002, "layernormRes")
    row(17, T((1,), "f16"), 161002, "outScales1Out")
    row(18, T((1,), "i32"), 161002, "outScales2Out")
    row(5, T((8,), "i32"), 161002, "scales1Optional")
    row(6, T((8,), "f16"), 161002, "scales2Optional")
    row(7, T((8,), "bf16"), 161002, "zeroPoints1Optional")
    row(8, T((8,), "f16"), 161002, "zeroPoints2Optional")
    row(0, T((2,) * 9, "f16"), 161002, "x1")
    row(3, T((1, 8), "f16"), 161002, "beta")
    row(5, None, 161002, "scales1Optional")
    row(5, T((4,), "f32"), 161002, "scales1Optional")
    row(5, T((1,), "f32"), 161002, "scales1Optional")  # per tensor needs gamma [1, H]
    row(1, T((2, 4), "f16"), 161002, "x2")
    row(16, T((1, 8), "f16"), 161002, "layernormRes")
    row(7, T((1,), "f32"), 161002, "zeroPoints1Optional")
    row(4, T((2, 4), "f16"), 161002, "biasOptional")
    a = list(ok)
    a[6], a[14] = s, T((3, 8), "i8")  # dual: y2Out must have x1's shape
    expect_status("AddLayerNormQuantV2", a, 161002, "y2Out")
    a = list(ok)
    a[2], a[3], a[5] = T((4,), "f16"), T((4,), "f16"), T((4,), "f32")
    expect_status("AddLayerNormQuantV2", a, 561002, "gamma")
    a = list(ok)
    a[17] = T((0,), "f32")  # an empty outScales: nothing to launch, as the op_api does
    expect_status("AddLayerNormQuantV2", a, 0)


def test_add_layer_norm_quant_v2_threads():
    same_bytes_for_threads("""
import numpy as np, pyaclnn
rng = np.random.default_rng(4)
x1 = rng.uniform(-2, 2, (64, 256)).astype(np.float32)
x2 = rng.uniform(-2, 2, (64, 256)).astype(np.float32)
g = rng.uniform(0.5, 1.5, (256,)).astype(np.float32)
s = rng.uniform(20, 40, (256,)).astype(np.float32)
y1, y2 = np.zeros((64, 256), np.int8), np.zeros((64, 256), np.int8)
xo, ln, o = np.zeros_like(x1), np.zeros_like(x1), np.zeros(1, np.float32)
pyaclnn.call("AddLayerNormQuantV2", x1, x2, g, g, g, s, s, s, s, "static", 1e-5, True, False, y1, y2, xo, ln, o, o)
print(y1.tobytes().hex()[:3000], y2.tobytes().hex()[:3000], ln.tobytes().hex()[:3000])
""")


# ------------------------------------------------------------------ GroupNormSiluQuant


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("per_channel", [True, False])
def test_group_norm_silu_quant(torch, dt, affine, per_channel):
    rng = np.random.default_rng(21)
    N, C, G, shape = 2, 6, 3, (2, 6, 3, 4)
    x = rnd(rng, shape, dt)
    g = rnd(rng, (C,), dt, 0.5, 1.5) if affine else None
    b = rnd(rng, (C,), dt, -0.5, 0.5) if affine else None
    qs = rng.uniform(0.004, 0.01, (C if per_channel else 1,)).astype(np.float32)
    out, mean, rstd = np.zeros(shape, np.int8), np.zeros((N, G), x.dtype), np.zeros((N, G), x.dtype)
    pyaclnn.call("GroupNormSiluQuant", strided(x), g, b, qs, G, 1e-5, True, out, mean, rstd)
    xs = f64(torch, x)
    y = torch.nn.functional.group_norm(xs, G, f64(torch, g) if affine else None, f64(torch, b) if affine else None,
                                       eps=1e-5)
    s = torch.nn.functional.silu(y).numpy() / qs.astype(np.float64).reshape(1, -1, 1, 1)
    assert_quant(out, s)
    assert np.any(out == 127)  # saturation exercised
    xg = xs.reshape(N, G, -1)
    tol = {"f16": 2e-3, "bf16": 1.6e-2}[dt]
    np.testing.assert_allclose(mean.astype(np.float64), xg.mean(-1).numpy(), rtol=tol, atol=tol)
    r = 1 / torch.sqrt(xg.var(-1, unbiased=False) + 1e-5)
    np.testing.assert_allclose(rstd.astype(np.float64), r.numpy(), rtol=tol)


def test_group_norm_silu_quant_empty():
    mean, rstd = np.full((2, 2), 5, np.float16), np.full((2, 2), 5, np.float16)
    pyaclnn.call("GroupNormSiluQuant", np.zeros((2, 4, 0), np.float16), None, None, np.ones(1, np.float32), 2, 1e-5,
                 True, np.zeros((2, 4, 0), np.int8), mean, rstd)
    assert np.all(mean == 0) and np.all(np.isnan(rstd))


def test_group_norm_silu_quant_invalid():
    x, c, q = T((2, 4, 3), "f16"), T((4,), "f16"), T((1,), "f32")
    ok = [x, c, c, q, 2, 1e-5, True, T((2, 4, 3), "i8"), T((2, 2), "f16"), T((2, 2), "f16")]
    expect_status("GroupNormSiluQuant", ok, 0)

    def row(i, v, code, word):
        a = list(ok)
        a[i] = v
        expect_status("GroupNormSiluQuant", a, code, word)

    for i, name in [(0, "self"), (3, "quantScale"), (7, "out"), (8, "meanOut"), (9, "rstdOut")]:
        row(i, None, 161001, name)
    row(0, T((2, 4, 3), "f32"), 161002, "self")
    row(1, T((4,), "f32"), 161002, "gamma")
    row(2, T((4,), "i8"), 161002, "beta")
    row(3, T((1,), "f16"), 161002, "quantScale")
    row(1, T((4,), "bf16"), 161002, "gamma")
    row(7, T((2, 4, 3), "i32"), 161002, "out")
    row(8, T((2, 2), "f32"), 161002, "meanOut")
    row(9, T((2, 2), "bf16"), 161002, "rstdOut")
    row(0, T((8,), "f16"), 161002, "self")
    row(7, T((2, 4, 4), "i8"), 161002, "out")
    row(8, T((2, 4), "f16"), 161002, "meanOut")
    row(1, T((3,), "f16"), 161002, "gamma")
    row(2, T((1, 4), "f16"), 161002, "beta")
    row(3, T((2,), "f32"), 161002, "quantScale")
    row(5, 0.0, 161002, "eps")
    row(6, False, 161002, "activateSilu")
    a = list(ok)
    a[4], a[8], a[9] = 3, T((2, 3), "f16"), T((2, 3), "f16")
    expect_status("GroupNormSiluQuant", a, 161002, "divisible")
    a[4], a[8], a[9] = 0, T((2, 0), "f16"), T((2, 0), "f16")
    expect_status("GroupNormSiluQuant", a, 161002, "group")


def test_group_norm_silu_quant_threads():
    same_bytes_for_threads("""
import numpy as np, pyaclnn
rng = np.random.default_rng(6)
x = rng.uniform(-2, 2, (4, 32, 16, 16)).astype(np.float16)
q = rng.uniform(0.004, 0.01, (32,)).astype(np.float32)
out, m, r = np.zeros(x.shape, np.int8), np.zeros((4, 8), np.float16), np.zeros((4, 8), np.float16)
pyaclnn.call("GroupNormSiluQuant", x, None, None, q, 8, 1e-5, True, out, m, r)
print(out.tobytes().hex()[:4000], m.tobytes().hex(), r.tobytes().hex())
""")
