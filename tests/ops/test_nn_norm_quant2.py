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
