"""Views of more than 8 dims for the ops-nn ops whose op_api takes them: Take (self of any rank: the op flattens it),
RReluWithNoise / InplaceRReluWithNoise (up to 32 dims), LogSigmoidBackward (no rank limit). The library folds such
a view (size-1 dims dropped, dims laid out together merged: libsrc/ops/view_fold.h) and refuses with 161002 only a
layout that still needs more than 8 dims. Values against numpy / PyTorch CPU computed on the flattened tensors
(all three ops pair elements by their row-major position), for 9-, 12- and 32-dim views that are contiguous,
sliced with an offset, and transposed."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn._optable import OPS
from pyaclnn.lowlevel import AclTensor
from helpers import strided
from table_harness import NP, compare, expect_status, from_torch, make_scalar, to_torch, rand_in

NPX = dict(NP, u16=np.uint16, u32=np.uint32, u64=np.uint64)
_KEEP = []

# shapes: 9 and 12 dims of size 2 or 3 (every dim counts), 32 dims with 11 of size 2 (the op_api's RRelu limit)
SHAPES = {9: (2, 3, 2, 2, 1, 2, 2, 3, 2), 12: (2,) * 12, 32: tuple(2 if k % 3 == 0 else 1 for k in range(32))}


def tens(shape, dt="f32"):
    t = AclTensor.from_array(np.zeros(shape, NPX[dt]))
    _KEEP.append(t)
    return t


mk = rand_in  # table_harness


def view(a, kind):
    """`a`'s values as a view of its shape: contiguous, sliced (every other element of a larger buffer along the
    last axis, with an offset: folds to 2 dims), or with its two innermost non-1 axes stored transposed."""
    if kind == "contig":
        return a
    if kind == "slice":
        return strided(a)
    nz = [k for k, d in enumerate(a.shape) if d != 1][-2:]
    perm = list(range(a.ndim))
    perm[nz[0]], perm[nz[1]] = perm[nz[1]], perm[nz[0]]
    return np.ascontiguousarray(a.transpose(perm)).transpose(perm)


def unfoldable(shape, dt="f32"):
    """A view whose every dim is stored in the reverse order: nothing merges."""
    return AclTensor.from_array(strided(np.zeros(shape, NPX[dt]), "transpose"))


def out_view(shape, dt, kind):
    return view(np.full(shape, 7, NPX[dt]), kind)


def T(torch, a):
    return to_torch(torch, np.ascontiguousarray(a))


# ---------------------------------------------------------------- Take
@pytest.mark.parametrize("dt", OPS["Take"]["dtypes"])
def test_take_many_dims(dt):
    rng = np.random.default_rng(1)
    for nd, kind in ((9, "slice"), (12, "transpose"), (32, "contig"), (12, "contig"), (32, "slice")):
        x = view(mk(rng, SHAPES[nd], dt), kind)
        n = x.size
        idx = rng.integers(-n, n, (3, 5))
        for it in (np.int64, np.int32):
            o = strided(np.zeros((3, 5), NPX[dt]))
            pyaclnn.call("Take", x, idx.astype(it), o)
            e = np.asarray(x).ravel()[idx]
            if dt == "bf16":
                compare(o, e, dt)
            else:
                np.testing.assert_array_equal(o, e)


def test_take_many_dims_torch(torch):
    rng = np.random.default_rng(2)
    x = view(mk(rng, SHAPES[12], "f32"), "transpose")
    idx = rng.integers(-x.size, x.size, (4, 4))
    o = np.zeros((4, 4), np.float32)
    pyaclnn.call("Take", x, idx, o)
    compare(o, from_torch(torch.take(T(torch, x), T(torch, idx))), "f32")


def test_take_many_dims_invalid():
    I = tens((2,), "i64")
    expect_status("Take", [tens(SHAPES[32]), I, tens((2,))], 0)
    # a layout needing more than 8 dims after folding: refused, naming self (the real op takes it)
    expect_status("Take", [unfoldable((2,) * 10), I, tens((2,))], 161002, "self")
    expect_status("Take", [unfoldable((2,) * 8 + (1,) * 4), I, tens((2,))], 0)  # size-1 dims drop out
    # the op_api's own limit: index of at most 8 dims (checked before out's shape)
    expect_status("Take", [tens((4,)), tens((1,) * 9, "i64"), tens((1,) * 8)], 161002, "index")
    expect_status("Take", [tens((0,) + (2,) * 9), tens((0,), "i64"), tens((0,))], 0)  # empty: nothing to run


# ---------------------------------------------------------------- LogSigmoidBackward
@pytest.mark.parametrize("dt", OPS["LogSigmoidBackward"]["dtypes"])
def test_logsigmoid_backward_many_dims(torch, dt):
    rng = np.random.default_rng(3)
    for nd, kinds in ((9, ("contig", "slice", "transpose")), (12, ("slice", "transpose", "contig")),
                      (32, ("transpose", "contig", "slice"))):
        shape = SHAPES[nd]
        g, x = view(mk(rng, shape, dt), kinds[0]), view(mk(rng, shape, dt, -9, 9), kinds[1])
        o = out_view(shape, dt, kinds[2])
        pyaclnn.call("LogSigmoidBackward", g, x, np.zeros((1,), NP[dt]), o)
        tx, tg = T(torch, x).float().reshape(-1), T(torch, g).float().reshape(-1)
        _, buf = torch.ops.aten.log_sigmoid_forward(tx)
        e = torch.ops.aten.log_sigmoid_backward(tg, tx, buf).to(T(torch, x).dtype).reshape(shape)
        compare(o, from_torch(e), dt)


def test_logsigmoid_backward_many_dims_invalid():
    big = (2,) * 10
    x = tens(big)
    expect_status("LogSigmoidBackward", [x, x, x, tens(big)], 0)
    expect_status("LogSigmoidBackward", [x, x, x, tens((2,) * 9)], 161002, "gradOutput")  # shapes first
    expect_status("LogSigmoidBackward", [unfoldable(big), x, x, x], 161002, "gradOutput")
    expect_status("LogSigmoidBackward", [x, unfoldable(big), x, x], 161002, "self")
    expect_status("LogSigmoidBackward", [x, x, x, unfoldable(big)], 161002, "gradInput")


# ---------------------------------------------------------------- RReluWithNoise
def S(v):
    return make_scalar(pyaclnn.scalar(v, np.float32))


@pytest.mark.parametrize("dt", OPS["RReluWithNoise"]["dtypes"])
def test_rrelu_with_noise_many_dims_eval(torch, dt):
    rng = np.random.default_rng(4)
    for nd, kx, ko in ((9, "slice", "transpose"), (12, "transpose", "contig"), (32, "contig", "slice")):
        shape = SHAPES[nd]
        x = view(mk(rng, shape, dt), kx)
        noise = np.full(shape, 7, NP[dt])
        o = out_view(shape, dt, ko)
        pyaclnn.call("RReluWithNoise", x, noise, pyaclnn.scalar(0.1, np.float32), pyaclnn.scalar(0.3, np.float32),
                     False, 1, 2, o)
        e = torch.nn.functional.leaky_relu(T(torch, x).float().reshape(-1), 0.2).to(T(torch, x).dtype)
        compare(o, from_torch(e.reshape(shape)), dt)
        assert (noise == 7).all()


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("dt", OPS["RReluWithNoise"]["dtypes"])
def test_rrelu_with_noise_many_dims_training(torch, dt, inplace):
    """The law (noise 1 where self >= 0, in [lower, upper] where self < 0; out = self * noise), and the noise of
    element i is the generator's draw i in row-major order: the same draws as the tensor taken as 2-d."""
    rng = np.random.default_rng(5)
    lo, hi = 0.125, 0.375
    for nd, kx, kn in ((12, "transpose", "slice"), (32, "slice", "contig"), (9, "contig", "transpose")):
        shape = SHAPES[nd]
        x0 = mk(rng, shape, dt, -3, 3)
        x = view(x0.copy(), kx)
        noise = out_view(shape, dt, kn)
        if inplace:
            pyaclnn.call("InplaceRReluWithNoise", x, noise, pyaclnn.scalar(lo, np.float32),
                         pyaclnn.scalar(hi, np.float32), True, 42, 7)
            o = x
        else:
            o = out_view(shape, dt, "transpose")
            pyaclnn.call("RReluWithNoise", x, noise, pyaclnn.scalar(lo, np.float32), pyaclnn.scalar(hi, np.float32),
                         True, 42, 7, o)
        tx, tn = T(torch, x0), T(torch, noise)
        neg = tx < 0
        assert (tn[~neg] == 1).all()
        assert ((tn[neg] >= lo) & (tn[neg] <= hi)).all()
        compare(o, from_torch(tx * tn), dt)
        # the same draws for the same elements taken as a 2-d tensor
        x2 = np.ascontiguousarray(x0).reshape(-1, 2)
        n2, o2 = np.zeros_like(x2), np.zeros_like(x2)
        pyaclnn.call("RReluWithNoise", x2, n2, pyaclnn.scalar(lo, np.float32), pyaclnn.scalar(hi, np.float32),
                     True, 42, 7, o2)
        np.testing.assert_array_equal(np.ascontiguousarray(noise).reshape(-1), n2.reshape(-1))


