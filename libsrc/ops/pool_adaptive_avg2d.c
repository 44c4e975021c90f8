/* aclnnAdaptiveAvgPool2d: adaptive 2-D average pooling (PyTorch adaptive_avg_pool2d semantics). Output cell o
 * of an axis averages inputs [floor(o*in/out), ceil((o+1)*in/out)); the sums reuse the AvgPool2d kernels. */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "ops/avg_pool_exec.h"
#include "ops/ops.h"
#include "kernels/pool.h"

static const aclFormat k_formats[] = {ACL_FORMAT_NCHW, ACL_FORMAT_NCL};

/* Upstream order: NULL, ranks/leading dims, dtypes, formats, outputSize. */
static aclnnStatus check_params(const aclTensor *self, const aclIntArray *outputSize, const aclTensor *out,
                                const uint64_t *workspaceSize, aclOpExecutor *const *executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");

    ACLNN_CHECK(self->ndim == 3 || self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 3 or 4",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(out->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID, "out has %llu dims, must equal self's %llu",
                (unsigned long long)out->ndim, (unsigned long long)self->ndim);
    for (uint64_t i = 0; i + 2 < out->ndim; i++)
        ACLNN_CHECK(out->dims[i] == self->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "out dim %llu is %lld, must equal self's %lld", (unsigned long long)i, (long long)out->dims[i],
                    (long long)self->dims[i]);

    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AdaptiveAvgPool2d, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_AdaptiveAvgPool2d, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));

    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "self and out must have the same format");
    ACL_TRY(acl_check_format_in(self, k_formats, ACL_COUNT_OF(k_formats), "self"));
    aclFormat want = self->ndim == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCL;
    ACLNN_CHECK(self->format == want, ACLNN_ERR_PARAM_INVALID, "self is %llu-dimensional, so its format must be %s",
                (unsigned long long)self->ndim, self->ndim == 4 ? "NCHW" : "NCL");
    ACLNN_CHECK(out->format == want, ACLNN_ERR_PARAM_INVALID, "out is %llu-dimensional, so its format must be %s",
                (unsigned long long)out->ndim, out->ndim == 4 ? "NCHW" : "NCL");

    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu must be 2",
                (unsigned long long)outputSize->size);
    const uint64_t off = out->ndim - 2;
    for (uint64_t i = 0; i < 2; i++)
        ACLNN_CHECK(outputSize->v[i] > 0 && outputSize->v[i] == out->dims[off + i], ACLNN_ERR_PARAM_INVALID,
                    "outputSize[%llu] = %lld must be > 0 and equal out's dim %lld", (unsigned long long)i,
                    (long long)outputSize->v[i], (long long)out->dims[off + i]);
    ACL_TRY(acl_check_nonneg_dims(self, "self"));
    return ACLNN_SUCCESS;
}

static aclnnStatus run_f16(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    if (!pool_adaptive_avg2d_f16(acl_exec_in(ex, 0), acl_exec_out(ex, 0), ex->params))
        return ACL_REPORT(ACLNN_ERR_INNER, "out of memory in the pooling");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AdaptiveAvgPool2d(const aclTensor *self, const aclIntArray *outputSize, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_params(self, outputSize, out, workspaceSize, executor));
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_AdaptiveAvgPool2d, workspaceSize, executor);

    aclOpExecutor *ex;
    const uint64_t h = self->ndim - 2;
    if (self->dtype == ACL_FLOAT16 && pool_adaptive_avg2d_f16_fits(self->dims[h + 1], out->dims[h + 1])) {
        /* fp16: kernels/pool.c (the windows' column sums widened in registers, one pass over the input; the same
         * additions as the avg_pool2d kernels below, so their bits) */
        ex = acl_exec_create(ACL_OP_AdaptiveAvgPool2d, run_f16, sizeof(pool_axes));
        if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
        aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
        if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
        if (rc) return acl_exec_discard(ex, rc);
        *(pool_axes *)ex->params = self->ndim == 3 ? (pool_axes){{0, -1}, 1, 2} : (pool_axes){{0, 1}, 2, 3};
        return acl_exec_publish(ex, workspaceSize, executor);
    }
    ACL_TRY(avgpool_exec_create(ACL_OP_AdaptiveAvgPool2d, false, self, "self", NULL, NULL, out, "out", self, out,
                                &ex));
    avgpool_plan *p = avgpool_exec_plan(ex);
    if (!avgpool_plan_adaptive_forward(p))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory planning the pooling"));
    return acl_exec_publish(ex, workspaceSize, executor);
}
