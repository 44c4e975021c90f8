"""Meta objects (SPEC §1.6-1.7): tensors, scalars, arrays, lists, accessors, address setters, executors."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib

pyaclnn.ensure_device()
NULL = ffi.NULL


def dims(*v):
    return ffi.new("int64_t[]", list(v) or [0])


def make(shape=(2, 3), dtype=0, strides=None, offset=0, fmt=2, data=NULL):
    return lib.aclCreateTensor(dims(*shape), len(shape), dtype, dims(*strides) if strides else NULL, offset, fmt,
                               dims(*shape), len(shape), data)


def get_array(fn, t):
    p, n = ffi.new("int64_t **"), ffi.new("uint64_t *")
    assert fn(t, p, n) == 0
    return [p[0][i] for i in range(n[0])]


def test_create_tensor_and_accessors():
    t = make((2, 3, 4), dtype=1, offset=5, fmt=0)
    assert t != NULL
    assert get_array(lib.aclGetViewShape, t) == [2, 3, 4]
    assert get_array(lib.aclGetViewStrides, t) == [12, 4, 1]     # NULL strides -> row-major of the view
    assert get_array(lib.aclGetStorageShape, t) == [2, 3, 4]
    off, fmt, dt = ffi.new("int64_t *"), ffi.new("aclFormat *"), ffi.new("aclDataType *")
    assert lib.aclGetViewOffset(t, off) == 0 and off[0] == 5
    assert lib.aclGetFormat(t, fmt) == 0 and fmt[0] == 0
    assert lib.aclGetDataType(t, dt) == 0 and dt[0] == 1
    addr = ffi.new("void **")
    assert lib.aclGetRawTensorAddr(t, addr) == 0 and addr[0] == NULL
    assert lib.aclSetRawTensorAddr(t, ffi.cast("void *", 0x1000)) == 0
    assert lib.aclGetRawTensorAddr(t, addr) == 0 and int(ffi.cast("uintptr_t", addr[0])) == 0x1000
    assert lib.aclDestroyTensor(t) == 0


def test_create_tensor_null_rules():
    assert lib.aclCreateTensor(NULL, 2, 0, NULL, 0, 2, NULL, 0, NULL) == NULL
    assert lib.aclCreateTensor(dims(2), 1, 0, NULL, 0, 2, NULL, 1, NULL) == NULL
    t = lib.aclCreateTensor(NULL, 0, 0, NULL, 0, 2, NULL, 0, NULL)   # 0-d tensor
    assert t != NULL
    assert get_array(lib.aclGetViewShape, t) == []
    lib.aclDestroyTensor(t)
    # No validation of dtype/strides/address at creation.
    t = make((2,), dtype=999, strides=(-1,), offset=-3)
    assert t != NULL
    lib.aclDestroyTensor(t)


def test_accessor_null_and_foreign():
    t = make()
    p, n = ffi.new("int64_t **"), ffi.new("uint64_t *")
    assert lib.aclGetViewShape(NULL, p, n) == 161001
    assert lib.aclGetViewShape(t, NULL, n) == 161001
    assert lib.aclGetViewOffset(t, NULL) == 161001
    arr = lib.aclCreateIntArray(dims(1), 1)
    assert lib.aclGetViewShape(ffi.cast("aclTensor *", arr), p, n) == 161002   # an IntArray is not a tensor
    assert "aclIntArray" in pyaclnn.recent_error_message()
    lib.aclDestroyIntArray(arr)
    lib.aclDestroyTensor(t)


def test_destroy_semantics():
    assert lib.aclDestroyTensor(NULL) == 0
    assert lib.aclDestroyIntArray(NULL) == 0
    assert lib.aclDestroyScalar(NULL) == 0
    assert lib.aclDestroyTensorList(NULL) == 0
    t = make()
    assert lib.aclDestroyTensor(t) == 0
    assert lib.aclDestroyTensor(t) == 161002          # double destroy reported, not a double free
    assert "destroyed" in pyaclnn.recent_error_message()


def test_init_tensor():
    t = make((2, 3))
    assert lib.aclInitTensor(NULL, dims(1), 1, 0, NULL, 0, 2, NULL, 0, NULL) == 161001
    assert lib.aclInitTensor(t, dims(4, 5), 2, 1, NULL, 2, 0, NULL, 0, NULL) == 0
    assert get_array(lib.aclGetViewShape, t) == [4, 5]
    assert get_array(lib.aclGetViewStrides, t) == [5, 1]
    assert get_array(lib.aclGetStorageShape, t) == [2, 3]   # NULL storageDims keeps the old value
    off = ffi.new("int64_t *")
    lib.aclGetViewOffset(t, off)
    assert off[0] == 2
    lib.aclDestroyTensor(t)


@pytest.mark.parametrize("kind,ctype,values", [("Int", "int64_t", [3, -1, 7]), ("Float", "float", [1.5, -2.0]),
                                               ("Bool", "bool", [True, False, True])])
def test_arrays(kind, ctype, values):
    create = getattr(lib, f"aclCreate{kind}Array")
    size_of = getattr(lib, f"aclGet{kind}ArraySize")
    destroy = getattr(lib, f"aclDestroy{kind}Array")
    a = create(ffi.new(f"{ctype}[]", values), len(values))
    n = ffi.new("uint64_t *")
    assert size_of(a, n) == 0 and n[0] == len(values)
    assert size_of(NULL, n) == 161001
    empty = create(NULL, 5)
    assert empty != NULL and size_of(empty, n) == 0 and n[0] == 0
    empty2 = create(ffi.new(f"{ctype}[]", values), 0)
    assert size_of(empty2, n) == 0 and n[0] == 0
    for x in (a, empty, empty2):
        assert destroy(x) == 0
    assert destroy(a) == 161002


def test_scalar_and_lists():
    v = ffi.new("float *", 2.5)
    assert lib.aclCreateScalar(NULL, 0) == NULL
    s1 = lib.aclCreateScalar(v, 0)
    s2 = lib.aclCreateScalar(ffi.new("int64_t *", 4), 9)
    sl = lib.aclCreateScalarList(ffi.new("aclScalar *[]", [s1, s2]), 2)
    n = ffi.new("uint64_t *")
    assert lib.aclGetScalarListSize(sl, n) == 0 and n[0] == 2
    assert lib.aclDestroyScalarList(sl) == 0
    assert lib.aclDestroyScalar(s1) == 161002          # owned (and destroyed) by the list
    t1, t2 = make(), make((4,))
    tl = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [t1, t2]), 2)
    assert lib.aclGetTensorListSize(tl, n) == 0 and n[0] == 2
    assert lib.aclDestroyTensorList(tl) == 0
    assert lib.aclDestroyTensor(t1) == 161002
    bad = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [ffi.cast("aclTensor *", v)]), 1)
    assert bad == NULL                                  # elements must be live tensors


def test_executor_api_null_and_foreign():
    assert lib.aclSetAclOpExecutorRepeatable(NULL) == 561103
    assert lib.aclDestroyAclOpExecutor(NULL) == 561103
    t = make()
    foreign = ffi.cast("aclOpExecutor *", t)
    assert lib.aclSetAclOpExecutorRepeatable(foreign) == 561000
    assert lib.aclDestroyAclOpExecutor(foreign) == 561000
    assert lib.aclSetInputTensorAddr(NULL, 0, t, NULL) == 561103       # tensor updated first, then executor
    assert lib.aclSetInputTensorAddr(foreign, 0, NULL, NULL) == 561103
    assert lib.AclSetInputTensorAddr(foreign, 0, t, NULL) == 561000
    tl = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [make()]), 1)
    assert lib.aclSetDynamicInputTensorAddr(NULL, 0, 0, NULL, NULL) == 561103
    assert lib.aclSetDynamicInputTensorAddr(foreign, 0, 5, tl, NULL) == 161002   # relativeIndex out of range
    assert lib.aclSetDynamicInputTensorAddr(NULL, 0, 0, tl, NULL) == 561103
    lib.aclDestroyTensorList(tl)
    lib.aclDestroyTensor(t)


def test_aclnn_init_finalize():
    assert lib.aclnnInit(NULL) == 0
    assert lib.aclnnFinalize() == 0


def test_python_tensor_roundtrip_strided():
    base = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    view = base[1:, ::2, 1::2]
    t = pyaclnn.AclTensor.from_array(view)
    assert t.strides == (20, 10, 2)
    np.testing.assert_array_equal(t.numpy(), view)
