"""Literal float64 loop reference of three_interpolate backward (aclnnThreeInterpolateBackward). Never imports
pyaclnn. grad_y[b, c, idx[b, n, i]] += grad_x[b, c, n] * weight[b, n, i]; an index outside [0, m) is skipped."""
import numpy as np


def three_interpolate_backward_ref(grad_x, idx, weight, m):
    gx = np.asarray(grad_x, np.float64)
    B, C, N = gx.shape
    out = np.zeros((B, C, m))
    for b in range(B):
        for c in range(C):
            for n in range(N):
                for i in range(3):
                    j = int(idx[b, n, i])
                    if 0 <= j < m:
                        out[b, c, j] += gx[b, c, n] * float(weight[b, n, i])
    return out
