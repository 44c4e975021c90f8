"""Linear / cubic resampling family (aclnnUpsampleLinear1d, Bilinear2d, Bicubic2d, Trilinear3d and their backward
passes): numpy float64 loop references, PyTorch CPU (aten kernels and F.interpolate autograd), every A2 dtype,
align_corners, given/derived scales, channels-last formats, strided views, empty tensors, invalid inputs with the
exact status codes, determinism across thread counts."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn._optable import OPS
from helpers import BF16, TOL, assert_close, expect_invalid, rounded, same_bytes_for_threads, strided
from reference.upsample_linear import resample, resample_backward

RNG = np.random.default_rng(11)
NP = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": BF16, "f64": np.dtype(np.float64)}

# op -> (spatial axes, reference mode, torch mode, backward?)
FWD = {"UpsampleLinear1d": (1, "linear", "linear"), "UpsampleBilinear2d": (2, "linear", "bilinear"),
       "UpsampleBicubic2d": (2, "cubic", "bicubic"), "UpsampleTrilinear3d": (3, "linear", "trilinear")}
BWD = {"UpsampleLinear1dBackward": "UpsampleLinear1d", "UpsampleBilinear2dBackward": "UpsampleBilinear2d",
       "UpsampleBilinear2dBackwardV2": "UpsampleBilinear2d", "UpsampleBicubic2dBackward": "UpsampleBicubic2d",
       "UpsampleTrilinear3dBackward": "UpsampleTrilinear3d"}

# (input spatial, output spatial, scales or None) per number of spatial axes; given scales are consistent
# (int(in * s) == out), the only kind UpsampleLinear1d accepts
CASES = {
    1: [((5,), (9,), None), ((7,), (3,), None), ((4,), (8,), (2.0,)), ((6,), (6,), None), ((1,), (4,), None),
        ((5,), (1,), None), ((3,), (7,), (2.5,))],
    2: [((5, 7), (9, 4), None), ((4, 4), (8, 8), (2.0, 2.0)), ((4, 6), (6, 9), (1.5, 1.5)), ((6, 5), (3, 2), None),
        ((1, 3), (4, 5), None), ((5, 5), (5, 5), None), ((3, 4), (7, 10), (2.5, 2.6)), ((4, 1), (6, 1), None)],
    3: [((2, 3, 4), (4, 5, 3), None), ((2, 2, 2), (4, 4, 4), (2.0, 2.0, 2.0)), ((3, 4, 5), (2, 3, 7), None),
        ((1, 2, 3), (3, 2, 5), (3.0, 1.0, 1.7))],
}


def _ids(cases):
    return ["%s-%s-%s" % ("x".join(map(str, i)), "x".join(map(str, o)), "s" if s else "d") for i, o, s in cases]


def fmt_of(nsp, cl=False):
    if nsp == 1:
        return lib.ACL_FORMAT_ND
    if nsp == 2:
        return lib.ACL_FORMAT_NHWC if cl else lib.ACL_FORMAT_NCHW
    return lib.ACL_FORMAT_NDHWC if cl else lib.ACL_FORMAT_NCDHW


def scale_args(op, nsp, scales):
    """The op's scale parameters: 0 means "none", except UpsampleLinear1d(Backward) whose A2 op_api rejects a
    scale >= 0 that does not give outputSize: there "none" is -1."""
    if scales is None:
        return [-1.0] if op.startswith("UpsampleLinear1d") and not op.endswith("Backward") else [0.0] * nsp
    return list(scales)


def eff_scales(op, ins, outs, scales, dtype):
    """The scales the real op hands its kernel (see each op_api): Bilinear2d only passes consistent scales on its
    AI-core path (double goes to the size-only AICPU path); Bilinear2dBackward (ResizeBilinearV2Grad) uses the
    sizes only; the V2 backward takes scales with floor(in * s) == out on both axes."""
    nsp = len(ins)
    if scales is None:
        return [None] * nsp
    if op == "UpsampleBilinear2dBackward" or (op == "UpsampleBilinear2d" and dtype == NP["f64"]):
        return [None] * nsp
    return list(scales)


def tensor(arr, fmt):
    return pyaclnn.AclTensor.from_array(arr, fmt)


def to_cl(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def from_cl(a):
    return np.moveaxis(a, -1, 1)


def run_fwd(op, x, outs, align, scales, cl=False, view=None):
    """x in (N, C, *spatial) order; returns (N, C, *outs)."""
    nsp = x.ndim - 2
    fmt = fmt_of(nsp, cl)
    xin = to_cl(x) if cl else x
    shape = (x.shape[0],) + tuple(outs) + (x.shape[1],) if cl else x.shape[:2] + tuple(outs)
    if view:
        xin = strided(xin, view)
    xt = tensor(xin, fmt)
    y = np.full(shape, 7, x.dtype)
    if view:
        y = strided(y, view)
    yt = tensor(y, fmt)
    pyaclnn.launch(op, xt, pyaclnn.int_array(list(outs)), align, *scale_args(op, nsp, scales), yt)
    res = yt.numpy()
    return from_cl(res) if cl else res


def run_bwd(op, g, ins, align, scales, cl=False, view=None):
    nsp = g.ndim - 2
    fmt = fmt_of(nsp, cl)
    outs = g.shape[2:]
    gin = to_cl(g) if cl else g
    full = g.shape[:2] + tuple(ins)
    yshape = (full[0],) + tuple(ins) + (full[1],) if cl else full
    isz = full if nsp == 3 else yshape  # the 3-D op_apis read inputSize as (N, C, D, H, W) in every format
    if view:
        gin = strided(gin, view)
    y = np.full(yshape, 7, g.dtype)
    if view:
        y = strided(y, view)
    yt = tensor(y, fmt)
    pyaclnn.launch(op, tensor(gin, fmt), pyaclnn.int_array(list(outs)), pyaclnn.int_array(list(isz)), align,
                   *scale_args(op, nsp, scales), yt)
    res = yt.numpy()
    return from_cl(res) if cl else res


def tol(dt, bwd=False):
    r, a = TOL[dt]
    if dt == NP["f32"]:
        return 4 * r, 1e-5
    if dt == NP["f64"]:
        return 1e-12, 1e-12
    return 2 * r, 2 * a


def _fwd_params():
    out = []
    for op, (nsp, _, _) in FWD.items():
        for dt in OPS[op]["dtypes"]:
            for case, cid in zip(CASES[nsp], _ids(CASES[nsp])):
                for align in (False, True):
                    out.append(pytest.param(op, dt, case, align, id=f"{op}-{dt}-{cid}-{'ac' if align else 'hp'}"))
    return out


def _bwd_params():
    out = []
    for op, fop in BWD.items():
        nsp = FWD[fop][0]
        for dt in OPS[op]["dtypes"]:
            for case, cid in zip(CASES[nsp], _ids(CASES[nsp])):
                for align in (False, True):
                    out.append(pytest.param(op, dt, case, align, id=f"{op}-{dt}-{cid}-{'ac' if align else 'hp'}"))
    return out


def _torch_fwd(torch, mode, x, outs, align, sc):
    fn = getattr(torch.ops.aten, f"upsample_{mode}{len(outs)}d" if mode != "linear" else "upsample_linear1d")
    return fn(torch.from_numpy(x), list(outs), align, *sc).double().numpy()


@pytest.mark.parametrize("op,dt,case,align", _fwd_params())
def test_forward(op, dt, case, align, torch):
    nsp, mode, tmode = FWD[op]
    ins, outs, scales = case
    dtype = NP[dt]
    cl = op == "UpsampleBilinear2d" and dt == "f64"  # the A2 op_api takes DOUBLE in NHWC only
    x = RNG.uniform(-2, 2, (2, 3) + ins).astype(dtype)
    got = run_fwd(op, x, outs, align, scales, cl=cl)
    sc = eff_scales(op, ins, outs, scales, dtype)
    ref = resample(x.astype(np.float64), outs, mode, align, sc)
    rt, at = tol(dtype)
    assert_close(got, rounded(ref, dtype) if dtype != NP["f64"] else ref, dtype, rt, at, "numpy")
    tdt = np.float64 if dtype == NP["f64"] else np.float32
    tref = _torch_fwd(torch, tmode, x.astype(tdt), outs, align, sc)
    assert_close(got, rounded(tref, dtype) if dtype != NP["f64"] else tref, dtype, rt, at, "torch")


@pytest.mark.parametrize("op,dt,case,align", _bwd_params())
def test_backward(op, dt, case, align, torch):
    fop = BWD[op]
    nsp, mode, tmode = FWD[fop]
    ins, outs, scales = case
    dtype = NP[dt]
    g = RNG.uniform(-2, 2, (2, 3) + outs).astype(dtype)
    got = run_bwd(op, g, ins, align, scales)
    sc = eff_scales(op, ins, outs, scales, dtype)
    ref = resample_backward(g.astype(np.float64), ins, mode, align, sc)
    rt, at = tol(dtype, True)
    assert_close(got, rounded(ref, dtype) if dtype != NP["f64"] else ref, dtype, rt, at, "numpy")
    tdt = torch.float64 if dtype == NP["f64"] else torch.float32
    fn = getattr(torch.ops.aten, f"upsample_{tmode}{nsp}d_backward" if tmode != "linear"
                 else "upsample_linear1d_backward")
    tref = fn(torch.from_numpy(g.astype(np.float64)).to(tdt), list(outs), [2, 3] + list(ins), align, *sc)
    tref = tref.double().numpy()
    assert_close(got, rounded(tref, dtype) if dtype != NP["f64"] else tref, dtype, rt, at, "torch")


@pytest.mark.parametrize("op", list(FWD))
@pytest.mark.parametrize("align", [False, True])
def test_autograd_interpolate(op, align, torch):
    """F.interpolate(scale_factor=...) forward and its autograd gradient against the forward/backward ops."""
    nsp, mode, tmode = FWD[op]
    ins = (3, 4, 5)[:nsp] if nsp < 3 else (2, 3, 4)
    sf = 2.0
    outs = tuple(int(i * sf) for i in ins)
    x = torch.randn((2, 2) + ins, dtype=torch.float32, requires_grad=True)
    y = torch.nn.functional.interpolate(x, scale_factor=sf, mode=tmode, align_corners=align)
    gy = torch.randn_like(y)
    y.backward(gy)
    got = run_fwd(op, x.detach().numpy(), outs, align, (sf,) * nsp)
    assert_close(got, y.detach().double().numpy(), np.float32, 1e-5, 1e-5)
    bop = next(b for b, f in BWD.items() if f == op)
    gi = run_bwd(bop, gy.numpy(), ins, align, (sf,) * nsp)
    assert_close(gi, x.grad.double().numpy(), np.float32, 1e-5, 1e-5)


@pytest.mark.parametrize("op", ["UpsampleBilinear2d", "UpsampleBicubic2d", "UpsampleTrilinear3d"])
@pytest.mark.parametrize("dt", ["f32", "bf16"])
def test_channels_last(op, dt):
    nsp, mode, _ = FWD[op]
    dtype = NP[dt]
    ins, outs = ((4, 5), (7, 3)) if nsp == 2 else ((2, 3, 4), (3, 5, 2))
    x = RNG.uniform(-2, 2, (2, 3) + ins).astype(dtype)
    got = run_fwd(op, x, outs, False, None, cl=True)
    ref = resample(x.astype(np.float64), outs, mode, False, [None] * nsp)
    assert_close(got, rounded(ref, dtype), dtype, *tol(dtype))


@pytest.mark.parametrize("op", ["UpsampleBilinear2dBackward", "UpsampleBilinear2dBackwardV2",
                                "UpsampleTrilinear3dBackward"])
def test_channels_last_backward(op):
    fop = BWD[op]
    nsp, mode, _ = FWD[fop]
    ins, outs = ((4, 5), (7, 3)) if nsp == 2 else ((2, 3, 4), (3, 5, 2))
    g = RNG.uniform(-2, 2, (2, 3) + outs).astype(np.float32)
    got = run_bwd(op, g, ins, True, None, cl=True)
    ref = resample_backward(g.astype(np.float64), ins, mode, True, [None] * nsp)
    assert_close(got, ref, np.float32, *tol(NP["f32"]))


@pytest.mark.parametrize("op", list(FWD) + list(BWD))
@pytest.mark.parametrize("view", ["slice", "transpose"])
def test_strided_views(op, view):
    bwd = op in BWD
    fop = BWD.get(op, op)
    nsp, mode, _ = FWD[fop]
    ins, outs, _ = CASES[nsp][0]
    dtype = NP["f32"]
    if bwd:
        g = RNG.uniform(-2, 2, (2, 3) + outs).astype(dtype)
        got = run_bwd(op, g, ins, False, None, view=view)
        ref = resample_backward(g.astype(np.float64), ins, mode, False, [None] * nsp)
    else:
        x = RNG.uniform(-2, 2, (2, 3) + ins).astype(dtype)
        got = run_fwd(op, x, outs, False, None, view=view)
        ref = resample(x.astype(np.float64), outs, mode, False, [None] * nsp)
    assert_close(got, ref, dtype, *tol(dtype))


@pytest.mark.parametrize("op", list(FWD) + list(BWD))
def test_empty_batch(op):
    """N == 0: phase 1 succeeds, nothing is written."""
    bwd = op in BWD
    nsp = FWD[BWD.get(op, op)][0]
    ins, outs, _ = CASES[nsp][0]
    if bwd:
        got = run_bwd(op, np.zeros((0, 3) + outs, np.float32), ins, False, None)
    else:
        got = run_fwd(op, np.zeros((0, 3) + ins, np.float32), outs, False, None)
    assert got.size == 0


def test_determinism():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
h = hashlib.sha256()
rng = np.random.default_rng(5)
def go(op, x, oshape, args, fmt):
    y = np.zeros(oshape, x.dtype)
    yt = pyaclnn.AclTensor.from_array(y, fmt)
    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(x, fmt), *args, yt)
    h.update(yt.numpy().tobytes())
ia = pyaclnn.int_array
F4, F5 = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_NCDHW
x = rng.standard_normal((4, 16, 37, 29)).astype(np.float32)
g = rng.standard_normal((4, 16, 53, 71)).astype(np.float32)
for ac in (False, True):
    go("UpsampleBilinear2d", x, (4, 16, 53, 71), [ia([53, 71]), ac, 0.0, 0.0], F4)
    go("UpsampleBicubic2d", x, (4, 16, 53, 71), [ia([53, 71]), ac, 0.0, 0.0], F4)
    go("UpsampleBilinear2dBackward", g, (4, 16, 37, 29), [ia([53, 71]), ia([4, 16, 37, 29]), ac, 0.0, 0.0], F4)
    go("UpsampleBicubic2dBackward", g, (4, 16, 37, 29), [ia([53, 71]), ia([4, 16, 37, 29]), ac, 0.0, 0.0], F4)
    g5 = rng.standard_normal((2, 8, 9, 11, 13)).astype(np.float32)
    go("UpsampleTrilinear3dBackward", g5, (2, 8, 4, 5, 6), [ia([9, 11, 13]), ia([2, 8, 4, 5, 6]), ac, 0.0, 0.0, 0.0], F5)
    g1 = rng.standard_normal((8, 16, 301)).astype(np.float32)
    go("UpsampleLinear1dBackward", g1, (8, 16, 97), [ia([301]), ia([8, 16, 97]), ac, 0.0], lib.ACL_FORMAT_ND)
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ---- invalid inputs: exact codes and the argument named ----

def _t(shape, dt="f32", fmt=None, nsp=2):
    return tensor(np.zeros(shape, NP[dt]), fmt_of(nsp) if fmt is None else fmt)


def _fwd_args(op, **kw):
    nsp = FWD[op][0]
    ins, outs = {1: ((4,), (8,)), 2: ((4, 4), (8, 8)), 3: ((2, 2, 2), (4, 4, 4))}[nsp]
    a = dict(x=_t((1, 2) + ins, nsp=nsp), osz=pyaclnn.int_array(list(outs)), ac=False,
             sc=scale_args(op, nsp, None), out=_t((1, 2) + outs, nsp=nsp))
    a.update(kw)
    return [a["x"], a["osz"], a["ac"]] + list(a["sc"]) + [a["out"]]


def _bwd_args(op, **kw):
    nsp = FWD[BWD[op]][0]
    ins, outs = {1: ((4,), (8,)), 2: ((4, 4), (8, 8)), 3: ((2, 2, 2), (4, 4, 4))}[nsp]
    a = dict(g=_t((1, 2) + outs, nsp=nsp), osz=pyaclnn.int_array(list(outs)),
             isz=pyaclnn.int_array([1, 2] + list(ins)), ac=False, sc=[0.0] * nsp, out=_t((1, 2) + ins, nsp=nsp))
    a.update(kw)
    return [a["g"], a["osz"], a["isz"], a["ac"]] + list(a["sc"]) + [a["out"]]


INVALID_FWD = [
    ("self NULL", dict(x=None), 161001, "self"),
    ("out NULL", dict(out=None), 161001, "out"),
    ("outputSize NULL", dict(osz=None), 161001, "outputSize"),
    ("int32 self", "dtype", 161002, "self"),
    ("out dtype differs", "outdtype", 161002, "out"),
    ("out shape", "outshape", 161002, "out"),
    ("outputSize length", "osz_len", 161002, "outputSize"),
    ("outputSize 0", "osz_zero", 161002, "outputSize"),
    ("rank", "rank", 161002, "self"),
]


@pytest.mark.parametrize("op", list(FWD))
@pytest.mark.parametrize("row", INVALID_FWD, ids=[r[0] for r in INVALID_FWD])
def test_invalid_forward(op, row):
    _, kw, code, word = row
    if op == "UpsampleBilinear2d" and row[0] == "outputSize NULL":
        code = 161002  # its op_api checks outputSize inside CheckOutputSize, last, with PARAM_INVALID
    if op == "UpsampleBilinear2d" and row[0] in ("self NULL", "out NULL"):
        code = 561103  # its CheckNotNull reports ACLNN_ERR_INNER_NULLPTR (upstream ut: ..._test_nullptr_self)
    nsp = FWD[op][0]
    ins, outs = {1: ((4,), (8,)), 2: ((4, 4), (8, 8)), 3: ((2, 2, 2), (4, 4, 4))}[nsp]
    if kw == "dtype":
        kw = dict(x=_t((1, 2) + ins, "f32", nsp=nsp), out=_t((1, 2) + outs, "f32", nsp=nsp))
        kw["x"] = tensor(np.zeros((1, 2) + ins, np.int32), fmt_of(nsp))
        kw["out"] = tensor(np.zeros((1, 2) + outs, np.int32), fmt_of(nsp))
    elif kw == "outdtype":
        kw = dict(out=tensor(np.zeros((1, 2) + outs, np.float16), fmt_of(nsp)))
    elif kw == "outshape":
        kw = dict(out=_t((1, 3) + outs, nsp=nsp))
    elif kw == "osz_len":
        kw = dict(osz=pyaclnn.int_array(list(outs) + [3]))
    elif kw == "osz_zero":
        kw = dict(osz=pyaclnn.int_array([0] * nsp))
    elif kw == "rank":
        kw = dict(x=_t((2,) + ins, nsp=nsp))
    expect_invalid(op, _fwd_args(op, **kw), code, word)


INVALID_BWD = [
    ("gradOut NULL", "gnull", 161001, "gradOut"),
    ("out NULL", "onull", 161001, "out"),
    ("inputSize NULL", dict(isz=None), 161001, "inputSize"),
    ("outputSize NULL", dict(osz=None), 161001, "outputSize"),
    ("int32 gradOut", "dtype", 161002, "gradOut"),
    ("inputSize length", "isz_len", 161002, "inputSize"),
    ("outputSize length", "osz_len", 161002, "outputSize"),
    ("gradOut shape", "gshape", 161002, "gradOut"),
    ("out shape", "oshape", 161002, "out"),
    ("sizes 0", "zero", 161002, "Size"),
]


@pytest.mark.parametrize("op", list(BWD))
@pytest.mark.parametrize("row", INVALID_BWD, ids=[r[0] for r in INVALID_BWD])
def test_invalid_backward(op, row):
    _, kw, code, word = row
    nsp = FWD[BWD[op]][0]
    yn = "gradInput" if op in ("UpsampleBicubic2dBackward", "UpsampleTrilinear3dBackward") else "out"
    ins, outs = {1: ((4,), (8,)), 2: ((4, 4), (8, 8)), 3: ((2, 2, 2), (4, 4, 4))}[nsp]
    if kw == "gnull":
        kw = dict(g=None)
    elif kw == "onull":
        kw = dict(out=None)
        word = yn
    elif kw == "dtype":
        kw = dict(g=tensor(np.zeros((1, 2) + outs, np.int32), fmt_of(nsp)),
                  out=tensor(np.zeros((1, 2) + ins, np.int32), fmt_of(nsp)))
    elif kw == "isz_len":
        kw = dict(isz=pyaclnn.int_array([1, 2] + list(ins) + [1]))
    elif kw == "osz_len":
        kw = dict(osz=pyaclnn.int_array(list(outs) + [1]))
    elif kw == "gshape":
        kw = dict(g=_t((1, 3) + outs, nsp=nsp))
    elif kw == "oshape":
        kw = dict(out=_t((1, 3) + ins, nsp=nsp))
        word = yn
    elif kw == "zero":
        kw = dict(osz=pyaclnn.int_array([0] * nsp))
    expect_invalid(op, _bwd_args(op, **kw), code, word)


def test_bilinear2d_double_needs_nhwc():
    x = tensor(np.zeros((1, 2, 4, 4)), lib.ACL_FORMAT_NCHW)
    y = tensor(np.zeros((1, 2, 8, 8)), lib.ACL_FORMAT_NCHW)
    expect_invalid("UpsampleBilinear2d", [x, pyaclnn.int_array([8, 8]), False, 0.0, 0.0, y], 161002, "NHWC")


def test_bilinear2d_negative_scale():
    expect_invalid("UpsampleBilinear2d", _fwd_args("UpsampleBilinear2d", sc=[-1.0, 2.0]), 161002, "scales")


def test_bilinear2d_nd_format_rejected():
    x = tensor(np.zeros((1, 2, 4, 4), np.float32), lib.ACL_FORMAT_ND)
    y = tensor(np.zeros((1, 2, 8, 8), np.float32), lib.ACL_FORMAT_ND)
    expect_invalid("UpsampleBilinear2d", [x, pyaclnn.int_array([8, 8]), False, 0.0, 0.0, y], 161002, "format")


def test_linear1d_scale_conflict():
    """A2: a scale >= 0 must give outputSize (int(L * scale)); 0 is not "none" there."""
    for s in (0.0, 3.0):
        expect_invalid("UpsampleLinear1d", _fwd_args("UpsampleLinear1d", sc=[s]), 161002, "scale")


# ---- check order: two faults at once, the op_api's first one wins ----

def test_order_bilinear2d_dtype_before_format():
    x = tensor(np.zeros((1, 2, 4, 4), np.int32), lib.ACL_FORMAT_ND)
    y = tensor(np.zeros((1, 2, 8, 8), np.int32), lib.ACL_FORMAT_NCHW)
    expect_invalid("UpsampleBilinear2d", [x, pyaclnn.int_array([8, 8]), False, 0.0, 0.0, y], 161002, "self")


def test_order_bilinear2d_scales_before_outputsize():
    args = _fwd_args("UpsampleBilinear2d", sc=[-1.0, 0.0], osz=pyaclnn.int_array([8]))
    expect_invalid("UpsampleBilinear2d", args, 161002, "scales")


def test_order_linear1d_shape_before_dtype():
    x = tensor(np.zeros((1, 2, 4), np.int32), lib.ACL_FORMAT_ND)
    y = tensor(np.zeros((1, 2, 9), np.int32), lib.ACL_FORMAT_ND)
    expect_invalid("UpsampleLinear1d", [x, pyaclnn.int_array([8]), False, -1.0, y], 161002, "out")


def test_order_bicubic2d_backward_null_order():
    """inputSize is the first NULL check, then gradInput, gradOut, outputSize."""
    a = _bwd_args("UpsampleBicubic2dBackward", isz=None, g=None)
    expect_invalid("UpsampleBicubic2dBackward", a, 161001, "inputSize")
    a = _bwd_args("UpsampleBicubic2dBackward", out=None, g=None)
    expect_invalid("UpsampleBicubic2dBackward", a, 161001, "gradInput")


def test_order_bilinear2d_backward_v2_null_order():
    a = _bwd_args("UpsampleBilinear2dBackwardV2", isz=None, osz=None)
    expect_invalid("UpsampleBilinear2dBackwardV2", a, 161001, "inputSize")


def test_order_trilinear3d_backward_dtype_first():
    g = tensor(np.zeros((1, 2, 4, 4), np.int32), lib.ACL_FORMAT_NCDHW)  # wrong rank too
    a = _bwd_args("UpsampleTrilinear3dBackward", g=g, out=tensor(np.zeros((1, 2, 2, 2, 2), np.int32),
                                                                  lib.ACL_FORMAT_NCDHW))
    expect_invalid("UpsampleTrilinear3dBackward", a, 161002, "gradOut")


def test_linear1d_backward_out_length_is_a_copy_failure():
    """[HW] out's L is not compared with inputSize; the final copy into out fails (561103)."""
    a = _bwd_args("UpsampleLinear1dBackward", out=_t((1, 2, 5), nsp=1))
    expect_invalid("UpsampleLinear1dBackward", a, 561103, "out")


