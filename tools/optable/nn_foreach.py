"""ops-nn foreach/: the tensor-list ops (torch._foreach_*), table-generated.

Each entry is an Op (family "custom", lib "nn") whose `opws_<Name>` is generated here (c_code, called by
tools/gen_ops.py): a descriptor for the shared first phase and runner (libsrc/ops/foreach.c) - the roles of the
arguments, the A2 dtype combinations (the ascend910b binaries of the op, op_host/config/ascend910b/*.json; for the
V2 ops the op_api source's list and scalar rule) - and the per-element kernels generated from the entry's formula:
`f` over float a, b, c (the lists' elements) and s (the scalar, per tensor) for float32/float16/bfloat16 lists,
`i` over int64 for integer lists (integer arithmetic wraps as the lists' width does). An entry without `i` computes
integer lists with `f` (exp of int8). Interfaces the A2 build does not provide (the *Inplace ops other than
ZeroInplace: ASCEND950-only binaries, docs "Atlas A2: not supported") are refused with 161002.
"""
from . import Op

F3 = ("f32", "f16", "bf16")
CDT = {"f32": "ACL_FLOAT", "f16": "ACL_FLOAT16", "bf16": "ACL_BF16", "i32": "ACL_INT32", "i16": "ACL_INT16",
       "i8": "ACL_INT8", "u8": "ACL_UINT8", "i64": "ACL_INT64", "f64": "ACL_DOUBLE", "bool": "ACL_BOOL",
       "u16": "ACL_UINT16", "u32": "ACL_UINT32", None: "ACL_DT_UNDEFINED"}

# scalar dtype of the ascend910b binaries per list dtype (the aclTensor scalar / scalar list / alpha)
S_SAME = {"f32": "f32", "f16": "f16", "bf16": "f32", "i32": "i32", "i16": "i32", "i8": "i32", "u8": "i32"}
S_LIST = {"f32": "f32", "f16": "f32", "bf16": "f32", "i32": "i64"}
S_ELEM = {"f32": "f32", "f16": "f16", "bf16": "bf16", "i32": "i32"}   # addc*_list / scalar_list: the lists' dtype
S_F32 = {"f32": "f32", "f16": "f32", "bf16": "f32"}


def combos(xs, smap=None):
    return [(x, smap[x] if smap else None, x) for x in xs]


def snake(name):
    import re
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    return s


# ops whose non-V2 header is hand-written upstream (op_api/aclnn_foreach_*.h): `aclTensorList* out` there
NONCONST_OUT = {"ForeachDivScalar", "ForeachAddList", "ForeachMulList", "ForeachDivList", "ForeachAddcdivScalar",
                "ForeachAddcdivScalarList", "ForeachLerpScalar", "ForeachLerpList", "ForeachSqrt", "ForeachCopy"}


def fe(name, args, combos_, f=None, i=None, header=None, torch=None, int_as_float=False, copy=False,
       not_on_a2=False, mode="FE_MAP", strict_scalar=False, null_order=None, srule="FE_SR_COMBOS", **kw):
    if name in NONCONST_OUT:
        args = args.replace("const aclTensorList* out", "aclTensorList* out")
    hdr = header or "aclnn_" + snake(name) + ".h"
    dts = tuple(dict.fromkeys(c[0] for c in combos_))
    op = Op(name, args, hdr, lib="nn", dtypes=dts, torch=torch, **kw)
    op.fe = {"combos": combos_, "f": f, "i": i, "int_as_float": int_as_float, "copy": copy,
             "not_on_a2": not_on_a2, "mode": mode, "strict_scalar": strict_scalar, "null_order": null_order,
             "srule": srule}
    names = [a.name for a in op.args]
    written = "out" if "out" in names else next(a.name for a in op.args if a.kind == "tensorlist")
    if mode == "FE_UNSCALE":  # foundInf is written too
        next(a for a in op.args if a.name == "foundInf").kind = "out"
    for a in op.args:  # the written list is an output for pyaclnn.call (the headers declare it const)
        if a.name == written:
            a.kind = "outlist"
    op.fe["inplace"] = "out" not in names
    return op


