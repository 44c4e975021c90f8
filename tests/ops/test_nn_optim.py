"""ops-nn optim/ (tools/optable/nn_optim.py; libsrc/ops/optim_plan.c, optim_adam.c, optim_fused.c) against PyTorch:
torch._fused_adamw_ / torch._fused_sgd_ (CPU, fp32 opmath) where PyTorch has the op, the update written in
float32 torch ops where it has not (ApplyAdamW's beta-power form, ApplyFusedEmaAdam). Every A2 dtype, strided
views, the op flags (amsgrad, maximize, nesterov, gradScale, foundInf, modes), empty tensors, the invalid rows of
each op_api in its order with exact codes, and determinism across thread counts."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from pyaclnn.lowlevel import AclTensor
from helpers import same_bytes_for_threads, strided
from table_harness import NP, TORCH, expect_status, from_torch, to_torch

DTS = ("f32", "f16", "bf16")
FTOL = {"f32": (2e-6, 2e-6), "f16": (2e-3, 2e-3), "bf16": (1.6e-2, 1.6e-2)}
SHAPES = [(3, 5), (7,), (2, 1, 4)]


def close(got, exp, dt, what=""):
    rtol, atol = FTOL[dt]
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), np.asarray(exp).astype(np.float64),
                               rtol=rtol * 2, atol=atol * 2, err_msg=what)


def tt(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


def f32(torch, a):
    return tt(torch, a).float()


def back(torch, t, dt):
    return from_torch(t.to(getattr(torch, TORCH[dt])))


def state(rng, shape, dt):
    """param, grad, m (any sign), v (>= 0), maxv (>= 0), in dtype dt"""
    p = rng.uniform(-2, 2, shape)
    g = rng.uniform(-1, 1, shape)
    m = rng.uniform(-0.5, 0.5, shape)
    v = rng.uniform(0, 0.3, shape)
    mx = rng.uniform(0, 0.6, shape)
    return [x.astype(NP[dt]) for x in (p, g, m, v, mx)]


def view(a, k):
    """the k-th tensor as a strided view (k odd: every other element; k == 2: a transposed view)"""
    if a.ndim == 0:
        return a.copy()
    if k % 2:
        return strided(a)
    if k == 2:
        return strided(a, "transpose")
    return a.copy()


def tl(*arrays):
    ts = [AclTensor.from_array(a) for a in arrays]
    h = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [t.handle for t in ts] or [ffi.NULL]), len(ts))
    return ts, ffi.gc(h, lib.aclDestroyTensorList)


def T(shape=(2, 3), dt="f32", fill=0):
    return AclTensor.from_array(np.full(shape, fill, NP[dt]))


# ------------------------------------------------------------------------------------------------ ApplyAdamWV2

def torch_fused_adamw(torch, ps, gs, ms, vs, mxs, steps, lr, b1, b2, wd, eps, ams, maxi, gscale=None, finf=None):
    """torch._fused_adamw_ on contiguous copies; returns (params, m, v, maxv) as numpy in the input dtypes.
    steps are the CANN step values: torch's state_steps hold the incremented step."""
    P = [tt(torch, a) for a in ps]
    G = [tt(torch, a) for a in gs]
    M = [tt(torch, a) for a in ms]
    V = [tt(torch, a) for a in vs]
    X = [tt(torch, a) for a in mxs] if ams else []
    S = [torch.tensor(float(s) + 1.0) for s in steps]
    kw = {}
    if gscale is not None:
        kw["grad_scale"] = torch.tensor(float(gscale))
    if finf is not None:
        kw["found_inf"] = torch.tensor(float(finf))
    torch._fused_adamw_(P, G, M, V, X, S, lr=lr, beta1=b1, beta2=b2, weight_decay=wd, eps=eps, amsgrad=ams,
                        maximize=maxi, **kw)
    return [from_torch(t) for t in P], [from_torch(t) for t in M], [from_torch(t) for t in V], \
        [from_torch(t) for t in X]


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("ams,maxi,step_dt", [(False, False, "i64"), (True, False, "f32"), (True, True, "i64"),
                                               (False, True, "f32")])
def test_apply_adam_w_v2(torch, dt, ams, maxi, step_dt):
    rng = np.random.default_rng(11)
    for k, shape in enumerate(SHAPES):
        p, g, m, v, mx = state(rng, shape, dt)
        step = 4 + k
        ep, em, ev, ex = torch_fused_adamw(torch, [p], [g], [m], [v], [mx], [step], 0.01, 0.9, 0.999, 0.05, 1e-8,
                                           ams, maxi)
        P, G, M, V, X = (view(a, k) for a in (p, g, m, v, mx))
        pyaclnn.call("ApplyAdamWV2", P, M, V, X if ams else None, G, np.array([step], NP[step_dt]), 0.01, 0.9,
                     0.999, 0.05, 1e-8, ams, maxi)
        close(P, ep[0], dt, "var")
        close(M, em[0], dt, "m")
        close(V, ev[0], dt, "v")
        if ams:
            close(X, ex[0], dt, "maxGradNorm")
        np.testing.assert_array_equal(G, g)  # grad is read only


@pytest.mark.parametrize("gdt", ["f16", "bf16"])
def test_apply_adam_w_v2_mixed_dtypes(torch, gdt):
    """f32 state with a half-precision grad (the op_api's mixed case): all computed in float32"""
    rng = np.random.default_rng(12)
    p, _, m, v, mx = state(rng, (4, 6), "f32")
    g = rng.uniform(-1, 1, (4, 6)).astype(NP[gdt])
    mxh = mx.astype(NP[gdt])
    ep, em, ev, ex = torch_fused_adamw(torch, [p], [g.astype(np.float32)], [m], [v], [mxh.astype(np.float32)], [2],
                                       0.01, 0.8, 0.99, 0.0, 1e-6, True, False)
    pyaclnn.call("ApplyAdamWV2", p, m, v, mxh, g, np.array([2.0], np.float32), 0.01, 0.8, 0.99, 0.0, 1e-6, True, False)
    close(p, ep[0], "f32")
    close(m, em[0], "f32")
    close(v, ev[0], "f32")
    close(mxh, ex[0], gdt)


