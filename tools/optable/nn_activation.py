"""ops-nn `activation/`: elementwise activations and their backward formulas (table entries; the engine
libsrc/ops/elementwise.c generates them), and the softmax family over one dim (libsrc/ops/softmax.c).

The dtype lists are the ASCEND910B (Atlas A2) lists of each op's op_api source, in its order."""
from . import INT, Op
from . import ew as _ew

NN = dict(lib="nn")
F3 = ("f32", "f16", "bf16")
F4 = ("f32", "f16", "f64", "bf16")
ANY = ("f32", "f16", "f64", "bf16", "i8", "i16", "i32", "i64", "u8", "bool", "c64", "c128")
# the aclScalar attributes are read with aclScalar::ToFloat: they take no part in the promotion
SC = dict(scalar_promote=False, scalar_cast_check=False)
# backward ops whose A2 op_api requires equal shapes (no broadcast)
NOBC = dict(check="ew_check_no_broadcast", order="dpsh", no_bcast=True)
SIGMOID = "1 / (1 + exp(-a))"
SELU_A, SELU_S = "1.6732632423543772848170429916717", "1.0507009873554804934193349852946"
# integer inputs: the kernel keeps self's dtype (computed in double, truncated toward zero)
SELU = {"f": f"{SELU_S} * (a > 0 ? a : {SELU_A} * (exp(a) - 1))",
        "i": f"(int64_t)({SELU_S} * (a > 0 ? (double)a : {SELU_A} * (exp((double)a) - 1)))",
        "f32": f"{SELU_S}f * (a > 0 ? a : {SELU_A}f * ew_expm1_negf(a))"}
GELU_ERF = "0.5 * a * (1 + erf(a * M_SQRT1_2))"
MISH = {"f": "a * tanh(a > 20 ? a : log1p(exp(a)))", "f32": "a * ew_tanh_softplusf(a)"}
# MASKED: a gradient read on one side of a select only becomes an AVX-512 masked load (about a cache miss each on
# Zen 5): the f32 forms read it on both sides (vm_selectf, kernels/vmath.h)
HSWB_F32 = "vm_selectf(b <= -3, 0.0f, b < 3 ? a * (b / 3 + 0.5f) : a)"
# the fp32 forms of the exp-based activations bound their exp's argument and call kernels/vmath.h's cheaper forms;
# a loop-invariant condition on the attributes picks the bounded loop (the other keeps the general form).
# softplus: beta 1 (a * 1 and x * (1 / 1) change nothing) with a threshold >= 16 (above 16, max(a, 0) + log1p(e^-a)
# rounds to a: e^-16 < half an ulp of 16) is the formula without its two scalings and its select: the same bytes
SOFTPLUS_F32 = ("s0 == 1 && s1 >= 16", "vm_softplusf(a)", "a * s0 > s1 ? a : vm_softplusf(a * s0) * (1.0f / s0)")
# elu / celu with a non-negative input scale: the negative side's e^v - 1 has v <= 0 (expm1, clamped at -20 where it
# is -1 in float); celu's input scale 1 / alpha is multiplied in both loops, as PyTorch's celu does (elu with
# input_scale 1 / alpha; a division differs from it by up to |x| ulps where e^x is large)
ELU = {"f": "a > 0 ? s1 * a : s1 * s0 * (exp(a * s2) - 1)",
       "f32": ("s2 >= 0", "a > 0 ? s1 * a : s1 * s0 * ew_expm1_negf(a * s2)",
               "a > 0 ? s1 * a : s1 * s0 * (vm_expf(a * s2) - 1)")}
CELU = {"f": "a > 0 ? a : s0 * (exp(a / s0) - 1)",
        "f32": ("s0 > 0", "a > 0 ? a : s0 * ew_expm1_negf(a * (1.0f / s0))", "a > 0 ? a : s0 * (vm_expf(a * (1.0f / s0)) - 1)")}
GELU_TANH = "0.5 * a * (1 + tanh(0.79788456080286535588 * (a + 0.044715 * a * a * a)))"


def ew(name, args, header, **kw):
    """An elementwise entry whose fp32 class computes in fp32 through libsrc/kernels/vmath.h at every SIMD level
    (vec; PyTorch CPU computes these in fp32 too)"""
    kw.setdefault("vec", True)
    return _ew(name, args, header, **kw)


