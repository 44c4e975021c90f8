"""The elementwise engine vs PyTorch CPU: aclnnAdd on 64 MiB fp32 operands (contiguous, broadcast row, strided
view), fp16, bf16, int32, and the mixed-dtype path (fp16 + fp32 -> fp32)."""
import numpy as np

import common

N = (64 << 20) // 4  # 64 MiB of fp32 per operand


def _setup(kind):
    def setup():
        import pyaclnn
        from pyaclnn.ops.table import make_scalar

        rng = np.random.default_rng(0)
        torch = common.torch_or_none()
        one = make_scalar(1)
        rows, cols = N // 4096, 4096
        if kind in ("f32", "f16", "i32"):
            dt = {"f32": np.float32, "f16": np.float16, "i32": np.int32}[kind]
            a = (rng.standard_normal(N) * 100).astype(dt)
            b = (rng.standard_normal(N) * 100).astype(dt)
            tf = (lambda ta=torch.from_numpy(a), tb=torch.from_numpy(b): torch.add(ta, tb)) if torch else None
            out_shape, odt = a.shape, dt
        elif kind == "bf16":
            a = (rng.standard_normal(N) * 100).astype(np.float32).astype(pyaclnn.bfloat16)
            b = (rng.standard_normal(N) * 100).astype(np.float32).astype(pyaclnn.bfloat16)
            tf = None
            if torch:
                ta = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
                tb = torch.from_numpy(b.view(np.int16)).view(torch.bfloat16)
                tf = lambda ta=ta, tb=tb: torch.add(ta, tb)
            out_shape, odt = a.shape, a.dtype
        elif kind == "mixed_f16_f32":
            a = rng.standard_normal(N).astype(np.float16)
            b = rng.standard_normal(N).astype(np.float32)
            tf = (lambda ta=torch.from_numpy(a), tb=torch.from_numpy(b): torch.add(ta, tb)) if torch else None
            out_shape, odt = a.shape, np.float32
        elif kind == "bcast_row":
            a = rng.standard_normal((rows, cols)).astype(np.float32)
            b = rng.standard_normal(cols).astype(np.float32)
            tf = (lambda ta=torch.from_numpy(a), tb=torch.from_numpy(b): torch.add(ta, tb)) if torch else None
            out_shape, odt = a.shape, np.float32
        else:  # strided: every other column of a (rows, 2*cols) array
            big = rng.standard_normal((rows // 2, 2 * cols)).astype(np.float32)
            a = big[:, ::2]
            b = rng.standard_normal((rows // 2, cols)).astype(np.float32)
            tf = (lambda ta=torch.from_numpy(big)[:, ::2], tb=torch.from_numpy(b): torch.add(ta, tb)) if torch else None
            out_shape, odt = b.shape, np.float32
        at, bt = pyaclnn.AclTensor.from_array(a), pyaclnn.AclTensor.from_array(b)
        ot = pyaclnn.AclTensor(out_shape, odt)
        ours = common.op_runner("Add", at, bt, one, ot)
        nbytes = a.nbytes + b.nbytes + int(np.prod(out_shape)) * np.dtype(odt).itemsize
        return dict(ours=ours, torch=tf, bytes=nbytes)

    return setup


CASES = [(f"add_64MiB_{k}", _setup(k)) for k in ("f32", "f16", "bf16", "i32", "mixed_f16_f32", "bcast_row", "strided")]
