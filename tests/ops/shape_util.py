"""Helpers for the shape/copy/creation op tests (test_table_shape*.py, test_table_creation.py): device tensors with
strides and a view offset, both phases through the C API, PyTorch conversions for every table dtype (the unsigned
16/32/64-bit ones too), bitwise comparison of data movements."""
import numpy as np

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.lowlevel import AclTensor, DeviceBuffer, launch
from pyaclnn.ops.table import make_scalar, scalar  # noqa: F401  (re-exported for the tests)
from table_harness import BF16, NP, TOL, expect_status, optable  # noqa: F401

NPD = dict(NP, u16=np.uint16, u32=np.uint32, u64=np.uint64)
TORCH_NAME = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i8": "int8",
              "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool", "c64": "complex64",
              "c128": "complex128", "u16": "uint16", "u32": "uint32", "u64": "uint64"}
ACL = {"f32": "ACL_FLOAT", "f16": "ACL_FLOAT16", "bf16": "ACL_BF16", "f64": "ACL_DOUBLE", "i8": "ACL_INT8",
       "i16": "ACL_INT16", "i32": "ACL_INT32", "i64": "ACL_INT64", "u8": "ACL_UINT8", "bool": "ACL_BOOL",
       "c64": "ACL_COMPLEX64", "c128": "ACL_COMPLEX128", "u16": "ACL_UINT16", "u32": "ACL_UINT32",
       "u64": "ACL_UINT64"}


def dtypes(op, which="dtypes"):
    """The op's A2 list from the table (pyaclnn._optable), as short names."""
    from pyaclnn._optable import OPS
    return list(OPS[op][which])


def acl_dt(dt):
    return getattr(lib, ACL[dt])


def rand(rng, shape, dt, lo=-3, hi=3):
    if dt == "bool":
        return rng.random(shape) < 0.5
    if dt in ("i8", "i16", "i32", "i64"):
        return rng.integers(max(lo, -100), hi + 1, shape).astype(NPD[dt])
    if dt in ("u8", "u16", "u32", "u64"):
        return rng.integers(0, max(hi, 1) + 1, shape).astype(NPD[dt])
    x = np.asarray(rng.uniform(lo, hi, shape))
    if dt in ("c64", "c128"):
        x = x + 1j * np.asarray(rng.uniform(lo, hi, shape))
    return np.asarray(x).astype(NPD[dt]).reshape(shape)


def _layout(shape, kind):
    """(strides, offset): 'c' contiguous; 's' every other element of the last dim, rows padded, offset 3;
    't' the transposed storage of the last two dims (column-major there), offset 1."""
    nd = len(shape)
    if kind == "c" or nd == 0:
        st, acc = [], 1
        for d in reversed(shape):
            st.append(acc)
            acc *= max(d, 1)
        return tuple(reversed(st)), (0 if kind == "c" else 2)
    if kind == "t" and nd >= 2:
        order = list(range(nd - 2)) + [nd - 1, nd - 2]  # storage order: last dim outer
        st = [0] * nd
        acc = 1
        for k in reversed(order):
            st[k] = acc
            acc *= max(shape[k], 1)
        return tuple(st), 1
    st, acc = [], 2
    for d in reversed(shape):
        st.append(acc)
        acc *= max(d, 1) + 1
    return tuple(reversed(st)), 3


def dev(arr, kind="s", fmt=None):
    """arr as a device AclTensor with layout `kind` ('c', 's', 't'; see _layout)."""
    arr = np.asarray(arr)
    st, off = _layout(arr.shape, kind)
    n = off + 1 + sum((d - 1) * s for d, s in zip(arr.shape, st)) if all(arr.shape) else 0
    big = np.zeros(max(n, 1), arr.dtype)
    if arr.size:
        view = np.lib.stride_tricks.as_strided(big[off:], shape=arr.shape, strides=[s * arr.itemsize for s in st])
        view[...] = arr
    buf = DeviceBuffer(big.nbytes)
    buf.upload(big.view(np.uint8))
    return AclTensor(arr.shape, arr.dtype, st, off, fmt, buf)


def dev_out(shape, dt, kind="s", fill=None, fmt=None):
    """A device output (layout `kind`) holding `fill` (default: a recognisable pattern, not zeros)."""
    a = np.full(shape, 7 if fill is None else fill).astype(NPD[dt]) if dt != "bool" else np.full(shape, True)
    return dev(a, kind, fmt)


