/* aclnnMaxPool2dWithIndices, aclnnMaxPool2dWithMask, aclnnMaxPool3dWithArgmax: windowed max pooling with the
 * argmax of each window (d*H*W + h*W + w within the plane), the A2 (ASCEND910B) behaviour of the op_api:
 * - WithIndices: indices int32/int64 of out's shape;
 * - WithMask: indices is an int8 buffer of shape [N,] C, kH*kW, (ceil(oH*oW/16) + 1) * 32; for a kernel other than
 *   1x1 the A2 path stores the int32 argmax flat (plane-major) from its first byte, which the mask backward reads;
 *   for a 1x1 kernel each output's (single) window cell is marked with an all-ones uint16. */
#include <stdlib.h>

#include "ops/pool_max_common.h"

static const aclDataType IDX_I32_I64[] = {ACL_INT32, ACL_INT64};
static const aclDataType IDX_I8[] = {ACL_INT8};
static const aclDataType IDX_I32[] = {ACL_INT32};

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_max_nd(acl_exec_in(ex, 0), acl_exec_out(ex, 0), acl_exec_out(ex, 1), ex->params);
    return ACLNN_SUCCESS;
}

static aclnnStatus publish(int op, const aclTensor *self, aclTensor *out, aclTensor *indices,
                           const pool_max_params *pp, uint64_t *workspaceSize, aclOpExecutor **executor) {
    aclOpExecutor *ex = acl_exec_create(op, run, sizeof(pool_max_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc == 0) rc = acl_exec_add_output(ex, indices, "indices");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_max_params *)ex->params = *pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* The 2-D ops' CheckParams: NULL, dtypes (self, out same as self, indices), formats and rank, attributes, then the
 * plane sizes, the pooled sizes, out's shape and indices' shape. */
static aclnnStatus check2d(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
                           const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
                           const aclTensor *out, const aclTensor *indices, bool mask, const aclDataType *dtlist,
                           int ndt, const uint64_t *workspaceSize, aclOpExecutor *const *executor,
                           pool_max_params *pp) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(pm_check_attr_lists(kernelSize, stride, padding, dilation));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_tensor(indices, "indices"));
    ACL_TRY(pm_check_ws_exec(workspaceSize, executor));

    ACL_TRY(acl_check_dtype_in(self, dtlist, ndt, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    if (mask)
        ACL_TRY(acl_check_dtype_in(indices, IDX_I8, 1, "indices"));
    else
        ACL_TRY(acl_check_dtype_in(indices, IDX_I32_I64, 2, "indices"));

    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "self and out must have the same format");
    ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID,
                "self's format must be NCHW or CHW, not a private format");
    ACL_TRY(pm_check_ndim(self, "self", 3));

    ACL_TRY(pm_attrs2d(kernelSize, stride, padding, dilation, pp));
    pm_axes2d(self, pp);
    const bool is3 = self->ndim == 3;
    int64_t n, c, h, w, oh, ow, want[4];
    pm_plane2d(self, pp, &n, &c, &h, &w);
    ACLNN_CHECK(c != 0 && h != 0 && w != 0, ACLNN_ERR_PARAM_INVALID,
                "self's channels, height and width must be non-zero, got %lld, %lld, %lld", (long long)c,
                (long long)h, (long long)w);
    ACLNN_CHECK(n >= 0 && c > 0 && h > 0 && w > 0, ACLNN_ERR_PARAM_INVALID, "self has a negative dim");
    ACL_TRY(pm_pooled2d(self, pp, h, w, ceilMode, &oh, &ow, want));
    char got[256];
    acl_shape_str(out, got, sizeof got);
    ACLNN_CHECK(pm_shape_is(out, want, (int)self->ndim), ACLNN_ERR_PARAM_INVALID,
                "out shape %s does not match the pooled shape (pooled height %lld, width %lld)", got, (long long)oh,
                (long long)ow);
    if (mask) {
        const int64_t mw = ((oh * ow + 15) / 16 + 1) * 2 * 16;
        int64_t mwant[4] = {n, c, pp->k[1] * pp->k[2], mw};
        const int64_t *mw4 = is3 ? mwant + 1 : mwant;
        acl_shape_str(indices, got, sizeof got);
        ACLNN_CHECK(pm_shape_is(indices, mw4, (int)self->ndim), ACLNN_ERR_PARAM_INVALID,
                    "indices shape %s must be [N,] C, kH*kW = %lld, %lld for the mask", got,
                    (long long)mwant[2], (long long)mw);
        ACLNN_CHECK(pm_contiguous(indices), ACLNN_ERR_PARAM_INVALID, "indices (the mask buffer) must be contiguous");
        pp->idx_mode = (pp->k[1] == 1 && pp->k[2] == 1) ? POOL_IDX_UNIT : POOL_IDX_RAW32;
        pp->mask_plane = mwant[2] * mw / 2;
    } else {
        ACLNN_CHECK(pm_same_shape(indices, out), ACLNN_ERR_PARAM_INVALID, "indices must have out's shape");
        pp->idx_mode = POOL_IDX_VIEW;
        pp->mask_plane = 0;
    }
    return ACLNN_SUCCESS;
}

