/* Shared argument handling of the windowed max pools with argmax (pool_max_with_indices*.c). */
#ifndef PYACLNN_OPS_POOL_MAX_COMMON_H
#define PYACLNN_OPS_POOL_MAX_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/gen/all_ops.h"
#include "kernels/pool3d.h"
#include "ops/ops.h"

/* value i of an attribute list of `n` (1 or n entries, 0 entries meaning `dflt`) */
static inline int64_t pm_attr(const aclIntArray *a, int i, const int64_t *dflt) {
    if (a->size == 0) return dflt[i];
    return a->size == 1 ? a->v[0] : a->v[i];
}

static inline bool pm_shape_is(const aclTensor *t, const int64_t *want, int n) {
    if ((int)t->ndim != n) return false;
    for (int i = 0; i < n; i++)
        if (t->dims[i] != want[i]) return false;
    return true;
}

static inline bool pm_same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i]) return false;
    return true;
}

/* row-major contiguous view (a raw buffer the argmax is written into flat from its first element) */
static inline bool pm_contiguous(const aclTensor *t) {
    int64_t s = 1;
    for (int i = (int)t->ndim - 1; i >= 0; i--) {
        if (t->dims[i] != 1 && t->strides[i] != s) return false;
        s *= t->dims[i];
    }
    return true;
}

/* Axes of a 2-D pool (rank 3 CHW / 4 NCHW, NHWC when channels-last) as a 3-axis pool with D absent. */
static inline void pm_axes2d(const aclTensor *self, pool_max_params *pp) {
    const bool nhwc = self->format == ACL_FORMAT_NHWC;
    if (self->ndim == 3) {
        pp->lead[0] = nhwc ? 2 : 0;
        pp->lead[1] = -1;
        pp->sp[0] = -1;
        pp->sp[1] = nhwc ? 0 : 1;
        pp->sp[2] = nhwc ? 1 : 2;
    } else {
        pp->lead[0] = 0;
        pp->lead[1] = nhwc ? 3 : 1;
        pp->sp[0] = -1;
        pp->sp[1] = nhwc ? 1 : 2;
        pp->sp[2] = nhwc ? 2 : 3;
    }
}

/* Axes of a 3-D pool (rank 4 CDHW / 5 NCDHW, NDHWC when channels-last). */
static inline void pm_axes3d(const aclTensor *self, pool_max_params *pp) {
    const bool last = self->format == ACL_FORMAT_NDHWC;
    const int r = (int)self->ndim, b = r - 4; /* b = 1 with a batch axis */
    if (last) {
        pp->lead[0] = b ? 0 : r - 1;
        pp->lead[1] = b ? r - 1 : -1;
        for (int i = 0; i < 3; i++) pp->sp[i] = b + i;
    } else {
        pp->lead[0] = 0;
        pp->lead[1] = b ? 1 : -1;
        for (int i = 0; i < 3; i++) pp->sp[i] = b + 1 + i;
    }
}

/* The 2-D attributes (kernelSize 1|2, stride 0|1|2, padding 1|2, dilation 1|2; pad <= k/2; dilation 1), in the
 * 2-D ops' order. Fills pp->k/s/p/dl[1..2] (D: a 1-tap window). */
