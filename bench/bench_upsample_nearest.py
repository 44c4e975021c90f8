"""Cases for bench/run.py: the nearest family beyond the seeds (aclnnUpsampleNearest1d/2d forward, the 1-D / 2-D
backward ops), against PyTorch CPU."""
import numpy as np

import common

_NP = {"f32": np.float32, "f16": np.float16, "f64": np.float64}


def _dtype(dt):
    import pyaclnn

    return pyaclnn.bfloat16 if dt == "bf16" else np.dtype(_NP[dt])


def _tdtype(torch, dt):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}[dt]


def bwd2d(n, c, ho, wo, hi, wi, sh, sw, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        dtype = _dtype(dt)
        g = np.random.default_rng(0).standard_normal((n, c, ho, wo)).astype(dtype)
        gt = pyaclnn.AclTensor.from_array(g, lib.ACL_FORMAT_NCHW)
        yt = pyaclnn.AclTensor.empty((n, c, hi, wi), dtype, lib.ACL_FORMAT_NCHW)
        ours = common.op_runner("UpsampleNearest2dBackward", gt, pyaclnn.int_array([ho, wo]),
                                pyaclnn.int_array([n, c, hi, wi]), sh, sw, yt)
        torch = common.torch_or_none()
        tfn = None
        if torch is not None:
            tg = torch.from_numpy(g.astype(np.float32)).to(_tdtype(torch, dt))

            def tfn():
                torch.ops.aten.upsample_nearest2d_backward(tg, [ho, wo], [n, c, hi, wi], sh or None, sw or None)

        return dict(ours=ours, torch=tfn, bytes=(n * c * (ho * wo + hi * wi)) * dtype.itemsize)

    return setup


def bwd1d(op, n, c, lo, li, sc, dt):
    def setup():
        import pyaclnn

        dtype = _dtype(dt)
        g = np.random.default_rng(0).standard_normal((n, c, lo)).astype(dtype)
        gt = pyaclnn.AclTensor.from_array(g)
        yt = pyaclnn.AclTensor.empty((n, c, li), dtype)
        ours = common.op_runner(op, gt, pyaclnn.int_array([lo]), pyaclnn.int_array([n, c, li]), sc, yt)
        torch = common.torch_or_none()
        tfn = None
        if torch is not None:
            tg = torch.from_numpy(g.astype(np.float32)).to(_tdtype(torch, dt))
            f = torch.ops.aten.upsample_nearest1d_backward if op == "UpsampleNearest1dBackward" else \
                torch.ops.aten._upsample_nearest_exact1d_backward

            def tfn():
                f(tg, [lo], [n, c, li], sc or None)

        return dict(ours=ours, torch=tfn, bytes=(n * c * (lo + li)) * dtype.itemsize)

    return setup


def bwd3d(op, n, c, osz, isz, sc, dt):
    def setup():
        import pyaclnn

        dtype = _dtype(dt)
        g = np.random.default_rng(0).standard_normal((n, c) + osz).astype(dtype)
        gt = pyaclnn.AclTensor.from_array(g)
        yt = pyaclnn.AclTensor.empty((n, c) + isz, dtype)
        ours = common.op_runner(op, gt, pyaclnn.int_array(list(osz)), pyaclnn.int_array([n, c, *isz]), *sc, yt)
        torch = common.torch_or_none()
        tfn = None
        if torch is not None:
            tg = torch.from_numpy(g.astype(np.float32)).to(_tdtype(torch, dt))
            f = torch.ops.aten.upsample_nearest3d_backward if op == "UpsampleNearest3dBackward" else \
                torch.ops.aten._upsample_nearest_exact3d_backward

            def tfn():
                f(tg, list(osz), [n, c, *isz], *[s or None for s in sc])

        return dict(ours=ours, torch=tfn, bytes=(n * c * (int(np.prod(osz)) + int(np.prod(isz)))) * dtype.itemsize)

    return setup


def fwd3d(n, c, isz, osz, dt):
    def setup():
        import pyaclnn

        dtype = _dtype(dt)
        x = np.random.default_rng(0).standard_normal((n, c) + isz).astype(dtype)
        xt = pyaclnn.AclTensor.from_array(x)
        yt = pyaclnn.AclTensor.empty((n, c) + osz, dtype)
        ours = common.op_runner("UpsampleNearest3d", xt, pyaclnn.int_array(list(osz)), 0.0, 0.0, 0.0, yt)
        torch = common.torch_or_none()
        tfn = None
        if torch is not None:
            tx = torch.from_numpy(x.astype(np.float32)).to(_tdtype(torch, dt))

            def tfn():
                torch.ops.aten.upsample_nearest3d(tx, list(osz), None, None, None)

        return dict(ours=ours, torch=tfn, bytes=(n * c * (int(np.prod(osz)) + int(np.prod(isz)))) * dtype.itemsize)

    return setup


def fwd2d(n, c, hi, wi, ho, wo, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        dtype = _dtype(dt)
        x = np.random.default_rng(0).standard_normal((n, c, hi, wi)).astype(dtype)
        xt = pyaclnn.AclTensor.from_array(x, lib.ACL_FORMAT_NCHW)
        yt = pyaclnn.AclTensor.empty((n, c, ho, wo), dtype, lib.ACL_FORMAT_NCHW)
        ours = common.op_runner("UpsampleNearest2d", xt, pyaclnn.int_array([ho, wo]), yt)
        torch = common.torch_or_none()
        tfn = None
        if torch is not None:
            tx = torch.from_numpy(x.astype(np.float32)).to(_tdtype(torch, dt))

            def tfn():
                torch.ops.aten.upsample_nearest2d(tx, [ho, wo], None, None)

        return dict(ours=ours, torch=tfn, bytes=(n * c * (ho * wo + hi * wi)) * dtype.itemsize)

    return setup


CASES = []
for _dt in ("f32", "f16", "bf16"):
    CASES.append((f"nearest2d bwd {_dt} 8x64 128x128->64x64 (x2)", bwd2d(8, 64, 128, 128, 64, 64, 2.0, 2.0, _dt)))
    CASES.append((f"nearest2d bwd {_dt} 8x64 96x96->64x64 (sizes)", bwd2d(8, 64, 96, 96, 64, 64, 0.0, 0.0, _dt)))
    CASES.append((f"nearest1d bwd {_dt} 8x512 2048->1024 (x2)",
                  bwd1d("UpsampleNearest1dBackward", 8, 512, 2048, 1024, 2.0, _dt)))
    CASES.append((f"nearest-exact1d bwd {_dt} 8x512 1536->1024",
                  bwd1d("UpsampleNearestExact1dBackward", 8, 512, 1536, 1024, 0.0, _dt)))
CASES.append(("nearest1d bwd f64 8x512 2048->1024 (x2)", bwd1d("UpsampleNearest1dBackward", 8, 512, 2048, 1024, 2.0,
                                                             "f64")))
for _dt in ("f32", "f16"):
    CASES.append((f"nearest2d fwd {_dt} 8x64 64x64->128x128 (x2)", fwd2d(8, 64, 64, 64, 128, 128, _dt)))
    CASES.append((f"nearest2d fwd {_dt} 8x64 64x64->96x96 (x1.5)", fwd2d(8, 64, 64, 64, 96, 96, _dt)))
for _dt in ("f32", "bf16"):
    CASES.append((f"nearest3d bwd {_dt} 2x32 32x64x64->16x32x32 (x2)",
                  bwd3d("UpsampleNearest3dBackward", 2, 32, (32, 64, 64), (16, 32, 32), (2.0, 2.0, 2.0), _dt)))
    CASES.append((f"nearest-exact3d bwd {_dt} 2x32 24x48x48->16x32x32",
                  bwd3d("UpsampleNearestExact3dBackward", 2, 32, (24, 48, 48), (16, 32, 32), (0.0, 0.0, 0.0), _dt)))
CASES.append(("nearest3d fwd f32 2x32 16x32x32->32x64x64 (x2)", fwd3d(2, 32, (16, 32, 32), (32, 64, 64), "f32")))
