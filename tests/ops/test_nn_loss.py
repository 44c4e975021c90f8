"""The elementwise losses of tools/optable/nn_loss.py against torch.nn.functional (forwards) and autograd
(backwards), computed in float64 from the same inputs and rounded once to the dtype: every dtype of each A2 list,
every reduction, broadcast where the op allows it, strided inputs and outputs, empty inputs; invalid rows in each
op_api source's order with the exact code and a message naming the argument; the same bytes for any thread count."""
import numpy as np
import pytest

import pyaclnn
from helpers import same_bytes_for_threads
from pyaclnn.lowlevel import AclTensor
from pyaclnn.tensor import int_array as IA
from table_harness import BF16, NP, compare, expect_status, rand

OPS = pyaclnn._optable.OPS
RED = ((0, "none"), (1, "mean"), (2, "sum"))
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.filterwarnings("ignore::RuntimeWarning")]


def f64(a):
    a = np.asarray(a)
    return a.astype(np.float32).astype(np.float64) if a.dtype == BF16 else a.astype(np.float64)


def rounded(e, dt):
    e = np.asarray(e, np.float64)
    return e.astype(np.float32).astype(NP[dt]) if dt == "bf16" else e.astype(NP[dt])


def strided(a):
    a = np.asarray(a)
    if a.ndim == 0:
        return a
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def T(shape, dt=np.float32, fmt=None):
    return AclTensor(shape, dt, fmt=fmt)


def tt(torch, a):
    return torch.from_numpy(f64(a))


# ---------------------------------------------------------------- the regression losses: self (4,1,3) x target (2,3)

def _fwd_ref(torch, name, x, t, red, beta=1.0):
    F = torch.nn.functional
    a, b = tt(torch, x), tt(torch, t)
    a, b = torch.broadcast_tensors(a, b)
    if name == "MseLoss":
        return F.mse_loss(a, b, reduction=red)
    if name == "L1Loss":
        return F.l1_loss(a, b, reduction=red)
    if name == "SmoothL1Loss":
        return F.smooth_l1_loss(a, b, reduction=red, beta=beta)
    return F.soft_margin_loss(a, b, reduction=red)


def _target(rng, name, shape, dt):
    if name.startswith("SoftMargin"):
        return (np.where(rng.random(shape) < 0.5, -1.0, 1.0)).astype(NP[dt])
    return rand(rng, shape, dt)


@pytest.mark.parametrize("name", ["MseLoss", "L1Loss", "SmoothL1Loss", "SoftMarginLoss"])
def test_regression_forward(torch, name):
    rng = np.random.default_rng(3)
    for dt in OPS[name]["dtypes"]:
        if dt == "i64":
            continue
        x, t = rand(rng, (4, 1, 3), dt), _target(rng, name, (2, 3), dt)
        for r, red in RED:
            for beta in ((0.5, 0.0) if name == "SmoothL1Loss" else (None,)):
                e = _fwd_ref(torch, name, x, t, red, beta if beta is not None else 1.0).numpy()
                o = strided(np.zeros((4, 2, 3), NP[dt])) if r == 0 else np.zeros((), NP[dt])
                extra = [np.float32(beta)] if beta is not None else []
                if name == "SmoothL1Loss":
                    pyaclnn.call(name, strided(x), t, r, *extra, o)
                else:
                    pyaclnn.call(name, strided(x), t, r, o)
                compare(o, rounded(e, dt), dt)


def test_l1_loss_int64(torch):
    x = np.array([[1, -4, 7]], np.int64)
    t = np.array([[3], [0]], np.int64)
    o = np.zeros((2, 3), np.int64)
    pyaclnn.call("L1Loss", x, t, 0, o)
    np.testing.assert_array_equal(o, np.abs(x - t))
    o = np.zeros((), np.int64)
    pyaclnn.call("L1Loss", x, t, 2, o)
    assert o == np.abs(x - t).sum()
    o = np.zeros((), np.float32)                          # int64 with float promotes to float: a mean is allowed
    pyaclnn.call("L1Loss", x, t.astype(np.float32), 1, o)
    np.testing.assert_allclose(o, np.abs(x - t).mean(), rtol=1e-6)


def _bwd_ref(torch, fn, x, t, g, red, others=()):
    """autograd of fn(self expanded to the broadcast shape, target, ...) with the gradient g"""
    a, b = tt(torch, x), tt(torch, t)
    a, b = torch.broadcast_tensors(a, b)
    a = a.clone().requires_grad_()
    loss = fn(a, b, red)
    loss.backward(tt(torch, g).expand(loss.shape) if red == "none" else tt(torch, g).reshape(()))
    return a.grad.numpy()


@pytest.mark.parametrize("name", ["MseLossBackward", "L1LossBackward", "SmoothL1LossBackward",
                                  "SoftMarginLossBackward"])
def test_regression_backward(torch, name):
    F = torch.nn.functional
    fns = {"MseLossBackward": lambda a, b, r: F.mse_loss(a, b, reduction=r),
           "L1LossBackward": lambda a, b, r: F.l1_loss(a, b, reduction=r),
           "SmoothL1LossBackward": lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.75),
           "SoftMarginLossBackward": lambda a, b, r: F.soft_margin_loss(a, b, reduction=r)}
    rng = np.random.default_rng(4)
    for dt in OPS[name]["dtypes"]:
        x, t = rand(rng, (4, 1, 3), dt), _target(rng, name, (2, 3), dt)
        for r, red in RED:
            g = rand(rng, (2, 3) if r == 0 else (), dt)   # none: a gradient broadcast over the loss
            e = _bwd_ref(torch, fns[name], x, t, g, red)
            o = strided(np.zeros((4, 2, 3), NP[dt]))
            args = [g, strided(x), t, r] + ([np.float32(0.75)] if name.startswith("Smooth") else []) + [o]
            pyaclnn.call(name, *args)
            compare(o, rounded(e, dt), dt)


def test_regression_empty_and_0d():
    for name in ("MseLoss", "L1Loss", "SoftMarginLoss"):
        for r, want in ((1, np.nan), (2, 0.0)):
            o = np.full((), 5, np.float32)
            pyaclnn.call(name, np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), r, o)
            np.testing.assert_array_equal(o, want)
        o = np.zeros((0, 3), np.float32)
        pyaclnn.call(name, np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), 0, o)
    o = np.full((), 5, np.float32)
    pyaclnn.call("SmoothL1Loss", np.zeros((2, 0), np.float32), np.zeros((2, 0), np.float32), 1, np.float32(1), o)
    assert np.isnan(o)
    o = np.zeros((), np.float32)                          # both 0-d, none: a 0-d out
    pyaclnn.call("MseLoss", np.array(1.5, np.float32), np.array(-0.5, np.float32), 0, o)
    assert o == 4.0
    o = np.full((2, 0), 5, np.float32)                    # empty backwards: nothing to do
    pyaclnn.call("MseLossBackward", np.zeros((2, 0), np.float32), np.zeros((2, 0), np.float32),
                 np.zeros((2, 0), np.float32), 0, o)