def test_apply_adam_w_v2_flags_and_empty(torch):
    # maxGradNorm given with amsgrad false: read by nothing, left as it is
    p, m, v = np.ones(3, np.float32), np.zeros(3, np.float32), np.zeros(3, np.float32)
    mx = np.full(3, 7.0, np.float32)
    pyaclnn.call("ApplyAdamWV2", p, m, v, mx, np.full(3, 0.5, np.float32), np.array([0], np.int64), 0.1, 0.9, 0.999,
                 0.0, 1e-8, False, False)
    np.testing.assert_array_equal(mx, 7.0)
    np.testing.assert_allclose(p, 1 - 0.1, rtol=1e-6)     # step 1: m_hat / sqrt(v_hat) = sign(g)
    # empty var: a no-op executor
    e = np.zeros((0, 3), np.float32)
    pyaclnn.call("ApplyAdamWV2", e, e.copy(), e.copy(), None, e.copy(), np.array([1], np.int64), 0.1, 0.9, 0.999,
                 0.0, 1e-8, False, False)


def test_apply_adam_w_v2_invalid():
    var, m, v, mx, g = T(), T(), T(), T(), T()
    st = T((1,), "i64")
    a = [var, m, v, mx, g, st, 0.1, 0.9, 0.999, 0.0, 1e-8, False, False]

    def row(i, val, code, word, amsgrad=False):
        b = list(a)
        b[i] = val
        b[11] = amsgrad
        expect_status("ApplyAdamWV2", b, code, word)

    row(0, None, 161001, "varRef")
    row(1, None, 161001, "mRef")
    row(2, None, 161001, "vRef")
    row(3, None, 161001, "maxGradNormOptionalRef", amsgrad=True)
    expect_status("ApplyAdamWV2", [var, m, v, None, g, st, 0.1, 0.9, 0.999, 0.0, 1e-8, False, False], 0)
    row(4, None, 161001, "grad")
    row(5, None, 161001, "step")
    row(0, T(dt="f64"), 161002, "varRef")
    row(1, T(dt="i32"), 161002, "mRef")
    row(3, T(dt="f64"), 161002, "maxGradNormOptionalRef")
    row(4, T(dt="f64"), 161002, "grad")
    row(5, T((1,), "i32"), 161002, "step")
    row(5, T((1,), "f16"), 161002, "step")
    row(1, T((3, 2)), 161002, "mRef")
    row(2, T((2, 3, 1)), 161002, "vRef")
    row(3, T((6,)), 161002, "maxGradNormOptionalRef")
    row(4, T((2, 4)), 161002, "grad")
    row(5, T((2,), "i64"), 161002, "step")
    row(5, T((0,), "i64"), 161002, "step")
    # mixed dtypes are accepted (each in the list): the op_api casts them to float32
    row(0, T(dt="f16"), 0, None)
    # NULL before dtype: a NULL grad wins over a bad var dtype
    b = list(a)
    b[0], b[4] = T(dt="f64"), None
    expect_status("ApplyAdamWV2", b, 161001, "grad")


# ------------------------------------------------------------------------------------------------ ApplyAdamW

def adamw1_ref(torch, p, m, v, mx, g, b1p, b2p, lr, wd, b1, b2, eps, ams, maxi, dt):
    """the op's formula in float32 torch ops (the scalar tensors are in the tensors' dtype)"""
    sc = [float(np.asarray(x, NP[dt]).astype(np.float32)) for x in (b1p, b2p, lr, wd, b1, b2, eps)]
    b1p, b2p, lr, wd, b1, b2, eps = (torch.tensor(x, dtype=torch.float32) for x in sc)
    P, M, V, X, G = (f32(torch, a) for a in (p, m, v, mx, g))
    if maxi:
        G = -G
    P = P * (1 - lr * wd)
    M = M * b1 + (1 - b1) * G
    V = V * b2 + (1 - b2) * G * G
    VM = torch.maximum(V, X) if ams else V
    P = P - lr / (1 - b1p * b1) * M / (torch.sqrt(VM / (1 - b2p * b2)) + eps)
    return back(torch, P, dt), back(torch, M, dt), back(torch, V, dt)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("ams,maxi", [(False, False), (True, False), (False, True), (True, True)])
def test_apply_adam_w(torch, dt, ams, maxi):
    rng = np.random.default_rng(13)
    b1, b2, lr, wd, eps, t = 0.9, 0.999, 0.01, 0.02, 1e-8, 3
    for k, shape in enumerate(SHAPES):
        p, g, m, v, mx = state(rng, shape, dt)
        sc = [np.array([x], NP[dt]) for x in (b1 ** (t - 1), b2 ** (t - 1), lr, wd, b1, b2, eps)]
        ep, em, ev = adamw1_ref(torch, p, m, v, mx, g, *[s[0] for s in sc], ams, maxi, dt)
        P, G, M, V, X = (view(a, k) for a in (p, g, m, v, mx))
        pyaclnn.call("ApplyAdamW", P, M, V, *sc, G, X if (ams or k == 1) else None, ams, maxi)
        close(P, ep, dt, "var")
        close(M, em, dt, "m")
        close(V, ev, dt, "v")   # the plain moment: maxGradNorm only enters the denominator, it is not written
        np.testing.assert_array_equal(X, mx)
    if dt == "f32" and not ams:  # the same step as torch's AdamW at step t
        p, g, m, v, mx = state(rng, (5,), dt)
        tp, tm, tv, _ = torch_fused_adamw(torch, [p], [g], [m], [v], [mx], [t - 1], lr, b1, b2, wd, eps, False, maxi)
        sc = [np.array([x], np.float32) for x in (b1 ** (t - 1), b2 ** (t - 1), lr, wd, b1, b2, eps)]
        pyaclnn.call("ApplyAdamW", p, m, v, *sc, g, None, False, maxi)
        close(p, tp[0], dt)
        close(m, tm[0], dt)
        close(v, tv[0], dt)


