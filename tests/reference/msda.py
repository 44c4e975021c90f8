"""Literal float64 reference of multi-scale deformable attention (forward and backward), SPEC section 3.3/3.4.

Written as plain loops over (b, q, h, l, p) and the four bilinear corners. Never imports pyaclnn.

Rules encoded here (the emulator must agree):
* spatial shapes and level starts are read as int32 (int64 values keep their low 32 bits, as the hardware cast);
* pixel coordinates are computed in fp32, multiply then add: hIm = y*H - 0.5, wIm = x*W - 0.5;
* a point contributes only if -1 < hIm < H and -1 < wIm < W (NaN never does);
* a corner (row, col) is used only if 0 <= row < H, 0 <= col < W and its key S + row*W + col is in [0, K);
* all remaining arithmetic in float64.
"""
import math

import numpy as np


def _levels(spatial_shapes, level_start_index):
    ss = np.asarray(spatial_shapes).astype(np.int64).astype(np.int32)  # low 32 bits, two's complement
    st = np.asarray(level_start_index).astype(np.int64).astype(np.int32)
    return [(int(ss[l, 0]), int(ss[l, 1]), int(st[l])) for l in range(ss.shape[0])]


def _geom(x, y, H, W, S, K):
    """(valid, [(key or None, weight)] * 4, (hh, lh, hw, lw))."""
    f32 = np.float32
    h_im = f32(f32(y) * f32(H)) - f32(0.5)
    w_im = f32(f32(x) * f32(W)) - f32(0.5)
    if not (h_im > -1 and w_im > -1 and h_im < H and w_im < W):
        return False, None, None
    h_im, w_im = float(h_im), float(w_im)
    h0, w0 = math.floor(h_im), math.floor(w_im)
    lh, lw = h_im - h0, w_im - w0
    hh, hw = 1.0 - lh, 1.0 - lw
    corners = []
    for r, c, wt in ((h0, w0, hh * hw), (h0, w0 + 1, hh * lw), (h0 + 1, w0, lh * hw), (h0 + 1, w0 + 1, lh * lw)):
        key = None
        if 0 <= r < H and 0 <= c < W:
            k = S + r * W + c
            if 0 <= k < K:
                key = k
        corners.append((key, wt))
    return True, corners, (hh, lh, hw, lw)


def msda_forward(value, spatial_shapes, level_start_index, loc, attn):
    """value (bs,K,nh,C), loc (bs,nq,nh,nl,np,2), attn (bs,nq,nh,nl,np) -> (bs, nq, nh*C) float64."""
    value = np.asarray(value, dtype=np.float64)
    loc32 = np.asarray(loc).astype(np.float32)
    attn = np.asarray(attn, dtype=np.float64)
    bs, K, nh, C = value.shape
    _, nq, _, nl, npt, _ = loc32.shape
    lv = _levels(spatial_shapes, level_start_index)
    out = np.zeros((bs, nq, nh, C))
    for b in range(bs):
        for q in range(nq):
            for h in range(nh):
                for l in range(nl):
                    H, W, S = lv[l]
                    for p in range(npt):
                        ok, corners, _ = _geom(loc32[b, q, h, l, p, 0], loc32[b, q, h, l, p, 1], H, W, S, K)
                        if not ok:
                            continue
                        a = attn[b, q, h, l, p]
                        for key, wt in corners:
                            if key is not None:
                                out[b, q, h] += a * wt * value[b, key, h]
    return out.reshape(bs, nq, nh * C)


def msda_backward(value, spatial_shapes, level_start_index, loc, attn, grad_output):
    """Returns (grad_value, grad_location, grad_attn_weight) in float64. grad_output (bs,nq,nh*C) or 4-D."""
    value = np.asarray(value, dtype=np.float64)
    loc32 = np.asarray(loc).astype(np.float32)
    attn = np.asarray(attn, dtype=np.float64)
    bs, K, nh, C = value.shape
    _, nq, _, nl, npt, _ = loc32.shape
    go = np.asarray(grad_output, dtype=np.float64).reshape(bs, nq, nh, C)
    lv = _levels(spatial_shapes, level_start_index)
    gv = np.zeros_like(value)
    gl = np.zeros(loc32.shape)
    ga = np.zeros(attn.shape)
    for b in range(bs):
        for q in range(nq):
            for h in range(nh):
                g = go[b, q, h]
                for l in range(nl):
                    H, W, S = lv[l]
                    for p in range(npt):
                        ok, corners, f = _geom(loc32[b, q, h, l, p, 0], loc32[b, q, h, l, p, 1], H, W, S, K)
                        if not ok:
                            continue
                        hh, lh, hw, lw = f
                        a = attn[b, q, h, l, p]
                        v = [value[b, key, h] if key is not None else np.zeros(C) for key, _ in corners]
                        sampled = sum(wt * vk for (_, wt), vk in zip(corners, v))
                        ga[b, q, h, l, p] = np.dot(g, sampled)
                        tg = a * g
                        d_w = -hh * v[0] + hh * v[1] - lh * v[2] + lh * v[3]
                        d_h = -hw * v[0] - lw * v[1] + hw * v[2] + lw * v[3]
                        gl[b, q, h, l, p, 0] = W * np.dot(tg, d_w)
                        gl[b, q, h, l, p, 1] = H * np.dot(tg, d_h)
                        for key, wt in corners:
                            if key is not None:
                                gv[b, key, h] += wt * tg
    return gv, gl, ga
