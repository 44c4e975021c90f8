"""ops-nn training ops (issue 12's speed table) vs PyTorch CPU: activations and their gradients on 64 MiB fp32, softmax,
layer_norm and rms_norm forward/backward on (4096, 4096) fp32 and bf16, group_norm on (32, 64, 56, 56), and
cross_entropy on (4096, 32000). `bytes` counts each tensor read or written once."""
import numpy as np

import common


def _np(dt):
    import pyaclnn

    return {"f32": np.dtype(np.float32), "bf16": pyaclnn.bfloat16}[dt]


def _tdt(torch, dt):
    return {"f32": torch.float32, "bf16": torch.bfloat16}[dt]


def _t(a):
    import pyaclnn

    return pyaclnn.AclTensor.from_array(a)


def _empty(shape, dt):
    import pyaclnn

    return pyaclnn.AclTensor.empty(shape, _np(dt))


def _tt(torch, a, dt):
    return torch.from_numpy(np.asarray(a, np.float32)).to(_tdt(torch, dt))


def _s(v):
    from pyaclnn.ops.table import make_scalar

    return make_scalar(v)


# issue 12's activation rows: (label, op, our arguments after the tensor inputs and before the output, the PyTorch
# CPU equivalent over x (and g) or None where PyTorch has no single op). Backward rows take (g, x) and write one
# tensor; `args` builds the whole argument list when the op's order differs.
ACT_FWD = [
    ("relu", "Relu", (), lambda t, F, x: torch_fn(t.relu, x)),
    ("leaky_relu", "LeakyRelu", (0.01,), lambda t, F, x: torch_fn(F.leaky_relu, x, 0.01)),
    ("gelu", "Gelu", (), lambda t, F, x: torch_fn(F.gelu, x)),
    ("gelu_v2 tanh", "GeluV2", ("i1",), lambda t, F, x: torch_fn(F.gelu, x, approximate="tanh")),
    ("fast_gelu", "FastGelu", (), None),
    ("silu", "Silu", (), lambda t, F, x: torch_fn(F.silu, x)),
    ("swish beta1.5", "Swish", (1.5,), None),
    ("sigmoid", "Sigmoid", (), lambda t, F, x: torch_fn(t.sigmoid, x)),
    ("log_sigmoid", "LogSigmoid", (), lambda t, F, x: torch_fn(F.logsigmoid, x)),
    ("mish", "Mish", (), lambda t, F, x: torch_fn(F.mish, x)),
    ("softplus", "Softplus", (1.0, 20.0), lambda t, F, x: torch_fn(F.softplus, x, 1.0, 20.0)),
    ("elu", "Elu", (1.0, 1.0, 1.0), lambda t, F, x: torch_fn(F.elu, x)),
    ("celu", "Celu", (1.0,), lambda t, F, x: torch_fn(F.celu, x)),
    ("selu", "Selu", (), lambda t, F, x: torch_fn(F.selu, x)),
    ("hardswish", "Hardswish", (), lambda t, F, x: torch_fn(F.hardswish, x)),
    ("hardsigmoid", "Hardsigmoid", (), lambda t, F, x: torch_fn(F.hardsigmoid, x)),
    ("softshrink", "Softshrink", (0.5,), lambda t, F, x: torch_fn(F.softshrink, x, 0.5)),
    ("tanh", "Tanh", (), lambda t, F, x: torch_fn(t.tanh, x)),
]
ACT_BWD = [
    ("relu_backward (threshold_backward)", "ThresholdBackward", (0.0,),
     lambda t, A, g, x: torch_fn(A.threshold_backward, g, x, 0.0)),
    ("leaky_relu_backward", "LeakyReluBackward", (0.01, False),
     lambda t, A, g, x: torch_fn(A.leaky_relu_backward, g, x, 0.01, False)),
    ("gelu_backward", "GeluBackward", (), lambda t, A, g, x: torch_fn(A.gelu_backward, g, x)),
    ("gelu_backward_v2 tanh", "GeluBackwardV2", (b"tanh",),
     lambda t, A, g, x: torch_fn(A.gelu_backward, g, x, approximate="tanh")),
    ("fast_gelu_backward", "FastGeluBackward", (), None),
    ("silu_backward", "SiluBackward", (), lambda t, A, g, x: torch_fn(A.silu_backward, g, x)),
    ("swish_backward beta1.5", "SwishBackward", (1.5,), None),
    ("sigmoid_backward", "SigmoidBackward", (), lambda t, A, g, x: torch_fn(A.sigmoid_backward, g, x)),
    ("mish_backward", "MishBackward", (), lambda t, A, g, x: torch_fn(A.mish_backward, g, x)),
    ("softplus_backward", "SoftplusBackward", (1.0, 20.0),
     lambda t, A, g, x: torch_fn(A.softplus_backward, g, x, 1.0, 20.0)),
    ("elu_backward", "EluBackward", "elu", lambda t, A, g, x: torch_fn(A.elu_backward, g, 1.0, 1.0, 1.0, False, x)),
    ("selu_backward", "SeluBackward", (), None),
    ("hardswish_backward", "HardswishBackward", (), lambda t, A, g, x: torch_fn(A.hardswish_backward, g, x)),
    ("hardsigmoid_backward", "HardsigmoidBackward", (), lambda t, A, g, x: torch_fn(A.hardsigmoid_backward, g, x)),
    ("tanh_backward", "TanhBackward", (), lambda t, A, g, x: torch_fn(A.tanh_backward, g, x)),
]


