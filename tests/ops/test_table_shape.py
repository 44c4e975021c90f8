"""The view/copy ops of tools/optable/math_shape.py against PyTorch CPU, for every dtype of each op's A2 list: Cast,
InplaceCopy, Permute, Expand, Repeat, Flatten, Slice, SliceV2, Roll, ChannelShuffle, Diag, DiagFlat, ConstantPadNd.
Inputs and outputs are strided device views with a view offset ('s'), or column-major in their last two dims ('t');
empty and 0-d cases where the op allows them. Data movements must be bit-exact."""
import numpy as np
import pytest

from shape_util import (NPD, acl_dt, close, dev, dev_out, dtypes, from_torch, host, ia, make_scalar, rand, run,
                        same_bits, scalar, tdt, to_torch)

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def movement(torch, op, x, args, expected, kind_in="s", kind_out="s"):
    """run op(x, *args, out) with x and out as device views; out must equal `expected` (a torch tensor) bit for bit"""
    e = from_torch(expected)
    o = dev_out(e.shape, _dt(e), kind_out)
    run(op, dev(x, kind_in), *args, o)
    same_bits(host(o), e)


def _dt(a):
    for k, v in NPD.items():
        if np.dtype(v) == a.dtype:
            return k
    raise KeyError(a.dtype)


# ---------------------------------------------------------------- Cast / InplaceCopy
def _cast_src(rng, src, dst, shape):
    x = rand(rng, shape, src)
    if src[0] in "fbc" and src != "bool" and dst[0] == "u":
        x = np.abs(x)  # a negative float to an unsigned type is undefined in C++ and PyTorch alike
    if x.size >= 3 and src in ("f32", "f64", "f16", "bf16") and dst in ("f32", "f64", "f16", "bf16", "c64", "c128"):
        x.reshape(-1)[:3] = np.array([np.nan, np.inf, -np.inf]).astype(x.dtype)
    return x


@pytest.mark.filterwarnings("ignore:Casting complex values")
@pytest.mark.parametrize("src", dtypes("Cast"))
def test_cast(torch, rng, src):
    for dst in dtypes("Cast"):
        x = _cast_src(rng, src, dst, (3, 5))
        e = from_torch(to_torch(torch, x).to(tdt(torch, dst)))
        o = dev_out((3, 5), dst)
        run("Cast", dev(x, "t"), acl_dt(dst), o)
        close(host(o), e, dst)
    # 0-d, and an empty self (out untouched)
    x = _cast_src(rng, src, "f32", ())
    o = dev_out((), "f32")
    run("Cast", dev(x), acl_dt("f32"), o)
    close(host(o), from_torch(to_torch(torch, x).to(torch.float32)), "f32")
    o = dev_out((0, 3), "f32")
    run("Cast", dev(rand(rng, (0, 3), src)), acl_dt("f32"), o)


@pytest.mark.filterwarnings("ignore:Casting complex values")
@pytest.mark.parametrize("src", dtypes("InplaceCopy"))
def test_inplace_copy(torch, rng, src):
    for dst in dtypes("InplaceCopy"):
        x = _cast_src(rng, src, dst, (1, 5))  # broadcast along dim 0
        e = from_torch(to_torch(torch, x).to(tdt(torch, dst)).expand(3, 5))
        o = dev_out((3, 5), dst)
        run("InplaceCopy", o, dev(x))
        close(host(o), e, dst)
    x = rand(rng, (4,), src)
    o = dev_out((2, 3, 4), src, "t")
    run("InplaceCopy", o, dev(x))
    same_bits(host(o), np.broadcast_to(x, (2, 3, 4)))
    o = dev_out((), src)
    x0 = rand(rng, (), src)
    run("InplaceCopy", o, dev(x0))
    same_bits(host(o), x0)


def test_inplace_copy_aliased(torch, rng):
    """selfRef a shifted view of src's own memory: the device copies src aside first"""
    buf = dev(np.arange(10, dtype=np.float32), "c")
    from pyaclnn.lowlevel import AclTensor
    src = AclTensor((8,), np.float32, (1,), 0, None, buf.buffer)
    dst = AclTensor((8,), np.float32, (1,), 2, None, buf.buffer)
    run("InplaceCopy", dst, src)
    same_bits(host(buf), np.array([0, 1, 0, 1, 2, 3, 4, 5, 6, 7], np.float32))


