/* aclnnRoiAlignV2Backward (ops-cv objdetect/roi_align_grad): the gradient of aclnnRoiAlignV2 with respect to its
 * input, float32 only (the A2 list). Validation in the op_api's order: NULL, dtypes, storage formats, input
 * shapes, output shape, attributes; an empty gradOutput or boxes gives an all-zero gradInput. */
#include <float.h>

#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "kernels/roi_align.h"
#include "ops/ops.h"

static const aclFormat k_nchw[] = {ACL_FORMAT_NCHW};
static const aclFormat k_nd[] = {ACL_FORMAT_ND};

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws, (void)ws_size;
    const roia_params *p = ex->params;
    int rc = acl_roi_align_bwd_f32(acl_exec_in(ex, 0), acl_exec_in(ex, 1), acl_exec_out(ex, 0), p);
    ACLNN_CHECK(rc == 0, ACLNN_ERR_INNER, "out of memory for the RoI Align gradient planes");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_RoiAlignV2Backward(const aclTensor *gradOutput, const aclTensor *boxes, const aclIntArray *inputShape,
                                    int64_t pooledHeight, int64_t pooledWidth, float spatialScale,
                                    int64_t samplingRatio, bool aligned, aclTensor *gradInput,
                                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(boxes, "boxes"));
    ACL_TRY(acl_check_int_array(inputShape, "inputShape"));
    ACL_TRY(acl_check_tensor(gradInput, "gradInput"));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_RoiAlignV2Backward, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", boxes, "boxes"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", gradInput, "gradInput"));
    ACL_TRY(acl_check_format_in(gradOutput, k_nchw, 1, "gradOutput"));
    ACL_TRY(acl_check_format_in(boxes, k_nd, 1, "boxes"));
    ACL_TRY(acl_check_format_in(gradInput, k_nchw, 1, "gradInput"));
    ACL_TRY(acl_check_rank(gradOutput, 4, "gradOutput"));
    ACL_TRY(acl_check_rank(boxes, 2, "boxes"));
    ACLNN_CHECK(boxes->dims[1] == 5, ACLNN_ERR_PARAM_INVALID, "boxes shape dim1 [%lld] should be 5.",
                (long long)boxes->dims[1]);
    ACLNN_CHECK(inputShape->size == 4, ACLNN_ERR_PARAM_INVALID, "inputShape should contain 4 ints, but got %llu.",
                (unsigned long long)inputShape->size);
    ACLNN_CHECK(boxes->dims[0] == gradOutput->dims[0], ACLNN_ERR_PARAM_INVALID,
                "boxes shape dim0 [%lld] and gradOutput shape dim0 [%lld] should be equal.",
                (long long)boxes->dims[0], (long long)gradOutput->dims[0]);
    ACLNN_CHECK(gradOutput->dims[2] == pooledHeight, ACLNN_ERR_PARAM_INVALID,
                "gradOutput shape dim2 [%lld] and pooledHeight [%lld] should be equal.",
                (long long)gradOutput->dims[2], (long long)pooledHeight);
    ACLNN_CHECK(gradOutput->dims[3] == pooledWidth, ACLNN_ERR_PARAM_INVALID,
                "gradOutput shape dim3 [%lld] and pooledWidth [%lld] should be equal.",
                (long long)gradOutput->dims[3], (long long)pooledWidth);
    ACL_TRY(acl_check_rank(gradInput, 4, "gradInput"));
    ACLNN_CHECK(gradInput->dims[1] == gradOutput->dims[1], ACLNN_ERR_PARAM_INVALID,
                "gradInput shape dim1 [%lld] and gradOutput shape dim1 [%lld] should be equal.",
                (long long)gradInput->dims[1], (long long)gradOutput->dims[1]);
    for (int i = 0; i < 4; i++)
        ACLNN_CHECK(gradInput->dims[i] == inputShape->v[i], ACLNN_ERR_PARAM_INVALID,
                    "gradInput shape dim%d [%lld] and inputShape [%lld] should be equal.", i,
                    (long long)gradInput->dims[i], (long long)inputShape->v[i]);
    ACLNN_CHECK(samplingRatio >= 0, ACLNN_ERR_PARAM_INVALID, "samplingRatio [%lld] should be >= 0.",
                (long long)samplingRatio);
    ACLNN_CHECK(!(spatialScale <= FLT_MIN), ACLNN_ERR_PARAM_INVALID, "spatialScale [%f] should be greater than 0.",
                (double)spatialScale);
    bool zero = acl_tensor_empty(gradOutput) || acl_tensor_empty(boxes);
    if (acl_tensor_empty(gradInput)) return acl_exec_noop(ACL_OP_RoiAlignV2Backward, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_RoiAlignV2Backward, run, sizeof(roia_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", !zero);
    if (rc == 0) rc = acl_exec_add_input(ex, boxes, "boxes", !zero);
    if (rc == 0) rc = acl_exec_add_output(ex, gradInput, "gradInput");
    if (rc) return acl_exec_discard(ex, rc);
    *(roia_params *)ex->params = (roia_params){pooledHeight, pooledWidth, samplingRatio, spatialScale, aligned,
                                               false, zero};
    return acl_exec_publish(ex, workspaceSize, executor);
}
