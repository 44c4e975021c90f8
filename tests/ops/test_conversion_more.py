"""The ops of tools/optable/conversion_more.py against PyTorch CPU / literal numpy: every dtype of each A2 list,
strided inputs and outputs, the empty-tensor early returns, and the invalid rows in the upstream order (NULLs,
dtypes, shapes; the inner-nullptr NULLs of UnfoldGrad and LogSpace; the tiling errors of the generated
StridedSliceAssignV2; aclnnStridedSlice's refusal on A2)."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from pyaclnn.ops.table import make_scalar, scalar
from helpers import same_bytes_for_threads
from table_harness import NP, compare, expect_status, from_torch, rand, to_torch

ia = pyaclnn.int_array
BF16 = pyaclnn.bfloat16


def T(shape, dt=np.float32, fmt=None):
    return AclTensor.empty(shape, dt, fmt=fmt)


_KEEP = []


def tlist(*ts):
    """An aclTensorList of AclTensor. Never destroyed here: aclDestroyTensorList would destroy its tensors, which
    their AclTensor objects own (kept alive with the list for the test session)."""
    _KEEP.append(ts)
    return lib.aclCreateTensorList(ffi.new("aclTensor *[]", [t.handle for t in ts] or [ffi.NULL]), len(ts))


def strided(x):
    big = np.zeros(x.shape[:-1] + (x.shape[-1] * 2 + 1,), x.dtype)
    v = big[..., 1::2]
    v[...] = x
    return v


# ---------------------------------------------------------------- StridedSlice: an Ascend 950 op


def test_strided_slice_refused_on_a2():
    """After the NULL checks in API order, every call is refused on A2 (161002), whatever the dtype."""
    x, o = T((4, 4)), T((2, 4))
    args = [x, ia([0]), ia([2]), ia([1]), 0, 0, 0, 0, 0, o]
    for i, name in ((0, "self"), (1, "begin"), (2, "end"), (3, "strides"), (9, "out")):
        bad = list(args)
        bad[i] = None
        expect_status("StridedSlice", bad, 161001, name)
    for dt in (np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8, np.bool_):
        expect_status("StridedSlice", [T((4, 4), dt), ia([0]), ia([2]), ia([1]), 0, 0, 0, 0, 0, T((2, 4), dt)],
                      161002, "950")
    assert OPS["StridedSlice"]["dtypes"] == []


# ---------------------------------------------------------------- StridedSliceAssignV2

SSA = OPS["StridedSliceAssignV2"]["dtypes"]


def ssa_expected(torch, var, val, slices):
    t = to_torch(torch, var).clone()
    t[slices] = to_torch(torch, val)
    return from_torch(t)


@pytest.mark.parametrize("dt", SSA)
def test_ssa_dtypes(torch, dt):
    rng = np.random.default_rng(1)
    var = rand(rng, (5, 6, 4), dt)
    val = rand(rng, (2, 3, 3), dt)
    exp = ssa_expected(torch, var, val, (slice(1, 5, 2), slice(0, 6, 2), slice(1, 4)))
    v = strided(var)
    pyaclnn.call("StridedSliceAssignV2", v, strided(val), [1, 0, 1], [5, 6, 4], [2, 2, 1], None)
    compare(v, exp, dt)


def test_ssa_axes_negative_and_clamped(torch):
    rng = np.random.default_rng(2)
    var = rand(rng, (6, 5), "f32")
    val = rand(rng, (2, 5), "f32")
    # axes [0] only (dim 1 whole); begin -4 -> 2; end 100 -> 6; stride 3 -> rows 2, 5
    exp = ssa_expected(torch, var, val, (slice(2, 6, 3), slice(None)))
    v = var.copy()
    pyaclnn.call("StridedSliceAssignV2", v, val, [-4], [100], [3], [-2])
    compare(v, exp, "f32")
    # without axes: negative begin/end wrap once; beyond -dim clamps to 0
    val2 = rand(rng, (3, 2), "f32")
    exp = ssa_expected(torch, var, val2, (slice(0, 3), slice(2, 4)))
    v = var.copy()
    pyaclnn.call("StridedSliceAssignV2", v, val2, [-100, -3], [-3, -1], [1, 1], None)
    compare(v, exp, "f32")


def test_ssa_empty_slice_and_empty_var():
    var = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = var.copy()
    pyaclnn.call("StridedSliceAssignV2", v, np.zeros((0, 4), np.float32), [2], [1], [1], [0])  # begin > end
    np.testing.assert_array_equal(v, var)
    expect_status("StridedSliceAssignV2", [T((0, 4)), T((1, 4)), ia([0]), ia([1]), ia([1]), None], 0)


def test_ssa_invalid_rows():
    var, val = T((4, 3)), T((2, 3))
    good = [var, val, ia([0, 0]), ia([4, 3]), ia([2, 1]), None]
    expect_status("StridedSliceAssignV2", good, 0)
    for i, name in ((0, "varRef"), (1, "inputValue"), (2, "begin"), (3, "end"), (4, "strides")):
        bad = list(good)
        bad[i] = None
        expect_status("StridedSliceAssignV2", bad, 161001, name)
    expect_status("StridedSliceAssignV2", [T((4, 3), np.uint8), T((2, 3), np.uint8)] + good[2:], 161002, "varRef")
    expect_status("StridedSliceAssignV2", [var, T((2, 3), np.uint8)] + good[2:], 161002, "inputValue")
    expect_status("StridedSliceAssignV2", [var, T((2, 3), np.float16)] + good[2:], 161002, "inputValue")
    expect_status("StridedSliceAssignV2", [var, val, ia([0] * 9), ia([4] * 9), ia([1] * 9), None], 161002, "begin")
    # the tiling's checks: 561002
    expect_status("StridedSliceAssignV2", [var, T((2, 3, 1))] + good[2:], 561002, "inputValue")
    expect_status("StridedSliceAssignV2", [var, T((3, 3))] + good[2:], 561002, "inputValue")
    expect_status("StridedSliceAssignV2", [var, T((4, 2)), ia([0, 0]), ia([4, 3]), ia([1, 2]), None], 561002,
                  "last dim")
    expect_status("StridedSliceAssignV2", [var, val, ia([0, 0]), ia([4, 3]), ia([0, 1]), None], 561002, "strides")
    expect_status("StridedSliceAssignV2", [var, val, ia([0, 0]), ia([4, 3]), ia([-2, 1]), None], 561002, "strides")
    expect_status("StridedSliceAssignV2", [var, val, ia([0]), ia([4]), ia([2]), None], 561002, "strides")
    expect_status("StridedSliceAssignV2", [var, val, ia([0]), ia([4]), ia([2]), ia([2])], 561002, "axesOptional")
    expect_status("StridedSliceAssignV2", [var, val, ia([0, 0]), ia([4, 4]), ia([2, 2]), ia([0, -2])], 561002,
                  "duplicated")
    expect_status("StridedSliceAssignV2", [var, val, ia([0]), ia([4]), ia([2]), ia([-2])], 0)


# ---------------------------------------------------------------- ChunkCat

CC = [(a, b) for a in OPS["ChunkCat"]["dtypes"] for b in OPS["ChunkCat"]["dtypes"] if a != "f32" or b == "f32"]


@pytest.mark.parametrize("dt,odt", CC, ids=[f"{a}-{b}" for a, b in CC])
def test_chunk_cat_dtypes(torch, dt, odt):
    rng = np.random.default_rng(3)
    xs = [rand(rng, (7, 3), dt), rand(rng, (2, 2, 3), dt), rand(rng, (5,), dt), rand(rng, (0, 4), dt),
          rand(rng, (9, 1, 2), dt)]
    exp = torch._chunk_cat([to_torch(torch, x) for x in xs if x.size], 0, 3)  # the op skips empty tensors
    exp = exp.to(to_torch(torch, np.zeros(1, NP[odt])).dtype)
    out = strided(np.full(tuple(exp.shape), 9, NP[odt]))
    pyaclnn.call("ChunkCat", [xs[0], strided(xs[1]), xs[2], xs[3], xs[4]], 0, 3, out)
    compare(out, from_torch(exp), odt)


def test_chunk_cat_more_chunks_than_rows_and_8d(torch):
    rng = np.random.default_rng(4)
    xs = [rand(rng, (3, 2, 1, 2, 1, 1, 2, 1), "f32"), rand(rng, (2, 5), "f32")[:, ::2]]
    exp = torch._chunk_cat([torch.from_numpy(np.ascontiguousarray(x)) for x in xs], 0, 5)
    out = np.zeros(tuple(exp.shape), np.float32)
    pyaclnn.call("ChunkCat", xs, 0, 5, out)
    compare(out, exp.numpy(), "f32")


def test_chunk_cat_upstream_ut_cases():
    """CANN's own UT (not buildable under the harness): two tensors and one tensor, FLOAT and FLOAT16."""
    for dt in (np.float32, np.float16):
        a, b = T((5, 3), dt), T((5, 2), dt)
        expect_status("ChunkCat", [tlist(a, b), 0, 5, T((5, 5), dt)], 0)
        expect_status("ChunkCat", [tlist(a), 0, 5, T((5, 3), dt)], 0)


