"""AvgPool2d / AvgPool2dBackward vs PyTorch CPU: N=32, C=64, 56x56, (k3 s2 p1) and (k2 s2), fp32/fp16/bf16."""
import numpy as np

import common

SHAPE = (32, 64, 56, 56)
CONFIGS = {"k3s2p1": (3, 2, 1), "k2s2": (2, 2, 0)}
DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}


def _out_hw(h, k, s, p):
    return (h + 2 * p - k) // s + 1


def _setup(direction, cfg, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        k, s, p = CONFIGS[cfg]
        npdt = pyaclnn.bfloat16 if dt == "bf16" else np.dtype(DTYPES[dt])
        rng = np.random.default_rng(0)
        n, c, h, w = SHAPE
        oh, ow = _out_hw(h, k, s, p), _out_hw(w, k, s, p)
        x = rng.standard_normal(SHAPE).astype(np.float32).astype(npdt)
        g = rng.standard_normal((n, c, oh, ow)).astype(np.float32).astype(npdt)
        nchw = lib.ACL_FORMAT_NCHW
        K, S, P = pyaclnn.int_array([k, k]), pyaclnn.int_array([s, s]), pyaclnn.int_array([p, p])
        torch = common.torch_or_none()
        tdt = getattr(torch, DTYPES[dt]) if torch else None
        if direction == "fwd":
            xt = pyaclnn.AclTensor.from_array(x, nchw)
            yt = pyaclnn.AclTensor((n, c, oh, ow), npdt, fmt=nchw)
            ours = common.op_runner("AvgPool2d", xt, K, S, P, False, True, 0, 0, yt)
            tf = None
            if torch:
                tx = torch.from_numpy(x.astype(np.float32)).to(tdt)
                tf = lambda: torch.nn.functional.avg_pool2d(tx, k, s, p)  # noqa: E731
            nbytes = x.nbytes + g.nbytes
        else:
            gt = pyaclnn.AclTensor.from_array(g, nchw)
            st = pyaclnn.AclTensor(SHAPE, npdt, fmt=nchw)
            it = pyaclnn.AclTensor(SHAPE, npdt, fmt=nchw)
            ours = common.op_runner("AvgPool2dBackward", gt, st, K, S, P, False, True, 0, 0, it)
            tf = None
            if torch:
                tg = torch.from_numpy(g.astype(np.float32)).to(tdt)
                tx = torch.from_numpy(x.astype(np.float32)).to(tdt)
                tf = lambda: torch.ops.aten.avg_pool2d_backward(tg, tx, [k, k], [s, s], [p, p], False, True,  # noqa
                                                                None)
            nbytes = g.nbytes + x.nbytes
        return dict(ours=ours, torch=tf, bytes=nbytes)

    return setup


CASES = [(f"{d}_n32c64_h56w56_{cfg}_{dt}", _setup(d, cfg, dt))
         for d in ("bwd", "fwd") for cfg in CONFIGS for dt in DTYPES]
