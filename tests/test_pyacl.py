"""The pyACL-compatible ``acl`` module, written the way pyACL programs are: ints for handles and pointers, a status
last in every result, constants defined by the program. The module is used from an installed tree
(``make install PREFIX=<tmp>``; ``$PREFIX/python/site-packages`` is what set_env.sh puts on PYTHONPATH)."""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# constants as pyACL samples define them
ACL_SUCCESS = 0
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_REPEAT_FINALIZE = 100037
ACL_ERROR_RT_PARAM_INVALID = 107000
ACL_ERROR_RT_INVALID_DEVICEID = 107001
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_HBM_MEM = 1
ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
ACL_HOST_REGISTER_MAPPED = 0
NPY_FLOAT32 = 11
NPY_INT32 = 5
NPY_FLOAT16 = 23
DEVICE_ID = 0


def run_script(site_packages, code):
    env = dict(os.environ, PYTHONPATH=site_packages)
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         cwd="/")
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture(scope="module")
def acl(site_packages):
    sys.path.insert(0, site_packages)
    try:
        mod = importlib.import_module("acl")
    finally:
        sys.path.remove(site_packages)
    ret = mod.init()
    assert ret in (ACL_SUCCESS, ACL_ERROR_REPEAT_INITIALIZE)
    assert mod.rt.set_device(DEVICE_ID) == ACL_SUCCESS
    yield mod
    assert mod.rt.reset_device(DEVICE_ID) == ACL_SUCCESS
    mod.finalize()
    for name in [m for m in sys.modules if m == "acl" or m.startswith("acl.")]:
        del sys.modules[name]


def test_acl_is_not_importable_from_the_repository_or_the_package():
    res = subprocess.run([sys.executable, "-c", "import pyaclnn, acl"], cwd=REPO, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=REPO))
    assert res.returncode != 0 and "No module named 'acl'" in res.stderr


def test_the_module_loads_the_library_of_its_own_tree(acl, site_packages):
    prefix = os.path.dirname(os.path.dirname(site_packages))
    assert acl.library_path == os.path.join(prefix, "lib64", "libascendcl.so")


def test_init_and_finalize_lifecycle(site_packages):
    out = run_script(site_packages, """
import acl
print(acl.init(), acl.init(), acl.finalize(), acl.finalize())
""")
    assert out.split() == [str(ACL_SUCCESS), str(ACL_ERROR_REPEAT_INITIALIZE), str(ACL_SUCCESS),
                     str(ACL_ERROR_REPEAT_FINALIZE)]


def test_typical_pyacl_program_data_transfer(site_packages):
    """The data-transfer pattern of the pyACL guide: init, set_device, context, stream, malloc, H2D/D2H."""
    out = run_script(site_packages, """
import numpy as np
import acl

ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 0, 1, 2
ret = acl.init(); assert ret == 0, ret
ret = acl.rt.set_device(0); assert ret == 0, ret
context, ret = acl.rt.create_context(0); assert ret == 0 and context != 0
stream, ret = acl.rt.create_stream(); assert ret == 0 and stream != 0

host = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
size = host.nbytes
dev_ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST); assert ret == 0
ret = acl.rt.memcpy(dev_ptr, size, acl.util.numpy_to_ptr(host), size, ACL_MEMCPY_HOST_TO_DEVICE); assert ret == 0
host_ptr, ret = acl.rt.malloc_host(size); assert ret == 0
ret = acl.rt.memcpy(host_ptr, size, dev_ptr, size, ACL_MEMCPY_DEVICE_TO_HOST); assert ret == 0
ret = acl.rt.synchronize_stream(stream); assert ret == 0
back = np.frombuffer(acl.util.ptr_to_bytes(host_ptr, size), dtype=np.float32).reshape(host.shape)
print(back.sum(), back[1, 2, 3])

assert acl.rt.free_host(host_ptr) == 0
assert acl.rt.free(dev_ptr) == 0
assert acl.rt.destroy_stream(stream) == 0
assert acl.rt.destroy_context(context) == 0
assert acl.rt.reset_device(0) == 0
assert acl.finalize() == 0
""")
    assert out.split() == [str(float(sum(range(24)))), "23.0"]


def test_devices(acl):
    device_id, ret = acl.rt.get_device()
    assert (device_id, ret) == (DEVICE_ID, ACL_SUCCESS)
    count, ret = acl.rt.get_device_count()
    assert ret == ACL_SUCCESS and count == int(os.environ.get("PYACLNN_DEVICE_COUNT", "1"))
    assert acl.get_soc_name() == os.environ.get("PYACLNN_SOC_NAME", "Ascend910B4")
    assert acl.get_recent_err_msg() is None
    ret = acl.rt.set_device(1000)
    assert ret == ACL_ERROR_RT_INVALID_DEVICEID
    msg = acl.get_recent_err_msg()
    assert isinstance(msg, str) and "1000" in msg
    assert acl.get_recent_err_msg() is None  # reading clears it
    major, minor, patch, ret = acl.get_version()
    assert ret == ACL_SUCCESS and major > 0 and minor >= 0 and patch >= 0
    assert acl.rt.synchronize_device() == ACL_SUCCESS
    run_mode, ret = acl.rt.get_run_mode()
    assert ret == ACL_SUCCESS and run_mode in (0, 1)


def test_contexts(acl):
    context, ret = acl.rt.create_context(DEVICE_ID)
    assert ret == ACL_SUCCESS and context != 0
    current, ret = acl.rt.get_context()
    assert ret == ACL_SUCCESS and current == context
    assert acl.rt.set_context(context) == ACL_SUCCESS
    assert acl.rt.destroy_context(context) == ACL_SUCCESS
    assert acl.rt.set_device(DEVICE_ID) == ACL_SUCCESS  # back to the default context


