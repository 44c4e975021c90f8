"""Mappings placed end to end in a reserved range (aclrtMapMem) are one accessible range, as a VMM pool uses them
(llama.cpp's CANN backend maps 2 MiB chunks contiguously and hands out buffers that straddle two chunks): an
aclnn tensor view and an aclrtMemcpy/aclrtMemset across the seam work; past the last mapping or across a gap they
are still refused."""
import os

import numpy as np

import pyaclnn
from pyaclnn import ffi, lib

pyaclnn.ensure_device()

RT_PARAM_INVALID, PARAM_INVALID = 107000, 161002
PAGE = os.sysconf("SC_PAGESIZE")


def msg():
    return pyaclnn.recent_error_message()


def tensor(ptr, n):
    dims, strides, storage = ffi.new("int64_t[]", [n]), ffi.new("int64_t[]", [1]), ffi.new("int64_t[]", [n])
    return lib.aclCreateTensor(dims, 1, lib.ACL_FLOAT, strides, 0, lib.ACL_FORMAT_ND, storage, 1, ptr)


def abs_status(src, dst):
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    rc = lib.aclnnAbsGetWorkspaceSize(src, dst, ws, ex)
    if rc:
        return rc
    assert ws[0] == 0
    rc = lib.aclnnAbs(ffi.NULL, 0, ex[0], ffi.NULL)
    assert lib.aclrtSynchronizeDevice() == 0
    return rc


def test_view_and_copies_across_adjacent_mappings():
    va = ffi.new("void **")
    assert lib.aclrtReserveMemAddress(va, 6 * PAGE, 0, ffi.NULL, 0) == 0
    prop = ffi.new("aclrtPhysicalMemProp *")
    prop.location.type = lib.ACL_MEM_LOCATION_TYPE_DEVICE
    h1, h2, h3 = ffi.new("aclrtDrvMemHandle *"), ffi.new("aclrtDrvMemHandle *"), ffi.new("aclrtDrvMemHandle *")
    for h in (h1, h2, h3):
        assert lib.aclrtMallocPhysical(h, PAGE, prop, 0) == 0
    base = ffi.cast("char *", va[0])
    # pages 0 and 1 adjacent, page 3 after a gap at page 2
    assert lib.aclrtMapMem(base, PAGE, 0, h1[0], 0) == 0
    assert lib.aclrtMapMem(base + PAGE, PAGE, 0, h2[0], 0) == 0
    assert lib.aclrtMapMem(base + 3 * PAGE, PAGE, 0, h3[0], 0) == 0
    n = PAGE // 4  # floats in one page; a view of n floats from the middle of page 0 ends in page 1
    src = np.linspace(-3, 3, n).astype(np.float32)
    x = y = base + PAGE // 2  # Abs in place
    assert lib.aclrtMemcpy(x, n * 4, ffi.from_buffer(src), n * 4, 1) == 0  # host -> device across the seam
    tx, ty = tensor(x, n), tensor(y, n)
    assert abs_status(tx, ty) == 0
    back = np.zeros_like(src)
    assert lib.aclrtMemcpy(ffi.from_buffer(back), n * 4, y, n * 4, 2) == 0
    assert np.array_equal(back, np.abs(src))
    assert lib.aclrtMemset(x, n * 4, 0, n * 4) == 0
    assert lib.aclrtMemcpy(ffi.from_buffer(back), n * 4, y, n * 4, 2) == 0 and not back.any()
    # the view may not run past the last adjacent mapping (into the unmapped page 2) ...
    far = base + PAGE + PAGE // 2
    tf = tensor(far, n)
    assert abs_status(tf, tf) == PARAM_INVALID and "outside its allocation" in msg()
    assert lib.aclrtMemcpy(ffi.from_buffer(back), n * 4, far, n * 4, 2) == RT_PARAM_INVALID
    assert lib.aclrtMemset(far, n * 4, 0, n * 4) == RT_PARAM_INVALID
    for t in (tx, ty, tf):
        lib.aclDestroyTensor(t)
    # ... and after page 1 is unmapped, page 0 alone no longer holds the straddling view
    assert lib.aclrtUnmapMem(base + PAGE) == 0
    tx = tensor(x, n)
    assert abs_status(tx, tx) == PARAM_INVALID and "outside its allocation" in msg()
    lib.aclDestroyTensor(tx)
    for p in (base, base + 3 * PAGE):
        assert lib.aclrtUnmapMem(p) == 0
    for h in (h1, h2, h3):
        assert lib.aclrtFreePhysical(h[0]) == 0
    assert lib.aclrtReleaseMemAddress(va[0]) == 0
