/* aclnnAvgPool2dBackward: gradient of 2-D average pooling (SPEC section 5.1-5.3). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "ops/avg_pool_exec.h"
#include "ops/ops.h"

static const aclFormat k_formats[] = {ACL_FORMAT_NCHW, ACL_FORMAT_NCL};
static const int8_t k_cube_max = 3; /* cubeMathType 0..3 (4 is rejected, unlike the forward) */
static const int64_t k_global_min = 10; /* the A2 global path needs self H, W >= this */

/* The checks of the op_api source (aclnn_avgpool2d_backward.cpp, CheckParams), in order (SPEC 5.2 steps 1-7). */
static aclnnStatus check_params(const aclTensor *gradOutput, const aclTensor *self, const aclIntArray *kernelSize,
                                const aclIntArray *stride, const aclIntArray *padding, int8_t cubeMathType,
                                const aclTensor *gradInput, const uint64_t *workspaceSize,
                                aclOpExecutor *const *executor) {
    /* 1. NULL (stride may be NULL) */
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_tensor(gradInput, "gradInput"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    if (stride) ACL_TRY(acl_check_int_array(stride, "stride"));

    /* 2. dtype: gradOutput == gradInput (self is not compared) */
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_AvgPool2dBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AvgPool2dBackward, "self"));
    ACL_TRY(acl_check_dtype_in(gradInput, ACL_DT_LIST_AvgPool2dBackward, "gradInput"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", gradInput, "gradInput"));

    /* 3. format */
    ACL_TRY(acl_check_format_in(gradOutput, k_formats, ACL_COUNT_OF(k_formats), "gradOutput"));
    ACL_TRY(acl_check_format_in(self, k_formats, ACL_COUNT_OF(k_formats), "self"));
    ACL_TRY(acl_check_format_in(gradInput, k_formats, ACL_COUNT_OF(k_formats), "gradInput"));
    if (gradOutput->ndim == 4) {
        ACLNN_CHECK(gradOutput->format == ACL_FORMAT_NCHW, ACLNN_ERR_PARAM_INVALID,
                    "gradOutput is 4-dimensional, so its format must be NCHW");
        ACLNN_CHECK(gradInput->format == ACL_FORMAT_NCHW, ACLNN_ERR_PARAM_INVALID,
                    "gradOutput is 4-dimensional, so gradInput's format must be NCHW");
    }

    /* 4. dims and attribute lengths/values */
    ACLNN_CHECK((gradOutput->ndim == 3 && gradInput->ndim == 3) || (gradOutput->ndim == 4 && gradInput->ndim == 4),
                ACLNN_ERR_PARAM_INVALID, "gradOutput (%llu dims) and gradInput (%llu dims) must both be 3-D or 4-D",
                (unsigned long long)gradOutput->ndim, (unsigned long long)gradInput->ndim);
    ACL_TRY(acl_check_nonneg_dims(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_nonneg_dims(self, "self"));
    ACL_TRY(acl_check_nonneg_dims(gradInput, "gradInput"));
    ACLNN_CHECK(kernelSize->size == 1 || kernelSize->size == 2, ACLNN_ERR_PARAM_INVALID,
                "kernelSize length %llu must be 1 or 2", (unsigned long long)kernelSize->size);
    for (uint64_t i = 0; i < kernelSize->size; i++)
        ACLNN_CHECK(kernelSize->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "kernelSize[%llu] = %lld must be > 0",
                    (unsigned long long)i, (long long)kernelSize->v[i]);
    if (stride) {
        ACLNN_CHECK(stride->size <= 2, ACLNN_ERR_PARAM_INVALID, "stride length %llu must be <= 2",
                    (unsigned long long)stride->size);
        for (uint64_t i = 0; i < stride->size; i++)
            ACLNN_CHECK(stride->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "stride[%llu] = %lld must be > 0",
                        (unsigned long long)i, (long long)stride->v[i]);
    }
    ACLNN_CHECK(padding->size <= 2, ACLNN_ERR_PARAM_INVALID, "padding length %llu must be <= 2",
                (unsigned long long)padding->size);

    /* 5. padding: non-empty, 2p <= k (a negative padding passes here: see check_path) */
    ACLNN_CHECK(padding->size != 0, ACLNN_ERR_PARAM_INVALID, "padding must not be empty");
    avgpool_attrs a;
    avgpool_expand(kernelSize, stride, padding, &a);
    ACLNN_CHECK(a.ph <= a.kh / 2, ACLNN_ERR_PARAM_INVALID,
                "padding (H) %lld must be at most half of kernelSize (H) %lld", (long long)a.ph, (long long)a.kh);
    ACLNN_CHECK(a.pw <= a.kw / 2, ACLNN_ERR_PARAM_INVALID,
                "padding (W) %lld must be at most half of kernelSize (W) %lld", (long long)a.pw, (long long)a.kw);

    /* 6. cubeMathType */
    ACLNN_CHECK(cubeMathType >= 0 && cubeMathType <= k_cube_max, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d must be in [0, %d]", (int)cubeMathType, (int)k_cube_max);

    /* 7. self and gradInput shapes */
    ACL_TRY(acl_check_same_shape(self, "self", gradInput, "gradInput"));
    return ACLNN_SUCCESS;
}

/* After the empty-tensor early return: what the A2 path the host code picks rejects.
 * - Global path (divisorOverride 0, kernel = self's H x W with both >= 10, gradOutput 1 x 1): gradOutput / (kH*kW)
 *   broadcast to (N, C of gradOutput, H, W) and copied into gradInput; different planes make that copy fail
 *   (ACLNN_ERR_INNER_NULLPTR). Padding is not used: a negative one passes.
 * - Otherwise the cube path (conv2d backprop-input with a constant kernel) or the 3-D vector path; a failure of
 *   either is 161002. The 3-D path rejects a negative padding explicitly; the cube path hands it to the
 *   convolution as its padding, which does not take negative pads ([EMU] 161002 too). [EMU] gradOutput's planes
 *   (N, C) must be gradInput's: both paths take them as the planes of the result (the convolution's channel groups,
 *   the 3-D kernel's merged N*C), and the kernels here read one gradOutput plane per gradInput plane.
 * gradOutput's H and W are not compared with the pooling of self: the kernels iterate over gradOutput's positions
 * (SPEC 5.2 step 9). */
static aclnnStatus check_path(const aclTensor *gradOutput, const aclTensor *gradInput, const avgpool_attrs *a,
                              bool global) {
    const int r = (int)gradInput->ndim, off = r - 3;
    const bool same_planes = (r == 3 || gradOutput->dims[0] == gradInput->dims[0]) &&
                             gradOutput->dims[off] == gradInput->dims[off];
    if (global) {
        ACLNN_CHECK(same_planes, ACLNN_ERR_INNER_NULLPTR,
                    "gradOutput's planes (N, C) must be gradInput's: the global path's result is copied into "
                    "gradInput.");
        return ACLNN_SUCCESS;
    }
    ACLNN_CHECK(a->ph >= 0 && a->pw >= 0, ACLNN_ERR_PARAM_INVALID, "padding (%lld, %lld) must not be negative.",
                (long long)a->ph, (long long)a->pw);
    ACLNN_CHECK(r == 3 || gradOutput->dims[0] == gradInput->dims[0], ACLNN_ERR_PARAM_INVALID,
                "gradOutput batch %lld must equal gradInput batch %lld", (long long)gradOutput->dims[0],
                (long long)gradInput->dims[0]);
    ACLNN_CHECK(gradOutput->dims[off] == gradInput->dims[off], ACLNN_ERR_PARAM_INVALID,
                "gradOutput channels %lld must equal gradInput channels %lld", (long long)gradOutput->dims[off],
                (long long)gradInput->dims[off]);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AvgPool2dBackward(const aclTensor *gradOutput, const aclTensor *self,
                                   const aclIntArray *kernelSize, const aclIntArray *stride,
                                   const aclIntArray *padding, bool ceilMode, bool countIncludePad,
                                   int64_t divisorOverride, int8_t cubeMathType,
                                   aclTensor *gradInput, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    ACL_TRY(check_params(gradOutput, self, kernelSize, stride, padding, cubeMathType, gradInput, workspaceSize,
                         executor));
    /* 8. early success, gradInput untouched */
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(self) || acl_tensor_empty(gradInput))
        return acl_exec_noop(ACL_OP_AvgPool2dBackward, workspaceSize, executor);

    avgpool_attrs a;
    avgpool_expand(kernelSize, stride, padding, &a);
    a.ceil_mode = ceilMode;
    a.count_include_pad = countIncludePad;
    a.divisor_override = divisorOverride;

    const int r = (int)gradInput->ndim, off = r - 3;
    /* A2 global path: broadcast gradOutput / (kH*kW) over the whole plane (padding, countIncludePad ignored) */
    const bool global = divisorOverride == 0 && a.kh == gradInput->dims[off + 1] && a.kw == gradInput->dims[off + 2] &&
                        gradInput->dims[off + 1] >= k_global_min && gradInput->dims[off + 2] >= k_global_min &&
                        gradOutput->dims[off + 1] == 1 && gradOutput->dims[off + 2] == 1;
    ACL_TRY(check_path(gradOutput, gradInput, &a, global));

    aclOpExecutor *ex;
    ACL_TRY(avgpool_exec_create(ACL_OP_AvgPool2dBackward, true, gradOutput, "gradOutput", self, "self", gradInput,
                                "gradInput", gradInput, gradOutput, &ex));
    avgpool_plan *p = avgpool_exec_plan(ex);
    if (!avgpool_plan_backward(p, &a, global))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory planning the pooling gradient"));
    return acl_exec_publish(ex, workspaceSize, executor);
}
