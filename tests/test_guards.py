"""Memory guards (SPEC Decision 6): every way a tensor or a copy can leave its memory is reported with a message
naming the argument, instead of corrupting memory; PYACLNN_UNCHECKED_MEMORY=1 restores the permissive behaviour.
Driven at the C ABI level (raw aclrtMalloc / aclCreateTensor), the way a C caller would make these mistakes."""
import numpy as np
import pytest

import pyaclnn
from helpers import run_python, run_executor, ws_call
from pyaclnn import ffi, lib

F32 = 0  # ACL_FLOAT
NCHW = 0
H2D, D2H, D2D, DEFAULT = 1, 2, 3, 4


@pytest.fixture
def mem():
    """aclrtMalloc'd blocks freed after the test."""
    pyaclnn.ensure_device()
    blocks = []

    def alloc(nbytes):
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, nbytes, 0) == 0
        blocks.append(p[0])
        return p[0]

    yield alloc
    for b in blocks:
        lib.aclrtFree(b)
    lib.aclGetRecentErrMsg()


_keep = []


def tensor(shape, data, strides=None, offset=0, storage=None, dtype=F32, fmt=NCHW):
    dims = ffi.new("int64_t[]", list(shape))
    st = ffi.new("int64_t[]", list(strides)) if strides is not None else ffi.NULL
    storage = list(shape) if storage is None else list(storage)
    sd = ffi.new("int64_t[]", storage or [0])
    t = lib.aclCreateTensor(dims, len(shape), dtype, st, offset, fmt, sd, len(storage), data)
    assert t != ffi.NULL
    t = ffi.gc(t, lib.aclDestroyTensor)
    _keep.append(t)
    return t


def upsample_ws(x, y, size=(4, 4)):
    """Phase 1 of UpsampleNearestExact2d(self=x, out=y); returns (status, executor, message)."""
    arr = ffi.gc(lib.aclCreateIntArray(ffi.new("int64_t[]", list(size)), 2), lib.aclDestroyIntArray)
    rc, _, ex, msg = ws_call("UpsampleNearestExact2d", x, arr, 0.0, 0.0, y)
    return rc, ex, msg or ""


def ok_out(mem):
    return tensor((1, 1, 4, 4), mem(64))


# ---- tensor views outside their allocation: 161002 at phase 1, naming the argument ----

@pytest.mark.parametrize("case", ["dims", "strides", "negative_offset", "offset_past_end", "storage_dims",
                                  "interior_pointer_past_end", "stack_pointer", "heap_pointer", "freed_pointer"])
def test_input_view_outside_memory(mem, case):
    buf = mem(64)  # exactly 16 floats
    y = ok_out(mem)  # allocated first: a later allocation could reuse the freed block of the last case
    if case == "dims":
        x = tensor((1, 1, 4, 5), buf)
    elif case == "strides":
        x = tensor((1, 1, 4, 4), buf, strides=(16, 16, 5, 1))
    elif case == "negative_offset":
        x = tensor((1, 1, 2, 2), buf, offset=-1)
    elif case == "offset_past_end":
        x = tensor((1, 1, 4, 4), buf, offset=1)
    elif case == "storage_dims":
        x = tensor((1, 1, 2, 2), buf, storage=(1, 1, 4, 8))
    elif case == "interior_pointer_past_end":
        x = tensor((1, 1, 4, 4), ffi.cast("char *", buf) + 4)
    elif case == "stack_pointer":
        host = ffi.new("float[16]")
        x = tensor((1, 1, 4, 4), host)
    elif case == "heap_pointer":
        host = np.zeros(16, np.float32)
        x = tensor((1, 1, 4, 4), ffi.from_buffer(host))
    else:
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, 64, 0) == 0 and lib.aclrtFree(p[0]) == 0
        x = tensor((1, 1, 4, 4), p[0])
    rc, ex, msg = upsample_ws(x, y)
    assert rc == 161002, msg
    assert ex == ffi.NULL
    assert "self" in msg, msg
    if case == "storage_dims":  # the one lookup of a view inside its block still names what is outside
        assert "storage shape [1, 1, 4, 8]" in msg and "outside" in msg, msg
    if case in ("dims", "strides", "offset_past_end"):
        assert "the view" in msg and "outside" in msg, msg


def test_output_view_outside_memory_names_out(mem):
    x = tensor((1, 1, 2, 2), mem(16))
    y = tensor((1, 1, 4, 4), mem(32))  # half the bytes
    rc, ex, msg = upsample_ws(x, y)
    assert rc == 161002 and "out" in msg and "outside" in msg, msg


