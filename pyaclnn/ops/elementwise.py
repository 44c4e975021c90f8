"""Every elementwise op of the op table as a numpy function, made from its table entry (``pyaclnn._optable``).

``aclnnAdd(self, other, alpha, out)`` becomes ``pyaclnn.add(self, other, alpha, *, out=None, stream=None)``: the
tensor and scalar arguments in API order (scalars and attributes may be given by name), ``out=`` optional. Without
``out`` the result is a new array of the broadcast shape and the op's result dtype (PyTorch's promotion, as the
library applies it); ``Inplace…`` ops write their first argument and return it. Names are the C names in snake case
(``EqTensor`` -> ``eq_tensor``, ``InplaceAdds`` -> ``inplace_adds``).

>>> import numpy as np, pyaclnn
>>> pyaclnn.add(np.arange(3, dtype=np.int32), np.ones(3, np.float16), 2).dtype
dtype('float16')
"""
import re

import numpy as np

from .._optable import OPS
from ..tensor import as_array, bfloat16
from .table import _Scalar, call

__all__ = []

_SHORT = {np.dtype(np.uint8): "u8", np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
          np.dtype(np.int64): "i64", np.dtype(np.float16): "f16", np.dtype(np.float32): "f32",
          np.dtype(np.float64): "f64", np.dtype(np.complex64): "c64", np.dtype(np.complex128): "c128",
          np.dtype(np.bool_): "bool"}
if bfloat16 is not None:
    _SHORT[bfloat16] = "bf16"
_NP = {v: k for k, v in _SHORT.items()}
_ORDER = ["u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "c64", "c128", "bool", "bf16"]
# PyTorch's promoteTypes over _ORDER (what the library's acl_promote implements)
_ROWS = """u8  i16 i16 i32 i64 f16 f32 f64 c64 c128 u8  bf16
i16 i8  i16 i32 i64 f16 f32 f64 c64 c128 i8  bf16
i16 i16 i16 i32 i64 f16 f32 f64 c64 c128 i16 bf16
i32 i32 i32 i32 i64 f16 f32 f64 c64 c128 i32 bf16
i64 i64 i64 i64 i64 f16 f32 f64 c64 c128 i64 bf16
f16 f16 f16 f16 f16 f16 f32 f64 c64 c128 f16 f32
f32 f32 f32 f32 f32 f32 f32 f64 c64 c128 f32 f32
f64 f64 f64 f64 f64 f64 f64 f64 c128 c128 f64 f64
c64 c64 c64 c64 c64 c64 c64 c128 c64 c128 c64 c64
c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128
u8  i8  i16 i32 i64 f16 f32 f64 c64 c128 bool bf16
bf16 bf16 bf16 bf16 bf16 f32 f32 f64 c64 c128 bf16 bf16"""
_PROMOTE = {(a, b): r for a, row in zip(_ORDER, _ROWS.splitlines()) for b, r in zip(_ORDER, row.split())}


def _cat(short):
    return 0 if short == "bool" else 1 if short[0] in "iu" else 2 if short[0] in "fb" else 3


def _scalar_short(v):
    if isinstance(v, _Scalar):
        return _SHORT[v.dtype]
    if isinstance(v, np.generic):
        return _SHORT[np.dtype(v.dtype)]
    return "bool" if isinstance(v, bool) else "i64" if isinstance(v, int) else "f32" if isinstance(v, float) else "c64"


def result_dtype(op, arrays, scalars):
    """The dtype aclnn<op> returns for these inputs (tensor promotion, wrapped scalars, compute/result rules)."""
    info = OPS[op]
    other = [np.dtype(a.dtype) for a in arrays if np.dtype(a.dtype) not in _SHORT]
    if other:  # uint16/32/64 promote only with themselves (CANN's PromoteType); the library reports the rest
        if info["result"] == "bool":
            return np.dtype(np.bool_)
        return np.dtype(np.float32) if info["compute"] == "float" else other[0]
    t = None
    for a in arrays:
        s = _SHORT[np.dtype(a.dtype)]
        t = s if t is None else _PROMOTE[(t, s)]
    for name, v in scalars.items():
        if v is None or name not in info["promote"]:
            continue
        s = _scalar_short(v)
        if t is None:
            t = s
            continue
        cs, ct = _cat(s), _cat(t)
        if cs > ct:
            t = ("c128" if t == "f64" else "c64") if cs == 3 else "f32" if cs == 2 else "i64"
    if info["compute"] == "float" and _cat(t) <= 1:
        t = "f32"
    if info["result"] == "real" and t in ("c64", "c128"):
        t = "f32" if t == "c64" else "f64"
    if info["result"] == "complex":
        t = "c128" if t in ("f64", "c128") else "c64"
    return np.dtype(np.bool_) if info["result"] == "bool" else _NP[t]


def _snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _make(op):
    info = OPS[op]
    spec = info["args"]
    params = [n for k, n, _ in spec if k != "out"] if not info["inplace"] else [n for k, n, _ in spec]
    tensors = {n for k, n, _ in spec if k == "tensor" or (k == "out" and info["inplace"])}

    def fn(*args, out=None, stream=None, **kw):
        if len(args) > len(params):
            raise TypeError(f"{fn.__name__}() takes {len(params)} arguments ({', '.join(params)})")
        vals = dict(zip(params, args))
        for k, v in kw.items():
            if k not in params or k in vals:
                raise TypeError(f"{fn.__name__}() got an unexpected or repeated argument {k!r}")
            vals[k] = v
        missing = [p for p in params if p not in vals and p not in info["optional"]]
        if missing:
            raise TypeError(f"{fn.__name__}() is missing {', '.join(missing)}")
        arrays = {n: as_array(vals[n]) for n in tensors}
        c_args = []
        if info["inplace"]:
            target = vals[spec[0][1]]
            for k, n, _ in spec:
                c_args.append(vals.get(n))
            call(op, *c_args, stream=stream)
            return target
        if out is None:
            try:
                shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
            except ValueError:  # the library reports it with CANN's code and message
                shape = next(iter(arrays.values())).shape
            scal = {n: vals.get(n) for k, n, _ in spec if k == "scalar"}
            out = np.empty(shape, result_dtype(op, list(arrays.values()), scal))
        for k, n, _ in spec:
            c_args.append(out if k == "out" else arrays[n] if n in arrays else vals.get(n))
        call(op, *c_args, stream=stream)
        return out

    fn.__name__ = fn.__qualname__ = _snake(op)
    fn.__doc__ = (f"aclnn{op}({', '.join(params)}{'' if info['inplace'] else ', *, out=None'}, stream=None): the "
                  f"table op of {info['header']} (ASCEND910B dtypes: {' '.join(info['dtypes'])}).\n\n"
                  f"C arguments: {', '.join(c for _, _, c in spec)}.")
    return fn


for _op, _info in sorted(OPS.items()):
    if _info["family"] == "elementwise":
        globals()[_snake(_op)] = _make(_op)
        __all__.append(_snake(_op))
