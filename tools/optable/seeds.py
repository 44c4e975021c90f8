"""The four seed operators and their backward twins (SPEC.md): hand-written first phases in libsrc/ops/.
The dtype lists are the ASCEND910B lists of the op_api sources (docs/UPSTREAM.md names source and commit)."""
from . import FLOAT, Op

IDX = ("i32", "i64")

OPS = [
    Op("AvgPool2d", """const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* strides,
       const aclIntArray* paddings, const bool ceilMode, const bool countIncludePad, const int64_t divisorOverride,
       const int8_t cubeMathType, aclTensor* out""", "aclnn_avgpool2d.h", lib="nn",
       dtypes=FLOAT),
    Op("AvgPool2dBackward", """const aclTensor* gradOutput, const aclTensor* self, const aclIntArray* kernelSize,
       const aclIntArray* stride, const aclIntArray* padding, bool ceilMode, bool countIncludePad,
       int64_t divisorOverride, int8_t cubeMathType, aclTensor* gradInput""", "aclnn_avgpool2d_backward.h", lib="nn",
       dtypes=FLOAT),
    Op("GridSampler2D", """const aclTensor* input, const aclTensor* grid, int64_t interpolationMode,
       int64_t paddingMode, bool alignCorners, aclTensor* out""", "aclnn_grid_sampler2d.h", lib="cv",
       dtypes=("f32", "f16", "bf16", "f64")),
    Op("GridSampler2DBackward", """const aclTensor* gradOutput, const aclTensor* input, const aclTensor* grid,
       int64_t interpolationMode, int64_t paddingMode, bool alignCorners, const aclBoolArray* outputMask,
       aclTensor* inputGrad, aclTensor* gridGrad""", "aclnn_grid_sampler2d_backward.h", lib="cv",
       dtypes=("f32", "f16", "f64", "bf16")),
    Op("MultiScaleDeformableAttnFunction", """const aclTensor* value, const aclTensor* spatialShape,
       const aclTensor* levelStartIndex, const aclTensor* location, const aclTensor* attnWeight, aclTensor* output""",
       "aclnn_multi_scale_deformable_attn_function.h", lib="nn",
       dtypes=FLOAT, arg_dtypes={"spatialShape": IDX, "levelStartIndex": IDX}),
    Op("MultiScaleDeformableAttentionGrad", """const aclTensor* value, const aclTensor* spatialShape,
       const aclTensor* levelStartIndex, const aclTensor* location, const aclTensor* attnWeight,
       const aclTensor* gradOutput, aclTensor* gradValue, aclTensor* gradLocation, aclTensor* gradAttnWeight""",
       "aclnn_multi_scale_deformable_attention_grad.h", lib="nn",
       dtypes=FLOAT, arg_dtypes={"spatialShape": IDX, "levelStartIndex": IDX}),
    Op("UpsampleNearestExact2d", """const aclTensor* self, const aclIntArray* outputSize, double scalesH,
       double scalesW, aclTensor* out""", "aclnn_upsample_nearest_exact2d.h", lib="cv",
       dtypes=("f32", "f16", "bf16", "u8")),
    Op("UpsampleNearestExact2dBackward", """const aclTensor* gradOutput, const aclIntArray* outputSize,
       const aclIntArray* inputSize, double scalesH, double scalesW, aclTensor* out""",
       "aclnn_upsample_nearest_exact2d_backward.h", lib="cv",
       dtypes=FLOAT),
]
