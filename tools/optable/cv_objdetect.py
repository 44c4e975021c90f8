"""Detection ops of hicann/ops-cv `objdetect/` (hand-written, libsrc/ops/roi_align*.c, kernels/roi_align.*).
The dtype lists are the ASCEND910B lists of the op_api sources (docs/UPSTREAM.md names source and commit)."""
from . import Op

OPS = [
    Op("RoiAlign", """const aclTensor* self, const aclTensor* rois, const aclTensor* batchIndices, const char* mode,
       int outputHeight, int outputWidth, int samplingRatio, float spatialScale, aclTensor* out""",
       "aclnn_roi_align.h", lib="cv", dtypes=("f32", "f16"), arg_dtypes={"batchIndices": ("i32",)}),
    Op("RoiAlignV2", """const aclTensor* self, const aclTensor* boxes, int64_t pooledHeight, int64_t pooledWidth,
       float spatialScale, int64_t samplingRatio, bool aligned, aclTensor* out""",
       "aclnn_roi_align_v2.h", lib="cv", dtypes=("f32", "f16")),
    Op("RoiAlignV2Backward", """const aclTensor* gradOutput, const aclTensor* boxes, const aclIntArray* inputShape,
       int64_t pooledHeight, int64_t pooledWidth, float spatialScale, int64_t samplingRatio, bool aligned,
       aclTensor* gradInput""", "aclnn_roi_align_v2_backward.h", lib="cv", dtypes=("f32",)),
]

OPS += [
    Op("Iou", """const aclTensor* bBoxes, const aclTensor* gtBoxes, const char* mode, float eps, bool aligned,
       aclTensor* overlap""", "aclnn_iou.h", lib="cv", dtypes=("f32", "f16", "bf16")),
]
