"""ops-math: elementwise binary and ternary ops: arithmetic, division/remainder, pow, min/max, comparisons,
logical and bitwise ops, shifts, clamps, where/masked fill, lerp/addcmul/addcdiv, xlogy, isclose."""
from . import INT, ew

ALLN = ("f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "bool", "c64", "c128")
TT = "const aclTensor* self, const aclTensor* other, aclTensor* out"
TS = "const aclTensor* self, const aclScalar* other, aclTensor* out"
RT = "aclTensor* selfRef, const aclTensor* other"
RS = "aclTensor* selfRef, const aclScalar* other"
CRT, CRS = "const " + RT, "const " + RS  # the headers that declare the written selfRef const
WRAP = "(int64_t)((uint64_t)a {op} (uint64_t){b})"


def inplace_of(t):
    return f"a.copy_({t})"


def pair(name, header, dtypes, formula, torch, tensor_args=TT, scalar_args=TS, inplace=RT, inplace_s=RS,
         scalar_name=None, names=None, inplace_dtypes=None, **kw):
    """X (tensor, tensor), Xs/XScalar (tensor, scalar) and their Inplace twins; formula over a and b (the scalar
    variants get the same formula with s0 for b). names: the four op names when they do not follow X / Xs."""
    n_tt, n_ts, n_it, n_is = names or (name, scalar_name or name + "s", "Inplace" + name,
                                       "Inplace" + (scalar_name or name + "s"))

    def sub(f):
        if isinstance(f, dict):
            return {k: v.replace("b", "s0").replace("s0it", "bit") for k, v in f.items()}
        return f.replace("b", "s0")

    fs = sub(formula)
    ts = torch.replace("(a, b", "(a, s0")
    out = []
    if n_tt:
        out.append(ew(n_tt, tensor_args, header[0], dtypes=dtypes, formula=formula, torch=torch, **kw))
    if n_ts:
        out.append(ew(n_ts, scalar_args, header[1], dtypes=dtypes, formula=fs, torch=ts, **kw))
    if n_it:
        out.append(ew(n_it, inplace, header[0], dtypes=inplace_dtypes or dtypes, formula=formula,
                      torch=inplace_of(torch),
                      **{k: v for k, v in kw.items() if k not in ("out_dtypes", "out_rule")}))
    if n_is:
        out.append(ew(n_is, inplace_s, header[1], dtypes=inplace_dtypes or dtypes, formula=fs,
                      torch=inplace_of(ts),
                      **{k: v for k, v in kw.items() if k not in ("out_dtypes", "out_rule")}))
    return out


INTS = ("i8", "i16", "i32", "i64", "u8")
BITS = ("i8", "i16", "i32", "i64", "u8", "bool")
BITS16 = ("i16", "i32", "i64", "i8", "u8", "bool", "u16")
BITS_WIDE = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "bool")
BIT_FORMULA = {"And": "a & b", "Or": "a | b", "Xor": "a ^ b"}


def bitwise(n, h, tlist, slist, inplace_t, inplace_s, tfmt, sfmt, spromote):
    """Bitwise<Op>Tensor / Scalar and their Inplace twins (the Inplace ops call the out-of-place first phase with
    out = selfRef)."""
    f = BIT_FORMULA[n[7:]]
    t = f"torch.bitwise_{n[7:].lower()}(a, b)"
    ts = t.replace("(a, b", "(a, s0")
    sc = [lambda dt: True if dt == "bool" else 6]
    rn = lambda fm: tuple(r.replace("out", "selfRef").replace("self", "selfRef").replace("selfRefRef", "selfRef")
                          for r in fm if r != "!out")  # noqa: E731
    order = "dpfs" if tfmt else "dps"
    sorder = "dpfs" if sfmt else "dps"
    skw = dict(scalar_dtypes=True, scalar_mode="full", scalars=sc)
    if spromote:
        skw["promote"] = spromote
    return [ew(n + "Tensor", TT, f"aclnn_bitwise_{h}_tensor.h", dtypes=tlist, formula={"i": f}, torch=t,
               formats=tfmt, order=order),
            ew(n + "Scalar", TS, f"aclnn_bitwise_{h}_scalar.h", dtypes=slist, formula={"i": f.replace("b", "s0")},
               torch=ts, formats=sfmt, order=sorder, **skw),
            ew("Inplace" + n + "Tensor", inplace_t, f"aclnn_bitwise_{h}_tensor.h", dtypes=tlist, formula={"i": f},
               torch=inplace_of(t), formats=rn(tfmt), order=order),
            ew("Inplace" + n + "Scalar", inplace_s, f"aclnn_bitwise_{h}_scalar.h", dtypes=slist,
               formula={"i": f.replace("b", "s0")}, torch=inplace_of(ts), formats=rn(sfmt), order=sorder, **skw)]
LAE_IN = ("f32", "f16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "bool", "bf16")
WIDE = ("f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "bool", "c64", "c128")
EQL = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "bf16", "bool", "f64", "c64", "c128")
LTL = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "u32", "u64", "bool", "u16", "bf16")
LT_OUT = ("i64", "u64", "i32", "u32", "i16", "u16", "i8", "u8", "f64", "f32", "f16", "bf16", "bool", "c128", "c64")
LEL = ("i8", "u8", "i16", "u16", "i32", "i64", "f16", "f32", "f64", "bool", "bf16")
GTL = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "u32", "u64", "u16", "bf16", "bool")
GT_OUT = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "u32", "u64", "bool", "u16", "c64", "c128", "bf16")
GEL = ("f32", "i32", "f16", "i8", "f64", "i16", "i64", "u64", "u32", "u16", "u8", "bf16")
GE_OUT = ("f32", "i32", "f16", "i8", "f64", "i16", "i64", "u64", "u32", "u16", "u8", "c128", "c64", "bool", "bf16")
CMP_SYM = {"Eq": "==", "Ne": "!=", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">="}