def test_null_data_is_refused_at_run_time(mem):
    """A first phase never reads data, so a tensor may still have no address there (it can be set later with
    aclSetInputTensorAddr); running it without one is 161001 naming the tensor."""
    x = tensor((1, 1, 2, 2), ffi.NULL)
    rc, ex, msg = upsample_ws(x, ok_out(mem))
    assert rc == 0, msg
    assert run_executor("UpsampleNearestExact2d", ex) == 161001
    assert "self" in pyaclnn.recent_error_message()


def test_view_inside_memory_is_accepted(mem):
    """The guard is exact: a strided view whose last element is the allocation's last float is fine."""
    buf = mem(64)
    x = tensor((1, 1, 2, 2), buf, strides=(16, 16, 10, 5), offset=0)  # last element at 15
    rc, ex, msg = upsample_ws(x, ok_out(mem))
    assert rc == 0, msg
    assert run_executor("UpsampleNearestExact2d", ex) == 0


def test_memory_freed_between_the_phases(mem):
    """Phase 2 re-checks the views: memory released after phase 1 is reported, never read or written."""
    p = ffi.new("void **")
    assert lib.aclrtMalloc(p, 16, 0) == 0
    x = tensor((1, 1, 2, 2), p[0])
    rc, ex, msg = upsample_ws(x, ok_out(mem))
    assert rc == 0, msg
    assert lib.aclrtFree(p[0]) == 0
    lib.aclGetRecentErrMsg()
    assert run_executor("UpsampleNearestExact2d", ex) == 161002
    msg = pyaclnn.recent_error_message() or ""
    assert "self" in msg and "no longer" in msg, msg
    assert run_executor("UpsampleNearestExact2d", ex) == 161002  # consumed by the failed run


def test_registered_host_memory_is_device_memory(mem):
    host = np.arange(4, dtype=np.float32)
    dev = ffi.new("void **")
    assert lib.aclrtHostRegister(ffi.from_buffer(host), host.nbytes, 0, dev) == 0
    try:
        x = tensor((1, 1, 2, 2), dev[0])
        rc, ex, msg = upsample_ws(x, ok_out(mem))
        assert rc == 0, msg
        assert run_executor("UpsampleNearestExact2d", ex) == 0
    finally:
        assert lib.aclrtHostUnregister(ffi.from_buffer(host)) == 0
    x = tensor((1, 1, 2, 2), ffi.from_buffer(host))  # no longer registered
    rc, _, msg = upsample_ws(x, ok_out(mem))
    assert rc == 161002 and "self" in msg, msg


# ---- aclrtMemcpy / aclrtMemset whose range or kind does not fit the pointers: 107000 naming dst/src ----

@pytest.mark.parametrize("size, real", [(1, 64), (16, 64), (32, 64), (33, 96), (64, 96), (100, 160)])
def test_copies_reach_the_real_allocation(mem, size, real):
    """aclrtMalloc(size) really allocates size rounded up to 32 bytes plus 32 (SPEC 1.5): copies and memsets may
    use all of it, as on a device; one byte more is 107000."""
    d = mem(size)
    host = np.zeros(real + 1, np.uint8)
    hp = ffi.from_buffer(host)
    assert lib.aclrtMemcpy(hp, real, d, real, D2H) == 0
    assert lib.aclrtMemcpy(d, real, hp, real, H2D) == 0
    assert lib.aclrtMemset(d, real, 7, real) == 0
    assert lib.aclrtMemcpy(hp, real + 1, d, real, D2H) == 0 and (host[:real] == 7).all()
    assert lib.aclrtMemcpy(hp, real + 1, d, real + 1, D2H) == 107000
    assert lib.aclrtMemset(d, real + 1, 0, real + 1) == 107000
    assert lib.aclrtMemcpy(ffi.cast("char *", d) + real - 1, 2, hp, 2, H2D) == 107000


