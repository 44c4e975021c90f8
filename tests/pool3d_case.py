"""AvgPool3d through the library against the rows rule (tests/reference/avg_pool3d.py), for the subprocess code of
the 3-d pooling bytes tests (they put tests/ on sys.path)."""
import numpy as np
import pyaclnn
from pyaclnn import lib
from reference.avg_pool3d import avg_pool3d_rows
from reference.half import bf16_bits

A = pyaclnn.int_array


def to_bf16(a32):
    return bf16_bits(a32).view(pyaclnn.bfloat16)


def ref(x, k, s, p, cip, div):
    """The rows rule's float32 result rounded once to x's dtype."""
    y = avg_pool3d_rows(x, k, s, p, cip, div)
    if x.dtype == np.float32:
        return y
    return y.astype(np.float16) if x.dtype == np.float16 else to_bf16(y)


def run(x, k, s, p, cip, div):
    """aclnnAvgPool3d (no ceil mode) on x, NCDHW."""
    ins = x.shape[2:]
    outs = tuple((ins[a] + 2 * p[a] - k[a]) // s[a] + 1 for a in range(3))
    xt = pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCDHW)
    yt = pyaclnn.AclTensor.empty(x.shape[:2] + outs, x.dtype, lib.ACL_FORMAT_NCDHW)
    pyaclnn.launch("AvgPool3d", xt, A(k), A(s), A(p), False, cip, div, yt)
    return yt.numpy()
