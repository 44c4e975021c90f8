/* aclnnAvgPool3d and aclnnAvgPool3dBackward: 3-D average pooling (kernel, stride, padding, ceil mode,
 * countIncludePad, divisorOverride) and its gradient (gather form, each gradInput cell owned by one thread). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "kernels/pool3d.h"
#include "ops/ops.h"

static int64_t attr3(const aclIntArray *a, int i, int64_t dflt) {
    if (a->size == 0) return dflt;
    return a->size == 1 ? a->v[0] : a->v[i];
}

/* C-division pooled length of the op_api (k <= in + 2p is checked before it matters) */
static int64_t out_len(int64_t in, int64_t k, int64_t p, int64_t s, bool ceil_mode) {
    int64_t o = (in + 2 * p - k + (ceil_mode ? s - 1 : 0)) / s + 1;
    if (ceil_mode && (o - 1) * s >= in + p) o--;
    return o;
}

static void fill_params(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
                        const aclIntArray *padding, bool countIncludePad, int64_t divisorOverride,
                        pool_avg_params *pp) {
    const int b = self->ndim == 5;
    pp->lead[0] = 0;
    pp->lead[1] = b ? 1 : -1;
    for (int i = 0; i < 3; i++) {
        pp->sp[i] = b + 1 + i;
        pp->k[i] = attr3(kernelSize, i, 1);
        pp->s[i] = attr3(stride, i, pp->k[i]);
        pp->p[i] = attr3(padding, i, 0);
    }
    pp->count_include_pad = countIncludePad;
    pp->divisor = divisorOverride;
}

static aclnnStatus shape_check(const aclTensor *self, const pool_avg_params *pp, bool ceilMode, const aclTensor *y,
                               const char *yname) {
    int64_t want[5];
    for (uint64_t i = 0; i < self->ndim; i++) want[i] = self->dims[i];
    for (int i = 0; i < 3; i++) want[pp->sp[i]] = out_len(self->dims[pp->sp[i]], pp->k[i], pp->p[i], pp->s[i], ceilMode);
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(want[pp->sp[i]] >= 0, ACLNN_ERR_PARAM_INVALID, "self's spatial dim %d pools to a negative size %lld",
                    i, (long long)want[pp->sp[i]]);
    bool ok = y->ndim == self->ndim;
    for (uint64_t i = 0; ok && i < self->ndim; i++) ok = y->dims[i] == want[i];
    char got[256];
    acl_shape_str(y, got, sizeof got);
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "%s shape %s does not match the pooled shape [.., %lld, %lld, %lld]",
                yname, got, (long long)want[pp->sp[0]], (long long)want[pp->sp[1]], (long long)want[pp->sp[2]]);
    return ACLNN_SUCCESS;
}

static aclnnStatus run_fwd(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_avg_nd(acl_exec_in(ex, 0), acl_exec_out(ex, 0), ex->params);
    return ACLNN_SUCCESS;
}

/* Upstream order: workspaceSize/executor NULL, NULL tensors and arrays, dtypes (self, out same), formats, ranks
 * (4 or 5, out's equal), list lengths (kernel 1|3, padding 1|3, stride 0|1|3), per axis D, H, W: kernel in
 * (0, in], stride > 0, padding in [0, kernel/2]; out's shape; then the empty early success. */
aclnnStatus opws_AvgPool3d(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
                           const aclIntArray *padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride,
                           aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AvgPool3d, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "self and out must have the same format");
    ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID, "self's format must not be private");
    ACLNN_CHECK((self->ndim == 4 || self->ndim == 5) && self->ndim == out->ndim, ACLNN_ERR_PARAM_INVALID,
                "self and out must both have 4 or 5 dims, got %llu and %llu", (unsigned long long)self->ndim,
                (unsigned long long)out->ndim);
    ACLNN_CHECK(kernelSize->size == 1 || kernelSize->size == 3, ACLNN_ERR_PARAM_INVALID,
                "kernelSize must have 1 or 3 values, got %llu", (unsigned long long)kernelSize->size);
    ACLNN_CHECK(padding->size == 1 || padding->size == 3, ACLNN_ERR_PARAM_INVALID,
                "padding must have 1 or 3 values, got %llu", (unsigned long long)padding->size);
    ACLNN_CHECK(stride->size == 0 || stride->size == 1 || stride->size == 3, ACLNN_ERR_PARAM_INVALID,
                "stride must have 0, 1 or 3 values, got %llu", (unsigned long long)stride->size);
    pool_avg_params pp;
    fill_params(self, kernelSize, stride, padding, countIncludePad, divisorOverride, &pp);
    for (int i = 0; i < 3; i++) {
        const int64_t in = self->dims[pp.sp[i]];
        ACLNN_CHECK(pp.k[i] > 0 && pp.k[i] <= in, ACLNN_ERR_PARAM_INVALID,
                    "kernelSize[%d] = %lld must be in (0, %lld] (self's spatial size)", i, (long long)pp.k[i],
                    (long long)in);
        ACLNN_CHECK(pp.s[i] > 0, ACLNN_ERR_PARAM_INVALID, "stride[%d] = %lld must be > 0", i, (long long)pp.s[i]);
        ACLNN_CHECK(pp.p[i] >= 0 && pp.p[i] <= pp.k[i] / 2, ACLNN_ERR_PARAM_INVALID,
                    "padding[%d] = %lld must be in [0, kernelSize/2]", i, (long long)pp.p[i]);
    }
    ACL_TRY(shape_check(self, &pp, ceilMode, out, "out"));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_AvgPool3d, workspaceSize, executor);

    aclOpExecutor *ex = acl_exec_create(ACL_OP_AvgPool3d, run_fwd, sizeof(pool_avg_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_avg_params *)ex->params = pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}

