"""ops-nn `norm/` quantised norms (libsrc/ops/norm_*quant.c, the quantisation step in norm_quant.c): the shared
norm row kernels of libsrc/kernels/norm.c, then either a static quantisation y = round(norm / scale + offset) or a
dynamic per-row one (scale = max|norm * smooth| / 127, y = round(norm * smooth / scale)), rounded half to even,
saturated, NaN -> 0. Also ClippedSwigluV2 (activation/clipped_swiglu, on ClippedSwiglu's first phase) and the two
MX quant ops, which have no ASCEND910B kernel (their first phase fails as the real one does on the A2).

INT4 outputs: the emulator has no INT4 tensor storage, so an INT4 y is refused with 161002 (named); the INT32 form
(eight int4 per element, the first in the low nibble) is supported where the op_api accepts it."""
from . import Op

OPS = [
    Op("RmsNormQuant", "const aclTensor* x, const aclTensor* gamma, const aclTensor* beta, const aclTensor* scale, "
       "const aclTensor* offset, double epsilon, aclTensor* y", "aclnn_rms_norm_quant.h", lib="nn",
       dtypes=("f16", "bf16")),
]
OPS += [
    Op("AddRmsNormQuant", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, const aclTensor* scales1, "
       "const aclTensor* scales2Optional, const aclTensor* zeroPoints1Optional, const aclTensor* zeroPoints2Optional, "
       "int64_t axis, double epsilon, bool divMode, aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut",
       "aclnn_add_rms_norm_quant.h", lib="nn", dtypes=("f32", "f16", "bf16"),
       optional=("scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional")),
]


def _outputs(op, *names):
    """Outputs a generated header declares `const aclTensor*`: they are written, so they are outputs to the table."""
    for a in op.args:
        if a.name in names:
            a.kind = "out"
    return op


OPS += [
    _outputs(Op("RmsNormDynamicQuant", "const aclTensor *x, const aclTensor *gamma, "
                "const aclTensor *smoothScalesOptional, const aclTensor *betaOptional, double epsilon, "
                "int64_t dstType, const aclTensor *yOut, const aclTensor *scaleOut", "aclnn_rms_norm_dynamic_quant.h",
                lib="nn", dtypes=("f16", "bf16"), optional=("smoothScalesOptional", "betaOptional")),
             "yOut", "scaleOut"),
]

OPS += [
    Op("AddRmsNormDynamicQuant", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, "
       "const aclTensor* smoothScale1Optional, const aclTensor* smoothScale2Optional, double epsilon, "
       "aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut, aclTensor* scale1Out, aclTensor* scale2Out",
       "aclnn_add_rms_norm_dynamic_quant.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("smoothScale1Optional", "smoothScale2Optional")),
    Op("AddRmsNormDynamicQuantV2", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, "
       "const aclTensor* smoothScale1Optional, const aclTensor* smoothScale2Optional, const aclTensor* betaOptional, "
       "double epsilon, const aclBoolArray* outputMask, aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut, "
       "aclTensor* scale1Out, aclTensor* scale2Out", "aclnn_add_rms_norm_dynamic_quant_v2.h", lib="nn",
       dtypes=("f16", "bf16"),
       optional=("smoothScale1Optional", "smoothScale2Optional", "betaOptional", "outputMask", "y1Out", "y2Out",
                 "scale1Out", "scale2Out")),
]

# MX quantisation: kernels for ascend950 only; on the A2 the first phase fails as the real one does (561103)
OPS += [
    Op("RmsNormDynamicMxQuant", "const aclTensor* x, const aclTensor* gamma, const aclTensor* beta, double epsilon, "
       "int64_t scaleAlg, char* roundMode, int64_t dstType, bool outputRstd, aclTensor* yOut, aclTensor* mxscaleOut, "
       "aclTensor* rstdOut", "aclnn_rms_norm_dynamic_mx_quant.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("beta", "rstdOut"), note="ascend950 only: 561103 on the A2"),
    Op("AddRmsNormDynamicMxQuant", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, "
       "const aclTensor* beta, double epsilon, int64_t scaleAlg, char* roundMode, int64_t dstType, bool outputRstd, "
       "aclTensor* yOut, aclTensor* xOut, aclTensor* mxscaleOut, aclTensor* rstdOut",
       "aclnn_add_rms_norm_dynamic_mx_quant.h", lib="nn", dtypes=("f16", "bf16"), optional=("beta", "rstdOut"),
       note="ascend950 only: 561103 on the A2"),
]

OPS += [
    Op("LayerNormQuant", "const aclTensor* x, const aclTensor* gammma, const aclTensor* beta, const aclTensor* scale, "
       "const aclTensor* zeroPointsOptional, int quantMode, double epsilon, aclTensor* res, aclTensor* scaleOut",
       "aclnn_layer_norm_quant.h", lib="nn", dtypes=("f16", "bf16"), optional=("zeroPointsOptional", "scaleOut")),
]

# activation/clipped_swiglu V2 (clampMode): ClippedSwiglu's first phase (libsrc/ops/clipped_swiglu.c)
_csv2 = Op("ClippedSwigluV2", "const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim, double alpha, "
           "double limit, double bias, bool interleaved, int64_t clampMode, const aclTensor *out",
           "aclnn_clipped_swiglu_v2.h", lib="nn", dtypes=("f16", "f32", "bf16"),
           arg_dtypes={"groupIndexOptional": ("i64",)}, optional=("groupIndexOptional",), out="out")
OPS.append(_csv2)
