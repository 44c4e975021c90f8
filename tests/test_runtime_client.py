"""Runtime calls a framework binds at load (torch_npu): data buffers, operator attributes, the single-operator
entry, dump configuration, the application log, device capabilities, streams/events with flags, peer access,
saturation mode, compile options, virtual memory, device binaries; and libhccl.so (one rank; several ranks are in
test_hccl_multirank.py), driven through cffi.
Real behaviour, the documented codes, a message naming the argument, no crash on NULL."""
import ctypes
import os

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib

pyaclnn.ensure_device()

INVALID_PARAM, OP_NOT_FOUND, API_NOT_SUPPORT, RT_PARAM_INVALID = 100000, 100024, 200001, 107000


def msg():
    return pyaclnn.recent_error_message()


def test_data_buffer():
    data = ffi.new("float[4]", [1, 2, 3, 4])
    b = lib.aclCreateDataBuffer(data, 16)
    assert b != ffi.NULL
    assert lib.aclGetDataBufferAddr(b) == data and lib.aclGetDataBufferSizeV2(b) == 16
    assert lib.aclUpdateDataBuffer(b, ffi.NULL, 0) == 0 and lib.aclGetDataBufferSizeV2(b) == 0
    assert lib.aclDestroyDataBuffer(b) == 0
    assert lib.aclDestroyDataBuffer(b) == INVALID_PARAM and "dataBuffer" in msg()
    assert lib.aclDestroyDataBuffer(ffi.NULL) == INVALID_PARAM and "dataBuffer" in msg()
    assert lib.aclGetDataBufferAddr(ffi.NULL) == ffi.NULL and lib.aclGetDataBufferSizeV2(ffi.NULL) == 0


def test_op_attr_setters():
    a = lib.aclopCreateAttr()
    assert a != ffi.NULL
    assert lib.aclopSetAttrBool(a, b"keep", 1) == 0
    assert lib.aclopSetAttrInt(a, b"k", 3) == 0
    assert lib.aclopSetAttrInt(a, b"k", 4) == 0  # replaces
    assert lib.aclopSetAttrFloat(a, b"eps", 1e-5) == 0
    assert lib.aclopSetAttrString(a, b"mode", b"bilinear") == 0
    assert lib.aclopSetAttrDataType(a, b"dtype", 0) == 0
    assert lib.aclopSetAttrListInt(a, b"axes", 2, ffi.new("int64_t[]", [0, 1])) == 0
    assert lib.aclopSetAttrListFloat(a, b"w", 1, ffi.new("float[]", [0.5])) == 0
    assert lib.aclopSetAttrListBool(a, b"f", 2, ffi.new("uint8_t[]", [1, 0])) == 0
    strs = [ffi.new("char[]", b"a"), ffi.new("char[]", b"bc")]
    assert lib.aclopSetAttrListString(a, b"names", 2, ffi.new("const char *[]", strs)) == 0
    rows = [ffi.new("int64_t[]", [1, 2]), ffi.new("int64_t[]", [3])]
    assert lib.aclopSetAttrListListInt(a, b"pads", 2, ffi.new("int[]", [2, 1]), ffi.new("int64_t *[]", rows)) == 0
    assert lib.aclopSetAttrInt(a, ffi.NULL, 1) == INVALID_PARAM and "attrName" in msg()
    assert lib.aclopSetAttrInt(ffi.NULL, b"k", 1) == INVALID_PARAM and "attr" in msg()
    assert lib.aclopSetAttrString(a, b"s", ffi.NULL) == INVALID_PARAM and "attrValue" in msg()
    assert lib.aclopSetAttrListInt(a, b"x", 2, ffi.NULL) == INVALID_PARAM and "values" in msg()
    assert lib.aclopSetAttrListInt(a, b"x", -1, ffi.NULL) == INVALID_PARAM and "numValues" in msg()
    lib.aclopDestroyAttr(a)
    lib.aclopDestroyAttr(a)  # a second destroy is ignored
    lib.aclopDestroyAttr(ffi.NULL)
    assert lib.aclopSetAttrInt(a, b"k", 1) == INVALID_PARAM and "aclopAttr" in msg()


