"""aclnnMultiScaleDeformableAttnFunction / aclnnMultiScaleDeformableAttentionGrad against a literal numpy loop
reference (tests/reference/msda.py) and PyTorch autograd of mmcv's grid_sample formulation; adversarial level
tables; the invalid-input tables with exact codes; determinism across thread counts."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from helpers import BF16, DTYPE_IDS, DTYPES, TOL, run_python, same_bytes_for_threads, strided, expect_invalid, ws_call
from reference.msda import msda_backward as ref_bwd
from reference.msda import msda_forward as ref_fwd

NULLPTR, INVALID, INNER_NULLPTR = 161001, 161002, 561103
IDX_DTYPES = [np.int32, np.int64]


def make_case(bs=2, nh=2, C=8, shapes=((4, 5), (2, 3)), nq=33, npt=3, dtype=np.float32, idx=np.int32, seed=0):
    """Random inputs; locations mix interior points, exact borders 0/1 and points outside [0, 1]."""
    rng = np.random.default_rng(seed)
    shapes = np.array(shapes, dtype=idx)
    sizes = [int(h) * int(w) for h, w in shapes]
    start = np.array(np.cumsum([0] + sizes[:-1]), dtype=idx)
    K = sum(sizes)
    nl = len(sizes)
    value = rng.standard_normal((bs, K, nh, C)).astype(dtype)
    loc = rng.uniform(-0.15, 1.15, (bs, nq, nh, nl, npt, 2))
    m = rng.uniform(size=loc.shape)
    loc[m < 0.08] = 0.0
    loc[(m >= 0.08) & (m < 0.16)] = 1.0
    loc[(m >= 0.16) & (m < 0.2)] = rng.choice([-3.0, 2.5, -0.9, 1.9], size=int(((m >= 0.16) & (m < 0.2)).sum()))
    loc = loc.astype(dtype)
    attn = rng.uniform(0.0, 1.0, (bs, nq, nh, nl, npt)).astype(dtype)
    go = rng.standard_normal((bs, nq, nh * C)).astype(dtype)
    return value, shapes, start, loc, attn, go


def close(actual, expected, dtype, what=""):
    """Element-wise against a float64 reference; the absolute part scales with the array's magnitude."""
    rtol, atol = TOL[np.dtype(dtype)]
    scale = float(np.max(np.abs(expected))) if np.size(expected) else 0.0
    act = np.asarray(actual).astype(np.float64)
    assert act.shape == expected.shape, what
    np.testing.assert_allclose(act, expected, rtol=rtol, atol=max(atol, 2 * rtol * scale), err_msg=what)


def f64(a):
    return np.asarray(a).astype(np.float64)


# ---------------------------------------------------------------- numpy reference

