"""ops-nn `norm/` quantised RMS norms (libsrc/ops/norm_quant.c): the RMS norm of the norm family
(libsrc/kernels/norm.c, the rows of RmsNorm/AddRmsNorm) followed by a static int8 quantisation,
round-half-even and saturating: q = rint(v / scale + offset) (AddRmsNormQuant's divMode false: v * scale)."""
from . import Op

OPS = [
    Op("RmsNormQuant", "const aclTensor* x, const aclTensor* gamma, const aclTensor* beta, const aclTensor* scale, "
       "const aclTensor* offset, double epsilon, aclTensor* y", "aclnn_rms_norm_quant.h", lib="nn",
       dtypes=("f16", "bf16")),
    Op("AddRmsNormQuant", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, const aclTensor* scales1, "
       "const aclTensor* scales2Optional, const aclTensor* zeroPoints1Optional, const aclTensor* zeroPoints2Optional, "
       "int64_t axis, double epsilon, bool divMode, aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut",
       "aclnn_add_rms_norm_quant.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional")),
]

# RmsNormDynamicQuant has no op_api source: the docs' prototype (outputs declared const, as generated headers do)
_dq = Op("RmsNormDynamicQuant", "const aclTensor *x, const aclTensor *gamma, const aclTensor *smoothScalesOptional, "
         "const aclTensor *betaOptional, double epsilon, int64_t dstType, const aclTensor *yOut, "
         "const aclTensor *scaleOut", "aclnn_rms_norm_dynamic_quant.h", lib="nn", dtypes=("f16", "bf16"),
         optional=("smoothScalesOptional", "betaOptional"))
for _a in _dq.args:
    if _a.name in ("yOut", "scaleOut"):
        _a.kind = "out"

OPS += [
    _dq,
    Op("AddRmsNormDynamicQuant", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, "
       "const aclTensor* smoothScale1Optional, const aclTensor* smoothScale2Optional, double epsilon, "
       "aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut, aclTensor* scale1Out, aclTensor* scale2Out",
       "aclnn_add_rms_norm_dynamic_quant.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("smoothScale1Optional", "smoothScale2Optional")),
]

OPS += [
    Op("AddRmsNormDynamicQuantV2", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, "
       "const aclTensor* smoothScale1Optional, const aclTensor* smoothScale2Optional, const aclTensor* betaOptional, "
       "double epsilon, const aclBoolArray* outputMask, aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut, "
       "aclTensor* scale1Out, aclTensor* scale2Out", "aclnn_add_rms_norm_dynamic_quant_v2.h", lib="nn",
       dtypes=("f16", "bf16"),
       optional=("smoothScale1Optional", "smoothScale2Optional", "betaOptional", "outputMask", "y1Out", "y2Out",
                 "scale1Out", "scale2Out")),
]
