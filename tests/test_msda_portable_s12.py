"""aclnnMultiScaleDeformableAttnFunction, the portable forward (PYACLNN_SIMD=off: per-query geometry, channel
blocks of 32 / 16 / 8 / 4 summed with GCC vector extensions, the last C % 4 channels one at a time).

Asserts, for fp32 / fp16 / bf16 and channel counts 8..256 (every block size: C is a multiple of 8), with NaN / +-Inf / subnormal
values and points inside, on the edges and outside the levels:
  - the output bytes equal a literal numpy float32 loop of the written order
    acc[c] += a*(((w1*x1[c] + w2*x2[c]) + w3*x3[c]) + w4*x4[c]) (every operation rounded to fp32, the output
    rounded once to the dtype; a NaN compared as NaN: its payload is checked across levels below);
  - the bytes are the same at PYACLNN_SIMD=off / avx2 / avx512 and OMP_NUM_THREADS=1 / 2 (NaN payloads included).
"""
import hashlib
import os

import numpy as np
import pytest

import pyaclnn
from helpers import BF16, run_python

CHANNELS = (8, 16, 24, 32, 40, 56, 64, 72, 88, 256)  # a multiple of 8 (validated): blocks of 32 + 16 + 8
DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": BF16}


def make(dname, C, seed, special=True):
    dtype = DTYPES[dname]
    rng = np.random.default_rng(seed)
    shapes = np.array([[4, 5], [3, 3], [1, 2]], np.int32)
    sizes = [int(h) * int(w) for h, w in shapes]
    start = np.array(np.cumsum([0] + sizes[:-1]), np.int32)
    K, nl, bs, nh, nq, npt = sum(sizes), len(sizes), 2, 2, 32, 3
    value = rng.standard_normal((bs, K, nh, C)).astype(np.float32)
    if special:
        m = rng.uniform(size=value.shape)
        value[m < 0.02] = np.inf
        value[(m >= 0.02) & (m < 0.04)] = -np.inf
        value[(m >= 0.04) & (m < 0.10)] = 3e-6   # a subnormal half; bf16 / fp32: a small normal
        value[(m >= 0.10) & (m < 0.13)] = -6e-8  # the smallest fp16 subnormal
        value[(m >= 0.13) & (m < 0.15)] = 1e-40  # an fp32 / bf16 subnormal (0 in fp16)
    value = value.astype(dtype)
    if special:
        u = value.view(np.uint32 if dtype == np.float32 else np.uint16)
        nan = rng.uniform(size=value.shape) < 0.01
        payload = rng.integers(1, 1 << 8, size=int(nan.sum()))
        if dtype == np.float32:
            u[nan] = (0x7f800000 | payload | (rng.integers(0, 2, size=payload.size) << 22)).astype(np.uint32)
        elif dtype == np.float16:
            u[nan] = (0x7c00 | (payload & 0x1ff) | 1).astype(np.uint16)
        else:
            u[nan] = (0xff80 | (payload & 0x3f) | 1).astype(np.uint16)
    loc = rng.uniform(-0.2, 1.2, (bs, nq, nh, nl, npt, 2))
    m = rng.uniform(size=loc.shape)
    loc[m < 0.1] = 0.0
    loc[(m >= 0.1) & (m < 0.2)] = 1.0
    loc = loc.astype(dtype)
    attn = rng.uniform(0.0, 1.0, (bs, nq, nh, nl, npt))
    if special:
        attn[0, 0, 0, 0, 0] = np.inf
        attn[1, 2, 1, 1, 0] = 0.0
    attn = attn.astype(dtype)
    return value, shapes, start, loc, attn


