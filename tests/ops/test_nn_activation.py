"""ops-nn activation/: the softmax family (Softmax, LogSoftmax, SoftmaxBackward, LogSoftmaxBackward) against
PyTorch CPU for every dtype of each op's A2 list, every dim, strided inputs and outputs, a cast to another out
dtype, 0-d and empty tensors, NaN/-inf rows; the invalid rows in each op_api's order; the same bytes for any thread
count. (The elementwise activations are table entries: tests/ops/test_table_elementwise.py generates theirs; the
few literal cases PyTorch's vectorised kernels get wrong are here.)"""
import numpy as np
import pytest

import pyaclnn
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads, strided, ws_call
from table_harness import NP, compare, expect_status, from_torch, to_torch


def dts(op):
    return OPS[op]["dtypes"]


def tdt(torch, dt):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}[dt]


def mk(rng, shape, dt, lo=-4, hi=4):
    return np.array(rng.uniform(lo, hi, shape).astype(np.float32).astype(NP[dt]))


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


def out_like(shape, dt, fill=7):
    if len(shape) == 0:
        return np.full((), fill, NP[dt])
    return strided(np.full(shape, fill, NP[dt]))


def torch_fwd(torch, op, t, dim):
    """PyTorch in t's dtype (half types accumulate in float, as we do)."""
    return torch.softmax(t, dim) if op == "Softmax" else torch.log_softmax(t, dim)


# ---------------------------------------------------------------- forward
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("dt", ["f32", "f16", "f64", "bf16"])
def test_forward(torch, op, dt):
    assert dt in dts(op)
    rng = np.random.default_rng(3)
    x = strided(mk(rng, (3, 4, 5), dt))
    for dim in (0, 1, 2, -1, -3):
        o = out_like(x.shape, dt)
        pyaclnn.call(op, x, dim, o)
        compare(o, from_torch(torch_fwd(torch, op, T(torch, x), dim)), dt)
    # a transposed input
    xt = mk(rng, (5, 6), dt).T
    o = np.zeros((6, 5), NP[dt])
    pyaclnn.call(op, xt, 1, o)
    compare(o, from_torch(torch_fwd(torch, op, T(torch, xt), 1)), dt)
    # 0-d: dim 0 or -1
    for dim in (0, -1):
        o = np.full((), 7, NP[dt])
        pyaclnn.call(op, np.array(1.5, NP[dt]), dim, o)
        assert float(o) == (1.0 if op == "Softmax" else 0.0)
    # empty: nothing written
    e = np.full((2, 0), 7, NP[dt])
    pyaclnn.call(op, np.zeros((2, 0), NP[dt]), 1, e)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_forward_out_cast(torch, op):
    """Softmax computes in self's dtype, then casts to out's; LogSoftmax casts self to out's dtype first."""
    rng = np.random.default_rng(4)
    x = mk(rng, (4, 7), "f32")
    for odt in ("f16", "bf16", "f64"):
        o = np.zeros(x.shape, NP[odt])
        pyaclnn.call(op, x, 1, o)
        t = T(torch, x)
        if op == "Softmax":
            e = torch.softmax(t, 1).to(tdt(torch, odt))
        else:
            e = torch.log_softmax(t.to(tdt(torch, odt)), 1)
        if op == "Softmax" and odt == "f64":  # f32 values (a few ulps from PyTorch's f32 kernel)
            assert np.array_equal(o, o.astype(np.float32).astype(np.float64))
            compare(o.astype(np.float32), from_torch(e.float()), "f32")
        else:
            compare(o, from_torch(e), odt)
    xh = mk(rng, (3, 5), "f16")
    o = np.zeros(xh.shape, np.float32)
    pyaclnn.call(op, xh, 0, o)
    if op == "Softmax":  # rounded to f16 first: every value is an f16 value
        assert np.array_equal(o, o.astype(np.float16).astype(np.float32))
        compare(o.astype(np.float16), from_torch(torch.softmax(T(torch, xh), 0)), "f16")
    else:
        compare(o, from_torch(torch.log_softmax(T(torch, xh).float(), 0)), "f32")


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_forward_special(torch, op):
    x = np.array([[1.0, np.nan, 2.0], [-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf], [np.inf, 0.0, 1.0],
                  [1000.0, 1000.0, -1000.0]], np.float32)
    o = np.zeros_like(x)
    pyaclnn.call(op, x, 1, o)
    compare(o, from_torch(torch_fwd(torch, op, T(torch, x), 1)), "f32")


# ---------------------------------------------------------------- backward
def torch_bwd(torch, op, g, y, dim):
    if op == "SoftmaxBackward":
        return torch._softmax_backward_data(g, y, dim, y.dtype)
    return torch._log_softmax_backward_data(g, y, dim, y.dtype)


@pytest.mark.parametrize("op", ["SoftmaxBackward", "LogSoftmaxBackward"])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_backward(torch, op, dt):
    assert dt in dts(op)
    rng = np.random.default_rng(5)
    src = mk(rng, (3, 4, 5), "f32")
    for dim in (0, 1, 2, -1):
        t = T(torch, src).to(tdt(torch, dt))
        y = torch.softmax(t, dim) if op == "SoftmaxBackward" else torch.log_softmax(t, dim)
        yn = strided(from_torch(y))
        g = strided(mk(rng, src.shape, dt))
        o = out_like(src.shape, dt)
        pyaclnn.call(op, g, yn, dim, o)
        e = torch_bwd(torch, op, T(torch, g).float(), T(torch, yn).float(), dim)  # f32 compute, one rounding
        compare(o, from_torch(e.to(tdt(torch, dt))), dt)
    # 0-d and empty
    o = np.full((), 7, NP[dt])
    pyaclnn.call(op, np.array(2.0, NP[dt]), np.array(1.0 if op == "SoftmaxBackward" else 0.0, NP[dt]), 0, o)
    assert float(o) == 0.0
    e = np.full((0, 3), 7, NP[dt])
    pyaclnn.call(op, np.zeros((0, 3), NP[dt]), np.zeros((0, 3), NP[dt]), 1, e)