@pytest.mark.parametrize("scale,length,code", [(550.0, 3300, 161002), (0.0, 3300, 161002), (400.0, 2400, 0),
                                               (550.0, 3000, 0), (0.0, 3000, 0)])
def test_linear1d_backward_scale_above_500(scale, length, code):
    """The A2 kernel path refuses a scale above 500 (scales, or outputSize / inputSize without one); a scale that
    disagrees with the sizes (int(6 * 550) != 3000) takes the other path, where no limit applies."""
    from helpers import ws_call
    a = _bwd_args("UpsampleLinear1dBackward", g=_t((1, 1, length), nsp=1), osz=pyaclnn.int_array([length]),
                  isz=pyaclnn.int_array([1, 1, 6]), sc=[scale], out=_t((1, 1, 6), nsp=1))
    if code:
        expect_invalid("UpsampleLinear1dBackward", a, code, "scales")
    else:
        rc, _, ex, msg = ws_call("UpsampleLinear1dBackward", *a)
        assert rc == 0, msg
        lib.aclDestroyAclOpExecutor(ex)


def test_bicubic2d_scale_conflict():
    expect_invalid("UpsampleBicubic2d", _fwd_args("UpsampleBicubic2d", sc=[3.0, 0.0]), 161002, "scalesH")


def test_bilinear2d_inconsistent_scales_use_sizes(torch):
    """Scales that do not give outputSize (int(in * s) != out) leave the AI-core path: the sizes decide."""
    x = RNG.uniform(-2, 2, (1, 2, 5, 6)).astype(np.float32)
    got = run_fwd("UpsampleBilinear2d", x, (9, 8), False, (1.5, 1.5))
    ref = torch.ops.aten.upsample_bilinear2d(torch.from_numpy(x), [9, 8], False, None, None).double().numpy()
    assert_close(got, ref, np.float32, 1e-5, 1e-6)


