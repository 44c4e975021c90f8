"""TransformBiasRescaleQkv and AddLora (first phases generated from their op definitions upstream: nnopbase's checks,
tiling failures 561002) and PrecisionCompare (tools/optable/math_more.py): values against PyTorch / numpy references,
strided views, empty tensors, invalid rows in the upstream order."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from table_harness import NP, compare, expect_status, from_torch, rand, to_torch

NZ = 29  # ACL_FORMAT_FRACTAL_NZ


def T(shape, dt, fmt=None):
    return AclTensor.empty(shape, NP[dt] if isinstance(dt, str) else dt, fmt)


def strided(a, axis=-1):
    shape = list(a.shape)
    shape[axis] = 2 * shape[axis] + 1
    big = np.zeros(shape, a.dtype)
    sl = [slice(None)] * a.ndim
    sl[axis] = slice(1, None, 2)
    v = big[tuple(sl)]
    v[...] = a
    return v


TDT = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}

# ------------------------------------------------------------------ TransformBiasRescaleQkv


@pytest.mark.parametrize("dt", list(OPS["TransformBiasRescaleQkv"]["dtypes"]))
@pytest.mark.parametrize("B,Tn,nh,dph", [(2, 3, 2, 4), (1, 5, 3, 16), (3, 1, 1, 7)])
def test_transform_bias_rescale_qkv_values(torch, dt, B, Tn, nh, dph):
    rng = np.random.default_rng(11)
    qkv, bias = rand(rng, (B, Tn, 3 * nh * dph), dt), rand(rng, (3 * nh * dph,), dt)
    ref = torch._transform_bias_rescale_qkv(to_torch(torch, qkv).double(), to_torch(torch, bias).double(), nh)
    ref = [from_torch(r.to(getattr(torch, TDT[dt]))) for r in ref]
    outs = [np.zeros(r.shape, r.dtype) for r in ref]
    pyaclnn.call("TransformBiasRescaleQkv", qkv, bias, nh, *outs)
    for o, e in zip(outs, ref):
        compare(o, e, dt)
    # strided qkv / bias / outputs
    outs = [strided(np.zeros(r.shape, r.dtype), 2) for r in ref]
    pyaclnn.call("TransformBiasRescaleQkv", strided(qkv, 1), strided(bias), nh, *outs)
    for o, e in zip(outs, ref):
        compare(np.ascontiguousarray(o), e, dt)


def test_transform_bias_rescale_qkv_nonfinite(torch):
    qkv = np.array([[[np.inf, -np.inf, np.nan, 1.0, 2.0, 3.0]]], np.float32)
    bias = np.zeros(6, np.float32)
    q, k, v = (np.zeros((1, 1, 1, 2), np.float32) for _ in range(3))
    pyaclnn.call("TransformBiasRescaleQkv", qkv, bias, 1, q, k, v)
    np.testing.assert_array_equal(q.ravel(), [np.inf, -np.inf])
    assert np.isnan(k.ravel()[0]) and k.ravel()[1] == 1.0


def test_transform_bias_rescale_qkv_empty():
    outs = [np.full((0, 2, 3, 4), 9, np.float32) for _ in range(3)]
    pyaclnn.call("TransformBiasRescaleQkv", np.zeros((0, 3, 24), np.float32), np.zeros(24, np.float32), 2, *outs)
    # all outputs empty: nothing is launched, the tiling never looks at numHeads
    e = T((0, 2, 3, 4), "f32")
    expect_status("TransformBiasRescaleQkv", [T((2, 3, 24), "f32"), T((24,), "f32"), 0, e, e, e], 0)


def test_transform_bias_rescale_qkv_invalid():
    x, b, o = T((2, 3, 24), "f32"), T((24,), "f32"), T((2, 2, 3, 4), "f32")
    args = [x, b, 2, o, o, o]

    def row(i, v, code, word):
        a = list(args)
        a[i] = v
        expect_status("TransformBiasRescaleQkv", a, code, word)

    for i, name in ((0, "qkv"), (1, "qkvBias"), (3, "qOut"), (4, "kOut"), (5, "vOut")):
        row(i, None, 161001, name)
    row(0, T((2, 3, 24), "f64"), 161002, "qkv")
    row(1, T((24,), "f16"), 161002, "qkvBias")
    row(4, T((2, 2, 3, 4), "bf16"), 161002, "kOut")
    row(1, T((24,), "f32", NZ), 161002, "qkvBias")
    row(0, T((2, 3, 24), "f32", lib.ACL_FORMAT_NCHW), 0, None)  # an ND-like format is handed on as ND
    row(2, 0, 561002, "numHeads")
    row(2, -2, 561002, "numHeads")
    row(2, 3, 561002, "numHeads")  # D = 8 is not divisible by 3
    expect_status("TransformBiasRescaleQkv", [T((2, 3, 25), "f32"), T((25,), "f32"), 1, T((2, 1, 3, 8), "f32"),
                                              T((2, 1, 3, 8), "f32"), T((2, 1, 3, 8), "f32")], 561002, "by 3")
    row(1, T((4, 6), "f32"), 561002, "qkvBias")
    row(1, T((12,), "f32"), 561002, "qkvBias")
    row(0, T((6, 24), "f32"), 161002, "qkv")  # ours: the tiling reads qkv as 3-D without checking
    row(5, T((2, 3, 2, 4), "f32"), 161002, "vOut")  # ours: the kernel writes (B, numHeads, T, dph) unchecked
    expect_status("TransformBiasRescaleQkv", args, 0)


# ------------------------------------------------------------------ AddLora


def add_lora_ref(torch, y, x, wb, idx, wa, layer, scale, yoff):
    """the A2 kernel's rounding points, in float64: Z1 = fp16(x . wA^T), Z2 = fp16(Z1 . wB^T), fp16(Z2 * fp16(scale)),
    accumulated into y in fp16; rows whose index is outside [0, W) are left alone"""
    h = lambda t: t.half().double()  # noqa: E731
    y = torch.from_numpy(y.astype(np.float64))
    x = torch.from_numpy(x.astype(np.float64))
    wb = torch.from_numpy(wb.astype(np.float64))
    wa = None if wa is None else torch.from_numpy(wa.astype(np.float64))
    sc = float(np.float16(np.float32(scale)))
    H2 = wb.shape[2]
    for b in range(y.shape[0]):
        w = int(idx[b])
        if w < 0 or w >= wb.shape[0]:
            continue
        z1 = h(wa[w, layer] @ x[b]) if wa is not None else x[b, :wb.shape[3]]
        z2 = h(wb[w, layer] @ z1)
        y[b, yoff:yoff + H2] = h(y[b, yoff:yoff + H2] + h(z2 * sc))
    return y.numpy().astype(np.float16)


@pytest.mark.parametrize("with_a", [True, False])
@pytest.mark.parametrize("B,H1,H2,H3,R,W,L", [(5, 32, 16, 48, 16, 3, 2), (2, 64, 32, 32, 32, 1, 1)])
def test_add_lora_values(torch, with_a, B, H1, H2, H3, R, W, L):
    rng = np.random.default_rng(12)
    f = lambda *s: rng.uniform(-1, 1, s).astype(np.float16)  # noqa: E731
    y, x, wb = f(B, H3), f(B, H1), f(W, L, H2, R)
    wa = f(W, L, R, H1) if with_a else None
    idx = rng.integers(-1, W + 1, B).astype(np.int32)
    idx[0] = 0
    layer, scale, yoff = L - 1, 0.37, H3 - H2
    e = add_lora_ref(torch, y, x, wb, idx, wa, layer, scale, yoff)
    out = np.full((B, H3), 7, np.float16)
    yy = y.copy()
    pyaclnn.call("AddLora", yy, x, wb, idx, wa, layer, scale, yoff, -1, out)
    np.testing.assert_array_equal(out, 7)  # the A2 kernel accumulates into y; out is never written
    np.testing.assert_allclose(yy.astype(np.float64), e.astype(np.float64), rtol=1e-3, atol=1e-3)
    assert (yy == e).mean() > 0.95
    # strided x and weights, the same bytes
    y2 = y.copy()
    pyaclnn.call("AddLora", y2, strided(x, 0), strided(wb, 2), strided(idx), None if wa is None else strided(wa, 1),
                 layer, scale, yoff, H2, out)
    np.testing.assert_array_equal(y2.view(np.uint16), yy.view(np.uint16))


def test_add_lora_non_contiguous_y():
    """a strided y reaches the kernel as a contiguous copy: the update never reaches the caller's y"""
    y = strided(np.ones((2, 16), np.float16), 0)
    before = y.copy()
    pyaclnn.call("AddLora", y, np.ones((2, 16), np.float16), np.ones((1, 1, 16, 16), np.float16),
                 np.zeros(2, np.int32), None, 0, 1.0, 0, -1, np.zeros((2, 16), np.float16))
    np.testing.assert_array_equal(y, before)


