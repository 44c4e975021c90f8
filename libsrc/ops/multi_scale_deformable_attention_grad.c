/* aclnnMultiScaleDeformableAttentionGrad: gradients of multi-scale deformable attention with respect to value,
 * sampling locations and attention weights (SPEC section 3.2 / 3.3, Decision 1). */
#include "common/shape.h"
#include "ops/msda_plan.h"

#include "ops/gen/all_ops.h"

enum { MAX_C = MSDA_MAX_C, MAX_NQ_EXCL = 500000, MAX_LEVELS = MSDA_MAX_LEVELS, MAX_HEADS = 16, MAX_POINTS = 16 };

static aclnnStatus check_params(const aclTensor *value, const aclTensor *spatialShape, const aclTensor *levelStartIndex,
                                const aclTensor *location, const aclTensor *attnWeight, const aclTensor *gradOutput,
                                const aclTensor *gradValue, const aclTensor *gradLocation,
                                const aclTensor *gradAttnWeight, const uint64_t *workspaceSize,
                                aclOpExecutor *const *executor) {
    /* 1. NULL pointers, in argument order; then the out-pointers ([EMU]: real code dereferences them) */
    ACL_TRY(acl_check_tensor(value, "value"));
    ACL_TRY(acl_check_tensor(spatialShape, "spatialShape"));
    ACL_TRY(acl_check_tensor(levelStartIndex, "levelStartIndex"));
    ACL_TRY(acl_check_tensor(location, "location"));
    ACL_TRY(acl_check_tensor(attnWeight, "attnWeight"));
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(gradValue, "gradValue"));
    ACL_TRY(acl_check_tensor(gradLocation, "gradLocation"));
    ACL_TRY(acl_check_tensor(gradAttnWeight, "gradAttnWeight"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");

    /* 2. dtypes, each on its own in argument order (no equality rule between tensors) */
    ACL_TRY(acl_check_dtype_in(value, ACL_DT_LIST_MultiScaleDeformableAttentionGrad, "value"));
    ACL_TRY(acl_check_dtype_in(spatialShape, ACL_DT_LIST_MultiScaleDeformableAttentionGrad_spatialShape,
                               "spatialShape"));
    ACL_TRY(acl_check_dtype_in(levelStartIndex, ACL_DT_LIST_MultiScaleDeformableAttentionGrad_levelStartIndex,
                               "levelStartIndex"));
    ACL_TRY(acl_check_dtype_in(location, ACL_DT_LIST_MultiScaleDeformableAttentionGrad, "location"));
    ACL_TRY(acl_check_dtype_in(attnWeight, ACL_DT_LIST_MultiScaleDeformableAttentionGrad, "attnWeight"));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_MultiScaleDeformableAttentionGrad, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(gradValue, ACL_DT_LIST_MultiScaleDeformableAttentionGrad, "gradValue"));
    ACL_TRY(acl_check_dtype_in(gradLocation, ACL_DT_LIST_MultiScaleDeformableAttentionGrad, "gradLocation"));
    ACL_TRY(acl_check_dtype_in(gradAttnWeight, ACL_DT_LIST_MultiScaleDeformableAttentionGrad, "gradAttnWeight"));

    /* 3. formats: no input may be FRACTAL_NZ */
    const aclTensor *ins[6] = {value, spatialShape, levelStartIndex, location, attnWeight, gradOutput};
    static const char *const in_names[6] = {"value", "spatialShape", "levelStartIndex", "location", "attnWeight",
                                            "gradOutput"};
    for (int i = 0; i < 6; i++)
        ACLNN_CHECK(ins[i]->format != ACL_FORMAT_FRACTAL_NZ, ACLNN_ERR_PARAM_INVALID,
                    "%s format FRACTAL_NZ is not supported.", in_names[i]);

    /* 4. ranks, then the size constraints */
    ACL_TRY(acl_check_rank(value, 4, "value"));
    ACL_TRY(acl_check_rank(spatialShape, 2, "spatialShape"));
    ACLNN_CHECK(spatialShape->dims[1] == 2, ACLNN_ERR_PARAM_INVALID,
                "spatialShape dim 1 is %lld but should be 2 (H, W per level).", (long long)spatialShape->dims[1]);
    ACL_TRY(acl_check_rank(levelStartIndex, 1, "levelStartIndex"));
    ACL_TRY(acl_check_rank(location, 6, "location"));
    ACLNN_CHECK(location->dims[5] == 2, ACLNN_ERR_PARAM_INVALID,
                "location dim 5 is %lld but should be 2 (x, y per point).", (long long)location->dims[5]);
    ACL_TRY(acl_check_rank(attnWeight, 5, "attnWeight"));
    ACLNN_CHECK(gradOutput->ndim == 3 || gradOutput->ndim == 4, ACLNN_ERR_PARAM_INVALID,
                "gradOutput should be 3-dimensional (bs, num_queries, num_heads*channels) or 4-dimensional "
                "(bs, num_queries, num_heads, channels), but it has %llu dimensions.",
                (unsigned long long)gradOutput->ndim);
    const int64_t nh = value->dims[2], C = value->dims[3], nl = spatialShape->dims[0], nq = location->dims[1],
                  np = location->dims[4];
    ACLNN_CHECK(C % 8 == 0 && C <= MAX_C, ACLNN_ERR_PARAM_INVALID,
                "value channels (dim 3) is %lld; it must be a multiple of 8 and at most %d.", (long long)C, MAX_C);
    ACLNN_CHECK(nq < MAX_NQ_EXCL, ACLNN_ERR_PARAM_INVALID, "location num_queries (dim 1) is %lld; it must be below %d.",
                (long long)nq, MAX_NQ_EXCL);
    ACLNN_CHECK(nl <= MAX_LEVELS, ACLNN_ERR_PARAM_INVALID, "spatialShape num_levels (dim 0) is %lld; at most %d.",
                (long long)nl, MAX_LEVELS);
    ACLNN_CHECK(nh <= MAX_HEADS, ACLNN_ERR_PARAM_INVALID, "value num_heads (dim 2) is %lld; at most %d.", (long long)nh,
                MAX_HEADS);
    ACLNN_CHECK(np <= MAX_POINTS, ACLNN_ERR_PARAM_INVALID, "location num_points (dim 4) is %lld; at most %d.",
                (long long)np, MAX_POINTS);

    /* 5. cross-tensor consistency */
    const int64_t bs = value->dims[0];
    MSDA_CHECK_DIM(location, "location", 0, bs, "value dim 0 (batch)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 0, bs, "value dim 0 (batch)");
    MSDA_CHECK_DIM(gradOutput, "gradOutput", 0, bs, "value dim 0 (batch)");
    MSDA_CHECK_DIM(location, "location", 2, nh, "value dim 2 (num_heads)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 2, nh, "value dim 2 (num_heads)");
    MSDA_CHECK_DIM(levelStartIndex, "levelStartIndex", 0, nl, "spatialShape dim 0 (num_levels)");
    MSDA_CHECK_DIM(location, "location", 3, nl, "spatialShape dim 0 (num_levels)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 3, nl, "spatialShape dim 0 (num_levels)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 1, nq, "location dim 1 (num_queries)");
    MSDA_CHECK_DIM(gradOutput, "gradOutput", 1, nq, "location dim 1 (num_queries)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 4, np, "location dim 4 (num_points)");
    if (gradOutput->ndim == 3) {
        int64_t hc;
        ACLNN_CHECK(acl_mul_i64(nh, C, &hc), ACLNN_ERR_PARAM_INVALID, "value num_heads*channels overflows int64");
        MSDA_CHECK_DIM(gradOutput, "gradOutput", 2, hc, "value num_heads*channels");
    } else {
        MSDA_CHECK_DIM(gradOutput, "gradOutput", 2, nh, "value dim 2 (num_heads)");
        MSDA_CHECK_DIM(gradOutput, "gradOutput", 3, C, "value dim 3 (channels)");
    }

    /* 6. output shapes */
    ACL_TRY(acl_check_same_shape(value, "value", gradValue, "gradValue"));
    ACL_TRY(acl_check_same_shape(location, "location", gradLocation, "gradLocation"));
    ACL_TRY(acl_check_same_shape(attnWeight, "attnWeight", gradAttnWeight, "gradAttnWeight"));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_MultiScaleDeformableAttentionGrad(
    const aclTensor *value, const aclTensor *spatialShape, const aclTensor *levelStartIndex, const aclTensor *location,
    const aclTensor *attnWeight, const aclTensor *gradOutput, aclTensor *gradValue, aclTensor *gradLocation,
    aclTensor *gradAttnWeight, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_params(value, spatialShape, levelStartIndex, location, attnWeight, gradOutput, gradValue,
                         gradLocation, gradAttnWeight, workspaceSize, executor));
    /* 7. early success, outputs untouched */
    if (acl_tensor_empty(value) || acl_tensor_empty(spatialShape) || acl_tensor_empty(levelStartIndex) ||
        acl_tensor_empty(location) || acl_tensor_empty(attnWeight) || acl_tensor_empty(gradOutput))
        return acl_exec_noop(ACL_OP_MultiScaleDeformableAttentionGrad, workspaceSize, executor);

    aclOpExecutor *ex = acl_exec_create(ACL_OP_MultiScaleDeformableAttentionGrad, msda_plan_run, sizeof(msda_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = msda_plan_free;
    aclnnStatus rc = acl_exec_add_input(ex, value, "value", true);
    if (rc == 0) rc = acl_exec_add_input(ex, spatialShape, "spatialShape", true);
    if (rc == 0) rc = acl_exec_add_input(ex, levelStartIndex, "levelStartIndex", true);
    if (rc == 0) rc = acl_exec_add_input(ex, location, "location", true);
    if (rc == 0) rc = acl_exec_add_input(ex, attnWeight, "attnWeight", true);
    if (rc == 0) rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_output(ex, gradValue, "gradValue");
    if (rc == 0) rc = acl_exec_add_output(ex, gradLocation, "gradLocation");
    if (rc == 0) rc = acl_exec_add_output(ex, gradAttnWeight, "gradAttnWeight");
    if (rc) return acl_exec_discard(ex, rc);

    return msda_plan_publish(ex, true, workspaceSize, executor);
}
