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
    # query/key/value/attentionOut one dtype (the op definition's non-quantised A2 rows); pseShift f16/bf16;
    # attenMask bool/int8/uint8; softmaxLse f32. Quantised/antiquant/paged/shared-prefix inputs: 561002.
    Op("FusedInferAttentionScoreV2", "const aclTensor* query, const aclTensorList* key, const aclTensorList* value, "
       "const aclTensor* pseShiftOptional, const aclTensor* attenMaskOptional, "
       "const aclIntArray* actualSeqLengthsOptional, const aclIntArray* actualSeqLengthsKvOptional, "
       "const aclTensor* deqScale1Optional, const aclTensor* quantScale1Optional, "
       "const aclTensor* deqScale2Optional, const aclTensor* quantScale2Optional, "
       "const aclTensor* quantOffset2Optional, const aclTensor* antiquantScaleOptional, "
       "const aclTensor* antiquantOffsetOptional, const aclTensor* blockTableOptional, "
       "const aclTensor* queryPaddingSizeOptional, const aclTensor* kvPaddingSizeOptional, "
       "const aclTensor* keyAntiquantScaleOptional, const aclTensor* keyAntiquantOffsetOptional, "
       "const aclTensor* valueAntiquantScaleOptional, const aclTensor* valueAntiquantOffsetOptional, "
       "const aclTensor* keySharedPrefixOptional, const aclTensor* valueSharedPrefixOptional, "
       "const aclIntArray* actualSharedPrefixLenOptional, int64_t numHeads, double scaleValue, int64_t preTokens, "
       "int64_t nextTokens, char* inputLayout, int64_t numKeyValueHeads, int64_t sparseMode, int64_t innerPrecise, "
       "int64_t blockSize, int64_t antiquantMode, bool softmaxLseFlag, int64_t keyAntiquantMode, "
       "int64_t valueAntiquantMode, const aclTensor* attentionOut, const aclTensor* softmaxLse",
       "aclnn_fused_infer_attention_score_v2.h", **NN, dtypes=("f16", "bf16"),
       out=("attentionOut", "softmaxLse"), test=False),
    # in place ND -> the matmul weight layout; the header also declares the size helpers (hand-written, no executor)
    Op("TransMatmulWeight", "aclTensor* mmWeightRef", "aclnn_trans_matmul_weight.h", **NN,
       dtypes=("f16", "bf16", "i8", "f32"), inout="mmWeightRef", test=False,
       header_extra="ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape, "
                    "uint64_t *weightTensorSize);\n\n"
                    "ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape, "
                    "aclDataType dataType, uint64_t *weightTensorSize);\n\n"),
]