def test_add_lora_indices_outside():
    y = np.zeros((4, 16), np.float16)
    pyaclnn.call("AddLora", y, np.ones((4, 16), np.float16), np.ones((2, 1, 16, 16), np.float16),
                 np.array([-5, 2, 1, 1000], np.int32), None, 0, 0.5, 0, -1, np.zeros((4, 16), np.float16))
    np.testing.assert_array_equal(y[[0, 1, 3]], 0)
    np.testing.assert_array_equal(y[2], 8)  # sum of 16 ones, times 0.5


def test_add_lora_invalid():
    h = "f16"
    y, x, wb, idx, wa, out = T((2, 32), h), T((2, 16), h), T((2, 1, 16, 16), h), T((2,), "i32"), \
        T((2, 1, 16, 16), h), T((2, 32), h)
    args = [y, x, wb, idx, wa, 0, 1.0, 0, -1, out]

    def row(changes, code, word):
        a = list(args)
        for i, v in changes.items():
            a[i] = v
        expect_status("AddLora", a, code, word)

    for i, name in ((0, "y"), (1, "x"), (2, "weightB"), (3, "indices"), (9, "out")):
        row({i: None}, 161001, name)
    row({4: None}, 0, None)  # weightAOptional is optional
    row({0: T((2, 32), "f32")}, 161002, "y")
    row({1: T((2, 16), "bf16")}, 161002, "x")
    row({2: T((2, 1, 16, 16), "f32")}, 161002, "weightB")
    row({3: T((2,), "i64")}, 161002, "indices")
    row({4: T((2, 1, 16, 16), "f32")}, 161002, "weightAOptional")
    row({9: T((2, 32), "f32")}, 161002, "out")
    row({2: T((2, 1, 16, 16), h, NZ)}, 161002, "weightB")
    row({9: T((0, 32), h), 5: 99}, 0, None)  # out empty: nothing is launched, no tiling
    row({9: T((3, 5), h)}, 0, None)           # out's shape is never looked at
    tiling = [
        ({0: T((2, 32, 1), h)}, "y"), ({1: T((2, 16, 1), h)}, "x"), ({1: T((3, 16), h)}, "x"),
        ({2: T((2, 16, 16), h)}, "weightB"), ({2: T((2, 1, 48, 16), h), 4: T((2, 1, 16, 16), h)}, "weightB"),
        ({3: T((2, 1), "i32")}, "indices"), ({3: T((3,), "i32")}, "indices"),
        ({4: T((3, 1, 16, 16), h)}, "weightAOptional"), ({4: T((2, 1, 32, 16), h)}, "weightAOptional"),
        ({4: T((2, 1, 16, 32), h)}, "weightAOptional"), ({5: 1}, "layerIdx"), ({5: -1}, "layerIdx"),
        ({7: -1}, "yOffset"), ({7: 32}, "yOffset"), ({8: -2}, "ySliceSize"), ({8: 17}, "ySliceSize"),
        ({7: 17}, "yOffset + H2"),
        ({2: T((2, 1, 16, 144), h), 4: T((2, 1, 144, 16), h)}, "R"), ({2: T((2, 1, 16, 8), h), 4: None}, "R"),
        ({2: T((33, 1, 16, 16), h), 4: None}, "33"), ({2: T((2, 33, 16, 16), h), 4: None}, "33"),
        ({1: T((2, 8), h), 4: None}, "x dim 1"), ({2: T((2, 1, 8, 16), h), 4: None}, "weightB dim 2"),
        ({0: T((2, 40), h)}, "y dim 1"), ({2: T((2, 1, 16, 32), h), 4: None}, "rank"),
    ]
    for changes, word in tiling:
        row(changes, 561002, word)
    row({2: T((2, 1, 16, 144), h), 4: None, 1: T((2, 144), h)}, 0, None)  # the R <= 128 limit needs weightA
    expect_status("AddLora", args, 0)


