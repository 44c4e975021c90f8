"""Literal float64 loop reference of col2im (aclnnIm2colBackward, torch.nn.functional.fold). Never imports
pyaclnn. cols [N, C*kh*kw, L] -> [N, C, H, W]: every column entry is added to the input pixel its kernel tap
covers (taps outside the padded image are dropped)."""
import numpy as np


def col2im_ref(cols, size, kernel, dilation, padding, stride):
    cols = np.asarray(cols, np.float64)
    N, CK, L = cols.shape
    H, W = size
    kh, kw = kernel
    C = CK // (kh * kw)
    lh = (H + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    lw = (W + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    assert lh * lw == L
    out = np.zeros((N, C, H, W))
    for n in range(N):
        for c in range(C):
            for ki in range(kh):
                for kj in range(kw):
                    row = (c * kh + ki) * kw + kj
                    for oh in range(lh):
                        for ow in range(lw):
                            h = oh * stride[0] - padding[0] + ki * dilation[0]
                            w = ow * stride[1] - padding[1] + kj * dilation[1]
                            if 0 <= h < H and 0 <= w < W:
                                out[n, c, h, w] += cols[n, row, oh * lw + ow]
    return out
