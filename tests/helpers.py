"""Test helpers shared by all op tests: tolerances, strided views, subprocess runs, C-level calls."""
import os
import subprocess
import sys

import numpy as np

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.ops._common import symbol

BF16 = pyaclnn.bfloat16
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16]
DTYPE_IDS = ["f32", "f16", "bf16"]

# (rtol, atol) per dtype against a float64 reference rounded once to the dtype (SPEC section 7).
TOL = {
    np.dtype(np.float64): (1e-12, 1e-12),
    np.dtype(np.float32): (1e-5, 1e-6),
    np.dtype(np.float16): (1e-3, 1e-3),
    BF16: (8e-3, 8e-3),
}

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def assert_close(actual, expected, dtype=None, rtol=None, atol=None, what=""):
    """Compare a result in `dtype` against a float64 reference (NaN positions must agree)."""
    dtype = np.dtype(dtype or actual.dtype)
    r, a = TOL[dtype]
    rtol = r if rtol is None else rtol
    atol = a if atol is None else atol
    act = np.asarray(actual).astype(np.float64)
    exp = np.asarray(expected).astype(np.float64)
    assert act.shape == exp.shape, f"{what}: shape {act.shape} != {exp.shape}"
    np.testing.assert_allclose(act, exp, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def rounded(x, dtype):
    """A float64 reference rounded once to dtype (what the hardware returns), back as float64."""
    return np.asarray(x, dtype=np.float64).astype(np.float32).astype(dtype).astype(np.float64)


def strided(arr, kind="slice"):
    """The same values as `arr`, as a non-contiguous view.

    kind: "slice"  every other element of a 2x larger buffer along the last axis, with a leading offset;
          "transpose"  a permuted copy viewed back through a transpose (non-monotone strides).
    """
    arr = np.asarray(arr)
    if kind == "slice":
        big = np.zeros(arr.shape[:-1] + (arr.shape[-1] * 2 + 1,), arr.dtype)
        view = big[..., 1::2]
        view[...] = arr
        return view
    if kind == "transpose":
        perm = list(range(arr.ndim))[::-1]
        return np.ascontiguousarray(arr.transpose(perm)).transpose(perm)
    raise ValueError(kind)


def run_python(code, env_extra=None, timeout=300):
    """Run `code` in a fresh interpreter (repo on sys.path) and return its stdout bytes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra or {})
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=timeout)
    assert res.returncode == 0, res.stderr.decode()
    return res.stdout


def same_bytes_for_threads(code, threads=(1, 2, 7), env=None):
    """Run `code` (which prints a digest of its results) with each OMP_NUM_THREADS (and `env`, e.g. a SoC name);
    all outputs must agree."""
    outs = {t: run_python(code, dict(env or {}, OMP_NUM_THREADS=str(t))) for t in threads}
    first = outs[threads[0]]
    for t, o in outs.items():
        assert o == first, f"OMP_NUM_THREADS={t} gives different bytes than {threads[0]}"
    return first


def same_bytes_for_threads_and_levels(code, threads=(1, 2, 7), levels=("off", "avx2", "avx512"), env=None):
    """same_bytes_for_threads, then the same output under each PYACLNN_SIMD cap (default thread count)"""
    first = same_bytes_for_threads(code, threads, env)
    for cap in levels:
        assert run_python(code, dict(env or {}, PYACLNN_SIMD=cap)) == first, f"PYACLNN_SIMD={cap} gives different bytes"
    return first


def last_error():
    return pyaclnn.recent_error_message()


def ws_call(op, *args):
    """Phase 1 only, at the C level: returns (status, workspaceSize, executor, message). Nothing raised."""
    pyaclnn.ensure_device()
    lib.aclGetRecentErrMsg()
    ws = ffi.new("uint64_t *")
    ex = ffi.new("aclOpExecutor **")
    c = [a.handle if isinstance(a, pyaclnn.AclTensor) else (ffi.NULL if a is None else a) for a in args]
    rc = getattr(lib, f"{symbol(op)}GetWorkspaceSize")(*c, ws, ex)
    return rc, ws[0], ex[0], last_error()


def expect_invalid(op, args, code, word):
    """Phase 1 must fail with exactly `code`, a message naming `word`, and *executor left untouched (SPEC §0)."""
    rc, _, ex, msg = ws_call(op, *args)
    assert rc == code, msg
    assert word in msg, msg
    assert ex == ffi.NULL, "a failed first phase wrote *executor"


def run_executor(op, ex, ws_size=0):
    """Phase 2 at the C level on the default stream, then synchronised (the caller reads the outputs); returns the
    status of phase 2, or, when it was queued (PYACLNN_ASYNC=1), the error the synchronisation reports for it."""
    buf = pyaclnn.DeviceBuffer(ws_size) if ws_size else None
    rc = getattr(lib, symbol(op))(buf.ptr if buf else ffi.NULL, ws_size, ex, ffi.NULL)
    src = lib.aclrtSynchronizeStream(ffi.NULL)
    assert rc == 0 or src == 0
    return rc or src


# For the bytes tests' subprocess code: data(shape, dt) - normal values with Inf, -Inf, NaN, -0 and tiny ones at
# fixed strides, from the code's own `rng`, rounded to dt.
SPECIAL_DATA = """def data(shape, dt):
    x = rng.standard_normal(shape).astype(np.float32)
    f = x.reshape(-1)
    f[::37] = np.inf; f[5::41] = -np.inf; f[7::53] = np.nan; f[11::29] = -0.0; f[13::31] *= 1e-6
    return x.astype(dt)
"""
