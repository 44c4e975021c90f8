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
