"""The fp32 activation kernels (libsrc/kernels/vmath.h; table entries with vec=True, GeluBackwardV2's contiguous
path): the same bytes at every SIMD level (PYACLNN_SIMD off / avx2 / the CPU's best) and for 1, 2 and 7 threads,
for every dtype of each op's list that computes in fp32 (f32, f16, bf16), on inputs holding NaN, +-Inf, -0,
tiny, huge and ordinary values, long enough for every vector width's main loop and scalar tail and for the
threads to split the work. Values against PyTorch are tests/ops/test_table_elementwise.py's."""
import os

from helpers import REPO, run_python, same_bytes_for_threads

CODE = r"""
import hashlib, sys, zlib
import numpy as np
sys.path.insert(0, %r)
from table_harness import NP, default_scalar, ops
import pyaclnn

N = 3 * 23339  # odd: every width leaves a tail
SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30, -1e-30, 1e30, -1e30, 88.5, -88.5, 20.5, 3.0, -3.0],
                   np.float32)
h = hashlib.sha256()
for op in ops(kind="elementwise"):
    if not op.extra.get("vec"):
        continue
    for dt in op.dtypes:
        if dt not in ("f32", "f16", "bf16"):
            continue
        rng = np.random.default_rng(zlib.crc32(f"{op.name}-{dt}".encode()))
        arrs = []
        for a in op.args:
            if a.kind == "tensor" or (a.kind == "out" and op.inplace):
                x = (rng.standard_normal(N) * 4).astype(np.float32)
                x[rng.integers(0, N, 400)] = rng.choice(SPECIAL, 400)
                arrs.append(x.astype(NP[dt]))
        scal = iter([default_scalar(op, k, dt) for k in range(len(op.scalars))])
        it = iter(arrs)
        out = np.empty(N, NP[dt])
        args = []
        for a in op.args:
            if a.kind == "tensor" or (a.kind == "out" and op.inplace):
                args.append(next(it))
            elif a.kind == "out":
                args.append(out)
            else:
                args.append(next(scal))
        pyaclnn.call(op.name, *args)
        h.update(op.name.encode() + dt.encode() + (arrs[0] if op.inplace else out).tobytes())
for dt in ("f32", "f16", "bf16"):
    rng = np.random.default_rng(5)
    g, x = ((rng.standard_normal(N) * 4).astype(np.float32) for _ in range(2))
    x[rng.integers(0, N, 400)] = rng.choice(SPECIAL, 400)
    for approx in ("none", "tanh"):
        out = np.empty(N, NP[dt])
        pyaclnn.call("GeluBackwardV2", g.astype(NP[dt]), x.astype(NP[dt]), approx, out)
        h.update(out.tobytes())
print(h.hexdigest())
""" % os.path.join(REPO, "tests", "ops")


def test_vec_activations_identical_bytes_at_every_simd_level():
    outs = {cap: run_python(CODE, {"PYACLNN_SIMD": cap}) for cap in ("off", "avx2", "")}
    assert outs["off"] == outs["avx2"] == outs[""]


def test_vec_activations_identical_bytes_for_any_thread_count():
    same_bytes_for_threads(CODE)
