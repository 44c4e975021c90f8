/* pyaclnn: multi-scale deformable attention (aclnnMultiScaleDeformableAttnFunction). */
#ifndef PYACLNN_ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTN_FUNCTION_H
#define PYACLNN_ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTN_FUNCTION_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(
    const aclTensor *value, const aclTensor *spatialShape, const aclTensor *levelStartIndex, const aclTensor *location,
    const aclTensor *attnWeight, aclTensor *output, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMultiScaleDeformableAttnFunction(void *workspace, uint64_t workspaceSize,
                                                            aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