def inplace(name, ref, header, **kw):
    """The Inplace twin: the out-of-place oracle written into a"""
    t = kw.pop("torch")
    return ew("Inplace" + name, ref, header, torch=f"a.copy_({t})", **NN, **kw)


def _outputs(op, name="out"):
    """An output the real header declares `const aclTensor*`: written, so an output to the table"""
    for a in op.args:
        if a.name == name:
            a.kind = "out"
    return op


def _as_input(op, name):
    """An input the real header declares `aclTensor*`"""
    for a in op.args:
        if a.name == name:
            a.kind = "tensor"
    return op


def thr_scalars(dt):
    return 1 if dt in INT else 0.25

OPS = [
    # relu/op_api/aclnn_relu.cpp: self in the list (bf16 on A2), out == self's dtype, rank <= 8, out's shape == self's
    ew("Relu", "const aclTensor* self, const aclTensor* out", "aclnn_relu.h", out="out", **NN,
       dtypes=("f32", "f16", "i8", "u8", "i32", "i64", "bf16"), out_rule="same",
       formula={"f": "isnan(a) ? a : (a > 0 ? a : 0)", "i": "a > 0 ? a : 0"}, torch="torch.relu(a)"),
    ew("InplaceRelu", "aclTensor* selfRef", "aclnn_relu.h", **NN,
       dtypes=("f32", "f16", "i8", "u8", "i32", "i64", "bf16"), out_rule="same",
       formula={"f": "isnan(a) ? a : (a > 0 ? a : 0)", "i": "a > 0 ? a : 0"}, torch="torch.relu_(a)"),
    # gelu/op_api/aclnn_gelu.cpp: dtype list, out == self's dtype, private formats refused, rank, same shape
    ew("Gelu", "const aclTensor* self, aclTensor* out", "aclnn_gelu.h", **NN, dtypes=F3, out_rule="same",
       formats=("!self", "!out"),
       formula={"f": GELU_ERF, "f32": "gelu_f(a, false)"}, torch="torch.nn.functional.gelu(a)",
       skip_special=("f32", "bf16")),  # PyTorch's vectorised f32/bf16 path gives gelu(+inf) = nan (scalar path: inf)
    # heaviside: input, values and out each in the list; input/values broadcast
    ew("Heaviside", "const aclTensor* input, const aclTensor* values, aclTensor* out", "aclnn_heaviside.h", **NN,
       dtypes=F3, out_rule="list", out_dtypes=F3,
       formula="a == 0 ? b : (a > 0 ? 1 : 0)", torch="torch.heaviside(a, b)"),
    # softmax family (libsrc/ops/softmax.c)
    Op("Softmax", "const aclTensor* self, int64_t dim, aclTensor* out", "aclnn_softmax.h", **NN,
       dtypes=("f32", "f16", "f64", "bf16")),
    Op("LogSoftmax", "const aclTensor* self, int64_t dim, aclTensor* out", "aclnn_logsoftmax.h", **NN,
       dtypes=("f32", "f16", "f64", "bf16")),
    Op("SoftmaxBackward", "const aclTensor* gradOutput, const aclTensor* output, int64_t dim, aclTensor* out",
       "aclnn_softmax_backward.h", **NN, dtypes=F3),
    Op("LogSoftmaxBackward", "const aclTensor* gradOutput, const aclTensor* output, int64_t dim, aclTensor* out",
       "aclnn_logsoftmax_backward.h", **NN, dtypes=F3),

    # ---- sigmoid family
    ew("Sigmoid", "const aclTensor* self, aclTensor* out", "aclnn_sigmoid.h", **NN,
       dtypes=("f32", "f16", "f64", "i8", "i16", "i32", "i64", "bool", "c64", "c128", "bf16", "u8"),
       out_rule="list", out_dtypes=("f32", "f16", "f64", "c64", "c128", "bf16"), compute="float",
       formula={"f": SIGMOID, "c": SIGMOID}, torch="torch.sigmoid(a)"),
    inplace("Sigmoid", "aclTensor* selfRef", "aclnn_sigmoid.h", dtypes=("f32", "f16", "f64", "c64", "c128", "bf16"),
            formula={"f": SIGMOID, "c": SIGMOID}, torch="torch.sigmoid(a)"),
    ew("SigmoidBackward", "const aclTensor* gradOutput, const aclTensor* output, aclTensor* gradInput",
       "aclnn_sigmoid_backward.h", **NN, dtypes=("f32", "f16", "f64", "c64", "c128", "bf16"), out_rule="list",
       formula={"f": "a * (1 - b) * b", "c": "a * conj((1 - b) * b)"}, torch="torch.ops.aten.sigmoid_backward(a, b)", skip_special=("c64", "c128")),
    ew("LogSigmoid", "const aclTensor* self, aclTensor* out", "aclnn_logsigmoid.h", **NN, dtypes=F3, out_rule="same",
       rank=None, formula={"f": "(a < 0 ? a : 0) - log1p(exp(-fabs(a)))",
                           "f32": "(a < 0 ? a : 0) - vm_log1pexpmf(fabsf(a))"},
       torch="torch.nn.functional.logsigmoid(a)"),
    # ---- silu / swish
    ew("Silu", "const aclTensor* self, aclTensor* out", "aclnn_silu.h", **NN, dtypes=F3, out_rule="same", rank=None,
       formula="a / (1 + exp(-a))", torch="torch.nn.functional.silu(a)"),
    ew("SiluBackward", "const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput",
       "aclnn_silu_backward.h", **NN, dtypes=F3, out_rule="same", same_dtype=("self",), **NOBC,
       formula="a * (1 / (1 + exp(-b))) * (1 + b * (1 - 1 / (1 + exp(-b))))",
       torch="torch.ops.aten.silu_backward(a, b)"),
    ew("Swish", "const aclTensor* self, const aclScalar* betaOptional, aclTensor* out", "aclnn_swish.h", **NN, **SC,
       dtypes=F3, out_rule="same", optional=("betaOptional",), scalars=[1.5],
       formula="a / (1 + exp(-(S_HAS(0) ? s0 : 1) * a))", torch="a * torch.sigmoid(s0 * a.float()).to(a.dtype)"),
    ew("SwishBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclScalar* betaOptional, "
       "aclTensor* gradInput", "aclnn_swish_backward.h", **NN, **SC, dtypes=("f16", "f32", "bf16"), out_rule="same",
       same_dtype=("self",), optional=("betaOptional",), scalars=[1.5], **NOBC,
       formula="a * ((1 / (1 + exp(-(S_HAS(0) ? s0 : 1) * b))) * (1 + (S_HAS(0) ? s0 : 1) * b * "
               "(1 - 1 / (1 + exp(-(S_HAS(0) ? s0 : 1) * b)))))",
       torch="(a.float() * torch.sigmoid(s0 * b.float()) * (1 + s0 * b.float() * (1 - torch.sigmoid(s0 * b.float()))))"
             ".to(a.dtype)"),
    # ---- relu-likes with attributes
    ew("LeakyRelu", "const aclTensor* self, const aclScalar* negativeSlope, aclTensor* out", "aclnn_leaky_relu.h",
       **NN, **SC, dtypes=F4, scalars=[0.125], formula="a > 0 ? a : a * s0",
       torch="torch.nn.functional.leaky_relu(a, s0)"),
    inplace("LeakyRelu", "aclTensor* selfRef, const aclScalar* negativeSlope", "aclnn_leaky_relu.h", **SC,
            dtypes=F4, scalars=[0.125], formula="a > 0 ? a : a * s0", torch="torch.nn.functional.leaky_relu(a, s0)"),
    ew("Elu", "const aclTensor* self, const aclScalar* alpha, const aclScalar* scale, const aclScalar* inputScale, "
       "aclTensor* out", "aclnn_elu.h", **NN, **SC, dtypes=F4, scalars=[0.75, 1.25, 0.875],
       formula=ELU, torch="torch.ops.aten.elu(a, s0, s1, s2)"),
    inplace("Elu", "aclTensor* selfRef, const aclScalar* alpha, const aclScalar* scale, const aclScalar* inputScale",
            "aclnn_elu.h", **SC, dtypes=F4, scalars=[0.75, 1.25, 0.875],
            formula=ELU, torch="torch.ops.aten.elu(a, s0, s1, s2)"),
    ew("Celu", "const aclTensor* self, const aclScalar* alpha, aclTensor* out", "aclnn_celu.h", **NN, **SC,
       dtypes=F3, scalars=[1.3], check="ew_check_celu_alpha",
       formula=CELU, torch="torch.celu(a, s0)"),
    inplace("Celu", "aclTensor* selfRef, const aclScalar* alpha", "aclnn_celu.h", **SC, dtypes=F3, scalars=[1.3],
            check="ew_check_celu_alpha", formula=CELU, torch="torch.celu(a, s0)"),
    ew("Selu", "const aclTensor* self, aclTensor* out", "aclnn_selu.h", **NN,
       dtypes=("f32", "f16", "i32", "i8", "bf16"), out_rule="list", rank=None, formula=SELU, torch="torch.selu(a)"),
    inplace("Selu", "aclTensor* selfRef", "aclnn_selu.h", dtypes=("f32", "f16", "i32", "i8", "bf16"),
            rank=None, formula=SELU, torch="torch.selu(a)"),
    ew("SeluBackward", "const aclTensor* gradOutput, const aclTensor* result, aclTensor* gradInput",
       "aclnn_selu_backward.h", **NN, dtypes=("f32", "f16", "i32", "i8", "bf16"), out_rule="same",
       same_dtype=("result",), rank=None, **NOBC,
       formula={"f": f"b <= 0 ? a * (b + {SELU_A} * {SELU_S}) : a * {SELU_S}",
                "f32": f"a * (b <= 0 ? b + {SELU_A}f * {SELU_S}f : {SELU_S}f)",  # a read on both sides (MASKED)
                "i": f"(int64_t)(b <= 0 ? a * (b + {SELU_A} * {SELU_S}) : a * {SELU_S})"},
       torch=f"torch.ops.aten.elu_backward(a, {SELU_A}, {SELU_S}, 1, True, b)", skip_special=("f32",)),  # PyTorch f32: NaN result propagates, f16/bf16: not
    ew("Threshold", "const aclTensor* self, const aclScalar* threshold, const aclScalar* value, aclTensor* out",
       "aclnn_threshold.h", **NN, **SC, dtypes=("f32", "i32", "f16", "i8", "u8", "i16", "i64", "bf16"),
       scalars=[thr_scalars, lambda dt: 7 if dt in INT else -1.5], formula="a <= s0 ? s1 : a",
       torch="torch.threshold(a, s0, s1)"),
    inplace("Threshold", "aclTensor* selfRef, const aclScalar* threshold, const aclScalar* value",
            "aclnn_threshold.h", **SC, dtypes=("f32", "i32", "f16", "i8", "u8", "i16", "i64", "bf16"),
            scalars=[thr_scalars, lambda dt: 7 if dt in INT else -1.5], formula="a <= s0 ? s1 : a",
            torch="torch.threshold(a, s0, s1)"),
    ew("ThresholdBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclScalar* threshold, "
       "aclTensor* out", "aclnn_threshold_backward.h", **NN, **SC, dtypes=("f32", "i32", "f16", "i8", "u8", "bf16"),
       same_dtype=("self",), out_rule="same", scalars=[thr_scalars],
       formula={"f": "b <= s0 ? 0 : a", "i": "b <= s0 ? 0 : a", "f32": "vm_selectf(b <= s0, 0.0f, a)"},
       torch="torch.ops.aten.threshold_backward(a, b, s0)"),
    ew("HardtanhBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclScalar* min, "
       "const aclScalar* max, aclTensor* out", "aclnn_hardtanh_backward.h", **NN, **SC, dtypes=F3,
       same_dtype=("self",), out_rule="list", scalars=[-0.5, 0.5], **NOBC, formula={"f": "(b > s0 && b < s1) ? a : 0", "f32": "vm_selectf(b > s0 && b < s1, a, 0.0f)"},
       torch="torch.ops.aten.hardtanh_backward(a, b, s0, s1)"),
    # ---- hard sigmoid / swish / shrink
    ew("Hardsigmoid", "const aclTensor* self, aclTensor* out", "aclnn_hardsigmoid.h", **NN,
       dtypes=("f32", "f16", "i32", "bf16"), out_rule="same",
       formula={"f": "a <= -3 ? 0 : (a >= 3 ? 1 : a / 6 + 0.5)", "i": "a >= 3 ? 1 : 0"},
       torch="torch.nn.functional.hardsigmoid(a)"),
    inplace("Hardsigmoid", "const aclTensor* self", "aclnn_hardsigmoid.h", dtypes=("f32", "f16", "i32", "bf16"),
            formula={"f": "a <= -3 ? 0 : (a >= 3 ? 1 : a / 6 + 0.5)", "i": "a >= 3 ? 1 : 0"},
            torch="torch.nn.functional.hardsigmoid(a)"),
    ew("HardsigmoidBackward", "const aclTensor* gradOutput, const aclTensor* self, aclTensor* out",
       "aclnn_hardsigmoid_backward.h", **NN, dtypes=("f32", "bf16", "f16"), out_rule="list", **NOBC,
       formula="(b > -3 && b < 3) ? a / 6 : 0", torch="torch.ops.aten.hardsigmoid_backward(a, b)"),
    ew("Hardswish", "const aclTensor* self, const aclTensor* out", "aclnn_hardswish.h", out="out", **NN, dtypes=F3,
       out_rule="list", rank=None, formula="a * fmin(fmax(a + 3, 0), 6) / 6",
       torch="torch.nn.functional.hardswish(a)"),
    inplace("Hardswish", "const aclTensor* self", "aclnn_hardswish.h", dtypes=F3, rank=None,
            formula="a * fmin(fmax(a + 3, 0), 6) / 6", torch="torch.nn.functional.hardswish(a)"),
    ew("HardswishBackward", "const aclTensor* gradOutput, const aclTensor* self, aclTensor* out",
       "aclnn_hardswish_backward.h", **NN, dtypes=F3, same_dtype=("self",), out_rule="same", **NOBC,
       formula={"f": "b <= -3 ? 0 : (b < 3 ? a * (b / 3 + 0.5) : a)",
                "f32": HSWB_F32},
       torch="torch.ops.aten.hardswish_backward(a, b)", skip_special=("f32",)),
    ew("Hardshrink", "const aclTensor* self, const aclScalar* lambd, aclTensor* out", "aclnn_hardshrink.h", **NN,
       **SC, dtypes=F3, out_rule="list", scalars=[0.5], formula="(a >= -fmax(s0, 0) && a <= fmax(s0, 0)) ? 0 : a",
       torch="torch.nn.functional.hardshrink(a, s0)"),
    ew("HardshrinkBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclScalar* lambd, "
       "aclTensor* gradInput", "aclnn_hardshrink_backward.h", **NN, **SC, dtypes=F3, out_rule="list", scalars=[0.5],
       order="dpes",  # op_api: an empty input returns before the broadcast check
       formula={"f": "(b > s0 || b < -s0) ? a : 0", "f32": "vm_selectf(b > s0 || b < -s0, a, 0.0f)"},
       torch="torch.ops.aten.hardshrink_backward(a, b, s0)"),
    ew("Softshrink", "const aclTensor* self, const aclScalar* lambd, aclTensor* out", "aclnn_softshrink.h", **NN,
       **SC, dtypes=F3, out_rule="list", scalars=[0.5], check="ew_check_lambd_nonneg",
       formula="a > s0 ? a - s0 : (a < -s0 ? a + s0 : (isnan(a) ? a : 0))", torch="torch.nn.functional.softshrink(a, s0)"),
    ew("SoftshrinkBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclScalar* lambda, "
       "aclTensor* gradInput", "aclnn_softshrink_backward.h", **NN, **SC, dtypes=F3, out_rule="list",
       scalars=[0.5], check="ew_check_lambd_nonneg",
       formula={"f": "(b > s0 || b < -s0) ? a : 0", "f32": "vm_selectf(b > s0 || b < -s0, a, 0.0f)"},
       torch="torch.ops.aten.softshrink_backward(a, b, s0)"),
    # ---- softplus / mish
    ew("Softplus", "const aclTensor* self, const aclScalar* beta, const aclScalar* threshold, aclTensor* out",
       "aclnn_softplus.h", **NN, **SC, dtypes=F3, scalars=[1.5, 2.0],
       formula={"f": "a * s0 > s1 ? a : log1p(exp(a * s0)) / s0", "f32": SOFTPLUS_F32},
       torch="torch.nn.functional.softplus(a, s0, s1)"),
    ew("SoftplusBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclScalar* beta, "
       "const aclScalar* threshold, aclTensor* gradInput", "aclnn_softplus_backward.h", **NN, **SC, dtypes=F4,
       arg_dtypes={"self": ("i8", "i16", "i32", "i64", "u8", "f16", "f32", "f64", "bool", "bf16")}, out_rule="list",
       scalars=[1.5, 2.0], **NOBC, formula="b * s0 > s1 ? a : a * exp(b * s0) / (exp(b * s0) + 1)",
       torch="torch.ops.aten.softplus_backward(a, b, s0, s1)"),
    ew("Mish", "const aclTensor* self, aclTensor* out", "aclnn_mish.h", **NN, dtypes=F3, out_rule="same",
       formula=MISH, torch="torch.nn.functional.mish(a)"),
    inplace("Mish", "aclTensor* selfRef", "aclnn_mish.h", dtypes=F3, formula=MISH,
            torch="torch.nn.functional.mish(a)"),
    ew("MishBackward", "const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput",
       "aclnn_mish_backward.h", **NN, dtypes=F3, out_rule="list",
       formula={"f": "a * (tanh(log1p(exp(b))) + b * (1 - tanh(log1p(exp(b))) * tanh(log1p(exp(b)))) / (1 + exp(-b)))",
                "f32": "a * ew_mish_gradf(b)"},
       torch="torch.ops.aten.mish_backward(a, b)", skip_special=F3),
    # ---- gelu variants, erfinv
    ew("GeluV2", "const aclTensor* x, int64_t approximate, aclTensor* y", "aclnn_gelu_v2.h", **NN, dtypes=F3,
       out_rule="same", formats=("!x", "!y"), scalars=[1], rank=None,
       formula={"f": f"s0 == 1 ? {GELU_TANH} : {GELU_ERF}", "f32": ("s0 == 1", "gelu_f(a, true)", "gelu_f(a, false)")},
       torch="torch.nn.functional.gelu(a, approximate='tanh' if s0 == 1 else 'none')", skip_special=("f32", "bf16")),
    ew("GeluBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclTensor* gradInput",
       "aclnn_gelu_backward.h", out="gradInput", **NN, dtypes=F3, promoted=F3,
       # only the promoted dtype of gradOutput and self is checked (an int32 gradOutput with a float self is fine)
       arg_dtypes={"gradOutput": ANY, "self": ANY},
       formula={"f": "a * (0.5 * (1 + erf(b * M_SQRT1_2)) + b * 0.39894228040143267794 * exp(-0.5 * b * b))",
                "f32": "a * gelu_grad_f(b, false)"},
       torch="torch.ops.aten.gelu_backward(a, b)"),
    ew("FastGelu", "const aclTensor* self, aclTensor* out", "aclnn_fast_gelu.h", **NN, dtypes=F3, out_rule="same",
       formula="a / (1 + exp(-1.702 * a))", torch="(a.double() / (1 + torch.exp(-1.702 * a.double()))).to(a.dtype)"),
    ew("FastGeluBackward", "const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput",
       "aclnn_fast_gelu_backward.h", **NN, dtypes=F3, same_dtype=("self",), out_rule="same", **NOBC,
       formula="a * ((1 / (exp(-1.702 * b) + 1) - 1) * -1.702 * b + 1) / (exp(-1.702 * b) + 1)",
       torch="(a.double() * (torch.sigmoid(1.702 * b.double()) + 1.702 * b.double() * torch.sigmoid(1.702 * "
             "b.double()) * (1 - torch.sigmoid(1.702 * b.double())))).to(a.dtype)", skip_special=F3),
    ew("Erfinv", "const aclTensor* self, aclTensor* out", "aclnn_erfinv.h", **NN,
       dtypes=("f32", "f16", "bf16", "bool", "i8", "i16", "i32", "i64", "u8"), compute="float",
       formula="ew_erfinv(a)", domain=(-0.999, 0.999), torch="torch.erfinv(a)", vec=False),
    inplace("Erfinv", "const aclTensor* selfRef", "aclnn_erfinv.h", dtypes=F3, formula="ew_erfinv(a)",
            domain=(-0.999, 0.999), torch="torch.erfinv(a)", vec=False),
    # ---- more backward ops and relu combinations
    ew("LeakyReluBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclScalar* negativeSlope, "
       "bool selfIsResult, aclTensor* out", "aclnn_leaky_relu_backward.h", **NN, **SC, dtypes=F4,
       arg_dtypes={"negativeSlope": ("f32", "f16", "f64", "i32", "i64", "i8", "u8", "bool", "i16", "bf16")},
       scalar_dtypes=True, check="ew_check_leaky_is_result", order="dshp", scalars=[0.125, False],
       formula="b > 0 ? a : a * s0", torch="torch.ops.aten.leaky_relu_backward(a, b, s0, bool(s1))"),
    ew("EluBackward", "const aclTensor* gradOutput, const aclScalar* alpha, const aclScalar* scale, "
       "const aclScalar* inputScale, bool isResult, const aclTensor* selfOrResult, aclTensor* gradInput",
       "aclnn_elu_backward.h", **NN, **SC, dtypes=F3, same_dtype=("selfOrResult",), check="ew_check_elu_backward",
       order="dpsh", no_bcast=True, scalars=[0.75, 1.25, 0.875, False],
       formula="s3 ? (b <= 0 ? a * s2 * (b + s0 * s1) : a * s1) : (b <= 0 ? a * s2 * s0 * s1 * exp(b * s2) : a * s1)",
       torch="torch.ops.aten.elu_backward(a, s0, s1, s2, bool(s3), b)", skip_special=("f32",)),
    ew("Shrink", "const aclTensor* self, const aclScalar* lambd, const aclScalar* bias, aclTensor* out",
       "aclnn_shrink.h", **NN, **SC, dtypes=("f32", "f16"), out_rule="list", rank=None,
       check="ew_check_lambd_nonneg", order="dpsh", scalars=[0.5, 0.25],
       formula="a < -s0 ? a + s1 : (a > s0 ? a - s1 : (isnan(a) ? a : 0))",
       torch="torch.where(a < -s0, a + s1, torch.where(a > s0, a - s1, torch.where(a.isnan(), a, 0 * a)))"),
    ew("AddRelu", "const aclTensor* self, const aclTensor* other, aclScalar* alpha, aclTensor* out",
       "aclnn_add_relu.h", **NN, scalar_promote=False,
       dtypes=("f32", "f16", "bf16", "i8", "u8", "i16", "i32", "i64"), scalars=[lambda dt: 2 if dt in INT else 1.5],
       formula={"f": "(a + s0 * b) > 0 ? (a + s0 * b) : (isnan(a + s0 * b) ? (a + s0 * b) : 0)",
                "i": "(int64_t)((uint64_t)a + (uint64_t)s0 * (uint64_t)b) > 0 ? "
                     "(int64_t)((uint64_t)a + (uint64_t)s0 * (uint64_t)b) : 0"},
       torch="torch.relu(torch.add(a, b, alpha=s0))"),
    ew("InplaceAddRelu", "aclTensor* selfRef, const aclTensor* other, aclScalar* alpha", "aclnn_add_relu.h", **NN,
       scalar_promote=False, dtypes=("f32", "f16", "bf16", "i8", "u8", "i16", "i32", "i64"),
       scalars=[lambda dt: 2 if dt in INT else 1.5],
       formula={"f": "(a + s0 * b) > 0 ? (a + s0 * b) : (isnan(a + s0 * b) ? (a + s0 * b) : 0)",
                "i": "(int64_t)((uint64_t)a + (uint64_t)s0 * (uint64_t)b) > 0 ? "
                     "(int64_t)((uint64_t)a + (uint64_t)s0 * (uint64_t)b) : 0"},
       torch="a.copy_(torch.relu(torch.add(a, b, alpha=s0)))"),
    ew("HardswishBackwardV2", "const aclTensor* gradOutput, const aclTensor* self, aclTensor* out",
       "aclnn_hardswish_backward_v2.h", **NN, dtypes=F3, same_dtype=("self",), out_rule="same", **NOBC,
       formula={"f": "b <= -3 ? 0 : (b < 3 ? a * (b / 3 + 0.5) : a)", "f32": HSWB_F32},
       torch="torch.ops.aten.hardswish_backward(a, b)", skip_special=("f32",)),
    # glu (libsrc/ops/glu.c); the real headers declare the written tensor `const aclTensor* out`
    _outputs(Op("Glu", "const aclTensor* self, int64_t dim, const aclTensor* out", "aclnn_glu.h", **NN, dtypes=F4)),
    _outputs(Op("GluBackward", "const aclTensor* gradOut, const aclTensor* self, int64_t dim, const aclTensor* out",
                "aclnn_glu_backward.h", **NN, dtypes=F4)),
    # prelu (libsrc/ops/prelu.c): one weight per channel (dim 1)
    Op("Prelu", "const aclTensor* self, const aclTensor* weight, aclTensor* out", "aclnn_prelu.h", **NN, dtypes=F3),
    # LogSigmoid's first phase; buffer unused (libsrc/ops/logsigmoid.c)
    Op("LogSigmoidForward", "const aclTensor* self, aclTensor* out, aclTensor* buffer", "aclnn_logsigmoid.h", **NN,
       dtypes=F3),
    # approximate is a string: hand-written (libsrc/ops/gelu_backward_v2.c)
    Op("GeluBackwardV2", "const aclTensor* gradOutput, const aclTensor* self, char* approximate, aclTensor* gradInput",
       "aclnn_gelu_backward_v2.h", **NN, dtypes=F3),
    # swiglu (libsrc/ops/glu.c): first phases generated upstream from the op definition
    _outputs(Op("SwiGlu", "const aclTensor *x, int64_t dim, const aclTensor *out", "aclnn_swi_glu.h", **NN,
                dtypes=("f16", "f32", "bf16"))),
    _outputs(Op("SwiGluGrad", "const aclTensor *yGrad, const aclTensor *x, int64_t dim, const aclTensor *out",
                "aclnn_swi_glu_grad.h", **NN, dtypes=("f16", "f32", "bf16"))),
    _outputs(Op("GeluMul", "const aclTensor *input, char *approximateOptional, const aclTensor *out",
                "aclnn_gelu_mul.h", **NN, dtypes=("bf16", "f16", "f32"))),
    # generated upstream from the op definition (input and out of one dtype of the list)
    ew("SquaredRelu", "const aclTensor *input, const aclTensor *out", "aclnn_squared_relu.h", out="out", **NN,
       dtypes=("bf16", "f16", "f32"), out_rule="same", formula="a > 0 ? a * a : (isnan(a) ? a : 0)",
       torch="torch.square(torch.relu(a.float())).to(a.dtype)"),
    Op("LogSigmoidBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclTensor* buffer, "
       "aclTensor* gradInput", "aclnn_logsigmoid_backward.h", **NN, dtypes=("f16", "f32", "bf16")),
    # the real header declares the input labels `aclTensor*` (libsrc/ops/softmax_cross_entropy.c)
    _as_input(Op("SoftmaxCrossEntropyWithLogits", "const aclTensor* features, aclTensor* labels, aclTensor* loss, "
                 "aclTensor* backprop", "aclnn_softmax_cross_entropy_with_logits.h", **NN, dtypes=("f16", "f32", "bf16")),
              "labels"),
    Op("GeGlu", "const aclTensor* self, int64_t dim, int64_t approximate, aclTensor* out, aclTensor* outGelu",
       "aclnn_geglu.h", **NN, dtypes=("f16", "f32", "bf16")),
    Op("GeGluV3", "const aclTensor* self, int64_t dim, int64_t approximate, bool activateLeft, aclTensor* out, "
       "aclTensor* outGelu", "aclnn_geglu.h", **NN, dtypes=("f16", "f32", "bf16")),
    _outputs(Op("FatreluMul", "const aclTensor *input, const aclTensor *threshold, const aclTensor *out",
                "aclnn_fatrelu_mul.h", **NN, dtypes=("bf16", "f16", "f32"))),
    Op("GeGluBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclTensor* gelu, int64_t dim, "
       "int64_t approximate, aclTensor* gradInput", "aclnn_geglu_backward.h", **NN, dtypes=("f16", "f32", "bf16")),
    Op("GeGluV3Backward", "const aclTensor* gradOutput, const aclTensor* self, const aclTensor* gelu, int64_t dim, "
       "int64_t approximate, bool activateLeft, aclTensor* gradInput", "aclnn_geglu_backward.h", **NN,
       dtypes=("f16", "f32", "bf16")),
    Op("PreluBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclTensor* weight, "
       "aclTensor* gradInput, aclTensor* gradWeight", "aclnn_prelu_backward.h", **NN, dtypes=F3),
]
