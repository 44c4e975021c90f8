/* The Ascend950 (regbase) paths of the ops-cv objdetect ops the Atlas A2 refuses (cv_objdetect_a2.c calls them when
 * acl_soc() is ACL_SOC_950): the op_api's checks for that SoC in their order, then a kernel with the documented
 * values. */
#ifndef PYACLNN_OPS_CV_OBJDETECT_950_H
#define PYACLNN_OPS_CV_OBJDETECT_950_H

#include <stdbool.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"

aclnnStatus acl950_CIoU(const aclTensor *bBoxes, const aclTensor *gtBoxes, bool trans, bool isCross, const char *mode,
                        aclTensor *overlap, aclTensor *atanSub, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus acl950_RoiPoolingWithArgMax(const aclTensor *x, const aclTensor *rois, int64_t pooled_h, int64_t pooled_w,
                                        float spatial_scale_h, float spatial_scale_w, aclTensor *y, aclTensor *argmax,
                                        uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus acl950_RoiPoolingGradWithArgMax(const aclTensor *gradOutput, const aclTensor *gradInputRef,
                                            const aclTensor *rois, const aclTensor *argmax, int64_t pooledH,
                                            int64_t pooledW, double spatialScale, uint64_t *workspaceSize,
                                            aclOpExecutor **executor);
aclnnStatus acl950_roipoolgrad_checks(const aclTensor *gradOutput, const aclTensor *gradInputRef, const aclTensor *rois,
                                      const aclTensor *argmax, int64_t pooledH, int64_t pooledW, bool regbase);

#endif