@pytest.mark.parametrize("idx", IDX_DTYPES, ids=["i32", "i64"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_forward_matches_numpy(dtype, idx):
    value, shapes, start, loc, attn, _ = make_case(dtype=dtype, idx=idx, seed=1)
    out = pyaclnn.multi_scale_deformable_attn(value, shapes, start, loc, attn)
    assert out.dtype == np.dtype(dtype) and out.shape == (2, 33, 16)
    close(out, ref_fwd(f64(value), shapes, start, loc, f64(attn)), dtype)


@pytest.mark.parametrize("go_rank", [3, 4])
@pytest.mark.parametrize("idx", IDX_DTYPES, ids=["i32", "i64"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_backward_matches_numpy(dtype, idx, go_rank):
    value, shapes, start, loc, attn, go = make_case(nq=9, C=16, dtype=dtype, idx=idx, seed=2)
    if go_rank == 4:
        go = go.reshape(2, 9, 2, 16)
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, start, loc, attn, go)
    rv, rl, ra = ref_bwd(f64(value), shapes, start, loc, f64(attn), f64(go))
    close(gv, rv, dtype, "grad_value")
    close(gl, rl, dtype, "grad_location")
    close(ga, ra, dtype, "grad_attn_weight")


def test_backward_mixed_dtypes_each_output_in_its_own_dtype():
    value, shapes, start, loc, attn, go = make_case(nq=7, seed=3)
    value, loc, attn = value.astype(np.float16), loc.astype(BF16), attn.astype(np.float32)
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, start, loc, attn, go.astype(BF16))
    assert (gv.dtype, gl.dtype, ga.dtype) == (np.dtype(np.float16), BF16, np.dtype(np.float32))
    rv, rl, ra = ref_bwd(f64(value), shapes, start, loc, f64(attn), f64(go.astype(BF16)))
    close(gv, rv, np.float16)
    close(gl, rl, BF16)
    close(ga, ra, np.float32)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_non_contiguous_views(kind):
    value, shapes, start, loc, attn, go = make_case(nq=32, seed=4)
    out = pyaclnn.multi_scale_deformable_attn(strided(value, kind), strided(shapes, kind), strided(start, kind),
                                              strided(loc, kind), strided(attn, kind))
    close(out, ref_fwd(value, shapes, start, loc, attn), np.float32)
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(strided(value, kind), strided(shapes, kind),
                                                              strided(start, kind), strided(loc, kind),
                                                              strided(attn, kind), strided(go, kind))
    rv, rl, ra = ref_bwd(value, shapes, start, loc, attn, go)
    close(gv, rv, np.float32)
    close(gl, rl, np.float32)
    close(ga, ra, np.float32)


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
def test_strided_outputs_through_the_c_api(dtype):
    """gradValue / gradLocation / gradAttnWeight written through strided views (the fp32 staging path)."""
    value, shapes, start, loc, attn, go = make_case(nq=5, seed=5, dtype=dtype)
    ins = [pyaclnn.AclTensor.from_array(a) for a in (value, shapes, start, loc, attn, go)]
    outs = [pyaclnn.AclTensor.from_array(strided(np.full(a.shape, 7, dtype), "slice")) for a in (value, loc, attn)]
    pyaclnn.launch("MultiScaleDeformableAttentionGrad", *ins, *outs)
    for got, ref in zip((o.numpy() for o in outs), ref_bwd(f64(value), shapes, start, loc, f64(attn), f64(go))):
        close(got, ref, dtype)


# ---------------------------------------------------------------- the C = 32 specialisation and the block paths

def encoder_case(shapes_=((12, 16), (6, 8), (3, 4), (2, 3)), bs=2, nh=3, C=32, npt=4, dtype=np.float32, seed=11):
    """Deformable-DETR encoder sampling: query i is pixel i of the flattened pyramid, its reference point that
    pixel's centre, plus small offsets (most corners inside, some on the level borders)."""
    rng = np.random.default_rng(seed)
    shapes = np.array(shapes_, np.int32)
    sizes = [h * w for h, w in shapes_]
    start = np.array(np.cumsum([0] + sizes[:-1]), np.int32)
    K = sum(sizes)
    ref = np.concatenate([np.stack(np.meshgrid((np.arange(w) + 0.5) / w, (np.arange(h) + 0.5) / h), -1).reshape(-1, 2)
                          for h, w in shapes_])[None, :, None, None, None, :]
    loc = (ref + rng.normal(0, 0.06, (bs, K, nh, len(sizes), npt, 2))).astype(dtype)
    value = rng.standard_normal((bs, K, nh, C)).astype(dtype)
    attn = rng.uniform(0, 1, (bs, K, nh, len(sizes), npt)).astype(dtype)
    go = rng.standard_normal((bs, K, nh * C)).astype(dtype)
    return value, shapes, start, loc, attn, go


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_encoder_pattern_c32_matches_numpy(dtype):
    """C = 32 (the specialised owner loops), fp32 blocks used in place, fp16/bf16 blocks converted as rows."""
    value, shapes, start, loc, attn, go = encoder_case(dtype=dtype)
    out = pyaclnn.multi_scale_deformable_attn(value, shapes, start, loc, attn)
    close(out, ref_fwd(f64(value), shapes, start, loc, f64(attn)), dtype, "forward")
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, start, loc, attn, go)
    rv, rl, ra = ref_bwd(f64(value), shapes, start, loc, f64(attn), f64(go))
    close(gv, rv, dtype, "grad_value")
    close(gl, rl, dtype, "grad_location")
    close(ga, ra, dtype, "grad_attn_weight")


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["f32", "f16"])
def test_c32_strided_blocks_and_outputs(dtype, kind):
    """C = 32 with every tensor a non-contiguous view (per-element block loads) and strided outputs (stores)."""
    value, shapes, start, loc, attn, go = make_case(bs=2, nh=2, C=32, nq=33, npt=3, dtype=dtype, seed=12)
    ins = [pyaclnn.AclTensor.from_array(strided(a, kind)) for a in (value, shapes, start, loc, attn, go)]
    outs = [pyaclnn.AclTensor.from_array(strided(np.full(a.shape, 7, dtype), kind)) for a in (value, loc, attn)]
    pyaclnn.launch("MultiScaleDeformableAttentionGrad", *ins, *outs)
    for got, ref in zip((o.numpy() for o in outs), ref_bwd(f64(value), shapes, start, loc, f64(attn), f64(go))):
        close(got, ref, dtype)
    out = pyaclnn.AclTensor.from_array(strided(np.full(go.shape, 7, dtype), kind))
    pyaclnn.launch("MultiScaleDeformableAttnFunction", *ins[:5], out)
    close(out.numpy(), ref_fwd(f64(value), shapes, start, loc, f64(attn)), dtype)


SIMD_VARIANTS = r"""
import hashlib, numpy as np, pyaclnn
def strided(a):  # the same values through a non-contiguous view
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    big[..., 1::2] = a
    return big[..., 1::2]
rng = np.random.default_rng(3)
h = hashlib.sha256()
shapes = np.array([[9, 11], [5, 6], [3, 3]], np.int32)
start = np.array([0, 99, 129], np.int32)
K = 138
for C, dt in ((32, np.float32), (32, np.float16), (32, pyaclnn.bfloat16), (16, np.float32), (24, np.float16)):
    v = rng.standard_normal((2, K, 3, C)).astype(dt)
    loc = rng.uniform(-0.2, 1.2, (2, 60, 3, 3, 4, 2))
    loc[:, ::7] = np.round(loc[:, ::7])  # exact borders 0 / 1
    loc = loc.astype(dt)
    a = rng.uniform(0, 1, (2, 60, 3, 3, 4)).astype(dt)
    go = rng.standard_normal((2, 60, 3 * C)).astype(dt)
    for args in ((v, shapes, start, loc, a, go), tuple(strided(x) for x in (v, shapes, start, loc, a, go))):
        for r in pyaclnn.multi_scale_deformable_attn_backward(*args):
            h.update(np.ascontiguousarray(r).tobytes())
        h.update(pyaclnn.multi_scale_deformable_attn(*args[:5]).tobytes())
print(h.hexdigest())
"""


