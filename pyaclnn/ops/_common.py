"""The one launcher every op shares, and the numpy-boundary helpers the op modules use."""
import numpy as np

from .._ffi import ffi, lib
from ..errors import check
from ..runtime import ensure_device
from ..tensor import AclTensor, DeviceBuffer, bfloat16

__all__ = ["launch", "as_tensor", "output_tensor", "finish_output", "FLOAT_DTYPES", "check_dtype"]

FLOAT_DTYPES = tuple(d for d in (np.dtype(np.float32), np.dtype(np.float16), bfloat16) if d is not None)


def _arg(a):
    if isinstance(a, AclTensor):
        return a.handle
    if a is None:
        return ffi.NULL
    return a


def launch(op, *args, stream=None):
    """Run both phases of aclnn<op>: GetWorkspaceSize(args..., &ws, &executor), allocate the workspace, run.

    ``args`` are the op's arguments in C order (AclTensor objects, cffi handles, numbers; None for NULL).
    Every argument stays referenced until the run returns. The executor is consumed by the run.
    """
    ensure_device()
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    c_args = [_arg(a) for a in args]
    check(getattr(lib, f"aclnn{op}GetWorkspaceSize")(*c_args, ws, ex), f"aclnn{op}GetWorkspaceSize")
    buf = DeviceBuffer(ws[0]) if ws[0] else None
    check(getattr(lib, f"aclnn{op}")(buf.ptr if buf else ffi.NULL, ws[0], ex[0],
                                     stream.handle if stream is not None else ffi.NULL), f"aclnn{op}")
    return args


def check_dtype(arr, allowed, name):
    if np.dtype(arr.dtype) not in allowed:
        names = ", ".join(str(d) for d in allowed)
        raise TypeError(f"{name} has dtype {arr.dtype}; expected one of {names}")


def as_tensor(arr, fmt=None):
    """An input array as an aclTensor (strided views stay strided)."""
    return AclTensor.from_array(np.asarray(arr), fmt)


def output_tensor(out, shape, dtype, fmt=None):
    """The aclTensor an op writes into: over a copy of ``out`` if given (shape/dtype checked), else new."""
    shape = tuple(int(d) for d in shape)
    if out is None:
        return AclTensor.empty(shape, dtype, fmt)
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be a numpy array")
    if out.shape != shape or out.dtype != np.dtype(dtype):
        raise ValueError(f"out has shape {out.shape} and dtype {out.dtype}; expected {shape} and {np.dtype(dtype)}")
    return AclTensor.from_array(out, fmt)


def finish_output(t, out):
    """The result as numpy: written into ``out`` when given (and ``out`` returned), else a new array."""
    if out is None:
        return t.numpy()
    t.copy_to(out)
    return out
