"""The avg-pool case table shared by the forward and backward tests (benchdnn-style ids)."""
import numpy as np

# id: (input shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
# kernel/stride/padding are passed to the API as given: int -> length-1 array, list -> as is, None -> NULL.
CASES = {
    "n2c3_h7w9_k3s2p1": ((2, 3, 7, 9), [3], [2], [1], False, True, 0),
    "n2c3_h7w9_k3s2p1_ceil": ((2, 3, 7, 9), [3], [2], [1], True, True, 0),
    "n2c3_h7w9_k3s2p1_ceil_nopad": ((2, 3, 7, 9), [3], [2], [1], True, False, 0),
    "n2c3_h7w9_k3s2p1_nopad": ((2, 3, 7, 9), [3, 3], [2, 2], [1, 1], False, False, 0),
    "n1c2_h8w8_k2_snull": ((1, 2, 8, 8), [2], None, [0], False, True, 0),
    "n1c2_h8w8_k2_sempty": ((1, 2, 8, 8), [2, 2], [], [0, 0], False, True, 0),
    "n2c2_h9w7_kh3kw2_sh1sw2_ph1pw1": ((2, 2, 9, 7), [3, 2], [1, 2], [1, 1], False, True, 0),
    "n2c2_h9w7_kh3kw2_sh1sw2_ph1pw0_ceil_nopad": ((2, 2, 9, 7), [3, 2], [1, 2], [1, 0], True, False, 0),
    "n1c3_h6w10_k3s1p1_div5": ((1, 3, 6, 10), [3], [1], [1], False, True, 5),
    "n1c3_h6w10_k3s2p1_divm3": ((1, 3, 6, 10), [3], [2], [1], True, False, -3),
    "n1c2_h5w5_k5_global": ((1, 2, 5, 5), [5], None, [0], False, True, 0),
    "n2c2_h11w6_k4s3p2_ceil_nopad": ((2, 2, 11, 6), [4], [3], [2], True, False, 0),
    "n1c2_h3w5_k2s3p0_ceil": ((1, 2, 3, 5), [2], [3], [0], True, True, 0),
    "n1c1_h1w1_k1": ((1, 1, 1, 1), [1], [1], [0], False, True, 0),
    "c3_h7w9_k3s2p1_ncl": ((3, 7, 9), [3], [2], [1], False, True, 0),
    "c2_h6w5_kh2kw3_s1_p1_ceil_ncl": ((2, 6, 5), [2, 3], [1], [1], True, False, 0),
    "n4c16_h56w56_k3s2p1": ((4, 16, 56, 56), [3], [2], [1], False, True, 0),
    # large planes: the backward's generic (element-wise) path
    "n1c2_h100w90_k3s1p1_nopad": ((1, 2, 100, 90), [3], [1], [1], False, False, 0),
}


def expand(k, s, p):
    """(kh, kw), (sh, sw), (ph, pw) per SPEC 5.1."""
    kk = (k[0], k[1] if len(k) > 1 else k[0])
    ss = kk if not s else (s[0], s[1] if len(s) > 1 else s[0])
    pp = (p[0], p[1] if len(p) > 1 else p[0])
    return kk, ss, pp


def make_input(shape, dtype, seed=0):
    """Values in [-2, 2) rounded to dtype (the reference then reads exactly what the op reads)."""
    rng = np.random.default_rng(seed)
    return (rng.random(shape) * 4 - 2).astype(np.float32).astype(dtype)


def torch_args(k, s, p, div):
    """Arguments for torch's avg_pool2d / avg_pool2d_backward (divisor_override None for 0)."""
    kk, ss, pp = expand(k, s, p)
    return list(kk), list(ss), list(pp), (div if div else None)
