"""Every elementwise op of the op table, generated from its entry: values against PyTorch CPU for every dtype of its
ASCEND910B support list (plain, broadcast, strided/offset views, 0-d and empty tensors, in-place), and the invalid
rows its validation implies (NULL per argument -> 161001, a dtype outside the list, a wrong out shape -> 161002)."""
import zlib

import numpy as np
import pytest

from table_harness import (NP, TORCH, compare, default_scalar, expect_status, from_torch, null_rows, ops, rand,
                           to_torch)
import pyaclnn
from pyaclnn.lowlevel import AclTensor
from pyaclnn.ops.elementwise import result_dtype
from pyaclnn.ops.table import make_scalar

EW = ops(kind="elementwise")
ATTRS = {"int": int, "double": float, "float": float, "bool": bool}
SCALARISH = ("scalar",) + tuple(ATTRS)
CASES = {"plain": [(3, 5), (3, 5), (3, 5)], "bcast": [(2, 3, 4), (4,), (3, 1)], "strided": [(4, 6), (4, 6), (4, 6)],
         "scalar0d": [(), (), ()], "empty": [(0, 3), (0, 3), (0, 3)], "special": [(4, 8), (4, 8), (4, 8)]}
SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30]
FLOATISH = ("f32", "f16", "bf16", "f64", "c64", "c128")
UNSIGNED = ("u16", "u32", "u64")


def _params():
    out = []
    for op in EW:
        for dt in op.dtypes:
            if dt in op.extra.get("skip_dtypes", ()):
                continue
            for case in CASES:
                if case == "special" and (dt not in FLOATISH or dt in op.extra.get("skip_special", ())):
                    continue
                if case == "bcast" and op.extra.get("no_bcast"):  # the op requires equal shapes
                    continue
                out.append(pytest.param(op, dt, case, id=f"{op.name}-{dt}-{case}"))
    return out


def _inputs(op, dt, case, rng):
    ins = [a for a in op.args if a.kind == "tensor" or (a.kind == "out" and op.inplace)]
    shapes = CASES[case]
    if op.inplace:  # selfRef keeps its shape: the others broadcast to it
        shapes = [(2, 3, 4), (3, 4), (2, 1, 4)] if case == "bcast" else shapes
    arrs = []
    for k, _ in enumerate(ins):
        idt = op.extra.get("input_dtypes", {}).get(k, dt)
        a = rand(rng, shapes[k % 3], idt, op.extra.get("domain"))
        if case == "special":  # NaN, +-Inf, signed zeros, a tiny value spread over the inputs
            flat = a.reshape(-1)
            for i, v in enumerate(SPECIALS):
                flat[(5 * i + 3 * k) % flat.size] = v
        if case == "strided":
            big = np.zeros(a.shape[:-1] + (a.shape[-1] * 2 + 1,), a.dtype)
            big[..., 1::2] = a
            a = big[..., 1::2]
        arrs.append(a)
    return arrs


@pytest.mark.parametrize("op,dt,case", _params())
def test_values_vs_torch(torch, op, dt, case):
    rng = np.random.default_rng(zlib.crc32(f"{op.name}-{dt}-{case}".encode()))
    arrs = _inputs(op, dt, case, rng)
    scal = [default_scalar(op, k, dt) for k in range(len(op.scalars))]
    env = {"torch": torch}
    letters = "abcdefgh"
    wide_unsigned = dt in UNSIGNED  # PyTorch CPU computes few ops on uint16/32/64: the oracle runs on int64 copies
    for k, a in enumerate(arrs):
        t = to_torch(torch, a.copy())
        env[letters[k]] = t.to(torch.int64) if wide_unsigned and a.dtype == NP[dt] else t
    for k, s in enumerate(scal):
        env[f"s{k}"] = int(s) if wide_unsigned and isinstance(s, np.generic) else s
    try:
        exp_t = eval(op.torch, env)
    except (RuntimeError, TypeError) as e:
        pytest.skip(f"PyTorch CPU has no {op.name} for {dt}: {e}")
    if wide_unsigned and exp_t.dtype == torch.int64:
        exp_t = exp_t.to(getattr(torch, TORCH[dt]))
    exp = from_torch(exp_t)
    if op.inplace:
        self_arr = arrs[0]
        pyaclnn.call(op.name, *_interleave(op, arrs, scal, None))
        compare(self_arr, exp, dt)
        return
    out = np.empty(exp.shape, exp.dtype)
    if case == "strided":
        big = np.zeros(out.shape[:-1] + (out.shape[-1] * 3,), out.dtype)
        out = big[..., 2::3]
    pyaclnn.call(op.name, *_interleave(op, arrs, scal, out))
    compare(out, exp, dt)


def _interleave(op, arrs, scal, out):
    it_t, it_s, args = iter(arrs), iter(scal), []
    for a in op.args:
        if a.kind == "tensor" or (a.kind == "out" and op.inplace):
            args.append(next(it_t))
        elif a.kind in SCALARISH:
            args.append(next(it_s))
        else:
            args.append(out)
    return args


