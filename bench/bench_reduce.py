"""The reduction engine vs PyTorch CPU: ReduceSum over the last dim and over all dims of a 64 MiB fp32 tensor, and
an fp16 last-dim sum."""
import numpy as np

import common


def _setup(kind):
    def setup():
        import pyaclnn

        rng = np.random.default_rng(0)
        torch = common.torch_or_none()
        dt = np.float16 if kind == "last_f16" else np.float32
        x = rng.standard_normal((4096, (64 << 20) // 4 // 4096)).astype(dt)
        dims = [1] if kind.startswith("last") else [0, 1]
        oshape = (4096,) if kind.startswith("last") else ()
        xt = pyaclnn.AclTensor.from_array(x)
        ot = pyaclnn.AclTensor(oshape, dt)
        acl_dt = 1 if dt == np.float16 else 0  # ACL_FLOAT16 / ACL_FLOAT: out's dtype must be the dtype argument
        ours = common.op_runner("ReduceSum", xt, pyaclnn.int_array(dims), False, acl_dt, ot)
        tf = None
        if torch:
            tx = torch.from_numpy(x)
            tf = (lambda: tx.sum(1)) if kind.startswith("last") else (lambda: tx.sum())
        return dict(ours=ours, torch=tf, bytes=x.nbytes)

    return setup


CASES = [(f"sum_64MiB_{k}", _setup(k)) for k in ("last_f32", "all_f32", "last_f16")]