def ref_f32(value, shapes, start, loc, attn):
    """Literal loop in numpy float32, the kernel's written order (NaN payloads not modelled)."""
    f = np.float32
    v = value.astype(np.float32)
    L = loc.astype(np.float32)
    A = attn.astype(np.float32)
    bs, K, nh, C = v.shape
    _, nq, _, nl, npt, _ = L.shape
    out = np.zeros((bs, nq, nh, C), np.float32)
    zero = np.zeros(C, np.float32)
    with np.errstate(all="ignore"):
        for b in range(bs):
            for q in range(nq):
                for h in range(nh):
                    acc = np.zeros(C, np.float32)
                    for l in range(nl):
                        H, W, S = int(shapes[l, 0]), int(shapes[l, 1]), int(start[l])
                        Hf, Wf = f(H), f(W)
                        for p in range(npt):
                            hIm = f(L[b, q, h, l, p, 1] * Hf) - f(0.5)
                            wIm = f(L[b, q, h, l, p, 0] * Wf) - f(0.5)
                            if not (hIm > -1 and wIm > -1 and hIm < Hf and wIm < Wf):
                                continue
                            hfl, wfl = np.floor(hIm), np.floor(wIm)
                            h0, w0 = int(hfl), int(wfl)
                            lh, lw = f(hIm - hfl), f(wIm - wfl)
                            hh, hw = f(f(1) - lh), f(f(1) - lw)
                            w = (f(hh * hw), f(hh * lw), f(lh * hw), f(lh * lw))
                            x = []
                            for dh, dw in ((0, 0), (0, 1), (1, 0), (1, 1)):
                                hy, wx = h0 + dh, w0 + dw
                                ok = 0 <= hy < H and 0 <= wx < W and 0 <= S + hy * W + wx < K
                                x.append(v[b, S + hy * W + wx, h] if ok else zero)
                            t = (w[0] * x[0] + w[1] * x[1]) + w[2] * x[2]
                            t = t + w[3] * x[3]
                            acc = acc + A[b, q, h, l, p] * t
                    out[b, q, h] = acc
    return out.reshape(bs, nq, nh * C)


@pytest.mark.parametrize("C", CHANNELS)
@pytest.mark.parametrize("dname", list(DTYPES))
def test_portable_forward_matches_f32_loop(dname, C, monkeypatch):
    """In-process at the level the run was started with; the subprocess test below pins every level."""
    for special in (False, True):
        value, shapes, start, loc, attn = make(dname, C, seed=C * 7 + len(dname), special=special)
        out = pyaclnn.multi_scale_deformable_attn(value, shapes, start, loc, attn)
        ref = ref_f32(value, shapes, start, loc, attn).astype(DTYPES[dname])
        assert out.dtype == ref.dtype and out.shape == ref.shape
        o, r = out.astype(np.float32), ref.astype(np.float32)
        assert np.array_equal(np.isnan(o), np.isnan(r)), (dname, C, special)
        keep = ~np.isnan(r)
        bits = np.uint32 if DTYPES[dname] == np.float32 else np.uint16
        assert np.array_equal(out[keep].view(bits), ref[keep].view(bits)), (dname, C, special)


LEVELS_CODE = r"""
import hashlib, sys
sys.path.insert(0, %r)
import numpy as np
import pyaclnn
from test_msda_portable_s12 import make, ref_f32, CHANNELS, DTYPES
h = hashlib.sha256()
for dname in DTYPES:
    for C in CHANNELS:
        value, shapes, start, loc, attn = make(dname, C, seed=C * 7 + len(dname), special=True)
        out = pyaclnn.multi_scale_deformable_attn(value, shapes, start, loc, attn)
        h.update(np.ascontiguousarray(out).view(np.uint8).tobytes())
        if dname != "f32" and C in (13, 32):  # strided value / loc views, fp32 value with nh > 1 is staged too
            v2 = np.ascontiguousarray(np.swapaxes(value, 2, 3)).swapaxes(2, 3)
            out2 = pyaclnn.multi_scale_deformable_attn(v2, shapes, start, loc, attn)
            assert out2.tobytes() == out.tobytes()
print(h.hexdigest())
"""


@pytest.mark.parametrize("threads", ["1", "2"])
def test_portable_forward_same_bytes_every_level(threads):
    code = LEVELS_CODE % os.path.dirname(os.path.abspath(__file__))
    outs = {lvl: run_python(code, {"PYACLNN_SIMD": lvl, "OMP_NUM_THREADS": threads})
            for lvl in ("off", "avx2", "avx512")}
    assert outs["avx2"] == outs["off"] and outs["avx512"] == outs["off"], outs
    one = run_python(code, {"PYACLNN_SIMD": "off", "OMP_NUM_THREADS": "1"})
    assert one == outs["off"]