def test_chunk_cat_invalid_rows():
    a, b, o = T((4, 3)), T((2, 3)), T((2, 9))
    expect_status("ChunkCat", [tlist(a, b), 0, 2, o], 0)
    expect_status("ChunkCat", [None, 1, 2, o], 161002, "dim")          # dim first, before the NULL list
    expect_status("ChunkCat", [None, 0, 2, o], 161001, "tensors")
    expect_status("ChunkCat", [tlist(), 0, 2, None], 0)                # an empty list succeeds at once
    expect_status("ChunkCat", [tlist(a, b), 0, 2, None], 161001, "out")
    expect_status("ChunkCat", [tlist(T((4, 3), np.float64), b), 0, 2, o], 161002, "tensors[0]")
    expect_status("ChunkCat", [tlist(a, T((2, 3), np.float16)), 0, 2, o], 161002, "tensors[1]")
    expect_status("ChunkCat", [tlist(a, b), 0, 2, T((2, 9), np.int32)], 161002, "out")
    expect_status("ChunkCat", [tlist(a, b), 0, 2, T((2, 9), np.float16)], 161002, "FLOAT")
    h = T((4, 3), np.float16)
    expect_status("ChunkCat", [tlist(h, T((2, 3), np.float16)), 0, 2, T((2, 9), np.float32)], 0)
    expect_status("ChunkCat", [tlist(T((4, 3), fmt=lib.ACL_FORMAT_FRACTAL_NZ), b), 0, 2, o], 161002, "tensors[0]")
    expect_status("ChunkCat", [tlist(a, b), 0, 2, T((2, 9), fmt=lib.ACL_FORMAT_NC1HWC0)], 161002, "out")
    expect_status("ChunkCat", [tlist(a, T((1,) * 9)), 0, 2, o], 161002, "tensors[1]")
    expect_status("ChunkCat", [tlist(a, T(())), 0, 2, o], 161002, "tensors[1]")
    expect_status("ChunkCat", [tlist(T((0, 3)), T((2, 0))), 0, 2, T((7, 7))], 0)  # all empty: out not looked at
    expect_status("ChunkCat", [tlist(a, b), 0, 0, o], 161002, "numChunks")
    expect_status("ChunkCat", [tlist(a, b), 0, -2, o], 561103, "numChunks")
    expect_status("ChunkCat", [tlist(a, b), 0, 2, T((2, 8))], 161002, "out")
    expect_status("ChunkCat", [tlist(a, b), 0, 2, T((3, 9))], 161002, "out")