def test_simd_variants_give_identical_bytes():
    """The portable, AVX2 and AVX-512VL owner loops perform the same fp32 operations in the same order."""
    outs = {cap: run_python(SIMD_VARIANTS, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


# ---------------------------------------------------------------- PyTorch oracle (mmcv formulation)

def torch_msda(torch, value, shapes, loc, attn):
    """mmcv multi_scale_deformable_attn_pytorch: grid = 2*loc - 1, bilinear, zeros, align_corners=False."""
    F = torch.nn.functional
    bs, _, nh, C = value.shape
    _, nq, _, nl, npt, _ = loc.shape
    per_level = value.split([int(h) * int(w) for h, w in shapes], dim=1)
    grids = 2 * loc - 1
    sampled = []
    for l, (H, W) in enumerate(shapes):
        v = per_level[l].flatten(2).transpose(1, 2).reshape(bs * nh, C, int(H), int(W))
        g = grids[:, :, :, l].transpose(1, 2).flatten(0, 1)
        sampled.append(F.grid_sample(v, g, mode="bilinear", padding_mode="zeros", align_corners=False))
    a = attn.transpose(1, 2).reshape(bs * nh, 1, nq, nl * npt)
    out = (torch.stack(sampled, dim=-2).flatten(-2) * a).sum(-1).view(bs, nh * C, nq)
    return out.transpose(1, 2).contiguous()


def torch_grads(torch, value, shapes, loc, attn, go):
    t = [torch.tensor(f64(x), requires_grad=True) for x in (value, loc, attn)]
    out = torch_msda(torch, t[0], shapes, t[1], t[2])
    out.backward(torch.tensor(f64(go)))
    return out.detach().numpy(), [x.grad.numpy() for x in t]


def away_from_window_edges(loc, shapes):
    """Moves points whose pixel is within 1e-3 of the validity window's edge (-1 or size), where the SPEC's
    window (gradient 0 outside) and grid_sample's derivative legitimately differ, slightly inward."""
    loc = loc.copy()
    for l, (H, W) in enumerate(shapes):
        for comp, size in ((0, W), (1, H)):
            pix = loc[..., l, :, comp].astype(np.float64) * int(size) - 0.5
            bad = (np.abs(pix + 1) < 1e-3) | (np.abs(pix - int(size)) < 1e-3)
            loc[..., l, :, comp][bad] = loc.dtype.type(0.5)
    return loc


@pytest.mark.parametrize("idx", IDX_DTYPES, ids=["i32", "i64"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_against_torch_autograd(torch, dtype, idx):
    shapes_ = ((6, 7), (3, 4), (2, 2), (1, 3))
    value, shapes, start, loc, attn, go = make_case(bs=2, nh=3, C=16, shapes=shapes_, nq=34, npt=4, dtype=dtype,
                                                    idx=idx, seed=6)
    loc = away_from_window_edges(loc, shapes_)
    out_t, (gv_t, gl_t, ga_t) = torch_grads(torch, value, shapes_, loc, attn, go)
    out = pyaclnn.multi_scale_deformable_attn(value, shapes, start, loc, attn)
    close(out, out_t, dtype, "forward")
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, start, loc, attn,
                                                              go.reshape(2, 34, 3, 16))
    close(gv, gv_t, dtype, "grad_value")
    close(gl, gl_t, dtype, "grad_location")
    close(ga, ga_t, dtype, "grad_attn_weight")


# ---------------------------------------------------------------- adversarial level tables (device data)

def test_seed_002_float_bits_as_spatial_shapes():
    """H = W = 1065353216 (the bits of 1.0f): gradValue 8.0 x 8, gradAttnWeight 2, gradLocation 4*W (SPEC 3.5)."""
    value = np.ones((1, 1, 1, 8), np.float32)
    shapes = np.array([[1065353216, 1065353216]], np.int32)
    loc = np.zeros((1, 32, 1, 1, 1, 2), np.float32)
    attn = np.ones((1, 32, 1, 1, 1), np.float32)
    go = np.ones((1, 32, 1, 8), np.float32)
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, np.zeros(1, np.int32), loc, attn, go)
    assert np.all(gv == 8.0) and np.all(ga == 2.0)
    assert np.all(gl == np.float32(4.0) * np.float32(1065353216))


def test_negative_level_start_drops_keys_below_zero():
    """H = W = 4, start -8, K = 8: the point (0.5, 0.5) has corners (1,1),(1,2),(2,1),(2,2) with weight 1/4 and
    keys -3, -2, 1, 2; only keys 1 and 2 exist, so out = a/4 * (v1 + v2)."""
    rng = np.random.default_rng(7)
    value = rng.standard_normal((1, 8, 1, 8)).astype(np.float32)
    shapes, start = np.array([[4, 4]], np.int32), np.array([-8], np.int32)
    loc = np.full((1, 32, 1, 1, 1, 2), 0.5, np.float32)
    attn = np.full((1, 32, 1, 1, 1), 2.0, np.float32)
    out = pyaclnn.multi_scale_deformable_attn(value, shapes, start, loc, attn)
    np.testing.assert_allclose(out[0, 0], 0.5 * (value[0, 1, 0] + value[0, 2, 0]), rtol=1e-6)
    go = np.ones((1, 32, 8), np.float32)
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, start, loc, attn, go)
    exp = np.zeros((8, 8), np.float32)
    exp[1] = exp[2] = 32 * 2.0 * 0.25
    np.testing.assert_array_equal(gv[0, :, 0], exp)
    np.testing.assert_allclose(ga[0, 0, 0, 0, 0], 0.25 * (value[0, 1, 0] + value[0, 2, 0]).sum(), rtol=1e-5)


ADVERSARIAL = {
    "huge": ([[1065353216, 1065353216], [3, 2]], [0, 6]),
    "zero": ([[0, 0], [0, 5]], [0, 0]),
    "negative_shape": ([[-4, 3], [2, -7]], [0, 1]),
    "negative_start": ([[3, 4], [2, 3]], [-5, -100]),
    "start_past_K": ([[3, 4], [2, 3]], [17, 2 ** 31 - 1]),
    "inconsistent": ([[9, 11], [5, 5]], [3, 1]),
    "int32_extremes": ([[2 ** 31 - 1, 2 ** 31 - 1], [-2 ** 31, 2]], [-2 ** 31, 2 ** 31 - 1]),
    "int64_truncated": ([[2 ** 32 + 3, 2 ** 33 + 4], [2 ** 40 + 2, 3]], [2 ** 32, 2 ** 35 + 6]),
}


@pytest.mark.parametrize("idx", IDX_DTYPES, ids=["i32", "i64"])
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_level_tables(name, idx):
    """No crash, and the documented result: corners outside the level or outside [0, K) are ignored."""
    shapes_l, start_l = ADVERSARIAL[name]
    if idx is np.int32 and name == "int64_truncated":
        pytest.skip("int64 only")
    shapes = np.array(shapes_l, dtype=np.int64).astype(idx)
    start = np.array(start_l, dtype=np.int64).astype(idx)
    value, _, _, loc, attn, go = make_case(bs=1, nh=2, C=8, nq=32, npt=2, seed=8)  # K = 26
    rng = np.random.default_rng(9)
    loc[..., :] = rng.uniform(-0.2, 1.2, loc.shape).astype(np.float32)
    loc[:, :4] = 0.0  # the seed-002 pattern: pixel (-0.5, -0.5), only corner (0, 0)
    out = pyaclnn.multi_scale_deformable_attn(value, shapes, start, loc, attn)
    close(out, ref_fwd(value, shapes, start, loc, attn), np.float32)
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, start, loc, attn, go)
    rv, rl, ra = ref_bwd(value, shapes, start, loc, attn, go)
    close(gv, rv, np.float32)
    close(gl, rl, np.float32)
    close(ga, ra, np.float32)


