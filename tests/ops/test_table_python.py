"""The Python functions made from the op table: names, argument handling, and the result dtype they allocate
(checked against PyTorch's type promotion for every pair of dtypes)."""
import itertools

import numpy as np
import pytest

import pyaclnn
from pyaclnn.ops.elementwise import result_dtype
from table_harness import NP, TORCH, from_torch, rand, to_torch

DTS = ["f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "bool", "c64", "c128"]


@pytest.mark.parametrize("a,b", list(itertools.combinations_with_replacement(DTS, 2)))
def test_add_result_dtype_matches_torch(torch, a, b):
    x, y = np.zeros(2, NP[a]), np.zeros(2, NP[b])
    exp = torch.result_type(torch.zeros(2, dtype=getattr(torch, TORCH[a])), torch.zeros(2, dtype=getattr(torch, TORCH[b])))
    got = result_dtype("Add", [x, y], {"alpha": 1})
    assert str(got).replace("bfloat16", "bfloat16") == str(exp).replace("torch.", "")


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("s", [True, 3, 2.5, 1.5j])
def test_adds_wrapped_scalar_dtype_matches_torch(torch, dt, s):
    x = np.zeros(2, NP[dt])
    exp = torch.result_type(torch.zeros(2, dtype=getattr(torch, TORCH[dt])), s)
    if str(exp) == "torch.complex32":
        exp = "complex64"  # no complex32 here: fp16 with a complex scalar computes in complex64
    assert str(result_dtype("Adds", [x], {"other": s, "alpha": 1})) == str(exp).replace("torch.", "")


def test_named_functions(torch):
    rng = np.random.default_rng(0)
    a, b = rand(rng, (2, 3), "f32"), rand(rng, (3,), "f16")
    np.testing.assert_allclose(pyaclnn.add(a, b, 2.0), from_torch(torch.add(to_torch(torch, a), to_torch(torch, b),
                                                                          alpha=2.0)), rtol=1e-6)
    out = np.empty((2, 3), np.float64)
    assert pyaclnn.add(a, b, alpha=1, out=out) is out
    c = a.copy()
    assert pyaclnn.inplace_adds(c, 1, 2) is c
    np.testing.assert_allclose(c, a + 2)
    with pytest.raises(TypeError):
        pyaclnn.add(a)
    with pytest.raises(pyaclnn.AclnnParamError):
        pyaclnn.add(a, np.ones(4, np.float32), 1)
