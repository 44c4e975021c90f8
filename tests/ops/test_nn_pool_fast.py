"""The max-pool fast paths (issue 13 speed): the forward window max vectorised across output columns and the
backward's sparse scatter into a cleared dense gradInput plane. Their bytes must not depend on OMP_NUM_THREADS or
PYACLNN_SIMD, and must equal the plain per-cell kernels (a strided gradInput / input view still takes those): inputs
full of ties, signed zeros, infinities and NaNs, gradients with NaNs, argmax lists with repeated and out-of-range
cells."""
import numpy as np
import pytest

import pyaclnn
from helpers import run_python, same_bytes_for_threads

CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
A = pyaclnn.int_array
rng = np.random.default_rng(5)
DT = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": pyaclnn.bfloat16}
FMT = {4: lib.ACL_FORMAT_NCHW, 5: lib.ACL_FORMAT_NCDHW}

def special(shape, dt):
    v = rng.integers(-3, 4, shape).astype(np.float32)
    r = rng.random(shape)
    v[r < 0.05] = np.nan
    v[(r >= 0.05) & (r < 0.08)] = -np.inf
    v[(r >= 0.08) & (r < 0.11)] = -0.0
    v[(r >= 0.11) & (r < 0.13)] = np.inf
    return v.astype(DT[dt])

def grad(shape, dt):
    g = rng.uniform(-4, 4, shape).astype(np.float32)
    g[rng.random(shape) < 0.02] = np.nan
    g[rng.random(shape) < 0.03] = -0.0
    return g.astype(DT[dt])

def t(a):
    return pyaclnn.AclTensor.from_array(a, FMT[a.ndim])

def digest(name, *ts):
    print(name, hashlib.sha256(b"".join(np.ascontiguousarray(x.numpy()).tobytes() for x in ts)).hexdigest()[:16])

def strided_out(shape, dt):
    base = np.zeros(shape[:-1] + (shape[-1] * 2,), DT[dt])
    return t(base[..., ::2])