UN = "const aclTensorList* x, const aclTensorList* out"
SC_T = "const aclTensorList* x, const aclTensor* scalar, const aclTensorList* out"
SC_V2 = "const aclTensorList* x, const aclScalar* scalar, aclTensorList* out"
SC_L = "const aclTensorList* x, const aclScalarList* scalars, const aclTensorList* out"
BL = "const aclTensorList* x1, const aclTensorList* x2, const aclTensorList* out"
BL_A = "const aclTensorList* x1, const aclTensorList* x2, const aclTensor* alpha, const aclTensorList* out"
BL_A2 = "const aclTensorList* x1, const aclTensorList* x2, const aclScalar* alpha, aclTensorList* out"
TL = "const aclTensorList* x1, const aclTensorList* x2, const aclTensorList* x3, "
INT4 = ("i32", "i16", "i8", "u8")
ADD_X = ("f32", "f16", "bf16", "i32", "i16", "i8", "u8")
MAXF = "(isnan(a) || isnan({o}) ? NAN : fmaxf(a, {o}))"
MINF = "(isnan(a) || isnan({o}) ? NAN : fminf(a, {o}))"
WADD = "(int64_t)((uint64_t)a + (uint64_t)({o}))"
WSUB = "(int64_t)((uint64_t)a - (uint64_t)({o}))"
WMUL = "(int64_t)((uint64_t)a * (uint64_t)({o}))"
LERP = "(fabsf({w}) < 0.5f ? a + {w} * (b - a) : b - (b - a) * (1.0f - {w}))"


def unary(name, f, xs=F3, i=None, torch=None, **kw):
    return fe(name, UN, combos(xs), f=f, i=i, torch=torch, **kw)


def scalar_group(base, f, fi, xs_t, smap_t, xs_v2, xs_l, tf):
    """ForeachXScalar (aclTensor scalar), ForeachXScalarV2 (aclScalar), ForeachXScalarList (aclScalarList)"""
    out = []
    if xs_t:
        out.append(fe(f"Foreach{base}Scalar", SC_T, combos(xs_t, smap_t), f=f.format(o="s"),
                      i=fi and fi.format(o="s"), torch=tf))
    if xs_v2:
        out.append(fe(f"Foreach{base}ScalarV2", SC_V2, combos(xs_v2), f=f.format(o="s"), i=fi and fi.format(o="s"),
                      torch=tf))
    if xs_l:
        out.append(fe(f"Foreach{base}ScalarList", SC_L, combos(xs_l, S_LIST), f=f.format(o="s"),
                      i=fi and fi.format(o="s"), torch=tf))
    return out


OPS = []
OPS += scalar_group("Add", "a + {o}", WADD, ADD_X, S_SAME, ("f32", "f16", "bf16", "i32", "i16", "i8", "u8"),
                    ("f32", "f16", "bf16", "i32"), "torch._foreach_add")
OPS += scalar_group("Sub", "a - {o}", WSUB, ("f32", "f16", "bf16", "i32"), S_SAME, ("f32", "f16", "bf16", "i32"),
                    ("f32", "f16", "bf16", "i32"), "torch._foreach_sub")
OPS += scalar_group("Mul", "a * {o}", WMUL, ("f32", "f16", "bf16", "i32"), S_SAME, ("f32", "f16", "bf16", "i32"),
                    ("f32", "f16", "bf16", "i32"), "torch._foreach_mul")
OPS += scalar_group("Div", "a / {o}", None, F3, S_SAME, F3, F3, "torch._foreach_div")
OPS += scalar_group("Maximum", MAXF, "(a > {o} ? a : {o})", ("f32", "f16", "bf16", "i32"), S_SAME,
                    ("f32", "f16", "bf16", "i32"), ("f32", "f16", "bf16", "i32"), "torch._foreach_maximum")
