"""Tensors over device memory and over the caller's own host memory, and the numpy <-> ACL dtype table.

Every C object is wrapped with ``ffi.gc`` the moment it is created, and every wrapper holds a reference to the
memory it points into.

Two ways of giving the library an array
---------------------------------------
* **Copy** (:meth:`AclTensor.from_array`): the byte span a view covers is copied into ``aclrtMalloc`` memory and
  the tensor keeps the view's strides and offset. This is what a C program does, and what ABI-level tests use.
* **Zero copy** (:func:`host_tensor`, used by every public op): the tensor points straight at the array's own
  memory (numpy arrays, PyTorch CPU tensors, any object with ``__dlpack__``), with the array's shape and
  element strides and view offset 0, so ``aclGetRawTensorAddr`` returns the array's data pointer.

The memory guards and the registration rule
-------------------------------------------
The library only accepts a tensor whose whole view lies inside ONE live ``aclrtMalloc`` allocation or ONE range
registered with ``aclrtHostRegister`` (SPEC Decision 6), and it rejects a registration that overlaps memory it
already knows. The Python layer therefore passes its own buffers exactly as a C caller would: it registers
them, for the duration of the call, with ``aclrtHostRegister(ptr, size, ACL_HOST_REGISTER_MAPPED, &devPtr)``
(``devPtr == ptr``) and unregisters them afterwards. The guards are never switched off. The rule:

1. The *root range* of an array is the memory that owns it: for numpy, follow ``.base`` to the ndarray that
   owns the data (through as_strided-style interface objects too) and take its whole byte extent, extended to
   the exporting buffer object (``np.frombuffer``) when there is one; for a PyTorch tensor, its storage
   (``untyped_storage()``); for any other DLPack producer, the span of the view itself.
2. A process-wide, lock-protected table holds the ranges this layer registered, each with a reference count.
   A view whose byte span lies inside a range in the table reuses it (count + 1). Otherwise the root range is
   registered (count = 1). Several arrays sharing one buffer (an input aliasing an output, two views of one
   array) and several Python threads using the same array at once (cffi releases the GIL during the call)
   therefore share one registration, which stays alive until the last call using it returns.
3. Fallback to a copy (through ``aclrtMalloc`` memory, results written back into ``out``) when zero copy is
   impossible: a root range that partially overlaps a range in the table or that the library refuses (for
   example an array over ``aclrtMalloc`` memory), a negative stride (the library accepts only non-negative
   strides), a data pointer or stride that is not a multiple of the element size (unaligned).
4. Empty arrays are passed as they are (the library never touches the memory of an empty view).
5. Outputs: ``out`` must be writeable (a read-only array raises ValueError) and must not map two elements to
   one address (a zero stride); without ``out`` the result is allocated with ``np.empty`` and written in place.

The registration table is :func:`registered_ranges` (for tests); registrations are released even when the op
raises.
"""
import ctypes
import threading

import numpy as np

from ._ffi import ffi, lib
from .errors import check
from .runtime import ensure_device

try:  # bfloat16 through ml_dtypes
    import ml_dtypes

    bfloat16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    bfloat16 = None

__all__ = ["DeviceBuffer", "HostMemory", "AclTensor", "int_array", "bool_array", "acl_dtype", "numpy_dtype", "bfloat16",
           "as_array", "host_tensor", "release", "registered_ranges"]

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
    np.dtype(np.complex64): "ACL_COMPLEX64",
    np.dtype(np.complex128): "ACL_COMPLEX128",
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


# Resolved now, not in the finalizer: cffi resolves a lib attribute under ffi._lock on first use, and a finalizer
# run by the garbage collector while that lock is held (inside any ffi.cast/typeof) would deadlock on it.
_sync_stream, _rt_free = lib.aclrtSynchronizeStream, lib.aclrtFree


def _free(ptr):
    # a collected buffer may still be used by work queued on the default stream: wait for it, then free
    _sync_stream(ffi.NULL)
    _rt_free(ptr)