def test_trilinear3d_scales_all_or_none(torch):
    """Trilinear takes the scales only when all three are > 0."""
    x = RNG.uniform(-2, 2, (1, 2, 3, 4, 5)).astype(np.float32)
    got = run_fwd("UpsampleTrilinear3d", x, (7, 10, 12), False, (2.5, 0.0, 2.5))
    ref = torch.ops.aten.upsample_trilinear3d(torch.from_numpy(x), [7, 10, 12], False, None, None, None)
    assert_close(got, ref.double().numpy(), np.float32, 1e-5, 1e-6)


# ---- antialiased variants ----

AA = {"UpsampleBilinear2dAA": (False, "UpsampleBilinear2dAABackward", "_upsample_bilinear2d_aa"),
      "UpsampleBicubic2dAA": (True, "UpsampleBicubic2dAAGrad", "_upsample_bicubic2d_aa")}
AA_CASES = [((13, 17), (4, 6), None), ((5, 7), (9, 11), None), ((8, 8), (3, 8), None), ((20, 9), (7, 2), None),
            ((8, 6), (4, 3), (0.5, 0.5)), ((6, 10), (15, 4), (2.5, 0.4))]


def _aa_params():
    out = []
    for op in AA:
        for dt in OPS[op]["dtypes"]:
            for case, cid in zip(AA_CASES, _ids(AA_CASES)):
                for align in (False, True):
                    out.append(pytest.param(op, dt, case, align, id=f"{op}-{dt}-{cid}-{'ac' if align else 'hp'}"))
    return out