def test_soft_margin_reduction_unchecked(torch):
    """SoftMarginLoss's op_api does not range-check reduction: any value but 0 and 1 sums"""
    x, t = np.array([0.5, -1.0], np.float32), np.array([1.0, -1.0], np.float32)
    o = np.zeros((), np.float32)
    pyaclnn.call("SoftMarginLoss", x, t, 7, o)
    np.testing.assert_allclose(o, np.log1p(np.exp(-t.astype(np.float64) * x)).sum(), rtol=1e-6)


# ---------------------------------------------------------------- BinaryCrossEntropy(+WithLogits)

@pytest.mark.parametrize("weighted", [False, True])
def test_bce(torch, weighted):
    F = torch.nn.functional
    rng = np.random.default_rng(5)
    for dt in OPS["BinaryCrossEntropy"]["dtypes"]:
        x, t = rand(rng, (3, 4), dt, (0.05, 0.95)), rand(rng, (3, 4), dt, (0, 1))
        w = rand(rng, (4,), dt, (0, 2)) if weighted else None
        for r, red in RED:
            e = F.binary_cross_entropy(tt(torch, x), tt(torch, t), tt(torch, w) if weighted else None,
                                       reduction=red).numpy()
            o = strided(np.zeros((3, 4), NP[dt])) if r == 0 else np.zeros((), NP[dt])
            pyaclnn.call("BinaryCrossEntropy", strided(x), t, w, r, o)
            compare(o, rounded(e, dt), dt)
    o = np.zeros(2, np.float32)                           # log clamped at -100
    pyaclnn.call("BinaryCrossEntropy", np.array([0.0, 1.0], np.float32), np.array([1.0, 0.0], np.float32), None, 0, o)
    np.testing.assert_array_equal(o, [100, 100])


@pytest.mark.parametrize("weighted", [False, True])
def test_bce_backward(torch, weighted):
    F = torch.nn.functional
    rng = np.random.default_rng(6)
    for dt in OPS["BinaryCrossEntropyBackward"]["dtypes"]:
        x, t = rand(rng, (3, 4), dt, (0.05, 0.95)), rand(rng, (3, 4), dt, (0, 1))
        w = rand(rng, (4,), dt, (0, 2)) if weighted else None
        for r, red in RED:
            g = rand(rng, (3, 4) if r == 0 else (), dt)
            e = _bwd_ref(torch, lambda a, b, rr: F.binary_cross_entropy(a, b, tt(torch, w) if weighted else None,
                                                                         reduction=rr), x, t, g, red)
            o = strided(np.zeros((3, 4), NP[dt]))
            pyaclnn.call("BinaryCrossEntropyBackward", g, strided(x), t, w, r, o)
            compare(o, rounded(e, dt), dt)


@pytest.mark.parametrize("weighted", [False, True])
def test_bce_with_logits(torch, weighted):
    F = torch.nn.functional
    rng = np.random.default_rng(7)
    for dt in OPS["BinaryCrossEntropyWithLogits"]["dtypes"]:
        x, t = rand(rng, (3, 4), dt, (-4, 4)), rand(rng, (3, 4), dt, (0, 1))
        w = rand(rng, (4,), dt, (0, 2)) if weighted else None
        pw = rand(rng, (4,), dt, (0.5, 3)) if weighted else None
        for r, red in RED:
            e = F.binary_cross_entropy_with_logits(tt(torch, x), tt(torch, t), tt(torch, w) if weighted else None,
                                                   reduction=red,
                                                   pos_weight=tt(torch, pw) if weighted else None).numpy()
            o = strided(np.zeros((3, 4), NP[dt])) if r == 0 else np.zeros((), NP[dt])
            pyaclnn.call("BinaryCrossEntropyWithLogits", strided(x), t, w, pw, r, o)
            compare(o, rounded(e, dt), dt)


@pytest.mark.parametrize("weighted", [False, True])
def test_bce_with_logits_backward(torch, weighted):
    F = torch.nn.functional
    rng = np.random.default_rng(8)
    for dt in OPS["BinaryCrossEntropyWithLogitsBackward"]["dtypes"]:
        x, t = rand(rng, (3, 4), dt, (-4, 4)), rand(rng, (3, 4), dt, (0, 1))
        w = rand(rng, (4,), dt, (0, 2)) if weighted else None
        pw = rand(rng, (4,), dt, (0.5, 3)) if weighted else None
        for r, red in RED:
            g = rand(rng, (3, 4) if r == 0 else (), dt)
            fn = lambda a, b, rr: F.binary_cross_entropy_with_logits(  # noqa: E731
                a, b, tt(torch, w) if weighted else None, reduction=rr,
                pos_weight=tt(torch, pw) if weighted else None)
            e = _bwd_ref(torch, fn, x, t, g, red)
            o = strided(np.zeros((3, 4), NP[dt]))
            pyaclnn.call("BinaryCrossEntropyWithLogitsBackward", g, strided(x), t, w, pw, r, o)
            compare(o, rounded(e, dt), dt)


def test_bce_empty():
    for op, extra in (("BinaryCrossEntropy", [None]), ("BinaryCrossEntropyWithLogits", [None, None])):
        for r, want in ((1, np.nan), (2, 0.0)):
            o = np.full((), 5, np.float32)
            pyaclnn.call(op, np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32), *extra, r, o)
            np.testing.assert_array_equal(o, want)


# ---------------------------------------------------------------- KlDiv's backwards

@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_backward(torch, log_target):
    F = torch.nn.functional
    rng = np.random.default_rng(9)
    for dt in OPS["KlDivBackward"]["dtypes"]:
        x = rand(rng, (4, 1, 3), dt, (-2, 1))             # broadcast against target; the gradient summed back
        t = rand(rng, (2, 3), dt, (-1, 1) if log_target else (0.1, 2))
        for r, red in RED + ((3, "batchmean"),):
            g = rand(rng, (4, 2, 3) if r == 0 else (), dt)
            a, b = tt(torch, x).requires_grad_(), tt(torch, t).requires_grad_()
            loss = F.kl_div(a.expand(4, 2, 3), b.expand(4, 2, 3), reduction=red, log_target=log_target)
            loss.backward(tt(torch, g))
            o = strided(np.zeros((4, 1, 3), NP[dt]))
            pyaclnn.call("KlDivBackward", g, strided(x), t, r, log_target, o)
            compare(o, rounded(a.grad.numpy(), dt), dt)
            o = strided(np.zeros((2, 3), NP[dt]))
            pyaclnn.call("KlDivTargetBackward", g, x, strided(t), r, log_target, o)
            compare(o, rounded(b.grad.numpy(), dt), dt)


# ---------------------------------------------------------------- invalid rows

