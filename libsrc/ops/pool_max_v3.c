/* aclnnMaxPool: 2-D max pooling without indices (ONNX-style attributes: kernelShape, strides defaulting to 1,
 * autoPad NOTSET only, pads of 1, 2 or 4 values [hBegin, wBegin, hEnd, wEnd], dilations 1, ceilMode as an int). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "kernels/pool3d.h"
#include "ops/ops.h"

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_max_nd(acl_exec_in(ex, 0), acl_exec_out(ex, 0), NULL, ex->params);
    return ACLNN_SUCCESS;
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Upstream order: NULL, dtypes (self in the list, out = self), formats (same, not private) and rank 3 or 4, list
 * lengths (kernelShape 1|2, strides 0|1|2, pads 0|1|2|4, dilations 0|1|2|4), autoPad = 0, dilations all 1, kernel
 * > 0, strides > 0, begin + end padding <= kernel per axis, non-zero C/H/W, pooled sizes > 0, out's shape. */
aclnnStatus opws_MaxPool(const aclTensor *self, const aclIntArray *kernelShape, const aclIntArray *strides,
                         const int64_t autoPad, const aclIntArray *pads, const aclIntArray *dilations,
                         const int64_t ceilMode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(kernelShape, "kernelShape"));
    ACL_TRY(acl_check_int_array(strides, "strides"));
    ACL_TRY(acl_check_int_array(pads, "pads"));
    ACL_TRY(acl_check_int_array(dilations, "dilations"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MaxPool, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "self and out must have the same format");
    ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID, "self's format must not be private");
    ACLNN_CHECK(self->ndim == 3 || self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, must be 3 or 4",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(kernelShape->size == 1 || kernelShape->size == 2, ACLNN_ERR_PARAM_INVALID,
                "kernelShape must have 1 or 2 values, got %llu", (unsigned long long)kernelShape->size);
    ACLNN_CHECK(strides->size <= 2, ACLNN_ERR_PARAM_INVALID, "strides must have 0, 1 or 2 values, got %llu",
                (unsigned long long)strides->size);
    ACLNN_CHECK(pads->size <= 2 || pads->size == 4, ACLNN_ERR_PARAM_INVALID,
                "pads must have 0, 1, 2 or 4 values, got %llu", (unsigned long long)pads->size);
    ACLNN_CHECK(dilations->size <= 2 || dilations->size == 4, ACLNN_ERR_PARAM_INVALID,
                "dilations must have 0, 1, 2 or 4 values, got %llu", (unsigned long long)dilations->size);
    ACLNN_CHECK(autoPad == 0, ACLNN_ERR_PARAM_INVALID, "autoPad must be 0 (NOTSET), got %lld", (long long)autoPad);
    for (uint64_t i = 0; i < dilations->size; i++)
        ACLNN_CHECK(dilations->v[i] == 1, ACLNN_ERR_PARAM_INVALID, "dilations must be 1, got dilations[%llu] = %lld",
                    (unsigned long long)i, (long long)dilations->v[i]);
    const int64_t kh = kernelShape->v[0], kw = kernelShape->size == 1 ? kh : kernelShape->v[1];
    ACLNN_CHECK(kh > 0 && kw > 0, ACLNN_ERR_PARAM_INVALID, "kernelShape values must be > 0, got %lld, %lld",
                (long long)kh, (long long)kw);
    const int64_t sh = strides->size == 0 ? 1 : strides->v[0];
    const int64_t sw = strides->size == 0 ? 1 : strides->size == 1 ? sh : strides->v[1];
    ACLNN_CHECK(sh > 0 && sw > 0, ACLNN_ERR_PARAM_INVALID, "strides values must be > 0, got %lld, %lld",
                (long long)sh, (long long)sw);
    int64_t phl = 0, phr = 0, pwl = 0, pwr = 0;
    if (pads->size == 1) {
        phl = phr = pwl = pwr = pads->v[0];
    } else if (pads->size == 2) {
        phl = phr = pads->v[0];
        pwl = pwr = pads->v[1];
    } else if (pads->size == 4) {
        phl = pads->v[0];
        pwl = pads->v[1];
        phr = pads->v[2];
        pwr = pads->v[3];
    }
    ACLNN_CHECK(phl + phr <= kh && pwl + pwr <= kw, ACLNN_ERR_PARAM_INVALID,
                "pads: begin + end padding must be <= kernelShape per axis, got %lld + %lld (kh %lld), %lld + %lld "
                "(kw %lld)", (long long)phl, (long long)phr, (long long)kh, (long long)pwl, (long long)pwr,
                (long long)kw);
    /* not in the op_api: a negative padding would move windows outside the input (refused, see the report) */
    ACLNN_CHECK(phl >= 0 && phr >= 0 && pwl >= 0 && pwr >= 0, ACLNN_ERR_PARAM_INVALID, "pads must be >= 0");
    const bool is3 = self->ndim == 3;
    const int64_t c = self->dims[is3 ? 0 : 1], h = self->dims[is3 ? 1 : 2], w = self->dims[is3 ? 2 : 3];
    ACLNN_CHECK(c != 0 && h != 0 && w != 0, ACLNN_ERR_PARAM_INVALID,
                "self's channels, height and width must be non-zero, got %lld, %lld, %lld", (long long)c,
                (long long)h, (long long)w);
    ACLNN_CHECK(c > 0 && h > 0 && w > 0 && self->dims[0] >= 0, ACLNN_ERR_PARAM_INVALID, "self has a negative dim");
    int64_t oh = floor_div(h + phl + phr - kh + (ceilMode ? sh - 1 : 0), sh) + 1;
    if (ceilMode && (oh - 1) * sh >= h + phl) oh--;
    int64_t ow = floor_div(w + pwl + pwr - kw + (ceilMode ? sw - 1 : 0), sw) + 1;
    if (ceilMode && (ow - 1) * sw >= w + pwl) ow--;
    ACLNN_CHECK(oh > 0 && ow > 0, ACLNN_ERR_PARAM_INVALID, "self's plane %lldx%lld pools to %lldx%lld, which is empty",
                (long long)h, (long long)w, (long long)oh, (long long)ow);
    int64_t want[4];
    for (uint64_t i = 0; i < self->ndim; i++) want[i] = self->dims[i];
    want[self->ndim - 2] = oh;
    want[self->ndim - 1] = ow;
    bool ok = out->ndim == self->ndim;
    for (uint64_t i = 0; ok && i < self->ndim; i++) ok = out->dims[i] == want[i];
    char got[256];
    acl_shape_str(out, got, sizeof got);
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "out shape %s does not match the pooled shape (%lld x %lld)", got,
                (long long)oh, (long long)ow);
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_MaxPool, workspaceSize, executor);

    pool_max_params pp = {{0, is3 ? -1 : 1}, {-1, is3 ? 1 : 2, is3 ? 2 : 3}, {1, kh, kw}, {1, sh, sw},
                          {0, phl, pwl}, {1, 1, 1}, POOL_IDX_NONE, 0};
    aclOpExecutor *ex = acl_exec_create(ACL_OP_MaxPool, run, sizeof(pool_max_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_max_params *)ex->params = pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}