def test_int64_spatial_shapes_are_truncated_to_int32():
    value, shapes, start, loc, attn, go = make_case(nq=32, seed=10)
    big = shapes.astype(np.int64) + (np.int64(1) << 32)
    a = pyaclnn.multi_scale_deformable_attn(value, big, start.astype(np.int64), loc, attn)
    b = pyaclnn.multi_scale_deformable_attn(value, shapes.astype(np.int32), start.astype(np.int32), loc, attn)
    np.testing.assert_array_equal(a, b)


def test_nan_and_inf_locations_contribute_nothing():
    value, shapes, start, loc, attn, go = make_case(nq=32, seed=11)
    loc[0, :5, 0, 0, 0, 0] = np.nan
    loc[0, 5:10, 0, 0, 0, 1] = np.inf
    loc[1, :5, 1, 1, 1, 0] = -np.inf
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, start, loc, attn, go)
    assert np.all(gl[0, :10, 0, 0, 0] == 0) and np.all(ga[0, :10, 0, 0, 0] == 0)
    rv, rl, ra = ref_bwd(value, shapes, start, loc, attn, go)
    close(gv, rv, np.float32)
    close(gl, rl, np.float32)
    close(ga, ra, np.float32)


# ---------------------------------------------------------------- early success, outputs untouched

def T(a, fmt=None):
    return pyaclnn.AclTensor.from_array(np.asarray(a), fmt)


def grad_args(bs=1, K=6, nh=2, C=8, nl=2, nq=3, npt=2, go_shape=None, dt=np.float32, idx=np.int32):
    value = np.ones((bs, K, nh, C), dt)
    shapes = np.array(([[2, 2], [1, 2]][:nl] + [[1, 1]] * max(0, nl - 2)) or np.zeros((0, 2)), idx)
    start = np.zeros(nl, idx)
    loc = np.full((bs, nq, nh, nl, npt, 2), 0.5, dt)
    attn = np.ones((bs, nq, nh, nl, npt), dt)
    go = np.ones(go_shape or (bs, nq, nh * C), dt)
    return [value, shapes, start, loc, attn, go, np.zeros_like(value), np.zeros_like(loc), np.zeros_like(attn)]