# ---------------------------------------------------------------- Permute / Expand / Repeat / Flatten
@pytest.mark.parametrize("dt", dtypes("Permute"))
def test_permute(torch, rng, dt):
    x = rand(rng, (2, 3, 4), dt)
    t = to_torch(torch, x)
    movement(torch, "Permute", x, [ia([2, 0, -2])], t.permute(2, 0, 1), "t")
    movement(torch, "Permute", x, [ia([0, 1, 2])], t)
    x0 = rand(rng, (), dt)
    movement(torch, "Permute", x0, [ia([])], to_torch(torch, x0))
    o = dev_out((3, 0), dt)
    run("Permute", dev(rand(rng, (0, 3), dt)), ia([1, 0]), o)


@pytest.mark.parametrize("dt", dtypes("Expand"))
def test_expand(torch, rng, dt):
    x = rand(rng, (3, 1), dt)
    t = to_torch(torch, x)
    movement(torch, "Expand", x, [ia([2, 3, 4])], t.expand(2, 3, 4), "t")
    movement(torch, "Expand", x, [ia([3, 1])], t)
    x0 = rand(rng, (), dt)
    movement(torch, "Expand", x0, [ia([])], to_torch(torch, x0))
    movement(torch, "Expand", x0, [ia([2, 5])], to_torch(torch, x0).expand(2, 5))
    o = dev_out((0, 3, 1), dt)
    run("Expand", dev(x), ia([0, 3, 1]), o)


@pytest.mark.parametrize("dt", dtypes("Repeat"))
def test_repeat(torch, rng, dt):
    x = rand(rng, (2, 3), dt)
    t = to_torch(torch, x)
    for reps in ([2, 1, 3], [3, 5], [1, 1], [1, 37], [4, 2, 1, 1]):
        movement(torch, "Repeat", x, [ia(reps)], t.repeat(*reps), "t")
    x0 = rand(rng, (), dt)
    movement(torch, "Repeat", x0, [ia([])], to_torch(torch, x0))
    movement(torch, "Repeat", x0, [ia([4])], to_torch(torch, x0).repeat(4))
    o = dev_out((0, 3), dt)  # a zero repeat: nothing is written
    run("Repeat", dev(x), ia([0, 1]), o)


@pytest.mark.parametrize("dt", dtypes("Flatten"))
def test_flatten(torch, rng, dt):
    x = rand(rng, (2, 3, 4), dt)
    t = to_torch(torch, x)
    for axis in (0, 1, 2, -1, -3):
        a = axis % 3
        movement(torch, "Flatten", x, [axis], t.reshape(int(np.prod(x.shape[:a])), -1), "t")
    x0 = rand(rng, (), dt)
    movement(torch, "Flatten", x0, [0], to_torch(torch, x0).reshape(1, 1))
    x1 = rand(rng, (5,), dt)
    movement(torch, "Flatten", x1, [-1], to_torch(torch, x1).reshape(1, 5))
    o = dev_out((2, 0), dt)
    run("Flatten", dev(rand(rng, (2, 0, 3), dt)), 1, o)


# ---------------------------------------------------------------- Slice / SliceV2
@pytest.mark.parametrize("dt", dtypes("Slice"))
def test_slice(torch, rng, dt):
    x = rand(rng, (4, 6), dt)
    t = to_torch(torch, x)
    movement(torch, "Slice", x, [1, 1, 5, 2], t[:, 1:5:2], "t")
    movement(torch, "Slice", x, [-2, -3, 100, 1], t[1:, :])
    movement(torch, "Slice", x, [0, -100, 2, 3], t[0:2:3, :])
    movement(torch, "Slice", x, [1, 0, 6, 1000], t[:, 0:1])
    o = dev_out((4, 0), dt)  # start past end: an empty result, out untouched
    run("Slice", dev(x), 1, 5, 2, 1, o)
    # a step near INT64_MAX wraps the host's length arithmetic: 0 elements, as on the device
    for step in (INT64_MAX - 1, INT64_MAX):
        o = dev_out((4, 0), dt)
        run("Slice", dev(x), 1, 0, 6, step, o)


