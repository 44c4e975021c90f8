"""Runtime API behaviour and status codes (SPEC §1.5, Decisions 5-6), driven at the C level through cffi.

Tests that touch process-wide state (aclInit/aclFinalize, devices) run in a fresh interpreter."""
import threading

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from helpers import run_python

pyaclnn.ensure_device()


def msg():
    return pyaclnn.recent_error_message()


def test_init_finalize_codes_in_fresh_process():
    out = run_python("""
from pyaclnn import ffi, lib
import tempfile, os
r = [lib.aclInit(ffi.NULL), lib.aclInit(ffi.NULL), lib.aclFinalize(), lib.aclFinalize()]
r.append(lib.aclInit(ffi.NULL)); r.append(lib.aclFinalize())
with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f: f.write('{"x": 1}')
r.append(lib.aclInit(f.name.encode()))        # content differs from the first (none) -> 100000
r.append(lib.aclInit(b'/nonexistent/acl.json'))
r.append(lib.aclFinalizeReference(ffi.new('uint64_t *')))
print(r)
""")
    assert eval(out) == [0, 100002, 0, 100037, 0, 0, 100000, 100003, 100037]


def test_finalize_reference_counts():
    out = run_python("""
from pyaclnn import ffi, lib
n = ffi.new('uint64_t *')
r = [lib.aclInit(ffi.NULL), lib.aclInit(ffi.NULL), lib.aclFinalizeReference(n), int(n[0]),
     lib.aclFinalizeReference(n), int(n[0]), lib.aclFinalize()]
print(r)
""")
    assert eval(out) == [0, 100002, 0, 1, 0, 0, 100037]


def test_device_and_context_in_fresh_process():
    out = run_python("""
from pyaclnn import ffi, lib
d = ffi.new('int32_t *'); c = ffi.new('aclrtContext *'); cnt = ffi.new('uint32_t *'); s = ffi.new('aclrtStream *')
r = [lib.aclrtGetDevice(d), lib.aclrtCreateStream(s), lib.aclrtSetDevice(1), lib.aclrtSetDevice(-1),
     lib.aclrtGetDeviceCount(cnt), int(cnt[0]), lib.aclrtSetDevice(0), lib.aclrtSetDevice(0),
     lib.aclrtGetDevice(d), int(d[0]), lib.aclrtGetCurrentContext(c)]
ctx = c[0]
c2 = ffi.new('aclrtContext *')
r += [lib.aclrtCreateContext(c2, 0), lib.aclrtGetCurrentContext(c), c[0] == c2[0],
      lib.aclrtSetCurrentContext(ctx), lib.aclrtDestroyContext(c2[0]), lib.aclrtDestroyContext(c2[0]),
      lib.aclrtResetDevice(0), lib.aclrtGetDevice(d), lib.aclrtResetDevice(0)]
print(r)
""", {"PYACLNN_DEVICE_COUNT": "1"})
    assert eval(out) == [107002, 107002, 107001, 107001, 0, 1, 0, 0, 0, 0, 0,
                         0, 0, True, 0, 0, 107000, 0, 107002, 0]


def test_sysparam_in_fresh_process():
    out = run_python("""
from pyaclnn import ffi, lib
v = ffi.new('int64_t *')
r = [lib.aclrtCtxSetSysParamOpt(0, 1)]                     # no context yet
r += [lib.aclrtGetSysParamOpt(0, v), int(v[0])]            # never set -> 0, value 0
lib.aclrtSetDevice(0)
r += [lib.aclrtCtxGetSysParamOpt(0, v)]                    # never set on the context -> 107021
r += [lib.aclrtCtxSetSysParamOpt(3, 1), lib.aclrtCtxSetSysParamOpt(0, 1), lib.aclrtCtxGetSysParamOpt(0, v), int(v[0])]
r += [lib.aclrtGetSysParamOpt(0, v), int(v[0])]            # the process table sees it too
r += [lib.aclrtSetSysParamOpt(3, 7), lib.aclrtGetSysParamOpt(3, v), int(v[0]), lib.aclrtSetSysParamOpt(4, 1),
      lib.aclrtGetSysParamOpt(0, ffi.NULL)]
print(r)
""")
    assert eval(out) == [107002, 0, 0, 107021, 100000, 0, 0, 1, 0, 1, 0, 0, 7, 100000, 100000]


