"""Linear algebra ops (tools/optable/math_linalg.py) against torch.linalg: values where they are unique
(Cholesky, slogdet, solves, singular values), factor properties where signs are free (QR, SVD)."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn.lowlevel import AclTensor
from table_harness import expect_status


@pytest.mark.parametrize("dt,tol", [(np.float32, 1e-4), (np.float64, 1e-10)])
def test_linalg(torch, dt, tol):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((2, 4, 4)).astype(dt)
    spd = (a @ a.transpose(0, 2, 1) + 4 * np.eye(4)).astype(dt)
    for upper in (False, True):
        o = np.zeros_like(spd)
        pyaclnn.call("LinalgCholesky", spd, upper, o)
        np.testing.assert_allclose(o, torch.linalg.cholesky(torch.from_numpy(spd), upper=upper).numpy(), rtol=tol,
                                   atol=tol)
    s, l = np.zeros(2, dt), np.zeros(2, dt)
    pyaclnn.call("Slogdet", a, s, l)
    ts, tl = torch.linalg.slogdet(torch.from_numpy(a))
    np.testing.assert_allclose(s, ts.numpy())
    np.testing.assert_allclose(l, tl.numpy(), rtol=tol, atol=tol)
    o = np.zeros(2, dt)
    pyaclnn.call("Logdet", spd, o)
    np.testing.assert_allclose(o, torch.logdet(torch.from_numpy(spd)).numpy(), rtol=tol, atol=tol)
    b = rng.standard_normal((2, 4, 3)).astype(dt)
    for upper, trans, unit in ((True, False, False), (False, True, False), (False, False, True)):
        x, m = np.zeros_like(b), np.zeros_like(spd)
        pyaclnn.call("TriangularSolve", b, spd, upper, trans, unit, x, m)
        ex = torch.triangular_solve(torch.from_numpy(b), torch.from_numpy(spd), upper=upper, transpose=trans,
                                    unitriangular=unit)
        np.testing.assert_allclose(x, ex.solution.numpy(), rtol=tol * 10, atol=tol * 10)
    for shape in ((5, 3), (3, 5)):
        x = rng.standard_normal(shape).astype(dt)
        m, n = shape
        k = min(m, n)
        for complete in (False, True):
            qc = m if complete else k
            q, r = np.zeros((m, qc), dt), np.zeros((qc, n), dt)
            pyaclnn.call("Qr", x, not complete, q, r)
            tq, tr = torch.linalg.qr(torch.from_numpy(x), mode="complete" if complete else "reduced")
            np.testing.assert_allclose(q @ r, x, rtol=tol * 10, atol=tol * 10)
            np.testing.assert_allclose(np.abs(r), np.abs(tr.numpy()), rtol=tol * 10, atol=tol * 10)
        sig, u, v = np.zeros(k, dt), np.zeros((m, k), dt), np.zeros((n, k), dt)
        pyaclnn.call("Svd", x, False, True, sig, u, v)
        np.testing.assert_allclose(sig, torch.linalg.svdvals(torch.from_numpy(x)).numpy(), rtol=tol * 10,
                                   atol=tol * 10)
        np.testing.assert_allclose((u * sig) @ v.T, x, rtol=tol * 10, atol=tol * 10)
        uf, vf = np.zeros((m, m), dt), np.zeros((n, n), dt)
        pyaclnn.call("Svd", x, True, True, sig, uf, vf)
        np.testing.assert_allclose(uf.T @ uf, np.eye(m), atol=tol * 10)
        np.testing.assert_allclose(vf.T @ vf, np.eye(n), atol=tol * 10)


def test_invalid_rows():
    x = AclTensor.from_array(np.zeros((2, 3), np.float32))
    expect_status("LinalgCholesky", [None, False, x], 161001, "self")
    expect_status("LinalgCholesky", [x, False, x], 161002, "square")
    expect_status("Logdet", [AclTensor.from_array(np.zeros((3, 3), np.int32)), AclTensor.empty((), np.int32)], 161002,
                  "self")