# ------------------------------------------------------------------ PrecisionCompare


def status(golden, realdata):
    out = np.full((), 12345, np.uint32)
    pyaclnn.call("PrecisionCompare", golden, realdata, out)
    return int(out)


@pytest.mark.parametrize("dt", list(OPS["PrecisionCompare"]["dtypes"]))
def test_precision_compare_values(dt):
    rng = np.random.default_rng(13)
    g = rand(rng, (3, 4, 5), dt)
    assert status(g, g.copy()) == 0
    r = g.copy()
    r[2, 3, 4] += 1
    assert status(g, r) == 503
    assert status(strided(g, 1), g) == 0
    assert status(strided(g, 0), np.swapaxes(np.swapaxes(r, 0, 2).copy(), 0, 2)) == 503
    n = np.full((4,), np.nan, NP[dt])
    assert status(n, n.copy()) == 0  # identical bits, NaN included
    z = np.zeros(4, NP[dt])
    assert status(z, -z) == 503      # +0 and -0 differ


def test_precision_compare_empty():
    out = np.full((), 7, np.uint32)
    pyaclnn.call("PrecisionCompare", np.zeros((2, 0), np.float16), np.zeros((2, 0), np.float16), out)
    assert out == 7  # nothing launched


def test_precision_compare_invalid():
    g, r, o = T((2, 3), "f32"), T((2, 3), "f32"), T((), np.uint32)
    expect_status("PrecisionCompare", [None, r, o], 161001, "golden")
    expect_status("PrecisionCompare", [g, None, o], 161001, "realdata")
    expect_status("PrecisionCompare", [g, r, None], 161001, "out")
    expect_status("PrecisionCompare", [g, T((2, 3), "f16"), o], 161002, "realdata")
    expect_status("PrecisionCompare", [T((2, 3), np.uint32), T((2, 3), np.uint32), o], 161002, "golden")
    expect_status("PrecisionCompare", [g, r, T((), "u8")], 161002, "out")
    expect_status("PrecisionCompare", [T((2, 2), "f16"), T((1, 2), "f16"), o], 161002, "realdata")
    expect_status("PrecisionCompare", [T((2,) * 9, "f16"), T((2,) * 9, "f16"), o], 161002, "golden")
    expect_status("PrecisionCompare", [g, r, T((5, 2), np.uint32)], 161002, "out")
    expect_status("PrecisionCompare", [T((2, 0), "f16"), T((2, 0), "f16"), o], 0)
    expect_status("PrecisionCompare", [g, r, o], 0)


