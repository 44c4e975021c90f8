"""Process and thread set-up of the emulated device, and streams.

aclInit runs once per process (under a lock) with aclFinalize registered at exit. The current device is
per thread in ACL, so every thread that launches work binds device 0 on first use.
"""
import atexit
import threading

from ._ffi import ffi, lib
from .errors import check

__all__ = ["ensure_device", "Stream", "soc_name", "set_deterministic", "get_deterministic"]

_lock = threading.Lock()
_initialized = False
_tls = threading.local()
DEVICE_ID = 0


def _finalize():
    lib.aclrtResetDevice(DEVICE_ID)
    lib.aclFinalize()
    lib.aclGetRecentErrMsg()


def ensure_device():
    """aclInit once per process, aclrtSetDevice once per thread."""
    global _initialized
    if not _initialized:
        with _lock:
            if not _initialized:
                rc = lib.aclInit(ffi.NULL)
                if rc not in (0, lib.ACL_ERROR_REPEAT_INITIALIZE):
                    check(rc, "aclInit")
                lib.aclGetRecentErrMsg()
                atexit.register(_finalize)
                _initialized = True
    if not getattr(_tls, "device_set", False):
        check(lib.aclrtSetDevice(DEVICE_ID), "aclrtSetDevice")
        _tls.device_set = True


class Stream:
    """An aclrtStream owned by Python (destroyed when collected)."""

    def __init__(self):
        ensure_device()
        p = ffi.new("aclrtStream *")
        check(lib.aclrtCreateStream(p), "aclrtCreateStream")
        self.handle = ffi.gc(p[0], _destroy_stream)
        self._pending = []

    def _keep(self, obj):
        """Keep obj (a workspace) alive until the next synchronize()."""
        self._pending.append(obj)

    def synchronize(self):
        check(lib.aclrtSynchronizeStream(self.handle), "aclrtSynchronizeStream")
        self._pending.clear()


# resolved now, not in the finalizer (see tensor._free: cffi's lazy lookup takes ffi._lock)
_sync_stream, _destroy = lib.aclrtSynchronizeStream, lib.aclrtDestroyStream


def _destroy_stream(handle):
    _sync_stream(handle)  # a collected stream waits for its tasks first
    _destroy(handle)


def soc_name():
    return ffi.string(lib.aclrtGetSocName()).decode()


def set_deterministic(level=1):
    ensure_device()
    check(lib.aclrtSetSysParamOpt(lib.ACL_OPT_DETERMINISTIC, int(level)), "aclrtSetSysParamOpt")


def get_deterministic():
    v = ffi.new("int64_t *")
    check(lib.aclrtGetSysParamOpt(lib.ACL_OPT_DETERMINISTIC, v), "aclrtGetSysParamOpt")
    return int(v[0])
