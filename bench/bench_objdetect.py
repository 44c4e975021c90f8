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


# ---------------------------------------------------------------- the other detection ops of issue 13
# aclnnRoiPoolingWithArgMax / aclnnRoiPoolingGradWithArgMax and aclnnCIoU run only under an Ascend950 SoC name,
# aclnnNonMaxSuppression only under an Ascend310P one (the A2 refuses them: README "Other SoCs"); their rows set
# PYACLNN_SOC_NAME around each call of ours (the name is read at every first phase) and say so in the row name.
# aclnnRoiAlignV2Backward has no half rows: its A2 dtype list is float32 only. aclnnIou runs on the A2.
SOC950, SOC310P = "Ascend950PR_9599", "Ascend310P3"


def _with_soc(soc, fn):
    import os

    def run():
        old = os.environ.get("PYACLNN_SOC_NAME")
        os.environ["PYACLNN_SOC_NAME"] = soc
        try:
            fn()
        finally:
            if old is None:
                del os.environ["PYACLNN_SOC_NAME"]
            else:
                os.environ["PYACLNN_SOC_NAME"] = old

    return run


def _np_dtype(dt):
    import pyaclnn

    return pyaclnn.bfloat16 if dt == "bfloat16" else np.dtype(dt)


def _torch_dtype(torch, dt):
    return {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dt]


def torch_roi_pool(torch, x, rois, ph, pw, ss):
    """RoiPoolingWithArgMax's rule (no roi rounding; bin [floor(p * bw + x1), ceil((p + 1) * bw + x1)) clipped;
    first strictly greatest wins; empty bins y = 0, argmax -1) vectorised: every bin's window of the largest bin
    extent gathered at once, cells outside the bin masked to -inf, max over the window (values and positions)."""
    n, c, h, w = x.shape
    k = rois.shape[0]
    r = rois.float()
    bi = r[:, 0].long()
    x1, y1 = r[:, 1] * ss, r[:, 2] * ss
    x2, y2 = (r[:, 3] + 1) * ss, (r[:, 4] + 1) * ss
    bw, bh = (x2 - x1) / pw, (y2 - y1) / ph

    def edges(p, bsz, lo, size):
        t = torch.arange(p, dtype=torch.float32)
        a = torch.floor(t[None, :] * bsz[:, None] + lo[:, None]).long().clamp(0, size)
        b = torch.ceil((t[None, :] + 1) * bsz[:, None] + lo[:, None]).long().clamp(0, size)
        return a, b

    ha, hb = edges(ph, bh, y1, h)
    wa, wb = edges(pw, bw, x1, w)
    kh, kw = int((hb - ha).max().clamp(min=1)), int((wb - wa).max().clamp(min=1))
    hh = ha[:, :, None] + torch.arange(kh)[None, None, :]  # (k, ph, kh)
    ww = wa[:, :, None] + torch.arange(kw)[None, None, :]  # (k, pw, kw)
    inside = (hh < hb[:, :, None])[:, :, None, :, None] & (ww < wb[:, :, None])[:, None, :, None, :]
    cell = hh.clamp(max=h - 1)[:, :, None, :, None] * w + ww.clamp(max=w - 1)[:, None, :, None, :]
    cell = cell.expand(k, ph, pw, kh, kw).reshape(k, ph, pw, kh * kw)
    inside = inside.expand(k, ph, pw, kh, kw).reshape(k, ph, pw, kh * kw)
    flat = x.permute(1, 0, 2, 3).reshape(c, n * h * w)
    v = flat[:, (bi * h * w)[:, None, None, None] + cell]  # (c, k, ph, pw, kh * kw)
    v = v.masked_fill(~inside | v.isnan(), float("-inf"))
    best, pos = v.max(-1)
    arg = torch.gather(cell.expand(c, k, ph, pw, kh * kw), -1, pos[..., None])[..., 0]
    empty = ~inside.any(-1)
    best = best.masked_fill(empty, 0.0)
    arg = arg.masked_fill(empty | (best == float("-inf")), -1)
    return best.permute(1, 0, 2, 3), arg.permute(1, 0, 2, 3).int()


