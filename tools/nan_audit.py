"""NaN-payload audit of the sampling / resampling kernels: does an op give the same bytes at every SIMD level and
thread count when NaNs of distinct payloads (signalling, quiet, sign set, payload bits varied), Infs and zeros
meet in its sums and products?

    python3 tools/nan_audit.py [substring ...]      # prints the cases whose digests differ (and a summary)

Each case (CASES below: a name and the statements that build its inputs and call the op, ending with the output
arrays in `outs`) runs in one subprocess per PYACLNN_SIMD level (off / avx2 / avx512) x OMP_NUM_THREADS (1 / 2);
every subprocess runs all selected cases and prints one digest per case. tests/test_nan_levels_sampling.py runs
the cases of the fixed families the same way."""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PRELUDE = r"""
import hashlib, json, sys, numpy as np, pyaclnn
from pyaclnn import launch
T, E, IA, BA = pyaclnn.AclTensor.from_array, pyaclnn.AclTensor.empty, pyaclnn.int_array, pyaclnn.bool_array
BF = pyaclnn.bfloat16
rng = np.random.default_rng(5)
def nan_payloads(dt):
    if np.dtype(dt).itemsize == 4:   # quiet, signalling, sign set, payload bits varied
        return np.array([0x7fc00001, 0x7f800003, 0xffc00005, 0xff812345, 0x7fc0abcd, 0x7fa00000, 0xffffffff,
                         0x7f800001, 0x7fd55555, 0xffc7f00f], np.uint32)
    if np.dtype(dt) == np.float16:
        return np.array([0x7e01, 0x7c03, 0xfe05, 0xfc45, 0x7e2b, 0x7d00, 0xffff, 0x7c01, 0x7f55, 0xfe0f], np.uint16)
    return np.array([0x7fc1, 0x7f83, 0xffc5, 0xff85, 0x7fcb, 0x7fa0, 0xffff, 0x7f81, 0x7fd5, 0xffcf], np.uint16)
def spec(a, every=7, seed=0):
    # NaNs of distinct payloads every `every` elements (phase varied), Inf / -Inf and +-0 too
    a = np.array(a)
    u = a.reshape(-1).view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)
    pl = nan_payloads(a.dtype)
    idx = np.arange(seed % every, u.size, every)
    u[idx] = pl[np.arange(idx.size) % pl.size]
    inf = {4: 0x7f800000, 2: 0x7c00 if a.dtype == np.float16 else 0x7f80}[a.dtype.itemsize]
    sign = 0x80000000 if a.dtype.itemsize == 4 else 0x8000
    u[(seed + 3) % 11::11] = inf
    u[(seed + 5) % 13::13] = inf | sign
    u[(seed + 1) % 17::17] = 0
    return a
def TT(a):  # 4-D tensors as NCHW (the 2-d resampling ops want a format)
    return T(a, pyaclnn.lib.ACL_FORMAT_NCHW) if np.ndim(a) == 4 else T(a)
def EE(shape, dt):
    return TT(np.zeros(shape, dt))
def rn(shape, dt, lo=None, hi=None):
    x = rng.standard_normal(shape) if lo is None else rng.uniform(lo, hi, shape)
    return x.astype(np.float32).astype(dt)
"""

_MSDA = r"""
shapes = np.array([[9, 11], [5, 6], [3, 3]], np.int32); start = np.array([0, 99, 129], np.int32); K = 138
v = spec(rn((2, K, 3, {C}), DT), 5, 1)
loc = rn((2, 40, 3, 3, 4, 2), DT, -0.1, 1.1)
a = spec(rn((2, 40, 3, 3, 4), DT, 0, 1), 9, 2)
go = spec(rn((2, 40, 3 * {C}), DT), 6, 3)
outs = [pyaclnn.multi_scale_deformable_attn(v, shapes, start, loc, a)]
outs += list(pyaclnn.multi_scale_deformable_attn_backward(v, shapes, start, loc, a, go))
"""