def cmp(n, h, ct, cs):
    """<Cmp>Tensor / <Cmp>Scalar and their Inplace twins, as each A2 op_api checks them:
    Eq/Ne: inputs, (scalar) and out in one list; the scalar ops compare in self's dtype unless a bool self or a
      floating/complex scalar promotes (ew_promote_cmp_scalar); Ne-tensor returns early for empty inputs.
    Lt/Le: input and out lists; Lt/Le-scalar convert a DOUBLE scalar to FLOAT for a non-floating self; Le-tensor
      returns early for empty inputs.
    Gt/Ge: out's list first, then the promoted dtype (bool compared as int8) must be in the input list (the inputs
      themselves are not checked, except Gt-scalar's)."""
    f = f"a {CMP_SYM[n]} b"
    t = f"torch.{n.lower()}(a, b)"
    ts = t.replace("(a, b", "(a, s0")
    tt, ts_, it, is_ = n + "Tensor", n + "Scalar", "Inplace" + n + "Tensor", "Inplace" + n + "Scalar"
    common = dict(result="bool", out_rule="list")
    T, S = dict(common), dict(common, scalar_dtypes=True)
    if n in ("Eq", "Ne"):
        lst = EQL if n == "Eq" else EQL
        T.update(dtypes=lst, out_dtypes=lst, promoted=lst if n == "Eq" else None)
        S.update(dtypes=lst, out_dtypes=lst, promote="ew_promote_cmp_scalar")
        if n == "Ne":
            T.update(order="edps")
    elif n == "Lt":
        T.update(dtypes=LTL, out_dtypes=LT_OUT)
        S.update(dtypes=LTL, out_dtypes=LTL, scalar_dtypes=LTL + ("f64",), promote="ew_promote_lt_scalar",
                 null_code=("self", "other"))
    elif n == "Le":
        T.update(dtypes=LEL, out_dtypes=LEL, order="edps")
        S.update(dtypes=LEL, out_dtypes=LEL, promote="ew_promote_le_scalar")
    else:
        lst, outl = (GTL, GT_OUT) if n == "Gt" else (GEL, GE_OUT)
        T.update(dtypes=lst, arg_dtypes={"self": WIDE, "other": WIDE}, out_dtypes=outl, promoted=lst,
                 promote="ew_promote_bool_i8")
        S.update(dtypes=lst, out_dtypes=outl, promoted=lst if n == "Ge" else None,
                 scalar_dtypes=lst if n == "Gt" else None, promote="ew_promote_gt_scalar")
        T.update(bad_dtype="c64")
        if n == "Ge":
            S.update(arg_dtypes={"self": WIDE}, bad_dtype="c64")
    for d in (T, S):
        for k in [k for k, v in d.items() if v is None]:
            del d[k]
    IT = {k: v for k, v in T.items() if k not in ("out_dtypes", "out_rule")}
    IS = {k: v for k, v in S.items() if k not in ("out_dtypes", "out_rule")}
    for d, ref in ((IT, "selfRef"), (IS, "selfRef")):
        if "arg_dtypes" in d:
            d["arg_dtypes"] = {(ref if k == "self" else k): v for k, v in d["arg_dtypes"].items()}
        if "null_code" in d and isinstance(d["null_code"], tuple):
            d["null_code"] = tuple(ref if x == "self" else x for x in d["null_code"])
    fs = f.replace("b", "s0")
    if n not in ("Eq", "Ne"):  # ordered comparisons have no complex kernel (complex is only an out dtype)
        f, fs = {"f": f, "i": f}, {"f": fs, "i": fs}
    return [ew(tt, TT, f"aclnn_{h}_tensor.h", formula=f, torch=t, **T),
            ew(ts_, TS, f"aclnn_{h}_scalar.h", formula=fs, torch=ts, **S),
            ew(it, CRT if ct else RT, f"aclnn_{h}_tensor.h", formula=f, torch=inplace_of(t), **IT),
            ew(is_, CRS if cs else RS, f"aclnn_{h}_scalar.h", formula=fs, torch=inplace_of(ts), **IS)]


SHIFTS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
CLAMP = ("f16", "f32", "i32", "i64", "i16", "i8", "u8", "f64", "bf16")
CLAMP_MIN = {"f": "isnan(a) ? a : (isnan(b) ? b : (a < b ? b : a))", "i": "a < b ? b : a"}
CLAMP_MAX = {"f": "isnan(a) ? a : (isnan(b) ? b : (a > b ? b : a))", "i": "a > b ? b : a"}
ADDCMUL = ("f32", "i32", "i64", "f16", "i8", "u8", "f64", "bf16")  # the promoted dtype: not i16, bool, complex
LERP = "fabs(c) < 0.5 ? a + c * (b - a) : b - (b - a) * (1 - c)"
DIV = ("f16", "f32", "i64", "i32", "i16", "i8", "u8", "f64", "bool", "bf16", "c64", "c128")
DIVQ = {"f": "a / b", "i": "ew_idiv_trunc(a, b)", "c": "a / b"}
DIVQS = {k: v.replace("b)", "s0)").replace("/ b", "/ s0") for k, v in DIVQ.items()}
DIVMOD = {"f": "s0 == 1 ? trunc(a / b) : (s0 == 2 ? ew_floordiv(a, b) : a / b)",
          "i": "s0 == 2 ? ew_ifloordiv(a, b) : ew_idiv_trunc(a, b)", "c": "a / b"}