def _c_args(op, dt, out_shape=(3, 5), dtype_override=None):
    rng = np.random.default_rng(0)
    keep, args = [], []
    for a in op.args:
        if a.kind == "tensor" or (a.kind == "out" and op.inplace):
            d = dtype_override or op.extra.get("arg_dtypes", {}).get(a.name, (dt,))[0]
            t = AclTensor.from_array(rand(rng, (3, 5), d))
        elif a.kind == "out" and op.result == "complex":
            t = AclTensor.empty(out_shape, NP["c128" if dt == "f64" else "c64"])
        elif a.kind == "out" and op.result == "real":
            t = AclTensor.empty(out_shape, NP[{"c128": "f64", "c64": "f32"}.get(dt, dt if dt in ("f32", "f64") else
                                                                              "f32")])
        elif a.kind == "out":
            t = AclTensor.empty(out_shape, NP[op.extra.get("out_dtype", "bool" if op.result == "bool" else
                                                            ("f32" if op.compute == "float" and dt in (
                                                                "i8", "i16", "i32", "i64", "u8", "bool") else dt))])
        elif a.kind in ATTRS:
            t = ATTRS[a.kind](default_scalar(op, sum(1 for b in op.args[:len(args)] if b.kind in SCALARISH), dt))
        else:
            t = make_scalar(default_scalar(op, sum(1 for b in op.args[:len(args)] if b.kind in SCALARISH), dt))
        keep.append(t)
        args.append(t)
    return args, keep


@pytest.mark.parametrize("op", [pytest.param(o, id=o.name) for o in EW])
def test_invalid_inputs(op):
    dt = next(d for d in op.dtypes if d not in op.extra.get("skip_dtypes", ()))
    args, keep = _c_args(op, dt)
    expect_status(op.name, args, 0)
    nc = op.extra.get("null_code")
    for i, name in null_rows(op):
        bad = list(args)
        bad[i] = None
        inner = nc == "inner" or (isinstance(nc, tuple) and name in nc)
        expect_status(op.name, bad, 561103 if inner else 161001, name)
    outside = [d for d in ("f32", "f64", "i32", "i64", "u8", "i8", "i16", "f16", "bool", "c64") if d not in op.dtypes]
    if "bad_dtype" in op.extra:  # inputs outside the list that still promote into it (e.g. bool compared as int8)
        outside = [op.extra["bad_dtype"]]
    if outside:
        bad, keep2 = _c_args(op, dt, dtype_override=outside[0])
        first = next(a.name for a in op.args if a.kind == "tensor" or (a.kind == "out" and op.inplace))
        expect_status(op.name, bad, 161002, first)
    if not op.inplace:
        bad, keep3 = _c_args(op, dt, out_shape=(3, 4))
        expect_status(op.name, bad, 161002, next(a.name for a in op.args if a.kind == "out"))


@pytest.mark.parametrize("op,dt", [pytest.param(op, dt, id=f"{op.name}-{dt}") for op in EW for dt in op.dtypes
                                   if dt not in op.extra.get("skip_dtypes", ())])
def test_writes_only_its_out_view(op, dt):
    """No PyTorch needed (runs under the sanitizers too): broadcast inputs with specials, `out` a strided view in a
    canary-filled buffer; every byte outside the view keeps its canary."""
    rng = np.random.default_rng(zlib.crc32(f"{op.name}-{dt}-canary".encode()))
    arrs = _inputs(op, dt, "plain" if op.extra.get("no_bcast") else "bcast", rng)
    scal = [default_scalar(op, k, dt) for k in range(len(op.scalars))]
    if op.inplace:
        target = np.zeros((2, 3, 4 * 2 + 1), arrs[0].dtype)
        canary = np.frombuffer(rng.bytes(target.nbytes), np.uint8).copy()
        target.view(np.uint8).reshape(-1)[:] = canary
        t = target[..., 1::2]
        t[...] = arrs[0]
        keep = target.view(np.uint8).copy()
        pyaclnn.call(op.name, *_interleave(op, [t] + arrs[1:], scal, None))
        mask = np.ones(target.shape, bool)
        mask[..., 1::2] = False
        assert (target.view(np.uint8).reshape(target.shape + (-1,))[mask] ==
                keep.reshape(target.shape + (-1,))[mask]).all()
        return
    shape = np.broadcast_shapes(*(a.shape for a in arrs))
    names = [a.name for a in op.scalars]
    if "out_dtype" in op.extra:
        odt = NP[op.extra["out_dtype"]]
    elif dt in UNSIGNED:  # (pyaclnn's result_dtype knows PyTorch's lattice, without uint16/32/64)
        odt = np.bool_ if op.result == "bool" else NP[dt]
    else:
        odt = result_dtype(op.name, arrs, dict(zip(names, scal)))
    big = np.zeros(shape[:-1] + (shape[-1] * 3,), odt)
    big.view(np.uint8).reshape(-1)[:] = np.frombuffer(rng.bytes(big.nbytes), np.uint8)
    keep = big.view(np.uint8).copy()
    out = big[..., 1::3]
    pyaclnn.call(op.name, *_interleave(op, arrs, scal, out))
    mask = np.ones(big.shape, bool)
    mask[..., 1::3] = False
    assert (big.view(np.uint8).reshape(big.shape + (-1,))[mask] == keep.reshape(big.shape + (-1,))[mask]).all()
