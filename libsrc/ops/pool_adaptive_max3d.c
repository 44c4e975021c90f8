/* aclnnAdaptiveMaxPool3d and aclnnAdaptiveMaxPool3dBackward: adaptive 3-D max pooling with int32 argmax
 * (d*H*W + h*W + w within the plane) and its gradient through the argmax (per-plane owner, fixed order). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "kernels/pool3d.h"
#include "ops/ops.h"

static const aclDataType IDX_I32[] = {ACL_INT32};
static const aclDataType IDX_I32_I64[] = {ACL_INT32, ACL_INT64};

static aclnnStatus run_fwd(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_adaptive_max3d(acl_exec_in(ex, 0), acl_exec_out(ex, 0), acl_exec_out(ex, 1), ex->params);
    return ACLNN_SUCCESS;
}

/* Upstream order: NULL, ranks (self, out, indices 4 or 5), dtypes (self, out in the list, indices int32), formats
 * (self NCDHW or NCHW, out's = self's), outputSize (length 3) against out's shape and indices' leading dims,
 * out = self dtype, then self's D, H, W (and C) >= 1, D*H*W < 2^31, outputSize values >= 1. */
aclnnStatus opws_AdaptiveMaxPool3d(const aclTensor *self, const aclIntArray *outputSize, aclTensor *outputOut,
                                   aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(outputOut, "outputOut"));
    ACL_TRY(acl_check_tensor(indicesOut, "indicesOut"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    ACLNN_CHECK(self->ndim == 4 || self->ndim == 5, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 4 or 5",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(outputOut->ndim == 4 || outputOut->ndim == 5, ACLNN_ERR_PARAM_INVALID,
                "outputOut has %llu dims, must be 4 or 5", (unsigned long long)outputOut->ndim);
    ACLNN_CHECK(indicesOut->ndim == 4 || indicesOut->ndim == 5, ACLNN_ERR_PARAM_INVALID,
                "indicesOut has %llu dims, must be 4 or 5", (unsigned long long)indicesOut->ndim);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AdaptiveMaxPool3d, "self"));
    ACL_TRY(acl_check_dtype_in(outputOut, ACL_DT_LIST_AdaptiveMaxPool3d, "outputOut"));
    ACL_TRY(acl_check_dtype_in(indicesOut, IDX_I32, 1, "indicesOut"));
    ACLNN_CHECK(self->format == ACL_FORMAT_NCDHW || self->format == ACL_FORMAT_NCHW, ACLNN_ERR_PARAM_INVALID,
                "self's format must be NCDHW or NCHW");
    ACLNN_CHECK(self->format == outputOut->format, ACLNN_ERR_PARAM_INVALID,
                "self and outputOut must have the same format");
    ACLNN_CHECK(outputSize->size == 3, ACLNN_ERR_PARAM_INVALID, "outputSize must have 3 values, got %llu",
                (unsigned long long)outputSize->size);
    /* out's and indices' whole shapes must be the pooled shape (the op_api compares their leading dims and
     * pooled dims; the kernel needs the complete agreement) */
    int64_t want[5];
    const uint64_t off = self->ndim - 3;
    for (uint64_t i = 0; i < self->ndim; i++) want[i] = i < off ? self->dims[i] : outputSize->v[i - off];
    bool ok = outputOut->ndim == self->ndim && indicesOut->ndim == self->ndim;
    for (uint64_t i = 0; ok && i < self->ndim; i++) ok = outputOut->dims[i] == want[i] && indicesOut->dims[i] == want[i];
    char got[256];
    acl_shape_str(outputOut, got, sizeof got);
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID,
                "outputOut %s and indicesOut must be self's leading dims followed by outputSize", got);
    ACL_TRY(acl_check_same_dtype(self, "self", outputOut, "outputOut"));
    for (uint64_t i = 1; i < self->ndim; i++)
        ACLNN_CHECK(self->dims[i] >= 1, ACLNN_ERR_PARAM_INVALID, "self dim %llu is %lld, must be >= 1",
                    (unsigned long long)i, (long long)self->dims[i]);
    ACLNN_CHECK(self->dims[0] >= 0, ACLNN_ERR_PARAM_INVALID, "self dim 0 must be >= 0");
    const int64_t d = self->dims[off], h = self->dims[off + 1], w = self->dims[off + 2];
    ACLNN_CHECK(d * h <= INT32_MAX / w, ACLNN_ERR_PARAM_INVALID, "self's D*H*W must be at most 2^31 - 1");
    for (uint64_t i = 0; i < 3; i++)
        ACLNN_CHECK(outputSize->v[i] >= 1, ACLNN_ERR_PARAM_INVALID, "outputSize[%llu] = %lld must be >= 1",
                    (unsigned long long)i, (long long)outputSize->v[i]);
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_AdaptiveMaxPool3d, workspaceSize, executor);

    aclOpExecutor *ex = acl_exec_create(ACL_OP_AdaptiveMaxPool3d, run_fwd, sizeof(pool_ad_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0) rc = acl_exec_add_output(ex, outputOut, "outputOut");
    if (rc == 0) rc = acl_exec_add_output(ex, indicesOut, "indicesOut");
    if (rc) return acl_exec_discard(ex, rc);
    const int b = self->ndim == 5;
    *(pool_ad_params *)ex->params = (pool_ad_params){{0, b ? 1 : -1}, {b + 1, b + 2, b + 3}};
    return acl_exec_publish(ex, workspaceSize, executor);
}