DIVMODS = {k: v.replace("b)", "s0)").replace("/ b", "/ s0").replace("s0 ==", "s1 ==") for k, v in DIVMOD.items()}
RSUB = ("f32", "f16", "i64", "i32", "i8", "u8", "i16", "f64", "c64", "c128", "bf16")
XLOGY = ("f32", "i32", "i64", "f16", "i8", "u8", "bool", "i16", "bf16")
CMP_IN = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16")
CMP_OUT = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16", "c64", "c128")
EQ_IN = CMP_IN + ("c64", "c128")
POS = [lambda dt: 3 if dt in INT else 1.5]
LOW = lambda dt: 1 if dt == "u8" else (-1 if dt in INT else -0.5)  # noqa: E731  (a lower bound uint8 can hold)

OPS = (
    # ---- arithmetic ----
    [ew("Sub", "const aclTensor* self, const aclTensor* other, const aclScalar* alpha, aclTensor* out", "aclnn_sub.h",
        dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16", "bool", "c64", "c128"),
        formula={"f": "a - s0 * b", "i": WRAP.format(op="-", b="s0 * (uint64_t)b"), "c": "a - s0 * b"},
        scalar_promote=False, skip_dtypes=("bool",), torch="torch.sub(a, b, alpha=s0)"),
     ew("Subs", "const aclTensor* self, const aclScalar* other, const aclScalar* alpha, aclTensor* out", "aclnn_sub.h",
        dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16", "bool", "c64", "c128"),
        formula={"f": "a - s1 * s0", "i": WRAP.format(op="-", b="s1 * (uint64_t)s0"), "c": "a - s1 * s0"},
        scalar_promote=("other",), skip_dtypes=("bool",), torch="torch.sub(a, s0, alpha=s1)"),
     ew("InplaceSub", "aclTensor* selfRef, const aclTensor* other, const aclScalar* alpha", "aclnn_sub.h",
        dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16", "bool", "c64", "c128"),
        formula={"f": "a - s0 * b", "i": WRAP.format(op="-", b="s0 * (uint64_t)b"), "c": "a - s0 * b"},
        scalar_promote=False, skip_dtypes=("bool",), torch="a.sub_(b, alpha=s0)"),
     ew("InplaceSubs", "aclTensor* selfRef, const aclScalar* other, const aclScalar* alpha", "aclnn_sub.h",
        dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16", "bool", "c64", "c128"),
        formula={"f": "a - s1 * s0", "i": WRAP.format(op="-", b="s1 * (uint64_t)s0"), "c": "a - s1 * s0"},
        scalar_promote=("other",), skip_dtypes=("bool",), torch="a.sub_(s0, alpha=s1)")]
    + pair("Mul", ("aclnn_mul.h", "aclnn_mul.h"), ALLN, {"f": "a * b", "i": WRAP.format(op="*", b="b"), "c": "a * b"},
           "torch.mul(a, b)")
    # Div(s): out must take PromoteType(self, other) (Divs: self's dtype); the quotient's dtype: ew_promote_div(s)
    + [ew("Div", TT, "aclnn_div.h", dtypes=DIV, formula=DIVQ, promote="ew_promote_div",
          formats=("!self", "!other", "!out"), order="sdpf", skip_special=("c64", "c128"),
          torch="torch.div(a, b)"),
       ew("Divs", TS, "aclnn_div.h", dtypes=DIV, formula=DIVQS, promote="ew_promote_divs", scalar_dtypes=True,
          scalar_cast_check=False, formats=("!out", "!self"), order="fdsp", skip_special=("c64", "c128"),
          torch="torch.div(a, s0)"),
       ew("InplaceDiv", RT, "aclnn_div.h", dtypes=DIV, formula=DIVQ, promote="ew_promote_div",
          formats=("!selfRef", "!other"), order="sdpf", skip_special=("c64", "c128"),
          torch="a.copy_(torch.div(a, b))"),
       ew("InplaceDivs", RS, "aclnn_div.h", dtypes=DIV, formula=DIVQS, promote="ew_promote_divs",
          scalar_dtypes=True, scalar_cast_check=False, formats=("!selfRef",), order="fdsp",
          skip_special=("c64", "c128"), torch="a.copy_(torch.div(a, s0))")]
    # DivMod(s): mode 0 true, 1 truncating, 2 flooring division; the compute dtype follows the A2 branches
    # (ew_promote_divmod(s)); formats: no private format on any tensor
    + [ew("DivMod", "const aclTensor* self, const aclTensor* other, int mode, aclTensor* out", "aclnn_div.h",
          dtypes=DIV, formula=DIVMOD, promote="ew_promote_divmod", check="ew_check_divmod",
          formats=("!self", "!other", "!out"), order="sdpfh", scalars=[2], domain=(1, 9), skip_dtypes=("bool", "c64", "c128"),
          skip_special=("c64", "c128"), torch="torch.div(a, b, rounding_mode='floor')"),
       ew("DivMods", "const aclTensor* self, const aclScalar* other, int mode, aclTensor* out", "aclnn_div.h",
          dtypes=DIV, formula=DIVMODS, promote="ew_promote_divmods", check="ew_check_divmod", scalar_dtypes=True,
          scalar_cast_check=False, formats=("!out", "!self"), order="fdsph",
          scalars=[lambda dt: 3 if dt in INT else (True if dt == "bool" else 1.5), 2], skip_dtypes=("bool", "c64", "c128"),
          skip_special=("c64", "c128"), torch="torch.div(a, s0, rounding_mode='floor')"),
       ew("InplaceDivMod", "aclTensor* selfRef, const aclTensor* other, int mode", "aclnn_div.h",
          dtypes=DIV, formula=DIVMOD, promote="ew_promote_divmod", check="ew_check_divmod",
          formats=("!selfRef", "!other"), order="sdpfh", scalars=[2], domain=(1, 9), skip_dtypes=("bool", "c64", "c128"),
          skip_special=("c64", "c128"), torch="a.copy_(torch.div(a, b, rounding_mode='floor'))"),
       ew("InplaceDivMods", "aclTensor* selfRef, const aclScalar* other, int mode", "aclnn_div.h",
          dtypes=DIV, formula=DIVMODS, promote="ew_promote_divmods", check="ew_check_divmod", scalar_dtypes=True,
          scalar_cast_check=False, formats=("!selfRef",), order="fdsph",
          scalars=[lambda dt: 3 if dt in INT else (True if dt == "bool" else 1.5), 2], skip_dtypes=("bool", "c64", "c128"),
          skip_special=("c64", "c128"), torch="a.copy_(torch.div(a, s0, rounding_mode='floor'))")]
    # Rsub(s): other - alpha * self; Rsubs promotes with a floating scalar only
    + [ew("Rsub", "const aclTensor* self, const aclTensor* other, const aclScalar* alpha, aclTensor* out",
          "aclnn_rsub.h", dtypes=RSUB, scalar_promote=False, torch="torch.rsub(a, b, alpha=s0)",
          formula={"f": "b - s0 * a", "i": WRAP.format(op="-", b="s0 * (uint64_t)a").replace("(uint64_t)a -", "(uint64_t)b -"),
                   "c": "b - s0 * a"}),
       ew("Rsubs", "const aclTensor* self, const aclScalar* other, const aclScalar* alpha, aclTensor* out",
          "aclnn_rsub.h", dtypes=RSUB, arg_dtypes={"other": RSUB}, scalar_promote=("other",), scalar_mode="float",
          scalar_cast_check=("alpha",), torch="torch.rsub(a, s0, alpha=s1)",
          formula={"f": "s0 - s1 * a", "i": "(int64_t)((uint64_t)s0 - (uint64_t)s1 * (uint64_t)a)",
                   "c": "s0 - s1 * a"})]
    + pair("FloorDivide", ("aclnn_floor_divide.h", "aclnn_floor_divide.h"),
           ("f16", "f32", "i64", "i32", "i16", "i8", "u8", "f64", "bool", "bf16"),
           {"f": "ew_floordiv(a, b)", "i": "ew_ifloordiv(a, b)"}, "torch.floor_divide(a, b)", domain=(1, 9),
           skip_dtypes=("bool",))
    + pair("RemainderTensor", ("aclnn_remainder.h", "aclnn_remainder.h"), ("i32", "i64", "f16", "f32", "f64", "bf16"),
           {"f": "ew_remainder(a, b)", "i": "ew_iremainder(a, b)"}, "torch.remainder(a, b)",
           names=("RemainderTensorTensor", "RemainderTensorScalar", "InplaceRemainderTensorTensor",
                  "InplaceRemainderTensorScalar"), domain=(1, 9))
    + [ew("RemainderScalarTensor", "const aclScalar* self, const aclTensor* other, aclTensor* out", "aclnn_remainder.h",
          dtypes=("i32", "i64", "f16", "f32", "f64", "bf16"), domain=(1, 9),
          formula={"f": "ew_remainder(s0, a)", "i": "ew_iremainder(s0, a)"}, torch="torch.remainder(s0, a)")]
    + pair("Fmod", ("aclnn_fmod_tensor.h", "aclnn_fmod_scalar.h"), ("f32", "i32", "i8", "f16", "u8", "f64", "i64", "bf16"),
           {"f": "fmod(a, b)", "i": "ew_ifmod(a, b)"}, "torch.fmod(a, b)",
           names=("FmodTensor", "FmodScalar", "InplaceFmodTensor", "InplaceFmodScalar"), domain=(1, 9))
    + [ew("PowTensorTensor", "const aclTensor* self, const aclTensor* exponent, aclTensor* out",
          "aclnn_pow_tensor_tensor.h", dtypes=("f32", "i32", "i64", "f16", "i8", "u8", "f64", "bool", "c64", "c128",
                                               "i16", "bf16"),
          formula={"f": "pow(a, b)", "i": "ew_ipow(a, b)", "c": "pow(a, b)"}, domain=(0, 3), skip_dtypes=("bool",),
          check="ew_check_not_both_bool", order="hdps", torch="torch.pow(a, b)"),
       ew("InplacePowTensorTensor", "const aclTensor* self, const aclTensor* exponent", "aclnn_pow_tensor_tensor.h",
          dtypes=("f32", "i32", "i64", "f16", "i8", "u8", "f64", "bool", "c64", "c128", "i16", "bf16"),
          formula={"f": "pow(a, b)", "i": "ew_ipow(a, b)", "c": "pow(a, b)"}, domain=(0, 3), skip_dtypes=("bool",),
          check="ew_check_not_both_bool", order="hdps", torch="a.pow_(b)"),
       ew("PowTensorScalar", "const aclTensor* self, const aclScalar* exponent, const aclTensor* out", "aclnn_pow.h",
          out="out", dtypes=("f32", "i32", "i64", "f16", "i8", "u8", "f64", "bool", "i16", "c64", "c128", "bf16"),
          formula={"f": "pow(a, s0)", "i": "ew_ipow(a, s0)", "c": "pow(a, s0)"}, domain=(0, 3), skip_dtypes=("bool",),
          scalars=[lambda dt: 3 if dt in INT else 2.5], torch="torch.pow(a, s0)"),
       ew("InplacePowTensorScalar", "const aclTensor* self, const aclScalar* exponent", "aclnn_pow.h",
          dtypes=("f32", "i32", "i64", "f16", "i8", "u8", "f64", "i16", "c64", "c128", "bf16"),
          formula={"f": "pow(a, s0)", "i": "ew_ipow(a, s0)", "c": "pow(a, s0)"}, domain=(0, 3),
          scalars=[lambda dt: 3 if dt in INT else 2.5], torch="a.pow_(s0)"),
       ew("PowScalarTensor", "const aclScalar* self, const aclTensor* exponent, const aclTensor* out", "aclnn_pow.h",
          out="out",
          dtypes=("f32", "i32", "i64", "f16", "i8", "u8", "f64", "i16", "c64", "c128", "bf16"),
          formula={"f": "pow(s0, a)", "i": "ew_ipow(s0, a)", "c": "pow(s0, a)"}, domain=(0, 3),
          scalars=[lambda dt: 3 if dt in INT else 1.5], torch="torch.pow(s0, a)")]
    + [ew(n, TT, h, dtypes=("f32", "f16", "i32", "i8", "i64", "bf16", "i16", "u8", "f64", "bool"),
          formula={"f": f, "i": i}, torch=t)
       for n, h, f, i, t in (
           ("Maximum", "aclnn_maximum.h", "isnan(a) ? a : (isnan(b) ? b : (a > b ? a : b))", "a > b ? a : b",
            "torch.maximum(a, b)"),
           ("Minimum", "aclnn_minimum.h", "isnan(a) ? a : (isnan(b) ? b : (a < b ? a : b))", "a < b ? a : b",
            "torch.minimum(a, b)"))]
    + [ew("Atan2", TT, "aclnn_atan2.h", dtypes=("f32", "f16", "f64", "i8", "i16", "i32", "i64", "bool", "u8", "bf16"),
          compute="float", formula="atan2(a, b)", torch="torch.atan2(a, b)"),
       ew("InplaceAtan2", "aclTensor* selfRef, aclTensor* other", "aclnn_atan2.h", dtypes=("f32", "f16", "f64", "bf16"),
          compute="float", formula="atan2(a, b)", torch="a.atan2_(b)"),
       ew("LogAddExp", TT, "aclnn_logaddexp.h", dtypes=LAE_IN, out_rule="list", out_dtypes=("f16", "f32", "bf16"),
          compute="out", formula="ew_logaddexp(a, b)", order="dps", out_dtype="f32",
          torch="torch.logaddexp(a.float(), b.float()) if not a.is_floating_point() or a.dtype == torch.float64 "
          "else torch.logaddexp(a, b)"),
       ew("LogAddExp2", TT, "aclnn_logaddexp2.h", dtypes=LAE_IN, out_rule="list", out_dtypes=("f16", "f32", "bf16"),
          compute="out", formula="ew_logaddexp2(a, b)", order="dps", out_dtype="f32",
          torch="torch.logaddexp2(a.float(), b.float()) if not a.is_floating_point() or a.dtype == torch.float64 "
          "else torch.logaddexp2(a, b)"),
       ew("Gcd", TT, "aclnn_gcd.h", dtypes=("i32", "i16", "i64"), formula={"i": "ew_gcd(a, b)"}, torch="torch.gcd(a, b)"),
       ew("XLogYTensor", TT, "aclnn_x_log_y_tensor.h", dtypes=XLOGY,
          compute="float", formula="a == 0 && !isnan(b) ? 0 : a * log(b)", domain=(0, 3), torch="torch.xlogy(a, b)"),
       ew("InplaceXLogYTensor", RT, "aclnn_x_log_y_tensor.h", dtypes=XLOGY, compute="float",
          skip_dtypes=("i32", "i64", "i8", "u8", "bool", "i16"),
          formula="a == 0 && !isnan(b) ? 0 : a * log(b)", domain=(0, 3), torch="a.xlogy_(b)"),
       # the scalar has its own list (with f64) and promotes as PromoteType
       ew("XLogYScalarOther", TS, "aclnn_x_log_y_scalar_other.h", dtypes=XLOGY, scalar_dtypes=XLOGY + ("f64",),
          scalar_mode="full", compute="float",
          formula="a == 0 && !isnan(s0) ? 0 : a * log(s0)", scalars=POS, torch="torch.xlogy(a, s0)"),
       ew("InplaceXLogYScalarOther", RS, "aclnn_x_log_y_scalar_other.h", dtypes=XLOGY, scalar_dtypes=XLOGY + ("f64",),
          scalar_mode="full", skip_dtypes=("i32", "i64", "i8", "u8", "bool", "i16"), compute="float", formula="a == 0 && !isnan(s0) ? 0 : a * log(s0)", scalars=POS, torch="a.xlogy_(s0)"),
       ew("XLogYScalarSelf", "const aclScalar* self, const aclTensor* other, aclTensor* out",
          "aclnn_x_log_y_scalar_self.h", dtypes=XLOGY, scalar_dtypes=XLOGY + ("f64",), scalar_mode="full",
          compute="float", formula="s0 == 0 && !isnan(a) ? 0 : s0 * log(a)", domain=(0, 3), scalars=POS,
          torch="torch.xlogy(s0, a)"),
       ew("Xlog1py", "const aclTensor *x, const aclTensor *y, const aclTensor *z", "aclnn_xlog1py.h", out="z",
          dtypes=("f32", "f16", "bf16"), compute="float", same_dtype=("y",), out_rule="same",
          formats=("!x", "!y", "!z"), order="dpfs", formula="a == 0 && !isnan(b) ? 0 : a * log1p(b)",
          domain=(-0.9, 3), torch="torch.special.xlog1py(a, b)")]
    # ---- ternary ----
    # lerp: one dtype for all; the rank limit applies to non-contiguous tensors only
    + [ew("Lerp", "const aclTensor* self, const aclTensor* end, const aclTensor* weight, aclTensor* out",
          "aclnn_lerp_tensor.h", dtypes=("f16", "f32", "bf16"), same_dtype=("end", "weight"), out_rule="same",
          rank="contig", formula=LERP, torch="torch.lerp(a, b, c)"),
       ew("InplaceLerp", "aclTensor* selfRef, const aclTensor* end, const aclTensor* weight", "aclnn_lerp_tensor.h",
          dtypes=("f16", "f32", "bf16"), same_dtype=("end", "weight"), rank="contig", formula=LERP,
          torch="a.lerp_(b, c)"),
       # Lerps: the weight converted to self's dtype; out may be any float dtype of its list
       ew("Lerps", "const aclTensor* self, const aclTensor* end, const aclScalar* weight, aclTensor* out",
          "aclnn_lerp_scalar.h", dtypes=("f16", "f32", "bf16"), same_dtype=("end",), out_rule="list",
          out_dtypes=("f16", "f32", "f64", "bf16"), scalar_promote=False, scalar_cast_check=False, rank="contig",
          formula=LERP.replace("c", "s0"), scalars=[0.3], torch="torch.lerp(a, b, s0)"),
       ew("InplaceLerps", "aclTensor* selfRef, const aclTensor* end, const aclScalar* weight", "aclnn_lerp_scalar.h",
          dtypes=("f16", "f32", "bf16"), same_dtype=("end",), scalar_promote=False, scalar_cast_check=False,
          rank="contig", formula=LERP.replace("c", "s0"), scalars=[0.3], torch="a.lerp_(b, s0)"),
       ew("Addcmul", "const aclTensor* self, const aclTensor* tensor1, const aclTensor* tensor2, const aclScalar* value, "
          "aclTensor* out", "aclnn_addcmul.h", dtypes=("f32", "i32", "i64", "f16", "i8", "u8", "f64", "bf16"),
          scalar_promote=False, formula={"f": "a + s0 * b * c", "i": WRAP.format(op="+", b="s0 * (uint64_t)b * (uint64_t)c")},
          scalar_cast_check=False, promoted=ADDCMUL, formats=("!self", "!tensor1", "!tensor2", "!out"),
          order="dpfs", torch="torch.addcmul(a, b, c, value=s0)"),
       ew("InplaceAddcmul", "const aclTensor* selfRef, const aclTensor* tensor1, const aclTensor* tensor2, "
          "const aclScalar* value", "aclnn_addcmul.h", dtypes=("f32", "i32", "i64", "f16", "i8", "u8", "f64", "bf16"),
          scalar_promote=False, formula={"f": "a + s0 * b * c", "i": WRAP.format(op="+", b="s0 * (uint64_t)b * (uint64_t)c")},
          scalar_cast_check=False, promoted=ADDCMUL, formats=("!selfRef", "!tensor1", "!tensor2"),
          order="dpfs", torch="a.addcmul_(b, c, value=s0)"),
       ew("Addcdiv", "const aclTensor* self, const aclTensor* tensor1, const aclTensor* tensor2, const aclScalar* value, "
          "const aclTensor* out", "aclnn_addcdiv.h", out="out", dtypes=("f32", "f16", "f64", "bf16"),
          scalar_promote=False, formula="a + s0 * b / c", domain=(0.5, 3), torch="torch.addcdiv(a, b, c, value=s0)"),
       ew("InplaceAddcdiv", "const aclTensor* selfRef, const aclTensor* tensor1, const aclTensor* tensor2, "
          "const aclScalar* value", "aclnn_addcdiv.h", dtypes=("f32", "f16", "f64", "bf16"), scalar_promote=False,
          formula="a + s0 * b / c", domain=(0.5, 3), torch="a.addcdiv_(b, c, value=s0)")]
    # ---- comparisons (bool results); every op_api orders its own lists and promotion (see cmp()) ----
    + [op for n, h, ct, cs in (("Eq", "eq", 1, 1), ("Ne", "ne", 0, 0), ("Lt", "lt", 1, 1), ("Le", "le", 0, 0),
                               ("Gt", "gt", 1, 0), ("Ge", "ge", 0, 0))
       for op in cmp(n, h, ct, cs)]
    # ---- logical and bitwise ----
    # LogicalAnd casts its bool result to any out; Or and Xor check out against the input list
    + [ew(n, TT, h, dtypes=("f32", "f16", "i32", "f64", "bf16", "i8", "u8", "i16", "i64", "bool", "c64", "c128"),
          result="bool", formula=f, torch=t, out_rule=orule)
       for n, h, f, t, orule in (
           ("LogicalAnd", "aclnn_logical_and.h", "(a != 0) && (b != 0)", "torch.logical_and(a, b)", "cast"),
           ("LogicalOr", "aclnn_logical_or.h", "(a != 0) || (b != 0)", "torch.logical_or(a, b)", "list"),
           ("LogicalXor", "aclnn_logical_xor.h", "(a != 0) != (b != 0)", "torch.logical_xor(a, b)", "list"))]
    + [ew(n, RT, h, dtypes=("f32", "f16", "i32", "f64", "bf16", "i8", "u8", "i16", "i64", "bool", "c64", "c128"),
          result="bool", formula=f, torch=t)
       for n, h, f, t in (("InplaceLogicalAnd", "aclnn_logical_and.h", "(a != 0) && (b != 0)", "a.logical_and_(b)"),
                          ("InplaceLogicalOr", "aclnn_logical_or.h", "(a != 0) || (b != 0)", "a.logical_or_(b)"))]
    # bitwise: the tensor ops promote as PromoteType, the scalar ops with the scalar's own dtype (Or/Xor: an INT64
    # scalar whose value fits int32 counts as INT32); And checks formats, Or-tensor has the wide list
    + [op for n, h, tl, sl, ctt, cts, tfmt, sfmt, spro in (
        ("BitwiseAnd", "and", BITS16, BITS16, CRT, CRS, ("!self", "!other", "!out"), ("!self", "!out"), None),
        ("BitwiseOr", "or", BITS_WIDE, BITS16, RT, RS, (), (), "ew_promote_scalar_i32fit"),
        ("BitwiseXor", "xor", BITS, BITS, RT, RS, (), (), "ew_promote_scalar_i32fit"))
       for op in bitwise(n, h, tl, sl, ctt, cts, tfmt, sfmt, spro)]
    # BitwiseAndTensorOut: one storage format for all three tensors
    + [ew("BitwiseAndTensorOut", TT, "aclnn_bitwiseand.h", dtypes=BITS16, formula={"i": "a & b"},
          formats=("self=other", "self=out", "!self"), order="dpfs", torch="torch.bitwise_and(a, b)"),
       ew("InplaceBitwiseAndTensorOut", "const aclTensor* self, const aclTensor* other", "aclnn_bitwiseand.h",
          dtypes=BITS16, formula={"i": "a & b"}, inout="self", formats=("self=other", "!self"), order="dpfs",
          torch="a.copy_(torch.bitwise_and(a, b))")]
    # shifts at the promoted dtype's width; LeftShift checks lists, shapes, formats, then the empty return, then
    # the promotion (PromoteType; the scalar's own dtype for LeftShifts)
    + [ew("LeftShift", "const aclTensor* self, const aclTensor* shiftBits, aclTensor* out", "aclnn_left_shift.h",
          dtypes=SHIFTS, out_rule="list", formula={"i": "ew_shl(a, b, P_DT)"}, domain=(0, 6),
          formats=("!self", "!shiftBits", "!out"), order="dsfep", torch="torch.bitwise_left_shift(a, b)"),
       ew("LeftShifts", "const aclTensor* self, const aclScalar* shiftBits, aclTensor* out", "aclnn_left_shift.h",
          dtypes=SHIFTS, out_rule="list", formula={"i": "ew_shl(a, s0, P_DT)"}, scalar_dtypes=True,
          scalar_mode="full", formats=("!self", "!out"), order="dsfep",
          domain=(0, 6), scalars=[3], torch="torch.bitwise_left_shift(a, s0)"),
       ew("RightShift", "const aclTensor *input, const aclTensor *shiftBits, aclTensor *out", "aclnn_right_shift.h",
          dtypes=SHIFTS, out_rule="list", formula={"i": "ew_shr(a, b, P_DT)"}, domain=(0, 6), order="dsep",
          torch="torch.bitwise_right_shift(a, b)")]
    # ---- clamps ----
    # scalar bounds: self and out in the list, shapes, the empty return, then self must cast to out and the clamp
    # runs in out's dtype (bounds converted to it); tensor bounds: only self and out are listed, the bounds join the
    # promotion, whose dtype must be in the list
    + [ew("Clamp", "const aclTensor* self, const aclScalar* clipValueMin, const aclScalar* clipValueMax, aclTensor* out",
          "aclnn_clamp.h", dtypes=CLAMP, out_rule="list", compute="out", order="dsep",
          optional=("clipValueMin", "clipValueMax"), need_one=("clipValueMin", "clipValueMax"), scalar_promote=False,
          scalar_cast_check=False,
          formula={"f": "isnan(a) ? a : (S_HAS(1) && a > s1 ? s1 : (S_HAS(0) && a < s0 ? s0 : a))",
                   "i": "S_HAS(1) && a > s1 ? s1 : (S_HAS(0) && a < s0 ? s0 : a)"},
          scalars=[LOW, lambda dt: 2 if dt == "u8" else (1 if dt in INT else 0.5)], torch="torch.clamp(a, s0, s1)"),
       ew("ClampMin", "const aclTensor* self, const aclScalar* clipValueMin, aclTensor* out", "aclnn_clamp.h",
          dtypes=CLAMP, out_rule="list", compute="out", order="dsep", scalar_promote=False,
          scalar_cast_check=False, formula={"f": "isnan(a) ? a : (a < s0 ? s0 : a)", "i": "a < s0 ? s0 : a"},
          scalars=[LOW], torch="torch.clamp_min(a, s0)"),
       ew("ClampMax", "const aclTensor* self, const aclScalar* clipValueMax, aclTensor* out", "aclnn_clamp.h",
          dtypes=CLAMP, out_rule="list", compute="out", order="dsep", scalar_promote=False,
          scalar_cast_check=False, formula={"f": "isnan(a) ? a : (a > s0 ? s0 : a)", "i": "a > s0 ? s0 : a"},
          scalars=[lambda dt: 1 if dt in INT else 0.5], torch="torch.clamp_max(a, s0)"),
       ew("InplaceClampMax", "const aclTensor* selfRef, const aclScalar* clipValueMax", "aclnn_clamp.h",
          dtypes=CLAMP, compute="out", order="dsep", scalar_promote=False,
          scalar_cast_check=False, formula={"f": "isnan(a) ? a : (a > s0 ? s0 : a)", "i": "a > s0 ? s0 : a"},
          scalars=[lambda dt: 1 if dt in INT else 0.5], torch="a.clamp_max_(s0)")]
    + [ew(n, args, "aclnn_clamp.h", dtypes=CLAMP, out_rule=orule, arg_dtypes={b: WIDE for b in bounds},
          promoted=CLAMP, order="deps", formula=f, torch=t)
       for n, args, bounds, orule, f, t in (
           ("ClampTensor", "const aclTensor* self, const aclTensor* clipValueMin, const aclTensor* clipValueMax, "
            "aclTensor* out", ("clipValueMin", "clipValueMax"), "list",
            {"f": "isnan(a) ? a : (isnan(b) ? b : (isnan(c) ? c : (a < b ? b : a) > c ? c : (a < b ? b : a)))",
             "i": "(a < b ? b : a) > c ? c : (a < b ? b : a)"}, "torch.clamp(a, b, c)"),
           ("ClampMinTensor", "const aclTensor* self, const aclTensor* clipValueMin, aclTensor* out",
            ("clipValueMin",), "list", CLAMP_MIN, "torch.clamp_min(a, b)"),
           ("ClampMaxTensor", "const aclTensor* self, const aclTensor* max, aclTensor* out", ("max",), "list",
            CLAMP_MAX, "torch.clamp_max(a, b)"),
           ("InplaceClampMinTensor", "aclTensor* selfRef, const aclTensor* clipValueMin", ("clipValueMin",), "cast",
            CLAMP_MIN, "a.clamp_min_(b)"),
           ("InplaceClampMaxTensor", "aclTensor* selfRef, const aclTensor* max", ("max",), "cast", CLAMP_MAX,
            "a.clamp_max_(b)"))]
    # ---- selection ----
    + [ew("SWhere", "const aclTensor* condition, const aclTensor* self, const aclTensor* other, aclTensor* out",
          "aclnn_s_where.h", dtypes=("f32", "i32", "u64", "i64", "u32", "f16", "u16", "i16", "i8", "u8", "f64", "bool",
                                     "c64", "c128", "bf16"), out_rule="list",
          arg_dtypes={"condition": ("bool", "u8")}, no_promote=("condition",), input_dtypes={0: "bool"},
          formula="a ? b : c", torch="torch.where(a, b, c)"),
       ew("InplaceMaskedFillScalar", "aclTensor* selfRef, const aclTensor* mask, const aclScalar* value",
          "aclnn_masked_fill_scalar.h", dtypes=("f32", "i32", "i64", "f16", "i8", "bool", "bf16"),
          arg_dtypes={"mask": ("bool",)}, no_promote=("mask",), input_dtypes={1: "bool"}, scalar_promote=False,
          scalar_cast_check=False, formula="b ? s0 : a", scalars=[lambda dt: True if dt == "bool" else 7],
          torch="a.masked_fill_(b, s0)"),
       ew("InplaceMaskedFillTensor", "aclTensor* selfRef, const aclTensor* mask, const aclTensor* value",
          "aclnn_masked_fill_tensor.h", dtypes=("i32", "i8", "bool", "i64", "f32", "f16", "bf16"),
          arg_dtypes={"mask": ("bool",)}, no_promote=("mask", "value"), input_dtypes={1: "bool"},
          check="ew_check_value_0d", order="dphs", formula="b ? c : a", test=False, torch="a.masked_fill_(b, c)"),
       # not on Atlas A2: the op_api's A2 support list is empty (950 series: self f32/f16/bf16, mask f32/f16/u8/i8)
       ew("MaskedScale", "const aclTensor* self, const aclTensor* mask, float scale, aclTensor* out",
          "aclnn_masked_scale.h", dtypes=("f32", "f16", "bf16"), arg_dtypes={"mask": ("f32", "f16", "u8", "i8")},
          no_promote=("mask",), check="ew_check_not_on_a2", order="hdps", out_rule="same",
          formula="a * (float)b * s0", scalars=[2.0], test=False, torch="a * b * s0"),
       ew("IsClose", "const aclTensor* self, const aclTensor* other, double rtol, double atol, bool equalNan, "
          "aclTensor* out", "aclnn_isclose.h", dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool",
                                                      "bf16"),
          result="bool", formula={"f": "a == b || (isnan(a) && isnan(b) && s2) || (isfinite(a) && isfinite(b) && "
                                       "fabs((double)a - (double)b) <= s1 + s0 * fabs((double)b))",
                                  "i": "a == b || fabs((double)a - (double)b) <= (double)s1 + (double)s0 * "
                                       "fabs((double)b)"},
          scalars=[1e-2, 1e-1, True], torch="torch.isclose(a, b, rtol=s0, atol=s1, equal_nan=s2)"),
       ew("IsInTensorScalar", "const aclTensor* element, const aclScalar* testElement, bool assumeUnique, bool invert, "
          "aclTensor* out", "aclnn_isin_tensor_scalar.h",
          dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16"), result="bool", scalar_dtypes=True,
          scalar_mode="float", promoted=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16"),
          out_rule="list", out_dtypes=("bool",),
          scalar_cast_check=False, formula="(a == s0) != (s2 != 0)", scalars=[1, False, False],
          torch="torch.isin(a, torch.tensor(s0, dtype=a.dtype), assume_unique=s1, invert=s2)")]
)
