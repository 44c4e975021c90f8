"""The portable level's fp16 / bf16 nearest-exact backward row through the per-thread cell table (libsrc/kernels/
upsample_nearest_exact.c upnx_general_f16s_: each gradOutput row as [x | x[w] + x[w + 1]], one load per gradInput
column). Values against a numpy float32 reference of the fold (per gradOutput row r of the H range, ascending:
the W range's left fold, added to an accumulator from +0), rounded once to fp16 / bf16 (nearest even); 1-D (one row per gradInput row)
and 2-D x1.5 (one or two rows), finite rows of normal / subnormal / -0 / huge gradients, and rows holding Inf / NaN
(redone by the general row: compared on the finite cells, NaN positions equal). The same bytes at every SIMD level
and for 1/2/7 threads."""
from helpers import run_python

CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import lib
rng = np.random.default_rng(15)
h = hashlib.sha256()

def src(in_len, out_len):  # nearest-exact: gradOutput position d reads input floor((d + 0.5) * in / out)
    r = np.float32(in_len) / np.float32(out_len)
    s = np.floor((np.arange(out_len, dtype=np.float32) + np.float32(0.5)) * r).astype(np.int64)
    return np.minimum(s, in_len - 1)

def to_bf16(a32):  # round to nearest even on the bits, a NaN quietened
    b = a32.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a32)
    r[nan] = ((b[nan] >> 16) | 0x40).astype(np.uint16)
    return r.view(pyaclnn.bfloat16)

def ref(g, isz):  # float32 fold, rounded once
    dt = g.dtype
    g = g.astype(np.float32)
    hi, wi = isz[-2], isz[-1]
    ho, wo = g.shape[-2], g.shape[-1]
    sh, sw = src(hi, ho), src(wi, wo)
    out = np.zeros(g.shape[:-2] + (hi, wi), np.float32)
    for i in range(hi):
        rows = np.nonzero(sh == i)[0]
        acc = np.zeros(g.shape[:-2] + (wi,), np.float32)
        for r in rows:
            x = g[..., r, :]
            for j in range(wi):
                cols = np.nonzero(sw == j)[0]
                if len(cols) == 0:
                    continue
                s = x[..., cols[0]]
                for t in cols[1:]:
                    s = s + x[..., t]
                acc[..., j] = acc[..., j] + s
        out[..., i, :] = acc
    return out.astype(np.float16) if dt == np.float16 else to_bf16(out)

def run(g, isz):
    if g.ndim == 3:
        op, fmt = "UpsampleNearestExact1dBackward", lib.ACL_FORMAT_NCL
        scales = (0.0,)
    else:
        op, fmt = "UpsampleNearestExact2dBackward", lib.ACL_FORMAT_NCHW
        scales = (0.0, 0.0)
    gt = pyaclnn.AclTensor.from_array(g, fmt)
    yt = pyaclnn.AclTensor.empty(tuple(isz), g.dtype, fmt)
    pyaclnn.launch(op, gt, pyaclnn.int_array(list(g.shape[2:])), pyaclnn.int_array(list(isz)), *scales, yt)
    return yt.numpy()

CASES = (((2, 3, 48), (2, 3, 32)), ((1, 4, 45), (1, 4, 31)), ((2, 2, 13), (2, 2, 9)),
         ((2, 3, 50), (2, 3, 33)), ((1, 2, 12, 48), (1, 2, 8, 32)), ((1, 3, 7, 23), (1, 3, 5, 15)))
for dt in (np.float16, pyaclnn.bfloat16):
    f16 = dt == np.float16
    for gshape, isz in CASES:
        g = (rng.standard_normal(gshape) * rng.choice([1e-6, 1e-3, 1, 1e4], gshape)).astype(np.float32).astype(dt)
        gb = g.view(np.uint16).reshape(-1)
        sub = rng.integers(1, 0x400 if f16 else 0x80, gb[1::13].size)
        gb[1::13] = sub | (rng.integers(0, 2, gb[1::13].size) << 15)  # subnormal
        gb[2::17] = 0x7bff if f16 else 0x7f7f  # the largest finite: pairs of them overflow to Inf
        gb[3::19] = 0xfbff if f16 else 0xff7f
        gb[4::23] = 0x8000  # -0 (a lone -0 sums to +0)
        y = run(g, isz)
        e = ref(g, isz)
        fin = np.isfinite(e.astype(np.float32))
        assert np.array_equal(y.view(np.uint16)[fin], e.view(np.uint16)[fin]), (dt, gshape, isz)
        assert np.array_equal(np.isnan(y.astype(np.float32)), np.isnan(e.astype(np.float32)))
        assert np.array_equal(y.view(np.uint16)[~fin], e.view(np.uint16)[~fin]) or not f16, (gshape, isz)
        h.update(y.tobytes())
        gb[5::41] = 0x7c00 if f16 else 0x7f80
        gb[6::43] = 0xfe05 if f16 else 0xffc5
        gb[7::47] = 0x7c01 if f16 else 0x7f81
        y = run(g, isz)
        e = ref(g, isz)
        fin = np.isfinite(e.astype(np.float32))
        assert np.array_equal(y.view(np.uint16)[fin], e.view(np.uint16)[fin]), (dt, gshape, isz)
        assert np.array_equal(np.isnan(y.astype(np.float32)), np.isnan(e.astype(np.float32)))
        h.update(y.tobytes())
print(h.hexdigest())
"""


def test_nearest_exact_backward_fp16_cell_table_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]
    outs = {t: run_python(CODE, {"OMP_NUM_THREADS": str(t), "PYACLNN_SIMD": "off"}) for t in (1, 2, 7)}
    assert outs[1] == outs[2] == outs[7]