static inline aclnnStatus pm_attrs2d(const aclIntArray *kernelSize, const aclIntArray *stride,
                                     const aclIntArray *padding, const aclIntArray *dilation, pool_max_params *pp) {
    ACLNN_CHECK(kernelSize->size == 1 || kernelSize->size == 2, ACLNN_ERR_PARAM_INVALID,
                "kernelSize must have 1 or 2 values, got %llu", (unsigned long long)kernelSize->size);
    ACLNN_CHECK(stride->size <= 2, ACLNN_ERR_PARAM_INVALID, "stride must have 0, 1 or 2 values, got %llu",
                (unsigned long long)stride->size);
    ACLNN_CHECK(padding->size == 1 || padding->size == 2, ACLNN_ERR_PARAM_INVALID,
                "padding must have 1 or 2 values, got %llu", (unsigned long long)padding->size);
    ACLNN_CHECK(dilation->size == 1 || dilation->size == 2, ACLNN_ERR_PARAM_INVALID,
                "dilation must have 1 or 2 values, got %llu", (unsigned long long)dilation->size);
    const int64_t one[2] = {1, 1};
    int64_t k[2] = {pm_attr(kernelSize, 0, one), pm_attr(kernelSize, 1, one)};
    ACLNN_CHECK(k[0] > 0 && k[1] > 0, ACLNN_ERR_PARAM_INVALID, "kernelSize values must be > 0, got %lld, %lld",
                (long long)k[0], (long long)k[1]);
    int64_t s[2] = {pm_attr(stride, 0, k), stride->size == 0 ? k[1] : pm_attr(stride, 1, k)};
    ACLNN_CHECK(s[0] > 0 && s[1] > 0, ACLNN_ERR_PARAM_INVALID, "stride values must be > 0, got %lld, %lld",
                (long long)s[0], (long long)s[1]);
    int64_t p[2] = {pm_attr(padding, 0, one), pm_attr(padding, 1, one)};
    ACLNN_CHECK(p[0] >= 0 && p[1] >= 0 && p[0] <= k[0] / 2 && p[1] <= k[1] / 2, ACLNN_ERR_PARAM_INVALID,
                "padding must be >= 0 and <= half of kernelSize, got padding %lld, %lld for kernelSize %lld, %lld",
                (long long)p[0], (long long)p[1], (long long)k[0], (long long)k[1]);
    int64_t d[2] = {pm_attr(dilation, 0, one), pm_attr(dilation, 1, one)};
    ACLNN_CHECK(d[0] == 1 && d[1] == 1, ACLNN_ERR_PARAM_INVALID, "dilation must be 1, got %lld, %lld",
                (long long)d[0], (long long)d[1]);
    pp->k[0] = pp->s[0] = pp->dl[0] = 1;
    pp->p[0] = 0;
    for (int i = 0; i < 2; i++) {
        pp->k[i + 1] = k[i];
        pp->s[i + 1] = s[i];
        pp->p[i + 1] = p[i];
        pp->dl[i + 1] = d[i];
    }
    return ACLNN_SUCCESS;
}

/* The 3-D attributes (kernelSize 1|3, stride 0|1|3, padding 1|3, dilation 1|3). need_unit_dilation: the forward
 * accepts only dilation 1 on A2, the backward any dilation > 0. */
static inline aclnnStatus pm_attrs3d(const aclIntArray *kernelSize, const aclIntArray *stride,
                                     const aclIntArray *padding, const aclIntArray *dilation, bool need_unit_dilation,
                                     pool_max_params *pp) {
    const int64_t one[3] = {1, 1, 1};
    ACLNN_CHECK(kernelSize->size == 1 || kernelSize->size == 3, ACLNN_ERR_PARAM_INVALID,
                "kernelSize must have 1 or 3 values, got %llu", (unsigned long long)kernelSize->size);
    int64_t k[3];
    for (int i = 0; i < 3; i++) k[i] = pm_attr(kernelSize, i, one);
    ACLNN_CHECK(k[0] > 0 && k[1] > 0 && k[2] > 0, ACLNN_ERR_PARAM_INVALID,
                "kernelSize values must be > 0, got %lld, %lld, %lld", (long long)k[0], (long long)k[1],
                (long long)k[2]);
    ACLNN_CHECK(stride->size == 0 || stride->size == 1 || stride->size == 3, ACLNN_ERR_PARAM_INVALID,
                "stride must have 0, 1 or 3 values, got %llu", (unsigned long long)stride->size);
    int64_t s[3];
    for (int i = 0; i < 3; i++) s[i] = pm_attr(stride, i, k);
    ACLNN_CHECK(s[0] > 0 && s[1] > 0 && s[2] > 0, ACLNN_ERR_PARAM_INVALID,
                "stride values must be > 0, got %lld, %lld, %lld", (long long)s[0], (long long)s[1], (long long)s[2]);
    ACLNN_CHECK(padding->size == 1 || padding->size == 3, ACLNN_ERR_PARAM_INVALID,
                "padding must have 1 or 3 values, got %llu", (unsigned long long)padding->size);
    int64_t p[3];
    for (int i = 0; i < 3; i++) p[i] = pm_attr(padding, i, one);
    ACLNN_CHECK(p[0] >= 0 && p[1] >= 0 && p[2] >= 0, ACLNN_ERR_PARAM_INVALID,
                "padding values must be >= 0, got %lld, %lld, %lld", (long long)p[0], (long long)p[1],
                (long long)p[2]);
    ACLNN_CHECK(p[0] <= k[0] / 2 && p[1] <= k[1] / 2 && p[2] <= k[2] / 2, ACLNN_ERR_PARAM_INVALID,
                "padding must be <= half of kernelSize, got padding %lld, %lld, %lld for kernelSize %lld, %lld, %lld",
                (long long)p[0], (long long)p[1], (long long)p[2], (long long)k[0], (long long)k[1], (long long)k[2]);
    ACLNN_CHECK(dilation->size == 1 || dilation->size == 3, ACLNN_ERR_PARAM_INVALID,
                "dilation must have 1 or 3 values, got %llu", (unsigned long long)dilation->size);
    int64_t d[3];
    for (int i = 0; i < 3; i++) d[i] = pm_attr(dilation, i, one);
    if (need_unit_dilation)
        ACLNN_CHECK(d[0] == 1 && d[1] == 1 && d[2] == 1, ACLNN_ERR_PARAM_INVALID,
                    "dilation must be 1, got %lld, %lld, %lld", (long long)d[0], (long long)d[1], (long long)d[2]);
    else
        ACLNN_CHECK(d[0] > 0 && d[1] > 0 && d[2] > 0, ACLNN_ERR_PARAM_INVALID,
                    "dilation values must be > 0, got %lld, %lld, %lld", (long long)d[0], (long long)d[1],
                    (long long)d[2]);
    for (int i = 0; i < 3; i++) {
        pp->k[i] = k[i];
        pp->s[i] = s[i];
        pp->p[i] = p[i];
        pp->dl[i] = d[i];
    }
    return ACLNN_SUCCESS;
}
/* NULL checks of the four attribute lists and of the two out-parameters, in the ops' order. */
static inline aclnnStatus pm_check_attr_lists(const aclIntArray *kernelSize, const aclIntArray *stride,
                                              const aclIntArray *padding, const aclIntArray *dilation) {
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_int_array(dilation, "dilation"));
    return ACLNN_SUCCESS;
}

