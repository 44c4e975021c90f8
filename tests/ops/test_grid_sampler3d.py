"""aclnnGridSampler3D / aclnnGridSampler3DBackward (ops-cv image/grid_sample, image/grid_sampler3_d_grad):
the float64 loop reference and PyTorch for every mode x A2 dtype, NDHWC layout, strided views, empty tensors,
output masks, the op_api's invalid rows (order and codes), determinism for OMP_NUM_THREADS 1/2/7."""
import itertools

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from gs_cases import ALL_DTYPES, ALL_IDS, cast, check
from helpers import expect_invalid, run_executor, same_bytes_for_threads, strided, ws_call
from reference.grid_sampler3d import grid_sample3d_backward_ref, grid_sample3d_ref

FWD, BWD = "GridSampler3D", "GridSampler3DBackward"
MODES = list(itertools.product(range(2), range(3), (False, True)))
MODE_IDS = [f"{'tri nea'.split()[i]}-{'zer bor ref'.split()[p]}-{'ac' if a else 'na'}" for i, p, a in MODES]
TORCH_MODE = ("bilinear", "nearest")
TORCH_PAD = ("zeros", "border", "reflection")


def _tensor(a, fmt=None):
    return pyaclnn.AclTensor.from_array(a, getattr(lib, "ACL_FORMAT_" + fmt) if fmt else None)


def fwd(x, g, im, pm, ac, out=None, fmt=None):
    if out is None:
        shape = (x.shape[0], x.shape[1]) + g.shape[1:4] if fmt != "NDHWC" else g.shape[:4] + (x.shape[4],)
        out = np.full(shape, 7, x.dtype)
    xt, gt, yt = _tensor(x, fmt), _tensor(g), _tensor(out, fmt)
    rc, ws, ex, msg = ws_call(FWD, xt, gt, im, pm, ac, yt)
    assert rc == 0, msg
    assert run_executor(FWD, ex, ws) == 0
    return yt.numpy()


def bwd(go, x, g, im, pm, ac, mask=(True, True), outs=None, fmt=None):
    if outs is None:
        outs = (np.full(x.shape, 7, x.dtype), np.full(g.shape, 7, x.dtype))
    ts = [_tensor(go, fmt), _tensor(x, fmt), _tensor(g), _tensor(outs[0], fmt), _tensor(outs[1])]
    rc, ws, ex, msg = ws_call(BWD, ts[0], ts[1], ts[2], im, pm, ac, pyaclnn.bool_array(list(mask)), ts[3], ts[4])
    assert rc == 0, msg
    assert run_executor(BWD, ex, ws) == 0
    return ts[3].numpy(), ts[4].numpy()


def make_grid3(rng, N, Do, Ho, Wo, spread=1.3, special=True):
    g = rng.uniform(-spread, spread, (N, Do, Ho, Wo, 3))
    pts = [(-1.0, -1.0, -1.0), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), (0.5, -0.25, 0.75), (-1.0, 1.0, 0.0)]
    if special:
        pts += [(np.nan, 0.0, 0.0), (0.0, 0.0, np.inf), (-np.inf, 0.5, 0.2), (1e10, 0.0, 0.1)]
    flat = g.reshape(-1, 3)
    for k, p in enumerate(pts[: len(flat)]):
        flat[(k * 5) % len(flat)] = p
    return g


def _case(rng, dtype, N=2, C=3, D=3, H=4, W=5, Do=2, Ho=3, Wo=4, special=False, spread=1.3):
    x = cast(rng.standard_normal((N, C, D, H, W)), dtype)
    g = cast(make_grid3(rng, N, Do, Ho, Wo, spread, special), dtype)
    go = cast(rng.standard_normal((N, C, Do, Ho, Wo)), dtype)
    return go, x, g


