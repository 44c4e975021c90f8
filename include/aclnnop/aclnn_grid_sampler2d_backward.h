/* pyaclnn: gradient of 2-D grid sampling (aclnnGridSampler2DBackward). */
#ifndef PYACLNN_ACLNNOP_ACLNN_GRID_SAMPLER2D_BACKWARD_H
#define PYACLNN_ACLNNOP_ACLNN_GRID_SAMPLER2D_BACKWARD_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *input,
                                                                 const aclTensor *grid, int64_t interpolationMode,
                                                                 int64_t paddingMode, bool alignCorners,
                                                                 const aclBoolArray *outputMask, aclTensor *inputGrad,
                                                                 aclTensor *gridGrad, uint64_t *workspaceSize,
                                                                 aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGridSampler2DBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
