/* aclnnMultiScaleDeformableAttnFunction: multi-scale deformable attention forward (SPEC section 3.4). */
#include "common/shape.h"
#include "ops/msda_plan.h"

#include "ops/gen/all_ops.h"

enum { MIN_NQ = 32, MAX_C = MSDA_MAX_C, MAX_LEVELS = MSDA_MAX_LEVELS, MAX_HEADS = 16, MAX_POINTS = 16 };

/* The checks of the op_api source (aclnn_multi_scale_deformable_attn_function.cpp at the commit docs/UPSTREAM.md
 * names), in its order: NULL, dtypes, ranks and sizes, the level count shared by spatialShape, location and
 * attnWeight. Nothing else is compared across tensors there (see check_launch and msda_plan.c). */
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

    /* each tensor in its list, in argument order; then location, attnWeight, output as value */
    ACL_TRY(acl_check_dtype_in(value, ACL_DT_LIST_MultiScaleDeformableAttnFunction, "value"));
    ACL_TRY(acl_check_dtype_in(spatialShape, ACL_DT_LIST_MultiScaleDeformableAttnFunction_spatialShape,
                               "spatialShape"));
    ACL_TRY(acl_check_dtype_in(levelStartIndex, ACL_DT_LIST_MultiScaleDeformableAttnFunction_levelStartIndex,
                               "levelStartIndex"));
    ACL_TRY(acl_check_dtype_in(location, ACL_DT_LIST_MultiScaleDeformableAttnFunction, "location"));
    ACL_TRY(acl_check_dtype_in(attnWeight, ACL_DT_LIST_MultiScaleDeformableAttnFunction, "attnWeight"));
    ACL_TRY(acl_check_dtype_in(output, ACL_DT_LIST_MultiScaleDeformableAttnFunction, "output"));
    ACL_TRY(acl_check_same_dtype(value, "value", location, "location"));
    ACL_TRY(acl_check_same_dtype(value, "value", attnWeight, "attnWeight"));
    ACL_TRY(acl_check_same_dtype(value, "value", output, "output"));

    ACL_TRY(acl_check_rank(value, 4, "value"));
    ACL_TRY(acl_check_rank(spatialShape, 2, "spatialShape"));
    ACL_TRY(acl_check_rank(levelStartIndex, 1, "levelStartIndex"));
    ACL_TRY(acl_check_rank(location, 6, "location"));
    ACL_TRY(acl_check_rank(attnWeight, 5, "attnWeight"));
    ACL_TRY(acl_check_rank(output, 3, "output"));
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

/* [HW] What fails later in the real first phase, after the empty-tensor early return, with ACLNN_ERR_INNER_NULLPTR
 * (561103: the l0 op or the final copy hands back nothing):
 * 1. The kernel's tiling runs in phase 1. It takes num_queries, num_heads and num_points from attnWeight as the
 *    host code passes it on: transposed to (bs, nh, nl, np, nq) unless the no-transpose kernel applies (levels and
 *    heads <= 8, C 16 or 32, an even point count, all as location has them), then read as (bs, nh, ., np, nq) when
 *    its dim 1 is below 32 and as (bs, nq, nh, ., np) otherwise; it fails when those break the limits the host
 *    code checked on location (num_queries >= 32, num_heads and num_points <= 16).
 * 2. The result, (value dim 0, location dim 1, value dim 2 * dim 3), is copied into output, which needs exactly
 *    that shape.
 * Any other disagreement between the tensors' shared dimensions is accepted, as on the device; msda_plan.c says
 * what the emulator computes then. */
static aclnnStatus check_launch(const aclTensor *value, const aclTensor *location, const aclTensor *attnWeight,
                                const aclTensor *output) {
    /* the host code's dims are unsigned there (a negative one is huge) */
    const uint64_t *a = (const uint64_t *)attnWeight->dims, *l = (const uint64_t *)location->dims;
    const int64_t C = value->dims[3];
    const bool no_transpose = l[3] <= 8 && l[2] <= 8 && (C == 16 || C == 32) && l[4] % 2 == 0;
    const uint64_t t[5] = {a[0], no_transpose ? a[1] : a[2], no_transpose ? a[2] : a[3],
                           no_transpose ? a[3] : a[4], no_transpose ? a[4] : a[1]}; /* the tiling's view */
    const bool by_query = t[1] >= MIN_NQ;
    const uint64_t tq = by_query ? t[1] : t[4], th = by_query ? t[2] : t[1], tp = by_query ? t[4] : t[3];
    ACLNN_CHECK(tq >= MIN_NQ && th <= MAX_HEADS && tp <= MAX_POINTS, ACLNN_ERR_INNER_NULLPTR,
                "the kernel's tiling reads attnWeight %s as num_queries %lld, num_heads %lld, num_points %lld, "
                "which break its limits (at least %d queries, at most %d heads and %d points).",
                no_transpose ? "as given" : "transposed to (bs, nh, nl, np, nq)", (long long)tq, (long long)th,
                (long long)tp, MIN_NQ, MAX_HEADS, MAX_POINTS);
    int64_t hc;
    const bool ok = acl_mul_i64(value->dims[2], C, &hc) && output->dims[0] == value->dims[0] &&
                    output->dims[1] == location->dims[1] && output->dims[2] == hc;
    ACLNN_CHECK(ok, ACLNN_ERR_INNER_NULLPTR,
                "output shape (%lld, %lld, %lld) should be (value dim 0, location dim 1, value dim 2 * dim 3) = "
                "(%lld, %lld, %lld * %lld): the result is copied into it.",
                (long long)output->dims[0], (long long)output->dims[1], (long long)output->dims[2],
                (long long)value->dims[0], (long long)location->dims[1], (long long)value->dims[2], (long long)C);
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
    ACL_TRY(check_launch(value, location, attnWeight, output));

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