@pytest.mark.parametrize("oracle", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_forward(request, mode, dtype, oracle):
    im, pm, ac = mode
    rng = np.random.default_rng(11 + im * 9 + pm * 3 + ac)
    _, x, g = _case(rng, dtype)
    y = fwd(x, g, im, pm, ac)
    assert y.dtype == dtype
    if oracle == "numpy":
        check(y, grid_sample3d_ref(x, g, im, pm, ac), dtype, "out vs numpy")
        return
    torch = request.getfixturevalue("torch")
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    exp = torch.nn.functional.grid_sample(torch.tensor(x.astype(np.float64), dtype=tdt),
                                          torch.tensor(g.astype(np.float64), dtype=tdt), mode=TORCH_MODE[im],
                                          padding_mode=TORCH_PAD[pm], align_corners=ac)
    check(y, exp.double().numpy(), dtype, "out vs torch")


@pytest.mark.parametrize("oracle", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_backward(request, mode, dtype, oracle):
    im, pm, ac = mode
    rng = np.random.default_rng(40 + im * 9 + pm * 3 + ac)
    go, x, g = _case(rng, dtype)
    gi, gg = bwd(go, x, g, im, pm, ac)
    if oracle == "numpy":
        rgi, rgg = grid_sample3d_backward_ref(go, x, g, im, pm, ac)
        check(gi, rgi, dtype, "inputGrad vs numpy")
        check(gg, rgg, dtype, "gridGrad vs numpy")
        return
    torch = request.getfixturevalue("torch")
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    t = [torch.tensor(a.astype(np.float64), dtype=tdt) for a in (go, x, g)]
    tgi, tgg = torch.ops.aten.grid_sampler_3d_backward(t[0], t[1], t[2], im, pm, ac, [True, True])
    check(gi, tgi.double().numpy(), dtype, "inputGrad vs torch")
    check(gg, tgg.double().numpy(), dtype, "gridGrad vs torch")


@pytest.mark.parametrize("im", [0, 1])
@pytest.mark.parametrize("pm", [0, 1, 2])
def test_special_coordinates_vs_reference(im, pm):
    """NaN, +-inf and huge grid values: dropped / clamped like the 2-D op (SPEC section 2.4)."""
    rng = np.random.default_rng(3 + im + 2 * pm)
    go, x, g = _case(rng, np.float64, special=True)
    check(fwd(x, g, im, pm, False), grid_sample3d_ref(x, g, im, pm, False), np.float64, "out")
    gi, gg = bwd(go, x, g, im, pm, False)
    rgi, rgg = grid_sample3d_backward_ref(go, x, g, im, pm, False)
    check(gi, rgi, np.float64, "inputGrad")
    check(gg, rgg, np.float64, "gridGrad")


def test_upstream_example_values():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 1, 3, 3)
    g = np.array([-1, -1, 0, -1, 1, -1, -1, 0, 0, 0, 1, 0], np.float32).reshape(1, 1, 2, 2, 3)
    np.testing.assert_array_equal(fwd(x, g, 0, 0, False).ravel(), [0.25, 0.875, 2, 4])
    gi, gg = bwd(np.ones((1, 1, 1, 2, 2), np.float32), x, g, 0, 0, False)
    np.testing.assert_array_equal(gi.ravel(), [0.25, 0, 0, 0.5, 0, 0, 0.125, 0.5, 0])
    np.testing.assert_array_equal(gg.ravel(), [0.75, 0.75, -0.125, 2.625, -2.625, 0.875, 6, 2.25, -1, 0.75, -12, -2])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
def test_strided_views(dtype):
    rng = np.random.default_rng(5)
    go, x, g = _case(rng, dtype, special=False)
    y = fwd(strided(x, "transpose"), strided(g, "slice"), 0, 2, True,
            out=strided(np.zeros((2, 3, 2, 3, 4), dtype), "transpose"))
    check(y, grid_sample3d_ref(x, g, 0, 2, True), dtype, "out")
    outs = (strided(np.zeros(x.shape, dtype), "slice"), strided(np.zeros(g.shape, dtype), "transpose"))
    gi, gg = bwd(strided(go, "slice"), strided(x, "slice"), strided(g, "transpose"), 0, 1, True, outs=outs)
    rgi, rgg = grid_sample3d_backward_ref(go, x, g, 0, 1, True)
    check(gi, rgi, dtype, "inputGrad")
    check(gg, rgg, dtype, "gridGrad")


@pytest.mark.parametrize("im", [0, 1])
def test_ndhwc_layout(im):
    """Input format NDHWC: input / out / gradOutput / inputGrad are [N, D, H, W, C]."""
    rng = np.random.default_rng(8)
    go, x, g = _case(rng, np.float32)
    to_cl = lambda a: np.ascontiguousarray(a.transpose(0, 2, 3, 4, 1))
    y = fwd(to_cl(x), g, im, 0, False, fmt="NDHWC")
    check(y, to_cl(grid_sample3d_ref(x, g, im, 0, False)), np.float32, "out")
    gi, gg = bwd(to_cl(go), to_cl(x), g, im, 0, False, fmt="NDHWC")
    rgi, rgg = grid_sample3d_backward_ref(go, x, g, im, 0, False)
    check(gi, to_cl(rgi), np.float32, "inputGrad")
    check(gg, rgg, np.float32, "gridGrad")


@pytest.mark.parametrize("mask", [(True, False), (False, True), (False, False)])
def test_output_mask(mask):
    rng = np.random.default_rng(9)
    go, x, g = _case(rng, np.float32)
    rgi, rgg = grid_sample3d_backward_ref(go, x, g, 0, 0, False)
    gi, gg = bwd(go, x, g, 0, 0, False, mask=mask)
    for m, res, ref in zip(mask, (gi, gg), (rgi, rgg)):
        if m:
            check(res, ref, np.float32, "masked-in output")
        else:
            assert np.all(res == 7)  # untouched


def test_empty_tensors():
    z = np.zeros
    assert fwd(z((0, 2, 3, 4, 5), np.float32), z((0, 1, 2, 3, 3), np.float32), 0, 0, False).shape == (0, 2, 1, 2, 3)
    y = fwd(z((1, 2, 3, 4, 5), np.float32), z((1, 0, 2, 3, 3), np.float32), 0, 0, False)
    assert y.shape == (1, 2, 0, 2, 3)
    gi, _ = bwd(z((1, 2, 0, 2, 3), np.float32), z((1, 2, 3, 4, 5), np.float32), z((1, 0, 2, 3, 3), np.float32), 0, 0,
                False)
    assert np.all(gi == 7)  # an empty problem writes nothing (the op_api returns before any kernel)


def test_null_output_mask_is_an_empty_success():
    t = lambda s: _tensor(np.zeros(s, np.float32))
    rc, ws, ex, msg = ws_call(BWD, None, None, None, 0, 0, False, ffi.NULL, None, None)
    assert rc == 0, msg
    assert run_executor(BWD, ex, ws) == 0


def test_deterministic_across_threads():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
from helpers import ws_call, run_executor
rng = np.random.default_rng(1)
x = rng.standard_normal((2, 5, 6, 7, 8)).astype(np.float32)
g = rng.uniform(-1.2, 1.2, (2, 5, 6, 7, 3)).astype(np.float32)
go = rng.standard_normal((2, 5, 5, 6, 7)).astype(np.float32)
h = hashlib.sha256()
for im in (0, 1):
    T = pyaclnn.AclTensor.from_array
    xt, gt, got = T(x), T(g), T(go)  # kept alive until phase 2
    y = T(np.zeros((2, 5, 5, 6, 7), np.float32))
    rc, ws, ex, msg = ws_call("GridSampler3D", xt, gt, im, 2, False, y)
    assert rc == 0 and run_executor("GridSampler3D", ex, ws) == 0
    gi, gg = T(np.zeros_like(x)), T(np.zeros_like(g))
    rc, ws, ex, msg = ws_call("GridSampler3DBackward", got, xt, gt, im, 0, True,
                              pyaclnn.bool_array([True, True]), gi, gg)
    assert rc == 0 and run_executor("GridSampler3DBackward", ex, ws) == 0
    for t in (y, gi, gg):
        h.update(t.numpy().tobytes())
print(h.hexdigest())
"""
    import os
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    same_bytes_for_threads(f"import sys; sys.path.insert(0, {here!r})\n" + code)


_BWD_LANES_CODE = r"""
import hashlib, numpy as np, pyaclnn
from helpers import strided
T = pyaclnn.AclTensor.from_array
rng = np.random.default_rng(3)
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16, np.float64):
    for C in (2, 5, 8, 19):  # the channel lanes (8) and their tails
        x = rng.standard_normal((2, C, 4, 5, 6)).astype(np.float32)
        x.flat[::41] = np.inf
        g = rng.uniform(-1.2, 1.2, (2, 3, 4, 5, 3)).astype(np.float32)
        go = rng.standard_normal((2, C, 3, 4, 5)).astype(np.float32)
        for v in (lambda a: a, strided):  # contiguous, and strided views (the element paths)
            gi, gg = T(v(np.zeros(x.shape, dt))), T(v(np.zeros(g.shape, dt)))
            pyaclnn.launch("GridSampler3DBackward", T(v(go.astype(dt))), T(v(x.astype(dt))), T(v(g.astype(dt))),
                           0, 1, False, pyaclnn.bool_array([True, True]), gi, gg)
            h.update(gi.numpy().tobytes()); h.update(gg.numpy().tobytes())