def test_memcpy_guards(mem):
    d, d2 = mem(64), mem(64)
    host = np.zeros(32, np.float32)
    hp = ffi.from_buffer(host)
    lib.aclGetRecentErrMsg()

    def rc_msg(*args):
        rc = lib.aclrtMemcpy(*args)
        return rc, pyaclnn.recent_error_message() or ""

    assert rc_msg(d, 64, hp, 64, H2D)[0] == 0
    rc, msg = rc_msg(ffi.cast("char *", d) + 64, 64, hp, 64, H2D)       # dst range runs past its allocation
    assert rc == 107000 and "dst" in msg, msg
    rc, msg = rc_msg(hp, 128, d, 128, D2H)                               # src range runs past its allocation
    assert rc == 107000 and "src" in msg, msg
    rc, msg = rc_msg(hp, 64, hp, 64, H2D)                                # kind says dst is device: it is not
    assert rc == 107000 and "dst" in msg and "not device memory" in msg, msg
    rc, msg = rc_msg(hp, 64, hp, 64, D2H)                                # kind says src is device: it is not
    assert rc == 107000 and "src" in msg, msg
    rc, msg = rc_msg(d, 64, d2, 64, H2D)                                 # src is device memory, kind says host
    assert rc == 107000 and "src" in msg and "host" in msg, msg
    rc, msg = rc_msg(d, 64, hp, 64, 9)                                   # unknown kind
    assert rc == 100000 and "kind" in msg, msg
    rc, msg = rc_msg(d, 2**64 - 1, hp, 2**64 - 1, H2D)                   # absurd count
    assert rc == 107000, msg
    assert rc_msg(d, 64, d2, 64, D2D)[0] == 0
    assert rc_msg(d, 64, d2, 64, DEFAULT)[0] == 0                        # DEFAULT: any side, ranges still checked
    rc, msg = rc_msg(hp, 128, d2, 97, DEFAULT)
    assert rc == 107000, msg
    rc = lib.aclrtMemset(ffi.cast("char *", d) + 1, 96, 0, 96)
    assert rc == 107000 and pyaclnn.recent_error_message()


# ---- frees ----

def test_free_unknown_and_double_free():
    pyaclnn.ensure_device()
    lib.aclGetRecentErrMsg()
    p = ffi.new("void **")
    assert lib.aclrtMalloc(p, 100, 0) == 0
    assert lib.aclrtFree(ffi.cast("char *", p[0]) + 8) == 107000        # interior pointer
    assert "aclrtMalloc" in pyaclnn.recent_error_message()
    assert lib.aclrtFree(p[0]) == 0
    assert lib.aclrtFree(p[0]) == 107000                                 # double free
    assert "already freed" in pyaclnn.recent_error_message()
    host = ffi.new("char[64]")
    assert lib.aclrtFree(host) == 107000                                 # never device memory
    assert pyaclnn.recent_error_message()
    assert lib.aclrtFree(ffi.NULL) == 100000
    assert pyaclnn.recent_error_message()
    h = ffi.new("void **")
    assert lib.aclrtMallocHost(h, 64) == 0
    assert lib.aclrtFree(h[0]) == 107000                                 # host memory is not aclrtFree's
    pyaclnn.recent_error_message()
    assert lib.aclrtFreeHost(h[0]) == 0
    assert lib.aclrtFreeHost(h[0]) == 107000
    assert pyaclnn.recent_error_message()


# ---- the opt-out ----

def test_unchecked_memory_restores_permissive_behaviour():
    out = run_python("""
import numpy as np
from pyaclnn import ffi, lib
import pyaclnn
pyaclnn.ensure_device()
host = np.arange(4, dtype=np.float32)      # plain host memory as tensor data
res = np.zeros(16, np.float32)
def t(shape, data):
    d = ffi.new("int64_t[]", shape)
    return lib.aclCreateTensor(d, 4, 0, ffi.NULL, 0, 0, d, 4, data)
x, y = t([1, 1, 2, 2], ffi.from_buffer(host)), t([1, 1, 4, 4], ffi.from_buffer(res))
arr = lib.aclCreateIntArray(ffi.new("int64_t[]", [4, 4]), 2)
ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
r = [lib.aclnnUpsampleNearestExact2dGetWorkspaceSize(x, arr, 0.0, 0.0, y, ws, ex)]
r.append(lib.aclnnUpsampleNearestExact2d(ffi.NULL, 0, ex[0], ffi.NULL))
h2 = np.zeros(4, np.float32)
r.append(lib.aclrtMemcpy(ffi.from_buffer(h2), 16, ffi.from_buffer(host), 16, 1))   # H2D into host memory
r.append(float(res.reshape(4, 4)[3, 3]))
r.append(float(h2[3]))
print(r)
""", {"PYACLNN_UNCHECKED_MEMORY": "1"})
    assert eval(out) == [0, 0, 0, 3.0, 3.0]
