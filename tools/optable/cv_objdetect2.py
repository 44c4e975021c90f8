"""The objdetect ops of hicann/ops-cv that the Atlas A2 (ASCEND910B) does not run (libsrc/ops/cv_objdetect_a2.c).
Each entry point does what the real one does on A2: the same argument checks in the same order up to the point
where the real op_api (or the generated aclnn of an op whose OpDef configures only other SoCs) refuses the SoC,
then that refusal with its code and a message. The dtype lists are the op_api/docs lists (for the checks that come
before the refusal)."""
from . import Op

OPS = [
    # op_api: workspaceSize/executor NULL, maxOutputBoxesPerClass[0] <= 700, NULL, dtypes, iouThreshold in [0, 1],
    # formats ND, shapes, centerPointBox 0|1, then every NpuArch but DAV_2002 (Atlas inference) refused (361001)
    Op("NonMaxSuppression", """const aclTensor* boxes, const aclTensor* scores, aclIntArray* maxOutputBoxesPerClass,
       aclFloatArray* iouThreshold, aclFloatArray* scoreThreshold, int32_t centerPointBox,
       aclTensor* selectedIndices""", "aclnn_non_max_suppression.h", lib="cv", dtypes=("f16", "f32"),
       arg_dtypes={"selectedIndices": ("i32",)}, test=False),
    # op_api: the SoC check (regbase only: 361001) comes before every other check
    Op("CIoU", """const aclTensor* bBoxes, const aclTensor* gtBoxes, bool trans, bool isCross, const char* mode,
       aclTensor* overlap, aclTensor* atanSub""", "aclnn_ciou.h", lib="cv", dtypes=("f32", "f16"), test=False),
    # op_api: workspaceSize/executor NULL, then the SoC check (regbase only: 361001)
    Op("RoiPoolingWithArgMax", """const aclTensor* x, const aclTensor* rois, int64_t pooled_h, int64_t pooled_w,
       float spatial_scale_h, float spatial_scale_w, aclTensor* y, aclTensor* argmax""",
       "aclnn_roi_pooling_with_arg_max.h", lib="cv", dtypes=("f32", "f16"), arg_dtypes={"argmax": ("i32",)},
       test=False),
    # op_api: no SoC check, full CheckParams; the kernel exists only for ascend950, so a non-empty call fails
    # where the l0 op is launched (561103)
    Op("RoiPoolingGradWithArgMax", """const aclTensor* gradOutput, const aclTensor* gradInputRef,
       const aclTensor* rois, const aclTensor* argmax, int64_t pooledH, int64_t pooledW, double spatialScale""",
       "aclnn_roi_pooling_grad_with_arg_max.h", lib="cv", dtypes=("f32", "f16"),
       arg_dtypes={"argmax": ("i32",)}, test=False),
    # generated aclnn of ascend310p-only OpDefs: the SoC match of the generated entry point refuses A2 (161002)
    Op("BackgroundReplace", """const aclTensor* bkg, const aclTensor* src, const aclTensor* mask,
       const aclTensor* out""", "aclnn_background_replace.h", lib="cv", dtypes=("f16", "u8"), test=False),
    Op("BlendImagesCustom", """const aclTensor* rgb, const aclTensor* alpha, const aclTensor* frame,
       const aclTensor* out""", "aclnn_blend_images_custom.h", lib="cv", dtypes=("u8",), test=False),
    Op("MrgbaCustom", """const aclTensor* rgb, const aclTensor* alpha, const aclTensor* out""",
       "aclnn_mrgba_custom.h", lib="cv", dtypes=("u8",), test=False),
]