@pytest.mark.parametrize("kw", [dict(bs=0), dict(K=0), dict(nl=0), dict(nq=0), dict(npt=0), dict(C=0)],
                         ids=["batch0", "keys0", "levels0", "queries0", "points0", "channels0"])
def test_grad_empty_input_is_a_noop(kw):
    arrs = grad_args(**kw)
    tens = [T(a) for a in arrs[:6]] + [T(np.full(a.shape, 5, a.dtype)) for a in arrs[6:]]
    rc, ws, ex, msg = ws_call("MultiScaleDeformableAttentionGrad", *tens)
    assert rc == 0, msg
    assert ws == 0
    assert lib.aclnnMultiScaleDeformableAttentionGrad(pyaclnn.ffi.NULL, 0, ex, pyaclnn.ffi.NULL) == 0
    for t in tens[6:]:
        assert np.all(t.numpy() == 5)


# ---------------------------------------------------------------- invalid inputs (grad)

def mutate(arrs, i, new):
    arrs = list(arrs)
    arrs[i] = new
    return arrs


GRAD_NAMES = ["value", "spatialShape", "levelStartIndex", "location", "attnWeight", "gradOutput", "gradValue",
              "gradLocation", "gradAttnWeight"]
g = grad_args()
GRAD_INVALID = [
    # (id, arrays, code, name in message)
    ("value_int32", mutate(g, 0, g[0].astype(np.int32)), INVALID, "value"),
    ("value_f64", mutate(g, 0, g[0].astype(np.float64)), INVALID, "value"),
    ("shape_float", mutate(g, 1, g[1].astype(np.float32)), INVALID, "spatialShape"),
    ("start_int16", mutate(g, 2, g[2].astype(np.int16)), INVALID, "levelStartIndex"),
    ("location_int", mutate(g, 3, g[3].astype(np.int32)), INVALID, "location"),
    ("attn_f64", mutate(g, 4, g[4].astype(np.float64)), INVALID, "attnWeight"),
    ("go_int", mutate(g, 5, g[5].astype(np.int64)), INVALID, "gradOutput"),
    ("gv_f64", mutate(g, 6, g[6].astype(np.float64)), INVALID, "gradValue"),
    ("gl_int", mutate(g, 7, g[7].astype(np.int32)), INVALID, "gradLocation"),
    ("ga_f64", mutate(g, 8, g[8].astype(np.float64)), INVALID, "gradAttnWeight"),
    # the dtype lists are checked in argument order
    ("order_index_dtype_before_location", mutate(mutate(g, 3, g[3].astype(np.int32)), 1, g[1].astype(np.float32)),
     INVALID, "spatialShape"),
    ("value_rank3", mutate(g, 0, g[0][0]), INVALID, "value"),
    ("shape_rank1", mutate(g, 1, g[1].ravel()), INVALID, "spatialShape"),
    ("shape_dim1_3", mutate(g, 1, np.zeros((2, 3), np.int32)), INVALID, "spatialShape"),
    ("start_rank2", mutate(g, 2, g[2][None]), INVALID, "levelStartIndex"),
    ("loc_rank5", mutate(g, 3, g[3][..., 0]), INVALID, "location"),
    ("loc_dim5_3", mutate(g, 3, np.zeros(g[3].shape[:5] + (3,), np.float32)), INVALID, "location"),
    ("attn_rank4", mutate(g, 4, g[4][0]), INVALID, "attnWeight"),
    ("go_rank2", mutate(g, 5, g[5][0]), INVALID, "gradOutput"),
    ("go_rank5", mutate(g, 5, g[5].reshape(1, 3, 2, 8, 1)), INVALID, "gradOutput"),
    ("C_12", grad_args(C=12), INVALID, "channels"),
    ("C_264", grad_args(C=264, nq=1, K=1), INVALID, "channels"),
    ("nq_500000", mutate(g, 3, np.zeros((1, 500000, 2, 2, 2, 2), np.float32)), INVALID, "num_queries"),
    ("levels_17", grad_args(nl=17), INVALID, "num_levels"),
    ("heads_17", grad_args(nh=17, K=1), INVALID, "num_heads"),
    ("points_17", grad_args(npt=17), INVALID, "num_points"),
    ("loc_batch", mutate(g, 3, np.zeros((2, 3, 2, 2, 2, 2), np.float32)), INVALID, "location"),
    ("attn_batch", mutate(g, 4, np.zeros((2, 3, 2, 2, 2), np.float32)), INVALID, "attnWeight"),
    ("go_batch", mutate(g, 5, np.zeros((2, 3, 16), np.float32)), INVALID, "gradOutput"),
    ("loc_heads", mutate(g, 3, np.zeros((1, 3, 1, 2, 2, 2), np.float32)), INVALID, "location"),
    ("attn_heads", mutate(g, 4, np.zeros((1, 3, 1, 2, 2), np.float32)), INVALID, "attnWeight"),
    ("start_levels", mutate(g, 2, np.zeros(3, np.int32)), INVALID, "levelStartIndex"),
    ("loc_levels", mutate(g, 3, np.zeros((1, 3, 2, 1, 2, 2), np.float32)), INVALID, "location"),
    ("attn_levels", mutate(g, 4, np.zeros((1, 3, 2, 1, 2), np.float32)), INVALID, "attnWeight"),
    ("attn_queries", mutate(g, 4, np.zeros((1, 4, 2, 2, 2), np.float32)), INVALID, "attnWeight"),
    ("go_queries", mutate(g, 5, np.zeros((1, 4, 16), np.float32)), INVALID, "gradOutput"),
    ("attn_points", mutate(g, 4, np.zeros((1, 3, 2, 2, 1), np.float32)), INVALID, "attnWeight"),
    ("go_hc", mutate(g, 5, np.zeros((1, 3, 8), np.float32)), INVALID, "gradOutput"),
    ("go4_heads", mutate(g, 5, np.zeros((1, 3, 1, 16), np.float32)), INVALID, "gradOutput"),
    ("go4_channels", mutate(g, 5, np.zeros((1, 3, 4, 4), np.float32)), INVALID, "gradOutput"),
    ("gv_shape", mutate(g, 6, np.zeros((1, 5, 2, 8), np.float32)), INVALID, "gradValue"),
    ("gl_shape", mutate(g, 7, np.zeros((1, 3, 2, 2, 2, 1), np.float32)), INVALID, "gradLocation"),
    ("ga_shape", mutate(g, 8, np.zeros((1, 3, 2, 2, 3), np.float32)), INVALID, "gradAttnWeight"),
    # order: a NULL beats a bad dtype; a bad dtype beats a bad rank; a rank beats consistency
    ("order_dtype_before_rank", mutate(mutate(g, 0, g[0][0]), 4, g[4].astype(np.float64)), INVALID, "attnWeight"),
    ("order_rank_before_constraint", mutate(grad_args(C=12), 4, g[4][0]), INVALID, "attnWeight"),
    ("order_constraint_before_consistency", mutate(grad_args(C=12), 5, np.zeros((1, 4, 24), np.float32)),
     INVALID, "channels"),
    ("order_consistency_before_outputs", mutate(mutate(g, 6, g[6][:, :1]), 5, g[5][:1, :1]), INVALID,
     "gradOutput"),
]