_GS2 = r"""
x = spec(rn((2, {C}, 7, 9), DT), 5, 1); go = spec(rn((2, {C}, 6, 5), DT), 6, 2)
g = rn((2, 6, 5, 2), DT, -1.2, 1.2); g = spec(g, 23, 4)
o = E((2, {C}, 6, 5), DT); launch("GridSampler2D", T(x), T(g), {IM}, {PM}, {AC}, o)
gi, gg = E(x.shape, DT), E(g.shape, DT)
launch("GridSampler2DBackward", T(go), T(x), T(g), {IM}, {PM}, {AC}, BA([True, True]), gi, gg)
outs = [o.numpy(), gi.numpy(), gg.numpy()]
xs = spec(rn((2, {C}, 7, 18), DT), 5, 1)[..., ::2]   # a strided input: the channel-last path
o = E((2, {C}, 6, 5), DT); launch("GridSampler2D", T(xs), T(g), {IM}, {PM}, {AC}, o)
gi, gg = E(xs.shape, DT), E(g.shape, DT)
launch("GridSampler2DBackward", T(go), T(xs), T(g), {IM}, {PM}, {AC}, BA([True, True]), gi, gg)
outs += [o.numpy(), gi.numpy(), gg.numpy()]
"""

_GS3 = r"""
x = spec(rn((2, {C}, 4, 5, 6), DT), 5, 1); go = spec(rn((2, {C}, 3, 4, 5), DT), 6, 2)
g = spec(rn((2, 3, 4, 5, 3), DT, -1.2, 1.2), 23, 4)
o = E((2, {C}, 3, 4, 5), DT); launch("GridSampler3D", T(x), T(g), {IM}, {PM}, {AC}, o)
gi, gg = E(x.shape, DT), E(g.shape, DT)
launch("GridSampler3DBackward", T(go), T(x), T(g), {IM}, {PM}, {AC}, BA([True, True]), gi, gg)
outs = [o.numpy(), gi.numpy(), gg.numpy()]
"""

_ROI = r"""
from pyaclnn._ffi import ffi
lib = pyaclnn.lib; NCHW, ND = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_ND
x = spec(rn((2, {C}, 15, 19), DT), 5, 1); k = 6
b = np.zeros((k, 5), np.float32); b[:, 0] = rng.integers(0, 2, k)
b[:, 1:3] = rng.uniform(-2, 12, (k, 2)); b[:, 3:5] = b[:, 1:3] + rng.uniform(1, 10, (k, 2)); b = b.astype(DT)
outs = []
for aligned in (False, True):
    o = T(np.zeros((k, {C}, 5, 4), DT), NCHW)
    launch("RoiAlignV2", T(x, NCHW), T(b, ND), 5, 4, 0.5, 2, aligned, o); outs.append(o.numpy())
for mode in (b"avg", b"max"):
    o = T(np.zeros((k, {C}, 5, 4), DT), NCHW)
    launch("RoiAlign", T(x, NCHW), T(np.ascontiguousarray(b[:, 1:]), ND), T(b[:, 0].astype(np.int32), ND),
           ffi.new("char[]", mode), 5, 4, 2, 0.5, o); outs.append(o.numpy())
if DT == np.float32:
    gy = spec(rn((k, {C}, 5, 4), DT), 5, 2)
    for aligned in (False, True):
        gx = T(np.zeros((2, {C}, 15, 19), DT), NCHW)
        launch("RoiAlignV2Backward", T(gy, NCHW), T(b, ND), IA([2, {C}, 15, 19]), 5, 4, 0.5, 2, aligned, gx)
        outs.append(gx.numpy())
"""

# upsample: (op, backward op, input spatial, output spatial, extra args before `out` (after alignCorners) )
_UPL = r"""
xs, os_ = {IN}, {OUT}
x = spec(rn((2, {C}) + xs, DT), 5, 1); go = spec(rn((2, {C}) + os_, DT), 6, 2)
outs = []
for ac in {ACS}:
    o = EE((2, {C}) + os_, DT); launch("{OP}", TT(x), IA(list(os_)), *([ac] if {HASAC} else []), *{SC}, o)
    gi = EE(x.shape, DT); launch("{BOP}", TT(go), IA(list(os_)), IA([2, {C}] + list(xs)), *([ac] if {HASAC} else []), *{SC}, gi)
    outs += [o.numpy(), gi.numpy()]
"""

_NEAR_BWD = r"""
xs, os_ = {IN}, {OUT}
go = spec(rn((2, {C}) + os_, DT), 3, 2)
gi = EE((2, {C}) + xs, DT); launch("{BOP}", TT(go), IA(list(os_)), IA([2, {C}] + list(xs)), *{SC}, gi)
outs = [gi.numpy()]
"""

_THREE = r"""
gx = spec(rn((2, {C}, 40), DT), 5, 1); idx = rng.integers(0, 12, (2, 40, 3)).astype(np.int32)
w = spec(rn((2, 40, 3), DT), 4, 2)
gy = T(np.zeros((2, {C}, 12), DT)); launch("ThreeInterpolateBackward", T(gx), T(idx), T(w), 12, gy)
outs = [gy.numpy()]
"""

