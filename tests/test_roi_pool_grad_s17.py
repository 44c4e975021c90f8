"""aclnnRoiPoolingGradWithArgMax (Ascend950 path) after session 17's speed change (tasks own 8 consecutive channel
planes of a batch and walk its rois once; the flat gradOutput index is walked, not divided per element): every
gradInput element is still the float32 sum of its gradOutput values in ascending flat index, with the library's NaN
rule (acc + g keeps acc's payload, else g's, quietened), rounded once. Checked bit for bit (NaN payloads included)
against a literal numpy loop, for a channel count that is not a multiple of 8, strided gradOutput / argmax /
gradInput views, pooled attributes that differ from gradOutput's dims (the index then crosses slices), argmax -1 /
out of the plane / colliding, NaN / Inf / subnormal-half gradients; and the same bytes at OMP_NUM_THREADS 1/2/3 and
every PYACLNN_SIMD level."""
import importlib.util
import os

import numpy as np
import pytest

import pyaclnn
from helpers import REPO, run_executor, same_bytes_for_threads_and_levels, ws_call

_spec = importlib.util.spec_from_file_location("cv950", os.path.join(REPO, "tests", "ops", "test_cv_950_soc.py"))
cv950 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cv950)

f = np.float32
SOC950 = "Ascend950PR_9599"


@pytest.fixture(autouse=True)
def soc950(monkeypatch):
    monkeypatch.setenv("PYACLNN_SOC_NAME", SOC950)


def quiet_bits(u):
    return np.uint32(u | 0x00400000)


def grad_ref(go, am, rois, gi_shape, PH, PW):
    """gradInput planes from zero, gradOutput[i] added at argmax[i] for ascending flat i, float32 with the NaN rule,
    as raw float32 bits."""
    go = np.ascontiguousarray(np.asarray(go).astype(f)).reshape(-1)  # half -> float: exact, payload kept
    gb = go.view(np.uint32)
    fa = np.ascontiguousarray(am).reshape(-1)
    N, C, H, W = gi_shape
    HW, P, R, Cg = H * W, PH * PW, rois.shape[0], am.shape[1]
    acc = np.zeros(N * C * HW, np.uint32)
    with np.errstate(all="ignore"):
        for i in range(go.size):
            n, c = i // (P * Cg), (i // P) % Cg
            if n >= R:
                continue
            bv = np.float32(rois[n, 0])
            if np.isnan(bv) or not -2.0 ** 31 <= float(bv) < 2.0 ** 31:
                continue
            b, a = int(bv), int(fa[i])
            if not (0 <= b < N and 0 <= a < HW):
                continue
            k = (b * C + c) * HW + a
            av = acc[k:k + 1].view(f)[0]
            if np.isnan(av):
                continue
            if np.isnan(go[i]):
                acc[k] = quiet_bits(gb[i])
            else:
                acc[k] = (np.array([av], f) + np.array([go[i]], f)).view(np.uint32)[0]
    return acc.reshape(gi_shape)


def run(op, *a):
    rc, ws, ex, msg = ws_call(op, *a)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0, pyaclnn.recent_error_message()


def case(rng, dt, N=3, C=19, H=6, W=7, R=40, PH=3, PW=2):
    go = rng.standard_normal((R, C, PH, PW)).astype(f)
    gb = go.reshape(-1).view(np.uint32)
    gb[::13] = 0x7fc0abcd
    gb[6::29] = 0xff812345  # signalling, sign set: quietened
    gb[3::17] = 0x7f800000
    gb[5::19] = 0xff800000
    go.reshape(-1)[7::11] = 3e-8  # subnormal in half
    am = rng.integers(-1, H * W, (R, C, PH, PW)).astype(np.int32)
    am[..., 0, 0] = 5  # collisions
    am.reshape(-1)[::23] = H * W + 3  # outside the plane: skipped
    rois = np.zeros((R, 5), f)
    rois[:, 0] = rng.integers(0, N, R)
    rois[4, 0] = 7.0  # batch outside: skipped
    rois[9, 0] = 1.7  # truncated to 1
    return go.astype(dt), am, rois.astype(dt), (N, C, H, W)