def _pool_setup(direction, dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        npdt = _np_dtype(dt)
        rng = np.random.default_rng(2)
        x = rng.standard_normal((N, C, H, W)).astype(np.float32).astype(npdt)
        b = _boxes().astype(npdt)
        nd = lib.ACL_FORMAT_ND
        torch = common.torch_or_none()
        xt, bt = pyaclnn.AclTensor.from_array(x, nd), pyaclnn.AclTensor.from_array(b, nd)
        yt = pyaclnn.AclTensor((K, C, P, P), npdt, fmt=nd)
        at = pyaclnn.AclTensor((K, C, P, P), np.dtype(np.int32), fmt=nd)
        fwd = _with_soc(SOC950, common.op_runner("RoiPoolingWithArgMax", xt, bt, P, P, 1.0, 1.0, yt, at))
        if direction == "fwd":
            ours = fwd
            tf = None
            if torch:
                tx, tb = torch.from_numpy(x), torch.from_numpy(b)
                tf = lambda: torch_roi_pool(torch, tx, tb, P, P, 1.0)  # noqa: E731
            return dict(ours=ours, torch=tf, bytes=x.nbytes + K * C * P * P * (npdt.itemsize + 4))
        fwd()
        am = at.numpy()
        g = rng.standard_normal((K, C, P, P)).astype(np.float32).astype(npdt)
        gt = pyaclnn.AclTensor.from_array(g, nd)
        it = pyaclnn.AclTensor((N, C, H, W), npdt, fmt=nd)
        ours = _with_soc(SOC950, common.op_runner("RoiPoolingGradWithArgMax", gt, it, bt, at, P, P, 1.0))
        tf = None
        if torch:
            tg, ta = torch.from_numpy(g), torch.from_numpy(am)
            plane = ((torch.from_numpy(b[:, 0].astype(np.int64)) * C)[:, None] + torch.arange(C)[None, :]) * (H * W)
            plane = plane[:, :, None, None]
            dump = N * C * H * W  # argmax -1 adds into a spare slot

            def tf():
                idx = torch.where(ta >= 0, plane + ta, dump).reshape(-1)
                out = torch.zeros(dump + 1, dtype=tg.dtype)
                out.index_add_(0, idx, tg.reshape(-1))
                return out[:dump].reshape(N, C, H, W)
        return dict(ours=ours, torch=tf, bytes=g.nbytes + am.nbytes + x.nbytes)

    return setup


IOU_M, IOU_N = 1000, 1000
CIOU_N = 1024 * 1024


def _iou_boxes(rng, k):
    xy = rng.uniform(0, 100, (k, 2))
    return np.concatenate([xy, xy + rng.uniform(2, 30, (k, 2))], 1).astype(np.float32)


def torch_iou(torch, b, g):
    """aclnnIou "iou", eps 0, every pair: inter / (area1 + area2 - inter), broadcast (m, 1) x (1, n)."""
    bb, gg = b[:, None, :], g[None, :, :]
    iw = (torch.minimum(bb[..., 2], gg[..., 2]) - torch.maximum(bb[..., 0], gg[..., 0])).clamp(min=0)
    ih = (torch.minimum(bb[..., 3], gg[..., 3]) - torch.maximum(bb[..., 1], gg[..., 1])).clamp(min=0)
    inter = iw * ih
    a1 = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    a2 = (g[:, 2] - g[:, 0]) * (g[:, 3] - g[:, 1])
    return inter / ((a1[:, None] + a2[None, :]) - inter)


def _iou_setup(dt):
    def setup():
        import pyaclnn
        from pyaclnn import ffi, lib

        npdt = _np_dtype(dt)
        rng = np.random.default_rng(3)
        b = _iou_boxes(rng, IOU_M).astype(npdt)
        g = _iou_boxes(rng, IOU_N).astype(npdt)
        nd = lib.ACL_FORMAT_ND
        bt, gt = pyaclnn.AclTensor.from_array(b, nd), pyaclnn.AclTensor.from_array(g, nd)
        ot = pyaclnn.AclTensor((IOU_M, IOU_N), npdt, fmt=nd)
        mode = ffi.new("char[]", b"iou")
        ours = common.op_runner("Iou", bt, gt, mode, 0.0, False, ot)
        torch = common.torch_or_none()
        tf = None
        if torch:
            tdt = _torch_dtype(torch, dt)
            tb = torch.from_numpy(b.astype(np.float32)).to(tdt)
            tg = torch.from_numpy(g.astype(np.float32)).to(tdt)
            tf = lambda: torch_iou(torch, tb, tg)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=b.nbytes + g.nbytes + IOU_M * IOU_N * npdt.itemsize)

    return setup


