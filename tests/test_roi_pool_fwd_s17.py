"""aclnnRoiPoolingWithArgMax (Ascend950 path) after session 17's speed change (a roi at a time: its bin edges once,
then every channel's bins, with no index division per bin): y and argmax bit for bit against the literal numpy
float32 loop of tests/ops/test_cv_950_soc.py (roipool_ref) for more channels and rois than that file uses, pooled
sizes whose edges need the heap (pooledH + pooledW > 64), NaN / Inf / subnormal-half maps, NaN and inverted rois,
strided views; and the same bytes at OMP_NUM_THREADS 1/2/3 and every PYACLNN_SIMD level."""
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
T = pyaclnn.AclTensor.from_array


@pytest.fixture(autouse=True)
def soc950(monkeypatch):
    monkeypatch.setenv("PYACLNN_SOC_NAME", SOC950)


def run(op, *a):
    rc, ws, ex, msg = ws_call(op, *a)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0, pyaclnn.recent_error_message()


def pool(x, rois, PH, PW, sh, sw, y=None, am=None):
    R, C = rois.shape[0], x.shape[1]
    y = pyaclnn.AclTensor((R, C, PH, PW), x.dtype) if y is None else y
    am = pyaclnn.AclTensor((R, C, PH, PW), np.dtype(np.int32)) if am is None else am
    run("RoiPoolingWithArgMax", T(x), T(rois), PH, PW, sh, sw, y, am)
    return y.numpy(), am.numpy()


@pytest.mark.parametrize("special", [False, True], ids=["normal", "edges"])
@pytest.mark.parametrize("pooled,scales", [((7, 7), (1.0, 1.0)), ((3, 5), (0.5, 0.75)), ((40, 30), (2.0, 3.0))],
                         ids=["p7", "p35", "p40x30_heap"])
@pytest.mark.parametrize("dt", [np.float32, np.float16], ids=["f32", "f16"])
def test_forward_bits(dt, pooled, scales, special):
    rng = np.random.default_rng(40 + special)
    x, rois = cv950.roi_data(rng, N=3, C=19, H=13, W=17, R=37, special=special)
    x, rois = x.astype(dt), rois.astype(dt)
    y, am = pool(x, rois, *pooled, *scales)
    ry, ram = cv950.roipool_ref(x.astype(f), rois.astype(f), *pooled, *scales)
    cv950.same_bits(y, ry.astype(dt))
    assert (am == ram).all()


@pytest.mark.parametrize("dt", [np.float32, np.float16], ids=["f32", "f16"])
def test_forward_strided(dt):
    rng = np.random.default_rng(44)
    x, rois = cv950.roi_data(rng, N=2, C=11, H=10, W=12, R=21, special=True)
    x, rois = x.astype(dt), rois.astype(dt)
    xv = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)  # channels-last storage
    R, C = rois.shape[0], x.shape[1]
    y, am = cv950.strided_out((R, C, 4, 3), np.dtype(dt)), cv950.strided_out((R, C, 4, 3), np.dtype(np.int32))
    y, am = pool(xv, np.ascontiguousarray(rois.T).T, 4, 3, 0.9, 1.2, y, am)
    ry, ram = cv950.roipool_ref(x.astype(f), rois.astype(f), 4, 3, 0.9, 1.2)
    cv950.same_bits(y, ry.astype(dt))
    assert (am == ram).all()


BYTES_CODE = """
import hashlib, sys, numpy as np, pyaclnn
sys.path.insert(0, %(tests)r)
from test_roi_pool_fwd_s17 import cv950, pool
h = hashlib.sha256()
rng = np.random.default_rng(6)
for dt in (np.float32, np.float16):
    for special in (False, True):
        x, rois = cv950.roi_data(rng, N=2, C=24, H=20, W=24, R=64, special=special)
        for PH, PW, sh, sw in ((7, 7, 1.0, 1.0), (40, 30, 2.0, 1.5), (2, 5, 0.5, 0.8)):
            for out in pool(x.astype(dt), rois.astype(dt), PH, PW, sh, sw):
                h.update(out.tobytes())
print(h.hexdigest())
"""


def test_same_bytes_threads_and_levels():
    same_bytes_for_threads_and_levels(BYTES_CODE % {"tests": os.path.join(REPO, "tests")}, threads=(1, 2, 3), env={"PYACLNN_SOC_NAME": SOC950})
