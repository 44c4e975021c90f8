/* The ops-cv objdetect ops the Atlas A2 (ASCEND910B) does not run. Each entry point does what the real one does
 * on A2: its argument checks, in the real order, up to the point where the real op refuses the SoC, then that
 * refusal with the real code and a message naming the reason. No kernel runs, no output is written.
 *   NonMaxSuppression        op_api checks, then every NpuArch but DAV_2002 (Atlas inference) refused: 361001
 *   CIoU, RoiPoolingWithArgMax   op_api SoC check (regbase SoCs only) before the other checks: 361001
 *   RoiPoolingGradWithArgMax op_api checks (no SoC check); the OpDef has an ascend950 kernel only, so launching the
 *                            l0 op of a non-empty call fails: 561103 (an empty gradOutput succeeds, as the op_api)
 *   BackgroundReplace, BlendImagesCustom, MrgbaCustom   generated aclnn of ascend310p-only OpDefs: the generated
 *                            entry point's SoC match refuses every SoC its OpDef does not configure: 161002
 * (The workspaceSize/executor NULL checks come first in the generated prologue, as opbase's phase-1 macros.)
 * Under an Ascend310P SoC (acl_soc() == ACL_SOC_310P) the four Atlas-inference ops run instead: NonMaxSuppression
 * after the same op_api checks, the three generated ones from their start (cv_objdetect_310p.c). Under an Ascend950
 * SoC (ACL_SOC_950) CIoU and the two RoiPooling ops run as on that SoC (cv_objdetect_950.c). Every other SoC name
 * keeps the A2 behaviour above. */
#include <stdio.h>

#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "ops/cv_objdetect_950.h"
#include "ops/ops.h"
#include "ops/cv_objdetect_310p.h"
#include "runtime/runtime.h"

#define SOC_NAME "Ascend910B"

static const aclDataType F16_F32[] = {ACL_FLOAT16, ACL_FLOAT};

/* ================================================================ NonMaxSuppression (non_max_suppression_v6) */
aclnnStatus opws_NonMaxSuppression(const aclTensor *boxes, const aclTensor *scores, aclIntArray *maxOutputBoxesPerClass,
                                   aclFloatArray *iouThreshold, aclFloatArray *scoreThreshold, int32_t centerPointBox,
                                   aclTensor *selectedIndices, uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the op_api reads maxOutputBoxesPerClass (its first value, 0 when empty) before any other check */
    ACL_TRY(acl_check_int_array(maxOutputBoxesPerClass, "maxOutputBoxesPerClass"));
    const int64_t maxOut = maxOutputBoxesPerClass->size > 0 ? maxOutputBoxesPerClass->v[0] : 0;
    ACLNN_CHECK(maxOut <= 700, ACLNN_ERR_PARAM_INVALID, "maxOutputBoxesPerClass[%lld] should be <= 700",
                (long long)maxOut);
    /* CheckNotNull: boxes, scores, iouThreshold (empty counts as missing), selectedIndices */
    ACL_TRY(acl_check_tensor(boxes, "boxes"));
    ACL_TRY(acl_check_tensor(scores, "scores"));
    ACLNN_CHECK(iouThreshold != NULL && iouThreshold->size > 0, ACLNN_ERR_PARAM_NULLPTR,
                "iouThreshold must hold a value");
    ACL_TRY(acl_check_tensor(selectedIndices, "selectedIndices"));
    /* CheckDtypeValid */
    ACL_TRY(acl_check_dtype_in(boxes, F16_F32, 2, "boxes"));
    ACL_TRY(acl_check_dtype_in(scores, F16_F32, 2, "scores"));
    ACL_TRY(acl_check_same_dtype(boxes, "boxes", scores, "scores"));
    const float iou = iouThreshold->v[0];
    ACLNN_CHECK(iou >= 0.0f && iou <= 1.0f, ACLNN_ERR_PARAM_INVALID, "iouThreshold[0] = %g must be in [0, 1]",
                (double)iou);
    /* CheckFormatValid */
    ACLNN_CHECK(boxes->format == ACL_FORMAT_ND && scores->format == ACL_FORMAT_ND &&
                    selectedIndices->format == ACL_FORMAT_ND,
                ACLNN_ERR_PARAM_INVALID, "boxes, scores and selectedIndices must use format ND");
    /* CheckShape */
    ACLNN_CHECK(boxes->ndim == 3, ACLNN_ERR_PARAM_INVALID, "boxes must be 3-D, got %llu dims",
                (unsigned long long)boxes->ndim);
    ACLNN_CHECK(scores->ndim == 3, ACLNN_ERR_PARAM_INVALID, "scores must be 3-D, got %llu dims",
                (unsigned long long)scores->ndim);
    ACLNN_CHECK(boxes->dims[0] == scores->dims[0], ACLNN_ERR_PARAM_INVALID,
                "boxes dim 0 (%lld) and scores dim 0 (%lld) must be equal", (long long)boxes->dims[0],
                (long long)scores->dims[0]);
    ACLNN_CHECK(boxes->dims[1] == scores->dims[2], ACLNN_ERR_PARAM_INVALID,
                "boxes dim 1 (%lld) and scores dim 2 (%lld) must be equal", (long long)boxes->dims[1],
                (long long)scores->dims[2]);
    ACLNN_CHECK(boxes->dims[2] == 4, ACLNN_ERR_PARAM_INVALID, "boxes dim 2 must be 4, got %lld",
                (long long)boxes->dims[2]);
    /* CheckAttr */
    ACLNN_CHECK(centerPointBox == 0 || centerPointBox == 1, ACLNN_ERR_PARAM_INVALID,
                "centerPointBox must be 0 or 1, got %d", (int)centerPointBox);
    if (acl_soc() == ACL_SOC_310P) /* NpuArch DAV_2002: the Atlas inference series runs the op */
        return cv310p_NonMaxSuppression(boxes, scores, maxOut, iou, scoreThreshold, centerPointBox, selectedIndices,
                                        workspaceSize, executor);
    return ACL_REPORT(ACLNN_ERR_RUNTIME_ERROR,
                      "aclnnNonMaxSuppression is not supported on " SOC_NAME " (Atlas A2): the op runs on the Atlas "
                      "inference series only");
}