@pytest.mark.parametrize("arrs,code,name", [r[1:] for r in GRAD_INVALID], ids=[r[0] for r in GRAD_INVALID])
def test_grad_invalid_inputs(arrs, code, name):
    expect_invalid("MultiScaleDeformableAttentionGrad", [T(a) for a in arrs], code, name)


def test_grad_fractal_nz_input_rejected():
    arrs = grad_args()
    for i in range(6):
        tens = [T(a, lib.ACL_FORMAT_FRACTAL_NZ if j == i else None) for j, a in enumerate(arrs)]
        rc, _, _, msg = ws_call("MultiScaleDeformableAttentionGrad", *tens)
        assert rc == INVALID and GRAD_NAMES[i] in msg and "FRACTAL_NZ" in msg
    tens = [T(a, lib.ACL_FORMAT_FRACTAL_NZ if j == 6 else None) for j, a in enumerate(arrs)]  # outputs unchecked
    assert ws_call("MultiScaleDeformableAttentionGrad", *tens)[0] == 0


@pytest.mark.parametrize("i", range(9))
def test_grad_null_tensor(i):
    tens = [T(a) for a in grad_args()]
    tens[i] = None
    tens[(i + 1) % 9] = None if i < 8 else tens[0]  # a later NULL too: the first one is named
    rc, _, _, msg = ws_call("MultiScaleDeformableAttentionGrad", *tens)
    assert rc == NULLPTR and GRAD_NAMES[i] in msg


def test_grad_null_workspace_size_and_executor():
    pyaclnn.ensure_device()
    tens = [T(a).handle for a in grad_args()]
    ffi = pyaclnn.ffi
    rc = lib.aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(*tens, ffi.NULL, ffi.new("aclOpExecutor **"))
    assert rc == NULLPTR and "workspaceSize" in pyaclnn.recent_error_message()
    rc = lib.aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(*tens, ffi.new("uint64_t *"), ffi.NULL)
    assert rc == NULLPTR and "executor" in pyaclnn.recent_error_message()
    assert lib.aclnnMultiScaleDeformableAttentionGrad(ffi.NULL, 0, ffi.NULL, ffi.NULL) == NULLPTR


# ---------------------------------------------------------------- invalid inputs (forward)

def fwd_args(bs=1, K=6, nh=2, C=8, nl=2, nq=32, npt=2, dt=np.float32):
    a = grad_args(bs, K, nh, C, nl, nq, npt, dt=dt)
    return a[:5] + [np.zeros((bs, nq, nh * C), dt)]