def test_apply_adam_w_invalid():
    ts = [T() for _ in range(3)] + [T((1,)) for _ in range(7)] + [T(), T()]
    names = ["varRef", "mRef", "vRef", "beta1Power", "beta2Power", "lr", "weightDecay", "beta1", "beta2", "eps",
             "grad", "maxGradNormOptional"]

    def row(i, val, code, word, amsgrad=False):
        b = list(ts) + [amsgrad, False]
        b[i] = val
        expect_status("ApplyAdamW", b, code, word)

    for i in range(11):
        row(i, None, 161001, names[i])
    row(11, None, 161001, names[11], amsgrad=True)
    row(11, None, 0, None)
    for i in range(11):
        row(i, T((2, 3) if i in (0, 1, 2, 10) else (1,), "f64"), 161002, names[i])
    for i in range(1, 11):   # every tensor has var's dtype
        row(i, T((2, 3) if i in (1, 2, 10) else (1,), "f16"), 161002, names[i])
    row(11, T(dt="bf16"), 161002, names[11])
    row(1, T((3, 2)), 161002, "mRef")
    row(2, T((6,)), 161002, "vRef")
    row(11, T((2, 2)), 161002, names[11])
    row(10, T((2, 3, 1)), 161002, "grad")
    for i in range(3, 10):
        row(i, T((2,)), 161002, names[i])
    row(5, T(()), 0, None)   # one element in any shape


# ------------------------------------------------------------------------------------------------ ApplyFusedEmaAdam

def ema_ref(torch, g, var, m, v, s, step, lr, ema, b1, b2, eps, mode, bias, wd, dt):
    G, P, M, V, S = (f32(torch, a) for a in (g, var, m, v, s))
    f = lambda x: torch.tensor(x, dtype=torch.float32)  # noqa: E731
    lr, ema, b1, b2, eps, wd = (f(x) for x in (lr, ema, b1, b2, eps, wd))
    c1 = 1 - b1 ** float(step) if bias else f(1.0)
    c2 = 1 - b2 ** float(step) if bias else f(1.0)
    if mode == 0:
        G = G + wd * P
    M = b1 * M + (1 - b1) * G
    V = b2 * V + (1 - b2) * G * G
    U = (M / c1) / (torch.sqrt(V / c2) + eps)
    if mode == 1:
        U = U + wd * P
    P = P - lr * U
    S = ema * S + (1 - ema) * P
    return [back(torch, x, dt) for x in (P, M, V, S)]


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("mode,bias", [(0, True), (1, True), (1, False), (0, False)])
def test_apply_fused_ema_adam(torch, dt, mode, bias):
    rng = np.random.default_rng(14)
    for k, shape in enumerate(SHAPES):
        p, g, m, v, s = state(rng, shape, dt)
        step = 3 + k
        exp = ema_ref(torch, g, p, m, v, s, step, 0.01, 0.7, 0.9, 0.99, 1e-8, mode, bias, 0.05, dt)
        G, P, M, V, S = (view(a, k) for a in (g, p, m, v, s))
        pyaclnn.call("ApplyFusedEmaAdam", G, P, M, V, S, np.array([step], np.int64), 0.01, 0.7, 0.9, 0.99, 1e-8,
                     mode, bias, 0.05)
        for got, e, nm in zip((P, M, V, S), exp, ("var", "m", "v", "s")):
            close(got, e, dt, nm)
        np.testing.assert_array_equal(G, g)


def test_apply_fused_ema_adam_step_first_element(torch):
    """the kernel reads the first element of step whatever its shape"""
    p, g, m, v, s = state(np.random.default_rng(1), (4,), "f32")
    exp = ema_ref(torch, g, p, m, v, s, 5, 0.01, 0.5, 0.9, 0.999, 1e-8, 1, True, 0.1, "f32")
    pyaclnn.call("ApplyFusedEmaAdam", g, p, m, v, s, np.array([[5, 9], [9, 9]], np.int64), 0.01, 0.5, 0.9, 0.999,
                 1e-8, 1, True, 0.1)
    for got, e in zip((p, m, v, s), exp):
        close(got, e, "f32")


def test_apply_fused_ema_adam_invalid():
    ts = [T() for _ in range(5)] + [T((1,), "i64")]
    names = ["grad", "varRef", "mRef", "vRef", "sRef", "step"]

    def row(i, val, code, word, mode=1):
        b = list(ts) + [0.01, 0.5, 0.9, 0.999, 1e-8, mode, True, 0.0]
        if i is not None:
            b[i] = val
        expect_status("ApplyFusedEmaAdam", b, code, word)

    for i in range(6):
        row(i, None, 161001, names[i])
    for i in range(5):
        row(i, T(dt="f64"), 161002, names[i])
    row(5, T((1,), "i32"), 161002, "step")
    for i in range(1, 5):
        row(i, T(dt="f16"), 161002, names[i])
        row(i, T((3, 2)), 161002, names[i])
    row(5, T((0,), "i64"), 161002, "step")
    row(None, None, 161002, "mode", mode=2)
    row(None, None, 0, None, mode=0)


# ------------------------------------------------------------------------------------------------ FusedAdamw

LIST_SHAPES = [(3, 5), (7,), (0, 3), (2, 1, 4), ()]


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("ams,maxi,scale,step_dt", [(False, False, None, "f32"), (True, False, 4.0, "i64"),
                                                    (True, True, None, "f32"), (False, True, 0.5, "i64")])
def test_fused_adamw(torch, dt, ams, maxi, scale, step_dt):
    rng = np.random.default_rng(15)
    sts = [state(rng, s, dt) for s in LIST_SHAPES]
    ps, gs, ms, vs, mxs = ([st[j] for st in sts] for j in range(5))
    steps = [1 + k for k in range(len(sts))]
    ep, em, ev, ex = torch_fused_adamw(torch, ps, gs, ms, vs, mxs, steps, 0.003, 0.9, 0.99, 0.1, 1e-8, ams, maxi,
                                       gscale=scale)
    P, G, M, V, X = ([view(a, k) for k, a in enumerate(L)] for L in (ps, gs, ms, vs, mxs))
    S = [np.array([s], NP[step_dt]) for s in steps]
    gsc = None if scale is None else np.array([scale], np.float32)
    pyaclnn.call("FusedAdamw", P, G, M, V, X if ams else None, S, gsc, None, 0.003, 0.9, 0.99, 0.1, 1e-8, ams, maxi)
    for k in range(len(sts)):
        close(P[k], ep[k], dt, f"params[{k}]")
        close(M[k], em[k], dt, f"expAvgs[{k}]")
        close(V[k], ev[k], dt, f"expAvgSqs[{k}]")
        if ams:
            close(X[k], ex[k], dt, f"maxExpAvgSqs[{k}]")
        np.testing.assert_array_equal(G[k], gs[k])
        assert S[k][0] == steps[k]   # the steps are not written


