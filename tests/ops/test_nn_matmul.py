"""The ops-nn matmul family (tools/optable/nn_matmul.py, libsrc/ops/matmul.c on kernels/gemm.c): Mm, Matmul,
BatchMatMul, Mv, Einsum. Values against PyTorch (float64 products of the same inputs, rounded once to out's dtype),
every A2 dtype, mixed input dtypes, cubeMathType USE_FP16, transposed/strided operands and outputs, broadcast
batches, empty dims (K = 0 gives zeros), invalid rows in the op_api order, same bytes for any thread count and SIMD
level."""
import hashlib

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads, run_python
from table_harness import NP, TORCH, expect_status, from_torch, rand, to_torch

MM_DT = ["f32", "f16", "bf16"]
NZ = 29
# against a float64 reference rounded once to out's dtype: f32 sums of <= 64 terms of |x| <= 1, one ulp for halves
TOLS = {"f32": (2e-5, 2e-5), "f16": (2e-3, 2e-3), "bf16": (1.6e-2, 1.6e-2)}


def R(rng, shape, dt):
    return rand(rng, shape, dt, (-1, 1))


def ref(torch, fn, arrays, out_dt, round_in=None):
    ts = [to_torch(torch, a) for a in arrays]
    if round_in:
        ts = [t.to(getattr(torch, TORCH[round_in])) for t in ts]
    r = fn(*[t.double() for t in ts])
    return from_torch(r.to(getattr(torch, TORCH[out_dt])))


def check(actual, expected, dt):
    rt, at = TOLS[dt]
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(np.asarray(actual).astype(np.float64), expected.astype(np.float64), rtol=rt, atol=at)


def tview(x, kind):
    """x's values as a non-contiguous view: 'T' transposed storage of the last two dims, 'S' every other column."""
    if kind == "T" and x.ndim >= 2:
        return np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2)
    if kind == "S":
        big = np.zeros(x.shape[:-1] + (2 * x.shape[-1] + 1,), x.dtype)
        v = big[..., 1::2]
        v[...] = x
        return v
    return x


def T(shape, dt="f32", fmt=None):
    return AclTensor.empty(shape, NP[dt], fmt)


# ------------------------------------------------------------------ Mm


@pytest.mark.parametrize("dt", MM_DT)
@pytest.mark.parametrize("M,K,N", [(1, 1, 1), (7, 13, 5), (37, 64, 70), (13, 300, 33)])
def test_mm_values(torch, dt, M, K, N):
    rng = np.random.default_rng(M * 1000 + K + N)
    a, b = R(rng, (M, K), dt), R(rng, (K, N), dt)
    e = ref(torch, torch.mm, [a, b], dt)
    o = np.zeros((M, N), NP[dt])
    pyaclnn.call("Mm", a, b, o, 0)
    if dt == "f32" and K > 64:
        np.testing.assert_allclose(o, e, rtol=1e-4, atol=1e-4)
    else:
        check(o, e, dt)
    # torch in the same dtype agrees too
    tt = from_torch(torch.mm(to_torch(torch, a), to_torch(torch, b)))
    np.testing.assert_allclose(o.astype(np.float64), tt.astype(np.float64), rtol=3 * TOLS[dt][0],
                               atol=3 * TOLS[dt][1] * max(1, K / 64))


@pytest.mark.parametrize("dt", MM_DT)
@pytest.mark.parametrize("ka,kb,ko", [("T", "", ""), ("", "T", ""), ("T", "T", "T"), ("S", "S", "S"), ("", "", "T")])
def test_mm_strided(torch, dt, ka, kb, ko):
    rng = np.random.default_rng(5)
    a, b = R(rng, (29, 40), dt), R(rng, (40, 35), dt)
    e = ref(torch, torch.mm, [a, b], dt)
    o = tview(np.zeros((29, 35), NP[dt]), ko)
    pyaclnn.call("Mm", tview(a, ka), tview(b, kb), o, 0)
    check(np.ascontiguousarray(o), e, dt)


@pytest.mark.parametrize("da,db,do", [("f32", "f16", "f32"), ("f16", "bf16", "f32"), ("bf16", "f32", "bf16"),
                                      ("f16", "f16", "f32"), ("bf16", "bf16", "f32"), ("f32", "f32", "f16")])
def test_mm_mixed_dtypes(torch, da, db, do):
    rng = np.random.default_rng(9)
    a, b = R(rng, (9, 20), da), R(rng, (20, 11), db)
    e = ref(torch, torch.mm, [a, b], do)
    o = np.zeros((9, 11), NP[do])
    pyaclnn.call("Mm", a, b, o, 1)
    check(o, e, do)


def test_mm_half_out_through_kernel_dtype(torch):
    """f16 inputs with a bf16 out: the DAV_2201 kernel writes f16, then casts to bf16 (two roundings)."""
    rng = np.random.default_rng(4)
    a, b = R(rng, (8, 16), "f16"), R(rng, (16, 8), "f16")
    e = from_torch(torch.mm(to_torch(torch, a).double(), to_torch(torch, b).double()).half().bfloat16())
    o = np.zeros((8, 8), NP["bf16"])
    pyaclnn.call("Mm", a, b, o, 0)
    np.testing.assert_array_equal(o.view(np.uint16), e.view(np.uint16))


@pytest.mark.parametrize("da", ["f32", "bf16"])
def test_mm_use_fp16(torch, da):
    """cubeMathType 2 (USE_FP16): f32/bf16 inputs are rounded to f16, the f16 result cast to out."""
    rng = np.random.default_rng(2)
    a, b = R(rng, (6, 12), da), R(rng, (12, 7), "f32")
    e = from_torch(torch.mm(to_torch(torch, a).half().double(), to_torch(torch, b).half().double()).half().float())
    o = np.zeros((6, 7), np.float32)
    pyaclnn.call("Mm", a, b, o, 2)
    np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("cmt", [-1, 0, 1, 3, 4])