class DeviceBuffer:
    """``nbytes`` of emulated device memory from aclrtMalloc, freed with aclrtFree when collected."""

    def __init__(self, nbytes):
        ensure_device()
        self.nbytes = max(int(nbytes), 1)
        p = ffi.new("void **")
        check(lib.aclrtMalloc(p, self.nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
        self.ptr = ffi.gc(p[0], _free)

    # Copies are host accesses: the default stream is synchronised first (as torch's .cpu() does), so work queued
    # there through the low-level API is finished; tasks on the caller's own streams are the caller's to
    # synchronise, and the stream checker reports a copy that races one of them.
    # The numpy side may itself be device memory (an array over another DeviceBuffer), so the copies use
    # ACL_MEMCPY_DEFAULT (direction inferred from the addresses) rather than a kind the guards would refuse.
    def upload(self, src: np.ndarray, dst_offset=0):
        n = src.nbytes
        if n:
            check(lib.aclrtSynchronizeStream(ffi.NULL), "aclrtSynchronizeStream")
            check(lib.aclrtMemcpy(self.ptr + dst_offset, self.nbytes - dst_offset, ffi.from_buffer(src), n,
                                  lib.ACL_MEMCPY_DEFAULT), "aclrtMemcpy")

    def download(self, dst: np.ndarray, src_offset=0):
        n = dst.nbytes
        if n:
            check(lib.aclrtSynchronizeStream(ffi.NULL), "aclrtSynchronizeStream")
            check(lib.aclrtMemcpy(ffi.from_buffer(dst), n, self.ptr + src_offset, n,
                                  lib.ACL_MEMCPY_DEFAULT), "aclrtMemcpy")


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
        return np.array(view, order="C", copy=True)  # keeps 0-d arrays 0-d

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


# ---------------------------------------------------------------------------------------------------------------
# Zero copy: arrays from numpy, PyTorch and DLPack, passed to the library over their own (registered) memory.
# ---------------------------------------------------------------------------------------------------------------

_TORCH_DTYPES = {
    "torch.float32": np.dtype(np.float32), "torch.float16": np.dtype(np.float16),
    "torch.float64": np.dtype(np.float64), "torch.bfloat16": bfloat16,
    "torch.int8": np.dtype(np.int8), "torch.int16": np.dtype(np.int16), "torch.int32": np.dtype(np.int32),
    "torch.int64": np.dtype(np.int64), "torch.uint8": np.dtype(np.uint8), "torch.bool": np.dtype(np.bool_),
    "torch.complex64": np.dtype(np.complex64), "torch.complex128": np.dtype(np.complex128),
}


class _ForeignMemory:
    """Exposes foreign memory to numpy (``__array_interface__``) and keeps its owner alive.

    ``pyaclnn_root`` is the (lo, hi) byte range of the storage the memory belongs to (rule 1 of the module
    docstring); numpy arrays built over this object reach it through their ``.base`` chain.
    """

    def __init__(self, ptr, shape, strides, dtype, owner, root, readonly):
        typestr = np.dtype(np.uint16).str if dtype == bfloat16 else dtype.str
        self.__array_interface__ = {"data": (int(ptr), bool(readonly)), "shape": tuple(shape),
                                    "strides": tuple(strides), "typestr": typestr, "version": 3}
        self.owner = owner
        self.pyaclnn_root = root


def _over(ptr, shape, strides, dtype, owner, root, readonly=False):
    a = np.asarray(_ForeignMemory(ptr, shape, strides, dtype, owner, root, readonly))
    return a.view(bfloat16) if dtype == bfloat16 else a


def _is_torch(obj):
    return type(obj).__module__.split(".")[0] == "torch" and hasattr(obj, "untyped_storage")


def _from_torch(t):
    if t.device.type != "cpu":
        raise TypeError(f"only CPU tensors can be passed without a copy, got a tensor on {t.device}")
    t = t.detach()
    if t.is_neg() or t.is_conj():
        t = t.resolve_neg().resolve_conj()
    try:
        dtype = _TORCH_DTYPES[str(t.dtype)]
    except KeyError:
        raise TypeError(f"torch dtype {t.dtype} has no aclDataType equivalent here") from None
    shape = tuple(int(d) for d in t.shape)
    if t.numel() == 0:
        return np.empty(shape, dtype)
    st = t.untyped_storage()
    root = (int(st.data_ptr()), int(st.data_ptr()) + int(st.nbytes()))
    strides = tuple(int(s) * dtype.itemsize for s in t.stride())
    return _over(t.data_ptr(), shape, strides, dtype, t, root)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):  # the first member of DLManagedTensor
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_DTYPES = {(0, 8): np.int8, (0, 16): np.int16, (0, 32): np.int32, (0, 64): np.int64, (1, 8): np.uint8,
              (2, 16): np.float16, (2, 32): np.float32, (2, 64): np.float64, (6, 8): np.bool_}
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _from_capsule(obj):
    """Read a legacy ``dltensor`` capsule directly (numpy's from_dlpack rejects bfloat16).

    The capsule is not consumed: it stays referenced by the returned array, and its own destructor calls the
    producer's deleter when the array is collected (as the DLPack protocol specifies for unconsumed capsules).
    """
    dev = getattr(obj, "__dlpack_device__", lambda: (1, 0))()
    if int(dev[0]) != 1:
        raise TypeError(f"only CPU DLPack tensors are accepted (device type {dev[0]})")
    cap = obj.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(cap, b"dltensor"))
    code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
    if lanes != 1:
        raise TypeError("vector DLPack dtypes are not supported")
    if (code, bits) == (4, 16) and bfloat16 is not None:
        dtype = bfloat16
    elif (code, bits) in _DL_DTYPES:
        dtype = np.dtype(_DL_DTYPES[(code, bits)])
    else:
        raise TypeError(f"DLPack dtype code {code} with {bits} bits is not supported")
    shape = tuple(int(t.shape[i]) for i in range(t.ndim))
    if t.strides:
        strides = tuple(int(t.strides[i]) * dtype.itemsize for i in range(t.ndim))
    else:
        strides, acc = [], dtype.itemsize
        for d in reversed(shape):
            strides.append(acc)
            acc *= max(d, 1)
        strides = tuple(reversed(strides))
    if 0 in shape:
        return np.empty(shape, dtype)
    return _over((t.data or 0) + t.byte_offset, shape, strides, dtype, cap, None)


