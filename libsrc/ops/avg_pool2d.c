/* aclnnAvgPool2d: 2-D average pooling, PyTorch avg_pool2d semantics (SPEC section 5.4). */
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "ops/avg_pool_exec.h"
#include "ops/ops.h"

static const aclFormat k_formats[] = {ACL_FORMAT_NCHW, ACL_FORMAT_NCL};
static const int8_t k_cube_max = 4; /* A2 accepts cubeMathType 0..4 */
/* A2 cube-path limits (SPEC 5.3/5.4) */
static const int64_t k_cube_divisor_max = 255, k_cube_kernel_max = 255, k_cube_area_max = 255,
                     k_cube_small_kernel = 20, k_cube_channels_max = 65536;

/* The A2 path selection: true when the op runs on the global or the cube path, where an fp32 input with
 * cubeMathType 1, 3 or 4 is rejected. */
static bool on_global_or_cube_path(const avgpool_attrs *a, int64_t c, int64_t h, int64_t w) {
    if (a->kh == h && a->kw == w && a->ph == 0 && a->pw == 0) return true; /* global */
    bool divisor_ok = a->divisor_override >= -k_cube_divisor_max && a->divisor_override <= k_cube_divisor_max;
    bool kernel_ok = a->kh <= k_cube_kernel_max && a->kw <= k_cube_kernel_max &&
                     (a->kh * a->kw <= k_cube_area_max || (a->kh <= k_cube_small_kernel && a->kw <= k_cube_small_kernel));
    bool strip = w / h >= 2 || h / w >= 2;
    return divisor_ok && kernel_ok && !a->ceil_mode && !strip && c < k_cube_channels_max;
}

/* SPEC 5.4, in order. */
static aclnnStatus check_params(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *strides,
                                const aclIntArray *paddings, bool ceilMode, int64_t divisorOverride,
                                int8_t cubeMathType, const aclTensor *out, const uint64_t *workspaceSize,
                                aclOpExecutor *const *executor) {
    /* 1. NULL */
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_int_array(strides, "strides"));
    ACL_TRY(acl_check_int_array(paddings, "paddings"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");

    /* 2. dtype */
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_AvgPool2d, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_AvgPool2d, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));

    /* 3. format: rank-4 -> both NCHW, rank-3 -> both NCL */
    ACL_TRY(acl_check_format_in(self, k_formats, ACL_COUNT_OF(k_formats), "self"));
    ACL_TRY(acl_check_format_in(out, k_formats, ACL_COUNT_OF(k_formats), "out"));
    if (self->ndim == 4 || self->ndim == 3) {
        aclFormat want = self->ndim == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCL;
        ACLNN_CHECK(self->format == want, ACLNN_ERR_PARAM_INVALID, "self is %llu-dimensional, so its format must be %s",
                    (unsigned long long)self->ndim, self->ndim == 4 ? "NCHW" : "NCL");
        ACLNN_CHECK(out->format == want, ACLNN_ERR_PARAM_INVALID, "self is %llu-dimensional, so out's format must be %s",
                    (unsigned long long)self->ndim, self->ndim == 4 ? "NCHW" : "NCL");
    }

    /* 4. values */
    ACL_TRY(acl_check_nonneg_dims(self, "self"));
    ACL_TRY(acl_check_nonneg_dims(out, "out"));
    for (uint64_t i = 0; i < kernelSize->size; i++)
        ACLNN_CHECK(kernelSize->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "kernelSize[%llu] = %lld must be > 0",
                    (unsigned long long)i, (long long)kernelSize->v[i]);
    for (uint64_t i = 0; i < strides->size; i++)
        ACLNN_CHECK(strides->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "strides[%llu] = %lld must be > 0",
                    (unsigned long long)i, (long long)strides->v[i]);
    for (uint64_t i = 0; i < paddings->size; i++)
        ACLNN_CHECK(paddings->v[i] >= 0, ACLNN_ERR_PARAM_INVALID, "paddings[%llu] = %lld must be >= 0",
                    (unsigned long long)i, (long long)paddings->v[i]);

    /* 5. shape */
    ACLNN_CHECK((self->ndim == 3 && out->ndim == 3) || (self->ndim == 4 && out->ndim == 4), ACLNN_ERR_PARAM_INVALID,
                "self (%llu dims) and out (%llu dims) must both be 3-D or 4-D", (unsigned long long)self->ndim,
                (unsigned long long)out->ndim);
    const int off = (int)self->ndim - 3;
    const int64_t c = self->dims[off], h = self->dims[off + 1], w = self->dims[off + 2];
    ACLNN_CHECK(c != 0 && h != 0 && w != 0, ACLNN_ERR_PARAM_INVALID,
                "self's C, H and W must not be 0 (C=%lld, H=%lld, W=%lld)", (long long)c, (long long)h, (long long)w);
    ACLNN_CHECK(kernelSize->size >= 1, ACLNN_ERR_PARAM_INVALID, "kernelSize must not be empty");
    ACLNN_CHECK(paddings->size == 1 || paddings->size == 2, ACLNN_ERR_PARAM_INVALID,
                "paddings length %llu must be 1 or 2", (unsigned long long)paddings->size);
    ACLNN_CHECK(strides->size <= 2, ACLNN_ERR_PARAM_INVALID, "strides length %llu must be <= 2",
                (unsigned long long)strides->size);
    avgpool_attrs a;
    avgpool_expand(kernelSize, strides, paddings, &a);
    ACLNN_CHECK(a.ph <= a.kh / 2, ACLNN_ERR_PARAM_INVALID,
                "paddings (H) %lld must be at most half of kernelSize (H) %lld", (long long)a.ph, (long long)a.kh);
    ACLNN_CHECK(a.pw <= a.kw / 2, ACLNN_ERR_PARAM_INVALID,
                "paddings (W) %lld must be at most half of kernelSize (W) %lld", (long long)a.pw, (long long)a.kw);
    const int64_t oh = avgpool_out_size(h, a.kh, a.sh, a.ph, ceilMode);
    const int64_t ow = avgpool_out_size(w, a.kw, a.sw, a.pw, ceilMode);
    ACLNN_CHECK(oh > 0 && ow > 0, ACLNN_ERR_PARAM_INVALID,
                "the computed output size %lld x %lld of self (H=%lld, W=%lld) is too small", (long long)oh,
                (long long)ow, (long long)h, (long long)w);
    bool shape_ok = out->dims[off] == c && out->dims[off + 1] == oh && out->dims[off + 2] == ow &&
                    (off == 0 || out->dims[0] == self->dims[0]);
    char got[256];
    acl_shape_str(out, got, sizeof got);
    ACLNN_CHECK(shape_ok, ACLNN_ERR_PARAM_INVALID, "out shape %s should be [%s%lld, %lld, %lld]", got,
                off ? "N, " : "", (long long)c, (long long)oh, (long long)ow);

    /* 6. cubeMathType */
    ACLNN_CHECK(cubeMathType >= 0 && cubeMathType <= k_cube_max, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d must be in [0, %d]", (int)cubeMathType, (int)k_cube_max);
    return ACLNN_SUCCESS;
}

