"""aclTensorDesc (acl/acl_base_mdl.h) and aclrtResetDeviceForce, at the C level through cffi. Expected values are
the API's documented conventions, written out by hand."""
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from helpers import run_python

ACL_ERROR_INVALID_PARAM = 100000
UNKNOWN_RANK = 0xFFFFFFFFFFFFFFFE


@pytest.fixture
def desc():
    dims = ffi.new("int64_t[]", [2, 3, 4])
    d = lib.aclCreateTensorDesc(lib.ACL_FLOAT16, 3, dims, lib.ACL_FORMAT_NCHW)
    assert d != ffi.NULL
    yield d
    lib.aclDestroyTensorDesc(d)


def test_getters(desc):
    assert lib.aclGetTensorDescType(desc) == lib.ACL_FLOAT16
    assert lib.aclGetTensorDescFormat(desc) == lib.ACL_FORMAT_NCHW
    assert lib.aclGetTensorDescNumDims(desc) == 3
    assert lib.aclGetTensorDescElementCount(desc) == 24
    assert lib.aclGetTensorDescSize(desc) == 48
    assert [lib.aclGetTensorDescDim(desc, i) for i in range(4)] == [2, 3, 4, -1]
    v = ffi.new("int64_t *")
    assert lib.aclGetTensorDescDimV2(desc, 1, v) == 0 and v[0] == 3
    assert lib.aclGetTensorDescDimV2(desc, 3, v) == ACL_ERROR_INVALID_PARAM
    assert "index 3" in pyaclnn.recent_error_message()
    r = ffi.new("int64_t[2]")
    assert lib.aclGetTensorDescDimRange(desc, 2, 2, r) == 0 and list(r) == [4, 4]
    assert lib.aclGetTensorDescDimRange(desc, 2, 1, r) == ACL_ERROR_INVALID_PARAM
    assert ffi.string(lib.aclGetTensorDescName(desc)) == b""
    lib.aclSetTensorDescName(desc, b"x0")
    assert ffi.string(lib.aclGetTensorDescName(desc)) == b"x0"
    assert lib.aclGetTensorDescAddress(desc) == ffi.NULL


def test_setters(desc):
    assert lib.aclSetTensorFormat(desc, lib.ACL_FORMAT_ND) == 0
    dims = ffi.new("int64_t[]", [24])
    assert lib.aclSetTensorShape(desc, 1, dims) == 0
    assert lib.aclSetTensorOriginFormat(desc, lib.ACL_FORMAT_NCHW) == 0
    assert lib.aclSetTensorOriginShape(desc, 1, dims) == 0
    assert lib.aclSetTensorShape(desc, -1, dims) == ACL_ERROR_INVALID_PARAM
    assert "numDims" in pyaclnn.recent_error_message()
    ranges = ffi.new("int64_t[3][2]", [[1, 2], [3, 3], [4, -1]])
    assert lib.aclSetTensorShapeRange(desc, 3, ranges) == 0
    r = ffi.new("int64_t[2]")
    assert lib.aclGetTensorDescDimRange(desc, 0, 2, r) == 0 and list(r) == [1, 2]
    assert lib.aclSetTensorShapeRange(desc, 2, ranges) == ACL_ERROR_INVALID_PARAM
    data = ffi.new("float[]", [1.5, 2.5])
    assert lib.aclSetTensorConst(desc, data, 8) == 0
    addr = lib.aclGetTensorDescAddress(desc)
    assert addr != ffi.NULL and addr != data and list(ffi.cast("float *", addr)[0:2]) == [1.5, 2.5]
    assert lib.aclSetTensorConst(desc, ffi.NULL, 8) == ACL_ERROR_INVALID_PARAM


def test_dynamic_and_unknown_rank():
    dims = ffi.new("int64_t[]", [-1, 8])
    d = lib.aclCreateTensorDesc(lib.ACL_FLOAT, 2, dims, lib.ACL_FORMAT_ND)
    assert lib.aclGetTensorDescElementCount(d) == 0 and lib.aclGetTensorDescSize(d) == 0
    assert lib.aclGetTensorDescDim(d, 0) == -1
    lib.aclDestroyTensorDesc(d)
    u = lib.aclCreateTensorDesc(lib.ACL_FLOAT, 1, ffi.new("int64_t[]", [-2]), lib.ACL_FORMAT_ND)
    assert lib.aclGetTensorDescNumDims(u) == UNKNOWN_RANK
    lib.aclDestroyTensorDesc(u)
    s = lib.aclCreateTensorDesc(lib.ACL_INT64, 0, ffi.NULL, lib.ACL_FORMAT_ND)   # a 0-d description
    assert lib.aclGetTensorDescNumDims(s) == 0 and lib.aclGetTensorDescElementCount(s) == 1
    assert lib.aclGetTensorDescSize(s) == 8
    lib.aclDestroyTensorDesc(s)


def test_invalid_and_stale():
    assert lib.aclCreateTensorDesc(lib.ACL_FLOAT, 2, ffi.NULL, lib.ACL_FORMAT_ND) == ffi.NULL
    assert "dims" in pyaclnn.recent_error_message()
    assert lib.aclCreateTensorDesc(lib.ACL_FLOAT, 1, ffi.new("int64_t[]", [-3]), lib.ACL_FORMAT_ND) == ffi.NULL
    assert lib.aclGetTensorDescType(ffi.NULL) == lib.ACL_DT_UNDEFINED
    assert lib.aclGetTensorDescFormat(ffi.NULL) == lib.ACL_FORMAT_UNDEFINED
    assert lib.aclGetTensorDescNumDims(ffi.NULL) == 0 and lib.aclGetTensorDescSize(ffi.NULL) == 0
    assert ffi.string(lib.aclGetTensorDescName(ffi.NULL)) == b""
    d = lib.aclCreateTensorDesc(lib.ACL_FLOAT, 0, ffi.NULL, lib.ACL_FORMAT_ND)
    lib.aclDestroyTensorDesc(d)
    lib.aclDestroyTensorDesc(d)                                   # a second destroy is ignored
    assert lib.aclSetTensorFormat(d, lib.ACL_FORMAT_ND) == ACL_ERROR_INVALID_PARAM
    assert "not a live aclTensorDesc" in pyaclnn.recent_error_message()


def test_reset_device_force_in_fresh_process():
    out = run_python("""
from pyaclnn import ffi, lib
d = ffi.new('int32_t *')
r = [lib.aclrtSetDevice(0), lib.aclrtSetDevice(0), lib.aclrtResetDeviceForce(0), lib.aclrtGetDevice(d),
     lib.aclrtResetDeviceForce(0), lib.aclrtResetDeviceForce(5), lib.aclrtSetDevice(0), lib.aclrtGetDevice(d)]
print(r)
""", {"PYACLNN_DEVICE_COUNT": "1"})
    assert eval(out) == [0, 0, 0, 107002, 0, 107001, 0, 0]