def test_rrelu_with_noise_many_dims_invalid():
    op, L, U = "RReluWithNoise", S(0.1), S(0.3)
    b32, b33 = SHAPES[32], SHAPES[32] + (1,)
    X32 = tens(b32)
    expect_status(op, [X32, tens(b32), L, U, True, 0, 0, tens(b32)], 0)
    expect_status(op, [tens(b33), tens(b33), L, U, True, 0, 0, tens(b33)], 161002, "self")   # op_api: <= 32 dims
    expect_status(op, [X32, tens(b33), L, U, True, 0, 0, X32], 161002, "noise")
    expect_status(op, [tens(b33), tens(b33), L, U, True, 0, 0, tens(b32)], 161002, "out")    # shapes before dims
    expect_status(op, [tens(b33), tens((2,)), L, U, True, 0, 0, tens(b33)], 161002, "noise")  # numel before dims
    nchw = lib.ACL_FORMAT_NCHW  # dims before formats
    expect_status(op, [tens(b33), AclTensor.empty(b33, np.float32, fmt=nchw), L, U, True, 0, 0, tens(b33)], 161002,
                  "self")
    # folded layouts needing more than 8 dims: refused naming the tensor (the real op takes them)
    big = (2,) * 10
    expect_status(op, [unfoldable(big), tens(big), L, U, True, 0, 0, tens(big)], 161002, "self")
    expect_status(op, [tens(big), unfoldable(big), L, U, True, 0, 0, tens(big)], 161002, "noise")
    expect_status(op, [tens(big), tens(big), L, U, True, 0, 0, unfoldable(big)], 161002, "out")
    expect_status("InplaceRReluWithNoise", [unfoldable(big), tens(big), L, U, True, 0, 0], 161002, "self")