OPS += scalar_group("Minimum", MINF, "(a < {o} ? a : {o})", ("f32", "f16", "bf16", "i32"), S_SAME,
                    ("f32", "f16", "bf16", "i32"), ("f32", "f16", "bf16", "i32"), "torch._foreach_minimum")
OPS += scalar_group("Pow", "powf(a, {o})", "fe_ipow(a, {o})", ("f32", "f16", "bf16", "i32"), S_SAME,
                    ("f32", "f16", "bf16", "i32"), ("f32", "f16", "bf16", "i32"), "torch._foreach_pow")
OPS += [
    fe("ForeachPowScalarAndTensor", "const aclScalar* scalar, const aclTensorList* x, const aclTensorList* out",
       [("f32", "f32", "f32"), ("f16", "f32", "f16"), ("bf16", "f32", "bf16"), ("i32", "i64", "i32")],
       f="powf(s, a)", i="fe_ipow(s, a)", torch="torch._foreach_pow"),
    # binary lists
    fe("ForeachAddList", BL_A, combos(ADD_X, S_SAME), f="a + s * b", i="(int64_t)((uint64_t)a + (uint64_t)s * (uint64_t)b)",
       torch="torch._foreach_add"),
    fe("ForeachAddListV2", BL_A2, combos(ADD_X), f="a + s * b", i="(int64_t)((uint64_t)a + (uint64_t)s * (uint64_t)b)",
       torch="torch._foreach_add"),
    fe("ForeachSubList", BL_A, combos(ADD_X, S_SAME), f="a - s * b", i="(int64_t)((uint64_t)a - (uint64_t)s * (uint64_t)b)",
       torch="torch._foreach_sub"),
    fe("ForeachSubListV2", BL_A2, combos(ADD_X), f="a - s * b", i="(int64_t)((uint64_t)a - (uint64_t)s * (uint64_t)b)",
       torch="torch._foreach_sub"),
    fe("ForeachMulList", BL, combos(ADD_X), f="a * b", i="(int64_t)((uint64_t)a * (uint64_t)b)",
       torch="torch._foreach_mul"),
    fe("ForeachDivList", BL, combos(F3), f="a / b", torch="torch._foreach_div"),
    fe("ForeachMaximumList", BL, combos(("f32", "f16", "bf16", "i32")), f=MAXF.format(o="b"), i="(a > b ? a : b)",
       torch="torch._foreach_maximum"),
    fe("ForeachMinimumList", BL, combos(("f32", "f16", "bf16", "i32")), f=MINF.format(o="b"), i="(a < b ? a : b)",
       torch="torch._foreach_minimum"),
    fe("ForeachPowList", BL, combos(("f32", "f16", "bf16", "i32")), f="powf(a, b)", i="fe_ipow(a, b)",
       torch="torch._foreach_pow"),
    # addcmul / addcdiv: a + s * b * c, a + s * b / c
    fe("ForeachAddcmulScalar", TL + "const aclTensor* scalar, const aclTensorList* out",
       combos(("f32", "f16", "bf16", "i32"), S_SAME), f="a + s * b * c",
       i="(int64_t)((uint64_t)a + (uint64_t)s * (uint64_t)b * (uint64_t)c)", torch="torch._foreach_addcmul"),
    fe("ForeachAddcmulScalarV2", TL + "const aclScalar* scalar, aclTensorList* out",
       combos(("f32", "f16", "bf16", "i32")), f="a + s * b * c",
       i="(int64_t)((uint64_t)a + (uint64_t)s * (uint64_t)b * (uint64_t)c)", torch="torch._foreach_addcmul"),
    fe("ForeachAddcmulScalarList", TL + "const aclTensor* scalars, const aclTensorList* out",
       combos(("f32", "f16", "bf16", "i32"), S_ELEM), f="a + s * b * c",
       i="(int64_t)((uint64_t)a + (uint64_t)s * (uint64_t)b * (uint64_t)c)", torch="torch._foreach_addcmul"),
    fe("ForeachAddcmulList", TL + "const aclTensor* scalars, const aclTensorList* out",
       combos(("f32", "f16", "bf16", "i32"), S_ELEM), f="a + s * b * c",
       i="(int64_t)((uint64_t)a + (uint64_t)s * (uint64_t)b * (uint64_t)c)", torch="torch._foreach_addcmul"),
    fe("ForeachAddcdivScalar", TL + "const aclTensor* scalar, const aclTensorList* out", combos(F3, S_SAME),
       f="a + s * (b / c)", torch="torch._foreach_addcdiv"),
    fe("ForeachAddcdivScalarV2", TL + "const aclScalar* scalar, aclTensorList* out", combos(F3),
       f="a + s * (b / c)", torch="torch._foreach_addcdiv"),
    fe("ForeachAddcdivScalarList", TL + "const aclTensor* scalars, const aclTensorList* out", combos(F3, S_ELEM),
       f="a + s * (b / c)", torch="torch._foreach_addcdiv"),
    fe("ForeachAddcdivList", TL + "const aclTensor* scalars, const aclTensorList* out", combos(F3, S_ELEM),
       f="a + s * (b / c)", torch="torch._foreach_addcdiv"),
    # lerp
    fe("ForeachLerpScalar", "const aclTensorList* x1, const aclTensorList* x2, const aclScalar* weight, "
       "const aclTensorList* out", combos(F3, S_F32), f=LERP.format(w="s"), torch="torch._foreach_lerp"),
    fe("ForeachLerpList", "const aclTensorList* x1, const aclTensorList* x2, const aclTensorList* weight, "
       "const aclTensorList* out", combos(F3), f=LERP.format(w="c"), torch="torch._foreach_lerp"),
    # unary
    unary("ForeachAbs", "fabsf(a)", torch="torch._foreach_abs"),
    unary("ForeachAcos", "acosf(a)", torch="torch._foreach_acos"),
    unary("ForeachAsin", "asinf(a)", torch="torch._foreach_asin"),
    unary("ForeachAtan", "atanf(a)", torch="torch._foreach_atan"),
    unary("ForeachCos", "cosf(a)", torch="torch._foreach_cos"),
    unary("ForeachCosh", "coshf(a)", torch="torch._foreach_cosh"),
    unary("ForeachSin", "sinf(a)", torch="torch._foreach_sin"),
    unary("ForeachSinh", "sinhf(a)", torch="torch._foreach_sinh"),
    unary("ForeachTan", "tanf(a)", torch="torch._foreach_tan"),
    unary("ForeachTanh", "tanhf(a)", torch="torch._foreach_tanh"),
    unary("ForeachErf", "erff(a)", torch="torch._foreach_erf"),
    unary("ForeachErfc", "erfcf(a)", torch="torch._foreach_erfc"),
    unary("ForeachExp", "expf(a)", xs=("f32", "f16", "bf16", "i16", "i8", "u8"), torch="torch._foreach_exp"),
    unary("ForeachExpm1", "expm1f(a)", xs=("f32", "f16", "bf16", "i16", "i8", "u8"), torch="torch._foreach_expm1"),
    unary("ForeachLog", "logf(a)", torch="torch._foreach_log"),
    unary("ForeachLog2", "log2f(a)", torch="torch._foreach_log2"),
    unary("ForeachLog10", "log10f(a)", torch="torch._foreach_log10"),
    unary("ForeachLog1p", "log1pf(a)", torch="torch._foreach_log1p"),
    unary("ForeachNeg", "-a", xs=("f32", "f16", "bf16", "i32", "i16", "i8", "u8"),
          i="(int64_t)(0 - (uint64_t)a)", torch="torch._foreach_neg"),
    unary("ForeachReciprocal", "1.0f / a", torch="torch._foreach_reciprocal"),
    unary("ForeachSigmoid", "1.0f / (1.0f + expf(-a))", torch="torch._foreach_sigmoid"),
    unary("ForeachSign", "(a > 0 ? 1.0f : a < 0 ? -1.0f : 0.0f)", xs=("f32", "f16", "bf16", "i32", "i64", "i8"),
          i="(int64_t)((a > 0) - (a < 0))", torch="torch._foreach_sign"),
    unary("ForeachSqrt", "sqrtf(a)", torch="torch._foreach_sqrt"),
    fe("ForeachZeroInplace", "const aclTensorList* x", combos(("f32", "f16", "bf16", "i16", "i32")), f="0.0f",
       i="0", torch="torch._foreach_zero_"),
    fe("ForeachCopy", UN, [("bf16", None, "bf16"), ("bf16", None, "f32"), ("bool", None, "bool"),
                           ("f64", None, "f64"), ("f16", None, "f16"), ("f16", None, "f32"), ("f32", None, "bf16"),
                           ("f32", None, "f16"), ("f32", None, "f32"), ("i16", None, "i16"), ("i32", None, "i32"),
                           ("i64", None, "i64"), ("i8", None, "i8"), ("u16", None, "u16"), ("u32", None, "u32"),
                           ("u8", None, "u8")], copy=True, torch="torch._foreach_copy_"),
    # round off: the Cast round modes (1 rint, 2 floor, 3 ceil, 4 round half away, 5 trunc, 7 fraction; others: none)
    fe("ForeachRoundOffNumber", "const aclTensorList* x, const aclTensor* roundMode, const aclTensorList* out",
       [(x, "i8", x) for x in ("f32", "f16", "bf16", "i16")], f="fe_round(a, (int)s)", i="(s == 7 ? 0 : a)"),
    fe("ForeachRoundOffNumberV2", "const aclTensorList* x, const aclScalar* roundMode, aclTensorList* out",
       [(x, s, x) for x in ("f32", "f16", "bf16", "i32", "i16") for s in ("i8", "i64")], f="fe_round(a, (int)s)",
       i="(s == 7 ? 0 : a)", strict_scalar=True),
    # the norm of each tensor into a one-element output: int(p) == 1 -> L1, else L2 (the A2 kernel)
    fe("ForeachNorm", "const aclTensorList* x, const aclScalar* scalar, const aclTensorList* out",
       [(x, s, x) for x in F3 for s in ("f32", "i64", "f64")], mode="FE_NORM", strict_scalar=True,
       torch="torch._foreach_norm"),
    fe("ForeachNonFiniteCheckAndUnscale", "const aclTensorList* scaledGrads, const aclTensor* foundInf, "
       "const aclTensor* invScale", [(x, "f32", x) for x in F3], mode="FE_UNSCALE",
       torch="torch._amp_foreach_non_finite_check_and_unscale_"),
    # ASCEND950-only interfaces (refused on A2)
    fe("ForeachACosInplace", "const aclTensorList* x", combos(F3), f="acosf(a)", not_on_a2=True,
       header="aclnn_foreach_a_cos_inplace.h"),
    fe("ForeachLogInplace", "const aclTensorList* x", combos(F3), f="logf(a)", not_on_a2=True),
    fe("ForeachAddListInplace", "const aclTensorList* x1, const aclTensorList* x2, const aclTensor* alpha",
       combos(("f32", "f16", "bf16", "i32")), f="a + s * b", not_on_a2=True),
    fe("ForeachSubListInplace", "const aclTensorList* x1, const aclTensorList* x2, const aclTensor* alpha",
       combos(("f32", "f16", "bf16", "i32")), f="a - s * b", not_on_a2=True),
    fe("ForeachMulListInplace", "const aclTensorList* x1, const aclTensorList* x2",
       combos(("f32", "f16", "bf16", "i32")), f="a * b", not_on_a2=True),
    fe("ForeachDivListInplace", "const aclTensorList* x1, const aclTensorList* x2", combos(F3), f="a / b",
       not_on_a2=True),
    fe("ForeachMulScalarInplace", "const aclTensorList* x, const aclTensor* scalar",
       combos(("f32", "f16", "bf16", "i32")), f="a * s", not_on_a2=True),
    fe("ForeachSubScalarInplace", "const aclTensorList* x, const aclTensor* scalar",
       combos(("f32", "f16", "bf16", "i32")), f="a - s", not_on_a2=True),
]