def test_malloc_free_codes():
    p = ffi.new("void **")
    assert lib.aclrtMalloc(ffi.NULL, 16, 0) == 100000
    assert lib.aclrtMalloc(p, 0, 0) == 100000
    assert "size" in msg()
    assert lib.aclrtMalloc(p, 100, 0) == 0
    assert int(ffi.cast("uintptr_t", p[0])) % 64 == 0
    assert lib.aclrtFree(ffi.NULL) == 100000
    assert lib.aclrtFree(p[0] + 8) == 107000  # not an allocation start
    assert lib.aclrtFree(p[0]) == 0
    assert lib.aclrtFree(p[0]) == 107000      # double free: reported, not crashed
    assert "already freed" in msg()
    h = ffi.new("void **")
    assert lib.aclrtMallocHost(h, 32) == 0
    assert lib.aclrtFree(h[0]) == 107000      # host memory is not device memory
    assert lib.aclrtFreeHost(h[0]) == 0
    assert lib.aclrtFreeHost(h[0]) == 107000
    huge = ffi.cast("size_t", -1)
    assert lib.aclrtMalloc(p, huge, 0) == 207001


def test_memcpy_codes_and_guards():
    d = pyaclnn.DeviceBuffer(64)
    host = np.arange(16, dtype=np.float32)
    back = np.zeros(16, np.float32)
    hp, bp = ffi.from_buffer(host), ffi.from_buffer(back)
    assert lib.aclrtMemcpy(ffi.NULL, 0, ffi.NULL, 0, 1) == 0        # count 0: success, nothing touched
    assert lib.aclrtMemcpy(ffi.NULL, 64, hp, 64, 1) == 100000
    assert lib.aclrtMemcpy(d.ptr, 64, ffi.NULL, 64, 1) == 100000
    assert lib.aclrtMemcpy(d.ptr, 64, hp, 64, 8) == 100000          # unknown kind
    assert lib.aclrtMemcpy(d.ptr, 32, hp, 64, 1) == 107000          # count > destMax
    assert "destMax" in msg()
    assert lib.aclrtMemcpy(d.ptr + 64, 64, hp, 64, 1) == 107000     # runs past the allocation (64 + 32 bytes)
    assert "dst" in msg()
    assert lib.aclrtMemcpy(d.ptr, 64, hp, 64, 1) == 0
    assert lib.aclrtMemcpy(bp, 64, d.ptr, 64, 2) == 0
    np.testing.assert_array_equal(back, host)
    assert lib.aclrtMemcpy(bp, 64, hp, 64, 2) == 107000             # src is not device memory
    assert "src" in msg()
    d2 = pyaclnn.DeviceBuffer(64)
    assert lib.aclrtMemcpy(d2.ptr, 64, d.ptr, 64, 3) == 0
    assert lib.aclrtMemcpyAsync(d2.ptr, 64, d.ptr, 64, 3, ffi.NULL) == 0
    assert lib.aclrtMemcpyAsync(d2.ptr, 64, d.ptr, 64, 3, ffi.cast("void *", 0x1234)) == 107000


def test_memset_codes():
    d = pyaclnn.DeviceBuffer(64)
    assert lib.aclrtMemset(ffi.NULL, 64, 0, 64) == 100000
    assert lib.aclrtMemset(d.ptr, 32, 0, 64) == 107000
    assert lib.aclrtMemset(d.ptr, 128, 0, 128) == 107000
    assert lib.aclrtMemset(d.ptr, 64, 0x7F, 64) == 0
    back = np.zeros(64, np.uint8)
    lib.aclrtMemcpy(ffi.from_buffer(back), 64, d.ptr, 64, 2)
    assert (back == 0x7F).all()
    assert lib.aclrtMemsetAsync(d.ptr, 64, 1, 64, ffi.NULL) == 0


def test_host_register():
    arr = np.zeros(16, np.float32)
    dev = ffi.new("void **")
    p = ffi.from_buffer(arr)
    assert lib.aclrtHostRegister(p, 64, 0, dev) == 0
    assert dev[0] == ffi.cast("void *", p)
    assert lib.aclrtHostRegister(p, 64, 0, dev) == 107000            # overlaps
    assert lib.aclrtHostRegister(p, 64, 1, dev) == 100000
    assert lib.aclrtHostUnregister(p) == 0
    assert lib.aclrtHostUnregister(p) == 107000


def test_mem_info():
    f, t = ffi.new("size_t *"), ffi.new("size_t *")
    assert lib.aclrtGetMemInfo(1, f, t) == 0
    assert 0 < f[0] <= t[0]
    before = f[0]
    b = pyaclnn.DeviceBuffer(1 << 20)
    lib.aclrtGetMemInfo(1, f, t)
    assert before - f[0] >= 1 << 20
    del b
    assert lib.aclrtGetMemInfo(99, f, t) == 100000
    assert lib.aclrtGetMemInfo(1, ffi.NULL, t) == 100000


