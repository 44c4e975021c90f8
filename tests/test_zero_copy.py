"""Zero-copy interop: the public ops pass numpy arrays, PyTorch CPU tensors and DLPack objects to the library as
strided views over their own memory, registered with aclrtHostRegister only for the duration of the call.

"No copy" is proven by reading back, through the library's own accessors (aclGetRawTensorAddr,
aclGetViewStrides, aclGetViewOffset), the tensors each op handed to the C ABI; results are checked against
literal numpy or PyTorch CPU."""
import threading

import numpy as np
import pytest

import pyaclnn
from pyaclnn import lowlevel
from pyaclnn.lowlevel import ffi, lib

BF16 = pyaclnn.bfloat16


def ptr(a):
    return a.__array_interface__["data"][0]


def pool2x2(x):
    """avg_pool2d with kernel 2, stride 2, no padding, in float64 (literal numpy)."""
    x = np.asarray(x, np.float64)
    n, c, h, w = x.shape
    return x[:, :, : h // 2 * 2, : w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5))


def tensors(calls):
    """[(op, [tensor_info of every AclTensor argument in C order])] of the captured launches."""
    return [(op, [lowlevel.tensor_info(a) for a in args if isinstance(a, lowlevel.AclTensor)]) for op, args in calls]


def assert_view_of(info, arr):
    assert info["addr"] == ptr(arr), "the library got a copy, not the array's memory"
    assert info["offset"] == 0
    assert info["shape"] == arr.shape
    assert info["strides"] == tuple(s // arr.itemsize for s in arr.strides)


# ------------------------------------------------------------------------------------------------ numpy


@pytest.mark.parametrize("view", ["contiguous", "slice", "transpose", "offset"])
def test_numpy_input_and_out_are_passed_in_place(view):
    base = np.random.default_rng(0).standard_normal((2, 3, 8, 12)).astype(np.float32)
    if view == "contiguous":
        x = base
    elif view == "slice":
        x = np.zeros((2, 3, 8, 25), np.float32)[..., 1::2][..., :12]
        x[...] = base
    elif view == "transpose":
        x = np.ascontiguousarray(base.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)  # channels-last strides
    else:
        x = np.zeros((3, 3, 8, 12), np.float32)[1:]
        x[...] = base
    big_out = np.full((2, 3, 4, 13), -1.0, np.float32)
    out = big_out[..., 1:7]
    with lowlevel.capture_launches() as calls:
        y = pyaclnn.avg_pool2d(x, 2, 2, out=out)
    assert y is out
    (op, (xi, yi)), = tensors(calls)
    assert op == "AvgPool2d"
    assert_view_of(xi, x)
    assert_view_of(yi, out)
    np.testing.assert_allclose(out, pool2x2(base), rtol=1e-6, atol=1e-6)
    assert np.all(big_out[..., 0] == -1) and np.all(big_out[..., 7:] == -1), "wrote outside the out view"
    assert lowlevel.registered_ranges() == {}


def test_new_output_is_written_directly_into_the_returned_array():
    x = np.random.default_rng(1).standard_normal((1, 2, 6, 6)).astype(np.float32)
    with lowlevel.capture_launches() as calls:
        y = pyaclnn.avg_pool2d(x, 2)
    (_, (_, yi)), = tensors(calls)
    assert_view_of(yi, y)
    np.testing.assert_allclose(y, pool2x2(x), rtol=1e-6, atol=1e-6)


def test_negative_strides_fall_back_to_a_copy():
    base = np.random.default_rng(2).standard_normal((1, 2, 6, 8)).astype(np.float32)
    x = base[:, ::-1, ::-1, ::-1]
    out = np.zeros((1, 2, 3, 4), np.float32)[:, :, ::-1]
    with lowlevel.capture_launches() as calls:
        pyaclnn.avg_pool2d(x, 2, out=out)
    (_, (xi, yi)), = tensors(calls)
    assert xi["addr"] != ptr(x) and yi["addr"] != ptr(out)  # copies (the library accepts no negative stride)
    np.testing.assert_allclose(out, pool2x2(np.ascontiguousarray(x)), rtol=1e-6, atol=1e-6)
    assert lowlevel.registered_ranges() == {}


def test_unaligned_arrays_fall_back_to_a_copy():
    raw = bytearray(4 * 64 + 1)
    x = np.frombuffer(raw, np.float32, count=64, offset=1).reshape(1, 1, 8, 8)
    x[...] = np.arange(64, dtype=np.float32).reshape(1, 1, 8, 8)
    out = np.frombuffer(bytearray(4 * 16 + 3), np.float32, count=16, offset=3).reshape(1, 1, 4, 4)
    assert not x.flags.aligned and not out.flags.aligned
    with lowlevel.capture_launches() as calls:
        pyaclnn.avg_pool2d(x, 2, out=out)
    (_, (xi, yi)), = tensors(calls)
    assert xi["addr"] != ptr(x) and yi["addr"] != ptr(out)
    np.testing.assert_allclose(out, pool2x2(x), rtol=1e-6, atol=1e-6)


def test_read_only_input_is_fine_read_only_out_is_an_error():
    x = np.random.default_rng(3).standard_normal((1, 1, 4, 4)).astype(np.float32)
    x.flags.writeable = False
    with lowlevel.capture_launches() as calls:
        y = pyaclnn.avg_pool2d(x, 2)
    assert_view_of(tensors(calls)[0][1][0], x)
    np.testing.assert_allclose(y, pool2x2(x), rtol=1e-6, atol=1e-6)
    out = np.zeros((1, 1, 2, 2), np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        pyaclnn.avg_pool2d(x, 2, out=out)
    with pytest.raises(ValueError, match="zero stride"):
        pyaclnn.avg_pool2d(x, 2, out=np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (1, 1, 2, 2),
                                                                     (0, 0, 0, 0)))
    with pytest.raises(ValueError, match="shape"):
        pyaclnn.avg_pool2d(x, 2, out=np.zeros((1, 1, 3, 2), np.float32))
    assert lowlevel.registered_ranges() == {}


def test_input_and_output_in_one_buffer_share_one_registration():
    buf = np.zeros(64 + 16, np.float32)
    x = buf[:64].reshape(1, 1, 8, 8)
    x[...] = np.random.default_rng(4).standard_normal((1, 1, 8, 8))
    out = buf[64:].reshape(1, 1, 4, 4)
    seen = []
    lowlevel_hook = lambda op, args: seen.append(lowlevel.registered_ranges())  # noqa: E731
    from pyaclnn.ops._common import add_launch_hook, remove_launch_hook
    add_launch_hook(lowlevel_hook)
    try:
        pyaclnn.avg_pool2d(x, 2, out=out)
    finally:
        remove_launch_hook(lowlevel_hook)
    assert seen == [{ptr(buf): (buf.nbytes, 2)}]  # the root buffer, registered once, used twice
    np.testing.assert_allclose(out, pool2x2(x), rtol=1e-6, atol=1e-6)
    assert lowlevel.registered_ranges() == {}


def test_two_frombuffer_views_of_one_bytearray_share_the_exporting_buffer():
    raw = bytearray(4 * 80)
    x = np.frombuffer(raw, np.float32, count=64).reshape(1, 1, 8, 8)
    out = np.frombuffer(raw, np.float32, count=16, offset=4 * 64).reshape(1, 1, 4, 4)
    x[...] = np.arange(64).reshape(1, 1, 8, 8)
    with lowlevel.capture_launches() as calls:
        pyaclnn.avg_pool2d(x, 2, out=out)
    (_, (xi, yi)), = tensors(calls)
    assert_view_of(xi, x)
    assert_view_of(yi, out)
    np.testing.assert_allclose(out, pool2x2(x), rtol=1e-6, atol=1e-6)


def test_registration_is_released_when_the_op_raises():
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(pyaclnn.AclnnParamError) as e:
        pyaclnn.avg_pool2d(x, 3, padding=2)  # padding > kernel/2
    assert e.value.code == 161002 and "padding" in e.value.message.lower()
    assert lowlevel.registered_ranges() == {}


def test_guards_still_hold_for_unregistered_caller_memory():
    """Outside a call the array is not registered: a C-level tensor over it is rejected exactly as for C."""
    x = np.ones((1, 1, 4, 4), np.float32)
    pyaclnn.avg_pool2d(x, 2)
    xt = lowlevel.AclTensor(x.shape, x.dtype, None, 0, lib.ACL_FORMAT_NCHW, lowlevel.HostMemory(x))
    yt = lowlevel.AclTensor.empty((1, 1, 2, 2), np.float32, lib.ACL_FORMAT_NCHW)
    with pytest.raises(pyaclnn.AclnnParamError) as e:
        lowlevel.launch("AvgPool2d", xt, lowlevel.int_array([2, 2]), lowlevel.int_array([2, 2]),
                        lowlevel.int_array([0, 0]), False, True, 0, 0, yt)
    assert "aclrtHostRegister" in e.value.message


def test_array_over_device_memory_falls_back_to_a_copy():
    buf = lowlevel.DeviceBuffer(64 * 4)
    x = np.frombuffer(ffi.buffer(buf.ptr, 64 * 4), np.float32).reshape(1, 1, 8, 8)
    x[...] = np.arange(64).reshape(1, 1, 8, 8)
    y = pyaclnn.avg_pool2d(x, 2)
    np.testing.assert_allclose(y, pool2x2(x), rtol=1e-6, atol=1e-6)
    assert lowlevel.registered_ranges() == {}


def test_two_threads_share_one_input_and_one_output_buffer():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 16, 16)).astype(np.float32)
    out = np.zeros((2, 2, 4, 8, 8), np.float32)  # out[:, t] belongs to thread t
    expected = pool2x2(x)
    errors = []

    def work(t):
        try:
            pyaclnn.ensure_device()
            for _ in range(30):
                out[:, t] = 0
                pyaclnn.avg_pool2d(x, 2, out=out[:, t])
                np.testing.assert_allclose(out[:, t], expected, rtol=1e-6, atol=1e-6)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    assert lowlevel.registered_ranges() == {}