def test_streams_and_events(acl):
    stream, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS and stream != 0
    start, ret = acl.rt.create_event()
    assert ret == ACL_SUCCESS and start != 0
    end, _ = acl.rt.create_event()
    assert acl.rt.record_event(start, stream) == ACL_SUCCESS
    assert acl.rt.record_event(end, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert acl.rt.synchronize_event(end) == ACL_SUCCESS
    status, ret = acl.rt.query_event_status(end)
    assert (status, ret) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)
    ms, ret = acl.rt.event_elapsed_time(start, end)
    assert ret == ACL_SUCCESS and isinstance(ms, float) and ms >= 0.0
    assert acl.rt.stream_wait_event(stream, end) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(0) == ACL_SUCCESS  # the default stream
    status, ret = acl.rt.stream_query(stream)
    assert ret == ACL_SUCCESS and status == 0
    for e in (start, end):
        assert acl.rt.destroy_event(e) == ACL_SUCCESS
    assert acl.rt.destroy_stream(stream) == ACL_SUCCESS
    assert acl.rt.destroy_stream(0) == ACL_ERROR_INVALID_PARAM


def test_memory_round_trip_and_memset(acl):
    data = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    size = data.nbytes
    dev, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS and dev != 0 and dev % 64 == 0
    ret = acl.rt.memcpy(dev, size, acl.util.numpy_to_ptr(data), size, ACL_MEMCPY_HOST_TO_DEVICE)
    assert ret == ACL_SUCCESS
    dev2, _ = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    assert acl.rt.memcpy(dev2, size, dev, size, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS
    back = np.zeros_like(data)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(back), size, dev2, size, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    np.testing.assert_array_equal(back, data)
    # ptr_to_numpy is a view of the memory (no copy)
    view = acl.util.ptr_to_numpy(dev, (4, 5), NPY_FLOAT32)
    np.testing.assert_array_equal(view, data)
    assert acl.rt.memset(dev, size, 0, size) == ACL_SUCCESS
    assert not view.any()
    assert acl.rt.memset(dev, size, 0x3F, 8) == ACL_SUCCESS
    assert view.view(np.uint8).ravel()[:9].tolist() == [0x3F] * 8 + [0]
    for p in (dev, dev2):
        assert acl.rt.free(p) == ACL_SUCCESS


def test_memory_errors_are_status_codes_with_messages(acl):
    acl.get_recent_err_msg()
    dev, ret = acl.rt.malloc(0, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_ERROR_INVALID_PARAM
    assert "size" in acl.get_recent_err_msg()
    dev, _ = acl.rt.malloc(32, ACL_MEM_MALLOC_HUGE_FIRST)
    src = np.zeros(16, np.float32)
    assert acl.rt.memcpy(dev, 32, acl.util.numpy_to_ptr(src), 64, ACL_MEMCPY_HOST_TO_DEVICE) == \
        ACL_ERROR_RT_PARAM_INVALID
    assert "destMax" in acl.get_recent_err_msg()
    assert acl.rt.memcpy(dev, 32, 0, 4, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM
    acl.get_recent_err_msg()
    assert acl.rt.free(dev) == ACL_SUCCESS
    assert acl.rt.free(dev) == ACL_ERROR_RT_PARAM_INVALID  # double free is reported, not a crash
    assert "freed" in acl.get_recent_err_msg()


def test_host_memory_mem_info_and_registration(acl):
    host, ret = acl.rt.malloc_host(100)
    assert ret == ACL_SUCCESS and host != 0
    assert acl.rt.free_host(host) == ACL_SUCCESS
    free, total, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    assert ret == ACL_SUCCESS and 0 < free <= total
    assert total == int(os.environ.get("PYACLNN_DEVICE_MEMORY", 64 << 30))
    buf = np.zeros(256, np.uint8)
    p = acl.util.numpy_to_ptr(buf)
    dev_ptr, ret = acl.rt.host_register(p, buf.nbytes, ACL_HOST_REGISTER_MAPPED)
    assert (dev_ptr, ret) == (p, ACL_SUCCESS)
    assert acl.rt.host_register(p + 8, 8, ACL_HOST_REGISTER_MAPPED)[1] == ACL_ERROR_RT_PARAM_INVALID  # overlap
    acl.get_recent_err_msg()
    assert acl.rt.host_unregister(p) == ACL_SUCCESS
    assert acl.rt.host_unregister(p) == ACL_ERROR_RT_PARAM_INVALID
    acl.get_recent_err_msg()


def test_util_pointer_helpers(acl):
    data = b"pyACL says hello"
    p = acl.util.bytes_to_ptr(data)
    assert isinstance(p, int) and acl.util.ptr_to_bytes(p, len(data)) == data
    ba = bytearray(b"\x00" * 8)
    q = acl.util.bytes_to_ptr(ba)
    acl.util.ptr_to_numpy(q, (2,), NPY_INT32)[:] = [7, -1]
    assert np.frombuffer(bytes(ba), np.int32).tolist() == [7, -1]
    h = np.array([1.5, -2.25], np.float16)
    assert acl.util.ptr_to_numpy(acl.util.numpy_to_ptr(h), (2,), NPY_FLOAT16).tolist() == [1.5, -2.25]
    with pytest.raises(TypeError):
        acl.util.numpy_contiguous_to_ptr(np.zeros((4, 4))[:, ::2])