@pytest.mark.parametrize("op", ["SoftmaxBackward", "LogSoftmaxBackward"])
def test_backward_out_cast(torch, op):
    rng = np.random.default_rng(6)
    x = T(torch, mk(rng, (4, 6), "f32"))
    y = from_torch(torch.softmax(x, 1) if op == "SoftmaxBackward" else torch.log_softmax(x, 1))
    g = mk(rng, (4, 6), "f32")
    o = np.zeros((4, 6), np.float16)
    pyaclnn.call(op, g, y, 1, o)
    compare(o, from_torch(torch_bwd(torch, op, T(torch, g), T(torch, y), 1).half()), "f16")


# ---------------------------------------------------------------- invalid rows
_KEEP = []


def tens(shape, dt="f32"):
    t = AclTensor.from_array(np.zeros(shape, NP[dt]))
    _KEEP.append(t)
    return t


def test_invalid_softmax():
    x = tens((2, 3))
    expect_status("Softmax", [None, 0, x], 161001, "self")
    expect_status("Softmax", [x, 0, None], 161001, "out")
    expect_status("Softmax", [tens((2, 3), "i32"), 0, x], 161002, "self")
    expect_status("Softmax", [x, 0, tens((2, 3), "i32")], 161002, "out")
    expect_status("Softmax", [x, 2, x], 161002, "dim")
    expect_status("Softmax", [x, -3, x], 161002, "dim")
    expect_status("Softmax", [tens(()), 1, tens(())], 161002, "dim")
    expect_status("Softmax", [tens((1,) * 9), 0, tens((1,) * 9)], 161002, "self")
    expect_status("Softmax", [x, 0, tens((3, 2))], 161002, "out")
    # an empty self returns before any other check (upstream order)
    expect_status("Softmax", [tens((0, 3), "i32"), 5, tens((1,), "i32")], 0)
    expect_status("Softmax", [x, 1, tens((2, 3), "f16")], 0)


def test_invalid_log_softmax():
    x = tens((2, 3))
    expect_status("LogSoftmax", [None, 0, x], 161001, "self")
    expect_status("LogSoftmax", [x, 0, None], 161001, "out")
    # dim comes before the dtypes
    expect_status("LogSoftmax", [tens((2, 3), "i32"), 2, x], 161002, "dim")
    expect_status("LogSoftmax", [tens((2, 3), "i32"), 0, x], 161002, "self")
    expect_status("LogSoftmax", [x, 0, tens((2, 3), "i64")], 161002, "out")
    expect_status("LogSoftmax", [tens((1,) * 9), 0, tens((1,) * 9)], 161002, "self")
    expect_status("LogSoftmax", [x, 0, tens((2, 4))], 161002, "out")
    expect_status("LogSoftmax", [tens((0, 3)), 1, tens((0, 3), "f16")], 0)
    expect_status("LogSoftmax", [tens((0, 3)), 1, tens((1, 3))], 161002, "out")


@pytest.mark.parametrize("op", ["SoftmaxBackward", "LogSoftmaxBackward"])
def test_invalid_backward(op):
    x = tens((2, 3))
    log = op == "LogSoftmaxBackward"
    if log:  # output is checked for NULL first
        expect_status(op, [None, None, 0, x], 161001, "output")
    else:
        expect_status(op, [None, None, 0, x], 161001, "gradOutput")
    expect_status(op, [None, x, 0, x], 161001, "gradOutput")
    expect_status(op, [x, None, 0, x], 161001, "output")
    expect_status(op, [x, x, 0, None], 161001, "out")
    expect_status(op, [tens((2, 3), "f64"), tens((2, 3), "f64"), 0, x], 161002,
                  "output" if log else "gradOutput")
    expect_status(op, [x, tens((2, 3), "f16"), 0, x], 161002, "output")
    expect_status(op, [x, tens((3, 2)), 0, x], 161002, "output")
    expect_status(op, [x, x, 0, tens((2, 2))], 161002, "out")
    expect_status(op, [tens((1,) * 9), tens((1,) * 9), 0, tens((1,) * 9)], 161002, "gradOutput")
    expect_status(op, [x, x, 2, x], 161002, "dim")
    # shapes before dim in LogSoftmaxBackward, dim before shapes in SoftmaxBackward
    expect_status(op, [x, tens((3, 2)), 5, x], 161002, "output" if log else "dim")
    # empty inputs return before the other checks; out's dtype is not checked (the result is cast to it)
    expect_status(op, [tens((0, 3), "i32"), tens((0, 3)), 9, x], 0)
    expect_status(op, [x, x, 1, tens((2, 3), "f64")], 0)


