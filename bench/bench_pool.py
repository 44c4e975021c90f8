"""AdaptiveAvgPool2d / AdaptiveAvgPool2dBackward vs PyTorch CPU: N=32, C=64, 56x56 -> 7x7 and -> 9x9 (overlapping
windows), fp32/fp16/bf16."""
import numpy as np

import common

SHAPE = (32, 64, 56, 56)
OUTS = {"o7": (7, 7), "o9": (9, 9)}
DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}


def _setup(direction, cfg, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        oh, ow = OUTS[cfg]
        npdt = pyaclnn.bfloat16 if dt == "bf16" else np.dtype(DTYPES[dt])
        rng = np.random.default_rng(0)
        n, c, h, w = SHAPE
        x = rng.standard_normal(SHAPE).astype(np.float32).astype(npdt)
        g = rng.standard_normal((n, c, oh, ow)).astype(np.float32).astype(npdt)
        nchw = lib.ACL_FORMAT_NCHW
        torch = common.torch_or_none()
        tdt = getattr(torch, DTYPES[dt]) if torch else None
        if direction == "fwd":
            xt = pyaclnn.AclTensor.from_array(x, nchw)
            yt = pyaclnn.AclTensor((n, c, oh, ow), npdt, fmt=nchw)
            ours = common.op_runner("AdaptiveAvgPool2d", xt, pyaclnn.int_array([oh, ow]), yt)
            tf = None
            if torch:
                tx = torch.from_numpy(x.astype(np.float32)).to(tdt)
                tf = lambda: torch.nn.functional.adaptive_avg_pool2d(tx, (oh, ow))  # noqa: E731
        else:
            gt = pyaclnn.AclTensor.from_array(g, nchw)
            st = pyaclnn.AclTensor(SHAPE, npdt, fmt=nchw)
            it = pyaclnn.AclTensor(SHAPE, npdt, fmt=nchw)
            ours = common.op_runner("AdaptiveAvgPool2dBackward", gt, st, it)
            tf = None
            if torch:
                tg = torch.from_numpy(g.astype(np.float32)).to(tdt)
                tx = torch.from_numpy(x.astype(np.float32)).to(tdt)
                tf = lambda: torch.ops.aten._adaptive_avg_pool2d_backward(tg, tx)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=x.nbytes + g.nbytes)

    return setup


CASES = [(f"adaptive_{d}_n32c64_h56w56_{cfg}_{dt}", _setup(d, cfg, dt))
         for d in ("bwd", "fwd") for cfg in OUTS for dt in DTYPES]


def _setup_max(direction, cfg, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        oh, ow = OUTS[cfg]
        npdt = pyaclnn.bfloat16 if dt == "bf16" else np.dtype(DTYPES[dt])
        rng = np.random.default_rng(0)
        n, c, h, w = SHAPE
        x = rng.standard_normal(SHAPE).astype(np.float32).astype(npdt)
        g = rng.standard_normal((n, c, oh, ow)).astype(np.float32).astype(npdt)
        nchw = lib.ACL_FORMAT_NCHW
        torch = common.torch_or_none()
        tdt = getattr(torch, DTYPES[dt]) if torch else None
        xt = pyaclnn.AclTensor.from_array(x, nchw)
        yt = pyaclnn.AclTensor((n, c, oh, ow), npdt, fmt=nchw)
        it = pyaclnn.AclTensor((n, c, oh, ow), np.dtype(np.int64), fmt=nchw)
        tx = torch.from_numpy(x.astype(np.float32)).to(tdt) if torch else None
        if direction == "fwd":
            ours = common.op_runner("AdaptiveMaxPool2d", xt, pyaclnn.int_array([oh, ow]), yt, it)
            tf = (lambda: torch.nn.functional.adaptive_max_pool2d(tx, (oh, ow), True)) if torch else None
        else:
            common.op_runner("AdaptiveMaxPool2d", xt, pyaclnn.int_array([oh, ow]), yt, it)()
            gt = pyaclnn.AclTensor.from_array(g, nchw)
            gx = pyaclnn.AclTensor(SHAPE, npdt, fmt=nchw)
            ours = common.op_runner("AdaptiveMaxPool2dBackward", gt, xt, it, gx)
            tf = None
            if torch:
                _, ti = torch.nn.functional.adaptive_max_pool2d(tx, (oh, ow), True)
                tg = torch.from_numpy(g.astype(np.float32)).to(tdt)
                tf = lambda: torch.ops.aten.adaptive_max_pool2d_backward(tg, tx, ti)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=x.nbytes + g.nbytes)

    return setup


CASES += [(f"adaptive_max_{d}_n32c64_h56w56_{cfg}_{dt}", _setup_max(d, cfg, dt))
          for d in ("bwd", "fwd") for cfg in OUTS for dt in DTYPES]
