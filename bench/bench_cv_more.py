"""Issue 13's speed table, the rows the other bench modules leave out: the 3-D pools (MaxPool3dWithArgmax,
AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d, forward and backward), MaxPool2dWithIndices forward, and the fp16 /
bf16 rows of the resampling family (linear1d, trilinear3d, the anti-aliased 2-D ops, nearest-exact 2-D, grid
sampler 3-D). Each against PyTorch CPU in the same dtype, or in fp32 where PyTorch CPU lacks the dtype (grid_sampler_3d;
avg_pool3d_backward in fp16)."""
import numpy as np

import common
import bench_grid_sampler3d as _gs3
import bench_upsample_linear as _ul

DTS = ("f32", "f16", "bf16")


def _np(dt):
    import pyaclnn

    return {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": pyaclnn.bfloat16}[dt]


def _td(torch, dt):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]


X3 = (4, 64, 16, 56, 56)  # N C D H W


def _pool3d(kind, direction, dt):
    """kind: max (k3 s2 p1, int32 argmax), avg (k3 s2 p1), aavg / amax (adaptive to 4x7x7)."""
    def setup():
        import pyaclnn
        from pyaclnn import lib

        A = pyaclnn.int_array
        fmt = lib.ACL_FORMAT_NCDHW
        npdt = _np(dt)
        rng = np.random.default_rng(0)
        osz = (8, 28, 28) if kind in ("max", "avg") else (4, 7, 7)
        oshape = X3[:2] + osz
        x = rng.standard_normal(X3).astype(np.float32).astype(npdt)
        g = rng.standard_normal(oshape).astype(np.float32).astype(npdt)
        xt = pyaclnn.AclTensor.from_array(x, fmt)
        gt = pyaclnn.AclTensor.from_array(g, fmt)
        yt = pyaclnn.AclTensor(oshape, npdt, fmt=fmt)
        gx = pyaclnn.AclTensor(X3, npdt, fmt=fmt)
        torch = common.torch_or_none()
        F = torch.nn.functional if torch else None

        def make_tf(tdt):
            """PyTorch's call in dtype tdt (None without torch)"""
            if not torch:
                return None
            tx = torch.from_numpy(x.astype(np.float32)).to(tdt)
            tg = torch.from_numpy(g.astype(np.float32)).to(tdt)
            if kind == "max":
                if direction == "fwd":
                    return lambda: F.max_pool3d(tx, 3, 2, 1, return_indices=True)
                _, ti = F.max_pool3d(tx, 3, 2, 1, return_indices=True)
                return lambda: torch.ops.aten.max_pool3d_with_indices_backward(
                    tg, tx, [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], False, ti)
            if kind == "avg":
                if direction == "fwd":
                    return lambda: F.avg_pool3d(tx, 3, 2, 1)
                return lambda: torch.ops.aten.avg_pool3d_backward(tg, tx, [3, 3, 3], [2, 2, 2], [1, 1, 1], False,
                                                                  True, None)
            if kind == "aavg":
                if direction == "fwd":
                    return lambda: F.adaptive_avg_pool3d(tx, osz)
                return lambda: torch.ops.aten._adaptive_avg_pool3d_backward(tg, tx)
            if direction == "fwd":
                return lambda: F.adaptive_max_pool3d(tx, osz, True)
            _, ti = F.adaptive_max_pool3d(tx, osz, True)
            return lambda: torch.ops.aten.adaptive_max_pool3d_backward(tg, tx, ti)

        if kind == "max":
            it = pyaclnn.AclTensor(oshape, np.dtype(np.int32), fmt=fmt)
            fwd = common.op_runner("MaxPool3dWithArgmax", xt, A([3]), A([2]), A([1]), A([1]), False, yt, it)
            if direction == "fwd":
                ours = fwd
            else:
                fwd()
                ours = common.op_runner("MaxPool3dWithArgmaxBackward", gt, xt, it, A([3]), A([2]), A([1]), A([1]),
                                        False, gx)
        elif kind == "avg":
            args = (A([3]), A([2]), A([1]), False, True, 0)
            if direction == "fwd":
                ours = common.op_runner("AvgPool3d", xt, *args, yt)
            else:
                ours = common.op_runner("AvgPool3dBackward", gt, xt, *args, gx)
        elif kind == "aavg":
            if direction == "fwd":
                ours = common.op_runner("AdaptiveAvgPool3d", xt, A(list(osz)), yt)
            else:
                ours = common.op_runner("AdaptiveAvgPool3dBackward", gt, xt, gx)
        else:
            it = pyaclnn.AclTensor(oshape, np.dtype(np.int32), fmt=fmt)
            fwd = common.op_runner("AdaptiveMaxPool3d", xt, A(list(osz)), yt, it)
            if direction == "fwd":
                ours = fwd
            else:
                fwd()
                ours = common.op_runner("AdaptiveMaxPool3dBackward", gt, xt, it, gx)
        tf = make_tf(_td(torch, dt)) if torch else None
        if tf is not None:
            try:
                tf()
            except (NotImplementedError, RuntimeError):  # PyTorch CPU lacks this dtype: compare with its fp32
                tf = make_tf(torch.float32)
        return dict(ours=ours, torch=tf, bytes=x.nbytes + g.nbytes)

    return setup


