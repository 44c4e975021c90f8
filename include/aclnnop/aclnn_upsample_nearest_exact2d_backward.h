/* pyaclnn: gradient of nearest-exact 2-D upsampling (aclnnUpsampleNearestExact2dBackward). */
#ifndef PYACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H
#define PYACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((visibility("default"))) aclnnStatus aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesH,
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

__attribute__((visibility("default"))) aclnnStatus aclnnUpsampleNearestExact2dBackward(
    void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
