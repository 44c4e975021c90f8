"""3-D grid sampler forward/backward vs PyTorch CPU (aten grid_sampler_3d / grid_sampler_3d_backward)."""
import numpy as np

import pyaclnn
from common import op_runner, torch_or_none

_NP = {"f32": np.float32, "f16": np.float16, "bf16": pyaclnn.bfloat16}


def _setup(N, C, D, H, W, Do, Ho, Wo, im, dt, backward):
    def setup():
        rng = np.random.default_rng(0)
        dtype = _NP[dt]
        x = rng.standard_normal((N, C, D, H, W)).astype(np.float32)
        g = rng.uniform(-1.1, 1.1, (N, Do, Ho, Wo, 3)).astype(np.float32)
        go = rng.standard_normal((N, C, Do, Ho, Wo)).astype(np.float32)
        T = pyaclnn.AclTensor.from_array
        tx, tg, tgo = T(x.astype(dtype)), T(g.astype(dtype)), T(go.astype(dtype))
        torch = torch_or_none()
        item = np.dtype(dtype).itemsize
        tt = None
        if backward:
            gi, gg = pyaclnn.AclTensor.empty(x.shape, dtype), pyaclnn.AclTensor.empty(g.shape, dtype)
            ours = op_runner("GridSampler3DBackward", tgo, tx, tg, im, 0, False, pyaclnn.bool_array([True, True]),
                             gi, gg)
            nbytes = (2 * x.size + go.size + 2 * g.size) * item
            if torch is not None:
                a, b, c = (torch.from_numpy(v) for v in (go, x, g))
                tt = lambda: torch.ops.aten.grid_sampler_3d_backward(a, b, c, im, 0, False, [True, True])  # noqa
        else:
            out = pyaclnn.AclTensor.empty((N, C, Do, Ho, Wo), dtype)
            ours = op_runner("GridSampler3D", tx, tg, im, 0, False, out)
            nbytes = (x.size + go.size + g.size) * item
            if torch is not None:
                b, c = torch.from_numpy(x), torch.from_numpy(g)
                tt = lambda: torch.ops.aten.grid_sampler_3d(b, c, im, 0, False)  # noqa
        return dict(ours=ours, torch=tt, bytes=nbytes)

    return setup


CASES = []
_MODES = {0: "trilinear", 1: "nearest"}
for (N, C, D, H, W, Do, Ho, Wo) in [(2, 16, 16, 32, 32, 16, 32, 32), (1, 4, 32, 32, 32, 32, 32, 32)]:
    for im in (0, 1):
        for dt in (("f32", "f16") if im == 0 else ("f32",)):
            for bw in (True, False):
                name = f"{'bwd' if bw else 'fwd'} {_MODES[im]}/zeros {dt} N{N} C{C} {D}x{H}x{W}->{Do}x{Ho}x{Wo}"
                CASES.append((name, _setup(N, C, D, H, W, Do, Ho, Wo, im, dt, bw)))
