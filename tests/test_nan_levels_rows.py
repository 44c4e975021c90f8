"""NaN payload bytes at every SIMD level (the project standard: the same bytes for any OMP_NUM_THREADS and any
PYACLNN_SIMD level, NaNs included). The kernels keep their vector paths for NaN-free results and recompute a NaN
result in the scalar reference's order with common/nan_order.h's rule (a op b keeps a's payload, quietened, if a
is NaN, else b's). The cases are tools/nan_audit_rows.py's rows of the fixed families (softmax / log_softmax
backward, cross entropy, layer / rms / group norm, the reductions, avg pooling 2d / 3d) plus the families that
already agreed (their rows guard them): every float input salted with NaNs of distinct payloads (signalling, quiet,
both signs), +-inf and +-0, every float dtype; one subprocess per (level, threads) runs the whole table. A second
test checks the NaN payloads themselves against a numpy model of the rule (log_softmax backward rows)."""
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

from helpers import run_python

FAMILIES = ("softmax", "loss", "norm", "reduce", "pool", "elementwise", "foreach")

CODE = r"""
import sys
sys.path.insert(0, %r)
import nan_audit_rows as m
m.run_cases(m.case_names())
"""
TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")


@pytest.fixture(scope="module")
def digests():
    out = {}
    for level in ("off", "avx2", ""):
        for threads in ("1", "7"):
            text = run_python(CODE % TOOLS, {"PYACLNN_SIMD": level, "OMP_NUM_THREADS": threads}).decode()
            out[(level or "default", threads)] = dict(line.split(" ", 1) for line in text.splitlines())
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_nan_payload_bytes_same_at_every_level_and_thread_count(digests, family):
    runs = list(digests.items())
    (k0, ref), rest = runs[0], runs[1:]
    names = [n for n in ref if n.startswith(family + "/")]
    assert names
    for k, d in rest:
        bad = [n for n in names if d[n] != ref[n]]
        assert not bad, f"{k} differs from {k0}: {bad}"
    # the cases ran (an op refusing a dtype is recorded as ERR: only the foreach scalar forms' bf16 rows may)
    errs = [n for n in names if ref[n].startswith("ERR") and not n.startswith("foreach/")]
    assert not errs, errs


def _bits(a):
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def _isnan(u):
    return (u & 0x7FFFFFFF) > 0x7F800000


def _rule(op, a, b):
    """common/nan_order.h on float32 scalars (as uint32 bits in / out): a's payload if a is NaN, else b's, else
    the hardware result"""
    if _isnan(a):
        return a | 0x00400000
    if _isnan(b):
        return b | 0x00400000
    x, y = (np.uint32(a).view(np.float32), np.uint32(b).view(np.float32))
    with np.errstate(all="ignore"):
        r = {"+": x + y, "-": x - y, "*": x * y}[op]
    return int(np.float32(r).view(np.uint32))


def _tree_sum_bits(vals):
    """the row passes' sum: 16 lanes (element i into lane i % 16, from +0), then the halving tree"""
    t = [0] * 16
    for i, v in enumerate(vals):
        t[i % 16] = _rule("+", t[i % 16], int(v))
    w = 8
    while w:
        for j in range(w):
            t[j] = _rule("+", t[j], t[j + w])
        w //= 2
    return t[0]


CHECK = r"""
import numpy as np, pyaclnn, sys
g = np.frombuffer(bytes.fromhex(sys.argv[1]), np.float32).reshape(%d, %d).copy()
y = np.frombuffer(bytes.fromhex(sys.argv[2]), np.float32).reshape(g.shape).copy()
o = np.zeros_like(g)
pyaclnn.call("LogSoftmaxBackward", g, y, 1, o)
sys.stdout.write(o.tobytes().hex())
"""


def test_log_softmax_backward_nan_payloads_follow_the_rule():
    """o = g - exp(y) * sum(g) on rows holding NaNs of distinct payloads in g (several per 16-lane sum) and in y:
    every NaN output's bits are the rule's (a NaN y is its own exp), at every level; the finite outputs match a
    float64 reference."""
    rng = np.random.default_rng(3)
    R, C = 6, 53
    g = rng.standard_normal((R, C)).astype(np.float32)
    y = (-np.abs(rng.standard_normal((R, C))) - 1).astype(np.float32)
    gb, yb = g.view(np.uint32), y.view(np.uint32)
    for r in range(R):  # rows 0-2: NaN gradients (distinct payloads, some signalling); rows 3-5: NaN y only
        cols = rng.choice(C, 5, replace=False)
        for q, c in enumerate(cols):
            pay = 0x7F800000 | ((r * 8 + q + 1) * 0x1357) & 0x3FFFFF | (0x80000000 if q % 2 else 0)
            if r < 3:
                gb[r, c] = pay | (0x00400000 if q % 3 == 0 else 0)
            else:
                yb[r, c] = pay
    outs = {}
    for level in ("off", "avx2", ""):
        e = dict(os.environ, PYACLNN_SIMD=level)
        e["PYTHONPATH"] = os.path.dirname(TOOLS) + os.pathsep + e.get("PYTHONPATH", "")
        res = subprocess.run([sys.executable, "-c", CHECK % (R, C), g.tobytes().hex(), y.tobytes().hex()], env=e,
                             capture_output=True, timeout=120)
        assert res.returncode == 0, res.stderr.decode()
        hexo = res.stdout
        outs[level] = np.frombuffer(bytes.fromhex(hexo.decode()), np.float32).reshape(R, C)
    assert outs["off"].tobytes() == outs["avx2"].tobytes() == outs[""].tobytes()
    o = _bits(outs[""])
    # the exps of the finite y (the library's, checked against float64 below): where y is NaN, y itself
    with np.errstate(all="ignore"):
        e64 = np.exp(y.astype(np.float64))
    for r in range(R):
        s = _tree_sum_bits(gb[r])
        for c in range(C):
            if not _isnan(int(o[r, c])):
                assert not _isnan(s) and not _isnan(int(gb[r, c])) and not _isnan(int(yb[r, c]))
                ref = float(g[r, c]) - e64[r, c] * float(np.uint32(s).view(np.float32))
                assert abs(float(outs[""][r, c]) - ref) <= 1e-5 * (1 + abs(ref)), (r, c)
                continue
            # the exp factor: y quietened if NaN, else a finite number (its value does not reach a NaN's bits)
            ey = int(yb[r, c]) | 0x00400000 if _isnan(int(yb[r, c])) else struct.unpack("<I", struct.pack(
                "<f", np.float32(e64[r, c])))[0]
            want = _rule("-", int(gb[r, c]), _rule("*", ey, s))
            assert int(o[r, c]) == want, (r, c, hex(int(o[r, c])), hex(want))
