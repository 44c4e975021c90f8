/* aclnnUpsampleNearest2d (ops-cv image/resize_nearest_neighbor_v2): nearest-neighbour 2-d resize of an NCHW or
 * NHWC tensor to outputSize (H, W), ResizeNearestNeighborV2 without align_corners or half-pixel centres:
 * out[.., y, x] = self[.., min(floor(y * fp32(Hi / Ho)), Hi - 1), min(floor(x * fp32(Wi / Wo)), Wi - 1)]
 * (PyTorch's "nearest"). A pure gather, bit-exact for every dtype; the kernels are the nearest-exact forward's
 * (libsrc/kernels/upsample_nearest_exact.c) with this op's source tables.
 *
 * Validation in the op_api source's order: NULL self/outputSize/out 161001; self's dtype (A2 list), out's dtype
 * equal; outputSize of 2, self 4-d, self H/W and outputSize > 0, self C > 0; self's storage format NCHW or NHWC,
 * out's the same; N and C of out equal self's; out's H/W equal outputSize; sizes within int32 - all 161002. An
 * empty self (N = 0) or out returns an executor that does nothing. */
#include <math.h>
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "kernels/upsample_nearest_exact.h"
#include "common/dtype.h"
#include "ops/ops.h"

static int64_t un_dim(const aclTensor *t, int i) { return (uint64_t)i < t->ndim ? t->dims[i] : 0; }

static void un_free(void *params) {
    upnx_fwd_plan *p = params;
    if (p) {
        free(p->h_src);
        free(p->fb);
    }
    free(p);
}

static acl_view un_canonical(const acl_view *v, int nhwc) {
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

static aclnnStatus un_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const upnx_fwd_plan *p = ex->params;
    acl_view x = un_canonical(acl_exec_in(ex, 0), p->nhwc), y = un_canonical(acl_exec_out(ex, 0), p->nhwc);
    upnx_fwd_gather(&x, &y, p);
    return ACLNN_SUCCESS;
}

/* min(floor(d * fp32(in / out)), in - 1) for every destination index d */
static int un_sources(int64_t *src, int64_t in, int64_t out) {
    const float r = (float)in / (float)out;
    int half = 1;
    for (int64_t d = 0; d < out; d++) {
        const float v = floorf((float)d * r);
        const int64_t s = v >= (float)(in - 1) ? in - 1 : (v <= 0 ? 0 : (int64_t)v);
        src[d] = s;
        half = half && s == d / 2;
    }
    return half ? 2 : 0;
}

aclnnStatus opws_UpsampleNearest2d(const aclTensor *self, const aclIntArray *outputSize, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_UpsampleNearest2d, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize should have 2 elements, but has %llu.",
                (unsigned long long)outputSize->size);
    ACLNN_CHECK(self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self should be 4-d, but has %llu dims.",
                (unsigned long long)self->ndim);
    const int64_t *os = outputSize->v;
    ACLNN_CHECK(self->dims[2] != 0 && self->dims[3] != 0 && os[0] != 0 && os[1] != 0, ACLNN_ERR_PARAM_INVALID,
                "self (H %lld, W %lld) and outputSize (H %lld, W %lld) should be greater than 0.",
                (long long)self->dims[2], (long long)self->dims[3], (long long)os[0], (long long)os[1]);
    ACLNN_CHECK(self->dims[1] != 0, ACLNN_ERR_PARAM_INVALID, "self should be a non-empty 4-d tensor (C is 0).");
    ACLNN_CHECK(self->format == ACL_FORMAT_NCHW || self->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                "self's format %s is not supported: NCHW or NHWC.", acl_format_name(self->format));
    ACLNN_CHECK(out->format == self->format, ACLNN_ERR_PARAM_INVALID,
                "out's format %s should be self's format %s.", acl_format_name(out->format),
                acl_format_name(self->format));
    const int nhwc = self->format == ACL_FORMAT_NHWC;
    const int cn = nhwc ? 3 : 1, hn = nhwc ? 1 : 2, wn = nhwc ? 2 : 3;
    ACLNN_CHECK(self->dims[0] == un_dim(out, 0) && self->dims[cn] == un_dim(out, cn), ACLNN_ERR_PARAM_INVALID,
                "out's N %lld and C %lld should be self's N %lld and C %lld.", (long long)un_dim(out, 0),
                (long long)un_dim(out, cn), (long long)self->dims[0], (long long)self->dims[cn]);
    ACLNN_CHECK(un_dim(out, hn) == os[0] && un_dim(out, wn) == os[1], ACLNN_ERR_PARAM_INVALID,
                "out's H %lld and W %lld should be outputSize (%lld, %lld).", (long long)un_dim(out, hn),
                (long long)un_dim(out, wn), (long long)os[0], (long long)os[1]);
    for (int d = 0; d < 4; d++) {
        ACLNN_CHECK(self->dims[d] <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "self's sizes should not exceed %d.",
                    INT32_MAX);
        ACLNN_CHECK(un_dim(out, d) <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "out's sizes should not exceed %d.",
                    INT32_MAX);
    }
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearest2d, workspaceSize, executor);
    ACLNN_CHECK(out->ndim == 4, ACLNN_ERR_INNER_NULLPTR, "out should be 4-d: the result is copied into it.");

    aclOpExecutor *ex = acl_exec_create(ACL_OP_UpsampleNearest2d, un_run, sizeof(upnx_fwd_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = un_free;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    upnx_fwd_plan *p = ex->params;
    p->nhwc = nhwc;
    p->n = self->dims[0];
    p->c = self->dims[cn];
    p->hi = self->dims[hn];
    p->wi = self->dims[wn];
    p->ho = os[0];
    p->wo = os[1];
    int64_t *tab = malloc((size_t)(p->ho + p->wo) * sizeof(int64_t));
    if (!tab)
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the index tables of outputSize "
                                                                "(%lld, %lld)", (long long)p->ho, (long long)p->wo));
    p->h_src = tab;
    p->w_src = tab + p->ho;
    un_sources(p->h_src, p->hi, p->ho);
    p->wk = un_sources(p->w_src, p->wi, p->wo);
    if (!upnx_fwd_blocks(p, (int64_t)acl_dtype_size(self->dtype)))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the column blocks of outputSize "
                                                                "(%lld, %lld)", (long long)p->ho, (long long)p->wo));
    return acl_exec_publish(ex, workspaceSize, executor);
}
