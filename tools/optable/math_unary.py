"""ops-math: elementwise unary math (math/exp, math/sin, math/round, ...), each with its Inplace twin."""
from . import INT, ew

F = ("f32", "f16", "bf16", "f64")
I = ("i8", "i16", "i32", "i64", "u8", "bool")
C = ("c64", "c128")
T = "const aclTensor* self, aclTensor* out"
R = "aclTensor* selfRef"


def inplace_torch(t):
    """The oracle of an Inplace op: the out-of-place result, cast to selfRef's dtype, written into a."""
    return f"a.copy_({t})"


def inplace_formats(formats, names, ref):
    """An op's format rules for its Inplace twin, where every tensor in `names` is `ref` (rules that become trivial
    are dropped)."""
    out = []
    for r in formats:
        if r.startswith("!"):
            r = "!" + (ref if r[1:] in names else r[1:])
        else:
            a, b = (ref if x in names else x for x in r.split("="))
            if a == b:
                continue
            r = f"{a}={b}"
        if r not in out:
            out.append(r)
    return tuple(out)


def unary(name, header, ins, outs, f, c=None, i=None, torch=None, args=T, inplace=R, inplace_dtypes=None,
          compute="float", out_rule="list", domain=None, formats=(), inplace_kw=None, **kw):
    """An op and (unless inplace=None) its Inplace twin: ins is the input support list, outs the out list (the
    Inplace op's selfRef list, unless inplace_dtypes says otherwise). formats: the format rules over the op's own
    argument names (the Inplace twin gets them over its selfRef); inplace_kw: fields only the Inplace op has."""
    formula = {"f": f}
    if c:
        formula["c"] = c
    if i:
        formula["i"] = i
    t = torch or f"torch.{name.lower()}(a)"
    ops = [ew(name, args, header, dtypes=ins, formula=formula, compute=compute, out_rule=out_rule,
              out_dtypes=outs, torch=t, domain=domain, formats=formats, **kw)]
    if inplace:
        names = [a.split()[-1].lstrip("*") for a in args.split(",")]
        ref = inplace.split()[-1].lstrip("*")
        ikw = dict(kw)
        ikw.update(inplace_kw or {})
        ops.append(ew("Inplace" + name, inplace, header, dtypes=inplace_dtypes or outs or ins, formula=formula,
                      compute=compute, torch=inplace_torch(t), formats=inplace_formats(formats, names, ref),
                      domain=domain, **ikw))
    return ops


# test clip values: integers for integer tensors
CLIP = [lambda dt: -1 if dt in INT else -0.5, lambda dt: 1 if dt in INT else 0.5]