@pytest.mark.parametrize("op,dt,case,align", _aa_params())
def test_antialias(op, dt, case, align, torch):
    from reference.upsample_linear import resample_aa
    cubic, bop, aten = AA[op]
    ins, outs, scales = case
    dtype = NP[dt]
    sc = list(scales) if scales else [None, None]
    x = RNG.uniform(-2, 2, (2, 3) + ins).astype(dtype)
    got = run_fwd(op, x, outs, align, scales)
    rt, at = tol(dtype)
    ref = resample_aa(x.astype(np.float64), outs, cubic, align, sc)
    assert_close(got, rounded(ref, dtype), dtype, rt, at, "numpy fwd")
    tref = getattr(torch.ops.aten, aten)(torch.from_numpy(x.astype(np.float32)), list(outs), align, *sc)
    assert_close(got, rounded(tref.double().numpy(), dtype), dtype, rt, at, "torch fwd")
    g = RNG.uniform(-2, 2, (2, 3) + outs).astype(dtype)
    gi = run_bwd(bop, g, ins, align, scales)
    ref = resample_aa(g.astype(np.float64), None, cubic, align, sc, backward_in=ins)
    assert_close(gi, rounded(ref, dtype), dtype, rt, at, "numpy bwd")
    tref = getattr(torch.ops.aten, aten + "_backward")(torch.from_numpy(g.astype(np.float32)), list(outs),
                                                       [2, 3] + list(ins), align, *sc)
    assert_close(gi, rounded(tref.double().numpy(), dtype), dtype, rt, at, "torch bwd")


