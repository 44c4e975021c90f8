/* aclnnMaxPool2dWithIndicesBackward, aclnnMaxPool2dWithMaskBackward, aclnnMaxPool3dWithArgmaxBackward: the gradient
 * of windowed max pooling through the forward's argmax (per-plane owner, fixed order: deterministic). The mask
 * variant reads the int32 argmax its forward stored flat in the int8 buffer (a 1x1 kernel routes each gradient to
 * its single window cell). */
#include <stdlib.h>

#include "ops/pool_max_common.h"

static const aclDataType IDX_I32_I8[] = {ACL_INT32, ACL_INT8};
static const aclDataType IDX_I8[] = {ACL_INT8};
static const aclDataType IDX_I32[] = {ACL_INT32};

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    pool_max_nd_backward(acl_exec_in(ex, 0), acl_exec_in(ex, 1), acl_exec_out(ex, 0), ex->params);
    return ACLNN_SUCCESS;
}

static aclnnStatus publish(int op, const aclTensor *gradOutput, const aclTensor *indices, aclTensor *gradInput,
                           const pool_max_params *pp, uint64_t *workspaceSize, aclOpExecutor **executor) {
    aclOpExecutor *ex = acl_exec_create(op, run, sizeof(pool_max_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_input(ex, indices, "indices", pp->idx_mode != POOL_IDX_UNIT);
    if (rc == 0) rc = acl_exec_add_output(ex, gradInput, "gradInput");
    if (rc) return acl_exec_discard(ex, rc);
    *(pool_max_params *)ex->params = *pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* The 2-D backward's CheckParams: NULL, dtypes (self; gradOutput and gradInput same as self; indices), formats
 * and ranks, attributes, gradInput's shape = self's, plane sizes, pooled sizes, gradOutput's shape, indices. */
static aclnnStatus check2d(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                           const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
                           const aclIntArray *dilation, bool ceilMode, const aclTensor *gradInput, bool mask,
                           const aclDataType *dtlist, int ndt, const uint64_t *workspaceSize,
                           aclOpExecutor *const *executor, pool_max_params *pp) {
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(indices, "indices"));
    ACL_TRY(pm_check_attr_lists(kernelSize, stride, padding, dilation));
    ACL_TRY(acl_check_tensor(gradInput, "gradInput"));
    ACL_TRY(pm_check_ws_exec(workspaceSize, executor));

    ACL_TRY(acl_check_dtype_in(self, dtlist, ndt, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradInput, "gradInput"));
    if (mask)
        ACL_TRY(acl_check_dtype_in(indices, IDX_I8, 1, "indices"));
    else
        ACL_TRY(acl_check_dtype_in(indices, IDX_I32_I8, 2, "indices"));

    ACL_TRY(pm_check_bwd_formats(self, gradOutput, gradInput, indices));
    ACL_TRY(pm_check_ndim(self, "self", 3));
    ACL_TRY(pm_check_ndim(gradInput, "gradInput", 3));
    ACL_TRY(pm_check_ndim(gradOutput, "gradOutput", 3));
    ACL_TRY(pm_check_ndim(indices, "indices", 3));

    ACL_TRY(pm_attrs2d(kernelSize, stride, padding, dilation, pp));
    ACLNN_CHECK(pm_same_shape(gradInput, self), ACLNN_ERR_PARAM_INVALID, "gradInput must have self's shape");
    pm_axes2d(self, pp);
    int64_t n, c, h, w, oh, ow, want[4];
    pm_plane2d(self, pp, &n, &c, &h, &w);
    ACLNN_CHECK(c > 0 && h > 0 && w > 0 && n >= 0, ACLNN_ERR_PARAM_INVALID,
                "self's channels, height and width must be non-zero, got %lld, %lld, %lld", (long long)c,
                (long long)h, (long long)w);
    ACL_TRY(pm_pooled2d(self, pp, h, w, ceilMode, &oh, &ow, want));
    char got[256];
    acl_shape_str(gradOutput, got, sizeof got);
    ACLNN_CHECK(pm_shape_is(gradOutput, want, (int)self->ndim), ACLNN_ERR_PARAM_INVALID,
                "gradOutput shape %s does not match the pooled shape (pooled height %lld, width %lld)", got,
                (long long)oh, (long long)ow);
    pp->mask_plane = 0;
    if (!mask) {
        ACLNN_CHECK(pm_same_shape(indices, gradOutput), ACLNN_ERR_PARAM_INVALID,
                    "indices must have gradOutput's shape");
        pp->idx_mode = POOL_IDX_VIEW;
    } else if (pp->k[1] == 1 && pp->k[2] == 1) {
        pp->idx_mode = POOL_IDX_UNIT;
    } else {
        const int64_t need = n * c * oh * ow * 4, have = acl_tensor_numel(indices);
        ACLNN_CHECK(have >= need, ACLNN_ERR_PARAM_INVALID,
                    "indices (the mask buffer) holds %lld bytes, the argmax needs %lld", (long long)have,
                    (long long)need);
        ACLNN_CHECK(pm_contiguous(indices), ACLNN_ERR_PARAM_INVALID, "indices (the mask buffer) must be contiguous");
        pp->idx_mode = POOL_IDX_RAW32;
    }
    return ACLNN_SUCCESS;
}

/* check2d, the empty early success, publish: the two 2-D entry points after their own first checks */
static aclnnStatus bwd2d(int op, const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                         const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
                         const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput, bool mask,
                         const aclDataType *dtlist, int ndt, uint64_t *workspaceSize, aclOpExecutor **executor) {
    pool_max_params pp;
    ACL_TRY(check2d(gradOutput, self, indices, kernelSize, stride, padding, dilation, ceilMode, gradInput, mask,
                    dtlist, ndt, workspaceSize, executor, &pp));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, workspaceSize, executor);
    return publish(op, gradOutput, indices, gradInput, &pp, workspaceSize, executor);
}

aclnnStatus opws_MaxPool2dWithIndicesBackward(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *indices, const aclIntArray *kernelSize,
                                              const aclIntArray *stride, const aclIntArray *padding,
                                              const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput,
                                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    return bwd2d(ACL_OP_MaxPool2dWithIndicesBackward, gradOutput, self, indices, kernelSize, stride, padding,
                 dilation, ceilMode, gradInput, false, ACL_DT_LIST_MaxPool2dWithIndicesBackward, workspaceSize,
                 executor);
}

aclnnStatus opws_MaxPool2dWithMaskBackward(const aclTensor *gradOutput, const aclTensor *self,
                                           const aclTensor *indices, const aclIntArray *kernelSize,
                                           const aclIntArray *stride, const aclIntArray *padding,
                                           const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput,
                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the entry point checks kernelSize, self and gradOutput for NULL, then kernelSize's length (reported with
     * the NULL code by the op_api) */
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACLNN_CHECK(kernelSize->size == 1 || kernelSize->size == 2, ACLNN_ERR_PARAM_NULLPTR,
                "kernelSize must have 1 or 2 values, got %llu", (unsigned long long)kernelSize->size);
    return bwd2d(ACL_OP_MaxPool2dWithMaskBackward, gradOutput, self, indices, kernelSize, stride, padding,
                 dilation, ceilMode, gradInput, true, ACL_DT_LIST_MaxPool2dWithMaskBackward, workspaceSize,
                 executor);
}