# ---------------------------------------------------------------- table elementwise ops without an op_api rank limit
EW = {
    "GeluV2": (lambda x, o: [x, 1, o], lambda torch, t: torch.nn.functional.gelu(t, approximate="tanh")),
    "Hardswish": (lambda x, o: [x, o], lambda torch, t: torch.nn.functional.hardswish(t)),
    "Shrink": (lambda x, o: [x, pyaclnn.scalar(0.5, np.float32), pyaclnn.scalar(0.25, np.float32), o],
               lambda torch, t: torch.where(t < -0.5, t + 0.25, torch.where(t > 0.5, t - 0.25, 0 * t))),
}


@pytest.mark.parametrize("op", sorted(EW))
def test_elementwise_many_dims(torch, op):
    """GeluV2, Hardswish and Shrink: their op_api checks no rank; the table engine folds the operands together."""
    rng = np.random.default_rng(6)
    args, ref = EW[op]
    for dt in OPS[op]["dtypes"]:
        for nd, kx, ko in ((9, "slice", "contig"), (12, "transpose", "transpose"), (32, "contig", "slice")):
            shape = SHAPES[nd]
            x = view(mk(rng, shape, dt), kx)
            o = out_view(shape, dt, ko)
            pyaclnn.call(op, *args(x, o))
            e = ref(torch, T(torch, x).float().reshape(-1)).to(T(torch, x).dtype).reshape(shape)
            compare(o, from_torch(e), dt)


def test_inplace_hardswish_many_dims(torch):
    rng = np.random.default_rng(7)
    x0 = mk(rng, SHAPES[12], "f32")
    x = view(x0.copy(), "transpose")
    pyaclnn.call("InplaceHardswish", x)
    compare(x, from_torch(torch.nn.functional.hardswish(T(torch, x0))), "f32")


