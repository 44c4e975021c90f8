/* aclnnUpsampleNearestExact2d, the forward (SPEC section 4.4). */
#include <math.h>
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "kernels/upsample_nearest.h"
#include "common/dtype.h"
#include "ops/ops.h"

static const aclFormat k_formats[] = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND};

/* Dimension positions of N, C, H, W for the tensor's format. */
static void nchw_axes(aclFormat f, int ax[4]) {
    if (f == ACL_FORMAT_NHWC) { ax[0] = 0; ax[1] = 3; ax[2] = 1; ax[3] = 2; }
    else { ax[0] = 0; ax[1] = 1; ax[2] = 2; ax[3] = 3; }
}

/* out's dim i as the host code reads it: a slot past out's rank holds 0 (never a valid N or C: self is not empty) */
static int64_t out_dim(const aclTensor *out, int i) { return (uint64_t)i < out->ndim ? out->dims[i] : 0; }

/* The op_api checks in their order (after the NULL checks and the empty-tensor early return of the entry point). */
static aclnnStatus check_params(const aclTensor *self, const aclIntArray *outputSize, const aclTensor *out) {
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_UpsampleNearestExact2d, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_rank(self, 4, "self"));
    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 2.",
                (unsigned long long)outputSize->size);
    int ax[4];
    nchw_axes(self->format, ax);
    const int64_t h = self->dims[ax[2]], w = self->dims[ax[3]];
    ACLNN_CHECK(h > 0 && w > 0, ACLNN_ERR_PARAM_INVALID, "self H %lld and W %lld should be greater than 0.",
                (long long)h, (long long)w);
    ACLNN_CHECK(outputSize->v[0] > 0 && outputSize->v[1] > 0, ACLNN_ERR_PARAM_INVALID,
                "outputSize (%lld, %lld) should be greater than 0.", (long long)outputSize->v[0],
                (long long)outputSize->v[1]);
    ACLNN_CHECK(self->dims[ax[0]] == out_dim(out, ax[0]), ACLNN_ERR_PARAM_INVALID,
                "out N %lld should be the same as self N %lld.", (long long)out_dim(out, ax[0]),
                (long long)self->dims[ax[0]]);
    ACLNN_CHECK(self->dims[ax[1]] == out_dim(out, ax[1]), ACLNN_ERR_PARAM_INVALID,
                "out C %lld should be the same as self C %lld.", (long long)out_dim(out, ax[1]),
                (long long)self->dims[ax[1]]);
    ACL_TRY(acl_check_format_in(self, k_formats, ACL_COUNT_OF(k_formats), "self"));
    ACLNN_CHECK(out->format == self->format, ACLNN_ERR_PARAM_INVALID,
                "out format %s should be the same as self format %s.", acl_format_name(out->format),
                acl_format_name(self->format));
    /* [HW] the result, self's N and C with outputSize as H and W (in self's format order), is copied into out at
     * the end of phase 1; any other shape of out makes that copy fail (ACLNN_ERR_INNER_NULLPTR) */
    ACLNN_CHECK(out->ndim == 4 && out->dims[ax[2]] == outputSize->v[0] && out->dims[ax[3]] == outputSize->v[1],
                ACLNN_ERR_INNER_NULLPTR, "out should be 4-dimensional with H, W = outputSize (%lld, %lld): the result "
                "is copied into it.", (long long)outputSize->v[0], (long long)outputSize->v[1]);
    return ACLNN_SUCCESS;
}

/* Source index of every destination index along one axis: min(floor(fp32(dst + 0.5) * r), in - 1) (the shared
 * nearest-exact table, kernels/upsample_nearest.c). */
static int64_t axis_sources(int64_t *src, int64_t in_len, int64_t out_len, double scales) {
    return upn_axis_sources(src, in_len, out_len, upn_fwd_ratio(in_len, out_len, scales), 1);
}

static void free_plan(void *params) {
    upnx_fwd_plan *p = params;
    if (p) {
        free(p->h_src);
        free(p->fb);
    }
    free(p);
}

/* The view in (N, C, H, W) order. */
static acl_view canonical(const acl_view *v, int nhwc) {
    acl_view c = *v;
    if (nhwc) {
        static const int ax[4] = {0, 3, 1, 2};
        for (int d = 0; d < 4; d++) {
            c.dims[d] = v->dims[ax[d]];
            c.strides[d] = v->strides[ax[d]];
        }
    }
    return c;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    const upnx_fwd_plan *p = ex->params;
    acl_view x = canonical(acl_exec_in(ex, 0), p->nhwc), y = canonical(acl_exec_out(ex, 0), p->nhwc);
    upnx_fwd_gather(&x, &y, p);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_UpsampleNearestExact2d(const aclTensor *self, const aclIntArray *outputSize,
                                        double scalesH, double scalesW, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearestExact2d, workspaceSize, executor);
    ACL_TRY(check_params(self, outputSize, out));

    aclOpExecutor *ex = acl_exec_create(ACL_OP_UpsampleNearestExact2d, run, sizeof(upnx_fwd_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = free_plan;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);

    upnx_fwd_plan *p = ex->params;
    int ax[4];
    nchw_axes(self->format, ax);
    p->nhwc = self->format == ACL_FORMAT_NHWC;
    p->n = self->dims[ax[0]];
    p->c = self->dims[ax[1]];
    p->hi = self->dims[ax[2]];
    p->wi = self->dims[ax[3]];
    p->ho = outputSize->v[0];
    p->wo = outputSize->v[1];
    int64_t *tab = malloc((size_t)(p->ho + p->wo) * sizeof(int64_t));
    if (!tab)
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the index tables of outputSize "
                                                                "(%lld, %lld)", (long long)p->ho, (long long)p->wo));
    p->h_src = tab;
    p->w_src = tab + p->ho;
    axis_sources(p->h_src, p->hi, p->ho, scalesH);
    p->wk = axis_sources(p->w_src, p->wi, p->wo, scalesW);
    if (!upnx_fwd_blocks(p, (int64_t)acl_dtype_size(self->dtype)))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the column blocks of outputSize "
                                                                "(%lld, %lld)", (long long)p->ho, (long long)p->wo));
    return acl_exec_publish(ex, workspaceSize, executor);
}
