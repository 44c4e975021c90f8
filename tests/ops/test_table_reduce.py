"""The reductions of tools/optable/math_reduce.py against PyTorch CPU (dims sets, keepdim, strided inputs, NaN,
every A2 dtype family), determinism across thread counts, and invalid rows."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads
from table_harness import compare, expect_status, from_torch, rand, to_torch

FL = ["f32", "f16", "bf16", "f64"]
NUM = FL + ["i32", "i64", "i8", "u8"]


def strided(a):
    big = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
    big[..., ::2] = a
    return big[..., ::2]


def out_like(e):
    return np.zeros(e.shape, e.dtype)


@pytest.mark.parametrize("dt", NUM)
@pytest.mark.parametrize("dims,keep", [([1], False), ([0, 2], True), ([], False), ([-1], True)])
def test_dims_reductions(torch, dt, dims, keep):
    rng = np.random.default_rng(3)
    x = strided(rand(rng, (3, 4, 5), dt))
    t = to_torch(torch, x)
    tdims = dims or [0, 1, 2]
    cases = [("ReduceSum", [x, dims, keep, 0], torch.sum(t, tdims, keep)),
             ("Amax", [x, dims, keep], torch.amax(t, tdims, keep)),
             ("Amin", [x, dims, keep], torch.amin(t, tdims, keep)),
             ("Any", [x, dims, keep], torch.any(t, tdims[0], keep) if len(tdims) == 1 else None),
             ]
    if dt in FL:
        cases += [("Mean", [x, dims, keep, 0], torch.mean(t, tdims, keep)),
                  ("Std", [x, dims, 1, keep], torch.std(t, tdims, correction=1, keepdim=keep)),
                  ("Var", [x, dims, False, keep], torch.var(t, tdims, unbiased=False, keepdim=keep)),
                  ("LogSumExp", [x, dims, keep], torch.logsumexp(t, tdims, keep))]
    for op, args, exp in cases:
        if exp is None:
            continue
        e = from_torch(exp)
        out = out_like(e)
        pyaclnn.call(op, *args, out)
        if e.dtype != x.dtype and op == "ReduceSum":
            out = out.astype(e.dtype)
        tol_dt = "f32" if dt in ("f16", "bf16") and op in ("Std", "Var", "LogSumExp", "Mean", "ReduceSum") else dt
        if dt in ("f16", "bf16"):  # we accumulate in double and round once; PyTorch rounds partial sums
            np.testing.assert_allclose(out.astype(np.float64), e.astype(np.float64), rtol=2e-2, atol=2e-2)
        else:
            compare(out, e, tol_dt)


@pytest.mark.parametrize("dt", NUM)
def test_dim_with_indices(torch, dt):
    rng = np.random.default_rng(5)
    x = rand(rng, (4, 6), dt)
    t = to_torch(torch, x)
    for op, f in (("MaxDim", torch.max), ("MinDim", torch.min)):
        v, i = f(t, 1, keepdim=True)
        vo, io = out_like(from_torch(v)), np.zeros((4, 1), np.int64)
        pyaclnn.call(op, x, 1, True, vo, io)
        compare(vo, from_torch(v), dt)
        # ties: any index of an equal value is a valid argmax; compare the values they point at
        np.testing.assert_array_equal(np.take_along_axis(x, io, 1), np.take_along_axis(x, i.numpy(), 1))
    for op, f in (("ArgMax", torch.argmax), ("ArgMin", torch.argmin)):
        o = np.zeros(4, np.int64)
        pyaclnn.call(op, x, 1, False, o)
        np.testing.assert_array_equal(x[np.arange(4), o], x[np.arange(4), f(t, 1).numpy()])
    e = from_torch(torch.max(t))
    o = out_like(e)
    pyaclnn.call("Max", x, o)
    compare(o, e, dt)
    mn, mx = out_like(e), out_like(e)
    pyaclnn.call("AminmaxAll", x, mn, mx)
    compare(mn, from_torch(torch.min(t)), dt)
    compare(mx, e, dt)


def test_nan_and_empty(torch):
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
    o = np.zeros(2, np.float32)
    pyaclnn.call("Amax", x, [1], False, o)
    np.testing.assert_array_equal(np.isnan(o), [True, False])
    o = np.zeros(2, np.float32)
    pyaclnn.call("ReduceNansum", x, [1], False, 0, o)
    np.testing.assert_allclose(o, [4.0, 15.0])
    e = np.zeros((0, 3), np.float32)
    o = np.ones(3, np.float32)
    pyaclnn.call("ReduceSum", e, [0], False, 0, o)
    np.testing.assert_array_equal(o, 0)


def test_deterministic_for_threads():
    same_bytes_for_threads(r"""
import hashlib, numpy as np, pyaclnn
x = np.random.default_rng(1).standard_normal((3, 200001)).astype(np.float32)
h = hashlib.sha256()
for dims in ([1], [0, 1], [0]):
    shape = [d for k, d in enumerate(x.shape) if k not in dims]
    o = np.zeros(shape, np.float32)
    pyaclnn.call("ReduceSum", x, dims, False, 0, o); h.update(o.tobytes())
    pyaclnn.call("Std", x, dims, 1, False, o); h.update(o.tobytes())
print(h.hexdigest())
""")


def test_invalid_rows():
    x = AclTensor.from_array(np.zeros((2, 3), np.float32))
    o = AclTensor.empty((2,), np.float32)
    ia = pyaclnn.int_array
    expect_status("ReduceSum", [None, ia([1]), False, 0, o], 161001, "self")
    expect_status("ReduceSum", [x, None, False, 0, o], 161001, "dims")
    expect_status("ReduceSum", [x, ia([2]), False, 0, o], 161002, "dim")
    expect_status("ReduceSum", [x, ia([1, 1]), False, 0, o], 161002, "twice")
    expect_status("ReduceSum", [x, ia([0]), False, 0, o], 161002, "out")
    expect_status("Mean", [AclTensor.from_array(np.zeros((2, 3), np.int32)), ia([1]), False, 0, o], 161002, "self")
    expect_status("MaxDim", [x, 1, False, o, None], 161001, "indices")
    expect_status("Max", [AclTensor.from_array(np.zeros((0, 3), np.float32)), AclTensor.empty((), np.float32)],
                  161002, "empty")