# ------------------------------------------------------------------ determinism (all math_more ops)

DET = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(2)
h = hashlib.sha256()
def run(op, *args, out):
    pyaclnn.call(op, *args)
    for o in out:
        h.update(np.ascontiguousarray(o).tobytes())
x = rng.uniform(-1, 1, (4, 8, 64)).astype(np.float32); o = np.zeros((4, 8, 64, 64), np.float32)
run("ExpSegsum", x, o, out=[o])
g = rng.uniform(-1, 1, (4, 8, 64, 64)).astype(np.float16); gi = np.zeros((4, 8, 64), np.float16)
run("ExpSegsumBackward", g, o, gi, out=[gi])
gy = rng.uniform(-1, 1, (4096, 40)).astype(np.float32); gb = np.zeros((3, 40), np.float32)
run("GroupedBiasAddGradV2", gy, np.array([1000, 3000, 96], np.int64), 1, gb, out=[gb])
gb3 = np.zeros((16, 40), np.float32)
run("GroupedBiasAddGrad", gy.reshape(16, 256, 40), None, gb3, out=[gb3])
c = rng.uniform(0, 1, (300, 200)).astype(np.float32); p = np.zeros((300, 200), np.float32)
run("Sinkhorn", c, 1e-5, p, out=[p])
qkv = rng.uniform(-1, 1, (4, 64, 384)).astype(pyaclnn.bfloat16); b = rng.uniform(-1, 1, 384).astype(pyaclnn.bfloat16)
qs = [np.zeros((4, 4, 64, 32), pyaclnn.bfloat16) for _ in range(3)]
run("TransformBiasRescaleQkv", qkv, b, 4, *qs, out=qs)
y = rng.uniform(-1, 1, (64, 96)).astype(np.float16)
run("AddLora", y, rng.uniform(-1, 1, (64, 64)).astype(np.float16),
    rng.uniform(-1, 1, (4, 2, 64, 16)).astype(np.float16), rng.integers(-1, 5, 64).astype(np.int32),
    rng.uniform(-1, 1, (4, 2, 16, 64)).astype(np.float16), 1, 0.25, 16, -1, np.zeros((64, 96), np.float16), out=[y])
print(h.hexdigest())
"""


def test_math_more_same_bytes_for_threads():
    from helpers import same_bytes_for_threads
    same_bytes_for_threads(DET)