static aclnnStatus run_bwd(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_max_nd_backward(acl_exec_in(ex, 0), acl_exec_in(ex, 1), acl_exec_out(ex, 0), ex->params);
    return ACLNN_SUCCESS;
}

/* Upstream order: NULL, dtypes (gradOutput and gradInput = self, self in the list, indices int32/int64), shapes
 * (same rank, indices = gradOutput, gradInput = self), self's D*H*W < 2^31, formats and ranks, indices int32 (A2). */
aclnnStatus opws_AdaptiveMaxPool3dBackward(const aclTensor *gradOutput, const aclTensor *self,
                                           const aclTensor *indices, aclTensor *gradInput, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(indices, "indices"));
    ACL_TRY(acl_check_tensor(gradInput, "gradInput"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    ACL_TRY(acl_check_same_dtype(self, "self", gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradInput, "gradInput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AdaptiveMaxPool3dBackward, "self"));
    ACL_TRY(acl_check_dtype_in(indices, IDX_I32_I64, 2, "indices"));
    ACLNN_CHECK(self->ndim == gradInput->ndim && self->ndim == gradOutput->ndim && self->ndim == indices->ndim,
                ACLNN_ERR_PARAM_INVALID, "self, gradOutput, gradInput and indices must have the same rank");
    for (uint64_t i = 0; i < self->ndim; i++) {
        ACLNN_CHECK(gradOutput->dims[i] == indices->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "indices dim %llu must match gradOutput's", (unsigned long long)i);
        ACLNN_CHECK(self->dims[i] == gradInput->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "gradInput dim %llu must match self's", (unsigned long long)i);
    }
    ACLNN_CHECK(self->ndim >= 3, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 4 or 5",
                (unsigned long long)self->ndim);
    const uint64_t off = self->ndim - 3;
    const int64_t d = self->dims[off], h = self->dims[off + 1], w = self->dims[off + 2];
    ACLNN_CHECK(d >= 0 && h >= 0 && w >= 0 && (d == 0 || h == 0 || w == 0 || d * h <= INT32_MAX / w),
                ACLNN_ERR_PARAM_INVALID, "self's D*H*W must be at most 2^31 - 1");
    ACLNN_CHECK(self->format == gradOutput->format && self->format == gradInput->format, ACLNN_ERR_PARAM_INVALID,
                "self, gradOutput and gradInput must have the same format");
    ACLNN_CHECK(!acl_format_is_private(self->format) && !acl_format_is_private(indices->format),
                ACLNN_ERR_PARAM_INVALID, "self and indices must not use a private format");
    ACLNN_CHECK(self->ndim == 4 || self->ndim == 5, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 4 or 5",
                (unsigned long long)self->ndim);
    ACL_TRY(acl_check_dtype_in(indices, IDX_I32, 1, "indices"));
    for (uint64_t i = 0; i < off; i++)
        ACLNN_CHECK(gradOutput->dims[i] == self->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "gradOutput's leading dim %llu must match self's", (unsigned long long)i);
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(self) || acl_tensor_empty(indices))
        return acl_exec_noop(ACL_OP_AdaptiveMaxPool3dBackward, workspaceSize, executor);

    aclOpExecutor *ex = acl_exec_create(ACL_OP_AdaptiveMaxPool3dBackward, run_bwd, sizeof(pool_max_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_input(ex, indices, "indices", true);
    if (rc == 0) rc = acl_exec_add_output(ex, gradInput, "gradInput");
    if (rc) return acl_exec_discard(ex, rc);
    const int b = self->ndim == 5;
    pool_max_params pp = {{0, b ? 1 : -1}, {b + 1, b + 2, b + 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
                          POOL_IDX_VIEW, 0};
    *(pool_max_params *)ex->params = pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}
