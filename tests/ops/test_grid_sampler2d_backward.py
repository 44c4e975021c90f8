"""aclnnGridSampler2DBackward against the numpy loop reference, PyTorch CPU, the validation table, determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from gs_cases import ALL_DTYPES, ALL_IDS, MODE_IDS, MODES, cast, check, finite_mask, make_grid
from helpers import same_bytes_for_threads, strided, expect_invalid, ws_call
from reference.grid_sampler import grid_sample_backward_ref

OP = "GridSampler2DBackward"


def _case(rng, dtype, N=2, C=3, H=4, W=8, Ho=3, Wo=5, align=False, special=True, spread=1.4):
    x = cast(rng.standard_normal((N, C, H, W)), dtype)
    g = cast(make_grid(rng, N, Ho, Wo, H, W, align, special, spread), dtype)
    go = cast(rng.standard_normal((N, C, Ho, Wo)), dtype)
    return go, x, g


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_against_numpy_reference(mode, dtype):
    im, pm, ac = mode
    rng = np.random.default_rng(7 + im * 9 + pm * 3 + ac)
    go, x, g = _case(rng, dtype, align=ac)
    if pm == 2 and dtype != np.float64:  # huge reflected coordinates are not comparable across precisions
        g[np.abs(g.astype(np.float64)) > 1e6] = 0.75
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac)
    rgi, rgg = grid_sample_backward_ref(go, x, g, im, pm, ac)
    assert gi.dtype == dtype and gg.dtype == dtype
    check(gi, rgi, dtype, "inputGrad")
    check(gg, rgg, dtype, "gridGrad")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_against_torch(torch, mode, dtype):
    im, pm, ac = mode
    rng = np.random.default_rng(100 + im * 9 + pm * 3 + ac)
    go, x, g = _case(rng, dtype, N=2, C=5, H=6, W=7, Ho=4, Wo=6, align=ac, special=True, spread=2.5)
    keep = finite_mask(g.astype(np.float64))
    gf = np.where(keep[..., None], g, 0).astype(dtype)  # SPEC deviates from PyTorch on non-finite points
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, gf, im, pm, ac)
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    t = [torch.tensor(a.astype(np.float64), dtype=tdt) for a in (go, x, gf)]
    tgi, tgg = torch.ops.aten.grid_sampler_2d_backward(t[0], t[1], t[2], im, pm, ac, [True, True])
    check(gi, tgi.double().numpy(), dtype, "inputGrad vs torch")
    check(gg, tgg.double().numpy(), dtype, "gridGrad vs torch")


@pytest.mark.parametrize("im", [0, 1, 2])
@pytest.mark.parametrize("ac", [False, True])
def test_one_by_one_input(im, ac):
    rng = np.random.default_rng(3)
    for pm in range(3):
        go, x, g = _case(rng, np.float64, N=1, C=2, H=1, W=1, Ho=4, Wo=5, align=ac)
        gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac)
        rgi, rgg = grid_sample_backward_ref(go, x, g, im, pm, ac)
        check(gi, rgi, np.float64, f"inputGrad pm={pm}")
        check(gg, rgg, np.float64, f"gridGrad pm={pm}")


@pytest.mark.parametrize("shape", [(1, 1, 4, 4, 3, 3), (3, 1, 4, 4, 2, 7), (1, 40, 8, 4, 4, 4), (2, 33, 2, 8, 5, 2)])
@pytest.mark.parametrize("im", [0, 1, 2])
def test_channel_and_batch_sizes(shape, im):
    N, C, H, W, Ho, Wo = shape
    rng = np.random.default_rng(sum(shape) + im)
    go, x, g = _case(rng, np.float32, N, C, H, W, Ho, Wo)
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, im, 0, False)
    rgi, rgg = grid_sample_backward_ref(go, x, g, im, 0, False)
    check(gi, rgi, np.float32, "inputGrad")
    check(gg, rgg, np.float32, "gridGrad")


def test_seed_sample_values():
    go = np.ones((1, 1, 3, 3), np.float32)
    x = np.arange(1, 41, dtype=np.float32).reshape(1, 1, 5, 8)
    g = np.array([-1, -1, 0, -1, 1, -1, -1, 0, 0, 0, 1, 0, -1, 1, 0, 1, 1, 1], np.float32).reshape(1, 3, 3, 2)
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, "bilinear", "zeros", False)
    exp = np.zeros((5, 8))
    exp[[0, 0, 0, 0, 4, 4, 4, 4], [0, 3, 4, 7, 0, 3, 4, 7]] = 0.25
    exp[2, [0, 3, 4, 7]] = 0.5
    np.testing.assert_array_equal(gi[0, 0], exp)
    np.testing.assert_array_equal(gg.ravel(), [2, 1.25, 2, 11.25, -16, 10, 68, 10, 4, 20, -96, 10, 66, -41.25, 2,
                                               -91.25, -80, -50])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("im", [0, 2])
def test_non_contiguous_inputs_and_outputs(dtype, im):
    rng = np.random.default_rng(11)
    go, x, g = _case(rng, dtype, N=2, C=4, H=5, W=6, Ho=3, Wo=4, special=False)
    rgi, rgg = grid_sample_backward_ref(go, x, g, im, 1, True)
    outs = (strided(np.zeros(x.shape, dtype), "transpose"), strided(np.zeros(g.shape, dtype), "slice"))
    gi, gg = pyaclnn.grid_sampler2d_backward(strided(go, "transpose"), strided(x, "slice"), strided(g, "transpose"),
                                             im, 1, True, out=outs)
    assert gi is outs[0] and gg is outs[1]
    check(gi, rgi, dtype, "inputGrad")
    check(gg, rgg, dtype, "gridGrad")


@pytest.mark.parametrize("mask", [(True, True), (True, False), (False, True), (False, False)])
def test_output_mask(mask):
    rng = np.random.default_rng(5)
    go, x, g = _case(rng, np.float32)
    rgi, rgg = grid_sample_backward_ref(go, x, g, 0, 0, False)
    sentinel = (np.full(x.shape, 7.5, np.float32), np.full(g.shape, -3.25, np.float32))
    outs = tuple(s.copy() for s in sentinel)
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, 0, 0, False, mask, out=outs)
    for m, res, ref, o, s, name in zip(mask, (gi, gg), (rgi, rgg), outs, sentinel, ("inputGrad", "gridGrad")):
        if m:
            check(res, ref, np.float32, name)
        else:
            assert res is None
            np.testing.assert_array_equal(o, s)  # untouched


def test_nearest_grid_grad_is_zero_and_half_to_even():
    x = np.arange(8, dtype=np.float64).reshape(1, 1, 1, 8)
    # ix = ((x+1)*8-1)/2: x=-0.75 -> 0.5 (rounds to 0), x=-0.5 -> 1.5 (-> 2), x=-0.25 -> 2.5 (-> 2)
    g = np.array([[[[-0.75, 0.0], [-0.5, 0.0], [-0.25, 0.0]]]])
    go = np.ones((1, 1, 1, 3))
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, "nearest", "zeros", False)
    np.testing.assert_array_equal(gi.ravel(), [1, 0, 2, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(gg, np.zeros_like(g))


def test_nan_coordinates_dropped():
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
    g = np.array([[[[np.nan, 0.0], [np.inf, 0.0], [-np.inf, 0.0]]]], np.float32)
    go = np.ones((1, 1, 1, 3), np.float32)
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, "bilinear", "zeros", False)
    assert not gi.any() and not gg.any()
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, "bilinear", "border", False)
    exp = np.zeros((3, 4), np.float32)
    exp[1, 3] = exp[1, 0] = 1  # +inf clamps right, -inf left, NaN dropped
    np.testing.assert_array_equal(gi[0, 0], exp)
    assert np.all(np.isfinite(gg))


# ---------------------------------------------------------------- validation

def _t(shape, dtype=np.float32):
    return pyaclnn.AclTensor.from_array(np.zeros(shape, dtype))


def _args(**kw):
    a = dict(go=_t((2, 3, 4, 5)), x=_t((2, 3, 6, 7)), g=_t((2, 4, 5, 2)), im=0, pm=0, ac=False,
             mask=pyaclnn.bool_array([True, True]), gi=_t((2, 3, 6, 7)), gg=_t((2, 4, 5, 2)))
    a.update(kw)
    return [a[k] for k in ("go", "x", "g", "im", "pm", "ac", "mask", "gi", "gg")]


F16 = np.float16
INVALID = [
    (dict(go=None), 161001, "gradOutput"),
    (dict(x=None), 161001, "input"),
    (dict(g=None), 161001, "grid"),
    (dict(gi=None), 161001, "inputGrad"),
    (dict(gg=None), 161001, "gridGrad"),
    (dict(go=_t((2, 3, 4, 5), F16)), 161002, "gradOutput"),
    (dict(g=_t((2, 4, 5, 2), F16)), 161002, "grid"),
    (dict(gi=_t((2, 3, 6, 7), F16)), 161002, "inputGrad"),
    (dict(gg=_t((2, 4, 5, 2), F16)), 161002, "gridGrad"),
    (dict(go=_t((2, 3, 4, 5), np.int32), x=_t((2, 3, 6, 7), np.int32), g=_t((2, 4, 5, 2), np.int32),
          gi=_t((2, 3, 6, 7), np.int32), gg=_t((2, 4, 5, 2), np.int32)), 161002, "input"),
    (dict(im=3), 161002, "interpolationMode"),
    (dict(im=-1), 161002, "interpolationMode"),
    (dict(pm=3), 161002, "paddingMode"),
    (dict(pm=-1), 161002, "paddingMode"),
    (dict(x=_t((3, 6, 7)), gi=_t((3, 6, 7))), 161002, "input"),
    (dict(g=_t((2, 4, 5)), gg=_t((2, 4, 5))), 161002, "grid"),
    (dict(go=_t((2, 3, 20))), 161002, "gradOutput"),
    (dict(g=_t((1, 4, 5, 2)), gg=_t((1, 4, 5, 2))), 161002, "grid N"),
    (dict(go=_t((1, 3, 4, 5))), 161002, "gradOutput N"),
    (dict(go=_t((2, 2, 4, 5))), 161002, "gradOutput C"),
    (dict(x=_t((2, 3, 0, 7)), gi=_t((2, 3, 0, 7))), 161002, "input H"),
    (dict(x=_t((2, 3, 6, 0)), gi=_t((2, 3, 6, 0))), 161002, "input H"),
    (dict(g=_t((2, 4, 6, 2)), gg=_t((2, 4, 6, 2))), 161002, "grid dims"),
    (dict(g=_t((2, 4, 5, 3)), gg=_t((2, 4, 5, 3))), 161002, "grid last dim"),
    (dict(gi=_t((2, 3, 6, 8))), 161002, "inputGrad"),
    (dict(gg=_t((2, 4, 5, 1))), 161002, "gridGrad"),
    (dict(mask=pyaclnn.bool_array([True, True, True])), 161002, "outputMask"),
    (dict(mask=pyaclnn.bool_array([True])), 161002, "outputMask"),
    # order: the first failing rule wins
    (dict(go=None, x=_t((2, 3, 6, 7), np.int32)), 161001, "gradOutput"),
    (dict(gg=None, im=7), 161001, "gridGrad"),
    (dict(go=_t((2, 3, 4, 5), F16), im=7), 161002, "gradOutput dtype"),
    (dict(im=7, x=_t((3, 6, 7))), 161002, "interpolationMode"),
    (dict(x=_t((2, 3, 6, 7), np.int32), gi=_t((2, 3, 6, 7), np.int32), go=_t((2, 3, 4, 5), F16)), 161002,
     "gradOutput dtype"),
    (dict(g=_t((2, 4, 5, 3)), gg=_t((2, 4, 5, 1))), 161002, "grid last dim"),
    (dict(gg=_t((2, 4, 5, 1)), mask=pyaclnn.bool_array([True])), 161002, "gridGrad"),
]


@pytest.mark.parametrize("kw,code,name", INVALID, ids=[f"{i}-{r[2]}" for i, r in enumerate(INVALID)])
def test_invalid_inputs(kw, code, name):
    expect_invalid(OP, _args(**kw), code, name)


def test_null_workspace_size_and_executor_first():
    args = [ffi.NULL if a is None else (a.handle if isinstance(a, pyaclnn.AclTensor) else a)
            for a in _args(go=None)]
    ex = ffi.new("aclOpExecutor **")
    ws = ffi.new("uint64_t *")
    assert lib.aclnnGridSampler2DBackwardGetWorkspaceSize(*args, ffi.NULL, ex) == 161001
    assert lib.aclnnGridSampler2DBackwardGetWorkspaceSize(*args, ws, ffi.NULL) == 161001


def test_null_mask_is_success_before_everything():
    rc, ws, ex, msg = ws_call(OP, None, None, None, 9, 9, False, None, None, None)
    assert rc == 0 and ws == 0 and ex != ffi.NULL, msg
    from helpers import run_executor
    assert run_executor(OP, ex) == 0


@pytest.mark.parametrize("shapes", [
    ((2, 0, 4, 5), (2, 0, 6, 7), (2, 4, 5, 2)),  # C = 0
    ((0, 3, 4, 5), (0, 3, 6, 7), (0, 4, 5, 2)),  # N = 0
    ((2, 3, 0, 5), (2, 3, 6, 7), (2, 0, 5, 2)),  # empty grid
])
def test_empty_inputs_leave_outputs_untouched(shapes):
    sgo, sx, sg = shapes
    gi0, gg0 = np.full(sx, 4.5, np.float32), np.full(sg, 4.5, np.float32)
    outs = (gi0.copy(), gg0.copy())
    pyaclnn.grid_sampler2d_backward(np.ones(sgo, np.float32), np.ones(sx, np.float32), np.ones(sg, np.float32),
                                    out=outs)
    np.testing.assert_array_equal(outs[0], gi0)
    np.testing.assert_array_equal(outs[1], gg0)


def test_mode_names_and_codes():
    rng = np.random.default_rng(2)
    go, x, g = _case(rng, np.float32, special=False)
    a = pyaclnn.grid_sampler2d_backward(go, x, g, "bicubic", "reflection", True)
    b = pyaclnn.grid_sampler2d_backward(go, x, g, 2, 2, True)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    with pytest.raises(ValueError):
        pyaclnn.grid_sampler2d_backward(go, x, g, "linear")


def test_deterministic_across_thread_counts():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
for im in (0, 2):
    for dt in (np.float32, np.float16):
        x = rng.standard_normal((2, 24, 20, 22)).astype(dt)
        g = rng.uniform(-1.2, 1.2, (2, 30, 26, 2)).astype(dt)
        go = rng.standard_normal((2, 24, 30, 26)).astype(dt)
        for r in pyaclnn.grid_sampler2d_backward(go, x, g, im, 0, False):
            h.update(r.tobytes())
x = rng.standard_normal((1, 64, 16, 16)).astype(np.float32)
g = rng.uniform(-1, 1, (1, 64, 64, 2)).astype(np.float32) * 0.2  # many points hit the same pixels
go = rng.standard_normal((1, 64, 64, 64)).astype(np.float32)
for r in pyaclnn.grid_sampler2d_backward(go, x, g, 0, 1, True):
    h.update(r.tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("im", [0, 1, 2])
@pytest.mark.parametrize("pm,ac", [(0, False), (1, True), (2, False)])
def test_channel_blocks_and_tails(dtype, im, pm, ac):
    # N=1 with C=19: three 8-channel blocks, the last partial; H*W, Ho*Wo and W not multiples of 8 (tails of the
    # lane transposes); NaN/inf grid points included
    rng = np.random.default_rng(31 + im * 3 + pm)
    go, x, g = _case(rng, dtype, N=1, C=19, H=7, W=13, Ho=5, Wo=11, align=ac)
    if pm == 2 and dtype != np.float64:
        g[np.abs(g.astype(np.float64)) > 1e6] = 0.75
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac)
    rgi, rgg = grid_sample_backward_ref(go, x, g, im, pm, ac)
    check(gi, rgi, dtype, "inputGrad")
    check(gg, rgg, dtype, "gridGrad")
    # masks: each output alone gives the same values
    gi1, gg1 = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac, (True, False))
    gi2, gg2 = pyaclnn.grid_sampler2d_backward(go, x, g, im, pm, ac, (False, True))
    assert gg1 is None and gi2 is None
    np.testing.assert_array_equal(gi1, gi)
    np.testing.assert_array_equal(gg2, gg)


@pytest.mark.parametrize("im", [0, 1, 2])
def test_large_channel_count_against_torch(torch, im):
    rng = np.random.default_rng(77 + im)
    go, x, g = _case(rng, np.float32, N=1, C=70, H=12, W=10, Ho=9, Wo=6, special=False)
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, im, 0, False)
    tgi, tgg = torch.ops.aten.grid_sampler_2d_backward(torch.from_numpy(go), torch.from_numpy(x),
                                                       torch.from_numpy(g), im, 0, False, [True, True])
    np.testing.assert_allclose(gi, tgi.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gg, tgg.numpy(), rtol=1e-4, atol=1e-4)


def test_nan_and_inf_in_values_propagate():
    x = np.ones((1, 9, 3, 4), np.float32)
    x[0, 2, 1, 1] = np.nan
    x[0, 5, 2, 3] = np.inf
    g = np.array([[[[-0.5, -0.3], [0.9, 0.9], [-5.0, 0.0]]]], np.float32)  # near (1,1), near (2,3), outside
    go = np.ones((1, 9, 1, 3), np.float32)
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, g, "bilinear", "zeros", False)
    rgi, rgg = grid_sample_backward_ref(go.astype(np.float64), x.astype(np.float64), g.astype(np.float64), 0, 0,
                                        False)
    check(gi, rgi, np.float32, "inputGrad")
    check(gg, rgg, np.float32, "gridGrad")
    assert np.isnan(gg[0, 0, 0]).any() and np.all(gg[0, 0, 2] == 0)


def test_deterministic_channel_blocks_all_dtypes():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(3)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16, np.float64):
    for im in (0, 1, 2):
        x = rng.standard_normal((1, 37, 17, 23)).astype(dt)
        g = rng.uniform(-1.2, 1.2, (1, 19, 21, 2)).astype(dt)
        go = rng.standard_normal((1, 37, 19, 21)).astype(dt)
        for r in pyaclnn.grid_sampler2d_backward(go, x, g, im, 2, True):
            h.update(r.tobytes())
        if not (im == 2 and dt == np.float64):  # the forward rejects double bicubic (SPEC)
            h.update(pyaclnn.grid_sampler2d(x, g, im, 1, False).tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_planar_path_with_strided_grid_and_grid_grad(dtype, kind):
    # contiguous gradOutput/input/inputGrad take the planar path; the grid and gridGrad are views
    rng = np.random.default_rng(12)
    go, x, _ = _case(rng, dtype, N=2, C=5, H=5, W=6, Ho=17, Wo=19, special=False)
    g = cast(rng.uniform(-1.2, 1.2, (2, 17, 19, 2)), dtype)  # no points on cell edges (kinks of the gradient)
    rgi, rgg = grid_sample_backward_ref(go, x, g, 0, 0, False)
    outs = (np.zeros(x.shape, dtype), strided(np.zeros(g.shape, dtype), kind))
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, strided(g, kind), 0, 0, False, out=outs)
    assert gi is outs[0] and gg is outs[1]
    check(gi, rgi, dtype, "inputGrad")
    check(gg, rgg, dtype, "gridGrad")