def test_invalid_rows_forward():
    x, t, o, s = T((2, 3)), T((2, 3)), T((2, 3)), T(())
    for op in ("MseLoss", "L1Loss", "SoftMarginLoss"):
        expect_status(op, [None, t, 0, o], 161001, "self")
        expect_status(op, [x, None, 0, o], 161001, "target")
        expect_status(op, [x, t, 0, None], 161001, "out")
        expect_status(op, [x, T((3, 3)), 0, o], 161002, "broadcast")
        expect_status(op, [x, t, 0, T((3, 2))], 161002, "out")
        expect_status(op, [x, t, 1, T((1,))], 161002, "out")
        expect_status(op, [T((1,) * 9), T((1,)), 0, T((1,) * 9)], 161002, "self")
    expect_status("MseLoss", [T((2, 3), np.float64), t, 0, o], 161002, "self")
    expect_status("MseLoss", [x, t, 3, s], 161002, "reduction")
    expect_status("MseLoss", [x, t, 0, T((2, 3), np.int32)], 161002, "out")
    expect_status("L1Loss", [x, t, -1, s], 161002, "reduction")
    expect_status("L1Loss", [T((2, 3), np.int64), t, 0, o], 161002, "self")         # none: int self, float target
    expect_status("L1Loss", [T((2, 3), np.int64), T((2, 3), np.int64), 1, s], 161002, "mean")
    expect_status("L1Loss", [T((2, 3), np.int32), T((2, 3), np.int32), 0, T((2, 3), np.int32)], 161002, "promoted")
    expect_status("L1Loss", [x, t, 0, T((2, 3), np.int64)], 161002, "out")          # float result to int64
    expect_status("SoftMarginLoss", [x, T((2, 3), np.float64), 0, o], 161002, "target")
    expect_status("SoftMarginLoss", [x, t, 5, s], 0)                                # not range-checked
    b = np.float32(1.0)
    expect_status("SmoothL1Loss", [None, t, 0, b, o], 161001, "self")
    expect_status("SmoothL1Loss", [x, t, 0, b, None], 161001, "result")
    expect_status("SmoothL1Loss", [x, T((2, 3), np.int32), 0, b, o], 161002, "target")
    expect_status("SmoothL1Loss", [x, t, 0, b, T((2, 3), np.int32)], 161002, "result")
    expect_status("SmoothL1Loss", [x, t, 3, b, o], 161002, "reduction")
    expect_status("SmoothL1Loss", [x, t, 0, b, T((3, 2))], 161002, "result")
    expect_status("SmoothL1Loss", [x, t, 0, np.float32(-1), o], 161002, "beta")
    expect_status("SmoothL1Loss", [x, t, 1, b, T((2,))], 561103, "result")          # the 0-d result not copyable
    w = T((3,))
    expect_status("BinaryCrossEntropy", [None, t, w, 0, o], 561103, "self")         # this op_api: inner NULL
    expect_status("BinaryCrossEntropy", [x, t, w, 0, None], 561103, "out")
    expect_status("BinaryCrossEntropy", [T((2, 3), np.float64), t, w, 0, o], 161002, "self")
    expect_status("BinaryCrossEntropy", [x, t, T((3,), np.float64), 0, o], 161002, "weight")
    expect_status("BinaryCrossEntropy", [x, T((2, 3), np.float16), w, 0, o], 161002, "target")
    expect_status("BinaryCrossEntropy", [x, t, w, 0, T((2, 3), np.float16)], 161002, "out")
    expect_status("BinaryCrossEntropy", [x, T((3, 2)), w, 0, o], 161002, "target")
    expect_status("BinaryCrossEntropy", [x, t, w, 3, o], 161002, "eduction")
    expect_status("BinaryCrossEntropy", [x, t, w, 1, T((2,))], 161002, "out")
    expect_status("BinaryCrossEntropy", [x, t, w, 1, T((1,))], 0)                  # one element either way
    L = "BinaryCrossEntropyWithLogits"
    expect_status(L, [None, t, None, None, 0, o], 161001, "self")
    expect_status(L, [x, t, None, None, 0, None], 161001, "out")
    expect_status(L, [T((2, 3), np.float64), t, None, None, 0, o], 161002, "self")
    expect_status(L, [x, t, None, None, 0, T((2, 3), np.float16)], 161002, "out")
    expect_status(L, [x, t, None, None, 3, s], 161002, "eduction")
    expect_status(L, [x, T((3, 2)), None, None, 0, o], 161002, "target")
    expect_status(L, [x, t, T((4,)), None, 0, o], 161002, "weightOptional")
    expect_status(L, [x, t, None, T((2, 2)), 0, o], 161002, "posWeightOptional")
    expect_status(L, [x, t, None, None, 1, T((2,))], 561103, "out")


def test_invalid_rows_backward():
    g, x, t, o = T((2, 3)), T((2, 3)), T((2, 3)), T((2, 3))
    for op in ("MseLossBackward", "L1LossBackward", "SoftMarginLossBackward"):
        expect_status(op, [None, x, t, 0, o], 161001, "gradOutput")
        expect_status(op, [g, x, t, 0, None], 161001, "out" if op != "L1LossBackward" else "gradInput")
        expect_status(op, [g, x, T((3, 3)), 0, o], 161002, "target")
        expect_status(op, [g, x, t, 0, T((2, 2))], 161002, "out" if op != "L1LossBackward" else "gradInput")
        expect_status(op, [g, x, t, 9, o], 161002, "reduction")
    expect_status("MseLossBackward", [T((2, 3), np.float16), x, t, 0, o], 161002, "gradOutput")   # not the same
    expect_status("MseLossBackward", [g, x, T((2, 3), np.float16), 0, o], 161002, "target")
    expect_status("MseLossBackward", [g, x, t, 0, T((2, 3), np.float64)], 161002, "out")
    expect_status("L1LossBackward", [T((2, 3), np.float16), x, t, 0, o], 0)                       # promotes
    expect_status("L1LossBackward", [g, x, T((2, 3), np.float64), 0, o], 161002, "promoted")
    expect_status("L1LossBackward", [g, x, t, 0, T((2, 3), np.int32)], 161002, "gradInput")
    b = np.float32(1.0)
    S = "SmoothL1LossBackward"
    expect_status(S, [None, x, t, 0, b, o], 161001, "gradOut")
    expect_status(S, [g, x, t, 0, b, T((2, 3), np.float64)], 161002, "gradInput")
    expect_status(S, [g, x, t, 0, np.float32(-0.5), o], 161002, "beta")
    expect_status(S, [g, x, t, 4, b, o], 161002, "reduction")
    expect_status(S, [g, x, t, 0, b, T((3, 2))], 161002, "gradInput")
    B = "BinaryCrossEntropyBackward"
    expect_status(B, [g, None, t, None, 0, o], 161001, "self")
    expect_status(B, [g, x, t, T((2, 3), np.float64), 0, o], 161002, "weightOptional")
    expect_status(B, [g, x, t, None, 0, T((3, 2))], 161002, "out")
    expect_status(B, [g, x, T((1, 3)), None, 0, o], 0)                              # target broadcasts to self
    expect_status(B, [g, x, T((2, 3), fmt=3), None, 0, o], 161002, "Format")
    expect_status(B, [g, x, t, None, 3, o], 161002, "eduction")
    W = "BinaryCrossEntropyWithLogitsBackward"
    expect_status(W, [g, x, t, None, None, 0, T((2, 3), np.float16)], 161002, "out")
    expect_status(W, [g, x, t, None, T((4,)), 0, o], 161002, "posWeightOptional")
    expect_status(W, [g, x, t, None, None, -1, o], 161002, "eduction")
    K = "KlDivBackward"
    expect_status(K, [g, x, t, 0, False, None], 161001, "out")
    expect_status(K, [g, x, t, 0, False, T((2, 3), np.int32)], 161002, "out")      # f32 cannot cast to int32
    expect_status(K, [g, T((2, 3), np.float64), t, 0, False, o], 161002, "self")
    expect_status(K, [T((4, 2, 3)), x, t, 0, False, o], 161002, "gradOutput")       # grad would enlarge the shape
    expect_status(K, [g, x, t, 0, False, T((1, 3))], 161002, "out")
    expect_status(K, [g, x, t, 7, False, o], 0)                                     # other reductions: none
    KT = "KlDivTargetBackward"
    expect_status(KT, [g, x, t, 0, False, T((2, 3), np.float16)], 161002, "gradTarget")
    expect_status(KT, [g, x, t, 0, False, T((2, 3), fmt=3)], 161002, "gradTarget")


