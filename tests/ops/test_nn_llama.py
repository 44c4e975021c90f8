"""The ops-transformer operators llama.cpp's CANN backend calls (tools/optable/nn_llama.py):
aclnnRotaryPositionEmbedding against PyTorch CPU for every dtype of its A2 list, both A2 modes (half, interleave),
the cos/sin layouts of the tiling (1S1D, BS1D, 11SD, BSND, ...), strided inputs and outputs, empty x; the invalid
rows in the generated first phase's order then the tiling's; the same bytes for any thread count."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads, strided
from table_harness import NP, compare, expect_status, from_torch, to_torch

_KEEP = []


def tens(shape, dt="f32"):
    t = AclTensor.from_array(np.zeros(shape, NP[dt]))
    _KEEP.append(t)
    return t


def tdt(torch, dt):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]


def mk(rng, shape, dt, lo=-2, hi=2):
    return np.array(rng.uniform(lo, hi, shape).astype(np.float32).astype(NP[dt]))


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


def rope_torch(torch, x, c, s, mode):
    """The documented formula, in float32 (one rounding at the end, as the op computes)."""
    x, c, s = x.float(), c.float(), s.float()
    if mode == 0:
        x1, x2 = x.chunk(2, -1)
        rot = torch.cat((-x2, x1), -1)
    else:
        x1, x2 = x[..., ::2], x[..., 1::2]
        rot = torch.stack((-x2, x1), -1).reshape(x.shape)
    return x * c + rot * s


# (x shape, cos shape): BSND with 1S1D (llama.cpp), BS1D, BSND, 11SD (BNSD), S11D (SBND), 111D
HALF_CASES = [((2, 5, 3, 8), (1, 5, 1, 8)), ((2, 5, 3, 8), (2, 5, 1, 8)), ((2, 5, 3, 8), (2, 5, 3, 8)),
              ((2, 3, 5, 16), (1, 1, 5, 16)), ((5, 2, 3, 8), (5, 1, 1, 8)), ((1, 4, 2, 6), (1, 1, 1, 6)),
              ((2, 3, 5, 4), (2, 1, 5, 4))]
INTERLEAVE_CASES = [((2, 5, 3, 8), (1, 5, 1, 8)), ((2, 3, 5, 16), (1, 1, 5, 16)), ((5, 2, 3, 8), (5, 1, 1, 8)),
                    ((1, 7, 2, 128), (1, 7, 1, 128))]


@pytest.mark.parametrize("dt", ["f16", "f32", "bf16"])
@pytest.mark.parametrize("mode", [0, 1])
def test_rotary_position_embedding(torch, dt, mode):
    assert dt in OPS["RotaryPositionEmbedding"]["dtypes"]
    rng = np.random.default_rng(3 + mode)
    for xs, cs in (HALF_CASES if mode == 0 else INTERLEAVE_CASES):
        x = strided(mk(rng, xs, dt))
        ang = rng.uniform(-3, 3, cs)
        c = strided(np.cos(ang).astype(np.float32).astype(NP[dt]))
        s = strided(np.sin(ang).astype(np.float32).astype(NP[dt]))
        o = strided(np.full(xs, 7, NP[dt]))
        pyaclnn.call("RotaryPositionEmbedding", x, c, s, mode, o)
        e = rope_torch(torch, T(torch, x), T(torch, c), T(torch, s), mode)
        compare(o, from_torch(e.to(tdt(torch, dt))), dt)


def test_rotary_position_embedding_llama_inplace_layout(torch):
    """llama.cpp's call: x a non-contiguous f32 view (BSND of a permuted buffer), out contiguous."""
    rng = np.random.default_rng(9)
    base = mk(rng, (3, 6, 4, 32), "f32")
    x = base.transpose(0, 2, 1, 3)  # (3, 4, 6, 32): strides of a permuted tensor
    ang = rng.uniform(-3, 3, (1, 4, 1, 32))
    c, s = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    for mode in (0, 1):
        o = np.zeros(x.shape, np.float32)
        pyaclnn.call("RotaryPositionEmbedding", x, c, s, mode, o)
        compare(o, rope_torch(torch, T(torch, x), T(torch, c), T(torch, s), mode).numpy(), "f32")


