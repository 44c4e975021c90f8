"""Arange, Range, Linspace, Eye, Tril, Triu and the Inplace triangles against PyTorch CPU, for every dtype of each op's
A2 list, with strided and offset device views."""
import numpy as np
import pytest

from shape_util import (NPD, close, dev, dev_out, dtypes, from_torch, host, make_scalar, rand, run, same_bits, scalar,
                        tdt, to_torch)

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


@pytest.fixture
def rng():
    return np.random.default_rng(3)


def _seq(op, args, shape, dt, kind="s"):
    o = dev_out(shape, dt, kind)
    run(op, *[make_scalar(a) for a in args], o)
    return host(o)


@pytest.mark.parametrize("dt", dtypes("Arange"))
def test_arange(torch, dt):
    cases = [(1, 10, 3), (0, 5, 1), (5, -1, -2), (scalar(3, np.int8), 40, 7), (True, 5, True)]
    if dt[0] in "fb":  # fractional values: an integer out checks them as int64 (see the invalid rows)
        cases += [(5.0, -1.0, -1.5), (-2.5, 2.5, 0.5)]
    for a, b, s in cases:
        av, bv, sv = (x.value if hasattr(x, "value") else x for x in (a, b, s))
        e = from_torch(torch.arange(float(av), float(bv), float(sv), dtype=torch.float64).to(tdt(torch, dt))) \
            if dt[0] in "fb" else from_torch(torch.arange(int(av), int(bv), int(sv), dtype=tdt(torch, dt)))
        close(_seq("Arange", [a, b, s], e.shape, dt), e, dt)
    # out's shape is not checked: the sequence continues over all of out's elements (row-major)
    got = _seq("Arange", [2, 3, 1], (2, 3), dt)
    close(got, np.arange(2, 8).reshape(2, 3).astype(NPD[dt]), dt)
    got = _seq("Arange", [4, 6, 1], (), dt)
    close(got, np.array(4).astype(NPD[dt]), dt)
    _seq("Arange", [0, 0, 1], (0,), dt)


def test_arange_int64_exact(torch):
    got = _seq("Arange", [scalar(2**60 + 1, np.int64), scalar(2**61, np.int64), scalar(2**58, np.int64)], (4,), "i64")
    same_bits(got, from_torch(torch.arange(2**60 + 1, 2**61, 2**58, dtype=torch.int64)))


@pytest.mark.parametrize("dt", dtypes("Range"))
def test_range(torch, dt):
    cases = [(1, 10, 3), (0, 5, 1), (5, -1, -2)] + ([(5.0, -1.0, -1.5), (-2.5, 2.5, 0.5)] if dt[0] in "fb" else [])
    for a, b, s in cases:
        n = int(np.floor((b - a) / s)) + 1
        e = from_torch((torch.arange(n, dtype=torch.float64) * s + a).to(tdt(torch, dt)))
        close(_seq("Range", [a, b, s], e.shape, dt), e, dt)
    # the upstream unit test's shape: 0..10 step 1 into 10 elements
    close(_seq("Range", [0.0, 10.0, 1.0], (10,), dt), np.arange(10).astype(NPD[dt]), dt)


@pytest.mark.parametrize("dt", dtypes("Linspace"))
def test_linspace(torch, dt):
    for a, b, n in ((-1.0, 2.0, 7), (0, 10, 4), (3.5, -3.5, 8), (2, 2, 5), (0.0, 100.0, 101), (1.25, 7.5, 2)):
        if dt[0] in "iu" and (isinstance(a, float) or isinstance(b, float)):
            a, b = int(a) if a >= 0 or dt[0] == "i" else 0, int(b) if b >= 0 or dt[0] == "i" else 0
        if dt[0] == "u" and (a < 0 or b < 0):
            continue
        e = from_torch(torch.linspace(a, b, n, dtype=tdt(torch, dt)))
        o = dev_out((n,), dt)
        run("Linspace", make_scalar(a), make_scalar(b), n, o)
        close(host(o), e, dt)
    o = dev_out((), dt)  # steps 1: start; out of any one-element shape
    run("Linspace", make_scalar(3), make_scalar(9), 1, o)
    close(host(o), np.array(3).astype(NPD[dt]), dt)
    o = dev_out((2, 3), dt)
    run("Linspace", make_scalar(0.0), make_scalar(5.0), 6, o)
    close(host(o), from_torch(torch.linspace(0.0, 5.0, 6, dtype=tdt(torch, dt)).reshape(2, 3)), dt)
    run("Linspace", make_scalar(0.0), make_scalar(5.0), 0, dev_out((0,), dt))


@pytest.mark.parametrize("dt", dtypes("Eye"))
def test_eye(torch, dt):
    for n, m in ((3, 5), (4, 4), (5, 2), (1, 1)):
        o = dev_out((n, m), dt, "t")
        run("Eye", n, m, o)
        same_bits(host(o), from_torch(torch.eye(n, m, dtype=tdt(torch, dt))))
    run("Eye", 0, 3, dev_out((0, 3), dt))


def _tri(torch, fn, x, d, dt):
    t = to_torch(torch, x)
    if dt in ("u16", "u32", "u64"):  # PyTorch CPU has no tril/triu for them: move the same positions as int64
        return from_torch(fn(t.to(torch.int64), d).to(tdt(torch, dt)))
    return from_torch(fn(t, d))


@pytest.mark.parametrize("dt", dtypes("Tril"))
def test_tril_triu(torch, rng, dt):
    x = rand(rng, (2, 3, 4), dt)
    for d in (0, 1, -1, 3, -2, 9, -9, INT64_MAX, INT64_MIN):
        for op, fn in (("Tril", torch.tril), ("Triu", torch.triu)):
            e = _tri(torch, fn, x, max(min(d, 100), -100), dt)
            o = dev_out(x.shape, dt, "s")
            run(op, dev(x, "t"), d, o)
            same_bits(host(o), e)
            t = dev(x, "s")
            run("Inplace" + op, t, d)
            same_bits(host(t), e)
    y = rand(rng, (5, 2), dt)
    same_bits(_run1("Tril", y, -1, dt), _tri(torch, torch.tril, y, -1, dt))
    run("Tril", dev(rand(rng, (0, 3), dt)), 0, dev_out((0, 3), dt))
    run("Triu", dev(rand(rng, (0,), dt)), 0, dev_out((0,), dt))  # Triu: an empty self of any rank


def _run1(op, x, d, dt):
    o = dev_out(x.shape, dt)
    run(op, dev(x), d, o)
    return host(o)


def test_tril_aliased_out(torch, rng):
    """out overlapping self (a shifted view of the same memory): the device computes into a temporary first"""
    from pyaclnn.lowlevel import AclTensor
    buf = dev(np.arange(20, dtype=np.float32), "c")
    src = AclTensor((4, 4), np.float32, (4, 1), 0, None, buf.buffer)
    dst = AclTensor((4, 4), np.float32, (4, 1), 2, None, buf.buffer)
    e = np.arange(20, dtype=np.float32)
    e[2:18] = np.triu(e[:16].reshape(4, 4), 1).reshape(-1)
    run("Triu", src, 1, dst)
    same_bits(host(buf), e)