FWD_NAMES = ["value", "spatialShape", "levelStartIndex", "location", "attnWeight", "output"]
f = fwd_args()
FWD_INVALID = [
    # the dtype lists in argument order, then location, attnWeight, output as value
    ("value_int", mutate(f, 0, f[0].astype(np.int32)), INVALID, "value"),
    ("shape_float", mutate(f, 1, f[1].astype(np.float32)), INVALID, "spatialShape"),
    ("start_uint8", mutate(f, 2, f[2].astype(np.uint8)), INVALID, "levelStartIndex"),
    ("location_f64", mutate(f, 3, f[3].astype(np.float64)), INVALID, "location"),
    ("attn_int", mutate(f, 4, f[4].astype(np.int32)), INVALID, "attnWeight"),
    ("output_f64", mutate(f, 5, f[5].astype(np.float64)), INVALID, "output"),
    ("location_dtype_ne_value", mutate(f, 3, f[3].astype(np.float16)), INVALID, "location"),
    ("attn_dtype_ne_value", mutate(f, 4, f[4].astype(BF16)), INVALID, "attnWeight"),
    ("output_dtype_ne_value", mutate(f, 5, f[5].astype(np.float16)), INVALID, "output"),
    ("order_index_dtype_before_output", mutate(mutate(f, 5, f[5].astype(np.float64)), 1, f[1].astype(np.float32)),
     INVALID, "spatialShape"),
    ("order_lists_before_equality", mutate(mutate(f, 3, f[3].astype(np.float16)), 5, f[5].astype(np.float64)),
     INVALID, "output"),
    ("output_rank4", mutate(f, 5, f[5].reshape(1, 32, 2, 8)), INVALID, "output"),
    ("shape_dim1", mutate(f, 1, np.zeros((2, 1), np.int32)), INVALID, "spatialShape"),
    ("loc_dim5", mutate(f, 3, np.zeros((1, 32, 2, 2, 2, 1), np.float32)), INVALID, "location"),
    ("nq_31", fwd_args(nq=31), INVALID, "num_queries"),
    ("heads_17", fwd_args(nh=17, K=1), INVALID, "num_heads"),
    ("levels_17", fwd_args(nl=17), INVALID, "num_levels"),
    ("points_17", fwd_args(npt=17), INVALID, "num_points"),
    ("C_4", fwd_args(C=4), INVALID, "channels"),
    ("loc_levels_vs_shape", mutate(mutate(f, 1, np.zeros((3, 2), np.int32)), 2, np.zeros(3, np.int32)), INVALID,
     "location"),
    ("attn_levels", mutate(f, 4, np.zeros((1, 32, 2, 1, 2), np.float32)), INVALID, "attnWeight"),
    # [HW] later in phase 1 (ACLNN_ERR_INNER_NULLPTR): the kernel's tiling reads queries / heads / points off
    # attnWeight, and the result is copied into output, which must have its shape
    ("tiling_attn_queries_16", mutate(f, 4, np.zeros((1, 16, 2, 2, 2), np.float32)), INNER_NULLPTR, "attnWeight"),
    ("tiling_attn_heads_17", mutate(f, 4, np.zeros((1, 32, 17, 2, 2), np.float32)), INNER_NULLPTR, "attnWeight"),
    ("tiling_attn_points_17", mutate(f, 4, np.zeros((1, 32, 2, 2, 17), np.float32)), INNER_NULLPTR, "attnWeight"),
    ("copy_output_channels", mutate(f, 5, np.zeros((1, 32, 8), np.float32)), INNER_NULLPTR, "output"),
    ("copy_output_batch", mutate(f, 5, np.zeros((2, 32, 16), np.float32)), INNER_NULLPTR, "output"),
    ("copy_output_vs_value_heads", mutate(f, 0, np.zeros((1, 6, 1, 8), np.float32)), INNER_NULLPTR, "output"),
]


@pytest.mark.parametrize("arrs,code,name", [r[1:] for r in FWD_INVALID], ids=[r[0] for r in FWD_INVALID])
def test_forward_invalid_inputs(arrs, code, name):
    expect_invalid("MultiScaleDeformableAttnFunction", [T(a) for a in arrs], code, name)


@pytest.mark.parametrize("i", range(6))
def test_forward_null_tensor(i):
    tens = [T(a) for a in fwd_args()]
    tens[i] = None
    rc, _, _, msg = ws_call("MultiScaleDeformableAttnFunction", *tens)
    assert rc == NULLPTR and FWD_NAMES[i] in msg


def test_forward_empty_input_is_a_noop_output_untouched():
    arrs = fwd_args(K=0)
    tens = [T(a) for a in arrs[:5]] + [T(np.full(arrs[5].shape, 3, np.float32))]
    rc, ws, ex, msg = ws_call("MultiScaleDeformableAttnFunction", *tens)
    assert rc == 0 and ws == 0, msg
    assert lib.aclnnMultiScaleDeformableAttnFunction(pyaclnn.ffi.NULL, 0, ex, pyaclnn.ffi.NULL) == 0
    assert np.all(tens[5].numpy() == 3)


# ---------------------------------------------------------------- shapes the device accepts (forward)

def run_forward(value, shapes, start, loc, attn, out_shape, fill=7.0):
    """The forward through the C API into an output pre-filled with `fill` (so untouched rows show)."""
    out = T(np.full(out_shape, fill, value.dtype))
    pyaclnn.launch("MultiScaleDeformableAttnFunction", T(value), T(shapes), T(start), T(loc), T(attn), out)
    return out.numpy()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_forward_upstream_ut_case_longer_level_start_index(torch, dtype):
    """CANN's own UT (ascend310P_..._310p_float32, not tied to a SoC): one level, levelStartIndex of length 2,
    the no-transpose kernel (C 32, 4 heads, 4 points). The device accepts it and never reads the extra entry."""
    rng = np.random.default_rng(20)
    value = rng.standard_normal((1, 4, 4, 32)).astype(dtype)
    shapes, start = np.array([[2, 2]], np.int32), np.array([0, 4], np.int32)
    loc = rng.uniform(-0.1, 1.1, (1, 128, 4, 1, 4, 2)).astype(dtype)
    loc = away_from_window_edges(loc, ((2, 2),))
    attn = rng.uniform(0, 1, (1, 128, 4, 1, 4)).astype(dtype)
    out = run_forward(value, shapes, start, loc, attn, (1, 128, 128))
    ref = torch_msda(torch, torch.tensor(f64(value)), ((2, 2),), torch.tensor(f64(loc)), torch.tensor(f64(attn)))
    close(out, ref.numpy(), dtype)


