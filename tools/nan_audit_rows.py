#!/usr/bin/env python3
"""NaN-payload audit across SIMD levels and thread counts (the project standard: the same bytes for any
OMP_NUM_THREADS and any PYACLNN_SIMD level, NaN payloads included).

Every case is an (op, input builder) row: each float input is seeded with many NaNs of distinct payloads (signalling,
quiet, sign set, payload bits varied) plus +-Inf and +-0, so that two NaNs meet in the kernels' sums and products and
default NaNs (Inf - Inf, 0 * Inf) meet payload NaNs. The whole table runs in one subprocess per (level, threads)
pair (off / avx2 / avx512 x OMP_NUM_THREADS 1 / 2); the cases whose digests differ are printed.

    python3 tools/nan_audit_rows.py [substring ...]       # run (optionally only the cases containing a substring)
    python3 tools/nan_audit_rows.py --list

The case table (CASES) is importable: tests/test_nan_levels_rows.py runs the fixed families' rows."""
import hashlib
import os
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

import pyaclnn  # noqa: E402
from pyaclnn import lib  # noqa: E402

A = pyaclnn.int_array
BF = pyaclnn.bfloat16
DT = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": BF}
FLOATS = ("f32", "f16", "bf16")
_BITS = {"f32": (np.uint32, 23, 32), "f16": (np.uint16, 10, 16), "bf16": (np.uint16, 7, 16)}