for dt in ("f32", "f16", "bf16"):
    # MaxPool3dWithArgmax (+ backward): padding, ceil mode, stride 1 and 2, dilation 2 in the backward
    for (shape, k, s, p, ceil) in [((2, 3, 7, 12, 13), [3], [2], [1], False), ((1, 2, 5, 9, 10), [3, 2, 3], [1, 2, 1], [1, 1, 1], True),
                                   ((2, 2, 4, 6, 40), [2], [2], [0], True)]:
        x = special(shape, dt)
        from math import floor, ceil as cl
        def osz(i, kk, ss, pp):
            f = cl if ceil else floor
            o = f((i + 2 * pp - kk) / ss) + 1
            if ceil and (o - 1) * ss >= i + pp: o -= 1
            return o
        k3 = k * 3 if len(k) == 1 else k
        s3 = s * 3 if len(s) == 1 else s
        p3 = p * 3 if len(p) == 1 else p
        os_ = shape[:2] + tuple(osz(shape[2 + i], k3[i], s3[i], p3[i]) for i in range(3))
        y, i = t(np.zeros(os_, DT[dt])), t(np.zeros(os_, np.int32))
        pyaclnn.launch("MaxPool3dWithArgmax", t(x), A(k), A(s), A(p), A([1]), ceil, y, i)
        digest(f"mp3d_fwd_{dt}_{shape}", y, i)
        gy = grad(os_, dt)
        gx = t(np.full(shape, 5, DT[dt]))
        pyaclnn.launch("MaxPool3dWithArgmaxBackward", t(gy), t(x), i, A(k), A(s), A(p), A([1]), ceil, gx)
        gs = strided_out(shape, dt)
        pyaclnn.launch("MaxPool3dWithArgmaxBackward", t(gy), t(x), i, A(k), A(s), A(p), A([1]), ceil, gs)
        assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
        digest(f"mp3d_bwd_{dt}_{shape}", gx)
        # repeated / out-of-range argmax cells
        plane = shape[2] * shape[3] * shape[4]
        bad = rng.integers(-3, plane + 3, os_).astype(np.int32)
        bad[..., 0] = bad[..., 1]
        pyaclnn.launch("MaxPool3dWithArgmaxBackward", t(gy), t(x), t(bad), A(k), A(s), A(p), A([1]), ceil, gx)
        pyaclnn.launch("MaxPool3dWithArgmaxBackward", t(gy), t(x), t(bad), A(k), A(s), A(p), A([1]), ceil, gs)
        assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
        digest(f"mp3d_bwd_rep_{dt}_{shape}", gx)
    # AdaptiveMaxPool2d / 3d (+ backward)
    for shape, osz in [((2, 3, 13, 17), [5, 4]), ((1, 4, 56, 56), [7, 7]), ((2, 2, 9, 40), [4, 9])]:
        x = special(shape, dt)
        os_ = shape[:2] + tuple(osz)
        y, i = t(np.zeros(os_, DT[dt])), t(np.zeros(os_, np.int64))
        pyaclnn.launch("AdaptiveMaxPool2d", t(x), A(osz), y, i)
        digest(f"amp2d_fwd_{dt}_{shape}", y, i)
        gy = grad(os_, dt)
        gx, gs = t(np.full(shape, 5, DT[dt])), strided_out(shape, dt)
        for ind in (i, t(rng.integers(-2, shape[2] * shape[3] + 2, os_).astype(np.int64))):
            pyaclnn.launch("AdaptiveMaxPool2dBackward", t(gy), t(x), ind, gx)
            pyaclnn.launch("AdaptiveMaxPool2dBackward", t(gy), t(x), ind, gs)
            assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
            digest(f"amp2d_bwd_{dt}_{shape}", gx)
    for shape, osz in [((2, 3, 5, 13, 17), [2, 5, 4]), ((1, 2, 8, 24, 24), [4, 3, 3]), ((1, 2, 3, 4, 40), [2, 3, 9])]:
        x = special(shape, dt)
        os_ = shape[:2] + tuple(osz)
        y, i = t(np.zeros(os_, DT[dt])), t(np.zeros(os_, np.int32))
        pyaclnn.launch("AdaptiveMaxPool3d", t(x), A(osz), y, i)
        digest(f"amp3d_fwd_{dt}_{shape}", y, i)
        gy = grad(os_, dt)
        gx, gs = t(np.full(shape, 5, DT[dt])), strided_out(shape, dt)
        pyaclnn.launch("AdaptiveMaxPool3dBackward", t(gy), t(x), i, gx)
        pyaclnn.launch("AdaptiveMaxPool3dBackward", t(gy), t(x), i, gs)
        assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
        digest(f"amp3d_bwd_{dt}_{shape}", gx)
# AdaptiveAvgPool3d (+ backward): even, overlapping and mixed windows, gradients with NaN / -0
for dt in ("f32", "f16", "bf16"):
    for shape, osz in [((2, 3, 5, 13, 17), [2, 5, 4]), ((1, 3, 8, 24, 24), [4, 3, 3]), ((1, 2, 3, 4, 40), [2, 3, 9]),
                       ((1, 2, 4, 6, 7), [3, 4, 7])]:
        x = special(shape, dt)
        x[np.isnan(x.astype(np.float32))] = 1
        os_ = shape[:2] + tuple(osz)
        y = t(np.zeros(os_, DT[dt]))
        pyaclnn.launch("AdaptiveAvgPool3d", t(x), A(osz), y)
        digest(f"aap3d_fwd_{dt}_{shape}", y)
        gy = grad(os_, dt)
        gx, gs = t(np.full(shape, 5, DT[dt])), strided_out(shape, dt)
        pyaclnn.launch("AdaptiveAvgPool3dBackward", t(gy), t(x), gx)
        pyaclnn.launch("AdaptiveAvgPool3dBackward", t(gy), t(x), gs)
        assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
        digest(f"aap3d_bwd_{dt}_{shape}", gx)