/* check2d, the empty early success, publish: the two 2-D entry points after their own first checks */
static aclnnStatus fwd2d(int op, const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
                         const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode, aclTensor *out,
                         aclTensor *indices, bool mask, const aclDataType *dtlist, int ndt, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    pool_max_params pp;
    ACL_TRY(check2d(self, kernelSize, stride, padding, dilation, ceilMode, out, indices, mask, dtlist, ndt,
                    workspaceSize, executor, &pp));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(op, workspaceSize, executor);
    return publish(op, self, out, indices, &pp, workspaceSize, executor);
}

aclnnStatus opws_MaxPool2dWithIndices(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
                                      const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
                                      aclTensor *out, aclTensor *indices, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
    return fwd2d(ACL_OP_MaxPool2dWithIndices, self, kernelSize, stride, padding, dilation, ceilMode, out, indices,
                 false, ACL_DT_LIST_MaxPool2dWithIndices, workspaceSize, executor);
}

aclnnStatus opws_MaxPool2dWithMask(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
                                   const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
                                   aclTensor *out, aclTensor *indices, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    /* the entry point checks kernelSize, self and out for NULL and kernelSize's length first */
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(kernelSize->size == 1 || kernelSize->size == 2, ACLNN_ERR_PARAM_INVALID,
                "kernelSize must have 1 or 2 values, got %llu", (unsigned long long)kernelSize->size);
    return fwd2d(ACL_OP_MaxPool2dWithMask, self, kernelSize, stride, padding, dilation, ceilMode, out, indices, true,
                 ACL_DT_LIST_MaxPool2dWithMask, workspaceSize, executor);
}

/* Upstream order: NULL, dtypes (self, indices int32, out same as self), formats (self = out = indices) and rank,
 * the attributes, then (after the empty early success) out's and indices' shapes against the pooled shape. */
aclnnStatus opws_MaxPool3dWithArgmax(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
                                     const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
                                     aclTensor *out, aclTensor *indices, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(pm_check_attr_lists(kernelSize, stride, padding, dilation));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_tensor(indices, "indices"));
    ACL_TRY(pm_check_ws_exec(workspaceSize, executor));

    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MaxPool3dWithArgmax, "self"));
    ACL_TRY(acl_check_dtype_in(indices, IDX_I32, 1, "indices"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "self and out must have the same format");
    ACLNN_CHECK(self->format == indices->format, ACLNN_ERR_PARAM_INVALID,
                "self and indices must have the same format");
    ACL_TRY(pm_check_ndim(self, "self", 4));
    pool_max_params pp;
    ACL_TRY(pm_attrs3d(kernelSize, stride, padding, dilation, true, &pp));
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_MaxPool3dWithArgmax, workspaceSize, executor);

    pm_axes3d(self, &pp);
    pp.idx_mode = POOL_IDX_VIEW;
    pp.mask_plane = 0;
    int64_t want[5];
    for (uint64_t i = 0; i < self->ndim; i++) want[i] = self->dims[i];
    for (int i = 0; i < 3; i++) {
        const int64_t in = self->dims[pp.sp[i]];
        ACLNN_CHECK(in >= 0, ACLNN_ERR_PARAM_INVALID, "self has a negative dim");
        want[pp.sp[i]] = pool_out_size(in, pp.k[i], pp.s[i], pp.p[i], pp.dl[i], ceilMode);
        ACLNN_CHECK(want[pp.sp[i]] > 0, ACLNN_ERR_PARAM_INVALID,
                    "self's spatial dim %d (%lld) pools to %lld, which is empty", i, (long long)in,
                    (long long)want[pp.sp[i]]);
    }
    ACLNN_CHECK(self->dims[pp.sp[0]] * self->dims[pp.sp[1]] <= INT32_MAX / self->dims[pp.sp[2]],
                ACLNN_ERR_PARAM_INVALID, "self's D*H*W must fit the int32 indices");
    char got[256];
    acl_shape_str(out, got, sizeof got);
    ACLNN_CHECK(pm_shape_is(out, want, (int)self->ndim), ACLNN_ERR_PARAM_INVALID,
                "out shape %s does not match the pooled shape", got);
    acl_shape_str(indices, got, sizeof got);
    ACLNN_CHECK(pm_shape_is(indices, want, (int)self->ndim), ACLNN_ERR_PARAM_INVALID,
                "indices shape %s does not match the pooled shape", got);
    return publish(ACL_OP_MaxPool3dWithArgmax, self, out, indices, &pp, workspaceSize, executor);
}