_COL2IM = r"""
cols = spec(rn((2, {C} * 9, 7 * 7), DT), 3, 1)
o = T(np.zeros((2, {C}, 9, 9), DT)); launch("Im2colBackward", T(cols), IA([9, 9]), IA([3, 3]), IA([1, 1]), IA([0, 0]), IA([1, 1]), o)
x = spec(rn((2, {C}, 9, 9), DT), 3, 1)
o2 = T(np.zeros((2, {C} * 9, 49), DT)); launch("Im2col", T(x), IA([3, 3]), IA([1, 1]), IA([0, 0]), IA([1, 1]), o2)
outs = [o.numpy(), o2.numpy()]
"""

_MATMUL = r"""
a = spec(rn((37, 70), DT), 7, 1); b = spec(rn((70, 45), DT), 9, 2)
o = E((37, 45), DT); launch("Matmul", T(a), T(b), o, 1)
outs = [o.numpy()]
"""

_CONV = r"""
x = spec(rn((2, 6, 9, 11), DT), 7, 1); w = spec(rn((8, 6, 3, 3), DT), 9, 2); bias = spec(rn((8,), DT), 5, 3)
o = TT(np.zeros((2, 8, 9, 11), DT))
launch("Convolution", TT(x), TT(w), T(bias), IA([1, 1]), IA([1, 1]), IA([1, 1]), False, IA([0, 0]), 1, o, 1)
go = spec(rn((2, 8, 9, 11), DT), 6, 4)
gi, gw, gb = TT(np.zeros(x.shape, DT)), TT(np.zeros(w.shape, DT)), T(np.zeros((8,), DT))
launch("ConvolutionBackward", TT(go), TT(x), TT(w), IA([8]), IA([1, 1]), IA([1, 1]), IA([1, 1]), False, IA([0, 0]), 1,
       BA([True, True, True]), 1, gi, gw, gb)
outs = [o.numpy(), gi.numpy(), gw.numpy(), gb.numpy()]
"""

DTS = {"f32": "np.float32", "f16": "np.float16", "bf16": "BF"}


