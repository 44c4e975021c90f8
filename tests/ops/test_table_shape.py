"""The shape, copy and creation ops of tools/optable/math_shape.py against PyTorch CPU (several dtypes, strided
inputs and outputs), plus their invalid rows (exact codes, messages naming the argument)."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor, lib
from table_harness import NP, compare, expect_status, from_torch, rand, to_torch

DTS = ["f32", "f16", "bf16", "i32", "i64", "bool"]


def strided(a):
    big = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
    big[..., ::2] = a
    return big[..., ::2]


def run(op, *args):
    pyaclnn.call(op, *args)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("dt", DTS)
def test_views(torch, rng, dt):
    x = strided(rand(rng, (2, 3, 4), dt))
    t = to_torch(torch, x)
    cases = [
        ("Permute", [x, [2, 0, 1]], t.permute(2, 0, 1)),
        ("Expand", [x[:, :1, :], [2, 5, 4]], t[:, :1, :].expand(2, 5, 4)),
        ("Expand", [x[0], [3, 3, 4]], t[0].expand(3, 3, 4)),
        ("Repeat", [x, [2, 1, 3]], t.repeat(2, 1, 3)),
        ("Repeat", [x[0], [2, 2, 1]], t[0].repeat(2, 2, 1)),
        ("Flatten", [x, 1], t.flatten(1).reshape(2, 12)),
        ("Flatten", [x, 0], t.reshape(1, 24)),
        ("Slice", [x, 2, 1, 4, 2], t[:, :, 1:4:2]),
        ("Slice", [x, -2, -5, 100, 1], t[:, -5 + 3 if False else 0:, :]),
        ("SliceV2", [x, [1, 0], [3, 2], [1, 2], [1, 1]], t[:, 1:3, 0:2]),
        ("Roll", [x, [1, -1], [1, 2]], torch.roll(t, (1, -1), (1, 2))),
        ("Roll", [x[0, 0], [3], []], torch.roll(t[0, 0], 3)),
        ("Tril", [x, 0], torch.tril(t, 0)),
        ("Tril", [x, -1], torch.tril(t, -1)),
        ("Triu", [x, 1], torch.triu(t, 1)),
        ("Diag", [x[0], 1], torch.diag(t[0], 1)),
        ("Diag", [x[0, 0], -1], torch.diag(t[0, 0], -1)),
        ("DiagFlat", [x[0], 0], torch.diagflat(t[0], 0)),
        ("ChannelShuffle", [x[None].repeat(2, axis=0).reshape(4, 3, 4)[:, :, None, :].repeat(2, axis=2)
                            .reshape(4, 6, 4)[None].reshape(2, 2, 6, 4).transpose(1, 2, 0, 3).copy(), 3], None),
    ]
    for op, args, exp in cases:
        if exp is None:
            xin = args[0]
            exp = torch.nn.functional.channel_shuffle(to_torch(torch, xin), args[1])
        e = from_torch(exp)
        out = np.zeros(e.shape, e.dtype)
        run(op, *args, out)
        compare(out, e, dt)


@pytest.mark.parametrize("dt", DTS)
def test_inplace_tri_and_pad(torch, rng, dt):
    x = rand(rng, (3, 4), dt)
    for op, d, f in (("InplaceTril", 1, torch.tril), ("InplaceTriu", -1, torch.triu)):
        y = x.copy()
        run(op, y, d)
        compare(y, from_torch(f(to_torch(torch, x), d)), dt)
    e = from_torch(torch.nn.functional.pad(to_torch(torch, x), (1, 2, -1, 1), value=1))
    out = np.zeros(e.shape, e.dtype)
    run("ConstantPadNd", x, [1, 2, -1, 1], True if dt == "bool" else 1, out)
    compare(out, e, dt)


@pytest.mark.parametrize("src,dst", [("f32", "f16"), ("f32", "i32"), ("f16", "bf16"), ("i64", "f32"), ("f32", "bool"),
                                     ("bool", "f32"), ("f64", "c64"), ("i32", "u8"), ("bf16", "f64")])
def test_cast_and_copy(torch, rng, src, dst):
    x = strided(rand(rng, (3, 5), src) * (1 if src == "bool" else 1))
    e = from_torch(to_torch(torch, x).to(getattr(torch, {"f32": "float32", "f16": "float16", "bf16": "bfloat16",
                                                         "i32": "int32", "i64": "int64", "bool": "bool",
                                                         "f64": "float64", "c64": "complex64", "u8": "uint8"}[dst])))
    out = np.zeros(e.shape, NP[dst])
    run("Cast", x, getattr(lib, {"f32": "ACL_FLOAT", "f16": "ACL_FLOAT16", "bf16": "ACL_BF16",
                                         "i32": "ACL_INT32", "i64": "ACL_INT64", "bool": "ACL_BOOL", "f64": "ACL_DOUBLE",
                                         "c64": "ACL_COMPLEX64", "u8": "ACL_UINT8"}[dst]), out)
    compare(out, e, dst)
    y = np.zeros((2, 3, 5), NP[dst])
    run("InplaceCopy", y, x)
    compare(y, np.broadcast_to(e, (2, 3, 5)), dst)


@pytest.mark.parametrize("dt", DTS)
def test_lists(torch, rng, dt):
    a, b = rand(rng, (2, 3), dt), strided(rand(rng, (2, 5), dt))
    e = from_torch(torch.cat([to_torch(torch, a), to_torch(torch, b)], 1))
    out = np.zeros(e.shape, e.dtype)
    run("Cat", [a, b], -1, out)
    compare(out, e, dt)
    c = rand(rng, (2, 3), dt)
    e = from_torch(torch.stack([to_torch(torch, a), to_torch(torch, c)], 1))
    out = np.zeros(e.shape, e.dtype)
    run("Stack", [a, c], 1, out)
    compare(out, e, dt)
    x = rand(rng, (7, 2), dt)
    parts = [np.zeros((3, 2), x.dtype), np.zeros((3, 2), x.dtype), np.zeros((1, 2), x.dtype)]
    run("SplitTensor", x, 3, 0, parts)
    for p, q in zip(parts, torch.split(to_torch(torch, x), 3, 0)):
        compare(p, from_torch(q), dt)
    parts = [np.zeros((2, 2), x.dtype), np.zeros((5, 2), x.dtype)]
    run("SplitWithSize", x, [2, 5], 0, parts)
    for p, q in zip(parts, torch.split(to_torch(torch, x), [2, 5], 0)):
        compare(p, from_torch(q), dt)


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64", "i32", "i64"])
def test_creation(torch, dt):
    tdt = getattr(torch, {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i32": "int32",
                          "i64": "int64"}[dt])
    for op, args, exp in (("Arange", [1, 10, 3], torch.arange(1, 10, 3, dtype=tdt)),
                          ("Arange", [5.0, -1.0, -1.5], torch.arange(5.0, -1.0, -1.5).to(tdt)),
                          ("Range", [1, 10, 3], torch.arange(1, 11, 3, dtype=tdt)),
                          ("Linspace", [-1.0, 2.0, 7], torch.linspace(-1.0, 2.0, 7).to(tdt))):
        e = from_torch(exp)
        out = np.zeros(e.shape, e.dtype)
        run(op, *args, out)
        compare(out, e, dt)
    out = np.ones((3, 5), NP[dt])
    run("Eye", 3, 5, out)
    compare(out, from_torch(torch.eye(3, 5, dtype=tdt)), dt)


def test_invalid_rows():
    x = AclTensor.from_array(np.zeros((2, 3), np.float32))
    o = AclTensor.empty((3, 2), np.float32)
    bad = AclTensor.empty((2, 2), np.float32)
    ia = pyaclnn.int_array
    expect_status("Permute", [None, ia([1, 0]), o], 161001, "self")
    expect_status("Permute", [x, None, o], 161001, "dims")
    expect_status("Permute", [x, ia([1, 1]), o], 161002, "dims")
    expect_status("Permute", [x, ia([1, 0]), bad], 161002, "out")
    expect_status("Expand", [x, ia([4, 3]), AclTensor.empty((4, 3), np.float32)], 161002, "expanded")
    expect_status("Slice", [x, 5, 0, 1, 1, o], 161002, "dim")
    expect_status("Slice", [x, 1, 0, 1, 0, o], 161002, "step")
    expect_status("Cast", [x, lib.ACL_FLOAT16, AclTensor.empty((2, 3), np.float32)], 161002, "dtype")
    expect_status("Tril", [AclTensor.from_array(np.zeros(3, np.float32)), 0, AclTensor.empty((3,), np.float32)],
                  161002, "self")
    expect_status("Arange", [None, None, None, o], 161001, "start")
    expect_status("Eye", [3, 2, bad], 161002, "out")