def ref_as(bits, dt):
    r = bits.view(f)
    return r if dt == np.float32 else r.astype(np.float16)


def same_bits(a, r):
    a, r = np.ascontiguousarray(a), np.ascontiguousarray(r)
    assert a.shape == r.shape and a.dtype == r.dtype
    u = np.dtype(f"u{a.dtype.itemsize}")
    bad = a.view(u) != r.view(u)
    assert not bad.any(), f"{bad.sum()} differ, e.g. {np.argwhere(bad)[:4].tolist()}: {a[bad][:4]} vs {r[bad][:4]}"


strided_out = cv950.strided_out  # an output view over every other element of a larger buffer


@pytest.mark.parametrize("dt", [np.float32, np.float16], ids=["f32", "f16"])
def test_grad_bits_against_numpy_loop(dt):
    rng = np.random.default_rng(170)
    go, am, rois, gis = case(rng, np.dtype(dt))
    T = pyaclnn.AclTensor.from_array
    gi = T(np.full(gis, 7, dt))
    run("RoiPoolingGradWithArgMax", T(go), gi, T(rois), T(am), 3, 2, 1.0)
    same_bits(gi.numpy(), ref_as(grad_ref(go, am, rois, gis, 3, 2), dt))
    # strided views of all three (gradOutput every other element, argmax transposed storage, gradInput strided)
    gov = np.zeros(go.shape[:-1] + (2 * go.shape[-1] + 1,), dt)[..., 1::2]
    gov[...] = go
    amv = np.ascontiguousarray(am.transpose(3, 2, 1, 0)).transpose(3, 2, 1, 0)
    gi2 = strided_out(gis, np.dtype(dt))
    run("RoiPoolingGradWithArgMax", T(gov), gi2, T(rois), T(amv), 3, 2, 1.0)
    same_bits(gi2.numpy(), ref_as(grad_ref(go, am, rois, gis, 3, 2), dt))
    # pooledW off (3 * 5 per (roi, channel) group): the flat index crosses gradOutput's slices
    gi3 = pyaclnn.AclTensor(gis, np.dtype(dt))
    run("RoiPoolingGradWithArgMax", T(gov), gi3, T(rois), T(amv), 3, 5, 1.0)
    same_bits(gi3.numpy(), ref_as(grad_ref(go, am, rois, gis, 3, 5), dt))
    # the same with contiguous gradOutput / argmax (the row-converted fp16 path); and pooledW below the dims
    for pw in (5, 1):
        gi4 = pyaclnn.AclTensor(gis, np.dtype(dt))
        run("RoiPoolingGradWithArgMax", T(go), gi4, T(rois), T(am), 3, pw, 1.0)
        same_bits(gi4.numpy(), ref_as(grad_ref(go, am, rois, gis, 3, pw), dt))


BYTES_CODE = """
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, %(tests)r)
from test_roi_pool_grad_s17 import case, run, strided_out
T = pyaclnn.AclTensor.from_array
h = hashlib.sha256()
rng = np.random.default_rng(5)
for dt in (np.float32, np.float16):
    for C, R in ((19, 40), (64, 300)):
        go, am, rois, gis = case(rng, np.dtype(dt), N=2, C=C, H=12, W=13, R=R, PH=4, PW=3)
        gi = T(np.zeros(gis, dt))
        run("RoiPoolingGradWithArgMax", T(go), gi, T(rois), T(am), 4, 3, 1.0)
        h.update(gi.numpy().tobytes())
        gi = strided_out(gis, np.dtype(dt))
        run("RoiPoolingGradWithArgMax", T(go), gi, T(rois), T(am), 4, 2, 1.0)
        h.update(gi.numpy().tobytes())
print(h.hexdigest())
"""


def test_same_bytes_threads_and_levels():
    same_bytes_for_threads_and_levels(BYTES_CODE % {"tests": os.path.join(REPO, "tests")}, threads=(1, 2, 3), env={"PYACLNN_SOC_NAME": SOC950})
