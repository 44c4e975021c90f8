"""The one launcher every op shares, and the array boundary the op modules use.

Every public op follows the same shape::

    def foo(x, k, *, out=None, stream=None):
        with OpCall() as call:
            x = call.array(x, "x", FLOAT_DTYPES)         # numpy / torch / DLPack -> numpy view, dtype checked
            y, yt = call.output(out, shape, x.dtype)     # out= (written in place) or np.empty
            launch("Foo", call.input(x), int_array(k), yt, stream=stream)
        return y

Inputs and outputs are passed over their own memory (see :mod:`pyaclnn.tensor` for the registration rule);
the registrations are released, and copy-fallback outputs written back, when the ``with`` block ends.
"""
import threading

import numpy as np

from .._ffi import ffi, lib
from ..errors import check
from ..runtime import ensure_device
from ..tensor import AclTensor, DeviceBuffer, as_array, bfloat16, host_tensor, release

__all__ = ["launch", "OpCall", "FLOAT_DTYPES", "check_dtype", "as_tensor", "output_tensor", "finish_output"]

FLOAT_DTYPES = tuple(d for d in (np.dtype(np.float32), np.dtype(np.float16), bfloat16) if d is not None)


class _Hooks(threading.local):
    """Per-thread launch state. Class-level defaults: reading an attribute a thread never set is a plain lookup
    (getattr with a default on a bare threading.local raises and catches AttributeError: 0.4 us, a sixth of a
    small op's launch)."""
    stack = ()  # the launch hooks (add_launch_hook)
    slots = None  # the (workspace size, executor) out-parameters, reused


_hooks = _Hooks()


def symbol(op):
    """The C symbol of table op `op`'s second phase: "aclnn" + op, or what the table says ("aclStft")."""
    from pyaclnn._optable import OPS
    return OPS.get(op, {}).get("symbol", "aclnn" + op)


_fns = {}


def _op_fns(op):
    """(symbol, first phase, second phase) of `op`, looked up once per op (a launch is a few microseconds: the
    table import and two attribute lookups by formatted name were a third of it for a small op)."""
    f = _fns.get(op)
    if f is None:
        sym = symbol(op)
        f = _fns[op] = (sym, getattr(lib, f"{sym}GetWorkspaceSize"), getattr(lib, sym))
    return f