def extend(a, axis, n, seed=22):
    """`a` with n more random slices appended along `axis` (values the op must never use)."""
    shape = list(a.shape)
    shape[axis] = n
    return np.concatenate([a, np.random.default_rng(seed).uniform(0, 1, shape).astype(a.dtype)], axis=axis)


# name: (argument index, axis, slices added); the reference uses the common part
INCONSISTENT = {
    "start_longer": (2, 0, 1),
    "loc_batch": (3, 0, 1),
    "attn_batch": (4, 0, 2),
    "attn_queries": (4, 1, 3),
    "loc_heads": (3, 2, 1),
    "attn_heads": (4, 2, 1),
    "value_heads": (0, 2, 1),
    "loc_points": (3, 4, 1),
    "attn_points": (4, 4, 2),
}


@pytest.mark.parametrize("name", sorted(INCONSISTENT))
def test_forward_unchecked_shared_dims_use_the_common_extent(torch, name):
    """The real host code compares no batch / head / query / point extent across tensors (only the level count)
    and the device accepts such calls. The emulator computes over the common extent of each dimension; output
    columns of heads beyond it stay untouched (SPEC-vs-HEAD: these were [EMU] rejections)."""
    i, axis, n = INCONSISTENT[name]
    shapes_ = ((4, 5), (2, 3))
    value, shapes, start, loc, attn, _ = make_case(bs=1, nh=2, C=8, shapes=shapes_, nq=32, npt=2, seed=21)
    loc = away_from_window_edges(loc, shapes_)
    args = [value, shapes, start, loc, attn]
    args[i] = extend(args[i], axis, n)
    heads = args[0].shape[2]
    out = run_forward(*args, (1, 32, heads * 8))
    ref = torch_msda(torch, torch.tensor(f64(value)), shapes_, torch.tensor(f64(loc)), torch.tensor(f64(attn)))
    close(out[:, :, :16], ref.numpy(), np.float32)
    assert np.all(out[:, :, 16:] == 7.0)  # the third head of value: not sampled by location / attnWeight


def test_forward_missing_level_start_entry_contributes_nothing(torch):
    """levelStartIndex shorter than the level count (unchecked upstream; the device reads past it): a level
    without an entry contributes nothing."""
    shapes_ = ((4, 5), (2, 3))
    value, shapes, start, loc, attn, _ = make_case(bs=1, nh=2, C=8, shapes=shapes_, nq=32, npt=2, seed=23)
    out = run_forward(value, shapes, start[:1], loc, attn, (1, 32, 16))
    attn0 = attn.copy()
    attn0[:, :, :, 1] = 0.0
    ref = torch_msda(torch, torch.tensor(f64(value)), shapes_, torch.tensor(f64(loc)), torch.tensor(f64(attn0)))
    close(out, ref.numpy(), np.float32)


def test_forward_empty_input_precedes_the_launch_rules():
    """The tiling and output-copy rules come after the empty-tensor early return."""
    arrs = fwd_args(K=0)
    arrs[4] = np.zeros((1, 16, 2, 2, 2), np.float32)  # breaks the tiling, but value is empty
    arrs[5] = np.full((1, 32, 8), 3, np.float32)      # wrong shape for the copy
    tens = [T(a) for a in arrs]
    rc, ws, ex, msg = ws_call("MultiScaleDeformableAttnFunction", *tens)
    assert rc == 0 and ws == 0, msg
    assert lib.aclnnMultiScaleDeformableAttnFunction(pyaclnn.ffi.NULL, 0, ex, pyaclnn.ffi.NULL) == 0
    assert np.all(tens[5].numpy() == 3)


# ---------------------------------------------------------------- determinism

DETERMINISM = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
for bs, nh, dt in ((1, 3, np.float32), (2, 4, np.float16), (1, 1, pyaclnn.bfloat16)):
    shapes = np.array([[20, 30], [10, 15], [5, 8]], np.int32)
    K = int((shapes[:, 0] * shapes[:, 1]).sum())
    start = np.array([0, 600, 750], np.int32)
    v = rng.standard_normal((bs, K, nh, 32)).astype(dt)
    loc = rng.uniform(-0.1, 1.1, (bs, 400, nh, 3, 4, 2)).astype(dt)
    a = rng.uniform(0, 1, (bs, 400, nh, 3, 4)).astype(dt)
    go = rng.standard_normal((bs, 400, nh * 32)).astype(dt)
    for r in pyaclnn.multi_scale_deformable_attn_backward(v, shapes, start, loc, a, go):
        h.update(np.ascontiguousarray(r).tobytes())
    h.update(pyaclnn.multi_scale_deformable_attn(v, shapes, start, loc, a).tobytes())
print(h.hexdigest())
"""


def test_deterministic_across_thread_counts():
    same_bytes_for_threads(DETERMINISM)
