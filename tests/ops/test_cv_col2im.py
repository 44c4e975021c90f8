"""aclnnIm2colBackward (ops-cv image/col2im): the float64 loop reference and torch.nn.functional.fold for every
A2 dtype (and mixed gradOutput / out dtypes), rank-2 and rank-3 gradOutput, strided views, empty tensors, the
op_api's invalid rows (order and codes), determinism for OMP_NUM_THREADS 1/2/7."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi
from helpers import BF16, DTYPES, DTYPE_IDS, assert_close, expect_invalid, rounded, run_executor, \
    same_bytes_for_threads, strided, ws_call
from reference.col2im import col2im_ref

OP = "Im2colBackward"
A = pyaclnn.int_array
F32, F16 = np.dtype(np.float32), np.dtype(np.float16)

# (N or None for rank 2, C, (H, W), kernel, dilation, padding, stride)
CASES = {
    "n2c3_7x9_k3_p1": (2, 3, (7, 9), (3, 3), (1, 1), (1, 1), (1, 1)),
    "n1c2_8x6_k2x3_s2_d2": (1, 2, (8, 6), (2, 3), (2, 1), (0, 1), (2, 1)),
    "rank2_c4_5x5_k2_s2x1": (None, 4, (5, 5), (2, 2), (1, 1), (1, 0), (2, 1)),
    "n3c1_6x7_k1": (3, 1, (6, 7), (1, 1), (1, 1), (0, 0), (1, 1)),
    "n1c2_4x4_k3_p2_s3_d2": (1, 2, (4, 4), (3, 3), (2, 2), (2, 2), (3, 3)),
}


def _L(size, k, d, p, s):
    return [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]


def _cols(case, dtype, seed=0):
    n, c, size, k, d, p, s = case
    lh, lw = _L(size, k, d, p, s)
    shape = (c * k[0] * k[1], lh * lw) if n is None else (n, c * k[0] * k[1], lh * lw)
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32).astype(dtype)


def col2im(cols, case, out):
    n, c, size, k, d, p, s = case
    gt, ot = pyaclnn.AclTensor.from_array(cols), pyaclnn.AclTensor.from_array(out)
    rc, ws, ex, msg = ws_call(OP, gt, A(list(size)), A(list(k)), A(list(d)), A(list(p)), A(list(s)), ot)
    assert rc == 0, msg
    assert run_executor(OP, ex, ws) == 0
    return ot.numpy()


def _out(case, dtype):
    n, c, size = case[:3]
    return np.full(((n,) if n is not None else ()) + (c,) + tuple(size), 7, dtype)


def _ref(cols, case):
    n, c, size, k, d, p, s = case
    c3 = cols.astype(np.float64)
    r = col2im_ref(c3[None] if n is None else c3, size, k, d, p, s)
    return r[0] if n is None else r


@pytest.mark.parametrize("oracle", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("cid", list(CASES))
def test_values(request, cid, dtype, oracle):
    case = CASES[cid]
    cols = _cols(case, dtype)
    y = col2im(cols, case, _out(case, dtype))
    if oracle == "numpy":
        assert_close(y, rounded(_ref(cols, case), dtype), dtype, what=cid)
        return
    torch = request.getfixturevalue("torch")
    n, c, size, k, d, p, s = case
    exp = torch.nn.functional.fold(torch.from_numpy(cols.astype(np.float32)), size, k, dilation=d, padding=p,
                                   stride=s).numpy()
    assert_close(y, rounded(exp, dtype), dtype, what=cid + " vs torch")


@pytest.mark.parametrize("gdt,odt", [(F16, F32), (F32, F16), (BF16, F32), (F32, BF16), (F16, BF16)],
                         ids=["f16-f32", "f32-f16", "bf16-f32", "f32-bf16", "f16-bf16"])
def test_mixed_dtypes(gdt, odt):
    """The result is formed in gradOutput's dtype, then cast to out's."""
    case = CASES["n2c3_7x9_k3_p1"]
    cols = _cols(case, gdt, seed=3)
    y = col2im(cols, case, _out(case, odt))
    assert y.dtype == odt
    exp = rounded(rounded(_ref(cols, case), gdt), odt)
    assert_close(y, exp, odt if odt != F32 else gdt)


@pytest.mark.parametrize("kind", ["slice", "transpose"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_strided(kind, dtype):
    case = CASES["n1c2_8x6_k2x3_s2_d2"]
    cols = _cols(case, dtype, seed=4)
    out = strided(_out(case, dtype), kind)
    y = col2im(strided(cols, kind), case, out)
    assert_close(y, rounded(_ref(cols, case), dtype), dtype)


def test_empty_gradoutput_writes_nothing():
    case = (2, 0, (4, 4), (2, 2), (1, 1), (0, 0), (1, 1))
    cols = np.zeros((2, 0, 9), np.float32)
    y = col2im(cols, case, np.full((2, 0, 4, 4), 7, np.float32))
    assert y.shape == (2, 0, 4, 4)


def test_deterministic_across_threads():
    code = """
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, %r)
from helpers import ws_call, run_executor
A = pyaclnn.int_array
cols = np.random.default_rng(1).standard_normal((2, 16 * 9, 62 * 62)).astype(np.float32)
gt = pyaclnn.AclTensor.from_array(cols)
ot = pyaclnn.AclTensor.from_array(np.zeros((2, 16, 64, 64), np.float32))
rc, ws, ex, msg = ws_call("Im2colBackward", gt, A([64, 64]), A([3, 3]), A([1, 1]), A([0, 0]), A([1, 1]), ot)
assert rc == 0 and run_executor("Im2colBackward", ex, ws) == 0
print(hashlib.sha256(ot.numpy().tobytes()).hexdigest())
"""
    import os
    same_bytes_for_threads(code % os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ---------------------------------------------------------------- validation

def _t(shape, dtype=F32):
    return pyaclnn.AclTensor.from_array(np.zeros(shape, dtype))


def _args(**kw):
    # gradOutput [2, 3*2*2, 6*8] for a 7x9 input, kernel 2, no padding, stride 1
    a = dict(g=_t((2, 12, 48)), size=A([7, 9]), k=A([2, 2]), d=A([1, 1]), p=A([0, 0]), s=A([1, 1]),
             out=_t((2, 3, 7, 9)))
    a.update(kw)
    return [a[x] for x in ("g", "size", "k", "d", "p", "s", "out")]


INVALID = [
    (dict(g=None), 161001, "gradOutput"),
    (dict(size=None), 161001, "inputSize"),
    (dict(k=None), 161001, "kernelSize"),
    (dict(d=None), 161001, "dilation"),
    (dict(p=None), 161001, "padding"),
    (dict(s=None), 161001, "stride"),
    (dict(out=None), 161001, "out"),
    (dict(g=_t((2, 12, 48), np.float64)), 161002, "gradOutput"),
    (dict(out=_t((2, 3, 7, 9), np.int32)), 161002, "out"),
    (dict(g=_t((2, 2, 12, 48))), 161002, "gradOutput rank"),
    (dict(g=_t((48,))), 161002, "gradOutput rank"),
    (dict(out=_t((3, 7, 9))), 161002, "out rank"),
    (dict(size=A([7])), 161002, "inputSize"),
    (dict(k=A([2, 2, 2])), 161002, "kernelSize"),
    (dict(d=A([1])), 161002, "dilation"),
    (dict(p=A([0])), 161002, "padding"),
    (dict(s=A([1, 1, 1])), 161002, "stride"),
    (dict(k=A([0, 2])), 161002, "kernelSize"),
    (dict(s=A([1, 0])), 161002, "stride"),
    (dict(d=A([-1, 1])), 161002, "dilation"),
    (dict(p=A([0, -1])), 161002, "padding"),
    (dict(g=_t((2, 13, 48))), 161002, "divisible"),
    (dict(g=_t((2, 12, 47))), 161002, "gradOutput dim -1"),
    (dict(out=_t((2, 3, 7, 8))), 161002, "out shape"),
    (dict(out=_t((2, 4, 7, 9))), 161002, "out shape"),
    (dict(size=A([1, 1])), 161002, "gradOutput dim -1"),  # no kernel position fits: L must be 0
    (dict(size=A([1, 1]), k=A([3, 3]), g=_t((2, 27, 48))), 161002, "inputSize"),  # negative count
    # order
    (dict(g=_t((2, 12, 48), np.float64), out=None), 161001, "out"),
    (dict(out=_t((2, 3, 7, 9), np.int32), g=_t((2, 2, 12, 48))), 161002, "out"),
    (dict(size=A([7]), k=A([0, 2])), 161002, "inputSize"),
    (dict(s=A([1, 1, 1]), k=A([0, 2])), 161002, "stride"),
    (dict(k=A([0, 2]), s=A([0, 1])), 161002, "kernelSize"),
    (dict(s=A([0, 1]), d=A([0, 1])), 161002, "stride"),
    (dict(g=_t((2, 13, 47))), 161002, "divisible"),
]


@pytest.mark.parametrize("kw,code,word", INVALID, ids=[f"{i}-{r[2]}" for i, r in enumerate(INVALID)])
def test_invalid(kw, code, word):
    expect_invalid(OP, _args(**kw), code, word)