def launch(op, *args, stream=None, synchronize=True):
    """Run both phases of aclnn<op>: GetWorkspaceSize(args..., &ws, &executor), allocate the workspace, run.

    ``args`` are the op's arguments in C order (AclTensor objects, cffi handles, numbers; None for NULL).
    Every argument stays referenced until the run returns. The executor is consumed by the run. With
    ``synchronize`` (the default) the stream is synchronised before returning, so outputs may be read at once;
    otherwise the caller synchronises ``stream`` (the stream checker reports a read before that) and the
    workspace is kept alive by the stream object.
    """
    ensure_device()
    for hook in _hooks.stack:
        hook(op, args)
    slots = _hooks.slots  # this thread's (workspace size, executor) out-parameters, reused
    if slots is None:
        slots = _hooks.slots = (ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"))
    ws, ex = slots
    null = ffi.NULL
    c_args = [a.handle if isinstance(a, AclTensor) else null if a is None else a for a in args]
    sym, first, second = _op_fns(op)
    rc = first(*c_args, ws, ex)
    if rc:
        check(rc, f"{sym}GetWorkspaceSize")
    nws, exe = ws[0], ex[0]  # read before anything below could launch again on this thread
    buf = DeviceBuffer(nws) if nws else None
    handle = stream.handle if stream is not None and hasattr(stream, "handle") else stream
    if isinstance(handle, int):  # a pyACL-style integer handle
        handle = ffi.cast("aclrtStream", handle)
    rc = second(buf.ptr if buf else null, nws, exe, null if handle is None else handle)
    if rc:
        check(rc, sym)
    if synchronize:
        rc = lib.aclrtSynchronizeStream(ffi.NULL if handle is None else handle)
        if rc:
            check(rc, "aclrtSynchronizeStream")
    elif buf is not None and hasattr(stream, "_keep"):
        stream._keep(buf)  # the workspace lives until the stream is synchronised
    return args


def add_launch_hook(fn):
    """Call ``fn(op, args)`` before every launch in this thread (see pyaclnn.lowlevel.capture_launches)."""
    _hooks.stack = _hooks.stack + (fn,)


def remove_launch_hook(fn):
    stack = list(_hooks.stack)
    stack.remove(fn)
    _hooks.stack = tuple(stack)


def check_dtype(arr, allowed, name):
    if np.dtype(arr.dtype) not in allowed:
        names = ", ".join(str(d) for d in allowed)
        raise TypeError(f"{name} has dtype {arr.dtype}; expected one of {names}")


class OpCall:
    """The tensors of one op call: zero-copy where possible, registrations released on exit."""

    def __init__(self):
        self._keys = []
        self._writebacks = []

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                for dst, t in self._writebacks:
                    t.copy_to(dst)
        finally:
            keys, self._keys = self._keys, []
            for k in keys:
                release(k)
        return False

    @staticmethod
    def array(obj, name, dtypes=None):
        """``obj`` (numpy, torch, DLPack, or anything np.asarray takes) as a numpy view, dtype checked."""
        arr = as_array(obj)
        if dtypes is not None:
            check_dtype(arr, dtypes, name)
        return arr

    def input(self, arr, fmt=None):
        """An AclTensor over an input array's own memory (a copy only when zero copy is impossible)."""
        t, key = host_tensor(arr, fmt)
        if t is None:
            return AclTensor.from_array(arr, fmt)
        if key is not None:
            self._keys.append(key)
        return t

    def output(self, out, shape, dtype, fmt=None, name="out", zeros=False):
        """``(result, tensor)`` for an output: ``out`` written in place, or a new array (np.empty; np.zeros with
        ``zeros=True``). ``result`` is ``out`` itself (numpy array or tensor) when given."""
        shape = tuple(int(d) for d in shape)
        dtype = np.dtype(dtype)
        if out is None:
            arr = (np.zeros if zeros else np.empty)(shape, dtype)
            result = arr
        else:
            arr = as_array(out)
            result = out
            if arr.shape != shape or arr.dtype != dtype:
                raise ValueError(f"{name} has shape {arr.shape} and dtype {arr.dtype}; expected {shape} and {dtype}")
            if not arr.flags.writeable:
                raise ValueError(f"{name} is read-only")
            if arr.size and any(s == 0 and d > 1 for s, d in zip(arr.strides, arr.shape)):
                raise ValueError(f"{name} has a zero stride: several elements would share one address")
        t, key = host_tensor(arr, fmt)
        if t is None:
            t = AclTensor.from_array(arr, fmt)  # starts with out's values: ops may leave outputs untouched
            self._writebacks.append((arr, t))
        elif key is not None:
            self._keys.append(key)
        return result, t


# ---- kept for tests and callers that want the copying path explicitly ----

def as_tensor(arr, fmt=None):
    """An input array copied to device memory as an aclTensor (strided views stay strided)."""
    return AclTensor.from_array(np.asarray(arr), fmt)


def output_tensor(out, shape, dtype, fmt=None):
    """An output aclTensor in device memory: over a copy of ``out`` if given (shape/dtype checked), else new."""
    shape = tuple(int(d) for d in shape)
    if out is None:
        return AclTensor.empty(shape, dtype, fmt)
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be a numpy array")
    if out.shape != shape or out.dtype != np.dtype(dtype):
        raise ValueError(f"out has shape {out.shape} and dtype {out.dtype}; expected {shape} and {np.dtype(dtype)}")
    return AclTensor.from_array(out, fmt)


def finish_output(t, out):
    """The result of a device-memory output: written into ``out`` when given (and ``out`` returned)."""
    if out is None:
        return t.numpy()
    t.copy_to(out)
    return out