def test_compile_and_execute_names_the_op_type(tmp_path, monkeypatch):
    log = tmp_path / "ops.log"
    monkeypatch.setenv("PYACLNN_SINGLE_OP_LOG", str(log))
    dims = ffi.new("int64_t[]", [2])
    d = lib.aclCreateTensorDesc(0, 1, dims, 2)
    buf = lib.aclCreateDataBuffer(ffi.NULL, 0)
    descs, bufs = ffi.new("aclTensorDesc *[]", [d]), ffi.new("aclDataBuffer *[]", [buf])
    rc = lib.aclopCompileAndExecute(b"TopKV2", 1, descs, bufs, 1, descs, bufs, ffi.NULL, 0, 0, ffi.NULL, ffi.NULL)
    assert rc == OP_NOT_FOUND and "TopKV2" in msg()
    assert log.read_text().split()[0] == "TopKV2"
    assert lib.aclopCompileAndExecute(ffi.NULL, 0, ffi.NULL, ffi.NULL, 0, ffi.NULL, ffi.NULL, ffi.NULL, 0, 0,
                                      ffi.NULL, ffi.NULL) == INVALID_PARAM and "opType" in msg()
    assert lib.aclopCompileAndExecute(b"Add", 1, ffi.NULL, ffi.NULL, 0, ffi.NULL, ffi.NULL, ffi.NULL, 0, 0,
                                      ffi.NULL, ffi.NULL) == INVALID_PARAM and "inputDesc" in msg()
    lib.aclDestroyDataBuffer(buf)
    lib.aclDestroyTensorDesc(d)


def test_tensor_placement():
    d = lib.aclCreateTensorDesc(0, 0, ffi.NULL, 2)
    assert lib.aclSetTensorPlaceMent(d, 1) == 0
    assert lib.aclSetTensorPlaceMent(d, 7) == INVALID_PARAM and "memType" in msg()
    assert lib.aclSetTensorPlaceMent(ffi.NULL, 0) == INVALID_PARAM and "desc" in msg()
    lib.aclDestroyTensorDesc(d)


def test_compile_options():
    assert lib.aclSetCompileopt(lib.ACL_OP_JIT_COMPILE, b"disable") == 0
    assert lib.aclGetCompileoptSize(lib.ACL_OP_JIT_COMPILE) == 8
    out = ffi.new("char[16]")
    assert lib.aclGetCompileopt(lib.ACL_OP_JIT_COMPILE, out, 16) == 0 and ffi.string(out) == b"disable"
    assert lib.aclGetCompileopt(lib.ACL_OP_JIT_COMPILE, out, 3) == INVALID_PARAM and "length" in msg()
    assert lib.aclSetCompileopt(99, b"x") == INVALID_PARAM and "opt" in msg()
    assert lib.aclSetCompileopt(0, ffi.NULL) == INVALID_PARAM and "value" in msg()


def test_dump_config(tmp_path):
    cfg = tmp_path / "acl.json"
    cfg.write_text('{"dump": {}}')
    assert lib.aclmdlSetDump(str(cfg).encode()) == 100045  # ACL_ERROR_DUMP_NOT_RUN before init
    assert lib.aclmdlInitDump() == 0
    assert lib.aclmdlInitDump() == 100002
    assert lib.aclmdlSetDump(str(cfg).encode()) == 0
    assert lib.aclmdlSetDump(b"/nonexistent/acl.json") == 100003 and "dumpCfgPath" in msg()
    assert lib.aclmdlSetDump(ffi.NULL) == INVALID_PARAM and "dumpCfgPath" in msg()
    assert lib.aclmdlFinalizeDump() == 0
    assert lib.aclmdlFinalizeDump() == 100045