def torch_fn(f, *args, **kw):
    return lambda: f(*args, **kw)


def _act_arg(v):
    if isinstance(v, str) and v.startswith("i"):
        return int(v[1:])  # an int64_t attribute
    if isinstance(v, float):
        return _s(v)
    return v  # bool attributes, char* strings


def activation(op, extra=(), tf=None, grad=False):
    def setup():
        n = (64 << 20) // 4
        x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        torch = common.torch_or_none()
        ex = [_act_arg(v) for v in extra] if extra != "elu" else None
        if grad:
            g = np.random.default_rng(1).standard_normal(n).astype(np.float32)
            tg_, tx_, to_ = _t(g), _t(x), _empty((n,), "f32")
            if extra == "elu":  # gradOutput, alpha, scale, inputScale, isResult, selfOrResult, gradInput
                args = (tg_, _s(1.0), _s(1.0), _s(1.0), False, tx_, to_)
            else:
                args = (tg_, tx_, *ex, to_)
            ours = common.op_runner(op, *args)
            f = tf(torch, torch.ops.aten, torch.from_numpy(g), torch.from_numpy(x)) if torch and tf else None
            return dict(ours=ours, torch=f, bytes=3 * x.nbytes)
        ours = common.op_runner(op, _t(x), *ex, _empty((n,), "f32"))
        f = tf(torch, torch.nn.functional, torch.from_numpy(x)) if torch and tf else None
        return dict(ours=ours, torch=f, bytes=2 * x.nbytes)

    return setup


def softmax(dt, backward, log=False):
    def setup():
        rng = np.random.default_rng(0)
        x = rng.standard_normal((4096, 4096)).astype(_np(dt))
        torch = common.torch_or_none()
        xe = np.exp(x.astype(np.float32) - x.astype(np.float32).max(1, keepdims=True))
        y = xe / xe.sum(1, keepdims=True)
        y = (np.log(y) if log else y).astype(_np(dt))
        name = "LogSoftmax" if log else "Softmax"
        if backward:
            g = rng.standard_normal((4096, 4096)).astype(_np(dt))
            ours = common.op_runner(name + "Backward", _t(g), _t(y), -1, _empty(x.shape, dt))
            tf = None
            if torch:
                tg, ty = _tt(torch, g, dt), _tt(torch, y, dt)
                bw = torch.ops.aten._log_softmax_backward_data if log else torch.ops.aten._softmax_backward_data
                tf = lambda: bw(tg, ty, -1, ty.dtype)  # noqa: E731
            return dict(ours=ours, torch=tf, bytes=3 * x.nbytes)
        ours = common.op_runner(name, _t(x), -1, _empty(x.shape, dt))
        tf = None
        if torch:
            tx = _tt(torch, x, dt)
            tf = (lambda: torch.log_softmax(tx, -1)) if log else (lambda: torch.softmax(tx, -1))  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=2 * x.nbytes)

    return setup


