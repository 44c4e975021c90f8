"""ops-nn operators outside the big families: aclnnFlip (index/reverse_v2, a copy plan with reversed strides,
libsrc/ops/flip.c), aclnnNorm (norm/lp_norm_v2, the reduction engine, libsrc/ops/norm.c) and aclnnInverse
(index/matrix_inverse, batched LU inversion, libsrc/ops/inverse.c). Dtype lists: the ASCEND910B (DAV_2201)
branch of each op_api source."""
from . import Op

OPS = [
    Op("Flip", "const aclTensor* self, const aclIntArray* dims, aclTensor* out", "aclnn_flip.h", lib="nn",
       dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "bf16", "bool", "f64", "c64", "c128")),
    # the A2 branch of aclnn_norm.cpp checks no dtype list (only that PromoteType(self, out) exists); the
    # documented list is f32/f16/bf16, which is what `dtypes` records (docs/tests); others are computed via float32
    Op("Norm", "const aclTensor* self, const aclScalar* pScalar, const aclIntArray* dim, bool keepdim, aclTensor* out",
       "aclnn_norm.h", lib="nn", dtypes=("f32", "f16", "bf16")),
    # same engine and A2 path; out's dtype must be `dtype`, no complex
    Op("LinalgVectorNorm", "const aclTensor* self, const aclScalar* ord, const aclIntArray* dims, bool keepDims, "
       "const aclDataType dtype, aclTensor* out", "aclnn_linalg_vector_norm.h", lib="nn", dtypes=("f32", "f16", "bf16")),
    Op("Inverse", "const aclTensor* self, aclTensor* out", "aclnn_inverse.h", lib="nn",
       dtypes=("f32", "f64", "c64", "c128", "f16")),
]