def test_elementwise_many_dims_invalid():
    big = (2,) * 10
    x = tens(big)
    for op, mkargs in (("GeluV2", lambda a, b: [a, 0, b]), ("Hardswish", lambda a, b: [a, b])):
        expect_status(op, mkargs(x, tens(big)), 0)
        expect_status(op, mkargs(x, tens((2,) * 9)), 161002, "out" if op == "Hardswish" else "y")  # shapes first
        # operands whose layouts do not merge to 8 dims together: refused (the real op takes them)
        expect_status(op, mkargs(unfoldable(big), tens(big)), 161002, "8")


# ---------------------------------------------------------------- GeluBackwardV2 (broadcasting), ApplyAdamW(V2)
@pytest.mark.parametrize("dt", OPS["GeluBackwardV2"]["dtypes"])
def test_gelu_backward_v2_many_dims(torch, dt):
    """no op_api rank limit: the operands are folded together, broadcast dims included"""
    rng = np.random.default_rng(8)
    for shape, sshape, kg, kx, ko in ((SHAPES[12], SHAPES[12], "slice", "transpose", "contig"),
                                      (SHAPES[9], (3, 2, 2, 1, 2, 2, 3, 1), "transpose", "contig", "slice"),
                                      (SHAPES[32], SHAPES[32][5:], "contig", "slice", "transpose")):
        g = view(mk(rng, shape, dt), kg)
        x = view(mk(rng, sshape, dt), kx)
        for approx in ("none", "tanh"):
            o = out_view(shape, dt, ko)
            pyaclnn.call("GeluBackwardV2", g, x, approx, o)
            tg, tx = T(torch, g).float(), T(torch, x).float()
            tx = tx.reshape((1,) * (len(shape) - tx.dim()) + tuple(tx.shape)).expand(shape)
            e = torch.ops.aten.gelu_backward(tg.reshape(-1), tx.reshape(-1), approximate=approx)
            compare(o, from_torch(e.to(T(torch, g).dtype).reshape(shape)), dt)


def test_gelu_backward_v2_many_dims_invalid():
    big = (2,) * 10
    expect_status("GeluBackwardV2", [tens(big), tens(big), b"none", tens(big)], 0)
    expect_status("GeluBackwardV2", [tens(big), tens(big), b"none", tens((2,) * 9)], 161002, "gradInput")
    expect_status("GeluBackwardV2", [unfoldable(big), tens(big), b"none", tens(big)], 161002, "gradOutput")


def test_apply_adam_w_many_dims(torch):
    import test_nn_optim as ref
    rng = np.random.default_rng(9)
    b1, b2, lr, wd, eps, t = 0.9, 0.999, 0.01, 0.02, 1e-8, 3
    for dt in OPS["ApplyAdamW"]["dtypes"]:
        for nd, kinds in ((12, ("transpose", "slice", "contig", "slice", "transpose")),
                          (32, ("slice", "contig", "transpose", "contig", "slice"))):
            p, g, m, v, mx = ref.state(rng, SHAPES[nd], dt)
            sc = [np.array([x], NP[dt]) for x in (b1 ** (t - 1), b2 ** (t - 1), lr, wd, b1, b2, eps)]
            ep, em, ev = ref.adamw1_ref(torch, p, m, v, mx, g, *[s[0] for s in sc], True, False, dt)
            P, G, M, V, X = (view(a.copy(), k) for a, k in zip((p, g, m, v, mx), kinds))
            sc[0] = sc[0].reshape((1,) * 10)  # a one-element tensor of 10 dims
            pyaclnn.call("ApplyAdamW", P, M, V, *sc, G, X, True, False)
            ref.close(P, ep, dt, "var")
            ref.close(M, em, dt, "m")
            ref.close(V, ev, dt, "v")


def test_apply_adam_w_v2_many_dims(torch):
    import test_nn_optim as ref
    rng = np.random.default_rng(10)
    for dt in OPS["ApplyAdamWV2"]["dtypes"]:
        for nd, kinds in ((9, ("slice", "transpose", "contig", "transpose", "slice")),
                          (32, ("transpose", "contig", "slice", "slice", "contig"))):
            p, g, m, v, mx = ref.state(rng, SHAPES[nd], dt)
            ep, em, ev, ex = ref.torch_fused_adamw(torch, [p], [g], [m], [v], [mx], [4], 0.01, 0.9, 0.999, 0.05,
                                                   1e-8, True, True)
            P, G, M, V, X = (view(a.copy(), k) for a, k in zip((p, g, m, v, mx), kinds))
            pyaclnn.call("ApplyAdamWV2", P, M, V, X, G, np.array([4], np.int64), 0.01, 0.9, 0.999, 0.05, 1e-8, True,
                         True)
            ref.close(P, ep[0], dt, "var")
            ref.close(M, em[0], dt, "m")
            ref.close(V, ev[0], dt, "v")
            ref.close(X, ex[0], dt, "maxGradNorm")