def test_fused_adamw_found_inf(torch):
    rng = np.random.default_rng(16)
    p, g, m, v, _ = state(rng, (4, 4), "f32")
    P, M, V = p.copy(), m.copy(), v.copy()
    pyaclnn.call("FusedAdamw", [P], [g], [M], [V], None, [np.array([3.0], np.float32)], None,
                 np.array([1.0], np.float32), 0.01, 0.9, 0.99, 0.0, 1e-8, False, False)
    for a, b in ((P, p), (M, m), (V, v)):
        np.testing.assert_array_equal(a, b)      # found_inf == 1: nothing written
    ep, em, ev, _ = torch_fused_adamw(torch, [p], [g], [m], [v], [], [3], 0.01, 0.9, 0.99, 0.0, 1e-8, False, False,
                                      gscale=2.0, finf=0.0)
    pyaclnn.call("FusedAdamw", [P], [g], [M], [V], None, [np.array([3.0], np.float32)],
                 np.array([2.0], np.float32), np.array([0.0], np.float32), 0.01, 0.9, 0.99, 0.0, 1e-8, False, False)
    close(P, ep[0], "f32")
    close(M, em[0], "f32")
    # an empty gradScale / foundInf counts as absent
    P2 = p.copy()
    pyaclnn.call("FusedAdamw", [P2], [g], [m.copy()], [v.copy()], None, [np.array([3], np.int64)],
                 np.zeros((0,), np.float32), np.zeros((0,), np.float32), 0.01, 0.9, 0.99, 0.0, 1e-8, False, False)
    ep, _, _, _ = torch_fused_adamw(torch, [p], [g], [m], [v], [], [3], 0.01, 0.9, 0.99, 0.0, 1e-8, False, False)
    close(P2, ep[0], "f32")


def test_fused_adamw_invalid():
    keep = []

    def L(n=2, shape=(2, 3), dt="f32", odd=None):
        arrs = [np.zeros(shape, NP[dt]) for _ in range(n)]
        if odd is not None:
            arrs[-1] = odd
        k, h = tl(*arrs)
        keep.append(k)
        return h

    steps = L(2, (1,))
    base = [L(), L(), L(), L(), L(), steps, None, None, 0.1, 0.9, 0.99, 0.0, 1e-8, False, False]
    names = ["paramsRef", "grads", "expAvgsRef", "expAvgSqsRef", "maxExpAvgSqsRef", "stateSteps"]

    def row(i, val, code, word, **kw):
        b = list(base)
        if i is not None:
            b[i] = val
        for k, x in kw.items():
            b[{"lr": 8, "beta1": 9, "beta2": 10, "wd": 11, "amsgrad": 13}[k]] = x
        expect_status("FusedAdamw", b, code, word)

    row(None, None, 0, None)
    # attributes come first, before even a NULL list
    row(0, None, 161002, "lr", lr=-0.1)
    row(0, None, 161002, "beta1", beta1=-0.5)
    row(None, None, 161002, "beta2", beta2=-0.5)
    row(None, None, 161002, "weightDecay", wd=-1.0)
    row(4, None, 161002, "maxExpAvgSqsRef", amsgrad=True)
    row(None, None, 0, None, amsgrad=True)
    for i in (0, 1, 2, 3, 5):
        row(i, None, 161001, names[i])
    row(4, None, 0, None)
    k0, _ = tl(np.zeros((2, 3), np.float32))
    null_elem = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [k0[0].handle, ffi.NULL]), 2)
    row(1, null_elem, 161001, "grads")
    row(0, L(0), 161002, "paramsRef")
    for i in (1, 2, 3, 4, 5):
        row(i, L(3, (1,) if i == 5 else (2, 3)), 161002, names[i])
    row(0, L(2, dt="f64"), 161002, "paramsRef")
    row(5, L(2, (1,), "i32"), 161002, "stateSteps")
    row(5, L(2, (1,), odd=np.zeros((1,), np.int64)), 161002, "stateSteps")
    for i in (1, 2, 3, 4):
        row(i, L(2, dt="f16"), 161002, names[i])
        row(i, L(2, odd=np.zeros((3, 2), np.float32)), 161002, names[i])
    row(5, L(2, (0,)), 161002, "stateSteps")
    row(5, L(2, (2, 2)), 0, None)        # the first element of each step is used
    lib.aclDestroyTensorList(null_elem)


# ------------------------------------------------------------------------------------------------ FusedSgd

SGD_CASES = [  # weightDecay, momentum, dampening, nesterov, maximize, isFirstStep, gradScale, with buffers
    (0.0, 0.0, 0.0, False, False, False, None, False),
    (0.1, 0.0, 0.0, False, True, False, 2.0, False),
    (0.05, 0.9, 0.1, False, False, True, None, True),
    (0.05, 0.9, 0.1, False, True, False, 0.5, True),
    (0.0, 0.8, 0.0, True, False, False, None, True),
    (0.1, 0.8, 0.0, True, False, True, 4.0, True),
]


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("case", range(len(SGD_CASES)))
def test_fused_sgd(torch, dt, case):
    wd, mom, damp, nest, maxi, first, scale, bufs = SGD_CASES[case]
    rng = np.random.default_rng(17 + case)
    sts = [state(rng, s, dt) for s in LIST_SHAPES]
    ps, gs, bs = ([st[j] for st in sts] for j in (0, 1, 2))
    TP, TG, TB = ([tt(torch, a) for a in L] for L in (ps, gs, bs))
    kw = {} if scale is None else {"grad_scale": torch.tensor(scale)}
    torch._fused_sgd_(TP, TG, TB if bufs else [], weight_decay=wd, momentum=mom, lr=0.05, dampening=damp,
                      nesterov=nest, maximize=maxi, is_first_step=first, **kw)
    P, G, B = ([view(a, k) for k, a in enumerate(L)] for L in (ps, gs, bs))
    gsc = None if scale is None else np.array([scale], np.float32)
    pyaclnn.call("FusedSgd", P, G, B if bufs else None, gsc, wd, mom, 0.05, damp, nest, maxi, first)
    for k in range(len(sts)):
        close(P[k], from_torch(TP[k]), dt, f"params[{k}]")
        close(G[k], from_torch(TG[k]), dt, f"grads[{k}]")   # unscaled in place when gradScale is given
        if bufs:
            close(B[k], from_torch(TB[k]), dt, f"momentum[{k}]")


