"""Numeric robustness across all eight ops.

1. No op writes outside its output view: each output is a strided view (every other element) into one device
   buffer with a guard region before and after it; the whole buffer is filled with a canary pattern first, and
   every byte that is not an element of the view must still hold the pattern afterwards. Every op, every dtype.
2. NaN and +-Inf in the data propagate the way the float64 reference loops (tests/reference, PyTorch semantics)
   and PyTorch itself say: at least one case per op.
"""
import numpy as np
import pytest

import pyaclnn
from helpers import BF16, TOL, run_executor, ws_call
from pyaclnn import ffi, lib
from reference.avg_pool import avg_pool2d as ref_avg
from reference.avg_pool import avg_pool2d_backward as ref_avg_bwd
from reference.grid_sampler import grid_sample_backward_ref, grid_sample_ref
from reference.msda import msda_backward as ref_msda_bwd
from reference.msda import msda_forward as ref_msda
from reference.upsample import upsample_backward as ref_up_bwd
from reference.upsample import upsample_forward as ref_up

ACL_DT = {np.dtype(np.float32): 0, np.dtype(np.float16): 1, BF16: 27, np.dtype(np.float64): 11,
          np.dtype(np.int32): 3, np.dtype(np.int64): 9, np.dtype(np.uint8): 4}
ND, NCHW = 2, 0
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the float64 loops meet NaN/Inf on purpose
GUARD = 24      # elements of canary before and after each output view
CANARY = 0xA5


class Dev:
    """Device buffers and tensors of one op call, released at the end."""

    def __init__(self):
        pyaclnn.ensure_device()
        self.ptrs, self.keep = [], []

    def alloc(self, nbytes):
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, max(nbytes, 1), 0) == 0
        self.ptrs.append(p[0])
        return p[0]

    def tensor(self, shape, dtype, data, strides=None, offset=0, fmt=ND):
        dims = ffi.new("int64_t[]", list(shape) or [0])
        st = ffi.new("int64_t[]", list(strides)) if strides is not None else ffi.NULL
        t = lib.aclCreateTensor(dims, len(shape), ACL_DT[np.dtype(dtype)], st, offset, fmt, dims, len(shape), data)
        assert t != ffi.NULL
        self.keep.append(t)
        return t

    def input(self, arr, fmt=ND):
        arr = np.ascontiguousarray(arr)
        p = self.alloc(arr.nbytes)
        assert lib.aclrtMemcpy(p, arr.nbytes, ffi.from_buffer(arr), arr.nbytes, 1) == 0
        return self.tensor(arr.shape, arr.dtype, p, fmt=fmt)

    def guarded_output(self, shape, dtype, fmt=ND):
        """A view with doubled strides at element offset GUARD inside a canary-filled buffer."""
        dtype = np.dtype(dtype)
        n = int(np.prod(shape))
        total = 2 * GUARD + 2 * max(n, 1)
        p = self.alloc(total * dtype.itemsize)
        assert lib.aclrtMemset(p, total * dtype.itemsize, CANARY, total * dtype.itemsize) == 0
        strides, s = [], 2
        for d in reversed(shape):
            strides.insert(0, s)
            s *= d
        t = self.tensor(shape, dtype, p, strides=strides, offset=GUARD, fmt=fmt)
        return t, (p, total, n, dtype)

    def check_guards(self, out):
        p, total, n, dtype = out
        raw = np.empty(total * dtype.itemsize, np.uint8)
        assert lib.aclrtMemcpy(ffi.from_buffer(raw), raw.nbytes, p, raw.nbytes, 2) == 0
        elems = raw.reshape(total, dtype.itemsize)
        inside = np.zeros(total, bool)
        inside[GUARD + 2 * np.arange(n)] = True
        outside = elems[~inside]
        bad = np.nonzero((outside != CANARY).any(axis=1))[0]
        assert bad.size == 0, f"{bad.size} element(s) outside the output view were written"
        return elems[inside].copy().view(dtype).reshape(-1)

    def close(self):
        for t in self.keep:
            lib.aclDestroyTensor(t)
        for p in self.ptrs:
            lib.aclrtFree(p)
        lib.aclGetRecentErrMsg()