# ---------------------------------------------------------------- UnfoldGrad

UG = [(dt, case) for dt in OPS["UnfoldGrad"]["dtypes"] for case in range(3)]
UG_CASES = [((4, 9), 1, 3, 2), ((2, 10, 3), 1, 4, 3), ((7, 2, 3), 0, 2, 2)]  # (inputSizes, dim, size, step)


@pytest.mark.parametrize("dt,case", UG, ids=[f"{a}-{b}" for a, b in UG])
def test_unfold_grad(torch, dt, case):
    sizes, dim, size, step = UG_CASES[case]
    rng = np.random.default_rng(5)
    gshape = tuple(torch.zeros(sizes).unfold(dim, size, step).shape)
    g = rand(rng, gshape, dt)
    exp = torch.ops.aten.unfold_backward(torch.from_numpy(g.astype(np.float64)), list(sizes), dim, size, step)
    gi = strided(np.zeros(sizes, g.dtype))
    pyaclnn.call("UnfoldGrad", strided(g), list(sizes), dim, size, step, gi)
    compare(gi, exp.numpy().astype(g.dtype), dt)  # double sum, one rounding


def test_unfold_grad_size_larger_than_step_overlaps_and_gaps(torch):
    g = np.arange(1, 7, dtype=np.float32).reshape(3, 2)  # unfold of 7 elements, size 2, step 3 -> windows 0, 3
    g = g[:2]
    exp = torch.ops.aten.unfold_backward(torch.from_numpy(g), [7], 0, 2, 3)
    gi = np.full(7, 9, np.float32)
    pyaclnn.call("UnfoldGrad", g, [7], 0, 2, 3, gi)
    np.testing.assert_array_equal(gi, exp.numpy())


