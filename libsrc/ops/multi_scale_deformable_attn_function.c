/* aclnnMultiScaleDeformableAttnFunction: multi-scale deformable attention forward (SPEC section 3.4). */
#include "ops/msda_plan.h"

#include "ops/gen/all_ops.h"

static const aclDataType k_float_dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType k_index_dtypes[] = {ACL_INT32, ACL_INT64};
enum { MIN_NQ = 32, MAX_C = MSDA_MAX_C, MAX_LEVELS = MSDA_MAX_LEVELS, MAX_HEADS = 16, MAX_POINTS = 16 };

/* The checks the real host code makes, in its order. */
static aclnnStatus check_params(const aclTensor *value, const aclTensor *spatialShape, const aclTensor *levelStartIndex,
                                const aclTensor *location, const aclTensor *attnWeight, const aclTensor *output,
                                const uint64_t *workspaceSize, aclOpExecutor *const *executor) {
    ACL_TRY(acl_check_tensor(value, "value"));
    ACL_TRY(acl_check_tensor(spatialShape, "spatialShape"));
    ACL_TRY(acl_check_tensor(levelStartIndex, "levelStartIndex"));
    ACL_TRY(acl_check_tensor(location, "location"));
    ACL_TRY(acl_check_tensor(attnWeight, "attnWeight"));
    ACL_TRY(acl_check_tensor(output, "output"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");

    const int nf = ACL_COUNT_OF(k_float_dtypes), ni = ACL_COUNT_OF(k_index_dtypes);
    ACL_TRY(acl_check_dtype_in(value, k_float_dtypes, nf, "value"));
    ACL_TRY(acl_check_dtype_in(location, k_float_dtypes, nf, "location"));
    ACL_TRY(acl_check_dtype_in(attnWeight, k_float_dtypes, nf, "attnWeight"));
    ACL_TRY(acl_check_dtype_in(output, k_float_dtypes, nf, "output"));
    ACL_TRY(acl_check_dtype_in(spatialShape, k_index_dtypes, ni, "spatialShape"));
    ACL_TRY(acl_check_dtype_in(levelStartIndex, k_index_dtypes, ni, "levelStartIndex"));
    ACL_TRY(acl_check_same_dtype(value, "value", location, "location"));
    ACL_TRY(acl_check_same_dtype(value, "value", attnWeight, "attnWeight"));
    ACL_TRY(acl_check_same_dtype(value, "value", output, "output"));

    ACL_TRY(acl_check_rank(value, 4, "value"));
    ACL_TRY(acl_check_rank(spatialShape, 2, "spatialShape"));
    ACL_TRY(acl_check_rank(levelStartIndex, 1, "levelStartIndex"));
    ACL_TRY(acl_check_rank(location, 6, "location"));
    ACL_TRY(acl_check_rank(attnWeight, 5, "attnWeight"));
    ACL_TRY(acl_check_rank(output, 3, "output"));
    const aclTensor *all[6] = {value, spatialShape, levelStartIndex, location, attnWeight, output};
    static const char *const names[6] = {"value", "spatialShape", "levelStartIndex", "location", "attnWeight",
                                         "output"};
    for (int i = 0; i < 6; i++) ACL_TRY(acl_check_nonneg_dims(all[i], names[i]));
    ACLNN_CHECK(spatialShape->dims[1] == 2, ACLNN_ERR_PARAM_INVALID,
                "spatialShape dim 1 is %lld but should be 2 (H, W per level).", (long long)spatialShape->dims[1]);
    ACLNN_CHECK(location->dims[5] == 2, ACLNN_ERR_PARAM_INVALID,
                "location dim 5 is %lld but should be 2 (x, y per point).", (long long)location->dims[5]);
    const int64_t nq = location->dims[1], nh = location->dims[2], nl = location->dims[3], np = location->dims[4],
                  C = value->dims[3];
    ACLNN_CHECK(nq >= MIN_NQ, ACLNN_ERR_PARAM_INVALID, "location num_queries (dim 1) is %lld; it must be at least %d.",
                (long long)nq, MIN_NQ);
    ACLNN_CHECK(nh <= MAX_HEADS, ACLNN_ERR_PARAM_INVALID, "location num_heads (dim 2) is %lld; at most %d.",
                (long long)nh, MAX_HEADS);
    ACLNN_CHECK(nl <= MAX_LEVELS, ACLNN_ERR_PARAM_INVALID, "location num_levels (dim 3) is %lld; at most %d.",
                (long long)nl, MAX_LEVELS);
    ACLNN_CHECK(np <= MAX_POINTS, ACLNN_ERR_PARAM_INVALID, "location num_points (dim 4) is %lld; at most %d.",
                (long long)np, MAX_POINTS);
    ACLNN_CHECK(C % 8 == 0 && C <= MAX_C, ACLNN_ERR_PARAM_INVALID,
                "value channels (dim 3) is %lld; it must be a multiple of 8 and at most %d.", (long long)C, MAX_C);
    MSDA_CHECK_DIM(location, "location", 3, spatialShape->dims[0], "spatialShape dim 0 (num_levels)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 3, spatialShape->dims[0], "spatialShape dim 0 (num_levels)");
    return ACLNN_SUCCESS;
}

/* [EMU] what the kernel's memory accesses rely on and the real host code leaves unchecked. */
static aclnnStatus check_consistency(const aclTensor *value, const aclTensor *levelStartIndex,
                                     const aclTensor *location, const aclTensor *attnWeight, const aclTensor *output) {
    const int64_t bs = value->dims[0], nq = location->dims[1], nh = location->dims[2], nl = location->dims[3],
                  np = location->dims[4], C = value->dims[3];
    MSDA_CHECK_DIM(location, "location", 0, bs, "value dim 0 (batch)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 0, bs, "value dim 0 (batch)");
    MSDA_CHECK_DIM(value, "value", 2, nh, "location dim 2 (num_heads)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 1, nq, "location dim 1 (num_queries)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 2, nh, "location dim 2 (num_heads)");
    MSDA_CHECK_DIM(attnWeight, "attnWeight", 4, np, "location dim 4 (num_points)");
    MSDA_CHECK_DIM(levelStartIndex, "levelStartIndex", 0, nl, "location dim 3 (num_levels)");
    MSDA_CHECK_DIM(output, "output", 0, bs, "value dim 0 (batch)");
    MSDA_CHECK_DIM(output, "output", 1, nq, "location dim 1 (num_queries)");
    MSDA_CHECK_DIM(output, "output", 2, nh * C, "num_heads*channels");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_MultiScaleDeformableAttnFunction(const aclTensor *value, const aclTensor *spatialShape,
                                                  const aclTensor *levelStartIndex,
                                                  const aclTensor *location,
                                                  const aclTensor *attnWeight, aclTensor *output,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_params(value, spatialShape, levelStartIndex, location, attnWeight, output, workspaceSize, executor));
    if (acl_tensor_empty(value) || acl_tensor_empty(spatialShape) || acl_tensor_empty(levelStartIndex) ||
        acl_tensor_empty(location) || acl_tensor_empty(attnWeight))
        return acl_exec_noop(ACL_OP_MultiScaleDeformableAttnFunction, workspaceSize, executor);
    ACL_TRY(check_consistency(value, levelStartIndex, location, attnWeight, output));

    aclOpExecutor *ex = acl_exec_create(ACL_OP_MultiScaleDeformableAttnFunction, msda_plan_run, sizeof(msda_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = msda_plan_free;
    aclnnStatus rc = acl_exec_add_input(ex, value, "value", true);
    if (rc == 0) rc = acl_exec_add_input(ex, spatialShape, "spatialShape", true);
    if (rc == 0) rc = acl_exec_add_input(ex, levelStartIndex, "levelStartIndex", true);
    if (rc == 0) rc = acl_exec_add_input(ex, location, "location", true);
    if (rc == 0) rc = acl_exec_add_input(ex, attnWeight, "attnWeight", true);
    if (rc == 0) rc = acl_exec_add_output(ex, output, "output");
    if (rc) return acl_exec_discard(ex, rc);

    return msda_plan_publish(ex, false, workspaceSize, executor);
}
