"""Cat, Stack, SplitTensor and SplitWithSize against PyTorch CPU for every dtype of each op's A2 list, with strided
and offset device views in and out, empty tensors, mixed input dtypes (the promoted dtype is the compute dtype) and
outputs of another dtype."""
import numpy as np
import pytest

from shape_util import NPD, close, dev, dev_out, dtypes, from_torch, host, ia, rand, run, same_bits, tdt, tlist, to_torch


@pytest.fixture
def rng():
    return np.random.default_rng(5)


def _cat(torch, op, arrays, dim, out_dt, kinds=None, expected=None):
    ts = [dev(a, (kinds or "st")[i % 2]) for i, a in enumerate(arrays)]
    tt = [to_torch(torch, a) for a in arrays]
    if expected is None:
        expected = (torch.cat if op == "Cat" else torch.stack)(tt, dim)
    e = from_torch(expected.to(tdt(torch, out_dt)))
    o = dev_out(e.shape, out_dt)
    lst = tlist(ts)
    run(op, lst, dim, o)
    return host(o), e


@pytest.mark.parametrize("dt", dtypes("Cat"))
def test_cat(torch, rng, dt):
    a, b, c = rand(rng, (2, 3), dt), rand(rng, (2, 5), dt), rand(rng, (2, 1), dt)
    got, e = _cat(torch, "Cat", [a, b, c], -1, dt)
    same_bits(got, e)
    got, e = _cat(torch, "Cat", [a.T.copy(), rand(rng, (4, 2), dt), rand(rng, (0, 2), dt)], 0, dt)
    same_bits(got, e)
    # 1-d size-0 tensors are dropped before any check (they may have another rank)
    legacy = np.zeros((0,), NPD[dt])
    got, e = _cat(torch, "Cat", [legacy, a, legacy, b], 1, dt, expected=torch.cat([to_torch(torch, a),
                                                                                   to_torch(torch, b)], 1))
    same_bits(got, e)
    # one non-empty tensor: cast straight to out
    got, e = _cat(torch, "Cat", [a], 0, dt)
    same_bits(got, e)
    # 0-d can not be concatenated; a list of only legacy empties succeeds without looking at out
    lst = tlist([dev(legacy), dev(legacy)])
    run("Cat", lst, 0, None)


@pytest.mark.parametrize("pair,out_dt", [(("i32", "f16"), "f32"), (("u8", "i8"), "i16"), (("bool", "i64"), "f64"),
                                         (("bf16", "f16"), "f32"), (("f32", "c64"), "c64"), (("i32", "i64"), "f32")])
def test_cat_stack_promote(torch, rng, pair, out_dt):
    """each input is cast to the promoted dtype, the result to out's: i32 + f16 into f32 rounds through f16"""
    a = rand(rng, (2, 3), pair[0], -3000, 3000) if pair[0][0] == "i" else rand(rng, (2, 3), pair[0])
    b = rand(rng, (2, 3), pair[1])
    for op in ("Cat", "Stack"):
        got, e = _cat(torch, op, [a, b], 1, out_dt)
        close(got, e, out_dt)


@pytest.mark.parametrize("dt", dtypes("Stack"))
def test_stack(torch, rng, dt):
    xs = [rand(rng, (2, 3), dt) for _ in range(3)]
    for dim in (0, 1, 2, -1, -3):
        got, e = _cat(torch, "Stack", xs, dim, dt)
        same_bits(got, e)
    got, e = _cat(torch, "Stack", xs[:1], 1, dt)
    same_bits(got, e)
    x0 = [rand(rng, (), dt) for _ in range(2)]
    got, e = _cat(torch, "Stack", x0, 0, dt)
    same_bits(got, e)
    o = dev_out((2, 0, 3), dt)  # empty tensors: out untouched
    run("Stack", tlist([dev(rand(rng, (0, 3), dt)), dev(rand(rng, (0, 3), dt))]), 0, o)


def test_stack_many(torch, rng):
    xs = [rand(rng, (2,), "f32") for _ in range(200)]
    got, e = _cat(torch, "Stack", xs, 1, "f32")
    same_bits(got, e)


def _split(torch, op, x, arg, dim, parts, out_dt):
    outs = [dev_out(p.shape, out_dt, "st"[i % 2]) for i, p in enumerate(parts)]
    run(op, dev(x, "t"), arg, dim, tlist(outs))
    for o, p in zip(outs, parts):
        close(host(o), from_torch(p.to(tdt(torch, out_dt))), out_dt)


@pytest.mark.parametrize("dt", dtypes("SplitTensor"))
def test_split_tensor(torch, rng, dt):
    x = rand(rng, (7, 4), dt)
    t = to_torch(torch, x)
    for sec, dim in ((3, 0), (7, 0), (10, 0), (1, 1), (3, -1), (4, 1)):
        _split(torch, "SplitTensor", x, sec, dim, list(torch.split(t, sec, dim)), dt)
    if dt not in ("c64", "c128"):  # into another dtype
        _split(torch, "SplitTensor", x, 2, 1, list(torch.split(t, 2, 1)), "f64" if dt != "f64" else "f32")
    # an empty self: sections 0 along the empty dim
    outs = [dev_out((0, 4), dt), dev_out((0, 4), dt)]
    run("SplitTensor", dev(rand(rng, (0, 4), dt)), 0, 0, tlist(outs))


@pytest.mark.parametrize("dt", dtypes("SplitWithSize"))
def test_split_with_size(torch, rng, dt):
    x = rand(rng, (7, 4), dt)
    t = to_torch(torch, x)
    for sizes, dim in (([2, 5], 0), ([7], 0), ([1, 0, 3], -1), ([1, 1, 1, 1, 3], 0)):
        _split(torch, "SplitWithSize", x, ia(sizes), dim, list(torch.split(t, sizes, dim)), dt)
    if dt not in ("c64", "c128"):
        _split(torch, "SplitWithSize", x, ia([3, 4]), 0, list(torch.split(t, [3, 4], 0)), "i64" if dt != "i64" else
               "f32")


DETERMINISM = r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(2)
h = hashlib.sha256()
x = rng.standard_normal((40, 30, 70)).astype(np.float32)
out = np.empty_like(x)
pyaclnn.call("Roll", x[:, ::1, :], [12345], [], out)            # the flat roll kernel
h.update(out.tobytes())
a = rng.integers(-3000, 3000, (50, 300, 7)).astype(np.int32)
b = rng.standard_normal((50, 300, 7)).astype(np.float16)
o = np.empty((50, 600, 7), np.float32)
pyaclnn.call("Cat", [a, b], 1, o)                               # through the promoted dtype (f16)
h.update(o.tobytes())
l = np.empty((3, 40000), np.float16)
pyaclnn.call("Linspace", -3.0, 7.0, 120000, l)
h.update(l.tobytes())
t = np.empty((20, 300, 300), np.float32)
pyaclnn.call("Triu", rng.standard_normal((20, 300, 300)).astype(np.float32), 3, t)
h.update(t.tobytes())
r = np.empty((6, 400, 210), np.float32)
pyaclnn.call("Repeat", rng.standard_normal((3, 40, 7)).astype(np.float32), [2, 10, 30], r)
h.update(r.tobytes())
print(h.hexdigest())
"""


def test_same_bytes_for_threads():
    from helpers import same_bytes_for_threads
    same_bytes_for_threads(DETERMINISM)