# The ops whose non-V2 first phase is hand-written upstream (op_api/aclnn_foreach_<op>.cpp): that source's NULL
# order, list and scalar rule replace the generated interface's
HANDWRITTEN = {
    "ForeachDivScalar": dict(null_order=["out", "x", "scalar"], srule="FE_SR_V2"),
    "ForeachAddList": dict(null_order=["out", "x1", "x2", "alpha"], srule="FE_SR_V2", xs=("f32", "f16", "i32", "bf16")),
    "ForeachMulList": dict(null_order=["out", "x1", "x2"]),
    "ForeachAddcdivScalar": dict(null_order=["out", "x1", "x2", "x3", "scalar"], srule="FE_SR_V2"),
    "ForeachAddcdivScalarList": dict(srule="FE_SR_NONE"),
    "ForeachLerpScalar": dict(combos=[(x, s, x) for x in F3 for s in ("f32", "f64")], strict_scalar=True),
    "ForeachLerpList": dict(null_order=["out", "x1", "x2", "weight"]),
}
for _op in OPS:
    _h = HANDWRITTEN.get(_op.name)
    if not _h:
        continue
    if "xs" in _h:
        _op.fe["combos"] = [c for c in _op.fe["combos"] if c[0] in _h["xs"]]
        _op.dtypes = tuple(_h["xs"])
    for _k in ("null_order", "srule", "combos", "strict_scalar"):
        if _k in _h:
            _op.fe[_k] = _h[_k]