def test_unfold_grad_invalid_rows():
    go, gi = T((3, 2, 3)), T((8, 2))
    good = [go, ia([8, 2]), 0, 3, 2, gi]
    expect_status("UnfoldGrad", good, 0)
    for i, name in ((0, "gradOut"), (1, "inputSizes"), (5, "gradIn")):
        bad = list(good)
        bad[i] = None
        expect_status("UnfoldGrad", bad, 561103, name)
    expect_status("UnfoldGrad", [T((3, 2, 3), np.float64)] + good[1:], 161002, "gradOut")
    expect_status("UnfoldGrad", good[:5] + [T((8, 2), np.int32)], 161002, "gradIn")
    expect_status("UnfoldGrad", [T((1,) * 9), ia([1] * 8), 0, 1, 1, T((1,) * 8)], 161002, "gradOut")
    expect_status("UnfoldGrad", [T((3,)), ia([]), 0, 3, 2, T(())], 161002, "gradIn")
    expect_status("UnfoldGrad", [go, ia([8]), 0, 3, 2, gi], 161002, "inputSizes")
    expect_status("UnfoldGrad", [go, ia([8, 2]), 0, 3, 2, T((8, 3))], 161002, "gradIn")
    expect_status("UnfoldGrad", [go, ia([8, 2]), 2, 3, 2, gi], 161002, "dim")
    expect_status("UnfoldGrad", [go, ia([8, 2]), -1, 3, 2, gi], 161002, "dim")
    expect_status("UnfoldGrad", [go, ia([8, 2]), 0, 0, 2, gi], 161002, "size")
    expect_status("UnfoldGrad", [go, ia([8, 2]), 0, 3, 0, gi], 161002, "step")
    expect_status("UnfoldGrad", [T((3, 2, 3), fmt=lib.ACL_FORMAT_FRACTAL_NZ)] + good[1:], 161002, "FRACTAL_NZ")
    expect_status("UnfoldGrad", [T((0, 2, 3)), ia([8, 2]), 0, 3, 2, gi], 0)   # empty: early success
    expect_status("UnfoldGrad", [T((4, 2, 3))] + good[1:], 161002, "gradOut")  # not the unfold of inputSizes
    expect_status("UnfoldGrad", [T((3, 2, 2))] + good[1:], 161002, "gradOut")


# ---------------------------------------------------------------- CoalesceSparse

CS = [(v, i, u) for v in OPS["CoalesceSparse"]["dtypes"] for i in ("i32", "i64") for u in ("i32", "i64")]


def coalesce_reference(uidx, idx, vals, new_idx, new_vals):
    """The documented scatter, literally: rows in ascending nonzero order, each addition in the values' dtype."""
    ni, nv = new_idx.copy(), new_vals.copy()
    for i, u in enumerate(uidx):
        if 0 <= u < ni.shape[0]:
            ni[u] = idx[i]
            if nv.dtype == np.int32:
                nv[u] = (nv[u].astype(np.int64) + vals[i]).astype(np.int64).astype(np.uint32).view(np.int32)
            else:
                nv[u] = nv[u] + vals[i]
    return ni, nv


