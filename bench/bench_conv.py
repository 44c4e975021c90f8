"""Convolution / ConvolutionBackward vs PyTorch CPU: the ResNet 3x3 layer (N=8, C=64->64, 56x56, s1 p1) forward
in fp32/fp16/bf16, a strided transposed 2-d convolution, and the fp32 backward of the ResNet layer."""
import numpy as np

import common

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}


def _setup(kind, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        npdt = pyaclnn.bfloat16 if dt == "bf16" else np.dtype(DTYPES[dt])
        rng = np.random.default_rng(0)
        nchw = lib.ACL_FORMAT_NCHW
        A = pyaclnn.int_array
        torch = common.torch_or_none()
        tdt = getattr(torch, DTYPES[dt]) if torch else None
        if kind == "transposed":  # N=8, 64 -> 32 channels, 28x28 -> 56x56 (k4 s2 p1)
            x = rng.standard_normal((8, 64, 28, 28)).astype(np.float32).astype(npdt)
            w = rng.standard_normal((64, 32, 4, 4)).astype(np.float32).astype(npdt)
            y = pyaclnn.AclTensor((8, 32, 56, 56), npdt, fmt=nchw)
            xt, wt = pyaclnn.AclTensor.from_array(x, nchw), pyaclnn.AclTensor.from_array(w, nchw)
            ours = common.op_runner("Convolution", xt, wt, None, A([2, 2]), A([1, 1]), A([1, 1]), True, A([0, 0]), 1,
                                    y, 0)
            tf = None
            if torch:
                tx, tw = (torch.from_numpy(a.astype(np.float32)).to(tdt) for a in (x, w))
                tf = lambda: torch.nn.functional.conv_transpose2d(tx, tw, None, 2, 1)  # noqa: E731
            return dict(ours=ours, torch=tf, bytes=x.nbytes + w.nbytes)
        x = rng.standard_normal((8, 64, 56, 56)).astype(np.float32).astype(npdt)
        w = rng.standard_normal((64, 64, 3, 3)).astype(np.float32).astype(npdt)
        xt, wt = pyaclnn.AclTensor.from_array(x, nchw), pyaclnn.AclTensor.from_array(w, nchw)
        if kind == "fwd":
            y = pyaclnn.AclTensor((8, 64, 56, 56), npdt, fmt=nchw)
            ours = common.op_runner("Convolution", xt, wt, None, A([1, 1]), A([1, 1]), A([1, 1]), False, A([0, 0]), 1,
                                    y, 0)
            tf = None
            if torch:
                tx, tw = (torch.from_numpy(a.astype(np.float32)).to(tdt) for a in (x, w))
                tf = lambda: torch.nn.functional.conv2d(tx, tw, None, 1, 1)  # noqa: E731
            return dict(ours=ours, torch=tf, bytes=x.nbytes + w.nbytes)
        g = rng.standard_normal((8, 64, 56, 56)).astype(np.float32).astype(npdt)
        gt = pyaclnn.AclTensor.from_array(g, nchw)
        gi, gw = pyaclnn.AclTensor(x.shape, npdt, fmt=nchw), pyaclnn.AclTensor(w.shape, npdt, fmt=nchw)
        gb = pyaclnn.AclTensor((64,), npdt, fmt=lib.ACL_FORMAT_ND)
        ours = common.op_runner("ConvolutionBackward", gt, xt, wt, A([64]), A([1, 1]), A([1, 1]), A([1, 1]), False,
                                A([0, 0]), 1, pyaclnn.bool_array([True] * 3), 0, gi, gw, gb)
        tf = None
        if torch:
            tx, tw, tg = (torch.from_numpy(a.astype(np.float32)).to(tdt) for a in (x, w, g))
            tf = lambda: torch.ops.aten.convolution_backward(tg, tx, tw, [64], [1, 1], [1, 1], [1, 1], False,  # noqa
                                                             [0, 0], 1, [True, True, True])
        return dict(ours=ours, torch=tf, bytes=x.nbytes + w.nbytes + g.nbytes)

    return setup


CASES = ([(f"fwd_n8c64_h56w56_k3s1p1_{dt}", _setup("fwd", dt)) for dt in DTYPES] +
         [(f"transposed_n8c64_h28w28_k4s2p1_{dt}", _setup("transposed", dt)) for dt in ("f32",)] +
         [(f"bwd_n8c64_h56w56_k3s1p1_{dt}", _setup("bwd", dt)) for dt in ("f32",)])
