"""Session 17 fast paths of the sampling ops of issue 13 (bench/bench_sampling.py): Im2col's bit copy (out of x's
dtype). Each result is compared byte for byte with a literal numpy reference (edge values: signalling and quiet NaNs
with payloads, +-Inf, subnormals, -0; odd widths; strided input and output views), and its bytes must be the same
for OMP_NUM_THREADS 1/2/3 and every PYACLNN_SIMD level."""
import hashlib

import numpy as np
import pytest

import pyaclnn
from helpers import REPO, strided, same_bytes_for_threads_and_levels

# the references compute with NaN / Inf on purpose
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

BF16 = pyaclnn.bfloat16
DTS = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": np.dtype(BF16)}
# the bits of: sNaN, negative sNaN, qNaN with a payload, +Inf, -Inf, the smallest subnormal, -largest subnormal, -0
SPECIAL = {
    "f32": [0x7f800001, 0xffa00005, 0x7fc12345, 0x7f800000, 0xff800000, 0x00000001, 0x807fffff, 0x80000000],
    "f16": [0x7c01, 0xfd05, 0x7e33, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x8000],
    "bf16": [0x7f81, 0xffa5, 0x7fc3, 0x7f80, 0xff80, 0x0001, 0x807f, 0x8000],
}
QUIET = {"f32": 0x00400000, "f16": 0x0200, "bf16": 0x0040}


def _ut(dt):
    return np.uint32 if DTS[dt].itemsize == 4 else np.uint16


def special(rng, shape, dt):
    """standard normal values with every SPECIAL bit pattern planted at random places"""
    x = rng.standard_normal(shape).astype(np.float32).astype(DTS[dt])
    flat = x.reshape(-1).view(_ut(dt))
    pos = rng.choice(flat.size, min(flat.size, 40), replace=False)
    for i, p in enumerate(pos):
        flat[p] = SPECIAL[dt][i % len(SPECIAL[dt])]
    return x


def quieted(bits, dt):
    """the NaN rule's result bits of a copy: a NaN keeps its payload with the quiet bit set"""
    b = np.asarray(bits).copy()
    if dt == "f32":
        nan = (b & 0x7fffffff) > 0x7f800000
    elif dt == "f16":
        nan = (b & 0x7fff) > 0x7c00
    else:
        nan = (b & 0x7fff) > 0x7f80
    b[nan] |= QUIET[dt]
    return b


# ---------------------------------------------------------------- Im2col