def torch_ciou(torch, b, g):
    """aclnnCIoU "iou" (xyxy, aligned pairs, the (4, n) layout) by its formula: IoU - rho^2 / c^2 - alpha v with
    eps 1e-7 and 1e-4 floors, v = 4 / pi^2 (atan(w_b / h_b) - atan(w_g / h_g))^2, alpha = v / max(v + 1 - IoU, 1e-4).
    Returns (overlap, atanSub)."""
    eps, fl = 1e-7, 1e-4
    w1, h1 = (b[2] - b[0]).clamp(min=0), (b[3] - b[1]).clamp(min=0)
    w2, h2 = (g[2] - g[0]).clamp(min=0), (g[3] - g[1]).clamp(min=0)
    iw = (torch.minimum(b[2], g[2]) - torch.maximum(b[0], g[0])).clamp(min=0)
    ih = (torch.minimum(b[3], g[3]) - torch.maximum(b[1], g[1])).clamp(min=0)
    inter = iw * ih
    o = inter / (((w1 * h1 + w2 * h2) - inter) + eps).clamp(min=fl)
    a = torch.atan(w1 / (h1 + eps).clamp(min=fl)) - torch.atan(w2 / (h2 + eps).clamp(min=fl))
    v = (a * a) * 0.4052847345693511
    o = o - (v / ((v + 1) - o).clamp(min=fl)) * v
    dx = ((b[0] + b[2]) - (g[0] + g[2])) * 0.5
    dy = ((b[1] + b[3]) - (g[1] + g[3])) * 0.5
    cw = torch.maximum(b[2], g[2]) - torch.minimum(b[0], g[0])
    ch = torch.maximum(b[3], g[3]) - torch.minimum(b[1], g[1])
    o = o - (dx * dx + dy * dy) / ((cw * cw + ch * ch) + eps).clamp(min=fl)
    return o[None, :], a[None, :]


def _ciou_setup(dt):
    def setup():
        import pyaclnn
        from pyaclnn import ffi, lib

        npdt = _np_dtype(dt)
        rng = np.random.default_rng(4)
        b = np.ascontiguousarray(_iou_boxes(rng, CIOU_N).T).astype(npdt)
        g = np.ascontiguousarray(_iou_boxes(rng, CIOU_N).T).astype(npdt)
        nd = lib.ACL_FORMAT_ND
        bt, gt = pyaclnn.AclTensor.from_array(b, nd), pyaclnn.AclTensor.from_array(g, nd)
        ot = pyaclnn.AclTensor((1, CIOU_N), npdt, fmt=nd)
        st = pyaclnn.AclTensor((1, CIOU_N), npdt, fmt=nd)
        mode = ffi.new("char[]", b"iou")
        ours = _with_soc(SOC950, common.op_runner("CIoU", bt, gt, False, False, mode, ot, st))
        torch = common.torch_or_none()
        tf = None
        if torch:
            tdt = _torch_dtype(torch, dt)
            tb, tg = torch.from_numpy(b.astype(np.float32)).to(tdt), torch.from_numpy(g.astype(np.float32)).to(tdt)
            tf = lambda: torch_ciou(torch, tb, tg)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=b.nbytes + g.nbytes + 2 * CIOU_N * npdt.itemsize)

    return setup


NMS_N, NMS_MAXOUT, NMS_IOU = 4000, 700, 0.5


