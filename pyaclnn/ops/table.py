"""Every op of the op table (tools/optable), callable from Python with its C arguments in API order.

``call(op, *args)`` runs both phases of ``aclnn<op>``. Each argument is converted by the kind its C type has in the
table (``pyaclnn._optable``):

=============================  ==============================================================================
C type                         Python value
=============================  ==============================================================================
``const aclTensor*``           an array (numpy, PyTorch CPU tensor, ``__dlpack__``) or None for NULL
``aclTensor*`` (out, selfRef)  an array written in place (any strides; a copy is written back if needed)
``aclScalar*``                 a number (bool -> BOOL, int -> INT64, float -> FLOAT, complex -> COMPLEX64), a numpy
                               scalar (its dtype), ``scalar(v, dtype)``, or None
``aclIntArray*`` etc.          a sequence of ints / floats / bools, or None
``aclTensorList*``             a sequence of arrays (outputs for a non-const list)
``aclScalarList*``             a sequence of numbers
int / float / bool / char* /   the plain value (``str`` for ``char*``, a numpy dtype or aclDataType int for
aclDataType                    ``aclDataType``)
=============================  ==============================================================================

>>> import numpy as np, pyaclnn
>>> out = np.empty(3, np.float32)
>>> _ = pyaclnn.call("Add", np.ones(3, np.float32), np.arange(3, dtype=np.float32), 2.0, out)
>>> out.tolist()
[1.0, 3.0, 5.0]
"""
import numpy as np

from .._ffi import ffi, lib
from .._optable import OPS
from ..tensor import acl_dtype, bool_array, int_array
from ._common import OpCall, launch

__all__ = ["call", "scalar", "table_ops"]


class _Scalar:
    def __init__(self, value, dtype):
        self.value, self.dtype = value, np.dtype(dtype)


def scalar(value, dtype):
    """A scalar argument with an explicit dtype (numpy dtype, e.g. ``scalar(2, np.int32)``)."""
    return _Scalar(value, dtype)


def _scalar_dtype(v):
    if isinstance(v, _Scalar):
        return v.dtype
    if isinstance(v, np.generic):
        return v.dtype
    if isinstance(v, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(v, int):
        return np.dtype(np.int64)
    if isinstance(v, float):
        return np.dtype(np.float32)
    if isinstance(v, complex):
        return np.dtype(np.complex64)
    raise TypeError(f"cannot make an aclScalar of {type(v).__name__}")


def make_scalar(v):
    """An aclScalar (``ffi.gc`` -> aclDestroyScalar) for a Python/numpy number or ``scalar(v, dtype)``."""
    dt = _scalar_dtype(v)
    val = v.value if isinstance(v, _Scalar) else v
    buf = np.array([val]).astype(dt)
    data = ffi.new("char[]", buf.tobytes() + b"\0" * 16)
    h = lib.aclCreateScalar(data, acl_dtype(dt))
    if h == ffi.NULL:
        raise ValueError(f"aclCreateScalar refused {v!r}")
    return ffi.gc(h, lib.aclDestroyScalar)


def float_array(values):
    values = [float(v) for v in values]
    h = lib.aclCreateFloatArray(ffi.new("float[]", values or [0.0]), len(values))
    if h == ffi.NULL:
        raise MemoryError("aclCreateFloatArray returned NULL")
    return ffi.gc(h, lib.aclDestroyFloatArray)


def _tensor_list(call, arrays, outputs):
    ts = [call.output(a, np.shape(a), call.array(a, "list").dtype)[1] if outputs else call.input(call.array(a, "t"))
          for a in arrays]
    handles = ffi.new("aclTensor *[]", [t.handle for t in ts] or [ffi.NULL])
    h = lib.aclCreateTensorList(handles, len(ts))
    if h == ffi.NULL:
        raise ValueError("aclCreateTensorList returned NULL")
    return ts, ffi.gc(h, lib.aclDestroyTensorList)


def _scalar_list(values):
    ss = [make_scalar(v) for v in values]
    handles = ffi.new("aclScalar *[]", ss or [ffi.NULL])
    h = lib.aclCreateScalarList(handles, len(ss))
    if h == ffi.NULL:
        raise ValueError("aclCreateScalarList returned NULL")
    return ss, ffi.gc(h, lib.aclDestroyScalarList)


def convert_args(call, op, args):
    """The C arguments of table op ``op`` from Python values (see the module docstring); keeps what it creates
    alive through the returned list."""
    spec = OPS[op]["args"]
    if len(args) != len(spec):
        names = ", ".join(n for _, n, _ in spec)
        raise TypeError(f"aclnn{op} takes {len(spec)} arguments ({names}), got {len(args)}")
    out, keep = [], []
    for (kind, name, ctype), v in zip(spec, args):
        if v is None and kind not in ("bool", "int", "double", "float"):
            out.append(None)
            continue
        if kind == "tensor":
            out.append(call.input(call.array(v, name)))
        elif kind == "out":
            arr = call.array(v, name)
            out.append(call.output(v, arr.shape, arr.dtype, name=name)[1])
        elif kind == "scalar":
            out.append(make_scalar(v))
        elif kind == "intarray":
            out.append(int_array(v))
        elif kind == "floatarray":
            out.append(float_array(v))
        elif kind == "boolarray":
            out.append(bool_array(v))
        elif kind in ("tensorlist", "outlist"):
            ts, h = _tensor_list(call, v, kind == "outlist")
            keep.append(ts)
            out.append(h)
        elif kind == "scalarlist":
            ss, h = _scalar_list(v)
            keep.append(ss)
            out.append(h)
        elif kind == "str":
            s = ffi.new("char[]", v.encode() if isinstance(v, str) else bytes(v))
            keep.append(s)
            out.append(s)
        elif kind == "dtype":
            out.append(v if isinstance(v, int) else acl_dtype(v))
        elif kind in ("outint", "outbool"):
            out.append(v)
        else:
            out.append(v)
    return out, keep


def call(op, *args, stream=None):
    """Both phases of ``aclnn<op>`` (a table op) with ``args`` in API order; outputs are written in place."""
    if op not in OPS:
        raise KeyError(f"aclnn{op} is not in the op table")
    with OpCall() as c:
        cargs, keep = convert_args(c, op, args)
        launch(op, *cargs, stream=stream)
        del keep
    return None


def table_ops():
    """The names of every table op (without the ``aclnn`` prefix)."""
    return sorted(OPS)