print(h.hexdigest())
"""


def test_backward_channel_lanes_same_bytes_for_threads_and_simd_levels():
    """the trilinear backward's channel-lane dot products and channels-last transposes: the same bytes at
    OMP_NUM_THREADS 1/2/7 and at PYACLNN_SIMD off / avx2 / default"""
    import os
    from helpers import run_python
    code = f"import sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})\n"
    code += _BWD_LANES_CODE
    ref = same_bytes_for_threads(code)
    for cap in ("off", "avx2"):
        assert run_python(code, {"PYACLNN_SIMD": cap}) == ref, cap


# ---------------------------------------------------------------- validation

def _t(shape, dtype=np.float32, fmt=None):
    return _tensor(np.zeros(shape, dtype), fmt)


def _fargs(**kw):
    a = dict(x=_t((2, 3, 4, 5, 6)), g=_t((2, 2, 3, 4, 3)), im=0, pm=0, ac=False, out=_t((2, 3, 2, 3, 4)))
    a.update(kw)
    return [a[k] for k in ("x", "g", "im", "pm", "ac", "out")]


F16 = np.float16
FWD_INVALID = [
    (dict(x=None), 161001, "input"),
    (dict(g=None), 161001, "grid"),
    (dict(out=None), 161001, "out"),
    (dict(g=_t((2, 2, 3, 4, 3), F16)), 161002, "grid"),
    (dict(out=_t((2, 3, 2, 3, 4), F16)), 161002, "out"),
    (dict(x=_t((2, 3, 4, 5, 6), np.int32), g=_t((2, 2, 3, 4, 3), np.int32), out=_t((2, 3, 2, 3, 4), np.int32)),
     161002, "input"),
    (dict(x=_t((2, 3, 4, 5, 6), fmt="NCHW")), 161002, "input"),
    (dict(out=_t((2, 3, 2, 3, 4), fmt="NHWC")), 161002, "out"),
    (dict(pm=3), 161002, "paddingMode"),
    (dict(pm=-1), 161002, "paddingMode"),
    (dict(im=2), 161002, "interpolationMode"),
    (dict(im=-1), 161002, "interpolationMode"),
    (dict(x=_t((2, 3, 5, 6))), 161002, "input"),
    (dict(g=_t((2, 2, 3, 3))), 161002, "grid"),
    (dict(out=_t((2, 3, 6, 4))), 161002, "out"),
    (dict(g=_t((1, 2, 3, 4, 3))), 161002, "grid N"),
    (dict(out=_t((1, 3, 2, 3, 4))), 161002, "out N"),
    (dict(out=_t((2, 4, 2, 3, 4))), 161002, "out C"),
    (dict(out=_t((2, 3, 2, 3, 5))), 161002, "grid dims"),
    (dict(x=_t((2, 3, 4, 0, 6))), 161002, "input dims 3 and 4"),
    (dict(x=_t((2, 3, 4, 5, 0))), 161002, "input dims 3 and 4"),
    (dict(g=_t((2, 2, 3, 4, 2))), 161002, "grid last dim"),
    # order: the first failing rule wins
    (dict(x=None, g=_t((2, 2, 3, 4, 3), F16)), 161001, "input"),
    (dict(g=_t((2, 2, 3, 4, 3), F16), pm=9), 161002, "grid"),
    (dict(pm=9, im=9), 161002, "paddingMode"),
    (dict(x=_t((2, 3, 4, 5, 6), fmt="NCHW"), pm=9), 161002, "input"),
    (dict(im=9, x=_t((2, 3, 5, 6))), 161002, "interpolationMode"),
    (dict(x=_t((2, 3, 4, 5, 0)), g=_t((2, 2, 3, 4, 2))), 161002, "input dims 3 and 4"),
]


@pytest.mark.parametrize("kw,code,name", FWD_INVALID, ids=[f"{i}-{r[2]}" for i, r in enumerate(FWD_INVALID)])
def test_forward_invalid(kw, code, name):
    expect_invalid(FWD, _fargs(**kw), code, name)


def test_forward_ndhwc_shape_rules():
    """With input format NDHWC the channel is dim 4 and D, H, W dims 1..3 (of input and out)."""
    ok = _fargs(x=_t((2, 4, 5, 6, 3), fmt="NDHWC"), out=_t((2, 2, 3, 4, 3), fmt="NDHWC"))
    rc, _, _, msg = ws_call(FWD, *ok)
    assert rc == 0, msg
    expect_invalid(FWD, _fargs(x=_t((2, 4, 5, 6, 3), fmt="NDHWC"), out=_t((2, 2, 3, 4, 5))), 161002, "out C")


def _bargs(**kw):
    a = dict(go=_t((2, 3, 2, 3, 4)), x=_t((2, 3, 4, 5, 6)), g=_t((2, 2, 3, 4, 3)), im=0, pm=0, ac=False,
             mask=pyaclnn.bool_array([True, True]), gi=_t((2, 3, 4, 5, 6)), gg=_t((2, 2, 3, 4, 3)))
    a.update(kw)
    return [a[k] for k in ("go", "x", "g", "im", "pm", "ac", "mask", "gi", "gg")]


BWD_INVALID = [
    (dict(go=None), 161001, "gradOutput"),
    (dict(x=None), 161001, "input"),
    (dict(g=None), 161001, "grid"),
    (dict(gi=None), 161001, "inputGrad"),
    (dict(gg=None), 161001, "gridGrad"),
    (dict(go=_t((2, 3, 2, 3, 4), F16)), 161002, "gradOutput"),
    (dict(g=_t((2, 2, 3, 4, 3), F16)), 161002, "grid"),
    (dict(gi=_t((2, 3, 4, 5, 6), F16)), 161002, "inputGrad"),
    (dict(gg=_t((2, 2, 3, 4, 3), F16)), 161002, "gridGrad"),
    (dict(go=_t((2, 3, 2, 3, 4), np.int32), x=_t((2, 3, 4, 5, 6), np.int32), g=_t((2, 2, 3, 4, 3), np.int32),
          gi=_t((2, 3, 4, 5, 6), np.int32), gg=_t((2, 2, 3, 4, 3), np.int32)), 161002, "input"),
    (dict(pm=3), 161002, "paddingMode"),
    (dict(im=2), 161002, "interpolationMode"),
    (dict(x=_t((2, 3, 5, 6)), gi=_t((2, 3, 5, 6))), 161002, "input"),
    (dict(g=_t((2, 2, 3, 4)), gg=_t((2, 2, 3, 4))), 161002, "grid"),
    (dict(go=_t((2, 3, 24))), 161002, "gradOutput"),
    (dict(go=_t((1, 3, 2, 3, 4))), 161002, "gradOutput N"),
    (dict(go=_t((2, 2, 2, 3, 4))), 161002, "gradOutput C"),
    (dict(go=_t((2, 3, 2, 3, 5))), 161002, "grid dims"),
    (dict(g=_t((2, 2, 3, 4, 2)), gg=_t((2, 2, 3, 4, 2))), 161002, "grid last dim"),
    (dict(gi=_t((2, 3, 4, 5, 7))), 161002, "inputGrad"),
    (dict(gg=_t((2, 2, 3, 4, 1))), 161002, "gridGrad"),
    (dict(mask=pyaclnn.bool_array([True])), 161002, "outputMask"),
    (dict(mask=pyaclnn.bool_array([True, True, False])), 161002, "outputMask"),
    # order
    (dict(gg=None, pm=7), 161001, "gridGrad"),
    (dict(pm=7, im=7), 161002, "paddingMode"),
    (dict(im=7, x=_t((2, 3, 5, 6))), 161002, "interpolationMode"),
    (dict(gg=_t((2, 2, 3, 4, 1)), mask=pyaclnn.bool_array([True])), 161002, "gridGrad"),
]


@pytest.mark.parametrize("kw,code,name", BWD_INVALID, ids=[f"{i}-{r[2]}" for i, r in enumerate(BWD_INVALID)])
def test_backward_invalid(kw, code, name):
    expect_invalid(BWD, _bargs(**kw), code, name)


def test_backward_input_spatial_zero_is_allowed():
    """The backward op_api has no non-empty spatial rule: an input with W = 0 is an empty success."""
    rc, ws, ex, msg = ws_call(BWD, *_bargs(x=_t((2, 3, 4, 5, 0)), gi=_t((2, 3, 4, 5, 0))))
    assert rc == 0, msg
    assert run_executor(BWD, ex, ws) == 0