static inline aclnnStatus pm_check_ws_exec(const uint64_t *workspaceSize, aclOpExecutor *const *executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL");
    return ACLNN_SUCCESS;
}

/* `name` has rank lo or lo + 1 (the optional batch axis) */
static inline aclnnStatus pm_check_ndim(const aclTensor *t, const char *name, int lo) {
    ACLNN_CHECK((int)t->ndim == lo || (int)t->ndim == lo + 1, ACLNN_ERR_PARAM_INVALID,
                "%s has %llu dims, must be %d or %d", name, (unsigned long long)t->ndim, lo, lo + 1);
    return ACLNN_SUCCESS;
}

/* The backward ops' format rules: self, gradOutput and gradInput alike, none of the four private. */
static inline aclnnStatus pm_check_bwd_formats(const aclTensor *self, const aclTensor *gradOutput,
                                               const aclTensor *gradInput, const aclTensor *indices) {
    ACLNN_CHECK(self->format == gradOutput->format && self->format == gradInput->format, ACLNN_ERR_PARAM_INVALID,
                "self, gradOutput and gradInput must have the same format");
    ACLNN_CHECK(!acl_format_is_private(self->format) && !acl_format_is_private(gradInput->format) &&
                    !acl_format_is_private(gradOutput->format) && !acl_format_is_private(indices->format),
                ACLNN_ERR_PARAM_INVALID, "self, gradOutput, gradInput and indices must not use a private format");
    return ACLNN_SUCCESS;
}

/* The plane of a 2-D pool's self (after pm_axes2d): N (1 without a batch axis), C, H, W. */
static inline void pm_plane2d(const aclTensor *self, const pool_max_params *pp, int64_t *n, int64_t *c, int64_t *h,
                              int64_t *w) {
    *n = self->ndim == 3 ? 1 : self->dims[0];
    *c = self->dims[pp->lead[pp->lead[1] >= 0 ? 1 : 0]];
    *h = self->dims[pp->sp[1]];
    *w = self->dims[pp->sp[2]];
}

/* The pooled plane oh x ow of an h x w plane (161002 when empty) and the pooled shape of self in `want`. */
static inline aclnnStatus pm_pooled2d(const aclTensor *self, const pool_max_params *pp, int64_t h, int64_t w,
                                      bool ceilMode, int64_t *oh, int64_t *ow, int64_t want[4]) {
    *oh = pool_out_size(h, pp->k[1], pp->s[1], pp->p[1], 1, ceilMode);
    *ow = pool_out_size(w, pp->k[2], pp->s[2], pp->p[2], 1, ceilMode);
    ACLNN_CHECK(*oh > 0 && *ow > 0, ACLNN_ERR_PARAM_INVALID,
                "self's plane %lldx%lld pools to %lldx%lld, which is empty", (long long)h, (long long)w,
                (long long)*oh, (long long)*ow);
    for (uint64_t i = 0; i < self->ndim; i++) want[i] = self->dims[i];
    want[pp->sp[1]] = *oh;
    want[pp->sp[2]] = *ow;
    return ACLNN_SUCCESS;
}
#endif
