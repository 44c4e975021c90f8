"""RoiAlignV2 / RoiAlignV2Backward vs a vectorised PyTorch RoI Align (torchvision is not installed; the torch
version gathers the four corners of every sample point and its backward is autograd's scatter-add):
N=2, C=64, 64x64 maps, 1000 boxes, 7x7 bins, samplingRatio 2, aligned, fp32 (fwd also fp16)."""
import numpy as np

import common

N, C, H, W, K, P, SR = 2, 64, 64, 64, 1000, 7, 2


def _boxes():
    rng = np.random.default_rng(0)
    b = np.zeros((K, 5), np.float32)
    b[:, 0] = rng.integers(0, N, K)
    b[:, 1:3] = rng.uniform(0, 48, (K, 2))
    b[:, 3:5] = b[:, 1:3] + rng.uniform(2, 16, (K, 2))
    return b


def torch_roi_align(torch, x, boxes, ph, pw, sr, aligned):
    """RoI Align with a fixed samplingRatio, vectorised over boxes (gather of the 4 corners per sample point)."""
    n, c, h, w = x.shape
    off = 0.5 if aligned else 0.0
    bi = boxes[:, 0].long()
    x1, y1, x2, y2 = (boxes[:, i] - off for i in range(1, 5))
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = rw.clamp(min=1.0), rh.clamp(min=1.0)
    t = (torch.arange(ph * sr, dtype=x.dtype) // sr) + ((torch.arange(ph * sr) % sr).to(x.dtype) + 0.5) / sr
    ys = y1[:, None] + t[None, :] * (rh / ph)[:, None]
    t = (torch.arange(pw * sr, dtype=x.dtype) // sr) + ((torch.arange(pw * sr) % sr).to(x.dtype) + 0.5) / sr
    xs = x1[:, None] + t[None, :] * (rw / pw)[:, None]

    def axis(v, size):
        valid = (v >= -1.0) & (v <= size)
        v = v.clamp(min=0.0)
        lo = v.floor().long().clamp(max=size - 1)
        v = torch.where(lo >= size - 1, lo.to(v.dtype), v)
        hi = (lo + 1).clamp(max=size - 1)
        l = v - lo.to(v.dtype)
        return lo, hi, (1.0 - l) * valid, l * valid

    ylo, yhi, yh, yl = axis(ys, h)
    xlo, xhi, xh, xl = axis(xs, w)
    flat = x.permute(1, 0, 2, 3).reshape(c, -1)
    base = (bi * h * w)[:, None, None]
    out = 0
    for ya, wy in ((ylo, yh), (yhi, yl)):
        for xa, wx in ((xlo, xh), (xhi, xl)):
            idx = base + ya[:, :, None] * w + xa[:, None, :]
            out = out + flat[:, idx] * (wy[:, :, None] * wx[:, None, :])
    k = boxes.shape[0]
    return out.reshape(c, k, ph, sr, pw, sr).mean((3, 5)).permute(1, 0, 2, 3)


def _setup(direction, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        npdt = np.dtype(dt)
        rng = np.random.default_rng(1)
        x = rng.standard_normal((N, C, H, W)).astype(npdt)
        g = rng.standard_normal((K, C, P, P)).astype(npdt)
        b = _boxes().astype(npdt)
        nchw, nd = lib.ACL_FORMAT_NCHW, lib.ACL_FORMAT_ND
        torch = common.torch_or_none()
        bt = pyaclnn.AclTensor.from_array(b, nd)
        if direction == "fwd":
            xt = pyaclnn.AclTensor.from_array(x, nchw)
            yt = pyaclnn.AclTensor((K, C, P, P), npdt, fmt=nchw)
            ours = common.op_runner("RoiAlignV2", xt, bt, P, P, 1.0, SR, True, yt)
            tf = None
            if torch:
                tx = torch.from_numpy(x)
                tb = torch.from_numpy(b)
                tf = lambda: torch_roi_align(torch, tx, tb, P, P, SR, True)  # noqa: E731
        else:
            gt = pyaclnn.AclTensor.from_array(g, nchw)
            it = pyaclnn.AclTensor((N, C, H, W), npdt, fmt=nchw)
            ours = common.op_runner("RoiAlignV2Backward", gt, bt, pyaclnn.int_array([N, C, H, W]), P, P, 1.0, SR,
                                    True, it)
            tf = None
            if torch:
                tx = torch.from_numpy(x).requires_grad_(True)
                tb = torch.from_numpy(b)
                tg = torch.from_numpy(g)
                y = torch_roi_align(torch, tx, tb, P, P, SR, True)

                def tf():
                    tx.grad = None
                    torch.autograd.grad(y, tx, tg, retain_graph=True)
        return dict(ours=ours, torch=tf, bytes=x.nbytes + g.nbytes)

    return setup


CASES = [("roi_align_v2_fwd_k1000_c64_64x64_7x7_f32", _setup("fwd", "float32")),
         ("roi_align_v2_fwd_k1000_c64_64x64_7x7_f16", _setup("fwd", "float16")),
         ("roi_align_v2_bwd_k1000_c64_64x64_7x7_f32", _setup("bwd", "float32"))]
