"""The sampling ops of issue 13 without a row elsewhere, vs PyTorch CPU: AffineGrid (aten affine_grid_generator),
Im2col (F.unfold), Im2colBackward (F.fold), ThreeInterpolateBackward (zeros(B, C, m).scatter_add_ of grad * weight).
Rows for every dtype of each op's A2 list; PyTorch runs the same dtype (the half rows of our side against PyTorch's
half kernels)."""
import numpy as np

import pyaclnn
from common import op_runner, torch_or_none

_NP = {"f32": np.float32, "f16": np.float16, "bf16": pyaclnn.bfloat16}


def _tdt(torch, dt):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]


def _affine(N, size, dt, align=False):
    """size: (H, W) or (D, H, W) of the output grid"""
    def setup():
        rng = np.random.default_rng(0)
        d3 = len(size) == 3
        r = 3 if d3 else 2
        theta = rng.uniform(-1.2, 1.2, (N, r, r + 1)).astype(np.float32)
        T = pyaclnn.AclTensor.from_array
        tt = T(theta.astype(_NP[dt]))
        full = [N, 1] + list(size)
        out = pyaclnn.AclTensor.empty((N,) + tuple(size) + (r,), _NP[dt])
        ours = op_runner("AffineGrid", tt, pyaclnn.int_array(full), align, out)
        torch = torch_or_none()
        fn = None
        if torch is not None:
            th = torch.from_numpy(theta).to(_tdt(torch, dt))
            fn = lambda: torch.ops.aten.affine_grid_generator(th, full, align)  # noqa: E731
        item = np.dtype(_NP[dt]).itemsize
        return dict(ours=ours, torch=fn, bytes=(theta.size + N * int(np.prod(size)) * r) * item)

    return setup


def _geom(H, W, k, s, p):
    return ((H + 2 * p - k) // s + 1) * ((W + 2 * p - k) // s + 1)


def _im2col(N, C, H, W, k, s, p, dt, backward):
    def setup():
        rng = np.random.default_rng(0)
        L = _geom(H, W, k, s, p)
        A = pyaclnn.int_array
        T = pyaclnn.AclTensor.from_array
        item = np.dtype(_NP[dt]).itemsize
        torch = torch_or_none()
        fn = None
        if backward:
            cols = rng.standard_normal((N, C * k * k, L)).astype(np.float32)
            tc = T(cols.astype(_NP[dt]))
            out = pyaclnn.AclTensor.empty((N, C, H, W), _NP[dt])
            ours = op_runner("Im2colBackward", tc, A([H, W]), A([k, k]), A([1, 1]), A([p, p]), A([s, s]), out)
            if torch is not None:
                c = torch.from_numpy(cols).to(_tdt(torch, dt))
                fn = lambda: torch.nn.functional.fold(c, (H, W), k, dilation=1, padding=p, stride=s)  # noqa: E731
        else:
            x = rng.standard_normal((N, C, H, W)).astype(np.float32)
            tx = T(x.astype(_NP[dt]))
            out = pyaclnn.AclTensor.empty((N, C * k * k, L), _NP[dt])
            ours = op_runner("Im2col", tx, A([k, k]), A([1, 1]), A([p, p]), A([s, s]), out)
            if torch is not None:
                xt = torch.from_numpy(x).to(_tdt(torch, dt))
                fn = lambda: torch.nn.functional.unfold(xt, k, dilation=1, padding=p, stride=s)  # noqa: E731
        return dict(ours=ours, torch=fn, bytes=(N * C * H * W + N * C * k * k * L) * item)

    return setup


def _three_interp_bwd(B, C, n, m, dt):
    def setup():
        rng = np.random.default_rng(0)
        gx = rng.standard_normal((B, C, n)).astype(np.float32)
        idx = rng.integers(0, m, (B, n, 3)).astype(np.int32)
        w = rng.uniform(0, 1, (B, n, 3)).astype(np.float32)
        w /= w.sum(-1, keepdims=True)
        T = pyaclnn.AclTensor.from_array
        tg, ti, tw = T(gx.astype(_NP[dt])), T(idx), T(w.astype(_NP[dt]))
        gy = pyaclnn.AclTensor.empty((B, C, m), _NP[dt])
        ours = op_runner("ThreeInterpolateBackward", tg, ti, tw, m, gy)
        torch = torch_or_none()
        fn = None
        if torch is not None:
            tdt = _tdt(torch, dt)
            g = torch.from_numpy(gx).to(tdt)
            wt = torch.from_numpy(w).to(tdt)
            index = torch.from_numpy(idx.astype(np.int64)).reshape(B, 1, n * 3).expand(B, C, n * 3)

            def fn():
                src = (g[:, :, :, None] * wt[:, None, :, :]).reshape(B, C, n * 3)
                return torch.zeros(B, C, m, dtype=tdt).scatter_add_(2, index, src)
        item = np.dtype(_NP[dt]).itemsize
        return dict(ours=ours, torch=fn, bytes=(B * C * (n + m) + B * n * 3) * item + B * n * 3 * 4)

    return setup


CASES = []
for dt in ("f32", "f16", "bf16"):
    CASES.append((f"fwd affine_grid 2d {dt} N8 64x64", _affine(8, (64, 64), dt)))
for dt in ("f32", "f16", "bf16"):
    CASES.append((f"fwd affine_grid 3d {dt} N8 32x32x32", _affine(8, (32, 32, 32), dt)))
for (k, s, p) in ((3, 1, 1), (2, 2, 0)):
    for dt in ("f32", "f16", "bf16"):
        for bw in (False, True):
            name = f"{'bwd' if bw else 'fwd'} {'col2im' if bw else 'im2col'} {dt} N8 C64 64x64 k{k} s{s} p{p}"
            CASES.append((name, _im2col(8, 64, 64, 64, k, s, p, dt, bw)))
for dt in ("f32", "f16"):
    CASES.append((f"bwd three_interpolate {dt} B8 C64 n4096 m1024", _three_interp_bwd(8, 64, 4096, 1024, dt)))
