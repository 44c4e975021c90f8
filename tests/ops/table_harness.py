"""The test scaffolding every op-table family shares: inputs per dtype, the PyTorch oracle call, comparison, and the
invalid-input rows the common validation implies. tests/ops/test_table_*.py parametrize over the table with it."""
import os
import sys

import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.ops._common import symbol
from pyaclnn.ops.table import make_scalar

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tools"))
import optable  # noqa: E402

BF16 = pyaclnn.bfloat16
NP = {"f32": np.float32, "f16": np.float16, "bf16": BF16, "f64": np.float64, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_, "c64": np.complex64,
      "c128": np.complex128, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
TORCH = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i8": "int8", "i16": "int16",
         "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool", "c64": "complex64", "c128": "complex128",
         "u16": "uint16", "u32": "uint32", "u64": "uint64"}
# (rtol, atol) against PyTorch computing the same dtypes on the CPU. For fp16/bf16 the absolute part is a few ulps of
# the inputs' magnitude (|x| <= 3 by default): we round once (fp32 compute), while some PyTorch CPU kernels round an
# intermediate to the half type first (e.g. bf16 add with alpha rounds alpha * other), so near-cancelling results
# can differ by an ulp of the operands, not of the result.
TOL = {"f32": (1.3e-6, 1e-5), "f64": (1e-12, 1e-12), "f16": (1e-3, 4e-3), "bf16": (8e-3, 3.2e-2),
       "c64": (1.3e-6, 1e-5), "c128": (1e-12, 1e-12)}


def ops(family=None, kind=None):
    """Table ops (optionally of one table file / family kind) that have a PyTorch oracle."""
    return [op for op in optable.load() if (family is None or op.table == family)
            and (kind is None or op.family == kind) and op.torch and op.test]


def rand(rng, shape, dt, domain=None):
    return np.array(_rand(rng, shape, dt, domain))  # 0-d: an array, never a numpy scalar


def _rand(rng, shape, dt, domain):
    lo, hi = domain or (-3, 3)
    if dt == "bool":
        return rng.random(shape) < 0.5
    if dt in ("i8", "i16", "i32", "i64"):
        return rng.integers(max(int(lo), -100), max(int(hi), int(lo) + 1) + 1, shape).astype(NP[dt])
    if dt in ("u8", "u16", "u32", "u64"):
        return rng.integers(max(int(lo), 0), max(int(hi), 1) + 1, shape).astype(NP[dt])
    x = rng.uniform(lo, hi, shape)
    if dt in ("c64", "c128"):
        x = x + 1j * rng.uniform(lo, hi, shape)
    return x.astype(NP[dt])


def rand_in(rng, shape, dt, lo=-4, hi=4):
    """Values of dtype dt drawn uniformly: booleans half true, integers in [lo, hi] ([0, hi] unsigned), floats in
    [lo, hi) (complex: both parts)."""
    if dt == "bool":
        return np.array(rng.random(shape) < 0.5)
    if dt.startswith("u"):
        return np.array(rng.integers(0, hi + 1, shape).astype(NP[dt]))
    if dt in ("i8", "i16", "i32", "i64"):
        return np.array(rng.integers(lo, hi + 1, shape).astype(NP[dt]))
    x = rng.uniform(lo, hi, shape)
    if dt in ("c64", "c128"):
        x = x + 1j * rng.uniform(lo, hi, shape)
    return np.array(x.astype(NP[dt]))


def default_scalar(op, k, dt):
    """The k-th scalar argument for a test in dtype dt: the entry's `scalars`, else a small number of dt's kind
    (uint16/32/64 as numpy scalars of that dtype: CANN promotes them with nothing else)."""
    vals = op.extra.get("scalars")
    if vals is not None:
        v = vals[k]
        v = v(dt) if callable(v) else v
    elif dt == "bool":
        v = True
    elif dt in optable.INT or dt in ("u16", "u32", "u64"):
        v = 2
    else:
        v = 1.5
    if dt in ("u16", "u32", "u64") and isinstance(v, int) and not isinstance(v, bool):
        return NP[dt](v)
    return v


def to_torch(torch, a):
    if a.dtype == BF16:  # through the bits: a float conversion would not keep NaN signs
        return torch.from_numpy(np.array(a.view(np.int16), order="C", copy=True)).view(torch.bfloat16)
    return torch.from_numpy(np.array(a, order="C", copy=True))


def from_torch(t):
    import torch
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(BF16)
    return t.numpy()


def np_dtype_of_torch(t):
    import torch
    if t.dtype == torch.bfloat16:
        return np.dtype(BF16)
    return np.dtype(str(t.dtype).replace("torch.", ""))


def compare(actual, expected, dt):
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if actual.dtype == np.bool_ or np.issubdtype(actual.dtype, np.integer):
        np.testing.assert_array_equal(actual, expected)
        return
    key = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.float16): "f16",
           np.dtype(BF16): "bf16", np.dtype(np.complex64): "c64", np.dtype(np.complex128): "c128"}[actual.dtype]
    rtol, atol = TOL[key]
    if key in ("c64", "c128"):
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True)


def null_rows(op):
    """(arg index, name) for every pointer argument: NULL there must give 161001 naming it."""
    return [(i, a.name) for i, a in enumerate(op.args)
            if a.kind in ("tensor", "out", "scalar", "intarray", "tensorlist", "outlist", "scalarlist")
            and a.name not in op.extra.get("optional", ())]


def expect_status(op, cargs, code, word=None):
    """Phase 1 at the C level with the given C arguments: exact status, message naming `word`, *executor untouched."""
    pyaclnn.ensure_device()
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    c = [a.handle if isinstance(a, pyaclnn.AclTensor) else (ffi.NULL if a is None else a) for a in cargs]
    rc = getattr(lib, f"{symbol(op)}GetWorkspaceSize")(*c, ws, ex)
    msg = pyaclnn.recent_error_message()
    if code == 0:
        assert rc == 0, msg
        lib.aclDestroyAclOpExecutor(ex[0])
        return
    assert rc == code, f"aclnn{op}: status {rc}, expected {code}: {msg}"
    if word:
        assert word in msg, msg
    assert ex[0] == ffi.NULL, "a failed first phase wrote *executor"


__all__ = ["ops", "rand", "default_scalar", "to_torch", "from_torch", "compare", "null_rows", "expect_status", "NP",
           "TORCH", "make_scalar", "pytest", "np", "optable"]