@pytest.mark.parametrize("op", list(AA))
def test_antialias_autograd(op, torch):
    cubic, bop, _ = AA[op]
    x = torch.randn(2, 2, 12, 9, dtype=torch.float32, requires_grad=True)
    y = torch.nn.functional.interpolate(x, size=(5, 4), mode="bicubic" if cubic else "bilinear", antialias=True)
    gy = torch.randn_like(y)
    y.backward(gy)
    assert_close(run_fwd(op, x.detach().numpy(), (5, 4), False, None), y.detach().double().numpy(), np.float32,
                 1e-5, 1e-6)
    assert_close(run_bwd(bop, gy.numpy(), (12, 9), False, None), x.grad.double().numpy(), np.float32, 1e-5, 1e-6)


@pytest.mark.parametrize("op", list(AA) + [v[1] for v in AA.values()])
def test_antialias_views(op):
    """strided input and output views give the contiguous result"""
    if op not in AA:
        g = RNG.uniform(-2, 2, (2, 3, 4, 6)).astype(np.float32)
        a = run_bwd(op, g, (13, 17), False, None)
        b = run_bwd(op, g, (13, 17), False, None, view="slice")
        c = run_bwd(op, g, (13, 17), False, None, view="transpose")
    else:
        x = RNG.uniform(-2, 2, (2, 3, 13, 17)).astype(np.float32)
        a = run_fwd(op, x, (4, 6), False, None)
        b = run_fwd(op, x, (4, 6), False, None, view="slice")
        c = run_fwd(op, x, (4, 6), False, None, view="transpose")
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_antialias_determinism():
    code = """
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
h = hashlib.sha256()
rng = np.random.default_rng(5)
F = lib.ACL_FORMAT_NCHW
ia = pyaclnn.int_array
def go(op, x, oshape, args):
    yt = pyaclnn.AclTensor.from_array(np.zeros(oshape, x.dtype), F)
    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(x, F), *args, yt)
    h.update(yt.numpy().tobytes())
x = rng.standard_normal((4, 16, 67, 45)).astype(np.float32)
g = rng.standard_normal((4, 16, 23, 17)).astype(np.float32)
for ac in (False, True):
    go("UpsampleBilinear2dAA", x, (4, 16, 23, 17), [ia([23, 17]), ac, 0.0, 0.0])
    go("UpsampleBicubic2dAA", x, (4, 16, 23, 17), [ia([23, 17]), ac, 0.0, 0.0])
    go("UpsampleBilinear2dAABackward", g, (4, 16, 67, 45), [ia([23, 17]), ia([4, 16, 67, 45]), ac, 0.0, 0.0])
    go("UpsampleBicubic2dAAGrad", g, (4, 16, 67, 45), [ia([23, 17]), ia([4, 16, 67, 45]), ac, 0.0, 0.0])
print(h.hexdigest())
"""
    same_bytes_for_threads(code)



