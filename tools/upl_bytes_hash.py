"""Bytes digest of every upsample_linear op (Linear1d/Bilinear2d/Bicubic2d/Trilinear3d, their backwards, the AA ops,
Resize) over f32/f16/bf16/f64, align_corners, odd sizes, 1-38 planes, strided views, channels-last, NaN/inf: one line
per case. Run before and after a kernel change (and with PYACLNN_SIMD / OMP_NUM_THREADS varied) and diff the outputs.
  python3 tools/upl_bytes_hash.py > before.txt"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib, ffi
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from helpers import strided
NP = {"f32": np.float32, "f16": np.float16, "bf16": pyaclnn.bfloat16, "f64": np.float64}
from pyaclnn._optable import OPS
rng = np.random.default_rng(5)
KEEP = []

def data(shape, dt):
    x = rng.standard_normal(shape).astype(np.float32)
    f = x.reshape(-1)
    if f.size > 50:
        f[::37] = np.inf; f[5::41] = -np.inf; f[9::43] = np.nan; f[11::47] = 0.0; f[13::53] = -0.0
        f[17::59] = 65000.0; f[19::61] = 1e-6
    return x.astype(NP[dt])

def fmt_of(nsp, cl):
    if nsp == 1: return lib.ACL_FORMAT_ND
    if nsp == 2: return lib.ACL_FORMAT_NHWC if cl else lib.ACL_FORMAT_NCHW
    return lib.ACL_FORMAT_NDHWC if cl else lib.ACL_FORMAT_NCDHW

def mv(a, cl):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1)) if cl else a

def fwd(op, x, outs, align, scales, cl=False, view=None, fmt=None):
    nsp = x.ndim - 2
    fmt = fmt if fmt is not None else fmt_of(nsp, cl)
    xin = mv(x, cl)
    shape = (x.shape[0],) + tuple(outs) + (x.shape[1],) if cl else x.shape[:2] + tuple(outs)
    y = np.full(shape, 7, x.dtype)
    if view:
        xin = strided(xin, view); y = strided(y, view)
    yt = pyaclnn.AclTensor.from_array(y, fmt)
    st = pyaclnn.launch(op, pyaclnn.AclTensor.from_array(xin, fmt), pyaclnn.int_array(list(outs)), align, *scales, yt)
    return yt.numpy()

def bwd(op, g, ins, align, scales, cl=False, view=None, fmt=None):
    nsp = g.ndim - 2
    fmt = fmt if fmt is not None else fmt_of(nsp, cl)
    outs = g.shape[2:]
    gin = mv(g, cl)
    full = g.shape[:2] + tuple(ins)
    yshape = (full[0],) + tuple(ins) + (full[1],) if cl else full
    isz = full if nsp == 3 else yshape
    y = np.full(yshape, 7, g.dtype)
    if view:
        gin = strided(gin, view); y = strided(y, view)
    yt = pyaclnn.AclTensor.from_array(y, fmt)
    pyaclnn.launch(op, pyaclnn.AclTensor.from_array(gin, fmt), pyaclnn.int_array(list(outs)), pyaclnn.int_array(list(isz)),
                   align, *scales, yt)
    return yt.numpy()

def resize(x, outs, mode, view=None):
    ins = x.shape[2:]
    sc = [1.0, 1.0, outs[0] / ins[0], outs[1] / ins[1]]
    y = np.full(x.shape[:2] + tuple(outs), 7, x.dtype)
    xin = x
    if view: xin, y = strided(xin, view), strided(y, view)
    yt = pyaclnn.AclTensor.from_array(y, lib.ACL_FORMAT_NCHW)
    fa = ffi.gc(lib.aclCreateFloatArray(ffi.new("float[]", sc), 4), lib.aclDestroyFloatArray)
    c = ffi.new("char[]", mode.encode()); KEEP.append(c)
    pyaclnn.launch("Resize", pyaclnn.AclTensor.from_array(xin, lib.ACL_FORMAT_NCHW), fa, c, yt)
    return yt.numpy()

out = []
def rec(name, arr):
    out.append("%s %s" % (name, hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest()[:24]))

NC = [(1, 1), (2, 3), (3, 7), (2, 19)]  # 1, 6, 21, 38 planes (blocks of 8/16 and remainders)
# anti-aliased
for op, bop in (("UpsampleBilinear2dAA", "UpsampleBilinear2dAABackward"), ("UpsampleBicubic2dAA", "UpsampleBicubic2dAAGrad")):
    for dt in OPS[op]["dtypes"]:
        for (n, c) in NC:
            for ins, outs, sc in (((37, 53), (11, 9), None), ((40, 40), (15, 15), None), ((5, 7), (9, 11), None),
                                  ((20, 9), (7, 2), None), ((8, 6), (4, 3), (0.5, 0.5)), ((6, 10), (15, 4), (2.5, 0.4)),
                                  ((33, 70), (33, 21), None), ((19, 25), (6, 25), None), ((64, 64), (3, 61), None),
                                  ((7, 130), (3, 17), None), ((1, 40), (1, 7), None), ((40, 1), (7, 1), None)):
                scl = list(sc) if sc else [0.0, 0.0]
                for align in (False, True):
                    x = data((n, c) + ins, dt)
                    views = (None, "slice", "transpose") if (n, c) in ((2, 3), (2, 19)) else (None,)
                    for v in views:
                        rec(f"{op} {dt} {n}x{c} {ins}->{outs} {sc} ac{align} v{v}", fwd(op, x, outs, align, scl, view=v))
                        g = data((n, c) + outs, dt)
                        rec(f"{bop} {dt} {n}x{c} {outs}->{ins} {sc} ac{align} v{v}", bwd(bop, g, ins, align, scl, view=v))
# plain linear / cubic
CASES = {1: [((5,), (9,), None), ((7,), (3,), None), ((4,), (8,), (2.0,)), ((1,), (4,), None), ((5,), (1,), None),
             ((3,), (7,), (2.5,)), ((100,), (37,), None), ((61,), (150,), None), ((6,), (6,), None)],
         2: [((5, 7), (9, 4), None), ((4, 4), (8, 8), (2.0, 2.0)), ((4, 6), (6, 9), (1.5, 1.5)), ((6, 5), (3, 2), None),
             ((1, 3), (4, 5), None), ((5, 5), (5, 5), None), ((3, 4), (7, 10), (2.5, 2.6)), ((4, 1), (6, 1), None),
             ((17, 33), (40, 9), None), ((40, 40), (13, 61), None)],
         3: [((2, 3, 4), (4, 5, 3), None), ((2, 2, 2), (4, 4, 4), (2.0, 2.0, 2.0)), ((3, 4, 5), (2, 3, 7), None),
             ((1, 2, 3), (3, 2, 5), (3.0, 1.0, 1.7)), ((5, 9, 11), (7, 4, 23), None)]}
FWD = {"UpsampleLinear1d": 1, "UpsampleBilinear2d": 2, "UpsampleBicubic2d": 2, "UpsampleTrilinear3d": 3}
BWD = {"UpsampleLinear1dBackward": 1, "UpsampleBilinear2dBackward": 2, "UpsampleBilinear2dBackwardV2": 2,
       "UpsampleBicubic2dBackward": 2, "UpsampleTrilinear3dBackward": 3}
def sargs(op, nsp, sc, bw):
    if sc is None:
        return [-1.0] if op == "UpsampleLinear1d" else [0.0] * nsp
    return list(sc)
for op, nsp in FWD.items():
    for dt in OPS[op]["dtypes"]:
        for (n, c) in NC:
            for ins, outs, sc in CASES[nsp]:
                for align in (False, True):
                    x = data((n, c) + ins, dt)
                    views = (None, "slice", "transpose") if (n, c) == (2, 19) else (None,)
                    for v in views:
                        try:
                            rec(f"{op} {dt} {n}x{c} {ins}->{outs} {sc} ac{align} v{v}", fwd(op, x, outs, align, sargs(op, nsp, sc, 0), view=v))
                        except Exception as e:
                            out.append(f"{op} {dt} {n}x{c} {ins}->{outs} {sc} ac{align} v{v} ERR {type(e).__name__}")
                    if nsp >= 2 and (n, c) == (2, 3):
                        try:
                            rec(f"{op} {dt} cl {ins}->{outs} {sc} ac{align}", fwd(op, x, outs, align, sargs(op, nsp, sc, 0), cl=True))
                        except Exception as e:
                            out.append(f"{op} {dt} cl {ins}->{outs} ERR {type(e).__name__}")
for op, nsp in BWD.items():
    for dt in OPS[op]["dtypes"]:
        for (n, c) in NC:
            for ins, outs, sc in CASES[nsp]:
                for align in (False, True):
                    g = data((n, c) + outs, dt)
                    views = (None, "slice", "transpose") if (n, c) == (2, 19) else (None,)
                    for v in views:
                        try:
                            rec(f"{op} {dt} {n}x{c} {outs}->{ins} {sc} ac{align} v{v}", bwd(op, g, ins, align, sargs(op, nsp, sc, 1), view=v))
                        except Exception as e:
                            out.append(f"{op} {dt} {n}x{c} {outs}->{ins} {sc} ac{align} v{v} ERR {type(e).__name__}")
for dt in OPS["Resize"]["dtypes"]:
    for ins, outs in (((2, 2), (4, 4)), ((5, 7), (9, 4)), ((6, 6), (3, 2)), ((4, 5), (4, 5)), ((3, 8), (7, 20)), ((31, 45), (12, 77))):
        for mode in ("nearest", "bilinear"):
            for v in (None, "slice"):
                x = data((2, 19) + ins, dt)
                rec(f"Resize {dt} {ins}->{outs} {mode} v{v}", resize(x, outs, mode, v))
print("\n".join(out))