def test_same_bytes_for_threads():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
x = rng.uniform(-2, 2, (300, 257)).astype(np.float32)
t = rng.uniform(-2, 2, (300, 257)).astype(np.float32)
h = hashlib.sha256()
for op in ("MseLoss", "L1Loss", "SoftMarginLoss"):
    for r in (1, 2):
        o = np.zeros((), np.float32)
        pyaclnn.call(op, x, t, r, o)
        h.update(o.tobytes())
o = np.zeros((), np.float32)
pyaclnn.call("BinaryCrossEntropyWithLogits", x, (t > 0).astype(np.float32), None, None, 1, o)
h.update(o.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- NLLLoss, NLLLoss2d and their backwards

def _nll_case(rng, dt, shape, C, tdt):
    x = rand(rng, shape, dt, (-3, 0))
    tshape = (shape[0],) + tuple(shape[2:]) if len(shape) != 1 else ()
    t = rng.integers(0, C, tshape).astype(NP[tdt])
    if t.size > 1:
        t.reshape(-1)[1] = 2                              # the ignored class below
    w = rand(rng, (C,), dt, (0.5, 2))
    return x, t, w


@pytest.mark.parametrize("tdt", ["i64", "i32", "u8"])
@pytest.mark.parametrize("two_d", [False, True])
def test_nll_loss(torch, tdt, two_d):
    F = torch.nn.functional
    rng = np.random.default_rng(10)
    op = "NLLLoss2d" if two_d else "NLLLoss"
    ignore = 2
    for dt in OPS[op]["dtypes"]:
        for shape in ([(2, 4, 3, 2)] if two_d else [(5, 4), (4,)]):
            x, t, w = _nll_case(rng, dt, shape, 4, tdt)
            for r, red in RED:
                a = tt(torch, x).requires_grad_()
                e = F.nll_loss(a, torch.from_numpy(t.astype(np.int64)), tt(torch, w), ignore_index=ignore,
                               reduction=red)
                o = (strided(np.zeros(t.shape, NP[dt])) if r == 0 and t.ndim else np.zeros((), NP[dt]))
                tw = np.zeros((1,), NP[dt])
                pyaclnn.call(op, strided(x), t, w, r, ignore, o, tw)
                compare(o, rounded(e.detach().numpy(), dt), dt)
                keep = t.astype(np.int64).reshape(-1) != ignore
                ew = f64(w)[t.astype(np.int64).reshape(-1)[keep]].sum()
                if r != 0:
                    compare(tw, rounded(np.array([ew]), dt), dt)
                # the backward with the forward's total weight
                g = rand(rng, t.shape if r == 0 else (), dt)
                e.backward(tt(torch, g))
                gop = op + "Backward"
                o = strided(np.zeros(shape, NP[dt]))
                twin = np.array([ew], NP[dt]).reshape((1,))
                pyaclnn.call(gop, g, x, t, w, r, ignore, twin, o)
                compare(o, rounded(a.grad.numpy(), dt), dt)


def test_nll_loss_all_ignored_and_empty():
    x = np.array([[-1.0, -2.0]], np.float32)
    o, tw = np.zeros((), np.float32), np.full((1,), 7, np.float32)
    pyaclnn.call("NLLLoss", x, np.array([1], np.int64), np.ones(2, np.float32), 1, 1, o, tw)
    assert np.isnan(o) and tw[0] == 0                     # mean over zero weight: NaN
    for r, want in ((1, np.nan), (2, 0.0)):
        o, tw = np.full((), 5, np.float32), np.full((1,), 5, np.float32)
        pyaclnn.call("NLLLoss", np.zeros((0, 3), np.float32), np.zeros((0,), np.int64), np.ones(3, np.float32), r,
                     -100, o, tw)
        np.testing.assert_array_equal(o, want)
        assert tw[0] == 0


def test_nll_invalid_rows():
    x, t, w, o, tw = T((2, 3)), T((2,), np.int64), T((3,)), T((2,)), T((1,))
    N = "NLLLoss"
    expect_status(N, [None, t, w, 0, -100, o, tw], 161001, "self")
    expect_status(N, [x, t, None, 0, -100, o, tw], 161001, "weight")
    expect_status(N, [x, t, w, 0, -100, o, None], 161001, "totalWeightOut")
    expect_status(N, [x, t, T((3,), np.float16), 0, -100, o, tw], 161002, "weight")
    expect_status(N, [x, t, w, 0, -100, T((2,), np.int32), tw], 161002, "out")
    expect_status(N, [T((2, 3), np.float64), t, T((3,), np.float64), 0, -100, T((2,), np.float64), tw], 161002,
                  "self")
    expect_status(N, [x, T((2,), np.int16), w, 0, -100, o, tw], 161002, "target")
    expect_status(N, [x, t, w, 3, -100, o, tw], 161002, "reduction")
    expect_status(N, [T((2, 3, 4)), t, w, 0, -100, o, tw], 161002, "self")
    expect_status(N, [x, T((3,), np.int64), w, 0, -100, o, tw], 161002, "target")
    expect_status(N, [x, t, T((4,)), 0, -100, o, tw], 161002, "weight")
    expect_status(N, [x, t, w, 0, -100, T((3,)), tw], 161002, "out")
    expect_status(N, [x, t, w, 1, -100, T((2,)), tw], 161002, "out")
    expect_status(N, [x, t, w, 1, -100, T(()), T((2,))], 161002, "totalWeightOut")
    N2 = "NLLLoss2d"
    x4, t3 = T((2, 3, 4, 5)), T((2, 4, 5), np.int64)
    expect_status(N2, [x4, t3, w, 0, -100, T((2, 4, 5)), tw], 0)
    expect_status(N2, [T((2, 3, 4, 5), np.float64), t3, w, 0, -100, T((2, 4, 5)), tw], 161002, "self")
    expect_status(N2, [x4, t3, T((3,), np.float16), 0, -100, T((2, 4, 5)), tw], 161002, "weight")
    expect_status(N2, [x, t3, w, 0, -100, T((2, 4, 5)), tw], 161002, "self")
    expect_status(N2, [x4, t3, T((4,)), 0, -100, T((2, 4, 5)), tw], 161002, "weight")
    expect_status(N2, [x4, T((2, 4, 6), np.int64), w, 0, -100, T((2, 4, 5)), tw], 161002, "target")
    expect_status(N2, [x4, t3, w, 0, -100, T((2, 4)), tw], 161002, "out")
    B = "NLLLossBackward"
    g = T((2,))
    expect_status(B, [g, x, t, w, 0, -100, tw, T((2, 3))], 0)
    expect_status(B, [T((2,), np.float16), x, t, w, 0, -100, tw, T((2, 3))], 161002, "gradOutput")
    expect_status(B, [g, x, t, w, 0, -100, T((1,), np.float16), T((2, 3))], 161002, "totalWeight")
    expect_status(B, [g, x, t, w, 0, -100, T((2,)), T((2, 3))], 161002, "totalWeight")
    expect_status(B, [T((3,)), x, t, w, 0, -100, tw, T((2, 3))], 161002, "gradOutput")
    expect_status(B, [g, x, t, w, 1, -100, tw, T((2, 3))], 161002, "gradOutput")
    expect_status(B, [g, x, t, w, 0, -100, tw, T((3, 2))], 161002, "out")
    B2 = "NLLLoss2dBackward"
    g3 = T((2, 4, 5))
    expect_status(B2, [g3, x4, t3, w, 0, -100, tw, T((2, 3, 4, 5))], 0)
    expect_status(B2, [g3, x4, t3, w, 0, -100, tw, T((2, 3, 4, 5), np.float16)], 161002, "out")
    expect_status(B2, [T((2, 4)), x4, t3, w, 0, -100, tw, T((2, 3, 4, 5))], 161002, "gradOutput")
    expect_status(B2, [g3, x4, t3, w, 5, -100, tw, T((2, 3, 4, 5))], 161002, "gradOutput")   # shapes first
    expect_status(B2, [T(()), x4, t3, w, 5, -100, tw, T((2, 3, 4, 5))], 161002, "reduction")


# ---------------------------------------------------------------- CrossEntropyLoss(+Grad)

def _cstr(s):
    return None if s is None else pyaclnn.ffi.new("char[]", s.encode())


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("eps", [0.0, 0.2])
def test_cross_entropy_loss(torch, weighted, eps):
    F = torch.nn.functional
    rng = np.random.default_rng(11)
    for dt in OPS["CrossEntropyLoss"]["dtypes"]:
        N, C = 6, 5
        x = rand(rng, (N, C), dt, (-4, 4))
        t = rng.integers(0, C, (N,)).astype(np.int64)
        t[2] = 3
        w = rand(rng, (C,), "f32", (0.5, 2)) if weighted else None
        for r, red in RED:
            a = tt(torch, x).requires_grad_()
            e = F.cross_entropy(a, torch.from_numpy(t), tt(torch, w) if weighted else None, ignore_index=3,
                                reduction=red, label_smoothing=eps)
            lo = strided(np.zeros((N,), NP[dt])) if r == 0 else np.zeros((1,), NP[dt])
            lp = strided(np.zeros((N, C), NP[dt]))
            z, lse = np.zeros(lo.shape, NP[dt]), np.zeros((N,), NP[dt])
            pyaclnn.call("CrossEntropyLoss", strided(x), t, w, red, 3, eps, 0.0, False, lo, lp, z, lse)
            compare(lo, rounded(e.detach().numpy().reshape(lo.shape), dt), dt)
            compare(lp, rounded(F.log_softmax(tt(torch, x), 1).numpy(), dt), dt)
            g = rand(rng, (N,) if r == 0 else (), dt)
            e.backward(tt(torch, g))
            o = strided(np.zeros((N, C), NP[dt]))
            logp = rounded(F.log_softmax(tt(torch, x), 1).numpy(), dt)   # the forward's logProb as the op gets it
            pyaclnn.call("CrossEntropyLossGrad", g, logp, t, w, None, None, red, 3, eps, 0.0, o)
            compare(o, rounded(a.grad.numpy(), dt), dt)


def test_cross_entropy_default_reduction():
    x, t, lp, z, lse = T((2, 3)), T((2,), np.int64), T((2, 3)), T((1,)), T((2,))
    expect_status("CrossEntropyLoss", [x, t, None, None, -100, 0.0, 0.0, False, T((1,)), lp, z, lse], 0)   # mean
    expect_status("CrossEntropyLoss", [x, t, None, None, -100, 0.0, 0.0, False, T((2,)), lp, z, lse], 561002,
                  "lossOut")


def test_cross_entropy_invalid_rows():
    x, t, w = T((2, 3)), T((2,), np.int64), T((3,))
    lo, lp, z, lse = T((1,)), T((2, 3)), T((1,)), T((2,))
    C = "CrossEntropyLoss"
    m = _cstr("mean")
    expect_status(C, [x, t, w, m, -100, 0.0, 0.0, False, lo, lp, z, lse], 0)
    expect_status(C, [None, t, w, m, -100, 0.0, 0.0, False, lo, lp, z, lse], 161001, "input")
    expect_status(C, [x, t, w, m, -100, 0.0, 0.0, False, lo, lp, z, None], 161001, "lseForZlossOut")
    expect_status(C, [T((2, 3), np.float64), t, w, m, -100, 0.0, 0.0, False, lo, lp, z, lse], 161002, "input")
    expect_status(C, [x, T((2,), np.int32), w, m, -100, 0.0, 0.0, False, lo, lp, z, lse], 161002, "target")
    expect_status(C, [x, t, T((3,), np.float16), m, -100, 0.0, 0.0, False, lo, lp, z, lse], 161002, "weight")
    expect_status(C, [x, t, w, m, -100, 0.0, 0.0, False, T((1,), np.float16), lp, z, lse], 161002, "lossOut")
    expect_status(C, [x, t, w, _cstr("avg"), -100, 0.0, 0.0, False, lo, lp, z, lse], 561002, "reduction")
    expect_status(C, [x, t, w, m, -100, 1.5, 0.0, False, lo, lp, z, lse], 561002, "labelSmoothing")
    expect_status(C, [T((2, 0)), t, T((0,)), m, -100, 0.0, 0.0, False, lo, T((2, 0)), z, lse], 561002, "input")
    expect_status(C, [x, T((3,), np.int64), w, m, -100, 0.0, 0.0, False, lo, lp, z, lse], 561002, "target")
    expect_status(C, [x, t, T((4,)), m, -100, 0.0, 0.0, False, lo, lp, z, lse], 561002, "weight")
    expect_status(C, [x, t, w, _cstr("none"), -100, 0.0, 0.0, False, lo, lp, z, lse], 561002, "lossOut")
    expect_status(C, [x, t, w, m, -100, 0.0, 0.0, False, lo, T((3, 2)), z, lse], 561002, "logProbOut")
    G = "CrossEntropyLossGrad"
    g, o = T(()), T((2, 3))
    expect_status(G, [g, x, t, w, None, None, m, -100, 0.0, 0.0, o], 0)
    expect_status(G, [None, x, t, w, None, None, m, -100, 0.0, 0.0, o], 161001, "gradLoss")
    expect_status(G, [g, x, t, w, None, None, m, -100, 0.0, 0.0, None], 161001, "out")
    expect_status(G, [g, T((2, 3), np.float16), t, w, None, None, m, -100, 0.0, 0.0, o], 161002, "logProb")
    expect_status(G, [g, x, t, w, None, None, m, -100, 0.0, 0.0, T((2, 3), BF16)], 161002, "out")
    expect_status(G, [T((2,)), x, t, w, None, None, m, -100, 0.0, 0.0, o], 561002, "gradLoss")
    expect_status(G, [g, x, t, w, None, None, m, -100, 0.0, 0.0, T((2, 2))], 561002, "out")


def test_mse_loss_out(torch):
    """MseLossOut reduces over the first dim only"""
    rng = np.random.default_rng(12)
    for dt in OPS["MseLossOut"]["dtypes"]:
        x, t = rand(rng, (4, 1, 3), dt), rand(rng, (2, 3), dt)
        d = (tt(torch, x) - tt(torch, t)) ** 2
        for r, e in ((0, d), (1, d.mean(0)), (2, d.sum(0))):
            o = strided(np.zeros(tuple(e.shape), NP[dt]))
            pyaclnn.call("MseLossOut", strided(x), t, r, o)
            compare(o, rounded(e.numpy(), dt), dt)
    expect_status("MseLossOut", [T((4, 3)), T((4, 3)), 1, T(())], 161002, "out")
    expect_status("MseLossOut", [T((4, 3)), T((4, 3)), 1, T((3,))], 0)
    expect_status("MseLossOut", [T((4, 3)), T((4, 3)), 3, T((3,))], 161002, "reduction")
    expect_status("MseLossOut", [None, T((4, 3)), 1, T((3,))], 161001, "self")


def test_logit_no_eps_and_clamp(torch):
    x = np.array([0.1, 0.5, 0.85, 0.0, 1.0, 1.5], np.float32)
    dy = np.array([1.0, 2.0, -1.0, 1.0, 1.0, 1.0], np.float32)
    for eps in (-1.0, 0.2):
        o = np.zeros_like(x)
        pyaclnn.call("Logit", x, eps, o)
        compare(o, torch.logit(torch.from_numpy(x), eps if eps >= 0 else None).numpy(), "f32")
        o = np.zeros_like(x)
        pyaclnn.call("LogitGrad", x, dy, eps, o)
        e = torch.ops.aten.logit_backward(torch.from_numpy(dy), torch.from_numpy(x), eps if eps >= 0 else None)
        compare(o, e.numpy(), "f32")


def test_multilabel_margin_loss(torch):
    F = torch.nn.functional
    rng = np.random.default_rng(13)
    for dt in OPS["MultilabelMarginLoss"]["dtypes"]:
        for tdt in ("i64", "i32"):
            x = rand(rng, (3, 5), dt)
            y = np.array([[3, 0, -1, 1, 2], [4, 1, 2, 0, 3], [-1, 2, 0, 0, 0]], NP[tdt])
            for r, red in RED:
                e = F.multilabel_margin_loss(tt(torch, x), torch.from_numpy(y.astype(np.int64)), reduction=red)
                o = strided(np.zeros((3,), NP[dt])) if r == 0 else np.zeros((), NP[dt])
                it = strided(np.zeros((3, 5), NP[dt]))
                pyaclnn.call("MultilabelMarginLoss", strided(x), y, r, o, it)
                compare(o, rounded(e.numpy(), dt), dt)
                want = np.zeros((3, 5))
                want[0, [3, 0]] = 1
                want[1, :] = 1
                np.testing.assert_array_equal(it.astype(np.float64), want)
    x1 = np.array([0.1, 0.2, 0.4, 0.8], np.float32)       # 1-D self: one sample
    y1 = np.array([3, 0, -1, 1], np.int64)
    o = np.zeros((), np.float32)
    pyaclnn.call("MultilabelMarginLoss", x1, y1, 0, o, np.zeros(4, np.float32))
    compare(o, F.multilabel_margin_loss(torch.from_numpy(x1), torch.from_numpy(y1), reduction="none").numpy(), "f32")
    o = np.zeros((), np.float32)                          # reduction not range-checked: sums
    pyaclnn.call("MultilabelMarginLoss", x1, y1, 9, o, np.zeros(4, np.float32))
    compare(o, F.multilabel_margin_loss(torch.from_numpy(x1), torch.from_numpy(y1), reduction="sum").numpy(), "f32")
    M = "MultilabelMarginLoss"
    x, y, o, it = T((3, 5)), T((3, 5), np.int64), T((3,)), T((3, 5))
    expect_status(M, [None, y, 0, o, it], 161001, "self")
    expect_status(M, [x, y, 0, o, None], 161001, "isTarget")
    expect_status(M, [T((3, 5), np.float64), y, 0, o, it], 161002, "self")
    expect_status(M, [x, T((3, 5), np.int16), 0, o, it], 161002, "target")
    expect_status(M, [x, y, 0, T((3,), np.float16), it], 161002, "out")
    expect_status(M, [x, y, 0, o, T((3, 5), np.float16)], 161002, "isTarget")
    expect_status(M, [T((3, 0)), T((3, 0), np.int64), 0, o, T((3, 0))], 161002, "self")
    expect_status(M, [x, T((3, 4), np.int64), 0, o, it], 161002, "target")
    expect_status(M, [x, y, 0, T((4,)), it], 161002, "out")
    expect_status(M, [x, y, 1, T((3,)), it], 161002, "out")
    expect_status(M, [x, y, 0, o, T((5, 3))], 161002, "isTarget")


def _chamfer_ref(x1, x2, i1, i2, g1, g2):
    """literal float64 loops: each nearest pair's 2 g (p - q) added to the point, taken from its neighbour"""
    o1, o2 = np.zeros(x1.shape), np.zeros(x2.shape)
    for b in range(x1.shape[0]):
        for i in range(x1.shape[1]):
            j = i1[b, i]
            t = 2 * g1[b, i] * (x1[b, i] - x2[b, j])
            o1[b, i] += t
            o2[b, j] -= t
        for j in range(x2.shape[1]):
            i = i2[b, j]
            t = 2 * g2[b, j] * (x2[b, j] - x1[b, i])
            o2[b, j] += t
            o1[b, i] -= t
    return o1, o2


def test_chamfer_distance_backward():
    rng = np.random.default_rng(14)
    for dt in OPS["ChamferDistanceBackward"]["dtypes"]:
        B, N, M = 2, 5, 4
        x1, x2 = rand(rng, (B, N, 2), dt), rand(rng, (B, M, 2), dt)
        d = ((f64(x1)[:, :, None, :] - f64(x2)[:, None, :, :]) ** 2).sum(-1)
        i1, i2 = d.argmin(2).astype(np.int32), d.argmin(1).astype(np.int32)
        g1, g2 = rand(rng, (B, N), dt), rand(rng, (B, M), dt)
        o1, o2 = strided(np.zeros((B, N, 2), NP[dt])), np.zeros((B, M, 2), NP[dt])
        pyaclnn.call("ChamferDistanceBackward", x1, strided(x2), i1, i2, g1, g2, o1, o2)
        e1, e2 = _chamfer_ref(f64(x1), f64(x2), i1, i2, f64(g1), f64(g2))
        compare(o1, rounded(e1, dt), dt)
        compare(o2, rounded(e2, dt), dt)
    C = "ChamferDistanceBackward"
    x1, x2, i1, i2, g1, g2, o1, o2 = T((2, 5, 2)), T((2, 4, 2)), T((2, 5), np.int32), T((2, 4), np.int32), \
        T((2, 5)), T((2, 4)), T((2, 5, 2)), T((2, 4, 2))
    expect_status(C, [x1, x2, i1, i2, g1, g2, o1, o2], 0)
    expect_status(C, [None, x2, i1, i2, g1, g2, o1, o2], 161001, "xyz1")
    expect_status(C, [x1, x2, i1, i2, g1, g2, o1, None], 161001, "gradXyz2")
    expect_status(C, [T((2, 5, 2), BF16), x2, i1, i2, g1, g2, o1, o2], 161002, "xyz1")
    expect_status(C, [x1, x2, T((2, 5), np.int64), i2, g1, g2, o1, o2], 161002, "idx1")
    expect_status(C, [x1, x2, i1, i2, g1, g2, o1, T((2, 4, 2), np.float64)], 161002, "gradXyz2")
    expect_status(C, [x1, x2, i1, T((2, 5), np.int32), g1, g2, o1, o2], 161002, "idx2")
    expect_status(C, [x1, x2, i1, i2, g1, g2, T((2, 4, 2)), o2], 161002, "gradXyz1")


def test_fused_cross_entropy_loss_with_max_sum(torch):
    rng = np.random.default_rng(15)
    for vdt in OPS["FusedCrossEntropyLossWithMaxSum"]["arg_dtypes"]["vocabParallelLogitsOptional"]:
        v = rand(rng, (4, 6), vdt)
        tv = tt(torch, v)
        m = tv.max(1).values
        s = torch.exp(tv - m[:, None]).sum(1)
        pl = tv[:, 2]
        lo, sm = np.zeros(4, np.float32), strided(np.zeros((4, 6), np.float32))
        pyaclnn.call("FusedCrossEntropyLossWithMaxSum", m.numpy().astype(np.float32), s.numpy().astype(np.float32),
                     strided(pl.numpy().astype(np.float32)), 0.0, None, None, v, lo, sm)
        m32, s32, p32 = (f64(a.numpy().astype(np.float32)) for a in (m, s, pl))
        compare(lo, (np.log(s32) - p32).astype(np.float32), "f32")
        compare(sm, (np.exp(f64(v) - m32[:, None]) / s32[:, None]).astype(np.float32), "f32")
    F = "FusedCrossEntropyLossWithMaxSum"
    a, v, o = T((4,)), T((4, 6)), T((4, 6))
    expect_status(F, [a, a, a, 0.0, None, None, None, a, None], 0)              # no vocab: the loss only
    expect_status(F, [None, a, a, 0.0, None, None, v, a, o], 161001, "logitsMax")
    expect_status(F, [a, a, a, 0.0, None, None, v, a, None], 161001, "softMaxOutOptional")
    expect_status(F, [T((4,), np.float16), a, a, 0.0, None, None, v, a, o], 161002, "logitsMax")
    expect_status(F, [a, a, a, 0.0, None, None, T((4, 6), np.float64), a, o], 161002, "vocabParallelLogits")
    expect_status(F, [a, a, a, 0.0, None, None, v, a, T((4, 6), BF16)], 161002, "softMaxOutOptional")
    expect_status(F, [T((4, 1)), T((4, 1)), T((4, 1)), 0.0, None, None, v, T((4, 1)), o], 161002, "logitsMax")
    expect_status(F, [a, T((5,)), a, 0.0, None, None, v, a, o], 161002, "sumExpLogits")
    expect_status(F, [a, a, a, 0.0, None, None, v, a, T((4, 5))], 161002, "softMaxOutOptional")
    expect_status(F, [a, a, a, 0.1, None, None, v, a, o], 161002, "labelSmoothing")
    expect_status(F, [a, a, a, 0.0, None, None, T((3, 6)), a, T((3, 6))], 161002, "vocabParallelLogits")


# ---------------------------------------------------------------- CtcLoss

def _ctc_case(rng, dt, T_, N, C, padded):
    lp = np.log(rng.dirichlet(np.ones(C), (T_, N))).astype(np.float64)
    il = [T_, T_ - 2, 3][:N]
    tl = [3, 2, 0][:N]
    S = max(tl)
    tg = rng.integers(1, C, (N, S)).astype(np.int64)
    tg[0, 1] = tg[0, 0]                                   # a repeated label
    x = rand(rng, (T_, N, C), dt)
    x[...] = lp.astype(np.float32).astype(NP[dt]) if dt != "f64" else lp
    targets = tg if padded else np.concatenate([tg[b, :tl[b]] for b in range(N)])
    return x, targets, il, tl


@pytest.mark.parametrize("padded", [False, True])
def test_ctc_loss(torch, padded):
    rng = np.random.default_rng(16)
    T_, N, C = 6, 3, 5
    for dt in OPS["CtcLoss"]["dtypes"]:
        x, tg, il, tl = _ctc_case(rng, dt, T_, N, C, padded)
        A = (2 * max(tl) + 1 + 7) // 8 * 8
        nll, la = np.zeros(N, NP[dt]), np.zeros((N, T_, A), NP[dt])
        pyaclnn.call("CtcLoss", x, tg.astype(np.int32), il, tl, 0, False, nll, la)
        en, ea = torch.ops.aten._ctc_loss(tt(torch, x), torch.from_numpy(tg), il, tl, 0, False)
        compare(nll, rounded(en.numpy(), dt), dt)
        ea = ea.numpy()
        for b in range(N):                                # the lattice each item defines; -inf elsewhere
            S = 2 * tl[b] + 1
            compare(la[b, :il[b], :S], rounded(ea[b, :il[b], :S], dt), dt)
            assert np.isneginf(la[b, :, S:].astype(np.float64)).all()
            assert np.isneginf(la[b, il[b]:, :].astype(np.float64)).all()


def test_ctc_loss_zero_infinity_and_2d(torch):
    lp = np.log(np.full((2, 3), 1 / 3)).astype(np.float32)    # 2 steps cannot emit 'a a' (needs a blank)
    for zi in (False, True):
        nll, la = np.zeros((), np.float32), np.zeros((1, 2, 8), np.float32)
        pyaclnn.call("CtcLoss", lp, np.array([1, 1], np.int64), [2], [2], 0, zi, nll, la)
        assert nll == (0 if zi else np.inf)
    C = "CtcLoss"
    lp3, tg = T((6, 2, 5)), T((2, 3), np.int64)
    nl, la = T((2,)), T((2, 6, 8))
    expect_status(C, [lp3, tg, IA([6, 6]), IA([3, 2]), 0, False, nl, la], 0)
    expect_status(C, [None, tg, IA([6, 6]), IA([3, 2]), 0, False, nl, la], 161001, "logProbs")
    expect_status(C, [lp3, tg, None, IA([3, 2]), 0, False, nl, la], 161001, "inputLengths")
    expect_status(C, [T((6, 2, 5, 1)), tg, IA([6, 6]), IA([3, 2]), 0, False, nl, la], 161002, "logProbs")
    expect_status(C, [lp3, tg, IA([6, 6]), IA([3, 2]), 5, False, nl, la], 161002, "blank")
    expect_status(C, [lp3, tg, IA([7, 6]), IA([3, 2]), 0, False, nl, la], 161002, "nputLengths")
    expect_status(C, [lp3, tg, IA([6, 6]), IA([3]), 0, False, nl, la], 161002, "targetLengths")
    expect_status(C, [lp3, T((2, 2), np.int64), IA([6, 6]), IA([3, 2]), 0, False, nl, la], 161002, "targets")
    expect_status(C, [lp3, T((4,), np.int64), IA([6, 6]), IA([3, 2]), 0, False, nl, la], 161002, "targets")
    expect_status(C, [lp3, tg, IA([6, 6]), IA([3, 2]), 0, False, T((3,)), la], 161002, "negLogLikelihoodOut")
    expect_status(C, [lp3, tg, IA([6, 6]), IA([3, 2]), 0, False, nl, T((2, 6, 7))], 161002, "logAlphaOut")
    expect_status(C, [T((6, 2, 5), np.int32), tg, IA([6, 6]), IA([3, 2]), 0, False, nl, la], 161002, "logProbs")
    expect_status(C, [lp3, T((2, 3), np.int16), IA([6, 6]), IA([3, 2]), 0, False, nl, la], 161002, "targets")
    expect_status(C, [lp3, tg, IA([6, 6]), IA([3, 2]), 0, False, T((2,), np.float16), la], 161002, "negLogLikelihoodOut")


@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize("zero_inf", [False, True])
def test_ctc_loss_backward(torch, padded, zero_inf):
    rng = np.random.default_rng(17)
    T_, N, C = 6, 3, 5
    for dt in OPS["CtcLossBackward"]["dtypes"]:
        x, tg, il, tl = _ctc_case(rng, dt, T_, N, C, padded)
        il[2] = 1                                         # item 2: an empty target over one step
        if zero_inf:
            il[0] = 3                                     # item 0: 3 labels with a repeat cannot fit in 3 steps
        A = (2 * max(tl) + 1 + 7) // 8 * 8
        nll, la = np.zeros(N, NP[dt]), np.zeros((N, T_, A), NP[dt])
        pyaclnn.call("CtcLoss", x, tg, il, tl, 0, zero_inf, nll, la)
        g = rand(rng, (N,), dt, (0.5, 2))
        o = strided(np.zeros((T_, N, C), NP[dt]))
        pyaclnn.call("CtcLossBackward", g, x, tg, il, tl, nll, la, 0, zero_inf, o)
        a = tt(torch, x).requires_grad_()
        e = torch.nn.functional.ctc_loss(a, torch.from_numpy(tg), il, tl, 0, reduction="none",
                                         zero_infinity=zero_inf)
        e.backward(tt(torch, g))
        compare(o, rounded(a.grad.numpy(), dt), dt)
    B = "CtcLossBackward"
    g, lp, tg2, nl, la, o = T((2,)), T((6, 2, 5)), T((2, 3), np.int64), T((2,)), T((2, 6, 8)), T((6, 2, 5))
    expect_status(B, [g, lp, tg2, IA([6, 6]), IA([3, 2]), nl, la, 0, False, o], 0)
    expect_status(B, [g, lp, tg2, IA([6, 6]), IA([3, 2]), nl, la, 0, False, None], 161001, "out")
    expect_status(B, [T((2, 1)), lp, tg2, IA([6, 6]), IA([3, 2]), nl, la, 0, False, o], 161002, "gradOut")
    expect_status(B, [g, T((6, 5)), tg2, IA([6, 6]), IA([3, 2]), nl, la, 0, False, o], 161002, "logProbs")
    expect_status(B, [g, lp, tg2, IA([6, 6]), IA([3, 2]), nl, la, 5, False, o], 161002, "blank")
    expect_status(B, [g, lp, tg2, IA([6, 6]), IA([4, 2]), nl, T((2, 6, 8)), 0, False, o], 161002, "targets")
    expect_status(B, [g, lp, tg2, IA([6, 6]), IA([3, 2]), nl, T((2, 6, 5)), 0, False, o], 161002, "logAlpha")
    expect_status(B, [T((3,)), lp, tg2, IA([6, 6]), IA([3, 2]), nl, la, 0, False, o], 161002, "batchSize")
    expect_status(B, [g, lp, tg2, IA([7, 6]), IA([3, 2]), nl, la, 0, False, o], 161002, "time")
    expect_status(B, [g, lp, tg2, IA([6, 6]), IA([3, 2]), nl, la, 0, False, T((6, 2, 4))], 161002, "symbolSet")
    expect_status(B, [g, T((6, 2, 5), np.int32), tg2, IA([6, 6]), IA([3, 2]), nl, la, 0, False, o], 161002,
                  "logProbs")
    expect_status(B, [g, lp, tg2, IA([6, 6]), IA([3, 2]), T((2,), np.float16), la, 0, False, o], 161002,
                  "negLogLikelihood")
