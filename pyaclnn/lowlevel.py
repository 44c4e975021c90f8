"""The low-level layer: drive the C ABI from Python exactly as a C program does.

Everything here is a thin wrapper over the exported ``acl*``/``aclnn*`` symbols; nothing is a second
implementation. Typical use in a test::

    from pyaclnn.lowlevel import ffi, lib, AclTensor, DeviceBuffer, Stream, launch, int_array

    x = AclTensor.from_array(np.ones((1, 1, 4, 4), np.float32), lib.ACL_FORMAT_NCHW)  # aclrtMalloc + memcpy
    y = AclTensor.empty((1, 1, 2, 2), np.float32, lib.ACL_FORMAT_NCHW)
    launch("AvgPool2d", x, int_array([2, 2]), int_array([2, 2]), int_array([0, 0]), False, True, 0, 0, y)
    y.numpy()

or call a phase yourself (``lib.aclnnAvgPool2dGetWorkspaceSize(..., ws, executor)``) and read the status and
``recent_error_message()`` without an exception.

* ``ffi``, ``lib``, ``library_path`` — the cffi handle (declarations generated from ``include/``).
* :class:`DeviceBuffer` — ``aclrtMalloc`` memory freed by ``aclrtFree`` when collected; ``upload``/``download``.
* :class:`AclTensor` — an ``aclTensor`` (``ffi.gc`` → ``aclDestroyTensor``) over a DeviceBuffer (``from_array``
  copies, keeping strides) or over caller memory (:func:`host_tensor`, registered with ``aclrtHostRegister``).
* :class:`Stream` — an ``aclrtStream``; :func:`ensure_device` — ``aclInit`` once, ``aclrtSetDevice`` per thread.
* :func:`launch` — both phases of ``aclnn<op>`` with the arguments in C order.
* :func:`int_array`, :func:`bool_array` — ``aclIntArray``/``aclBoolArray``.
* :func:`check`, :func:`recent_error_message` — status → exception, ``aclGetRecentErrMsg``.
* :func:`capture_launches`, :func:`tensor_info` — observe what the public ops hand to the library.
"""
import contextlib

import numpy as np

from ._ffi import ffi, lib, library_path
from .errors import check, recent_error_message
from .ops._common import OpCall, add_launch_hook, launch, remove_launch_hook
from .runtime import Stream, ensure_device
from .tensor import (AclTensor, DeviceBuffer, HostMemory, acl_dtype, as_array, bool_array, host_tensor, int_array,
                     numpy_dtype, registered_ranges, release)

__all__ = ["ffi", "lib", "library_path", "check", "recent_error_message", "Stream", "ensure_device", "AclTensor",
           "DeviceBuffer", "HostMemory", "acl_dtype", "numpy_dtype", "as_array", "bool_array", "int_array",
           "host_tensor", "release", "registered_ranges", "launch", "OpCall", "capture_launches", "tensor_info"]


@contextlib.contextmanager
def capture_launches():
    """Record every ``launch`` of this thread inside the block: yields a list of ``(op, args)``.

    The recorded arguments keep their AclTensor objects alive, so :func:`tensor_info` can read them afterwards.
    """
    calls = []

    def hook(op, args):
        calls.append((op, args))

    add_launch_hook(hook)
    try:
        yield calls
    finally:
        remove_launch_hook(hook)


def _i64_list(fn, handle):
    p, n = ffi.new("int64_t **"), ffi.new("uint64_t *")
    check(fn(handle, p, n), fn.__name__)
    return tuple(int(p[0][i]) for i in range(n[0]))


def tensor_info(t):
    """What the library sees of an aclTensor (AclTensor or raw handle), read through the accessor functions:
    ``{"addr", "shape", "strides", "offset", "storage_shape", "dtype", "format"}`` (dtype as numpy dtype)."""
    h = t.handle if isinstance(t, AclTensor) else t
    addr = ffi.new("void **")
    check(lib.aclGetRawTensorAddr(h, addr), "aclGetRawTensorAddr")
    off = ffi.new("int64_t *")
    check(lib.aclGetViewOffset(h, off), "aclGetViewOffset")
    dt = ffi.new("aclDataType *")
    check(lib.aclGetDataType(h, dt), "aclGetDataType")
    fmt = ffi.new("aclFormat *")
    check(lib.aclGetFormat(h, fmt), "aclGetFormat")
    return {"addr": int(ffi.cast("uintptr_t", addr[0])), "shape": _i64_list(lib.aclGetViewShape, h),
            "strides": _i64_list(lib.aclGetViewStrides, h), "offset": int(off[0]),
            "storage_shape": _i64_list(lib.aclGetStorageShape, h), "dtype": np.dtype(numpy_dtype(dt[0])),
            "format": int(fmt[0])}
