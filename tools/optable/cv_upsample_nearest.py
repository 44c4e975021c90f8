"""The nearest / nearest-exact resampling family of hicann/ops-cv `image/` beyond the seed pair (hand-written,
libsrc/ops/upsample_nearest_family.c over the seed kernels). Dtype lists: the ASCEND910B lists of the op_api."""
from . import Op

FWD = ("f16", "f32", "f64", "u8", "bf16")

OPS = [
    Op("UpsampleNearest1d", """const aclTensor* self, const aclIntArray* outputSize, aclTensor* out""",
       "aclnn_upsample_nearest_1d.h", lib="cv", dtypes=FWD),
    Op("UpsampleNearest2d", """const aclTensor* self, const aclIntArray* outputSize, aclTensor* out""",
       "aclnn_upsample_nearest_2d.h", lib="cv", dtypes=FWD),
    Op("UpsampleNearest1dV2", """const aclTensor* self, const aclIntArray* outputSize, float scaleL,
       aclTensor* out""", "aclnn_upsample_nearest_1d_v2.h", lib="cv", dtypes=FWD),
    Op("UpsampleNearest2dV2", """const aclTensor* self, const aclIntArray* outputSize, float scalesH, float scalesW,
       aclTensor* out""", "aclnn_upsample_nearest_2d_v2.h", lib="cv", dtypes=FWD),
    Op("UpsampleNearestExact1d", """const aclTensor* self, const aclIntArray* outputSize, double scales,
       aclTensor* out""", "aclnn_upsample_nearest_exact1d.h", lib="cv", dtypes=("f32", "f16", "bf16", "u8")),
    Op("UpsampleNearest1dBackward", """const aclTensor* gradOut, const aclIntArray* outputSize,
       const aclIntArray* inputSize, double scales, aclTensor* out""", "aclnn_upsample_nearest_1d_backward.h",
       lib="cv", dtypes=("f16", "f32", "f64", "bf16")),
    Op("UpsampleNearest2dBackward", """const aclTensor* gradOut, const aclIntArray* outputSize,
       const aclIntArray* inputSize, double scalesH, double scalesW, aclTensor* gradInput""",
       "aclnn_upsample_nearest_2d_backward.h", lib="cv", dtypes=("f32", "f16", "bf16")),
    Op("UpsampleNearestExact1dBackward", """const aclTensor* gradOutput, const aclIntArray* outputSize,
       const aclIntArray* inputSize, double scales, aclTensor* out""", "aclnn_upsample_nearest_exact1d_backward.h",
       lib="cv", dtypes=("f32", "f16", "bf16")),
    Op("UpsampleNearest3d", """const aclTensor* self, const aclIntArray* outputSize, double scalesD, double scalesH,
       double scalesW, aclTensor* out""", "aclnn_upsample_nearest_3d.h", lib="cv", dtypes=("f32", "f16", "f64", "bf16")),
    Op("UpsampleNearestExact3d", """const aclTensor* self, const aclIntArray* outputSize, double scalesD,
       double scalesH, double scalesW, aclTensor* out""", "aclnn_upsample_nearest_exact3d.h", lib="cv",
       dtypes=("f32", "f16", "bf16")),
    Op("UpsampleNearest3dBackward", """const aclTensor* gradOut, const aclIntArray* outputSize,
       const aclIntArray* inputSize, double scalesD, double scalesH, double scalesW, aclTensor* gradInput""",
       "aclnn_upsample_nearest_3d_backward.h", lib="cv", dtypes=("f32", "f16", "f64", "bf16")),
    Op("UpsampleNearestExact3dBackward", """const aclTensor* gradOut, const aclIntArray* outputSize,
       const aclIntArray* inputSize, double scalesD, double scalesH, double scalesW, aclTensor* gradInput""",
       "aclnn_upsample_nearest_exact3d_backward.h", lib="cv", dtypes=("f32", "f16", "bf16")),
]
