"""Literal float64 loops for aclnnIou (ops-cv objdetect/iou_v2 docs): IoU = inter / (area1 + area2 - inter),
IoF = inter / area2 (gtBox), eps added to every width and height. Never imports pyaclnn."""
import numpy as np


def iou(b, g, mode="iou", eps=0.0, aligned=False):
    b = np.asarray(b, np.float64)
    g = np.asarray(g, np.float64)
    m, n = b.shape[0], (1 if aligned else g.shape[0])
    out = np.zeros((m, n))
    for i in range(m):
        x0, y0, x1, y1 = b[i]
        for j in range(n):
            x2, y2, x3, y3 = g[i if aligned else j]
            iw = max(min(x1, x3) + eps - max(x0, x2), 0.0)
            ih = max(min(y1, y3) + eps - max(y0, y2), 0.0)
            inter = iw * ih
            a1 = (x1 - x0 + eps) * (y1 - y0 + eps)
            a2 = (x3 - x2 + eps) * (y3 - y2 + eps)
            out[i, j] = inter / a2 if mode == "iof" else inter / (a1 + a2 - inter)
    return out
