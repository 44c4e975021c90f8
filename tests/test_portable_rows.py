"""The portable fp16/bf16 row conversions (libsrc/common/half_rows.h) in the kernels that use them give the same
bytes as the SIMD variants: every op below runs at PYACLNN_SIMD=off and at the default level and the digests of
all results must agree. Inputs hold Inf, NaN, -0 and fp16-subnormal values and odd row lengths (the 8-wide blocks
and their tails), contiguous rows (the converted paths) and a strided view (the element paths)."""
from helpers import SPECIAL_DATA, run_python

CODE = r"""
import hashlib, numpy as np, pyaclnn
from pyaclnn import launch, int_array
T, E = pyaclnn.AclTensor.from_array, pyaclnn.AclTensor.empty
rng = np.random.default_rng(5)
h = hashlib.sha256()
""" + SPECIAL_DATA + r"""def run(op, outs, *args):
    launch(op, *args)
    for o in outs: h.update(o.numpy().tobytes())
for dt in (np.float16, pyaclnn.bfloat16):
    for (n, c, H, W) in ((2, 3, 13, 19), (1, 2, 8, 32)):
        x = data((n, c, H, W), dt)
        xs = data((n, c, H, 2 * W), dt)[..., ::2]          # a strided view: the element paths
        for xx in (x, xs):
            # nearest-exact 2-D backward (x2 and a ratio) and the nearest 3-D backward
            for (ho, wo) in ((H * 2, W * 2), (H + 5, W + 3)):
                g = data((n, c, ho, wo), dt)
                y = E((n, c, H, W), dt)
                run("UpsampleNearestExact2dBackward", [y], T(g), int_array([ho, wo]), int_array([n, c, H, W]), 0.0, 0.0, y)
            g3 = data((n, c, 4, H * 2, W * 2), dt)
            y3 = E((n, c, 2, H, W), dt)
            run("UpsampleNearest3dBackward", [y3], T(g3), int_array([4, H * 2, W * 2]), int_array([n, c, 2, H, W]),
                0.0, 0.0, 0.0, y3)
            # bilinear forward and backward (the separable engine's row loads / stores)
            NCHW = pyaclnn.lib.ACL_FORMAT_NCHW
            yb = E((n, c, 2 * H + 1, 2 * W - 3), dt, NCHW)
            run("UpsampleBilinear2d", [yb], T(xx, NCHW), int_array([2 * H + 1, 2 * W - 3]), False, 0.0, 0.0, yb)
            if dt == np.float16:  # (its A2 list has no bf16)
                gb = data((n, c, 2 * H + 1, 2 * W - 3), dt)
                yg = E((n, c, H, W), dt, NCHW)
                run("UpsampleBilinear2dBackward", [yg], T(gb, NCHW), int_array([2 * H + 1, 2 * W - 3]),
                    int_array([n, c, H, W]), False, 0.0, 0.0, yg)
            # average pooling forward / backward
            h.update(pyaclnn.avg_pool2d(xx, 3, stride=2, padding=1).tobytes())
            h.update(pyaclnn.avg_pool2d(xx, 2, stride=2).tobytes())
            go = data((n, c, (H + 1) // 2, (W + 1) // 2), dt)
            h.update(pyaclnn.avg_pool2d_backward(go, xx, 3, stride=2, padding=1).tobytes())
        # grid sampler 3-D (plane conversions)
        x3 = data((n, c, 5, H, W), dt)
        g3 = rng.uniform(-1.2, 1.2, (n, 4, 6, 7, 3)).astype(dt)
        o3 = E((n, c, 4, 6, 7), dt)
        run("GridSampler3D", [o3], T(x3), T(g3), 0, 0, False, o3)
        go3 = data((n, c, 4, 6, 7), dt)
        gi, gg = E(x3.shape, dt), E(g3.shape, dt)
        run("GridSampler3DBackward", [gi, gg], T(go3), T(x3), T(g3), 0, 0, False, pyaclnn.bool_array([True, True]), gi, gg)
    # casts fp16/bf16 <-> fp32, contiguous rows of every length mod 8, signalling NaNs included
    acl = pyaclnn.lib.ACL_FLOAT16 if dt == np.float16 else pyaclnn.lib.ACL_BF16
    for m in (1, 7, 8, 9, 1000, 4099):
        v = data((m,), np.float32)
        v.view(np.uint32)[::17] = 0x7f800001
        c16 = E((m,), dt)
        run("Cast", [c16], T(v), acl, c16)
        w = data((m,), dt)
        w.view(np.uint16)[::13] = 0x7c01 if dt == np.float16 else 0x7f81
        c32 = E((m,), np.float32)
        run("Cast", [c32], T(w), pyaclnn.lib.ACL_FLOAT, c32)
print(h.hexdigest())
"""


def test_portable_rows_identical_bytes_to_the_simd_variants():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "")}
    assert outs["off"] == outs[""]
