/* pyaclnn: gradient of 2-D average pooling (aclnnAvgPool2dBackward). */
#ifndef PYACLNN_ACLNNOP_ACLNN_AVGPOOL2D_BACKWARD_H
#define PYACLNN_ACLNNOP_ACLNN_AVGPOOL2D_BACKWARD_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAvgPool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                             const aclIntArray *kernelSize, const aclIntArray *stride,
                                                             const aclIntArray *padding, bool ceilMode,
                                                             bool countIncludePad, int64_t divisorOverride,
                                                             int8_t cubeMathType, aclTensor *gradInput,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAvgPool2dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