def test_mm_cube_math_types_f32(torch, cmt):
    rng = np.random.default_rng(3)
    a, b = R(rng, (5, 8), "f32"), R(rng, (8, 4), "f32")
    o = np.zeros((5, 4), np.float32)
    pyaclnn.call("Mm", a, b, o, cmt)
    check(o, ref(torch, torch.mm, [a, b], "f32"), "f32")


def test_mm_empty():
    o = np.full((3, 4), 7, np.float32)
    pyaclnn.call("Mm", np.zeros((3, 0), np.float32), np.zeros((0, 4), np.float32), o, 0)
    np.testing.assert_array_equal(o, 0)  # K = 0: zeros
    pyaclnn.call("Mm", np.zeros((0, 5), np.float32), np.zeros((5, 4), np.float32), np.zeros((0, 4), np.float32), 0)
    pyaclnn.call("Mm", np.zeros((3, 5), np.float32), np.zeros((5, 0), np.float32), np.zeros((3, 0), np.float32), 0)


def test_mm_nonfinite():
    a = np.array([[np.inf, 1.0], [np.nan, 0.0]], np.float32)
    b = np.array([[1.0, 0.0], [1.0, 1.0]], np.float32)
    o = np.zeros((2, 2), np.float32)
    pyaclnn.call("Mm", a, b, o, 0)
    assert o[0, 0] == np.inf and np.isnan(o[0, 1]) and np.isnan(o[1]).all()


def test_mm_invalid():
    a, b, o = T((3, 4)), T((4, 5)), T((3, 5))
    expect_status("Mm", [a, b, None, 0], 161001, "out")
    expect_status("Mm", [None, b, o, 0], 161001, "self")
    expect_status("Mm", [a, None, o, 0], 161001, "mat2")
    expect_status("Mm", [T((3, 4), "f64"), b, o, 0], 161002, "self")
    expect_status("Mm", [a, T((4, 5), "i32"), o, 0], 161002, "mat2")
    expect_status("Mm", [a, b, T((3, 5), "f64"), 0], 161002, "out")
    expect_status("Mm", [a, b, o, 5], 161002, "cubeMathType")
    expect_status("Mm", [a, b, o, -2], 161002, "cubeMathType")
    # rank: mat2 before self
    expect_status("Mm", [T((3, 4, 1)), T((4,)), o, 0], 161002, "mat2")
    expect_status("Mm", [T((3, 4, 1)), b, o, 0], 161002, "self")
    expect_status("Mm", [a, T((5, 5)), o, 0], 161002, "k-axis")
    expect_status("Mm", [a, b, T((3, 5, 1)), 0], 161002, "out")
    expect_status("Mm", [a, b, T((3, 6)), 0], 161002, "out")
    # dtype before cubeMathType before shapes
    expect_status("Mm", [T((3, 4, 1), "f64"), b, o, 9], 161002, "self")
    expect_status("Mm", [T((3, 4, 1)), b, o, 9], 161002, "cubeMathType")


# ------------------------------------------------------------------ Matmul

