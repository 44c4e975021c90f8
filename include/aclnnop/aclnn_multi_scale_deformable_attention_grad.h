/* pyaclnn: gradient of multi-scale deformable attention (aclnnMultiScaleDeformableAttentionGrad). */
#ifndef PYACLNN_ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTENTION_GRAD_H
#define PYACLNN_ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTENTION_GRAD_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(
    const aclTensor *value, const aclTensor *spatialShape, const aclTensor *levelStartIndex, const aclTensor *location,
    const aclTensor *attnWeight, const aclTensor *gradOutput, aclTensor *gradValue, aclTensor *gradLocation,
    aclTensor *gradAttnWeight, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMultiScaleDeformableAttentionGrad(void *workspace, uint64_t workspaceSize,
                                                             aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