def test_streams_and_events():
    s = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(ffi.NULL) == 100000
    assert lib.aclrtCreateStream(s) == 0
    assert lib.aclrtSynchronizeStream(s[0]) == 0
    assert lib.aclrtSynchronizeStream(ffi.NULL) == 0
    st = ffi.new("aclrtStreamStatus *")
    assert lib.aclrtStreamQuery(s[0], st) == 0 and st[0] == lib.ACL_STREAM_STATUS_COMPLETE
    e1, e2 = ffi.new("aclrtEvent *"), ffi.new("aclrtEvent *")
    assert lib.aclrtCreateEvent(e1) == 0 and lib.aclrtCreateEvent(e2) == 0
    ms = ffi.new("float *")
    assert lib.aclrtEventElapsedTime(ms, e1[0], e2[0]) == 107006     # not recorded yet
    es = ffi.new("aclrtEventRecordedStatus *")
    assert lib.aclrtQueryEventStatus(e1[0], es) == 0 and es[0] == 0
    assert lib.aclrtRecordEvent(e1[0], s[0]) == 0
    assert lib.aclrtRecordEvent(e2[0], s[0]) == 0
    assert lib.aclrtSynchronizeEvent(e2[0]) == 0
    assert lib.aclrtQueryEventStatus(e1[0], es) == 0 and es[0] == 1
    assert lib.aclrtEventElapsedTime(ms, e1[0], e2[0]) == 0 and ms[0] >= 0
    assert lib.aclrtStreamWaitEvent(s[0], e1[0]) == 0
    assert lib.aclrtDestroyEvent(e1[0]) == 0 and lib.aclrtDestroyEvent(e1[0]) == 107000
    assert lib.aclrtDestroyEvent(e2[0]) == 0
    assert lib.aclrtDestroyStream(ffi.NULL) == 100000
    assert lib.aclrtDestroyStream(s[0]) == 0
    assert lib.aclrtDestroyStream(s[0]) == 107000                      # destroyed twice
    assert lib.aclrtSynchronizeStream(s[0]) == 107000                  # stale handle


def test_error_message_per_thread_and_cleared_on_read():
    lib.aclGetRecentErrMsg()
    assert lib.aclrtMalloc(ffi.NULL, 1, 0) == 100000
    seen = {}

    def other():
        seen["other"] = lib.aclGetRecentErrMsg()
        lib.aclrtFree(ffi.NULL)
        seen["other2"] = ffi.string(lib.aclGetRecentErrMsg()).decode()

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen["other"] == ffi.NULL                    # nothing reported on that thread
    assert "free" in seen["other2"]
    m = lib.aclGetRecentErrMsg()
    assert m != ffi.NULL and "aclrtMalloc" in ffi.string(m).decode()
    assert lib.aclGetRecentErrMsg() == ffi.NULL         # cleared on read


def test_datatype_size_table():
    expect = {0: 4, 1: 2, 2: 1, 3: 4, 4: 1, 6: 2, 7: 2, 8: 4, 9: 8, 10: 8, 11: 8, 12: 1, 16: 8, 17: 16, 27: 2}
    for dt, size in expect.items():
        assert lib.aclDataTypeSize(dt) == size, dt
    assert lib.aclDataTypeSize(-1) == 0
    assert lib.aclDataTypeSize(999) == 0


def test_float16_helpers_saturate():
    for v in (0.0, 1.0, -2.5, 65504.0, 1e-5, 3.14159):
        h = lib.aclFloatToFloat16(v)
        assert h == int(np.float16(v).view(np.uint16))
        assert lib.aclFloat16ToFloat(h) == float(np.float16(v))
    assert lib.aclFloatToFloat16(float("inf")) == 0x7BFF
    assert lib.aclFloatToFloat16(float("-inf")) == 0xFBFF
    assert lib.aclFloatToFloat16(1e6) == 0x7BFF
    assert lib.aclFloatToFloat16(float("nan")) & 0x7FFF == 0x7BFF
    assert lib.aclFloat16ToFloat(0x7C00) == 65536.0
    assert lib.aclFloat16ToFloat(0xFC00) == -65536.0
    assert lib.aclFloat16ToFloat(0x7E00) == 98304.0


def test_soc_name_and_run_mode(monkeypatch):
    assert pyaclnn.soc_name().startswith("Ascend910B")
    out = run_python("import pyaclnn; print(pyaclnn.soc_name())", {"PYACLNN_SOC_NAME": "Ascend910_9391"})
    assert out.strip() == b"Ascend910_9391"
    m = ffi.new("aclrtRunMode *")
    assert lib.aclrtGetRunMode(m) == 0 and m[0] == lib.ACL_HOST
    v = [ffi.new("int32_t *") for _ in range(3)]
    assert lib.aclrtGetVersion(*v) == 0 and v[0][0] >= 1