@pytest.mark.parametrize("vdt,idt,udt", CS, ids=[f"{a}-{b}-{c}" for a, b, c in CS])
def test_coalesce_sparse(torch, vdt, idt, udt):
    rng = np.random.default_rng(6)
    n, m = 40, 3
    idx = rng.integers(0, 4, (n, m)).astype(NP[idt])
    vals = rand(rng, (n, 2, 3), vdt)
    flat = torch.from_numpy(idx.astype(np.int64)) @ torch.tensor([16, 4, 1])
    uniq, inverse = torch.unique(flat, return_inverse=True)
    R = len(uniq)
    uidx = inverse.numpy().astype(NP[udt])
    ni = np.zeros((R, m), idx.dtype)
    nv = strided(np.zeros((R, 2, 3), vals.dtype))
    pyaclnn.call("CoalesceSparse", np.array([R], NP[udt]), uidx, strided(idx), vals, ni, nv)
    eni, env = coalesce_reference(uidx, idx, vals, np.zeros((R, m), idx.dtype), np.zeros((R, 2, 3), vals.dtype))
    np.testing.assert_array_equal(ni, eni)
    np.testing.assert_array_equal(nv, env)
    if vdt == "f32":  # and PyTorch's coalesce agrees up to the summation order
        st = torch.sparse_coo_tensor(torch.from_numpy(idx.astype(np.int64)).T, torch.from_numpy(vals),
                                     (4, 4, 4, 2, 3), check_invariants=True).coalesce()
        np.testing.assert_array_equal(ni.astype(np.int64), st.indices().T.numpy())
        np.testing.assert_allclose(nv, st.values().numpy(), rtol=1e-6, atol=1e-5)


def test_coalesce_sparse_accumulates_and_skips_out_of_range():
    idx = np.array([[1, 2], [3, 4], [1, 2]], np.int64)
    vals = np.array([1.5, 2.0, 4.0], np.float32)
    ni = np.full((2, 2), -1, np.int64)
    nv = np.array([10.0, 20.0], np.float32)  # accumulated into as found (the caller zeroes it)
    pyaclnn.call("CoalesceSparse", np.array([2], np.int64), np.array([0, 5, 0], np.int64), idx, vals, ni, nv)
    np.testing.assert_array_equal(ni, [[1, 2], [-1, -1]])
    np.testing.assert_array_equal(nv, [15.5, 20.0])


def test_coalesce_sparse_f16_rounds_each_addition():
    vals = np.array([2048, 1, 1, 1, 1], np.float16)  # f16 spacing at 2048 is 2: each +1 ties to even
    nv = np.zeros(1, np.float16)
    pyaclnn.call("CoalesceSparse", np.array([1], np.int32), np.zeros(5, np.int32), np.zeros((5, 1), np.int32), vals,
                 np.zeros((1, 1), np.int32), nv)
    acc = np.float16(0)
    for v in vals:
        acc = np.float16(acc + v)
    assert nv[0] == acc == np.float16(2048)


def test_coalesce_sparse_invalid_rows():
    ul, ui, ix, va = T((1,), np.int32), T((3,), np.int32), T((3, 2), np.int64), T((3,))
    ni, nv = T((2, 2), np.int64), T((2,))
    good = [ul, ui, ix, va, ni, nv]
    expect_status("CoalesceSparse", good, 0)
    for i, name in enumerate(("uniqueLen", "uniqueIndices", "indices", "values", "newIndices", "newValues")):
        bad = list(good)
        bad[i] = None
        expect_status("CoalesceSparse", bad, 161001, name)
    rows = [(0, T((1,), np.int16), "uniqueLen"), (1, T((3,), np.int64), "uniqueIndices"),
            (2, T((3, 2), np.float32), "indices"), (3, T((3,), np.float64), "values"),
            (4, T((2, 2), np.int32), "newIndices"), (5, T((2,), np.float16), "newValues"),
            (2, T((3,), np.int64), "indices"), (1, T((4,), np.int32), "uniqueIndices"),
            (3, T((2,)), "values"), (4, T((2, 3), np.int64), "newIndices"), (5, T((3,)), "newValues"),
            (5, T((2, 1)), "newValues")]
    for i, t, name in rows:
        bad = list(good)
        bad[i] = t
        expect_status("CoalesceSparse", bad, 161002, name)
    expect_status("CoalesceSparse", [ul, T((0,), np.int32), T((0, 2), np.int64), T((0,)), ni, nv], 0)


