"""Reflection / replication / circular padding and their backward passes (tools/optable/math_pad.py) against
PyTorch CPU (autograd for the backward), strided inputs, batched and unbatched, thread determinism; invalid rows."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads
from table_harness import compare, expect_status, from_torch, rand, to_torch

MODES = {"Reflection": "reflect", "Replication": "replicate", "Circular": "circular"}
CASES = [("Reflection", 1, (2, 3, 7), [2, 3]), ("Reflection", 2, (2, 3, 5, 6), [1, 2, 3, 1]),
         ("Reflection", 3, (1, 2, 4, 5, 6), [1, 1, 2, 0, 3, 2]), ("Replication", 1, (3, 5), [4, 1]),
         ("Replication", 2, (2, 2, 3, 4), [3, 0, 1, 5]), ("Replication", 3, (2, 3, 3, 4), [1, 2, 0, 1, 2, 2]),
         ("Circular", 2, (2, 3, 4, 5), [2, 1, 3, 2]), ("Circular", 3, (1, 2, 3, 4, 5), [1, 2, 2, 1, 3, 0])]


@pytest.mark.parametrize("kind,k,shape,pad", CASES, ids=[f"{c[0]}{c[1]}d" for c in CASES])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64"])
def test_forward_and_backward(torch, kind, k, shape, pad, dt):
    rng = np.random.default_rng(11)
    x = rand(rng, shape, dt)
    big = np.zeros(shape[:-1] + (shape[-1] * 2,), x.dtype)
    big[..., ::2] = x
    xs = big[..., ::2]
    t = to_torch(torch, x).double().requires_grad_()
    y = torch.nn.functional.pad(t if len(shape) > k + 1 or kind != "Circular" else t[None], pad, MODES[kind])
    if kind == "Circular" and len(shape) == k + 1:
        y = y[0]
    e = y.detach().to(to_torch(torch, x).dtype)
    out = np.zeros(tuple(e.shape), x.dtype)
    pyaclnn.call(f"{kind}Pad{k}d", xs, pad, out)
    compare(out, from_torch(e), dt)
    g = rand(rng, tuple(e.shape), dt)
    y.backward(to_torch(torch, g).double())
    gi = np.zeros(shape, x.dtype)
    pyaclnn.call(f"{kind}Pad{k}dBackward", g, x, pad, gi)
    exp = t.grad.to(to_torch(torch, x).dtype)
    if dt in ("f16", "bf16"):
        np.testing.assert_allclose(gi.astype(np.float64), exp.double().numpy(), rtol=1e-2, atol=2e-2)
    else:
        compare(gi, from_torch(exp), dt)


def test_backward_same_bytes_for_threads():
    same_bytes_for_threads(r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(2)
g = rng.standard_normal((4, 16, 70, 90)).astype(np.float32)
gi = np.zeros((4, 16, 64, 64), np.float32)
pyaclnn.call("ReflectionPad2dBackward", g, gi, [10, 16, 3, 3], gi)
print(hashlib.sha256(gi.tobytes()).hexdigest())
""")


def test_invalid_rows():
    x = AclTensor.from_array(np.zeros((2, 3, 4), np.float32))
    o = AclTensor.empty((2, 3, 8), np.float32)
    ia = pyaclnn.int_array
    expect_status("ReflectionPad1d", [None, ia([2, 2]), o], 161001, "self")
    expect_status("ReflectionPad1d", [x, None, o], 161001, "padding")
    expect_status("ReflectionPad1d", [x, ia([2, 2]), None], 161001, "out")
    expect_status("ReflectionPad1d", [x, ia([4, 0]), o], 161002, "padding")
    expect_status("ReflectionPad1d", [x, ia([2, 2, 1]), o], 161002, "padding")
    expect_status("ReflectionPad1d", [x, ia([1, 2]), o], 161002, "out")
    expect_status("ReflectionPad2d", [AclTensor.from_array(np.zeros(4, np.float32)), ia([1, 1, 1, 1]), o], 161002,
                  "self")
    expect_status("ReplicationPad1dBackward", [o, x, ia([2, 2]), AclTensor.empty((2, 3, 5), np.float32)], 161002,
                  "gradInput")
