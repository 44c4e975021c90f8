"""aclnnGridSampler2D (forward) against the numpy loop reference, PyTorch CPU, the validation table, determinism."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from gs_cases import ALL_DTYPES, ALL_IDS, MODE_IDS, MODES, cast, check, finite_mask, make_grid
from helpers import same_bytes_for_threads, strided, expect_invalid, ws_call
from reference.grid_sampler import grid_sample_ref

OP = "GridSampler2D"


def _case(rng, dtype, N=2, C=3, H=4, W=8, Ho=3, Wo=5, align=False, special=True, spread=1.4):
    x = cast(rng.standard_normal((N, C, H, W)), dtype)
    g = cast(make_grid(rng, N, Ho, Wo, H, W, align, special, spread), dtype)
    return x, g


def _skip_f64_bicubic(im, dtype):
    return im == 2 and dtype == np.float64


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_against_numpy_reference(mode, dtype):
    im, pm, ac = mode
    if _skip_f64_bicubic(im, dtype):
        pytest.skip("DOUBLE + bicubic is rejected (see test_double_bicubic_rejected)")
    rng = np.random.default_rng(17 + im * 9 + pm * 3 + ac)
    x, g = _case(rng, dtype, align=ac)
    if pm == 2 and dtype != np.float64:
        g[np.abs(g.astype(np.float64)) > 1e6] = 0.75
    out = pyaclnn.grid_sampler2d(x, g, im, pm, ac)
    assert out.dtype == dtype
    check(out, grid_sample_ref(x, g, im, pm, ac), dtype, "out")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_against_torch(torch, mode, dtype):
    im, pm, ac = mode
    if _skip_f64_bicubic(im, dtype):
        pytest.skip("DOUBLE + bicubic is rejected")
    rng = np.random.default_rng(200 + im * 9 + pm * 3 + ac)
    x, g = _case(rng, dtype, N=2, C=5, H=6, W=7, Ho=4, Wo=6, align=ac, spread=2.5)
    keep = finite_mask(g.astype(np.float64))
    gf = np.where(keep[..., None], g, 0).astype(dtype)
    out = pyaclnn.grid_sampler2d(x, gf, im, pm, ac)
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    ref = torch.nn.functional.grid_sample(torch.tensor(x.astype(np.float64), dtype=tdt),
                                          torch.tensor(gf.astype(np.float64), dtype=tdt),
                                          mode=["bilinear", "nearest", "bicubic"][im],
                                          padding_mode=["zeros", "border", "reflection"][pm], align_corners=ac)
    check(out, ref.double().numpy(), dtype, "out vs torch")


@pytest.mark.parametrize("shape", [(1, 1, 1, 1, 3, 4), (3, 1, 4, 4, 2, 7), (1, 40, 8, 4, 4, 4), (2, 33, 2, 8, 5, 2)])
@pytest.mark.parametrize("im", [0, 1, 2])
@pytest.mark.parametrize("pm", [0, 1, 2])
def test_shapes(shape, im, pm):
    N, C, H, W, Ho, Wo = shape
    rng = np.random.default_rng(sum(shape) + im)
    x, g = _case(rng, np.float32, N, C, H, W, Ho, Wo, align=True)
    if pm == 2:
        g[np.abs(g) > 1e6] = 0.5
    check(pyaclnn.grid_sampler2d(x, g, im, pm, True), grid_sample_ref(x, g, im, pm, True), np.float32, "out")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
def test_non_contiguous(dtype):
    rng = np.random.default_rng(4)
    x, g = _case(rng, dtype, N=2, C=4, H=5, W=6, Ho=3, Wo=4, special=False)
    out = strided(np.zeros((2, 4, 3, 4), dtype), "slice")
    res = pyaclnn.grid_sampler2d(strided(x, "transpose"), strided(g, "slice"), "bilinear", "reflection", False,
                                 out=out)
    assert res is out
    check(out, grid_sample_ref(x, g, 0, 2, False), dtype, "out")


def test_seed_sample_forward():
    x = np.arange(1, 41, dtype=np.float32).reshape(1, 1, 5, 8)
    g = np.array([-1, -1, 0, -1, 1, -1, -1, 0, 0, 0, 1, 0, -1, 1, 0, 1, 1, 1], np.float32).reshape(1, 3, 3, 2)
    np.testing.assert_array_equal(pyaclnn.grid_sampler2d(x, g).ravel(),
                                  [0.25, 2.25, 2, 8.5, 20.5, 12, 8.25, 18.25, 10])


def test_nan_dropped_and_nearest_half_even():
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 1, 1, 8)
    g = np.array([[[[np.nan, 0], [-0.75, 0], [-0.5, 0], [-0.25, 0]]]], np.float32)
    np.testing.assert_array_equal(pyaclnn.grid_sampler2d(x, g, "nearest", "border").ravel(), [0, 1, 3, 3])
    np.testing.assert_array_equal(pyaclnn.grid_sampler2d(x, g[:, :, :1], "bilinear", "zeros").ravel(), [0])


# ---------------------------------------------------------------- validation

def _t(shape, dtype=np.float32):
    return pyaclnn.AclTensor.from_array(np.zeros(shape, dtype))


def _args(**kw):
    a = dict(x=_t((2, 3, 6, 7)), g=_t((2, 4, 5, 2)), im=0, pm=0, ac=False, out=_t((2, 3, 4, 5)))
    a.update(kw)
    return [a[k] for k in ("x", "g", "im", "pm", "ac", "out")]


INVALID = [
    (dict(x=None), 161001, "input"),
    (dict(g=None), 161001, "grid"),
    (dict(out=None), 161001, "out"),
    (dict(g=_t((2, 4, 5, 2), np.float16)), 161002, "grid"),
    (dict(out=_t((2, 3, 4, 5), np.float16)), 161002, "out"),
    (dict(x=_t((2, 3, 6, 7), np.int32), g=_t((2, 4, 5, 2), np.int32), out=_t((2, 3, 4, 5), np.int32)), 161002,
     "input"),
    (dict(im=3), 161002, "interpolationMode"),
    (dict(pm=-1), 161002, "paddingMode"),
    (dict(x=_t((3, 6, 7))), 161002, "input"),
    (dict(g=_t((2, 4, 10))), 161002, "grid"),
    (dict(out=_t((2, 3, 20))), 161002, "out"),
    (dict(g=_t((1, 4, 5, 2))), 161002, "grid N"),
    (dict(out=_t((1, 3, 4, 5))), 161002, "out N"),
    (dict(out=_t((2, 2, 4, 5))), 161002, "out C"),
    (dict(out=_t((2, 3, 4, 6))), 161002, "grid dims"),
    (dict(x=_t((2, 3, 0, 7))), 161002, "input H"),
    (dict(g=_t((2, 4, 5, 3))), 161002, "grid last dim"),
    # after the empty-tensor early return: the path's own limits
    (dict(x=_t((2, 3, 6, 7), np.float64), g=_t((2, 4, 5, 2), np.float64), out=_t((2, 3, 4, 5), np.float64), im=2),
     161002, "bicubic"),
    (dict(x=pyaclnn.AclTensor.from_array(np.broadcast_to(np.float32(1), (2, 3, 65536, 32769)))), 561103, "H*W"),
    (dict(x=None, im=9), 161001, "input"),
    (dict(g=_t((2, 4, 5, 2), np.float16), im=9), 161002, "grid dtype"),
    (dict(im=9, x=_t((3, 6, 7))), 161002, "interpolationMode"),
]


@pytest.mark.parametrize("kw,code,name", INVALID, ids=[f"{i}-{r[2]}" for i, r in enumerate(INVALID)])
def test_invalid_inputs(kw, code, name):
    expect_invalid(OP, _args(**kw), code, name)


def test_null_workspace_size_and_executor():
    args = [a.handle if isinstance(a, pyaclnn.AclTensor) else a for a in _args()]
    assert lib.aclnnGridSampler2DGetWorkspaceSize(*args, ffi.NULL, ffi.new("aclOpExecutor **")) == 161001
    assert lib.aclnnGridSampler2DGetWorkspaceSize(*args, ffi.new("uint64_t *"), ffi.NULL) == 161001


def test_double_bicubic_rejected():
    with pytest.raises(Exception):
        pyaclnn.grid_sampler2d(np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 1, 2)), "bicubic")


@pytest.mark.parametrize("im", [0, 2], ids=["bilinear", "bicubic"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_path_limits_come_after_the_empty_early_return(dtype, im):
    """DOUBLE + bicubic (161002) and an input H*W above INT32_MAX (561103) are path limits checked after the
    empty-tensor early return (HEAD order): an empty grid succeeds and leaves out untouched."""
    x = pyaclnn.AclTensor.from_array(np.broadcast_to(dtype(1), (1, 2, 65536, 32769)))
    out = pyaclnn.AclTensor.from_array(np.full((1, 2, 0, 5), 3, dtype))
    rc, ws, ex, msg = ws_call(OP, x, pyaclnn.AclTensor.from_array(np.zeros((1, 0, 5, 2), dtype)), im, 0, False, out)
    assert rc == 0 and ws == 0, msg
    assert lib.aclnnGridSampler2D(ffi.NULL, 0, ex, ffi.NULL) == 0


@pytest.mark.parametrize("sx,sg", [((2, 0, 6, 7), (2, 4, 5, 2)), ((2, 3, 6, 7), (2, 0, 5, 2)),
                                   ((0, 3, 6, 7), (0, 4, 5, 2))])
def test_empty_inputs_leave_out_untouched(sx, sg):
    shape = (sx[0], sx[1], sg[1], sg[2])
    out = np.full(shape, 2.5, np.float32)
    pyaclnn.grid_sampler2d(np.ones(sx, np.float32), np.ones(sg, np.float32), out=out)
    assert np.all(out == 2.5)


def test_deterministic_across_thread_counts():
    code = """
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(0)
h = hashlib.sha256()
for im in (0, 1, 2):
    x = rng.standard_normal((2, 24, 20, 22)).astype(np.float32)
    g = rng.uniform(-1.2, 1.2, (2, 30, 26, 2)).astype(np.float32)
    h.update(pyaclnn.grid_sampler2d(x, g, im, 2, True).tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("im", [0, 1, 2])
def test_channel_blocks_and_tails(dtype, im):
    # N=1, C=19 (three 8-channel blocks, the last partial), odd plane and output sizes (transpose tails)
    if im == 2 and dtype == np.float64:
        pytest.skip("double bicubic is rejected")
    rng = np.random.default_rng(41 + im)
    x = cast(rng.standard_normal((1, 19, 7, 13)), dtype)
    g = cast(make_grid(rng, 1, 5, 11, 7, 13, False), dtype)
    for pm in range(3):
        if pm == 2 and dtype != np.float64:
            g[np.abs(g.astype(np.float64)) > 1e6] = 0.75
        check(pyaclnn.grid_sampler2d(x, g, im, pm, False), grid_sample_ref(x, g, im, pm, False), dtype, f"pm={pm}")


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_nan_input_values_pass_through_nearest(dtype):
    x = np.arange(1, 25, dtype=np.float32).reshape(1, 2, 3, 4).astype(dtype)
    x[0, 1, 1, 2] = np.nan
    x[0, 0, 0, 0] = -np.inf
    g = np.array([[[[0.25, 0.0], [-1.0, -1.0], [0.9, 0.9]]]], dtype)
    out = pyaclnn.grid_sampler2d(x, g, "nearest", "zeros", True)
    exp = grid_sample_ref(x.astype(np.float64), g.astype(np.float64), 1, 0, True)
    np.testing.assert_array_equal(out.astype(np.float64), exp.astype(dtype).astype(np.float64))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("kind", ["slice", "transpose"])
def test_planar_path_with_strided_grid(dtype, kind):
    # contiguous input and output take the planar path; the grid is a view (more points than one chunk)
    rng = np.random.default_rng(13)
    x, g = _case(rng, dtype, N=2, C=3, H=5, W=6, Ho=17, Wo=19, special=False)
    out = pyaclnn.grid_sampler2d(x, strided(g, kind), "bilinear", "border", True)
    check(out, grid_sample_ref(x, g, 0, 1, True), dtype, "out")