# AvgPool3d (+ backward): strides 1 / 2 / 3, padding, ceil mode, countIncludePad, divisorOverride
for dt in ("f32", "f16", "bf16"):
    for shape, k, st, pd, ceil, cip, div in [((2, 3, 6, 13, 37), [3], [2], [1], False, True, 0),
                                             ((1, 2, 5, 9, 40), [3, 2, 3], [1, 2, 1], [1, 1, 1], True, False, 0),
                                             ((1, 2, 4, 8, 41), [2, 3, 4], [2, 3, 3], [1, 1, 2], True, True, 7)]:
        x = special(shape, dt)
        x[np.isnan(x.astype(np.float32))] = 2
        x[np.isinf(x.astype(np.float32))] = -1
        from math import floor, ceil as cl
        k3, s3, p3 = (k * 3 if len(k) == 1 else k), (st * 3 if len(st) == 1 else st), (pd * 3 if len(pd) == 1 else pd)
        def osz(i, kk, ss, pp):
            f = cl if ceil else floor
            o = f((i + 2 * pp - kk) / ss) + 1
            if ceil and (o - 1) * ss >= i + pp: o -= 1
            return o
        os_ = shape[:2] + tuple(osz(shape[2 + j], k3[j], s3[j], p3[j]) for j in range(3))
        y = t(np.zeros(os_, DT[dt]))
        pyaclnn.launch("AvgPool3d", t(x), A(k), A(st), A(pd), ceil, cip, div, y)
        digest(f"ap3d_fwd_{dt}_{shape}", y)
        gy = grad(os_, dt)
        gx, gs = t(np.full(shape, 5, DT[dt])), strided_out(shape, dt)
        pyaclnn.launch("AvgPool3dBackward", t(gy), t(x), A(k), A(st), A(pd), ceil, cip, div, gx)
        pyaclnn.launch("AvgPool3dBackward", t(gy), t(x), A(k), A(st), A(pd), ceil, cip, div, gs)
        assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
        digest(f"ap3d_bwd_{dt}_{shape}", gx)
# MaxPool2dWithIndices (+ backward, fp32) and fp16 / bf16 forward; MaxPool (ONNX pads) f32 / f16
for dt in ("f32", "f16", "bf16"):
    for shape, k, s, p, ceil in [((2, 3, 11, 37), [3], [2], [1], False), ((1, 2, 9, 10), [3, 2], [1, 1], [1, 1], True),
                                 ((1, 2, 8, 41), [2, 3], [2, 3], [1, 1], True)]:
        x = special(shape, dt)
        from math import floor, ceil as cl
        k2, s2, p2 = (k * 2 if len(k) == 1 else k), (s * 2 if len(s) == 1 else s), (p * 2 if len(p) == 1 else p)
        def osz(i, kk, ss, pp):
            f = cl if ceil else floor
            o = f((i + 2 * pp - kk) / ss) + 1
            if ceil and (o - 1) * ss >= i + pp: o -= 1
            return o
        os_ = shape[:2] + tuple(osz(shape[2 + j], k2[j], s2[j], p2[j]) for j in range(2))
        y, i = t(np.zeros(os_, DT[dt])), t(np.zeros(os_, np.int32))
        pyaclnn.launch("MaxPool2dWithIndices", t(x), A(k), A(s), A(p), A([1]), ceil, y, i)
        digest(f"mp2d_fwd_{dt}_{shape}", y, i)
        if dt == "f32":
            gy = grad(os_, dt)
            gx, gs = t(np.full(shape, 5, DT[dt])), strided_out(shape, dt)
            pyaclnn.launch("MaxPool2dWithIndicesBackward", t(gy), t(x), i, A(k), A(s), A(p), A([1]), ceil, gx)
            pyaclnn.launch("MaxPool2dWithIndicesBackward", t(gy), t(x), i, A(k), A(s), A(p), A([1]), ceil, gs)
            assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
            digest(f"mp2d_bwd_{dt}_{shape}", gx)
        if dt != "bf16":
            y = t(np.zeros(os_, DT[dt]))
            pads = p2 + [p2[0] + (1 if ceil else 0), p2[1]]
            if not ceil:
                pyaclnn.launch("MaxPool", t(x), A(k2), A(s2), 0, A(p2 + p2), A([1, 1]), 0, y)
                digest(f"mpv3_{dt}_{shape}", y)
