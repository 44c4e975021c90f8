"""The matmul family's GEMM engine vs PyTorch CPU (torch.matmul at the same thread count): a square 2048^3 fp32
product (the headline; GFLOP/s = 2*M*N*K / time, printed in the case name's row via the ms columns), fp16/bf16, a
transposed operand, llama-like shapes (a 4096x4096 weight against 1 and 32 tokens) and many small batched products."""
import numpy as np

import pyaclnn
from common import op_runner, torch_or_none

_NP = {"f32": np.float32, "f16": np.float16, "bf16": pyaclnn.bfloat16}
_TT = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}


def _setup(op, sa, sb, dt, trans_b=False):
    def setup():
        rng = np.random.default_rng(0)
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        torch = torch_or_none()
        ta = pyaclnn.AclTensor.from_array(a.astype(_NP[dt]))
        bb = b.astype(_NP[dt])
        if trans_b:  # B stored transposed (a (N, K) weight viewed as (K, N)), as in a linear layer
            bb = np.ascontiguousarray(bb.swapaxes(-1, -2)).swapaxes(-1, -2)
        tb = pyaclnn.AclTensor.from_array(bb)
        oshape = np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1])
        out = pyaclnn.AclTensor.empty(oshape, _NP[dt])
        ours = op_runner(op, ta, tb, out, 0)
        tt = None
        if torch is not None:
            x = torch.from_numpy(a).to(getattr(torch, _TT[dt]))
            y = torch.from_numpy(b).to(getattr(torch, _TT[dt]))
            if trans_b:
                y = y.transpose(-1, -2).contiguous().transpose(-1, -2)
            tt = lambda: torch.matmul(x, y)  # noqa: E731
        item = np.dtype(_NP[dt]).itemsize
        nbytes = (int(np.prod(sa)) + int(np.prod(sb)) + int(np.prod(oshape))) * item
        return dict(ours=ours, torch=tt, bytes=nbytes)

    return setup


CASES = [
    ("Mm f32 2048x2048x2048 (17.2 GFLOP)", _setup("Mm", (2048, 2048), (2048, 2048), "f32")),
    ("Mm f32 2048^3 B transposed", _setup("Mm", (2048, 2048), (2048, 2048), "f32", True)),
    ("Mm f16 1024^3", _setup("Mm", (1024, 1024), (1024, 1024), "f16")),
    ("Mm bf16 1024^3", _setup("Mm", (1024, 1024), (1024, 1024), "bf16")),
    ("Matmul f32 1x4096 @ 4096x4096^T (decode)", _setup("Matmul", (1, 4096), (4096, 4096), "f32", True)),
    ("Matmul f32 32x4096 @ 4096x4096^T (prefill)", _setup("Matmul", (32, 4096), (4096, 4096), "f32", True)),
    ("BatchMatMul f32 256 x (32x64 @ 64x32)", _setup("BatchMatMul", (256, 32, 64), (256, 64, 32), "f32")),
]
