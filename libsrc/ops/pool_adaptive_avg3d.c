/* aclnnAdaptiveAvgPool3d and aclnnAdaptiveAvgPool3dBackward: adaptive 3-D average pooling over the last three
 * axes ([N,] C, D, H, W) and its gradient (gather form: each gradInput cell owned by one thread). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "kernels/pool3d.h"
#include "ops/ops.h"

static const aclDataType BWD_ALL_ONE[] = {ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT16, ACL_BF16};

static pool_ad_params axes(const aclTensor *t) {
    const int b = t->ndim == 5;
    return (pool_ad_params){{0, b ? 1 : -1}, {b + 1, b + 2, b + 3}};
}

static aclnnStatus run_fwd(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_adaptive_avg3d(acl_exec_in(ex, 0), acl_exec_out(ex, 0), ex->params);
    return ACLNN_SUCCESS;
}

/* Upstream order: workspaceSize/executor, NULL, ranks (self 4 or 5, out the same, self's dims > 0, out's leading
 * dims = self's, out's pooled dims > 0), dtypes (self, out in the list, out = self), formats, outputSize (length 3,
 * each > 0 and equal to out's pooled dim). */
aclnnStatus opws_AdaptiveAvgPool3d(const aclTensor *self, const aclIntArray *outputSize, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(self->ndim == 4 || self->ndim == 5, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 4 or 5",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(out->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID, "out has %llu dims, must equal self's %llu",
                (unsigned long long)out->ndim, (unsigned long long)self->ndim);
    for (uint64_t i = 0; i < self->ndim; i++)
        ACLNN_CHECK(self->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "self dim %llu is %lld, must be > 0",
                    (unsigned long long)i, (long long)self->dims[i]);
    const uint64_t off = self->ndim - 3;
    for (uint64_t i = 0; i < off; i++)
        ACLNN_CHECK(out->dims[i] == self->dims[i], ACLNN_ERR_PARAM_INVALID, "out dim %llu must match self's",
                    (unsigned long long)i);
    for (uint64_t i = off; i < out->ndim; i++)
        ACLNN_CHECK(out->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "out dim %llu is %lld, must be > 0",
                    (unsigned long long)i, (long long)out->dims[i]);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AdaptiveAvgPool3d, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_AdaptiveAvgPool3d, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "self and out must have the same format");
    ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID, "self's format must not be private");
    ACLNN_CHECK(outputSize->size == 3, ACLNN_ERR_PARAM_INVALID, "outputSize must have 3 values, got %llu",
                (unsigned long long)outputSize->size);
    for (uint64_t i = 0; i < 3; i++)
        ACLNN_CHECK(outputSize->v[i] > 0 && outputSize->v[i] == out->dims[off + i], ACLNN_ERR_PARAM_INVALID,
                    "outputSize[%llu] = %lld must be > 0 and equal out's dim %lld", (unsigned long long)i,
                    (long long)outputSize->v[i], (long long)out->dims[off + i]);

    aclOpExecutor *ex = acl_exec_create(ACL_OP_AdaptiveAvgPool3d, run_fwd, sizeof(pool_ad_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_ad_params *)ex->params = axes(self);
    return acl_exec_publish(ex, workspaceSize, executor);
}

static aclnnStatus run_bwd(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_adaptive_avg3d_backward(acl_exec_in(ex, 0), acl_exec_out(ex, 0), ex->params);
    return ACLNN_SUCCESS;
}

/* Upstream order: workspaceSize/executor, NULL, ranks and shapes (self 4 or 5; gradOutput and out the same rank; self's dims > 0 and = out's;
 * gradOutput's leading dims = self's, its pooled dims > 0), dtypes (gradOutput and self in the list - with double
 * too when gradOutput pools to 1x1x1 -, gradOutput = self = out), formats. */
aclnnStatus opws_AdaptiveAvgPool3dBackward(const aclTensor *gradOutput, const aclTensor *self, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(self->ndim == 4 || self->ndim == 5, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 4 or 5",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(gradOutput->ndim == self->ndim && out->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID,
                "gradOutput, self and out must have the same rank");
    for (uint64_t i = 0; i < self->ndim; i++) {
        ACLNN_CHECK(self->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "self dim %llu is %lld, must be > 0",
                    (unsigned long long)i, (long long)self->dims[i]);
        ACLNN_CHECK(self->dims[i] == out->dims[i], ACLNN_ERR_PARAM_INVALID, "out dim %llu must match self's",
                    (unsigned long long)i);
    }
    const uint64_t off = self->ndim - 3;
    for (uint64_t i = 0; i < off; i++)
        ACLNN_CHECK(gradOutput->dims[i] == self->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "gradOutput dim %llu must match self's", (unsigned long long)i);
    for (uint64_t i = off; i < gradOutput->ndim; i++)
        ACLNN_CHECK(gradOutput->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "gradOutput dim %llu is %lld, must be > 0",
                    (unsigned long long)i, (long long)gradOutput->dims[i]);
    const bool all_one = gradOutput->dims[off] == 1 && gradOutput->dims[off + 1] == 1 && gradOutput->dims[off + 2] == 1;
    if (all_one) {
        ACL_TRY(acl_check_dtype_in(gradOutput, BWD_ALL_ONE, 4, "gradOutput"));
        ACL_TRY(acl_check_dtype_in(self, BWD_ALL_ONE, 4, "self"));
    } else {
        ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_AdaptiveAvgPool3dBackward, "gradOutput"));
        ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AdaptiveAvgPool3dBackward, "self"));
    }
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", self, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(gradOutput->format == self->format, ACLNN_ERR_PARAM_INVALID,
                "gradOutput and self must have the same format");
    ACLNN_CHECK(out->format == self->format, ACLNN_ERR_PARAM_INVALID, "self and out must have the same format");
    ACLNN_CHECK(!acl_format_is_private(gradOutput->format), ACLNN_ERR_PARAM_INVALID,
                "gradOutput's format must not be private");

    aclOpExecutor *ex = acl_exec_create(ACL_OP_AdaptiveAvgPool3dBackward, run_bwd, sizeof(pool_ad_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_ad_params *)ex->params = axes(self);
    return acl_exec_publish(ex, workspaceSize, executor);
}