@pytest.mark.parametrize("dt", dtypes("SliceV2"))
def test_slice_v2(torch, rng, dt):
    x = rand(rng, (4, 5, 6), dt)
    t = to_torch(torch, x)
    movement(torch, "SliceV2", x, [ia([1, -4]), ia([3, 100]), ia([0, -1]), ia([1, 2])], t[1:3, :, 2::2], "t")
    movement(torch, "SliceV2", x, [ia([]), ia([]), ia([]), ia([])], t)
    movement(torch, "SliceV2", x, [ia([-100]), ia([-1]), ia([1]), ia([3])], t[:, 0:4:3, :])
    x0 = rand(rng, (), dt)
    movement(torch, "SliceV2", x0, [ia([]), ia([]), ia([]), ia([])], to_torch(torch, x0))


# ---------------------------------------------------------------- Roll
def _roll(torch, t, shifts, dims):
    """PyTorch's roll with every shift reduced mod its dim first (Python ints: no overflow)"""
    if not dims:
        n = t.numel()
        return torch.roll(t.flatten(), shifts[0] % n if n else 0).reshape(t.shape)
    for s, d in zip(shifts, dims):
        t = torch.roll(t, s % t.shape[d], d)
    return t


@pytest.mark.parametrize("dt", dtypes("Roll"))
def test_roll(torch, rng, dt):
    x = rand(rng, (3, 4, 5), dt)
    t = to_torch(torch, x)
    cases = [([1, -2], [0, 2]), ([2, 3], [1, 1]), ([7], []), ([-13], []), ([INT64_MIN, INT64_MAX], [2, -1]),
             ([1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [0, 1, 2, 0, 1, 2, 0, 1, 2, 2]), ([5], [1])]
    for shifts, dims in cases:
        movement(torch, "Roll", x, [ia(shifts), ia(dims)], _roll(torch, t, shifts, dims), "t")
    # [1, N] rolled along dim 1 (the device squeezes it and adds the shifts)
    y = rand(rng, (1, 7), dt)
    movement(torch, "Roll", y, [ia([3, 5, 2]), ia([1, -1, 0])], _roll(torch, to_torch(torch, y), [8], [1]))
    x0 = rand(rng, (), dt)
    movement(torch, "Roll", x0, [ia([3]), ia([])], to_torch(torch, x0))
    x1 = rand(rng, (9,), dt)
    movement(torch, "Roll", x1, [ia([-4]), ia([])], _roll(torch, to_torch(torch, x1), [-4], []))
    o = dev_out((0, 3), dt)
    run("Roll", dev(rand(rng, (0, 3), dt)), ia([1]), ia([5]), o)  # empty: dims are not checked


def test_roll_in_place(torch, rng):
    """out is x: the device rolls into a temporary, then copies"""
    x = rand(rng, (4, 6), "f32")
    for shifts, dims in (([1, 2], [0, 1]), ([5], [])):
        d = dev(x, "c")
        run("Roll", d, ia(shifts), ia(dims), d)
        same_bits(host(d), from_torch(_roll(torch, to_torch(torch, x), shifts, dims)))


# ---------------------------------------------------------------- ChannelShuffle
@pytest.mark.parametrize("dt", dtypes("ChannelShuffle"))
def test_channel_shuffle(torch, rng, dt):
    tdtype = "i64" if dt in ("bool", "c64", "c128", "bf16", "f16") else None  # PyTorch CPU lacks them: shuffle i64
    for shape, g in (((2, 6, 3), 3), ((1, 4, 2, 2), 2), ((2, 6, 1, 1, 1, 1, 2), 6), ((2, 5, 3), 1)):
        x = rand(rng, shape, dt)
        idx = torch.arange(x.size).reshape(shape)
        perm = torch.nn.functional.channel_shuffle(idx, g).flatten().numpy()
        e = x.reshape(-1)[perm].reshape(shape)  # the permutation PyTorch applies, moved bit for bit
        o = dev_out(shape, dt)
        run("ChannelShuffle", dev(x, "t"), g, o)
        same_bits(host(o), e)
        if tdtype is None:
            same_bits(e, from_torch(torch.nn.functional.channel_shuffle(to_torch(torch, x), g)))
    o = dev_out((0, 4, 2), dt)
    run("ChannelShuffle", dev(rand(rng, (0, 4, 2), dt)), 2, o)


# ---------------------------------------------------------------- Diag / DiagFlat
@pytest.mark.parametrize("dt", dtypes("Diag"))
def test_diag(torch, rng, dt):
    v = rand(rng, (4,), dt)
    m = rand(rng, (3, 5), dt)
    for d in (0, 2, -1):
        movement(torch, "Diag", v, [d], torch.diag(to_torch(torch, v), d))
    for d in (0, 2, -1, 4, -2):
        movement(torch, "Diag", m, [d], torch.diag(to_torch(torch, m), d), "t")
    o = dev_out((0,), dt)  # beyond the matrix: empty
    run("Diag", dev(m), 10, o)
    x0 = rand(rng, (), dt)
    for d in (0, 1, -2):
        movement(torch, "Diag", x0, [d], torch.diag(to_torch(torch, x0).reshape(1), d))
    # an empty self: diagonal 0 leaves out untouched, another fills out (any shape) with zeros
    o = dev_out((2, 2), dt)
    run("Diag", dev(rand(rng, (0,), dt)), 0, o)
    same_bits(host(o), host(dev_out((2, 2), dt)))
    if dt != "c64":
        o = dev_out((2, 2), dt)
        run("Diag", dev(rand(rng, (0,), dt)), 2, o)
        same_bits(host(o), np.zeros((2, 2), NPD[dt]))


@pytest.mark.parametrize("dt", dtypes("DiagFlat"))
def test_diag_flat(torch, rng, dt):
    x = rand(rng, (2, 3), dt)
    for d in (0, 1, -2):
        movement(torch, "DiagFlat", x, [d], torch.diagflat(to_torch(torch, x), d), "t")
    x0 = rand(rng, (), dt)
    movement(torch, "DiagFlat", x0, [1], torch.diagflat(to_torch(torch, x0), 1))
    # out of another dtype: the result is cast
    if dt not in ("c64",):
        e = from_torch(torch.diagflat(to_torch(torch, x), -1).to(torch.float64))
        o = dev_out(e.shape, "f64")
        run("DiagFlat", dev(x), -1, o)
        close(host(o), e, "f64")
    o = dev_out((2, 2), dt)  # an empty self: out untouched
    run("DiagFlat", dev(rand(rng, (0, 3), dt)), 2, o)
    same_bits(host(o), host(dev_out((2, 2), dt)))


# ---------------------------------------------------------------- ConstantPadNd
@pytest.mark.parametrize("dt", dtypes("ConstantPadNd"))
def test_constant_pad_nd(torch, rng, dt):
    x = rand(rng, (3, 4), dt)
    t = to_torch(torch, x)
    v = True if dt == "bool" else (2 if dt[0] in "iu" else 1.5)
    for pad in ([1, 2, -1, 1], [], [0, 0], [-1, -2], [2, 0, 0, 3], [-4, 1]):
        e = torch.nn.functional.pad(t, pad, value=v) if dt[0] != "u" or dt == "u8" else \
            torch.nn.functional.pad(t.to(torch.int64), pad, value=v).to(tdt(torch, dt))
        movement(torch, "ConstantPadNd", x, [ia(pad), make_scalar(v)], e, "t")
    # an empty self: out is all value
    e = np.full((2, 3), v).astype(NPD[dt])
    o = dev_out((2, 3), dt)
    run("ConstantPadNd", dev(rand(rng, (0, 3), dt)), ia([0, 0, 1, 1]), make_scalar(v), o)
    same_bits(host(o), e)
    x0 = rand(rng, (), dt)
    movement(torch, "ConstantPadNd", x0, [ia([]), make_scalar(v)], to_torch(torch, x0))


def test_constant_pad_value_exact(torch, rng):
    """the value is converted straight to out's dtype: an int64 value keeps all its bits"""
    x = np.arange(3, dtype=np.int64)
    o = dev_out((5,), "i64")
    run("ConstantPadNd", dev(x), ia([1, 1]), make_scalar(scalar(2**62 + 1, np.int64)), o)
    same_bits(host(o), np.array([2**62 + 1, 0, 1, 2, 2**62 + 1], np.int64))
    o = dev_out((4,), "i32")
    run("ConstantPadNd", dev(np.arange(3, dtype=np.int32)), ia([0, 1]), make_scalar(-2.7), o)
    same_bits(host(o), np.array([0, 1, 2, -2], np.int32))