/* ================================================================ CIoU, RoiPoolingWithArgMax: refused up front */
aclnnStatus opws_CIoU(const aclTensor *bBoxes, const aclTensor *gtBoxes, bool trans, bool isCross, const char *mode,
                      aclTensor *overlap, aclTensor *atanSub, uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (acl_soc() == ACL_SOC_950) /* a regbase SoC: the op runs (cv_objdetect_950.c) */
        return acl950_CIoU(bBoxes, gtBoxes, trans, isCross, mode, overlap, atanSub, workspaceSize, executor);
    return ACL_REPORT(ACLNN_ERR_RUNTIME_ERROR,
                      "aclnnCIoU: support for " SOC_NAME " (Atlas A2) is not implemented (regbase SoCs only)");
}

aclnnStatus opws_RoiPoolingWithArgMax(const aclTensor *x, const aclTensor *rois, int64_t pooled_h, int64_t pooled_w,
                                      float spatial_scale_h, float spatial_scale_w, aclTensor *y, aclTensor *argmax,
                                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (acl_soc() == ACL_SOC_950)
        return acl950_RoiPoolingWithArgMax(x, rois, pooled_h, pooled_w, spatial_scale_h, spatial_scale_w, y, argmax,
                                           workspaceSize, executor);
    return ACL_REPORT(ACLNN_ERR_RUNTIME_ERROR, "aclnnRoiPoolingWithArgMax: support for " SOC_NAME
                                               " (Atlas A2) is not implemented (regbase SoCs only)");
}

/* ================================================================ RoiPoolingGradWithArgMax */
aclnnStatus opws_RoiPoolingGradWithArgMax(const aclTensor *gradOutput, const aclTensor *gradInputRef,
                                          const aclTensor *rois, const aclTensor *argmax, int64_t pooledH,
                                          int64_t pooledW, double spatialScale, uint64_t *workspaceSize,
                                          aclOpExecutor **executor) {
    if (acl_soc() == ACL_SOC_950) /* the SoC its OpDef has a kernel for (cv_objdetect_950.c) */
        return acl950_RoiPoolingGradWithArgMax(gradOutput, gradInputRef, rois, argmax, pooledH, pooledW, spatialScale,
                                               workspaceSize, executor);
    (void)spatialScale;
    /* the op_api's checks (its format rules apply on regbase SoCs only) */
    ACL_TRY(acl950_roipoolgrad_checks(gradOutput, gradInputRef, rois, argmax, pooledH, pooledW, false));
    if (acl_tensor_empty(gradOutput)) return acl_exec_noop(ACL_OP_RoiPoolingGradWithArgMax, workspaceSize, executor);
    return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR,
                      "aclnnRoiPoolingGradWithArgMax: the RoiPoolingGradWithArgMax kernel exists for ascend950 only, "
                      "none for " SOC_NAME " (Atlas A2)");
}

/* ================================================================ generated aclnn of ascend310p-only OpDefs */
static aclnnStatus soc_310p_only(const char *op) {
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                      "aclnn%s: SoC version " SOC_NAME " verification failed; the op's OpDef configures ascend310p "
                      "(Atlas inference series) only",
                      op);
}

aclnnStatus opws_BackgroundReplace(const aclTensor *bkg, const aclTensor *src, const aclTensor *mask,
                                   const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (acl_soc() == ACL_SOC_310P) return cv310p_BackgroundReplace(bkg, src, mask, out, workspaceSize, executor);
    return soc_310p_only("BackgroundReplace");
}

aclnnStatus opws_BlendImagesCustom(const aclTensor *rgb, const aclTensor *alpha, const aclTensor *frame,
                                   const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (acl_soc() == ACL_SOC_310P) return cv310p_BlendImagesCustom(rgb, alpha, frame, out, workspaceSize, executor);
    return soc_310p_only("BlendImagesCustom");
}

aclnnStatus opws_MrgbaCustom(const aclTensor *rgb, const aclTensor *alpha, const aclTensor *out,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (acl_soc() == ACL_SOC_310P) return cv310p_MrgbaCustom(rgb, alpha, out, workspaceSize, executor);
    return soc_310p_only("MrgbaCustom");
}