def layer_norm(dt, backward):
    def setup():
        import pyaclnn

        rng = np.random.default_rng(0)
        M = N = 4096
        x = rng.standard_normal((M, N)).astype(_np(dt))
        w = rng.standard_normal(N).astype(_np(dt))
        b = rng.standard_normal(N).astype(_np(dt))
        ns = pyaclnn.int_array([N])
        torch = common.torch_or_none()
        if backward:
            xf = x.astype(np.float32)
            mean = xf.mean(1, keepdims=True).astype(np.float32)
            rstd = (1 / np.sqrt(xf.var(1, keepdims=True) + 1e-5)).astype(np.float32)
            g = rng.standard_normal((M, N)).astype(_np(dt))
            ours = common.op_runner("LayerNormBackward", _t(g), _t(x), ns, _t(mean), _t(rstd), _t(w), _t(b),
                                    pyaclnn.bool_array([True, True, True]), _empty((M, N), dt), _empty((N,), dt),
                                    _empty((N,), dt))
            tf = None
            if torch:
                tg, tx, tw, tb = (_tt(torch, a, dt) for a in (g, x, w, b))
                tm, tr = _tt(torch, mean, dt), _tt(torch, rstd, dt)  # torch CPU wants them in x's dtype
                tf = lambda: torch.ops.aten.native_layer_norm_backward(tg, tx, [N], tm, tr, tw, tb,  # noqa: E731
                                                                      [True, True, True])
            return dict(ours=ours, torch=tf, bytes=3 * x.nbytes)
        ours = common.op_runner("LayerNorm", _t(x), ns, _t(w), _t(b), 1e-5, _empty((M, N), dt),
                                _empty((M, 1), "f32"), _empty((M, 1), "f32"))
        tf = None
        if torch:
            tx, tw, tb = (_tt(torch, a, dt) for a in (x, w, b))
            tf = lambda: torch.ops.aten.native_layer_norm(tx, [N], tw, tb, 1e-5)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=2 * x.nbytes)

    return setup


def rms_norm(dt, backward):
    def setup():
        rng = np.random.default_rng(0)
        M = N = 4096
        x = rng.standard_normal((M, N)).astype(_np(dt))
        w = rng.standard_normal(N).astype(_np(dt))
        torch = common.torch_or_none()
        if backward:
            xf = x.astype(np.float32)
            rstd = (1 / np.sqrt((xf * xf).mean(1, keepdims=True) + 1e-6)).astype(np.float32)
            g = rng.standard_normal((M, N)).astype(_np(dt))
            ours = common.op_runner("RmsNormGrad", _t(g), _t(x), _t(rstd), _t(w), _empty((M, N), dt),
                                    _empty((N,), "f32"))
            tf = None
            if torch:
                tx = _tt(torch, x, dt).requires_grad_()
                tw = _tt(torch, w, dt).requires_grad_()
                tg = _tt(torch, g, dt)
                y = torch.nn.functional.rms_norm(tx, [N], tw, 1e-6)
                tf = lambda: torch.autograd.grad(y, (tx, tw), tg, retain_graph=True)  # noqa: E731
            return dict(ours=ours, torch=tf, bytes=3 * x.nbytes)
        ours = common.op_runner("RmsNorm", _t(x), _t(w), 1e-6, _empty((M, N), dt), _empty((M, 1), "f32"))
        tf = None
        if torch:
            tx, tw = _tt(torch, x, dt), _tt(torch, w, dt)
            tf = lambda: torch.nn.functional.rms_norm(tx, [N], tw, 1e-6)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=2 * x.nbytes)

    return setup


def group_norm(dt, backward):
    def setup():
        import pyaclnn

        rng = np.random.default_rng(0)
        N, C, H, W, G = 32, 64, 56, 56, 32
        x = rng.standard_normal((N, C, H, W)).astype(_np(dt))
        w = rng.standard_normal(C).astype(_np(dt))
        b = rng.standard_normal(C).astype(_np(dt))
        torch = common.torch_or_none()
        xf = x.astype(np.float32).reshape(N, G, -1)
        mean = xf.mean(2).astype(_np(dt))
        rstd = (1 / np.sqrt(xf.var(2) + 1e-5)).astype(_np(dt))
        if backward:
            g = rng.standard_normal((N, C, H, W)).astype(_np(dt))
            ours = common.op_runner("GroupNormBackward", _t(g), _t(x), _t(mean), _t(rstd), _t(w), N, C, H * W, G,
                                    pyaclnn.bool_array([True, True, True]), _empty(x.shape, dt), _empty((C,), dt),
                                    _empty((C,), dt))
            tf = None
            if torch:
                tg, tx, tw, tm, tr = (_tt(torch, a, dt) for a in (g, x, w, mean, rstd))
                tf = lambda: torch.ops.aten.native_group_norm_backward(tg, tx, tm, tr, tw, N, C, H * W, G,  # noqa
                                                                      [True, True, True])
            return dict(ours=ours, torch=tf, bytes=3 * x.nbytes)
        ours = common.op_runner("GroupNorm", _t(x), _t(w), _t(b), N, C, H * W, G, 1e-5, _empty(x.shape, dt),
                                _empty((N, G), dt), _empty((N, G), dt))
        tf = None
        if torch:
            tx, tw, tb = (_tt(torch, a, dt) for a in (x, w, b))
            tf = lambda: torch.ops.aten.native_group_norm(tx, tw, tb, N, C, H * W, G, 1e-5)  # noqa: E731
        return dict(ours=ours, torch=tf, bytes=2 * x.nbytes)

    return setup