BLOCKS_CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
h = hashlib.sha256()
rng = np.random.default_rng(7)
F4, F5, FL = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_NCDHW, lib.ACL_FORMAT_NHWC
ia = pyaclnn.int_array
def data(shape, dt):
    x = rng.standard_normal(shape).astype(np.float32)
    f = x.reshape(-1)
    f[::37] = np.inf; f[5::41] = -np.inf; f[9::43] = np.nan; f[11::47] = -0.0; f[17::59] = 65000.0
    return x.astype(dt)
def go(op, x, oshape, args, fmt=F4, view=False):
    y = np.zeros(oshape, x.dtype)
    if view:  # every other element of the last axis, both sides
        xb = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), x.dtype); xb[..., ::2] = x; x = xb[..., ::2]
        yb = np.zeros(oshape[:-1] + (2 * oshape[-1],), x.dtype); y = yb[..., ::2]
    yt = pyaclnn.AclTensor.from_array(y, fmt)
    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(x, fmt), *args, yt)
    h.update(yt.numpy().tobytes())
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for n, c in ((1, 1), (2, 3)):
        for ac in (False, True):
            for view in (False, True):
                x = data((n, c, 37, 45), dt)  # 37 rows: two 16-row blocks and a partial one
                g = data((n, c, 11, 17), dt)
                go("UpsampleBilinear2dAA", x, (n, c, 11, 17), [ia([11, 17]), ac, 0.0, 0.0], view=view)
                go("UpsampleBicubic2dAA", x, (n, c, 11, 17), [ia([11, 17]), ac, 0.0, 0.0], view=view)
                go("UpsampleBilinear2dAABackward", g, (n, c, 37, 45), [ia([11, 17]), ia([n, c, 37, 45]), ac, 0.0, 0.0], view=view)
                go("UpsampleBicubic2dAAGrad", g, (n, c, 37, 45), [ia([11, 17]), ia([n, c, 37, 45]), ac, 0.0, 0.0], view=view)
                go("UpsampleBilinear2d", g, (n, c, 37, 45), [ia([37, 45]), ac, 0.0, 0.0], view=view)
                go("UpsampleBicubic2d", g, (n, c, 37, 45), [ia([37, 45]), ac, 0.0, 0.0], view=view)
                if dt is not pyaclnn.bfloat16:
                    go("UpsampleBilinear2dBackward", x, (n, c, 11, 17), [ia([37, 45]), ia([n, c, 11, 17]), ac, 0.0, 0.0], view=view)
                go("UpsampleBicubic2dBackward", x, (n, c, 11, 17), [ia([37, 45]), ia([n, c, 11, 17]), ac, 0.0, 0.0], view=view)
    for ac in (False, True):
        g5 = data((2, 3, 9, 11, 13), dt)
        go("UpsampleTrilinear3dBackward", g5, (2, 3, 4, 21, 6), [ia([9, 11, 13]), ia([2, 3, 4, 21, 6]), ac, 0.0, 0.0, 0.0], F5)
        go("UpsampleTrilinear3d", g5, (2, 3, 5, 19, 29), [ia([5, 19, 29]), ac, 0.0, 0.0, 0.0], F5)
