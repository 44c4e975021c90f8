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


# ---------------------------------------------------------------- WeightQuantBatchMatmulV2
from pyaclnn.lowlevel import DeviceBuffer, ffi, launch, lib  # noqa: E402


def acl(a):
    t = AclTensor.from_array(a)
    _KEEP.append(t)
    return t


class Int4Tensor:
    """An ACL_INT4 aclTensor of shape (k, n): the (k, n) values, or the transposed view of an (n, k) buffer (as
    llama.cpp passes its Q4_0 weights); two values per byte, the even element in the low nibble."""

    def __init__(self, w, transposed):
        k, n = w.shape
        flat = (np.ascontiguousarray(w.T) if transposed else w).reshape(-1).astype(np.int64) & 15
        if flat.size % 2:
            flat = np.append(flat, 0)
        packed = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)
        self.buf = DeviceBuffer(packed.nbytes)
        self.buf.upload(packed)
        dims = ffi.new("int64_t[]", [k, n])
        st = ffi.new("int64_t[]", [1, k] if transposed else [n, 1])
        sd = ffi.new("int64_t[]", [packed.size * 2])
        self.handle = ffi.gc(lib.aclCreateTensor(dims, 2, lib.ACL_INT4, st, 0, lib.ACL_FORMAT_ND, sd, 1,
                                                 self.buf.ptr), lib.aclDestroyTensor)
        _KEEP.append(self)


def u64_scale(s):
    """aclnnTransQuantParam's encoding: the float's bits in the low 32 bits"""
    return np.asarray(s, np.float32).view(np.uint32).astype(np.uint64)


def wq_torch(torch, x, w, scale, off, bias, group, dt):
    tt = tdt(torch, dt)
    wt = torch.from_numpy(w.astype(np.float32)).to(tt)
    sc = T(torch, scale)
    k, n = w.shape
    if sc.dim() == 2 and sc.shape[0] > 1:  # per group: repeat each row over its group
        sc = sc.repeat_interleave(group, 0)[:k]
    if off is not None:
        of = T(torch, off)
        if of.dim() == 2 and of.shape[0] > 1:
            of = of.repeat_interleave(group, 0)[:k]
        wt = wt + of
    deq = (wt * sc).float()
    r = T(torch, x).float() @ deq
    if bias is not None:
        r = r + T(torch, bias).float()
    return r


def run_wq(x, w, scale, off, qs, qo, bias, group, y):
    yt = acl(y)
    launch("WeightQuantBatchMatmulV2", acl(x), getattr(w, "handle", w), acl(scale), None if off is None else acl(off),
           None if qs is None else acl(qs), None if qo is None else acl(qo), None if bias is None else acl(bias),
           group, yt)
    return yt.numpy()