def test_device_capability_and_misc():
    v = ffi.new("int64_t *")
    assert lib.aclGetDeviceCapability(0, lib.ACL_DEVICE_INFO_AI_CORE_NUM, v) == 0 and v[0] == 24
    assert lib.aclGetDeviceCapability(0, lib.ACL_DEVICE_INFO_VECTOR_CORE_NUM, v) == 0 and v[0] == 48
    assert lib.aclGetDeviceCapability(0, lib.ACL_DEVICE_INFO_L2_SIZE, v) == 0 and v[0] == 192 << 20
    assert lib.aclGetDeviceCapability(0, 9, v) == INVALID_PARAM and "deviceInfo" in msg()
    assert lib.aclGetDeviceCapability(5, 0, v) == 200002 and "deviceId" in msg()
    assert lib.aclGetDeviceCapability(0, 0, ffi.NULL) == INVALID_PARAM and "value" in msg()
    assert lib.aclrtSetDeviceSatMode(lib.ACL_RT_OVERFLOW_MODE_INFNAN) == 0
    m = ffi.new("aclrtFloatOverflowMode *")
    assert lib.aclrtGetDeviceSatMode(m) == 0 and m[0] == lib.ACL_RT_OVERFLOW_MODE_INFNAN
    assert lib.aclrtSetDeviceSatMode(lib.ACL_RT_OVERFLOW_MODE_SATURATION) == 0
    assert lib.aclrtSetDeviceSatMode(5) == INVALID_PARAM and "mode" in msg()
    assert lib.aclrtSetOpExecuteTimeOut(100) == 0 and lib.aclrtSetOpWaitTimeout(5) == 0
    p = ffi.new("int32_t *")
    assert lib.aclrtDeviceGetBareTgid(p) == 0 and p[0] == os.getpid()
    assert lib.aclrtDeviceGetBareTgid(ffi.NULL) == INVALID_PARAM
    assert lib.aclrtDeviceCanAccessPeer(p, 0, 0) == INVALID_PARAM  # a device is not its own peer
    assert lib.aclrtDeviceCanAccessPeer(ffi.NULL, 0, 1) == INVALID_PARAM and "canAccessPeer" in msg()
    assert lib.aclrtProcessReport(-2) == INVALID_PARAM and "timeout" in msg()
    assert lib.aclrtProcessReport(0) == 507012
    lib.aclAppLog(lib.ACL_DEBUG, b"f", b"x.c", 1, b"%s", ffi.new("char[]", b"hidden below the threshold"))
    lib.aclAppLog(lib.ACL_DEBUG, ffi.NULL, ffi.NULL, 1, ffi.NULL)


def test_stream_event_with_flags():
    s = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStreamWithConfig(s, 0, 0x1 | 0x2) == 0
    assert lib.aclrtSynchronizeStream(s[0]) == 0 and lib.aclrtDestroyStream(s[0]) == 0
    assert lib.aclrtCreateStreamWithConfig(s, 0, 0x1000) == INVALID_PARAM and "flag" in msg()
    assert lib.aclrtCreateStreamWithConfig(ffi.NULL, 0, 0) == INVALID_PARAM and "stream" in msg()
    e = ffi.new("aclrtEvent *")
    for fn in (lib.aclrtCreateEventWithFlag, lib.aclrtCreateEventExWithFlag):
        assert fn(e, 0x8 | 0x1) == 0
        assert lib.aclrtRecordEvent(e[0], ffi.NULL) == 0 and lib.aclrtDestroyEvent(e[0]) == 0
        assert fn(e, 0x80000) == INVALID_PARAM and "flag" in msg()
        assert fn(ffi.NULL, 0) == INVALID_PARAM and "event" in msg()