def as_array(obj):
    """A numpy view of ``obj`` without copying: numpy arrays as they are, PyTorch CPU tensors over their
    storage (any dtype here, bfloat16 as ml_dtypes.bfloat16), other ``__dlpack__`` objects through
    ``np.from_dlpack`` (or the raw capsule for bfloat16); anything else through ``np.asarray``."""
    if isinstance(obj, np.ndarray):
        return obj
    if _is_torch(obj):
        return _from_torch(obj)
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj)
        except (RuntimeError, TypeError, BufferError, ValueError):
            return _from_capsule(obj)
    return np.asarray(obj)


def _extent(ptr, shape, strides, itemsize):
    """[lo, hi) bytes covered by a strided view (strides in bytes, any sign)."""
    lo = hi = int(ptr)
    for d, s in zip(shape, strides):
        if d == 0:
            return int(ptr), int(ptr)
        if s > 0:
            hi += (d - 1) * s
        else:
            lo += (d - 1) * s
    return lo, hi + itemsize


def _array_extent(a, ptr=None):
    if ptr is None:
        ptr = a.__array_interface__["data"][0]
    if a.flags.c_contiguous:
        return ptr, ptr + a.nbytes
    return _extent(ptr, a.shape, a.strides, a.itemsize)


def _root_range(arr, vlo, vhi):
    """Rule 1: the byte range of the memory that owns ``arr`` (at least the view's own extent [vlo, vhi))."""
    a = arr
    owner = a.base
    if owner is None:
        return vlo, vhi
    while owner is not None:
        if isinstance(owner, np.ndarray):
            a, owner = owner, owner.base
        elif getattr(owner, "pyaclnn_root", None) is None and isinstance(getattr(owner, "base", None), np.ndarray):
            a, owner = owner.base, owner.base.base  # as_strided's interface object
        else:
            break
    lo, hi = _array_extent(a)
    root = getattr(owner, "pyaclnn_root", None)
    if root is None and owner is not None and not isinstance(owner, _ForeignMemory):
        try:
            buf = ffi.from_buffer(owner)
            root = (int(ffi.cast("uintptr_t", buf)), int(ffi.cast("uintptr_t", buf)) + len(buf))
        except TypeError:
            root = None
    if root is not None:
        lo, hi = min(lo, root[0]), max(hi, root[1])
    return min(lo, vlo), max(hi, vhi)


