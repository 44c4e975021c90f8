"""Max-pool forwards whose windows share rows (kernel = stride in W, and the adaptive windows): each position's best
down the window's rows, then each window's pick - the per-cell scan's choice. Checked against a literal numpy scan
(taps in (h, w) order, a tap wins if it is greater or NaN; output the winner's own bits, its flat index), with ties
everywhere, NaNs of distinct payloads (signalling, quiet, sign set) and all -inf windows, for fp32 / fp16 / bf16 and
a strided view of the same values."""
import numpy as np
import pytest

import pyaclnn
from test_nn_pool import adaptive_max_pool2d


def adaptive_range(o, n, out):
    return (o * n) // out, -(-((o + 1) * n) // out)


def ref(x, osz):
    N, C, H, W = x.shape
    xf = x.astype(np.float32)
    y = np.zeros((N, C) + osz, x.dtype)
    ind = np.zeros((N, C) + osz, np.int64)
    for n in range(N):
        for c in range(C):
            for oh in range(osz[0]):
                h0, h1 = adaptive_range(oh, H, osz[0])
                for ow in range(osz[1]):
                    w0, w1 = adaptive_range(ow, W, osz[1])
                    m, bh, bw = -np.inf, h0, w0
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            v = xf[n, c, h, w]
                            if v > m or v != v:
                                m, bh, bw = v, h, w
                    y[n, c, oh, ow] = x[n, c, bh, bw]
                    ind[n, c, oh, ow] = bh * W + bw
    return y, ind


@pytest.mark.parametrize("dt", [np.float32, np.float16, "bf16"])
def test_shared_row_windows_pick_as_the_per_cell_scan(dt):
    dt = pyaclnn.bfloat16 if dt == "bf16" else np.dtype(dt)
    rng = np.random.default_rng(3)
    for (H, W, osz) in ((16, 16, (4, 4)), (12, 24, (3, 6)), (10, 14, (5, 7)), (14, 14, (3, 3)), (9, 20, (4, 6))):
        for trial in range(4):
            x = rng.integers(-2, 2, (2, 2, H, W)).astype(np.float32)
            if trial == 3:
                x[:] = -np.inf
            xd = x.astype(dt)
            bits = xd.view(np.uint16 if xd.itemsize == 2 else np.uint32)
            if trial in (1, 2):  # NaNs with distinct payloads, some signalling, some negative
                m = rng.random(x.shape) < (0.05 if trial == 1 else 0.3)
                k = int(m.sum())
                if xd.itemsize == 4:
                    pay = 0x7f800001 + rng.integers(0, 1 << 22, k)
                    bits[m] = (pay | (rng.integers(0, 2, k) << 31)).astype(np.uint32)
                else:
                    e = 0x7c00 if dt == np.float16 else 0x7f80
                    pay = e + 1 + rng.integers(0, (0x3ff if dt == np.float16 else 0x7f) - 1, k)
                    bits[m] = (pay | (rng.integers(0, 2, k) << 15)).astype(np.uint16)
            ey, ei = ref(xd, osz)
            for view in (xd, np.lib.stride_tricks.as_strided(np.repeat(xd, 2, axis=3), xd.shape,
                                                             (xd.strides[0] * 2, xd.strides[1] * 2,
                                                              xd.strides[2] * 2, xd.strides[3] * 2))):
                y, i = adaptive_max_pool2d(view, osz, np.zeros((2, 2) + osz, xd.dtype), np.zeros((2, 2) + osz, np.int64))
                assert np.array_equal(i, ei), (H, W, osz, trial)
                assert y.tobytes() == ey.tobytes(), (H, W, osz, trial)
