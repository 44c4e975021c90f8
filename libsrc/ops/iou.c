/* aclnnIou (ops-cv objdetect/iou_v2): IoU or IoF of bBoxes (m, 4) against gtBoxes (n, 4), every pair (overlap
 * (m, n)) or row by row (aligned, overlap (m, 1)). Validation in the op_api's order: NULL, dtypes (then storage
 * formats), attributes, shapes; empty boxes succeed without writing. */
#include <string.h>

#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "kernels/iou.h"
#include "ops/ops.h"

static const aclFormat k_nd[] = {ACL_FORMAT_ND};

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws, (void)ws_size;
    const iou_params *p = ex->params;
    const acl_view *b = acl_exec_in(ex, 0), *g = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    switch (o->dtype) {
    case ACL_FLOAT: acl_iou_f32(b, g, o, p); break;
    case ACL_FLOAT16: acl_iou_f16(b, g, o, p); break;
    case ACL_BF16: acl_iou_bf16(b, g, o, p); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unsupported dtype %s", acl_dtype_name(o->dtype));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Iou(const aclTensor *bBoxes, const aclTensor *gtBoxes, const char *mode, float eps, bool aligned,
                     aclTensor *overlap, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(acl_check_tensor(bBoxes, "bBoxes"));
    ACL_TRY(acl_check_tensor(gtBoxes, "gtBoxes"));
    ACL_TRY(acl_check_tensor(overlap, "overlap"));
    ACL_TRY(acl_check_same_dtype(bBoxes, "bBoxes", gtBoxes, "gtBoxes"));
    ACL_TRY(acl_check_same_dtype(bBoxes, "bBoxes", overlap, "overlap"));
    ACL_TRY(acl_check_dtype_in(bBoxes, ACL_DT_LIST_Iou, "bBoxes"));
    ACL_TRY(acl_check_dtype_in(gtBoxes, ACL_DT_LIST_Iou, "gtBoxes"));
    ACL_TRY(acl_check_dtype_in(overlap, ACL_DT_LIST_Iou, "overlap"));
    ACL_TRY(acl_check_format_in(bBoxes, k_nd, 1, "bBoxes"));
    ACL_TRY(acl_check_format_in(gtBoxes, k_nd, 1, "gtBoxes"));
    ACL_TRY(acl_check_format_in(overlap, k_nd, 1, "overlap"));
    ACLNN_CHECK(mode != NULL, ACLNN_ERR_PARAM_INVALID, "mode is null, it should be \"iou\" or \"iof\".");
    ACLNN_CHECK(strcmp(mode, "iou") == 0 || strcmp(mode, "iof") == 0, ACLNN_ERR_PARAM_INVALID,
                "mode should be \"iou\" or \"iof\", but it is \"%s\".", mode);
    ACLNN_CHECK(!(eps < 0.0f), ACLNN_ERR_PARAM_INVALID, "eps should be >= 0, but it is %f.", (double)eps);
    ACLNN_CHECK(bBoxes->ndim == 2 && gtBoxes->ndim == 2 && overlap->ndim == 2, ACLNN_ERR_PARAM_INVALID,
                "bBoxes, gtBoxes and overlap should be 2-D, but they have %llu, %llu and %llu dims.",
                (unsigned long long)bBoxes->ndim, (unsigned long long)gtBoxes->ndim,
                (unsigned long long)overlap->ndim);
    ACLNN_CHECK(bBoxes->dims[1] == 4 && gtBoxes->dims[1] == 4, ACLNN_ERR_PARAM_INVALID,
                "bBoxes dim1 [%lld] and gtBoxes dim1 [%lld] should be 4.", (long long)bBoxes->dims[1],
                (long long)gtBoxes->dims[1]);
    if (aligned) {
        ACLNN_CHECK(bBoxes->dims[0] == gtBoxes->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "bBoxes dim0 [%lld] and gtBoxes dim0 [%lld] should be equal when aligned.",
                    (long long)bBoxes->dims[0], (long long)gtBoxes->dims[0]);
        ACLNN_CHECK(overlap->dims[1] == 1, ACLNN_ERR_PARAM_INVALID, "overlap dim1 [%lld] should be 1 when aligned.",
                    (long long)overlap->dims[1]);
    }
    if (acl_tensor_empty(bBoxes) || acl_tensor_empty(gtBoxes))
        return acl_exec_noop(ACL_OP_Iou, workspaceSize, executor);
    /* the op_api leaves overlap's shape to the final copy of the (m, n) or (m, 1) result, which fails on a
     * mismatch (561103, as the device's ViewCopy) */
    const int64_t m = bBoxes->dims[0], n = aligned ? 1 : gtBoxes->dims[0];
    ACLNN_CHECK(overlap->dims[0] == m && overlap->dims[1] == n, ACLNN_ERR_INNER_NULLPTR,
                "overlap shape [%lld, %lld] should be [%lld, %lld] for the result copy.", (long long)overlap->dims[0],
                (long long)overlap->dims[1], (long long)m, (long long)n);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Iou, run, sizeof(iou_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, bBoxes, "bBoxes", true);
    if (rc == 0) rc = acl_exec_add_input(ex, gtBoxes, "gtBoxes", true);
    if (rc == 0) rc = acl_exec_add_output(ex, overlap, "overlap");
    if (rc) return acl_exec_discard(ex, rc);
    *(iou_params *)ex->params = (iou_params){eps, strcmp(mode, "iof") == 0, aligned};
    return acl_exec_publish(ex, workspaceSize, executor);
}
