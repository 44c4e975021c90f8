"""Property test (hypothesis) of the view guard through the Python low-level layer: for random dims, strides,
offsets and allocation sizes, phase 1 accepts a tensor exactly when an independent computation says its view
lies inside its allocation (no false alarms, no misses), and an accepted plan runs (under `make asan` any stray
read would be reported)."""
import numpy as np
import pytest

import pyaclnn
from helpers import run_executor, ws_call
from pyaclnn import ffi, lib

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


def _alloc(nbytes, keep):
    p = ffi.new("void **")
    assert lib.aclrtMalloc(p, nbytes, 0) == 0
    keep.append(p[0])
    return p[0]


def _tensor(shape, data, strides=None, offset=0, storage=(1,)):
    dims = ffi.new("int64_t[]", list(shape))
    stp = ffi.new("int64_t[]", list(strides)) if strides is not None else ffi.NULL
    sd = ffi.new("int64_t[]", list(storage))
    return ffi.gc(lib.aclCreateTensor(dims, len(shape), 0, stp, offset, 0, sd, len(storage), data),
                  lib.aclDestroyTensor)


@hypothesis.settings(max_examples=100, deadline=None, derandomize=True)
@hypothesis.given(dims=st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 4), st.integers(1, 4)),
                  strides=st.tuples(*[st.integers(0, 40)] * 4), offset=st.integers(-3, 60),
                  nbytes=st.integers(1, 300))
def test_view_guard_is_exact(dims, strides, offset, nbytes):
    pyaclnn.ensure_device()
    keep = []
    try:
        x = _tensor(dims, _alloc(nbytes, keep), strides, offset)
        out_shape = (dims[0], dims[1], 2 * dims[2], 2 * dims[3])
        y = _tensor(out_shape, _alloc(4 * int(np.prod(out_shape)), keep), storage=out_shape)
        size = ffi.gc(lib.aclCreateIntArray(ffi.new("int64_t[]", list(out_shape[2:])), 2), lib.aclDestroyIntArray)
        rc, _, ex, msg = ws_call("UpsampleNearestExact2d", x, size, 0.0, 0.0, y)
        last = offset + sum((d - 1) * s for d, s in zip(dims, strides))
        fits = offset >= 0 and 4 * (last + 1) <= nbytes
        assert rc == (0 if fits else 161002), (rc, msg)
        if rc == 0:
            assert run_executor("UpsampleNearestExact2d", ex) == 0
        else:
            assert "self" in msg
    finally:
        for p in keep:
            lib.aclrtFree(p)
        lib.aclGetRecentErrMsg()
