/* aclnnAdaptiveAvgPool2dBackward: gradient of adaptive 2-D average pooling, in gather form (each gradInput cell
 * sums gradOutput/count over the output cells whose window covers it; deterministic, no atomics). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "ops/avg_pool_exec.h"
#include "ops/ops.h"
#include "common/cpu.h"
#include "kernels/pool.h"

/* Upstream order: NULL, ranks and non-negative dims, out's rank and leading dims, dtypes, formats. */
static aclnnStatus check_params(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *out,
                                const uint64_t *workspaceSize, aclOpExecutor *const *executor) {
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");

    ACLNN_CHECK(gradOutput->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID,
                "gradOutput has %llu dims, must equal self's %llu", (unsigned long long)gradOutput->ndim,
                (unsigned long long)self->ndim);
    ACL_TRY(acl_check_nonneg_dims(self, "self"));
    ACL_TRY(acl_check_nonneg_dims(gradOutput, "gradOutput"));

    ACLNN_CHECK(out->ndim == 3 || out->ndim == 4, ACLNN_ERR_PARAM_INVALID, "out has %llu dims, must be 3 or 4",
                (unsigned long long)out->ndim);
    ACLNN_CHECK(out->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID, "out has %llu dims, must equal self's %llu",
                (unsigned long long)out->ndim, (unsigned long long)self->ndim);
    for (uint64_t i = 0; i + 2 < out->ndim; i++) {
        ACLNN_CHECK(out->dims[i] == self->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "out dim %llu is %lld, must equal self's %lld", (unsigned long long)i, (long long)out->dims[i],
                    (long long)self->dims[i]);
        ACLNN_CHECK(gradOutput->dims[i] == self->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "gradOutput dim %llu is %lld, must equal self's %lld", (unsigned long long)i,
                    (long long)gradOutput->dims[i], (long long)self->dims[i]);
    }

    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_AdaptiveAvgPool2dBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AdaptiveAvgPool2dBackward, "self"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", self, "self"));

    ACLNN_CHECK(gradOutput->format == self->format, ACLNN_ERR_PARAM_INVALID,
                "gradOutput and self must have the same format");
    /* Not checked by the op_api (its result is view-copied into out): out must be self's shape and dtype. */
    for (uint64_t i = out->ndim - 2; i < out->ndim; i++)
        ACLNN_CHECK(out->dims[i] == self->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "out dim %llu is %lld, must equal self's %lld", (unsigned long long)i, (long long)out->dims[i],
                    (long long)self->dims[i]);
    ACL_TRY(acl_check_same_dtype(out, "out", self, "self"));
    return ACLNN_SUCCESS;
}

static aclnnStatus run_f16(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    if (!pool_adaptive_avg2d_backward_f16(acl_exec_in(ex, 0), acl_exec_out(ex, 0), ex->params))
        return ACL_REPORT(ACLNN_ERR_INNER, "out of memory in the pooling gradient");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AdaptiveAvgPool2dBackward(const aclTensor *gradOutput, const aclTensor *self, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_params(gradOutput, self, out, workspaceSize, executor));
    /* upstream: an empty self or gradOutput succeeds with out untouched */
    if (acl_tensor_empty(self) || acl_tensor_empty(gradOutput))
        return acl_exec_noop(ACL_OP_AdaptiveAvgPool2dBackward, workspaceSize, executor);

    aclOpExecutor *ex;
    const uint64_t h = self->ndim - 2;
    if (self->dtype == ACL_FLOAT16 && acl_simd_level() == ACL_SIMD_PORTABLE &&
        pool_adaptive_avg2d_backward_f16_fits(self->dims[h], self->dims[h + 1], gradOutput->dims[h],
                                              gradOutput->dims[h + 1])) {
        /* fp16 at the portable level: kernels/pool.c (the sums once per run of equal covers, the plane filled from
         * the narrowed grid; the avg_pool2d kernels' additions, so their bits). 1 thread, N32 C64 56x56, SIMD off:
         * -> 9x9 1.37 -> 1.11 ms (fp32 1.18). With F16C / AVX-512 the avg_pool2d plane kernel below is faster
         * (its rows narrowed in registers: 0.47 ms at AVX-512, this kernel 0.96). */
        ex = acl_exec_create(ACL_OP_AdaptiveAvgPool2dBackward, run_f16, sizeof(pool_axes));
        if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
        aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
        if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
        if (rc) return acl_exec_discard(ex, rc);
        *(pool_axes *)ex->params = self->ndim == 3 ? (pool_axes){{0, -1}, 1, 2} : (pool_axes){{0, 1}, 2, 3};
        return acl_exec_publish(ex, workspaceSize, executor);
    }
    ACL_TRY(avgpool_exec_create(ACL_OP_AdaptiveAvgPool2dBackward, true, gradOutput, "gradOutput", NULL, NULL, out,
                                "out", self, gradOutput, &ex));
    avgpool_plan *p = avgpool_exec_plan(ex);
    if (!avgpool_plan_adaptive_backward(p))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory planning the pooling gradient"));
    return acl_exec_publish(ex, workspaceSize, executor);
}
