"""Im2colBackward fp16 at x86-64's portable level (PYACLNN_SIMD=off: no F16C) sums the tap rows in a scaled domain
(libsrc/kernels/col2im.c, c2i_adds_f16): checked bit for bit against a literal float32 loop (0 plus every covering
tap in (ki, kj) order, rounded once to fp16) on finite inputs of every magnitude - subnormal halves, -0, the largest
finite value and sums past it (Inf after rounding) - and with one Inf / NaN half in a single plane (that plane by the
per-element path, the others still scaled)."""
import numpy as np
import pytest

from helpers import run_python

# (N, C, (H, W), kernel, dilation, padding, stride): k3 s1 (single adds), the k2 s2 interleaved pair, a strided
# column step, odd widths (the scalar tails)
CASES = [
    (2, 3, (17, 64), (3, 3), (1, 1), (1, 1), (1, 1)),
    (1, 2, (19, 37), (3, 3), (1, 1), (1, 1), (1, 1)),
    (2, 2, (16, 64), (2, 2), (1, 1), (0, 0), (2, 2)),
    (1, 2, (15, 35), (2, 2), (1, 1), (0, 0), (2, 2)),
    (1, 2, (12, 29), (3, 2), (2, 1), (1, 0), (1, 3)),
]

CODE = r"""
import sys, numpy as np, pyaclnn
geo = eval(sys.argv[1])
cols = np.load(sys.argv[2])
n, c, size, k, d, p, s = geo
out = np.full((n, c) + size, 7, np.float16)
pyaclnn.call("Im2colBackward", cols, list(size), list(k), list(d), list(p), list(s), out)
sys.stdout.write(out.view(np.uint16).tobytes().hex())
"""


def _geometry(size, k, d, p, s):
    return [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]


def _cols(rng, shape, special_plane):
    x = (rng.standard_normal(shape) * rng.choice([1e-6, 1e-3, 1.0, 3e3], shape)).astype(np.float16)
    b = x.reshape(-1).view(np.uint16)
    b[1::11] = rng.integers(1, 0x400, b[1::11].shape)  # subnormal halves
    b[2::13] = 0x8000  # -0
    b[3::17] = 0x7bff  # the largest finite half: neighbouring sums round to Inf
    b[4::19] = 0xfbff
    if special_plane is not None:
        n, ck = special_plane
        plane = x[n, ck].view(np.uint16)
        plane[3] = 0x7c00
        plane[5] = 0x7e01 if ck % 2 else 0xfc00
    return x


def _reference(cols, size, k, d, p, s):
    N, CK, _ = cols.shape
    C = CK // (k[0] * k[1])
    lh, lw = _geometry(size, k, d, p, s)
    g = cols.astype(np.float32).reshape(N, C, k[0], k[1], lh, lw)
    acc = np.zeros((N, C) + tuple(size), np.float32)
    for ki in range(k[0]):
        for kj in range(k[1]):
            for oh in range(lh):
                h = oh * s[0] - p[0] + ki * d[0]
                if not 0 <= h < size[0]:
                    continue
                for ow in range(lw):
                    w = ow * s[1] - p[1] + kj * d[1]
                    if 0 <= w < size[1]:
                        with np.errstate(all="ignore"):
                            acc[:, :, h, w] = acc[:, :, h, w] + g[:, :, ki, kj, oh, ow]
    with np.errstate(all="ignore"):
        return acc.astype(np.float16)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("special", [False, True])
def test_col2im_fp16_portable_scaled_sums(case, special, tmp_path):
    n, c, size, k, d, p, s = CASES[case]
    lh, lw = _geometry(size, k, d, p, s)
    rng = np.random.default_rng(case)
    cols = _cols(rng, (n, c * k[0] * k[1], lh * lw), (n - 1, c * k[0] * k[1] - 1) if special else None)
    path = tmp_path / "cols.npy"
    np.save(path, cols)
    want = _reference(cols, size, k, d, p, s)
    for level in ("off", ""):
        out = run_python(CODE.replace("sys.argv[1]", repr(repr(CASES[case]))).replace("sys.argv[2]", repr(str(path))),
                         {"PYACLNN_SIMD": level})
        got = np.frombuffer(bytes.fromhex(out.decode()), np.uint16).reshape(want.shape)
        wb = want.view(np.uint16)
        fin = ~np.isnan(want)
        assert np.array_equal(got[fin], wb[fin]), (level, np.count_nonzero(got[fin] != wb[fin]))
        assert np.array_equal(np.isnan(got.view(np.float16)), ~fin), level