# float functions: int/bool inputs are computed (and returned) as float32
FI = F + I
FLOOR = ("i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "f64", "f32", "f16", "bf16")
PRED = ("f32", "f16", "bf16", "f64", "bool", "i32", "i64", "i16", "i8", "u8")
PRED_NO64 = ("f32", "f16", "bf16", "bool", "i32", "i64", "i16", "i8", "u8")
FIC = F + I + C
OF, OFC = F, F + C

OPS = (
    unary("Exp", "aclnn_exp.h", ("f32", "f16", "bf16", "f64", "c64", "c128", "bool", "i64"), OFC, "exp(a)", c="exp(a)")
    + unary("Exp2", "aclnn_exp2.h", FI, OF, "exp2(a)", torch="torch.exp2(a)")
    + unary("Expm1", "aclnn_expm1.h", ("f32", "f16", "bf16", "i64", "bool"), ("f32", "f16", "bf16"), "expm1(a)")
    + unary("Log", "aclnn_log.h", FIC, OFC, "log(a)", c="log(a)", domain=(0.05, 4))
    + unary("Log2", "aclnn_log2.h", FIC, OFC, "log2(a)",
            c="log(a) / log(2.0)", args="const aclTensor* self, const aclTensor* out", out="out",
            inplace="const aclTensor* selfRef", domain=(0.05, 4))
    + unary("Log10", "aclnn_log10.h", FIC, OFC, "log10(a)", c="log(a) / log(10.0)",
            domain=(0.05, 4))
    + unary("Log1p", "aclnn_log1p.h", FI, OF, "log1p(a)", domain=(-0.9, 4))
    + unary("Sqrt", "aclnn_sqrt.h", FIC, OFC, "sqrt(a)", c="sqrt(a)", inplace="aclTensor* self", domain=(0, 4))
    + unary("Rsqrt", "aclnn_rsqrt.h", FIC, OFC, "1 / sqrt(a)", c="1 / sqrt(a)", domain=(0.05, 4))
    + unary("Reciprocal", "aclnn_reciprocal.h", FIC, OFC, "1 / a", c="1 / a", inplace="const aclTensor* selfRef",
            formats=("self=out",), order="dpfs")
    + unary("Sin", "aclnn_sin.h", FIC, OFC, "sin(a)", c="sin(a)")
    + unary("Cos", "aclnn_cos.h", FIC, OFC, "cos(a)", c="cos(a)", args="const aclTensor* input, aclTensor* out",
            inplace="aclTensor* inputRef")
    # InplaceTan lists selfRef with the inputs (an integer selfRef then fails the float result -> selfRef cast)
    + unary("Tan", "aclnn_tan.h", FIC, OFC, "tan(a)", c="tan(a)", inplace="const aclTensor* selfRef",
            inplace_dtypes=FIC, inplace_kw={"skip_dtypes": I})
    + unary("Sinh", "aclnn_sinh.h", FIC, OFC, "sinh(a)", c="sinh(a)")
    + unary("Cosh", "aclnn_cosh.h", FIC, OFC, "cosh(a)", c="cosh(a)")
    + unary("Tanh", "aclnn_tanh.h", ("f32", "f16", "bf16") + I, ("f32", "f16", "bf16"), "tanh(a)",
            formats=("self=out", "!self"), order="dpfs", vec=True)  # fp32 via kernels/vmath.h (ops-nn's activation)
    + unary("Asin", "aclnn_asin.h", FI, OF, "asin(a)", domain=(-1, 1))
    + unary("Acos", "aclnn_acos.h", FI, OF, "acos(a)", args="const aclTensor* input, aclTensor* out",
            inplace="aclTensor* inputRef", domain=(-1, 1))
    + unary("Atan", "aclnn_atan.h", FI, OF, "atan(a)", args="const aclTensor* input, aclTensor* out",
            inplace="aclTensor* inputRef")
    + unary("Asinh", "aclnn_asinh.h", FIC, OFC, "asinh(a)", c="asinh(a)", args="const aclTensor* input, aclTensor* out",
            inplace="aclTensor* inputRef")
    + unary("Acosh", "aclnn_acosh.h", FIC, OFC, "acosh(a)", c="acosh(a)", domain=(1, 5))
    + unary("Atanh", "aclnn_atanh.h", FIC, OFC, "atanh(a)", c="atanh(a)", args="const aclTensor* input, aclTensor* out",
            inplace="aclTensor* inputRef", domain=(-0.95, 0.95))
    + unary("Erf", "aclnn_erf.h", ("f64", "f32", "f16", "bf16", "bool", "i64"), F, "erf(a)")
    + unary("Erfc", "aclnn_erfc.h", ("f64", "f32", "f16", "bool", "i64", "bf16"), F, "erfc(a)",
            inplace="const aclTensor* selfRef")
    + unary("Sinc", "aclnn_sinc.h", FI, OF, "a == 0 ? 1 : sin((3.14159265358979323846 * (double)a)) / "
            "(3.14159265358979323846 * (double)a)", null_code="inner", order="dps")
    + unary("Lgamma", "aclnn_lgamma.h", ("f64", "f32", "f16"), None, "lgamma(a)", inplace=None,
            compute="same", out_rule="same", formats=("self=out",), order="dpfs", domain=(0.1, 5))
    + unary("Digamma", "aclnn_digamma.h", ("f64", "f32", "f16"), None, "ew_digamma(a)",
            inplace=None, compute="same", out_rule="same", formats=("self=out",), order="dpfs", domain=(0.1, 5))
    # same-dtype ops (integers stay integers)
    + unary("Abs", "aclnn_abs.h", ("f64", "f32", "f16", "i64", "i32", "i16", "i8", "u8", "bool", "bf16", "c64"),
            None, "fabs(a)", c="cabs(a)", i="a < 0 ? (int64_t)(0 - (uint64_t)a) : a", inplace=None, compute="same",
            result="real", out_rule="same", formats=("self=out", "!self"), order="dpfs")
    + unary("Neg", "aclnn_neg.h", ("i8", "i32", "i64", "f16", "f32", "f64", "c64", "c128", "bf16"), None, "-a",
            c="-a", i="(int64_t)(0 - (uint64_t)a)", compute="same", out_rule="cast",
            inplace_dtypes=("i8", "i32", "i64", "f16", "f32", "f64", "c64", "c128", "bf16"))
    # not on Atlas A2 (the op_api refuses every call outside the 950 series: "not implemented for ASCEND910B")
    + unary("Square", "aclnn_square.h", ("i64", "f32", "f16", "i32", "bf16"), None, "a * a",
            i="(int64_t)((uint64_t)a * (uint64_t)a)", inplace=None, compute="same", out_rule="same",
            check="ew_check_not_on_a2", order="hdpfs", formats=("self=out", "!self"), test=False)
    # bf16 passes outside the list, and then result may have any dtype; no rank limit
    + unary("Sign", "aclnn_sign.h", ("f64", "f32", "f16", "i32", "i64", "c64", "c128", "bool", "bf16"), None,
            "(a > 0) - (a < 0)", i="(a > 0) - (a < 0)", c="a == 0 ? 0 : a / cabs(a)",
            args="const aclTensor* self, aclTensor* result", inplace=None, compute="same", out_rule="any",
            check="ew_check_sign", order="dhps", rank=None,
            torch="torch.sgn(a) if a.is_complex() else torch.sign(a)")
    + unary("Floor", "aclnn_floor.h", FLOOR, None, "floor(a)", i="a", compute="same", out_rule="same",
            inplace_dtypes=FLOOR, formats=("!self", "!out"), order="dpsf")
    + unary("Ceil", "aclnn_ceil.h", ("f64", "f32", "f16", "bf16"), None, "ceil(a)", compute="same", out_rule="same",
            inplace_dtypes=("f64", "f32", "f16", "bf16"))
    + unary("Trunc", "aclnn_trunc.h", ("f32", "f16", "bf16"), None, "trunc(a)", compute="same", out_rule="same",
            inplace_dtypes=("f32", "f16", "bf16"))
    # frac: x - trunc(x) for floating dtypes, 0 for integers; out has input's dtype
    + unary("Frac", "aclnn_frac.h", ("f32", "f16", "i8", "i16", "i32", "i64", "u8", "bf16"), None, "a - trunc(a)",
            i="0", args="const aclTensor* input, aclTensor* out", inplace="aclTensor* inputRef", compute="same",
            out_rule="same", order="dps", inplace_dtypes=("f32", "f16", "i8", "i16", "i32", "i64", "u8", "bf16"),
            torch="torch.frac(a) if a.is_floating_point() else torch.zeros_like(a)")
    + unary("Round", "aclnn_round.h", ("f32", "f16", "bf16", "f64", "i32", "i64"), None, "nearbyint(a)", i="a",
            compute="same", out_rule="same", inplace="const aclTensor* selfRef",
            inplace_dtypes=("f32", "f16", "bf16", "f64", "i32", "i64"), formats=("!self", "!out"), order="dpsf")
    + [ew("RoundDecimals", "const aclTensor* self, int64_t decimals, aclTensor* out", "aclnn_round.h",
          dtypes=("f32", "f16", "bf16", "f64", "i32", "i64"), out_rule="same",
          formula={"f": "ew_round_decimals(a, s0)", "i": "a"}, scalars=[2], formats=("!self", "!out"), order="dpsf",
          torch="torch.round(a, decimals=s0)"),
       ew("InplaceRoundDecimals", "aclTensor* selfRef, int64_t decimals", "aclnn_round.h",
          dtypes=("f32", "f16", "bf16", "f64", "i32", "i64"), formula={"f": "ew_round_decimals(a, s0)", "i": "a"},
          scalars=[2], formats=("!selfRef",), order="dpsf", torch="a.round_(decimals=s0)")]
    + unary("LogicalNot", "aclnn_logical_not.h", ("u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "bool", "bf16"),
            ("u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "bool", "bf16"), "a == 0", i="a == 0",
            compute="same", result="bool", rank="contig", order="dsp", torch="torch.logical_not(a)")
    + [ew("BitwiseNot", T, "aclnn_bitwise_not.h", dtypes=("i16", "i32", "i64", "i8", "u8", "bool"), out_rule="same",
          formula={"i": "IN_DT(0) == ACL_BOOL ? !a : ~a"}, null_code="inner", formats=("!self", "!out"),
          order="dpfs", torch="torch.bitwise_not(a)")]
    # predicates
    # predicates: out must be BOOL; IsPosInf/IsNegInf check the shape first and have no f64
    + [ew(n, T, h, dtypes=dts, result="bool", out_rule=orule, out_dtypes=odts, order=order,
          formula={"f": f, "i": i}, torch=t)
       for n, h, f, i, t, dts, orule, odts, order in (
           ("IsFinite", "aclnn_isfinite.h", "isfinite(a)", "1", "torch.isfinite(a)", PRED, "list", ("bool",), "dps"),
           ("IsPosInf", "aclnn_isposinf.h", "isinf(a) && a > 0", "0", "torch.isposinf(a)", PRED_NO64, "list",
            ("bool",), "sdp"),
           ("IsNegInf", "aclnn_isneginf.h", "isinf(a) && a < 0", "0", "torch.isneginf(a)", PRED_NO64, "list",
            ("bool",), "sdp"),
           ("IsInf", "aclnn_is_inf.h", "isinf(a)", "0", "torch.isinf(a)", PRED, "cast", None, "dps"))]
    + [ew("Signbit", T, "aclnn_signbit.h", dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "u32", "u64",
                                                 "bool", "u16", "bf16"),
          result="bool", out_rule="list", formula={"f": "signbit(a) != 0", "i": "a < 0"}, torch="torch.signbit(a)")]
    # clamps and numbers
    + [ew("Hardtanh", "const aclTensor* self, const aclScalar* clipValueMin, const aclScalar* clipValueMax, aclTensor* out",
          "aclnn_hardtanh.h", dtypes=("f16", "f32", "i32", "i64", "i16", "i8", "u8", "f64", "bf16"), out_rule="same",
          scalar_dtypes=True, check="ew_check_min_le_max", order="dpsh",
          scalar_promote=False, scalar_cast_check=False, formula="a < s0 ? s0 : (a > s1 ? s1 : a)",
          scalars=CLIP, torch="torch.nn.functional.hardtanh(a, s0, s1)"),
       ew("InplaceHardtanh", "aclTensor* selfRef, const aclScalar* clipValueMin, const aclScalar* clipValueMax",
          "aclnn_hardtanh.h", dtypes=("f16", "f32", "i32", "i64", "i16", "i8", "u8", "f64", "bf16"),
          scalar_dtypes=True, check="ew_check_min_le_max", order="dpsh",
          scalar_promote=False, scalar_cast_check=False, formula="a < s0 ? s0 : (a > s1 ? s1 : a)",
          scalars=CLIP, torch="torch.nn.functional.hardtanh_(a, s0, s1)"),
       ew("NanToNum", "const aclTensor* self, float nan, float posinf, float neginf, aclTensor* out",
          "aclnn_nan_to_num.h", dtypes=("f16", "f32", "bf16", "i8", "i16", "i32", "i64", "u8", "bool"), out_rule="same",
          formula={"f": "isnan(a) ? s0 : (isinf(a) ? (a > 0 ? s1 : s2) : a)", "i": "a"}, scalars=[0.5, 100.0, -100.0],
          torch="torch.nan_to_num(a, s0, s1, s2)"),
       ew("InplaceNanToNum", "aclTensor* selfRef, float nan, float posinf, float neginf", "aclnn_nan_to_num.h",
          dtypes=("f16", "f32", "bf16", "i8", "i16", "i32", "i64", "u8", "bool"),
          formula={"f": "isnan(a) ? s0 : (isinf(a) ? (a > 0 ? s1 : s2) : a)", "i": "a"}, scalars=[0.5, 100.0, -100.0],
          torch="a.nan_to_num_(s0, s1, s2)"),
       ew("TanhBackward", "const aclTensor* gradOutput, const aclTensor* output, aclTensor* gradInput",
          "aclnn_tanh_backward.h", dtypes=("f32", "f16", "f64", "bf16"), formula="a * (1 - b * b)", vec=True,
          same_dtype=("output",), out_rule="same",
          torch="torch.ops.aten.tanh_backward(a, b)")]
)
