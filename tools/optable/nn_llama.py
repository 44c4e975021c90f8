"""Operators of hicann/ops-transformer that llama.cpp's CANN backend (ggml/src/ggml-cann) calls, hand-written:
aclnnRotaryPositionEmbedding (posembedding/rotary_position_embedding, libsrc/ops/rotary_position_embedding.c),
and of hicann/ops-nn: aclnnWeightQuantBatchMatmulV2 (matmul/weight_quant_batch_matmul_v2,
libsrc/ops/weight_quant_batch_matmul_v2.c; its op_api checks, ASCEND910B lists),. (aclnnUpsampleNearest2d and aclnnMaxPool, which the
client calls too, belong to their families: tools/optable/cv_upsample_nearest.py, nn_pool.py.)

Their first phase is the one CANN generates from the op definition (no op_api checks of its own: NULL 161001,
the definition's dtype combinations 161002), then the tiling's shape rules (561002). Dtype lists: the
definition's ascend910b configuration."""
from . import Op

NN = dict(lib="nn")

OPS = [
    # x, cos, sin and out of one dtype; mode 0 half, 1 interleave (the A2 tiling's modes)
    Op("RotaryPositionEmbedding", "const aclTensor* x, const aclTensor* cos, const aclTensor* sin, int64_t mode, "
       "aclTensor* out", "aclnn_rotary_position_embedding.h", **NN, dtypes=("f16", "f32", "bf16")),
    # dtypes: x's list; weight int8/int4 (int32: INT4Pack), antiquantScale f16/bf16/uint64/int64, y f16/bf16/int8 (op_api, DAV_2201)
    Op("WeightQuantBatchMatmulV2", "const aclTensor* x, const aclTensor* weight, const aclTensor* antiquantScale, "
       "const aclTensor* antiquantOffsetOptional, const aclTensor* quantScaleOptional, "
       "const aclTensor* quantOffsetOptional, const aclTensor* biasOptional, int antiquantGroupSize, "
       "const aclTensor* y", "aclnn_weight_quant_batch_matmul_v2.h", **NN, dtypes=("f16", "bf16"), out="y"),
]