def int4_pack32(w, transposed):
    """INT4Pack (aclnnConvertWeightToINT4Pack's output): eight int4 per int32, (k, n/8), or (k/8, n) transposed."""
    k, n = w.shape
    flat = (np.ascontiguousarray(w.T) if transposed else w).reshape(-1).astype(np.int64) & 15
    packed = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).view(np.int32)
    return np.ascontiguousarray(packed.reshape(n, k // 8)).T if transposed else packed.reshape(k, n // 8)


@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("wdt", ["int8", "int4", "int32"])
def test_weight_quant_batch_matmul_v2(torch, dt, wdt):
    assert dt in OPS["WeightQuantBatchMatmulV2"]["dtypes"]
    rng = np.random.default_rng(5)
    lo, hi = (-128, 128) if wdt == "int8" else (-8, 8)
    m, k, n = 5, 96, 40
    for mode, trans in (("tensor", False), ("channel", True), ("channel1d", False), ("group", True),
                        ("group", False)):
        x = mk(rng, (m, k), dt)
        w = rng.integers(lo, hi, (k, n))
        group = 32 if mode == "group" else 0
        sshape = {"tensor": (1, 1), "channel": (1, n), "channel1d": (n,), "group": (k // 32, n)}[mode]
        scale = mk(rng, sshape, dt, 0.001, 0.02)
        off = mk(rng, sshape, dt, -3, 3) if mode != "channel1d" else None
        bias = mk(rng, (n,), "f16" if dt == "f16" else "f32") if mode in ("channel", "group") else None
        if wdt == "int8":
            wt = acl(np.ascontiguousarray(w.T.astype(np.int8)).T if trans else w.astype(np.int8))
        elif wdt == "int4":
            wt = Int4Tensor(w, trans)
        else:
            wt = acl(int4_pack32(w, trans))
        if mode == "group" and trans:  # llama.cpp: the scales as the transposed view of an (n, k/g) buffer
            scale = np.ascontiguousarray(scale.T).T
            off = np.ascontiguousarray(off.T).T
        got = run_wq(x, wt, scale, off, None, None, bias, group, np.zeros((m, n), NP[dt]))
        e = wq_torch(torch, x, w, scale, off, bias, group, dt)
        compare(got, from_torch(e.to(tdt(torch, dt))), dt)


def test_weight_quant_batch_matmul_v2_int8_out(torch):
    """quantScaleOptional (uint64 of TransQuantParam) and quantOffsetOptional: y int8 = round(v * qs + qo)."""
    rng = np.random.default_rng(6)
    m, k, n = 4, 64, 16
    x = mk(rng, (m, k), "f16")
    w = rng.integers(-128, 128, (k, n))
    scale = mk(rng, (1, n), "f16", 0.001, 0.01)
    qsf = rng.uniform(0.5, 2, (n,)).astype(np.float32)
    qo = rng.uniform(-3, 3, (n,)).astype(np.float32)
    got = run_wq(x, acl(w.astype(np.int8)), scale, None, u64_scale(qsf), qo, None, 0, np.zeros((m, n), np.int8))
    v = wq_torch(torch, x, w, scale, None, None, 0, "f16") * torch.from_numpy(qsf) + torch.from_numpy(qo)
    e = torch.clamp(torch.round(v), -128, 127).to(torch.int8).numpy()
    assert np.abs(got.astype(np.int32) - e.astype(np.int32)).max() <= 1


def test_weight_quant_batch_matmul_v2_fixpipe(torch):
    """antiquantScale uint64 (TransQuantParamV2 of float32 scales), antiquantOffset int32, x/y f16, weight int8."""
    rng = np.random.default_rng(7)
    m, k, n = 3, 64, 64
    x = mk(rng, (m, k), "f16")
    w = rng.integers(-128, 128, (k, n))
    sf = rng.uniform(0.001, 0.01, (1, n)).astype(np.float32)
    of = rng.integers(-5, 5, (1, n)).astype(np.int32)
    wt = acl(np.ascontiguousarray(w.T.astype(np.int8)).T)
    got = run_wq(x, wt, u64_scale(sf), of, None, None, None, 0, np.zeros((m, n), np.float16))
    e = (T(torch, x).float() @ torch.from_numpy((w + of).astype(np.float32))) * torch.from_numpy(sf)
    compare(got, e.half().numpy(), "f16")
    # INT64 scales (the same encoding), per tensor, no offset, with a float16 bias
    s1 = np.float32(0.004)
    bias = mk(rng, (n,), "f16")
    got = run_wq(x, wt, u64_scale([s1]).astype(np.int64), None, None, None, bias, 0, np.zeros((m, n), np.float16))
    e = (T(torch, x).float() @ torch.from_numpy(w.astype(np.float32))) * float(s1) + T(torch, bias).float()
    compare(got, e.half().numpy(), "f16")


def test_weight_quant_batch_matmul_v2_strided_x(torch):
    """x as the transposed view of a (k, m) buffer (the op accepts it)."""
    rng = np.random.default_rng(8)
    m, k, n = 6, 40, 8
    x = np.ascontiguousarray(mk(rng, (m, k), "bf16").T).T
    w = rng.integers(-128, 128, (k, n))
    scale = mk(rng, (n,), "bf16", 0.001, 0.02)
    got = run_wq(x, acl(w.astype(np.int8)), scale, None, None, None, None, 0, np.zeros((m, n), NP["bf16"]))
    compare(got, from_torch(wq_torch(torch, x, w, scale, None, None, 0, "bf16").to(torch.bfloat16)), "bf16")


def test_invalid_weight_quant_batch_matmul_v2():
    op = "WeightQuantBatchMatmulV2"
    x, w, s, y = tens((4, 64), "f16"), tens((64, 8), "i8"), tens((1, 8), "f16"), tens((4, 8), "f16")
    N = None

    def row(args, code, word=None):
        expect_status(op, args, code, word)

    row([N, w, s, N, N, N, N, 0, y], 161001, "x")
    row([x, N, s, N, N, N, N, 0, y], 161001, "weight")
    row([x, w, N, N, N, N, N, 0, y], 161001, "antiquantScale")
    row([x, w, s, N, N, N, N, 0, N], 161001, "y")
    xs = acl(np.zeros((4, 128), np.float16)[:, ::2])
    row([xs, w, s, N, N, N, N, 0, y], 161002, "x tensor")
    row([x, acl(np.zeros((64, 16), np.int8)[:, ::2]), s, N, N, N, N, 0, y], 161002, "weight tensor")
    row([x, w, s, N, N, N, N, 0, acl(np.zeros((4, 16), np.float16)[:, ::2])], 161002, "y must")
    row([tens((4, 64)), w, tens((1, 8)), N, N, N, N, 0, tens((4, 8))], 161002, "x")
    row([x, tens((64, 8), "i64"), s, N, N, N, N, 0, y], 161002, "weight")
    row([x, tens((2, 64, 1), "i32"), s, N, N, N, N, 0, y], 161002, "weight's dim")
    row([x, tens((64, 1), "i32"), s, N, N, N, N, 0, y], 0)  # INT4Pack: (64, 1) int32 is (64, 8) int4
    row([x, w, tens((1, 8)), N, N, N, N, 0, y], 161002, "antiquantScale")
    row([x, w, s, N, N, N, N, 0, tens((4, 8))], 161002, "y")
    row([x, w, s, N, N, N, N, 0, tens((4, 8), "bf16")], 161002, "y's dtype")
    row([x, w, s, N, tens((8,), "u64"), N, N, 0, y], 161002, "INT8")
    row([tens((2, 4, 64), "f16"), w, s, N, N, N, N, 0, tens((2, 4, 8), "f16")], 161002, "x's dim")
    row([x, w, s, tens((1, 8), "i32"), N, N, N, 0, y], 161002, "UINT64")
    row([x, w, tens((1, 8), "u64"), N, N, N, N, 0, tens((4, 8), "f16")], 0)
    row([tens((4, 64), "bf16"), w, tens((1, 8), "u64"), N, N, N, N, 0, tens((4, 8), "bf16")], 161002, "x's dtype")
    row([x, w, s, tens((1, 8), "bf16"), N, N, N, 0, y], 161002, "antiquantOffsetOptional")
    row([tens((4, 64), "bf16"), w, s, N, N, N, N, 0, tens((4, 8), "bf16")], 161002, "antiquantScale")
    row([x, w, s, N, N, N, tens((8,)), 0, y], 161002, "biasOptional")
    row([tens((4, 64), "bf16"), w, tens((1, 8), "bf16"), N, N, N, tens((8,), "bf16"), 0, tens((4, 8), "bf16")],
        161002, "biasOptional")
    row([x, w, tens((1, 1, 8), "f16"), N, N, N, N, 0, y], 161002, "antiquantScale")
    row([x, w, s, N, N, tens((8,)), N, 0, y], 161002, "quantOffsetOptional")
    row([x, w, s, N, tens((8,)), N, N, 0, tens((4, 8), "i8")], 161002, "quantScaleOptional")
    row([tens((4, 32), "f16"), w, s, N, N, N, N, 0, y], 161002, "k")
    row([x, w, s, N, N, N, N, 0, tens((4, 9), "f16")], 161002, "n")
    row([x, w, s, N, N, N, N, 0, tens((5, 8), "f16")], 161002, "m")
    row([x, w, tens((2, 8), "f16"), N, N, N, N, 16, y], 161002, "32")
    row([x, w, tens((2, 8), "f16"), N, N, N, N, 64, y], 161002, "k-1")
    row([x, w, tens((2, 8), "f16"), N, N, N, N, -32, y], 161002, "antiquantGroupSize")
    row([x, w, tens((2, 8), "f16"), N, N, N, N, 32, y], 0)
    row([x, w, tens((3, 8), "f16"), N, N, N, N, 32, y], 161002, "antiquantScale shape")
    row([x, w, tens((2, 8), "f16"), N, N, N, N, 0, y], 161002, "antiquantScale shape")
    row([x, w, tens((8,), "f16"), N, N, N, N, 32, y], 161002, "antiquantScale shape")
    row([x, w, s, tens((8,), "f16"), N, N, N, 0, y], 161002, "antiquantOffsetOptional")
    row([x, w, s, N, tens((3,), "u64"), N, N, 0, tens((4, 8), "i8")], 161002, "quantScaleOptional")
    row([x, w, s, N, tens((8,), "u64"), tens((1, 8)), N, 0, tens((4, 8), "i8")], 161002, "quantOffsetOptional")
    row([x, w, s, N, N, N, tens((7,), "f16"), 0, y], 161002, "biasOptional")
    row([x, w, s, N, N, N, tens((1, 8), "f16"), 0, y], 0)
    row([x, tens((64, 70000), "i8"), tens((1, 70000), "f16"), N, N, N, N, 0, tens((4, 70000), "f16")], 161002, "65535")


def test_weight_quant_batch_matmul_v2_int4_odd():
    """int4: n must be even for a non-transposed weight, k for a transposed one."""
    x, s, y = tens((4, 64), "f16"), tens((1, 7), "f16"), tens((4, 7), "f16")
    w = Int4Tensor(np.zeros((64, 7), np.int64), False)
    expect_status("WeightQuantBatchMatmulV2", [x, w.handle, s, None, None, None, None, 0, y], 161002, "even")
    w2 = Int4Tensor(np.zeros((63, 8), np.int64), True)
    expect_status("WeightQuantBatchMatmulV2", [tens((4, 63), "f16"), w2.handle, tens((1, 8), "f16"), None, None, None,
                                               None, 0, tens((4, 8), "f16")], 161002, "even")


def test_weight_quant_batch_matmul_v2_threads():
    code = """
import hashlib
import numpy as np
import pyaclnn
from pyaclnn.lowlevel import AclTensor, launch
rng = np.random.default_rng(1)
h = hashlib.sha256()
for dt in (np.float16, pyaclnn.bfloat16):
    x = rng.uniform(-1, 1, (33, 512)).astype(np.float32).astype(dt)
    w = rng.integers(-128, 128, (512, 300)).astype(np.int8)
    s = rng.uniform(0.001, 0.01, (16, 300)).astype(np.float32).astype(dt)
    y = AclTensor.empty((33, 300), dt)
    launch("WeightQuantBatchMatmulV2", AclTensor.from_array(x), AclTensor.from_array(w), AclTensor.from_array(s),
           None, None, None, None, 32, y)
    h.update(y.numpy().tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- UpsampleNearest2d
def ncw_tensor(a, fmt):
    t = AclTensor.from_array(a, getattr(lib, "ACL_FORMAT_" + fmt))
    _KEEP.append(t)
    return t


@pytest.mark.parametrize("dt", ["f16", "f32", "f64", "u8", "bf16"])
def test_upsample_nearest2d(torch, dt):
    assert dt in OPS["UpsampleNearest2d"]["dtypes"]
    rng = np.random.default_rng(11)
    for (h, w), (ho, wo) in (((3, 5), (7, 9)), ((4, 4), (8, 8)), ((6, 7), (4, 3)), ((5, 3), (5, 3)),
                             ((2, 9), (11, 2))):
        x = (rng.uniform(0, 200, (2, 3, h, w))).astype(np.float32).astype(NP[dt])
        e = torch.nn.functional.interpolate(T(torch, x.astype(np.float64)), size=(ho, wo), mode="nearest").numpy()
        for fmt in ("NCHW", "NHWC"):
            xs = strided(x) if fmt == "NCHW" else strided(np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
            oshape = (2, 3, ho, wo) if fmt == "NCHW" else (2, ho, wo, 3)
            ot = ncw_tensor(np.zeros(oshape, NP[dt]), fmt)
            launch("UpsampleNearest2d", ncw_tensor(xs, fmt), pyaclnn.lowlevel.int_array([ho, wo]), ot)
            got = ot.numpy()
            if fmt == "NHWC":
                got = got.transpose(0, 3, 1, 2)
            np.testing.assert_array_equal(got.astype(np.float64), e)


def test_upsample_nearest2d_empty():
    x = ncw_tensor(np.zeros((0, 3, 2, 2), np.float32), "NCHW")
    o = ncw_tensor(np.zeros((0, 3, 4, 4), np.float32), "NCHW")
    launch("UpsampleNearest2d", x, pyaclnn.lowlevel.int_array([4, 4]), o)


def test_invalid_upsample_nearest2d():
    from pyaclnn.lowlevel import int_array
    op = "UpsampleNearest2d"
    x = ncw_tensor(np.zeros((1, 2, 3, 3), np.float32), "NCHW")
    o = ncw_tensor(np.zeros((1, 2, 6, 6), np.float32), "NCHW")
    sz = int_array([6, 6])
    _KEEP.append(sz)

    def nchw(shape, dt="f32", fmt="NCHW"):
        return ncw_tensor(np.zeros(shape, NP[dt]), fmt)

    expect_status(op, [None, sz, o], 161001, "self")
    expect_status(op, [x, None, o], 161001, "outputSize")
    expect_status(op, [x, sz, None], 161001, "out")
    expect_status(op, [nchw((1, 2, 3, 3), "i32"), sz, nchw((1, 2, 6, 6), "i32")], 161002, "self")
    expect_status(op, [x, sz, nchw((1, 2, 6, 6), "f16")], 161002, "out")
    expect_status(op, [x, int_array([6]), o], 161002, "outputSize")
    expect_status(op, [nchw((2, 3, 3)), sz, o], 161002, "4-d")
    expect_status(op, [x, int_array([0, 6]), o], 161002, "greater than 0")
    expect_status(op, [nchw((1, 0, 3, 3)), sz, nchw((1, 0, 6, 6))], 161002, "self")
    expect_status(op, [tens((1, 2, 3, 3)), sz, tens((1, 2, 6, 6))], 161002, "format")
    expect_status(op, [x, sz, nchw((1, 2, 6, 6), "f32", "NHWC")], 161002, "format")
    expect_status(op, [x, sz, nchw((1, 3, 6, 6))], 161002, "C")
    expect_status(op, [x, sz, nchw((1, 2, 6, 5))], 161002, "outputSize")
    expect_status(op, [x, sz, o], 0)


def test_upsample_nearest2d_threads():
    code = """
import hashlib
import numpy as np
import pyaclnn
from pyaclnn.lowlevel import AclTensor, launch, lib, int_array
rng = np.random.default_rng(1)
h = hashlib.sha256()
for dt in (np.float32, np.float16, np.float64, np.uint8):
    x = (rng.random((2, 16, 33, 47)) * 100).astype(dt)
    y = AclTensor.empty((2, 16, 70, 101), dt, lib.ACL_FORMAT_NCHW)
    launch("UpsampleNearest2d", AclTensor.from_array(x, lib.ACL_FORMAT_NCHW), int_array([70, 101]), y)
    h.update(y.numpy().tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---------------------------------------------------------------- MaxPool
def run_maxpool(x, k, s, pads, dil, ceil, oshape, dt, fmt="NCHW"):
    from pyaclnn.lowlevel import int_array
    ot = ncw_tensor(np.zeros(oshape, NP[dt]), fmt)
    launch("MaxPool", ncw_tensor(x, fmt), int_array(k), int_array(s), 0, int_array(pads), int_array(dil), ceil, ot)
    return ot.numpy()


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_max_pool(torch, dt):
    assert dt in OPS["MaxPool"]["dtypes"]
    rng = np.random.default_rng(12)
    F = torch.nn.functional
    for shape, k, s, p, ceil in (((2, 3, 9, 11), (3, 3), (2, 2), (1, 1), 0), ((2, 3, 9, 11), (3, 2), (2, 1), (0, 0), 1),
                                 ((3, 8, 7), (2, 2), (2, 2), (0, 0), 0), ((1, 4, 10, 10), (4, 4), (3, 3), (2, 1), 1),
                                 ((2, 2, 5, 6), (2, 3), (), (), 0)):
        x = strided(mk(rng, shape, dt, -10, 10))
        tx = T(torch, x).float()
        if len(shape) == 3:
            tx = tx[None]
        e = F.max_pool2d(tx, k, s if s else 1, p if p else 0, ceil_mode=bool(ceil))
        if len(shape) == 3:
            e = e[0]
        got = run_maxpool(x, list(k), list(s), list(p), [1, 1], ceil, tuple(e.shape), dt)
        np.testing.assert_array_equal(got.astype(np.float32), e.numpy())


def test_max_pool_asymmetric_pads_and_nan(torch):
    """pads of 4 ([hBegin, wBegin, hEnd, wEnd]) as -inf padding; a NaN in a window wins."""
    rng = np.random.default_rng(13)
    x = mk(rng, (1, 2, 6, 7), "f32")
    x[0, 0, 2, 3] = np.nan
    tx = torch.nn.functional.pad(T(torch, x), (2, 0, 1, 2), value=-float("inf"))  # (wL, wR, hL, hR)
    e = torch.nn.functional.max_pool2d(tx, (3, 3), (2, 2))
    got = run_maxpool(x, [3, 3], [2, 2], [1, 2, 2, 0], [], 0, tuple(e.shape), "f32")
    np.testing.assert_array_equal(got, e.numpy())


def test_invalid_max_pool():
    from pyaclnn.lowlevel import int_array
    op = "MaxPool"
    keep = []

    def ia(v):
        a = int_array(v)
        keep.append(a)
        return a

    def t(shape, dt="f32", fmt="NCHW"):
        return ncw_tensor(np.zeros(shape, NP[dt]), fmt)

    x, o = t((1, 2, 6, 6)), t((1, 2, 3, 3))
    k, s, p, d = ia([2, 2]), ia([2, 2]), ia([0, 0]), ia([1, 1])
    N = None
    expect_status(op, [N, k, s, 0, p, d, 0, o], 161001, "self")
    expect_status(op, [x, N, s, 0, p, d, 0, o], 161001, "kernelShape")
    expect_status(op, [x, k, N, 0, p, d, 0, o], 161001, "strides")
    expect_status(op, [x, k, s, 0, N, d, 0, o], 161001, "pads")
    expect_status(op, [x, k, s, 0, p, N, 0, o], 161001, "dilations")
    expect_status(op, [x, k, s, 0, p, d, 0, N], 161001, "out")
    expect_status(op, [t((1, 2, 6, 6), "bf16"), k, s, 0, p, d, 0, t((1, 2, 3, 3), "bf16")], 161002)
    expect_status(op, [x, k, s, 0, p, d, 0, t((1, 2, 3, 3), "f16")], 161002)
    expect_status(op, [x, k, s, 0, p, d, 0, t((1, 2, 3, 3), "f32", "NHWC")], 161002)
    expect_status(op, [t((2, 6, 6, 1, 1)), k, s, 0, p, d, 0, t((2, 3, 3, 1, 1))], 161002)
    expect_status(op, [x, ia([2, 2, 2]), s, 0, p, d, 0, o], 161002)
    expect_status(op, [x, k, ia([2, 2, 2]), 0, p, d, 0, o], 161002)
    expect_status(op, [x, k, s, 0, ia([0, 0, 0]), d, 0, o], 161002)
    expect_status(op, [x, k, s, 0, p, ia([1, 1, 1]), 0, o], 161002)
    expect_status(op, [x, k, s, 1, p, d, 0, o], 161002)
    expect_status(op, [x, k, s, 0, p, ia([2, 1]), 0, o], 161002)
    expect_status(op, [x, ia([0, 2]), s, 0, p, d, 0, o], 161002)
    expect_status(op, [x, k, ia([0]), 0, p, d, 0, o], 161002)
    expect_status(op, [x, k, s, 0, ia([2, 1]), d, 0, o], 161002)
    expect_status(op, [t((1, 0, 6, 6)), k, s, 0, p, d, 0, t((1, 0, 3, 3))], 161002)
    expect_status(op, [t((1, 2, 1, 6)), ia([3, 2]), s, 0, p, d, 0, t((1, 2, 0, 3))], 161002)
    expect_status(op, [x, k, s, 0, p, d, 0, t((1, 2, 3, 4))], 161002)
    expect_status(op, [x, k, s, 0, p, d, 0, o], 0)
    expect_status(op, [x, k, ia([]), 0, ia([]), ia([]), 0, t((1, 2, 5, 5))], 0)


def test_max_pool_threads():
    code = """
import hashlib
import numpy as np
import pyaclnn
from pyaclnn.lowlevel import AclTensor, launch, lib, int_array
rng = np.random.default_rng(1)
h = hashlib.sha256()
for dt in (np.float32, np.float16):
    x = rng.uniform(-5, 5, (4, 16, 64, 64)).astype(dt)
    y = AclTensor.empty((4, 16, 32, 32), dt, lib.ACL_FORMAT_NCHW)
    launch("MaxPool", AclTensor.from_array(x, lib.ACL_FORMAT_NCHW), int_array([3, 3]), int_array([2, 2]), 0,
           int_array([1, 1]), int_array([1, 1]), 0, y)
    h.update(y.numpy().tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)