_reg_lock = threading.Lock()
_registered = {}  # base address -> [end address, reference count]


def registered_ranges():
    """The host ranges the Python layer has registered right now: {base: (size, users)} (for tests)."""
    with _reg_lock:
        return {k: (v[0] - k, v[1]) for k, v in _registered.items()}


def _acquire(lo, hi, rlo, rhi):
    """Rule 2: a registered range covering [lo, hi), registering [rlo, rhi) if needed; None = copy instead."""
    with _reg_lock:
        for base, entry in _registered.items():
            if base <= lo and hi <= entry[0]:
                entry[1] += 1
                return base
        for base, entry in _registered.items():
            if base < rhi and rlo < entry[0]:
                return None  # partial overlap with a registration in use
        devp = ffi.new("void **")
        rc = lib.aclrtHostRegister(ffi.cast("void *", rlo), rhi - rlo, lib.ACL_HOST_REGISTER_MAPPED, devp)
        if rc != 0:
            lib.aclGetRecentErrMsg()  # the refusal is handled here, not reported to the caller
            return None
        _registered[rlo] = [rhi, 1]
        return rlo


def release(key):
    """Drop one use of a registration returned by :func:`host_tensor`; unregister it with the last one."""
    if key is None:
        return
    with _reg_lock:
        entry = _registered[key]
        entry[1] -= 1
        if entry[1] == 0:
            del _registered[key]
            if lib.aclrtHostUnregister(ffi.cast("void *", key)) != 0:
                lib.aclGetRecentErrMsg()


class HostMemory:
    """The caller's own memory as a tensor's address (``.ptr``); keeps the array alive."""

    def __init__(self, arr):
        self.array = arr
        self.ptr = ffi.cast("void *", arr.__array_interface__["data"][0])
        self.nbytes = arr.nbytes


def host_tensor(arr, fmt=None):
    """An AclTensor over ``arr``'s own memory: ``(tensor, key)``, or ``(None, None)`` when only a copy works.

    ``key`` (None for empty arrays) must be handed to :func:`release` once the op call has returned.
    """
    isz = arr.itemsize
    if arr.size == 0:
        strides = tuple(s // isz if s % isz == 0 and s >= 0 else 0 for s in arr.strides)
        return AclTensor(arr.shape, arr.dtype, strides, 0, fmt, HostMemory(arr)), None
    ptr = arr.__array_interface__["data"][0]
    if ptr % isz or any(s < 0 or s % isz for s in arr.strides):
        return None, None
    lo, hi = _array_extent(arr, ptr)
    rlo, rhi = _root_range(arr, lo, hi)
    ensure_device()
    key = _acquire(lo, hi, rlo, rhi)
    if key is None:
        return None, None
    try:
        t = AclTensor(arr.shape, arr.dtype, tuple(s // isz for s in arr.strides), 0, fmt, HostMemory(arr))
    except BaseException:
        release(key)
        raise
    return t, key