# ---------------------------------------------------------------- code generation (tools/gen_ops.py calls these)

def c_prelude():
    return ('#include <math.h>\n#include "ops/foreach.h"\n\n'
            "/* Cast's round modes applied float -> float (the round-off kernel) */\n"
            "static inline float fe_round(float a, int m) {\n"
            "    switch (m) {\n    case 1: return rintf(a);\n    case 2: return floorf(a);\n"
            "    case 3: return ceilf(a);\n    case 4: return roundf(a);\n    case 5: return truncf(a);\n"
            "    case 7: return a - truncf(a);\n    default: return a;\n    }\n}\n\n"
            "/* integer power as the kernels compute it: exponent < 0 gives 1 / a truncated (0 unless |a| == 1) */\n"
            "static inline int64_t fe_ipow(int64_t a, int64_t e) {\n"
            "    if (e < 0) return a == 1 ? 1 : a == -1 ? ((e & 1) ? -1 : 1) : 0;\n"
            "    uint64_t r = 1, b = (uint64_t)a;\n"
            "    while (e) {\n        if (e & 1) r *= b;\n        b *= b;\n        e >>= 1;\n    }\n"
            "    return (int64_t)r;\n}\n\n")


def _kernel(name, ctype, formula):
    return (f"static void {name}(int64_t n, const {ctype} *A, const {ctype} *B, const {ctype} *C, {ctype} s, "
            f"{ctype} *Y) {{\n"
            f"    (void)B;\n    (void)C;\n    (void)s;\n"
            f"    for (int64_t k = 0; k < n; k++) {{\n"
            f"        const {ctype} a = A[k], b = B ? B[k] : 0, c = C ? C[k] : 0;\n"
            f"        (void)a;\n        (void)b;\n        (void)c;\n"
            f"        Y[k] = ({ctype})({formula});\n    }}\n}}\n")


