"""Device buffers, aclTensor / aclIntArray / aclBoolArray wrappers and the numpy <-> ACL dtype table.

Every C object is wrapped with ``ffi.gc`` the moment it is created, and every wrapper holds a reference to the
memory it points into. Arrays travel to "device" memory (aclrtMalloc) by copying the byte span their view
covers, so strided views keep their strides and offset and the emulator's memory guards apply exactly as they
do for C callers.
"""
import numpy as np

from ._ffi import ffi, lib
from .errors import check
from .runtime import ensure_device

try:  # bfloat16 through ml_dtypes
    import ml_dtypes

    bfloat16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    bfloat16 = None

__all__ = ["DeviceBuffer", "AclTensor", "int_array", "bool_array", "acl_dtype", "numpy_dtype", "bfloat16"]

_NP_TO_ACL = {
    np.dtype(np.float32): "ACL_FLOAT",
    np.dtype(np.float16): "ACL_FLOAT16",
    np.dtype(np.float64): "ACL_DOUBLE",
    np.dtype(np.int8): "ACL_INT8",
    np.dtype(np.int16): "ACL_INT16",
    np.dtype(np.int32): "ACL_INT32",
    np.dtype(np.int64): "ACL_INT64",
    np.dtype(np.uint8): "ACL_UINT8",
    np.dtype(np.uint16): "ACL_UINT16",
    np.dtype(np.uint32): "ACL_UINT32",
    np.dtype(np.uint64): "ACL_UINT64",
    np.dtype(np.bool_): "ACL_BOOL",
}
if bfloat16 is not None:
    _NP_TO_ACL[bfloat16] = "ACL_BF16"


def acl_dtype(dtype):
    """The aclDataType value of a numpy dtype."""
    try:
        return getattr(lib, _NP_TO_ACL[np.dtype(dtype)])
    except KeyError:
        raise TypeError(f"dtype {np.dtype(dtype)} has no aclDataType") from None


def numpy_dtype(acl):
    for k, v in _NP_TO_ACL.items():
        if getattr(lib, v) == acl:
            return k
    raise TypeError(f"aclDataType {acl} has no numpy dtype")


class DeviceBuffer:
    """``nbytes`` of emulated device memory from aclrtMalloc, freed with aclrtFree when collected."""

    def __init__(self, nbytes):
        ensure_device()
        self.nbytes = max(int(nbytes), 1)
        p = ffi.new("void **")
        check(lib.aclrtMalloc(p, self.nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
        self.ptr = ffi.gc(p[0], lib.aclrtFree)

    def upload(self, src: np.ndarray, dst_offset=0):
        n = src.nbytes
        if n:
            check(lib.aclrtMemcpy(self.ptr + dst_offset, self.nbytes - dst_offset, ffi.from_buffer(src), n,
                                  lib.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")

    def download(self, dst: np.ndarray, src_offset=0):
        n = dst.nbytes
        if n:
            check(lib.aclrtMemcpy(ffi.from_buffer(dst), n, self.ptr + src_offset, n,
                                  lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")


def _span(arr: np.ndarray):
    """(byte offset of the lowest element from arr's data pointer, byte length) of a non-negative-stride view."""
    if arr.size == 0:
        return 0, 0
    hi = sum((d - 1) * s for d, s in zip(arr.shape, arr.strides))
    return 0, hi + arr.itemsize


def _strided_ok(arr):
    return all(s >= 0 and s % arr.itemsize == 0 for s in arr.strides)


def _base_u8(arr):
    return np.frombuffer(ffi.buffer(ffi.cast("char *", arr.ctypes.data), _span(arr)[1]), dtype=np.uint8) \
        if arr.size else np.empty(0, np.uint8)


class AclTensor:
    """An aclTensor over a DeviceBuffer. ``shape``/``dtype``/``strides`` (in elements) describe the view."""

    def __init__(self, shape, dtype, strides=None, offset=0, fmt=None, buffer=None, storage_shape=None):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        itemsize = self.dtype.itemsize
        if strides is None:
            strides, acc = [], 1
            for d in reversed(self.shape):
                strides.append(acc)
                acc *= max(d, 1)
            strides = tuple(reversed(strides))
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)
        if fmt is None:
            fmt = lib.ACL_FORMAT_ND
        self.format = fmt
        if buffer is None:
            n = self.offset + 1 + sum((d - 1) * s for d, s in zip(self.shape, self.strides)) if all(self.shape) else 0
            buffer = DeviceBuffer(max(n, 1) * itemsize)
        self.buffer = buffer
        if storage_shape is None:
            storage_shape = self.shape
        dims = ffi.new("int64_t[]", list(self.shape) or [0])
        st = ffi.new("int64_t[]", list(self.strides) or [0])
        sdims = ffi.new("int64_t[]", list(storage_shape) or [0])
        h = lib.aclCreateTensor(dims, len(self.shape), acl_dtype(self.dtype), st, self.offset, fmt, sdims,
                                len(storage_shape), buffer.ptr)
        if h == ffi.NULL:
            raise MemoryError("aclCreateTensor returned NULL")
        self.handle = ffi.gc(h, lib.aclDestroyTensor)

    @classmethod
    def from_array(cls, arr, fmt=None):
        """Copy arr to device memory keeping its strides (a strided view stays a strided view)."""
        arr = np.asarray(arr)
        if not _strided_ok(arr):
            arr = np.ascontiguousarray(arr)
        _, length = _span(arr)
        buf = DeviceBuffer(length)
        if length:
            buf.upload(_base_u8(arr))
        strides = tuple(s // arr.itemsize for s in arr.strides)
        return cls(arr.shape, arr.dtype, strides, 0, fmt, buf)

    @classmethod
    def empty(cls, shape, dtype, fmt=None):
        return cls(shape, dtype, None, 0, fmt)

    def numpy(self):
        """The view's values as a new C-contiguous numpy array."""
        itemsize = self.dtype.itemsize
        raw = np.empty(self.buffer.nbytes, np.uint8)
        self.buffer.download(raw)
        if not all(self.shape):
            return np.empty(self.shape, self.dtype)
        view = np.lib.stride_tricks.as_strided(raw[self.offset * itemsize:].view(self.dtype),
                                               shape=self.shape,
                                               strides=tuple(s * itemsize for s in self.strides))
        return np.ascontiguousarray(view)

    def copy_to(self, arr: np.ndarray):
        """Write the view's values into arr (same shape), which may itself be strided."""
        arr[...] = self.numpy()


def int_array(values):
    values = [int(v) for v in values]
    h = lib.aclCreateIntArray(ffi.new("int64_t[]", values or [0]), len(values))
    if h == ffi.NULL:
        raise MemoryError("aclCreateIntArray returned NULL")
    return ffi.gc(h, lib.aclDestroyIntArray)


def bool_array(values):
    values = [bool(v) for v in values]
    h = lib.aclCreateBoolArray(ffi.new("bool[]", values or [False]), len(values))
    if h == ffi.NULL:
        raise MemoryError("aclCreateBoolArray returned NULL")
    return ffi.gc(h, lib.aclDestroyBoolArray)