# (shape, kernel, dilation, padding, stride)
IM2COL = [
    ((2, 3, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((3, 5, 7), (2, 3), (1, 2), (1, 0), (2, 1)),
    ((1, 4, 13, 6), (2, 2), (1, 1), (0, 0), (2, 2)),
    ((2, 2, 5, 5), (3, 2), (2, 3), (2, 1), (3, 2)),
    ((1, 2, 3, 4), (5, 5), (1, 1), (3, 3), (1, 1)),   # kernel taps entirely in the padding
    ((1, 8, 33, 67), (3, 3), (1, 1), (1, 1), (1, 1)),
]


def _taps(k, d, p, s, H, W, oh, ow):
    """(ki, kj, i, j, y, x) of every kernel tap that lands inside the H x W plane, in (ki, kj) then (i, j) order:
    output position (i, j) of tap (ki, kj) reads input (i s0 - p0 + ki d0, j s1 - p1 + kj d1)"""
    for ki in range(k[0]):
        for kj in range(k[1]):
            for i in range(oh):
                y = i * s[0] - p[0] + ki * d[0]
                if not 0 <= y < H:
                    continue
                for j in range(ow):
                    x = j * s[1] - p[1] + kj * d[1]
                    if 0 <= x < W:
                        yield ki, kj, i, j, y, x


def im2col_ref(x, k, d, p, s):
    """literal loop: out[n, (c, ki, kj), (i, j)] = x[n, c, i s0 - p0 + ki d0, j s1 - p1 + kj d1] or +0"""
    b = x[None] if x.ndim == 3 else x
    N, C, H, W = b.shape
    oh = (H + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (W + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((N, C * k[0] * k[1], oh * ow), x.dtype)
    taps = list(_taps(k, d, p, s, H, W, oh, ow))
    for n in range(N):
        for c in range(C):
            for ki, kj, i, j, y, xx in taps:
                out[n, (c * k[0] + ki) * k[1] + kj, i * ow + j] = b[n, c, y, xx]
    return out[0] if x.ndim == 3 else out


def im2col_results(dt, seed=5):
    """(label, out) of every IM2COL case x input view (contiguous / slice / transpose) x output view"""
    rng = np.random.default_rng(seed)
    res = []
    for shape, k, d, p, s in IM2COL:
        img = special(rng, shape, dt)
        L = [(shape[-2 + i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
        oshape = shape[:-3] + (shape[-3] * k[0] * k[1], L[0] * L[1])
        for view in ("c", "slice", "transpose"):
            xin = img if view == "c" else strided(img, view)
            for oview in ("c", "slice"):
                if oview == "c":
                    o = np.full(oshape, 7, DTS[dt])
                else:
                    o = np.full(oshape[:-1] + (oshape[-1] * 2,), 7, DTS[dt])[..., ::2]
                pyaclnn.call("Im2col", xin, list(k), list(d), list(p), list(s), o)
                res.append((f"{shape} k{k} d{d} p{p} s{s} {view}/{oview}", img, (k, d, p, s), o))
    return res


@pytest.mark.parametrize("dt", list(DTS))
def test_im2col_bytes_vs_reference(dt):
    for label, img, (k, d, p, s), o in im2col_results(dt):
        exp = quieted(im2col_ref(img, k, d, p, s).view(_ut(dt)), dt)
        got = np.ascontiguousarray(o).view(_ut(dt))
        assert np.array_equal(got, exp), f"{dt} {label}: {np.count_nonzero(got != exp)} elements differ"


def _digest_code(fn, dt):
    return (f"import sys, hashlib; sys.path.insert(0, {REPO + '/tests'!r})\n"
            f"import numpy as np, test_sampling_fast_s17 as t\n"
            f"h = hashlib.sha1()\n"
            f"for r in t.{fn}({dt!r}): h.update(np.ascontiguousarray(r[-1]).tobytes())\n"
            f"print(h.hexdigest())\n")


@pytest.mark.parametrize("dt", list(DTS))
def test_im2col_same_bytes_threads_levels(dt):
    same_bytes_for_threads_and_levels(_digest_code("im2col_results", dt), threads=(1, 2, 3))


# ---------------------------------------------------------------- AffineGrid

def _isnan_bits(u):
    return (u & 0x7fffffffffffffff) > 0x7ff0000000000000


def _rule(a, b, op):
    """the NaN rule on two float64 values: a quietened if NaN, else b quietened if NaN, else a op b"""
    for v in (a, b):
        u = int(np.float64(v).view(np.uint64))
        if _isnan_bits(u):
            return np.uint64(u | 0x0008000000000000).view(np.float64)
    return op(np.float64(a), np.float64(b))


def _lin(n, align):
    if n <= 1:
        return np.zeros(max(n, 0))
    i = np.arange(n, dtype=np.float64)
    return -1 + 2.0 * i / (n - 1) if align else -1 + (2.0 * i + 1) / n


def affine_ref(theta, size, align):
    """float64: out[n, (d,) h, w, k] = sum_c base[c] theta[n, k, c], added from 0 in c order (base = (x, y[, z], 1));
    an element whose value is NaN is recomputed under the NaN rule, s + (base * theta) in that order"""
    th = _to_f64(theta)
    d3 = len(size) == 5
    N, rows = size[0], (3 if d3 else 2)
    D, H, W = (size[2], size[3], size[4]) if d3 else (1, size[2], size[3])
    zs, ys, xs = np.meshgrid(_lin(D, align), _lin(H, align), _lin(W, align), indexing="ij")
    base = [xs, ys, zs, np.ones_like(xs)] if d3 else [xs, ys, np.ones_like(xs)]
    with np.errstate(all="ignore"):
        out = np.zeros((N, D, H, W, rows))
        for n in range(N):
            for k in range(rows):
                s = np.zeros_like(xs)
                for c in range(rows + 1):
                    s = s + base[c] * th[n, k, c]
                out[n, ..., k] = s
        for idx in zip(*np.nonzero(np.isnan(out))):
            n, d, h, w, k = idx
            s = np.float64(0)
            for c in range(rows + 1):
                s = _rule(s, _rule(base[c][d, h, w], th[n, k, c], np.multiply), np.add)
            out[idx] = s
    return out if d3 else out[:, 0]


AFFINE_SIZES = ([2, 1, 4, 5], [2, 3, 1, 3], [1, 2, 3, 4, 2], [2, 1, 2, 1, 3], [3, 1, 17, 9], [2, 1, 5, 6, 7],
                [2, 1, 1, 300], [1, 1, 2, 3, 259])


def affine_results(dt, seed=7):
    """(label, theta, (size, align), out) for every size x align x (theta special / plain) x theta and out views"""
    rng = np.random.default_rng(seed)
    res = []
    for size in AFFINE_SIZES:
        d3 = len(size) == 5
        tshape = (size[0], 3 if d3 else 2, 4 if d3 else 3)
        for kind in ("special", "plain"):
            th = special(rng, tshape, dt) if kind == "special" else \
                rng.uniform(-3, 3, tshape).astype(np.float32).astype(DTS[dt])
            oshape = [size[0]] + size[2:] + [3 if d3 else 2]
            for align in (False, True):
                for view in ("c", "slice"):
                    if view == "c":
                        o = np.zeros(oshape, DTS[dt])
                    else:
                        o = np.zeros(oshape[:-2] + [oshape[-2] * 2, oshape[-1]], DTS[dt])[..., ::2, :]
                    pyaclnn.call("AffineGrid", th if view == "c" else strided(th), size, align, o)
                    res.append((f"{size} {kind} align={align} {view}", th, (size, align), o))
    return res


def _to_f64(x):
    """exact, NaN payloads kept (ml_dtypes' bfloat16 casts drop them): bf16 through its fp32 bits"""
    x = np.asarray(x)
    if x.dtype == DTS["bf16"]:
        x = (x.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    with np.errstate(invalid="ignore"):
        return x.astype(np.float64)


def _round_bits(x64, dt):
    """float64 -> dt through fp32 (acl_convert's double -> fp16 / bf16 path), as dt's bits; fp32 -> bf16 rounds
    to nearest even, a NaN keeps its upper payload bits, quietened"""
    f = np.asarray(x64).astype(np.float32)
    if dt != "bf16":
        return f.astype(DTS[dt]).view(_ut(dt))
    u = f.view(np.uint32).astype(np.uint64)
    rne = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = (u & 0x7fffffff) > 0x7f800000
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), rne)


@pytest.mark.parametrize("dt", list(DTS))
def test_affine_grid_bytes_vs_reference(dt):
    for label, th, (size, align), o in affine_results(dt):
        exp = _round_bits(affine_ref(th, size, align), dt)
        got = np.ascontiguousarray(o).view(_ut(dt))
        assert np.array_equal(got, exp), f"{dt} {label}: {np.count_nonzero(got != exp)} elements differ"


def test_affine_grid_nan_rule():
    """theta row (NaN_A, 0, NaN_B): x NaN_A + 0 y is NaN_A, and NaN_A + 1 NaN_B keeps NaN_A (main kept NaN_B)"""
    th = np.zeros((1, 2, 3), np.uint32)
    th[0, 0] = [0x7fc00001, 0, 0x7fc12345]
    th[0, 1] = [0x3f800000, 0, 0]
    o = np.zeros((1, 2, 2, 2), np.float32)
    pyaclnn.call("AffineGrid", th.view(np.float32), [1, 1, 2, 2], False, o)
    assert (o[..., 0].view(np.uint32) == 0x7fc00001).all()


@pytest.mark.parametrize("dt", list(DTS))
def test_affine_grid_same_bytes_threads_levels(dt):
    same_bytes_for_threads_and_levels(_digest_code("affine_results", dt), threads=(1, 2, 3))


# ---------------------------------------------------------------- Im2colBackward (col2im)

def _to_f32(x):
    x = np.asarray(x)
    if x.dtype == DTS["bf16"]:
        return (x.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return x.astype(np.float32)


def _rule_add_f32(a, b):
    for v in (a, b):
        u = int(np.float32(v).view(np.uint32))
        if (u & 0x7fffffff) > 0x7f800000:
            return np.uint32(u | 0x00400000).view(np.float32)
    return np.float32(a) + np.float32(b)


def col2im_ref(cols, size, k, d, p, s):
    """fp32: every output element is 0 plus the taps covering it in (ki, kj) order (one addition per tap); an
    element whose sum is NaN is redone under the NaN rule, s + g in that order"""
    g = _to_f32(cols)
    N, CK, L = g.shape
    C, H, W = CK // (k[0] * k[1]), size[0], size[1]
    lh = (H + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    lw = (W + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    g = g.reshape(N, C, k[0], k[1], lh, lw)
    acc = np.zeros((N, C, H, W), np.float32)
    taps = {}  # (h, w) -> [(ki, kj, oh, ow)] in (ki, kj) order
    for ki, kj, oh, ow, h, w in _taps(k, d, p, s, H, W, lh, lw):
        with np.errstate(all="ignore"):
            acc[:, :, h, w] = acc[:, :, h, w] + g[:, :, ki, kj, oh, ow]
        taps.setdefault((h, w), []).append((ki, kj, oh, ow))
    for n, c, h, w in zip(*np.nonzero(np.isnan(acc))):
        v = np.float32(0)
        for ki, kj, oh, ow in taps[(h, w)]:
            v = _rule_add_f32(v, g[n, c, ki, kj, oh, ow])
        acc[n, c, h, w] = v
    return acc


# (N, C, (H, W), kernel, dilation, padding, stride)
COL2IM = [
    (2, 3, (7, 9), (3, 3), (1, 1), (1, 1), (1, 1)),
    (1, 2, (8, 6), (2, 3), (2, 1), (0, 1), (2, 1)),
    (3, 1, (6, 7), (1, 1), (1, 1), (0, 0), (1, 1)),
    (1, 2, (4, 4), (3, 3), (2, 2), (2, 2), (3, 3)),
    (2, 4, (33, 31), (3, 3), (1, 1), (1, 1), (1, 1)),
    (1, 4, (16, 17), (2, 2), (1, 1), (0, 0), (2, 2)),
    (1, 2, (5, 13), (3, 5), (1, 2), (0, 3), (1, 2)),
    # rows of whole 8-element blocks (the widening add loops of col2im.c): k3 s1 and the k2 s2 interleaved pair
    (1, 2, (6, 64), (3, 3), (1, 1), (1, 1), (1, 1)),
    (2, 2, (8, 64), (2, 2), (1, 1), (0, 0), (2, 2)),
]


def col2im_results(dt, seed=9):
    """(label, cols, geometry, out) for every COL2IM case x gradOutput view x out view (out of gradOutput's
    dtype)"""
    rng = np.random.default_rng(seed)
    res = []
    for n, c, size, k, d, p, s in COL2IM:
        L = [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
        cols = special(rng, (n, c * k[0] * k[1], L[0] * L[1]), dt)
        osh = (n, c) + size
        for view in ("c", "slice", "transpose"):
            for oview in ("c", "slice"):
                if oview == "c":
                    o = np.full(osh, 7, DTS[dt])
                else:
                    o = np.full(osh[:-1] + (osh[-1] * 2,), 7, DTS[dt])[..., ::2]
                pyaclnn.call("Im2colBackward", cols if view == "c" else strided(cols, view), list(size), list(k),
                             list(d), list(p), list(s), o)
                res.append((f"{osh} k{k} d{d} p{p} s{s} {view}/{oview}", cols, (size, k, d, p, s), o))
    return res


@pytest.mark.parametrize("dt", list(DTS))
def test_col2im_bytes_vs_reference(dt):
    refs = {}
    for label, cols, geo, o in col2im_results(dt):
        key = label.split(" c/")[0].split(" slice/")[0].split(" transpose/")[0]
        if key not in refs:
            refs[key] = _round_bits(col2im_ref(cols, *geo), dt)
        got = np.ascontiguousarray(o).view(_ut(dt))
        assert np.array_equal(got, refs[key]), f"{dt} {label}: {np.count_nonzero(got != refs[key])} elements differ"


@pytest.mark.parametrize("dt", list(DTS))
def test_col2im_same_bytes_threads_levels(dt):
    same_bytes_for_threads_and_levels(_digest_code("col2im_results", dt), threads=(1, 2, 3))


# ---------------------------------------------------------------- ThreeInterpolateBackward

def three_ref(gx, idx, w, m):
    """fp32: grad_y[b, c, j] = 0 + sum over (n, i) in order with idx[b, n, i] == j of gx[b, c, n] * w[b, n, i]
    (product rounded to fp32, then added); NaN sums redone under the NaN rule, s + (g * w)"""
    g, wt = _to_f32(gx), _to_f32(w)
    B, C, N = g.shape
    out = np.zeros((B, C, m), np.float32)
    with np.errstate(all="ignore"):
        for b in range(B):
            ok = (idx[b] >= 0) & (idx[b] < m)
            nn, ii = np.nonzero(ok)
            prods = g[b][:, nn] * wt[b][nn, ii][None, :]
            for c in range(C):
                np.add.at(out[b, c], idx[b][nn, ii], prods[c])
    for b, c, j in zip(*np.nonzero(np.isnan(out))):
        s = np.float32(0)
        for n in range(N):
            for i in range(3):
                if idx[b, n, i] == j:
                    gv, wv = g[b, c, n], wt[b, n, i]
                    prod = _rule_add_f32(gv, wv) if (np.isnan(gv) or np.isnan(wv)) else gv * wv
                    s = _rule_add_f32(s, prod)
        out[b, c, j] = s
    return out


def three_results(dt, seed=11):
    rng = np.random.default_rng(seed)
    res = []
    for B, C, N, M in ((2, 3, 40, 12), (1, 5, 257, 64), (2, 2, 9, 1)):
        gx = special(rng, (B, C, N), dt)
        w = special(rng, (B, N, 3), dt)
        idx = rng.integers(-1, M + 1, (B, N, 3)).astype(np.int32)
        for view in ("c", "slice"):
            for oview in ("c", "slice"):
                gy = np.full((B, C, M), 7, DTS[dt]) if oview == "c" else np.full((B, C, 2 * M), 7, DTS[dt])[..., ::2]
                pyaclnn.call("ThreeInterpolateBackward", gx if view == "c" else strided(gx), idx, w, M, gy)
                res.append((f"B{B} C{C} N{N} M{M} {view}/{oview}", (gx, idx, w, M), gy))
    return res


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_three_interpolate_bytes_vs_reference(dt):
    for label, (gx, idx, w, M), gy in three_results(dt):
        exp = _round_bits(three_ref(gx, idx, w, M), dt)
        got = np.ascontiguousarray(gy).view(_ut(dt))
        assert np.array_equal(got, exp), f"{dt} {label}: {np.count_nonzero(got != exp)} elements differ"


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_three_interpolate_same_bytes_threads_levels(dt):
    same_bytes_for_threads_and_levels(_digest_code("three_results", dt), threads=(1, 2, 3))