def test_coalesce_sparse_same_bytes_for_threads():
    same_bytes_for_threads(r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(7)
n = 200000
u = rng.integers(0, 5000, n).astype(np.int64)
vals = rng.standard_normal((n, 4)).astype(np.float32)
nv = np.zeros((5000, 4), np.float32)
pyaclnn.call("CoalesceSparse", np.array([5000], np.int64), u, rng.integers(0, 9, (n, 2)), vals,
             np.zeros((5000, 2), np.int64), nv)
print(hashlib.sha256(nv.tobytes()).hexdigest())
""")


# ---------------------------------------------------------------- LogSpace

LS_SCALARS = [("f32", np.float32), ("f16", np.float16), ("bf16", BF16), ("i64", np.int64), ("f64", np.float64)]
LS = [(dt, s, e) for dt in OPS["LogSpace"]["dtypes"] for s, e in (("f32", "f32"), ("f16", "bf16"), ("i64", "f64"),
                                                                   ("bf16", "f16"), ("f16", "f16"))]


def logspace_reference(torch, start, end, steps, base, sdt, edt, rdt):
    """The op_api's chain in PyTorch: start/end to the compute dtype, linspace in float32 rounded to it, base as a
    float rounded to it, pow in float32 rounded to it, then the cast to result's dtype."""
    td = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    cd = "f32" if {sdt, edt} == {"f16", "bf16"} else rdt
    s = torch.tensor(start, dtype=torch.float64).to(td[cd]).float().item()
    e = torch.tensor(end, dtype=torch.float64).to(td[cd]).float().item()
    lin = torch.linspace(s, e, steps, dtype=torch.float32).to(td[cd]).float()
    b = torch.tensor(float(np.float32(base))).to(td[cd]).float()
    return torch.pow(b, lin).to(td[cd]).to(td[rdt])


@pytest.mark.parametrize("rdt,sdt,edt", LS, ids=[f"{a}-{b}-{c}" for a, b, c in LS])
def test_logspace(torch, rdt, sdt, edt):
    sd, ed = dict(LS_SCALARS)[sdt], dict(LS_SCALARS)[edt]
    start, end = (-1.25, 2.5) if sdt != "i64" else (-1, 2.5)
    for steps, base in ((7, 10.0), (1, 2.0), (12, 0.5)):
        exp = logspace_reference(torch, float(np.array(start).astype(sd).astype(np.float64)),
                                 float(np.array(end).astype(ed).astype(np.float64)), steps, base, sdt, edt, rdt)
        out = strided(np.zeros(steps, NP[rdt]))
        pyaclnn.call("LogSpace", scalar(start, sd), scalar(end, ed), steps, base, out)
        np.testing.assert_allclose(out.astype(np.float64), from_torch(exp).astype(np.float64), rtol=2e-6 if
                                   rdt == "f32" else 1e-3, atol=0)


def test_logspace_result_any_shape_row_major(torch):
    out = np.zeros((2, 3), np.float32).T  # a transposed view: element i in row-major order of the view
    pyaclnn.call("LogSpace", 0.0, 5.0, 6, 2.0, out)
    np.testing.assert_allclose(out.reshape(-1), torch.logspace(0, 5, 6, base=2).numpy(), rtol=1e-6)


def test_logspace_invalid_rows():
    r = T((5,))
    s = make_scalar(1.0)
    e = make_scalar(2.0)
    expect_status("LogSpace", [s, e, 5, 10.0, r], 0)
    expect_status("LogSpace", [None, e, 5, 10.0, r], 561103, "start")
    expect_status("LogSpace", [s, None, 5, 10.0, r], 561103, "end")
    expect_status("LogSpace", [s, e, 5, 10.0, None], 561103, "result")
    for dt in (np.float64, np.int64, np.int32):
        expect_status("LogSpace", [s, e, 5, 10.0, T((5,), dt)], 161002, "result")
    expect_status("LogSpace", [s, e, -2, 10.0, r], 161002, "steps")
    expect_status("LogSpace", [s, e, 0, 10.0, T((7,))], 0)          # steps 0: early success
    expect_status("LogSpace", [s, e, 4, 10.0, r], 161002, "result")  # result must hold steps elements