def test_apply_adam_w_v2_many_dims_invalid():
    big = (2,) * 10
    st = AclTensor.from_array(np.array([1], np.int64))
    _KEEP.append(st)
    ok = [tens(big), tens(big), tens(big), None, tens(big), st, 0.1, 0.9, 0.999, 0.0, 1e-8, False, False]
    expect_status("ApplyAdamWV2", ok, 0)
    bad = list(ok)
    bad[4] = unfoldable(big)
    expect_status("ApplyAdamWV2", bad, 161002, "varRef")


def test_fused_adamw_many_dims(torch):
    """list elements of 12 and 32 dims beside a 2-d one (no op_api rank limit), each index folded on its own"""
    import test_nn_optim as ref
    rng = np.random.default_rng(12)
    for dt in OPS["FusedAdamw"]["dtypes"]:
        shapes = [SHAPES[12], (3, 4), SHAPES[32]]
        sts = [ref.state(rng, s, dt) for s in shapes]
        ps, gs, ms, vs, mxs = ([st[j] for st in sts] for j in range(5))
        steps = [1, 2, 3]
        ep, em, ev, ex = ref.torch_fused_adamw(torch, ps, gs, ms, vs, mxs, steps, 0.003, 0.9, 0.99, 0.1, 1e-8, True,
                                               False)
        kinds = ("transpose", "slice", "contig")
        P, G, M, V, X = ([view(a.copy(), kinds[(k + j) % 3]) for k, a in enumerate(L)]
                         for j, L in enumerate((ps, gs, ms, vs, mxs)))
        S = [np.array([s], np.float32) for s in steps]
        pyaclnn.call("FusedAdamw", P, G, M, V, X, S, None, None, 0.003, 0.9, 0.99, 0.1, 1e-8, True, False)
        for k in range(3):
            ref.close(P[k], ep[k], dt, f"params[{k}]")
            ref.close(M[k], em[k], dt, f"expAvgs[{k}]")
            ref.close(V[k], ev[k], dt, f"expAvgSqs[{k}]")
            ref.close(X[k], ex[k], dt, f"maxExpAvgSqs[{k}]")


def test_fused_adamw_many_dims_invalid():
    from pyaclnn import ffi

    def L(*ts):
        _KEEP.append(ts)
        h = lib.aclCreateTensorList(ffi.new("aclTensor *[]", [t.handle for t in ts]), len(ts))
        return ffi.gc(h, lib.aclDestroyTensorList)

    big = (2,) * 10
    steps = L(tens((1,)), tens((1,)))
    ok = [L(tens(big), tens((2, 3))), L(tens(big), tens((2, 3))), L(tens(big), tens((2, 3))),
          L(tens(big), tens((2, 3))), None, steps, None, None, 0.1, 0.9, 0.99, 0.0, 1e-8, False, False]
    expect_status("FusedAdamw", ok, 0)
    bad = list(ok)
    bad[2] = L(unfoldable(big), tens((2, 3)))
    expect_status("FusedAdamw", bad, 161002, "paramsRef")


