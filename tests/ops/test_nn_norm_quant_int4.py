"""AddRmsNormDynamicQuantV2 with INT4 y outputs (the A2 table lists INT8 and INT4): two int4 per byte, the element
of even index in the low nibble, each the dynamic per-row quantisation with qmax 7 saturated to [-8, 7]. Values
against a float64 PyTorch reference for f16/bf16 inputs and every outputMask form; INT4 tensors are built at the C
level (numpy has no int4): a contiguous view, or one starting at a byte inside a larger allocation. Invalid rows: an
odd last dim, a non-contiguous or half-byte INT4 view, dtype mixes."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.lowlevel import AclTensor
from helpers import run_executor, ws_call
from table_harness import NP, expect_status
from test_nn_norm_quant import HALF, add_rms_ref, assert_quant, rnd, strided

OP = "AddRmsNormDynamicQuantV2"
_KEEP = []


class Int4:
    """An INT4 aclTensor over nbytes of device memory (filled with 0x99), its view starting `offset` int4 values in."""

    def __init__(self, shape, strides=None, offset=0, extra=0):
        n = int(np.prod(shape))
        self.nbytes = (offset + n + 1) // 2 + extra
        self.buf = pyaclnn.DeviceBuffer(self.nbytes)
        self.buf.upload(np.full(self.nbytes, 0x99, np.uint8))
        if strides is None:
            strides, acc = [], 1
            for d in reversed(shape):
                strides.append(acc)
                acc *= d
            strides = list(reversed(strides))
        h = lib.aclCreateTensor(ffi.new("int64_t[]", list(shape)), len(shape), lib.ACL_INT4,
                                ffi.new("int64_t[]", list(strides)), offset, lib.ACL_FORMAT_ND,
                                ffi.new("int64_t[]", [offset + n]), 1, self.buf.ptr)
        self.handle = ffi.gc(h, lib.aclDestroyTensor)
        self.offset = offset
        _KEEP.append(self)

    def raw(self):
        b = np.empty(self.nbytes, np.uint8)
        self.buf.download(b)
        return b

    def values(self, n):
        """the n int4 values of the view, sign-extended"""
        b = self.raw()
        nib = np.stack([b & 0xF, b >> 4], -1).reshape(-1).astype(np.int64)
        nib = nib[self.offset:self.offset + n]
        return np.where(nib > 7, nib - 16, nib)


def dev(a):
    t = AclTensor.from_array(np.ascontiguousarray(a) if a.ndim == 0 else a)
    _KEEP.append(t)
    return t


def h(args):
    """Int4 tensors as their handles"""
    return [a.handle if isinstance(a, Int4) else a for a in args]


def run(args):
    rc, ws, ex, msg = ws_call(OP, *h(args))
    assert rc == 0, msg
    assert run_executor(OP, ex, ws) == 0


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("mask,nsmooth", [(None, 2), (None, 0), ((True, True), 0), ((False, True), 0),
                                          ((True, False), 1)])
def test_int4_outputs(torch, dt, mask, nsmooth):
    rng = np.random.default_rng(11)
    shape = (2, 3, 16)
    n = int(np.prod(shape))
    x1, x2, g = rnd(rng, shape, dt), rnd(rng, shape, dt), rnd(rng, (16,), dt, 0.5, 1.5)
    b = rnd(rng, (16,), dt, -0.5, 0.5)
    sm = [rnd(rng, (16,), dt, 0.5, 2.0) for _ in range(nsmooth)] + [None] * (2 - nsmooth)
    y1, y2 = Int4(shape), Int4(shape, offset=6, extra=3)  # y2 starts 3 bytes into its allocation
    xo = dev(np.zeros(shape, NP[dt]))
    s1, s2 = dev(np.full((2, 3), -1, np.float32)), dev(np.full((2, 3), -1, np.float32))
    m = pyaclnn.tensor.bool_array(list(mask)) if mask is not None else None
    run([dev(x1), dev(strided(x2)), dev(g), dev(sm[0]) if sm[0] is not None else None,
         dev(sm[1]) if sm[1] is not None else None, dev(b), 1e-6, m, y1, y2, xo, s1, s2])
    xs, y = add_rms_ref(torch, x1, x2, g, b)
    np.testing.assert_array_equal(xo.numpy(), xs.astype(NP[dt]))
    out = [mask[0], mask[1]] if mask is not None else [True, nsmooth == 2]
    for k, (yk, sk) in enumerate(((y1, s1), (y2, s2))):
        raw = yk.raw()
        if not out[k]:
            assert np.all(raw == 0x99) and np.all(sk.numpy() == -1)
            continue
        v = y * (sm[k].astype(np.float64) if sm[k] is not None else 1.0)
        es = np.abs(v).max(-1, keepdims=True) / 7.0
        np.testing.assert_allclose(sk.numpy(), es[..., 0].astype(np.float32), rtol=1.3e-6)
        q = yk.values(n).reshape(shape)
        assert_quant(q, v / es, -8, 7)
        assert np.any(q == 7) or np.any(q == -7)
        # nothing outside the view's bytes is written
        first, last = yk.offset // 2, (yk.offset + n) // 2
        assert np.all(raw[:first] == 0x99) and np.all(raw[last:] == 0x99)


def test_int4_saturation_and_nan():
    """max|v| / 7 scales every row into [-7, 7]; a NaN row quantises to 0 (the kernels' NaN rule)."""
    x1 = np.zeros((2, 4), np.float16)
    x1[0] = [1, -2, 3, -4]
    x1[1] = [np.nan, 1, 1, 1]
    y = Int4((2, 4))
    run([dev(x1), dev(np.zeros((2, 4), np.float16)), dev(np.ones(4, np.float16)), None, None, None, 1e-6, None,
         y, None, dev(np.zeros((2, 4), np.float16)), dev(np.zeros(2, np.float32)), None])
    q = y.values(8).reshape(2, 4)
    np.testing.assert_array_equal(q[0], [2, -4, 5, -7])  # 7/4 * [1, -2, 3, -4] rounded half to even
    np.testing.assert_array_equal(q[1], [0, 0, 0, 0])


def test_int4_invalid():
    x, g, s = dev(np.zeros((2, 8), np.float16)), dev(np.zeros(8, np.float16)), dev(np.zeros(2, np.float32))
    ok = [x, x, g, None, None, None, 1e-6, None, Int4((2, 8)), None, x, s, None]
    expect_status(OP, h(ok), 0)

    def row(i, v, code, word, base=ok):
        a = list(base)
        a[i] = v
        expect_status(OP, h(a), code, word)

    row(8, Int4((2, 4)), 161002, "y1Out")                       # INT4 keeps x1's shape (INT32 would be /8)
    ba = pyaclnn.tensor.bool_array
    both = ok[:7] + [ba([True, True])] + ok[8:11] + [s, s]
    row(9, dev(np.zeros((2, 8), np.int8)), 161002, "y2Out", both)   # y1 INT4, y2 INT8
    both[9] = Int4((2, 8))
    expect_status(OP, h(both), 0)
    row(8, Int4((2, 8), strides=(16, 2), extra=8), 161002, "y1Out")  # not contiguous
    row(8, Int4((2, 8), offset=1, extra=1), 161002, "y1Out")         # starts inside a byte
    x7, g7 = dev(np.zeros((2, 7), np.float16)), dev(np.zeros(7, np.float16))
    expect_status(OP, h([x7, x7, g7, None, None, None, 1e-6, None, Int4((2, 7), extra=1), None, x7, s, None]),
                  561002, "x1")                                          # the doc: x1's last dim even for INT4
