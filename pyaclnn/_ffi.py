"""The cffi handle on the emulator library.

The declarations come from ``_cdef.h`` (generated from ``include/`` by ``make cdef``). The library is looked up
in this order: ``$PYACLNN_LIBRARY``; the one in the toolkit tree shipped inside the package
(``pyaclnn/cann/lib64``, which C programs built against that tree load too); the repository's build output
(``build/lib``, then ``build/pip/lib``); ``ctypes.util.find_library("pyaclnn")``. Every failure is collected into one
OSError.
"""
import ctypes.util
import os
import pathlib

import cffi

LIBNAME = "libpyaclnn.so"
_HERE = pathlib.Path(__file__).resolve().parent

ffi = cffi.FFI()
ffi.cdef((_HERE / "_cdef.h").read_text())


def _candidates():
    env = os.environ.get("PYACLNN_LIBRARY")
    if env:
        yield env
    yield str(_HERE / "cann" / "lib64" / LIBNAME)
    yield str(_HERE.parent / "build" / "lib" / LIBNAME)
    yield str(_HERE.parent / "build" / "pip" / "lib" / LIBNAME)  # a checkout where only `pip install .` ran
    found = ctypes.util.find_library("pyaclnn")
    if found:
        yield found


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            return ffi.dlopen(path), path
        except OSError as exc:  # pragma: no cover - depends on the machine
            errors.append(f"{path}: {exc}")
    raise OSError("cannot load the pyaclnn library (run `make`, or set PYACLNN_LIBRARY):\n  " + "\n  ".join(errors))


lib, library_path = _load()