def test_fused_sgd_empty_momentum_list_is_none(torch):
    p = np.ones(4, np.float32)
    pyaclnn.call("FusedSgd", [p], [np.full(4, 0.5, np.float32)], [], None, 0.0, 0.0, 0.1, 0.0, False, False, False)
    np.testing.assert_allclose(p, 0.95, rtol=1e-7)


def test_fused_sgd_invalid():
    keep = []

    def L(n=2, shape=(2, 3), dt="f32", odd=None):
        arrs = [np.zeros(shape, NP[dt]) for _ in range(n)]
        if odd is not None:
            arrs[-1] = odd
        k, h = tl(*arrs)
        keep.append(k)
        return h

    base = [L(), L(), L(), None, 0.0, 0.9, 0.1, 0.0, False, False, False]
    names = ["paramsRef", "gradsRef", "momentumBufferListOptionalRef"]

    def row(i, val, code, word, **kw):
        b = list(base)
        if i is not None:
            b[i] = val
        for k, x in kw.items():
            b[{"wd": 4, "momentum": 5, "lr": 6, "damp": 7, "nesterov": 8}[k]] = x
        expect_status("FusedSgd", b, code, word)

    row(None, None, 0, None)
    row(0, None, 161002, "weightDecay", wd=-0.1)          # attributes before the NULL checks
    row(0, None, 161002, "momentum", momentum=-0.1)
    row(0, None, 161002, "lr", lr=-1.0)
    row(None, None, 161002, "nesterov", nesterov=True, damp=0.5)
    row(2, None, 161002, "momentum")                      # momentum 0.9 without buffers
    row(None, None, 161002, "momentum", momentum=0.0)     # buffers with momentum 0
    row(2, None, 0, None, momentum=0.0)
    row(0, None, 161001, "paramsRef")
    row(1, None, 161001, "gradsRef")
    row(0, L(0), 161002, "paramsRef")
    row(1, L(3), 161002, "gradsRef")
    row(2, L(3), 161002, "momentumBufferListOptionalRef")
    row(0, L(dt="f64"), 161002, "paramsRef")
    row(1, L(dt="f16"), 161002, "gradsRef")
    row(2, L(dt="bf16"), 161002, "momentumBufferListOptionalRef")
    row(1, L(odd=np.zeros((3, 2), np.float32)), 161002, "gradsRef")
    row(2, L(odd=np.zeros((6,), np.float32)), 161002, "momentumBufferListOptionalRef")
    big = (1,) * 9
    p9 = L(2, big)
    b = list(base)
    b[0], b[1], b[2] = p9, L(2, big), L(2, big)
    expect_status("FusedSgd", b, 161002, "paramsRef")


# ------------------------------------------------------------------------------------------------ determinism

def test_optim_deterministic():
    code = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(5)
n = 3 * 4096 + 17
h = hashlib.sha256()
for dt in (np.float32, np.float16, pyaclnn.bfloat16):
    p, g, m, v, x = (rng.uniform(0, 1, n).astype(np.float32).astype(dt) for _ in range(5))
    pyaclnn.call("FusedAdamw", [p], [g], [m], [v], [x], [np.array([3.0], np.float32)], None, None, 0.01, 0.9, 0.99,
                 0.1, 1e-8, True, False)
    pyaclnn.call("FusedSgd", [p], [g], [m], None, 0.1, 0.9, 0.01, 0.0, True, False, False)
    pyaclnn.call("ApplyFusedEmaAdam", g, p, m, v, x, np.array([4], np.int64), 0.01, 0.5, 0.9, 0.99, 1e-8, 0, True, 0.1)
    pyaclnn.call("ApplyAdamWV2", p, m, v, x, g, np.array([4], np.int64), 0.01, 0.9, 0.99, 0.1, 1e-8, True, True)
    for a in (p, m, v, x):
        h.update(np.ascontiguousarray(a).view(np.uint8).tobytes())
    nb = (n + 255) // 256
    qm, qv = np.linspace(-1, 1, 256).astype(np.float32), np.linspace(0, 1, 256).astype(np.float32)
    cm, cv = rng.integers(0, 256, n).astype(np.uint8), rng.integers(0, 256, n).astype(np.uint8)
    am, av = np.ones(nb, np.float32), np.ones(nb, np.float32)
    pyaclnn.call("ApplyAdamWQuant", p, g, cm, cv, qm, qv, am, av, np.array([2], np.int64), 0.01, 0.9, 0.99, 0.1,
                 1e-8, 1.0, "BLOCKWISE", 256)
    for a in (p, cm, cv, am, av):
        h.update(np.ascontiguousarray(a).view(np.uint8).tobytes())