def _max2d_fwd(dt):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        A = pyaclnn.int_array
        fmt = lib.ACL_FORMAT_NCHW
        npdt = _np(dt)
        shape, oshape = (32, 64, 56, 56), (32, 64, 28, 28)
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32).astype(npdt)
        xt = pyaclnn.AclTensor.from_array(x, fmt)
        yt = pyaclnn.AclTensor(oshape, npdt, fmt=fmt)
        it = pyaclnn.AclTensor(oshape, np.dtype(np.int32), fmt=fmt)
        ours = common.op_runner("MaxPool2dWithIndices", xt, A([3]), A([2]), A([1]), A([1]), False, yt, it)
        torch = common.torch_or_none()
        tf = None
        if torch:
            tx = torch.from_numpy(x.astype(np.float32)).to(_td(torch, dt))
            tf = lambda: torch.nn.functional.max_pool2d(tx, 3, 2, 1, return_indices=True)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=x.nbytes * 5 // 4)

    return setup


CASES = []
_NAMES = {"max": "max_pool3d_with_argmax", "avg": "avg_pool3d", "aavg": "adaptive_avg_pool3d",
          "amax": "adaptive_max_pool3d"}
for _k, _n in _NAMES.items():
    for _d in ("bwd", "fwd"):
        for _dt in DTS:
            if _k == "avg" and _dt == "f32":
                continue  # bench_pool.py has the f32 rows
            _o = "k3s2p1" if _k in ("max", "avg") else "o4x7x7"
            CASES.append((f"{_n}_{_d}_n4c64_d16h56w56_{_o}_{_dt}", _pool3d(_k, _d, _dt)))
for _dt in ("f16", "bf16"):
    CASES.append((f"max_pool2d_with_indices_fwd_n32c64_h56w56_k3s2p1_{_dt}", _max2d_fwd(_dt)))

def _ulcase(kind, n, c, ins, outs, dt, bwd):
    """bench_upsample_linear.case in dt; where PyTorch CPU lacks dt for the op (the AA kernels in fp16), PyTorch's
    side runs in fp32"""
    ours_setup = _ul.case(kind, n, c, ins, outs, dt, bwd)

    def setup():
        d = ours_setup()
        if d.get("torch"):
            try:
                d["torch"]()
            except (NotImplementedError, RuntimeError):
                d["torch"] = _ul.case(kind, n, c, ins, outs, "f32", bwd)()["torch"]
        return d

    return setup


# the resampling family's fp16 / bf16 rows (bench_upsample_linear.case)
for _dt in ("f16", "bf16"):
    CASES.append((f"linear1d fwd {_dt} 32x64 1000->1500", _ulcase(1, 32, 64, (1000,), (1500,), _dt, False)))
    CASES.append((f"linear1d bwd {_dt} 32x64 1500->1000", _ulcase(1, 32, 64, (1000,), (1500,), _dt, True)))
    CASES.append((f"trilinear3d fwd {_dt} 2x32 16x32x32->32x64x64",
                  _ulcase(3, 2, 32, (16, 32, 32), (32, 64, 64), _dt, False)))
    CASES.append((f"trilinear3d bwd {_dt} 2x32 32x64x64->16x32x32",
                  _ulcase(3, 2, 32, (16, 32, 32), (32, 64, 64), _dt, True)))
    CASES.append((f"bilinear2d_aa fwd {_dt} 8x64 128x128->48x48",
                  _ulcase("aa", 8, 64, (128, 128), (48, 48), _dt, False)))
    CASES.append((f"bilinear2d_aa bwd {_dt} 8x64 48x48->128x128",
                  _ulcase("aa", 8, 64, (128, 128), (48, 48), _dt, True)))
    CASES.append((f"bicubic2d_aa fwd {_dt} 8x64 128x128->48x48",
                  _ulcase("aacubic", 8, 64, (128, 128), (48, 48), _dt, False)))
    CASES.append((f"bicubic2d_aa bwd {_dt} 8x64 48x48->128x128",
                  _ulcase("aacubic", 8, 64, (128, 128), (48, 48), _dt, True)))
for _bw in (True, False):
    CASES.append((f"gridsampler3d {'bwd' if _bw else 'fwd'} trilinear/zeros bf16 N2 C16 16x32x32",
                  _gs3._setup(2, 16, 16, 32, 32, 16, 32, 32, 0, "bf16", _bw)))