def test_rotary_position_embedding_empty():
    x = np.zeros((0, 3, 2, 8), np.float32)
    o = np.zeros_like(x)
    pyaclnn.call("RotaryPositionEmbedding", x, np.zeros((1, 1, 1, 3), np.float32),
                 np.zeros((1, 1, 1, 3), np.float32), 0, o)  # an empty x has no shape rules
    assert o.shape == (0, 3, 2, 8)


def test_invalid_rotary_position_embedding():
    x, c = tens((2, 3, 4, 8)), tens((1, 3, 1, 8))
    op = "RotaryPositionEmbedding"
    expect_status(op, [None, c, c, 0, x], 161001, "x")
    expect_status(op, [x, None, c, 0, x], 161001, "cos")
    expect_status(op, [x, c, None, 0, x], 161001, "sin")
    expect_status(op, [x, c, c, 0, None], 161001, "out")
    expect_status(op, [tens((2, 3, 4, 8), "f64"), tens((1, 3, 1, 8), "f64"), tens((1, 3, 1, 8), "f64"), 0,
                       tens((2, 3, 4, 8), "f64")], 161002, "x")
    expect_status(op, [x, tens((1, 3, 1, 8), "f16"), c, 0, x], 161002, "cos")
    expect_status(op, [x, c, tens((1, 3, 1, 8), "bf16"), 0, x], 161002, "sin")
    expect_status(op, [x, c, c, 0, tens((2, 3, 4, 8), "f16")], 161002, "out")
    expect_status(op, [tens((2, 3, 8)), tens((1, 3, 8)), tens((1, 3, 8)), 0, tens((2, 3, 8))], 561002, "x")
    expect_status(op, [x, tens((3, 8)), tens((3, 8)), 0, x], 561002, "cos")
    expect_status(op, [x, c, tens((3, 1, 8)), 0, x], 561002, "sin")
    expect_status(op, [tens((2, 3, 4, 7)), tens((1, 3, 1, 7)), tens((1, 3, 1, 7)), 0, tens((2, 3, 4, 7))],
                  561002, "even")
    expect_status(op, [x, c, c, 2, x], 561002, "mode")
    expect_status(op, [x, c, c, -1, x], 561002, "mode")
    big = (1, 2, 1, 898)
    expect_status(op, [tens(big), tens(big), tens(big), 0, tens(big)], 561002, "at most")
    expect_status(op, [tens(big), tens(big), tens(big), 1, tens(big)], 0)  # the D limit is the half tiling's
    expect_status(op, [x, c, tens((1, 3, 4, 8)), 0, x], 561002, "sin")
    expect_status(op, [x, tens((1, 3, 1, 4)), tens((1, 3, 1, 4)), 0, x], 561002, "cos")
    expect_status(op, [x, c, c, 0, tens((2, 3, 4, 4))], 561002, "out")
    expect_status(op, [x, tens((1, 2, 1, 8)), tens((1, 2, 1, 8)), 0, x], 561002, "cos")
    expect_status(op, [x, tens((2, 3, 1, 8)), tens((2, 3, 1, 8)), 1, x], 561002, "interleave")
    expect_status(op, [x, tens((2, 3, 1, 8)), tens((2, 3, 1, 8)), 0, x], 0)


def test_rotary_position_embedding_threads():
    code = """
import hashlib
import numpy as np
import pyaclnn
rng = np.random.default_rng(1)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    x = rng.uniform(-2, 2, (4, 64, 8, 64)).astype(np.float32).astype(dt)
    a = rng.uniform(-3, 3, (1, 64, 1, 64))
    c, s = np.cos(a).astype(np.float32).astype(dt), np.sin(a).astype(np.float32).astype(dt)
    for mode in (0, 1):
        o = np.zeros(x.shape, dt)
        pyaclnn.call("RotaryPositionEmbedding", x, c, s, mode, o)
        h.update(o.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