def nan_bits(dt, k):
    """k distinct NaN bit patterns of dtype dt: signalling and quiet, both signs, payload bits varied"""
    ut, mant, width = _BITS[dt]
    expo = ((1 << (width - 1 - mant)) - 1) << mant
    out = []
    for i in range(k):
        payload = (i * 0x9E3779B1 >> 3) & ((1 << (mant - 1)) - 1) or 1 + i % 3
        quiet = (1 << (mant - 1)) if i % 2 else 0
        sign = (1 << (width - 1)) if (i // 2) % 2 else 0
        out.append(sign | expo | quiet | payload)
    return np.array(out, dtype=ut)


def salt(a, dt, rng, frac=0.08, inf=0.03, zero=0.03):
    """a copy of float array a (already dtype dt) with NaNs of distinct payloads, +-inf and +-0 at random spots"""
    a = np.array(a, copy=True)
    ut = _BITS[dt][0]
    v = a.reshape(-1).view(ut)
    n = v.size
    r = rng.random(n)
    idx = np.nonzero(r < frac)[0]
    v[idx] = nan_bits(dt, max(len(idx), 1))[rng.permutation(len(idx))] if len(idx) else v[idx]
    sp = np.array([np.inf, -np.inf], np.float32).astype(DT[dt]).view(ut)
    zi = np.array([0.0, -0.0], np.float32).astype(DT[dt]).view(ut)
    m = (r >= frac) & (r < frac + inf)
    v[m] = sp[rng.integers(0, 2, m.sum())]
    m = (r >= frac + inf) & (r < frac + inf + zero)
    v[m] = zi[rng.integers(0, 2, m.sum())]
    return a


def rnd(shape, dt, rng, scale=2.0, nan=True, **kw):
    a = (rng.standard_normal(shape) * scale).astype(np.float32).astype(DT[dt])
    return salt(a, dt, rng, **kw) if nan else a


def pos(shape, dt, rng, nan=True, **kw):
    a = rng.uniform(0.2, 2.0, shape).astype(np.float32).astype(DT[dt])
    return salt(a, dt, rng, **kw) if nan else a


FMT = {4: lib.ACL_FORMAT_NCHW, 5: lib.ACL_FORMAT_NCDHW}


def T(a):
    return pyaclnn.AclTensor.from_array(np.ascontiguousarray(a), FMT.get(a.ndim, lib.ACL_FORMAT_ND))


def Z(shape, dt):
    return np.zeros(shape, DT[dt] if isinstance(dt, str) else dt)


# ---- the cases: each builder takes (dt, rng) and returns the list of output arrays ----
def c_softmax(op):
    def f(dt, rng):
        outs = []
        for shape, dim in (((5, 37), 1), ((3, 1000), 1), ((4, 6, 9), 1), ((2, 16), 0)):
            x = rnd(shape, dt, rng, 4)
            o = Z(shape, dt)
            pyaclnn.call(op, x, dim, o)
            outs.append(o)
        return outs
    return f


def c_softmax_bwd(op):
    def f(dt, rng):
        outs = []
        for shape, dim in (((5, 37), 1), ((3, 1000), 1), ((2, 4111), 1), ((4, 6, 9), 1), ((9, 16), 0)):
            g = rnd(shape, dt, rng, 2)
            y = rnd(shape, dt, rng, 2) if op == "LogSoftmaxBackward" else pos(shape, dt, rng)
            o = Z(shape, dt)
            pyaclnn.call(op, g, y, dim, o)
            outs.append(o)
        return outs
    return f


def c_ce(dt, rng):
    outs = []
    for N, C in ((12, 37), (5, 1000), (3, 4111)):
        x = rnd((N, C), dt, rng, 4, frac=0.01)
        x[0] = salt(x[0], dt, rng, frac=0.3)
        t = rng.integers(0, C, N).astype(np.int64)
        t[::5] = -100
        w = pos((C,), "f32", rng, frac=0.02)
        for red in (b"mean", b"sum", b"none"):
            for wt in (None, w):
                for ls in (0.0, 0.1):
                    lo = Z((N,) if red == b"none" else (1,), dt)
                    lp = Z((N, C), dt)
                    pyaclnn.call("CrossEntropyLoss", x, t, wt, red, -100, ls, 0.0, False, lo, lp, Z((1,), dt),
                                 Z((N,), dt))
                    gl = rnd((N,) if red == b"none" else (), dt, rng, 1, frac=0.3)
                    lpn = salt(lp, dt, rng, frac=0.02)
                    go = Z((N, C), dt)
                    pyaclnn.call("CrossEntropyLossGrad", gl, lpn, t, wt, None, None, red, -100, ls, 0.0, go)
                    outs += [lo, lp, go]
    return outs


def c_nll(dt, rng):
    outs = []
    for shape in ((40, 33), (7,), (6, 5, 3)):
        x = rnd(shape, dt, rng, 3, frac=0.3)
        C = shape[0] if len(shape) == 1 else shape[1]
        ts = () if len(shape) == 1 else (shape[0],) + shape[2:]
        t = rng.integers(0, C, ts).astype(np.int64)
        if t.ndim:
            t.flat[::4] = 2
        w = pos((C,), dt, rng, frac=0.2)
        for red in (0, 1, 2):
            if len(shape) == 3:
                continue
            o = Z(ts if red == 0 else (), dt)
            tw = Z((), dt)
            pyaclnn.call("NLLLoss", x, t, w, red, -100, o, tw)
            g = rnd(ts if red == 0 else (), dt, rng, 1, frac=0.3)
            gi = Z(shape, dt)
            pyaclnn.call("NLLLossBackward", g, x, t, w, red, -100, tw, gi)
            outs += [o, tw, gi]
    return outs


def c_layernorm(dt, rng):
    outs = []
    for shape, ns in (((6, 37), [37]), ((3, 1024), [1024]), ((2, 3, 40), [3, 40])):
        x = rnd(shape, dt, rng, 2, frac=0.02)
        w = rnd(ns, dt, rng, 1, frac=0.05)
        b = rnd(ns, dt, rng, 1, frac=0.05)
        rs = shape[: len(shape) - len(ns)] + (1,) * len(ns)
        o, m, r = Z(shape, dt), Z(rs, dt), Z(rs, dt)
        pyaclnn.call("LayerNorm", x, ns, w, b, 1e-5, o, m, r)
        dy = rnd(shape, dt, rng, 1, frac=0.02)
        m2 = salt(m, dt, rng, frac=0.2)
        r2 = salt(r, dt, rng, frac=0.2)
        gi, gw, gb = Z(shape, dt), Z(ns, dt), Z(ns, dt)
        pyaclnn.call("LayerNormBackward", dy, x, ns, m2, r2, w, b, [True, True, True], gi, gw, gb)
        outs += [o, m, r, gi, gw, gb]
    return outs


def c_rmsnorm(dt, rng):
    outs = []
    for shape in ((6, 37), (3, 1024), (2, 3, 40)):
        x = rnd(shape, dt, rng, 2, frac=0.02)
        g = rnd(shape[-1:], dt, rng, 1, frac=0.05)
        rs = shape[:-1] + (1,)
        y, r = Z(shape, dt), Z(rs, np.float32)
        pyaclnn.call("RmsNorm", x, g, 1e-6, y, r)
        dy = rnd(shape, dt, rng, 1, frac=0.02)
        r2 = salt(r, "f32", rng, frac=0.2)
        dx, dg = Z(shape, dt), Z(shape[-1:], np.float32)
        pyaclnn.call("RmsNormGrad", dy, x, r2, g, dx, dg)
        outs += [y, r, dx, dg]
    return outs


def c_groupnorm(dt, rng):
    outs = []
    for N, C, HW, G in ((2, 6, 25, 3), (3, 8, 64, 2), (1, 4, 1, 4)):
        x = rnd((N, C, HW), dt, rng, 2, frac=0.02)
        g = rnd((C,), dt, rng, 1, frac=0.1)
        b = rnd((C,), dt, rng, 1, frac=0.1)
        o, m, r = Z((N, C, HW), dt), Z((N, G), dt), Z((N, G), dt)
        pyaclnn.call("GroupNorm", x, g, b, N, C, HW, G, 1e-5, o, m, r)
        dy = rnd((N, C, HW), dt, rng, 1, frac=0.02)
        m2, r2 = salt(m, dt, rng, frac=0.2), salt(r, dt, rng, frac=0.2)
        gi, gg, gb = Z((N, C, HW), dt), Z((C,), dt), Z((C,), dt)
        pyaclnn.call("GroupNormBackward", dy, x, m2, r2, g, N, C, HW, G, [True, True, True], gi, gg, gb)
        outs += [o, m, r, gi, gg, gb]
    return outs


def c_batchnorm(dt, rng):
    outs = []
    for shape in ((4, 3, 5, 5), (2, 5, 33), (8, 7)):
        C = shape[1]
        for training in (True, False):
            x = rnd(shape, dt, rng, 2, frac=0.02)
            w, b = rnd((C,), dt, rng, 1, frac=0.1), rnd((C,), dt, rng, 1, frac=0.1)
            rm, rv = rnd((C,), dt, rng, 1, frac=0.1), pos((C,), dt, rng, frac=0.1)
            o, sm, si = Z(shape, dt), Z((C,), dt), Z((C,), dt)
            rm0, rv0 = rm.copy(), rv.copy()
            pyaclnn.call("BatchNorm", x, w, b, rm, rv, training, 0.1, 1e-5, o, sm, si)
            dy = rnd(shape, dt, rng, 1, frac=0.02)
            sm2, si2 = salt(sm, dt, rng, frac=0.2), salt(si, dt, rng, frac=0.2)
            gi, gw, gb = Z(shape, dt), Z((C,), dt), Z((C,), dt)
            pyaclnn.call("BatchNormBackward", dy, x, w, rm0, rv0, sm2, si2, training, 1e-5, [True, True, True],
                         gi, gw, gb)
            outs += [o, sm, si, rm, rv, gi, gw, gb]
    return outs


def c_reduce(op):
    def f(dt, rng):
        outs = []
        for shape, dims in (((7, 300), [1]), ((300, 7), [0]), ((5, 6, 70), [0, 2]), ((4100,), [0]),
                            ((3, 5, 40), [1]), ((2, 9000), [1]), ((9000, 3), [0])):
            x = rnd(shape, dt, rng, 1.1 if op == "Prod" else 2, frac=0.05)
            oshape = tuple(s for i, s in enumerate(shape) if i not in dims)
            o = Z(oshape, dt)
            if op in ("ReduceSum", "Mean", "ReduceNansum"):
                pyaclnn.call(op, x, dims, False, DT[dt], o)
            elif op == "ProdDim":
                if len(dims) > 1:
                    continue
                pyaclnn.call(op, x, dims[0], False, DT[dt], o)
            elif op in ("Norm1", "Norm2", "Norm3", "NormInf"):
                p = {"Norm1": 1.0, "Norm2": 2.0, "Norm3": 3.0, "NormInf": float("inf")}[op]
                pyaclnn.call("Norm", x, p, dims, False, o)
            elif op == "Std":
                pyaclnn.call(op, x, dims, 1, False, o)
            elif op == "Var":
                pyaclnn.call(op, x, dims, True, False, o)
            elif op in ("Amax", "Amin"):
                pyaclnn.call(op, x, dims, False, o)
            elif op == "LogSumExp":
                pyaclnn.call(op, x, dims, False, o)
            outs.append(o)
        if op == "ReduceSum":
            o = Z((), dt)
            pyaclnn.call("Prod", rnd((64,), dt, rng, 1.1, frac=0.2), DT[dt], o)
            outs.append(o)
        return outs
    return f


def _osz(i, k, s, p, ceil):
    import math
    o = (math.ceil if ceil else math.floor)((i + 2 * p - k) / s) + 1
    if ceil and (o - 1) * s >= i + p:
        o -= 1
    return o


def c_maxpool2d(dt, rng):
    outs = []
    for shape, k, s, p, ceil in (((2, 3, 13, 14), 3, 2, 1, False), ((1, 4, 9, 40), 2, 1, 0, True)):
        x = rnd(shape, dt, rng, 2, frac=0.05)
        os_ = shape[:2] + tuple(_osz(shape[2 + i], k, s, p, ceil) for i in range(2))
        y2, i2 = T(Z(os_, dt)), T(Z(os_, np.int64 if dt != "f32" else np.int32))
        pyaclnn.launch("MaxPool2dWithIndices", T(x), A([k, k]), A([s, s]), A([p, p]), A([1, 1]), ceil, y2, i2)
        outs += [y2.numpy(), i2.numpy()]
        if dt == "f32":
            g = rnd(os_, dt, rng, 1, frac=0.2)
            gi = T(Z(shape, dt))
            pyaclnn.launch("MaxPool2dWithIndicesBackward", T(g), T(x), T(i2.numpy().astype(np.int32)), A([k, k]),
                           A([s, s]), A([p, p]), A([1, 1]), ceil, gi)
            outs.append(gi.numpy())
    return outs


def c_maxpool3d(dt, rng):
    outs = []
    for shape, k, s, p, ceil in (((2, 3, 7, 12, 13), 3, 2, 1, False), ((1, 2, 4, 6, 40), 2, 1, 0, True)):
        x = rnd(shape, dt, rng, 2, frac=0.05)
        os_ = shape[:2] + tuple(_osz(shape[2 + i], k, s, p, ceil) for i in range(3))
        y, ind = T(Z(os_, dt)), T(Z(os_, np.int32))
        pyaclnn.launch("MaxPool3dWithArgmax", T(x), A([k]), A([s]), A([p]), A([1]), ceil, y, ind)
        g = rnd(os_, dt, rng, 1, frac=0.2)
        gi = T(Z(shape, dt))
        pyaclnn.launch("MaxPool3dWithArgmaxBackward", T(g), T(x), ind, A([k]), A([s]), A([p]), A([1]), ceil, gi)
        outs += [y.numpy(), ind.numpy(), gi.numpy()]
    return outs


def c_adaptive_max(nd):
    def f(dt, rng):
        outs = []
        shapes = (((2, 3, 13, 14), (4, 5)), ((1, 4, 20, 9), (7, 3)), ((1, 4, 56, 56), (7, 7))) if nd == 2 else \
            (((1, 3, 7, 12, 13), (2, 4, 5)), ((1, 2, 6, 6, 9), (4, 4, 4)), ((1, 2, 8, 24, 24), (2, 3, 3)))
        nm = f"AdaptiveMaxPool{nd}d"
        for shape, osz in shapes:
            x = rnd(shape, dt, rng, 2, frac=0.05)
            os_ = shape[:2] + osz
            y, ind = T(Z(os_, dt)), T(Z(os_, np.int64 if nd == 2 else np.int32))
            pyaclnn.launch(nm, T(x), A(list(osz)), y, ind)
            g = rnd(os_, dt, rng, 1, frac=0.2)
            # repeated cells: a few gradients meet in the same input cell
            ii = ind.numpy().copy().reshape(os_[0] * os_[1], -1)
            ii[:, 1] = ii[:, 0]
            ii[:, 3] = ii[:, 0]
            gi = T(Z(shape, dt))
            pyaclnn.launch(nm + "Backward", T(g), T(x), T(ii.reshape(os_)), gi)
            outs += [y.numpy(), ind.numpy(), gi.numpy()]
        return outs
    return f


def c_avgpool2d(dt, rng):
    outs = []
    for shape, k, s, p, ceil, cip, div in (((2, 3, 13, 14), 3, 2, 1, False, True, 0),
                                          ((1, 4, 9, 40), 2, 1, 0, True, False, 0),
                                          ((2, 2, 16, 16), 3, 1, 1, False, False, 5)):
        x = rnd(shape, dt, rng, 2, frac=0.05)
        os_ = shape[:2] + tuple(_osz(shape[2 + i], k, s, p, ceil) for i in range(2))
        y = T(Z(os_, dt))
        pyaclnn.launch("AvgPool2d", T(x), A([k, k]), A([s, s]), A([p, p]), ceil, cip, div, 0, y)
        g = rnd(os_, dt, rng, 1, frac=0.1)
        gi = T(Z(shape, dt))
        pyaclnn.launch("AvgPool2dBackward", T(g), T(x), A([k, k]), A([s, s]), A([p, p]), ceil, cip, div, 0, gi)
        outs += [y.numpy(), gi.numpy()]
    return outs


def c_avgpool3d(dt, rng):
    outs = []
    for shape, k, s, p, ceil, cip, div in (((1, 3, 7, 12, 13), 3, 2, 1, False, True, 0),
                                          ((1, 2, 4, 6, 40), 2, 1, 0, True, False, 0)):
        x = rnd(shape, dt, rng, 2, frac=0.05)
        os_ = shape[:2] + tuple(_osz(shape[2 + i], k, s, p, ceil) for i in range(3))
        y = T(Z(os_, dt))
        pyaclnn.launch("AvgPool3d", T(x), A([k]), A([s]), A([p]), ceil, cip, div, y)
        g = rnd(os_, dt, rng, 1, frac=0.1)
        gi = T(Z(shape, dt))
        pyaclnn.launch("AvgPool3dBackward", T(g), T(x), A([k]), A([s]), A([p]), ceil, cip, div, gi)
        outs += [y.numpy(), gi.numpy()]
    return outs


def c_adaptive_avg(nd):
    def f(dt, rng):
        outs = []
        shapes = (((2, 3, 13, 14), (4, 5)), ((1, 4, 56, 56), (7, 7)), ((1, 3, 20, 9), (1, 1))) if nd == 2 else \
            (((1, 3, 7, 12, 13), (2, 4, 5)), ((1, 2, 6, 6, 9), (1, 1, 1)))
        nm = f"AdaptiveAvgPool{nd}d"
        for shape, osz in shapes:
            x = rnd(shape, dt, rng, 2, frac=0.05)
            os_ = shape[:2] + osz
            y = T(Z(os_, dt))
            pyaclnn.launch(nm, T(x), A(list(osz)), y)
            g = rnd(os_, dt, rng, 1, frac=0.1)
            gi = T(Z(shape, dt))
            pyaclnn.launch(nm + "Backward", T(g), T(x), gi)
            outs += [y.numpy(), gi.numpy()]
        return outs
    return f


def c_binary(op):
    def f(dt, rng):
        outs = []
        for shape, bshape in (((1037,), (1037,)), ((33, 40), (40,)), ((5, 1, 7), (1, 9, 7))):
            a, b = rnd(shape, dt, rng, 2, frac=0.15), rnd(bshape, dt, rng, 2, frac=0.15)
            c = rnd(bshape, dt, rng, 2, frac=0.15)
            osh = np.broadcast_shapes(shape, bshape)
            o = Z(osh, dt)
            if op in ("Add", "Sub"):
                for alpha in (1.0, 0.5):
                    pyaclnn.call(op, a, b, alpha, o)
                    outs.append(o.copy())
                continue
            if op in ("Mul", "Div", "Maximum", "Minimum", "PowTensorTensor", "Fmax", "Fmin"):
                pyaclnn.call(op, a, b, o)
            elif op in ("Addcmul", "Addcdiv"):
                pyaclnn.call(op, a, b, c, 0.7, o)
            elif op == "Lerp":
                pyaclnn.call(op, a, b, c, o)
            elif op == "SWhere":
                cond = rng.random(osh) < 0.5
                pyaclnn.call(op, cond, a, b, o)
            elif op == "ClampTensor":
                pyaclnn.call(op, a, b, c, o)
            elif op == "Clamp":
                o = Z(shape, dt)
                pyaclnn.call(op, a, -1.0, 1.0, o)
            outs.append(o)
        return outs
    return f


def c_foreach(op):
    def f(dt, rng):
        shapes = [(37,), (5, 40), (1030,)]
        xs = [rnd(s, dt, rng, 2, frac=0.15) for s in shapes]
        ys = [rnd(s, dt, rng, 2, frac=0.15) for s in shapes]
        zs = [rnd(s, dt, rng, 2, frac=0.15) for s in shapes]
        outs = [Z(s, dt) for s in shapes]
        sc = np.array([0.7], np.float16 if dt == "f16" else np.float32)
        if op in ("ForeachAddList", "ForeachSubList"):
            pyaclnn.call(op, xs, ys, sc, outs)
        elif op in ("ForeachMulList", "ForeachDivList", "ForeachMaximumList", "ForeachMinimumList", "ForeachPowList"):
            pyaclnn.call(op, xs, ys, outs)
        elif op in ("ForeachAddcmulScalar", "ForeachAddcdivScalar"):
            pyaclnn.call(op, xs, ys, zs, sc, outs)
        elif op == "ForeachLerpList":
            pyaclnn.call(op, xs, ys, zs, outs)
        elif op == "ForeachLerpScalar":
            pyaclnn.call(op, xs, ys, 0.3, outs)
        elif op == "ForeachNorm":
            outs = [Z((), dt) for _ in shapes]
            pyaclnn.call(op, xs, 2.0, outs)
        return outs
    return f


CASES = [
    ("softmax", "Softmax", c_softmax("Softmax")),
    ("softmax", "LogSoftmax", c_softmax("LogSoftmax")),
    ("softmax", "SoftmaxBackward", c_softmax_bwd("SoftmaxBackward")),
    ("softmax", "LogSoftmaxBackward", c_softmax_bwd("LogSoftmaxBackward")),
    ("loss", "CrossEntropyLoss+Grad", c_ce),
    ("loss", "NLLLoss+Backward", c_nll),
    ("norm", "LayerNorm+Backward", c_layernorm),
    ("norm", "RmsNorm+Grad", c_rmsnorm),
    ("norm", "GroupNorm+Backward", c_groupnorm),
    ("norm", "BatchNorm+Backward", c_batchnorm),
] + [("reduce", op, c_reduce(op)) for op in ("ReduceSum", "Mean", "ReduceNansum", "ProdDim", "Norm1", "Norm2",
                                             "Norm3", "NormInf", "Std", "Var", "Amax", "Amin", "LogSumExp")] + [
    ("pool", "MaxPool2dWithIndices+Backward", c_maxpool2d),
    ("pool", "MaxPool3dWithArgmax+Backward", c_maxpool3d),
    ("pool", "AdaptiveMaxPool2d+Backward", c_adaptive_max(2)),
    ("pool", "AdaptiveMaxPool3d+Backward", c_adaptive_max(3)),
    ("pool", "AvgPool2d+Backward", c_avgpool2d),
    ("pool", "AvgPool3d+Backward", c_avgpool3d),
    ("pool", "AdaptiveAvgPool2d+Backward", c_adaptive_avg(2)),
    ("pool", "AdaptiveAvgPool3d+Backward", c_adaptive_avg(3)),
] + [("elementwise", op, c_binary(op)) for op in ("Add", "Sub", "Mul", "Div", "Addcmul", "Addcdiv", "Lerp", "SWhere",
                                                   "Clamp", "ClampTensor", "Maximum", "Minimum", "PowTensorTensor")] + [
    ("foreach", op, c_foreach(op)) for op in ("ForeachAddList", "ForeachSubList", "ForeachMulList", "ForeachDivList",
                                             "ForeachAddcmulScalar", "ForeachAddcdivScalar", "ForeachLerpList",
                                             "ForeachLerpScalar", "ForeachMaximumList", "ForeachMinimumList",
                                             "ForeachPowList", "ForeachNorm")]


def case_names(filters=()):
    names = []
    for fam, op, _ in CASES:
        for dt in FLOATS:
            nm = f"{fam}/{op}/{dt}"
            if not filters or any(f in nm for f in filters):
                names.append(nm)
    return names


def run_cases(names):
    """in this process: one digest line per case name"""
    table = {f"{fam}/{op}": fn for fam, op, fn in CASES}
    for nm in names:
        key, dt = nm.rsplit("/", 1)
        rng = np.random.default_rng(int(hashlib.sha256(nm.encode()).hexdigest()[:8], 16))
        try:
            with np.errstate(all="ignore"):
                outs = table[key](dt, rng)
            h = hashlib.sha256(b"".join(np.ascontiguousarray(o).tobytes() for o in outs)).hexdigest()[:16]
        except Exception as e:  # an op that refuses a dtype: recorded, the same at every level
            h = "ERR " + type(e).__name__ + " " + str(e).splitlines()[0][:60] if str(e) else "ERR"
        print(nm, h, flush=True)


LEVELS = ("off", "avx2", "avx512")


def digests(names, level, threads):
    env = dict(os.environ, PYACLNN_SIMD=level, OMP_NUM_THREADS=str(threads))
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    code = "import sys; sys.argv=['x']; from tools import nan_audit_rows as m; m.run_cases(%r)" % (names,)
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=REPO,
                         timeout=900)
    if res.returncode:
        sys.stderr.write(res.stderr)
        raise SystemExit(f"subprocess failed at {level} x {threads}")
    out = {}
    for line in res.stdout.splitlines():
        nm, h = line.split(" ", 1)
        out[nm] = h
    return out


def main(argv):
    if "--list" in argv:
        print("\n".join(case_names()))
        return 0
    filters = [a for a in argv if not a.startswith("-")]
    names = case_names(filters)
    runs = {(lv, th): digests(names, lv, th) for th in (1, 2) for lv in LEVELS}
    bad = 0
    for nm in names:
        ds = {k: v[nm] for k, v in runs.items()}
        ref = ds[("off", 1)]
        err = " (" + ref + ")" if ref.startswith("ERR") else ""
        if len(set(ds.values())) > 1:
            bad += 1
            print("DIFF", nm, " ".join(f"{lv}x{th}={h[:8]}" for (lv, th), h in ds.items()))
        elif err:
            print("skip", nm, err)
    print(f"{bad} of {len(names)} cases differ between levels / threads")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
