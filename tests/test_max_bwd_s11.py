"""The max-pool backwards through their argmax (libsrc/kernels/pool3d.c bwd_dense_planes: the dense fp32 planes, the
sparse planes' summing and direct paths, the plain and non-temporal plane stores) against a literal reference: each
gradInput cell is 0 + the gradients naming it, in gradOutput's row-major order, added in float32 (np.add.at: one
addition at a time) and rounded once to the dtype. Planes whose indices name few cells many times come first in
every thread's block (the direct path's switch to the summing path), then planes of distinct cells and the real
forward's argmax; gradients with subnormal, largest, -0, +-Inf and NaN values (NaN compared by position), odd plane
sizes, int32 / int64 indices, strided views, gradInput sizes on both sides of the plain / streamed store limits.
The same bytes at every SIMD level and for 1 / 2 / 3 threads."""
from helpers import run_python

CODE = r"""
import hashlib, sys, numpy as np, pyaclnn
from pyaclnn import lib
sys.path.insert(0, "tests")
from reference.half import bf16_bits
from helpers import strided
rng = np.random.default_rng(13)
h = hashlib.sha256()
A = pyaclnn.int_array
BF = pyaclnn.bfloat16
F32, F16 = np.dtype(np.float32), np.dtype(np.float16)

def cast(a32, dt):
    return bf16_bits(a32).view(BF) if dt == BF else a32.astype(dt)

def grads(P, osz, dt):
    # (P, osz) gradients: normal values of three magnitudes, subnormal, the largest finite and -0 everywhere; +-Inf
    # and quiet / signalling NaNs in every fourth plane only (the others keep the NaN-free paths)
    g = cast((rng.standard_normal((P, osz)) * rng.choice([1e-6, 1.0, 1e3], (P, osz))).astype(np.float32), dt)
    wide = dt == F32
    b = g.view(np.uint32 if wide else np.uint16)
    f16 = dt == F16
    b[:, 1::11] = rng.integers(1, 0x800000 if wide else 0x400 if f16 else 0x80, b[:, 1::11].shape)
    b[:, 2::13] = 0x7f7fffff if wide else 0x7bff if f16 else 0x7f7f
    b[:, 4::17] = 0x80000000 if wide else 0x8000
    sp = b[1::4]
    sp[:, 5::29] = 0x7f800000 if wide else 0x7c00 if f16 else 0x7f80
    sp[:, 6::31] = 0xff800000 if wide else 0xfc00 if f16 else 0xff80
    sp[:, 7::23] = 0x7fc00123 if wide else 0x7e01 if f16 else 0x7fc1
    sp[:, 8::19] = 0xffa00005 if wide else 0xfd05 if f16 else 0xff85
    return g

def indices(P, osz, isz, lead):
    # the first `lead` planes of every quarter name 3 cells over and over, the rest distinct cells (sorted: the
    # argmax of windows in row-major order rises)
    idx = np.empty((P, osz), np.int64)
    for p in range(P):
        if p % max(P // 4, 1) < lead:
            idx[p] = rng.choice(rng.choice(isz, 3, replace=False), osz)
        else:
            idx[p] = np.sort(rng.choice(isz, osz, replace=False))
    return idx

def reference(g, idx, isz, dt):
    P = g.shape[0]
    e32 = np.zeros(P * isz, np.float32)
    np.add.at(e32, (np.arange(P)[:, None] * isz + idx).reshape(-1), g.astype(np.float32).reshape(-1))
    return e32, cast(e32, dt)

def check(y, e32, e, what):
    y = y.reshape(-1)
    fin = ~np.isnan(e32)
    bits = np.uint32 if y.dtype == F32 else np.uint16
    assert np.array_equal(y.view(bits)[fin], e.view(bits)[fin]), what
    assert np.array_equal(np.isnan(y.astype(np.float32)), ~fin), what
    h.update(y.tobytes())

def adaptive2d(shape, osize, dt, ity, lead, view=None):
    N, C, H, W = shape
    P, isz, osz = N * C, H * W, osize[0] * osize[1]
    g = grads(P, osz, dt)
    idx = indices(P, osz, isz, lead)
    oshape = (N, C) + tuple(osize)
    gy, ii = g.reshape(oshape), idx.reshape(oshape).astype(ity)
    gx = np.full(shape, 7, dt)
    if view:
        gy, ii, gx = strided(gy, view), strided(ii, view), strided(gx, view)
    gxt = pyaclnn.AclTensor.from_array(gx, lib.ACL_FORMAT_NCHW)
    pyaclnn.launch("AdaptiveMaxPool2dBackward", pyaclnn.AclTensor.from_array(gy, lib.ACL_FORMAT_NCHW),
                   pyaclnn.AclTensor.from_array(np.zeros(shape, dt), lib.ACL_FORMAT_NCHW),
                   pyaclnn.AclTensor.from_array(ii, lib.ACL_FORMAT_NCHW), gxt)
    check(gxt.numpy(), *reference(g, idx, isz, dt), ("adaptive2d", shape, osize, dt, ity, view))

def adaptive3d(shape, osize, dt, lead):
    N, C, D, H, W = shape
    P, isz, osz = N * C, D * H * W, int(np.prod(osize))
    g = grads(P, osz, dt)
    idx = indices(P, osz, isz, lead)
    oshape = (N, C) + tuple(osize)
    F = lib.ACL_FORMAT_NCDHW
    gxt = pyaclnn.AclTensor.empty(shape, dt, F)
    pyaclnn.launch("AdaptiveMaxPool3dBackward", pyaclnn.AclTensor.from_array(g.reshape(oshape), F),
                   pyaclnn.AclTensor.from_array(np.zeros(shape, dt), F),
                   pyaclnn.AclTensor.from_array(idx.reshape(oshape).astype(np.int32), F), gxt)
    check(gxt.numpy(), *reference(g, idx, isz, dt), ("adaptive3d", shape, osize, dt))

def maxpool2d(shape, view=None):
    # the dense fp32 planes (k3 s2 p1: one argmax per 4 cells, cells named up to 4 times) through the real forward
    N, C, H, W = shape
    F = lib.ACL_FORMAT_NCHW
    x = rng.standard_normal(shape).astype(np.float32)
    x[..., ::2, :] = np.round(x[..., ::2, :])  # ties: cells named by several windows
    oshape = (N, C, (H - 1) // 2 + 1, (W - 1) // 2 + 1)
    xt = pyaclnn.AclTensor.from_array(x, F)
    yt, it = pyaclnn.AclTensor.empty(oshape, F32, F), pyaclnn.AclTensor.empty(oshape, np.dtype(np.int32), F)
    pyaclnn.launch("MaxPool2dWithIndices", xt, A([3]), A([2]), A([1]), A([1]), False, yt, it)
    P, osz = N * C, oshape[2] * oshape[3]
    idx = it.numpy().reshape(P, osz).astype(np.int64)
    g = grads(P, osz, F32)
    gy, ii, gx = g.reshape(oshape), idx.reshape(oshape).astype(np.int32), np.full(shape, 7, F32)
    if view:
        gy, ii, gx = strided(gy, view), strided(ii, view), strided(gx, view)
    gxt = pyaclnn.AclTensor.from_array(gx, F)
    pyaclnn.launch("MaxPool2dWithIndicesBackward", pyaclnn.AclTensor.from_array(gy, F), xt,
                   pyaclnn.AclTensor.from_array(ii, F), A([3]), A([2]), A([1]), A([1]), False, gxt)
    check(gxt.numpy(), *reference(g, idx, H * W, F32), ("maxpool2d", shape, view))

for dt in (F16, BF, F32):
    for ity in (np.int64, np.int32):
        adaptive2d((4, 16, 56, 56), (7, 7), dt, ity, 2)
        adaptive2d((4, 16, 56, 56), (9, 9), dt, ity, 3)
    adaptive2d((2, 5, 41, 43), (10, 9), dt, np.int64, 1)
    adaptive2d((3, 4, 20, 24), (9, 9), dt, np.int64, 1)  # not sparse
    adaptive2d((2, 3, 33, 31), (5, 6), dt, np.int64, 1, "transpose")
    adaptive2d((2, 3, 33, 31), (5, 6), dt, np.int32, 1, "slice")
    adaptive3d((2, 8, 16, 56, 56), (4, 7, 7), dt, 1)
# gradInput past the plain / streamed store limits (8, 16, 32 MiB)
adaptive2d((32, 64, 64, 64), (7, 7), F16, np.int64, 2)  # 16.8 MB: sparse, plain stores, summing path
adaptive2d((40, 64, 64, 64), (9, 9), BF, np.int64, 2)  # 21 MB
adaptive2d((64, 64, 64, 64), (7, 7), F16, np.int64, 2)  # 33.6 MB: sparse, streamed
adaptive3d((4, 64, 16, 56, 56), (4, 7, 7), F32, 2)  # 51 MB fp32: sparse, streamed
maxpool2d((2, 3, 57, 55))
maxpool2d((3, 2, 30, 31), "transpose")
maxpool2d((32, 64, 56, 56))  # 25.7 MB fp32: dense, streamed
print(h.hexdigest())
"""


def test_max_pool_backward_planes_at_every_level_and_thread_count():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "avx512", "")}
    assert outs["off"] == outs["avx2"] == outs["avx512"] == outs[""]
    for t in (1, 2, 3):
        assert run_python(CODE, {"OMP_NUM_THREADS": str(t)}) == outs[""], t