static aclnnStatus run_bwd(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_avg_nd_backward(acl_exec_in(ex, 0), acl_exec_out(ex, 0), ex->params);
    return ACLNN_SUCCESS;
}

/* Upstream order: workspaceSize/executor NULL, NULL, dtypes (each of gradOutput, self, output in the list; they
 * need not agree), ranks (gradOutput 4 or 5, self and output the same rank, self = output dims), list lengths,
 * formats (gradOutput = output, not private), the empty early success, then the values (kernel > 0, stride > 0,
 * padding in [0, kernel/2]) and gradOutput's shape. */
aclnnStatus opws_AvgPool3dBackward(const aclTensor *gradOutput, const aclTensor *self, const aclIntArray *kernelSize,
                                   const aclIntArray *stride, const aclIntArray *padding, bool ceilMode,
                                   bool countIncludePad, int64_t divisorOverride, aclTensor *output,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_tensor(output, "output"));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_AvgPool3dBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AvgPool3dBackward, "self"));
    ACL_TRY(acl_check_dtype_in(output, ACL_DT_LIST_AvgPool3dBackward, "output"));
    ACLNN_CHECK(gradOutput->ndim == 4 || gradOutput->ndim == 5, ACLNN_ERR_PARAM_INVALID,
                "gradOutput has %llu dims, must be 4 or 5", (unsigned long long)gradOutput->ndim);
    ACLNN_CHECK(self->ndim == gradOutput->ndim && self->ndim == output->ndim, ACLNN_ERR_PARAM_INVALID,
                "self (%llu dims) must have gradOutput's and output's rank", (unsigned long long)self->ndim);
    for (uint64_t i = 0; i < self->ndim; i++)
        ACLNN_CHECK(self->dims[i] == output->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "self dim %llu (%lld) must equal output's (%lld)", (unsigned long long)i, (long long)self->dims[i],
                    (long long)output->dims[i]);
    ACLNN_CHECK(kernelSize->size == 1 || kernelSize->size == 3, ACLNN_ERR_PARAM_INVALID,
                "kernelSize must have 1 or 3 values, got %llu", (unsigned long long)kernelSize->size);
    ACLNN_CHECK(padding->size == 1 || padding->size == 3, ACLNN_ERR_PARAM_INVALID,
                "padding must have 1 or 3 values, got %llu", (unsigned long long)padding->size);
    ACLNN_CHECK(stride->size == 0 || stride->size == 1 || stride->size == 3, ACLNN_ERR_PARAM_INVALID,
                "stride must have 0, 1 or 3 values, got %llu", (unsigned long long)stride->size);
    ACLNN_CHECK(gradOutput->format == output->format, ACLNN_ERR_PARAM_INVALID,
                "gradOutput and output must have the same format");
    ACLNN_CHECK(!acl_format_is_private(gradOutput->format), ACLNN_ERR_PARAM_INVALID,
                "gradOutput's format must not be private");
    if (acl_tensor_empty(gradOutput)) return acl_exec_noop(ACL_OP_AvgPool3dBackward, workspaceSize, executor);

    pool_avg_params pp;
    fill_params(self, kernelSize, stride, padding, countIncludePad, divisorOverride, &pp);
    for (int i = 0; i < 3; i++) {
        ACLNN_CHECK(pp.k[i] > 0, ACLNN_ERR_PARAM_INVALID, "kernelSize[%d] = %lld must be > 0", i, (long long)pp.k[i]);
        ACLNN_CHECK(pp.s[i] > 0, ACLNN_ERR_PARAM_INVALID, "stride[%d] = %lld must be > 0", i, (long long)pp.s[i]);
    }
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(pp.p[i] >= 0 && pp.p[i] <= pp.k[i] / 2, ACLNN_ERR_PARAM_INVALID,
                    "padding[%d] = %lld must be in [0, kernelSize/2]", i, (long long)pp.p[i]);
    for (uint64_t i = 0; i < self->ndim; i++)
        ACLNN_CHECK(self->dims[i] >= 0, ACLNN_ERR_PARAM_INVALID, "self dim %llu must be >= 0", (unsigned long long)i);
    ACL_TRY(shape_check(self, &pp, ceilMode, gradOutput, "gradOutput"));
    if (acl_tensor_empty(output)) return acl_exec_noop(ACL_OP_AvgPool3dBackward, workspaceSize, executor);

    aclOpExecutor *ex = acl_exec_create(ACL_OP_AvgPool3dBackward, run_bwd, sizeof(pool_avg_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_output(ex, output, "output");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_avg_params *)ex->params = pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}