/* Upstream order: NULL, dtypes (self, indices int32, gradOutput and gradInput same as self), formats and ranks,
 * attributes (any dilation > 0), self's size, indices = gradOutput and gradInput = self shapes. */
aclnnStatus opws_MaxPool3dWithArgmaxBackward(const aclTensor *gradOutput, const aclTensor *self,
                                             const aclTensor *indices, const aclIntArray *kernelSize,
                                             const aclIntArray *stride, const aclIntArray *padding,
                                             const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput,
                                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)ceilMode;
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(indices, "indices"));
    ACL_TRY(pm_check_attr_lists(kernelSize, stride, padding, dilation));
    ACL_TRY(acl_check_tensor(gradInput, "gradInput"));
    ACL_TRY(pm_check_ws_exec(workspaceSize, executor));

    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MaxPool3dWithArgmaxBackward, "self"));
    ACL_TRY(acl_check_dtype_in(indices, IDX_I32, 1, "indices"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradInput, "gradInput"));
    ACL_TRY(pm_check_bwd_formats(self, gradOutput, gradInput, indices));
    ACL_TRY(pm_check_ndim(gradOutput, "gradOutput", 4));
    ACL_TRY(pm_check_ndim(gradInput, "gradInput", 4));
    ACL_TRY(pm_check_ndim(indices, "indices", 4));
    ACL_TRY(pm_check_ndim(self, "self", 4));
    pool_max_params pp;
    ACL_TRY(pm_attrs3d(kernelSize, stride, padding, dilation, false, &pp));
    pm_axes3d(self, &pp);
    for (uint64_t i = 0; i < self->ndim; i++)
        ACLNN_CHECK(self->dims[i] >= 0, ACLNN_ERR_PARAM_INVALID, "self dim %llu must be >= 0", (unsigned long long)i);
    const int64_t d = self->dims[pp.sp[0]], h = self->dims[pp.sp[1]], w = self->dims[pp.sp[2]];
    ACLNN_CHECK(d == 0 || h == 0 || w == 0 || d * h <= INT32_MAX / w, ACLNN_ERR_PARAM_INVALID,
                "self's D*H*W must fit the int32 indices");
    ACLNN_CHECK(pm_same_shape(indices, gradOutput), ACLNN_ERR_PARAM_INVALID, "indices must have gradOutput's shape");
    ACLNN_CHECK(pm_same_shape(self, gradInput), ACLNN_ERR_PARAM_INVALID, "gradInput must have self's shape");
    /* the kernel walks gradOutput by self's planes: the non-pooled axes must agree (the device infers them) */
    bool lead_ok = gradOutput->ndim == self->ndim;
    for (int i = 0; lead_ok && i < 2; i++)
        if (pp.lead[i] >= 0) lead_ok = gradOutput->dims[pp.lead[i]] == self->dims[pp.lead[i]];
    ACLNN_CHECK(lead_ok, ACLNN_ERR_PARAM_INVALID, "gradOutput's batch and channel dims must match self's");
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(self) || acl_tensor_empty(indices))
        return acl_exec_noop(ACL_OP_MaxPool3dWithArgmaxBackward, workspaceSize, executor);
    pp.idx_mode = POOL_IDX_VIEW;
    pp.mask_plane = 0;
    return publish(ACL_OP_MaxPool3dWithArgmaxBackward, gradOutput, indices, gradInput, &pp, workspaceSize, executor);
}