x64 = data((2, 17, 19, 3), np.float64)  # NHWC double (the only Bilinear2d double format)
go("UpsampleBilinear2d", x64, (2, 33, 7, 3), [ia([33, 7]), False, 0.0, 0.0], FL)
go("UpsampleTrilinear3d", data((2, 3, 4, 19, 5), np.float64), (2, 3, 6, 9, 11), [ia([6, 9, 11]), True, 0.0, 0.0, 0.0], F5)
print(h.hexdigest())
"""


def test_row_blocks_identical_bytes_every_level_and_thread_count():
    """The W pass in 16-row blocks (libsrc/kernels/upsample_linear.inc upl_wblock: vector lanes = plane rows, a
    NaN-careful redo per block): the same bytes at every PYACLNN_SIMD level and OMP_NUM_THREADS, partial blocks,
    strided views, NaN/inf, every dtype."""
    from helpers import run_python
    outs = {(cap, t): run_python(BLOCKS_CODE, {"PYACLNN_SIMD": cap, "OMP_NUM_THREADS": str(t)})
            for cap, t in (("off", 1), ("avx2", 1), ("", 1), ("", 2), ("", 7))}
    assert len(set(outs.values())) == 1, outs


AA_INVALID = [
    ("NULL input", "x", None, 161001),
    ("NULL out", "out", None, 161001),
    ("int32", "dtype", None, 161002),
    ("NHWC", "fmt", None, 161002),
    ("negative scale", "sc", [-1.0, 0.0], 161002),
    ("ratio > 50", "big", None, 161002),
    ("out shape", "oshape", None, 561103),
]


@pytest.mark.parametrize("op", list(AA))
@pytest.mark.parametrize("row", AA_INVALID, ids=[r[0] for r in AA_INVALID])
def test_antialias_invalid_forward(op, row):
    _, what, val, code = row
    xn = "x" if op == "UpsampleBicubic2dAA" else "input"
    x = _t((1, 2, 8, 8))
    out = _t((1, 2, 4, 4))
    osz = pyaclnn.int_array([4, 4])
    sc = [0.0, 0.0]
    word = xn
    if what == "x":
        x = None
    elif what == "out":
        out, word = None, "out"
    elif what == "dtype":
        x = tensor(np.zeros((1, 2, 8, 8), np.int32), lib.ACL_FORMAT_NCHW)
        out = tensor(np.zeros((1, 2, 4, 4), np.int32), lib.ACL_FORMAT_NCHW)
    elif what == "fmt":
        x = tensor(np.zeros((1, 2, 8, 8), np.float32), lib.ACL_FORMAT_NHWC)
        out = tensor(np.zeros((1, 2, 4, 4), np.float32), lib.ACL_FORMAT_NHWC)
        word = "format"
    elif what == "sc":
        sc, word = val, "scales"
        if op == "UpsampleBicubic2dAA":
            return  # its op_api does not range-check the scales (a negative one means "none")
    elif what == "big":
        x, out, osz, word = _t((1, 2, 204, 8)), _t((1, 2, 2, 4)), pyaclnn.int_array([2, 4]), "50"
    elif what == "oshape":
        out, word = _t((1, 2, 4, 5)), "out"
        if op == "UpsampleBicubic2dAA":
            code = 161002  # its CheckShape compares out's H, W with outputSize
    expect_invalid(op, [x, osz, False] + sc + [out], code, word)


@pytest.mark.parametrize("op", [v[1] for v in AA.values()])
def test_antialias_invalid_backward(op):
    g, out = _t((1, 2, 4, 4)), _t((1, 2, 8, 8))
    osz, isz = pyaclnn.int_array([4, 4]), pyaclnn.int_array([1, 2, 8, 8])
    expect_invalid(op, [None, osz, isz, False, 0.0, 0.0, out], 161001, "gradOutput")
    expect_invalid(op, [g, osz, None, False, 0.0, 0.0, out], 161001, "inputSize")
    expect_invalid(op, [g, None, isz, False, 0.0, 0.0, out], 161001, "outputSize")
    expect_invalid(op, [g, osz, isz, False, -1.0, 0.0, out], 161002, "scales")
    expect_invalid(op, [g, osz, pyaclnn.int_array([1, 2, 8]), False, 0.0, 0.0, out], 161002, "inputSize")
    expect_invalid(op, [g, osz, isz, False, 0.0, 0.0, _t((1, 2, 8, 9))], 561103, "out")
    # more than a 50x upscale in the forward (ratio < 0.02)
    expect_invalid(op, [_t((1, 2, 4, 4)), osz, isz, False, 60.0, 0.0, out], 161002, "scalesH")


# ---- aclnnResize ----

RESIZE_CASES = [((2, 2), (4, 4)), ((5, 7), (9, 4)), ((6, 6), (3, 2)), ((4, 5), (4, 5)), ((3, 8), (7, 20))]


def _resize(x, outs, mode, cl=False, view=None):
    fmt = lib.ACL_FORMAT_NHWC if cl else lib.ACL_FORMAT_NCHW
    ins = x.shape[2:]
    sc = [1.0, 1.0, outs[0] / ins[0], outs[1] / ins[1]]
    if cl:
        sc = [1.0, outs[0] / ins[0], outs[1] / ins[1], 1.0]
    xin = to_cl(x) if cl else x
    shape = (x.shape[0],) + tuple(outs) + (x.shape[1],) if cl else x.shape[:2] + tuple(outs)
    y = np.full(shape, 7, x.dtype)
    if view:
        xin, y = strided(xin, view), strided(y, view)
    yt = tensor(y, fmt)
    pyaclnn.launch("Resize", tensor(xin, fmt), _float_array(sc), _cstr(mode), yt)
    r = yt.numpy()
    return from_cl(r) if cl else r


_KEEP = []


def _cstr(s):
    from pyaclnn import ffi
    c = ffi.new("char[]", s.encode())
    _KEEP.append(c)
    return c


def _float_array(v):
    from pyaclnn import ffi
    h = lib.aclCreateFloatArray(ffi.new("float[]", v), len(v))
    return ffi.gc(h, lib.aclDestroyFloatArray)


@pytest.mark.parametrize("dt", OPS["Resize"]["dtypes"])
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
@pytest.mark.parametrize("case", RESIZE_CASES, ids=[f"{a}->{b}" for a, b in RESIZE_CASES])
def test_resize(case, mode, dt, torch):
    ins, outs = case
    dtype = NP[dt]
    x = RNG.uniform(-2, 2, (2, 3) + ins).astype(dtype)
    got = _resize(x, outs, mode)
    tx = torch.from_numpy(x.astype(np.float32))
    if mode == "nearest":
        ref = torch.nn.functional.interpolate(tx, size=outs, mode="nearest").double().numpy()
        np.testing.assert_array_equal(got.astype(np.float64), ref.astype(dtype).astype(np.float64))
    else:
        ref = torch.nn.functional.interpolate(tx, size=outs, mode="bilinear", align_corners=False).double().numpy()
        assert_close(got, rounded(ref, dtype), dtype, *tol(dtype))
        assert_close(got, rounded(resample(x.astype(np.float64), outs, "linear", False, [None, None]), dtype), dtype,
                     *tol(dtype))


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_resize_nhwc_and_views(mode, torch):
    x = RNG.uniform(-2, 2, (2, 3, 5, 7)).astype(np.float32)
    a = _resize(x, (9, 4), mode)
    np.testing.assert_array_equal(a, _resize(x, (9, 4), mode, cl=True))
    np.testing.assert_array_equal(a, _resize(x, (9, 4), mode, view="slice"))
    np.testing.assert_array_equal(a, _resize(x, (9, 4), mode, view="transpose"))


def test_resize_invalid():
    x, y = _t((1, 2, 4, 4)), _t((1, 2, 8, 8))
    sc = _float_array([1.0, 1.0, 2.0, 2.0])
    nm = _cstr("bilinear")
    expect_invalid("Resize", [None, sc, nm, y], 161001, "self")
    expect_invalid("Resize", [x, None, nm, y], 161001, "scales")
    expect_invalid("Resize", [x, sc, None, y], 161001, "mode")
    expect_invalid("Resize", [x, sc, _cstr("bicubic"), y], 161002, "mode")
    xi = tensor(np.zeros((1, 2, 4, 4), np.float64), lib.ACL_FORMAT_NCHW)
    expect_invalid("Resize", [xi, sc, nm, tensor(np.zeros((1, 2, 8, 8)), lib.ACL_FORMAT_NCHW)], 161002, "self")
    expect_invalid("Resize", [_t((1, 2, 4, 4), fmt=lib.ACL_FORMAT_ND), sc, nm, _t((1, 2, 8, 8), fmt=lib.ACL_FORMAT_ND)],
                   161002, "format")
    expect_invalid("Resize", [x, sc, nm, _t((1, 3, 8, 8))], 161002, "channel")
    expect_invalid("Resize", [x, _float_array([1.0, 1.0, 3.0, 2.0]), nm, y], 161002, "height")
    expect_invalid("Resize", [x, _float_array([1.0, 2.0, 2.0]), nm, y], 161002, "scales")
    # the mode is prefix-matched
    rc, _, _, msg = __import__("helpers").ws_call("Resize", x, sc, _cstr("bilinear_whatever"), y)
    assert rc == 0, msg


_ROWS_CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
from helpers import strided
rng = np.random.default_rng(9)
h = hashlib.sha256()
ia, ND = pyaclnn.int_array, lib.ACL_FORMAT_ND
def run(fwd, x, L, Lo, ac, dt, view=lambda a: a):
    shape = (x.shape[0], x.shape[1], Lo if fwd else L)
    yt = pyaclnn.AclTensor.from_array(view(np.zeros(shape, dt)), ND)
    xt = pyaclnn.AclTensor.from_array(view(x.astype(dt)), ND)
    if fwd:
        pyaclnn.launch("UpsampleLinear1d", xt, ia([Lo]), ac, -1.0, yt)
    else:
        pyaclnn.launch("UpsampleLinear1dBackward", xt, ia([Lo]), ia([x.shape[0], x.shape[1], L]), ac, -1.0, yt)
    return yt.numpy()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    for (L, Lo) in ((37, 61), (61, 37), (5, 5)):
        for ac in (False, True):
            for fwd in (True, False):
                x = rng.standard_normal((3, 6, L if fwd else Lo)).astype(np.float32)  # 18 rows: two blocks of 8, 2 more
                x.flat[::23] = np.inf
                x.flat[5::29] = np.nan
                full = run(fwd, x, L, Lo, ac, dt)
                # the row blocks compute each element as the single-row path does
                one = np.concatenate([run(fwd, x[i:i + 1, j:j + 1], L, Lo, ac, dt) for i in range(3) for j in range(6)])
                # (NaNs compared as NaN: at -O1, the sanitizer build, GCC may order a commutative add's operands
                # differently in the two paths, so which NaN payload survives inf - inf + NaN can differ there)
                a, b = (v.reshape(18, -1).astype(np.float64) for v in (full, one))
                assert np.array_equal(np.isnan(a), np.isnan(b)), (dt, L, Lo, ac, fwd)
                a[np.isnan(a)] = 0
                b[np.isnan(b)] = 0
                assert a.tobytes() == b.tobytes(), (dt, L, Lo, ac, fwd)
                h.update(full.tobytes())
                h.update(run(fwd, x, L, Lo, ac, dt, strided).tobytes())
print(h.hexdigest())
"""


def test_linear1d_row_blocks_same_bytes_as_single_rows_threads_and_simd_levels():
    """UpsampleLinear1d and its backward in blocks of 8 rows (one vector lane a row): every element equals the
    single-row path's, and the bytes agree at OMP_NUM_THREADS 1/2/7 and PYACLNN_SIMD off / avx2 / default
    (fp16 through F16C at avx2, portable rows off), Inf / NaN inputs, strided views, both alignCorners"""
    import os
    from helpers import run_python
    code = f"import sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})\n"
    code += _ROWS_CODE
    ref = same_bytes_for_threads(code)
    for cap in ("off", "avx2"):
        assert run_python(code, {"PYACLNN_SIMD": cap}) == ref, cap