# gradInput of at least 8 MiB: the max-pool backward writes its planes with non-temporal stores (dense fp32 and
# fp16 planes, sparse adaptive bf16 planes), plane starts not 64-byte aligned in the odd-width cases
for op, dt, shape, arg in [("mp2d", "f32", (1, 3, 1030, 683), None), ("mp3d", "f16", (1, 3, 16, 300, 301), None),
                           ("amp2d", "bf16", (1, 5, 1000, 845), [7, 9])]:
    x = special(shape, dt)
    gx, gs = t(np.full(shape, 5, DT[dt])), strided_out(shape, dt)
    if op == "amp2d":
        os_ = shape[:2] + tuple(arg)
        y, i = t(np.zeros(os_, DT[dt])), t(np.zeros(os_, np.int64))
        pyaclnn.launch("AdaptiveMaxPool2d", t(x), A(arg), y, i)
        gy = t(grad(os_, dt))
        for g_ in (gx, gs):
            pyaclnn.launch("AdaptiveMaxPool2dBackward", gy, t(x), i, g_)
    else:
        os_ = shape[:2] + tuple((v + 2 - 3) // 2 + 1 for v in shape[2:])
        y, i = t(np.zeros(os_, DT[dt])), t(np.zeros(os_, np.int32))
        nm = "MaxPool2dWithIndices" if op == "mp2d" else "MaxPool3dWithArgmax"
        pyaclnn.launch(nm, t(x), A([3]), A([2]), A([1]), A([1]), False, y, i)
        gy = t(grad(os_, dt))
        for g_ in (gx, gs):
            pyaclnn.launch(nm + "Backward", gy, t(x), i, A([3]), A([2]), A([1]), A([1]), False, g_)
    assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
    digest(f"{op}_bwd_large_{dt}", gx)
# AdaptiveAvgPool3dBackward, every axis dividing evenly, gradInput >= 8 MiB (repeated rows, non-temporal stores)
for dt in ("f16", "bf16"):
    shape, osz = (1, 3, 16, 300, 301), [4, 6, 7]
    os_ = shape[:2] + tuple(osz)
    gy = grad(os_, dt)
    gx, gs = t(np.full(shape, 5, DT[dt])), strided_out(shape, dt)
    pyaclnn.launch("AdaptiveAvgPool3dBackward", t(gy), t(np.zeros(shape, DT[dt])), gx)
    pyaclnn.launch("AdaptiveAvgPool3dBackward", t(gy), t(np.zeros(shape, DT[dt])), gs)
    assert gs.numpy().tobytes() == gx.numpy().tobytes(), "dense and strided gradInput differ"
    digest(f"aap3d_bwd_large_{dt}", gx)
"""


def test_pool_fast_paths_same_bytes_for_threads():
    same_bytes_for_threads(CODE)


def test_pool_fast_paths_same_bytes_at_every_simd_level():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


DIRECT = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
rng = np.random.default_rng(21)
SPECIAL = {"f16": [0x7c01, 0xfc01, 0x7d55, 0x7e00, 0x8000, 0x0000, 0x7c00, 0xfc00, 0x0001, 0x8001, 0x03ff, 0x7bff, 0x3c00],
           "bf16": [0x7f81, 0xff81, 0x7fa5, 0x7fc0, 0x8000, 0x0000, 0x7f80, 0xff80, 0x0001, 0x8001, 0x007f, 0x7f7f, 0x3f80]}
def t(a):
    return pyaclnn.AclTensor.from_array(a, lib.ACL_FORMAT_NCHW if a.ndim == 4 else lib.ACL_FORMAT_NCDHW)
for dt in ("f16", "bf16"):
    npdt = np.dtype(np.float16) if dt == "f16" else pyaclnn.bfloat16
    for shape, osz in [((2, 8, 56, 56), (7, 7)), ((2, 8, 56, 56), (9, 9)), ((1, 6, 8, 24, 24), (2, 3, 3))]:
        os_ = shape[:2] + osz
        isz = int(np.prod(shape[2:]))
        planes = shape[0] * shape[1]
        for mode in ("special", "few_repeats", "many_repeats", "out_of_range"):
            bits = rng.integers(0x3000, 0x4400, os_).astype(np.uint16)
            if mode == "special":
                # NaNs of different payloads among the repeated cells' gradients too: every path sums a cell's
                # gradients in gradient order by common/nan_order.h's rule
                bits = rng.choice(np.array(SPECIAL[dt], np.uint16), size=os_)
            g = bits.view(np.float16) if dt == "f16" else bits.view(npdt)
            ind = np.stack([rng.permutation(isz)[:int(np.prod(osz))] for _ in range(planes)]).reshape(os_)
            if mode in ("special", "few_repeats"):  # a few cells named 2-3 times (the direct path sums them)
                flat = ind.reshape(planes, -1)
                flat[:, 5] = flat[:, 2]
                flat[:, 9] = flat[:, 2]
                flat[:, 11] = flat[:, 1]
            if mode == "many_repeats":  # most cells repeated: the summing path takes over
                ind = rng.integers(0, 5, os_)
            if mode == "out_of_range":
                ind = rng.integers(-3, isz + 3, os_)
            for ity in (np.int32, np.int64):
                if len(shape) == 5 and ity == np.int64:
                    continue
                nm = "AdaptiveMaxPool2dBackward" if len(shape) == 4 else "AdaptiveMaxPool3dBackward"
                gx = t(np.full(shape, 5, npdt))
                base = np.zeros(shape[:-1] + (shape[-1] * 2,), npdt)
                gs = t(base[..., ::2])  # the per-cell kernel: the plain accumulator
                for out in (gx, gs):
                    pyaclnn.launch(nm, t(np.ascontiguousarray(g)), t(np.zeros(shape, npdt)), t(ind.astype(ity)), out)
                assert gx.numpy().tobytes() == gs.numpy().tobytes(), (dt, shape, mode, ity)
                print(dt, shape, mode, ity.__name__, hashlib.sha256(gx.numpy().tobytes()).hexdigest()[:16])
"""


def test_sparse_half_direct_path_same_bytes():
    """The sparse fp16 / bf16 planes' direct path (each touched cell's 0 + g written as fixed-up bits, repeats summed
    in fp32) against the per-cell kernel a strided gradInput takes: signalling / quiet NaN payloads, +-0, +-inf,
    subnormals, cells named 2-3 times, many repeats (the summing path takes over), out-of-range indices; int32 and
    int64 indices; the same bytes at 1/2/7 threads and at every SIMD level."""
    first = same_bytes_for_threads(DIRECT)
    for cap in ("off", "avx2"):
        assert run_python(DIRECT, {"PYACLNN_SIMD": cap}) == first


@pytest.mark.parametrize("case", ["mp2d_f32", "mp3d_f16", "amp2d_bf16", "amp2d_f16_int32", "amp2d_f16_nt"])
def test_max_pool_backward_large_planes_vs_numpy(case):
    """The non-temporal plane stores (gradInput >= 8 MiB) against a numpy scatter: each input cell the fp32 sum
    0 + g1 + g2 ... of the gradOutput cells naming it in row-major order, rounded once (np.add.at adds in order)."""
    from pyaclnn import lib
    A = pyaclnn.int_array
    rng = np.random.default_rng(11)
    op, dt = case.split("_")[:2]
    npdt = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": pyaclnn.bfloat16}[dt]
    shape = {"mp2d": (2, 2, 1030, 683), "mp3d": (1, 3, 16, 300, 301), "amp2d": (1, 5, 1000, 845)}[op]
    if case.endswith("_nt"):  # gradInput past 16 MiB: the sparse half planes streamed (non-temporal stores)
        shape = (1, 5, 1000, 1701)
    fmt = lib.ACL_FORMAT_NCHW if len(shape) == 4 else lib.ACL_FORMAT_NCDHW
    x = rng.integers(-4, 5, shape).astype(np.float32).astype(npdt)  # ties: repeated argmax cells
    T = lambda a: pyaclnn.AclTensor.from_array(a, fmt)  # noqa: E731
    if op == "amp2d":
        os_ = shape[:2] + (7, 9)
        y = T(np.zeros(os_, npdt))
        i = T(np.zeros(os_, np.int64))
        pyaclnn.launch("AdaptiveMaxPool2d", T(x), A([7, 9]), y, i)
        if case.endswith("int32"):  # the backward's other index dtype
            i = T(i.numpy().astype(np.int32))
    else:
        os_ = shape[:2] + tuple((v + 2 - 3) // 2 + 1 for v in shape[2:])
        y, i = T(np.zeros(os_, npdt)), T(np.zeros(os_, np.int32))
        nm = "MaxPool2dWithIndices" if op == "mp2d" else "MaxPool3dWithArgmax"
        pyaclnn.launch(nm, T(x), A([3]), A([2]), A([1]), A([1]), False, y, i)
    g = rng.uniform(-3, 3, os_).astype(np.float32).astype(npdt)
    gx = T(np.full(shape, 7, npdt))
    if op == "amp2d":
        pyaclnn.launch("AdaptiveMaxPool2dBackward", T(g), T(x), i, gx)
    else:
        pyaclnn.launch(nm + "Backward", T(g), T(x), i, A([3]), A([2]), A([1]), A([1]), False, gx)
    planes = shape[0] * shape[1]
    isz = int(np.prod(shape[2:]))
    ind = i.numpy().reshape(planes, -1).astype(np.int64)
    ref = np.zeros((planes, isz), np.float32)
    gf = g.astype(np.float32).reshape(planes, -1)
    for p in range(planes):
        np.add.at(ref[p], ind[p], gf[p])
    ref = ref.reshape(shape).astype(npdt)
    assert gx.numpy().tobytes() == ref.tobytes()


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_adaptive_avg_pool3d_backward_even_windows_vs_numpy(dt):
    """Every axis dividing evenly (the repeated-row path; >= 8 MiB for fp16/bf16: non-temporal stores, odd W): each
    cell is its window's gradient / window size in double, rounded to fp32, then once to the dtype."""
    from pyaclnn import lib
    rng = np.random.default_rng(12)
    npdt = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": pyaclnn.bfloat16}[dt]
    shape, osz = (1, 3, 16, 300, 301), (4, 6, 7)
    g = rng.uniform(-3, 3, shape[:2] + osz).astype(np.float32).astype(npdt)
    T = lambda a: pyaclnn.AclTensor.from_array(a, lib.ACL_FORMAT_NCDHW)  # noqa: E731
    gx = T(np.full(shape, 7, npdt))
    pyaclnn.launch("AdaptiveAvgPool3dBackward", T(g), T(np.zeros(shape, npdt)), gx)
    k = [shape[2 + i] // osz[i] for i in range(3)]
    ref = g.astype(np.float64) / (k[0] * k[1] * k[2])
    for a in range(3):
        ref = np.repeat(ref, k[a], axis=2 + a)
    assert gx.numpy().tobytes() == ref.astype(np.float32).astype(npdt).tobytes()
