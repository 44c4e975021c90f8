"""Operators of hicann/ops-transformer that llama.cpp's CANN backend (ggml/src/ggml-cann) calls, hand-written:
aclnnRotaryPositionEmbedding (posembedding/rotary_position_embedding, libsrc/ops/rotary_position_embedding.c).

Their first phase is the one CANN generates from the op definition (no op_api checks of its own: NULL 161001,
the definition's dtype combinations 161002), then the tiling's shape rules (561002). Dtype lists: the
definition's ascend910b configuration."""
from . import Op

NN = dict(lib="nn")

OPS = [
    # x, cos, sin and out of one dtype; mode 0 half, 1 interleave (the A2 tiling's modes)
    Op("RotaryPositionEmbedding", "const aclTensor* x, const aclTensor* cos, const aclTensor* sin, int64_t mode, "
       "aclTensor* out", "aclnn_rotary_position_embedding.h", **NN, dtypes=("f16", "f32", "bf16")),
]