def test_deterministic_across_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(1)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16, np.float64):
    x = (rng.random((64, 33, 40)) * 8 - 4).astype(np.float32).astype(dt)
    for op in ("Softmax", "LogSoftmax"):
        for dim in (0, 1, 2):
            o = np.zeros(x.shape, dt)
            pyaclnn.call(op, x, dim, o)
            h.update(o.tobytes())
            if dt != np.float64:
                g = np.zeros(x.shape, dt)
                pyaclnn.call(op + "Backward", x, o, dim, g)
                h.update(g.tobytes())
    if dt != np.float64:  # PreluBackward's per-channel sums
        w = (rng.random(33) * 0.5).astype(np.float32).astype(dt)
        gi, gw = np.zeros(x.shape, dt), np.zeros(33, dt)
        pyaclnn.call("PreluBackward", x, x, w, gi, gw)
        h.update(gi.tobytes() + gw.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- elementwise activations: literal cases
def test_gelu_infinities():
    """gelu(+inf) = +inf (PyTorch's vectorised f32 kernel says nan, its scalar path inf); gelu(nan) = nan."""
    for op, extra in (("Gelu", ()), ("GeluV2", (0,)), ("GeluV2", (1,))):
        x = np.array([np.inf, np.nan, 0.0, 1.0], np.float32)
        o = np.zeros_like(x)
        pyaclnn.call(op, x, *extra, o)
        assert o[0] == np.inf and np.isnan(o[1]) and o[2] == 0


def test_gelu_v2_erf_mode(torch):
    rng = np.random.default_rng(7)
    for dt in ("f32", "f16", "bf16"):
        x = strided(mk(rng, (4, 6), dt))
        for approx, name in ((0, "none"), (1, "tanh"), (5, "none")):  # any value other than 1 is erf
            o = np.zeros(x.shape, NP[dt])
            pyaclnn.call("GeluV2", x, approx, o)
            compare(o, from_torch(torch.nn.functional.gelu(T(torch, x), approximate=name)), dt)


def test_swish_beta_null_is_one(torch):
    x = mk(np.random.default_rng(8), (3, 7), "f32")
    o = np.zeros_like(x)
    pyaclnn.call("Swish", x, None, o)
    compare(o, from_torch(torch.nn.functional.silu(T(torch, x))), "f32")
    g = mk(np.random.default_rng(9), (3, 7), "f32")
    gi = np.zeros_like(x)
    pyaclnn.call("SwishBackward", g, x, None, gi)
    compare(gi, from_torch(torch.ops.aten.silu_backward(T(torch, g), T(torch, x))), "f32")


def _selu(x):
    a, s = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return s * np.where(x > 0, x, a * np.expm1(np.minimum(x, 0)))


@pytest.mark.parametrize("dt", ["i32", "i8"])
def test_integer_inputs_literal(dt):
    """PyTorch CPU has no Selu/Hardsigmoid for integers (numpy reference): the kernel keeps self's integer dtype
    (selu computed in double, truncated toward zero), then the cast to out."""
    x = np.arange(-5, 6, dtype=NP[dt]).reshape(1, 11)
    ref = np.trunc(_selu(x.astype(np.float64)))
    for odt in (dt, "f32"):
        o = np.zeros(x.shape, NP[odt])
        pyaclnn.call("Selu", x, o)
        np.testing.assert_array_equal(o, ref.astype(NP[odt]))
    g = np.full(x.shape, 3, NP[dt])
    gi = np.zeros(x.shape, NP[dt])
    pyaclnn.call("SeluBackward", g, x, gi)
    a, s = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    np.testing.assert_array_equal(gi, np.trunc(np.where(x <= 0, 3 * (x + a * s), 3 * s)).astype(NP[dt]))
    if dt == "i32":
        h = np.zeros(x.shape, np.int32)
        pyaclnn.call("Hardsigmoid", x, h)
        np.testing.assert_array_equal(h, (x >= 3).astype(np.int32))


def test_erfinv_edges(torch):
    x = np.array([-1.0, 1.0, 0.0, -0.0, 1.5, np.nan, 0.999999, -0.9999999, 1e-8], np.float64)
    for dt in ("f32", "f16", "bf16"):
        xx = x.astype(np.float32).astype(NP[dt])
        o = np.zeros(xx.shape, NP[dt])
        pyaclnn.call("Erfinv", xx, o)
        compare(o, from_torch(torch.erfinv(T(torch, xx))), dt)
    xi = np.array([-1, 0, 1, 2], np.int32)  # integers compute (and return) float32
    o = np.zeros(4, np.float32)
    pyaclnn.call("Erfinv", xi, o)
    np.testing.assert_array_equal(o, [-np.inf, 0, np.inf, np.nan])


# ---------------------------------------------------------------- elementwise activations: invalid rows
def test_invalid_activation_attrs():
    from pyaclnn.ops.table import make_scalar
    x = tens((2, 3))
    expect_status("Celu", [x, make_scalar(0.0), x], 161002, "alpha")
    expect_status("Celu", [x, make_scalar(-1.0), x], 0)
    expect_status("Softshrink", [x, make_scalar(-0.5), x], 161002, "lambd")
    expect_status("SoftshrinkBackward", [x, x, make_scalar(-0.5), x], 161002, "lambd")
    expect_status("Hardshrink", [x, make_scalar(-0.5), x], 0)  # a negative lambd acts as 0
    expect_status("Swish", [x, None, x], 0)
    expect_status("Swish", [x, make_scalar(1.0), None], 161001, "out")
    expect_status("LeakyRelu", [x, None, x], 161001, "negativeSlope")
    expect_status("Elu", [x, make_scalar(1.0), None, make_scalar(1.0), x], 161001, "scale")


@pytest.mark.parametrize("op", ["SiluBackward", "HardswishBackward", "HardsigmoidBackward", "FastGeluBackward",
                                "SeluBackward"])
def test_invalid_no_broadcast(op):
    """These A2 backward ops want every tensor with the same shape (no broadcast)."""
    full, row = tens((2, 3)), tens((3,))
    expect_status(op, [full, full, tens((2, 3))], 0)
    expect_status(op, [row, full, tens((2, 3))], 161002, "gradOutput")


def test_invalid_silu_backward_dtypes_selu_backward_rank():
    """A2 SiluBackward: gradOutput, self and gradInput share one dtype (mixed precision is the regbase path only);
    SeluBackward flattens tensors of more than 8 dims instead of refusing them."""
    h, f = tens((1, 16, 1, 1), "f16"), tens((1, 16, 1, 1))
    expect_status("SiluBackward", [f, h, tens((1, 16, 1, 1), "f16")], 161002, "gradOutput")
    expect_status("SiluBackward", [h, f, tens((1, 16, 1, 1), "f16")], 161002, "self")
    big = (2, 2, 2, 2, 2, 2, 2, 2, 16)
    expect_status("SeluBackward", [tens(big, "f16"), tens(big, "f16"), tens(big, "f16")], 0)


def test_hardshrink_backward_empty_before_broadcast():
    """A2 HardshrinkBackward returns for an empty input before it checks the broadcast (its op_api's order);
    non-empty shapes that do not broadcast are still refused."""
    from pyaclnn.ops.table import make_scalar
    lam = make_scalar(8.0)
    expect_status("HardshrinkBackward", [tens((0,)), tens((1, 1, 1, 4), "f16"), lam, tens((1, 1, 1, 4), "f16")], 0)
    expect_status("HardshrinkBackward", [tens((3,)), tens((1, 1, 1, 4)), lam, tens((1, 1, 1, 4))], 161002,
                  "self")


def test_invalid_relu_gelu_heaviside():
    x = tens((2, 3))
    expect_status("Relu", [x, tens((2, 3), "f16")], 161002, "out")
    expect_status("Relu", [tens((2, 3), "f64"), tens((2, 3), "f64")], 161002, "self")
    expect_status("Relu", [x, tens((3, 2))], 161002, "out")
    expect_status("InplaceRelu", [None], 161001, "selfRef")
    expect_status("Gelu", [tens((2, 3), "i32"), tens((2, 3), "i32")], 161002, "self")
    expect_status("Gelu", [x, tens((2, 3), "bf16")], 161002, "out")
    expect_status("Heaviside", [x, tens((2, 3), "i32"), x], 161002, "values")
    expect_status("Heaviside", [x, x, tens((2, 3), "f64")], 161002, "out")
    expect_status("Heaviside", [x, tens((4,)), x], 161002, "values")


def test_elu_backward_is_result(torch):
    """isResult=True: selfOrResult is the forward's output (the generated tests cover isResult=False)."""
    rng = np.random.default_rng(11)
    for dt in ("f32", "f16", "bf16"):
        x = T(torch, mk(rng, (4, 5), dt))
        y = torch.ops.aten.elu(x.float(), 0.75, 1.25, 0.875).to(x.dtype)
        g = mk(rng, (4, 5), dt)
        o = np.zeros((4, 5), NP[dt])
        pyaclnn.call("EluBackward", g, 0.75, 1.25, 0.875, True, from_torch(y), o)
        e = torch.ops.aten.elu_backward(T(torch, g).float(), 0.75, 1.25, 0.875, True, y.float())
        compare(o, from_torch(e.to(x.dtype)), dt)


def test_invalid_is_result():
    from pyaclnn.ops.table import make_scalar
    x = tens((2, 3))
    neg, pos = make_scalar(-0.5), make_scalar(0.5)
    expect_status("LeakyReluBackward", [x, x, neg, True, x], 161002, "negativeSlope")
    expect_status("LeakyReluBackward", [x, x, neg, False, x], 0)
    expect_status("LeakyReluBackward", [x, x, None, False, x], 161001, "negativeSlope")
    expect_status("EluBackward", [x, neg, pos, pos, True, x, x], 161002, "alpha")
    expect_status("EluBackward", [x, neg, pos, pos, False, x, x], 0)
    expect_status("EluBackward", [x, pos, pos, pos, False, tens((3,)), x], 161002, "selfOrResult")
    expect_status("Shrink", [x, neg, pos, x], 161002, "lambd")
    expect_status("AddRelu", [x, x, None, x], 161001, "alpha")
    expect_status("AddRelu", [x, tens((2, 3), "f64"), pos, x], 161002, "other")


# ---------------------------------------------------------------- glu
@pytest.mark.parametrize("dt", ["f32", "f16", "f64", "bf16"])
def test_glu(torch, dt):
    assert dt in dts("Glu") and dt in dts("GluBackward")
    rng = np.random.default_rng(12)
    x = strided(mk(rng, (4, 6, 8), dt))
    for dim in (0, 1, 2, -1):
        t = T(torch, x)
        e = torch.nn.functional.glu(t.double() if dt == "f64" else t.float(), dim)
        o = strided(np.full(tuple(e.shape), 7, NP[dt]))
        pyaclnn.call("Glu", x, dim, o)
        compare(o, from_torch(e.to(t.dtype)), dt)
        g = strided(mk(rng, tuple(e.shape), dt))
        gi = strided(np.full(x.shape, 7, NP[dt]))
        pyaclnn.call("GluBackward", g, x, dim, gi)
        tg = T(torch, g)
        eg = torch.ops.aten.glu_backward(tg.double() if dt == "f64" else tg.float(),
                                         t.double() if dt == "f64" else t.float(), dim)
        compare(gi, from_torch(eg.to(t.dtype)), dt)
    # out in another dtype of the list: rounded to self's dtype first
    o = np.zeros((4, 6, 4), np.float64)
    pyaclnn.call("Glu", x, 2, o)
    assert np.array_equal(o, o.astype(NP[dt]).astype(np.float64))
    # empty
    pyaclnn.call("Glu", np.zeros((0, 4), NP[dt]), 1, np.zeros((0, 2), NP[dt]))


def test_invalid_glu():
    x = tens((2, 4))
    h = tens((2, 2))
    expect_status("Glu", [None, 1, h], 161001, "self")
    expect_status("Glu", [x, 1, None], 161001, "out")
    expect_status("Glu", [tens((2, 4), "i32"), 1, h], 161002, "self")
    expect_status("Glu", [x, 1, tens((2, 2), "i32")], 161002, "out")
    expect_status("Glu", [tens(()), 0, tens(())], 161002, "self")
    expect_status("Glu", [x, 2, h], 161002, "dim")
    expect_status("Glu", [tens((3, 3)), 1, h], 161002, "even")
    expect_status("Glu", [x, 1, x], 161002, "out")
    expect_status("Glu", [x, 0, tens((1, 4))], 0)
    expect_status("GluBackward", [h, None, 1, x], 161001, "self")
    expect_status("GluBackward", [None, x, 1, x], 161001, "gradOut")
    expect_status("GluBackward", [h, x, 1, None], 161001, "out")
    expect_status("GluBackward", [tens((2, 2), "f16"), x, 1, x], 161002, "gradOut")
    expect_status("GluBackward", [h, x, 1, tens((2, 4), "f64")], 161002, "out")
    expect_status("GluBackward", [x, x, 1, x], 161002, "gradOut")
    expect_status("GluBackward", [h, x, 1, tens((4, 2))], 161002, "out")
    expect_status("GluBackward", [h, x, -3, x], 161002, "dim")


# ---------------------------------------------------------------- prelu
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_prelu(torch, dt):
    assert dt in dts("Prelu")
    rng = np.random.default_rng(13)
    for shape, wshape in (((2, 3, 4, 5), (3,)), ((2, 3, 4, 5), (1,)), ((6,), (1,)), ((), (1,)), ((4, 3), (3,))):
        x = mk(rng, shape, dt)
        x = strided(x) if shape else x
        w = mk(rng, wshape, dt, 0.05, 0.5)
        o = np.full(shape, 7, NP[dt])
        pyaclnn.call("Prelu", x, w, o)
        e = torch.nn.functional.prelu(T(torch, x).float(), T(torch, w).float()).to(T(torch, x).dtype).reshape(shape)
        compare(o, from_torch(e), dt)
    # mixed dtypes promote (f16 with bf16 -> f32), out any dtype of the list
    x, w = mk(rng, (2, 3), "f16"), mk(rng, (3,), "bf16")
    o = np.zeros((2, 3), np.float32)
    pyaclnn.call("Prelu", x, w, o)
    compare(o, from_torch(torch.nn.functional.prelu(T(torch, x).float(), T(torch, w).float())), "f32")


def test_invalid_prelu():
    x, w = tens((2, 3)), tens((3,))
    expect_status("Prelu", [None, w, x], 161001, "self")
    expect_status("Prelu", [x, None, x], 161001, "weight")
    expect_status("Prelu", [x, w, None], 161001, "out")
    expect_status("Prelu", [tens((2, 3), "f64"), w, x], 161002, "self")
    expect_status("Prelu", [x, tens((3,), "i32"), x], 161002, "weight")
    expect_status("Prelu", [x, w, tens((2, 3), "i32")], 161002, "out")
    expect_status("Prelu", [x, w, tens((3, 2))], 161002, "out")
    expect_status("Prelu", [x, tens((2,)), x], 161002, "weight")
    expect_status("Prelu", [tens((0, 3)), w, tens((0, 3))], 0)


def test_logsigmoid_forward(torch):
    """LogSigmoid's values; buffer is neither checked nor written (it may even be NULL)."""
    rng = np.random.default_rng(14)
    for dt in ("f32", "f16", "bf16"):
        x = strided(mk(rng, (3, 5), dt))
        o = np.zeros(x.shape, NP[dt])
        buf = np.full(x.shape, 7, NP[dt])
        pyaclnn.call("LogSigmoidForward", x, o, buf)
        compare(o, from_torch(torch.nn.functional.logsigmoid(T(torch, x))), dt)
        assert (buf.astype(np.float32) == 7).all()
    x = tens((2, 3))
    expect_status("LogSigmoidForward", [x, x, None], 0)
    expect_status("LogSigmoidForward", [None, x, x], 161001, "self")
    expect_status("LogSigmoidForward", [x, tens((2, 3), "f16"), x], 161002, "out")
    ex = ws_call("LogSigmoidForward", x, x, None)[2]
    rc = pyaclnn.lib.aclnnLogSigmoid(pyaclnn.ffi.NULL, 0, ex, pyaclnn.ffi.NULL)  # another op's phase 2 refuses it
    assert rc == 161002
    assert pyaclnn.lib.aclnnLogSigmoidForward(pyaclnn.ffi.NULL, 0, ex, pyaclnn.ffi.NULL) == 0


# ---------------------------------------------------------------- gelu backward v2
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_gelu_backward_v2(torch, dt):
    assert dt in dts("GeluBackwardV2")
    rng = np.random.default_rng(15)
    for approx in ("none", "tanh"):
        for gs, xs in (((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((), ())):
            g, x = mk(rng, gs, dt), mk(rng, xs, dt)
            g = strided(g) if gs else g
            shape = np.broadcast_shapes(gs, xs)
            o = np.zeros(shape, NP[dt])
            pyaclnn.call("GeluBackwardV2", g, x, approx, o)
            tg = T(torch, g).reshape(gs).float().expand(shape).reshape(-1)  # (oneDNN refuses 0-d)
            tx = T(torch, x).reshape(xs).float().expand(shape).reshape(-1)
            e = torch.ops.aten.gelu_backward(tg, tx, approximate=approx).reshape(shape)
            compare(o, from_torch(e.to(T(torch, x).dtype)), dt)


def test_invalid_gelu_backward_v2():
    x = tens((2, 3))
    keep = pyaclnn.ffi.new("char[]", b"none")
    bad = pyaclnn.ffi.new("char[]", b"erf")
    expect_status("GeluBackwardV2", [None, x, keep, x], 161001, "gradOutput")
    expect_status("GeluBackwardV2", [x, x, pyaclnn.ffi.NULL, x], 161001, "approximate")
    expect_status("GeluBackwardV2", [tens((2, 3), "i32"), tens((2, 3), "i32"), keep, x], 161002, "promoted")
    expect_status("GeluBackwardV2", [tens((2, 3), "i32"), x, keep, x], 0)
    expect_status("GeluBackwardV2", [x, x, keep, tens((2, 3), "f16")], 161002, "gradInput")
    expect_status("GeluBackwardV2", [x, tens((4,)), keep, x], 161002, "broadcast")
    expect_status("GeluBackwardV2", [x, tens((3,)), keep, tens((3,))], 161002, "gradInput")
    expect_status("GeluBackwardV2", [x, x, bad, x], 161002, "approximate")


# ---------------------------------------------------------------- swiglu
@pytest.mark.parametrize("dt", ["f16", "f32", "bf16"])
def test_swiglu(torch, dt):
    assert dt in dts("SwiGlu") and dt in dts("SwiGluGrad")
    rng = np.random.default_rng(16)
    x = strided(mk(rng, (3, 4, 6), dt))
    for dim in (-1, 1, 2):
        t = T(torch, x).float().requires_grad_(True)
        a, b = t.chunk(2, dim)
        y = torch.nn.functional.silu(a) * b
        o = strided(np.full(tuple(y.shape), 7, NP[dt]))
        pyaclnn.call("SwiGlu", x, dim, o)
        compare(o, from_torch(y.detach().to(tdt(torch, dt))), dt)
        g = strided(mk(rng, tuple(y.shape), dt))
        (gx,) = torch.autograd.grad(y, t, T(torch, g).float())
        gi = strided(np.full(x.shape, 7, NP[dt]))
        pyaclnn.call("SwiGluGrad", g, x, dim, gi)
        compare(gi, from_torch(gx.to(tdt(torch, dt))), dt)


def test_invalid_swiglu():
    x, h = tens((2, 4)), tens((2, 2))
    expect_status("SwiGlu", [None, -1, h], 161001, "x")
    expect_status("SwiGlu", [x, -1, None], 161001, "out")
    expect_status("SwiGlu", [tens((2, 4), "f64"), -1, tens((2, 2), "f64")], 161002, "x")
    expect_status("SwiGlu", [x, -1, tens((2, 2), "f16")], 161002, "out")
    expect_status("SwiGlu", [x, 2, h], 161002, "dim")
    expect_status("SwiGlu", [tens((2, 3)), -1, tens((2, 1))], 561002, "even")
    expect_status("SwiGlu", [x, -1, x], 561002, "out")
    expect_status("SwiGluGrad", [None, x, -1, x], 161001, "yGrad")
    expect_status("SwiGluGrad", [h, x, -1, tens((2, 4), "f16")], 161002, "out")
    expect_status("SwiGluGrad", [x, x, -1, x], 561002, "yGrad")
    expect_status("SwiGluGrad", [h, x, -1, h], 561002, "out")


@pytest.mark.parametrize("dt", ["bf16", "f16", "f32"])
def test_gelu_mul(torch, dt):
    assert dt in dts("GeluMul")
    rng = np.random.default_rng(17)
    x = strided(mk(rng, (3, 4, 8), dt))
    for approx, name in ((None, "none"), ("none", "none"), ("tanh", "tanh")):
        t = T(torch, x).float()
        a, b = t.chunk(2, -1)
        e = torch.nn.functional.gelu(a, approximate=name) * b
        o = strided(np.full((3, 4, 4), 7, NP[dt]))
        pyaclnn.call("GeluMul", x, approx, o)
        compare(o, from_torch(e.to(tdt(torch, dt))), dt)


def test_invalid_gelu_mul():
    x, h = tens((2, 4)), tens((2, 2))
    bad = pyaclnn.ffi.new("char[]", b"erf")
    expect_status("GeluMul", [None, pyaclnn.ffi.NULL, h], 161001, "input")
    expect_status("GeluMul", [x, pyaclnn.ffi.NULL, None], 161001, "out")
    expect_status("GeluMul", [tens((2, 4), "f64"), pyaclnn.ffi.NULL, tens((2, 2), "f64")], 161002, "input")
    expect_status("GeluMul", [x, pyaclnn.ffi.NULL, tens((2, 2), "f16")], 161002, "out")
    expect_status("GeluMul", [x, bad, h], 561002, "approximate")
    expect_status("GeluMul", [tens((2, 3)), pyaclnn.ffi.NULL, tens((2, 1))], 561002, "even")
    expect_status("GeluMul", [x, pyaclnn.ffi.NULL, x], 561002, "out")


@pytest.mark.parametrize("dt", ["f16", "f32", "bf16"])
def test_logsigmoid_backward(torch, dt):
    assert dt in dts("LogSigmoidBackward")
    rng = np.random.default_rng(18)
    x = strided(mk(rng, (4, 6), dt))
    x[0, :3] = [np.inf, -np.inf, np.nan]
    g = strided(mk(rng, (4, 6), dt))
    tx, tg = T(torch, x).float(), T(torch, g).float()
    _, buf = torch.ops.aten.log_sigmoid_forward(tx)
    e = torch.ops.aten.log_sigmoid_backward(tg, tx, buf)
    o = strided(np.full((4, 6), 7, NP[dt]))
    pyaclnn.call("LogSigmoidBackward", g, x, np.zeros((1,), NP[dt]), o)  # buffer is never read
    compare(o, from_torch(e.to(tdt(torch, dt))), dt)


def test_invalid_logsigmoid_backward():
    x = tens((2, 3))
    expect_status("LogSigmoidBackward", [None, x, x, x], 161001, "gradOutput")
    expect_status("LogSigmoidBackward", [x, x, None, x], 161001, "buffer")
    expect_status("LogSigmoidBackward", [tens((2, 3), "f64"), x, x, x], 161002, "gradOutput")
    expect_status("LogSigmoidBackward", [x, tens((2, 3), "f16"), x, x], 161002, "self")
    expect_status("LogSigmoidBackward", [x, x, x, tens((2, 3), "f16")], 161002, "gradInput")
    expect_status("LogSigmoidBackward", [tens((3,)), x, x, x], 161002, "gradOutput")
    expect_status("LogSigmoidBackward", [x, x, tens((5,), "i32"), x], 0)


# ---------------------------------------------------------------- softmax cross entropy with logits
@pytest.mark.parametrize("dt", ["f16", "f32", "bf16"])
def test_softmax_cross_entropy_with_logits(torch, dt):
    assert dt in dts("SoftmaxCrossEntropyWithLogits")
    rng = np.random.default_rng(19)
    f = strided(mk(rng, (5, 7), dt))
    lab = torch.softmax(torch.from_numpy(rng.uniform(-2, 2, (5, 7))), 1).numpy()
    for labels in (strided(lab.astype(np.float32).astype(NP[dt])), lab[:1].astype(np.float32).astype(NP[dt])):
        loss = np.full((5,), 7, NP[dt])
        bp = strided(np.full((5, 7), 7, NP[dt]))
        pyaclnn.call("SoftmaxCrossEntropyWithLogits", f, labels, loss, bp)
        tf = T(torch, f).float()
        tl = T(torch, labels).float().reshape(labels.shape).expand(5, 7)
        e_loss = -(tl * torch.log_softmax(tf, 1)).sum(1)
        e_bp = torch.softmax(tf, 1) - tl
        compare(loss, from_torch(e_loss.to(tdt(torch, dt))), dt)
        compare(bp, from_torch(e_bp.to(tdt(torch, dt))), dt)


def test_invalid_softmax_cross_entropy_with_logits():
    f, lo = tens((4, 3)), tens((4,))
    op = "SoftmaxCrossEntropyWithLogits"
    expect_status(op, [None, f, lo, f], 161001, "features")
    expect_status(op, [f, None, lo, f], 161001, "labels")
    expect_status(op, [f, f, None, f], 161001, "loss")
    expect_status(op, [f, f, lo, None], 161001, "backprop")
    expect_status(op, [tens((4, 3), "f64"), f, lo, f], 161002, "features")
    expect_status(op, [f, tens((4, 3), "i32"), lo, f], 161002, "labels")
    expect_status(op, [f, f, tens((4,), "f16"), f], 161002, "loss")
    expect_status(op, [tens((4, 3, 1)), tens((4, 3, 1)), lo, tens((4, 3, 1))], 161002, "2-d")
    expect_status(op, [f, tens((2, 3)), lo, f], 161002, "labels")
    expect_status(op, [f, f, tens((3,)), f], 161002, "loss")
    expect_status(op, [f, f, lo, tens((3, 4))], 161002, "backprop")
    expect_status(op, [f, f, lo, f], 0)


# ---------------------------------------------------------------- geglu
@pytest.mark.parametrize("dt", ["f16", "f32", "bf16"])
def test_geglu(torch, dt):
    assert dt in dts("GeGlu") and dt in dts("GeGluV3")
    rng = np.random.default_rng(20)
    x = strided(mk(rng, (3, 4, 6), dt))
    for dim in (-1, 1, 2):
        for approx, name in ((0, "none"), (1, "tanh")):
            for left in (None, False, True):
                t = T(torch, x).float()
                a, b = t.chunk(2, dim)
                act, other = (a, b) if left else (b, a)
                eg = torch.nn.functional.gelu(act, approximate=name)
                o = strided(np.full(tuple(eg.shape), 7, NP[dt]))
                og = strided(np.full(tuple(eg.shape), 7, NP[dt]))
                if left is None:
                    pyaclnn.call("GeGlu", x, dim, approx, o, og)
                else:
                    pyaclnn.call("GeGluV3", x, dim, approx, left, o, og)
                compare(og, from_torch(eg.to(tdt(torch, dt))), dt)
                compare(o, from_torch((eg * other).to(tdt(torch, dt))), dt)


def test_invalid_geglu():
    x, h = tens((2, 4)), tens((2, 2))
    expect_status("GeGlu", [None, -1, 0, h, h], 161001, "self")
    expect_status("GeGlu", [x, -1, 0, h, None], 161001, "outGelu")
    expect_status("GeGlu", [tens((2, 4), "f64"), -1, 0, h, h], 161002, "self")
    expect_status("GeGlu", [x, -1, 0, tens((2, 2), "f16"), h], 161002, "out")
    expect_status("GeGlu", [x, 2, 0, h, h], 161002, "dim")
    expect_status("GeGlu", [tens((2, 3)), -1, 0, tens((2, 1)), tens((2, 1))], 161002, "even")
    expect_status("GeGlu", [x, -1, 0, x, h], 161002, "out")
    expect_status("GeGlu", [x, -1, 2, h, h], 161002, "approximate")
    expect_status("GeGluV3", [x, 0, 1, True, tens((1, 4)), tens((1, 4))], 0)
    expect_status("GeGlu", [tens(()), 0, 0, tens(()), tens(())], 0)


@pytest.mark.parametrize("dt", ["bf16", "f16", "f32"])
def test_fatrelu_mul(torch, dt):
    assert dt in dts("FatreluMul")
    rng = np.random.default_rng(21)
    x = strided(mk(rng, (3, 4, 8), dt))
    thr = np.array([0.25], NP[dt])
    t = T(torch, x).float()
    a, b = t.chunk(2, -1)
    e = torch.where(a >= float(thr.astype(np.float32)[0]), a, torch.zeros_like(a)) * b
    o = strided(np.full((3, 4, 4), 7, NP[dt]))
    pyaclnn.call("FatreluMul", x, thr, o)
    compare(o, from_torch(e.to(tdt(torch, dt))), dt)


def test_invalid_fatrelu_mul():
    x, h, t = tens((2, 4)), tens((2, 2)), tens((1,))
    expect_status("FatreluMul", [None, t, h], 161001, "input")
    expect_status("FatreluMul", [x, None, h], 161001, "threshold")
    expect_status("FatreluMul", [tens((2, 4), "f64"), tens((1,), "f64"), tens((2, 2), "f64")], 161002, "input")
    expect_status("FatreluMul", [x, tens((1,), "f16"), h], 161002, "threshold")
    expect_status("FatreluMul", [tens((4,)), t, tens((2,))], 561002, "2 dims")
    expect_status("FatreluMul", [x, tens((2,)), h], 561002, "threshold")
    expect_status("FatreluMul", [tens((2, 3)), t, tens((2, 1))], 561002, "even")
    expect_status("FatreluMul", [tens((1, 1026)), t, tens((1, 513))], 561002, "1024")
    expect_status("FatreluMul", [x, t, x], 561002, "out")


@pytest.mark.parametrize("dt", ["f16", "f32", "bf16"])
def test_geglu_backward(torch, dt):
    assert dt in dts("GeGluBackward") and dt in dts("GeGluV3Backward")
    rng = np.random.default_rng(22)
    x = strided(mk(rng, (3, 4, 6), dt))
    for dim in (-1, 1):
        for approx, name in ((0, "none"), (1, "tanh")):
            for left in (None, True):
                t = T(torch, x).float().requires_grad_(True)
                a, b = t.chunk(2, dim)
                act, other = (a, b) if left else (b, a)
                eg = torch.nn.functional.gelu(act, approximate=name)
                y = eg * other
                g = strided(mk(rng, tuple(y.shape), dt))
                (gx,) = torch.autograd.grad(y, t, T(torch, g).float())
                gel = from_torch(eg.detach().to(tdt(torch, dt)))
                o = strided(np.full(x.shape, 7, NP[dt]))
                if left is None:
                    pyaclnn.call("GeGluBackward", g, x, gel, dim, approx, o)
                else:
                    pyaclnn.call("GeGluV3Backward", g, x, gel, dim, approx, left, o)
                # d/d(other) uses the given (rounded) gelu
                compare(o, from_torch(gx.to(tdt(torch, dt))), dt)


def test_invalid_geglu_backward():
    x, h = tens((2, 4)), tens((2, 2))
    op = "GeGluBackward"
    expect_status(op, [None, x, h, -1, 0, x], 161001, "gradOutput")
    expect_status(op, [h, x, None, -1, 0, x], 161001, "gelu")
    expect_status(op, [tens((2, 2), "f64"), x, h, -1, 0, x], 161002, "gradOutput")
    expect_status(op, [h, tens((2, 4), "f16"), h, -1, 0, x], 161002, "self")
    expect_status(op, [h, x, tens((2, 1)), -1, 0, x], 161002, "gelu")
    expect_status(op, [h, x, h, -1, 0, tens((2, 2))], 161002, "gradInput")
    expect_status(op, [h, x, h, 2, 0, x], 161002, "dim")
    expect_status(op, [h, x, h, 0, 0, x], 161002, "gradOutput")
    expect_status(op, [h, x, h, -1, 3, x], 161002, "approximate")


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_prelu_backward(torch, dt):
    assert dt in dts("PreluBackward")
    rng = np.random.default_rng(23)
    for shape, gshape, wshape in (((2, 3, 4, 5), (2, 3, 4, 5), (3,)), ((2, 3, 4), (3, 4), (1,)), ((6,), (6,), (1,))):
        x = strided(mk(rng, shape, dt))
        g = strided(mk(rng, gshape, dt))
        w = mk(rng, wshape, dt, 0.05, 0.5)
        gi = np.full(shape, 7, NP[dt])
        gw = np.full(wshape, 7, NP[dt])
        pyaclnn.call("PreluBackward", g, x, w, gi, gw)
        tx = T(torch, x).double().reshape(shape).requires_grad_(True)
        tw = T(torch, w).double().requires_grad_(True)
        y = torch.nn.functional.prelu(tx, tw)
        ex, ew = torch.autograd.grad(y, (tx, tw), T(torch, g).double().reshape(gshape).expand(shape))
        compare(gi, from_torch(ex.to(tdt(torch, dt))), dt)
        compare(gw, from_torch(ew.to(tdt(torch, dt))), dt)


def test_invalid_prelu_backward():
    x, w = tens((2, 3)), tens((3,))
    op = "PreluBackward"
    expect_status(op, [None, x, w, x, w], 161001, "gradOutput")
    expect_status(op, [x, x, w, x, None], 161001, "gradWeight")
    expect_status(op, [x, tens((2, 3), "f64"), w, x, w], 161002, "self")
    expect_status(op, [x, x, tens((3,), "f16"), x, w], 161002, "weight")
    expect_status(op, [x, x, w, tens((3, 2)), w], 161002, "gradInput")
    expect_status(op, [x, x, tens((2,)), x, tens((2,))], 161002, "weight")
    expect_status(op, [x, x, w, x, tens((1, 3))], 161002, "gradWeight")
    expect_status(op, [tens((4,)), x, w, x, w], 161002, "gradOutput")
    expect_status(op, [tens((3,)), x, w, x, w], 0)