# ------------------------------------------------------------------------------------------------ PyTorch


def tptr(t):
    return t.data_ptr()


def assert_torch_view(info, t):
    assert info["addr"] == tptr(t), "the library got a copy of the torch tensor"
    assert info["shape"] == tuple(t.shape)
    assert info["strides"] == tuple(t.stride())


def msda_torch(torch, value, shapes, loc, attn):
    """mmcv's multi_scale_deformable_attn_pytorch (grid_sample form), for the oracle."""
    F = torch.nn.functional
    bs, _, nh, c = value.shape
    _, nq, _, nl, npt, _ = loc.shape
    levels = value.split([h * w for h, w in shapes], dim=1)
    sampled = []
    for lv, (h, w) in enumerate(shapes):
        v = levels[lv].flatten(2).transpose(1, 2).reshape(bs * nh, c, h, w)
        g = (2 * loc[:, :, :, lv] - 1).transpose(1, 2).flatten(0, 1)
        sampled.append(F.grid_sample(v, g, mode="bilinear", padding_mode="zeros", align_corners=False))
    a = attn.transpose(1, 2).reshape(bs * nh, 1, nq, nl * npt)
    return (torch.stack(sampled, dim=-2).flatten(-2) * a).sum(-1).view(bs, nh * c, nq).transpose(1, 2)


def close(got, ref, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), ref.detach().double().numpy(), rtol=tol, atol=tol)


def run_case(torch, name):
    """(inputs, call(out), reference outputs, out tensors) of one op on torch tensors."""
    F = torch.nn.functional
    g = torch.Generator().manual_seed(7)
    rnd = lambda *s: torch.randn(*s, generator=g, dtype=torch.float32)  # noqa: E731
    if name == "avg_pool2d":
        x = rnd(2, 3, 9, 10).permute(0, 1, 3, 2)  # non-contiguous
        ref = F.avg_pool2d(x, 3, 2, 1)
        return [x], lambda out: pyaclnn.avg_pool2d(x, 3, 2, 1, out=out[0]), [ref]
    if name == "avg_pool2d_backward":
        x = rnd(2, 3, 9, 10)
        xg = x.clone().requires_grad_()
        y = F.avg_pool2d(xg, 3, 2, 1, ceil_mode=True, count_include_pad=False)
        go = rnd(*y.shape)
        y.backward(go)
        return [go, x], lambda out: pyaclnn.avg_pool2d_backward(go, x, 3, 2, 1, True, False, out=out[0]), [xg.grad]
    if name == "grid_sampler2d":
        x, grid = rnd(2, 3, 7, 6), torch.rand(2, 4, 5, 2, generator=g) * 2.2 - 1.1
        ref = F.grid_sample(x, grid, "bilinear", "border", align_corners=True)
        return [x, grid], lambda out: pyaclnn.grid_sampler2d(x, grid, "bilinear", "border", True, out=out[0]), [ref]
    if name == "grid_sampler2d_backward":
        x, grid = rnd(2, 3, 7, 6), torch.rand(2, 4, 5, 2, generator=g) * 2.2 - 1.1
        go = rnd(2, 3, 4, 5)
        xg, gg = x.clone().requires_grad_(), grid.clone().requires_grad_()
        F.grid_sample(xg, gg, "bilinear", "zeros", align_corners=False).backward(go)
        return [go, x, grid], lambda out: pyaclnn.grid_sampler2d_backward(go, x, grid, out=tuple(out)), \
            [xg.grad, gg.grad]
    if name.startswith("multi_scale"):
        shapes = [(4, 5), (2, 3)]
        value = rnd(2, 26, 2, 8)
        ss = torch.tensor(shapes, dtype=torch.int64)
        start = torch.tensor([0, 20], dtype=torch.int64)
        loc = torch.rand(2, 32, 2, 2, 3, 2, generator=g) * 0.8 + 0.1
        attn = torch.rand(2, 32, 2, 2, 3, generator=g)
        t = [a.double().requires_grad_() for a in (value, loc, attn)]
        ref = msda_torch(torch, t[0], shapes, t[1], t[2])
        if name == "multi_scale_deformable_attn":
            return [value, ss, start, loc, attn], \
                lambda out: pyaclnn.multi_scale_deformable_attn(value, ss, start, loc, attn, out=out[0]), [ref]
        go = rnd(2, 32, 16)
        ref.backward(go.double())
        return [value, ss, start, loc, attn, go], lambda out: pyaclnn.multi_scale_deformable_attn_backward(
            value, ss, start, loc, attn, go, out=tuple(out)), [a.grad for a in t]
    if name == "upsample_nearest_exact2d":
        x = rnd(2, 3, 5, 7)
        ref = F.interpolate(x, size=(8, 11), mode="nearest-exact")
        return [x], lambda out: pyaclnn.upsample_nearest_exact2d(x, (8, 11), out=out[0]), [ref]
    if name == "upsample_nearest_exact2d_backward":
        xg = rnd(2, 3, 5, 7).requires_grad_()
        go = rnd(2, 3, 8, 11)
        F.interpolate(xg, size=(8, 11), mode="nearest-exact").backward(go)
        return [go], lambda out: pyaclnn.upsample_nearest_exact2d_backward(go, (8, 11), (2, 3, 5, 7),
                                                                           out=out[0]), [xg.grad]
    raise ValueError(name)


OPS = ["avg_pool2d", "avg_pool2d_backward", "grid_sampler2d", "grid_sampler2d_backward",
       "multi_scale_deformable_attn", "multi_scale_deformable_attn_backward", "upsample_nearest_exact2d",
       "upsample_nearest_exact2d_backward"]


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("with_out", [False, True], ids=["new", "out"])
def test_torch_round_trip_through_every_op_without_copies(torch, name, with_out):
    inputs, call, refs = run_case(torch, name)
    before = [t.clone() for t in inputs]
    outs = [torch.full(r.shape, 9.0, dtype=torch.float32) for r in refs] if with_out else [None] * len(refs)
    with lowlevel.capture_launches() as calls:
        res = call(outs)
    res = list(res) if isinstance(res, tuple) else [res]
    (_, infos), = tensors(calls)
    for info, t in zip(infos, inputs):
        assert_torch_view(info, t)
    for info, r, o in zip(infos[len(inputs):], res, outs):
        if with_out:
            assert r is o
            assert_torch_view(info, o)
        else:
            assert info["addr"] == ptr(r)
    for r, ref in zip(res, refs):
        close(r, ref)
    for t, b in zip(inputs, before):
        assert torch.equal(t, b), "an input was modified"
    assert lowlevel.registered_ranges() == {}