MATMUL_SHAPES = [((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((3, 5), (5, 4)), ((2, 3, 5), (5,)),
                 ((2, 3, 5), (5, 4)), ((5,), (2, 5, 4)), ((3, 5), (2, 5, 4)), ((2, 1, 3, 5), (4, 5, 6)),
                 ((1, 3, 5), (2, 5, 4)), ((2, 1, 1, 2, 3, 4), (3, 1, 4, 2)), ((1, 5), (5, 1))]


@pytest.mark.parametrize("dt", MM_DT)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_values(torch, dt, sa, sb):
    rng = np.random.default_rng(len(sa) * 10 + len(sb))
    a, b = R(rng, sa, dt), R(rng, sb, dt)
    e = ref(torch, torch.matmul, [a, b], dt)
    o = np.zeros(e.shape, NP[dt])
    pyaclnn.call("Matmul", a, b, o, 0)
    check(o, e, dt)


@pytest.mark.parametrize("ka,kb,ko", [("T", "T", "S"), ("S", "T", "T")])
def test_matmul_strided_broadcast(torch, ka, kb, ko):
    rng = np.random.default_rng(8)
    a, b = R(rng, (3, 1, 6, 7), "f32"), R(rng, (2, 7, 5), "f32")
    e = ref(torch, torch.matmul, [a, b], "f32")
    o = tview(np.zeros(e.shape, np.float32), ko)
    pyaclnn.call("Matmul", tview(a, ka), tview(b, kb), o, 0)
    check(np.ascontiguousarray(o), e, "f32")
    # a broadcast (stride 0) batch view as input
    bb = np.broadcast_to(b[:1], (2, 7, 5))
    o2 = np.zeros(e.shape, np.float32)
    pyaclnn.call("Matmul", a, bb, o2, 0)
    check(o2, ref(torch, torch.matmul, [a, np.ascontiguousarray(bb)], "f32"), "f32")


def test_matmul_large_batched(torch):
    """Many small products (batch owners) and one large one (row-block owners with shared packed B)."""
    rng = np.random.default_rng(1)
    a, b = R(rng, (64, 9, 17), "f32"), R(rng, (64, 17, 12), "f32")
    o = np.zeros((64, 9, 12), np.float32)
    pyaclnn.call("Matmul", a, b, o, 0)
    check(o, ref(torch, torch.matmul, [a, b], "f32"), "f32")
    a, b = R(rng, (300, 520), "f32"), R(rng, (520, 290), "f32")
    o = np.zeros((300, 290), np.float32)
    pyaclnn.call("Matmul", a, b, o, 0)
    np.testing.assert_allclose(o, ref(torch, torch.matmul, [a, b], "f32"), rtol=1e-4, atol=1e-4)


def test_matmul_empty():
    o = np.full((2, 3, 4), 5, np.float32)
    pyaclnn.call("Matmul", np.zeros((2, 3, 0), np.float32), np.zeros((0, 4), np.float32), o, 0)
    np.testing.assert_array_equal(o, 0)
    o = np.full((), 5, np.float32)
    pyaclnn.call("Matmul", np.zeros((0,), np.float32), np.zeros((0,), np.float32), o, 0)
    assert o == 0
    pyaclnn.call("Matmul", np.zeros((0, 3, 5), np.float32), np.zeros((5, 4), np.float32),
                 np.zeros((0, 3, 4), np.float32), 0)


def test_matmul_invalid():
    a, b, o = T((3, 4)), T((4, 5)), T((3, 5))
    expect_status("Matmul", [None, b, o, 0], 161001, "self")
    expect_status("Matmul", [a, None, o, 0], 161001, "mat2")
    expect_status("Matmul", [a, b, None, 0], 161001, "out")
    expect_status("Matmul", [T((3, 4), "f64"), b, o, 0], 161002, "self")
    expect_status("Matmul", [a, T((4, 5), "i64"), o, 0], 161002, "mat2")
    expect_status("Matmul", [a, b, T((3, 5), "i32"), 0], 161002, "out")
    expect_status("Matmul", [a, b, o, 7], 161002, "cubeMathType")
    expect_status("Matmul", [T((3, 4), "f16"), T((4, 5), "bf16", NZ), o, 0], 161002, "FRACTAL_NZ")
    expect_status("Matmul", [T((1,) * 5 + (3, 4)), b, o, 0], 161002, "self")
    expect_status("Matmul", [a, T((1,) * 5 + (4, 5)), o, 0], 161002, "mat2")
    expect_status("Matmul", [T(()), b, o, 0], 161002, "0-d")
    expect_status("Matmul", [a, T((5, 5)), o, 0], 161002, "k-axis")
    expect_status("Matmul", [T((2, 3, 4)), T((3, 4, 5)), T((3, 3, 5)), 0], 161002, "Broadcast")
    expect_status("Matmul", [T((3, 4), fmt=NZ), b, o, 0], 161002, "FRACTAL_NZ")
    expect_status("Matmul", [a, b, T((3, 5), fmt=NZ), 0], 161002, "FRACTAL_NZ")
    expect_status("Matmul", [a, b, T((3, 6)), 0], 161002, "out")
    expect_status("Matmul", [T((4,)), T((4,)), T((1,)), 0], 161002, "out")
    expect_status("Matmul", [a, b, T((3, 5), "bf16"), 4], 0)


# ------------------------------------------------------------------ BatchMatMul


@pytest.mark.parametrize("dt", MM_DT)
@pytest.mark.parametrize("sa,sb", [((2, 3, 5), (2, 5, 4)), ((1, 3, 5), (3, 5, 4)), ((3, 3, 5), (1, 5, 4)),
                                   ((4, 1, 33), (4, 33, 1))])
def test_bmm_values(torch, dt, sa, sb):
    rng = np.random.default_rng(sa[0] + 2 * sb[0])
    a, b = R(rng, sa, dt), R(rng, sb, dt)
    e = ref(torch, torch.matmul, [a, b], dt)
    o = np.zeros(e.shape, NP[dt])
    pyaclnn.call("BatchMatMul", a, b, o, 0)
    check(o, e, dt)
    o = tview(np.zeros(e.shape, NP[dt]), "T")
    pyaclnn.call("BatchMatMul", tview(a, "T"), tview(b, "S"), o, 4)
    check(np.ascontiguousarray(o), e, dt)


def test_bmm_empty():
    o = np.full((2, 3, 4), 1, np.float32)
    pyaclnn.call("BatchMatMul", np.zeros((2, 3, 0), np.float32), np.zeros((2, 0, 4), np.float32), o, 0)
    np.testing.assert_array_equal(o, 0)
    pyaclnn.call("BatchMatMul", np.zeros((0, 3, 2), np.float32), np.zeros((1, 2, 4), np.float32),
                 np.zeros((1, 3, 4), np.float32), 0)


def test_bmm_invalid():
    a, b, o = T((2, 3, 4)), T((2, 4, 5)), T((2, 3, 5))
    expect_status("BatchMatMul", [None, b, o, 0], 161001, "self")
    expect_status("BatchMatMul", [a, None, o, 0], 161001, "mat2")
    expect_status("BatchMatMul", [a, b, None, 0], 161001, "out")
    expect_status("BatchMatMul", [T((2, 3, 4), "f64"), b, o, 0], 161002, "self")
    expect_status("BatchMatMul", [a, b, T((2, 3, 5), "i32"), 0], 161002, "out")
    expect_status("BatchMatMul", [a, b, o, 5], 161002, "cubeMathType")
    expect_status("BatchMatMul", [T((3, 4)), b, o, 0], 161002, "self")
    expect_status("BatchMatMul", [a, T((4, 5)), o, 0], 161002, "mat2")
    expect_status("BatchMatMul", [a, b, T((3, 5)), 0], 161002, "out")
    expect_status("BatchMatMul", [a, T((2, 5, 5)), o, 0], 161002, "penultimate")
    expect_status("BatchMatMul", [T((2, 3, 4)), T((3, 4, 5)), o, 0], 161002, "first dim")
    expect_status("BatchMatMul", [a, b, T((2, 3, 6)), 0], 161002, "out shape")
    expect_status("BatchMatMul", [a, b, T((1, 3, 5)), 0], 161002, "out shape")
    expect_status("BatchMatMul", [T((2, 3, 4), fmt=NZ), b, o, 0], 161002, "FRACTAL_NZ")


# ------------------------------------------------------------------ Mv


@pytest.mark.parametrize("dt", MM_DT)
@pytest.mark.parametrize("n,m", [(1, 1), (5, 7), (40, 64)])
def test_mv_values(torch, dt, n, m):
    rng = np.random.default_rng(n + m)
    a, v = R(rng, (n, m), dt), R(rng, (m,), dt)
    e = ref(torch, torch.mv, [a, v], dt)
    o = np.zeros((n,), NP[dt])
    pyaclnn.call("Mv", a, v, o, 0)
    check(o, e, dt)
    o = tview(np.zeros((n,), NP[dt]), "S")
    pyaclnn.call("Mv", tview(a, "T"), tview(v, "S"), o, 1)
    check(np.ascontiguousarray(o), e, dt)


def test_mv_empty():
    o = np.full((3,), 2, np.float32)
    pyaclnn.call("Mv", np.zeros((3, 0), np.float32), np.zeros((0,), np.float32), o, 0)
    np.testing.assert_array_equal(o, 0)
    pyaclnn.call("Mv", np.zeros((0, 3), np.float32), np.zeros((3,), np.float32), np.zeros((0,), np.float32), 0)


def test_mv_invalid():
    a, v, o = T((3, 4)), T((4,)), T((3,))
    expect_status("Mv", [None, v, o, 0], 161001, "self")
    expect_status("Mv", [a, None, o, 0], 161001, "vec")
    expect_status("Mv", [a, v, None, 0], 161001, "out")
    expect_status("Mv", [a, v, T((3,), "f16"), 0], 161002, "out")          # out vs vec first
    expect_status("Mv", [T((3, 4), "f16"), v, o, 0], 161002, "self")       # then self vs vec
    expect_status("Mv", [T((3, 4), "f64"), T((4,), "f64"), T((3,), "f64"), 0], 161002, "self")
    expect_status("Mv", [a, v, o, 8], 161002, "cubeMathType")
    expect_status("Mv", [T((3, 4, 1)), v, o, 0], 161002, "self")
    expect_status("Mv", [a, T((4, 1)), o, 0], 161002, "vec")
    expect_status("Mv", [a, v, T((3, 1)), 0], 161002, "out")
    expect_status("Mv", [a, T((5,)), o, 0], 161002, "vec")
    expect_status("Mv", [a, v, T((4,)), 0], 161002, "out")
    expect_status("Mv", [T((3, 0), "f16"), T((0,)), T((3,)), 0], 0)  # an empty self's dtype is not compared


# ------------------------------------------------------------------ Einsum

EIN_DT = ["f16", "f32", "i16", "i32", "i64", "u16", "u32", "u64"]


def _ein_arrays(rng, dt, shapes):
    if dt in ("f16", "f32"):
        return [R(rng, s, dt) for s in shapes]
    return [rng.integers(0, 9, s).astype(NP[dt]) for s in shapes]


@pytest.mark.parametrize("dt", EIN_DT)
@pytest.mark.parametrize("eq,shapes", [("abcd,abced->abce", [(2, 3, 4, 5), (2, 3, 4, 6, 5)]),
                                       ("bnsh,bnsdh->bnsd", [(1, 2, 3, 70), (1, 2, 3, 9, 70)]),
                                       ("a,b->ab", [(5,), (7,)]), ("i,j->ij", [(1,), (3,)])])
def test_einsum_values(torch, dt, eq, shapes):
    rng = np.random.default_rng(len(eq))
    x, y = _ein_arrays(rng, dt, shapes)
    tx, ty = to_torch(torch, x), to_torch(torch, y)
    if dt in ("f16", "f32"):
        e = from_torch(torch.einsum(eq, tx.double(), ty.double()).to(getattr(torch, TORCH[dt])))
    else:
        e = torch.einsum(eq, tx.long(), ty.long()).numpy().astype(NP[dt])
    o = np.zeros(e.shape, NP[dt])
    pyaclnn.call("Einsum", [x, y], eq, o)
    if dt in ("f16", "f32"):
        check(o, e, dt)
    else:
        np.testing.assert_array_equal(o, e)
    o = tview(np.zeros(e.shape, NP[dt]), "T")
    pyaclnn.call("Einsum", [tview(x, "S"), tview(y, "T")], eq, o)
    (check if dt in ("f16", "f32") else np.testing.assert_array_equal)(np.ascontiguousarray(o), e, *(
        [dt] if dt in ("f16", "f32") else []))


def test_einsum_outer_empty():
    pyaclnn.call("Einsum", [np.zeros(0, np.float32), np.zeros(3, np.float32)], "a,b->ab", np.zeros((0, 3), np.float32))


_KEEP = []


def tl(*ts):
    _KEEP.append(ts)
    return lib.aclCreateTensorList(ffi.new("aclTensor *[]", [t.handle for t in ts] or [ffi.NULL]), len(ts))


def test_einsum_invalid():
    eq = ffi.new("char[]", b"abcd,abced->abce")
    x, y, o = T((2, 3, 4, 5)), T((2, 3, 4, 6, 5)), T((2, 3, 4, 6))
    expect_status("Einsum", [None, eq, o], 161001, "tensors")
    expect_status("Einsum", [tl(x, y), eq, None], 161001, "output")
    expect_status("Einsum", [tl(x, y), ffi.NULL, o], 161001, "equation")
    expect_status("Einsum", [tl(T((2, 3, 4, 5), "bf16"), y), eq, o], 161002, "tensors[0]")
    expect_status("Einsum", [tl(x, T((2, 3, 4, 6, 5), "f64")), eq, o], 161002, "tensors[1]")
    expect_status("Einsum", [tl(x, T((2, 3, 4, 6, 5), fmt=lib.ACL_FORMAT_NCHW)), eq, o], 161002, "format")
    expect_status("Einsum", [tl(x, y), eq, T((2, 3, 4, 6), "bool")], 161002, "output")
    expect_status("Einsum", [tl(x), eq, o], 161002, "2")
    expect_status("Einsum", [tl(x, y, y), eq, o], 161002, "2")
    expect_status("Einsum", [tl(x, T((2, 3, 4, 6, 5), "f16")), eq, o], 161002, "same dtype")
    expect_status("Einsum", [tl(x, y), ffi.new("char[]", b"abcd,abcde->abce"), o], 161002, "equation")
    expect_status("Einsum", [tl(x, y), ffi.new("char[]", b"ij,jk->ik"), o], 161002, "equation")
    expect_status("Einsum", [tl(T((2, 3, 4)), y), eq, o], 161002, "tensors[0]")
    expect_status("Einsum", [tl(x, T((2, 3, 4, 6))), eq, o], 161002, "tensors[1]")
    expect_status("Einsum", [tl(x, y), eq, T((2, 3, 4))], 161002, "output")
    expect_status("Einsum", [tl(x, T((2, 9, 4, 6, 5))), eq, o], 161002, "dim1")
    expect_status("Einsum", [tl(x, T((2, 3, 4, 6, 4))), eq, o], 161002, "dim3")
    expect_status("Einsum", [tl(x, y), eq, T((3, 3, 4, 6))], 161002, "output dim0")
    expect_status("Einsum", [tl(T((2, 3, 0, 5)), T((2, 3, 0, 6, 5))), eq, T((2, 3, 0, 6))], 161002, "dim2")
    expect_status("Einsum", [tl(x, T((2, 3, 4, 0, 5))), eq, T((2, 3, 4, 0))], 161002, "dim3")
    expect_status("Einsum", [tl(x, y), eq, T((2, 3, 4, 7))], 161002, "output dims 2, 3")
    ab = ffi.new("char[]", b"a,b->ab")
    expect_status("Einsum", [tl(T((3,)), T((4, 1))), ab, T((3, 4))], 161002, "tensors[1]")
    expect_status("Einsum", [tl(T((3,)), T((4,))), ab, T((3, 5))], 161002, "output")


# ------------------------------------------------------------------ determinism


def test_same_bytes_for_threads_and_simd_levels():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
for (M, K, N, nb) in [(300, 700, 260, 1), (17, 33, 45, 40)]:
    a = rng.standard_normal((nb, M, K)).astype(np.float32)
    b = rng.standard_normal((nb, K, N)).astype(np.float32)
    o = np.zeros((nb, M, N), np.float32)
    pyaclnn.call("Matmul", a, b, o, 0)
    h.update(o.tobytes())
    o16 = np.zeros((nb, M, N), np.float16)
    pyaclnn.call("BatchMatMul", a.astype(np.float16), b.astype(np.float16), o16, 0)
    h.update(o16.tobytes())
w = rng.standard_normal((70, 300)).astype(np.float32)   # small M against a transposed (K-contiguous) B
x = rng.standard_normal((5, 300)).astype(np.float32)
o = np.zeros((5, 70), np.float32)
pyaclnn.call("Mm", x, w.T, o, 0)
h.update(o.tobytes())
pyaclnn.call("Mm", x, np.ascontiguousarray(w.T), o, 0)
h.update(o.tobytes())
print(h.hexdigest())
"""
    first = same_bytes_for_threads(code, threads=(1, 2, 3))
    for simd in ("off", "avx2"):
        assert run_python(code, {"PYACLNN_SIMD": simd, "OMP_NUM_THREADS": "2"}) == first, simd


# ------------------------------------------------------------------ Addmm / InplaceAddmm

def _scalar(v):
    from pyaclnn.ops.table import make_scalar
    s = make_scalar(v)
    _KEEP.append(s)
    return s


@pytest.mark.parametrize("dt", MM_DT)
@pytest.mark.parametrize("ss", [(6, 5), (1, 5), (5,), (6, 1), (1,)])
@pytest.mark.parametrize("beta,alpha", [(1.0, 1.0), (0.5, -2.0)])
def test_addmm_values(torch, dt, ss, beta, alpha):
    rng = np.random.default_rng(len(ss) + int(beta * 10))
    s, a, b = R(rng, ss, dt), R(rng, (6, 9), dt), R(rng, (9, 5), dt)
    ts, ta, tb = (to_torch(torch, x).double() for x in (s, a, b))
    e = from_torch(torch.addmm(ts, ta, tb, beta=beta, alpha=alpha).to(getattr(torch, TORCH[dt])))
    o = np.zeros((6, 5), NP[dt])
    pyaclnn.call("Addmm", s, a, b, beta, alpha, o, 0)
    check(o, e, dt)
    o = tview(np.zeros((6, 5), NP[dt]), "T")
    pyaclnn.call("Addmm", tview(s, "S"), tview(a, "T"), tview(b, "S"), beta, alpha, o, 1)
    check(np.ascontiguousarray(o), e, dt)
    if ss == (6, 5):
        s2 = s.copy()
        pyaclnn.call("InplaceAddmm", s2, a, b, beta, alpha, 0)
        check(s2, e, dt)


def test_addmm_empty():
    o = np.zeros((3, 4), np.float32)
    s = np.full((3, 4), 2, np.float32)
    pyaclnn.call("Addmm", s, np.zeros((3, 0), np.float32), np.zeros((0, 4), np.float32), 0.5, 1.0, o, 0)
    np.testing.assert_array_equal(o, 1.0)  # K = 0: beta * self
    pyaclnn.call("Addmm", np.zeros((0, 4), np.float32), np.zeros((0, 3), np.float32), np.zeros((3, 4), np.float32),
                 1.0, 1.0, np.zeros((0, 4), np.float32), 0)


def test_addmm_invalid():
    s, a, b, o = T((3, 5)), T((3, 4)), T((4, 5)), T((3, 5))
    one = _scalar(1.0)
    expect_status("Addmm", [None, a, b, one, one, o, 0], 161001, "self")
    expect_status("Addmm", [s, None, b, one, one, o, 0], 161001, "mat1")
    expect_status("Addmm", [s, a, None, one, one, o, 0], 161001, "mat2")
    expect_status("Addmm", [s, a, b, None, one, o, 0], 161001, "beta")
    expect_status("Addmm", [s, a, b, one, None, o, 0], 161001, "alpha")
    expect_status("Addmm", [s, a, b, one, one, None, 0], 161001, "out")
    expect_status("Addmm", [s, T((3, 4), "f64"), b, one, one, o, 0], 161002, "mat1")
    expect_status("Addmm", [s, a, T((4, 5), "i32"), one, one, o, 0], 161002, "mat2")
    expect_status("Addmm", [T((3, 5), "f64"), a, b, one, one, o, 0], 161002, "self")
    expect_status("Addmm", [s, a, b, one, one, T((3, 5), "i8"), 0], 161002, "out")
    expect_status("Addmm", [s, a, b, one, one, o, 6], 161002, "cubeMathType")
    expect_status("Addmm", [s, T((3, 4, 1)), b, one, one, o, 0], 161002, "mat1")
    expect_status("Addmm", [s, a, T((5,)), one, one, o, 0], 161002, "mat2")
    expect_status("Addmm", [s, a, T((5, 5)), one, one, o, 0], 161002, "k-axis")
    expect_status("Addmm", [T((3, 5), fmt=NZ), a, b, one, one, o, 0], 161002, "self")
    expect_status("Addmm", [T((1, 3, 5)), a, b, one, one, o, 0], 161002, "self")
    expect_status("Addmm", [T((2, 5)), a, b, one, one, o, 0], 161002, "broadcast")
    expect_status("Addmm", [s, a, b, one, one, T((3, 6)), 0], 161002, "out")
    expect_status("InplaceAddmm", [T((1, 5)), a, b, one, one, 0], 161002, "selfRef")
    expect_status("InplaceAddmm", [None, a, b, one, one, 0], 161001, "selfRef")


# ------------------------------------------------------------------ Baddbmm / InplaceBaddbmm


@pytest.mark.parametrize("dt", MM_DT)
@pytest.mark.parametrize("ss,s1,s2", [((3, 4, 5), (3, 4, 6), (3, 6, 5)), ((5,), (3, 4, 6), (1, 6, 5)),
                                      ((1, 4, 1), (2, 4, 7), (2, 7, 5)), ((4, 5), (2, 4, 0), (2, 0, 5))])
def test_baddbmm_values(torch, dt, ss, s1, s2):
    rng = np.random.default_rng(len(ss) + s1[0])
    s, a, b = R(rng, ss, dt), R(rng, s1, dt), R(rng, s2, dt)
    ts, ta, tb = (to_torch(torch, x).double() for x in (s, a, b))
    e = from_torch(torch.baddbmm(ts, ta, tb.expand(s1[0], -1, -1), beta=0.5, alpha=1.5).to(getattr(torch, TORCH[dt])))
    o = np.zeros(e.shape, NP[dt])
    pyaclnn.call("Baddbmm", s, a, b, 0.5, 1.5, o, 0)
    check(o, e, dt)
    o = tview(np.zeros(e.shape, NP[dt]), "T")
    pyaclnn.call("Baddbmm", tview(s, "S"), tview(a, "T"), tview(b, "T"), 0.5, 1.5, o, 4)
    check(np.ascontiguousarray(o), e, dt)
    if ss == e.shape:
        s2_ = s.copy()
        pyaclnn.call("InplaceBaddbmm", s2_, a, b, 0.5, 1.5, 0)
        check(s2_, e, dt)


def test_baddbmm_invalid():
    s, a, b, o = T((2, 3, 5)), T((2, 3, 4)), T((2, 4, 5)), T((2, 3, 5))
    one = _scalar(1.0)
    expect_status("Baddbmm", [None, a, b, one, one, o, 0], 161001, "self")
    expect_status("Baddbmm", [s, None, b, one, one, o, 0], 161001, "batch1")
    expect_status("Baddbmm", [s, a, None, one, one, o, 0], 161001, "batch2")
    expect_status("Baddbmm", [s, a, b, None, one, o, 0], 161001, "beta")
    expect_status("Baddbmm", [s, a, b, one, None, o, 0], 161001, "alpha")
    expect_status("Baddbmm", [s, a, b, one, one, None, 0], 161001, "out")
    expect_status("Baddbmm", [s, T((2, 3, 4), "f64"), b, one, one, o, 0], 161002, "batch1")
    expect_status("Baddbmm", [s, a, T((2, 4, 5), "i32"), one, one, o, 0], 161002, "batch2")
    expect_status("Baddbmm", [T((2, 3, 5), "i64"), a, b, one, one, o, 0], 161002, "self")
    expect_status("Baddbmm", [s, a, b, one, one, T((2, 3, 5), "f64"), 0], 161002, "out")
    expect_status("Baddbmm", [s, a, b, one, one, o, 5], 161002, "cubeMathType")
    expect_status("Baddbmm", [s, T((3, 4)), b, one, one, o, 0], 161002, "batch1")
    expect_status("Baddbmm", [s, a, T((4, 5)), one, one, o, 0], 161002, "batch2")
    expect_status("Baddbmm", [s, a, T((2, 5, 5)), one, one, o, 0], 161002, "penultimate")
    expect_status("Baddbmm", [s, a, T((3, 4, 5)), one, one, o, 0], 161002, "broadcast")
    expect_status("Baddbmm", [T((0, 3, 5)), a, b, one, one, o, 0], 161002, "empty")
    expect_status("Baddbmm", [T((2, 2, 5)), a, b, one, one, o, 0], 161002, "broadcast")
    expect_status("Baddbmm", [s, a, b, one, one, T((2, 3, 6)), 0], 161002, "out")
    expect_status("Baddbmm", [T((3, 3, 5)), T((1, 3, 4)), b, one, one, T((3, 3, 5)), 0], 161002, "broadcast")
    expect_status("Baddbmm", [s, a, T((2, 4, 5), fmt=lib.ACL_FORMAT_NCHW), one, one, o, 0], 161002, "Format")
    expect_status("InplaceBaddbmm", [T((1, 3, 5)), a, b, one, one, 0], 161002, "selfRef")


# ------------------------------------------------------------------ Addbmm / InplaceAddbmm


@pytest.mark.parametrize("dt", MM_DT)
@pytest.mark.parametrize("ss,s1,s2", [((4, 5), (3, 4, 6), (3, 6, 5)), ((5,), (2, 4, 7), (1, 7, 5)),
                                      ((4, 1), (0, 4, 6), (0, 6, 5)), ((), (2, 4, 0), (2, 0, 5))])
def test_addbmm_values(torch, dt, ss, s1, s2):
    rng = np.random.default_rng(len(ss) + s1[0])
    s, a, b = R(rng, ss, dt), R(rng, s1, dt), R(rng, s2, dt)
    ts, ta, tb = (to_torch(torch, x).double() for x in (s, a, b))
    e = from_torch(torch.addbmm(ts, ta, tb.expand(s1[0], -1, -1), beta=0.5, alpha=1.5).to(getattr(torch, TORCH[dt])))
    o = np.zeros(e.shape, NP[dt])
    pyaclnn.call("Addbmm", s, a, b, 0.5, 1.5, o, 0)
    check(o, e, dt)
    o = tview(np.zeros(e.shape, NP[dt]), "T")
    pyaclnn.call("Addbmm", tview(s, "S") if s.ndim else s, tview(a, "T"), tview(b, "T"), 0.5, 1.5, o, 1)
    check(np.ascontiguousarray(o), e, dt)
    if ss == e.shape:
        s2_ = s.copy()
        pyaclnn.call("InplaceAddbmm", s2_, a, b, 0.5, 1.5, 0)
        check(s2_, e, dt)


def test_addbmm_invalid():
    s, a, b, o = T((3, 5)), T((2, 3, 4)), T((2, 4, 5)), T((3, 5))
    one = _scalar(1.0)
    expect_status("Addbmm", [None, a, b, one, one, o, 0], 161001, "self")
    expect_status("Addbmm", [s, None, b, one, one, o, 0], 161001, "batch1")
    expect_status("Addbmm", [s, a, b, None, one, o, 0], 161001, "beta")
    expect_status("Addbmm", [s, a, b, one, one, None, 0], 161001, "out")
    expect_status("Addbmm", [s, T((2, 3, 4), "f64"), b, one, one, o, 0], 161002, "batch1")
    expect_status("Addbmm", [T((3, 5), "i32"), a, b, one, one, o, 0], 161002, "self")
    expect_status("Addbmm", [s, a, b, one, one, T((3, 5), "u8"), 0], 161002, "out")
    expect_status("Addbmm", [s, a, b, one, one, o, 9], 161002, "cubeMathType")
    expect_status("Addbmm", [s, T((3, 4)), b, one, one, o, 0], 161002, "batch1")
    expect_status("Addbmm", [s, a, T((2, 5, 5)), one, one, o, 0], 161002, "penultimate")
    expect_status("Addbmm", [s, a, T((3, 4, 5)), one, one, o, 0], 161002, "broadcast")
    expect_status("Addbmm", [T((0, 5)), a, b, one, one, o, 0], 161002, "empty")
    expect_status("Addbmm", [T((1, 3, 5)), a, b, one, one, o, 0], 161002, "self")
    expect_status("Addbmm", [T((2, 5)), a, b, one, one, o, 0], 161002, "broadcast")
    expect_status("Addbmm", [s, a, b, one, one, T((3, 6)), 0], 161002, "out")
    expect_status("Addbmm", [s, a, T((2, 4, 5), fmt=lib.ACL_FORMAT_NCHW), one, one, o, 0], 161002, "Format")
    expect_status("InplaceAddbmm", [T((1, 5)), a, b, one, one, 0], 161002, "selfRef")


# ------------------------------------------------------------------ Addmv

ADDMV_DT = ["f32", "i32", "i64", "f16", "bf16", "i16", "i8", "u8", "f64", "bool"]


@pytest.mark.parametrize("dt", ADDMV_DT)
@pytest.mark.parametrize("ss", [(5,), (1,), ()])
def test_addmv_values(torch, dt, ss):
    rng = np.random.default_rng(len(ss))
    if dt in ("f32", "f16", "bf16", "f64"):
        s, a, v = R(rng, ss, dt), R(rng, (5, 7), dt), R(rng, (7,), dt)
        alpha, beta = 2.0, 0.5
        ts, ta, tv = (to_torch(torch, x).double() for x in (s, a, v))
        e = from_torch(torch.addmv(ts, ta, tv, beta=beta, alpha=alpha).to(getattr(torch, TORCH[dt])))
        rt, at = TOLS.get(dt, (1e-12, 1e-12))
        rt, at = (3 * rt, 3 * at) if dt in ("f16", "bf16") else (rt, at)
    elif dt == "bool":
        s, a, v = rng.random(ss) < 0.3, rng.random((5, 7)) < 0.3, rng.random(7) < 0.5
        alpha, beta = True, True
        e = np.asarray(s | (a.astype(np.int64) @ v.astype(np.int64) > 0))
    else:
        lo = 0 if dt == "u8" else -3
        s, a, v = (rng.integers(lo, 4, sh).astype(NP[dt]) for sh in (ss, (5, 7), (7,)))
        alpha, beta = 2, 3
        e = (beta * s.astype(np.int64) + alpha * (a.astype(np.int64) @ v.astype(np.int64))).astype(NP[dt])
    o = np.zeros((5,), NP[dt])
    pyaclnn.call("Addmv", s, a, v, alpha, beta, o, 0)
    if dt in ("f32", "f16", "bf16", "f64"):
        np.testing.assert_allclose(o.astype(np.float64), e.astype(np.float64), rtol=rt, atol=at)
    else:
        np.testing.assert_array_equal(o, np.broadcast_to(e, (5,)))
    o2 = tview(np.zeros((5,), NP[dt]), "S")
    pyaclnn.call("Addmv", s, tview(a, "T"), tview(v, "S"), alpha, beta, o2, 0)
    np.testing.assert_array_equal(np.ascontiguousarray(o2), o)


def test_addmv_alpha_beta_zero(torch):
    s = np.array([1.0, np.nan, 3.0], np.float32)
    a = np.array([[np.nan, 1.0], [1.0, 1.0], [2.0, 0.0]], np.float32)
    v = np.array([1.0, 2.0], np.float32)
    o = np.zeros(3, np.float32)
    pyaclnn.call("Addmv", s, a, v, 0.0, 2.0, o, 0)   # alpha 0: the product is never computed
    np.testing.assert_array_equal(o, [2.0, np.nan, 6.0])
    pyaclnn.call("Addmv", s, a, v, 1.0, 0.0, o, 0)   # beta 0: self is never read
    np.testing.assert_array_equal(o, [np.nan, 3.0, 2.0])
    o = np.full(3, 9, np.float32)
    pyaclnn.call("Addmv", s[:1], np.zeros((3, 0), np.float32), np.zeros(0, np.float32), 1.0, 1.0, o, 0)
    np.testing.assert_array_equal(o, 1.0)  # empty product: self broadcast


def test_addmv_invalid():
    s, a, v, o = T((3,)), T((3, 4)), T((4,)), T((3,))
    one = _scalar(1.0)
    expect_status("Addmv", [None, a, v, one, one, o, 0], 161001, "self")
    expect_status("Addmv", [s, None, v, one, one, o, 0], 161001, "mat")
    expect_status("Addmv", [s, a, None, one, one, o, 0], 161001, "vec")
    expect_status("Addmv", [s, a, v, None, one, o, 0], 161001, "alpha")
    expect_status("Addmv", [s, a, v, one, None, o, 0], 161001, "beta")
    expect_status("Addmv", [s, a, v, one, one, None, 0], 161001, "out")
    expect_status("Addmv", [T((3,), "c64"), a, v, one, one, o, 0], 161002, "self")
    expect_status("Addmv", [s, T((3, 4), "i16"), T((4,), "u16"), one, one, o, 0], 161002, "vec")
    expect_status("Addmv", [s, a, v, _scalar(1 + 1j), one, o, 0], 161002, "alpha")
    expect_status("Addmv", [s, a, v, one, one, T((3,), "i32"), 0], 161002, "cast")
    expect_status("Addmv", [T((3, 1)), a, v, one, one, o, 0], 161002, "dims")
    expect_status("Addmv", [s, a, T((5,)), one, one, o, 0], 161002, "Shapes")
    expect_status("Addmv", [T((2,)), a, v, one, one, o, 0], 161002, "Shapes")
    expect_status("Addmv", [T((1,)), a, v, _scalar(0.0), one, o, 0], 161002, "Shapes")
    expect_status("Addmv", [s, a, v, one, one, o, 7], 161002, "cubeMathType")
    expect_status("Addmv", [s, T((3, 4), fmt=NZ), v, one, one, o, 0], 161002, "NZ")


def test_paths_give_the_same_bytes():
    """Each element is one fma chain in k order whatever the path: the rows of a small-M product (N slivers owned)
    equal the same rows of a large product (row blocks owned), and a batched product's batches equal single ones."""
    rng = np.random.default_rng(12)
    a = rng.standard_normal((300, 530)).astype(np.float32)
    b = rng.standard_normal((530, 77)).astype(np.float32)
    big = np.zeros((300, 77), np.float32)
    pyaclnn.call("Mm", a, b, big, 0)
    small = np.zeros((7, 77), np.float32)
    pyaclnn.call("Mm", a[:7], b, small, 0)
    np.testing.assert_array_equal(small, big[:7])
    pyaclnn.call("Mm", a[:7], np.ascontiguousarray(b.T).T, small, 0)
    np.testing.assert_array_equal(small, big[:7])
    bb = np.zeros((3, 7, 77), np.float32)
    pyaclnn.call("BatchMatMul", np.stack([a[:7]] * 3), np.stack([b] * 3), bb, 0)
    for i in range(3):
        np.testing.assert_array_equal(bb[i], big[:7])
