"""Cases for bench/run.py: aclnnUpsampleNearestExact2dBackward and the forward, against PyTorch CPU."""
import numpy as np

import common


def _np_dtype(name):
    import pyaclnn

    return {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": pyaclnn.bfloat16,
            "u8": np.dtype(np.uint8)}[name]


def _torch_dtype(torch, name):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "u8": torch.uint8}[name]


def backward(n, c, ho, wo, hi, wi, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        dtype = _np_dtype(dt)
        g = np.random.default_rng(0).standard_normal((n, c, ho, wo)).astype(dtype)
        gt = pyaclnn.AclTensor.from_array(g, lib.ACL_FORMAT_NCHW)
        yt = pyaclnn.AclTensor.empty((n, c, hi, wi), dtype, lib.ACL_FORMAT_NCHW)
        ours = common.op_runner("UpsampleNearestExact2dBackward", gt, pyaclnn.int_array([ho, wo]),
                                pyaclnn.int_array([n, c, hi, wi]), 0.0, 0.0, yt)
        torch = common.torch_or_none()
        tfn = None
        if torch is not None:
            tg = torch.from_numpy(g.astype(np.float32)).to(_torch_dtype(torch, dt))

            def tfn():
                torch.ops.aten._upsample_nearest_exact2d_backward(tg, [ho, wo], [n, c, hi, wi], None, None)

        return dict(ours=ours, torch=tfn, bytes=(n * c * (ho * wo + hi * wi)) * dtype.itemsize)

    return setup


def forward(n, c, hi, wi, ho, wo, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        dtype = _np_dtype(dt)
        x = (np.random.default_rng(0).standard_normal((n, c, hi, wi)) * 50).astype(dtype)
        xt = pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCHW)
        yt = pyaclnn.AclTensor.empty((n, c, ho, wo), dtype, lib.ACL_FORMAT_NCHW)
        ours = common.op_runner("UpsampleNearestExact2d", xt, pyaclnn.int_array([ho, wo]), 0.0, 0.0, yt)
        torch = common.torch_or_none()
        tfn = None
        if torch is not None:
            tx = torch.from_numpy(x.astype(np.float32)).to(_torch_dtype(torch, dt))

            def tfn():
                torch.ops.aten._upsample_nearest_exact2d(tx, [ho, wo], None, None)

        return dict(ours=ours, torch=tfn, bytes=(n * c * (ho * wo + hi * wi)) * dtype.itemsize)

    return setup


CASES = []
for _dt in ("f32", "f16", "bf16"):
    CASES.append((f"bwd {_dt} 8x64 128x128->64x64 (x2)", backward(8, 64, 128, 128, 64, 64, _dt)))
    CASES.append((f"bwd {_dt} 8x64 96x96->64x64 (x1.5)", backward(8, 64, 96, 96, 64, 64, _dt)))
for _dt in ("f32", "f16", "bf16", "u8"):
    CASES.append((f"fwd {_dt} 8x64 64x64->128x128 (x2)", forward(8, 64, 64, 64, 128, 128, _dt)))
    CASES.append((f"fwd {_dt} 8x64 64x64->96x96 (x1.5)", forward(8, 64, 64, 64, 96, 96, _dt)))