print(h.hexdigest())
"""
    same_bytes_for_threads(code)


# ------------------------------------------------------------------------------------------------ AdvanceStep

def advance_ref(tok, smp, pos, sl, slot, bt, ns, nq, bs, aiv=40):
    """the legacy kernel as literal loops over flat indices (numpy int64)"""
    tok, pos, sl, slot = (a.reshape(-1).copy() for a in (tok, pos, sl, slot))
    smp, btf = smp.reshape(-1), bt.reshape(-1)
    stride = bt.size // ns
    for i in range(0, ns - nq, aiv):
        tok[nq + i], pos[nq + i], slot[nq + i] = 0, 0, -1
    for q in range(min(aiv, nq)):
        tok[q] = smp[q]
        p = sl[q]
        sl[q] = p + 1
        pos[q] = p
        bi = p // bs
        slot[q] = (btf[bi] + stride * q) * bs + p % bs if 0 <= bi < btf.size else -1
    return tok, pos, sl, slot


def advance_spec_ref(tok, smp, pos, sl, slot, bt, spt, acc, bs):
    ns, R = smp.shape
    S = R - 1
    tok, pos, sl, slot = (a.reshape(-1).copy() for a in (tok, pos, sl, slot))
    for i in range(ns):
        row = list(smp[i].astype(np.float32)) + [np.float32(-1)]
        m = int(np.argmin(row))
        tok[i * R] = smp[i, m - 1] if m > 0 else smp[i, 0]
        tok[i * R + 1:i * R + R] = spt[i]
        for j in range(R):
            k = i * R + j
            p = int(pos[k]) + int(acc[i]) + 1
            pos[k] = p
            sl[k] = p + 1
            slot[k] = bt[i, p // bs] * bs + p % bs if 0 <= p // bs < bt.shape[1] else -1
    return tok, pos, sl, slot


def test_advance_step():
    rng = np.random.default_rng(20)
    for ns, nq, bs, width in ((8, 4, 2, 4), (50, 45, 3, 30), (6, 1, 4, 1)):
        seq = rng.integers(1, bs * width - 1, ns).astype(np.int64)
        args = [rng.integers(0, 100, (ns,)).astype(np.int64), rng.integers(0, 1000, (nq, 1)).astype(np.int64),
                rng.integers(0, 9, (ns,)).astype(np.int64), seq, rng.integers(0, 9, (ns,)).astype(np.int64),
                rng.integers(0, 50, (ns, width)).astype(np.int64)]
        exp = advance_ref(*args, ns, nq, bs)
        views = [a.copy() for a in args]
        views[2] = strided(args[2])        # a non-contiguous positions view: element order as the flat index
        pyaclnn.call("AdvanceStep", *views, ns, nq, bs)
        for got, e, nm in zip((views[0], views[2], views[3], views[4]), exp, ("tokens", "pos", "seqLens", "slot")):
            np.testing.assert_array_equal(np.asarray(got).reshape(-1), e, err_msg=nm)
        np.testing.assert_array_equal(views[1], args[1])
        np.testing.assert_array_equal(views[5], args[5])


@pytest.mark.parametrize("spec_num", [1, 3])
def test_advance_step_v2_speculative(spec_num):
    rng = np.random.default_rng(21 + spec_num)
    ns, bs, width = 5, 4, 6
    R = spec_num + 1
    smp = rng.integers(0, 1000, (ns, R)).astype(np.int64)
    smp[1, 2 % R:] = -1          # rejected tokens marked -1: the last accepted one is taken
    smp[3, 1] = -1
    acc = rng.integers(0, 3, (ns,)).astype(np.int64)
    pos = rng.integers(0, 10, (ns * R,)).astype(np.int64)
    bt = rng.integers(0, 40, (ns, width)).astype(np.int64)
    spt = rng.integers(0, 1000, (ns, spec_num)).astype(np.int64)
    tok, sl, slot = (np.zeros(ns * R, np.int64) for _ in range(3))
    exp = advance_spec_ref(tok, smp, pos, sl, slot, bt, spt, acc, bs)
    views = [tok, smp.copy(), pos.copy(), sl, slot, bt.copy(), spt.copy(), acc.copy()]
    pyaclnn.call("AdvanceStepV2", *views, ns, ns, bs)
    for got, e, nm in zip((views[0], views[2], views[3], views[4]), exp, ("tokens", "pos", "seqLens", "slot")):
        np.testing.assert_array_equal(got, e, err_msg=nm)
    # without specToken / acceptedNum: the legacy kernel, as aclnnAdvanceStep
    a = [rng.integers(0, 9, (6,)).astype(np.int64), np.arange(3, dtype=np.int64).reshape(3, 1),
         np.zeros(6, np.int64), np.arange(1, 7, dtype=np.int64), np.zeros(6, np.int64),
         np.arange(12, dtype=np.int64).reshape(6, 2)]
    e = advance_ref(*a, 6, 3, 4)
    b = [x.copy() for x in a]
    pyaclnn.call("AdvanceStepV2", *b[:6], None, None, 6, 3, 4)
    for got, ee in zip((b[0], b[2], b[3], b[4]), e):
        np.testing.assert_array_equal(got, ee)


def test_advance_step_invalid():
    def I(shape):
        return AclTensor.from_array(np.zeros(shape, np.int64))

    ts = [I((8,)), I((4, 1)), I((8,)), I((8,)), I((8,)), I((8, 3))]
    names = ["inputTokens", "sampledTokenIds", "inputPositions", "seqLens", "slotMapping", "blockTables"]

    def row(i, val, code, word, ns=8, nq=4, bs=2):
        b = list(ts)
        if i is not None:
            b[i] = val
        expect_status("AdvanceStep", b + [ns, nq, bs], code, word)

    row(None, None, 0, None)
    for i in range(6):
        row(i, None, 161001, names[i])
        row(i, AclTensor.from_array(np.zeros((8,), np.int32)), 161002, names[i])
    row(None, None, 561002, "numSeqs", ns=0)
    row(None, None, 561002, "numQueries", nq=0)
    row(None, None, 561002, "blockSize", bs=0)
    row(None, None, 561002, "numQueries", ns=4)       # numSeqs must exceed numQueries
    for i in (0, 2, 3, 4, 5):
        row(i, I((7,)), 561002, names[i])
    row(1, I((3, 1)), 561002, "sampledTokenIds")
    row(1, I((4, 2)), 561002, "sampledTokenIds")
    row(1, I((4,)), 561002, "sampledTokenIds")
    # V2 with the speculative inputs
    R = 3
    v2 = [I((4 * R,)), I((4, R)), I((4 * R,)), I((4 * R,)), I((4 * R,)), I((4, 5)), I((4, R - 1)), I((4,))]
    n2 = names + ["specToken", "acceptedNum"]

    def row2(i, val, code, word):
        b = list(v2)
        if i is not None:
            b[i] = val
        expect_status("AdvanceStepV2", b + [4, 4, 2], code, word)

    row2(None, None, 0, None)
    row2(6, AclTensor.from_array(np.zeros((4, 2), np.int32)), 161002, "specToken")
    row2(7, AclTensor.from_array(np.zeros((4,), np.float32)), 161002, "acceptedNum")
    row2(6, I((3, 2)), 561002, "specToken")
    row2(7, I((4, 1)), 561002, "acceptedNum")
    row2(0, I((4 * R + 1,)), 561002, "inputTokens")
    row2(1, I((4, R + 1)), 561002, "sampledTokenIds")
    row2(2, I((4, R)), 561002, "inputPositions")
    row2(3, I((4 * R - 1,)), 561002, "seqLens")
    row2(4, I((1, 4 * R)), 561002, "slotMapping")
    row2(5, I((5, 5)), 561002, "blockTables")


# ------------------------------------------------------------------------------------------------ ApplyAdamWQuant

def dynamic_map(signed):
    """a sorted 256-entry map in [-1, 1] (signed) or [0, 1], as bitsandbytes' dynamic maps are laid out"""
    if signed:
        pos = np.linspace(0, 1, 129)[1:] ** 2
        return np.concatenate([-pos[::-1], [0.0], pos[:127]]).astype(np.float32)
    return (np.linspace(0, 1, 256) ** 2).astype(np.float32)


