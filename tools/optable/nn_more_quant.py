"""ops-nn quantised norms / activations / losses, third set (issue 12's remaining ops; C in libsrc/ops/norm_*_v2.c,
norm_quantized_batch_norm.c, act_gelu_quant.c, ...; the quantisation step of libsrc/ops/norm_quant.c)."""
from . import Op

OPS = [
    Op("AddRmsNormQuantV2", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, "
       "const aclTensor* scales1, const aclTensor* scales2Optional, const aclTensor* zeroPoints1Optional, "
       "const aclTensor* zeroPoints2Optional, const aclTensor* betaOptional, int64_t axis, double epsilon, "
       "bool divMode, aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut, aclTensor* rmsNormOut",
       "aclnn_add_rms_norm_quant_v2.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional", "betaOptional", "xOut",
                 "rmsNormOut")),
]