def cross_entropy(dt="f32", kind="fwd"):
    """kind: fwd (CrossEntropyLoss vs F.cross_entropy), grad (CrossEntropyLossGrad vs nll_loss_backward +
    _log_softmax_backward_data), nll (NLLLoss on log-probabilities vs F.nll_loss)."""
    def setup():
        rng = np.random.default_rng(0)
        N, C = 4096, 32000
        x = rng.standard_normal((N, C)).astype(np.float32)
        t = rng.integers(0, C, N).astype(np.int64)
        torch = common.torch_or_none()
        tf = None
        if kind == "fwd":
            x = x.astype(_np(dt))
            ours = common.op_runner("CrossEntropyLoss", _t(x), _t(t), None, b"mean", -100, 0.0, 0.0, False,
                                    _empty((1,), dt), _empty((N, C), dt), _empty((1,), dt), _empty((N,), dt))
            if torch:
                tx, tt = _tt(torch, x, dt), torch.from_numpy(t)
                tf = lambda: torch.nn.functional.cross_entropy(tx, tt)  # noqa: E731
            return dict(ours=ours, torch=tf, bytes=x.nbytes)
        lp = (x - np.log(np.exp(x).sum(1, keepdims=True))).astype(_np(dt))
        if kind == "nll":
            ours = common.op_runner("NLLLoss", _t(lp), _t(t), _t(np.ones(C, _np(dt))), 1, -100, _empty((), dt),
                                    _empty((), dt))
            if torch:
                tl, tt = _tt(torch, lp, dt), torch.from_numpy(t)
                tf = lambda: torch.nn.functional.nll_loss(tl, tt)  # noqa: E731
            return dict(ours=ours, torch=tf, bytes=N * 8)
        g = np.array(1.0, _np(dt))
        ours = common.op_runner("CrossEntropyLossGrad", _t(g), _t(lp), _t(t), None, None, None, b"mean", -100, 0.0,
                                0.0, _empty((N, C), dt))
        if torch:
            tl, tt, tg = _tt(torch, lp, dt), torch.from_numpy(t), _tt(torch, g, dt)
            tw = torch.tensor(float(N), dtype=tl.dtype)
            tf = lambda: torch.ops.aten._log_softmax_backward_data(  # noqa: E731
                torch.ops.aten.nll_loss_backward(tg, tl, tt, None, 1, -100, tw), tl, 1, tl.dtype)
        return dict(ours=ours, torch=tf, bytes=2 * lp.nbytes)

    return setup


CASES = ([(f"{label} f32 64MiB", activation(op, extra, tf)) for label, op, extra, tf in ACT_FWD]
         + [(f"{label} f32 64MiB", activation(op, extra, tf, grad=True)) for label, op, extra, tf in ACT_BWD]
         + [(f"{name} {'bwd' if bwd else 'fwd'} {dt} 4096x4096", fn(dt, bwd))
            for name, fn in (("softmax", softmax), ("layer_norm", layer_norm), ("rms_norm", rms_norm))
            for dt in ("f32", "bf16") for bwd in (False, True)]
         + [(f"log_softmax {'bwd' if bwd else 'fwd'} {dt} 4096x4096", softmax(dt, bwd, log=True))
            for dt in ("f32", "bf16") for bwd in (False, True)]
         + [(f"group_norm {'bwd' if bwd else 'fwd'} {dt} 32x64x56x56 g32", group_norm(dt, bwd))
            for dt in ("f32", "bf16") for bwd in (False, True)]
         + [(f"cross_entropy{'' if kind == 'fwd' else ' ' + kind} {dt} 4096x32000", cross_entropy(dt, kind))
            for kind in ("fwd", "grad", "nll") for dt in ("f32", "bf16")])