def c_code(op):
    fe_ = getattr(op, "fe", None)
    if fe_ is None:
        return ""
    lists = [a for a in op.args if a.kind in ("tensorlist", "outlist") and a.name != "out"]
    out = next((a for a in op.args if a.name == "out"), None)
    sc = next((a for a in op.args if a.kind in ("tensor", "scalar", "scalarlist")), None)
    if fe_["mode"] == "FE_UNSCALE":
        sc = next(a for a in op.args if a.name == "invScale")
    if sc is None:
        skind = "FE_S_NONE"
    elif sc.kind == "scalarlist":
        skind = "FE_S_LIST"
    elif sc.kind == "scalar":
        skind = "FE_S_SCALAR_V2" if op.name.endswith("V2") and not fe_["strict_scalar"] else "FE_S_SCALAR"
    else:
        skind = "FE_S_TENSOR_PER" if sc.name == "scalars" else "FE_S_TENSOR"
    scalar_first = sc is not None and op.args.index(sc) < op.args.index(lists[0])
    n = op.name
    code = []
    if fe_["f"]:
        code.append(_kernel(f"fek_{n}_f", "float", fe_["f"]))
    if fe_["i"]:
        code.append(_kernel(f"fek_{n}_i", "int64_t", fe_["i"]))
    rows = ", ".join(f"{{{CDT[x]}, {CDT[s]}, {CDT[y]}}}" for x, s, y in fe_["combos"])
    code.append(f"static const fe_combo fec_{n}[] = {{{rows}}};\n")
    lnames = ", ".join(f'"{a.name}"' for a in lists)
    code.append(
        f"static const fe_desc fed_{n} = {{\n"
        f"    .op = ACL_OP_{n}, .nlists = {len(lists)}, .skind = {skind}, .inplace = {str(fe_['inplace']).lower()},\n"
        f"    .mode = {fe_['mode']}, .strict_scalar = {str(fe_['strict_scalar']).lower()}, .srule = {fe_['srule']},\n"
        f"    .not_on_a2 = {str(fe_['not_on_a2']).lower()}, .scalar_first = {str(scalar_first).lower()}, "
        f".copy = {str(fe_['copy']).lower()}, .int_as_float = {str(fe_['int_as_float']).lower()},\n"
        f"    .lname = {{{lnames}}}, .sname = \"{sc.name if sc else ''}\", .oname = \"{out.name if out else ''}\",\n"
        f"    .combos = fec_{n}, .ncombos = {len(fe_['combos'])},\n"
        f"    .kf = {'fek_' + n + '_f' if fe_['f'] else 'NULL'}, .ki = {'fek_' + n + '_i' if fe_['i'] else 'NULL'},\n"
        f"}};\n")
    params = ", ".join([a.text for a in op.args] + ["uint64_t *workspaceSize", "aclOpExecutor **executor"])
    lvals = ", ".join(a.name for a in lists) + ", NULL" * (3 - len(lists))
    if fe_["mode"] == "FE_UNSCALE":
        code.append(f"aclnnStatus opws_{n}({params}) {{\n"
                    f"    return fe_unscale_workspace(&fed_{n}, scaledGrads, foundInf, invScale, workspaceSize, "
                    f"executor);\n}}\n\n")
        return "".join(code)
    nulls = "".join(f'    ACLNN_CHECK({a} != NULL, ACLNN_ERR_PARAM_NULLPTR, "{a} must not be NULL.");\n'
                    for a in fe_["null_order"] or [])
    code.append(
        f"aclnnStatus opws_{n}({params}) {{\n" + nulls +
        f"    const aclTensorList *const lists[3] = {{{lvals}}};\n"
        f"    return fe_workspace(&fed_{n}, lists, {sc.name if sc else 'NULL'}, {out.name if out else 'NULL'}, "
        f"workspaceSize, executor);\n}}\n\n")
    return "".join(code)
