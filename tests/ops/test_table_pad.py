"""Reflection / replication / circular padding and their backward passes (tools/optable/math_pad.py) against
PyTorch CPU: every dtype of each op's A2 list, strided inputs and outputs, batched and unbatched, negative (cropping)
paddings; the backward against autograd in float64 (complex: the real and imaginary parts separately, the op is
linear with real coefficients); the empty-tensor rules and the invalid rows in the upstream order; thread
determinism of the backward."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads
from table_harness import NP, compare, expect_status, from_torch, rand, to_torch

MODES = {"Reflection": "reflect", "Replication": "replicate", "Circular": "circular"}
# (kind, k, batched shape, padding)
CASES = {("Reflection", 1): ((2, 3, 7), [2, 3]), ("Reflection", 2): ((2, 3, 5, 6), [1, 2, 3, 1]),
         ("Reflection", 3): ((1, 2, 4, 5, 6), [1, 1, 2, 0, 3, 2]), ("Replication", 1): ((3, 5), [4, 1]),
         ("Replication", 2): ((2, 2, 3, 4), [3, 0, 1, 5]), ("Replication", 3): ((2, 3, 3, 4, 2), [1, 2, 0, 1, 2, 2]),
         ("Circular", 2): ((2, 3, 4, 5), [2, 1, 3, 2]), ("Circular", 3): ((1, 2, 4, 4, 5), [1, 2, 2, 1, 3, 0])}
FWD = [(kind, k, dt) for (kind, k) in CASES for dt in OPS[f"{kind}Pad{k}d"]["dtypes"]]
BWD = [(kind, k, dt) for (kind, k) in CASES for dt in OPS[f"{kind}Pad{k}dBackward"]["dtypes"]]


def torch_pad(torch, t, pad, kind, k):
    """F.pad of a tensor with k + 1 or k + 2 dims (circular wants the batch dim)."""
    unbatched = t.dim() == k + 1
    y = torch.nn.functional.pad(t[None] if unbatched else t, pad, MODES[kind])
    return y[0] if unbatched else y


def strided(x):
    """x as a view with a non-unit last stride and an offset into a larger buffer."""
    big = np.zeros(x.shape[:-1] + (x.shape[-1] * 2 + 1,), x.dtype)
    v = big[..., 1::2]
    v[...] = x
    return v


def expected_forward(torch, x, pad, kind, k):
    if x.dtype == np.bool_:  # PyTorch CPU has no bool padding kernels: the same gather on uint8
        t = torch.from_numpy(x.astype(np.uint8))
        return torch_pad(torch, t, pad, kind, k).numpy().astype(np.bool_)
    return from_torch(torch_pad(torch, to_torch(torch, x), pad, kind, k))


def expected_backward(torch, g, shape, pad, kind, k):
    """d(sum(F.pad(x) * g))/dx by autograd in float64."""
    def grad(gr):
        t = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
        y = torch_pad(torch, t, pad, kind, k)
        (gx,) = torch.autograd.grad(y, t, torch.from_numpy(np.ascontiguousarray(gr, np.float64)))
        return gx.numpy()
    if np.iscomplexobj(g):
        return (grad(g.real) + 1j * grad(g.imag)).astype(g.dtype)
    return grad(g.astype(np.float64))


@pytest.mark.parametrize("kind,k,dt", FWD, ids=[f"{a}{b}d-{c}" for a, b, c in FWD])
def test_forward_dtypes(torch, kind, k, dt):
    shape, pad = CASES[(kind, k)]
    x = rand(np.random.default_rng(11), shape, dt)
    e = expected_forward(torch, x, pad, kind, k)
    out = strided(np.zeros(e.shape, x.dtype))
    pyaclnn.call(f"{kind}Pad{k}d", strided(x), pad, out)
    compare(out, e, dt)


@pytest.mark.parametrize("kind,k,dt", BWD, ids=[f"{a}{b}d-{c}" for a, b, c in BWD])
def test_backward_dtypes(torch, kind, k, dt):
    shape, pad = CASES[(kind, k)]
    rng = np.random.default_rng(12)
    x = rand(rng, shape, dt)
    oshape = tuple(expected_forward(torch, x.astype(np.complex128 if np.iscomplexobj(x) else np.float64), pad,
                                    kind, k).shape)
    g = rand(rng, oshape, dt)
    e = expected_backward(torch, g.astype(np.complex128 if np.iscomplexobj(g) else np.float64), shape, pad, kind, k)
    gi = strided(np.zeros(shape, x.dtype))
    pyaclnn.call(f"{kind}Pad{k}dBackward", strided(g), x, pad, gi)
    # one rounding of the float64 sum: for f16/bf16 the same bytes as rounding autograd's float64 result
    compare(gi, e.astype(x.dtype), dt)


@pytest.mark.parametrize("kind,k", list(CASES), ids=[f"{a}{b}d" for a, b in CASES])
def test_unbatched(torch, kind, k):
    shape, pad = CASES[(kind, k)]
    shape = shape[-(k + 1):]
    check_fwd_bwd(torch, kind, k, shape, pad, np.random.default_rng(3))


def check_fwd_bwd(torch, kind, k, shape, pad, rng, backward=True):
    dt = "f64" if "f64" in OPS[f"{kind}Pad{k}d"]["dtypes"] else "f32"  # circular: no f64
    x = rand(rng, shape, dt)
    e = expected_forward(torch, x, pad, kind, k)
    out = np.zeros(e.shape, x.dtype)
    pyaclnn.call(f"{kind}Pad{k}d", x, pad, out)
    compare(out, e, dt)
    if not backward:
        return
    g = rand(rng, e.shape, dt)
    gi = np.zeros(shape, x.dtype)
    pyaclnn.call(f"{kind}Pad{k}dBackward", g, x, pad, gi)
    compare(gi, expected_backward(torch, g, shape, pad, kind, k).astype(x.dtype), dt)


# negative paddings crop (PyTorch's semantics); reflection paddings stay below the dim size
NEG = [("Reflection", 1, (2, 3, 7), [-2, 3]), ("Reflection", 2, (1, 4, 6), [-3, 2, 1, -2]),
       ("Replication", 1, (2, 6), [3, -4]), ("Replication", 3, (1, 3, 4, 5), [-1, 2, -2, 0, 1, -1]),
       ("Circular", 2, (1, 2, 4, 5), [-2, 3, 1, -1]), ("Circular", 3, (1, 1, 3, 4, 5), [2, -1, -1, 0, 1, 1])]


@pytest.mark.parametrize("kind,k,shape,pad", NEG, ids=[f"{c[0]}{c[1]}d" for c in NEG])
def test_negative_padding(torch, kind, k, shape, pad):
    check_fwd_bwd(torch, kind, k, shape, pad, np.random.default_rng(5))


def test_circular_wraps_more_than_once():
    """The circular op_api does not bound the padding; the index wraps modulo the dim (np.pad's 'wrap')."""
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    out = np.zeros((1, 2 + 3 + 2, 3 + 4 + 5), np.float32)
    pyaclnn.call("CircularPad2d", x, [4, 5, 3, 2], out)
    np.testing.assert_array_equal(out, np.pad(x, ((0, 0), (3, 2), (4, 5)), mode="wrap"))


def test_circular_crop_all_refused():
    """A negative circular padding that leaves nothing to wrap (the op_api lets it through; no defined result)."""
    expect_status("CircularPad2d", [T((1, 3, 4)), ia([-4, 2, 0, 0]), T((1, 3, 2))], 161002, "padding")
    expect_status("CircularPad2d", [T((1, 1, 3, 4)), ia([-4, 0, 0, 0]), T((1, 1, 3, 0))], 0)


def T(shape, dt=np.float32, fmt=None):
    return AclTensor.empty(shape, dt, fmt=fmt)


ia = pyaclnn.int_array


# the empty-tensor rules: a 0 batch of the (k+2)-d form succeeds (out untouched); any other empty self is refused
@pytest.mark.parametrize("kind,k", list(CASES), ids=[f"{a}{b}d" for a, b in CASES])
def test_empty(kind, k):
    pad = [1] * (2 * k)
    inner = (3,) * k
    big = (5,) * k
    expect_status(f"{kind}Pad{k}d", [T((0, 2) + inner), ia(pad), T((0, 2) + big)], 0)
    expect_status(f"{kind}Pad{k}d", [T((2, 0) + inner), ia(pad), T((2, 0) + big)], 161002, "self")
    expect_status(f"{kind}Pad{k}d", [T((0,) + inner), ia(pad), T((0,) + big)], 161002, "self")
    bw = f"{kind}Pad{k}dBackward"
    expect_status(bw, [T((0, 2) + big), T((0, 2) + inner), ia(pad), T((0, 2) + inner)], 0)
    expect_status(bw, [T((2, 0) + big), T((2, 0) + inner), ia(pad), T((2, 0) + inner)], 161002, "self")
    # a 0 leading dim of the (k+1)-d form: only the reflection/circular 1d/2d backward accept it
    ok = (kind == "Reflection" and k in (1, 2)) or (kind == "Circular" and k == 2)
    expect_status(bw, [T((0,) + big), T((0,) + inner), ia(pad), T((0,) + inner)], 0 if ok else 161002,
                  None if ok else "self")


def test_empty_leaves_out_untouched():
    out = np.full((0, 2, 5), 7.0, np.float32)
    pyaclnn.call("ReflectionPad1d", np.zeros((0, 2, 3), np.float32), [1, 1], out)
    x = np.ones((1, 2, 3), np.float32)
    out = np.full((1, 2, 0), 7.0, np.float32)  # cropped to nothing: non-empty self, empty out
    pyaclnn.call("ReplicationPad1d", x, [-2, -1], out)


def test_invalid_forward_rows():
    """Each family in its own order: NULLs; dtype of self, of out, self/out match; formats; rank; padding length;
    (reflection: padding < dim before the out shape); out shape."""
    x, o = T((2, 3, 4)), T((2, 3, 8))
    for op in ("ReflectionPad1d", "ReplicationPad1d"):
        expect_status(op, [None, ia([2, 2]), o], 161001, "self")
        expect_status(op, [x, None, o], 161001, "padding")
        expect_status(op, [x, ia([2, 2]), None], 161001, "out")
        expect_status(op, [T((2, 3, 4), np.uint16), ia([2, 2]), o], 161002, "self")
        expect_status(op, [x, ia([2, 2]), T((2, 3, 8), np.uint16)], 161002, "out")
        expect_status(op, [x, ia([2, 2]), T((2, 3, 8), np.float16)], 161002, "out")
        expect_status(op, [T((2, 3, 4), fmt=lib.ACL_FORMAT_NCL), ia([2, 2]), o], 161002, "ormat")
        expect_status(op, [T((4,)), ia([2, 2]), T((8,))], 161002, "self")
        expect_status(op, [T((1, 2, 3, 4)), ia([2, 2]), T((1, 2, 3, 8))], 161002, "self")
        expect_status(op, [x, ia([2, 2]), T((6, 8))], 161002, "out")
        expect_status(op, [x, ia([2, 2, 1]), o], 161002, "padding")
        expect_status(op, [x, ia([1, 2]), o], 161002, "out")
        expect_status(op, [x, ia([2, 2]), T((1, 3, 8))], 161002, "out")
    # reflection: the range check comes before the out shape; replication has none
    expect_status("ReflectionPad1d", [x, ia([4, 0]), o], 161002, "padding")
    expect_status("ReplicationPad1d", [x, ia([4, 0]), o], 0)
    expect_status("ReflectionPad2d", [T((1, 3, 4)), ia([1, 1, 3, 3]), T((1, 9, 6))], 161002, "padding")
    # bool: reflection only
    expect_status("ReflectionPad1d", [T((2, 3, 4), np.bool_), ia([2, 2]), T((2, 3, 8), np.bool_)], 0)
    expect_status("ReplicationPad1d", [T((2, 3, 4), np.bool_), ia([2, 2]), T((2, 3, 8), np.bool_)], 161002, "self")
    # aclnnReplicationPad2d checks formats before dtypes
    expect_status("ReplicationPad2d", [T((1, 3, 4), np.uint16, lib.ACL_FORMAT_NCHW), ia([1, 1, 1, 1]),
                                       T((1, 5, 6), np.uint16)], 161002, "ormat")
    expect_status("ReplicationPad3d", [T((1, 3, 4, 2), np.uint16, lib.ACL_FORMAT_NCHW), ia([1] * 6),
                                       T((1, 5, 6, 4), np.uint16)], 161002, "self")
    # circular: its own list; a private self format
    expect_status("CircularPad2d", [T((1, 3, 4), np.float64), ia([1, 1, 1, 1]), T((1, 5, 6), np.float64)], 161002,
                  "self")
    expect_status("CircularPad2d", [T((1, 3, 4), np.int32), ia([1, 1, 1, 1]), T((1, 5, 6), np.int32)], 0)
    expect_status("CircularPad3d", [T((1, 2, 3, 4), fmt=lib.ACL_FORMAT_FRACTAL_NZ), ia([1] * 6),
                                    T((1, 4, 5, 6), fmt=lib.ACL_FORMAT_FRACTAL_NZ)], 161002, "self")
    expect_status("CircularPad3d", [T((1, 2, 3, 4)), ia([1] * 6), T((1, 4, 5, 7))], 161002, "out")


def test_invalid_backward_rows():
    g, x, gi = T((2, 3, 8)), T((2, 3, 4)), T((2, 3, 4))
    for op in ("ReflectionPad1dBackward", "ReplicationPad1dBackward"):
        expect_status(op, [None, x, ia([2, 2]), gi], 161001, "gradOutput")
        expect_status(op, [g, None, ia([2, 2]), gi], 161001, "self")
        expect_status(op, [g, x, None, gi], 161001, "padding")
        expect_status(op, [g, x, ia([2, 2]), None], 161001, "gradInput")
        expect_status(op, [T((2, 3, 8), np.int32), x, ia([2, 2]), gi], 161002, "gradOutput")
        expect_status(op, [g, T((2, 3, 4), np.int32), ia([2, 2]), gi], 161002, "self")
        expect_status(op, [g, x, ia([2, 2]), T((2, 3, 4), np.int32)], 161002, "gradInput")
        expect_status(op, [T((2, 3, 8), np.float16), x, ia([2, 2]), gi], 161002, "gradOutput")
        expect_status(op, [g, x, ia([2, 2]), T((2, 3, 4), np.float64)], 161002, "gradInput")
        expect_status(op, [T((2, 3, 8), fmt=lib.ACL_FORMAT_FRACTAL_NZ), x, ia([2, 2]), gi], 161002, "gradOutput")
        expect_status(op, [g, x, ia([2, 2]), T((2, 3, 4), fmt=lib.ACL_FORMAT_NCL)], 161002, "ormat")
        expect_status(op, [g, x, ia([2, 2]), T((2, 3, 5))], 161002, "gradInput")
        expect_status(op, [T((8,)), T((4,)), ia([2, 2]), T((4,))], 161002, "self")
        expect_status(op, [T((1, 2, 3, 8)), T((1, 2, 3, 4)), ia([2, 2]), T((1, 2, 3, 4))], 161002, "self")
        expect_status(op, [T((6, 8)), x, ia([2, 2]), gi], 161002, "rank")
        expect_status(op, [g, x, ia([2]), gi], 161002, "padding")
        expect_status(op, [g, x, ia([2, 1]), gi], 161002, "gradOutput")
        expect_status(op, [T((1, 3, 8)), x, ia([2, 2]), gi], 161002, "gradOutput")
    # 1d: the gradOutput shape comes before the reflection range
    expect_status("ReflectionPad1dBackward", [T((2, 3, 12)), x, ia([4, 4]), gi], 161002, "padding")
    expect_status("ReflectionPad1dBackward", [T((2, 3, 11)), x, ia([4, 4]), gi], 161002, "gradOutput")
    expect_status("ReplicationPad1dBackward", [T((2, 3, 12)), x, ia([4, 4]), gi], 0)
    # 2d: the reflection range, then the bf16 padding rule, then the gradOutput shape
    bf = pyaclnn.bfloat16
    x2 = T((1, 9, 9), bf)
    expect_status("ReflectionPad2dBackward", [T((1, 20, 20)), T((1, 9, 9)), ia([9, 2, 1, 1]), T((1, 9, 9))], 161002,
                  "padding")
    expect_status("ReplicationPad2dBackward", [T((1, 11, 19), bf), x2, ia([8, 2, 1, 1]), T((1, 9, 9), bf)], 161002,
                  "bf16")
    expect_status("ReplicationPad2dBackward", [T((1, 9, 19), bf), x2, ia([8, 2, 0, 0]), T((1, 9, 9), bf)], 0)
    expect_status("ReplicationPad2dBackward", [T((1, 9, 6), bf), x2, ia([-1, -2, 0, 0]), T((1, 9, 9), bf)], 161002,
                  "bf16")
    expect_status("ReplicationPad2dBackward", [T((1, 9, 6), bf), x2, ia([-1, -2, 0, 1]), T((1, 9, 9), bf)], 161002,
                  "bf16")
    expect_status("ReplicationPad2dBackward", [T((1, 9, 6)), T((1, 9, 9)), ia([-1, -2, 0, 0]), T((1, 9, 9))], 0)
    expect_status("ReplicationPad2dBackward", [T((1, 11, 12), bf), x2, ia([1, 2, 1, 1]), T((1, 9, 9), bf)], 0)
    expect_status("ReplicationPad2dBackward", [T((1, 11, 13), bf), x2, ia([1, 2, 1, 1]), T((1, 9, 9), bf)], 161002,
                  "gradOutput")
    # 3d: the reflection range before the gradOutput shape
    x3 = T((1, 2, 3, 4))
    expect_status("ReflectionPad3dBackward", [T((1, 2, 3, 9)), x3, ia([4, 1, 0, 0, 0, 0]), x3], 161002, "padding")
    expect_status("ReplicationPad3dBackward", [T((1, 2, 3, 9)), x3, ia([4, 1, 0, 0, 0, 0]), x3], 0)
    # circular backward: own list (no f64); only gradOutput's private format is refused
    expect_status("CircularPad2dBackward", [T((1, 5, 6), np.float64), T((1, 3, 4), np.float64), ia([1] * 4),
                                            T((1, 3, 4), np.float64)], 161002, "gradOutput")
    expect_status("CircularPad2dBackward", [T((1, 5, 6), fmt=lib.ACL_FORMAT_FRACTAL_NZ), T((1, 3, 4)), ia([1] * 4),
                                            T((1, 3, 4))], 161002, "gradOutput")
    expect_status("CircularPad2dBackward", [T((1, 9, 10)), T((1, 3, 4)), ia([3, 3, 3, 3]), T((1, 3, 4))], 0)
    # aclnnCircularPad3dBackward: NULL is an inner null pointer (561103); paddings must be < the dims
    x3 = T((1, 2, 3, 4))
    for i, name in enumerate(("gradOutput", "self", "padding", "gradInput")):
        args = [T((1, 4, 5, 6)), x3, ia([1] * 6), x3]
        args[i] = None
        expect_status("CircularPad3dBackward", args, 561103, name)
    expect_status("CircularPad3dBackward", [T((1, 4, 5, 12)), x3, ia([4, 4, 1, 1, 1, 1]), x3], 161002, "padding")
    expect_status("CircularPad3dBackward", [T((1, 4, 5, 6)), x3, ia([1] * 6), x3], 0)


def test_backward_same_bytes_for_threads():
    same_bytes_for_threads(r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(2)
g = rng.standard_normal((4, 16, 70, 90)).astype(np.float32)
x = np.zeros((4, 16, 64, 64), np.float32)
for op, pad in (("ReflectionPad2dBackward", [10, 16, 3, 3]), ("ReplicationPad2dBackward", [10, 16, 3, 3]),
                ("CircularPad2dBackward", [10, 16, 3, 3])):
    gi = np.zeros((4, 16, 64, 64), np.float32)
    pyaclnn.call(op, g, x, pad, gi)
    print(hashlib.sha256(gi.tobytes()).hexdigest())
""")