def _cases():
    cs = []
    for dt in ("f32", "f16", "bf16"):
        for C in (32, 24, 8):
            cs.append((f"msda {dt} C{C}", _MSDA.format(C=C), dt))
    for dt in ("f32", "f16", "bf16"):
        for C in (1, 5, 16):
            for im in (0, 1, 2):
                for pm in (0, 1, 2):
                    cs.append((f"grid2d {dt} C{C} im{im} pm{pm}", _GS2.format(C=C, IM=im, PM=pm, AC=bool(pm & 1)), dt))
            for im in (0, 1):
                for pm in (0, 1, 2):
                    cs.append((f"grid3d {dt} C{C} im{im} pm{pm}", _GS3.format(C=C, IM=im, PM=pm, AC=bool(pm & 1)), dt))
    for dt in ("f32", "f16"):
        for C in (3, 16):
            cs.append((f"roi {dt} C{C}", _ROI.format(C=C), dt))
    ups = [("UpsampleLinear1d", "UpsampleLinear1dBackward", "(7,)", "(13,)", True, "[-1.0]"),
           ("UpsampleBilinear2d", "UpsampleBilinear2dBackwardV2", "(5, 7)", "(9, 13)", True, "[0.0, 0.0]"),
           ("UpsampleBilinear2d", "UpsampleBilinear2dBackwardV2", "(9, 13)", "(5, 7)", True, "[0.0, 0.0]"),
           ("UpsampleBicubic2d", "UpsampleBicubic2dBackward", "(5, 7)", "(9, 13)", True, "[0.0, 0.0]"),
           ("UpsampleBilinear2dAA", "UpsampleBilinear2dAABackward", "(9, 13)", "(5, 6)", True, "[0.0, 0.0]"),
           ("UpsampleBicubic2dAA", "UpsampleBicubic2dAAGrad", "(9, 13)", "(5, 6)", True, "[0.0, 0.0]"),
           ("UpsampleTrilinear3d", "UpsampleTrilinear3dBackward", "(3, 4, 5)", "(5, 7, 9)", True, "[0.0, 0.0, 0.0]")]
    for dt in ("f32", "f16", "bf16"):
        for op, bop, i, o, hasac, sc in ups:
            for C in (3, 16):
                cs.append((f"{op} {i}->{o} {dt} C{C}",
                           _UPL.format(C=C, OP=op, BOP=bop, IN=i, OUT=o, HASAC=hasac, SC=sc, ACS="(False, True)"), dt))
    near = [("UpsampleNearest1dBackward", "(5,)", "(13,)", "[0.0]"),
            ("UpsampleNearest2dBackward", "(5, 7)", "(11, 16)", "[0.0, 0.0]"),
            ("UpsampleNearest3dBackward", "(3, 4, 5)", "(7, 9, 11)", "[0.0, 0.0, 0.0]"),
            ("UpsampleNearestExact1dBackward", "(5,)", "(13,)", "[0.0]"),
            ("UpsampleNearestExact2dBackward", "(5, 7)", "(11, 16)", "[0.0, 0.0]"),
            ("UpsampleNearestExact2dBackward", "(8, 8)", "(16, 16)", "[0.0, 0.0]"),
            ("UpsampleNearestExact3dBackward", "(3, 4, 5)", "(7, 9, 11)", "[0.0, 0.0, 0.0]"),
            # rows wide enough for the vector loops and stores (x2 / x1.5, the bench's ratios)
            ("UpsampleNearest2dBackward", "(6, 40)", "(12, 80)", "[2.0, 2.0]"),
            ("UpsampleNearestExact2dBackward", "(6, 40)", "(9, 60)", "[0.0, 0.0]"),
            ("UpsampleNearest3dBackward", "(3, 4, 40)", "(6, 8, 80)", "[2.0, 2.0, 2.0]"),
            ("UpsampleNearestExact3dBackward", "(4, 4, 40)", "(6, 6, 60)", "[0.0, 0.0, 0.0]")]
    for dt in ("f32", "f16", "bf16"):
        for bop, i, o, sc in near:
            for C in (3, 16):
                cs.append((f"{bop} {i}->{o} {dt} C{C}", _NEAR_BWD.format(C=C, BOP=bop, IN=i, OUT=o, SC=sc), dt))
    for dt in ("f32", "f16"):
        cs.append((f"three_interpolate_bwd {dt}", _THREE.format(C=8), dt))
    for dt in ("f32", "f16", "bf16"):
        cs.append((f"col2im/im2col {dt}", _COL2IM.format(C=4), dt))
    for dt in ("f32", "f16", "bf16"):   # gemm / conv
        cs.append((f"matmul {dt}", _MATMUL, dt))
        cs.append((f"conv2d {dt}", _CONV, dt))
    return cs


CASES = _cases()

CHILD = PRELUDE + r"""
cases = json.loads(sys.argv[1])
res = {}
for name, code, dt in cases:
    g = {"DT": eval(DTS[dt])}
    g.update(globals())
    try:
        exec(code, g)
        res[name] = ",".join(hashlib.sha256(np.ascontiguousarray(o).tobytes()).hexdigest()[:8] for o in g["outs"])
    except Exception as e:  # an op the build lacks, a bad argument: reported, not fatal
        res[name] = "ERR " + repr(e)[:120]
print(json.dumps(res))
""".replace("DTS[dt]", repr(DTS) + "[dt]")


def run(cases, levels=("off", "avx2", "avx512"), threads=(1, 2)):
    """{(level, threads): {case name: digest}} for `cases` [(name, code, dtype key)]."""
    out = {}
    arg = json.dumps(cases)
    for lvl in levels:
        for t in threads:
            env = dict(os.environ, PYACLNN_SIMD=lvl, OMP_NUM_THREADS=str(t),
                       PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
            r = subprocess.run([sys.executable, "-c", CHILD, arg], env=env, capture_output=True, text=True,
                               timeout=900)
            if r.returncode != 0:
                raise RuntimeError(r.stderr)
            out[(lvl, t)] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def differing(res):
    keys = list(res)
    names = list(res[keys[0]])
    return [n for n in names if len({res[k][n] for k in keys}) > 1 or res[keys[0]][n].startswith("ERR")]


def main(argv):
    cases = [c for c in CASES if not argv or any(s in c[0] for s in argv)]
    res = run(cases)
    bad = differing(res)
    keys = list(res)
    for n in bad:
        per = [res[k][n].split(",") for k in keys]
        outs = [i for i in range(len(per[0])) if len({p[i] if i < len(p) else "" for p in per}) > 1]
        print(f"{n}: outputs {outs} differ:  " + "  ".join(f"{k[0]}/{k[1]}={res[k][n][:60]}" for k in keys))
    print(f"{len(bad)} of {len(cases)} cases differ between levels / thread counts")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