def test_device_binaries_not_supported():
    h = ffi.new("aclrtBinHandle *")
    assert lib.aclrtBinaryLoadFromData(b"\0" * 8, 8, ffi.NULL, h) == API_NOT_SUPPORT and "device code" in msg()
    assert lib.aclrtBinaryLoadFromData(ffi.NULL, 8, ffi.NULL, h) == INVALID_PARAM and "data" in msg()
    f = ffi.new("aclrtFuncHandle *")
    assert lib.aclrtBinaryGetFunction(ffi.NULL, b"k", f) == INVALID_PARAM and "binHandle" in msg()
    assert lib.aclrtGetFunctionAddr(ffi.NULL, ffi.NULL, ffi.NULL) == INVALID_PARAM


def test_virtual_memory_map_copy_unmap():
    page = os.sysconf("SC_PAGESIZE")
    va = ffi.new("void **")
    assert lib.aclrtReserveMemAddress(va, 4 * page, 0, ffi.NULL, 0) == 0
    prop = ffi.new("aclrtPhysicalMemProp *")
    prop.location.type = lib.ACL_MEM_LOCATION_TYPE_DEVICE
    h = ffi.new("aclrtDrvMemHandle *")
    assert lib.aclrtMallocPhysical(h, 2 * page, prop, 0) == 0
    assert lib.aclrtMapMem(va[0], 2 * page, 0, h[0], 0) == 0
    src = np.arange(2 * page // 4, dtype=np.float32)
    assert lib.aclrtMemcpy(va[0], 2 * page, ffi.from_buffer(src), 2 * page, 1) == 0  # host -> mapped device
    back = np.zeros_like(src)
    assert lib.aclrtMemcpy(ffi.from_buffer(back), 2 * page, va[0], 2 * page, 2) == 0
    assert np.array_equal(src, back)
    # the guards: a copy past the mapping is refused
    assert lib.aclrtMemcpy(ffi.from_buffer(back), 2 * page, ffi.cast("char *", va[0]) + 4, 2 * page, 2) == \
        RT_PARAM_INVALID
    # a second mapping of the same memory sees the same bytes (it is one physical memory)
    second = ffi.cast("char *", va[0]) + 2 * page
    assert lib.aclrtMapMem(second, page, page, h[0], 0) == 0
    assert ffi.cast("float *", second)[0] == src[page // 4]
    assert lib.aclrtMapMem(va[0], page, 0, h[0], 0) == INVALID_PARAM and "overlaps" in msg()
    assert lib.aclrtFreePhysical(h[0]) == RT_PARAM_INVALID and "mapped" in msg()
    assert lib.aclrtReleaseMemAddress(va[0]) == RT_PARAM_INVALID and "aclrtUnmapMem" in msg()
    sh = ffi.new("uint64_t *")
    assert lib.aclrtMemExportToShareableHandle(h[0], lib.ACL_MEM_HANDLE_TYPE_POSIX, 0, sh) == 0
    h2 = ffi.new("aclrtDrvMemHandle *")
    assert lib.aclrtMemImportFromShareableHandle(sh[0], 0, h2) == 0
    assert lib.aclrtMemSetPidToShareableHandle(sh[0], ffi.new("int32_t[]", [os.getpid()]), 1) == 0
    assert lib.aclrtFreePhysical(h2[0]) == 0
    assert lib.aclrtUnmapMem(second) == 0 and lib.aclrtUnmapMem(va[0]) == 0
    assert lib.aclrtUnmapMem(va[0]) == RT_PARAM_INVALID
    assert lib.aclrtFreePhysical(h[0]) == 0 and lib.aclrtReleaseMemAddress(va[0]) == 0
    assert lib.aclrtReleaseMemAddress(va[0]) == RT_PARAM_INVALID


def test_virtual_memory_invalid_arguments():
    page = os.sysconf("SC_PAGESIZE")
    va, h = ffi.new("void **"), ffi.new("aclrtDrvMemHandle *")
    prop = ffi.new("aclrtPhysicalMemProp *")
    assert lib.aclrtReserveMemAddress(ffi.NULL, page, 0, ffi.NULL, 0) == INVALID_PARAM and "virPtr" in msg()
    assert lib.aclrtReserveMemAddress(va, 3, 0, ffi.NULL, 0) == INVALID_PARAM and "size" in msg()
    assert lib.aclrtReserveMemAddress(va, page, 3, ffi.NULL, 0) == INVALID_PARAM and "alignment" in msg()
    assert lib.aclrtMallocPhysical(h, page, ffi.NULL, 0) == INVALID_PARAM and "prop" in msg()
    assert lib.aclrtMallocPhysical(ffi.NULL, page, prop, 0) == INVALID_PARAM and "handle" in msg()
    assert lib.aclrtMallocPhysical(h, 0, prop, 0) == INVALID_PARAM and "size" in msg()
    assert lib.aclrtMapMem(ffi.NULL, page, 0, ffi.NULL, 0) == INVALID_PARAM and "virPtr" in msg()
    assert lib.aclrtMallocPhysical(h, page, prop, 0) == 0
    junk = ffi.new("char[64]")
    assert lib.aclrtMapMem(junk, page, 0, h[0], 0) == INVALID_PARAM and "aclrtReserveMemAddress" in msg()
    assert lib.aclrtFreePhysical(h[0]) == 0
    assert lib.aclrtFreePhysical(h[0]) == RT_PARAM_INVALID and "handle" in msg()
    assert lib.aclrtFreePhysical(ffi.NULL) == INVALID_PARAM
    assert lib.aclrtUnmapMem(ffi.NULL) == INVALID_PARAM
    assert lib.aclrtMemImportFromShareableHandle(0xFFFFFFFF00000000, 0, h) == RT_PARAM_INVALID


@pytest.fixture(scope="module")
def hccl(installed_tree):
    lib_path = os.path.join(installed_tree, "lib64", "libhccl.so")
    return ctypes.CDLL(lib_path)


def test_hccl_one_rank(hccl):
    root = ctypes.create_string_buffer(4108)
    assert hccl.HcclGetRootInfo(root) == 0
    comm = ctypes.c_void_p()
    assert hccl.HcclCommInitRootInfo(1, root, 0, ctypes.byref(comm)) == 0
    assert hccl.HcclCommInitRootInfo(65, root, 0, ctypes.byref(ctypes.c_void_p())) == 5  # more than 64 ranks
    bad = ctypes.create_string_buffer(b"not a root info", 4108)
    assert hccl.HcclCommInitRootInfo(2, bad, 0, ctypes.byref(ctypes.c_void_p())) == 1  # not from HcclGetRootInfo
    assert hccl.HcclCommInitRootInfo(1, root, 1, ctypes.byref(ctypes.c_void_p())) == 1  # rank out of range
    n = ctypes.c_uint32(7)
    assert hccl.HcclGetRankSize(comm, ctypes.byref(n)) == 0 and n.value == 1
    assert hccl.HcclGetRankId(comm, ctypes.byref(n)) == 0 and n.value == 0
    dev = ffi.new("void **")
    assert lib.aclrtMalloc(dev, 64, 0) == 0
    dev2 = ffi.new("void **")
    assert lib.aclrtMalloc(dev2, 64, 0) == 0
    src = np.arange(16, dtype=np.float32)
    lib.aclrtMemcpy(dev[0], 64, ffi.from_buffer(src), 64, 1)
    p1, p2 = ctypes.c_void_p(int(ffi.cast("uintptr_t", dev[0]))), ctypes.c_void_p(int(ffi.cast("uintptr_t", dev2[0])))
    assert hccl.HcclAllReduce(p1, p2, ctypes.c_uint64(16), 4, 0, comm, None) == 0  # fp32 sum
    out = np.zeros_like(src)
    # the collective is a task on its stream: reading its result first is refused by the stream checker
    assert lib.aclrtMemcpy(ffi.from_buffer(out), 64, dev2[0], 64, 2) == 507004
    assert lib.aclrtSynchronizeStream(ffi.NULL) == 0
    assert lib.aclrtMemcpy(ffi.from_buffer(out), 64, dev2[0], 64, 2) == 0
    assert np.array_equal(out, src)
    assert hccl.HcclAllReduce(p1, p2, ctypes.c_uint64(16), 99, 0, comm, None) == 1  # bad dtype
    assert hccl.HcclAllReduce(p1, p2, ctypes.c_uint64(16), 4, 9, comm, None) == 1  # bad op
    assert hccl.HcclAllReduce(p1, p2, ctypes.c_uint64(32), 4, 0, comm, None) == 15  # past the allocation
    assert hccl.HcclBroadcast(p1, ctypes.c_uint64(16), 4, 0, comm, None) == 0
    assert hccl.HcclSend(p1, ctypes.c_uint64(16), 4, 0, comm, None) == 1
    assert hccl.HcclGroupEnd() == 1 and hccl.HcclGroupStart() == 0 and hccl.HcclGroupEnd() == 0
    err = ctypes.c_int(9)
    assert hccl.HcclGetCommAsyncError(comm, ctypes.byref(err)) == 0 and err.value == 0
    assert hccl.HcclCommDestroy(comm) == 0
    assert hccl.HcclCommInitRootInfo(1, None, 0, ctypes.byref(comm)) == 2  # HCCL_E_PTR
    v = ctypes.c_int32(5)
    assert hccl.HcclSetConfig(0, ctypes.c_int32(1)) == 0 and hccl.HcclGetConfig(0, ctypes.byref(v)) == 0 and v.value == 1
    assert hccl.HcclSetConfig(0, ctypes.c_int32(2)) == 1 and hccl.HcclSetConfig(7, ctypes.c_int32(0)) == 1
    assert hccl.HcclGetConfig(0, None) == 2
    lib.aclrtFree(dev[0])
    lib.aclrtFree(dev2[0])


def test_cann_version_from_the_tree(installed_tree, monkeypatch):
    monkeypatch.setenv("ASCEND_HOME_PATH", installed_tree)
    v = ffi.new("aclCANNPackageVersion *")
    assert lib.aclsysGetCANNVersion(lib.ACL_PKG_NAME_RUNTIME, v) == 0
    text = open(os.path.join(installed_tree, "runtime", "version.info")).read()
    assert f"Version={ffi.string(v.version).decode()}\n" in text
    assert ffi.string(v.version).decode().startswith(ffi.string(v.majorVersion).decode() + ".")
    assert lib.aclsysGetCANNVersion(lib.ACL_PKG_NAME_DRIVER, v) == 100003 and "driver" in msg()
    assert lib.aclsysGetCANNVersion(42, v) == INVALID_PARAM and "name" in msg()
    assert lib.aclsysGetCANNVersion(0, ffi.NULL) == INVALID_PARAM and "version" in msg()
    monkeypatch.setenv("ASCEND_HOME_PATH", "/nonexistent")
    assert lib.aclsysGetCANNVersion(0, v) == 100003 and "version.info" in msg()


def test_malloc_align32_and_destroy_force():
    p = ffi.new("void **")
    assert lib.aclrtMallocAlign32(p, 10, 0) == 0 and lib.aclrtFree(p[0]) == 0
    assert lib.aclrtMallocAlign32(ffi.NULL, 10, 0) == INVALID_PARAM
    s = ffi.new("aclrtStream *")
    assert lib.aclrtCreateStream(s) == 0 and lib.aclrtDestroyStreamForce(s[0]) == 0
    assert lib.aclrtDestroyStreamForce(s[0]) == RT_PARAM_INVALID
