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


def _setup_window(op, direction):
    """MaxPool2dWithIndices (k3 s2 p1, N32 C64 56x56, f32 - the backward's only A2 dtype) and AvgPool3d
    (k3 s2 p1, N4 C64 16x56x56, f32) vs torch max_pool2d / avg_pool3d and their backwards."""
    def setup():
        import pyaclnn
        from pyaclnn import lib

        torch = common.torch_or_none()
        rng = np.random.default_rng(0)
        A = pyaclnn.int_array
        if op == "max2d":
            shape, oshape, fmt = SHAPE, (32, 64, 28, 28), lib.ACL_FORMAT_NCHW
        else:
            shape, oshape, fmt = (4, 64, 16, 56, 56), (4, 64, 8, 28, 28), lib.ACL_FORMAT_NCDHW
        x = rng.standard_normal(shape).astype(np.float32)
        g = rng.standard_normal(oshape).astype(np.float32)
        xt = pyaclnn.AclTensor.from_array(x, fmt)
        yt = pyaclnn.AclTensor(oshape, np.dtype(np.float32), fmt=fmt)
        tx = torch.from_numpy(x) if torch else None
        tg = torch.from_numpy(g) if torch else None
        if op == "max2d":
            it = pyaclnn.AclTensor(oshape, np.dtype(np.int32), fmt=fmt)
            fwd = common.op_runner("MaxPool2dWithIndices", xt, A([3]), A([2]), A([1]), A([1]), False, yt, it)
            if direction == "fwd":
                ours = fwd
                tf = (lambda: torch.nn.functional.max_pool2d(tx, 3, 2, 1, return_indices=True)) if torch else None
            else:
                fwd()
                gt, gx = pyaclnn.AclTensor.from_array(g, fmt), pyaclnn.AclTensor(shape, np.dtype(np.float32), fmt=fmt)
                ours = common.op_runner("MaxPool2dWithIndicesBackward", gt, xt, it, A([3]), A([2]), A([1]), A([1]),
                                        False, gx)
                tf = None
                if torch:
                    _, ti = torch.nn.functional.max_pool2d(tx, 3, 2, 1, return_indices=True)
                    tf = lambda: torch.ops.aten.max_pool2d_with_indices_backward(  # noqa: E731
                        tg, tx, [3, 3], [2, 2], [1, 1], [1, 1], False, ti)
        else:
            args = (A([3]), A([2]), A([1]), False, True, 0)
            if direction == "fwd":
                ours = common.op_runner("AvgPool3d", xt, *args, yt)
                tf = (lambda: torch.nn.functional.avg_pool3d(tx, 3, 2, 1)) if torch else None
            else:
                gt, gx = pyaclnn.AclTensor.from_array(g, fmt), pyaclnn.AclTensor(shape, np.dtype(np.float32), fmt=fmt)
                ours = common.op_runner("AvgPool3dBackward", gt, xt, *args, gx)
                tf = (lambda: torch.ops.aten.avg_pool3d_backward(tg, tx, [3, 3, 3], [2, 2, 2], [1, 1, 1], False, True,
                                                                  None)) if torch else None
        return dict(ours=ours, torch=tf, bytes=x.nbytes + g.nbytes)

    return setup


CASES += [("max_pool2d_with_indices_fwd_n32c64_h56w56_k3s2p1_f32", _setup_window("max2d", "fwd")),
          ("max_pool2d_with_indices_bwd_n32c64_h56w56_k3s2p1_f32", _setup_window("max2d", "bwd")),
          ("avg_pool3d_fwd_n4c64_d16h56w56_k3s2p1_f32", _setup_window("avg3d", "fwd")),
          ("avg_pool3d_bwd_n4c64_d16h56w56_k3s2p1_f32", _setup_window("avg3d", "bwd"))]
