/* aclnnAdaptiveMaxPool2d: adaptive 2-D max pooling with int64 argmax indices (h*W + w within the plane). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "kernels/pool.h"
#include "ops/ops.h"

/* Upstream order: NULL, dtypes, ranks and out/indices shapes, non-empty spatial dims, outputSize, then (after the
 * empty early success) self's format and the out shapes. */
static aclnnStatus check_params(const aclTensor *self, const aclIntArray *outputSize, const aclTensor *out,
                                const aclTensor *indices, const uint64_t *workspaceSize,
                                aclOpExecutor *const *executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(out, "outputOut"));
    ACL_TRY(acl_check_tensor(indices, "indicesOut"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");

    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AdaptiveMaxPool2d, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_AdaptiveMaxPool2d, "outputOut"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "outputOut"));
    ACLNN_CHECK(indices->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "indicesOut must be INT64, got dtype %d",
                (int)indices->dtype);

    ACLNN_CHECK(self->ndim == 3 || self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 3 or 4",
                (unsigned long long)self->ndim);
    bool same = out->ndim == indices->ndim;
    for (uint64_t i = 0; same && i < out->ndim; i++) same = out->dims[i] == indices->dims[i];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "outputOut and indicesOut must have the same shape");
    for (uint64_t i = 1; i < self->ndim; i++)
        ACLNN_CHECK(self->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "self dim %llu is %lld, must be > 0",
                    (unsigned long long)i, (long long)self->dims[i]);
    ACLNN_CHECK(self->dims[0] >= 0, ACLNN_ERR_PARAM_INVALID, "self dim 0 must be >= 0");
    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu must be 2",
                (unsigned long long)outputSize->size);
    for (uint64_t i = 0; i < 2; i++)
        ACLNN_CHECK(outputSize->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "outputSize[%llu] = %lld must be > 0",
                    (unsigned long long)i, (long long)outputSize->v[i]);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_adaptive_max2d(acl_exec_in(ex, 0), acl_exec_out(ex, 0), acl_exec_out(ex, 1), ex->params);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AdaptiveMaxPool2d(const aclTensor *self, const aclIntArray *outputSize, aclTensor *outputOut,
                                   aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_params(self, outputSize, outputOut, indicesOut, workspaceSize, executor));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_AdaptiveMaxPool2d, workspaceSize, executor);

    pool_axes ax;
    if (self->ndim == 3) {
        ax = (pool_axes){{0, -1}, 1, 2};
    } else {
        ACLNN_CHECK(self->format == ACL_FORMAT_NCHW || self->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                    "self's format must be NCHW or NHWC");
        ax = self->format == ACL_FORMAT_NHWC ? (pool_axes){{0, 3}, 1, 2} : (pool_axes){{0, 1}, 2, 3};
    }
    int64_t want[4];
    for (uint64_t i = 0; i < self->ndim; i++) want[i] = self->dims[i];
    want[ax.ah] = outputSize->v[0];
    want[ax.aw] = outputSize->v[1];
    bool ok = outputOut->ndim == self->ndim;
    for (uint64_t i = 0; ok && i < self->ndim; i++) ok = outputOut->dims[i] == want[i];
    char got[256];
    acl_shape_str(outputOut, got, sizeof got);
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "outputOut shape %s does not match self pooled to outputSize [%lld, %lld]",
                got, (long long)outputSize->v[0], (long long)outputSize->v[1]);

    aclOpExecutor *ex = acl_exec_create(ACL_OP_AdaptiveMaxPool2d, run, sizeof(pool_axes));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0) rc = acl_exec_add_output(ex, outputOut, "outputOut");
    if (rc == 0) rc = acl_exec_add_output(ex, indicesOut, "indicesOut");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_axes *)ex->params = ax;
    return acl_exec_publish(ex, workspaceSize, executor);
}
