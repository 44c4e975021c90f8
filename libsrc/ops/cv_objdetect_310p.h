/* The Ascend310P (Atlas inference series) paths of the objdetect ops the A2 refuses (cv_objdetect_310p.c); the
 * A2 entry points of cv_objdetect_a2.c call them when acl_soc() == ACL_SOC_310P. */
#ifndef PYACLNN_OPS_CV_OBJDETECT_310P_H
#define PYACLNN_OPS_CV_OBJDETECT_310P_H

#include "ops/gen/all_ops.h"
#include "ops/ops.h"

aclnnStatus cv310p_BackgroundReplace(const aclTensor *bkg, const aclTensor *src, const aclTensor *mask,
                                     const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus cv310p_BlendImagesCustom(const aclTensor *rgb, const aclTensor *alpha, const aclTensor *frame,
                                     const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus cv310p_MrgbaCustom(const aclTensor *rgb, const aclTensor *alpha, const aclTensor *out,
                               uint64_t *workspaceSize, aclOpExecutor **executor);
/* after the op_api's checks (cv_objdetect_a2.c): the DAV_2002 launch */
aclnnStatus cv310p_NonMaxSuppression(const aclTensor *boxes, const aclTensor *scores, int64_t maxOut, float iou,
                                     const aclFloatArray *scoreThreshold, int32_t centerPointBox,
                                     aclTensor *selectedIndices, uint64_t *workspaceSize, aclOpExecutor **executor);

#endif
