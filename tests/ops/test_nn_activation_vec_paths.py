"""The attribute-dependent fp32 loops of the exp-based activations (tools/optable/nn_activation.py SOFTPLUS_F32, ELU,
CELU; kernels/vmath.h's bounded exp forms): softplus with beta 1 and a threshold >= 16 runs a loop without its
select, elu with a non-negative input scale and celu with a positive alpha a clamped expm1, the other attributes the
general form. The table tests (test_table_elementwise.py) use one attribute set per op; here every loop is compared
with PyTorch on a wide range and on special values, both loops of softplus give the same bytes, and every loop gives
the same bytes at every SIMD level and thread count. Also GeluBackwardV2 (tanh) for huge and infinite x."""
import numpy as np
import pytest

import pyaclnn
from helpers import run_python, same_bytes_for_threads
from table_harness import compare

SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -1e-45, 1e-38, -1e-38, 1e-30, -1e-30, 1e30, -1e30,
                    3e38, -3e38, 15.999, 16.0, 16.5, 20.0, 20.5, -20.5, 87.5, -87.5, 88.5, -88.5, 95.0, -95.0, 104.5,
                    -104.5, 150.0, -150.0], np.float32)

# (op, attributes, PyTorch over a float tensor t)
CASES = [
    ("Softplus", (1.0, 20.0), lambda F, t: F.softplus(t, 1.0, 20.0)),   # beta 1, threshold >= 16: no select
    ("Softplus", (1.0, 16.0), lambda F, t: F.softplus(t, 1.0, 16.0)),
    ("Softplus", (1.0, 5.0), lambda F, t: F.softplus(t, 1.0, 5.0)),     # general loop
    ("Softplus", (2.0, 20.0), lambda F, t: F.softplus(t, 2.0, 20.0)),
    ("Elu", (1.0, 1.0, 1.0), lambda F, t: F.elu(t)),                    # input scale >= 0: expm1 loop
    ("Elu", (0.5, 2.0, 0.0), lambda F, t: __import__("torch").ops.aten.elu(t, 0.5, 2.0, 0.0)),
    ("Elu", (1.5, 1.0, -0.5), lambda F, t: __import__("torch").ops.aten.elu(t, 1.5, 1.0, -0.5)),  # general loop
    ("Celu", (1.0,), lambda F, t: __import__("torch").celu(t, 1.0)),      # alpha > 0: expm1 loop
    ("Celu", (-1.3,), lambda F, t: __import__("torch").celu(t, -1.3)),    # general loop
]


def _x(seed, scale=10.0, n=4099):
    x = (np.random.default_rng(seed).standard_normal(n) * scale).astype(np.float32)
    return np.concatenate([x, SPECIAL])


def _ours(op, attrs, x):
    o = np.empty_like(x)
    pyaclnn.call(op, x, *attrs, o)
    return o


@pytest.mark.parametrize("case", range(len(CASES)))
def test_attribute_loops_vs_torch(torch, case):
    op, attrs, ref = CASES[case]
    x = _x(case)
    o = _ours(op, attrs, x)
    compare(o, ref(torch.nn.functional, torch.from_numpy(x)).numpy(), "f32")  # PyTorch in float32, as the table tests
    for v in (np.inf, -np.inf, np.nan):  # +-inf, NaN through the vector loop
        got = _ours(op, attrs, np.full(17, v, np.float32))
        np.testing.assert_array_equal(got, ref(torch.nn.functional, torch.full((17,), float(v))).numpy())


def test_softplus_loops_same_bytes():
    """beta 1: the loop without the select (threshold 16) and the general one (15.999) give the same bytes: above 16,
    max(x, 0) + log1p(e^-x) rounds to x"""
    x = _x(11, 12.0, 30011)
    assert _ours("Softplus", (1.0, 16.0), x).tobytes() == _ours("Softplus", (1.0, 15.999), x).tobytes()
    big = np.array([16.0, 16.25, 17.0, 30.0, 1e20, 3e38], np.float32)
    np.testing.assert_array_equal(_ours("Softplus", (1.0, 20.0), big), big)


def test_gelu_backward_tanh_huge_x(torch):
    """d gelu_tanh / dx is 1 above 20 and 0 below -20 in float (x^2 overflowed before); +-inf give NaN as PyTorch"""
    x = np.array([25.0, -25.0, 1e30, -1e30, 3e38, -3e38, 20.0, -20.0, np.inf, -np.inf, np.nan], np.float32)
    o = np.empty_like(x)
    pyaclnn.call("GeluBackwardV2", np.ones_like(x), x, "tanh", o)
    e = torch.ops.aten.gelu_backward(torch.ones(len(x) - 3, dtype=torch.float64),
                                     torch.from_numpy(x[:-3].astype(np.float64)), approximate="tanh").numpy()
    compare(o[:-3], e.astype(np.float32), "f32")
    assert np.isnan(o[-3:]).all()


CODE = r"""
import hashlib
import numpy as np
import pyaclnn

SPECIAL = np.array([float(v) for v in %r], np.float32)
h = hashlib.sha256()
N = 3 * 23339
for op, attrs in %r:
    for dt in (np.float32, np.float16):
        rng = np.random.default_rng(len(h.hexdigest()) + len(attrs))
        x = (rng.standard_normal(N) * 8).astype(np.float32)
        x[rng.integers(0, N, 400)] = rng.choice(SPECIAL, 400)
        x = x.astype(dt)
        o = np.empty(N, dt)
        pyaclnn.call(op, x, *attrs, o)
        h.update(o.tobytes())
g = (np.random.default_rng(3).standard_normal(N) * 4).astype(np.float32)
x = (np.random.default_rng(4).standard_normal(N) * 30).astype(np.float32)
x[:len(SPECIAL)] = SPECIAL
o = np.empty(N, np.float32)
pyaclnn.call("GeluBackwardV2", g, x, "tanh", o)
h.update(o.tobytes())
print(h.hexdigest())
""" % ([repr(float(v)) for v in SPECIAL], [(op, attrs) for op, attrs, _ in CASES])


def test_attribute_loops_identical_bytes_at_every_simd_level():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


def test_attribute_loops_identical_bytes_for_any_thread_count():
    same_bytes_for_threads(CODE)
