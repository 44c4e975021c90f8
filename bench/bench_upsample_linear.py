"""Cases for bench/run.py: the linear / cubic resampling family (UpsampleBilinear2d, UpsampleBicubic2d,
UpsampleLinear1d, UpsampleTrilinear3d and their backward passes) against PyTorch CPU's aten kernels."""
import numpy as np

import common


def _np_dtype(name):
    import pyaclnn

    return {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": pyaclnn.bfloat16}[name]


def _torch_dtype(torch, name):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[name]


# op -> (aten forward, aten backward, format)
_OPS = {
    1: ("UpsampleLinear1d", "upsample_linear1d", "ND"),
    2: ("UpsampleBilinear2d", "upsample_bilinear2d", "NCHW"),
    "cubic": ("UpsampleBicubic2d", "upsample_bicubic2d", "NCHW"),
    3: ("UpsampleTrilinear3d", "upsample_trilinear3d", "NCDHW"),
    "aa": ("UpsampleBilinear2dAA", "_upsample_bilinear2d_aa", "NCHW"),
    "aacubic": ("UpsampleBicubic2dAA", "_upsample_bicubic2d_aa", "NCHW"),
}
_BWD = {"UpsampleBicubic2dAA": "UpsampleBicubic2dAAGrad"}


def case(kind, n, c, ins, outs, dt, bwd, align=False):
    def setup():
        import pyaclnn
        from pyaclnn import lib

        op, aten, fmt = _OPS[kind]
        fmt = getattr(lib, "ACL_FORMAT_" + fmt)
        nsp = len(ins)
        dtype = _np_dtype(dt)
        rng = np.random.default_rng(0)
        scales = [-1.0] if op == "UpsampleLinear1d" else [0.0] * nsp
        if bwd:
            g = rng.standard_normal((n, c) + outs).astype(dtype)
            gt = pyaclnn.AclTensor.from_array(g, fmt)
            yt = pyaclnn.AclTensor.empty((n, c) + ins, dtype, fmt)
            ours = common.op_runner(_BWD.get(op, op + "Backward"), gt, pyaclnn.int_array(list(outs)),
                                    pyaclnn.int_array([n, c] + list(ins)), align, *([0.0] * nsp), yt)
        else:
            x = rng.standard_normal((n, c) + ins).astype(dtype)
            xt = pyaclnn.AclTensor.from_array(x, fmt)
            yt = pyaclnn.AclTensor.empty((n, c) + outs, dtype, fmt)
            ours = common.op_runner(op, xt, pyaclnn.int_array(list(outs)), align, *scales, yt)
        torch = common.torch_or_none()
        tfn = None
        if torch is not None:
            if bwd:
                tg = torch.from_numpy(g.astype(np.float32)).to(_torch_dtype(torch, dt))
                fn = getattr(torch.ops.aten, aten + "_backward")

                def tfn():
                    fn(tg, list(outs), [n, c] + list(ins), align, *([None] * nsp))
            else:
                tx = torch.from_numpy(x.astype(np.float32)).to(_torch_dtype(torch, dt))
                fn = getattr(torch.ops.aten, aten)

                def tfn():
                    fn(tx, list(outs), align, *([None] * nsp))

        el = int(np.prod(ins)) + int(np.prod(outs))
        return dict(ours=ours, torch=tfn, bytes=n * c * el * dtype.itemsize)

    return setup


CASES = []
for _dt in ("f32", "bf16"):
    CASES.append((f"bilinear2d fwd {_dt} 8x64 64x64->128x128", case(2, 8, 64, (64, 64), (128, 128), _dt, False)))
    _bd = "f16" if _dt == "bf16" else _dt  # the A2 backward takes FLOAT16 and FLOAT
    CASES.append((f"bilinear2d bwd {_bd} 8x64 128x128->64x64", case(2, 8, 64, (64, 64), (128, 128), _bd, True)))
    CASES.append((f"bicubic2d fwd {_dt} 8x64 64x64->96x96", case("cubic", 8, 64, (64, 64), (96, 96), _dt, False)))
    CASES.append((f"bicubic2d bwd {_dt} 8x64 96x96->64x64", case("cubic", 8, 64, (64, 64), (96, 96), _dt, True)))
CASES.append(("linear1d fwd f32 32x64 1000->1500", case(1, 32, 64, (1000,), (1500,), "f32", False)))
CASES.append(("linear1d bwd f32 32x64 1500->1000", case(1, 32, 64, (1000,), (1500,), "f32", True)))
CASES.append(("trilinear3d fwd f32 2x32 16x32x32->32x64x64", case(3, 2, 32, (16, 32, 32), (32, 64, 64), "f32", False)))
CASES.append(("trilinear3d bwd f32 2x32 32x64x64->16x32x32", case(3, 2, 32, (16, 32, 32), (32, 64, 64), "f32", True)))
CASES.append(("bilinear2d_aa fwd f32 8x64 128x128->48x48", case("aa", 8, 64, (128, 128), (48, 48), "f32", False)))
CASES.append(("bilinear2d_aa bwd f32 8x64 48x48->128x128", case("aa", 8, 64, (128, 128), (48, 48), "f32", True)))
CASES.append(("bicubic2d_aa fwd f32 8x64 128x128->48x48", case("aacubic", 8, 64, (128, 128), (48, 48), "f32", False)))
CASES.append(("bicubic2d_aa bwd f32 8x64 48x48->128x128", case("aacubic", 8, 64, (128, 128), (48, 48), "f32", True)))