def int_array(dev, values):
    a = lib.aclCreateIntArray(ffi.new("int64_t[]", list(values)), len(values))
    dev.keep_arrays = getattr(dev, "keep_arrays", []) + [ffi.gc(a, lib.aclDestroyIntArray)]
    return a


def rnd(shape, dtype, seed, lo=-1.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def build(op, dev, dt):
    """(phase-1 args, guarded outputs) for one representative call of `op` in dtype dt."""
    if op == "AvgPool2d":
        y, gy = dev.guarded_output((2, 3, 4, 4), dt, NCHW)
        args = [dev.input(rnd((2, 3, 7, 7), dt, 1), NCHW), int_array(dev, [3, 3]), int_array(dev, [2, 2]),
                int_array(dev, [1, 1]), False, True, 0, 0, y]
        return args, [gy]
    if op == "AvgPool2dBackward":
        gi, ggi = dev.guarded_output((2, 3, 7, 7), dt, NCHW)
        args = [dev.input(rnd((2, 3, 4, 4), dt, 2), NCHW), dev.input(rnd((2, 3, 7, 7), dt, 3), NCHW),
                int_array(dev, [3, 3]), int_array(dev, [2, 2]), int_array(dev, [1, 1]), False, True, 0, 0, gi]
        return args, [ggi]
    if op == "GridSampler2D":
        y, gy = dev.guarded_output((2, 3, 4, 5), dt)
        args = [dev.input(rnd((2, 3, 6, 6), dt, 4)), dev.input(rnd((2, 4, 5, 2), dt, 5, -1.2, 1.2)), 0, 0, False, y]
        return args, [gy]
    if op == "GridSampler2DBackward":
        gi, ggi = dev.guarded_output((2, 3, 6, 6), dt)
        gg, ggg = dev.guarded_output((2, 4, 5, 2), dt)
        mask = lib.aclCreateBoolArray(ffi.new("bool[]", [True, True]), 2)
        dev.keep_mask = ffi.gc(mask, lib.aclDestroyBoolArray)
        args = [dev.input(rnd((2, 3, 4, 5), dt, 6)), dev.input(rnd((2, 3, 6, 6), dt, 7)),
                dev.input(rnd((2, 4, 5, 2), dt, 8, -1.2, 1.2)), 0, 0, False, mask, gi, gg]
        return args, [ggi, ggg]
    if op in ("MultiScaleDeformableAttnFunction", "MultiScaleDeformableAttentionGrad"):
        shapes = np.array([[3, 4], [2, 2]], np.int64)
        start = np.array([0, 12], np.int64)
        value = rnd((1, 16, 2, 8), dt, 9)
        loc = rnd((1, 32, 2, 2, 2, 2), dt, 10, -0.1, 1.1)
        attn = rnd((1, 32, 2, 2, 2), dt, 11, 0, 1)
        ins = [dev.input(value), dev.input(shapes), dev.input(start), dev.input(loc), dev.input(attn)]
        if op == "MultiScaleDeformableAttnFunction":
            o, go = dev.guarded_output((1, 32, 16), dt)
            return ins + [o], [go]
        gv, ggv = dev.guarded_output((1, 16, 2, 8), dt)
        gl, ggl = dev.guarded_output((1, 32, 2, 2, 2, 2), dt)
        ga, gga = dev.guarded_output((1, 32, 2, 2, 2), dt)
        return ins + [dev.input(rnd((1, 32, 16), dt, 12)), gv, gl, ga], [ggv, ggl, gga]
    if op == "UpsampleNearestExact2d":
        y, gy = dev.guarded_output((2, 3, 7, 5), dt, NCHW)
        x = rnd((2, 3, 3, 4), np.float32, 13) * 100 if dt == np.uint8 else rnd((2, 3, 3, 4), dt, 13)
        return [dev.input(np.abs(x).astype(dt), NCHW), int_array(dev, [7, 5]), 0.0, 0.0, y], [gy]
    assert op == "UpsampleNearestExact2dBackward"
    gi, ggi = dev.guarded_output((2, 3, 3, 4), dt, NCHW)
    args = [dev.input(rnd((2, 3, 7, 5), dt, 14), NCHW), int_array(dev, [7, 5]), int_array(dev, [2, 3, 3, 4]),
            0.0, 0.0, gi]
    return args, [ggi]


F = [np.dtype(np.float32), np.dtype(np.float16), BF16]
CASES = [("AvgPool2d", F), ("AvgPool2dBackward", F), ("GridSampler2D", F + [np.dtype(np.float64)]),
         ("GridSampler2DBackward", F + [np.dtype(np.float64)]), ("MultiScaleDeformableAttnFunction", F),
         ("MultiScaleDeformableAttentionGrad", F), ("UpsampleNearestExact2d", F + [np.dtype(np.uint8)]),
         ("UpsampleNearestExact2dBackward", F)]


@pytest.mark.parametrize("op,dt", [(op, dt) for op, dts in CASES for dt in dts],
                         ids=[f"{op}-{np.dtype(dt).name}" for op, dts in CASES for dt in dts])
def test_no_write_outside_the_output_view(op, dt):
    dev = Dev()
    try:
        args, outs = build(op, dev, dt)
        rc, _, ex, msg = ws_call(op, *args)
        assert rc == 0, msg
        assert run_executor(op, ex) == 0, pyaclnn.recent_error_message()
        for o in outs:
            vals = dev.check_guards(o)
            if o[3].kind == "f":
                assert np.isfinite(vals.astype(np.float64)).all()  # every view element was written
    finally:
        dev.close()


def test_the_guard_check_catches_a_stray_write():
    dev = Dev()
    try:
        _, g = dev.guarded_output((2, 3), np.float32)
        stray = ffi.cast("char *", g[0]) + (GUARD + 1) * 4   # between two view elements
        assert lib.aclrtMemset(stray, 4, 0, 4) == 0
        with pytest.raises(AssertionError, match="outside the output view"):
            dev.check_guards(g)
    finally:
        dev.close()


# ---------------------------------------------------------------- NaN / Inf propagation

def f64(a):
    return np.asarray(a).astype(np.float64)


def same_nonfinite(actual, expected, what=""):
    """NaN positions, +Inf and -Inf positions agree exactly; finite values close (per-dtype tolerance)."""
    rtol, atol = TOL[np.dtype(actual.dtype)]
    a, e = f64(actual), f64(expected)
    assert a.shape == e.shape, what
    np.testing.assert_array_equal(np.isnan(a), np.isnan(e), err_msg=f"{what}: NaN positions")
    np.testing.assert_array_equal(np.isposinf(a), np.isposinf(e), err_msg=f"{what}: +Inf positions")
    np.testing.assert_array_equal(np.isneginf(a), np.isneginf(e), err_msg=f"{what}: -Inf positions")
    m = np.isfinite(e)
    scale = float(np.max(np.abs(e[m]))) if m.any() else 0.0
    np.testing.assert_allclose(a[m], e[m], rtol=rtol, atol=max(atol, 2 * rtol * scale), err_msg=what)
    assert (~m).any(), f"{what}: the case must actually produce non-finite values"


def poisoned(shape, seed, dtype=np.float32):
    x = rnd(shape, np.float64, seed)
    flat = x.reshape(-1)
    flat[::7] = np.nan
    flat[3::11] = np.inf
    flat[5::13] = -np.inf
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", F, ids=["f32", "f16", "bf16"])
def test_avg_pool_nan_inf(dtype, torch_or_none):
    x = poisoned((1, 2, 7, 7), 20, dtype)
    y = pyaclnn.avg_pool2d(x, kernel_size=3, stride=2, padding=1)
    same_nonfinite(y, ref_avg(f64(x), (3, 3), (2, 2), (1, 1)), "avg_pool2d")
    if torch_or_none is not None:
        t = torch_or_none.nn.functional.avg_pool2d(torch_or_none.tensor(f64(x)), 3, 2, 1).numpy()
        same_nonfinite(y, t, "avg_pool2d vs torch")
    g = poisoned((1, 2, 4, 4), 21, dtype)
    gi = pyaclnn.avg_pool2d_backward(g, x, kernel_size=3, stride=2, padding=1)
    same_nonfinite(gi, ref_avg_bwd(f64(g), x.shape, (3, 3), (2, 2), (1, 1)), "avg_pool2d_backward")


@pytest.mark.parametrize("dtype", F, ids=["f32", "f16", "bf16"])
def test_upsample_nan_inf(dtype, torch_or_none):
    x = poisoned((1, 2, 3, 4), 22, dtype)
    y = pyaclnn.upsample_nearest_exact2d(x, (7, 9))
    same_nonfinite(y, ref_up(f64(x), (7, 9)), "upsample forward")  # NaN/Inf copied to exactly its neighbours
    if torch_or_none is not None:
        t = torch_or_none.nn.functional.interpolate(torch_or_none.tensor(f64(x)), size=(7, 9), mode="nearest-exact")
        same_nonfinite(y, t.numpy(), "upsample forward vs torch")
    g = poisoned((1, 2, 7, 9), 23, dtype)
    gi = pyaclnn.upsample_nearest_exact2d_backward(g, (7, 9), (1, 2, 3, 4))
    same_nonfinite(gi, ref_up_bwd(f64(g), (3, 4)), "upsample backward")


@pytest.mark.parametrize("dtype", F + [np.dtype(np.float64)], ids=["f32", "f16", "bf16", "f64"])
def test_grid_sampler_nan_inf_values(dtype, torch_or_none):
    """Non-finite input *values* (finite coordinates): every tap that reads one carries it, as in PyTorch."""
    x = poisoned((1, 2, 5, 6), 24, dtype)
    grid = rnd((1, 4, 3, 2), dtype, 25, -1.1, 1.1)
    y = pyaclnn.grid_sampler2d(x, grid)
    same_nonfinite(y, grid_sample_ref(f64(x), f64(grid)), "grid_sampler2d")
    if torch_or_none is not None:
        tt = torch_or_none
        t = tt.nn.functional.grid_sample(tt.tensor(f64(x)), tt.tensor(f64(grid)), mode="bilinear",
                                         padding_mode="zeros", align_corners=False).numpy()
        same_nonfinite(y, t, "grid_sampler2d vs torch")
    go = poisoned((1, 2, 4, 3), 26, dtype)
    gi, gg = pyaclnn.grid_sampler2d_backward(go, x, grid)
    ri, _ = grid_sample_backward_ref(f64(go), f64(x), f64(grid))
    same_nonfinite(gi, ri, "grid_sampler2d_backward input grad")
    if torch_or_none is not None:
        # the grid gradient against autograd only: the numpy loop also multiplies the zero of an out-of-range
        # tap by an infinite gradient (NaN), where PyTorch skips the tap (+-Inf)
        tt = torch_or_none
        tx = tt.tensor(f64(x), requires_grad=True)
        tg = tt.tensor(f64(grid), requires_grad=True)
        tt.nn.functional.grid_sample(tx, tg, align_corners=False).backward(tt.tensor(f64(go)))
        same_nonfinite(gi, tx.grad.numpy(), "grid_sampler2d_backward input grad vs torch")
        same_nonfinite(gg, tg.grad.numpy(), "grid_sampler2d_backward grid grad vs torch")


@pytest.mark.parametrize("dtype", F, ids=["f32", "f16", "bf16"])
def test_msda_nan_inf_values(dtype):
    shapes = np.array([[3, 4], [2, 2]], np.int32)
    start = np.array([0, 12], np.int32)
    value = poisoned((1, 16, 2, 8), 27, dtype)
    loc = rnd((1, 32, 2, 2, 2, 2), dtype, 28, 0.05, 0.95)
    attn = rnd((1, 32, 2, 2, 2), dtype, 29, 0, 1)
    out = pyaclnn.multi_scale_deformable_attn(value, shapes, start, loc, attn)
    same_nonfinite(out, ref_msda(f64(value), shapes, start, f64(loc), f64(attn)), "msda forward")
    go = poisoned((1, 32, 16), 30, dtype)
    gv, gl, ga = pyaclnn.multi_scale_deformable_attn_backward(value, shapes, start, loc, attn, go)
    rv, rl, ra = ref_msda_bwd(f64(value), shapes, start, f64(loc), f64(attn), f64(go))
    same_nonfinite(gv, rv, "msda grad_value")
    same_nonfinite(ga, ra, "msda grad_attn_weight")
    same_nonfinite(gl, rl, "msda grad_location")


@pytest.fixture
def torch_or_none():
    import os
    if os.environ.get("PYACLNN_SKIP_TORCH"):
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch
