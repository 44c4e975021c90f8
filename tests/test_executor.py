"""Executor lifecycle (SPEC §0, §1.7), exercised through aclnnAvgPool2d at the C level: consumption, repeatable
executors with retargeted addresses, stale/foreign/mismatched executors, workspace rules, the reshape-twice case."""
import numpy as np

import pyaclnn
from pyaclnn import ffi, lib
from helpers import ws_call, run_executor

pyaclnn.ensure_device()
NCHW = lib.ACL_FORMAT_NCHW


def pool_ref(x):
    """2x2 stride-2 average pooling, literal."""
    n, c, h, w = x.shape
    out = np.zeros((n, c, h // 2, w // 2))
    for i in range(h // 2):
        for j in range(w // 2):
            out[:, :, i, j] = x[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2].astype(np.float64).sum(axis=(2, 3)) / 4
    return out


def plan(x, y):
    k = pyaclnn.int_array([2, 2])
    s = pyaclnn.int_array([2, 2])
    p = pyaclnn.int_array([0, 0])
    rc, ws, ex, msg = ws_call("AvgPool2d", x, k, s, p, False, True, 0, 0, y)
    assert rc == 0, msg
    return ex, ws, (k, s, p)


def test_executor_is_consumed_by_the_run():
    xa = np.random.default_rng(0).random((1, 2, 4, 4), dtype=np.float32)
    x = pyaclnn.AclTensor.from_array(xa, NCHW)
    y = pyaclnn.AclTensor.empty((1, 2, 2, 2), np.float32, NCHW)
    ex, ws, keep = plan(x, y)
    assert run_executor("AvgPool2d", ex, ws) == 0
    np.testing.assert_allclose(y.numpy(), pool_ref(xa), rtol=1e-6)
    assert run_executor("AvgPool2d", ex, ws) == 161002            # consumed: reported, not a use-after-free
    assert "not a live executor" in pyaclnn.recent_error_message()
    assert lib.aclDestroyAclOpExecutor(ex) == 561000


def test_repeatable_executor_runs_again_with_new_addresses():
    rng = np.random.default_rng(1)
    a, b = rng.random((1, 2, 4, 4), dtype=np.float32), rng.random((1, 2, 4, 4), dtype=np.float32)
    x = pyaclnn.AclTensor.from_array(a, NCHW)
    y = pyaclnn.AclTensor.empty((1, 2, 2, 2), np.float32, NCHW)
    ex, ws, keep = plan(x, y)
    assert lib.aclSetAclOpExecutorRepeatable(ex) == 0
    assert run_executor("AvgPool2d", ex, ws) == 0
    np.testing.assert_allclose(y.numpy(), pool_ref(a), rtol=1e-6)
    # retarget input 0 and output 0 to new buffers and run again
    x2 = pyaclnn.AclTensor.from_array(b, NCHW)
    y2 = pyaclnn.AclTensor.empty((1, 2, 2, 2), np.float32, NCHW)
    assert lib.aclSetInputTensorAddr(ex, 0, x.handle, x2.buffer.ptr) == 0
    assert lib.aclSetOutputTensorAddr(ex, 0, y.handle, y2.buffer.ptr) == 0
    assert run_executor("AvgPool2d", ex, ws) == 0
    np.testing.assert_allclose(y2.numpy(), pool_ref(b), rtol=1e-6)
    # global index: inputs first, then outputs
    assert lib.aclSetTensorAddr(ex, 1, y.handle, y.buffer.ptr) == 0
    assert lib.aclSetInputTensorAddr(ex, 5, x.handle, x.buffer.ptr) == 161002
    small = pyaclnn.DeviceBuffer(8)
    assert lib.aclSetInputTensorAddr(ex, 0, x.handle, small.ptr) == 161002   # view no longer fits its memory
    assert "outside" in pyaclnn.recent_error_message()
    assert lib.aclSetInputTensorAddr(ex, 0, x.handle, x.buffer.ptr) == 0
    assert run_executor("AvgPool2d", ex, ws) == 0
    assert lib.aclDestroyAclOpExecutor(ex) == 0
    assert lib.aclDestroyAclOpExecutor(ex) == 561000


def test_executor_of_another_op_is_rejected():
    x = pyaclnn.AclTensor.from_array(np.ones((1, 1, 4, 4), np.float32), NCHW)
    y = pyaclnn.AclTensor.empty((1, 1, 2, 2), np.float32, NCHW)
    ex, ws, keep = plan(x, y)
    assert run_executor("AvgPool2dBackward", ex, ws) == 161002
    assert "aclnnAvgPool2dGetWorkspaceSize" in pyaclnn.recent_error_message()
    assert run_executor("AvgPool2d", ex, ws) == 0                 # still alive for its own op


def test_run_phase_null_rules():
    assert lib.aclnnAvgPool2d(ffi.NULL, 0, ffi.NULL, ffi.NULL) == 161001
    x = pyaclnn.AclTensor.from_array(np.ones((1, 1, 4, 4), np.float32), NCHW)
    y = pyaclnn.AclTensor.empty((1, 1, 2, 2), np.float32, NCHW)
    ex, ws, keep = plan(x, y)
    assert lib.aclnnAvgPool2d(ffi.NULL, 64, ex, ffi.NULL) == 161001   # workspaceSize > 0 with NULL workspace
    assert lib.aclnnAvgPool2d(ffi.NULL, 0, ex, ffi.NULL) == 161002    # ... and the executor was destroyed
    ex, ws, keep = plan(x, y)
    assert lib.aclnnAvgPool2d(ffi.NULL, 0, ex, ffi.cast("void *", 0x10)) == 361001   # not a stream


def test_plan_twice_then_run_both():
    """XNNPACK's reshape-twice: two plans with different shapes coexist and each runs its own shape."""
    rng = np.random.default_rng(2)
    a, b = rng.random((1, 1, 4, 4), dtype=np.float32), rng.random((2, 3, 8, 6), dtype=np.float32)
    xa, xb = pyaclnn.AclTensor.from_array(a, NCHW), pyaclnn.AclTensor.from_array(b, NCHW)
    ya, yb = pyaclnn.AclTensor.empty((1, 1, 2, 2), np.float32, NCHW), pyaclnn.AclTensor.empty((2, 3, 4, 3), np.float32, NCHW)
    exa, wsa, ka = plan(xa, ya)
    exb, wsb, kb = plan(xb, yb)
    assert run_executor("AvgPool2d", exb, wsb) == 0
    assert run_executor("AvgPool2d", exa, wsa) == 0
    np.testing.assert_allclose(ya.numpy(), pool_ref(a), rtol=1e-6)
    np.testing.assert_allclose(yb.numpy(), pool_ref(b), rtol=1e-6)


def test_tensor_outside_device_memory_is_rejected():
    host = np.ones(16, np.float32)
    d = ffi.new("int64_t[]", [1, 1, 4, 4])
    t = lib.aclCreateTensor(d, 4, 0, ffi.NULL, 0, NCHW, d, 4, ffi.from_buffer(host))
    y = pyaclnn.AclTensor.empty((1, 1, 2, 2), np.float32, NCHW)
    k = pyaclnn.int_array([2])
    rc, _, _, msg = ws_call("AvgPool2d", t, k, k, pyaclnn.int_array([0]), False, True, 0, 0, y)
    assert rc == 161002 and "self" in msg and "device memory" in msg
    # a view whose offset runs past its allocation
    buf = pyaclnn.DeviceBuffer(64)
    t2 = lib.aclCreateTensor(d, 4, 0, ffi.NULL, 4, NCHW, d, 4, buf.ptr)
    rc, _, _, msg = ws_call("AvgPool2d", t2, k, k, pyaclnn.int_array([0]), False, True, 0, 0, y)
    assert rc == 161002 and "outside" in msg
    lib.aclDestroyTensor(t)
    lib.aclDestroyTensor(t2)