def quant_code(n, q, check_sign):
    lo, hi, piv = 0, 255, 127
    for it in range(8):
        if it:
            piv = (lo + hi) >> 1
        if n > q[piv]:
            lo = piv
        else:
            hi = piv
    idx = lo if abs(np.float32(n - q[lo])) <= abs(np.float32(n - q[hi])) else hi
    if check_sign:
        d = np.sign(q[idx])
        if np.sign(n) != d:
            idx += -1 if d < 0 else (1 if d > 0 else 0)
        idx = min(max(idx, 0), 255)
    return idx


def awq_ref(var, grad, m, v, qm, qv, am, av, step, lr, b1, b2, wd, eps, gn):
    f = np.float32
    x = var.astype(np.float32).reshape(-1).copy()
    g = grad.astype(np.float32).reshape(-1)
    m, v = m.reshape(-1).copy(), v.reshape(-1).copy()
    am, av = am.reshape(-1).copy(), av.reshape(-1).copy()
    lr, b1, b2, wd, eps, gn = (f(a) for a in (lr, b1, b2, wd, eps, gn))
    t = f(step + 1)
    c1 = f(1) - np.power(b1, t)
    c2 = np.sqrt(f(1) - np.power(b2, t))
    stp, epsc = -lr * c2 / c1, eps * c2
    n = x.size
    for b in range((n + 255) // 256):
        s = slice(b * 256, min(n, b * 256 + 256))
        gi = g[s] * gn
        mi = qm[m[s]] * am[b] * b1 + gi * (f(1) - b1)
        vi = qv[v[s]] * av[b] * b2 + (gi * gi) * (f(1) - b2)
        xi = x[s] + (mi * stp) / (np.sqrt(vi) + epsc)
        if wd > 0:
            xi = xi * (f(1) - lr * wd)
        x[s] = xi
        am[b], av[b] = np.abs(mi).max(), np.abs(vi).max()
        m[s] = [quant_code(a, qm, True) for a in mi / am[b]]
        v[s] = [quant_code(a, qv, False) for a in vi / av[b]]
    return x, m, v, am, av


@pytest.mark.parametrize("dt", DTS)
def test_apply_adam_w_quant(dt):
    rng = np.random.default_rng(30)
    shape = (3, 200)                       # 600 elements: two whole blocks and a partial one
    n = 600
    nb = 3
    var = rng.uniform(-1, 1, shape).astype(NP[dt])
    grad = rng.uniform(-1, 1, shape).astype(NP[dt])
    m = rng.integers(0, 256, shape).astype(np.uint8)
    v = rng.integers(0, 256, shape).astype(np.uint8)
    qm, qv = dynamic_map(True), dynamic_map(False)
    am = rng.uniform(0.1, 1, (nb,)).astype(np.float32)
    av = rng.uniform(0.01, 0.2, (nb,)).astype(np.float32)
    args = (0.01, 0.9, 0.999, 0.05, 1e-8, 0.5)
    ex, em, ev, eam, eav = awq_ref(var, grad, m, v, qm, qv, am, av, 4, *args)
    V, M = strided(var), m.copy()
    pyaclnn.call("ApplyAdamWQuant", V, grad, M, v2 := v.copy(), qm, qv, AM := am.copy(), AV := av.copy(),
                 np.array([4], np.int64), *args, "BLOCKWISE", 256)
    close(np.asarray(V).reshape(-1), ex.astype(NP[dt]), dt, "var")
    np.testing.assert_allclose(AM, eam, rtol=1e-6)
    np.testing.assert_allclose(AV, eav, rtol=1e-6)
    np.testing.assert_array_equal(M.reshape(-1), em, err_msg="m codes")
    np.testing.assert_array_equal(v2.reshape(-1), ev, err_msg="v codes")
    assert n == M.size


def test_apply_adam_w_quant_invalid():
    def A(shape, dt):
        return AclTensor.from_array(np.zeros(shape, NP[dt]))

    ts = [A((2, 256), "f32"), A((2, 256), "f32"), A((2, 256), "u8"), A((2, 256), "u8"), A((256,), "f32"),
          A((256,), "f32"), A((2,), "f32"), A((2,), "f32"), A((1,), "i64")]
    names = ["varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef", "absmaxVRef", "step"]

    def row(i, val, code, word, bs=256):
        b = list(ts)
        if i is not None:
            b[i] = val
        expect_status("ApplyAdamWQuant", b + [0.01, 0.9, 0.99, 0.0, 1e-8, 1.0, ffi.NULL, bs], code, word)

    row(None, None, 0, None)
    for i in range(9):
        row(i, None, 161001, names[i])
    row(0, A((2, 256), "f64"), 161002, "varRef")
    row(1, A((2, 256), "f16"), 161002, "grad")
    row(2, A((2, 256), "i8"), 161002, "mRef")
    row(3, A((2, 256), "f32"), 161002, "vRef")
    row(4, A((256,), "f16"), 161002, "qmapM")
    row(6, A((2,), "f16"), 161002, "absmaxMRef")
    row(8, A((1,), "i32"), 161002, "step")
    row(None, None, 561002, "blockSize", bs=128)
    row(1, A((512,), "f32"), 561002, "shape")
    row(3, A((2, 255), "u8"), 561002, "shape")
    row(5, A((255,), "f32"), 561002, "qmap")
    row(8, A((1, 1), "i64"), 561002, "step")
    row(7, A((3,), "f32"), 561002, "absmaxVRef")


# ------------------------------------------------------------------------------------------------ ApplyAdam

@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("nesterov", [False, True])
def test_apply_adam(torch, dt, nesterov):
    rng = np.random.default_rng(40)
    b1, b2, lr, eps, t = 0.9, 0.999, 0.01, 1e-8, 3
    sc = [np.array([x], np.float32) for x in (b1 ** t, b2 ** t, lr, b1, b2, eps)]
    for k, shape in enumerate(SHAPES):
        p, g, m, v, _ = state(rng, shape, dt)
        P, M, V, G = (f32(torch, a) for a in (p, m, v, g))
        B1P, B2P, LR, B1, B2, EPS = (torch.tensor(float(s[0])) for s in sc)
        lrt = LR * torch.sqrt(1 - B2P) / (1 - B1P)
        Mt = M * B1 + (1 - B1) * G
        Vt = V * B2 + (1 - B2) * G * G
        num = B1 * Mt + (1 - B1) * G if nesterov else Mt
        exp = back(torch, P - lrt * num / (torch.sqrt(Vt) + EPS), dt)
        Pv, Mv, Vv, Gv = (view(a, k) for a in (p, m, v, g))
        pyaclnn.call("ApplyAdam", Pv, Mv, Vv, *sc, Gv, False, nesterov)
        close(Pv, exp, dt, "var")
        np.testing.assert_array_equal(Mv, m)   # m and v are inputs only (the definition's one output is var)
        np.testing.assert_array_equal(Vv, v)


def test_apply_adam_invalid():
    ts = [T(), T(), T()] + [T((1,)) for _ in range(6)] + [T()]
    names = ["varRef", "m", "v", "beta1Power", "beta2Power", "lr", "beta1", "beta2", "epsilon", "grad"]

    def row(i, val, code, word):
        b = list(ts) + [False, False]
        if i is not None:
            b[i] = val
        expect_status("ApplyAdam", b, code, word)

    row(None, None, 0, None)
    for i in range(10):
        row(i, None, 161001, names[i])
    row(0, T(dt="f64"), 161002, "varRef")
    for i in (1, 2, 9):
        row(i, T(dt="f16"), 161002, names[i])
        row(i, T((3, 2)), 561002, names[i])
    for i in range(3, 9):
        row(i, T((1,), "f16"), 161002, names[i])
        row(i, T((2,)), 561002, names[i])
    row(0, T(dt="bf16"), 161002, "m")     # m, v, grad must have varRef's dtype


# ------------------------------------------------------------------------------------------------ torch.optim

@pytest.mark.parametrize("ams,maxi", [(False, False), (True, True)])
def test_fused_adamw_vs_torch_optim_adamw(torch, ams, maxi):
    """two steps of torch.optim.AdamW (the single-tensor form) against two FusedAdamw calls on the same state"""
    rng = np.random.default_rng(50)
    ps = [rng.uniform(-1, 1, s).astype(np.float32) for s in ((4, 3), (5,))]
    grads = [[rng.uniform(-1, 1, p.shape).astype(np.float32) for p in ps] for _ in range(2)]
    tp = [torch.nn.Parameter(torch.from_numpy(p.copy())) for p in ps]
    opt = torch.optim.AdamW(tp, lr=0.01, betas=(0.8, 0.99), eps=1e-8, weight_decay=0.1, amsgrad=ams, maximize=maxi,
                            foreach=False)
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    mx = [np.zeros_like(p) for p in ps]
    for step in range(2):
        for t, g in zip(tp, grads[step]):
            t.grad = torch.from_numpy(g.copy())
        opt.step()
        pyaclnn.call("FusedAdamw", ps, grads[step], m, v, mx if ams else None,
                     [np.array([step], np.int64) for _ in ps], None, None, 0.01, 0.8, 0.99, 0.1, 1e-8, ams, maxi)
    for p, t in zip(ps, tp):
        close(p, t.detach().numpy(), "f32")
    for k, t in enumerate(tp):
        close(m[k], opt.state[t]["exp_avg"].numpy(), "f32")
        close(v[k], opt.state[t]["exp_avg_sq"].numpy(), "f32")


@pytest.mark.parametrize("nesterov,damp", [(False, 0.1), (True, 0.0)])
def test_fused_sgd_vs_torch_optim_sgd(torch, nesterov, damp):
    rng = np.random.default_rng(51)
    ps = [rng.uniform(-1, 1, s).astype(np.float32) for s in ((4, 3), (5,))]
    grads = [[rng.uniform(-1, 1, p.shape).astype(np.float32) for p in ps] for _ in range(3)]
    tp = [torch.nn.Parameter(torch.from_numpy(p.copy())) for p in ps]
    opt = torch.optim.SGD(tp, lr=0.05, momentum=0.9, dampening=damp, weight_decay=0.01, nesterov=nesterov,
                          foreach=False)
    bufs = [np.zeros_like(p) for p in ps]
    for step in range(3):
        for t, g in zip(tp, grads[step]):
            t.grad = torch.from_numpy(g.copy())
        opt.step()
        pyaclnn.call("FusedSgd", ps, [g.copy() for g in grads[step]], bufs, None, 0.01, 0.9, 0.05, damp, nesterov,
                     False, step == 0)
    for p, t in zip(ps, tp):
        close(p, t.detach().numpy(), "f32")
    for b, t in zip(bufs, tp):
        close(b, opt.state[t]["momentum_buffer"].numpy(), "f32")