/* After the empty-tensor early success (upstream: the path's dtype conversion): fp32 on the global / cube path
 * supports cubeMathType 0 and 2 only. */
static aclnnStatus check_path_cube_math(const aclTensor *self, const avgpool_attrs *a, int8_t cubeMathType) {
    const int off = (int)self->ndim - 3;
    ACLNN_CHECK(!(self->dtype == ACL_FLOAT && (cubeMathType == 1 || cubeMathType == 3 || cubeMathType == 4) &&
                  on_global_or_cube_path(a, self->dims[off], self->dims[off + 1], self->dims[off + 2])),
                ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d is not supported for a FLOAT self on this pooling's (global/cube) path",
                (int)cubeMathType);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AvgPool2d(const aclTensor *self, const aclIntArray *kernelSize,
                           const aclIntArray *strides, const aclIntArray *paddings, const bool ceilMode,
                           const bool countIncludePad, const int64_t divisorOverride,
                           const int8_t cubeMathType, aclTensor *out, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    ACL_TRY(check_params(self, kernelSize, strides, paddings, ceilMode, divisorOverride, cubeMathType, out,
                         workspaceSize, executor));
    /* early success (only N = 0 is possible), out untouched */
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_AvgPool2d, workspaceSize, executor);

    avgpool_attrs a;
    avgpool_expand(kernelSize, strides, paddings, &a);
    a.ceil_mode = ceilMode;
    a.count_include_pad = countIncludePad;
    a.divisor_override = divisorOverride;
    ACL_TRY(check_path_cube_math(self, &a, cubeMathType));

    aclOpExecutor *ex;
    ACL_TRY(avgpool_exec_create(ACL_OP_AvgPool2d, false, self, "self", NULL, NULL, out, "out", self, out, &ex));
    avgpool_plan *p = avgpool_exec_plan(ex);
    if (!avgpool_plan_forward(p, &a))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory planning the pooling"));
    return acl_exec_publish(ex, workspaceSize, executor);
}
