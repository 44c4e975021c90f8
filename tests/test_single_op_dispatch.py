"""aclopCompileAndExecute for the operator types the emulator runs (single_op_dispatch.c): the tensors of the call
become aclTensors over the data buffers and the aclnn function of the same computation runs; results against
numpy; wrong tensor counts and short buffers are refused naming the operator type; unknown types stay
ACL_ERROR_OP_NOT_FOUND."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib

pyaclnn.ensure_device()

INVALID_PARAM, OP_NOT_FOUND = 100000, 100024
ACL = {np.float32: 0, np.float16: 1, np.int8: 2, np.int32: 3, np.uint8: 4, np.int16: 6, np.int64: 9,
       np.float64: 11, np.bool_: 12}


def msg():
    return pyaclnn.recent_error_message()


class Call:
    """Device buffers and descriptions for one aclopCompileAndExecute call."""

    def __init__(self):
        self.keep, self.devs = [], []

    def tensor(self, arr=None, shape=None, dtype=None, short=False):
        arr = None if arr is None else np.ascontiguousarray(arr)
        shape = arr.shape if arr is not None else shape
        dtype = arr.dtype.type if arr is not None else dtype
        dims = ffi.new("int64_t[]", list(shape) or [0])
        d = lib.aclCreateTensorDesc(ACL[dtype], len(shape), dims, 2)
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        p = ffi.new("void **")
        assert lib.aclrtMalloc(p, max(nbytes, 1), 0) == 0
        if arr is not None and nbytes:
            assert lib.aclrtMemcpy(p[0], nbytes, ffi.from_buffer(arr), nbytes, 1) == 0
        buf = lib.aclCreateDataBuffer(p[0], nbytes - (1 if short else 0))
        self.keep += [dims]
        self.devs.append(p[0])
        return d, buf, p[0], shape, dtype

    def run(self, op_type, ins, outs, attr=ffi.NULL):
        di = ffi.new("aclTensorDesc *[]", [t[0] for t in ins] or [ffi.NULL])
        bi = ffi.new("aclDataBuffer *[]", [t[1] for t in ins] or [ffi.NULL])
        do = ffi.new("aclTensorDesc *[]", [t[0] for t in outs] or [ffi.NULL])
        bo = ffi.new("aclDataBuffer *[]", [t[1] for t in outs] or [ffi.NULL])
        return lib.aclopCompileAndExecute(op_type.encode(), len(ins), di, bi, len(outs), do, bo, attr, 0, 0,
                                          ffi.NULL, ffi.NULL)

    def read(self, t):
        _, _, ptr, shape, dtype = t
        assert lib.aclrtSynchronizeStream(ffi.NULL) == 0
        out = np.zeros(shape, dtype)
        if out.nbytes:
            assert lib.aclrtMemcpy(ffi.from_buffer(out), out.nbytes, ptr, out.nbytes, 2) == 0
        return out

    def close(self):
        for p in self.devs:
            lib.aclrtFree(p)


@pytest.fixture
def call():
    c = Call()
    yield c
    c.close()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8, np.bool_])
def test_fill(call, dtype):
    value = np.array(1 if dtype == np.bool_ else 3, dtype)
    out = call.tensor(shape=(2, 3), dtype=dtype)
    rc = call.run("Fill", [call.tensor(np.array([2, 3], np.int64)), call.tensor(value)], [out])
    assert rc == 0, msg()
    assert np.array_equal(call.read(out), np.full((2, 3), value, dtype))


@pytest.mark.parametrize("src,dst", [(np.float32, np.float16), (np.float32, np.int32), (np.int64, np.float32),
                                     (np.float16, np.float32), (np.int32, np.bool_)])
def test_cast(call, src, dst):
    x = (np.arange(12).reshape(3, 4) - 5).astype(src)
    out = call.tensor(shape=(3, 4), dtype=dst)
    assert call.run("Cast", [call.tensor(x)], [out]) == 0, msg()
    assert np.array_equal(call.read(out), x.astype(dst))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_v2(call, axis):
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    idx = np.array([3, 0, 2], np.int32)
    want = np.take(x, idx, axis=axis)
    out = call.tensor(shape=want.shape, dtype=np.float32)
    rc = call.run("GatherV2", [call.tensor(x), call.tensor(idx), call.tensor(np.array([axis], np.int64))], [out])
    assert rc == 0, msg()
    assert np.array_equal(call.read(out), want)


def test_host_operand_is_staged(call):
    """torch_npu passes scalars in host memory: the value of Fill is read from there."""
    value = np.array(7, np.int32)
    d = lib.aclCreateTensorDesc(ACL[np.int32], 0, ffi.new("int64_t[]", [0]), 2)
    b = lib.aclCreateDataBuffer(ffi.from_buffer(value), 4)
    out = call.tensor(shape=(3,), dtype=np.int32)
    assert call.run("Fill", [call.tensor(np.array([3], np.int64)), (d, b)], [out]) == 0, msg()
    assert np.array_equal(call.read(out), np.full(3, 7, np.int32))


def test_invalid_calls_name_the_type(call):
    x = call.tensor(np.ones((2, 3), np.float32))
    out = call.tensor(shape=(2, 3), dtype=np.float32)
    assert call.run("Fill", [x], [out]) == INVALID_PARAM and "Fill" in msg()                # tensor count
    short = call.tensor(np.ones((2, 3), np.float32), short=True)
    assert call.run("Cast", [short], [out]) == INVALID_PARAM and "Cast" in msg()            # buffer too small
    assert call.run("GatherV2", [x, call.tensor(np.array([0], np.int32)), call.tensor(np.array([0.5], np.float32))],
                    [out]) == INVALID_PARAM and "GatherV2" in msg()                          # axis not an integer
    assert call.run("NoSuchOp", [x], [out]) == OP_NOT_FOUND and "NoSuchOp" in msg()
    assert call.run("Fill", [call.tensor(np.array([2, 3], np.int64)), call.tensor(np.array([1.0, 2.0], np.float32))],
                    [out]) != 0 and "Fill" in msg()                                          # value not broadcastable


def attr_with(**kv):
    a = lib.aclopCreateAttr()
    for k, v in kv.items():
        if isinstance(v, str):
            assert lib.aclopSetAttrString(a, k.encode(), v.encode()) == 0
        elif isinstance(v, bool):
            assert lib.aclopSetAttrBool(a, k.encode(), v) == 0
        elif isinstance(v, float):
            assert lib.aclopSetAttrFloat(a, k.encode(), v) == 0
        else:
            assert lib.aclopSetAttrInt(a, k.encode(), v) == 0
    return a


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float16, 2e-3)])
@pytest.mark.parametrize("v2", [False, True])
def test_lstm(call, torch, dtype, tol, v2):
    T, B, I, H = (3, 2, 5, 4) if not v2 else (1, 3, 5, 4)
    torch.manual_seed(0)
    m = torch.nn.LSTM(I, H)
    x, h0, c0 = torch.randn(T, B, I), torch.randn(1, B, H), torch.randn(1, B, H)
    with torch.no_grad():
        y, (hn, cn) = m(x, (h0, c0))
    # torch's gates are i, f, g, o: the weights as DynamicRNN takes them, with gate_order "ifjo"
    wi, wh = m.weight_ih_l0.detach().numpy().T, m.weight_hh_l0.detach().numpy().T
    bias = (m.bias_ih_l0 + m.bias_hh_l0).detach().numpy()
    f = lambda a: call.tensor(np.ascontiguousarray(a, dtype))  # noqa: E731
    none = (lib.aclCreateTensorDesc(-1, 0, ffi.NULL, 2), ffi.NULL)
    ws = [f(wi), f(wh)] if v2 else [f(np.concatenate([wi, wh]))]
    ins = [f(x.numpy())] + ws + [f(bias), none, f(h0.numpy()), f(c0.numpy())]
    outs = [call.tensor(shape=(T, B, H), dtype=dtype) for _ in range(8)]
    a = attr_with(gate_order="ifjo", direction="UNIDIRECTIONAL", cell_clip=-1.0, forget_bias=0.0)
    assert call.run("DynamicRNNV2" if v2 else "DynamicRNN", ins, outs, a) == 0, msg()
    np.testing.assert_allclose(call.read(outs[0]).astype(np.float32), y.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(call.read(outs[2])[-1].astype(np.float32), cn[0].numpy(), rtol=tol, atol=tol)
    lib.aclopDestroyAttr(a)
    bad = attr_with(gate_order="ifjo", direction="BIDIRECTIONAL")
    assert call.run("DynamicRNN" if not v2 else "DynamicRNNV2", ins, outs, bad) == INVALID_PARAM
    assert "direction" in msg()
    lib.aclopDestroyAttr(bad)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float16, 2e-3), (np.float64, 1e-12)])
def test_gru(call, torch, dtype, tol):
    T, B, I, H = 4, 2, 3, 5
    torch.manual_seed(1)
    m = torch.nn.GRU(I, H).to(torch.float64 if dtype == np.float64 else torch.float32)
    x = torch.randn(T, B, I, dtype=m.weight_ih_l0.dtype)
    h0 = torch.randn(1, B, H, dtype=x.dtype)
    with torch.no_grad():
        y, _ = m(x, h0)
    f = lambda a: call.tensor(np.ascontiguousarray(a, dtype))  # noqa: E731
    none = (lib.aclCreateTensorDesc(-1, 0, ffi.NULL, 2), ffi.NULL)
    ins = [f(x.numpy()), f(m.weight_ih_l0.detach().numpy().T), f(m.weight_hh_l0.detach().numpy().T),
           f(m.bias_ih_l0.detach().numpy()), f(m.bias_hh_l0.detach().numpy()), none, f(h0[0].numpy())]
    outs = [call.tensor(shape=(T, B, H), dtype=dtype) for _ in range(6)]
    a = attr_with(gate_order="rzh", reset_after=True)
    assert call.run("DynamicGRUV2", ins, outs, a) == 0, msg()
    np.testing.assert_allclose(call.read(outs[0]).astype(np.float64), y.numpy(), rtol=tol, atol=tol)
    lib.aclopDestroyAttr(a)
    bad = attr_with(gate_order="rzq")
    assert call.run("DynamicGRUV2", ins, outs, bad) == INVALID_PARAM and "gate_order" in msg()
    lib.aclopDestroyAttr(bad)


BINARY = {"Less": np.less, "LessEqual": np.less_equal, "Greater": np.greater, "GreaterEqual": np.greater_equal,
          "Equal": np.equal, "NotEqual": np.not_equal, "Mul": np.multiply, "RealDiv": np.divide, "Div": np.divide,
          "Maximum": np.maximum, "Minimum": np.minimum, "Add": np.add, "AddV2": np.add, "Sub": np.subtract,
          "Pow": np.power, "LogicalAnd": np.logical_and, "LogicalOr": np.logical_or}
UNARY = {"Neg": np.negative, "Abs": np.abs, "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt,
         "Rsqrt": lambda a: 1 / np.sqrt(a), "Relu": lambda a: np.maximum(a, 0), "Sigmoid": lambda a: 1 / (1 + np.exp(-a)),
         "Tanh": np.tanh, "Floor": np.floor, "Ceil": np.ceil, "Sin": np.sin, "Cos": np.cos,
         "Reciprocal": lambda a: 1 / a, "Sign": np.sign, "Round": np.round,
         "LogicalNot": np.logical_not, "ZerosLike": np.zeros_like, "OnesLike": np.ones_like, "Identity": np.copy}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_types(call, op):
    rng = np.random.default_rng(2)
    logical = op.startswith("Logical")
    a = rng.random((3, 4)).astype(np.float32) + 0.5
    b = np.array(1.25, np.float32) if op != "Pow" else np.array(2.0, np.float32)  # broadcast a 0-d operand
    if logical:
        a, b = a > 1.0, np.array(True)
    want = BINARY[op](a, b)
    out = call.tensor(shape=want.shape, dtype=want.dtype.type)
    assert call.run(op, [call.tensor(a), call.tensor(b)], [out]) == 0, msg()
    np.testing.assert_allclose(call.read(out), want, rtol=1e-6)


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_types(call, op):
    a = (np.random.default_rng(3).random((2, 5)).astype(np.float32) + 0.1) * (1 if op in ("Log", "Sqrt", "Rsqrt") else 3)
    if op == "LogicalNot":
        a = a > 1.5
    want = UNARY[op](a)
    out = call.tensor(shape=want.shape, dtype=want.dtype.type)
    assert call.run(op, [call.tensor(a)], [out]) == 0, msg()
    np.testing.assert_allclose(call.read(out), want, rtol=1e-5, atol=1e-6)
    assert call.run(op, [call.tensor(a), call.tensor(a)], [out]) == INVALID_PARAM and op in msg()


def test_lstm_grad(call, torch):
    """DynamicRNN then DynamicRNNGrad with the forward's saved gates, against torch's autograd of
    sum(y * dy) + sum(h_T * dh) + sum(c_T * dc)."""
    T, B, I, H = 3, 2, 4, 5
    torch.manual_seed(4)
    m = torch.nn.LSTM(I, H)
    x = torch.randn(T, B, I, requires_grad=True)
    h0, c0 = torch.randn(1, B, H, requires_grad=True), torch.randn(1, B, H, requires_grad=True)
    dy, dh, dc = torch.randn(T, B, H), torch.randn(B, H), torch.randn(B, H)
    y, (hn, cn) = m(x, (h0, c0))
    ((y * dy).sum() + (hn[0] * dh).sum() + (cn[0] * dc).sum()).backward()
    wi, wh = m.weight_ih_l0.detach().numpy().T, m.weight_hh_l0.detach().numpy().T
    w = np.concatenate([wi, wh])
    bias = (m.bias_ih_l0 + m.bias_hh_l0).detach().numpy()
    f = lambda a: call.tensor(np.ascontiguousarray(a, np.float32))  # noqa: E731
    none = (lib.aclCreateTensorDesc(-1, 0, ffi.NULL, 2), ffi.NULL)
    fwd = [call.tensor(shape=(T, B, H), dtype=np.float32) for _ in range(8)]
    a = attr_with(gate_order="ifjo")
    ins = [f(x.detach().numpy()), f(w), f(bias), none, f(h0.detach().numpy()), f(c0.detach().numpy())]
    assert call.run("DynamicRNN", ins, fwd, a) == 0, msg()
    y_, h_, c_, i_, j_, f_, o_, tc_ = [call.read(t) for t in fwd]
    gins = [f(x.detach().numpy()), f(w), f(bias), f(y_), f(h0[0].detach().numpy()), f(c0[0].detach().numpy()), f(h_),
            f(c_), f(dy.numpy()), f(dh.numpy()), f(dc.numpy()), f(i_), f(j_), f(f_), f(o_), f(tc_)]
    outs = [call.tensor(shape=s, dtype=np.float32) for s in [(I + H, 4 * H), (4 * H,), (T, B, I), (B, H), (B, H)]]
    assert call.run("DynamicRNNGrad", gins, outs, a) == 0, msg()
    dw, db, dx, dhp, dcp = [call.read(t) for t in outs]
    tol = dict(rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dw, np.concatenate([m.weight_ih_l0.grad.numpy().T, m.weight_hh_l0.grad.numpy().T]), **tol)
    np.testing.assert_allclose(db, m.bias_ih_l0.grad.numpy(), **tol)
    np.testing.assert_allclose(dx, x.grad.numpy(), **tol)
    np.testing.assert_allclose(dhp, h0.grad[0].numpy(), **tol)
    np.testing.assert_allclose(dcp, c0.grad[0].numpy(), **tol)
    assert call.run("DynamicRNNGrad", gins[:10], outs, a) == INVALID_PARAM and "DynamicRNNGrad" in msg()
    lib.aclopDestroyAttr(a)


def test_gru_grad(call, torch):
    T, B, I, H = 3, 2, 4, 5
    torch.manual_seed(5)
    m = torch.nn.GRU(I, H)
    x = torch.randn(T, B, I, requires_grad=True)
    h0 = torch.randn(1, B, H, requires_grad=True)
    dy, dh = torch.randn(T, B, H), torch.randn(B, H)
    y, hn = m(x, h0)
    ((y * dy).sum() + (hn[0] * dh).sum()).backward()
    f = lambda a: call.tensor(np.ascontiguousarray(a, np.float32))  # noqa: E731
    none = (lib.aclCreateTensorDesc(-1, 0, ffi.NULL, 2), ffi.NULL)
    wi, wh = m.weight_ih_l0.detach().numpy().T, m.weight_hh_l0.detach().numpy().T
    fwd = [call.tensor(shape=(T, B, H), dtype=np.float32) for _ in range(6)]
    a = attr_with(gate_order="rzh", reset_after=True)
    ins = [f(x.detach().numpy()), f(wi), f(wh), f(m.bias_ih_l0.detach().numpy()), f(m.bias_hh_l0.detach().numpy()),
           none, f(h0[0].detach().numpy())]
    assert call.run("DynamicGRUV2", ins, fwd, a) == 0, msg()
    y_, h_, z_, r_, n_, hn_ = [call.read(t) for t in fwd]
    gins = [f(x.detach().numpy()), f(wi), f(wh), f(y_), f(h0[0].detach().numpy()), f(h_), f(dy.numpy()),
            f(dh.numpy()), f(z_), f(r_), f(n_), f(hn_)]
    outs = [call.tensor(shape=s, dtype=np.float32) for s in [(I, 3 * H), (H, 3 * H), (3 * H,), (3 * H,), (T, B, I),
                                                               (B, H)]]
    assert call.run("DynamicGRUV2Grad", gins, outs, a) == 0, msg()
    dwi, dwh, dbi, dbh, dx, dhp = [call.read(t) for t in outs]
    tol = dict(rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dwi, m.weight_ih_l0.grad.numpy().T, **tol)
    np.testing.assert_allclose(dwh, m.weight_hh_l0.grad.numpy().T, **tol)
    np.testing.assert_allclose(dbi, m.bias_ih_l0.grad.numpy(), **tol)
    np.testing.assert_allclose(dbh, m.bias_hh_l0.grad.numpy(), **tol)
    np.testing.assert_allclose(dx, x.grad.numpy(), **tol)
    np.testing.assert_allclose(dhp, h0.grad[0].numpy(), **tol)
    lib.aclopDestroyAttr(a)


def test_newest_message_survives_unread_ones(call):
    """A client that never reads the messages of expected failures (torch_npu probes aclrtGetDevice on fresh threads)
    still gets the message of the next real error: the buffer drops the oldest lines."""
    for _ in range(200):
        assert lib.aclDestroyDataBuffer(ffi.NULL) != 0
    x = call.tensor(np.ones(2, np.float32))
    assert call.run("NoSuchOpAfterManyErrors", [x], [x]) == OP_NOT_FOUND
    text = msg()
    assert "NoSuchOpAfterManyErrors" in text.splitlines()[-1] and len(text) < 4096