def torch_nms(torch, boxes, scores, max_out, iou):
    """Greedy NMS of one (batch, class) block, a python loop over the boxes by descending score (stable: the lower
    index first on ties) against a torch suppression matrix (inter > (area_a + area_b) * iou / (1 + iou), the
    op's form of IoU > iou); returns the kept box indices."""
    y1 = torch.minimum(boxes[:, 0], boxes[:, 2])
    y2 = torch.maximum(boxes[:, 0], boxes[:, 2])
    x1 = torch.minimum(boxes[:, 1], boxes[:, 3])
    x2 = torch.maximum(boxes[:, 1], boxes[:, 3])
    area = (y2 - y1) * (x2 - x1)
    order = torch.sort(scores, descending=True, stable=True).indices
    y1, x1, y2, x2, area = y1[order], x1[order], y2[order], x2[order], area[order]
    ih = torch.minimum(y2[:, None], y2[None, :]) - torch.maximum(y1[:, None], y1[None, :])
    iw = torch.minimum(x2[:, None], x2[None, :]) - torch.maximum(x1[:, None], x1[None, :])
    inter = torch.where((ih > 0) & (iw > 0), ih * iw, 0.0)
    sup = (inter > (area[:, None] + area[None, :]) * (iou / (1.0 + iou))).tolist()
    dead = [False] * boxes.shape[0]
    keep = []
    for i in range(boxes.shape[0]):
        if dead[i]:
            continue
        keep.append(i)
        if len(keep) == max_out:
            break
        row = sup[i]
        for j in range(i + 1, len(row)):
            if row[j]:
                dead[j] = True
    return order[keep]


def _nms_setup(dt):
    def setup():
        import pyaclnn

        npdt = np.dtype(dt)
        rng = np.random.default_rng(5)
        p = rng.uniform(0, 400, (1, NMS_N, 2))
        boxes = np.concatenate([p, p + rng.uniform(4, 40, (1, NMS_N, 2))], -1).astype(npdt)
        scores = rng.random((1, 1, NMS_N)).astype(npdt)
        bt, st = pyaclnn.AclTensor.from_array(boxes), pyaclnn.AclTensor.from_array(scores)
        sel = pyaclnn.AclTensor((NMS_MAXOUT, 3), np.dtype(np.int32))
        from pyaclnn.ops.table import float_array

        args = (bt, st, pyaclnn.int_array([NMS_MAXOUT]), float_array([NMS_IOU]), float_array([0.0]), 0, sel)
        ours = _with_soc(SOC310P, common.op_runner("NonMaxSuppression", *args))
        torch = common.torch_or_none()
        tf = None
        if torch:
            tb = torch.from_numpy(boxes[0].astype(np.float32))
            ts = torch.from_numpy(scores[0, 0].astype(np.float32))
            tf = lambda: torch_nms(torch, tb, ts, NMS_MAXOUT, NMS_IOU)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=boxes.nbytes + scores.nbytes + NMS_MAXOUT * 12)

    return setup


CASES += [("roi_pool_argmax_fwd_k1000_c64_64x64_7x7_f32_soc950", _pool_setup("fwd", "float32")),
          ("roi_pool_argmax_fwd_k1000_c64_64x64_7x7_f16_soc950", _pool_setup("fwd", "float16")),
          ("roi_pool_argmax_bwd_k1000_c64_64x64_7x7_f32_soc950", _pool_setup("bwd", "float32")),
          ("roi_pool_argmax_bwd_k1000_c64_64x64_7x7_f16_soc950", _pool_setup("bwd", "float16")),
          ("iou_1000x1000_f32", _iou_setup("float32")),
          ("iou_1000x1000_f16", _iou_setup("float16")),
          ("iou_1000x1000_bf16", _iou_setup("bfloat16")),
          ("ciou_n1048576_f32_soc950", _ciou_setup("float32")),
          ("ciou_n1048576_f16_soc950", _ciou_setup("float16")),
          ("nms_n4000_max700_f32_soc310p_torch_pyloop", _nms_setup("float32")),
          ("nms_n4000_max700_f16_soc310p_torch_pyloop", _nms_setup("float16"))]
