"""Linear algebra ops (tools/optable/math_linalg.py) against torch.linalg, for every dtype of each A2 list: values
where they are unique (Cholesky, QR with LAPACK's reflector convention, singular values, slogdet, solves), factor
properties where only a phase is free (SVD's singular vectors); strided and batched inputs and outputs, empty
inputs, and invalid rows in each op_api source's order."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn.lowlevel import AclTensor
from table_harness import BF16, NP, expect_status, from_torch, to_torch

OPS = pyaclnn._optable.OPS
pytestmark = pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
TOL = {"f32": 2e-5, "f16": 2e-3, "bf16": 2e-2, "f64": 1e-11, "c64": 2e-5, "c128": 1e-11}


def rnd(rng, shape, dt):
    x = rng.standard_normal(shape)
    if dt in ("c64", "c128"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(NP[dt])


def f64(a):
    """values as float64 / complex128 (bf16 through float32)"""
    a = np.asarray(a)
    if a.dtype == BF16:
        a = a.astype(np.float32)
    return a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)


def close(a, e, dt, scale=1.0):
    np.testing.assert_allclose(f64(a), f64(e), rtol=TOL[dt] * scale, atol=TOL[dt] * scale)


def strided(a):
    """the same values as a view with a gap in the last dim (and an offset)"""
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
    v = big[..., 1::2]
    v[...] = a
    return v


def transposed_view(a):
    """the same values, its last two dims stored transposed"""
    return np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)


# ---------------------------------------------------------------- Cholesky

@pytest.mark.parametrize("dt", OPS["LinalgCholesky"]["dtypes"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(torch, dt, upper):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 4, 4))
    spd = (a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)).astype(NP[dt])
    x = transposed_view(spd)                      # a non-contiguous input with the same (symmetric) values
    o = strided(np.zeros_like(spd))               # and a strided output
    pyaclnn.call("LinalgCholesky", x, upper, o)
    e = torch.linalg.cholesky(torch.from_numpy(f64(spd)), upper=upper).numpy()
    close(o, e, dt, 8)


def test_cholesky_reads_one_triangle(torch):
    """lower reads the lower triangle, upper the upper one (LAPACK potrf, as torch)"""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3))
    spd = a @ a.T + 3 * np.eye(3)
    junk_up, junk_lo = np.tril(spd) + np.triu(np.full((3, 3), 50.0), 1), np.triu(spd) + np.tril(np.full((3, 3), -9.0), -1)
    for upper, x in ((False, junk_up), (True, junk_lo)):
        o = np.zeros((3, 3), np.float32)
        pyaclnn.call("LinalgCholesky", x.astype(np.float32), upper, o)
        close(o, torch.linalg.cholesky(torch.from_numpy(spd), upper=upper).numpy(), "f32", 8)


def test_cholesky_empty_and_non_square():
    e = np.zeros((0, 3, 2), np.float32)           # empty: success before the square check
    pyaclnn.call("LinalgCholesky", e, False, np.zeros_like(e))
    x = AclTensor.from_array(np.zeros((2, 3), np.float32))
    expect_status("LinalgCholesky", [x, False, AclTensor.empty((2, 3), np.float32)], 161002, "square")


# ---------------------------------------------------------------- Qr / LinalgQr

@pytest.mark.parametrize("dt", OPS["Qr"]["dtypes"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_qr(torch, dt, shape):
    rng = np.random.default_rng(3)
    a = rnd(rng, shape, dt)
    ta = torch.from_numpy(f64(a).astype(np.complex64 if dt == "c64" else np.float32 if dt in ("f32", "f16") else
                                        f64(a).dtype))
    m, n = shape[-2:]
    k = min(m, n)
    for some in (True, False):
        qc = k if some else m
        q = strided(np.zeros(shape[:-2] + (m, qc), a.dtype))
        r = np.zeros(shape[:-2] + (qc, n), a.dtype)
        pyaclnn.call("Qr", transposed_view(a), some, q, r)
        tq, tr = torch.linalg.qr(ta, mode="reduced" if some else "complete")
        close(q, tq.numpy(), dt, 10)
        close(r, tr.numpy(), dt, 10)
        lq, lr = np.zeros_like(q), np.zeros_like(r)
        pyaclnn.call("LinalgQr", a, 0 if some else 1, lq, lr)
        close(lq, tq.numpy(), dt, 10)
        close(lr, tr.numpy(), dt, 10)
    r = np.zeros(shape[:-2] + (k, n), a.dtype)
    pyaclnn.call("LinalgQr", a, 2, np.zeros((0,), a.dtype), r)          # mode r: Q is [0]
    close(r, torch.linalg.qr(ta, mode="r")[1].numpy(), dt, 10)


def test_qr_output_dtypes_and_empty(torch):
    rng = np.random.default_rng(4)
    a = rnd(rng, (4, 3), "f32")
    q, r = np.zeros((4, 3), np.float64), np.zeros((3, 3), np.complex64)   # Q and R each any dtype of the list
    pyaclnn.call("Qr", a, True, q, r)
    tq, tr = torch.linalg.qr(torch.from_numpy(a))
    assert (q.astype(np.float32).astype(np.float64) == q).all()            # the float result, widened
    close(q, tq.numpy(), "f32", 10)
    close(r, tr.numpy(), "c64", 10)
    q = np.full((3, 3), 7, np.float32)                                     # n == 0, complete: Q is the identity
    pyaclnn.call("Qr", np.zeros((3, 0), np.float32), False, q, np.zeros((3, 0), np.float32))
    np.testing.assert_array_equal(q, np.eye(3))
    q = np.full((2, 0, 3), 7, np.float32)
    pyaclnn.call("LinalgQr", np.zeros((2, 0, 3), np.float32), 0, np.zeros((2, 0, 0), np.float32), q)


# ---------------------------------------------------------------- Svd

@pytest.mark.parametrize("dt", OPS["Svd"]["dtypes"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_svd(torch, dt, shape):
    rng = np.random.default_rng(5)
    a = rnd(rng, shape, dt)
    m, n = shape[-2:]
    k = min(m, n)
    b = shape[:-2]
    ts = torch.linalg.svdvals(torch.from_numpy(a)).numpy()
    tu, _, tvh = torch.linalg.svd(torch.from_numpy(a), full_matrices=False)
    tu, tv = tu.numpy(), np.swapaxes(tvh.numpy(), -1, -2).conj()
    for full in (False, True):
        uc, vc = (m, n) if full else (k, k)
        s, u, v = np.zeros(b + (k,), a.dtype), strided(np.zeros(b + (m, uc), a.dtype)), np.zeros(b + (n, vc), a.dtype)
        pyaclnn.call("Svd", strided(a), full, True, s, u, v)
        close(s, ts.astype(s.dtype), dt, 10)
        eye = np.eye(uc)
        close(np.swapaxes(u, -1, -2).conj() @ u, np.broadcast_to(eye, b + eye.shape), dt, 10)
        eye = np.eye(vc)
        close(np.swapaxes(v, -1, -2).conj() @ v, np.broadcast_to(eye, b + eye.shape), dt, 10)
        close((u[..., :k] * s.real[..., None, :]) @ np.swapaxes(v[..., :k], -1, -2).conj(), a, dt, 20)
        # each pair (u_k, v_k) is torch's up to one common phase
        ph = np.sum(u[..., :k].conj() * tu, -2)
        close(np.abs(ph), np.ones_like(np.abs(ph)), dt, 50)
        close(v[..., :k] * ph[..., None, :], tv, dt, 50)


def test_svd_rank_deficient_and_no_uv(torch):
    a = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])          # rank 1, 3 x 2
    s, u, v = np.zeros(2), np.zeros((3, 3)), np.zeros((2, 2))
    pyaclnn.call("Svd", a, True, True, s, u, v)
    np.testing.assert_allclose(s, torch.linalg.svdvals(torch.from_numpy(a)).numpy(), atol=1e-12)
    np.testing.assert_allclose(u.T @ u, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(v.T @ v, np.eye(2), atol=1e-12)
    u0, v0 = np.full((7,), 5.0), np.full((1, 1), 5.0)    # computeUV false: u and v neither checked nor written
    pyaclnn.call("Svd", a, False, False, s, u0, v0)
    assert (u0 == 5).all() and (v0 == 5).all()


# ---------------------------------------------------------------- Slogdet / Logdet

@pytest.mark.parametrize("dt", OPS["Slogdet"]["dtypes"])
def test_slogdet_logdet(torch, dt):
    rng = np.random.default_rng(6)
    a = rnd(rng, (3, 2, 4, 4), dt)
    a[0, 0] = 0                                           # singular: sign 0, -inf
    a[0, 1, :, 2] = 0                                     # a zero column: exactly singular for any LU
    ta = torch.from_numpy(a)
    ts, tl = torch.linalg.slogdet(ta)
    s, lo = strided(np.zeros((3, 2), a.dtype)), np.zeros((3, 2), a.dtype)
    pyaclnn.call("Slogdet", transposed_view(a), s, lo)
    close(s, ts.numpy(), dt, 10)
    close(lo, tl.numpy().astype(lo.dtype), dt, 10)
    o = np.zeros((3, 2), a.dtype)
    pyaclnn.call("Logdet", a, o)
    e = torch.logdet(ta).numpy()                         # NaN for det < 0 (real), log(det) for complex
    if dt in ("c64", "c128"):                             # det 0: log|det| + log(sign 0) is -inf + 0j here, torch
        assert (o[0, :].real == -np.inf).all() and (o[0, :].imag == 0).all()   # has -inf + nan j
        o, e = o[1:], e[1:]
    assert np.array_equal(np.isnan(o), np.isnan(e))
    m = ~np.isnan(e)
    close(o[m], e[m], dt, 10)
    if dt in ("f32", "f64"):
        assert not np.signbit(o[np.isnan(o)]).any()      # torch's positive NaN


@pytest.mark.parametrize("dt", ["f32", "f64"])
def test_slogdet_exact_cancellation(torch, dt):
    # 1..9 in a 3x3 grid is singular, and the LU order of LAPACK's small-matrix getf2 finds a pivot of exactly 0
    # (torch and numpy: sign 0, log|det| -inf); a right-looking elimination leaves a 1e-16 residue instead
    a = np.arange(1, 10, dtype=NP[dt]).reshape(3, 3)
    s, lo = np.ones((), a.dtype), np.zeros((), a.dtype)
    pyaclnn.call("Slogdet", a, s, lo)
    ts, tl = torch.linalg.slogdet(torch.from_numpy(a))
    assert s == ts.item() == 0 and lo == tl.item() == -np.inf


def test_slogdet_real_input_complex_outputs_and_rank10(torch):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 1, 1, 1, 1, 1, 1, 1, 3, 3))        # 10 dims: more than any view, folded
    s, lo = np.zeros(a.shape[:-2], np.complex128), np.zeros(a.shape[:-2], np.float32)
    pyaclnn.call("Slogdet", a, s, lo)
    ts, tl = torch.linalg.slogdet(torch.from_numpy(a))
    np.testing.assert_allclose(s, ts.numpy())
    np.testing.assert_allclose(lo, tl.numpy(), rtol=1e-6)
    pyaclnn.call("Slogdet", np.zeros((0, 3, 3)), np.zeros(0), np.zeros(0))   # empty


# ---------------------------------------------------------------- TriangularSolve

@pytest.mark.parametrize("dt", OPS["TriangularSolve"]["dtypes"])
@pytest.mark.parametrize("upper,transpose,unit", [(True, False, False), (False, False, False), (True, True, False),
                                                  (False, True, False), (True, False, True), (False, True, True)])
def test_triangular_solve(torch, dt, upper, transpose, unit):
    if unit and dt != "f32":
        pytest.skip("unitriangular is FLOAT only (161002, tested below)")
    rng = np.random.default_rng(8)
    A = (rnd(rng, (2, 1, 4, 4), dt) + 4 * np.eye(4)).astype(NP[dt])   # batch dims broadcast against b's
    b = rnd(rng, (3, 4, 2), dt)
    x, mo = strided(np.zeros((2, 3, 4, 2), A.dtype)), np.zeros((2, 3, 4, 4), A.dtype)
    pyaclnn.call("TriangularSolve", b, transposed_view(A), upper, transpose, unit, x, mo)
    tA = torch.from_numpy(A).conj() if transpose else torch.from_numpy(A)   # a complex transpose is the adjoint
    e = torch.triangular_solve(torch.from_numpy(b), tA, upper=upper, transpose=transpose, unitriangular=unit)
    close(x, e.solution.numpy(), dt, 10)
    np.testing.assert_array_equal(mo, np.broadcast_to(A, mo.shape))        # mOut: A broadcast, unchanged
    x2 = np.zeros_like(x)
    pyaclnn.call("TriangularSolve", b, A, upper, transpose, unit, x2, None)  # mOut is optional
    np.testing.assert_array_equal(x2, x)


def test_triangular_solve_unit_nonfinite_diagonal_and_empty():
    A = np.triu(np.ones((3, 3), np.float32))
    A[1, 1] = np.inf                                      # A * (1 - I) + I: inf * 0 is NaN on the diagonal
    x = np.zeros((3, 1), np.float32)
    pyaclnn.call("TriangularSolve", np.ones((3, 1), np.float32), A, True, False, True, x, None)
    assert np.isnan(x[:2]).all() and x[2] == 1
    pyaclnn.call("TriangularSolve", np.ones((1, 3, 2), np.float32), np.zeros((0, 3, 3), np.float32), True, False,
                 False, np.zeros((0, 3, 2), np.float32), None)


# ---------------------------------------------------------------- invalid rows, upstream order

def T(shape, dt=np.float32, fmt=None):
    return AclTensor.empty(shape, dt, fmt)


def test_invalid_rows_cholesky():
    s = T((3, 3))
    rows = [
        ([None, False, s], 161001, "self"), ([s, False, None], 161001, "out"),
        ([s, False, T((3, 3), np.float64)], 161002, "out"),                  # out dtype == self's, checked first
        ([T((3, 3), np.float64), False, T((3, 3), np.float64)], 161002, "self"),
        ([s, False, T((3, 3), np.float32, lib.ACL_FORMAT_NCHW)], 161002, "format"),
        ([T((3, 3), np.float32, lib.ACL_FORMAT_FRACTAL_NZ), False, T((3, 3), np.float32, lib.ACL_FORMAT_FRACTAL_NZ)],
         161002, "ND"),
        ([T((1,) * 9), False, T((1,) * 9)], 161002, "self"), ([T((3,)), False, T((3,))], 161002, "self"),
        ([s, False, T((3, 4))], 161002, "out"),
        ([T((3, 4)), False, T((3, 4))], 161002, "square"),
    ]
    for args, code, word in rows:
        expect_status("LinalgCholesky", args, code, word)
    big = AclTensor((8193, 8193), np.float32, strides=(0, 0))          # one element of memory: phase 1 only
    expect_status("LinalgCholesky", [big, False, AclTensor((8193, 8193), np.float32, strides=(0, 0))], 161002, "8192")


def test_invalid_rows_qr():
    s = T((4, 3))
    for op, attr in (("Qr", True), ("LinalgQr", 0)):
        expect_status(op, [None, attr, T((4, 3)), T((3, 3))], 561103, "self")    # ACLNN_ERR_INNER_NULLPTR
        expect_status(op, [s, attr, None, T((3, 3))], 561103, "Q")
        expect_status(op, [s, attr, T((4, 3)), None], 561103, "R")
        expect_status(op, [T((4, 3), np.int32), attr, T((4, 3)), T((3, 3))], 161002, "self")
        expect_status(op, [s, attr, T((4, 3), np.int32), T((3, 3))], 161002, "Q")
        expect_status(op, [s, attr, T((4, 3)), T((3, 3), BF16)], 161002, "R")
        expect_status(op, [T((4,)), attr, T((4,)), T((4,))], 161002, "self")
        expect_status(op, [T((1,) * 9), attr, T((1,) * 9), T((1,) * 9)], 161002, "self")
        expect_status(op, [s, attr, T((4, 4)), T((3, 3))], 161002, "Q")
        expect_status(op, [s, attr, T((4, 3)), T((4, 3))], 161002, "R")
    expect_status("LinalgQr", [s, 2, T((4, 3)), T((3, 3))], 161002, "Q")       # mode r: Q must be [0]
    expect_status("LinalgQr", [s, 7, T((4, 3)), T((3, 3))], 0)                # mode is not validated


def test_invalid_rows_svd():
    a, s, u, v = T((4, 3)), T((3,)), T((4, 3)), T((3, 3))
    expect_status("Svd", [None, False, True, s, u, v], 161001, "input")
    expect_status("Svd", [a, False, True, None, u, v], 161001, "sigma")
    expect_status("Svd", [a, False, True, s, None, v], 161001, "u")
    expect_status("Svd", [a, False, False, s, u, None], 161001, "v")            # NULL even without computeUV
    expect_status("Svd", [T((4, 3), np.float16), False, True, s, u, v], 161002, "input")
    expect_status("Svd", [a, False, True, T((3,), np.int32), u, v], 161002, "sigma")
    expect_status("Svd", [a, False, True, T((3,), np.float64), u, v], 161002, "sigma")   # same dtype as input
    expect_status("Svd", [a, False, True, s, T((4, 3), np.float64), v], 161002, "u")
    expect_status("Svd", [T((3,)), False, True, s, u, v], 161002, "input")
    expect_status("Svd", [a, False, True, T((4,)), u, v], 161002, "sigma")
    expect_status("Svd", [a, True, True, s, u, v], 161002, "u")                # full: u 4 x 4
    expect_status("Svd", [a, False, True, s, u, T((3, 2))], 161002, "v")
    expect_status("Svd", [a, True, False, s, T((1,)), T((1,))], 0)              # u, v shapes not checked
    expect_status("Svd", [T((0, 3)), False, True, T((0,)), T((0, 0)), T((3, 0))], 0)


def test_invalid_rows_det():
    s = T((2, 3, 3))
    expect_status("Slogdet", [None, T((2,)), T((2,))], 161001, "self")
    expect_status("Slogdet", [s, None, T((2,))], 161001, "signOut")
    expect_status("Slogdet", [s, T((2,)), None], 161001, "logOut")
    expect_status("Slogdet", [T((2, 3, 3), np.float16), T((2,)), T((2,))], 161002, "self")
    expect_status("Slogdet", [s, T((2,), np.float16), T((2,))], 161002, "signOut")
    expect_status("Slogdet", [T((2, 3, 3), np.complex64), T((2,)), T((2,), np.complex64)], 161002, "signOut")
    expect_status("Slogdet", [T((2, 3, 3), np.complex64), T((2,), np.complex64), T((2,))], 161002, "logOut")
    expect_status("Slogdet", [T((3,)), T(()), T(())], 161002, "self")
    expect_status("Slogdet", [T((2, 3, 4)), T((2,)), T((2,))], 161002, "self")
    expect_status("Slogdet", [s, T((3,)), T((2,))], 161002, "signOut")
    expect_status("Logdet", [None, T((2,))], 161001, "self")
    expect_status("Logdet", [s, None], 161001, "out")
    expect_status("Logdet", [T((2, 3, 3), np.int32), T((2,))], 161002, "self")
    expect_status("Logdet", [s, T((2,), BF16)], 161002, "out")
    expect_status("Logdet", [T((2, 3, 3), np.complex128), T((2,), np.float64)], 161002, "out")
    expect_status("Logdet", [s, T((2, 1))], 161002, "out")


def test_invalid_rows_triangular_solve():
    b, A, x, m = T((3, 2)), T((3, 3)), T((3, 2)), T((3, 3))
    ts = "TriangularSolve"
    expect_status(ts, [None, A, False, False, False, x, m], 561103, "self")    # ACLNN_ERR_INNER_NULLPTR
    expect_status(ts, [b, None, False, False, False, x, m], 561103, "A")
    expect_status(ts, [b, A, False, False, False, None, m], 561103, "xOut")
    expect_status(ts, [T((3, 2), np.float16), A, False, False, False, x, m], 161002, "self")
    expect_status(ts, [b, T((3, 3), np.float64), False, False, False, x, m], 161002, "A")
    expect_status(ts, [b, A, False, False, False, T((3, 2), np.float64), m], 161002, "xOut")
    expect_status(ts, [b, A, False, False, False, x, T((3, 3), np.int32)], 161002, "mOut")
    expect_status(ts, [T((3,)), A, False, False, False, x, m], 161002, "self")
    expect_status(ts, [b, T((1,) * 9), False, False, False, x, m], 161002, "A")
    expect_status(ts, [b, T((3, 4)), False, False, False, x, m], 161002, "square")
    expect_status(ts, [T((4, 2)), A, False, False, False, x, m], 161002, "Incompatible")
    expect_status(ts, [T((2, 3, 2)), T((3, 3, 3)), False, False, False, T((3, 3, 2)), None], 161002, "broadcast")
    expect_status(ts, [b, A, False, False, False, T((3, 3)), m], 161002, "xOut")
    expect_status(ts, [b, A, False, False, False, x, T((1, 3, 3))], 161002, "mOut")
    expect_status(ts, [T((3, 2), np.float64), T((3, 3), np.float64), False, False, True, T((3, 2), np.float64),
                       None], 161002, "FLOAT")
    expect_status(ts, [T((0, 3, 2), np.float64), T((3, 3), np.float64), False, False, True,
                       T((0, 3, 2), np.float64), None], 0)                    # empty returns before that check
