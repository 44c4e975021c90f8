"""ops-nn activation family, second batch (libsrc/ops/rrelu_with_noise.c, ...). The dtype lists are the
ASCEND910B lists of each op's op_api source (hicann/ops-nn activation/<op>/op_api/aclnn_*.cpp)."""
from . import Op

RRELU = ("f32", "f16", "bf16")

OPS = [
    Op("RReluWithNoise", "const aclTensor* self, const aclTensor* noise, const aclScalar* lower, "
       "const aclScalar* upper, bool training, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_rrelu_with_noise.h", lib="nn", dtypes=RRELU),
    Op("InplaceRReluWithNoise", "const aclTensor* self, const aclTensor* noise, const aclScalar* lower, "
       "const aclScalar* upper, bool training, int64_t seed, int64_t offset", "aclnn_rrelu_with_noise.h", lib="nn",
       dtypes=RRELU, inout="self"),
]