@pytest.mark.parametrize("dt", OPS["BinaryCrossEntropy"]["dtypes"])
def test_binary_cross_entropy_many_dims(torch, dt):
    """no op_api rank limit: self, target, a broadcast weight and out folded together; sums in element order"""
    rng = np.random.default_rng(13)
    for shape, wshape, kinds in ((SHAPES[12], (2, 1, 2), ("transpose", "slice", "contig", "slice")),
                                 (SHAPES[32], SHAPES[32][3:], ("slice", "contig", "transpose", "transpose"))):
        x = view(np.array(rng.uniform(0.05, 0.95, shape).astype(NP[dt])), kinds[0])
        y = view(np.array(rng.uniform(0, 1, shape).astype(NP[dt])), kinds[1])
        w = view(np.array(rng.uniform(0.5, 2, wshape).astype(NP[dt])), kinds[2])
        tx, ty, tw = (T(torch, a).double() for a in (x, y, w))
        tw = tw.reshape((1,) * (len(shape) - tw.dim()) + tuple(tw.shape)).expand(shape)
        for red, name in ((0, "none"), (1, "mean"), (2, "sum")):
            o = out_view(shape, dt, kinds[3]) if red == 0 else np.zeros((), NP[dt])
            pyaclnn.call("BinaryCrossEntropy", x, y, w, red, o)
            e = torch.nn.functional.binary_cross_entropy(tx.reshape(-1), ty.reshape(-1), tw.reshape(-1),
                                                         reduction=name)
            e = e.reshape(shape) if red == 0 else e
            compare(o, from_torch(e.to(T(torch, x).dtype)), dt)


def test_binary_cross_entropy_many_dims_invalid():
    big = (2,) * 10
    expect_status("BinaryCrossEntropy", [tens(big), tens(big), None, 0, tens(big)], 0)
    expect_status("BinaryCrossEntropy", [tens(big), tens(big), None, 1, tens((1,) * 9)], 0)  # one element, 9 dims
    expect_status("BinaryCrossEntropy", [tens(big), tens(big), None, 0, tens((2,) * 9)], 161002, "out")
    expect_status("BinaryCrossEntropy", [tens(big), unfoldable(big), None, 0, tens(big)], 161002, "target")


@pytest.mark.parametrize("dt", OPS["GeGluBackward"]["dtypes"])
def test_geglu_backward_many_dims(torch, dt):
    """no op_api rank limit: split along any dim of a 12- or 32-dim self, each tensor folded on its own"""
    rng = np.random.default_rng(14)
    for shape, dim, kinds in ((SHAPES[12], 4, ("slice", "transpose", "contig", "slice")),
                              (SHAPES[12], -1, ("transpose", "contig", "slice", "transpose")),
                              (SHAPES[32], 3, ("contig", "slice", "transpose", "contig"))):
        x = view(mk(rng, shape, dt), kinds[0])
        for approx, name in ((0, "none"), (1, "tanh")):
            for left in (None, True):
                t = T(torch, x).float().requires_grad_(True)
                a, b = t.chunk(2, dim)
                act, other = (a, b) if left else (b, a)
                eg = torch.nn.functional.gelu(act, approximate=name)
                y = eg * other
                g = view(mk(rng, tuple(y.shape), dt), kinds[1])
                (gx,) = torch.autograd.grad(y, t, T(torch, g).float())
                gel = view(np.array(from_torch(eg.detach().to(T(torch, x).dtype))), kinds[2])
                o = out_view(shape, dt, kinds[3])
                if left is None:
                    pyaclnn.call("GeGluBackward", g, x, gel, dim, approx, o)
                else:
                    pyaclnn.call("GeGluV3Backward", g, x, gel, dim, approx, left, o)
                compare(o, from_torch(gx.to(T(torch, x).dtype)), dt)


def test_geglu_backward_many_dims_invalid():
    big, half = (2,) * 10, (2,) * 9 + (1,)
    expect_status("GeGluBackward", [tens(half), tens(big), tens(half), -1, 0, tens(big)], 0)
    expect_status("GeGluBackward", [tens(half), unfoldable(big), tens(half), -1, 0, tens(big)], 161002, "self")
    expect_status("GeGluBackward", [tens(half), tens(big), tens(half), -1, 0, unfoldable(big)], 161002, "gradInput")


def test_fused_adamw_many_dims_empty_element():
    """an empty list element of 12 dims beside a filled one: nothing to fold, nothing written"""
    import test_nn_optim as ref
    rng = np.random.default_rng(15)
    e = (2,) * 6 + (0,) + (2,) * 5
    p, g, m, v, mx = ref.state(rng, (3, 4), "f32")
    P = [np.zeros(e, np.float32), p.copy()]
    pyaclnn.call("FusedAdamw", P, [np.zeros(e, np.float32), g], [np.zeros(e, np.float32), m.copy()],
                 [np.zeros(e, np.float32), v.copy()], None, [np.array([1.0], np.float32)] * 2, None, None, 0.003,
                 0.9, 0.99, 0.1, 1e-8, False, False)
    assert not np.array_equal(P[1], p)
