"""aclnnCalculateMatmulWeightSize / V2 (ops-math conversion/trans_data): the FRACTAL_NZ element count of a
matmul weight, vs a literal reference (batch axes as they are, the last two rounded up to the block)."""
import pytest

from helpers import last_error
from pyaclnn import ffi, lib

F16, BF16, F32, I8 = 1, 27, 0, 2  # aclDataType values


def ref(shape, small_block):
    up = lambda v, b: -(-v // b) * b  # noqa: E731
    n = 1
    for d in shape[:-2]:
        n *= d
    return n * up(shape[-2], 16) * up(shape[-1], 16 if small_block else 32)


def int_array(vals):
    arr = ffi.new("int64_t[]", list(vals))
    return lib.aclCreateIntArray(arr, len(vals)), arr


def v2(shape, dt):
    a, keep = int_array(shape)
    out = ffi.new("uint64_t *")
    rc = lib.aclnnCalculateMatmulWeightSizeV2(a, dt, out)
    lib.aclDestroyIntArray(a)
    return rc, out[0]


@pytest.mark.parametrize("shape", [(1, 1), (16, 16), (17, 33), (4096, 11008), (3, 5, 7), (2, 1, 1, 1, 31, 65)])
@pytest.mark.parametrize("dt,small", [(F16, True), (BF16, True), (I8, False), (F32, False)])
def test_v2_values(shape, dt, small):
    assert v2(shape, dt) == (0, ref(shape, small))


@pytest.mark.parametrize("shape", [(1, 1), (17, 33), (3, 5, 7), (2, 3, 4, 5, 6, 0)])
def test_v1_values(shape):
    a, keep = int_array(shape)
    out = ffi.new("uint64_t *")
    assert lib.aclnnCalculateMatmulWeightSize(a, out) == 0  # V1 has no zero check
    assert out[0] == ref(shape, True)
    lib.aclDestroyIntArray(a)


def test_invalid():
    out = ffi.new("uint64_t *")
    assert lib.aclnnCalculateMatmulWeightSizeV2(ffi.NULL, F16, out) == 161001 and "tensorShape" in last_error()
    assert lib.aclnnCalculateMatmulWeightSize(ffi.NULL, out) == 161001 and "tensorShape" in last_error()
    a, keep = int_array((4, 4))
    assert lib.aclnnCalculateMatmulWeightSizeV2(a, F16, ffi.NULL) == 161001 and "weightTensorSize" in last_error()
    assert lib.aclnnCalculateMatmulWeightSize(a, ffi.NULL) == 161001 and "weightTensorSize" in last_error()
    lib.aclDestroyIntArray(a)
    for shape in [(4,), (1, 1, 1, 1, 1, 1, 1)]:
        rc, _ = v2(shape, F16)
        assert rc == 161002 and "dimensions" in last_error()
        a, keep = int_array(shape)
        assert lib.aclnnCalculateMatmulWeightSize(a, out) == 161002 and "dimensions" in last_error()
        lib.aclDestroyIntArray(a)
    rc, _ = v2((4, 0), F16)
    assert rc == 161002 and "tensorShape[1]" in last_error()
    rc, _ = v2((-4, 8), F16)
    assert rc == 161002 and "tensorShape[0]" in last_error()
    rc, _ = v2((1 << 40, 1 << 40), F16)
    assert rc == 161002 and "overflow" in last_error()


def test_v2_doc_example():
    # the doc's example: an INT8 [510, 270] weight takes [512, 288] in FRACTAL_NZ
    assert v2((510, 270), I8) == (0, 512 * 288)