def test_torch_bfloat16_and_float16_tensors(torch):
    F = torch.nn.functional
    x = torch.randn(2, 3, 8, 8).to(torch.bfloat16)[:, :, :, 1:7]
    with lowlevel.capture_launches() as calls:
        y = pyaclnn.avg_pool2d(x, 2)
    assert_torch_view(tensors(calls)[0][1][0], x)
    assert y.dtype == BF16
    ref = F.avg_pool2d(x.float(), 2).to(torch.bfloat16).float().numpy()
    np.testing.assert_allclose(y.astype(np.float32), ref, rtol=8e-3, atol=8e-3)
    out = torch.zeros(2, 3, 4, 3, dtype=torch.bfloat16)
    pyaclnn.avg_pool2d(x, 2, out=out)
    np.testing.assert_array_equal(out.float().numpy(), y.astype(np.float32))
    h = torch.randn(1, 2, 4, 4, dtype=torch.float16)
    np.testing.assert_array_equal(pyaclnn.upsample_nearest_exact2d(h, (8, 8)),
                                  F.interpolate(h.float(), size=(8, 8), mode="nearest-exact").half().numpy())


def test_torch_requires_grad_and_storage_offset(torch):
    base = torch.randn(3, 2, 6, 6)
    x = base[1:].requires_grad_(False)
    w = torch.randn(2, 2, 6, 6, requires_grad=True)
    for t in (x, w):
        with lowlevel.capture_launches() as calls:
            y = pyaclnn.avg_pool2d(t, 2)
        assert_torch_view(tensors(calls)[0][1][0], t)
        close(y, torch.nn.functional.avg_pool2d(t.detach(), 2))


class DLPackOnly:
    """An object that only speaks DLPack (like a JAX or CuPy-on-CPU array)."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, *args, **kwargs):
        return self.t.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_generic_dlpack_objects(torch, dtype):
    t = torch.randn(1, 2, 8, 9).to(getattr(torch, dtype))[..., 1:]
    obj = DLPackOnly(t)
    with lowlevel.capture_launches() as calls:
        y = pyaclnn.avg_pool2d(obj, 2)
    assert_torch_view(tensors(calls)[0][1][0], t)
    ref = torch.nn.functional.avg_pool2d(t.float(), 2).to(t.dtype).float().numpy()
    tol = 1e-6 if dtype == "float32" else 8e-3
    np.testing.assert_allclose(np.asarray(y, np.float32), ref, rtol=tol, atol=tol)


def test_out_may_alias_the_input():
    x = np.random.default_rng(6).standard_normal((1, 2, 5, 7)).astype(np.float32)
    before = x.copy()
    with lowlevel.capture_launches() as calls:
        y = pyaclnn.upsample_nearest_exact2d(x, (5, 7), out=x)  # identity gather, in place
    (_, (xi, yi)), = tensors(calls)
    assert y is x and xi["addr"] == yi["addr"] == ptr(x)
    np.testing.assert_array_equal(x, before)
    assert lowlevel.registered_ranges() == {}


@pytest.mark.parametrize("kind", ["object", "handle"])
def test_stream_argument(kind):
    s = pyaclnn.Stream()
    stream = s if kind == "object" else int(ffi.cast("uintptr_t", s.handle))
    x = np.random.default_rng(7).standard_normal((1, 2, 6, 6)).astype(np.float32)
    y = pyaclnn.avg_pool2d(x, 2, stream=stream)
    s.synchronize()
    np.testing.assert_allclose(y, pool2x2(x), rtol=1e-6, atol=1e-6)


def test_partially_overlapping_views_fall_back_to_a_copy_for_the_second(torch):
    """Two DLPack views of one storage (each registered as its own span) overlap partially: the one registered
    first is passed in place, the other through a copy (written back after the call for the output)."""
    t = torch.arange(12, dtype=torch.float32)
    a, b = t[0:6].view(1, 1, 1, 6), t[4:10].view(1, 1, 1, 6)
    before = t.clone()
    with lowlevel.capture_launches() as calls:
        pyaclnn.upsample_nearest_exact2d(DLPackOnly(a), (1, 6), out=DLPackOnly(b))
    (_, (ai, bi)), = tensors(calls)
    assert (ai["addr"] == a.data_ptr()) != (bi["addr"] == b.data_ptr())
    expected = before.clone()
    expected[4:10] = before[0:6]
    assert torch.equal(t, expected)
    assert lowlevel.registered_ranges() == {}
