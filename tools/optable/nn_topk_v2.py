"""ops-nn index/top_k_top_p_sample_v2 (libsrc/ops/index_top_k_top_p_sample_v2.c).

No op_api source: the aclnn entry is generated from the OpDef (op_host/top_k_top_p_sample_v2_def.cpp, ascend910b
configured), so phase 1 is the NULL checks of the required tensors (161001), the OpDef's dtype combination
(161002), then the tiling's checks (op_host/top_k_top_p_sample_v2_tiling.cpp, 561002)."""
from . import Op

OPS = [
    Op("TopKTopPSampleV2", "const aclTensor* logits, const aclTensor* topK, const aclTensor* topP, "
       "const aclTensor* q, const aclTensor* minPs, double eps, bool isNeedLogits, int64_t topKGuess, "
       "int64_t ksMax, bool inputIsLogits, bool isNeedSampleResult, const aclTensor* logitsSelectIdx, "
       "const aclTensor* logitsTopKPSelect, const aclTensor* logitsIdx, const aclTensor* logitsSortMasked",
       "aclnn_top_k_top_p_sample_v2.h", lib="nn", dtypes=("f16", "bf16", "f32"),
       out=("logitsSelectIdx", "logitsTopKPSelect", "logitsIdx", "logitsSortMasked"), test=False),
]