def host(t):
    return t.numpy()


def run(op, *args):
    """Both phases of aclnn<op> with C-level args (AclTensor, handles from ia()/make_scalar(), numbers)."""
    launch(op, *args)


def ia(values):
    return pyaclnn.int_array(values)


_KEEP = []  # the tensors (and their memory) that lists made by tlist view: kept for the whole session


class RawTensor(AclTensor):
    """An aclTensor without memory, of any aclDataType number and format (phase 1 reads only its description)."""

    def __init__(self, shape, acl_dt, fmt=None):
        self.shape, self.acl_dt, self.offset, self.buffer = tuple(shape), acl_dt, 0, None
        self.format = lib.ACL_FORMAT_ND if fmt is None else fmt
        st, acc = [], 1
        for d in reversed(self.shape):
            st.append(acc)
            acc *= max(d, 1)
        self.strides = tuple(reversed(st))
        self.handle = ffi.gc(self._create(), lib.aclDestroyTensor)

    def _create(self):
        dims = ffi.new("int64_t[]", list(self.shape) or [0])
        st = ffi.new("int64_t[]", list(self.strides) or [0])
        return lib.aclCreateTensor(dims, len(self.shape), self.acl_dt, st, 0, self.format, dims, len(self.shape),
                                   ffi.NULL)


def _handle_copy(t):
    """A new aclTensor over the same memory and view as AclTensor t (so a list can own it)."""
    from pyaclnn.tensor import acl_dtype
    _KEEP.append(t)
    if isinstance(t, RawTensor):
        return t._create()
    dims = ffi.new("int64_t[]", list(t.shape) or [0])
    st = ffi.new("int64_t[]", list(t.strides) or [0])
    h = lib.aclCreateTensor(dims, len(t.shape), acl_dtype(t.dtype), st, t.offset, t.format, dims, len(t.shape),
                            t.buffer.ptr)
    assert h != ffi.NULL
    return h


def tlist(tensors):
    """An aclTensorList (destroyed by gc, with the handles it owns) viewing the given AclTensors (None: NULL)."""
    handles = ffi.new("aclTensor *[]", [_handle_copy(t) if t is not None else ffi.NULL for t in tensors] or [ffi.NULL])
    h = lib.aclCreateTensorList(handles, len(tensors))
    assert h != ffi.NULL
    return ffi.gc(h, lib.aclDestroyTensorList)


def to_torch(torch, a):
    a = np.asarray(a)
    if a.dtype == BF16:
        return torch.from_numpy(np.array(a, order="C", copy=True).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.array(a, order="C", copy=True))


def from_torch(t):
    import torch
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(BF16).reshape(tuple(t.shape))
    return t.numpy()


def tdt(torch, dt):
    return getattr(torch, TORCH_NAME[dt])


def same_bits(actual, expected):
    """Exact equality, bit for bit (a data movement must not change a value, NaN and -0 included)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    if actual.dtype == np.bool_:
        np.testing.assert_array_equal(actual, expected)
        return
    w = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}[actual.dtype.itemsize]
    np.testing.assert_array_equal(np.array(actual, order="C").reshape(-1).view(w),
                                  np.array(expected, order="C").reshape(-1).view(w))


def close(actual, expected, dt):
    """Values of a computed result (casts, creation): exact for integers and bool, TOL for floats."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if dt in ("bool",) or dt[0] in "iu":
        np.testing.assert_array_equal(actual, expected)
        return
    rtol, atol = TOL[dt]
    if dt in ("c64", "c128"):
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True)


def status(op, cargs):
    """Phase 1 only: (status, message); a successful executor is destroyed."""
    pyaclnn.ensure_device()
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    c = [a.handle if isinstance(a, AclTensor) else (ffi.NULL if a is None else a) for a in cargs]
    rc = getattr(lib, f"aclnn{op}GetWorkspaceSize")(*c, ws, ex)
    msg = pyaclnn.recent_error_message()
    if rc == 0:
        lib.aclDestroyAclOpExecutor(ex[0])
    return rc, msg


def expect(op, cargs, code, word=None):
    """Phase 1 gives `code`; on failure the message names `word` and *executor is untouched."""
    if code in (0,):
        rc, msg = status(op, cargs)
        assert rc == 0, f"aclnn{op}: {rc}: {msg}"
        return
    expect_status(op, cargs, code, word)
