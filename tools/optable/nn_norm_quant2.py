"""ops-nn `norm/` quantised norms, second set (libsrc/ops/norm_*quant*.c beside the first set of
tools/optable/nn_norm_quant.py, sharing its quantisation step libsrc/ops/norm_quant.c): the float64 norm, then a
dynamic per-row quantisation (scale = max|y * smooth| / 127, out = round_half_even(y / scale), saturated, NaN -> 0)."""
from . import Op

OPS = [
    Op("AdaLayerNormQuant", "const aclTensor* x, const aclTensor* scale, const aclTensor* shift, "
       "const aclTensor* weightOptional, const aclTensor* biasOptional, const aclTensor* smoothScalesOptional, "
       "double epsilon, const char* quantMode, aclTensor* out, aclTensor* quantScale, aclTensor* quantOffsetOptional",
       "aclnn_ada_layer_norm_quant.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("weightOptional", "biasOptional", "smoothScalesOptional", "quantOffsetOptional")),
]

# No Atlas A2 path: AddLayerNormQuant's op_api refuses every non-regbase arch first (161002); RmsNormGradQuant's only
# kernel is ascend950's (after its NULL checks and the empty-gamma return, queuing the kernel fails: 561103).
OPS += [
    Op("AddLayerNormQuant", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, const aclTensor* beta, "
       "const aclTensor* biasOptional, const aclTensor* scales1Optional, const aclTensor* scales2Optional, "
       "const aclTensor* zeroPoints1Optional, const aclTensor* zeroPoints2Optional, const char* quantMode, "
       "double epsilon, bool additionalOutput, bool divMode, aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut, "
       "aclTensor* outScales1Out, aclTensor* outScales2Out", "aclnn_add_layer_norm_quant.h", lib="nn",
       dtypes=("f32", "f16", "bf16"),
       optional=("biasOptional", "scales1Optional", "scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional"),
       note="regbase (ascend950) only: 161002 on the A2"),
    Op("RmsNormGradQuant", "const aclTensor* dy, const aclTensor* x, const aclTensor* rstd, const aclTensor* gamma, "
       "const aclTensor* scalesX, const aclTensor* offsetXOptional, const char* quantMode, bool divMode, "
       "aclTensor* dxOut, aclTensor* dgammaOut", "aclnn_rms_norm_grad_quant.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("offsetXOptional",), note="ascend950 only: 561103 on the A2"),
]

OPS += [
    Op("AddLayerNormQuantV2", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, const aclTensor* beta, "
       "const aclTensor* biasOptional, const aclTensor* scales1Optional, const aclTensor* scales2Optional, "
       "const aclTensor* zeroPoints1Optional, const aclTensor* zeroPoints2Optional, const char* quantMode, "
       "double epsilon, bool additionalOutput, bool divMode, aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut, "
       "aclTensor* layernormRes, aclTensor* outScales1Out, aclTensor* outScales2Out",
       "aclnn_add_layer_norm_quant_v2.h", lib="nn", dtypes=("f32", "f16", "bf16"),
       optional=("biasOptional", "scales1Optional", "scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional"),
       note="the A2 path: static quantisation only"),
]

OPS += [
    Op("GroupNormSiluQuant", "const aclTensor* self, const aclTensor* gamma, const aclTensor* beta, "
       "const aclTensor* quantScale, int64_t group, double eps, bool activateSilu, aclTensor* out, aclTensor* meanOut, "
       "aclTensor* rstdOut", "aclnn_group_norm_silu_quant.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("gamma", "beta")),
]
