/* aclnnAdaptiveMaxPool2dBackward: gradient of adaptive 2-D max pooling through its argmax indices (per-plane
 * owner, fixed scan order: deterministic). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "kernels/pool.h"
#include "ops/ops.h"

/* Upstream order: NULL, dtypes, ranks and shapes, formats and ranks, self's plane size. */
static aclnnStatus check_params(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                                const aclTensor *gradInput, const uint64_t *workspaceSize,
                                aclOpExecutor *const *executor) {
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(indices, "indices"));
    ACL_TRY(acl_check_tensor(gradInput, "gradInput"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");

    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", self, "self"));
    ACL_TRY(acl_check_same_dtype(gradInput, "gradInput", self, "self"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AdaptiveMaxPool2dBackward, "self"));
    ACLNN_CHECK(indices->dtype == ACL_INT32 || indices->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID,
                "indices must be INT32 or INT64, got dtype %d", (int)indices->dtype);

    ACLNN_CHECK(self->ndim == gradInput->ndim && self->ndim == gradOutput->ndim && self->ndim == indices->ndim,
                ACLNN_ERR_PARAM_INVALID, "self, gradOutput, gradInput and indices must have the same rank");
    for (uint64_t i = 0; i < self->ndim; i++) {
        ACLNN_CHECK(gradOutput->dims[i] == indices->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "gradOutput dim %llu must match indices", (unsigned long long)i);
        ACLNN_CHECK(self->dims[i] == gradInput->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "self dim %llu must match gradInput", (unsigned long long)i);
    }
    ACLNN_CHECK(self->format == gradOutput->format && self->format == gradInput->format &&
                    self->format == indices->format,
                ACLNN_ERR_PARAM_INVALID, "self, gradOutput, gradInput and indices must have the same format");
    ACLNN_CHECK(self->ndim == 3 || self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 3 or 4",
                (unsigned long long)self->ndim);
    for (uint64_t i = 0; i < self->ndim; i++) {
        ACLNN_CHECK(self->dims[i] >= 0, ACLNN_ERR_PARAM_INVALID, "self dim %llu must be >= 0", (unsigned long long)i);
        ACLNN_CHECK(gradOutput->dims[i] >= 0, ACLNN_ERR_PARAM_INVALID, "gradOutput dim %llu must be >= 0",
                    (unsigned long long)i);
    }
    const int64_t h = self->dims[self->ndim - 2], w = self->dims[self->ndim - 1];
    ACLNN_CHECK(h == 0 || w <= INT32_MAX / h, ACLNN_ERR_PARAM_INVALID,
                "self's plane H*W (%lld x %lld) must be at most 2^31 - 1", (long long)h, (long long)w);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_max2d_backward_by_index(acl_exec_in(ex, 0), acl_exec_in(ex, 1), acl_exec_out(ex, 0), ex->params);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AdaptiveMaxPool2dBackward(const aclTensor *gradOutput, const aclTensor *self,
                                           const aclTensor *indices, aclTensor *gradInput, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
    ACL_TRY(check_params(gradOutput, self, indices, gradInput, workspaceSize, executor));
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(self) || acl_tensor_empty(indices))
        return acl_exec_noop(ACL_OP_AdaptiveMaxPool2dBackward, workspaceSize, executor);

    aclOpExecutor *ex = acl_exec_create(ACL_OP_AdaptiveMaxPool2dBackward, run, sizeof(pool_axes));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_input(ex, indices, "indices", true);
    if (rc == 0) rc = acl_exec_add_output(ex, gradInput, "gradInput");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_axes *)ex->params = self->ndim == 3 ? (pool_axes){{0, -1}, 1, 2} : (pool_axes){{0, 1}, 2, 3};
    return acl_exec_publish(ex, workspaceSize, executor);
}
