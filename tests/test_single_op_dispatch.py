"""aclopCompileAndExecute for the operator types the emulator runs (single_op_dispatch.c): the tensors of the call
become aclTensors over the data buffers and the aclnn function of the same computation runs; results against
numpy; wrong tensor counts and short buffers are refused naming the operator type; unknown types stay
ACL_ERROR_OP_NOT_FOUND."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib

pyaclnn.ensure_device()

INVALID_PARAM, OP_NOT_FOUND = 100000, 100024
ACL = {np.float32: 0, np.float16: 1, np.int8: 2, np.int32: 3, np.uint8: 4, np.int16: 6, np.int64: 9,
       np.float64: 11, np.bool_: 12}


def msg():
    return pyaclnn.recent_error_message()


class Call:
    """Device buffers and descriptions for one aclopCompileAndExecute call."""

    def __init__(self):
        self.keep, self.devs = [], []

    def tensor(self, arr=None, shape=None, dtype=None, short=False):
        arr = None if arr is None else np.ascontiguousarray(arr)
        shape = arr.shape if arr is not None else shape
        dtype = arr.dtype.type if arr is not None else dtype
        dims = ffi.new("int64_t[]", list(shape) or [0])
        d = lib.aclCreateTensorDesc(ACL[dtype], len(shape), dims, 2)
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, max(nbytes, 1), 0) == 0
        if arr is not None and nbytes:
            assert lib.aclrtMemcpy(p[0], nbytes, ffi.from_buffer(arr), nbytes, 1) == 0
        buf = lib.aclCreateDataBuffer(p[0], nbytes - (1 if short else 0))
        self.keep += [dims]
        self.devs.append(p[0])
        return d, buf, p[0], shape, dtype

    def run(self, op_type, ins, outs, attr=ffi.NULL):
        di = ffi.new("aclTensorDesc *[]", [t[0] for t in ins] or [ffi.NULL])
        bi = ffi.new("aclDataBuffer *[]", [t[1] for t in ins] or [ffi.NULL])
        do = ffi.new("aclTensorDesc *[]", [t[0] for t in outs] or [ffi.NULL])
        bo = ffi.new("aclDataBuffer *[]", [t[1] for t in outs] or [ffi.NULL])
        return lib.aclopCompileAndExecute(op_type.encode(), len(ins), di, bi, len(outs), do, bo, attr, 0, 0,
                                          ffi.NULL, ffi.NULL)

    def read(self, t):
        _, _, ptr, shape, dtype = t
        assert lib.aclrtSynchronizeStream(ffi.NULL) == 0
        out = np.zeros(shape, dtype)
        if out.nbytes:
            assert lib.aclrtMemcpy(ffi.from_buffer(out), out.nbytes, ptr, out.nbytes, 2) == 0
        return out

    def close(self):
        for p in self.devs:
            lib.aclrtFree(p)


@pytest.fixture
def call():
    c = Call()
    yield c
    c.close()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8, np.bool_])
def test_fill(call, dtype):
    value = np.array(1 if dtype == np.bool_ else 3, dtype)
    out = call.tensor(shape=(2, 3), dtype=dtype)
    rc = call.run("Fill", [call.tensor(np.array([2, 3], np.int64)), call.tensor(value)], [out])
    assert rc == 0, msg()
    assert np.array_equal(call.read(out), np.full((2, 3), value, dtype))
